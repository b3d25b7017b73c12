//! Mass–spring networks in 2D and 3D (after a C++ mass–spring course framework): masses, fixed points, springs with
//! optional axial damping, distance constraints, gravity and time-dependent loads — a mechanism
//! definition on the toolkit, integrated by the same generalized-α solver.
//!
//! ```
//! use lagrangian::library::mass_spring::MassSpringSystem;
//! // The mass–spring course's Python example: a fixed point, two masses, two springs, one distance constraint.
//! let mut mss = MassSpringSystem::<3>::new([0.0, -9.81, 0.0]);
//! let f = mss.add_fix([0.0, 0.0, 0.0]);
//! let m1 = mss.add_mass(1.0, [1.0, 0.0, 0.0]);
//! let m2 = mss.add_mass(1.0, [2.0, 0.0, 0.0]);
//! mss.add_spring(f, m1, 1.0, 20.0);
//! mss.add_spring(m1, m2, 1.0, 20.0);
//! mss.add_distance_constraint(m1, m2, 1.0);
//! mss.simulate(5.0, 500).unwrap();
//! let (p1, p2) = (mss.position(m1), mss.position(m2));
//! let d: f64 = (0..3).map(|k| (p2[k] - p1[k]).powi(2)).sum::<f64>().sqrt();
//! assert!((d - 1.0).abs() < 1e-10);        // the constraint holds
//! assert!(mss.time() == 5.0 && mss.constraint_forces()[0].is_finite());
//! ```

pub mod jacobian;
pub mod scenes;

pub use crate::model::elements::{
    AnchoredDistanceKernel, AnchoredSpringKernel, DistanceKernel, LoadKernel, PointMassKernel,
    SpringKernel,
};

use crate::ad::place;
use crate::error::Error;
use crate::mechanisms::lattice::Lattice;
use crate::model::geometry::{
    Affine, BarConstraint, CoordKind, DistanceForm, Geometry, Link, LinkKind, Momenta, NamedPoint,
    PointKind, PointMap,
};
use crate::model::{Model, State};
use crate::output::{Interrupt, Recorder, Solution};
use crate::simulation::Simulation;
use crate::solve::{GenAlphaOptions, InitReport, Problem, RunPlan};
use std::sync::Arc;
use std::time::Instant;

/// A node of the network: a mass (with coordinates) or a fixed point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// Index into the masses.
    Mass(usize),
    /// Index into the fixed points.
    Fix(usize),
}

/// A point mass with its state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass<const D: usize> {
    /// Mass.
    pub mass: f64,
    /// Position.
    pub pos: [f64; D],
    /// Velocity.
    pub vel: [f64; D],
}

/// A spring between two nodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringDef {
    /// End points.
    pub nodes: [Node; 2],
    /// Rest length.
    pub rest_length: f64,
    /// Stiffness.
    pub stiffness: f64,
    /// Axial damping (Rayleigh `½ c (d/dt |x₂ − x₁|)²`).
    pub damping: f64,
}

/// A distance constraint `|x₂ − x₁| = ℓ` between two nodes (not both fixed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceDef {
    /// End points.
    pub nodes: [Node; 2],
    /// Length.
    pub length: f64,
}

/// How the elements' derivatives are computed (chosen in [`crate::ad::place`]).
pub use crate::ad::Derivatives;

/// Time-dependent force on a node.
pub type LoadFn<const D: usize> = Arc<dyn Fn(f64) -> [f64; D] + Send + Sync>;

/// Settings of [`MassSpringSystem::simulate`].
#[derive(Clone, Debug, PartialEq)]
pub struct MassSpringOptions {
    /// Generalized-α options (their defaults; the step `h` is set by `simulate(t_end, steps)`).
    pub method: GenAlphaOptions,
    /// Keep a record every `output_every` steps (the first and last always); default: only those.
    pub output_every: usize,
    /// Hand-derived or AD kernels; default hand-derived.
    pub derivatives: Derivatives,
}

