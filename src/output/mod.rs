//! What happened: observers of a run (in-memory records, progress, the summary tally), the
//! column schema, the table's sinks (CSV, `.npy`, Parquet, memory) and the result folder they
//! write into, the scene, the typed summary, reaction forces. Pictures are in `view`.

pub mod check;
pub mod columns;
pub mod csv;
pub mod folder;
pub mod formats;
pub mod ledger;
pub mod npy;
pub mod observe;
#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(feature = "cli")]
pub mod progress;
pub mod scene;
pub mod sensitivity;
pub mod sink;
pub mod summary;
pub mod table;

use crate::assembly;
use crate::model::Model;
pub use crate::model::State;
pub use crate::solve::Stats;
pub use observe::{Control, Event, Interrupt, Observer, Recorder};
use serde::Serialize;
pub use summary::Summary;

/// One output step of a simulation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    /// The state.
    #[serde(flatten)]
    pub state: State,
    /// Kinetic energy `Σ T`.
    pub kinetic: f64,
    /// Potential energy `Σ V`.
    pub potential: f64,
    /// Energy function `h = v·∂L/∂v − L` (the conserved energy of a scleronomic,
    /// undamped, unforced system; equals `T + V` when `T` is quadratic in `v`).
    pub energy: f64,
    /// `max_k |C_k(t, q)|`.
    pub max_constraint: f64,
}

impl Record {
    /// Build the record of `state` for `model`.
    pub fn new(model: &Model, state: State) -> Self {
        let [kinetic, potential, energy] = assembly::energies(model, state.t, &state.q, &state.v);
        let mut c = vec![0.0; model.n_constraints()];
        assembly::constraint_values(model, state.t, &state.q, &mut c);
        let max_constraint = c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        Record {
            state,
            kinetic,
            potential,
            energy,
            max_constraint,
        }
    }
}

/// The result of a simulation: records at the output times and run statistics.
#[derive(Clone, Debug, Serialize)]
pub struct Solution {
    /// Output records, the initial state first.
    pub records: Vec<Record>,
    /// Counters.
    pub stats: Stats,
}

impl Solution {
    /// The last record.
    pub fn last(&self) -> &Record {
        self.records
            .last()
            .expect("a solution holds at least the initial record")
    }
    /// The record closest to time `t`.
    pub fn at(&self, t: f64) -> &Record {
        self.records
            .iter()
            .min_by(|a, b| (a.state.t - t).abs().total_cmp(&(b.state.t - t).abs()))
            .expect("a solution holds at least the initial record")
    }
    /// Largest constraint residual over all records.
    pub fn max_constraint(&self) -> f64 {
        self.records
            .iter()
            .fold(0.0f64, |m, r| m.max(r.max_constraint))
    }
}

/// Generalized reaction forces of each constraint block: `−C_q,kᵀ λ_k`, the force the constraint
/// exerts on the coordinates (length `n` each, in block order), with the block's name.
///
/// For a particle held on a rod, this is the rod force on the particle.
pub fn reaction_forces(model: &Model, state: &State) -> Vec<(String, Vec<f64>)> {
    let j = assembly::constraint_jacobian_dense(model, state.t, &state.q);
    model
        .constraint_blocks()
        .map(|(name, rows)| {
            let mut f = vec![0.0; model.n_coords()];
            for k in rows {
                for (i, fi) in f.iter_mut().enumerate() {
                    *fi -= j[(k, i)] * state.lambda[k];
                }
            }
            (name.to_string(), f)
        })
        .collect()
}
