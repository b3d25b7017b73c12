//! The sections of a mechanism file that declare parameters, items, elements, loads and
//! equations, in the order they are read.

use super::*;
use crate::model::elements::{BodyTorque, ExprEnergy, PlanarTorque};

/// A lookup of the `PartData` sections by name (null sections count as absent).
pub(super) type Parts<'a, 'v> = &'a dyn Fn(&str) -> Option<&'v Value>;

/// `PhysicalParams`, in order; each may use the earlier ones.
pub(super) fn physical_params(b: &mut Builder, value: Option<&Value>) -> Result<(), SpecError> {
    // PhysicalParams, in order; each may use the earlier ones
    if let Some(pp) = value {
        let p = path(&["PhysicalParams"]);
        if !pp.is_null() {
            let m = b.ctx.map(pp, &p)?;
            for (name, val) in b.ctx.keys(m, &p, None)? {
                let q = sub(&p, &name);
                if !name.chars().next().is_some_and(char::is_alphabetic)
                    || name == "t"
                    || name == "pi"
                {
                    return Err(b
                        .ctx
                        .err(&q, format!("'{name}' cannot be a parameter name")));
                }
                let x = match b.ctx.sets.iter().find(|(n, _)| *n == name) {
                    Some(&(_, x)) => x,
                    None => b.ctx.num(val, &q)?,
                };
                b.ctx.scope.set(&name, x);
                b.ctx.names.push(name);
            }
        }
    }
    if let Some((name, _)) = b.ctx.sets.iter().find(|(n, _)| !b.ctx.names.contains(n)) {
        let known = match b.ctx.names.is_empty() {
            true => "the file has none".to_string(),
            false => format!("the file's parameters: {}", b.ctx.names.join(", ")),
        };
        return Err(b.ctx.err(
            &path(&["PhysicalParams"]),
            format!("cannot set '{name}': there is no parameter '{name}' ({known})"),
        ));
    }
    Ok(())
}

/// `AppliedForces`: checks its keys and reads `Gravity` (elements need it); returns the mapping
/// for [`loads`], which are read after the parts.
pub(super) fn gravity<'v>(
    b: &mut Builder,
    forces: Option<&'v Value>,
    fp: &KeyPath,
) -> Result<Option<&'v Mapping>, SpecError> {
    let dim = b.dim;
    // AppliedForces.Gravity first (elements need it)
    let fmap = match forces {
        Some(Value::Null) | None => None,
        Some(f) => Some(b.ctx.map(f, fp)?),
    };
    if let Some(fm) = fmap {
        b.ctx.keys(
            fm,
            fp,
            Some(&["Gravity", "Forces", "Torques", "Potentials", "Dissipation"]),
        )?;
        if let Some(g) = fm.get("Gravity") {
            let gp = sub(fp, "Gravity");
            let mut gv = [0.0; 3];
            let default = 9.81;
            match g {
                Value::Null => gv[dim - 1] = -default,
                Value::Sequence(_) => gv = b.ctx.vector(g, &gp, dim)?,
                other => gv[dim - 1] = -b.ctx.num(other, &gp)?,
            }
            b.gravity = gv;
        }
    }

    Ok(fmap)
}

