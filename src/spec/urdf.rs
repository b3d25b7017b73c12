//! Robots as users have them: URDF (the Unified Robot Description Format of ROS) read into a
//! [`Tree`] in joint coordinates, as Pinocchio reads it.
//!
//! Read: links with their `inertial` (`origin` xyz/rpy, `mass`, `inertia`; a link without one is
//! massless), joints `revolute`, `continuous`, `prismatic`, `fixed`, `floating`, `planar` with
//! `origin` (the child link's frame in the parent's at zero, `rpy` as `Rz(y) Ry(p) Rx(r)`),
//! `axis` (in the child's frame; default x), `limit` and `dynamics` kept as data (not enforced),
//! `mimic` (`q = multiplier·q_ref + offset`, a constraint). The root link — the one that is no
//! joint's child — is the ground (a `floating` joint from a `world` link gives a floating
//! base). Visual and collision geometry (meshes) is ignored. The joint coordinates are named
//! after the URDF joints; the run starts at rest at `q = 0`, or at the middle of a joint's
//! limits where 0 lies outside them; gravity is 9.81 along −z.

use crate::error::{ModelError, SpecError};
use crate::model::geometry::{
    Affine, Geometry, Link as GeoLink, LinkKind, Momenta, NamedPoint, PointKind, PointMap,
};
use crate::multibody::spatial::{Pose, mat_mul, rot_axis};
use crate::multibody::{Joint, JointKind, RigidBody, Tree, frame};
use crate::problem::{Dop853Options, Problem, RunPlan};
use std::sync::Arc;

/// Whether `file` is read as URDF (its name ends in `.urdf`).
pub fn is_urdf(file: &str) -> bool {
    file.to_ascii_lowercase().ends_with(".urdf")
}

/// A URDF file as a mechanism file is read: the robot let go at rest from its start for 5 s,
/// by DOP853 at a tolerance of 1e-8 (what `lagrangian run robot.urdf` runs).
pub fn problem_and_plan(
    text: &str,
    file: &str,
    sets: &[(String, f64)],
) -> Result<(Problem, RunPlan), SpecError> {
    let whole = |message: String| SpecError {
        file: file.to_string(),
        line: 1,
        column: 1,
        field: String::new(),
        message,
    };
    if let Some((name, _)) = sets.first() {
        return Err(whole(format!(
            "cannot set '{name}': a URDF file has no named parameters"
        )));
    }
    let robot = read(text, file)?;
    let problem = robot.problem().map_err(|e| whole(e.to_string()))?;
    Ok((problem, Dop853Options::new(1e-8).into()))
}

/// What a URDF joint says beyond its kinematics, kept as data (Pinocchio's reading).
#[derive(Clone, Debug, PartialEq)]
pub struct UrdfJoint {
    /// The joint's name (its coordinates' names).
    pub name: String,
    /// The URDF type (`revolute`, `continuous`, …).
    pub kind: String,
    /// `limit`: lower, upper (position), effort, velocity; `None` where not given.
    pub limit: [Option<f64>; 4],
    /// `dynamics`: damping, friction.
    pub dynamics: [Option<f64>; 2],
    /// `mimic`: the joint followed, multiplier, offset.
    pub mimic: Option<(String, f64, f64)>,
}

/// A robot read from URDF: its tree, its joints' data and the start.
#[derive(Clone, Debug)]
pub struct Urdf {
    /// The robot's name.
    pub name: String,
    /// The links on their joints (the root link is the ground).
    pub tree: Arc<Tree>,
    /// The joints with coordinates, in the tree's order, with their data.
    pub joints: Vec<UrdfJoint>,
    /// The coordinates at the start.
    pub start: Vec<f64>,
    /// What was read and not used (visual and collision geometry), for the run's notes.
    pub notes: Vec<String>,
}

/// An error at a node of the document.
fn at(file: &str, doc: &roxmltree::Document, node: roxmltree::Node, message: String) -> SpecError {
    let pos = doc.text_pos_at(node.range().start);
    SpecError {
        file: file.to_string(),
        line: pos.row as usize,
        column: pos.col as usize,
        field: node.attribute("name").unwrap_or("").to_string(),
        message,
    }
}

