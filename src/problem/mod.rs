//! The problem to solve: a model with its initial-value problem, its named parameters and the
//! geometry its results are shown with. Rust code, the library's mechanisms and mechanism files
//! all produce this one type. A problem is data: it names its method and options
//! ([`Method`]) but runs nothing; [`crate::solve`] integrates it.

use crate::error::{Error, SolveError};
use crate::model::geometry::Geometry;
use crate::model::{Model, StateView};
pub mod memory;
mod options;
mod outputs;

pub use options::{
    Dop853Options, GenAlphaOptions, InitOptions, LinearSolverKind, Method, RadauOptions,
    Rk4Options, StepControl,
};
pub use outputs::{GROUPS, OutputTimes, Outputs, PlotPanel};
use std::fmt;
use std::sync::Arc;

/// The most steps one run may take (10⁸: hours of computing for the smallest mechanisms, and
/// the bound that keeps a mistyped step or span from running for ever).
pub const MAX_STEPS: usize = 100_000_000;

/// The intervals of the default output of a run under error control (rows every
/// `span/1000`, and at the end): [`Problem::bound_output`].
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
    /// The integration the problem's source asks for (a file's `SolverParams`); default
    /// generalized-α with its default options.
    pub method: Method,
    /// Keep (record, write) every `output_every`-th step; the first and last always. Default 1.
    pub output_every: usize,
    /// Keep rows at these times instead (interpolated between steps); `output_every` is then
    /// ignored. Default `None`.
    pub output_times: Option<OutputTimes>,
    /// The column groups and formats a run writes.
    pub outputs: Outputs,
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
            .field("method", &self.method)
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
            method: Method::default(),
            output_every: 1,
            output_times: None,
            outputs: Outputs::default(),
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
    /// Set the integration the problem asks for. A fixed-step method in place of one under
    /// error control also returns the default output under error control
    /// ([`bound_output`](Self::bound_output)) to a row per step.
    pub fn method(mut self, method: impl Into<Method>) -> Self {
        self.method = method.into();
        if !self.method.is_adaptive() && self.has_default_output() {
            self.output_times = None;
        }
        self
    }
    /// Keep every `k`-th step.
    pub fn output_every(mut self, k: usize) -> Self {
        self.output_every = k;
        self
    }
    /// Keep a row every `dt` (from `t0`, and at `t_end`), interpolated between steps.
    pub fn output_dt(mut self, dt: f64) -> Self {
        self.output_times = Some(OutputTimes::Every(dt));
        self
    }
    /// Keep rows at exactly these times (ascending), interpolated between steps.
    pub fn output_at(mut self, times: impl Into<Vec<f64>>) -> Self {
        self.output_times = Some(OutputTimes::At(times.into()));
        self
    }
    /// Choose the column groups and formats a run writes.
    pub fn outputs(mut self, outputs: Outputs) -> Self {
        self.outputs = outputs;
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
    /// forces) follows — as editing a mechanism file would. The run settings of `self` (end
    /// time, method and step, output stride and columns) are kept; the changes are added to
    /// [`overrides`](Problem::overrides).
    ///
    /// ```
    /// use lagrangian::spec;
    /// let text = "Dimension: 2\nPhysicalParams: { l: 2, m: 3*l }\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Bars: { OA: l } }\n\
    ///             ProblemData: { tend: 1, positions: { A: [l, 0] } }\n";
    /// let p = spec::parse(text, "f.yaml")?.t_end(3.0);
    /// let q = p.with_parameters(&[("l", 5.0)])?;
    /// assert_eq!(q.parameters, [("l".to_string(), 5.0), ("m".to_string(), 15.0)]);
    /// assert_eq!((q.q_guess[0], q.t_end), (5.0, 3.0));
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn with_parameters(&self, sets: &[(&str, f64)]) -> Result<Problem, Error> {
        let source = self.source.as_ref().ok_or_else(|| {
            SolveError::BadOptions(
                "this problem has no source to rebuild it from (a mechanism file, or a \
                 `Rebuild` set on `Problem::source`)"
                    .into(),
            )
        })?;
        let sets: Vec<(String, f64)> = sets.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        let mut p = source.rebuild(&sets)?;
        p.t_end = self.t_end;
        p.method = self.method.clone();
        p.output_every = self.output_every;
        p.output_times = self.output_times.clone();
        p.outputs = self.outputs.clone();
        let mut overrides = self.overrides.clone();
        overrides.extend(sets.iter().map(|(n, v)| format!("{n}={v}")));
        p.overrides = overrides;
        Ok(p)
    }

    /// Check sizes and times (before anything is solved).
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.model.n_coords();
        if self.q_guess.len() != n || self.v_guess.len() != n {
            return Err(SolveError::BadOptions(format!(
                "guesses have {} positions and {} velocities for {n} coordinates",
                self.q_guess.len(),
                self.v_guess.len()
            ))
            .into());
        }
        if let Some(&i) = self
            .pinned_q
            .iter()
            .chain(&self.pinned_v)
            .find(|&&i| i >= n)
        {
            return Err(SolveError::BadOptions(format!(
                "pinned coordinate {i} does not exist ({n} coordinates)"
            ))
            .into());
        }
        if !self.t0.is_finite() || !(self.t_end >= self.t0) || self.t_end.is_infinite() {
            return Err(SolveError::BadOptions(format!(
                "time span [{}, {}]: need finite t0 ≤ t_end",
                self.t0, self.t_end
            ))
            .into());
        }
        if self.output_every == 0 {
            return Err(SolveError::BadOptions("output_every must be positive".into()).into());
        }
        if let Some(o) = &self.output_times {
            o.check(self.t0, self.t_end)
                .map_err(|m| Error::from(SolveError::BadOptions(m)))?;
        }
        let h = self.method.h();
        let steps = (self.t_end - self.t0) / h;
        // an adaptive method's first step 0 means "chosen automatically"
        let automatic = matches!(self.method, Method::Dop853(_) | Method::Radau(_)) && h == 0.0;
        if !automatic && (!(h > 0.0) || !(steps <= MAX_STEPS as f64)) {
            return Err(SolveError::BadOptions(format!(
                "step {h} over [{}, {}] gives {steps:.3e} steps; the limit is {MAX_STEPS} \
                 (a larger step, or a shorter span)",
                self.t0, self.t_end
            ))
            .into());
        }
        memory::check(n, self.model.n_constraints()).map_err(|m| SolveError::TooLarge(m).into())
    }

    /// About how many rows a run keeps: the output times, or the steps of the method's step
    /// size over `output_every` (and the first and last). Used to refuse outputs too large.
    pub fn output_rows(&self) -> usize {
        match &self.output_times {
            Some(o) => o.count(self.t0, self.t_end),
            // an automatic first step: the steps are not known before the run
            None if !(self.method.h() > 0.0) => DEFAULT_ROWS / self.output_every.max(1) + 2,
            None => (self.steps(self.method.h()) / self.output_every.max(1)).saturating_add(2),
        }
    }

    /// Number of steps of size `h` from `t0` to `t_end`, the last one possibly shorter (at
    /// least one).
    pub fn steps(&self, h: f64) -> usize {
        (((self.t_end - self.t0) / h - 1e-9).ceil().max(1.0)).min(usize::MAX as f64) as usize
    }
}

