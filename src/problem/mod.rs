//! What to solve and how to run it, as data. The [`Problem`]: a model with its initial-value
//! problem, its named parameters and the geometry its results are shown with — Rust code, the
//! library's mechanisms and mechanism files all produce this one type. The [`RunPlan`]: the
//! method ([`Method`] and its options), the rows kept and the columns and formats written.
//! Neither runs anything; [`crate::simulation`] integrates a problem by a plan.

use crate::error::{Error, OptionError};
use crate::model::columns::UserColumn;
use crate::model::geometry::Geometry;
use crate::model::{Model, StateView};
mod integrator;
pub mod memory;
mod method;
mod method_options;
mod options;
mod outputs;
mod plan;
mod stats;

pub use integrator::{CloneMethod, CustomMethod, Integrator, StepOutcome};
pub use method::Method;
pub(crate) use method::MethodName;
pub use method_options::{MethodOptions, Work};
pub use options::{
    Dop853Options, GenAlphaOptions, InitOptions, LinearSolverKind, RadauOptions, Rk4Options,
    StepControl, TaylorOptions,
};
pub use outputs::{
    ENERGY_COLUMNS, Format, GROUPS, LEDGER_COLUMNS, MOMENTA_COLUMNS, OutputTimes, Outputs,
    PlotPanel,
};
pub use plan::{Overrides, RunPlan, Spelling};
pub use stats::Stats;
use std::fmt;
use std::sync::Arc;

/// The most steps one run may take (10⁸: hours of computing for the smallest mechanisms, and
/// the bound that keeps a mistyped step or span from running for ever).
pub const MAX_STEPS: usize = 100_000_000;

/// The intervals of the default output of a run under error control (rows every
/// `span/1000`, and at the end): [`RunPlan::bound_output`].
pub const DEFAULT_ROWS: usize = 1000;

/// An event that replaces the problem during a run: after each accepted step the driver asks
/// it whether to continue from a new problem (e.g. a pendulum chain in angle coordinates
/// switching a rod to another chart). The new problem's guesses hold the current state in its
/// coordinates; the driver finds consistent values from them and restarts the integrator at
/// the current time with the same method.
pub trait Restart: Send + Sync {
    /// A new problem to continue from, or `None` to go on.
    fn check(&self, state: StateView<'_>) -> Result<Option<Problem>, Error>;
}

/// How to build a problem again with named parameters changed (a mechanism file keeps its
/// text; a Rust function can be one: any `Fn(&[(String, f64)]) -> Result<Problem, Error>`).
pub trait Rebuild: Send + Sync {
    /// The problem with these parameter values (name, value), everything that depends on them
    /// evaluated again.
    fn rebuild(&self, parameters: &[(String, f64)]) -> Result<Problem, Error>;
}

impl<F: Fn(&[(String, f64)]) -> Result<Problem, Error> + Send + Sync> Rebuild for F {
    fn rebuild(&self, parameters: &[(String, f64)]) -> Result<Problem, Error> {
        self(parameters)
    }
}

/// A mechanism's initial-value problem: data, cheap to clone (`Clone + Send + Sync + 'static`),
/// so a worker thread, a parameter sweep or a Python object can own it.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::library::pendulum::planar_pendulum;
/// // a Cartesian pendulum (m = ℓ = 1, g = 9.81) released horizontally, run for 1 s
/// let problem = Problem::new(planar_pendulum(1.0, 1.0, 9.81))
///     .guess(&[1.0, 0.0], &[0.0, 0.0])
///     .t_end(1.0);
/// let sol = simulate(&problem, GenAlphaOptions::new(1e-3))?;
/// let last = sol.last();
/// assert!(last.max_constraint < 1e-10);
/// assert!((last.energy - sol.records[0].energy).abs() < 1e-3); // nearly conserved
/// # Ok::<(), lagrangian::Error>(())
/// ```
#[derive(Clone)]
#[must_use]
pub struct Problem {
    /// The model.
    pub model: Arc<Model>,
    /// A title for output.
    pub title: String,
    /// Position guesses `q` (length `n`; default zeros).
    pub q_guess: Vec<f64>,
    /// Velocity guesses `v` (length `n`; default zeros).
    pub v_guess: Vec<f64>,
    /// Coordinates held at their guesses during initialization.
    pub pinned_q: Vec<usize>,
    /// Velocity components held at their guesses during initialization.
    pub pinned_v: Vec<usize>,
    /// Start time; default 0.
    pub t0: f64,
    /// End time; default 1.
    pub t_end: f64,
    /// Named parameters the model was built with (name, value), for the record.
    pub parameters: Vec<(String, f64)>,
    /// What the results are shown with.
    pub geometry: Geometry,
    /// Settings that were read but have no effect (e.g. DAETS' Taylor order).
    pub notes: Vec<String>,
    /// Settings changed from the problem's source, as `name=value` (command-line options,
    /// parameter overrides), for the record.
    pub overrides: Vec<String>,
    /// An event that replaces the problem during a run.
    pub restart: Option<Arc<dyn Restart>>,
    /// How to build this problem again with other parameter values
    /// ([`with_parameters`](Problem::with_parameters)).
    pub source: Option<Arc<dyn Rebuild>>,
}

impl fmt::Debug for Problem {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Problem")
            .field("title", &self.title)
            .field("n", &self.model.n_coords())
            .field("m", &self.model.n_constraints())
            .field("t0", &self.t0)
            .field("t_end", &self.t_end)
            .finish_non_exhaustive()
    }
}

