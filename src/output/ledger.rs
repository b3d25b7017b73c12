//! The energy ledger of a run: where the energy went.
//!
//! Along a motion of `d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q + C_qᵀλ = 0` the energy function
//! `E = v·∂L/∂v − L` changes by
//!
//! ```text
//! dE/dt = Q·v − v·∂R/∂v − ∂L/∂t + λᵀC_t
//! ```
//!
//! (applied forces, Rayleigh dissipation, an explicit time dependence of `L`, driving
//! constraints; on the constraint manifold `C_q v = −C_t`). The ledger integrates each power
//! over the run with the trapezoidal rule on the accepted steps — second order, like
//! generalized-α — so `balance_error = E(t) − E(0) − W + D` (with `W` all work done and `D` the
//! energy dissipated) is the integrator's error alone: for a conservative mechanism its energy
//! drift, for a damped or driven one a quantity that vanishes as `h²`.
//!
//! ```
//! use lagrangian::prelude::*;
//! use lagrangian::library::pendulum::planar_pendulum;
//! use lagrangian::output::ledger::Ledger;
//! let problem = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).guess(&[1.0, 0.0], &[0.0, 0.0]);
//! let mut sim = Simulation::new(problem, GenAlphaOptions::new(1e-3))?;
//! let mut ledger = Ledger::new();
//! sim.run(&mut [&mut ledger])?;
//! let l = ledger.totals();
//! // no forces, no damping, no drives: the energy change is the balance error
//! assert_eq!((l.work_forces, l.dissipated, l.work_drives), (0.0, 0.0, 0.0));
//! assert_eq!(l.balance_error, l.energy_change);
//! assert!(l.balance_error.abs() < 1e-2);
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::assembly;
use crate::error::Error;
use crate::model::{Model, StateView};
use crate::output::observe::{Control, Event, Observer};
use crate::solve::Problem;
use crate::solve::ledger_powers;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The ledger's figures at one instant (accumulated from the start of the run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LedgerTotals {
    /// `∫ Q·v dt`: work done by applied forces and torques.
    pub work_forces: f64,
    /// `∫ λᵀC_t dt`: work done by driving (rheonomic) constraints.
    pub work_drives: f64,
    /// `∫ −∂L/∂t dt`: work of an explicit time dependence of the Lagrangian.
    pub work_time: f64,
    /// `∫ v·∂R/∂v dt`: energy dissipated by Rayleigh terms (`2R` for quadratic `R`).
    pub dissipated: f64,
    /// `E(t) − E(0)`: the change of the energy function.
    pub energy_change: f64,
    /// `E(t) − E(0) − (W_forces + W_drives + W_time) + D`: the integrator's error.
    pub balance_error: f64,
}

/// Integrates the powers of [`assembly::powers`] and [`assembly::drive_power`] over every
/// accepted step (an observer; it must see every step, so give it no output stride). The
/// energy function of the last state is evaluated when the figures are asked for, not at every
/// step.
#[derive(Clone, Default)]
pub struct Ledger {
    /// `(t, [Q·v, v·∂R/∂v, −∂L/∂t, λᵀC_t])` of the last state seen.
    last: Option<(f64, [f64; 4])>,
    /// Energy function of the first state.
    e0: Option<f64>,
    /// The accumulated works (`energy_change` and `balance_error` are made in `totals`).
    totals: LedgerTotals,
    ct: Vec<f64>,
    /// The model and the last state `(q, v)`, for `E(t)`.
    model: Option<Arc<Model>>,
    q: Vec<f64>,
    v: Vec<f64>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("last", &self.last)
            .field("e0", &self.e0)
            .field("totals", &self.totals())
            .finish()
    }
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Self {
        Ledger::default()
    }

    /// The figures so far.
    pub fn totals(&self) -> LedgerTotals {
        let mut tot = self.totals;
        if let (Some(model), Some(e0), Some((t, _))) = (&self.model, self.e0, self.last) {
            let [_, _, e] = assembly::energies(model, t, &self.q, &self.v);
            tot.energy_change = e - e0;
            tot.balance_error = tot.energy_change
                - (tot.work_forces + tot.work_drives + tot.work_time)
                + tot.dissipated;
        }
        tot
    }

    /// Account for the state `s` (the next accepted step, or the first state); `work`: the
    /// works since the previous state when the run integrated them ([`Event::work`]), else
    /// the trapezoidal rule on the two states' powers.
    pub fn add(&mut self, problem: &Problem, s: StateView<'_>, work: Option<[f64; 4]>) {
        let model = &problem.model;
        let p = ledger_powers(model, s, &mut self.ct);
        if self.e0.is_none() {
            self.e0 = Some(assembly::energies(model, s.t, s.q, s.v)[2]);
        }
        if !self.model.as_ref().is_some_and(|m| Arc::ptr_eq(m, model)) {
            self.model = Some(model.clone());
        }
        self.q.clear();
        self.q.extend_from_slice(s.q);
        self.v.clear();
        self.v.extend_from_slice(s.v);
        let tot = &mut self.totals;
        let w = match (work, self.last) {
            (Some(w), Some(_)) => Some(w),
            (None, Some((t0, p0))) => {
                let h = 0.5 * (s.t - t0);
                Some([0, 1, 2, 3].map(|k| h * (p0[k] + p[k])))
            }
            (_, None) => None,
        };
        if let Some(w) = w {
            tot.work_forces += w[0];
            tot.dissipated += w[1];
            tot.work_time += w[2];
            tot.work_drives += w[3];
        }
        self.last = Some((s.t, p));
    }
}

impl Observer for Ledger {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        self.add(ev.problem, ev.state, ev.work);
        Ok(Control::Continue)
    }
    fn wants_work(&self, _plan: &crate::problem::RunPlan) -> bool {
        true
    }
}
