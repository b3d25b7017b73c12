//! Is a conservative run gaining energy? Without applied forces, dissipation, an explicit time
//! dependence of `L` or driving constraints the energy function
//!
//! ```text
//! E = Σ_e (v·∂L_e/∂v − L_e)
//! ```
//!
//! is conserved. Generalized-α and Radau IIA lose a little of it, DOP853 and RK4 keep it to
//! their accuracy; none of them gains a sizeable part of it — unless a step jumps across a
//! singularity of the potential (a particle through the pole of `−1/|x|` by RK4 at `h = 0.05`:
//! `E` from −1 to +85) or the step is far too large for the motion. [`EnergyWatch`] compares `E`
//! with its start every few steps and refuses a gain of more than half of the most energy the
//! run has exchanged at any check so far,
//!
//! ```text
//! E − E₀ > ½ max_checks (T + T₀ + Σ_e |V_e − V_e,₀|) + 10⁻¹⁰ (T₀ + Σ_e |V_e,₀|)
//! ```
//!
//! (`T + T₀ + Σ|V_e − V_e,₀|` bounds `|E − E₀|` for any motion, so a conserving integrator
//! stays far below it; its largest value so far, because at a turning point that returns to
//! the start it is near zero while the integrator's error is not; the last part is round-off
//! of large potentials). The watch is on while the run is
//! conservative at every check: a nonzero power of any term (`Q·v`, `v·∂R/∂v`, `−∂L/∂t`) or a
//! moving constraint (`C_t ≠ 0`) turns it off for good, so it costs a model that is not
//! conservative one pass over its terms.

use crate::assembly;
use crate::error::SolveError;
use crate::model::Model;

/// Watches the energy function of a run from a start state; see the module's documentation.
/// Its vectors are allocated once, at the start.
pub struct EnergyWatch {
    on: bool,
    /// `T₀`, `Σ|V_e,₀|`, `E₀`.
    start: [f64; 3],
    /// Every term element's potential at the start, groups in order.
    v0: Vec<f64>,
    /// Every term element's potential at the previous check.
    v_prev: Vec<f64>,
    /// The most energy exchanged at any check so far.
    exchanged_max: f64,
    /// `(t, step)` of the previous check.
    prev: (f64, usize),
    ct: Vec<f64>,
}

impl EnergyWatch {
    /// The watch of a run starting at `(t, q, v)` (step `step`): off at once when the start
    /// is not conservative.
    pub fn new(model: &Model, t: f64, q: &[f64], v: &[f64], step: usize) -> Self {
        let elements: usize = model.terms.iter().map(|g| g.len()).sum();
        let mut w = EnergyWatch {
            on: elements > 0,
            start: [0.0; 3],
            v0: vec![0.0; elements],
            v_prev: vec![0.0; elements],
            exchanged_max: 0.0,
            prev: (t, step),
            ct: vec![0.0; model.m],
        };
        w.on = w.on && w.conservative(model, t, q, v);
        if w.on {
            let mut k = 0;
            for g in &model.terms {
                for e in 0..g.len() {
                    let [kin, pot, h] = g.element_energy(e, t, q, v);
                    w.start[0] += kin;
                    w.start[1] += pot.abs();
                    w.start[2] += h;
                    w.v0[k] = pot;
                    w.v_prev[k] = pot;
                    k += 1;
                }
            }
            w.exchanged_max = 2.0 * w.start[0];
            w.on = w.start.iter().all(|x| x.is_finite());
        }
        w
    }

    /// Whether the run is still watched (conservative at every check so far).
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// No term has power and no constraint moves at `(t, q, v)`.
    fn conservative(&mut self, model: &Model, t: f64, q: &[f64], v: &[f64]) -> bool {
        assembly::constraint_time_derivative(model, t, q, &mut self.ct);
        if self.ct.iter().any(|&c| c != 0.0) {
            return false;
        }
        (model.terms.iter()).all(|g| (0..g.len()).all(|e| g.element_power(e, t, q, v) == [0.0; 3]))
    }

    /// Check the state `(t, q, v)` of step `step`: an error naming the term whose potential
    /// changed most since the previous check when `E` grew past the bound.
    pub fn check(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
        step: usize,
    ) -> Result<(), SolveError> {
        if !self.on {
            return Ok(());
        }
        if !self.conservative(model, t, q, v) {
            self.on = false;
            return Ok(());
        }
        let (mut kinetic, mut exchanged, mut e) = (0.0, 0.0, 0.0);
        let mut most = (0usize, 0usize, 0.0f64);
        let mut k = 0;
        for (gi, g) in model.terms.iter().enumerate() {
            for el in 0..g.len() {
                let [kin, pot, h] = g.element_energy(el, t, q, v);
                kinetic += kin;
                exchanged += (pot - self.v0[k]).abs();
                e += h;
                let change = pot - self.v_prev[k];
                if !(change.abs() <= most.2.abs()) {
                    most = (gi, el, change);
                }
                self.v_prev[k] = pot;
                k += 1;
            }
        }
        let [t0_kinetic, v0_abs, e0] = self.start;
        self.exchanged_max = self.exchanged_max.max(kinetic + t0_kinetic + exchanged);
        let bound = 0.5 * self.exchanged_max + 1e-10 * (t0_kinetic + v0_abs);
        let gain = e - e0;
        let since = self.prev;
        self.prev = (t, step);
        if gain > bound || !gain.is_finite() {
            let (gi, el, change) = most;
            let names = &model.names;
            let on: Vec<&str> = (model.terms[gi].indices(el).iter())
                .map(|&i| names[i].as_str())
                .collect();
            return Err(SolveError::EnergyGained {
                t,
                step,
                e0,
                e,
                gain,
                since: format!("t = {} (step {})", since.0, since.1),
                term: format!("the term on {}", on.join(", ")),
                change,
            });
        }
        Ok(())
    }
}
