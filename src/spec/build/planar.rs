//! `Bodies` and `Joints` in the plane (Dimension 2): a planar body given by its mass, centre of
//! mass and moment of inertia, with an initial pose (position, angle) and markers, and the
//! planar joints — revolute, prismatic, fixed — between such bodies and the ground.
//!
//! A body `Arm` is carried in natural coordinates: its origin, the point `Arm`, and the unit
//! vector `Arm.i` of its frame (`Arm.j = k × Arm.i`), held at unit length by one rigidity row
//! (`rigid Arm`). Its energy is [`PlanarBody`]'s on the two points `Arm` and `Arm + Arm.i` —
//! the same as a `Rigids` body on two basic points a unit length apart. A marker `(x, y)` is the
//! point `Arm + x Arm.i + y Arm.j`, affine in the coordinates.

use super::body_parts::{
    BODY_KEYS, BodyFrame, Kind, Side, dot, markers, mass_and_centre, minus, origin, place_body,
    placement, turned_by,
};
use super::frames::Pose;
use super::*;
use crate::model::elements::PlanarBody;
use nalgebra::Vector3;

/// A body of `Bodies` in Dimension 2.
pub(super) fn body(b: &mut Builder, name: &str, val: &Value, p: &KeyPath) -> Result<(), SpecError> {
    let m = b.ctx.map(val, p)?;
    b.ctx.keys(m, p, Some(BODY_KEYS))?;
    let shapes = match m.get("shapes").filter(|v| !v.is_null()) {
        Some(v) => super::shapes::shapes(b, v, &sub(p, "shapes"))?,
        None => Vec::new(),
    };
    b.check_name(name, ItemKind::Point, p)?;
    let (mass, com) = mass_and_centre(b, m, p, 2)?;
    let inertia = moment(b, m, p)?;
    let (position, angle) = placement(b, m, p, 2, |x, q| b.ctx.num(x, q))?;

    // the coordinates: the origin (a point named as the body) and the unit vector i
    let mut coords = origin(b, name, p)?;
    let (iname, jname) = (format!("{name}.i"), format!("{name}.j"));
    let idx = b.new_coords(&iname, 2, ItemKind::Vector);
    coords.extend(&idx);
    b.vectors.insert(iname.clone(), Point::Free(idx.clone()));
    let a0 = Affine::free(&coords[..2]);
    let mut a1 = a0.clone();
    for (k, &c) in idx.iter().enumerate() {
        let mut e = [0.0; 3];
        e[k] = 1.0;
        a1.a.insert(c, e);
    }
    let (m0, m1) = (PointMap::Affine(a0.clone()), PointMap::Affine(a1.clone()));
    let ei = file_vexpr(&to_map(&b.vectors[&iname]));
    let ez = VExpr::constant_vec([0.0, 0.0, 1.0]);
    let ej = VExpr::cross(ez.clone(), ei.clone()).expect("two vectors");
    b.vectors.insert(jname, Point::General(ej.clone()));

    let mut drawn = vec![name.to_string()];
    for (full, local) in markers(b, name, m, p, 2)? {
        let at = Affine::body_point(&a0, &a1, 1.0, local[0], local[1]);
        b.points.insert(full.clone(), Point::Derived(at));
        b.order.push(full.clone());
        drawn.push(full);
    }

    b.bar(&format!("rigid {name}"), &m0, &m1, 1.0, p)?;
    let gravity = b.gravity;
    let placed = place::point_term_on(2, &[&m0, &m1], |basic| PlanarBody {
        basic,
        mass,
        inertia,
        centroid: [com[0], com[1]],
        length: 1.0,
        gravity,
    });
    b.place(placed, p)?;
    b.bodies
        .insert(name.to_string(), Body::Planar(m0.clone(), m1, 1.0));
    b.body_items.push(GeoBody {
        name: name.to_string(),
        items: drawn,
        frame: Some([name.to_string(), format!("{name}.i"), format!("{name}.j")]),
        shapes,
    });
    let mut frame = BodyFrame {
        origin: file_vexpr(&m0),
        axes: [ei, ej, ez],
        coords,
        placed: None,
    };
    if let Some(x) = position {
        let pose = Pose {
            r: Pose::rot(2, angle.unwrap_or(0.0)).r,
            p: Vector3::new(x[0], x[1], 0.0),
        };
        place_body(b, &mut frame, pose);
    }
    b.frames.insert(name.to_string(), frame);
    Ok(())
}

