//! Bodies and joints from Rust: the vocabulary of a mechanism file's `Bodies` and `Joints`
//! (docs/yaml.md) as typed values, turned into the same [`Problem`] the file reader builds.
//!
//! A [`Multibody`] holds bodies by mass, centre of mass and inertia ([`Body`]), joints between
//! them ([`Joint`]: revolute, prismatic, cylindrical, spherical, universal, planar, fixed, and
//! gears between joint coordinates), gravity, drives and forces along joint coordinates.
//! [`Multibody::problem`] hands the document these values stand for to the file reader's
//! builder — no text in between —, so a body or joint built here has exactly the coordinates
//! (joint coordinates in space: a `multibody::Tree`), equations, names and checks of the
//! file's, and a wrong joint is refused with the file's message, which names the joint and the
//! key, at its line and column in the text [`to_yaml`](Multibody::to_yaml) gives. That text
//! can be saved and run with the command line (`lagrangian run arm.yaml`) or sent to someone
//! who uses Python.
//!
//! Numbers are `f64`s; drive motions and forces are expressions of the file language
//! (`"0.4*sin(1.5*t)"`, `"-k*shoulder - c*shoulder'"`), with parameters from
//! [`Multibody::parameter`]. Anything else a file may say (springs between markers, outputs,
//! solver settings) goes in with [`Multibody::yaml`].
//!
//! ```
//! use lagrangian::spec::multibody::{Body, Joint, Multibody};
//! // a compound pendulum: a rod of mass 2 and length 1 on a revolute joint at its end;
//! // small swings have ω² = m g d / (I_G + m d²) with d = ½, I_G = m ℓ²/12
//! let rod = Body::new(2.0).com([0.5, 0.0, 0.0]).inertia([1e-4, 2.0 / 12.0, 2.0 / 12.0]);
//! let mech = Multibody::new(3)
//!     .body("Rod", rod)
//!     .joint("hinge", Joint::revolute("ground", "Rod").parent_axis([0.0, 1.0, 0.0])
//!         .child_axis([0.0, 1.0, 0.0]).initial(-std::f64::consts::FRAC_PI_2 + 0.01))
//!     .t_end(1.0);
//! let problem = mech.problem()?;
//! assert!(problem.model.coordinate_names().iter().any(|n| n == "hinge"));
//! assert!(mech.to_yaml()?.contains("type: revolute"));
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::error::SpecError;
use crate::problem::{Problem, RunPlan};
use nalgebra::{Matrix3, Rotation3, Unit, Vector3};
use serde_yaml::{Mapping, Value};

/// A mechanism of bodies and joints, written in Rust (see the module notes).
#[derive(Clone, Debug, Default)]
pub struct Multibody {
    dim: usize,
    title: Option<String>,
    parameters: Vec<(String, f64)>,
    gravity: Option<Vec<f64>>,
    bodies: Vec<(String, Body)>,
    joints: Vec<(String, Joint)>,
    gears: Vec<(String, [String; 2], f64, f64)>,
    drives: Vec<(String, String, String)>,
    forces: Vec<(String, String)>,
    t_end: Option<f64>,
    extra: Vec<String>,
}

/// A rigid body by its mass, centre of mass and inertia in its own frame.
#[derive(Clone, Debug)]
pub struct Body {
    mass: f64,
    com: Option<Vec<f64>>,
    inertia: Option<Value>,
    position: Option<Vec<f64>>,
    orientation: Option<Value>,
    /// The body frame at the start (its axes as columns), as the builder was told it.
    axes: Matrix3<f64>,
    markers: Vec<(String, Vec<f64>)>,
    velocity: Option<Vec<f64>>,
    angular_velocity: Option<Vec<f64>>,
}