/// Changes to a problem's time span, method and outputs, as the command line offers them
/// (`--t-end`, `--steps`, `--step`, `--rho-inf`, `--integrator`, `--output-every`,
/// `--columns`, `--format`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// Number of steps over the time span (the step size follows).
    pub steps: Option<usize>,
    /// Step size (the last step is shortened to land on the end time).
    pub step: Option<f64>,
    /// End time (the step size stays).
    pub t_end: Option<f64>,
    /// `ρ∞` of generalized-α.
    pub rho_inf: Option<f64>,
    /// `genalpha`, `rk4`, `dop853` or `radau`.
    pub integrator: Option<String>,
    /// Keep every k-th step.
    pub output_every: Option<usize>,
    /// The column groups to write ([`GROUPS`]).
    pub columns: Option<Vec<String>>,
    /// The formats to write (`csv`, `npy`).
    pub formats: Option<Vec<String>>,
    /// Error control with this tolerance (relative and absolute) instead of a fixed step
    /// (generalized-α; the step is then the first step's size). `steps` or `step` without it
    /// return to a fixed step.
    pub tol: Option<f64>,
    /// Keep a row every `dt` (interpolated between steps) instead of every k-th step.
    pub output_dt: Option<f64>,
    /// Keep a row at every accepted step, also under error control (which otherwise keeps
    /// [`DEFAULT_ROWS`] even intervals when no output is asked for).
    pub output_every_step: bool,
    /// Keep rows at these times (interpolated between steps).
    pub output_at: Option<Vec<f64>>,
    /// How messages name these options: as the command line does (`--t-end`) or as the
    /// Python package's keyword arguments (`t_end`).
    pub spelling: Spelling,
}

