//! `Bodies` — rigid bodies in 3D given by their mass, centre of mass and inertia tensor, with an
//! initial pose and named markers — and `Joints` between them (revolute, prismatic,
//! cylindrical, spherical, universal, planar, fixed, and gears between joint coordinates).
//!
//! A body `Arm` is carried in natural coordinates (DAETS, Nedialkov & Pryce; García de Jalón):
//! its origin, the point `Arm`, and two unit vectors `Arm.i`, `Arm.j` of its frame are
//! coordinates held orthonormal by three rigidity rows; `Arm.k = Arm.i × Arm.j`. Its energy is
//! [`RigidBody3`]'s (a constant mass matrix in these coordinates). A joint ties a frame on its
//! parent (`P`: origin `o_P`, axes `x_P y_P z_P`) to a frame on its child (`C`) by equations in
//! those vectors, and each of its joint coordinates — an angle about `z_P`, a slide along it —
//! is a coordinate of its own, tied to the bodies by one equation (e.g.
//! `cos θ (x_C·y_P) − sin θ (x_C·x_P) = 0`): a continuous coordinate over any number of turns,
//! with a rate, for drives, forces, dampers, gears and outputs.
//!
//! In the plane (Dimension 2) `bodies` and `joint` hand the bodies, the joint frames, the
//! equations and the joint motions to [`super::planar`]; the coordinates, the placing of bodies
//! through joints and gears are shared.

use super::bodies::rigidity3;
use super::body_parts::{
    BODY_KEYS, BodyFrame, Kind, Side, combine, dot, markers, mass_and_centre, minus, ok, origin,
    place_body, placement, side, turned_by,
};
use super::frames::{Pose, inertia, rotation};
use super::joint_spec::{JointSpec, create_coordinates, gear, is_gear, read_joint};
use super::*;
use crate::model::elements::{RigidBody3, second_moment};
use nalgebra::{Matrix3, Vector3};

/// `Bodies`: each a rigid body by mass, centre of mass and inertia (in the plane: a moment of
/// inertia, [`super::planar::body`]).
pub(super) fn bodies(b: &mut Builder, v: &Value) -> Result<(), SpecError> {
    let p = sub(&b.part_path, "Bodies");
    if b.dim == 1 {
        return Err(b.ctx.err(
            &p,
            "Bodies are planar (Dimension 2) or spatial (Dimension 3)",
        ));
    }
    let m = b.ctx.map(v, &p)?;
    for (name, val) in b.ctx.keys(m, &p, None)? {
        match b.dim {
            2 => super::planar::body(b, &name, val, &sub(&p, &name))?,
            _ => body(b, &name, val, &sub(&p, &name))?,
        }
    }
    Ok(())
}

fn body(b: &mut Builder, name: &str, val: &Value, p: &KeyPath) -> Result<(), SpecError> {
    let m = b.ctx.map(val, p)?;
    b.ctx.keys(m, p, Some(BODY_KEYS))?;
    b.check_name(name, ItemKind::Point, p)?;
    let (mass, com) = mass_and_centre(b, m, p, 3)?;
    let ip = sub(p, "inertia");
    let inertia = inertia(b, b.ctx.required(m, p, "inertia")?, &ip)?;
    let second = second_moment(inertia).map_err(|e| b.ctx.err(&ip, e.to_string()))?;
    let (position, orientation) = placement(b, m, p, 3, |x, q| rotation(b, x, q))?;

    // the coordinates: the origin (a point named as the body) and the unit vectors i, j
    let mut coords = origin(b, name, p)?;
    let axis_names = [format!("{name}.i"), format!("{name}.j")];
    for an in &axis_names {
        let idx = b.new_coords(an, 3, ItemKind::Vector);
        coords.extend(&idx);
        b.vectors.insert(an.clone(), Point::Free(idx));
    }
    let origin = b.pmap(name);
    let (vi, vj) = (
        to_map(&b.vectors[&axis_names[0]]),
        to_map(&b.vectors[&axis_names[1]]),
    );
    let frame = Frame {
        b_point: false,
        c_point: false,
        b: 1.0,
        c: [0.0, 1.0],
    };
    let names = [
        name.to_string(),
        axis_names[0].clone(),
        axis_names[1].clone(),
    ];
    rigidity3(b, name, &names, [&origin, &vi, &vj], frame, p, p)?;
    let (ei, ej) = (file_vexpr(&vi), file_vexpr(&vj));
    let ek = ok(VExpr::cross(ei.clone(), ej.clone()));
    b.vectors
        .insert(format!("{name}.k"), Point::General(ek.clone()));
    let axes = [ei, ej, ek];
    let o = file_vexpr(&origin);

    // markers: named points of the body, `name.Marker`
    let mut drawn = vec![name.to_string()];
    for (full, local) in markers(b, name, m, p, 3)? {
        let e = ok(VExpr::sum(o.clone(), combine(&axes, local), false));
        b.points.insert(full.clone(), Point::General(e));
        b.order.push(full.clone());
        drawn.push(full);
    }

    let gravity = b.gravity;
    let placed = place::point_term_on(3, &[&origin, &vi, &vj], |items| RigidBody3 {
        items,
        frame,
        mass,
        centroid: com,
        second_moment: second,
        gravity,
    });
    b.place(placed, p)?;
    b.bodies
        .insert(name.to_string(), Body::Spatial([origin, vi, vj], frame));
    let shapes = match m.get("shapes").filter(|v| !v.is_null()) {
        Some(v) => super::shapes::shapes(b, v, &sub(p, "shapes"))?,
        None => Vec::new(),
    };
    b.body_items.push(GeoBody {
        name: name.to_string(),
        items: drawn,
        frame: Some([
            name.to_string(),
            axis_names[0].clone(),
            axis_names[1].clone(),
        ]),
        shapes,
    });
    let mut frame = BodyFrame {
        origin: o,
        axes,
        coords,
        placed: None,
    };
    if let Some(x) = position {
        let pose = Pose {
            r: orientation.unwrap_or_else(Matrix3::identity),
            p: Vector3::from(x),
        };
        place_body(b, &mut frame, pose);
    }
    b.frames.insert(name.to_string(), frame);
    Ok(())
}

