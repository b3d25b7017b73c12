//! The one run loop: a [`Simulation`] owns a [`Problem`] and its [`RunPlan`] with the integrator
//! of the plan's method, steps it, handles restarts, and calls observers after every accepted step.
//!
//! ```
//! use lagrangian::prelude::*;
//! use lagrangian::library::pendulum::planar_pendulum;
//! use lagrangian::output::Recorder;
//! // a pendulum released horizontally, stopped when it first passes below the pivot
//! let problem = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).guess(&[1.0, 0.0], &[0.0, 0.0]);
//! let mut sim = Simulation::new(problem, GenAlphaOptions::new(1e-4))?;
//! let mut rec = Recorder::every(100);
//! let mut below = |ev: &Event| if ev.state.q[0] < 0.0 { Control::Stop } else { Control::Continue };
//! let end = sim.run(&mut [&mut rec, &mut below])?;
//! // a quarter period of the pendulum released at 90°: K(sin 45°)·√(ℓ/g) = 0.591958 s
//! assert!(matches!(end, RunEnd::Stopped { .. }));
//! assert!((sim.t() - 0.591958).abs() < 2e-4);
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::assembly::{element_forces, grown_forces, negative_dissipation};
use crate::error::{Error, OptionError, SolveError};
use crate::model::{Model, State, StateView};
use crate::output::{Control, Event, Observer, Recorder, Solution};
use crate::problem::{OutputTimes, RunPlan};
use crate::solve::{
    DenseOutput, DriveWatch, END_MARGIN, EnergyWatch, InitReport, Integrator, MassCheck, Method,
    MethodSwitch, Problem, Stats, StepOutcome, StepWork,
};
use std::sync::Arc;
use std::time::Instant;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunEnd {
    /// The end time was reached.
    Completed,
    /// An observer stopped the run at time `t`.
    Stopped {
        /// Time of the last accepted step.
        t: f64,
    },
}

/// A problem being integrated: the problem, the integrator, counters. It owns everything
/// (`Send`), so a worker thread or a Python object can hold it.
pub struct Simulation {
    problem: Problem,
    /// The plan, its method the current one (after switches) with the span set.
    plan: RunPlan,
    integrator: Box<dyn Integrator>,
    /// `None` when started from a given state.
    init: Option<InitReport>,
    step: usize,
    /// Counters of integrators replaced by restarts.
    done: Stats,
    solve_seconds: f64,
    build_seconds: f64,
    /// Where the grid of [`OutputTimes::Every`] starts (the first problem's `t0`).
    out_t0: f64,
    /// Output between steps (used when the problem has output times).
    dense: DenseOutput,
    /// The changes of method so far ([`Integrator::switch`]).
    switches: Vec<MethodSwitch>,
    /// The mass matrix's check, repeated every [`PHYSICS_CHECK_EVERY`] steps (`None` when `M` is
    /// constant, or positive definite only on the constraint manifold, where each check would
    /// cost dense matrices).
    mass: Option<MassCheck>,
    /// Every term's largest force at the start, to tell a failed step at a singularity by
    /// ([`grown_forces`]).
    forces0: Vec<f64>,
    /// The energy of a conservative run, checked every [`PHYSICS_CHECK_EVERY`] steps.
    energy: EnergyWatch,
    /// The constraints' values at a checked state.
    c: Vec<f64>,
    /// Whether the step resolves the driven constraints' motion.
    drives: DriveWatch,
    /// The ledger's works by the method's continuous extension.
    work: StepWork,
}

/// Steps between two checks of the physics during a run: the mass matrix of a model whose `M`
/// changes ([`MassCheck`]: one assembly of `M` and its sparse Cholesky factorization, a
/// fraction of a step's cost), the sign of the Rayleigh functions' powers
/// ([`negative_dissipation`]: one pass over the terms) and, while the run is conservative, its
/// energy ([`EnergyWatch`]: one pass over the terms' powers and energies).
pub const PHYSICS_CHECK_EVERY: usize = 16;

/// The largest constraint residual an accepted state may have, relative to its largest
/// coordinate (at least 1): every method holds the constraints to round-off (generalized-α and
/// Radau IIA by Newton on the index-3 equations, DOP853 and the Taylor method by projection),
/// so `10⁻⁶` is far above any of them and far below a motion's scale.
pub const CONSTRAINT_DRIFT: f64 = 1e-6;