impl Problem {
    /// A problem for `model`: guesses zero, nothing pinned, `t ∈ [0, 1]`.
    pub fn new(model: impl Into<Arc<Model>>) -> Self {
        let model: Arc<Model> = model.into();
        let n = model.n_coords();
        Problem {
            model,
            title: "untitled".into(),
            q_guess: vec![0.0; n],
            v_guess: vec![0.0; n],
            pinned_q: Vec::new(),
            pinned_v: Vec::new(),
            t0: 0.0,
            t_end: 1.0,
            parameters: Vec::new(),
            geometry: Geometry::default(),
            notes: Vec::new(),
            overrides: Vec::new(),
            restart: None,
            source: None,
        }
    }
    /// Set the title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }
    /// Set the position and velocity guesses.
    pub fn guess(mut self, q: &[f64], v: &[f64]) -> Self {
        self.q_guess = q.to_vec();
        self.v_guess = v.to_vec();
        self
    }
    /// Hold these coordinates at their guesses.
    pub fn pin_q(mut self, idx: impl IntoIterator<Item = usize>) -> Self {
        self.pinned_q.extend(idx);
        self
    }
    /// Hold these velocity components at their guesses.
    pub fn pin_v(mut self, idx: impl IntoIterator<Item = usize>) -> Self {
        self.pinned_v.extend(idx);
        self
    }
    /// Set the start time.
    pub fn t0(mut self, t0: f64) -> Self {
        self.t0 = t0;
        self
    }
    /// Set the end time.
    pub fn t_end(mut self, t_end: f64) -> Self {
        self.t_end = t_end;
        self
    }
    /// Set the geometry.
    pub fn geometry(mut self, geometry: Geometry) -> Self {
        self.geometry = geometry;
        self
    }
    /// Record a named parameter.
    pub fn parameter(mut self, name: impl Into<String>, value: f64) -> Self {
        self.parameters.push((name.into(), value));
        self
    }
    /// Set the restart event.
    pub fn restart(mut self, r: impl Restart + 'static) -> Self {
        self.restart = Some(Arc::new(r));
        self
    }

