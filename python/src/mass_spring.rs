//! The mass–spring course API (`from lagrangian import mass_spring as ms`): a system in 2D or
//! 3D, `add` of `Fix`, `Mass`, `Spring`, `DistanceConstraint` and `Chain`, connectors, the
//! `gravity` property, `simulate(tend, steps)`, and the `masses`, `fixes`, `springs` and
//! `constraints` lists whose items read (and write) the system's current state.

use crate::interruptible;
use crate::trajectory::Trajectory;
use lagrangian::library::mass_spring::{MassSpringSystem, Node};
use lagrangian::output::Interrupt;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex, MutexGuard};

/// A network in 2D or 3D.
enum Net {
    D2(MassSpringSystem<2>),
    D3(MassSpringSystem<3>),
}

type Shared = Arc<Mutex<Net>>;

fn lock(net: &Shared) -> MutexGuard<'_, Net> {
    net.lock().unwrap_or_else(|e| e.into_inner())
}

fn lock_trace(t: &Mutex<Option<Trajectory>>) -> MutexGuard<'_, Option<Trajectory>> {
    t.lock().unwrap_or_else(|e| e.into_inner())
}

/// `v` as `[f64; D]`, or a `ValueError` naming `what`.
fn fixed<const D: usize>(v: &[f64], what: &str) -> PyResult<[f64; D]> {
    v.try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "{what} has {} components; this system is {D}D",
            v.len()
        ))
    })
}

/// `Ok` when `x` is finite and at least `min` (strictly above it when `strict`), else a
/// `ValueError` naming the element, the value's name and the value.
fn check_value(element: &str, name: &str, x: f64, min: f64, strict: bool) -> PyResult<()> {
    let ok = x.is_finite() && if strict { x > min } else { x >= min };
    match ok {
        true => Ok(()),
        false => Err(PyValueError::new_err(format!(
            "{element}: the {name} must be finite and {} {min}, not {x}",
            if strict { "above" } else { "at least" }
        ))),
    }
}

/// `Ok` when the two connectors are different and not both fixed points.
fn check_ends(element: &str, c: &[Connector; 2]) -> PyResult<()> {
    if c[0] == c[1] {
        return Err(PyValueError::new_err(format!(
            "{element}: both ends are {}",
            c[0].__repr__()
        )));
    }
    if c[0].kind == "fix" && c[1].kind == "fix" {
        return Err(PyValueError::new_err(format!(
            "{element}: both ends are fixed points ({}, {}), so it cannot act on the system",
            c[0].__repr__(),
            c[1].__repr__()
        )));
    }
    Ok(())
}

/// Apply `$body` to the network with `$s` bound to the `MassSpringSystem<D>` and `D` as a
/// const (`$d`).
macro_rules! with_net {
    ($net:expr, $s:ident, $body:expr) => {
        match $net {
            Net::D2($s) => {
                #[allow(non_upper_case_globals, dead_code)]
                const D: usize = 2;
                $body
            }
            Net::D3($s) => {
                #[allow(non_upper_case_globals, dead_code)]
                const D: usize = 3;
                $body
            }
        }
    };
}

impl Net {
    fn dim(&self) -> usize {
        match self {
            Net::D2(_) => 2,
            Net::D3(_) => 3,
        }
    }
    fn node_ok(&self, c: &Connector) -> bool {
        with_net!(
            self,
            s,
            match c.node() {
                Node::Mass(i) => i < s.masses.len(),
                Node::Fix(i) => i < s.fixes.len(),
            }
        )
    }
}

/// A handle on a fixed point or a mass of a system, as `add` returns it.
#[pyclass(module = "lagrangian._lagrangian", frozen, eq, hash, from_py_object)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Connector {
    /// `"fix"` or `"mass"`.
    #[pyo3(get)]
    kind: &'static str,
    /// Index into the system's fixes or masses.
    #[pyo3(get)]
    index: usize,
}

impl Connector {
    fn node(&self) -> Node {
        match self.kind {
            "fix" => Node::Fix(self.index),
            _ => Node::Mass(self.index),
        }
    }
    fn of(node: Node) -> Self {
        match node {
            Node::Fix(i) => Connector {
                kind: "fix",
                index: i,
            },
            Node::Mass(i) => Connector {
                kind: "mass",
                index: i,
            },
        }
    }
}

#[pymethods]
impl Connector {
    fn __repr__(&self) -> String {
        format!("Connector({}, {})", self.kind, self.index)
    }
}

