//! What the readers of bodies and joints share — in space and in the plane, in natural and in
//! joint coordinates: a body's frame and keys, its mass, centre, placement, origin and markers,
//! one side of a joint as expressions, the joint kinds with their coordinates and motions, the
//! expression helpers of the joints' equations, and a tree body's frame points. Below
//! `planar`, `joint_spec`, `joints` and `tree`, which import it and not one another in a
//! circle.

use super::frames::Pose;
use super::*;
use crate::model::elements::ChainPoint;
use crate::multibody::JointKind;
use nalgebra::{Matrix3, UnitQuaternion};
use std::sync::Arc;

/// A body of `Bodies`: its frame as expressions of the coordinates, and its pose once known.
#[derive(Clone, Debug)]
pub(super) struct BodyFrame {
    pub(super) origin: VExpr,
    pub(super) axes: [VExpr; 3],
    /// Coordinates of the origin, `i` and `j` (three each; in the plane the origin and `i`,
    /// two each).
    pub(super) coords: Vec<usize>,
    pub(super) placed: Option<Pose>,
}

impl BodyFrame {
    /// The body's axes `i, j, k` in the outer frame.
    pub(super) fn axes(&self) -> &[VExpr; 3] {
        &self.axes
    }
}

/// The joint kinds (the Rust builder's; the names a file gives them: [`JointKind::ALL`]).
pub(super) use crate::spec::multibody::JointKind as Kind;

impl Kind {
    /// The default names' suffixes of the joint coordinates (none: the joint's own name).
    pub(super) fn coordinates(self) -> &'static [&'static str] {
        match self {
            Kind::Revolute | Kind::Prismatic => &[""],
            Kind::Cylindrical => &["_angle", "_slide"],
            Kind::Universal => &["_1", "_2"],
            Kind::Planar => &["_x", "_y", "_angle"],
            Kind::Spherical | Kind::Fixed => &[],
        }
    }
    /// The motion of the child's joint frame in the parent's at the joint coordinates `q`.
    pub(super) fn motion(self, q: &[f64]) -> Pose {
        match self {
            Kind::Revolute => Pose::rot(2, q[0]),
            Kind::Prismatic => Pose::shift(2, q[0]),
            Kind::Cylindrical => Pose::rot(2, q[0]).then(&Pose::shift(2, q[1])),
            Kind::Universal => Pose::rot(0, q[0]).then(&Pose::rot(1, q[1])),
            Kind::Planar => Pose::shift(0, q[0])
                .then(&Pose::shift(1, q[1]))
                .then(&Pose::rot(2, q[2])),
            Kind::Spherical | Kind::Fixed => Pose::identity(),
        }
    }
}

pub(super) fn ok<T>(r: Result<T, String>) -> T {
    r.expect("joint equations are well-typed by construction")
}
pub(super) fn dot(a: &VExpr, b: &VExpr) -> VExpr {
    ok(VExpr::dot(a.clone(), b.clone()))
}
pub(super) fn minus(a: &VExpr, b: &VExpr) -> VExpr {
    ok(VExpr::sum(a.clone(), b.clone(), true))
}
pub(super) fn times(a: VExpr, b: VExpr) -> VExpr {
    ok(VExpr::product(a, b))
}
/// `cos θ (u·b) − sin θ (u·a) = 0`: `u` turned by `θ` from `a` towards `b` (the angle row of a
/// revolute joint, in space and in the plane).
pub(super) fn turned_by(th: &VExpr, u: &VExpr, a: &VExpr, b: &VExpr) -> VExpr {
    let cos = ok(VExpr::func(Func::Cos, th.clone()));
    let sin = ok(VExpr::func(Func::Sin, th.clone()));
    minus(&times(cos, dot(u, b)), &times(sin, dot(u, a)))
}
/// `Σ_k c_k a_k` (zero terms left out, unit ones not multiplied).
pub(super) fn combine(axes: &[VExpr; 3], c: [f64; 3]) -> VExpr {
    let mut out: Option<VExpr> = None;
    for (a, &ck) in axes.iter().zip(&c) {
        if ck == 0.0 {
            continue;
        }
        let term = if ck == 1.0 {
            a.clone()
        } else {
            times(VExpr::constant(ck), a.clone())
        };
        out = Some(match out {
            None => term,
            Some(s) => ok(VExpr::sum(s, term, false)),
        });
    }
    out.unwrap_or_else(|| VExpr::constant_vec([0.0; 3]))
}

