//! A `Joints` entry read into a [`JointSpec`] — kind, bodies, frames (or Denavit–Hartenberg
//! parameters), coordinates' names and initial values — for either way of carrying bodies
//! (joint coordinates, [`super::tree`]; natural coordinates, [`super::joints`]); the
//! coordinates created; gears between joint coordinates.

use super::body_parts::Kind;
use super::frames::{Pose, marker_frame};
use super::*;

/// A joint as a file gives it (not a gear): its kind, bodies, frames and coordinates.
pub(super) struct JointSpec {
    pub(super) name: String,
    pub(super) path: KeyPath,
    pub(super) kind: Kind,
    /// `[parent, child]` (the parent may be `ground`).
    pub(super) pair: Vec<String>,
    /// The frames on the parent and on the child, in their bodies' frames.
    pub(super) parent_m: Pose,
    pub(super) child_m: Pose,
    /// The coordinates' names (none for a spherical or fixed joint), whether the file named
    /// them, and their `initial` values when given.
    pub(super) cnames: Vec<String>,
    pub(super) named: bool,
    pub(super) initial: Option<Vec<f64>>,
}

/// One entry of `Joints` that is not a gear, read.
pub(super) fn read_joint(
    b: &Builder,
    name: &str,
    m: &Mapping,
    p: &KeyPath,
) -> Result<JointSpec, SpecError> {
    let tp = sub(p, "type");
    let kind_name = b
        .ctx
        .required(m, p, "type")?
        .as_str()
        .map(str::trim)
        .ok_or_else(|| b.ctx.err(&tp, "expected a joint type"))?;
    let known: Vec<&str> = Kind::ALL.iter().map(|(n, _)| *n).collect();
    let kind = Kind::ALL
        .iter()
        .find(|(n, _)| *n == kind_name)
        .map(|(_, k)| *k)
        .ok_or_else(|| {
            b.ctx.err(
                &tp,
                format!(
                    "unknown joint type '{kind_name}' (known: {}, gear)",
                    known.join(", ")
                ),
            )
        })?;
    let planar = b.dim == 2;
    if planar && !super::planar::kind_allowed(kind) {
        return Err(b.ctx.err(
            &tp,
            format!(
                "a '{kind_name}' joint is spatial; in the plane (Dimension 2) a joint is \
                 revolute, prismatic, fixed or gear"
            ),
        ));
    }
    b.ctx.keys(
        m,
        p,
        Some(&[
            "type",
            "bodies",
            "parent",
            "child",
            "dh",
            "initial",
            "coordinates",
        ]),
    )?;
    let bp = sub(p, "bodies");
    let pair = names(b.ctx.required(m, p, "bodies")?, Some(2)).ok_or_else(|| {
        b.ctx
            .err(&bp, "expected [parent, child]: two body names (or ground)")
    })?;
    if pair[0] == pair[1] {
        return Err(b.ctx.err(&bp, "a joint joins two different bodies"));
    }
    if pair[1] == "ground" {
        return Err(b.ctx.err(
            &bp,
            "the child is a body that moves: write [ground, Body] for a joint to the world",
        ));
    }
    let frame_of = |b: &Builder, key: &str| match planar {
        true => super::planar::marker(b, m.get(key), &sub(p, key)),
        false => marker_frame(b, m.get(key), &sub(p, key)),
    };
    let (mut parent_m, mut child_m) = (frame_of(b, "parent")?, frame_of(b, "child")?);
    if planar && m.contains_key("dh") {
        return Err(b.ctx.err(
            &sub(p, "dh"),
            "dh (Denavit–Hartenberg) is for spatial joints: in the plane give parent and child \
             frames { at: [x, y], angle: θ }",
        ));
    }
    if let Some(dh) = m.get("dh") {
        (parent_m, child_m) = denavit_hartenberg(b, kind, dh, parent_m, m, p)?;
    }
    let (cnames, initial) = coordinate_spec(b, name, kind, kind_name, m, p)?;
    Ok(JointSpec {
        name: name.to_string(),
        path: p.clone(),
        kind,
        pair,
        parent_m,
        child_m,
        cnames,
        named: m.contains_key("coordinates"),
        initial,
    })
}

/// Whether a `Joints` entry is a gear.
pub(super) fn is_gear(m: &Mapping) -> bool {
    m.get("type").and_then(Value::as_str).map(str::trim) == Some("gear")
}

/// `dh`: the child's frame of a revolute (`[d, a, α]`) or prismatic (`[θ, a, α]`) joint in
/// standard Denavit–Hartenberg form, `A = Rz(θ) Tz(d) Tx(a) Rx(α)` with the joint frame at the
/// parent's: `(parent, child)` markers.
fn denavit_hartenberg(
    b: &Builder,
    kind: Kind,
    dh: &Value,
    parent_m: Pose,
    m: &Mapping,
    p: &KeyPath,
) -> Result<(Pose, Pose), SpecError> {
    let dp = sub(p, "dh");
    if m.contains_key("child") {
        return Err(b
            .ctx
            .err(&dp, "dh gives the child's frame: leave out child"));
    }
    let [x0, a, alpha] = b.ctx.vector(dh, &dp, 3)?;
    let tail = Pose::shift(0, a).then(&Pose::rot(0, alpha));
    let (parent_m, outer) = match kind {
        Kind::Revolute => (parent_m, Pose::shift(2, x0).then(&tail)),
        Kind::Prismatic => (parent_m.then(&Pose::rot(2, x0)), tail),
        _ => {
            return Err(b.ctx.err(
                &dp,
                "dh (Denavit–Hartenberg) describes revolute and prismatic joints",
            ));
        }
    };
    Ok((parent_m, outer.inverse()))
}

