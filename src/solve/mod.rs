//! Solving: consistent initialization, generalized-α, Newton and linear solvers.

mod genalpha;
mod init;
pub mod linear;

pub use genalpha::{simulate, GenAlpha, GenAlphaOptions, GenAlphaParams};
pub use init::{consistent_initial_values, InitOptions, InitReport, Initial};
pub use linear::LinearSolverKind;