/// Numbers of an attribute (`"0 0.1 2"`), `default` when absent.
fn numbers<const K: usize>(
    file: &str,
    doc: &roxmltree::Document,
    node: roxmltree::Node,
    attr: &str,
    default: [f64; K],
) -> Result<[f64; K], SpecError> {
    let Some(text) = node.attribute(attr) else {
        return Ok(default);
    };
    let parsed: Vec<f64> = text
        .split_whitespace()
        .map(str::parse::<f64>)
        .collect::<Result<_, _>>()
        .map_err(|_| at(file, doc, node, format!("{attr}=\"{text}\": not numbers")))?;
    let arr: [f64; K] = parsed.clone().try_into().map_err(|_| {
        at(
            file,
            doc,
            node,
            format!(
                "{attr}=\"{text}\": {K} numbers expected, {} given",
                parsed.len()
            ),
        )
    })?;
    match arr.iter().all(|x| x.is_finite()) {
        true => Ok(arr),
        false => Err(at(
            file,
            doc,
            node,
            format!("{attr}=\"{text}\": not finite"),
        )),
    }
}

/// An optional number attribute.
fn number(
    file: &str,
    doc: &roxmltree::Document,
    node: roxmltree::Node,
    attr: &str,
) -> Result<Option<f64>, SpecError> {
    node.attribute(attr)
        .map(|_| numbers::<1>(file, doc, node, attr, [0.0]).map(|[x]| x))
        .transpose()
}

fn child<'a>(node: roxmltree::Node<'a, 'a>, tag: &str) -> Option<roxmltree::Node<'a, 'a>> {
    node.children().find(|c| c.has_tag_name(tag))
}

/// An `origin` element as a pose (identity when absent).
fn origin(
    file: &str,
    doc: &roxmltree::Document,
    node: roxmltree::Node,
) -> Result<Pose<f64>, SpecError> {
    let Some(o) = child(node, "origin") else {
        return Ok(Pose::identity());
    };
    let xyz = numbers(file, doc, o, "xyz", [0.0; 3])?;
    let [r, p, y] = numbers(file, doc, o, "rpy", [0.0; 3])?;
    let rot = mat_mul(&mat_mul(&rot_axis(2, y), &rot_axis(1, p)), &rot_axis(0, r));
    Ok(Pose { r: rot, p: xyz })
}

/// A link's body: its `inertial` in the link's frame (massless without one).
fn body(
    file: &str,
    doc: &roxmltree::Document,
    link: roxmltree::Node,
) -> Result<RigidBody, SpecError> {
    let Some(inertial) = child(link, "inertial") else {
        return Ok(RigidBody::massless());
    };
    let o = origin(file, doc, inertial)?;
    let mass = match child(inertial, "mass") {
        Some(m) => number(file, doc, m, "value")?.unwrap_or(0.0),
        None => 0.0,
    };
    let i = match child(inertial, "inertia") {
        Some(n) => {
            let g = |a: &str| number(file, doc, n, a).map(|x| x.unwrap_or(0.0));
            let (xx, xy, xz, yy, yz, zz) = (
                g("ixx")?,
                g("ixy")?,
                g("ixz")?,
                g("iyy")?,
                g("iyz")?,
                g("izz")?,
            );
            [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]
        }
        None => [[0.0; 3]; 3],
    };
    // the tensor in the inertial frame, turned into the link's: R I Rᵀ
    let r = o.r;
    let ri = mat_mul(&r, &i);
    let turned =
        std::array::from_fn(|a| std::array::from_fn(|b| (0..3).map(|k| ri[a][k] * r[b][k]).sum()));
    Ok(RigidBody::new(mass, [0.0; 3]).com(o.p).inertia(turned))
}

