//! `Bodies` and `Joints` in space and in the plane as a [`Tree`] in joint coordinates
//! (docs/maths.md §20; the plane's bodies, frames and torques are [`super::planar`]'s).
//!
//! The joints are read first, then a spanning tree grown from the ground: a joint whose parent
//! is the ground or a body already in the tree carries its child (joints in file order); a body
//! no joint reaches, placed by its `position`, floats on a free joint (its coordinates
//! `Body_x … Body_qz`). Every joint left over closes a loop: its coordinates are coordinates of
//! their own, tied to the two bodies' frames by the joint's equations (as in natural
//! coordinates), and the index-3 machinery holds them. The tree's equations of motion are its
//! recursions ([`Tree::add_to`]); its bodies' origins, axes and markers are points and vectors
//! of the file as expressions of the joint coordinates ([`super::kinematics`]), so springs,
//! forces, equations, closing joints and columns name them as before.
//!
//! A body with a `position` carried by a joint fixes that joint's coordinates when the file
//! gives no `initial`; when both are given they must agree.

use super::body_parts::{
    BODY_KEYS, BodyFrame, BodySpec, coordinates_of, frame_points, markers, mass_and_centre,
    of_time_only, placement, side, tree_kind,
};
use super::frames::{Pose, inertia, rotation};
use super::joint_spec::{JointSpec, create_coordinates, is_gear, read_joint};
use super::joints::equations;
use super::kinematics::{Frame, frames_of};
use super::*;
use crate::model::elements::{ChainLink, ChainPoint, second_moment};
use crate::multibody::{self as mb, JointKind, Tree};
use nalgebra::{Matrix3, Vector3};
use std::sync::Arc;

fn read_body(b: &Builder, name: &str, val: &Value, p: &KeyPath) -> Result<BodySpec, SpecError> {
    if b.dim == 2 {
        return super::planar::tree_body(b, name, val, p);
    }
    let m = b.ctx.map(val, p)?;
    b.ctx.keys(m, p, Some(BODY_KEYS))?;
    b.check_name(name, ItemKind::Point, p)?;
    let (mass, com) = mass_and_centre(b, m, p, 3)?;
    let ip = sub(p, "inertia");
    let tensor = inertia(b, b.ctx.required(m, p, "inertia")?, &ip)?;
    second_moment(tensor).map_err(|e| b.ctx.err(&ip, e.to_string()))?;
    let (position, orientation) = placement(b, m, p, 3, |x, q| rotation(b, x, q))?;
    let oriented = orientation.is_some();
    let pose = position.map(|x| Pose {
        r: orientation.unwrap_or_else(Matrix3::identity),
        p: Vector3::from(x),
    });
    let shapes = match m.get("shapes").filter(|v| !v.is_null()) {
        Some(v) => super::shapes::shapes(b, v, &sub(p, "shapes"))?,
        None => Vec::new(),
    };
    Ok(BodySpec {
        name: name.to_string(),
        path: p.clone(),
        body: mb::RigidBody::new(mass, [0.0; 3]).com(com).inertia(tensor),
        pose,
        oriented,
        markers: markers(b, name, m, p, 3)?,
        shapes,
    })
}

fn to_mb(x: &Pose) -> mb::spatial::Pose<f64> {
    mb::spatial::Pose {
        r: std::array::from_fn(|i| std::array::from_fn(|k| x.r[(i, k)])),
        p: [x.p[0], x.p[1], x.p[2]],
    }
}

fn from_mb(x: &mb::spatial::Pose<f64>) -> Pose {
    Pose {
        r: Matrix3::from_fn(|i, k| x.r[i][k]),
        p: Vector3::from(x.p),
    }
}

/// One link of the spanning tree: a body and the joint that carries it (`None`: a free joint
/// to the ground).
struct Edge {
    body: usize,
    joint: Option<usize>,
}