/// The largest coordinate a run takes: beyond it a unit of rounding (1/8 at 10¹⁵) is coarser
/// than any motion the run could resolve (an angle of 10¹⁷ rad moves in steps of 16 rad).
pub const LARGEST_COORDINATE: f64 = 1e15;

/// The error for a coordinate of `q` beyond [`LARGEST_COORDINATE`], named.
fn too_large(model: &Model, q: &[f64]) -> Result<(), Error> {
    match q.iter().position(|x| !(x.abs() <= LARGEST_COORDINATE)) {
        None => Ok(()),
        Some(i) => {
            let name = model
                .coordinate_names()
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("q{i}"));
            let ulp = q[i].abs().next_up() - q[i].abs();
            Err(crate::error::InitError::BadInput(format!(
                "coordinate {name} = {:e} is beyond {LARGEST_COORDINATE:e}: a unit of \
                     rounding there is {ulp:.3e}, coarser than any motion the run could \
                     resolve (give an angle modulo 2π, a position from a nearer origin)",
                q[i]
            ))
            .into())
        }
    }
}

/// The error when `state` is off its constraints by more than [`CONSTRAINT_DRIFT`] (`c`: a
/// buffer for the values, sized here once).
fn constraints_lost(
    model: &Model,
    state: StateView<'_>,
    step: usize,
    c: &mut Vec<f64>,
) -> Option<Error> {
    let m = model.n_constraints();
    if m == 0 {
        return None;
    }
    c.resize(m, 0.0);
    crate::assembly::constraint_values(model, state.t, state.q, c);
    let scale = state.q.iter().fold(1.0f64, |s, x| s.max(x.abs()));
    let (k, residual) =
        (c.iter().map(|x| x.abs()).enumerate()).fold((0, 0.0f64), |(k, r), (i, x)| {
            if x > r || x.is_nan() { (i, x) } else { (k, r) }
        });
    (!(residual <= CONSTRAINT_DRIFT * scale)).then(|| {
        SolveError::ConstraintsLost {
            t: state.t,
            step,
            row: model.constraint_row_name(k),
            residual,
            scale,
        }
        .into()
    })
}

/// Check the mass matrix of `model` at `state` (step `step`); the check to repeat during the
/// run, if any.
fn check_mass(
    model: &Model,
    state: StateView<'_>,
    step: usize,
) -> Result<Option<MassCheck>, Error> {
    if let Some(g) = model.articulated() {
        // articulated bodies factorize M as L D Lᵀ link by link; each D positive definite
        // (what the solve checks) is M positive definite — no matrix of the model's size
        let mut x = vec![1.0; model.n_coords()];
        return match model.solve_articulated(g, state.q, &mut x) {
            Ok(()) => Ok(None),
            Err(detail) => Err(SolveError::MassNotPositive {
                t: state.t,
                step,
                detail,
            }
            .into()),
        };
    }
    let mut check = MassCheck::new(model);
    let definite = mass_at(&mut check, model, state, step)?;
    Ok((definite && !model.constant_mass()).then_some(check))
}

/// The energy watch of a run from `state` (step `step`).
fn watch(model: &Model, state: StateView<'_>, step: usize) -> EnergyWatch {
    EnergyWatch::new(model, state.t, state.q, state.v, step)
}

/// Every term's largest force at `state`.
fn start_forces(model: &Model, state: StateView<'_>) -> Vec<f64> {
    element_forces(model, state.t, state.q, state.v)
}

/// One check at `state`, as the run's error.
fn mass_at(
    check: &mut MassCheck,
    model: &Model,
    state: StateView<'_>,
    step: usize,
) -> Result<bool, Error> {
    check.check(model, state.t, state.q, state.v).map_err(|d| {
        SolveError::MassNotPositive {
            t: state.t,
            step,
            detail: d.detail,
        }
        .into()
    })
}