/// Items: `Fixed`, `FixedVectors`, `Points`, `Vectors`, `Scalars`, and the `Define`
/// assignments.
pub(super) fn items(b: &mut Builder, part: Parts) -> Result<(), SpecError> {
    let dim = b.dim;
    if let Some(f) = part("Fixed") {
        let p = sub(&b.part_path, "Fixed");
        let m = b.ctx.map(f, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let pos = b.ctx.vector(val, &q, dim)?;
            b.check_name(&name, ItemKind::Point, &q)?;
            b.order.push(name.clone());
            b.points.insert(name, Point::Fixed(pos));
        }
    }
    if let Some(f) = part("FixedVectors") {
        let p = sub(&b.part_path, "FixedVectors");
        let m = b.ctx.map(f, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let v = b.ctx.vector(val, &q, dim)?;
            b.check_name(&name, ItemKind::Vector, &q)?;
            b.vectors.insert(name, Point::Fixed(v));
        }
    }
    for (section, kind) in [
        ("Points", ItemKind::Point),
        ("Vectors", ItemKind::Vector),
        ("Scalars", ItemKind::Scalar),
    ] {
        let Some(list) = part(section) else { continue };
        let p = sub(&b.part_path, section);
        let names = list.as_sequence().ok_or_else(|| {
            b.ctx.err(
                &p,
                format!("expected a list of names, found {}", kind_of(list)),
            )
        })?;
        for nv in names {
            let name = nv
                .as_str()
                .ok_or_else(|| {
                    b.ctx.err(
                        &p,
                        format!("expected a list of names, found {} in it", kind_of(nv)),
                    )
                })?
                .trim()
                .to_string();
            let q = sub(&p, &name);
            b.check_name(&name, kind, &q)?;
            match kind {
                ItemKind::Point => b.new_free(&name, &q)?,
                ItemKind::Vector => {
                    let idx = b.new_coords(&name, dim, kind);
                    b.vectors.insert(name, Point::Free(idx));
                }
                ItemKind::Scalar => {
                    let idx = b.new_coords(&name, 1, kind);
                    b.scalars.insert(name, Point::Free(idx));
                }
            }
        }
    }
    // Define: assignments, in order; each may use the items before it
    if let Some(d) = part("Define") {
        let p = sub(&b.part_path, "Define");
        let m = b.ctx.map(d, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let e = b.vexpr(val, &q)?;
            let kind = if !e.is_vector() {
                ItemKind::Scalar
            } else if name.starts_with(char::is_uppercase) {
                ItemKind::Point
            } else {
                ItemKind::Vector
            };
            b.check_name(&name, kind, &q)?;
            b.checks.push((q, e.clone()));
            match kind {
                ItemKind::Point => {
                    b.points.insert(name.clone(), Point::General(e));
                    b.order.push(name);
                }
                ItemKind::Vector => {
                    b.vectors.insert(name, Point::General(e));
                }
                ItemKind::Scalar => {
                    b.scalars.insert(name, Point::General(e));
                }
            }
        }
    }

    Ok(())
}

/// Elements: `Rigids`, `Bodies` and `Joints`, `Particles`, the `Chains` and `Grids` generators, `Springs`, `Bars`.
pub(super) fn elements(b: &mut Builder, part: Parts) -> Result<(), SpecError> {
    if let Some(r) = part("Rigids") {
        let p = sub(&b.part_path, "Rigids");
        let m = b.ctx.map(r, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            rigid(b, &name, val, &sub(&p, &name))?;
        }
    }

    let joint_space = match part("Coordinates") {
        None => true,
        Some(v) => match v.as_str().map(str::trim) {
            Some("joint") => true,
            Some("natural") => false,
            _ => {
                return Err(b.ctx.err(
                    &sub(&b.part_path, "Coordinates"),
                    "expected joint (bodies in joint coordinates, the default) or natural \
                     (each body by its origin and two unit vectors)",
                ));
            }
        },
    };
    match (part("Bodies"), b.dim) {
        (Some(v), 2 | 3) if joint_space => super::tree::bodies_and_joints(b, v, part("Joints"))?,
        (bodies, _) => {
            if let Some(v) = bodies {
                super::joints::bodies(b, v)?;
            }
            if let Some(v) = part("Joints") {
                super::joints::joints(b, v)?;
            }
        }
    }

    if let Some(pa) = part("Particles") {
        let p = sub(&b.part_path, "Particles");
        let m = b.ctx.map(pa, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let mass = b.ctx.positive(val, &q, "a mass")?;
            if b.taken(&name).is_none() {
                b.check_name(&name, ItemKind::Point, &q)?;
                b.new_free(&name, &q)?;
            }
            if !b.points.contains_key(&name) {
                return Err(b.ctx.err(&q, format!("'{name}' is not a point")));
            }
            let a = b.pmap(&name);
            if a.is_fixed() {
                return Err(b.ctx.err(
                    &q,
                    format!("'{name}' is a fixed point; a particle there would not move"),
                ));
            }
            b.particle(&a, mass, &q)?;
        }
    }

    if let Some(c) = part("Chains") {
        let p = sub(&b.part_path, "Chains");
        let m = b.ctx.map(c, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            chain(b, &name, val, &sub(&p, &name))?;
        }
    }
    if let Some(g) = part("Grids") {
        let p = sub(&b.part_path, "Grids");
        let m = b.ctx.map(g, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            grid(b, &name, val, &sub(&p, &name))?;
        }
    }

    if let Some(s) = part("Springs") {
        springs(b, s)?;
    }
    if let Some(s) = part("Bars") {
        bars(b, s)?;
    }
    Ok(())
}