/// What a joint allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Turns about the joint axis `z` (one angle).
    Revolute,
    /// Slides along `z` (one length; in the plane along the parent's `x`).
    Prismatic,
    /// Turns about and slides along `z`.
    Cylindrical,
    /// Turns about the common origin (no coordinates).
    Spherical,
    /// Turns about the parent's `x`, then the child's `y`.
    Universal,
    /// Slides in the parent's `xy` plane and turns about `z`.
    Planar,
    /// Welds the child to the parent.
    Fixed,
}

impl JointKind {
    /// Every kind with the name a mechanism file gives it (`type: revolute`).
    pub const ALL: [(&'static str, JointKind); 7] = [
        ("revolute", JointKind::Revolute),
        ("prismatic", JointKind::Prismatic),
        ("cylindrical", JointKind::Cylindrical),
        ("spherical", JointKind::Spherical),
        ("universal", JointKind::Universal),
        ("planar", JointKind::Planar),
        ("fixed", JointKind::Fixed),
    ];

    /// The name a mechanism file gives the kind.
    pub fn name(self) -> &'static str {
        JointKind::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("", |(n, _)| n)
    }
}

/// A joint between a parent (a body or `"ground"`) and a child body.
#[derive(Clone, Debug)]
pub struct Joint {
    kind: JointKind,
    parent: String,
    child: String,
    frames: [Mapping; 2],
    initial: Vec<f64>,
    rates: Vec<f64>,
    coordinates: Vec<String>,
    dh: Option<[f64; 3]>,
}

fn num(x: f64) -> Value {
    Value::Number(x.into())
}

fn list(xs: &[f64]) -> Value {
    Value::Sequence(xs.iter().map(|&x| num(x)).collect())
}

fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

/// `key: value` into `m`.
fn put(m: &mut Mapping, key: &str, value: Value) {
    m.insert(text(key), value);
}

impl Body {
    /// A body of mass `mass`, its centre of mass at its frame's origin, no inertia about it.
    pub fn new(mass: f64) -> Body {
        Body {
            mass,
            com: None,
            inertia: None,
            position: None,
            orientation: None,
            axes: Matrix3::identity(),
            markers: Vec::new(),
            velocity: None,
            angular_velocity: None,
        }
    }

    /// The centre of mass in the body frame (`[x, y]` in the plane).
    pub fn com(mut self, c: impl AsRef<[f64]>) -> Body {
        self.com = Some(c.as_ref().to_vec());
        self
    }

    /// The principal moments about the centre of mass along the body axes, `[Ixx, Iyy, Izz]`.
    pub fn inertia(mut self, diagonal: [f64; 3]) -> Body {
        self.inertia = Some(list(&diagonal));
        self
    }

    /// The inertia tensor about the centre of mass in body axes.
    pub fn inertia_tensor(mut self, i: [[f64; 3]; 3]) -> Body {
        self.inertia = Some(Value::Sequence(i.iter().map(|r| list(r)).collect()));
        self
    }

    /// The moment of inertia about the centre of mass (a body in the plane).
    pub fn moment(mut self, i: f64) -> Body {
        self.inertia = Some(num(i));
        self
    }

    /// Where the body frame's origin starts (world). Without it a joint places the body.
    pub fn position(mut self, p: impl AsRef<[f64]>) -> Body {
        self.position = Some(p.as_ref().to_vec());
        self
    }

    /// The body frame at the start: turned by `angle` (rad) about `axis` (world).
    pub fn turned(mut self, axis: [f64; 3], angle: f64) -> Body {
        let mut m = Mapping::new();
        put(&mut m, "axis", list(&axis));
        put(&mut m, "angle", num(angle));
        self.orientation = Some(Value::Mapping(m));
        // as the file reader turns it (a zero axis is its error to report)
        let axis = Vector3::from(axis);
        if axis.norm() > 0.0 {
            self.axes = *Rotation3::from_axis_angle(&Unit::new_normalize(axis), angle).matrix();
        }
        self
    }

    /// The body frame at the start as a rotation matrix (body axes as its columns).
    pub fn rotation(mut self, r: [[f64; 3]; 3]) -> Body {
        self.orientation = Some(Value::Sequence(r.iter().map(|row| list(row)).collect()));
        self.axes = Matrix3::from_fn(|i, k| r[i][k]);
        self
    }