/// The keys of a body in `Bodies` (in the plane and in space).
pub(super) const BODY_KEYS: &[&str] = &[
    "mass",
    "com",
    "inertia",
    "position",
    "orientation",
    "markers",
    "shapes",
];

/// A body's `mass` and centre of mass `com` (`dim` numbers; default the origin).
pub(super) fn mass_and_centre(
    b: &Builder,
    m: &Mapping,
    p: &KeyPath,
    dim: usize,
) -> Result<(f64, [f64; 3]), SpecError> {
    let mass = b.ctx.positive(
        b.ctx.required(m, p, "mass")?,
        &sub(p, "mass"),
        "a body's mass",
    )?;
    let com = match m.get("com") {
        Some(c) => b.ctx.vector(c, &sub(p, "com"), dim)?,
        None => [0.0; 3],
    };
    Ok((mass, com))
}

/// A body's `position` (`dim` numbers) and `orientation` (read by `orient`): both, or neither
/// (a joint places the body).
pub(super) fn placement<T>(
    b: &Builder,
    m: &Mapping,
    p: &KeyPath,
    dim: usize,
    orient: impl Fn(&Value, &KeyPath) -> Result<T, SpecError>,
) -> Result<(Option<[f64; 3]>, Option<T>), SpecError> {
    let position = m
        .get("position")
        .map(|x| b.ctx.vector(x, &sub(p, "position"), dim))
        .transpose()?;
    let orientation = m
        .get("orientation")
        .map(|x| orient(x, &sub(p, "orientation")))
        .transpose()?;
    if orientation.is_some() && position.is_none() {
        return Err(b.ctx.err(
            p,
            "an orientation without a position: give both, or neither (a joint places the body)",
        ));
    }
    Ok((position, orientation))
}

/// A body's origin: a new free point named as the body; its coordinates.
pub(super) fn origin(b: &mut Builder, name: &str, p: &KeyPath) -> Result<Vec<usize>, SpecError> {
    b.new_free(name, p)?;
    match &b.points[name] {
        Point::Free(idx) => Ok(idx.clone()),
        _ => unreachable!("just created"),
    }
}

/// A body's `markers`: each one's full name `Body.Marker` and its position in the body frame
/// (`dim` components), the names checked.
pub(super) fn markers(
    b: &Builder,
    name: &str,
    m: &Mapping,
    p: &KeyPath,
    dim: usize,
) -> Result<Vec<(String, [f64; 3])>, SpecError> {
    let Some(mk) = m.get("markers").filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let mp = sub(p, "markers");
    let mm = b.ctx.map(mk, &mp)?;
    let mut out = Vec::new();
    for (marker, x) in b.ctx.keys(mm, &mp, None)? {
        let q = sub(&mp, &marker);
        let valid = marker.starts_with(char::is_uppercase)
            && marker.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !valid {
            return Err(b.ctx.err(
                &q,
                format!("'{marker}' is not a marker name (a point: an upper-case letter first, then letters, digits or _)"),
            ));
        }
        out.push((format!("{name}.{marker}"), b.ctx.vector(x, &q, dim)?));
    }
    Ok(out)
}

/// Set the position guesses of a body's coordinates from its pose.
pub(super) fn place_body(b: &mut Builder, frame: &mut BodyFrame, pose: Pose) {
    let values = [pose.p, pose.r.column(0).into(), pose.r.column(1).into()];
    let d = b.dim;
    for (k, &c) in frame.coords.iter().enumerate() {
        b.guess[c] = Some(values[k / d][k % d]);
    }
    frame.placed = Some(pose);
}

/// One side of a joint: the world frame of the joint on a body (or the ground) as
/// expressions, and the body's name (`None`: the ground).
pub(super) struct Side {
    pub(super) body: Option<String>,
    pub(super) marker: Pose,
    pub(super) origin: VExpr,
    pub(super) axes: [VExpr; 3],
}