/// A joint's coordinates' names — given by `coordinates` or after the joint — and their
/// `initial` values when given.
#[allow(clippy::type_complexity)]
fn coordinate_spec(
    b: &Builder,
    name: &str,
    kind: Kind,
    kind_name: &str,
    m: &Mapping,
    p: &KeyPath,
) -> Result<(Vec<String>, Option<Vec<f64>>), SpecError> {
    let n = kind.coordinates().len();
    let cp = sub(p, "coordinates");
    let cnames: Vec<String> = match m.get("coordinates") {
        Some(c) => {
            let list = names(c, None).ok_or_else(|| b.ctx.err(&cp, "expected a list of names"))?;
            if list.len() != n {
                return Err(b.ctx.err(
                    &cp,
                    format!(
                        "a {kind_name} joint has {n} coordinate(s), {} named",
                        list.len()
                    ),
                ));
            }
            list
        }
        None => kind
            .coordinates()
            .iter()
            .map(|s| format!("{name}{s}"))
            .collect(),
    };
    let ivp = sub(p, "initial");
    let initial: Option<Vec<f64>> = match m.get("initial") {
        None => None,
        Some(v) if n == 1 && !v.is_sequence() => Some(vec![b.ctx.num(v, &ivp)?]),
        Some(v) => {
            let s = v.as_sequence().filter(|s| s.len() == n).ok_or_else(|| {
                b.ctx.err(
                    &ivp,
                    format!("expected {n} initial value(s), one per coordinate"),
                )
            })?;
            Some(
                s.iter()
                    .map(|x| b.ctx.num(x, &ivp))
                    .collect::<Result<_, _>>()?,
            )
        }
    };
    Ok((cnames, initial))
}

/// A joint's coordinates created, named as `j` names them, with `initial` as their position
/// guesses: the leaves `q_k`.
pub(super) fn create_coordinates(
    b: &mut Builder,
    j: &JointSpec,
    initial: &[f64],
) -> Result<Vec<VExpr>, SpecError> {
    let mut q = Vec::new();
    let cp = sub(&j.path, "coordinates");
    for (cn, &x0) in j.cnames.iter().zip(initial) {
        b.check_name(cn, ItemKind::Scalar, &cp).map_err(|e| {
            if j.named {
                e
            } else {
                b.ctx.err(
                    &j.path,
                    format!(
                        "the joint's coordinate would be named '{cn}', which is not a free \
                         scalar name ({}): name it under coordinates: [...]",
                        e.message
                    ),
                )
            }
        })?;
        let idx = b.new_coords(cn, 1, ItemKind::Scalar);
        b.guess[idx[0]] = Some(x0);
        b.scalars.insert(cn.clone(), Point::Free(idx.clone()));
        q.push(VExpr::coord(idx[0]));
    }
    Ok(q)
}

/// A YAML list of names (of `len` entries when given), trimmed; `None` when it is not one.
fn names(v: &Value, len: Option<usize>) -> Option<Vec<String>> {
    let s = v
        .as_sequence()
        .filter(|s| len.is_none_or(|n| s.len() == n))?;
    s.iter()
        .map(|x| x.as_str().map(|x| x.trim().to_string()))
        .collect()
}

/// `type: gear`: `b = ratio · a + offset` between two scalar coordinates (joint coordinates).
pub(super) fn gear(b: &mut Builder, name: &str, m: &Mapping, p: &KeyPath) -> Result<(), SpecError> {
    b.ctx
        .keys(m, p, Some(&["type", "coordinates", "ratio", "offset"]))?;
    let cp = sub(p, "coordinates");
    let pair = names(b.ctx.required(m, p, "coordinates")?, Some(2)).ok_or_else(|| {
        b.ctx
            .err(&cp, "expected [driving, driven]: two joint coordinates")
    })?;
    let coord = |n: &str| match b.scalars.get(n) {
        Some(Point::Free(idx)) => Ok(VExpr::coord(idx[0])),
        _ => Err(b.ctx.err(
            &cp,
            format!(
                "'{n}' is not a joint coordinate or scalar coordinate (joints above define them)"
            ),
        )),
    };
    let (a, c) = (coord(&pair[0])?, coord(&pair[1])?);
    let ratio = b
        .ctx
        .num(b.ctx.required(m, p, "ratio")?, &sub(p, "ratio"))?;
    let offset = match m.get("offset") {
        Some(o) => b.ctx.num(o, &sub(p, "offset"))?,
        None => 0.0,
    };
    let ok = |r: Result<VExpr, String>| r.expect("a gear's equation is well-typed");
    let rhs = ok(VExpr::sum(
        ok(VExpr::product(VExpr::constant(ratio), a)),
        VExpr::constant(offset),
        false,
    ));
    let e = ok(VExpr::sum(c, rhs, true));
    b.equation(&format!("gear {name}"), &e, p)?;
    b.checks.push((p.clone(), e));
    Ok(())
}