/// The spanning tree: links parents first, and the joints left over (closing loops).
fn span(
    b: &Builder,
    bodies: &[BodySpec],
    joints: &[JointSpec],
) -> Result<(Vec<Edge>, Vec<usize>), SpecError> {
    let index: HashMap<&str, usize> = (bodies.iter().enumerate())
        .map(|(k, x)| (x.name.as_str(), k))
        .collect();
    for j in joints {
        for n in &j.pair {
            if n != "ground" && !index.contains_key(n.as_str()) {
                return Err(b.ctx.err(
                    &sub(&j.path, "bodies"),
                    format!(
                        "unknown body '{n}' (bodies are listed under Bodies; the world is ground)"
                    ),
                ));
            }
        }
    }
    let mut placed = vec![false; bodies.len()];
    let mut used = vec![false; joints.len()];
    let mut edges = Vec::new();
    loop {
        let mut grew = false;
        for (k, j) in joints.iter().enumerate() {
            let parent_in = j.pair[0] == "ground" || placed[index[j.pair[0].as_str()]];
            let child = index[j.pair[1].as_str()];
            if !used[k] && parent_in && !placed[child] {
                placed[child] = true;
                used[k] = true;
                edges.push(Edge {
                    body: child,
                    joint: Some(k),
                });
                grew = true;
            }
        }
        if grew {
            continue;
        }
        match (0..bodies.len()).find(|&k| !placed[k] && bodies[k].pose.is_some()) {
            Some(k) => {
                placed[k] = true;
                edges.push(Edge {
                    body: k,
                    joint: None,
                });
            }
            None => break,
        }
    }
    if let Some(k) = (0..bodies.len()).find(|&k| !placed[k]) {
        return Err(b.ctx.err(
            &bodies[k].path,
            format!(
                "body '{}' has no initial pose: give it a position (and orientation), or join \
                 it as the child of a joint to ground or to a placed body",
                bodies[k].name
            ),
        ));
    }
    let closing = (0..joints.len()).filter(|&k| !used[k]).collect();
    Ok((edges, closing))
}

/// `Bodies` and `Joints` of a file: the tree, its coordinates, points (as expressions, and as
/// chains for elements) and pictures, the closing joints and the gears.
pub(super) fn bodies_and_joints(
    b: &mut Builder,
    bodies_v: &Value,
    joints_v: Option<&Value>,
) -> Result<(), SpecError> {
    let bp = sub(&b.part_path, "Bodies");
    let m = b.ctx.map(bodies_v, &bp)?;
    let mut bodies = Vec::new();
    for (name, val) in b.ctx.keys(m, &bp, None)? {
        bodies.push(read_body(b, &name, val, &sub(&bp, &name))?);
    }
    let (mut joints, mut gears) = (Vec::new(), Vec::new());
    if let Some(v) = joints_v {
        let jp = sub(&b.part_path, "Joints");
        let m = b.ctx.map(v, &jp)?;
        for (name, val) in b.ctx.keys(m, &jp, None)? {
            let p = sub(&jp, &name);
            let jm = b.ctx.map(val, &p)?;
            match is_gear(jm) {
                true => gears.push((name, jm, p)),
                false => joints.push(read_joint(b, &name, jm, &p)?),
            }
        }
    }
    let (edges, closing) = span(b, &bodies, &joints)?;
    let first = b.coord_names.len();
    let (tree, q0, names) = grow(b, &bodies, &joints, &edges)?;
    let tree = Arc::new(tree);
    for (k, (name, x)) in names.iter().zip(&q0).enumerate() {
        if let Some(what) = b.taken(name) {
            return Err(b.ctx.err(
                &bp,
                format!("the joint coordinate '{name}' is defined twice (it is already {what})"),
            ));
        }
        let idx = b.new_coords(name, 1, ItemKind::Scalar);
        b.guess[idx[0]] = Some(*x);
        b.scalars.insert(name.clone(), Point::Free(vec![first + k]));
    }
    let leaves: Vec<VExpr> = (first..first + q0.len()).map(VExpr::coord).collect();
    let (frames, worlds) = frames_of(&tree, &leaves, &q0);
    let links = tree.chain_links(first);
    for (i, (e, (frame, world))) in edges.iter().zip(frames.into_iter().zip(worlds)).enumerate() {
        let body = &bodies[e.body];
        body_items(b, body, frame, from_mb(&world), &links[i])?;
    }
    add_pictures(b, &tree, &bodies, &edges, first);
    for k in closing {
        close(b, &joints[k])?;
    }
    for (name, m, p) in gears {
        super::joint_spec::gear(b, &name, m, &p)?;
    }
    for (i, e) in edges.iter().enumerate() {
        b.tree_bodies.insert(bodies[e.body].name.clone(), i);
    }
    b.trees.push((tree, first));
    Ok(())
}

