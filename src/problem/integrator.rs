//! The interface of a time integrator ([`Integrator`]): what the run loop asks of every
//! method, the toolkit's (`crate::solve`) and a user's own ([`CustomMethod`]).
//!
//! An integrator owns its model (an `Arc`) and its workspace; [`step`](Integrator::step)
//! attempts one step and says whether it was accepted. Fixed-step methods accept every step
//! they complete; an adaptive method may reject an attempt (and shrink its step), in which case
//! the state is unchanged and the driver simply calls `step` again. The driver — the one run
//! loop, [`Simulation`](crate::simulation::Simulation) — calls observers only after accepted
//! steps.

use super::{Method, MethodOptions, Stats};
use crate::error::{Error, SolveError};
use crate::model::{Model, State, StateView};
use std::fmt::Debug;
use std::sync::Arc;

/// What one call of [`Integrator::step`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOutcome {
    /// The step was taken; the state is at the new time.
    Accepted,
    /// The attempt was rejected (an adaptive method's error test); the state is unchanged.
    Rejected,
}

/// A time integrator over a model it owns.
pub trait Integrator: Send {
    /// The method's name (`"generalized-alpha"`, `"rk4"`).
    fn method(&self) -> &'static str;
    /// The model being integrated.
    fn model(&self) -> &Arc<Model>;
    /// Current time.
    fn t(&self) -> f64;
    /// The step size the next attempt will use.
    fn h(&self) -> f64;
    /// Attempt one step.
    fn step(&mut self) -> Result<StepOutcome, SolveError>;
    /// Use step size `h` from the next attempt on.
    fn set_h(&mut self, h: f64);
    /// Make the next attempt the step to `t` (a run's end time, less than a step ahead or
    /// within 10⁻⁹ of one), and an accepted step of that size end at `t` itself rather than at
    /// `t_old + h` rounded (`0.001 + 0.009` is `0.010000000000000002`). The run loop calls it
    /// for the last step. A fixed-step method keeps its step when it is within 10⁻⁹ of the
    /// distance.
    fn land_on(&mut self, t: f64) {
        self.set_h(t - self.t());
    }
    /// The current state, borrowed (no allocation).
    fn view(&self) -> StateView<'_>;
    /// The current state, copied.
    fn state(&self) -> State {
        self.view().to_state()
    }
    /// Counters so far.
    fn stats(&self) -> &Stats;
    /// Positions and velocities at `t` inside the last accepted step from the method's own
    /// continuous extension, into `q` and `v`; `Ok(false)` when the method has none (the run
    /// loop then interpolates by cubic Hermite, [`DenseOutput`](crate::solve::DenseOutput)).
    fn interpolate(&mut self, _t: f64, _q: &mut [f64], _v: &mut [f64]) -> Result<bool, SolveError> {
        Ok(false)
    }
    /// What the method found out about the problem that a user should know (e.g. that it is
    /// stiff for this method), for the run's summary.
    fn advice(&self) -> Option<String> {
        None
    }
    /// The method the run should go on with from the current state, and why, if this one has
    /// found it is the wrong one (DOP853 with
    /// [`switch_when_stiff`](crate::problem::Dop853Options::switch_when_stiff) on a stiff
    /// problem); the run loop switches before the next step.
    fn switch(&self) -> Option<(Method, &'static str)> {
        None
    }
}