    /// The body frame at the start turned by `angle` (rad) from the world's (in the plane).
    pub fn angle(mut self, angle: f64) -> Body {
        self.orientation = Some(num(angle));
        self.axes = *Rotation3::from_axis_angle(&Vector3::z_axis(), angle).matrix();
        self
    }

    /// The velocity of the body frame's origin at the start (world), held during consistent
    /// initialization (as a file's `ProblemData: velocities`).
    pub fn velocity(mut self, v: impl AsRef<[f64]>) -> Body {
        self.velocity = Some(v.as_ref().to_vec());
        self
    }

    /// The body's angular velocity at the start (world; in the plane `[ω]`): its axes start at
    /// `i̇ = ω × i`, `j̇ = ω × j`, held during consistent initialization (its origin's velocity
    /// follows from the joints unless [`velocity`](Body::velocity) gives it). Needs the body's
    /// `position`, so that its orientation at the start is the builder's.
    pub fn angular_velocity(mut self, w: impl AsRef<[f64]>) -> Body {
        self.angular_velocity = Some(w.as_ref().to_vec());
        self
    }

    /// This body's held velocities (`name`, `name.i`, `name.j`) into `out`.
    fn velocities(&self, name: &str, dim: usize, out: &mut Mapping) -> Result<(), String> {
        if let Some(v) = &self.velocity {
            put(out, name, list(v));
        }
        let Some(w) = &self.angular_velocity else {
            return Ok(());
        };
        if self.position.is_none() {
            return Err(format!(
                "body '{name}': an angular velocity needs the body's position (a body placed \
                 by its joint starts turning with the joint's rate instead)"
            ));
        }
        let (i, j) = (self.axes.column(0), self.axes.column(1));
        match (dim, w.as_slice()) {
            (3, &[a, b, c]) => {
                let w = Vector3::new(a, b, c);
                put(out, &format!("{name}.i"), list(w.cross(&i).as_slice()));
                put(out, &format!("{name}.j"), list(w.cross(&j).as_slice()));
            }
            (2, &[w]) => put(out, &format!("{name}.i"), list(&[-w * i[1], w * i[0]])),
            _ => {
                return Err(format!(
                    "body '{name}': an angular velocity has {} in {dim} dimensions, not {}",
                    if dim == 3 {
                        "3 components"
                    } else {
                        "1 component"
                    },
                    w.len()
                ));
            }
        }
        Ok(())
    }

    /// A named point on the body (body frame): the point `Body.name` of the results and of
    /// expressions.
    pub fn marker(mut self, name: &str, at: impl AsRef<[f64]>) -> Body {
        self.markers.push((name.to_string(), at.as_ref().to_vec()));
        self
    }

    fn value(&self) -> Value {
        let mut m = Mapping::new();
        put(&mut m, "mass", num(self.mass));
        if let Some(c) = &self.com {
            put(&mut m, "com", list(c));
        }
        if let Some(i) = &self.inertia {
            put(&mut m, "inertia", i.clone());
        }
        if let Some(p) = &self.position {
            put(&mut m, "position", list(p));
        }
        if let Some(o) = &self.orientation {
            put(&mut m, "orientation", o.clone());
        }
        if !self.markers.is_empty() {
            let mut k = Mapping::new();
            for (name, at) in &self.markers {
                put(&mut k, name, list(at));
            }
            put(&mut m, "markers", Value::Mapping(k));
        }
        Value::Mapping(m)
    }
}

impl Joint {
    /// A joint of kind `kind` from `parent` (a body or `"ground"`) to `child`; its frames are
    /// the bodies' own until given.
    pub fn new(kind: JointKind, parent: &str, child: &str) -> Joint {
        Joint {
            kind,
            parent: parent.to_string(),
            child: child.to_string(),
            frames: [Mapping::new(), Mapping::new()],
            initial: Vec::new(),
            rates: Vec::new(),
            coordinates: Vec::new(),
            dh: None,
        }
    }