/// The tree in link order, its coordinates' start values and names.
fn grow(
    b: &Builder,
    bodies: &[BodySpec],
    joints: &[JointSpec],
    edges: &[Edge],
) -> Result<(Tree, Vec<f64>, Vec<String>), SpecError> {
    let mut tree = Tree::new(b.gravity);
    let mut link_of: HashMap<&str, usize> = HashMap::new();
    let mut world: Vec<Pose> = Vec::new();
    let (mut q0, mut names) = (Vec::new(), Vec::new());
    for e in edges {
        let body = &bodies[e.body];
        let (kind, parent_m, child_m, name, path) = match e.joint {
            Some(k) => {
                let j = &joints[k];
                let (parent_m, child_m) = match b.dim {
                    2 => super::planar::tree_frames(j.kind, j.parent_m, j.child_m),
                    _ => (j.parent_m, j.child_m),
                };
                (tree_kind(j.kind), parent_m, child_m, &j.name, &j.path)
            }
            None => (
                match b.dim {
                    2 => JointKind::Planar,
                    _ => JointKind::Free,
                },
                Pose::identity(),
                Pose::identity(),
                &body.name,
                &body.path,
            ),
        };
        let parent = e
            .joint
            .and_then(|k| link_of.get(joints[k].pair[0].as_str()).copied());
        let base = parent.map_or(Pose::identity(), |p| world[p]);
        let outer = base.then(&parent_m);
        let given = e.joint.and_then(|k| joints[k].initial.clone());
        let q = match (&given, &body.pose) {
            (Some(q), _) => q.clone(),
            (None, Some(pose)) => {
                let rel = outer.inverse().then(pose).then(&child_m);
                coordinates_of(kind, &rel)
            }
            (None, None) => kind.zero_coords(),
        };
        let at = outer
            .then(&from_mb(&kind.pose(&q)))
            .then(&child_m.inverse());
        if let Some(pose) = &body.pose {
            // a `position` alone places the origin; with an `orientation`, the axes too
            let turn = if body.oriented {
                (at.r - pose.r).abs().max()
            } else {
                0.0
            };
            let miss = turn + (at.p - pose.p).abs().max() / (1.0 + pose.p.norm());
            if !(miss < 1e-9) {
                let how = match given {
                    Some(_) => "at its initial coordinates",
                    None => "whatever its coordinates",
                };
                return Err(b.ctx.err(
                    &body.path,
                    format!(
                        "body '{}' is given a {} that joint '{name}' cannot reach {how} (it \
                         places the origin at [{:.6}, {:.6}, {:.6}]): give one of them, or make \
                         them agree",
                        body.name,
                        if body.oriented {
                            "position and orientation"
                        } else {
                            "position"
                        },
                        at.p[0],
                        at.p[1],
                        at.p[2]
                    ),
                ));
            }
        }
        let joint = mb::Joint::new(kind)
            .parent_frame(to_mb(&parent_m))
            .child_frame(to_mb(&child_m));
        let k = tree
            .add(&body.name, parent, name, joint, body.body.clone())
            .map_err(|err| b.ctx.err(path, err.to_string()))?;
        link_of.insert(&body.name, k);
        world.push(at);
        let own = e.joint.map(|k| &joints[k]).filter(|j| !j.cnames.is_empty());
        match own {
            Some(j) => names.extend(j.cnames.iter().cloned()),
            None => names.extend((kind.coordinate_suffixes().iter()).map(|s| format!("{name}{s}"))),
        }
        q0.extend(q);
    }
    Ok((tree, q0, names))
}

