//! How to run a problem and what to write: the [`RunPlan`] (method, rows kept, columns and
//! formats) apart from the [`Problem`] it runs, and the changes a command line or a Python call
//! makes to both ([`Overrides`], [`RunPlan::apply`]).

use super::{
    DEFAULT_ROWS, Dop853Options, GenAlphaOptions, MAX_STEPS, Method, MethodName, OutputTimes,
    Outputs, Problem, RadauOptions, Rk4Options, StepControl, TaylorOptions, short,
};
use crate::error::{Error, OptionError};

/// How to run a [`Problem`] and what to keep of it: the integration method with its options,
/// the rows kept (every `output_every`-th step, or rows at output times interpolated between
/// steps) and the column groups and formats written. A mechanism file states one (its
/// `SolverParams` and `Output`: [`crate::spec::load`] returns it beside the problem); Rust code
/// writes one, or passes a method's options, which convert into a plan that keeps every step.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::library::pendulum::planar_pendulum;
/// let problem = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).guess(&[1.0, 0.0], &[0.0, 0.0]);
/// // a fixed step of 1 ms, a row every 100 steps
/// let plan = RunPlan::new(GenAlphaOptions::new(1e-3)).output_every(100);
/// let sol = simulate(&problem, &plan)?;
/// assert_eq!(sol.records.len(), 11); // t = 0, 0.1, …, 1
/// // DOP853 at a tolerance, rows at given times
/// let sol = simulate(&problem, RunPlan::new(Dop853Options::new(1e-10)).output_at([0.25, 0.5]))?;
/// assert_eq!(sol.records.iter().map(|r| r.state.t).collect::<Vec<_>>(), [0.25, 0.5]);
/// # Ok::<(), lagrangian::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct RunPlan {
    /// The integration method and its options; default generalized-α with its default
    /// options.
    pub method: Method,
    /// Keep (record, write) every `output_every`-th step; the first and last always. Default 1.
    pub output_every: usize,
    /// Keep rows at these times instead (interpolated between steps); `output_every` is then
    /// ignored. Default `None`.
    pub output_times: Option<OutputTimes>,
    /// The column groups and formats a run writes.
    pub outputs: Outputs,
    /// The output times [`bound_output`](Self::bound_output) chose, nobody asked for: while
    /// `output_times` equals them the plan has the default output of a method under error
    /// control, which [`method`](Self::method) drops for a fixed-step method.
    bounded: Option<OutputTimes>,
}

impl Default for RunPlan {
    fn default() -> Self {
        RunPlan::new(Method::default())
    }
}

impl From<Method> for RunPlan {
    fn from(method: Method) -> Self {
        RunPlan::new(method)
    }
}

impl From<&RunPlan> for RunPlan {
    fn from(plan: &RunPlan) -> Self {
        plan.clone()
    }
}

macro_rules! plan_from_options {
    ($($t:ty),*) => {$(
        impl From<$t> for RunPlan {
            fn from(options: $t) -> Self {
                RunPlan::new(options)
            }
        }
    )*};
}
plan_from_options!(
    GenAlphaOptions,
    Dop853Options,
    RadauOptions,
    Rk4Options,
    TaylorOptions
);

impl RunPlan {
    /// Run with `method`, keeping every step, writing the default columns as CSV.
    pub fn new(method: impl Into<Method>) -> Self {
        RunPlan {
            method: method.into(),
            output_every: 1,
            output_times: None,
            outputs: Outputs::default(),
            bounded: None,
        }
    }
    /// Set the method. A fixed-step method replacing one under error control keeps every step
    /// where the plan had the default rows of error control (see
    /// [`bound_output`](Self::bound_output)); output asked for stays.
    ///
    /// ```
    /// use lagrangian::prelude::*;
    /// use lagrangian::library::pendulum::planar_pendulum;
    /// let p = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).t_end(2.0);
    /// let mut plan = RunPlan::new(Dop853Options::new(1e-8));
    /// plan.bound_output(&p); // what a file with a tolerance and no Output gets
    /// assert_eq!(plan.output_rows(&p), 1001);
    /// let plan = plan.method(GenAlphaOptions::new(1e-3));
    /// assert_eq!((plan.output_times.clone(), plan.output_rows(&p)), (None, 2002));
    /// ```
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
        self.output_times = None;
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