    /// A revolute joint (one angle about `z`).
    pub fn revolute(parent: &str, child: &str) -> Joint {
        Joint::new(JointKind::Revolute, parent, child)
    }

    /// A prismatic joint (one slide along `z`; in the plane along the parent's `x`).
    pub fn prismatic(parent: &str, child: &str) -> Joint {
        Joint::new(JointKind::Prismatic, parent, child)
    }

    /// A spherical joint (the origins together).
    pub fn spherical(parent: &str, child: &str) -> Joint {
        Joint::new(JointKind::Spherical, parent, child)
    }

    /// A fixed joint (the child welded to the parent).
    pub fn fixed(parent: &str, child: &str) -> Joint {
        Joint::new(JointKind::Fixed, parent, child)
    }

    fn frame(mut self, side: usize, key: &str, value: Value) -> Joint {
        put(&mut self.frames[side], key, value);
        self
    }

    /// The joint frame's origin on the parent, in the parent's frame (the world's for ground).
    pub fn parent_at(self, at: impl AsRef<[f64]>) -> Joint {
        self.frame(0, "at", list(at.as_ref()))
    }

    /// The joint axis `z` on the parent.
    pub fn parent_axis(self, z: [f64; 3]) -> Joint {
        self.frame(0, "z", list(&z))
    }

    /// The direction of zero angle `x` on the parent.
    pub fn parent_x(self, x: [f64; 3]) -> Joint {
        self.frame(0, "x", list(&x))
    }

    /// The joint frame's origin on the child, in the child's frame.
    pub fn child_at(self, at: impl AsRef<[f64]>) -> Joint {
        self.frame(1, "at", list(at.as_ref()))
    }

    /// The joint axis `z` on the child.
    pub fn child_axis(self, z: [f64; 3]) -> Joint {
        self.frame(1, "z", list(&z))
    }

    /// The direction of zero angle `x` on the child.
    pub fn child_x(self, x: [f64; 3]) -> Joint {
        self.frame(1, "x", list(&x))
    }

    /// In the plane: the joint frame on the parent turned by `angle` from the parent's frame.
    pub fn parent_angle(self, angle: f64) -> Joint {
        self.frame(0, "angle", num(angle))
    }

    /// In the plane: the joint frame on the child turned by `angle` from the child's frame.
    pub fn child_angle(self, angle: f64) -> Joint {
        self.frame(1, "angle", num(angle))
    }

    /// The joint coordinate at the start (places the child when it has no position).
    pub fn initial(mut self, x: f64) -> Joint {
        self.initial = vec![x];
        self
    }

    /// The joint coordinates at the start, for a joint of several.
    pub fn initial_all(mut self, x: &[f64]) -> Joint {
        self.initial = x.to_vec();
        self
    }

    /// The joint coordinate's rate at the start, held during consistent initialization (a
    /// rotor spinning up: rad/s).
    pub fn rate(mut self, x: f64) -> Joint {
        self.rates = vec![x];
        self
    }

    /// The joint coordinates' rates at the start, for a joint of several.
    pub fn rates(mut self, x: &[f64]) -> Joint {
        self.rates = x.to_vec();
        self
    }

    /// The names of the joint's coordinates: renamed, or after the joint (docs/yaml.md).
    fn coordinate_names(&self, name: &str) -> Vec<String> {
        if !self.coordinates.is_empty() {
            return self.coordinates.clone();
        }
        let suffixes: &[&str] = match self.kind {
            JointKind::Revolute | JointKind::Prismatic => return vec![name.to_string()],
            JointKind::Cylindrical => &["angle", "slide"],
            JointKind::Universal => &["1", "2"],
            JointKind::Planar => &["x", "y", "angle"],
            JointKind::Spherical | JointKind::Fixed => &[],
        };
        suffixes.iter().map(|s| format!("{name}_{s}")).collect()
    }