impl Default for MassSpringOptions {
    fn default() -> Self {
        MassSpringOptions {
            method: GenAlphaOptions::default(),
            output_every: usize::MAX,
            derivatives: Derivatives::Hand,
        }
    }
}

/// Figures of the last [`MassSpringSystem::simulate`] call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInfo {
    /// Seconds to build the model, the pattern, the symbolic factorization and consistent
    /// initial values.
    pub build_seconds: f64,
    /// The consistent initialization report.
    pub init: Option<InitReport>,
}

/// A mass–spring network in `D = 2` or `3` dimensions.
#[derive(Clone)]
pub struct MassSpringSystem<const D: usize> {
    /// Gravity (acceleration vector).
    pub gravity: [f64; D],
    /// Masses with their current state.
    pub masses: Vec<Mass<D>>,
    /// Fixed points.
    pub fixes: Vec<[f64; D]>,
    /// Springs.
    pub springs: Vec<SpringDef>,
    /// Distance constraints.
    pub constraints: Vec<DistanceDef>,
    /// Loads: mass index and force.
    pub loads: Vec<(usize, LoadFn<D>)>,
    /// Simulation settings.
    pub options: MassSpringOptions,
    t: f64,
    lambda: Vec<f64>,
    info: RunInfo,
    /// The run the next `simulate` goes on with, while the system is as that run left it.
    cache: Cache<D>,
}

/// What [`MassSpringSystem::simulate`] compares to tell whether the system was changed
/// since the last run: everything the model and its state are built from.
#[derive(Clone, PartialEq)]
struct Snapshot<const D: usize> {
    gravity: [f64; D],
    masses: Vec<Mass<D>>,
    fixes: Vec<[f64; D]>,
    springs: Vec<SpringDef>,
    constraints: Vec<DistanceDef>,
    /// Each load's mass and the address of its function.
    loads: Vec<(usize, usize)>,
    options: MassSpringOptions,
    t: f64,
}

/// A run kept for the next `simulate`, with the system as it left it.
struct Continuation<const D: usize> {
    sim: Simulation,
    left: Snapshot<D>,
}

/// The kept run; a clone of the system starts afresh.
#[derive(Default)]
struct Cache<const D: usize>(Option<Box<Continuation<D>>>);

impl<const D: usize> Clone for Cache<D> {
    fn clone(&self) -> Self {
        Cache(None)
    }
}