/// `Springs`: `[k, l]`, `[k, l, mass(, damping)]` or a mapping, between two points.
pub(super) fn springs(b: &mut Builder, s: &Value) -> Result<(), SpecError> {
    let p = sub(&b.part_path, "Springs");
    let m = b.ctx.map(s, &p)?;
    for (key, val) in b.ctx.keys(m, &p, None)? {
        let q = sub(&p, &key);
        let (a, c) = two_points(b, &key, &q)?;
        // [k, l] | [k, l, mass] | {stiffness, length, mass, damping}
        let (k, l, mass, damp) = match val {
            Value::Sequence(sq) if (2..=4).contains(&sq.len()) => {
                let k = b.ctx.num(&sq[0], &q)?;
                let l = b.ctx.num(&sq[1], &q)?;
                let mass = sq.get(2).map(|x| b.ctx.num(x, &q)).transpose()?.unwrap_or(0.0);
                let damp = sq.get(3).map(|x| b.ctx.num(x, &q)).transpose()?.unwrap_or(0.0);
                (k, l, mass, damp)
            }
            Value::Mapping(mm) => {
                b.ctx.keys(mm, &q, Some(&["stiffness", "length", "mass", "damping"]))?;
                let k = b.ctx.num(b.ctx.required(mm, &q, "stiffness")?, &sub(&q, "stiffness"))?;
                let l = b.ctx.num(b.ctx.required(mm, &q, "length")?, &sub(&q, "length"))?;
                let mass = mm.get("mass").map(|x| b.ctx.num(x, &sub(&q, "mass"))).transpose()?.unwrap_or(0.0);
                let damp = mm.get("damping").map(|x| b.ctx.num(x, &sub(&q, "damping"))).transpose()?.unwrap_or(0.0);
                (k, l, mass, damp)
            }
            other => {
                return Err(b.ctx.err(
                    &q,
                    format!("expected [stiffness, length] or [stiffness, length, mass(, damping)], found {}", kind(other)),
                ))
            }
        };
        if !(k > 0.0) {
            return Err(b
                .ctx
                .err(&q, format!("stiffness must be positive, got {k}")));
        }
        if !(l >= 0.0) || !(mass >= 0.0) || !(damp >= 0.0) {
            return Err(b
                .ctx
                .err(&q, "length, mass and damping must not be negative"));
        }
        b.spring([&a, &c], [k, l, mass, damp], &q)?;
        let d = VExpr::sum(file_vexpr(&c), file_vexpr(&a), true).map_err(|m| b.ctx.err(&q, m))?;
        let length = VExpr::norm(d).map_err(|m| b.ctx.err(&q, m))?;
        let force = columns::tension(&length, k, l, damp).map_err(|m| b.ctx.err(&q, m))?;
        b.members.push((format!("{key}.force"), force));
        b.members.push((format!("{key}.length"), length));
        let kind = if mass > 0.0 {
            LinkKind::MassiveSpring
        } else {
            LinkKind::Spring
        };
        b.link(&key, kind);
    }
    Ok(())
}

/// `Bars`: a length, or `[length, mass]`, between two points.
pub(super) fn bars(b: &mut Builder, s: &Value) -> Result<(), SpecError> {
    let p = sub(&b.part_path, "Bars");
    let m = b.ctx.map(s, &p)?;
    for (key, val) in b.ctx.keys(m, &p, None)? {
        let q = sub(&p, &key);
        let (a, c) = two_points(b, &key, &q)?;
        let items = seq_or_single(val);
        if items.is_empty() || items.len() > 2 {
            return Err(b.ctx.err(&q, "expected length or [length, mass]"));
        }
        let l = b.ctx.positive(items[0], &q, "a bar length")?;
        let mass = items
            .get(1)
            .map(|x| b.ctx.num(x, &q))
            .transpose()?
            .unwrap_or(0.0);
        if mass < 0.0 {
            return Err(b.ctx.err(&q, "a bar mass must not be negative"));
        }
        b.bar(&format!("bar {key}"), &a, &c, l, &q)?;
        b.link(
            &key,
            if mass > 0.0 {
                LinkKind::MassiveBar
            } else {
                LinkKind::Bar
            },
        );
        if mass > 0.0 {
            b.spring([&a, &c], [0.0, l, mass, 0.0], &q)?;
        }
    }
    Ok(())
}