/// `method` with an error control's automatic span (0) set to `problem`'s `t_end − t0` (1 when
/// that is not a positive finite span). A negative span — DOP853's, Radau's and the Taylor
/// method's control per step — is the user's, as is one that is not finite (which the
/// method's checks refuse).
fn spanned(mut method: Method, problem: &Problem) -> Method {
    let span = problem.t_end - problem.t0;
    let span = if span > 0.0 && span.is_finite() {
        span
    } else {
        1.0
    };
    if let Some(s) = method.options_mut().span_mut().filter(|s| **s == 0.0) {
        *s = span;
    }
    method
}

impl Simulation {
    /// Find consistent initial values for `problem` and prepare the integrator of `plan`'s
    /// method (a [`RunPlan`], or a method's options: every step kept).
    pub fn new(problem: Problem, plan: impl Into<RunPlan>) -> Result<Self, Error> {
        let start = Instant::now();
        let mut plan = plan.into();
        plan.validate(&problem)?;
        let init = problem.initial_values()?;
        too_large(&problem.model, &init.state.q)?;
        let mass = check_mass(&problem.model, init.state.view(), 0)?;
        let forces0 = start_forces(&problem.model, init.state.view());
        let energy = watch(&problem.model, init.state.view(), 0);
        let model_constraints = problem.model.n_constraints();
        let drives = DriveWatch::new(&problem.model);
        let work = StepWork::new();
        plan.method = spanned(plan.method, &problem);
        let integrator = plan.method.integrator(problem.model.clone(), &init.state)?;
        Ok(Simulation {
            problem,
            plan,
            integrator,
            init: Some(init.report),
            step: 0,
            done: Stats::default(),
            solve_seconds: 0.0,
            build_seconds: start.elapsed().as_secs_f64(),
            out_t0: init.state.t,
            dense: DenseOutput::new(),
            switches: Vec::new(),
            mass,
            forces0,
            energy,
            c: vec![0.0; model_constraints],
            drives,
            work,
        })
    }

    /// Start from a given consistent `state` instead of the problem's guesses (its time
    /// replaces `problem.t0`).
    pub fn from_state(
        problem: Problem,
        plan: impl Into<RunPlan>,
        state: &State,
    ) -> Result<Self, Error> {
        let start = Instant::now();
        let problem = problem.t0(state.t);
        let mut plan = plan.into();
        plan.validate(&problem)?;
        too_large(&problem.model, &state.q)?;
        let mass = check_mass(&problem.model, state.view(), 0)?;
        let forces0 = start_forces(&problem.model, state.view());
        let energy = watch(&problem.model, state.view(), 0);
        let model_constraints = problem.model.n_constraints();
        let drives = DriveWatch::new(&problem.model);
        let work = StepWork::new();
        plan.method = spanned(plan.method, &problem);
        let integrator = plan.method.integrator(problem.model.clone(), state)?;
        Ok(Simulation {
            problem,
            plan,
            integrator,
            init: None,
            step: 0,
            done: Stats::default(),
            solve_seconds: 0.0,
            build_seconds: start.elapsed().as_secs_f64(),
            out_t0: state.t,
            dense: DenseOutput::new(),
            switches: Vec::new(),
            mass,
            forces0,
            energy,
            c: vec![0.0; model_constraints],
            drives,
            work,
        })
    }

    /// Go on with step size `h`: a fixed-step method's step, an error-controlled method's
    /// next trial step (a caller that continues a run in pieces of its own step).
    pub fn set_h(&mut self, h: f64) {
        self.integrator.set_h(h);
    }