impl<const D: usize> MassSpringSystem<D> {
    /// An empty network with the given gravity vector.
    pub fn new(gravity: [f64; D]) -> Self {
        const { assert!(D == 2 || D == 3, "mass–spring networks are 2D or 3D") };
        MassSpringSystem {
            gravity,
            masses: Vec::new(),
            fixes: Vec::new(),
            springs: Vec::new(),
            constraints: Vec::new(),
            loads: Vec::new(),
            options: MassSpringOptions::default(),
            t: 0.0,
            lambda: Vec::new(),
            info: RunInfo::default(),
            cache: Cache(None),
        }
    }
    /// Add a mass at rest.
    pub fn add_mass(&mut self, mass: f64, pos: [f64; D]) -> Node {
        self.add_mass_with_velocity(mass, pos, [0.0; D])
    }
    /// Add a mass with an initial velocity.
    pub fn add_mass_with_velocity(&mut self, mass: f64, pos: [f64; D], vel: [f64; D]) -> Node {
        self.masses.push(Mass { mass, pos, vel });
        Node::Mass(self.masses.len() - 1)
    }
    /// Add a fixed point.
    pub fn add_fix(&mut self, pos: [f64; D]) -> Node {
        self.fixes.push(pos);
        Node::Fix(self.fixes.len() - 1)
    }
    /// Add a spring `(rest length, stiffness)` between two nodes (the course code's order).
    pub fn add_spring(&mut self, a: Node, b: Node, rest_length: f64, stiffness: f64) {
        self.add_damped_spring(a, b, rest_length, stiffness, 0.0);
    }
    /// Add a spring with axial damping.
    pub fn add_damped_spring(
        &mut self,
        a: Node,
        b: Node,
        rest_length: f64,
        stiffness: f64,
        damping: f64,
    ) {
        self.springs.push(SpringDef {
            nodes: [a, b],
            rest_length,
            stiffness,
            damping,
        });
    }
    /// Add a distance constraint (a rigid massless rod) of the given length.
    pub fn add_distance_constraint(&mut self, a: Node, b: Node, length: f64) {
        self.constraints.push(DistanceDef {
            nodes: [a, b],
            length,
        });
    }
    /// Add a time-dependent force on a mass.
    pub fn add_load(
        &mut self,
        node: Node,
        force: impl Fn(f64) -> [f64; D] + Send + Sync + 'static,
    ) {
        if let Node::Mass(i) = node {
            self.loads.push((i, Arc::new(force)));
        }
    }
    /// A chain of `n` masses from node `from` towards `to`, equally spaced, joined by springs
    /// whose rest length is the spacing; returns the new masses. The last mass sits at `to`.
    pub fn add_chain(
        &mut self,
        from: Node,
        to: [f64; D],
        n: usize,
        mass: f64,
        stiffness: f64,
        damping: f64,
    ) -> Vec<Node> {
        let pad = |x: [f64; D]| std::array::from_fn(|k| if k < D { x[k] } else { 0.0 });
        let lattice = Lattice::chain(pad(self.node_position(from)), pad(to), n);
        let mut out: Vec<Node> = Vec::with_capacity(n);
        for (site, bond) in lattice.sites.iter().zip(&lattice.bonds) {
            let m = self.add_mass(mass, std::array::from_fn(|k| site.position[k]));
            let prev = out.last().copied().unwrap_or(from);
            self.add_damped_spring(prev, m, bond.length, stiffness, damping);
            out.push(m);
        }
        out
    }

    /// Current position of a node.
    pub fn node_position(&self, n: Node) -> [f64; D] {
        match n {
            Node::Mass(i) => self.masses[i].pos,
            Node::Fix(i) => self.fixes[i],
        }
    }
    /// Current position of a mass node (fixed points: their position).
    pub fn position(&self, n: Node) -> [f64; D] {
        self.node_position(n)
    }
    /// Current velocity of a node (zero for fixed points).
    pub fn velocity(&self, n: Node) -> [f64; D] {
        match n {
            Node::Mass(i) => self.masses[i].vel,
            Node::Fix(_) => [0.0; D],
        }
    }
    /// Current time.
    pub fn time(&self) -> f64 {
        self.t
    }
    /// Multipliers of the distance constraints after the last simulation: the rod forces
    /// (`C = |x₂ − x₁| − ℓ`, so `λ > 0` means tension pulling the ends together).
    pub fn constraint_forces(&self) -> &[f64] {
        &self.lambda
    }
    /// Figures of the last simulation.
    pub fn info(&self) -> &RunInfo {
        &self.info
    }
    /// Number of generalized coordinates (`D` per mass).
    pub fn n_coords(&self) -> usize {
        D * self.masses.len()
    }

    fn coords(&self, node: Node) -> Option<[usize; D]> {
        match node {
            Node::Mass(i) => Some(std::array::from_fn(|k| D * i + k)),
            Node::Fix(_) => None,
        }
    }