/// Bodies whose frame written out in the joint coordinates would take more operations than
/// this are read along their chain of joints instead ([`VExpr::chain`]): the written-out frame
/// grows about 2.6× per joint, the chain linearly.
const CHAIN_ABOVE: u64 = 4_000;

/// A body's origin, axes and markers as points and vectors of the file; its frame for
/// closing joints and columns. Its origin and markers are also chain points on `link`, the
/// body's frame, for the elements on them (evaluated along the joints, in `O(depth)`); deep in
/// a tree (see [`CHAIN_ABOVE`]) expressions read them as chain points too.
fn body_items(
    b: &mut Builder,
    body: &BodySpec,
    f: Frame,
    pose: Pose,
    link: &Arc<ChainLink>,
) -> Result<(), SpecError> {
    let name = &body.name;
    let deep = f.origin.expr().size().max(f.axes[0].expr().size()) > CHAIN_ABOVE;
    // the point `local` as an expression, and as a chain recorded for elements
    let point = |b: &mut Builder, full: &str, local: [f64; 3]| {
        let chain = Arc::new(ChainPoint::on(link.clone(), local));
        let e = match deep {
            true => VExpr::chain(chain.clone()),
            false => f.point(local).expr(),
        };
        b.chains.insert(full.to_string(), chain);
        e
    };
    let origin = point(b, name, [0.0; 3]);
    let axes: [VExpr; 3] = std::array::from_fn(|k| match deep {
        true => {
            let e = std::array::from_fn(|m| if m == k { 1.0 } else { 0.0 });
            VExpr::chain(Arc::new(
                ChainPoint::on(link.clone(), [0.0; 3]).direction(e),
            ))
        }
        false => f.axes[k].expr(),
    });
    b.points
        .insert(name.clone(), Point::General(origin.clone()));
    // in the plane a body's axes are `i` and `j` (`k` is the plane's normal)
    for (k, axis) in ["i", "j", "k"].iter().enumerate().take(b.dim) {
        b.vectors
            .insert(format!("{name}.{axis}"), Point::General(axes[k].clone()));
    }
    for (full, local) in &body.markers {
        if b.taken(full).is_some() {
            return Err(b
                .ctx
                .err(&body.path, format!("point '{full}' is defined twice")));
        }
        let e = point(b, full, *local);
        b.points.insert(full.clone(), Point::General(e));
    }
    let frame = BodyFrame {
        origin,
        axes,
        coords: Vec::new(),
        placed: Some(pose),
    };
    b.frames.insert(name.clone(), frame);
    Ok(())
}

/// The bodies in the pictures and columns: origins and markers as points, `i` and `j` as
/// directions, all from the tree's forward kinematics.
fn add_pictures(
    b: &mut Builder,
    tree: &Arc<Tree>,
    bodies: &[BodySpec],
    edges: &[Edge],
    first: usize,
) {
    let points = mb::TreePoints::new(tree.clone(), first);
    let point = |i: usize, local: [f64; 3], axis: Option<usize>| match axis {
        None => points.point(i, local),
        Some(k) => points.axis(i, k),
    };
    for (i, e) in edges.iter().enumerate() {
        let body = &bodies[e.body];
        let name = &body.name;
        let mut drawn = vec![name.clone()];
        b.tree_points.push(NamedPoint::new(
            name.clone(),
            PointKind::Derived,
            point(i, [0.0; 3], None),
        ));
        for (full, local) in &body.markers {
            b.tree_points.push(NamedPoint::new(
                full.clone(),
                PointKind::Derived,
                point(i, *local, None),
            ));
            drawn.push(full.clone());
        }
        for (k, axis) in ["i", "j"].iter().enumerate() {
            b.tree_points.push(NamedPoint::new(
                format!("{name}.{axis}"),
                PointKind::Direction,
                point(i, [0.0; 3], Some(k)),
            ));
        }
        b.body_items.push(GeoBody {
            name: name.clone(),
            items: drawn,
            frame: Some([name.clone(), format!("{name}.i"), format!("{name}.j")]),
            shapes: body.shapes.clone(),
        });
    }
}

