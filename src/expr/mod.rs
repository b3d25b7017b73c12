//! Expressions on dual numbers: the language of mechanism files' parameters, loads, `Define`
//! assignments and `Equations`, evaluated inside element kernels (so it sits below the model).
//!
//! [`vector`] is the language kernels evaluate: a graph over coordinates `q_j`, time `t` and
//! folded constants, evaluated on any [`DualNum`](num_dual::DualNum). [`scalar`] parses the
//! parameter expressions of a file against named values.

pub mod scalar;
pub mod vector;

pub use scalar::{Expr, ExprError, Scope};
pub use vector::{Sym, VExpr, Val};