/// How a message names an option of [`Overrides`]: the command line's `--t-end 2` or the
/// Python package's `t_end=2`.
///
/// ```
/// use lagrangian::problem::Spelling;
/// assert_eq!(Spelling::Cli.option("rho_inf"), "--rho-inf");
/// assert_eq!(Spelling::Python.option("integrator"), "method");
/// assert_eq!(Spelling::Cli.given("integrator", "dop853"), "--integrator dop853");
/// assert_eq!(Spelling::Python.given("integrator", "dop853"), "method=\"dop853\"");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Spelling {
    /// `--t-end`, `--integrator` (the command line).
    #[default]
    Cli,
    /// `t_end`, `method` (`Problem.run`'s keyword arguments).
    Python,
}

impl Spelling {
    /// The option whose field in [`Overrides`] is `field` (`"t_end"`, `"integrator"`).
    pub fn option(self, field: &str) -> String {
        match self {
            Spelling::Cli => format!("--{}", field.replace('_', "-")),
            Spelling::Python => match field {
                "integrator" => "method".into(),
                "format" => "formats".into(),
                other => other.into(),
            },
        }
    }
    /// The option `field` given the value `value`, as a user writes it (`--integrator
    /// dop853`, `method="dop853"`).
    pub fn given(self, field: &str, value: &str) -> String {
        match self {
            Spelling::Cli => format!("{} {value}", self.option(field)),
            Spelling::Python if field == "integrator" => {
                format!("{}=\"{value}\"", self.option(field))
            }
            Spelling::Python => format!("{}={value}", self.option(field)),
        }
    }
}

impl Problem {
    /// Apply `o`: the end time (keeping the step size), then the number of steps or the step
    /// size, then the method and the outputs. Each change is recorded in
    /// [`overrides`](Problem::overrides).
    ///
    /// ```
    /// use lagrangian::prelude::*;
    /// use lagrangian::library::pendulum::planar_pendulum;
    /// use lagrangian::problem::Overrides;
    /// let mut p = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).method(GenAlphaOptions::new(0.01));
    /// p.apply(&Overrides { t_end: Some(2.0), steps: Some(400), ..Default::default() })?;
    /// assert_eq!((p.t_end, p.method.h()), (2.0, 0.005));
    /// assert_eq!(p.overrides, ["t_end=2", "steps=400"]);
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn apply(&mut self, o: &Overrides) -> Result<(), Error> {
        let bad = |m: String| Error::from(SolveError::BadOptions(m));
        let s = o.spelling;
        let default_output = self.has_default_output();
        if let Some(t) = o.t_end {
            if !(t > self.t0) || !t.is_finite() {
                return Err(bad(format!(
                    "{} must be finite and after t0 = {}",
                    s.given("t_end", &short(t)),
                    self.t0
                )));
            }
            self.t_end = t;
        }
        let span = self.t_end - self.t0;
        let h = match (o.steps, o.step) {
            (Some(_), Some(_)) => {
                return Err(bad(format!(
                    "give either {} or {}, not both",
                    s.option("steps"),
                    s.option("step")
                )));
            }
            (Some(n), None) if n == 0 || n > MAX_STEPS => {
                return Err(bad(format!(
                    "{} must lie in 1..={MAX_STEPS}",
                    s.option("steps")
                )));
            }
            (Some(n), None) => span / n as f64,
            (None, Some(h)) if !(h > 0.0 && h.is_finite() && span / h <= MAX_STEPS as f64) => {
                return Err(bad(format!(
                    "{} must be positive and give at most {MAX_STEPS} steps over [{}, {}]",
                    s.given("step", &short(h)),
                    self.t0,
                    self.t_end
                )));
            }
            (None, Some(h)) => h,
            // DOP853's automatic first step is no fixed step: the default one
            (None, None) if !(self.method.h() > 0.0) => GenAlphaOptions::default().h.min(span),
            (None, None) => self.method.h(),
        };
        let was_adaptive = self.method.is_adaptive();
        let fixed = o.steps.is_some() || o.step.is_some();
        self.method = self.chosen_method(o, h, fixed)?;
        match (o.rho_inf, &mut self.method) {
            (Some(r), Method::GenAlpha(g)) => {
                if !(0.0..1.0).contains(&r) {
                    return Err(bad(format!(
                        "{} must lie in [0, 1)",
                        s.given("rho_inf", &short(r))
                    )));
                }
                g.rho_inf = r;
            }
            (Some(r), m) => {
                return Err(bad(format!(
                    "{} applies to generalized-α; this run's method is {} (give {} with it)",
                    s.given("rho_inf", &short(r)),
                    m.name(),
                    s.given("integrator", "genalpha")
                )));
            }
            (None, _) => {}
        }
        self.apply_output(o)?;
        let output_given = o.output_every.is_some()
            || o.output_dt.is_some()
            || o.output_at.is_some()
            || o.output_every_step;
        if o.output_every_step {
            self.output_every = 1;
            self.output_times = None;
        } else if !output_given {
            // the default output follows the method and the span: 1000 intervals under error
            // control, every step at a fixed step
            let adaptive = self.method.is_adaptive();
            if adaptive && (default_output || !was_adaptive) {
                self.bound_output();
            } else if !adaptive && default_output {
                self.output_times = None;
            }
        }
        if let Some(c) = &o.columns {
            self.outputs = Outputs::from_names(c)
                .map_err(|e| bad(format!("{}: {e}", s.option("columns"))))?
                .formats(&self.outputs.formats_names())
                .map_err(bad)?;
        }
        if let Some(f) = &o.formats {
            self.outputs = self
                .outputs
                .clone()
                .formats(f)
                .map_err(|e| bad(format!("{}: {e}", s.option("format"))))?;
        }
        let list = |v: &Option<Vec<String>>| v.as_ref().map(|v| v.join(","));
        let given = [
            ("t_end", o.t_end.map(|x| x.to_string())),
            ("steps", o.steps.map(|x| x.to_string())),
            ("step", o.step.map(|x| x.to_string())),
            ("rho_inf", o.rho_inf.map(|x| x.to_string())),
            ("integrator", o.integrator.clone()),
            ("output_every", o.output_every.map(|x| x.to_string())),
            (
                "output_every_step",
                o.output_every_step.then(|| "true".to_string()),
            ),
            ("columns", list(&o.columns)),
            ("format", list(&o.formats)),
            ("tol", o.tol.map(|x| x.to_string())),
            ("output_dt", o.output_dt.map(|x| x.to_string())),
            (
                "output_at",
                (o.output_at.as_ref())
                    .map(|v| v.iter().map(f64::to_string).collect::<Vec<_>>().join(",")),
            ),
        ];
        for (name, value) in given {
            if let Some(v) = value {
                self.overrides.push(format!("{name}={v}"));
            }
        }
        Ok(())
    }