/// A joint that closes a loop: its coordinates (started where the bodies' frames put them,
/// unless the file gives `initial`) and its equations.
fn close(b: &mut Builder, j: &JointSpec) -> Result<(), SpecError> {
    let bp = sub(&j.path, "bodies");
    let parent = side(b, &j.pair[0], j.parent_m, &bp)?;
    let child = side(b, &j.pair[1], j.child_m, &bp)?;
    let pose_of = |n: &str, m: &Pose| match n {
        "ground" => *m,
        _ => b.frames[n].placed.expect("tree bodies are placed").then(m),
    };
    let initial = match &j.initial {
        Some(q) => q.clone(),
        None => {
            let rel = pose_of(&j.pair[0], &j.parent_m)
                .inverse()
                .then(&pose_of(&j.pair[1], &j.child_m));
            let kind = tree_kind(j.kind);
            match (b.dim, kind.quaternion()) {
                (2, _) => super::planar::coordinates(j.kind, &rel),
                (_, Some(_)) => Vec::new(),
                (_, None) => coordinates_of(kind, &rel),
            }
        }
    };
    let q = create_coordinates(b, j, &initial)?;
    let mut dropped = Vec::new();
    for (title, e) in equations(j.kind, &parent, &child, &q) {
        match structural(b, &e) {
            Some(0.0) => dropped.push(title),
            Some(x) => {
                return Err(b.ctx.err(
                    &j.path,
                    format!(
                        "joint '{}' can never close: its equation '{title}' does not depend on \
                         the coordinates and is {x:.3e}, not 0",
                        j.name
                    ),
                ));
            }
            None => {
                let block = format!("joint {}: {title}", j.name);
                b.equation(&block, &e, &j.path)?;
                b.checks.push((j.path.clone(), e));
            }
        }
    }
    if !dropped.is_empty() {
        b.notes.push(format!(
            "joint '{}' closes a loop whose other joints already hold {} of its equations \
             ({}): they are left out",
            j.name,
            dropped.len(),
            dropped.join(", ")
        ));
    }
    Ok(())
}

/// `Some(value)` when a closing joint's equation does not depend on the coordinates — its
/// gradient vanishes at the start and at two points around it, as the out-of-plane equations
/// of a revolute joint closing a planar loop do (0 when it holds there) —, `None` otherwise.
fn structural(b: &Builder, e: &VExpr) -> Option<f64> {
    let mut coords = std::collections::BTreeSet::new();
    e.coords(&mut coords);
    let at = |shift: f64| {
        move |j: usize| {
            let x = b.guess.get(j).copied().flatten().unwrap_or(0.0);
            x + shift * ((j as f64 * 0.618_033_988_75).fract() - 0.5)
        }
    };
    let scale = 1.0
        + (0..b.guess.len())
            .map(|j| at(0.0)(j).abs())
            .fold(0.0, f64::max);
    for shift in [0.0, 0.3, -0.7] {
        let base = at(shift);
        for &j in &coords {
            let lift = |k: usize| num_dual::Dual64::new(base(k), if k == j { 1.0 } else { 0.0 });
            let d = e.eval_scalar(&lift, num_dual::Dual64::from(0.0)).eps;
            if !(d.abs() <= 1e-13 * scale) {
                return None;
            }
        }
    }
    let x = e.eval_scalar::<f64>(&at(0.0), 0.0);
    Some(if x.abs() <= 1e-12 * scale { 0.0 } else { x })
}

/// The velocities `ProblemData.velocities` gives a tree's bodies: per body, its origin's
/// velocity and the rates of its axes `i`, `j` (each when given), and where.
pub(super) type BodyVelocities = Vec<BodyVelocity>;

/// A body's given velocity: its name, its origin's velocity and its axes' rates, and where.
pub(super) type BodyVelocity = (String, [Option<[f64; 3]>; 3], KeyPath);