    /// Check the plan against the problem it runs (before anything is solved): a positive
    /// stride, output times inside the span, and a step that gives at most [`MAX_STEPS`]
    /// steps over it (the method's own options are checked when its integrator is made).
    pub fn validate(&self, problem: &Problem) -> Result<(), Error> {
        let (t0, t_end) = (problem.t0, problem.t_end);
        if self.output_every == 0 {
            return Err(
                OptionError::invalid("output_every", "output_every must be positive").into(),
            );
        }
        if let Some(o) = &self.output_times {
            o.check(t0, t_end)
                .map_err(|m| Error::from(OptionError::invalid("output_times", m)))?;
        }
        let h = self.method.h();
        let steps = (t_end - t0) / h;
        // a step that is not positive and finite is refused by the method's own checks, with
        // its option named (an adaptive method's first step 0 means "chosen automatically")
        if h > 0.0 && h.is_finite() && !(steps <= MAX_STEPS as f64) {
            return Err(OptionError::invalid("h", format!(
                "step {h} over [{t0}, {t_end}] gives {steps:.3e} steps; the limit is {MAX_STEPS} \
                 (a larger step, or a shorter span)"
            ))
            .into());
        }
        Ok(())
    }

    /// About how many rows a run of `problem` keeps: the output times, or the steps of the
    /// method's step size over `output_every` (and the first and last). Used to refuse
    /// outputs too large.
    pub fn output_rows(&self, problem: &Problem) -> usize {
        let every = self.output_every.max(1);
        match &self.output_times {
            Some(o) => o.count(problem.t0, problem.t_end),
            // an automatic first step: the steps are not known before the run
            None if !(self.method.h() > 0.0) => DEFAULT_ROWS / every + 2,
            None => (problem.steps(self.method.h()) / every).saturating_add(2),
        }
    }

    /// Whether the output times are those [`bound_output`](Self::bound_output) chose (not
    /// asked for by the plan's source).
    pub fn has_default_output(&self) -> bool {
        self.output_times.is_some() && self.output_times == self.bounded
    }