/// A point mass: free-standing until added, then a view of the system's mass (its `pos` and
/// `vel` are the current ones after `simulate`).
#[pyclass(module = "lagrangian._lagrangian")]
pub struct Mass {
    mass: f64,
    pos: Vec<f64>,
    vel: Vec<f64>,
    bound: Option<(Shared, usize)>,
}

#[pymethods]
impl Mass {
    #[new]
    #[pyo3(signature = (mass, pos, vel = None))]
    fn new(mass: f64, pos: Vec<f64>, vel: Option<Vec<f64>>) -> PyResult<Self> {
        if mass.is_nan() || mass <= 0.0 || mass.is_infinite() {
            return Err(PyValueError::new_err(format!(
                "Mass({mass}, …): the mass must be positive and finite"
            )));
        }
        let vel = vel.unwrap_or_else(|| vec![0.0; pos.len()]);
        if vel.len() != pos.len() {
            return Err(PyValueError::new_err(
                "Mass: pos and vel have different lengths",
            ));
        }
        Ok(Mass {
            mass,
            pos,
            vel,
            bound: None,
        })
    }
    /// The mass.
    #[getter]
    fn mass(&self) -> f64 {
        match &self.bound {
            Some((net, i)) => with_net!(&*lock(net), s, s.masses[*i].mass),
            None => self.mass,
        }
    }
    /// The position (current, once added).
    #[getter]
    fn pos(&self) -> Vec<f64> {
        match &self.bound {
            Some((net, i)) => with_net!(&*lock(net), s, s.masses[*i].pos.to_vec()),
            None => self.pos.clone(),
        }
    }
    #[setter]
    fn set_pos(&mut self, pos: Vec<f64>) -> PyResult<()> {
        match &self.bound {
            Some((net, i)) => with_net!(&mut *lock(net), s, {
                s.masses[*i].pos = fixed::<D>(&pos, "pos")?;
            }),
            None => self.pos = pos,
        }
        Ok(())
    }
    /// The velocity (current, once added).
    #[getter]
    fn vel(&self) -> Vec<f64> {
        match &self.bound {
            Some((net, i)) => with_net!(&*lock(net), s, s.masses[*i].vel.to_vec()),
            None => self.vel.clone(),
        }
    }
    #[setter]
    fn set_vel(&mut self, vel: Vec<f64>) -> PyResult<()> {
        match &self.bound {
            Some((net, i)) => with_net!(&mut *lock(net), s, {
                s.masses[*i].vel = fixed::<D>(&vel, "vel")?;
            }),
            None => self.vel = vel,
        }
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "Mass(m = {}, pos = {:?}, vel = {:?})",
            self.mass(),
            self.pos(),
            self.vel()
        )
    }
}

/// A fixed point.
#[pyclass(module = "lagrangian._lagrangian")]
pub struct Fix {
    #[pyo3(get)]
    pos: Vec<f64>,
}

#[pymethods]
impl Fix {
    #[new]
    fn new(pos: Vec<f64>) -> Self {
        Fix { pos }
    }
    fn __repr__(&self) -> String {
        format!("Fix(pos = {:?})", self.pos)
    }
}

/// A spring of rest `length` and `stiffness` (and axial `damping`) between two connectors.
#[pyclass(module = "lagrangian._lagrangian")]
#[derive(Clone)]
pub struct Spring {
    #[pyo3(get)]
    length: f64,
    #[pyo3(get)]
    stiffness: f64,
    #[pyo3(get)]
    damping: f64,
    #[pyo3(get)]
    connectors: [Connector; 2],
}

#[pymethods]
impl Spring {
    #[new]
    #[pyo3(signature = (length, stiffness, connectors, damping = 0.0))]
    fn new(
        length: f64,
        stiffness: f64,
        connectors: [Connector; 2],
        damping: f64,
    ) -> PyResult<Self> {
        check_value("Spring", "length", length, 0.0, false)?;
        check_value("Spring", "stiffness", stiffness, 0.0, false)?;
        check_value("Spring", "damping", damping, 0.0, false)?;
        check_ends("Spring", &connectors)?;
        Ok(Spring {
            length,
            stiffness,
            damping,
            connectors,
        })
    }
    fn __repr__(&self) -> String {
        format!(
            "Spring(length = {}, stiffness = {}, damping = {}, connectors = [{}, {}])",
            self.length,
            self.stiffness,
            self.damping,
            self.connectors[0].__repr__(),
            self.connectors[1].__repr__()
        )
    }
}