/// Whether `key` of `ProblemData.velocities` names a tree body's origin (`Body`: 0) or axis
/// (`Body.i`: 1, `Body.j`: 2).
pub(super) fn body_velocity_key(b: &Builder, key: &str) -> Option<(String, usize)> {
    let (body, which) = match key.rsplit_once('.') {
        Some((n, "i")) => (n, 1),
        Some((n, "j")) => (n, 2),
        _ => (key, 0),
    };
    b.tree_bodies
        .contains_key(body)
        .then(|| (body.to_string(), which))
}

/// The joint rates that give the tree's bodies the velocities `given` (world; the origin's
/// velocity and the axes' rates `i̇ = ω × i`, `j̇ = ω × j`), each body's joint rates held
/// (pinned) like any velocity a file gives. A velocity the body's joint cannot produce (given
/// its parent's motion) is refused.
pub(super) fn body_rates(
    b: &Builder,
    given: &BodyVelocities,
    q: &[f64],
    v: &mut [f64],
    pinned: &mut Vec<usize>,
) -> Result<(), SpecError> {
    let Some((tree, first)) = b.trees.first() else {
        return Ok(());
    };
    let n = tree.n_coords();
    let range = *first..first + n;
    let mut order: Vec<(usize, &BodyVelocity)> =
        given.iter().map(|g| (b.tree_bodies[&g.0], g)).collect();
    order.sort_by_key(|(i, _)| *i);
    for (i, (name, [vo, di, dj], p)) in order {
        let link = &tree.links()[i];
        let rates = link.coordinates();
        let q = &q[range.clone()];
        let mut qd: Vec<f64> = v[range.clone()].to_vec();
        for r in rates.clone() {
            qd[r] = 0.0;
        }
        let (v0, w0) = tree.body_velocity(i, q, &qd);
        // the rows: ω (when both axes' rates are given), then the origin's velocity
        let mut rows: Vec<(f64, Vec<f64>)> = Vec::new();
        let pose = {
            let mut ws = mb::Workspace::<f64>::new(tree);
            tree.kinematics(&mut ws, q);
            tree.body_pose(&ws, i)
        };
        let columns: Vec<([f64; 3], [f64; 3])> = rates
            .clone()
            .map(|r| {
                let mut e = vec![0.0; n];
                e[r] = 1.0;
                tree.body_velocity(i, q, &e)
            })
            .collect();
        let ax = |k: usize| Vector3::new(pose.r[0][k], pose.r[1][k], pose.r[2][k]);
        let (di, dj) = match (b.dim, di, dj) {
            // in the plane `Arm.i`'s rate alone is the body's turn: i̇ = ω k × i
            (2, Some(a), None) => {
                let w = ax(0).cross(&Vector3::from(*a))[2];
                let dj = Vector3::z().cross(&ax(1)) * w;
                (Some(*a), Some([dj[0], dj[1], dj[2]]))
            }
            _ => (*di, *dj),
        };
        match (di, dj) {
            (Some(a), Some(c)) => {
                let (ei, ej, ek) = (ax(0), ax(1), ax(2));
                let (a, c) = (Vector3::from(a), Vector3::from(c));
                let dk = a.cross(&ej) + ei.cross(&c);
                let w = 0.5 * (ei.cross(&a) + ej.cross(&c) + ek.cross(&dk));
                for k in 0..3 {
                    rows.push((w[k] - w0[k], columns.iter().map(|c| c.1[k]).collect()));
                }
            }
            (None, None) => {}
            _ => {
                return Err(b.ctx.err(
                    p,
                    format!(
                        "give the rates of both axes {name}.i and {name}.j (an angular velocity)"
                    ),
                ));
            }
        }
        if let Some(x) = vo {
            for k in 0..3 {
                rows.push((x[k] - v0[k], columns.iter().map(|c| c.0[k]).collect()));
            }
        }
        let m = rates.len();
        let a = nalgebra::DMatrix::from_fn(rows.len(), m, |r, c| rows[r].1[c]);
        let rhs = nalgebra::DVector::from_iterator(rows.len(), rows.iter().map(|r| r.0));
        let x = match m {
            0 => nalgebra::DVector::zeros(0),
            _ => a
                .clone()
                .svd(true, true)
                .solve(&rhs, 1e-12)
                .unwrap_or_else(|_| nalgebra::DVector::zeros(m)),
        };
        let miss = (&a * &x - &rhs).amax();
        if !(miss <= 1e-9 * (1.0 + rhs.amax())) {
            return Err(b.ctx.err(
                p,
                format!(
                    "body '{name}' cannot start with this velocity: its joint '{}' (given its \
                     parent's motion) misses it by {miss:.3e}",
                    link.joint_name
                ),
            ));
        }
        for (k, r) in rates.enumerate() {
            v[first + r] = x[k];
            pinned.push(first + r);
        }
    }
    Ok(())
}