    /// Rows at [`DEFAULT_ROWS`] even intervals of `problem`'s span (interpolated between
    /// steps), for a method under error control whose output nobody asked for: one row per
    /// accepted step would follow the step size, not the user.
    pub fn bound_output(&mut self, problem: &Problem) {
        let span = problem.t_end - problem.t0;
        if span > 0.0 && span.is_finite() {
            self.output_times = Some(OutputTimes::Every(span / DEFAULT_ROWS as f64));
            self.bounded = self.output_times.clone();
        }
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
    /// The column groups to write ([`GROUPS`](crate::problem::GROUPS)).
    pub columns: Option<Vec<String>>,
    /// Columns of the user's own, each `name = expression` in the names of the problem's
    /// mechanism file ([`Problem::column_expr`]); they turn the group `user` on.
    pub user_columns: Vec<String>,
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
            Spelling::Cli if field == "user_columns" => "--column".into(),
            Spelling::Cli => format!("--{}", field.replace('_', "-")),
            Spelling::Python => match field {
                "integrator" => "method".into(),
                "user_columns" => "columns".into(),
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

impl RunPlan {
    /// Apply `o` to this plan and the `problem` it runs: the problem's end time (keeping the
    /// step size), then the number of steps or the step size, then the method and the
    /// outputs. Each change is recorded in the problem's
    /// [`overrides`](Problem::overrides).
    ///
    /// ```
    /// use lagrangian::prelude::*;
    /// use lagrangian::library::pendulum::planar_pendulum;
    /// use lagrangian::problem::Overrides;
    /// let mut p = Problem::new(planar_pendulum(1.0, 1.0, 9.81));
    /// let mut plan = RunPlan::new(GenAlphaOptions::new(0.01));
    /// plan.apply(&mut p, &Overrides { t_end: Some(2.0), steps: Some(400), ..Default::default() })?;
    /// assert_eq!((p.t_end, plan.method.h()), (2.0, 0.005));
    /// assert_eq!(p.overrides, ["t_end=2", "steps=400"]);
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn apply(&mut self, problem: &mut Problem, o: &Overrides) -> Result<(), Error> {
        let bad = |option: &str, m: String| Error::from(OptionError::invalid(option, m));
        let s = o.spelling;
        let default_output = self.has_default_output();
        if let Some(t) = o.t_end {
            if !(t > problem.t0) || !t.is_finite() {
                return Err(bad(
                    "t_end",
                    format!(
                        "{} must be finite and after t0 = {}",
                        s.given("t_end", &short(t)),
                        problem.t0
                    ),
                ));
            }
            problem.t_end = t;
        }
        let h = self.step_of(problem, o)?;
        let was_adaptive = self.method.is_adaptive();
        let fixed = o.steps.is_some() || o.step.is_some();
        self.method = self.chosen_method(o, h, fixed)?;
        self.set_rho_inf(o)?;
        self.apply_output(problem, o)?;
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
            // (output times the file asks for, `Output: { dt }` or `at`, stay: they are
            // interpolated under error control as at a fixed step)
            let adaptive = self.method.is_adaptive();
            let own_times = self.output_times.is_some() && !default_output;
            if adaptive && (default_output || (!was_adaptive && !own_times)) {
                self.bound_output(problem);
            } else if !adaptive && default_output {
                self.output_times = None;
            }
        }
        if let Some(c) = &o.columns {
            self.outputs = Outputs::from_names(c)
                .map_err(|e| bad("columns", format!("{}: {e}", s.option("columns"))))?
                .formats(&self.outputs.formats_names())
                .map_err(|e| bad("format", e))?;
        }
        self.add_columns(problem, o)?;
        if let Some(f) = &o.formats {
            self.outputs = self
                .outputs
                .clone()
                .formats(f)
                .map_err(|e| bad("format", format!("{}: {e}", s.option("format"))))?;
        }
        problem.overrides.extend(given(o));
        Ok(())
    }

    /// The fixed step of `o` (`steps` over the span or `step`), or the method's own.
    fn step_of(&self, problem: &Problem, o: &Overrides) -> Result<f64, Error> {
        let bad = |option: &str, m: String| Error::from(OptionError::invalid(option, m));
        let s = o.spelling;
        let span = problem.t_end - problem.t0;
        Ok(match (o.steps, o.step) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "steps",
                    format!(
                        "give either {} or {}, not both",
                        s.option("steps"),
                        s.option("step")
                    ),
                ));
            }
            (Some(n), None) if n == 0 || n > MAX_STEPS => {
                return Err(bad(
                    "steps",
                    format!("{} must lie in 1..={MAX_STEPS}", s.option("steps")),
                ));
            }
            (Some(n), None) => span / n as f64,
            (None, Some(h)) if !(h > 0.0 && h.is_finite() && span / h <= MAX_STEPS as f64) => {
                return Err(bad(
                    "step",
                    format!(
                        "{} must be positive and give at most {MAX_STEPS} steps over [{}, {}]",
                        s.given("step", &short(h)),
                        problem.t0,
                        problem.t_end
                    ),
                ));
            }
            (None, Some(h)) => h,
            // DOP853's automatic first step is no fixed step: the default one
            (None, None) if !(self.method.h() > 0.0) => GenAlphaOptions::default().h.min(span),
            (None, None) => self.method.h(),
        })
    }

    /// `o.rho_inf` on generalized-α (and refused on other methods).
    fn set_rho_inf(&mut self, o: &Overrides) -> Result<(), Error> {
        let bad = |option: &str, m: String| Error::from(OptionError::invalid(option, m));
        let s = o.spelling;
        match (o.rho_inf, &mut self.method) {
            (Some(r), Method::GenAlpha(g)) => {
                if !(0.0..1.0).contains(&r) {
                    return Err(bad(
                        "rho_inf",
                        format!("{} must lie in [0, 1)", s.given("rho_inf", &short(r))),
                    ));
                }
                g.rho_inf = r;
            }
            (Some(r), m) => {
                return Err(bad(
                    "rho_inf",
                    format!(
                        "{} applies to generalized-α; this run's method is {} (give {} with it)",
                        s.given("rho_inf", &short(r)),
                        m.name(),
                        s.given("integrator", "genalpha")
                    ),
                ));
            }
            (None, _) => {}
        }
        Ok(())
    }

    /// The columns `name = expression` of `o` added to `problem` (the group `user` on).
    fn add_columns(&mut self, problem: &mut Problem, o: &Overrides) -> Result<(), Error> {
        for c in &o.user_columns {
            let Some((name, text)) = c.split_once('=') else {
                let option = o.spelling.option("user_columns");
                let m = format!("{option} '{c}': expected name = expression");
                return Err(OptionError::invalid("columns", m).into());
            };
            *problem = problem.clone().column_expr(name.trim(), text.trim())?;
            self.outputs.user = true;
        }
        Ok(())
    }

    /// The method [`apply`](RunPlan::apply) settles on: `--integrator` if given (generalized-α
    /// keeps its options, DOP853 takes a tolerance the method already had); a tolerance alone
    /// turns a fixed-step method into DOP853 that switches to Radau IIA where the problem turns
    /// out stiff (generalized-α under error control stays so);
    /// `--steps`/`--step` alone turn an error-controlled method into a fixed step
    /// (generalized-α). `h` is the step `--steps`/`--step` give, or the method's own.
    fn chosen_method(&self, o: &Overrides, h: f64, fixed: bool) -> Result<Method, Error> {
        let bad = |option: &str, m: String| Error::from(OptionError::invalid(option, m));
        let s = o.spelling;
        if let Some(tol) = o.tol
            && !(tol > 0.0 && tol < 1.0)
        {
            return Err(bad(
                "tol",
                format!("{} must lie in (0, 1)", s.given("tol", &short(tol))),
            ));
        }
        // the tolerances an error-controlled method takes: --tol, else the method's own
        let tols = o.tol.map(|t| (t, t)).or(self.method.tolerances());
        // DOP853, Radau IIA, the Taylor series with their options and these tolerances, and
        // the first step a fixed step gives
        let h0 = if fixed { h } else { 0.0 };
        let controlled = |kind, h0| self.error_controlled(kind, tols, h0, o.integrator.is_some());
        let genalpha = || match &self.method {
            Method::GenAlpha(g) => g.clone(),
            _ => GenAlphaOptions::default(),
        };
        let name = match o.integrator.as_deref() {
            Some(other) => Some(MethodName::parse(other).ok_or_else(|| {
                bad(
                    "integrator",
                    format!(
                        "{}: expected {}",
                        s.given("integrator", other),
                        MethodName::KNOWN
                    ),
                )
            })?),
            None => None,
        };
        let method = match name {
            Some(MethodName::Rk4) if o.tol.is_some() => {
                return Err(bad(
                    "tol",
                    format!(
                        "{}: RK4 runs at a fixed step; for error control give {} (order 8) or \
                     {}",
                        s.option("tol"),
                        s.given("integrator", "dop853"),
                        s.given("integrator", "genalpha"),
                    ),
                ));
            }
            Some(MethodName::Rk4) => Rk4Options::new(h).into(),
            Some(MethodName::GenAlpha) => {
                let mut g = genalpha();
                g.h = h;
                if let Some(tol) = o.tol {
                    g.step_control = Some(StepControl::new(tol));
                } else if fixed {
                    g.step_control = None;
                }
                Method::GenAlpha(g)
            }
            Some(MethodName::Dop853) if fixed && o.tol.is_none() => {
                return Err(bad("integrator", own_steps(s, "dop853", "genalpha or rk4")));
            }
            Some(MethodName::Dop853) => controlled(MethodName::Dop853, h0),
            Some(MethodName::Radau) if fixed && o.tol.is_none() => {
                return Err(bad("integrator", own_steps(s, "radau", "genalpha")));
            }
            Some(MethodName::Radau) => controlled(MethodName::Radau, h0),
            Some(MethodName::Taylor) if fixed && o.tol.is_none() => {
                return Err(bad("integrator", own_steps(s, "taylor", "genalpha or rk4")));
            }
            Some(MethodName::Taylor) => controlled(MethodName::Taylor, h0),
            None => match (&self.method, o.tol) {
                (Method::GenAlpha(g), Some(tol)) if g.step_control.is_some() => {
                    let mut g = g.clone();
                    g.h = h;
                    g.step_control = Some(StepControl::new(tol));
                    Method::GenAlpha(g)
                }
                (Method::Radau(_), Some(_)) => controlled(MethodName::Radau, h0),
                (Method::Taylor(_), Some(_)) => controlled(MethodName::Taylor, h0),
                (_, Some(_)) => controlled(MethodName::Dop853, h0),
                (Method::GenAlpha(g), None) if fixed => {
                    let mut g = g.clone();
                    g.h = h;
                    g.step_control = None;
                    Method::GenAlpha(g)
                }
                (Method::Dop853(_) | Method::Radau(_) | Method::Taylor(_), None) if fixed => {
                    GenAlphaOptions::new(h).into()
                }
                // an error-controlled method keeps its own first step (automatic when 0)
                (m @ (Method::Dop853(_) | Method::Radau(_) | Method::Taylor(_)), None) => m.clone(),
                (m, None) => m.clone().with_h(h),
            },
        };
        Ok(method)
    }

    /// The error-controlled method `kind` (DOP853, Radau IIA or the Taylor series) with the
    /// plan's own options where it already is that method, the tolerances `tols` (else its own)
    /// and the first step `h0`. DOP853 chosen by a tolerance alone (`named` false) switches to
    /// Radau IIA where the problem turns out stiff.
    fn error_controlled(
        &self,
        kind: MethodName,
        tols: Option<(f64, f64)>,
        h0: f64,
        named: bool,
    ) -> Method {
        let mut m = match (kind, &self.method) {
            (MethodName::Radau, Method::Radau(_))
            | (MethodName::Taylor, Method::Taylor(_))
            | (MethodName::Dop853, Method::Dop853(_)) => self.method.clone(),
            (MethodName::Radau, _) => RadauOptions::default().into(),
            (MethodName::Taylor, _) => TaylorOptions::default().into(),
            _ if named => Dop853Options::default().into(),
            _ => Dop853Options::default().switch_when_stiff().into(),
        };
        if let (true, Method::Dop853(d)) = (named, &mut m) {
            // a method the user names is the one that runs: no switch to Radau IIA
            d.switch_when_stiff = false;
        }
        if let Some(tols) = tols {
            m.set_tolerances(tols);
        }
        m.with_h(h0)
    }

    /// The output part of [`apply`](RunPlan::apply): a stride or output times (one of them).
    fn apply_output(&mut self, problem: &Problem, o: &Overrides) -> Result<(), Error> {
        let bad = |option: &str, m: String| Error::from(OptionError::invalid(option, m));
        let s = o.spelling;
        let given = [
            o.output_every.is_some(),
            o.output_dt.is_some(),
            o.output_at.is_some(),
            o.output_every_step,
        ];
        if given.iter().filter(|&&g| g).count() > 1 {
            return Err(bad(
                "output_every",
                format!(
                    "give one of {}, {}, {} and {}",
                    s.option("output_every"),
                    s.option("output_dt"),
                    s.option("output_at"),
                    s.option("output_every_step")
                ),
            ));
        }
        if let Some(k) = o.output_every {
            if k == 0 || k > MAX_STEPS {
                return Err(bad(
                    "output_every",
                    format!("{} must lie in 1..={MAX_STEPS}", s.option("output_every")),
                ));
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
            t.check(problem.t0, problem.t_end)
                .map_err(|e| bad("output_times", e))?;
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

/// The options `o` gives, as `name=value` (recorded in the run's summary).
fn given(o: &Overrides) -> Vec<String> {
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
        (
            "user_columns",
            (!o.user_columns.is_empty()).then(|| o.user_columns.join(";")),
        ),
        ("tol", o.tol.map(|x| x.to_string())),
        ("output_dt", o.output_dt.map(|x| x.to_string())),
        (
            "output_at",
            (o.output_at.as_ref())
                .map(|v| v.iter().map(f64::to_string).collect::<Vec<_>>().join(",")),
        ),
    ];
    (given.into_iter())
        .filter_map(|(name, value)| value.map(|v| format!("{name}={v}")))
        .collect()
}
