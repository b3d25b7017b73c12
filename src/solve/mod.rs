//! Solving: consistent initialization, the problem to solve, generalized-α and RK4 behind one
//! [`Integrator`] interface, Newton and linear solvers.

mod genalpha;
mod init;
mod integrator;
pub mod linear;
mod problem;
mod rk4;
mod stats;

pub use genalpha::{GenAlpha, GenAlphaOptions, GenAlphaParams};
pub use init::{consistent_initial_values, InitOptions, InitReport, Initial};
pub use integrator::{Integrator, Method, StepOutcome};
pub use linear::LinearSolverKind;
pub use problem::{Overrides, Problem, Restart};
pub use rk4::{Rk4, Rk4Options};
pub use stats::Stats;