    /// The method [`apply`](Problem::apply) settles on: `--integrator` if given (generalized-α
    /// keeps its options, DOP853 takes a tolerance the method already had); a tolerance alone
    /// turns a fixed-step method into DOP853 that switches to Radau IIA where the problem turns
    /// out stiff (generalized-α under error control stays so);
    /// `--steps`/`--step` alone turn an error-controlled method into a fixed step
    /// (generalized-α). `h` is the step `--steps`/`--step` give, or the method's own.
    fn chosen_method(&self, o: &Overrides, h: f64, fixed: bool) -> Result<Method, Error> {
        let bad = |m: String| Error::from(SolveError::BadOptions(m));
        let s = o.spelling;
        if let Some(tol) = o.tol
            && !(tol > 0.0 && tol < 1.0)
        {
            return Err(bad(format!(
                "{} must lie in (0, 1)",
                s.given("tol", &short(tol))
            )));
        }
        // the tolerances an error-controlled method takes: --tol, else the method's own
        let tols = o.tol.map(|t| (t, t)).or(match &self.method {
            Method::GenAlpha(g) => g.step_control.map(|c| (c.rtol, c.atol)),
            Method::Dop853(d) => Some((d.rtol, d.atol)),
            Method::Radau(d) => Some((d.rtol, d.atol)),
            Method::Rk4(_) => None,
        });
        // DOP853 keeps its options; chosen by a tolerance alone it switches to Radau IIA where
        // the problem turns out stiff
        let dop853 = |h0: f64| {
            let mut d = match &self.method {
                Method::Dop853(d) => d.clone(),
                _ if o.integrator.is_none() => Dop853Options::default().switch_when_stiff(),
                _ => Dop853Options::default(),
            };
            (d.rtol, d.atol) = tols.unwrap_or((d.rtol, d.atol));
            d.h0 = h0;
            Method::Dop853(d)
        };
        let radau = |h0: f64| {
            let mut d = match &self.method {
                Method::Radau(d) => d.clone(),
                _ => RadauOptions::default(),
            };
            (d.rtol, d.atol) = tols.unwrap_or((d.rtol, d.atol));
            d.h0 = h0;
            Method::Radau(d)
        };
        let genalpha = || match &self.method {
            Method::GenAlpha(g) => g.clone(),
            _ => GenAlphaOptions::default(),
        };
        let method = match o.integrator.as_deref() {
            Some("rk4") if o.tol.is_some() => {
                return Err(bad(format!(
                    "{}: RK4 runs at a fixed step; for error control give {} (order 8) or \
                     {}",
                    s.option("tol"),
                    s.given("integrator", "dop853"),
                    s.given("integrator", "genalpha"),
                )));
            }
            Some("rk4") => Rk4Options::new(h).into(),
            Some("genalpha" | "generalized-alpha") => {
                let mut g = genalpha();
                g.h = h;
                if let Some(tol) = o.tol {
                    g.step_control = Some(StepControl::new(tol));
                } else if fixed {
                    g.step_control = None;
                }
                Method::GenAlpha(g)
            }
            Some("dop853") if fixed && o.tol.is_none() => {
                return Err(bad(own_steps(s, "dop853", "genalpha or rk4")));
            }
            Some("dop853") => dop853(if fixed { h } else { 0.0 }),
            Some("radau" | "radau5" | "radau-iia") if fixed && o.tol.is_none() => {
                return Err(bad(own_steps(s, "radau", "genalpha")));
            }
            Some("radau" | "radau5" | "radau-iia") => radau(if fixed { h } else { 0.0 }),
            Some(other) => {
                return Err(bad(format!(
                    "{}: expected genalpha, rk4, dop853 or radau",
                    s.given("integrator", other)
                )));
            }
            None => match (&self.method, o.tol) {
                (Method::GenAlpha(g), Some(tol)) if g.step_control.is_some() => {
                    let mut g = g.clone();
                    g.h = h;
                    g.step_control = Some(StepControl::new(tol));
                    Method::GenAlpha(g)
                }
                (Method::Radau(_), Some(_)) => radau(if fixed { h } else { 0.0 }),
                (_, Some(_)) => dop853(if fixed { h } else { 0.0 }),
                (Method::GenAlpha(g), None) if fixed => {
                    let mut g = g.clone();
                    g.h = h;
                    g.step_control = None;
                    Method::GenAlpha(g)
                }
                (Method::Dop853(_) | Method::Radau(_), None) if fixed => {
                    GenAlphaOptions::new(h).into()
                }
                (m, None) => m.clone().with_h(h),
            },
        };
        Ok(method)
    }