    /// Names for the joint coordinates (default: after the joint, see docs/yaml.md).
    pub fn coordinates(mut self, names: &[&str]) -> Joint {
        self.coordinates = names.iter().map(|s| s.to_string()).collect();
        self
    }

    /// The child's frame in standard Denavit–Hartenberg form: `[d, a, α]` for a revolute joint
    /// (`[θ, a, α]` for a prismatic one).
    pub fn dh(mut self, dh: [f64; 3]) -> Joint {
        self.dh = Some(dh);
        self
    }

    fn value(&self) -> Value {
        let mut m = Mapping::new();
        put(&mut m, "type", text(self.kind.name()));
        put(
            &mut m,
            "bodies",
            Value::Sequence(vec![text(&self.parent), text(&self.child)]),
        );
        for (key, frame) in ["parent", "child"].iter().zip(&self.frames) {
            if !frame.is_empty() {
                put(&mut m, key, Value::Mapping(frame.clone()));
            }
        }
        match self.initial.as_slice() {
            [] => {}
            [x] => put(&mut m, "initial", num(*x)),
            xs => put(&mut m, "initial", list(xs)),
        }
        if !self.coordinates.is_empty() {
            let names = self.coordinates.iter().map(|s| text(s)).collect();
            put(&mut m, "coordinates", Value::Sequence(names));
        }
        if let Some(dh) = self.dh {
            put(&mut m, "dh", list(&dh));
        }
        Value::Mapping(m)
    }
}

impl Multibody {
    /// An empty mechanism in `dim` dimensions (2 or 3), with gravity 9.81 along −y or −z.
    pub fn new(dim: usize) -> Multibody {
        Multibody {
            dim,
            ..Multibody::default()
        }
    }

    /// The title the results carry.
    pub fn title(mut self, title: &str) -> Multibody {
        self.title = Some(title.to_string());
        self
    }

    /// A parameter the expressions may use (`PhysicalParams`).
    pub fn parameter(mut self, name: &str, value: f64) -> Multibody {
        self.parameters.push((name.to_string(), value));
        self
    }

    /// Gravity as a vector (default: 9.81 along −y in the plane, −z in space).
    pub fn gravity(mut self, g: impl AsRef<[f64]>) -> Multibody {
        self.gravity = Some(g.as_ref().to_vec());
        self
    }

    /// A body named `name` (its origin is the point `name`, its markers `name.marker`).
    pub fn body(mut self, name: &str, body: Body) -> Multibody {
        self.bodies.push((name.to_string(), body));
        self
    }

    /// A joint named `name` (its coordinate is named after it unless renamed).
    pub fn joint(mut self, name: &str, joint: Joint) -> Multibody {
        self.joints.push((name.to_string(), joint));
        self
    }

    /// A gear `b = ratio·a + offset` between joint coordinates `a` and `b`.
    pub fn gear(mut self, name: &str, a: &str, b: &str, ratio: f64, offset: f64) -> Multibody {
        let pair = [a.to_string(), b.to_string()];
        self.gears.push((name.to_string(), pair, ratio, offset));
        self
    }

    /// A drive: the quantity (a joint coordinate, or any scalar expression) follows `motion(t)`;
    /// the results' column `drive:<name>` is the force or torque it takes.
    pub fn drive(mut self, name: &str, quantity: &str, motion: &str) -> Multibody {
        self.drives
            .push((name.to_string(), quantity.to_string(), motion.to_string()));
        self
    }

    /// A generalized force along a joint coordinate (a spring–damper, a motor): an expression.
    pub fn force(mut self, coordinate: &str, force: &str) -> Multibody {
        self.forces
            .push((coordinate.to_string(), force.to_string()));
        self
    }

    /// The run's end time (default 1, as [`Problem::new`]'s).
    pub fn t_end(mut self, t: f64) -> Multibody {
        self.t_end = Some(t);
        self
    }