    /// The problem with named parameters changed: built again from its
    /// [`source`](Problem::source), so everything computed from them (masses, lengths, guesses,
    /// forces) follows — as editing a mechanism file would. The end time of `self` is kept (a
    /// [`RunPlan`] is apart from the problem and stays as it is); the changes are added to
    /// [`overrides`](Problem::overrides).
    ///
    /// ```
    /// use lagrangian::spec;
    /// let text = "Dimension: 2\nPhysicalParams: { l: 2, m: 3*l }\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Bars: { OA: l } }\n\
    ///             ProblemData: { tend: 1, positions: { A: [l, 0] } }\n";
    /// let (p, _plan) = spec::parse(text, "f.yaml")?;
    /// let p = p.t_end(3.0);
    /// let q = p.with_parameters(&[("l", 5.0)])?;
    /// assert_eq!(q.parameters, [("l".to_string(), 5.0), ("m".to_string(), 15.0)]);
    /// assert_eq!((q.q_guess[0], q.t_end), (5.0, 3.0));
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn with_parameters(&self, sets: &[(&str, f64)]) -> Result<Problem, Error> {
        let source = self.source.as_ref().ok_or_else(|| {
            OptionError::invalid(
                "parameters",
                "this problem has no source to rebuild it from (a mechanism file, or a \
                 `Rebuild` set on `Problem::source`)",
            )
        })?;
        let sets: Vec<(String, f64)> = sets.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        let mut p = source.rebuild(&sets)?;
        p.t_end = self.t_end;
        let mut overrides = self.overrides.clone();
        overrides.extend(sets.iter().map(|(n, v)| format!("{n}={v}")));
        p.overrides = overrides;
        // columns added after the source built the problem: again, expressions with the new
        // values
        for c in &self.geometry.columns {
            if p.geometry.columns.iter().any(|d| d.name == c.name) {
                continue;
            }
            p = match (&p.geometry.vocabulary, &c.definition) {
                (Some(_), Some(text)) => p.column_expr(&c.name, text)?,
                _ => p.column(c.clone())?,
            };
        }
        Ok(p)
    }

    /// Add a column of the user's own (the output group `user`): a Rust closure of the state
    /// ([`UserColumn::scalar`], [`UserColumn::orientation`]) or an expression of a mechanism
    /// file ([`column_expr`](Problem::column_expr)). Its names must not be taken by another
    /// column: a coordinate's, a point's, another user column's, or `t` and the names of the
    /// energies, momenta and ledger.
    ///
    /// ```
    /// use lagrangian::prelude::*;
    /// use lagrangian::library::pendulum::planar_pendulum;
    /// use lagrangian::model::columns::UserColumn;
    /// // the pendulum's angle from the downward vertical, θ = atan2(x, −y)
    /// let problem = Problem::new(planar_pendulum(1.0, 1.0, 9.81))
    ///     .guess(&[1.0, 0.0], &[0.0, 0.0])
    ///     .column(UserColumn::scalar("theta", |q, _v, _t| q[0].atan2(-q[1])))?;
    /// assert_eq!(problem.geometry.columns[0].values(&[0.0, -1.0], &[0.0; 2], 0.0), [0.0]);
    /// assert!(problem.clone().column(UserColumn::scalar("theta", |_, _, _| 0.0)).is_err());
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn column(mut self, column: UserColumn) -> Result<Self, Error> {
        let bad = |m: String| -> Error { OptionError::invalid("columns", m).into() };
        let name = &column.name;
        if name.is_empty()
            || name.contains([',', '"', '\n', '\r', ':', '=', '\''])
            || name.trim() != name
        {
            return Err(bad(format!(
                "'{name}' cannot name a column (no commas, quotes, colons, '=' or line breaks; \
                 not empty)"
            )));
        }
        let taken = |n: &str| {
            n == "t"
                || (ENERGY_COLUMNS.iter())
                    .chain(&LEDGER_COLUMNS)
                    .chain(&MOMENTA_COLUMNS)
                    .any(|c| *c == n)
                || self.model.coordinate_names().iter().any(|c| c == n)
                || self.geometry.points.iter().any(|p| {
                    ["x", "y", "z", "vx", "vy", "vz"]
                        .iter()
                        .any(|a| n == format!("{}.{a}", p.name))
                })
                || (self.geometry.columns.iter()).any(|c| c.names.iter().any(|m| m == n))
        };
        if let Some(n) = column.names.iter().find(|n| taken(n)) {
            return Err(bad(format!(
                "column '{n}' is taken (by a coordinate, a point, an earlier column or the \
                 results' own columns): give '{name}' another name"
            )));
        }
        self.geometry.columns.push(column);
        Ok(self)
    }