/// A rod of fixed `length` between two connectors (a Lagrange multiplier; its force is the
/// system's `constraint_forces` entry after `simulate`).
#[pyclass(module = "lagrangian._lagrangian")]
#[derive(Clone)]
pub struct DistanceConstraint {
    #[pyo3(get)]
    length: f64,
    #[pyo3(get)]
    connectors: [Connector; 2],
}

#[pymethods]
impl DistanceConstraint {
    #[new]
    fn new(length: f64, connectors: [Connector; 2]) -> PyResult<Self> {
        check_value("DistanceConstraint", "length", length, 0.0, true)?;
        check_ends("DistanceConstraint", &connectors)?;
        Ok(DistanceConstraint { length, connectors })
    }
    fn __repr__(&self) -> String {
        format!(
            "DistanceConstraint(length = {}, connectors = [{}, {}])",
            self.length,
            self.connectors[0].__repr__(),
            self.connectors[1].__repr__()
        )
    }
}

/// A constant force on a mass (a point load: the bridge exercise's weights on the deck).
#[pyclass(module = "lagrangian._lagrangian")]
#[derive(Clone)]
pub struct Force {
    #[pyo3(get)]
    connector: Connector,
    #[pyo3(get)]
    force: Vec<f64>,
}

#[pymethods]
impl Force {
    #[new]
    fn new(connector: Connector, force: Vec<f64>) -> PyResult<Self> {
        if connector.kind == "fix" {
            return Err(PyValueError::new_err(format!(
                "Force: {} is a fixed point, which a force cannot move (its reaction is what \
                 holds it)",
                connector.__repr__()
            )));
        }
        if let Some(x) = force.iter().find(|x| !x.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "Force: the components must be finite, not {x}"
            )));
        }
        Ok(Force { connector, force })
    }
    fn __repr__(&self) -> String {
        format!(
            "Force(connector = {}, force = {:?})",
            self.connector.__repr__(),
            self.force
        )
    }
}

/// `n` masses from connector `start` to position `end`, equally spaced, joined by springs whose
/// rest length is the spacing; `add` returns the masses' connectors.
#[pyclass(module = "lagrangian._lagrangian")]
pub struct Chain {
    start: Connector,
    end: Vec<f64>,
    n: usize,
    mass: f64,
    stiffness: f64,
    damping: f64,
}

#[pymethods]
impl Chain {
    #[new]
    #[pyo3(signature = (start, end, n, mass, stiffness, damping = 0.0))]
    fn new(
        start: Connector,
        end: Vec<f64>,
        n: usize,
        mass: f64,
        stiffness: f64,
        damping: f64,
    ) -> PyResult<Self> {
        if n == 0 {
            return Err(PyValueError::new_err("Chain: n must be at least 1"));
        }
        check_value("Chain", "mass", mass, 0.0, true)?;
        check_value("Chain", "stiffness", stiffness, 0.0, false)?;
        check_value("Chain", "damping", damping, 0.0, false)?;
        Ok(Chain {
            start,
            end,
            n,
            mass,
            stiffness,
            damping,
        })
    }
}

/// A mass–spring system (the Python classes `MassSpringSystem2d` and `MassSpringSystem3d`
/// derive from it with their dimension).
#[pyclass(module = "lagrangian._lagrangian", subclass, name = "MassSpringSystem")]
pub struct System {
    net: Shared,
    /// The recorded trajectory, while `record` is on.
    trace: Arc<Mutex<Option<Trajectory>>>,
}

impl System {
    fn check_connectors(&self, net: &Net, cs: &[Connector]) -> PyResult<()> {
        match cs.iter().find(|c| !net.node_ok(c)) {
            Some(c) => Err(PyIndexError::new_err(format!(
                "{} is not in this system",
                c.__repr__()
            ))),
            None => Ok(()),
        }
    }
}

#[pymethods]
impl System {
    #[new]
    #[pyo3(signature = (dimension = 3))]
    fn new(dimension: usize) -> PyResult<Self> {
        let net = match dimension {
            2 => Net::D2(MassSpringSystem::new([0.0; 2])),
            3 => Net::D3(MassSpringSystem::new([0.0; 3])),
            d => {
                return Err(PyValueError::new_err(format!(
                    "a mass–spring system is 2D or 3D, not {d}D"
                )))
            }
        };
        Ok(System {
            net: Arc::new(Mutex::new(net)),
            trace: Arc::new(Mutex::new(None)),
        })
    }