/// `Torques: { Body: [τx, τy, τz] }` on a body in joint coordinates (world components;
/// expressions of time, positions and velocities): the couple of forces `½ τ × e_k` at
/// `o + e_k` and `−½ τ × (e₀ + e₁ + e₂)` at the origin `o` — no net force, moment
/// `Σ e_k × ½ (τ × e_k) = ½ (3τ − τ) = τ`, power `τ · ω`.
/// A torque of time alone acts instead on three of the body's points as chains of the joints
/// (the same virtual work, `BodyTorque`): its cost does not grow with the body's depth.
pub(super) fn torque(b: &mut Builder, name: &str, v: &Value, p: &KeyPath) -> Result<(), SpecError> {
    if b.dim == 2 {
        return super::planar::tree_torque(b, name, v, p);
    }
    let list = v.as_sequence().filter(|l| l.len() == 3).ok_or_else(|| {
        b.ctx
            .err(p, "a torque on a body is [τx, τy, τz] (world components)")
    })?;
    let mut tau = Vec::new();
    for x in list {
        let e = b.vexpr_with_velocities(x, p)?;
        if e.is_vector() {
            return Err(b.ctx.err(p, "each component of a torque is a scalar"));
        }
        tau.push(e);
    }
    if tau.iter().all(of_time_only) {
        // the body's frame by three of its points, each along the joints (`O(depth)`)
        let items = frame_points(b, name, 3);
        let torque = [tau[0].clone(), tau[1].clone(), tau[2].clone()];
        let placed = place::point_load_on(3, &[&items[0], &items[1], &items[2]], |items| {
            crate::model::elements::BodyTorque {
                items,
                frame: crate::model::elements::Frame::points(1.0, [0.0, 1.0]),
                torque,
            }
        });
        return b.place(placed, p);
    }
    let tau = VExpr::pack([tau[0].clone(), tau[1].clone(), tau[2].clone()]);
    let frame = b.frames[name].clone();
    let ok = |r: Result<VExpr, String>| r.expect("a torque's couple is well-typed");
    let half = |e: VExpr| ok(VExpr::product(VExpr::constant(0.5), e));
    let parts = |f: VExpr| [0, 1, 2].map(|k| ok(VExpr::comp(f.clone(), k)));
    let mut sum = frame.axes[0].clone();
    for e in &frame.axes[1..] {
        sum = ok(VExpr::sum(sum, e.clone(), false));
    }
    let mut loads = vec![(
        frame.origin.clone(),
        ok(VExpr::product(
            VExpr::constant(-1.0),
            half(ok(VExpr::cross(tau.clone(), sum))),
        )),
    )];
    for e in &frame.axes {
        let at = ok(VExpr::sum(frame.origin.clone(), e.clone(), false));
        loads.push((at, half(ok(VExpr::cross(tau.clone(), e.clone())))));
    }
    for (at, f) in loads {
        let placed =
            place::force_at(3, &PointMap::Expr(at), parts(f)).map_err(|e| b.element_error(e, p))?;
        b.place(Ok(placed), p)?;
    }
    Ok(())
}

/// The unit quaternions among the coordinates of `trees` (each tree with its first coordinate),
/// for the symmetries of steady motion.
pub(super) fn quaternion_coords(
    trees: &[(Arc<Tree>, usize)],
) -> Vec<crate::model::geometry::QuaternionCoords> {
    (trees.iter())
        .flat_map(|(tree, first)| tree.quaternion_coords(*first))
        .collect()
}