/// A planar body's `inertia`: its moment about the centre of mass, a number ≥ 0.
fn moment(b: &Builder, m: &Mapping, p: &KeyPath) -> Result<f64, SpecError> {
    let ip = sub(p, "inertia");
    let inertia = b.ctx.num(b.ctx.required(m, p, "inertia")?, &ip)?;
    if !(inertia >= 0.0) {
        return Err(b.ctx.err(
            &ip,
            "a planar body's inertia is its moment about the centre of mass, a number ≥ 0",
        ));
    }
    Ok(inertia)
}

/// A body of `Bodies` in the plane for the tree in joint coordinates (docs/maths.md §20): a
/// lamina in the xy plane — mass, centre `[x, y, 0]`, inertia `diag(I/2, I/2, I)` about its
/// centre (a plane figure's `I_zz = I_xx + I_yy`; the two in-plane moments never act, as the
/// motion keeps `ω` along `z`) — posed by `position: [x, y]` and `orientation` (an angle).
pub(super) fn tree_body(
    b: &Builder,
    name: &str,
    val: &Value,
    p: &KeyPath,
) -> Result<super::body_parts::BodySpec, SpecError> {
    let m = b.ctx.map(val, p)?;
    b.ctx.keys(m, p, Some(BODY_KEYS))?;
    b.check_name(name, ItemKind::Point, p)?;
    let (mass, com) = mass_and_centre(b, m, p, 2)?;
    let inertia = moment(b, m, p)?;
    let (position, angle) = placement(b, m, p, 2, |x, q| b.ctx.num(x, q))?;
    let shapes = match m.get("shapes").filter(|v| !v.is_null()) {
        Some(v) => super::shapes::shapes(b, v, &sub(p, "shapes"))?,
        None => Vec::new(),
    };
    let tensor = [
        [0.5 * inertia, 0.0, 0.0],
        [0.0, 0.5 * inertia, 0.0],
        [0.0, 0.0, inertia],
    ];
    Ok(super::body_parts::BodySpec {
        name: name.to_string(),
        path: p.clone(),
        body: crate::multibody::RigidBody::new(mass, [0.0; 3])
            .com(com)
            .inertia(tensor),
        pose: position.map(|x| Pose {
            r: Pose::rot(2, angle.unwrap_or(0.0)).r,
            p: Vector3::new(x[0], x[1], 0.0),
        }),
        oriented: angle.is_some(),
        markers: markers(b, name, m, p, 2)?,
        shapes,
    })
}

/// The frames of a planar joint as a tree joint (turning about, sliding along its frames'
/// `z`): a prismatic joint slides along its frames' `x`, so both are turned by +90° about `y`
/// (their `z` onto `x`); the others keep theirs.
pub(super) fn tree_frames(kind: Kind, parent: Pose, child: Pose) -> (Pose, Pose) {
    if kind != Kind::Prismatic {
        return (parent, child);
    }
    let z_onto_x = Pose {
        r: nalgebra::Matrix3::new(0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0),
        p: Vector3::zeros(),
    };
    (parent.then(&z_onto_x), child.then(&z_onto_x))
}

/// The coordinate of a planar joint whose child frame sits at `rel` in its parent's frame
/// (the closest the joint allows): the angle of a revolute joint, the slide along `x` of a
/// prismatic one.
pub(super) fn coordinates(kind: Kind, rel: &Pose) -> Vec<f64> {
    match kind {
        Kind::Revolute => vec![rel.r[(1, 0)].atan2(rel.r[(0, 0)])],
        Kind::Prismatic => vec![rel.p[0]],
        _ => Vec::new(),
    }
}