    fn check(&self) -> Result<(), Error> {
        use crate::error::ModelError;
        let joins = |element: String, detail: &str| -> Error {
            ModelError::BadConnection {
                element,
                detail: detail.into(),
            }
            .into()
        };
        let node_ok = |n: Node| match n {
            Node::Mass(i) => i < self.masses.len(),
            Node::Fix(i) => i < self.fixes.len(),
        };
        for (i, m) in self.masses.iter().enumerate() {
            crate::error::ModelError::positive(&format!("mass {i}"), "mass", m.mass)?;
            if let Some(&x) = m.pos.iter().chain(&m.vel).find(|x| !x.is_finite()) {
                return Err(ModelError::BadValue {
                    element: format!("mass {i}"),
                    quantity: "position and velocity".into(),
                    value: x,
                    need: "must be finite".into(),
                }
                .into());
            }
        }
        for (i, s) in self.springs.iter().enumerate() {
            if !s.nodes.iter().all(|&n| node_ok(n)) || s.nodes[0] == s.nodes[1] {
                return Err(joins(
                    format!("spring {i}"),
                    "joins unknown or identical nodes",
                ));
            }
            for (quantity, value) in [
                ("rest length", s.rest_length),
                ("stiffness", s.stiffness),
                ("damping", s.damping),
            ] {
                if !(value >= 0.0) {
                    return Err(ModelError::BadValue {
                        element: format!("spring {i}"),
                        quantity: quantity.into(),
                        value,
                        need: "must be ≥ 0".into(),
                    }
                    .into());
                }
            }
        }
        for (i, c) in self.constraints.iter().enumerate() {
            if !c.nodes.iter().all(|&n| node_ok(n)) || c.nodes[0] == c.nodes[1] {
                return Err(joins(
                    format!("distance constraint {i}"),
                    "joins unknown or identical nodes",
                ));
            }
            if matches!(c.nodes, [Node::Fix(_), Node::Fix(_)]) {
                return Err(joins(
                    format!("distance constraint {i}"),
                    "joins two fixed points",
                ));
            }
            ModelError::positive(&format!("distance constraint {i}"), "length", c.length)?;
        }
        Ok(())
    }

    /// The network as a [`Model`] (`D` coordinates per mass, in order).
    pub fn model(&self, derivatives: Derivatives) -> Result<Model, Error> {
        self.check()?;
        let n = self.n_coords();
        let axes = ["x", "y", "z"];
        let mut b = Model::builder(n)
            .coordinate_names((0..n).map(|i| format!("m{}.{}", i / D, axes[i % D])));
        let err = |e: crate::error::ModelError| Error::from(e);
        for (i, m) in self.masses.iter().enumerate() {
            let idx: [usize; D] = std::array::from_fn(|k| D * i + k);
            b.add_boxed_term(
                &idx,
                place::point_mass(D, m.mass, &self.gravity, derivatives).map_err(err)?,
            );
        }
        for s in &self.springs {
            let (k, l, c) = (s.stiffness, s.rest_length, s.damping);
            let (ia, ib) = (self.coords(s.nodes[0]), self.coords(s.nodes[1]));
            let (idx, anchor): (Vec<usize>, Option<[f64; D]>) = match (ia, ib) {
                (Some(a), Some(bb)) => (a.iter().chain(&bb).copied().collect(), None),
                (Some(x), None) => (x.to_vec(), Some(self.node_position(s.nodes[1]))),
                (None, Some(x)) => (x.to_vec(), Some(self.node_position(s.nodes[0]))),
                (None, None) => continue, // between two fixed points: no effect
            };
            let kern = place::spring(D, anchor.as_ref().map(|p| &p[..]), k, l, c, derivatives);
            b.add_boxed_term(&idx, kern.map_err(err)?);
        }
        for (i, f) in &self.loads {
            let idx: [usize; D] = std::array::from_fn(|k| D * i + k);
            b.add_term_kernel(&idx, LoadKernel { force: f.clone() });
        }
        for (ci, c) in self.constraints.iter().enumerate() {
            let name = format!("distance {ci}");
            let (ia, ib) = (self.coords(c.nodes[0]), self.coords(c.nodes[1]));
            let (idx, anchor): (Vec<usize>, Option<[f64; D]>) = match (ia, ib) {
                (Some(a), Some(bb)) => (a.iter().chain(&bb).copied().collect(), None),
                (Some(x), None) => (x.to_vec(), Some(self.node_position(c.nodes[1]))),
                (None, Some(x)) => (x.to_vec(), Some(self.node_position(c.nodes[0]))),
                (None, None) => continue, // refused by `check`
            };
            let kern = place::distance(D, anchor.as_ref().map(|p| &p[..]), c.length, derivatives);
            b.add_boxed_constraint(name, &idx, kern.map_err(err)?);
        }
        Ok(b.build()?)
    }