    /// Add a column given as an expression of the names of the problem's mechanism file
    /// (`"Arm.Tip.z"`, `"AB.force"`, `"norm(B')"`, `"quaternion(Arm)"`, `"euler(Arm, ZYX)"`:
    /// docs/yaml.md, "Output"), the same as an `Output.columns` entry `name: text`.
    ///
    /// ```
    /// use lagrangian::spec;
    /// let text = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 2 } }\n\
    ///             ProblemData: { tend: 1, positions: { A: [0, -2] } }\n";
    /// let (p, _plan) = spec::parse(text, "f.yaml")?;
    /// let p = p.column_expr("angle", "atan2(A.x, -A.y)")?;
    /// assert_eq!(p.geometry.columns[0].values(&[2.0, 0.0], &[0.0, 0.0], 0.0), [std::f64::consts::FRAC_PI_2]);
    /// assert!(p.column_expr("bad", "B.x").is_err()); // no point B
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn column_expr(self, name: &str, text: &str) -> Result<Self, Error> {
        let words = self.geometry.vocabulary.as_ref().ok_or_else(|| {
            OptionError::invalid(
                "columns",
                format!(
                    "column '{name}': this problem has no names to write expressions with (it \
                     is not from a mechanism file): add Rust closures with Problem::column"
                ),
            )
        })?;
        let column = words
            .column(name, text)
            .map_err(|e| OptionError::invalid("columns", format!("column '{name}': {e}")))?;
        self.column(column)
    }

    /// Check sizes and times (before anything is solved).
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.model.n_coords();
        if self.q_guess.len() != n || self.v_guess.len() != n {
            return Err(OptionError::invalid(
                "guess",
                format!(
                    "guesses have {} positions and {} velocities for {n} coordinates",
                    self.q_guess.len(),
                    self.v_guess.len()
                ),
            )
            .into());
        }
        if let Some(&i) = self
            .pinned_q
            .iter()
            .chain(&self.pinned_v)
            .find(|&&i| i >= n)
        {
            return Err(OptionError::invalid(
                "pin",
                format!("pinned coordinate {i} does not exist ({n} coordinates)"),
            )
            .into());
        }
        if !self.t0.is_finite() || !(self.t_end >= self.t0) || self.t_end.is_infinite() {
            return Err(OptionError::invalid(
                "t_end",
                format!(
                    "time span [{}, {}]: need finite t0 ≤ t_end",
                    self.t0, self.t_end
                ),
            )
            .into());
        }
        memory::check(n, self.model.n_constraints()).map_err(Error::TooLarge)
    }

    /// Number of steps of size `h` from `t0` to `t_end`, the last one possibly shorter (at
    /// least one).
    pub fn steps(&self, h: f64) -> usize {
        (((self.t_end - self.t0) / h - 1e-9).ceil().max(1.0)).min(usize::MAX as f64) as usize
    }
}

/// `x` as a message shows it: the shorter of the plain and the exponent form (`1e-300`, not
/// three hundred digits).
///
/// ```
/// use lagrangian::problem::short;
/// assert_eq!((short(1e-300), short(0.25), short(-2e20)), ("1e-300".into(), "0.25".into(), "-2e20".into()));
/// ```
pub fn short(x: f64) -> String {
    let plain = x.to_string();
    let exp = format!("{x:e}");
    match exp.len() < plain.len() {
        true => exp,
        false => plain,
    }
}
