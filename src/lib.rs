//! # lagrangian
//!
//! Lagrangian mechanics of multibody systems. Write kinetic and potential energy, Rayleigh
//! dissipation, generalized forces and holonomic constraints as Rust functions generic over
//! num-dual numbers; the toolkit derives the Euler–Lagrange equations and their exact Jacobians by
//! forward automatic differentiation, finds consistent initial values, and integrates the index-3
//! DAE with generalized-α.
//!
//! The pipeline, one module per stage:
//! [`model`] (what a mechanism is) → [`ad`] (residual and Jacobians by AD) → [`assembly`]
//! (global matrices on a fixed pattern) → [`solve`] (consistent initialization, generalized-α) →
//! [`output`] (observers: records, CSV, summary) → [`simulation`] (the one run loop over a
//! [`solve::Problem`]) → [`run`] (a run into a folder, as the command line does it). [`library`] ships mechanisms; [`spec`] reads mechanism files.
//!
//! ```
//! use lagrangian::prelude::*;
//! use lagrangian::library::pendulum::planar_pendulum;
//!
//! let problem = Problem::new(planar_pendulum(1.0, 1.0, 1.0))
//!     .guess(&[1.0, 0.0], &[0.0, 0.0])
//!     .t_end(1.0);
//! let sol = simulate(&problem, GenAlphaOptions::new(1e-3).rho_inf(0.8))?;
//! // exact solution at t = 1 (grav = 1, released horizontally): x = 0.879548…
//! assert!((sol.last().state.q[0] - 0.8795481324118891).abs() < 1e-5);
//! # Ok::<(), lagrangian::Error>(())
//! ```
#![warn(missing_docs)]
// `!(x <= tol)` is deliberate throughout: it is true for NaN, which must count as failure.
#![allow(clippy::neg_cmp_op_on_partial_ord)]
#![allow(clippy::needless_range_loop)]

pub mod ad;
pub mod analysis;
pub mod assembly;
pub mod error;
pub mod expr;
pub mod guide;
pub mod library;
pub mod mechanisms;
pub mod model;
pub mod multibody;
pub mod output;
pub mod problem;
pub mod run;
pub mod simulation;
pub mod solve;
pub mod spec;
#[cfg(feature = "view")]
pub mod view;

pub use error::Error;

/// The README's Rust example, compiled and run as a doctest (only then: the README is not part
/// of the library's build).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;

/// What a user writing a mechanism needs in scope.
pub mod prelude {
    pub use crate::error::Error;
    pub use crate::model::{
        Anchored, Between, Constraint, Interaction, Model, ModelBuilder, State, Structure, Term,
    };
    pub use crate::output::{Control, Event, Observer, Record, Solution, reaction_forces};
    pub use crate::simulation::{RunEnd, Simulation, simulate, simulate_from};
    pub use crate::solve::{
        Dop853, Dop853Options, GenAlpha, GenAlphaOptions, InitOptions, Integrator,
        LinearSolverKind, Method, Problem, Radau, RadauOptions, Rk4Options, RunPlan, Stats,
        TaylorOptions, TaylorSeries, consistent_initial_values,
    };
    pub use nalgebra::{SMatrix, SVector, Vector2, Vector3};
    pub use num_dual::DualNum;
    pub use std::sync::Arc;
}