    /// 2 or 3.
    #[getter]
    fn dimension(&self) -> usize {
        lock(&self.net).dim()
    }

    /// Generalized-α's spectral radius at infinite frequency, `ρ∞` in `[0, 1)` (default 0.8):
    /// 1 would keep every frequency, smaller values damp the highest ones more.
    #[getter]
    fn rho_inf(&self) -> f64 {
        with_net!(&*lock(&self.net), s, s.options.method.rho_inf)
    }
    #[setter]
    fn set_rho_inf(&self, rho: f64) -> PyResult<()> {
        if !(0.0..1.0).contains(&rho) {
            return Err(PyValueError::new_err(format!(
                "rho_inf = {rho}: it must lie in [0, 1)"
            )));
        }
        with_net!(&mut *lock(&self.net), s, s.options.method.rho_inf = rho);
        Ok(())
    }

    /// The gravity vector.
    #[getter]
    fn gravity(&self) -> Vec<f64> {
        with_net!(&*lock(&self.net), s, s.gravity.to_vec())
    }
    #[setter]
    fn set_gravity(&self, g: Vec<f64>) -> PyResult<()> {
        with_net!(&mut *lock(&self.net), s, {
            s.gravity = fixed::<D>(&g, "gravity")?;
        });
        Ok(())
    }

    /// Add a `Fix`, `Mass`, `Spring`, `DistanceConstraint`, `Force` or `Chain`; a `Fix` or a
    /// `Mass` gives its connector, a `Chain` the list of its masses' connectors, the others
    /// their index.
    fn add(&self, py: Python<'_>, element: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let mut guard = lock(&self.net);
        let net = &mut *guard;
        if let Ok(f) = element.cast::<Fix>() {
            let pos = f.borrow().pos.clone();
            let node = with_net!(net, s, s.add_fix(fixed::<D>(&pos, "Fix position")?));
            return Ok(Connector::of(node).into_pyobject(py)?.into_any().unbind());
        }
        if let Ok(m) = element.cast::<Mass>() {
            let mut m = m.borrow_mut();
            if m.bound.is_some() {
                return Err(PyValueError::new_err("this Mass is already in a system"));
            }
            let node = with_net!(net, s, {
                let pos = fixed::<D>(&m.pos, "Mass position")?;
                let vel = fixed::<D>(&m.vel, "Mass velocity")?;
                s.add_mass_with_velocity(m.mass, pos, vel)
            });
            let Node::Mass(i) = node else { unreachable!() };
            m.bound = Some((self.net.clone(), i));
            return Ok(Connector::of(node).into_pyobject(py)?.into_any().unbind());
        }
        if let Ok(sp) = element.cast::<Spring>() {
            let sp = sp.borrow().clone();
            self.check_connectors(net, &sp.connectors)?;
            let [a, b] = sp.connectors.map(|c| c.node());
            let k = with_net!(net, s, {
                s.add_damped_spring(a, b, sp.length, sp.stiffness, sp.damping);
                s.springs.len() - 1
            });
            return Ok(k.into_pyobject(py)?.into_any().unbind());
        }
        if let Ok(c) = element.cast::<DistanceConstraint>() {
            let c = c.borrow().clone();
            self.check_connectors(net, &c.connectors)?;
            let [a, b] = c.connectors.map(|c| c.node());
            let k = with_net!(net, s, {
                s.add_distance_constraint(a, b, c.length);
                s.constraints.len() - 1
            });
            return Ok(k.into_pyobject(py)?.into_any().unbind());
        }
        if let Ok(fo) = element.cast::<Force>() {
            let fo = fo.borrow().clone();
            self.check_connectors(net, &[fo.connector])?;
            let k = with_net!(net, s, {
                let f = fixed::<D>(&fo.force, "Force")?;
                s.add_load(fo.connector.node(), move |_| f);
                s.loads.len() - 1
            });
            return Ok(k.into_pyobject(py)?.into_any().unbind());
        }
        if let Ok(ch) = element.cast::<Chain>() {
            let ch = ch.borrow();
            self.check_connectors(net, &[ch.start])?;
            let nodes = with_net!(net, s, {
                let end = fixed::<D>(&ch.end, "Chain end")?;
                let start = ch.start.node();
                if s.node_position(start) == end {
                    return Err(PyValueError::new_err(
                        "Chain: its end is where it starts (springs of length 0)",
                    ));
                }
                s.add_chain(start, end, ch.n, ch.mass, ch.stiffness, ch.damping)
            });
            let list: Vec<Connector> = nodes.into_iter().map(Connector::of).collect();
            return Ok(list.into_pyobject(py)?.into_any().unbind());
        }
        Err(PyTypeError::new_err(format!(
            "cannot add a {}: add a Fix, Mass, Spring, DistanceConstraint, Force or Chain",
            element.get_type().name()?
        )))
    }