/// Read a URDF document into a [`Urdf`]: the tree, its joints' data and the start.
///
/// ```
/// let text = r#"<robot name="pendulum">
///   <link name="base"/>
///   <link name="arm"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
///     <inertia ixx="0.01" iyy="0.01" izz="1e-4"/></inertial></link>
///   <joint name="swing" type="continuous"><parent link="base"/><child link="arm"/>
///     <axis xyz="0 1 0"/></joint>
/// </robot>"#;
/// let robot = lagrangian::spec::urdf::read(text, "pendulum.urdf")?;
/// assert_eq!(robot.tree.coordinate_names(), ["swing"]);
/// let mut ws = lagrangian::multibody::Workspace::new(&robot.tree);
/// let mut tau = [0.0f64];
/// robot.tree.rnea(&mut ws, &[0.3], &[0.0], &[0.0], &mut tau);
/// // held at 0.3 rad about y: τ = ∂V/∂θ = m g ℓ sin θ
/// assert!((tau[0] - 2.0 * 9.81 * 0.5 * 0.3f64.sin()).abs() < 1e-12);
/// # Ok::<(), lagrangian::error::SpecError>(())
/// ```
pub fn read(text: &str, file: &str) -> Result<Urdf, SpecError> {
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        let pos = e.pos();
        SpecError {
            file: file.to_string(),
            line: pos.row as usize,
            column: pos.col as usize,
            field: String::new(),
            message: format!("not valid XML: {e}"),
        }
    })?;
    let robot = doc.root_element();
    if !robot.has_tag_name("robot") {
        return Err(at(
            file,
            &doc,
            robot,
            "a URDF document is a <robot> element".into(),
        ));
    }
    let links: Vec<roxmltree::Node> = robot
        .children()
        .filter(|c| c.has_tag_name("link"))
        .collect();
    let joints: Vec<roxmltree::Node> = robot
        .children()
        .filter(|c| c.has_tag_name("joint"))
        .collect();
    let name_of = |n: roxmltree::Node| -> Result<String, SpecError> {
        n.attribute("name").map(str::to_string).ok_or_else(|| {
            at(
                file,
                &doc,
                n,
                format!("a <{}> needs a name", n.tag_name().name()),
            )
        })
    };
    let mut link_names = Vec::new();
    for &l in &links {
        let n = name_of(l)?;
        if link_names.contains(&n) {
            return Err(at(file, &doc, l, format!("link '{n}' is defined twice")));
        }
        link_names.push(n);
    }
    // each joint: (its node, parent link index, child link index)
    let mut edges = Vec::new();
    let mut parent_of: Vec<Option<usize>> = vec![None; links.len()];
    for &j in &joints {
        let jn = name_of(j)?;
        let end = |tag: &str| -> Result<usize, SpecError> {
            let e = child(j, tag)
                .ok_or_else(|| at(file, &doc, j, format!("joint '{jn}' has no <{tag}>")))?;
            let l = e.attribute("link").unwrap_or("");
            link_names.iter().position(|n| n == l).ok_or_else(|| {
                at(
                    file,
                    &doc,
                    e,
                    format!("joint '{jn}': its {tag} link '{l}' is not defined"),
                )
            })
        };
        let (p, c) = (end("parent")?, end("child")?);
        if parent_of[c].is_some() {
            return Err(at(
                file,
                &doc,
                j,
                format!(
                    "joint '{jn}': link '{}' is already the child of another joint (a URDF is a tree; close loops with constraints)",
                    link_names[c]
                ),
            ));
        }
        parent_of[c] = Some(edges.len());
        edges.push((j, jn, p, c));
    }
    let roots: Vec<usize> = (0..links.len())
        .filter(|&l| parent_of[l].is_none())
        .collect();
    match roots.len() {
        1 => {}
        0 => {
            return Err(at(
                file,
                &doc,
                robot,
                "the links form a cycle: no link is the root".into(),
            ));
        }
        _ => {
            let names: Vec<&str> = roots.iter().map(|&r| link_names[r].as_str()).collect();
            return Err(at(
                file,
                &doc,
                links[roots[1]],
                format!(
                    "the robot has {} roots ({}): one link must carry all others",
                    roots.len(),
                    names.join(", ")
                ),
            ));
        }
    }
    build(file, &doc, &links, &link_names, &edges, roots[0], robot)
}