    /// Current positions and velocities as coordinate vectors.
    pub fn state_vectors(&self) -> (Vec<f64>, Vec<f64>) {
        let q = self.masses.iter().flat_map(|m| m.pos).collect();
        let v = self.masses.iter().flat_map(|m| m.vel).collect();
        (q, v)
    }

    /// The network's geometry: masses `m0, m1, …` (free), fixed points `F0, F1, …`, springs
    /// and distance constraints as links; momenta are the Noether charges.
    pub fn geometry(&self) -> Geometry {
        let mut g = Geometry::new(D);
        let idx = |i: usize| -> Vec<usize> { (0..D).map(|k| D * i + k).collect() };
        let fixed = |p: &[f64; D]| {
            let mut c = [0.0; 3];
            c[..D].copy_from_slice(p);
            PointMap::Affine(Affine::fixed(c))
        };
        for i in 0..self.masses.len() {
            let map = PointMap::Affine(Affine::free(&idx(i)));
            g.points
                .push(NamedPoint::new(format!("m{i}"), PointKind::Free, map));
        }
        for (i, p) in self.fixes.iter().enumerate() {
            g.points
                .push(NamedPoint::new(format!("F{i}"), PointKind::Fixed, fixed(p)));
        }
        let name = |n: Node| match n {
            Node::Mass(i) => format!("m{i}"),
            Node::Fix(i) => format!("F{i}"),
        };
        for (i, s) in self.springs.iter().enumerate() {
            g.links.push(Link {
                name: format!("spring {i}"),
                kind: LinkKind::Spring,
                ends: s.nodes.map(name),
                constraint: None,
            });
        }
        for (i, c) in self.constraints.iter().enumerate() {
            g.links.push(Link {
                name: format!("distance {i}"),
                kind: LinkKind::Bar,
                ends: c.nodes.map(name),
                constraint: Some(BarConstraint {
                    block: format!("distance {i}"),
                    form: DistanceForm::Length,
                }),
            });
        }
        g.coordinate_kinds = (0..self.n_coords())
            .map(|i| CoordKind::Point(i % D))
            .collect();
        g.momenta = Momenta::Noether;
        g
    }

    /// The network from its current state as a [`Problem`] over `[t, t + duration]`.
    pub fn problem(&self, duration: f64) -> Result<Problem, Error> {
        step_size(duration, 1)?;
        let model = self.model(self.options.derivatives)?;
        let (q, v) = self.state_vectors();
        Ok(Problem::new(model)
            .title(format!("mass–spring network, {} masses", self.masses.len()))
            .guess(&q, &v)
            .t0(self.t)
            .t_end(self.t + duration)
            .geometry(self.geometry()))
    }

    /// How [`simulate`](Self::simulate) runs `duration` seconds in `steps` equal steps: the
    /// options' generalized-α settings at step `duration/steps`, a record every
    /// `options.output_every` steps.
    pub fn plan(&self, duration: f64, steps: usize) -> Result<RunPlan, Error> {
        let mut method = self.options.method.clone();
        method.h = step_size(duration, steps)?;
        Ok(RunPlan::new(method).output_every(self.options.output_every))
    }

