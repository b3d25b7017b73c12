//! Counters of a run.

use serde::{Deserialize, Serialize};

/// Counters of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Accepted time steps.
    pub steps: usize,
    /// Rejected step attempts (adaptive integrators; 0 for fixed steps).
    pub rejected_steps: usize,
    /// Newton iterations (linear solves) over all steps.
    pub newton_iterations: usize,
    /// Residual evaluations.
    pub residual_evaluations: usize,
    /// Jacobian (iteration matrix) assemblies.
    pub jacobian_evaluations: usize,
    /// Factorizations of the iteration matrix (LU, or inverted diagonal for `Jacobi`).
    pub factorizations: usize,
    /// Switches from the diagonal approximation to the sparse LU.
    pub solver_switches: usize,
    /// Restarts of the integrator from a new problem (e.g. chart switches).
    pub restarts: usize,
    /// Wall-clock seconds spent in stepping.
    pub solve_seconds: f64,
    /// The order the Taylor-series method ran at (chosen from the tolerance when its options
    /// leave it 0); 0 for the other methods.
    #[serde(default)]
    pub order: usize,
}

impl Stats {
    /// Add the counters of `other` (a finished integrator before a restart).
    pub fn accumulate(&mut self, other: &Stats) {
        self.steps += other.steps;
        self.rejected_steps += other.rejected_steps;
        self.newton_iterations += other.newton_iterations;
        self.residual_evaluations += other.residual_evaluations;
        self.jacobian_evaluations += other.jacobian_evaluations;
        self.factorizations += other.factorizations;
        self.solver_switches += other.solver_switches;
        self.restarts += other.restarts;
        self.solve_seconds += other.solve_seconds;
        self.order = self.order.max(other.order);
    }
}