    /// The masses, as views of the system's current state.
    #[getter]
    fn masses(&self) -> Vec<Mass> {
        let n = with_net!(&*lock(&self.net), s, s.masses.len());
        (0..n)
            .map(|i| Mass {
                mass: 0.0,
                pos: Vec::new(),
                vel: Vec::new(),
                bound: Some((self.net.clone(), i)),
            })
            .collect()
    }

    /// The fixed points.
    #[getter]
    fn fixes(&self) -> Vec<Fix> {
        with_net!(&*lock(&self.net), s, {
            s.fixes.iter().map(|p| Fix { pos: p.to_vec() }).collect()
        })
    }

    /// The springs.
    #[getter]
    fn springs(&self) -> Vec<Spring> {
        with_net!(&*lock(&self.net), s, {
            s.springs
                .iter()
                .map(|sp| Spring {
                    length: sp.rest_length,
                    stiffness: sp.stiffness,
                    damping: sp.damping,
                    connectors: sp.nodes.map(Connector::of),
                })
                .collect()
        })
    }

    /// The distance constraints.
    #[getter]
    fn constraints(&self) -> Vec<DistanceConstraint> {
        with_net!(&*lock(&self.net), s, {
            s.constraints
                .iter()
                .map(|c| DistanceConstraint {
                    length: c.length,
                    connectors: c.nodes.map(Connector::of),
                })
                .collect()
        })
    }

    /// The rod forces of the distance constraints after the last `simulate` (`λ > 0`:
    /// tension).
    #[getter]
    fn constraint_forces(&self) -> Vec<f64> {
        with_net!(&*lock(&self.net), s, s.constraint_forces().to_vec())
    }