    /// The problem being solved (the latest one after restarts).
    pub fn problem(&self) -> &Problem {
        &self.problem
    }
    /// The method (the current one, after [`switches`](Self::switches)).
    pub fn method(&self) -> &Method {
        &self.plan.method
    }
    /// The plan: the current method, the rows kept, the columns and formats.
    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }
    /// The integrator.
    pub fn integrator(&self) -> &dyn Integrator {
        self.integrator.as_ref()
    }
    /// The consistent initialization report (`None` after [`from_state`](Self::from_state),
    /// which finds no initial values).
    pub fn init_report(&self) -> Option<&InitReport> {
        self.init.as_ref()
    }
    /// Current time.
    pub fn t(&self) -> f64 {
        self.integrator.t()
    }
    /// Accepted steps so far.
    pub fn steps(&self) -> usize {
        self.step
    }
    /// The current state (borrowed).
    pub fn view(&self) -> StateView<'_> {
        self.integrator.view()
    }
    /// The current state (copied).
    pub fn state(&self) -> State {
        self.integrator.state()
    }
    /// Seconds spent finding initial values and preparing the integrator.
    pub fn build_seconds(&self) -> f64 {
        self.build_seconds
    }
    /// Counters so far, over restarts, with the seconds spent stepping.
    pub fn stats(&self) -> Stats {
        let mut s = self.done.clone();
        s.accumulate(self.integrator.stats());
        s.solve_seconds = self.solve_seconds;
        s
    }

    /// The changes of method so far: DOP853 under
    /// [`switch_when_stiff`](crate::problem::Dop853Options::switch_when_stiff) goes on with
    /// Radau IIA where the problem turns out stiff; [`method`](Self::method) is the current one.
    pub fn switches(&self) -> &[MethodSwitch] {
        &self.switches
    }

    /// The check of the driven constraints (its [`DriveWatch::lag_note`] for the summary).
    pub fn drives(&self) -> &DriveWatch {
        &self.drives
    }

    /// Take one accepted step (retrying rejected attempts), then apply the problem's restart
    /// event if it fires. Before it, switch methods if the integrator asks to
    /// ([`Integrator::switch`]). Allocates nothing unless a restart or a switch happens.
    pub fn step(&mut self) -> Result<(), Error> {
        if let Some((next, why)) = self.integrator.switch() {
            self.switch_method(next, why)?;
        }
        let mut rejected = 0usize;
        loop {
            let h = self.integrator.h();
            if !(h > 0.0 && h.is_finite()) {
                // a method's own choice gone wrong (a weight of 0 in its error norm, …):
                // never a run that stops early and says it has arrived
                return Err(SolveError::NonFinite {
                    t: self.integrator.t(),
                    step: self.step + 1,
                    what: "step size",
                    detail: format!(
                        ": the {} method's next step is h = {h:e}",
                        self.integrator.method()
                    ),
                }
                .into());
            }
            match self.integrator.step() {
                Ok(StepOutcome::Accepted) => break,
                Ok(StepOutcome::Rejected) => {}
                Err(e) => return Err(self.singularity(e.into())),
            }
            rejected += 1;
            // an integrator that found the mechanism stiff in a rejected attempt goes on
            // with the method it asks for, from the same state
            if let Some((next, why)) = self.integrator.switch() {
                self.switch_method(next, why)?;
            }
            if rejected > 1000 {
                return Err(SolveError::TooManyRejections {
                    t: self.integrator.t(),
                    attempts: rejected - 1,
                }
                .into());
            }
        }
        self.step += 1;
        if self.step.is_multiple_of(PHYSICS_CHECK_EVERY) {
            self.check_physics()?;
        }
        let next = match &self.problem.restart {
            Some(rule) => rule.check(self.integrator.view())?,
            None => None,
        };
        match next {
            Some(next) => self.restart(next),
            None => Ok(()),
        }
    }

    /// A failed step (Newton diverged, the step size at its floor, a singular matrix) where
    /// one term's forces grew at least `10³`-fold since the start is reported as the
    /// singularity it is, naming the term; other errors pass unchanged.
    fn singularity(&self, e: Error) -> Error {
        let failed = matches!(
            e,
            Error::Solve(
                SolveError::NewtonDiverged { .. }
                    | SolveError::StepTooSmall { .. }
                    | SolveError::SingularMatrix { .. }
            )
        );
        let state = self.integrator.view();
        let grown = failed
            .then(|| {
                grown_forces(
                    &self.problem.model,
                    &self.forces0,
                    state.t,
                    state.q,
                    state.v,
                )
            })
            .flatten();
        if failed && grown.is_none() {
            // a fixed step that cannot follow a drive fails as Newton's divergence or a
            // singular matrix: name the drive when the last accepted state already missed it
            let mut drives = self.drives.clone();
            let h = self.integrator.h();
            let limit = 0.1 * crate::solve::DRIVE_UNRESOLVED;
            if let Err(d) = drives.check_at(&self.problem.model, state, self.step, h, limit, false)
            {
                return d;
            }
        }
        match grown {
            Some((term, force, growth)) => SolveError::Singularity {
                t: state.t,
                step: self.step,
                term,
                force,
                growth,
                failure: e.to_string(),
            }
            .into(),
            None => e,
        }
    }

    /// Every [`PHYSICS_CHECK_EVERY`] steps: the mass matrix (when it changes), the state on
    /// its constraints ([`constraints_lost`]), the energy of a conservative run
    /// ([`EnergyWatch`]) and the sign of every Rayleigh function's power.
    fn check_physics(&mut self) -> Result<(), Error> {
        let (model, state) = (&self.problem.model, self.integrator.view());
        if let Some(check) = &mut self.mass {
            mass_at(check, model, state, self.step)?;
        }
        if let Some(e) = constraints_lost(model, state, self.step, &mut self.c) {
            return Err(e);
        }
        let h = self.integrator.h();
        self.drives.check(model, state, self.step, h)?;
        self.energy
            .check(model, state.t, state.q, state.v, self.step)?;
        if self.energy.is_on() {
            // it just found every term's power zero: no Rayleigh function feeds energy in
            return Ok(());
        }
        let dt = self.integrator.h();
        if let Some((term, power)) = negative_dissipation(model, state.t, state.q, state.v, dt) {
            return Err(SolveError::NegativeDissipation {
                t: state.t,
                step: self.step,
                term,
                power,
            }
            .into());
        }
        Ok(())
    }

    /// Go on from the current state with `method` (same problem, same time), for `reason`.
    fn switch_method(&mut self, method: Method, reason: &str) -> Result<(), Error> {
        let state = self.integrator.state();
        let method = spanned(method, &self.problem);
        let integrator = method.integrator(self.problem.model.clone(), &state)?;
        self.switches.push(MethodSwitch {
            t: state.t,
            from: self.plan.method.name().to_string(),
            to: method.name().to_string(),
            reason: reason.to_string(),
        });
        self.done.accumulate(self.integrator.stats());
        self.integrator = integrator;
        self.plan.method = method;
        Ok(())
    }

    /// Continue from `next` at the current time: consistent values from its guesses, a new
    /// integrator of the same method; the title, notes and overrides of the run are kept.
    fn restart(&mut self, next: Problem) -> Result<(), Error> {
        let mut next = next.t0(self.integrator.t()).t_end(self.problem.t_end);
        // the run's settings stay those of the run (title, notes, overrides)
        let p = &self.problem;
        next.title.clone_from(&p.title);
        next.notes.clone_from(&p.notes);
        next.overrides.clone_from(&p.overrides);
        let init = next.initial_values()?;
        self.mass = check_mass(&next.model, init.state.view(), self.step)?;
        self.forces0 = start_forces(&next.model, init.state.view());
        self.energy = watch(&next.model, init.state.view(), self.step);
        let integrator = self
            .plan
            .method
            .integrator(next.model.clone(), &init.state)?;
        self.done.accumulate(self.integrator.stats());
        self.done.restarts += 1;
        self.integrator = integrator;
        self.problem = next;
        Ok(())
    }

    /// Step to the problem's end time ([`run_until`](Self::run_until) its `t_end`).
    pub fn run(&mut self, observers: &mut [&mut dyn Observer]) -> Result<RunEnd, Error> {
        self.run_until(self.problem.t_end, observers)
    }

    /// Step until `t_end` (the problem's end time, or any later one to go on with a run),
    /// calling every observer with the current state first and after every accepted step. The
    /// last step is shortened when less than a step remains, so the run lands on `t_end` (to
    /// 10⁻⁹ h). When the plan has [`output_times`](RunPlan::output_times), the observers also
    /// see the consistent states at those times between steps ([`DenseOutput`]), marked as
    /// requested; the steps themselves are unchanged by them.
    pub fn run_until(
        &mut self,
        t_end: f64,
        observers: &mut [&mut dyn Observer],
    ) -> Result<RunEnd, Error> {
        if t_end.is_nan() || t_end.is_infinite() {
            return Err(
                OptionError::invalid("t_end", format!("end time {t_end} is not finite")).into(),
            );
        }
        let times = self.plan.output_times.clone();
        if let Some(o) = &times {
            o.check(self.out_t0, t_end.max(self.problem.t_end))
                .map_err(|m| OptionError::invalid("output_times", m))?;
        }
        // (short of the end, a step size that is not a positive number leaves the run to
        // `step`'s error: never arrived)
        let remaining = |s: &Self| {
            let (rest, h) = (t_end - s.integrator.t(), s.integrator.h());
            rest > 0.0 && !(h > 0.0 && h.is_finite() && rest <= END_MARGIN * h)
        };
        let mut last = !remaining(self);
        let mut next = 0;
        let mut requested = None;
        if let Some(o) = &times {
            let (t, eps) = (self.t(), 1e-9 * self.integrator.h());
            next = first_output(o, t, self.out_t0, t_end, self.step == 0, eps);
            let here = o.time(next, self.out_t0, t_end);
            let at = self.step == 0 && here.is_some_and(|x| (x - t).abs() <= eps);
            next += usize::from(at);
            requested = Some(at);
        }
        let t = self.t();
        let wanted = observers.iter().any(|o| o.wants_work(&self.plan));
        self.work.set_on(wanted && by_extension(&self.plan));
        let (model, integrator) = (&self.problem.model, self.integrator.as_mut());
        (self.work).until(model, integrator, &mut self.dense, t, true)?;
        let state = self.integrator.view();
        if self.emit(observers, state, last, requested, false, None)? == Control::Stop {
            return Ok(RunEnd::Stopped { t: self.t() });
        }
        let start = Instant::now();
        let nominal = self.integrator.h();
        let result = (|| {
            while !last {
                let rest = t_end - self.integrator.t();
                if rest < self.integrator.h() * (1.0 + END_MARGIN) {
                    self.integrator.land_on(t_end);
                }
                if times.is_some() || self.work.is_on() {
                    self.dense.save(self.integrator.view());
                }
                let restarts = self.done.restarts;
                self.step()?;
                last = !remaining(self);
                let mut requested = None;
                let same_model = self.done.restarts == restarts;
                if let Some(o) = &times {
                    let (control, at_end) =
                        self.between(observers, o, &mut next, t_end, same_model)?;
                    if control == Control::Stop {
                        return Ok(RunEnd::Stopped { t: self.t() });
                    }
                    requested = Some(at_end);
                }
                let t = self.t();
                let (model, integrator) = (&self.problem.model, self.integrator.as_mut());
                let work = (self.work).until(model, integrator, &mut self.dense, t, same_model)?;
                let state = self.integrator.view();
                if self.emit(observers, state, last, requested, false, work)? == Control::Stop {
                    return Ok(RunEnd::Stopped { t: self.t() });
                }
            }
            Ok(RunEnd::Completed)
        })();
        // a fixed step shortened to land on `t_end` is the method's step again for the run
        // that goes on from here
        if !self.plan.method.is_adaptive() && self.integrator.h() != nominal {
            self.integrator.set_h(nominal);
        }
        self.solve_seconds += start.elapsed().as_secs_f64();
        result
    }

    /// After a step: show the observers the states at the output times inside it (from
    /// `*next` on), and say whether the step itself ends at one. Times inside a step that
    /// restarted the problem (a new model) are passed over.
    fn between(
        &mut self,
        observers: &mut [&mut dyn Observer],
        o: &OutputTimes,
        next: &mut usize,
        t_end: f64,
        same_model: bool,
    ) -> Result<(Control, bool), Error> {
        let t1 = self.integrator.t();
        let eps = 1e-9 * (t1 - self.dense.start_time()).abs();
        while let Some(x) = o.time(*next, self.out_t0, t_end) {
            if x > t1 - eps {
                break;
            }
            *next += 1;
            if !same_model || x < self.dense.start_time() {
                continue;
            }
            let (model, integrator) = (&self.problem.model, self.integrator.as_mut());
            let work = (self.work).until(model, integrator, &mut self.dense, x, true)?;
            self.dense
                .at_integrator(&self.problem.model, x, self.integrator.as_mut())?;
            let state = self.dense.state();
            if self.emit(observers, state, false, Some(true), true, work)? == Control::Stop {
                return Ok((Control::Stop, false));
            }
        }
        let at_end = o
            .time(*next, self.out_t0, t_end)
            .is_some_and(|x| (x - t1).abs() <= eps);
        *next += usize::from(at_end);
        Ok((Control::Continue, at_end))
    }

    fn emit(
        &self,
        observers: &mut [&mut dyn Observer],
        state: StateView<'_>,
        last: bool,
        requested: Option<bool>,
        interpolated: bool,
        work: Option<[f64; 4]>,
    ) -> Result<Control, Error> {
        if observers.is_empty() {
            return Ok(Control::Continue);
        }
        let ev = Event {
            problem: &self.problem,
            plan: &self.plan,
            state,
            step: self.step,
            last,
            stats: self.integrator.stats(),
            requested,
            interpolated,
            work,
        };
        let mut control = Control::Continue;
        for o in observers.iter_mut() {
            if o.observe(&ev)? == Control::Stop {
                control = Control::Stop;
            }
        }
        Ok(control)
    }
}

