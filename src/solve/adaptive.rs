//! Error control for generalized-α: the local error estimate of a step and the step-size
//! controller (docs/maths.md §14).
//!
//! With `a` the scheme's acceleration-like variable (`a_n ≈ q̈(t_n + δh)`, `δ = α_m − α_f`),
//! Taylor expansion of the updates of `q` and `v` against the exact solution gives the local
//! errors
//!
//! ```text
//! e_q = (β + δ/2 − 1/6) h³ q⃛  ≈ (β + δ/2 − 1/6) h² (a₊ − a)
//! e_v = (((1−γ)δ² + γ(1+δ)²)/2 − 1/6) h³ q⁗ ≈ c_v h³ · 2((a₊ − a)/h − (a − a₋)/h₋)/(h + h₋)
//! ```
//!
//! (`γ = ½ − δ` cancels the `h²` term of `e_v`). The norm is the weighted RMS of `e_q` with
//! weights `atol + rtol·|q|`, divided by `h / span` (error per unit step: the local errors add
//! up to the tolerance over the span, and the global error follows it); a step is accepted
//! when it is at most 1. `e_v` is not in the norm: its estimate needs the second difference
//! of `a`, which the index-3 scheme's damped oscillation of `a` dominates after a step-size
//! change (measured: thousands of rejections at tol = 1e-4 on the pendulum, a collapse at
//! 1e-5); `λ` and `q̈` are excluded as index-3 codes do. After each accepted step `v` is
//! projected onto the velocity constraints (`StateSolver::project_velocity`).

use crate::problem::StepControl;
use crate::solve::GenAlphaParams;

/// The error constant `c_q = β + δ/2 − 1/6` of generalized-α with parameters `p`.
pub(crate) fn error_constant(p: &GenAlphaParams) -> f64 {
    p.beta + 0.5 * (p.alpha_m - p.alpha_f) - 1.0 / 6.0
}

/// What the estimate needs of a step.
pub(crate) struct StepData<'a> {
    pub q: &'a [f64],
    /// `a` before the step and after it.
    pub a: &'a [f64],
    pub a_new: &'a [f64],
    pub h: f64,
}

/// The step's error per unit step in the weighted RMS norm (≤ 1: accept): the estimate of
/// `e_q` over `atol + rtol·|q|`, divided by `h / span`.
pub(crate) fn local_error(c: &StepControl, cq: f64, s: &StepData<'_>) -> f64 {
    let n = s.q.len().max(1);
    let mut sum = 0.0;
    for i in 0..s.q.len() {
        let eq = cq * s.h * s.h * (s.a_new[i] - s.a[i]);
        let wq = c.atol + c.rtol * s.q[i].abs();
        sum += (eq / wq).powi(2);
    }
    let span = if c.span > 0.0 { c.span } else { 1.0 };
    (sum / n as f64).sqrt() * span / s.h
}

/// A PI step-size controller for an error that scales as `h²` (Gustafsson's, with Hairer &
/// Wanner's exponents): `h₊ = h · 0.9 · err^(−0.7/2) · err₋^(0.4/2)`, growth at most ×2 (×1
/// right after a rejection), shrink at most ×0.2.
#[derive(Clone, Debug)]
pub(crate) struct Controller {
    err_prev: f64,
    rejected_last: bool,
}

impl Controller {
    pub fn new() -> Self {
        Controller {
            err_prev: 1.0,
            rejected_last: false,
        }
    }

    /// The next step after a step of size `h` with error `err` (accepted when `err ≤ 1`).
    pub fn next(&mut self, h: f64, err: f64, c: &StepControl) -> f64 {
        let err = err.max(1e-10);
        let accepted = err <= 1.0;
        let mut fac = 0.9 * err.powf(-0.35);
        if accepted {
            fac *= self.err_prev.max(1e-4).powf(0.2);
        }
        let max_growth = if self.rejected_last { 1.0 } else { 2.0 };
        fac = fac.clamp(0.2, max_growth);
        if accepted {
            self.err_prev = err;
        }
        self.rejected_last = !accepted;
        let h_max = if c.h_max > 0.0 {
            c.h_max
        } else {
            f64::INFINITY
        };
        (h * fac).clamp(c.h_min, h_max.max(c.h_min))
    }

    /// A Newton failure: shrink by 4 and do not grow on the next step.
    pub fn failed(&mut self, h: f64, c: &StepControl) -> f64 {
        self.rejected_last = true;
        (h * 0.25).max(c.h_min)
    }
}