    /// The course's "exact derivative", checked at the current state: without `jacobian`, the
    /// toolkit's hand-derived kernels against forward AD of the same energies; with
    /// `jacobian` (an `n × n` array: your `∂F/∂x`, the forces on the masses — gravity,
    /// springs with their damping, loads — differentiated by the positions `m0.x, m0.y, …`),
    /// yours against the exact one. A dict: `max_difference`, `relative` (to the block's
    /// largest exact entry), `block`, and where: `row`, `column` (coordinate names).
    #[pyo3(signature = (jacobian=None))]
    fn check_jacobian<'py>(
        &self,
        py: Python<'py>,
        jacobian: Option<numpy::PyReadonlyArray2<'py, f64>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let check = match &jacobian {
            None => with_net!(&*lock(&self.net), s, s.check_jacobian()),
            Some(j) => {
                let a = j.as_array();
                let (rows, cols) = a.dim();
                let values: Vec<f64> = a.iter().copied().collect();
                with_net!(
                    &*lock(&self.net),
                    s,
                    s.check_forces_jacobian_rows(rows, cols, &values)
                )
            }
        }
        .map_err(|e| crate::to_py(py, e))?;
        let d = PyDict::new(py);
        d.set_item("max_difference", check.max_difference)?;
        d.set_item("relative", check.relative)?;
        d.set_item("block", check.block)?;
        d.set_item("row", check.row)?;
        d.set_item("column", check.column)?;
        Ok(d)
    }

    /// The current time.
    #[getter]
    fn t(&self) -> f64 {
        with_net!(&*lock(&self.net), s, s.time())
    }

    /// Integrate over `tend` seconds in `steps` equal generalized-α steps from the current
    /// state; positions, velocities and constraint forces are updated. Calls go on from one
    /// another as one run (the integrator keeps its state) while the system is not changed in
    /// between; a changed system, or `reset()`, starts afresh from consistent initial values. The GIL is released meanwhile; Ctrl-C stops the run after its current step,
    /// leaving the system at that step (its `t`), and raises `KeyboardInterrupt`.
    #[pyo3(signature = (tend, steps))]
    fn simulate(&self, py: Python<'_>, tend: f64, steps: usize) -> PyResult<()> {
        let net = self.net.clone();
        let trace = self.trace.clone();
        let stop = Interrupt::new();
        let watch = stop.clone();
        interruptible(py, &stop, move || {
            with_net!(&mut *lock(&net), s, {
                let sol = s.simulate_until(tend, steps, &watch)?;
                // kept here, on the worker, so the steps before a Ctrl-C are recorded too
                if let Some(t) = lock_trace(&trace).as_mut() {
                    t.append(&sol.records, s.masses.len(), D);
                }
                Ok(())
            })
        })
    }

    /// Forget the integrator's state: the next `simulate` starts afresh from consistent
    /// initial values (and a recorded trajectory starts anew).
    fn reset(&self) {
        with_net!(&mut *lock(&self.net), s, s.reset());
        if let Some(t) = lock_trace(&self.trace).as_mut() {
            *t = Trajectory::default();
        }
    }

    /// The system as the animation page draws it (`scene.json`'s format): masses `m0`, `m1`,
    /// … (columns `m0.x`, …), fixes `F0`, …, springs and rods as links.
    fn scene(&self, py: Python<'_>) -> PyResult<String> {
        let problem = with_net!(&*lock(&self.net), s, s.problem(1.0));
        let problem = problem.map_err(|e| crate::to_py(py, e))?;
        let scene = lagrangian::output::scene::Scene::of(&problem);
        serde_json::to_string(&scene).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Whether `simulate` records every step's state (off by default): `mss.trajectory`.
    #[getter]
    fn record(&self) -> bool {
        lock_trace(&self.trace).is_some()
    }
    #[setter]
    fn set_record(&self, on: bool) {
        let every = if on { 1 } else { usize::MAX };
        with_net!(&mut *lock(&self.net), s, s.options.output_every = every);
        let mut t = lock_trace(&self.trace);
        match (on, t.is_some()) {
            (true, false) => *t = Some(Trajectory::default()),
            (false, _) => *t = None,
            _ => {}
        }
    }

    /// The recorded steps since `record` was turned on (or the last `reset`, or a change to
    /// the number of masses), as NumPy arrays: `t` (n,), `pos` and `vel` (n, masses, dim),
    /// `kinetic` and `potential` (n,); `None` when `record` is off.
    #[getter]
    fn trajectory<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        lock_trace(&self.trace)
            .as_ref()
            .map(|t| t.to_dict(py))
            .transpose()
    }

    fn __str__(&self) -> String {
        use std::fmt::Write;
        let net = lock(&self.net);
        let mut out = String::new();
        with_net!(&*net, s, {
            let count = |n: usize, one: &str, many: &str| match n {
                1 => format!("1 {one}"),
                _ => format!("{n} {many}"),
            };
            let _ = writeln!(
                out,
                "MassSpringSystem{}d: {}, {}, {}, {}; gravity = {:?}, t = {}",
                D,
                count(s.fixes.len(), "fix", "fixes"),
                count(s.masses.len(), "mass", "masses"),
                count(s.springs.len(), "spring", "springs"),
                count(s.constraints.len(), "constraint", "constraints"),
                s.gravity,
                s.time()
            );
            for (i, p) in s.fixes.iter().enumerate() {
                let _ = writeln!(out, "fix {i}: pos = {p:?}");
            }
            for (i, m) in s.masses.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "mass {i}: m = {}, pos = {:?}, vel = {:?}",
                    m.mass, m.pos, m.vel
                );
            }
            for (i, sp) in s.springs.iter().enumerate() {
                let [a, b] = sp.nodes.map(|n| Connector::of(n).__repr__());
                let _ = writeln!(
                    out,
                    "spring {i}: length = {}, stiffness = {}, damping = {}, connectors = [{a}, {b}]",
                    sp.rest_length, sp.stiffness, sp.damping
                );
            }
            for (i, c) in s.constraints.iter().enumerate() {
                let [a, b] = c.nodes.map(|n| Connector::of(n).__repr__());
                let force = s.constraint_forces().get(i).copied();
                let _ = write!(
                    out,
                    "constraint {i}: length = {}, connectors = [{a}, {b}]",
                    c.length
                );
                let _ = match force {
                    Some(f) => writeln!(out, ", force = {f}"),
                    None => writeln!(out),
                };
            }
        });
        out.trim_end().to_string()
    }

    fn __repr__(&self) -> String {
        self.__str__()
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Connector>()?;
    m.add_class::<Mass>()?;
    m.add_class::<Fix>()?;
    m.add_class::<Spring>()?;
    m.add_class::<DistanceConstraint>()?;
    m.add_class::<Chain>()?;
    m.add_class::<Force>()?;
    m.add_class::<System>()?;
    Ok(())
}
