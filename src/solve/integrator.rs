//! One interface for time integrators, and the choice of method with its options.
//!
//! An [`Integrator`] owns its model (an `Arc`) and its workspace; [`step`](Integrator::step)
//! attempts one step and says whether it was accepted. Fixed-step methods accept every step
//! they complete; an adaptive method may reject an attempt (and shrink its step), in which case
//! the state is unchanged and the driver simply calls `step` again. The driver — the one run
//! loop, [`Simulation`](crate::simulation::Simulation) — calls observers only after accepted
//! steps.

use crate::error::{Error, SolveError};
use crate::model::{Model, State, StateView};
use crate::problem::Method;
use crate::solve::{Dop853, GenAlpha, Radau, Rk4, Stats};
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
    /// Use step size `h` from the next attempt on (the run loop shortens the last step so a
    /// run lands exactly on its end time).
    fn set_h(&mut self, h: f64);
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
}

impl Method {
    /// Build the integrator from a consistent `state` of `model`.
    pub fn integrator(
        &self,
        model: Arc<Model>,
        state: &State,
    ) -> Result<Box<dyn Integrator>, Error> {
        Ok(match self {
            Method::GenAlpha(o) => Box::new(GenAlpha::new(model, state, o.clone())?),
            Method::Rk4(o) => Box::new(Rk4::new(model, state, o.clone())?),
            Method::Dop853(o) => Box::new(Dop853::new(model, state, o.clone())?),
            Method::Radau(o) => Box::new(Radau::new(model, state, o.clone())?),
        })
    }
}