type Edge<'a> = (roxmltree::Node<'a, 'a>, String, usize, usize);

/// The tree from the root down (parents before children), the joints' data and the start.
fn build(
    file: &str,
    doc: &roxmltree::Document,
    links: &[roxmltree::Node],
    link_names: &[String],
    edges: &[Edge],
    root: usize,
    robot: roxmltree::Node,
) -> Result<Urdf, SpecError> {
    let mut tree = Tree::new([0.0, 0.0, -9.81]);
    let mut index: Vec<Option<usize>> = vec![None; links.len()];
    let mut data = Vec::new();
    let mut start = Vec::new();
    let mut stack = vec![root];
    let model_err = |node: roxmltree::Node, e: ModelError| at(file, doc, node, e.to_string());
    while let Some(l) = stack.pop() {
        for (j, jn, p, c) in edges.iter().filter(|e| e.2 == l) {
            let (joint, d) = read_joint(file, doc, *j, jn)?;
            let kind = joint.kind;
            let kind_name = d.kind.clone();
            let limit = d.limit;
            let b = body(file, doc, links[*c])?;
            let parent = index[*p];
            let k = tree
                .add(&link_names[*c], parent, jn, joint, b)
                .map_err(|e| model_err(links[*c], e))?;
            index[*c] = Some(k);
            let mut q0 = kind.zero_coords();
            // revolute and prismatic joints whose limits exclude 0 start at their middle
            let bounded = kind_name == "revolute" || kind_name == "prismatic";
            if let ([Some(lo), Some(hi), ..], true) = (limit, bounded)
                && !(lo <= 0.0 && 0.0 <= hi)
            {
                q0[0] = 0.5 * (lo + hi);
            }
            if kind.n_coords() > 0 {
                start.extend(q0);
                data.push(d);
            }
            stack.push(*c);
        }
    }
    // mimic joints follow joints that exist and have one coordinate
    for d in &data {
        if let Some((target, _, _)) = &d.mimic {
            let ok = data.iter().any(|o| &o.name == target && o.name != d.name);
            if !ok {
                let node = edges.iter().find(|e| e.1 == d.name).map_or(robot, |e| e.0);
                return Err(at(
                    file,
                    doc,
                    node,
                    format!(
                        "joint '{}' mimics '{target}', which is no other moving joint",
                        d.name
                    ),
                ));
            }
        }
    }
    if tree.n_coords() == 0 {
        return Err(at(file, doc, robot, "the robot has no moving joint".into()));
    }
    let shown = links
        .iter()
        .filter(|l| child(**l, "visual").is_some() || child(**l, "collision").is_some())
        .count();
    let notes = match shown {
        0 => Vec::new(),
        k => vec![format!(
            "{k} link(s) of the URDF have visual or collision geometry (meshes), which is \
             ignored: the picture shows the links' origins"
        )],
    };
    Ok(Urdf {
        name: robot.attribute("name").unwrap_or("robot").to_string(),
        tree: Arc::new(tree),
        joints: data,
        start,
        notes,
    })
}