/// `Joints`: each ties a frame on its parent body (or `ground`) to a frame on its child.
pub(super) fn joints(b: &mut Builder, v: &Value) -> Result<(), SpecError> {
    let p = sub(&b.part_path, "Joints");
    if b.dim == 1 {
        return Err(b.ctx.err(&p, "Joints join Bodies, in Dimension 2 or 3"));
    }
    let m = b.ctx.map(v, &p)?;
    for (name, val) in b.ctx.keys(m, &p, None)? {
        joint(b, &name, val, &sub(&p, &name))?;
    }
    // joints listed before the one that placed their parent or child: again, until no more
    // body is placed
    loop {
        let pending = std::mem::take(&mut b.unplaced);
        let before = pending.len();
        for w in pending {
            if !place_through(b, &w) {
                b.unplaced.push(w);
            }
        }
        if b.unplaced.len() == before {
            break;
        }
    }
    // every body needs a pose for its position guesses
    let mut names: Vec<&String> = b.frames.keys().collect();
    names.sort();
    for n in names {
        if b.frames[n].placed.is_none() {
            return Err(b.ctx.err(
                &sub(&b.part_path, "Bodies"),
                format!(
                    "body '{n}' has no initial pose: give it a position (and orientation), or \
                     join it to ground or to a placed body"
                ),
            ));
        }
    }
    Ok(())
}

fn joint(b: &mut Builder, name: &str, val: &Value, p: &KeyPath) -> Result<(), SpecError> {
    let m = b.ctx.map(val, p)?;
    if is_gear(m) {
        return gear(b, name, m, p);
    }
    let j = read_joint(b, name, m, p)?;
    let initial = j
        .initial
        .clone()
        .unwrap_or_else(|| vec![0.0; j.cnames.len()]);
    let q = create_coordinates(b, &j, &initial)?;
    let bp = sub(p, "bodies");
    let parent = side(b, &j.pair[0], j.parent_m, &bp)?;
    let child = side(b, &j.pair[1], j.child_m, &bp)?;
    joint_equations(b, &j, &parent, &child, &q)?;
    let unset = match j.initial {
        Some(_) => Vec::new(),
        None => (j.cnames.iter())
            .filter_map(|n| match b.scalars.get(n) {
                Some(Point::Free(idx)) => Some(idx[0]),
                _ => None,
            })
            .collect(),
    };
    let w = Unplaced {
        kind: j.kind,
        parent,
        child,
        q0: initial,
        unset,
    };
    if !place_through(b, &w) {
        b.unplaced.push(w);
    }
    Ok(())
}

/// A joint waiting for one of its bodies to be placed.
pub(super) struct Unplaced {
    kind: Kind,
    parent: Side,
    child: Side,
    /// The coordinates' values (zero where the file gives none).
    q0: Vec<f64>,
    /// The coordinates the file gives no value: taken from the bodies' frames when both are
    /// placed by other joints (a joint closing a loop).
    unset: Vec<usize>,
}