    /// More of a mechanism file, as YAML text of top-level sections (`PartData` entries other
    /// than bodies and joints, `AppliedForces`, `Output`, `SolverParams`, …): merged into what
    /// the builder writes, section by section.
    pub fn yaml(mut self, text: &str) -> Multibody {
        self.extra.push(text.to_string());
        self
    }

    /// The mechanism file this builder stands for.
    pub fn to_yaml(&self) -> Result<String, SpecError> {
        let doc = self.document()?;
        serde_yaml::to_string(&doc).map_err(|e| self.error(format!("cannot write it: {e}")))
    }

    /// The [`Problem`] of the mechanism (the file reader's builder, on the document
    /// [`to_yaml`](Self::to_yaml) writes).
    pub fn problem(&self) -> Result<Problem, SpecError> {
        self.problem_and_plan().map(|(p, _)| p)
    }

    /// The [`Problem`] and the [`RunPlan`] the mechanism's `SolverParams` and `Output` ask for:
    /// the file reader's builder on the document these values stand for (no text in between;
    /// a mistake is placed in [`to_yaml`](Self::to_yaml)'s text). Its parameters can be
    /// changed afterwards (sensitivities, `fit`, sweeps) like a file's.
    pub fn problem_and_plan(&self) -> Result<(Problem, RunPlan), SpecError> {
        self.build_with(&[])
    }

    /// [`problem_and_plan`](Self::problem_and_plan) with `sets` replacing parameter values
    /// (`lagrangian run --set k=2` for a builder); a name that is not a parameter is refused.
    pub fn build_with(&self, sets: &[(String, f64)]) -> Result<(Problem, RunPlan), SpecError> {
        let doc = Value::Mapping(self.document()?);
        let ctx = super::Ctx {
            text: "",
            file: "multibody.yaml",
            scope: crate::expr::Scope::default(),
            names: Vec::new(),
            sets: sets.to_vec(),
        };
        let (mut problem, plan) = super::build::build(ctx, &doc).map_err(|mut e| {
            if let Ok(text) = serde_yaml::to_string(&doc) {
                let path: Vec<String> = e.field.split('.').map(String::from).collect();
                (e.line, e.column) = super::locate::locate(&text, &path);
            }
            e
        })?;
        problem.source = Some(std::sync::Arc::new(self.clone()));
        Ok((problem, plan))
    }

    fn error(&self, message: String) -> SpecError {
        SpecError {
            file: "multibody.yaml".into(),
            line: 1,
            column: 1,
            field: String::new(),
            message,
        }
    }