/// One `joint` element: its kinematics and its data.
fn read_joint(
    file: &str,
    doc: &roxmltree::Document,
    j: roxmltree::Node,
    jn: &str,
) -> Result<(Joint, UrdfJoint), SpecError> {
    let kind_name = j.attribute("type").unwrap_or("");
    let kind = match kind_name {
        "revolute" | "continuous" => JointKind::Revolute,
        "prismatic" => JointKind::Prismatic,
        "fixed" => JointKind::Fixed,
        "floating" => JointKind::Free,
        "planar" => JointKind::Planar,
        other => {
            return Err(at(
                file,
                doc,
                j,
                format!(
                    "joint '{jn}': unknown type '{other}' (revolute, continuous, prismatic, \
                     fixed, floating, planar)"
                ),
            ));
        }
    };
    let o = origin(file, doc, j)?;
    let axis_node = child(j, "axis");
    let axis = match axis_node {
        Some(a) => numbers(file, doc, a, "xyz", [1.0, 0.0, 0.0])?,
        None => [1.0, 0.0, 0.0],
    };
    let a = match kind {
        JointKind::Fixed | JointKind::Free => Pose::identity(),
        _ => frame(&format!("joint '{jn}'"), [0.0; 3], axis, None)
            .map_err(|e| at(file, doc, axis_node.unwrap_or(j), e.to_string()))?,
    };
    let joint = Joint::new(kind).parent_frame(o.then(&a)).child_frame(a);
    let limit = child(j, "limit");
    let lim = |a: &str| limit.map_or(Ok(None), |n| number(file, doc, n, a));
    let limit = [
        lim("lower")?,
        lim("upper")?,
        lim("effort")?,
        lim("velocity")?,
    ];
    let dynamics = child(j, "dynamics");
    let dy = |a: &str| dynamics.map_or(Ok(None), |n| number(file, doc, n, a));
    let mimic = match child(j, "mimic") {
        Some(m) => Some((
            m.attribute("joint").unwrap_or("").to_string(),
            number(file, doc, m, "multiplier")?.unwrap_or(1.0),
            number(file, doc, m, "offset")?.unwrap_or(0.0),
        )),
        None => None,
    };
    let data = UrdfJoint {
        name: jn.to_string(),
        kind: kind_name.to_string(),
        limit,
        dynamics: [dy("damping")?, dy("friction")?],
        mimic,
    };
    Ok((joint, data))
}

impl Urdf {
    /// The problem of the robot let go at rest from its start: the tree's model, a
    /// constraint per mimic joint, 5 s.
    pub fn problem(&self) -> Result<Problem, ModelError> {
        let tree = &self.tree;
        let n = tree.n_coords();
        let mut b =
            crate::model::Model::builder(n).coordinate_names(tree.coordinate_names().to_vec());
        tree.add_to(&mut b, 0)?;
        let names = tree.coordinate_names();
        for d in &self.joints {
            if let Some((target, multiplier, offset)) = &d.mimic {
                let i = names.iter().position(|x| x == &d.name);
                let j = names.iter().position(|x| x == target);
                if let (Some(i), Some(j)) = (i, j) {
                    let c = crate::multibody::Coupling {
                        multiplier: *multiplier,
                        offset: *offset,
                    };
                    b.add_constraint_kernel(format!("mimic {}", d.name), &[i, j], c);
                }
            }
        }
        let model = b.build()?;
        let mut problem = Problem::new(model);
        problem.notes = self.notes.clone();
        Ok(problem
            .title(self.name.clone())
            .guess(&self.start, &vec![0.0; n])
            .pin_v(0..n)
            .t_end(5.0)
            .geometry(self.geometry()))
    }

    /// The picture: each link's origin a point named after the link (by the tree's forward
    /// kinematics), drawn as bars from its parent's (the root link's origin fixed).
    fn geometry(&self) -> Geometry {
        let mut g = Geometry::new(3);
        g.quaternions = self.tree.quaternion_coords(0);
        let tree = self.tree.clone();
        g.momenta = Momenta::Custom(Arc::new(move |q: &[f64], v: &[f64], _t: f64| {
            tree.momenta(q, v)
        }));
        let root = "ground".to_string();
        g.points.push(NamedPoint::new(
            root.clone(),
            PointKind::Fixed,
            PointMap::Affine(Affine::fixed([0.0; 3])),
        ));
        let points = crate::multibody::TreePoints::new(self.tree.clone(), 0);
        for (i, l) in self.tree.links().iter().enumerate() {
            g.points.push(NamedPoint::new(
                l.name.clone(),
                PointKind::Derived,
                points.point(i, [0.0; 3]),
            ));
            let from = l
                .parent
                .map_or(root.clone(), |p| self.tree.links()[p].name.clone());
            g.links.push(GeoLink {
                name: format!("{from}-{}", l.name),
                kind: LinkKind::Bar,
                ends: [from, l.name.clone()],
                constraint: None,
            });
        }
        g
    }
}
