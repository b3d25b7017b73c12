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
use crate::solve::{GenAlpha, GenAlphaOptions, Rk4, Rk4Options, Stats};
use serde::{Deserialize, Serialize};
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
    /// The current state, borrowed (no allocation).
    fn view(&self) -> StateView<'_>;
    /// The current state, copied.
    fn state(&self) -> State {
        self.view().to_state()
    }
    /// Counters so far.
    fn stats(&self) -> &Stats;
}

/// A time-integration method with its options: what a [`Simulation`](crate::simulation::Simulation)
/// builds its integrator from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "kebab-case")]
pub enum Method {
    /// Generalized-α on the index-3 DAE (the default).
    #[serde(rename = "generalized-alpha")]
    GenAlpha(GenAlphaOptions),
    /// Classical explicit RK4 (unconstrained mechanisms only).
    Rk4(Rk4Options),
}

impl Default for Method {
    fn default() -> Self {
        Method::GenAlpha(GenAlphaOptions::default())
    }
}

impl From<GenAlphaOptions> for Method {
    fn from(o: GenAlphaOptions) -> Self {
        Method::GenAlpha(o)
    }
}

impl From<Rk4Options> for Method {
    fn from(o: Rk4Options) -> Self {
        Method::Rk4(o)
    }
}

impl Method {
    /// The (initial) step size.
    pub fn h(&self) -> f64 {
        match self {
            Method::GenAlpha(o) => o.h,
            Method::Rk4(o) => o.h,
        }
    }
    /// The same method with step size `h`.
    pub fn with_h(mut self, h: f64) -> Self {
        match &mut self {
            Method::GenAlpha(o) => o.h = h,
            Method::Rk4(o) => o.h = h,
        }
        self
    }
    /// The method's name.
    pub fn name(&self) -> &'static str {
        match self {
            Method::GenAlpha(_) => "generalized-alpha",
            Method::Rk4(_) => "rk4",
        }
    }
    /// Build the integrator from a consistent `state` of `model`.
    pub fn integrator(
        &self,
        model: Arc<Model>,
        state: &State,
    ) -> Result<Box<dyn Integrator>, Error> {
        Ok(match self {
            Method::GenAlpha(o) => Box::new(GenAlpha::new(model, state, o.clone())?),
            Method::Rk4(o) => Box::new(Rk4::new(model, state, o.clone())?),
        })
    }
}