    fn document(&self) -> Result<Mapping, SpecError> {
        let mut doc = Mapping::new();
        if let Some(t) = &self.title {
            put(&mut doc, "Title", text(t));
        }
        put(&mut doc, "Dimension", Value::Number(self.dim.into()));
        if !self.parameters.is_empty() {
            let mut m = Mapping::new();
            for (k, v) in &self.parameters {
                put(&mut m, k, num(*v));
            }
            put(&mut doc, "PhysicalParams", Value::Mapping(m));
        }
        let mut part = Mapping::new();
        let mut bodies = Mapping::new();
        for (name, body) in &self.bodies {
            put(&mut bodies, name, body.value());
        }
        put(&mut part, "Bodies", Value::Mapping(bodies));
        let mut joints = Mapping::new();
        for (name, joint) in &self.joints {
            put(&mut joints, name, joint.value());
        }
        for (name, [a, b], ratio, offset) in &self.gears {
            let mut m = Mapping::new();
            put(&mut m, "type", text("gear"));
            put(
                &mut m,
                "coordinates",
                Value::Sequence(vec![text(a), text(b)]),
            );
            put(&mut m, "ratio", num(*ratio));
            put(&mut m, "offset", num(*offset));
            put(&mut joints, name, Value::Mapping(m));
        }
        if !joints.is_empty() {
            put(&mut part, "Joints", Value::Mapping(joints));
        }
        if !self.drives.is_empty() {
            let mut m = Mapping::new();
            for (name, quantity, motion) in &self.drives {
                let mut d = Mapping::new();
                put(&mut d, "quantity", text(quantity));
                put(&mut d, "motion", text(motion));
                put(&mut m, name, Value::Mapping(d));
            }
            put(&mut part, "Drives", Value::Mapping(m));
        }
        put(&mut doc, "PartData", Value::Mapping(part));
        let mut applied = Mapping::new();
        put(
            &mut applied,
            "Gravity",
            self.gravity.as_deref().map_or(Value::Null, list),
        );
        if !self.forces.is_empty() {
            let mut m = Mapping::new();
            for (coordinate, force) in &self.forces {
                put(&mut m, coordinate, text(force));
            }
            put(&mut applied, "Forces", Value::Mapping(m));
        }
        put(&mut doc, "AppliedForces", Value::Mapping(applied));
        let mut problem = Mapping::new();
        put(&mut problem, "tend", num(self.t_end.unwrap_or(1.0)));
        let velocities = self.velocities()?;
        if !velocities.is_empty() {
            put(&mut problem, "velocities", Value::Mapping(velocities));
        }
        put(&mut doc, "ProblemData", Value::Mapping(problem));
        for extra in &self.extra {
            self.merge(&mut doc, extra)?;
        }
        Ok(doc)
    }

    /// The held velocities of bodies and joints (`ProblemData: velocities`).
    fn velocities(&self) -> Result<Mapping, SpecError> {
        let mut out = Mapping::new();
        for (name, body) in &self.bodies {
            body.velocities(name, self.dim, &mut out)
                .map_err(|m| self.error(m))?;
        }
        for (name, joint) in &self.joints {
            if joint.rates.is_empty() {
                continue;
            }
            let names = joint.coordinate_names(name);
            if names.len() != joint.rates.len() {
                return Err(self.error(format!(
                    "joint '{name}': {} rates for its {} coordinates ({})",
                    joint.rates.len(),
                    names.len(),
                    names.join(", ")
                )));
            }
            for (c, r) in names.iter().zip(&joint.rates) {
                put(&mut out, c, num(*r));
            }
        }
        Ok(out)
    }

    /// Sections of `extra` into `doc`: a section both have is merged key by key (the extra's
    /// keys must be new).
    fn merge(&self, doc: &mut Mapping, extra: &str) -> Result<(), SpecError> {
        let value: Value = serde_yaml::from_str(extra)
            .map_err(|e| self.error(format!("the YAML given to `yaml` is not valid: {e}")))?;
        let Value::Mapping(sections) = value else {
            return Err(self.error("the YAML given to `yaml` must be a mapping of sections".into()));
        };
        for (key, section) in sections {
            match (doc.get_mut(&key), section) {
                (Some(Value::Mapping(have)), Value::Mapping(more)) => {
                    for (k, v) in more {
                        if have.contains_key(&k) {
                            let name = format!("{}.{}", yaml_key(&key), yaml_key(&k));
                            return Err(self.error(format!(
                                "'{name}' is given twice (by the builder and by `yaml`)"
                            )));
                        }
                        have.insert(k, v);
                    }
                }
                (None, section) => {
                    doc.insert(key, section);
                }
                (Some(_), _) => {
                    return Err(self.error(format!(
                        "section '{}' is given twice (by the builder and by `yaml`)",
                        yaml_key(&key)
                    )));
                }
            }
        }
        Ok(())
    }
}

/// A key as text, for messages.
fn yaml_key(k: &Value) -> String {
    match k {
        Value::String(s) => s.clone(),
        other => serde_yaml::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_string(),
    }
}

impl crate::problem::Rebuild for Multibody {
    fn rebuild(&self, parameters: &[(String, f64)]) -> Result<Problem, crate::error::Error> {
        Ok(self.build_with(parameters)?.0)
    }
}
