//! Solving: consistent initialization, generalized-α, Newton and linear solvers.

mod genalpha;
mod init;
pub mod linear;
mod rk4;

pub use genalpha::{simulate, GenAlpha, GenAlphaOptions, GenAlphaParams};
pub use init::{consistent_initial_values, InitOptions, InitReport, Initial};
pub use linear::LinearSolverKind;
pub use rk4::{simulate_rk4, Rk4};