/// `Torques: { Body: tau }` on a planar body in joint coordinates (an expression of time,
/// positions and velocities; positive counter-clockwise): the couple `τ j` at `o + i` and
/// `−τ j` at the origin `o` — no net force, moment `i × τ j = τ k`, power `τ ω`.
pub(super) fn tree_torque(
    b: &mut Builder,
    name: &str,
    v: &Value,
    p: &KeyPath,
) -> Result<(), SpecError> {
    let tau = b.vexpr_with_velocities(v, p)?;
    if tau.is_vector() {
        return Err(b.ctx.err(
            p,
            "a torque on a planar body is a number (about the plane's normal z)",
        ));
    }
    if super::body_parts::of_time_only(&tau) {
        // the body by its origin and the point one unit along `i`, along the joints
        let basic = super::body_parts::frame_points(b, name, 2);
        let placed = place::point_load_on(2, &[&basic[0], &basic[1]], |basic| {
            crate::model::elements::PlanarTorque {
                basic,
                torque: tau,
                length: 1.0,
            }
        });
        return b.place(placed, p);
    }
    let frame = b.frames[name].clone();
    let ok = |r: Result<VExpr, String>| r.expect("a torque's couple is well-typed");
    let f = ok(VExpr::product(tau, frame.axes[1].clone()));
    let minus_f = ok(VExpr::product(VExpr::constant(-1.0), f.clone()));
    let tip = ok(VExpr::sum(
        frame.origin.clone(),
        frame.axes[0].clone(),
        false,
    ));
    for (at, f) in [(tip, f), (frame.origin.clone(), minus_f)] {
        let parts = [0, 1, 2].map(|k| ok(VExpr::comp(f.clone(), k)));
        let placed =
            place::force_at(2, &PointMap::Expr(at), parts).map_err(|e| b.element_error(e, p))?;
        b.place(Ok(placed), p)?;
    }
    Ok(())
}

/// A joint's frame on its body in the plane: `{ at: [x, y], angle: θ }` (the joint frame's `x`
/// turned by `θ` from the body's; defaults 0).
pub(super) fn marker(b: &Builder, v: Option<&Value>, p: &KeyPath) -> Result<Pose, SpecError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Pose::identity());
    };
    let m = b.ctx.map(v, p)?;
    b.ctx.keys(m, p, Some(&["at", "angle"]))?;
    let at = match m.get("at") {
        Some(a) => b.ctx.vector(a, &sub(p, "at"), 2)?,
        None => [0.0; 3],
    };
    let angle = match m.get("angle") {
        Some(a) => b.ctx.num(a, &sub(p, "angle"))?,
        None => 0.0,
    };
    Ok(Pose {
        r: Pose::rot(2, angle).r,
        p: Vector3::new(at[0], at[1], 0.0),
    })
}

/// The planar joint kinds.
pub(super) fn kind_allowed(kind: Kind) -> bool {
    matches!(kind, Kind::Revolute | Kind::Prismatic | Kind::Fixed)
}

/// The motion of the child's joint frame in the parent's at the joint coordinate: a turn about
/// `z`, a slide along the parent's `x`.
pub(super) fn motion(kind: Kind, q: &[f64]) -> Pose {
    match kind {
        Kind::Revolute => Pose::rot(2, q[0]),
        Kind::Prismatic => Pose::shift(0, q[0]),
        _ => Pose::identity(),
    }
}

/// A planar joint's equations: `(title, C(q) = 0)` — the origins together (revolute, fixed) or
/// on the parent's `x` axis at the slide (prismatic), the child's `x` turned by the angle from
/// the parent's (revolute) or along it (prismatic, fixed).
pub(super) fn equations(
    kind: Kind,
    pa: &Side,
    ch: &Side,
    q: &[VExpr],
) -> Vec<(&'static str, VExpr)> {
    let d = minus(&ch.origin, &pa.origin);
    let [xp, yp, _] = &pa.axes;
    let xc = &ch.axes[0];
    let comp = |k| VExpr::comp(d.clone(), k).expect("a joint's offset is a vector");
    let twist = ("twist", dot(yp, xc));
    match kind {
        // x_C turned by θ from x_P
        Kind::Revolute => vec![
            ("x", comp(0)),
            ("y", comp(1)),
            ("angle", turned_by(&q[0], xc, xp, yp)),
        ],
        Kind::Prismatic => vec![
            ("offset", dot(yp, &d)),
            twist,
            ("slide", minus(&dot(xp, &d), &q[0])),
        ],
        _ => vec![("x", comp(0)), ("y", comp(1)), twist],
    }
}