/// A joint's equations between its two sides, added to the model.
pub(super) fn joint_equations(
    b: &mut Builder,
    j: &JointSpec,
    parent: &Side,
    child: &Side,
    q: &[VExpr],
) -> Result<(), SpecError> {
    let eqs = match b.dim {
        2 => super::planar::equations(j.kind, parent, child, q),
        _ => equations(j.kind, parent, child, q),
    };
    for (title, e) in eqs {
        let block = format!("joint {}: {title}", j.name);
        b.equation(&block, &e, &j.path)?;
        b.checks.push((j.path.clone(), e));
    }
    Ok(())
}

/// A joint's equations: `(title, C(q) = 0)`.
pub(super) fn equations(
    kind: Kind,
    pa: &Side,
    ch: &Side,
    q: &[VExpr],
) -> Vec<(&'static str, VExpr)> {
    let d = minus(&ch.origin, &pa.origin);
    let [xp, yp, zp] = &pa.axes;
    let [xc, yc, zc] = &ch.axes;
    let comp = |k| ok(VExpr::comp(d.clone(), k));
    let at_point = || vec![("x", comp(0)), ("y", comp(1)), ("z", comp(2))];
    let aligned = || vec![("axis x", dot(zp, xc)), ("axis y", dot(zp, yc))];
    let angle = turned_by;
    let slide = |s: &VExpr| minus(&dot(zp, &d), s);
    let mut out = Vec::new();
    match kind {
        Kind::Revolute => {
            out.extend(at_point());
            out.extend(aligned());
            out.push(("angle", angle(&q[0], xc, xp, yp)));
        }
        Kind::Prismatic => {
            out.push(("offset x", dot(xp, &d)));
            out.push(("offset y", dot(yp, &d)));
            out.extend(aligned());
            out.push(("twist", dot(xp, yc)));
            out.push(("slide", slide(&q[0])));
        }
        Kind::Cylindrical => {
            out.push(("offset x", dot(xp, &d)));
            out.push(("offset y", dot(yp, &d)));
            out.extend(aligned());
            out.push(("angle", angle(&q[0], xc, xp, yp)));
            out.push(("slide", slide(&q[1])));
        }
        Kind::Spherical => out.extend(at_point()),
        Kind::Universal => {
            out.extend(at_point());
            out.push(("cross", dot(xp, yc)));
            out.push(("angle 1", angle(&q[0], yc, yp, zp)));
            // R_C = R_P Rx(θ₁) Ry(θ₂): x_P lies at θ₂ from x_C towards z_C
            out.push(("angle 2", angle(&q[1], xp, xc, zc)));
        }
        Kind::Planar => {
            out.extend(aligned());
            out.push(("plane", dot(zp, &d)));
            out.push(("x", minus(&dot(xp, &d), &q[0])));
            out.push(("y", minus(&dot(yp, &d), &q[1])));
            out.push(("angle", angle(&q[2], xc, xp, yp)));
        }
        Kind::Fixed => {
            out.extend(at_point());
            out.extend(aligned());
            out.push(("twist", dot(xp, yc)));
        }
    }
    out
}

/// Place the child from the parent (or the parent from the child) through the joint at its
/// initial coordinates, when one of them has a pose and the other not; `false` when neither
/// has one yet.
fn place_through(b: &mut Builder, w: &Unplaced) -> bool {
    let (kind, pa, ch, q0) = (w.kind, &w.parent, &w.child, &w.q0[..]);
    let pose_of = |b: &Builder, s: &Side| match &s.body {
        None => Some(Pose::identity()),
        Some(n) => b.frames[n].placed,
    };
    let motion = match b.dim {
        2 => super::planar::motion(kind, q0),
        _ => kind.motion(q0),
    };
    let (pp, cp) = (pose_of(b, pa), pose_of(b, ch));
    let (target, pose) = match (pp, cp) {
        (Some(tp), None) => (
            ch.body.clone(),
            tp.then(&pa.marker).then(&motion).then(&ch.marker.inverse()),
        ),
        (None, Some(tc)) => (
            pa.body.clone(),
            tc.then(&ch.marker)
                .then(&motion.inverse())
                .then(&pa.marker.inverse()),
        ),
        (Some(tp), Some(tc)) => {
            // a joint closing a loop starts where the bodies' frames put it
            if !w.unset.is_empty() {
                let rel = tp.then(&pa.marker).inverse().then(&tc.then(&ch.marker));
                let x = match b.dim {
                    2 => super::planar::coordinates(kind, &rel),
                    _ => {
                        super::body_parts::coordinates_of(super::body_parts::tree_kind(kind), &rel)
                    }
                };
                for (&i, x) in w.unset.iter().zip(x) {
                    b.guess[i] = Some(x);
                }
            }
            return true;
        }
        (None, None) => return false,
    };
    if let Some(n) = target {
        let mut f = b.frames.remove(&n).expect("a body of the file");
        place_body(b, &mut f, pose);
        b.frames.insert(n, f);
    }
    true
}
