//! `AppliedForces.Forces`: forces at points and generalized forces along scalar quantities,
//! written as expressions of time, positions and velocities.
//!
//! A key names where the force acts: a point (`A: [fx, fy]` or a vector expression such as
//! `-c*norm(A')*A'`), or a scalar quantity — a scalar (`mu: f`, a coordinate or a `Define`d
//! scalar such as an angle) or a component of a point or vector (`A.x: f`) — whose value is the
//! generalized force along it (a load on a coordinate, a torque along an angle).

use super::*;

/// Where a force acts: the point (a scalar quantity `s` is the point `(s, 0, 0)`) and whether
/// it is a scalar quantity.
fn target(b: &Builder, name: &str, q: &KeyPath) -> Result<(PointMap, bool), SpecError> {
    if b.points.contains_key(name) {
        return Ok((b.pmap(name), false));
    }
    if let Some(x) = super::coordinates::quantity(b, name) {
        return Ok((x.map, true));
    }
    let axes = ["x", "y", "z"][..b.dim].join(", ");
    Err(b.ctx.err(
        q,
        format!(
            "unknown point or scalar '{name}' (a force acts at a point, 'A: [fx, fy]', or along \
             a scalar quantity: a scalar 'mu: f' or a component 'A.x: f' with the component one \
             of {axes})"
        ),
    ))
}

/// One scalar expression of a force (time, positions and velocities allowed).
fn scalar(b: &mut Builder, v: &Value, q: &KeyPath) -> Result<VExpr, SpecError> {
    let e = b.vexpr_with_velocities(v, q)?;
    if e.is_vector() {
        return Err(b.ctx.err(q, "expected a scalar, found a vector"));
    }
    if !e.has_velocity() {
        b.checks.push((q.clone(), e.clone()));
    }
    Ok(e)
}

/// The force's three world components (zero beyond `Dimension`).
fn components(
    b: &mut Builder,
    v: &Value,
    q: &KeyPath,
    on_scalar: bool,
) -> Result<[VExpr; 3], SpecError> {
    let zero = VExpr::constant(0.0);
    if on_scalar {
        return Ok([scalar(b, v, q)?, zero.clone(), zero]);
    }
    let dim = b.dim;
    let list: Vec<VExpr> = match v {
        Value::Sequence(s) if s.len() == dim => s
            .iter()
            .map(|x| scalar(b, x, q))
            .collect::<Result<_, _>>()?,
        Value::Sequence(s) => {
            return Err(b.ctx.err(
                q,
                format!(
                    "expected {dim} components (Dimension is {dim}), found {}",
                    s.len()
                ),
            ));
        }
        Value::String(_) => {
            let e = b.vexpr_with_velocities(v, q)?;
            if !e.is_vector() {
                return Err(b.ctx.err(
                    q,
                    format!(
                        "a force at a point is a vector ({dim} components, or an expression such \
                         as -c*norm(A')*A'), found a scalar"
                    ),
                ));
            }
            if !e.has_velocity() {
                b.checks.push((q.clone(), e.clone()));
            }
            (0..dim)
                .map(|k| VExpr::comp(e.clone(), k).map_err(|m| b.ctx.err(q, m)))
                .collect::<Result<_, _>>()?
        }
        other => {
            return Err(b.ctx.err(
                q,
                format!(
                    "expected a list of {dim} expressions or a vector expression, found {}",
                    kind(other)
                ),
            ));
        }
    };
    let mut f = [zero.clone(), zero.clone(), zero];
    for (k, e) in list.into_iter().enumerate() {
        f[k] = e;
    }
    Ok(f)
}

/// `AppliedForces.Forces`.
pub(super) fn forces(b: &mut Builder, value: &Value, p: &KeyPath) -> Result<(), SpecError> {
    let m = b.ctx.map(value, p)?;
    for (name, val) in b.ctx.keys(m, p, None)? {
        let q = sub(p, &name);
        let (at, on_scalar) = target(b, &name, &q)?;
        let force = components(b, val, &q, on_scalar)?;
        let dim = b.dim;
        let placed = place::force_at(dim, &at, force).map_err(|e| b.element_error(e, &q))?;
        if placed.is_none() {
            return Err(b.ctx.err(
                &q,
                format!(
                    "'{name}' does not move (a fixed point, or an item given by constants): a \
                     force on it does no work and changes nothing — put it on a moving point \
                     (the force a support takes is reported as its reaction)"
                ),
            ));
        }
        b.place(Ok(placed), &q)?;
    }
    Ok(())
}