    /// Whether the output times are those [`bound_output`](Self::bound_output) chose (not
    /// asked for by the problem's source).
    pub fn has_default_output(&self) -> bool {
        let span = self.t_end - self.t0;
        self.output_times == Some(OutputTimes::Every(span / DEFAULT_ROWS as f64))
    }

    /// Rows at [`DEFAULT_ROWS`] even intervals of the span (interpolated between steps), for a
    /// method under error control whose output nobody asked for: one row per accepted step
    /// would follow the step size, not the user.
    pub fn bound_output(&mut self) {
        let span = self.t_end - self.t0;
        if span > 0.0 && span.is_finite() {
            self.output_times = Some(OutputTimes::Every(span / DEFAULT_ROWS as f64));
        }
    }

    /// The output part of [`apply`](Problem::apply): a stride or output times (one of them).
    fn apply_output(&mut self, o: &Overrides) -> Result<(), Error> {
        let bad = |m: String| Error::from(SolveError::BadOptions(m));
        let s = o.spelling;
        let given = [
            o.output_every.is_some(),
            o.output_dt.is_some(),
            o.output_at.is_some(),
            o.output_every_step,
        ];
        if given.iter().filter(|&&g| g).count() > 1 {
            return Err(bad(format!(
                "give one of {}, {}, {} and {}",
                s.option("output_every"),
                s.option("output_dt"),
                s.option("output_at"),
                s.option("output_every_step")
            )));
        }
        if let Some(k) = o.output_every {
            if k == 0 || k > MAX_STEPS {
                return Err(bad(format!(
                    "{} must lie in 1..={MAX_STEPS}",
                    s.option("output_every")
                )));
            }
            self.output_every = k;
            self.output_times = None;
        }
        let times = match (o.output_dt, &o.output_at) {
            (Some(dt), _) => Some(OutputTimes::Every(dt)),
            (_, Some(list)) => Some(OutputTimes::At(list.clone())),
            _ => None,
        };
        if let Some(t) = times {
            t.check(self.t0, self.t_end).map_err(bad)?;
            self.output_times = Some(t);
        }
        Ok(())
    }
}

/// The refusal of `--integrator method` (error-controlled) with a fixed step, naming the
/// fixed-step methods (`fixed`) to use instead.
fn own_steps(s: Spelling, method: &str, fixed: &str) -> String {
    format!(
        "{} chooses its own steps under error control: give {} (and {} for its first step), \
         or a fixed-step method ({} {}) for {}/{}",
        s.given("integrator", method),
        s.option("tol"),
        s.option("step"),
        s.option("integrator"),
        fixed,
        s.option("steps"),
        s.option("step"),
    )
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