/// `AppliedForces.Forces` (see [`super::forces`]), `Potentials`, `Dissipation` and `Torques`.
pub(super) fn loads(
    b: &mut Builder,
    fmap: Option<&Mapping>,
    fp: &KeyPath,
) -> Result<(), SpecError> {
    let dim = b.dim;
    // Forces and torques
    if let Some(fm) = fmap {
        if let Some(f) = fm.get("Forces").filter(|v| !v.is_null()) {
            super::forces::forces(b, f, &sub(fp, "Forces"))?;
        }
        if let Some(v) = fm.get("Potentials").filter(|v| !v.is_null()) {
            potentials(b, v, &sub(fp, "Potentials"))?;
        }
        if let Some(v) = fm.get("Dissipation").filter(|v| !v.is_null()) {
            let p = sub(fp, "Dissipation");
            let m = b.ctx.map(v, &p)?;
            for (name, val) in b.ctx.keys(m, &p, None)? {
                let q = sub(&p, &name);
                let r = rayleigh(b, val, &q)?;
                let energy = ExprEnergy {
                    dissipation: Some(r),
                    ..Default::default()
                };
                place_energy(b, energy, &q)?;
            }
        }
        if let Some(t) = fm.get("Torques").filter(|v| !v.is_null()) {
            let p = sub(fp, "Torques");
            let m = b.ctx.map(t, &p)?;
            for (name, val) in b.ctx.keys(m, &p, None)? {
                let q = sub(&p, &name);
                if b.tree_bodies.contains_key(&name) {
                    super::tree::torque(b, &name, val, &q)?;
                    continue;
                }
                let body = b
                    .bodies
                    .get(&name)
                    .cloned()
                    .ok_or_else(|| b.ctx.err(&q, format!("unknown rigid body '{name}'")))?;
                match body {
                    Body::Planar(a0, a1, len) => {
                        let tau = b.ctx.time_expr(val, &q)?;
                        let placed = place::point_load_on(dim, &[&a0, &a1], |basic| PlanarTorque {
                            basic,
                            torque: tau,
                            length: len,
                        });
                        b.place(placed, &q)?;
                    }
                    Body::Spatial(items, frame) => {
                        let torque = padded(b.ctx.vector_expr(val, &q, 3)?);
                        let [i0, i1, i2] = &items;
                        let placed = place::point_load_on(3, &[i0, i1, i2], |items| BodyTorque {
                            items,
                            frame,
                            torque,
                        });
                        b.place(placed, &q)?;
                    }
                }
            }
        }
    }

    Ok(())
}

/// `AppliedForces.Potentials`: named potential energies `V(t, q)`, scalar expressions over
/// points, scalars and parameters (e.g. `-G*m1*m2/norm(A - B)`).
fn potentials(b: &mut Builder, v: &Value, p: &KeyPath) -> Result<(), SpecError> {
    let m = b.ctx.map(v, p)?;
    for (name, val) in b.ctx.keys(m, p, None)? {
        let q = sub(p, &name);
        let e = scalar_energy(b, val, &q, false)?;
        b.checks.push((q.clone(), e.clone()));
        let energy = ExprEnergy {
            potential: Some(e),
            ..Default::default()
        };
        place_energy(b, energy, &q)?;
    }
    Ok(())
}

/// A scalar energy expression (velocities allowed when `velocities`).
fn scalar_energy(
    b: &Builder,
    val: &Value,
    q: &KeyPath,
    velocities: bool,
) -> Result<VExpr, SpecError> {
    let e = match velocities {
        true => b.vexpr_with_velocities(val, q)?,
        false => b.vexpr(val, q)?,
    };
    if e.is_vector() {
        return Err(b.ctx.err(
            q,
            "an energy must be a scalar (e.g. norm(A - B), dot(A', A'))",
        ));
    }
    Ok(e)
}

/// A Rayleigh function `R` at `q`: an error when it holds no velocity (`∂R/∂v = 0`: it would
/// dissipate nothing, silently).
fn rayleigh(b: &Builder, val: &Value, q: &KeyPath) -> Result<VExpr, SpecError> {
    let r = scalar_energy(b, val, q, true)?;
    if !r.has_velocity() {
        return Err(b.ctx.err(
            q,
            "a Rayleigh function is a function of the velocities (c/2*x'**2, c/2*dot(A', A')), \
             and this one holds none: it would dissipate nothing (a force of the positions is a \
             potential or an applied force)",
        ));
    }
    Ok(r)
}

/// Add energies written out; an error when they involve no coordinate or velocity.
pub(super) fn place_energy(
    b: &mut Builder,
    energy: ExprEnergy,
    q: &KeyPath,
) -> Result<(), SpecError> {
    let placed = place::energy(energy).map_err(|e| b.element_error(e, q))?;
    let Some(t) = placed else {
        return Err(b.ctx.err(
            q,
            "it does not involve any moving point, coordinate or velocity, so it exerts no force",
        ));
    };
    b.terms.push(t);
    Ok(())
}