/// A method written outside the toolkit, run like its own through
/// [`Method::custom`](Method::custom): options that say what they are ([`MethodOptions`]) and
/// build their [`Integrator`]. The run loop, observers, outputs, restarts and summaries need
/// nothing else; a `#[derive(Clone, Debug)]` options type gets [`CloneMethod`] for free.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::error::SolveError;
/// use lagrangian::model::StateView;
/// use lagrangian::problem::{CustomMethod, MethodOptions, StepOutcome};
/// use lagrangian::solve::StateSolver;
///
/// /// Symplectic Euler with step `h`: v ← v + h q̈(q, v), q ← q + h v (no constraints).
/// #[derive(Clone, Debug)]
/// struct Euler { h: f64 }
/// impl MethodOptions for Euler {
///     fn name(&self) -> &'static str { "symplectic-euler" }
///     fn h(&self) -> f64 { self.h }
///     fn set_h(&mut self, h: f64) { self.h = h }
///     fn describe(&self, _: usize) -> String { "symplectic Euler".into() }
/// }
/// struct Stepper { model: Arc<Model>, solver: StateSolver, h: f64, t: f64,
///                  q: Vec<f64>, v: Vec<f64>, a: Vec<f64>, stats: Stats }
/// impl Integrator for Stepper {
///     fn method(&self) -> &'static str { "symplectic-euler" }
///     fn model(&self) -> &Arc<Model> { &self.model }
///     fn t(&self) -> f64 { self.t }
///     fn h(&self) -> f64 { self.h }
///     fn set_h(&mut self, h: f64) { self.h = h }
///     fn step(&mut self) -> Result<StepOutcome, SolveError> {
///         let (t, step) = (self.t, self.stats.steps);
///         let (a, _) = (self.solver.solve(&self.model, t, &self.q, &self.v))
///             .map_err(|e| SolveError::singular(t, step, "", e))?;
///         for ((q, v), a) in self.q.iter_mut().zip(&mut self.v).zip(a) {
///             *v += self.h * a;
///             *q += self.h * *v;
///         }
///         self.a.copy_from_slice(a);
///         self.t += self.h;
///         self.stats.steps += 1;
///         Ok(StepOutcome::Accepted)
///     }
///     fn view(&self) -> StateView<'_> {
///         StateView { t: self.t, q: &self.q, v: &self.v, qdd: &self.a, lambda: &[] }
///     }
///     fn stats(&self) -> &Stats { &self.stats }
/// }
/// impl CustomMethod for Euler {
///     fn integrator(&self, model: Arc<Model>, s: &State) -> Result<Box<dyn Integrator>, Error> {
///         let solver = StateSolver::new(&model, LinearSolverKind::Auto);
///         let (q, v, a) = (s.q.clone(), s.v.clone(), s.qdd.clone());
///         let stats = Stats::default();
///         Ok(Box::new(Stepper { model, solver, h: self.h, t: s.t, q, v, a, stats }))
///     }
/// }
///
/// // the harmonic oscillator x″ = −x from x = 1 at rest: x(t) = cos t
/// struct Oscillator;
/// impl Term<1> for Oscillator {
///     fn mass(&self) -> SMatrix<f64, 1, 1> { SMatrix::identity() }
///     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 1>) -> D {
///         q[0] * q[0] * 0.5
///     }
/// }
/// # fn main() -> Result<(), lagrangian::Error> {
/// let model = Model::builder(1).term([0], Oscillator).build()?;
/// let problem = Problem::new(model).guess(&[1.0], &[0.0]).t_end(1.0);
/// let sol = simulate(&problem, Method::custom(Euler { h: 1e-3 }))?;
/// assert_eq!(sol.stats.steps, 1000);
/// assert!((sol.last().state.q[0] - 1f64.cos()).abs() < 1e-3);
/// # Ok(())
/// # }
/// /// ```
pub trait CustomMethod: MethodOptions + CloneMethod + Debug + Send + Sync + 'static {
    /// Build the integrator from a consistent `state` of `model`.
    fn integrator(&self, model: Arc<Model>, state: &State) -> Result<Box<dyn Integrator>, Error>;
}

/// A boxed copy of a [`CustomMethod`] (a [`Method`] is `Clone`); every `Clone` one has it.
pub trait CloneMethod {
    /// The copy.
    fn clone_method(&self) -> Box<dyn CustomMethod>;
}

impl<T: CustomMethod + Clone> CloneMethod for T {
    fn clone_method(&self) -> Box<dyn CustomMethod> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn CustomMethod> {
    fn clone(&self) -> Self {
        self.clone_method()
    }
}

/// Two custom methods are equal when they have the same name and print the same (their options'
/// `Debug`).
impl PartialEq for Box<dyn CustomMethod> {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name() && format!("{self:?}") == format!("{other:?}")
    }
}