pub(super) fn side(b: &Builder, body: &str, marker: Pose, p: &KeyPath) -> Result<Side, SpecError> {
    let cols: [[f64; 3]; 3] = std::array::from_fn(|k| marker.r.column(k).into());
    if body == "ground" {
        return Ok(Side {
            body: None,
            marker,
            origin: VExpr::constant_vec(marker.p.into()),
            axes: cols.map(VExpr::constant_vec),
        });
    }
    let f = b.frames.get(body).ok_or_else(|| {
        b.ctx.err(
            p,
            format!("unknown body '{body}' (bodies are listed under Bodies; the world is ground)"),
        )
    })?;
    Ok(Side {
        body: Some(body.to_string()),
        marker,
        origin: ok(VExpr::sum(
            f.origin.clone(),
            combine(&f.axes, marker.p.into()),
            false,
        )),
        axes: cols.map(|c| combine(&f.axes, c)),
    })
}

/// A body of `Bodies`, read.
pub(super) struct BodySpec {
    pub(super) name: String,
    pub(super) path: KeyPath,
    pub(super) body: crate::multibody::RigidBody,
    pub(super) pose: Option<Pose>,
    /// Whether the file gives the orientation too (a `position` alone places the origin).
    pub(super) oriented: bool,
    pub(super) markers: Vec<(String, [f64; 3])>,
    pub(super) shapes: Vec<crate::model::geometry::Shape>,
}

/// The tree's kind of a file's joint kind.
pub(super) fn tree_kind(k: Kind) -> JointKind {
    match k {
        Kind::Revolute => JointKind::Revolute,
        Kind::Prismatic => JointKind::Prismatic,
        Kind::Cylindrical => JointKind::Cylindrical,
        Kind::Universal => JointKind::Universal,
        Kind::Planar => JointKind::Planar,
        Kind::Spherical => JointKind::Spherical,
        Kind::Fixed => JointKind::Fixed,
    }
}

/// `(w, x, y, z)` of a rotation matrix.
fn quaternion(r: &Matrix3<f64>) -> [f64; 4] {
    let q = UnitQuaternion::from_matrix(r);
    [q.w, q.i, q.j, q.k]
}

/// The coordinates of a joint of `kind` whose child frame sits at `rel` in its parent frame
/// (the closest the joint allows; the caller checks the pose they give).
pub(super) fn coordinates_of(kind: JointKind, rel: &Pose) -> Vec<f64> {
    let r = &rel.r;
    let angle = || r[(1, 0)].atan2(r[(0, 0)]);
    match kind {
        JointKind::Revolute => vec![angle()],
        JointKind::Prismatic => vec![rel.p[2]],
        JointKind::Cylindrical => vec![angle(), rel.p[2]],
        JointKind::Screw { .. } => vec![angle()],
        JointKind::Universal => vec![r[(2, 1)].atan2(r[(1, 1)]), r[(0, 2)].atan2(r[(0, 0)])],
        JointKind::Planar => vec![rel.p[0], rel.p[1], angle()],
        JointKind::Spherical => quaternion(r).to_vec(),
        JointKind::Free => {
            let mut q = vec![rel.p[0], rel.p[1], rel.p[2]];
            q.extend(quaternion(r));
            q
        }
        JointKind::Fixed => Vec::new(),
    }
}

/// Whether `e` depends on time alone (no coordinate, no velocity).
pub(super) fn of_time_only(e: &VExpr) -> bool {
    let mut coords = std::collections::BTreeSet::new();
    e.coords(&mut coords);
    coords.is_empty()
}

/// A tree body's origin and the points one unit along its first `count − 1` axes, as chains
/// of the joints from the ground.
pub(super) fn frame_points(b: &Builder, name: &str, count: usize) -> Vec<PointMap> {
    let link = b.chains[name].link().clone();
    (0..count)
        .map(|k| {
            let mut local = [0.0; 3];
            if k > 0 {
                local[k - 1] = 1.0;
            }
            PointMap::Chain(Arc::new(ChainPoint::on(link.clone(), local)), None)
        })
        .collect()
}