/// Whether the ledger's works are integrated by the method's continuous extension
/// ([`StepWork`]) when an observer keeps the ledger: for the methods of higher order than the
/// trapezoidal rule (every method but generalized-α, second order like the rule).
fn by_extension(plan: &RunPlan) -> bool {
    plan.method.options().extends_beyond_second_order()
}

/// The index of the first of `o`'s times at `t` or after it (`include`), or strictly after it.
fn first_output(o: &OutputTimes, t: f64, t0: f64, t_end: f64, include: bool, eps: f64) -> usize {
    let after = |x: f64| if include { x >= t - eps } else { x > t + eps };
    match o {
        OutputTimes::Every(dt) => {
            let guess = ((t - t0) / dt)
                .floor()
                .max(0.0)
                .min(usize::MAX as f64 / 2.0) as usize;
            let mut k = guess.saturating_sub(1);
            while o.time(k, t0, t_end).is_some_and(|x| !after(x)) {
                k += 1;
            }
            k
        }
        OutputTimes::At(list) => list.partition_point(|&x| !after(x)),
    }
}

/// Integrate `problem` from consistent initial values to its `t_end` by `plan` (a [`RunPlan`],
/// or a method's options: every step kept), keeping a record every `plan.output_every` steps
/// (and the first and last) or at `plan.output_times`.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::library::pendulum::angle_pendulum;
/// // small oscillation of a pendulum in its angle: θ(t) ≈ 0.1 cos(√g t); RK4 keeps the energy
/// let problem = Problem::new(angle_pendulum(1.0, 1.0, 9.81)).guess(&[0.1], &[0.0]);
/// let sol = simulate(&problem, Rk4Options::new(1e-3))?;
/// assert!((sol.last().state.q[0] - 0.1 * 9.81f64.sqrt().cos()).abs() < 2e-4);
/// assert!((sol.last().energy - sol.records[0].energy).abs() < 1e-10);
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub fn simulate(problem: &Problem, plan: impl Into<RunPlan>) -> Result<Solution, Error> {
    let mut sim = Simulation::new(problem.clone(), plan)?;
    let mut rec = Recorder::every(sim.plan.output_every);
    sim.run(&mut [&mut rec])?;
    Ok(Solution {
        records: rec.records,
        stats: sim.stats(),
    })
}

/// Integrate `model` from a given consistent `state` (found by
/// [`consistent_initial_values`](crate::solve::consistent_initial_values), or the end of an
/// earlier run) to `t_end`, recording every step.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::library::pendulum::planar_pendulum;
/// use std::sync::Arc;
/// let model = Arc::new(planar_pendulum(1.0, 1.0, 9.81));
/// let init = consistent_initial_values(&model, &[1.0, 0.0], &[0.0, 0.0], &InitOptions::default())?;
/// let sol = simulate_from(&model, &init.state, 1.0, GenAlphaOptions::new(1e-3))?;
/// assert_eq!(sol.records.len(), 1001);
/// assert!(sol.max_constraint() < 1e-10);
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub fn simulate_from(
    model: &Arc<Model>,
    state: &State,
    t_end: f64,
    plan: impl Into<RunPlan>,
) -> Result<Solution, Error> {
    let problem = Problem::new(model.clone()).t_end(t_end);
    let mut sim = Simulation::from_state(problem, plan, state)?;
    let mut rec = Recorder::every(sim.plan.output_every);
    sim.run(&mut [&mut rec])?;
    Ok(Solution {
        records: rec.records,
        stats: sim.stats(),
    })
}