    /// Integrate from the current state over `t_end` seconds in `steps` equal steps (the course
    /// code's semantics: `simulate(tend, steps)`) through the shared [`Simulation`].
    /// Positions, velocities and constraint forces are updated; the records asked for by
    /// `options.output_every` are returned. On error the system is left unchanged.
    ///
    /// Calls go on from one another as one run: when the system was not changed since the
    /// last call (positions, velocities, elements, gravity, options), the integrator continues
    /// with its own state — accelerations and generalized-α's auxiliary variables — so `n`
    /// calls of `simulate(T/n, k)` equal one call of `simulate(T, n·k)` to round-off (an
    /// animation drawn call by call loses no more energy than one run). A changed system, or
    /// [`reset`](Self::reset), starts afresh from consistent initial values. The returned
    /// `stats` count from that start.
    ///
    /// ```
    /// use lagrangian::library::mass_spring::MassSpringSystem;
    /// let pendulum = || {
    ///     let mut s = MassSpringSystem::new([0.0, -9.81]);
    ///     let o = s.add_fix([0.0, 0.0]);
    ///     let a = s.add_mass(1.0, [1.0, 0.0]);
    ///     s.add_distance_constraint(o, a, 1.0);
    ///     s
    /// };
    /// let (mut once, mut frames) = (pendulum(), pendulum());
    /// once.simulate(1.0, 1000)?;
    /// for _ in 0..100 {
    ///     frames.simulate(0.01, 10)?;
    /// }
    /// let (a, b) = (once.masses[0].pos, frames.masses[0].pos);
    /// assert!((a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12);
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn simulate(&mut self, t_end: f64, steps: usize) -> Result<Solution, Error> {
        self.simulate_until(t_end, steps, &Interrupt::new())
    }

    /// [`simulate`](Self::simulate) that `stop` can end early (Ctrl-C, another thread): the
    /// system is then left at the last completed step, its time [`time`](Self::time) — a
    /// consistent state a later `simulate` goes on from.
    pub fn simulate_until(
        &mut self,
        t_end: f64,
        steps: usize,
        stop: &Interrupt,
    ) -> Result<Solution, Error> {
        let start = Instant::now();
        let h = step_size(t_end, steps)?;
        let mut run = match self.cache.0.take() {
            Some(c) if c.left == self.snapshot() => c,
            _ => {
                let problem = self.problem(t_end)?;
                let sim = Simulation::new(problem, self.plan(t_end, steps)?)?;
                self.info = RunInfo {
                    build_seconds: start.elapsed().as_secs_f64(),
                    init: sim.init_report().cloned(),
                };
                Box::new(Continuation {
                    sim,
                    left: self.snapshot(),
                })
            }
        };
        run.sim.set_h(h);
        let mut rec = Recorder::every(self.options.output_every);
        let mut watch = stop.clone();
        run.sim
            .run_until(self.t + t_end, &mut [&mut rec, &mut watch])?;
        self.apply(&run.sim.state());
        run.left = self.snapshot();
        let stats = run.sim.stats();
        self.cache.0 = Some(run);
        Ok(Solution {
            records: rec.records,
            stats,
        })
    }

    /// Forget the run that [`simulate`](Self::simulate) goes on with: the next call starts
    /// afresh from consistent initial values (generalized-α's start-up included).
    pub fn reset(&mut self) {
        self.cache.0 = None;
    }

    fn snapshot(&self) -> Snapshot<D> {
        Snapshot {
            gravity: self.gravity,
            masses: self.masses.clone(),
            fixes: self.fixes.clone(),
            springs: self.springs.clone(),
            constraints: self.constraints.clone(),
            loads: (self.loads.iter())
                .map(|(i, f)| (*i, Arc::as_ptr(f) as *const () as usize))
                .collect(),
            // how often records are kept does not change the motion
            options: MassSpringOptions {
                output_every: 0,
                ..self.options.clone()
            },
            t: self.t,
        }
    }

    fn apply(&mut self, s: &State) {
        for (i, m) in self.masses.iter_mut().enumerate() {
            m.pos = std::array::from_fn(|k| s.q[D * i + k]);
            m.vel = std::array::from_fn(|k| s.v[D * i + k]);
        }
        self.t = s.t;
        self.lambda = s.lambda.clone();
    }
}

/// The step `duration/steps` of `simulate(duration, steps)`, or the error naming both.
fn step_size(duration: f64, steps: usize) -> Result<f64, Error> {
    if steps == 0 || !(duration > 0.0) || !duration.is_finite() {
        return Err(crate::error::OptionError::invalid(
            "duration",
            format!("simulate({duration}, {steps}): need a finite duration > 0 and steps > 0"),
        )
        .into());
    }
    Ok(duration / steps as f64)
}