/// `Lagrangian: { T, V, R }`: a Lagrangian written out — kinetic energy `T` (positions and
/// velocities `A'`, `mu'`), potential `V` (positions), Rayleigh function `R` — over the file's
/// points, vectors and scalars.
pub(super) fn lagrangian(b: &mut Builder, value: Option<&Value>) -> Result<(), SpecError> {
    let Some(v) = value.filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let p = path(&["Lagrangian"]);
    let m = b.ctx.map(v, &p)?;
    let keys = b.ctx.keys(m, &p, Some(&["T", "V", "R"]))?;
    let mut energy = ExprEnergy::default();
    for (key, val) in keys {
        let q = sub(&p, &key);
        let e = match key.as_str() {
            "R" => rayleigh(b, val, &q)?,
            _ => scalar_energy(b, val, &q, key != "V")?,
        };
        match key.as_str() {
            "T" => energy.kinetic = Some(e),
            "V" => {
                b.checks.push((q, e.clone()));
                energy.potential = Some(e);
            }
            _ => energy.dissipation = Some(e),
        }
    }
    place_energy(b, energy, &p)
}

/// Three components from a `dim`-vector of expressions (zero beyond).
fn padded(mut f: Vec<VExpr>) -> [VExpr; 3] {
    f.resize(3, VExpr::constant(0.0));
    [f[0].clone(), f[1].clone(), f[2].clone()]
}

/// `Equations`: constraints written out, `C(t, q) = 0`.
pub(super) fn equations(b: &mut Builder, value: Option<&Value>) -> Result<(), SpecError> {
    // Equations: constraints written out, C(t, q) = 0
    if let Some(eqs) = value {
        let p = sub(&b.part_path, "Equations");
        let m = b.ctx.map(eqs, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let e = b.vexpr(val, &q)?;
            if e.is_vector() {
                return Err(b.ctx.err(
                    &q,
                    "an equation must be a scalar (write one equation per component, or use dot)",
                ));
            }
            b.equation(&name, &e, &q)?;
            b.checks.push((q, e));
        }
    }

    Ok(())
}

/// `Drives`: prescribed motions `s(q) = f(t)` of a scalar quantity `s` (a coordinate, an angle,
/// a distance), each a constraint named `drive <name>` whose `−λ` is the force or torque the
/// drive delivers along `s` (the column `drive:<name>`).
pub(super) fn drives(b: &mut Builder, value: Option<&Value>) -> Result<(), SpecError> {
    let Some(v) = value else { return Ok(()) };
    let p = sub(&b.part_path, "Drives");
    let m = b.ctx.map(v, &p)?;
    for (name, val) in b.ctx.keys(m, &p, None)? {
        let q = sub(&p, &name);
        let dm = b.ctx.map(val, &q)?;
        b.ctx.keys(dm, &q, Some(&["quantity", "motion"]))?;
        let scalar = |key: &str| -> Result<VExpr, SpecError> {
            let k = sub(&q, key);
            let e = b.vexpr(b.ctx.required(dm, &q, key)?, &k)?;
            match e.is_vector() {
                true => Err(b
                    .ctx
                    .err(&k, format!("the {key} of a drive must be a scalar"))),
                false => Ok(e),
            }
        };
        let (s, f) = (scalar("quantity")?, scalar("motion")?);
        let mut on = std::collections::BTreeSet::new();
        f.coords(&mut on);
        if let Some(&j) = on.iter().next() {
            let what = b.coord_names.get(j).map_or("a coordinate", String::as_str);
            return Err(b.ctx.err(
                &sub(&q, "motion"),
                format!(
                    "the motion of a drive is a function of time and parameters only, but this \
                     one depends on {what}: a prescribed motion cannot depend on the state \
                     (write the relation as an equation under Equations, or move the \
                     coordinate-dependent part into the quantity)"
                ),
            ));
        }
        // an angle (atan2, a relative angle) is defined up to whole turns: the drive holds
        // it modulo 2π, so the crank turns on past ±π
        let angle = s.is_angle();
        let mut c = VExpr::sum(s, f, true).map_err(|e| b.ctx.err(&q, e))?;
        if angle {
            c = VExpr::func(Func::Wrap, c).map_err(|e| b.ctx.err(&q, e))?;
        }
        let block = format!("drive {name}");
        b.equation(&block, &c, &q)?;
        b.checks.push((q, c));
        b.drives.push(Drive { name, block });
    }
    Ok(())
}
