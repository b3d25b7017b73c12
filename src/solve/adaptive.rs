//! Error control for generalized-α: the local error estimate of a step and the step-size
//! controller (docs/maths.md §14).
//!
//! With `a` the scheme's acceleration-like variable (`a_n ≈ q̈(t_n + δh)`, `δ = α_m − α_f`),
//! Taylor expansion of the updates of `q` and `v` against the exact solution gives the local
//! errors
//!
//! ```text
//! e_q = (β + δ/2 − 1/6) h³ q⃛  ≈ c_q h² (a₊ − a)
//! e_v = (((1−γ)δ² + γ(1+δ)²)/2 − 1/6) h³ q⁗ ≈ c_v h³ P d,   d = 2((a₊ − a)/h − (a − a₋)/h₋′)/(h + h₋′)
//! ```
//!
//! (`γ = ½ − δ` cancels the `h²` term of `e_v`; `h₋′ = h₋ + δ(h − h₋)` is the spacing of `a₋`
//! and `a` once `a` has been moved to the offset of the new step). Each component of `d` is the
//! smaller of it and the second difference of the accelerations at the step points,
//! `2((q̈₊ − q̈)/h − (q̈ − q̈₋)/h₋)/(h + h₋)`: `a` keeps an error of order `h₋²` that a much
//! shorter step would read as curvature (docs/maths.md §14). `P` projects
//! `M`-orthogonally onto the tangent space of the constraints: index 3 lets `a` oscillate along
//! `M⁻¹C_qᵀ` after every change of step size, and that oscillation is not a velocity error (the
//! velocity projection removes the normal part of `v` anyway). Each error is reduced by what
//! the uncertainty of `a` (Newton's last displacement estimate times `β'`, and round-off)
//! can put into it. The norm is the weighted RMS of `e_q / (atol + rtol·|q|)` and
//! `e_v / (atol + rtol·|v|)`, divided by `h / span` (error per unit step: the local errors add
//! up to the tolerance over the span); a step is accepted when it is at most 1. `λ` and `q̈`
//! are excluded, as index-3 codes do.

use crate::problem::StepControl;
use crate::solve::GenAlphaParams;
use crate::solve::integrator::{weight, zero_weight};

/// The error constant `c_q = β + δ/2 − 1/6` of generalized-α with parameters `p`.
pub(crate) fn error_constant(p: &GenAlphaParams) -> f64 {
    p.beta + 0.5 * (p.alpha_m - p.alpha_f) - 1.0 / 6.0
}

/// The velocity error constant `c_v = ((1−γ)δ² + γ(1+δ)²)/2 − 1/6`.
pub(crate) fn velocity_error_constant(p: &GenAlphaParams) -> f64 {
    let d = p.alpha_m - p.alpha_f;
    ((1.0 - p.gamma) * d * d + p.gamma * (1.0 + d) * (1.0 + d)) / 2.0 - 1.0 / 6.0
}

/// What the estimate needs of a step.
pub(crate) struct StepData<'a> {
    /// `q₊` and `v₊` of the attempt.
    pub q: &'a [f64],
    pub v: &'a [f64],
    /// `P d ≈ q⁗` (none on the first step).
    pub d4: Option<&'a [f64]>,
    /// `a` before the step (at the offset of this step) and after it.
    pub a: &'a [f64],
    pub a_new: &'a [f64],
    pub h: f64,
    /// `h₋′`, the spacing of the last step's `a` and this step's.
    pub h_prev: f64,
    /// The uncertainty of each `a_i` per unit of `1 + |q_i|` that Newton left.
    pub acc_noise: f64,
}

/// The step's error per unit step in the weighted RMS norm (≤ 1: accept).
pub(crate) fn local_error(c: &StepControl, p: &GenAlphaParams, s: &StepData<'_>) -> f64 {
    let (cq, cv) = (error_constant(p), velocity_error_constant(p));
    let (h, hp) = (s.h, s.h_prev);
    // round-off of the accelerations themselves
    let a_max = s.a_new.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let round = 8.0 * f64::EPSILON * a_max;
    let mut sum = 0.0;
    let zq = zero_weight(c.atol, c.rtol, s.q.iter().copied());
    let zv = zero_weight(c.atol, c.rtol, s.v.iter().copied());
    for i in 0..s.q.len() {
        let sigma = s.acc_noise * (1.0 + s.q[i].abs()) + round;
        let eq = cq * h * h * ((s.a_new[i] - s.a[i]).abs() - 2.0 * sigma).max(0.0);
        sum += (eq / weight(c.atol, c.rtol, s.q[i], zq)).powi(2);
        if let Some(d4) = s.d4 {
            let noise = 4.0 * sigma * (1.0 / h + 1.0 / hp) / (h + hp);
            let ev = cv * h * h * h * (d4[i].abs() - noise).max(0.0);
            sum += (ev / weight(c.atol, c.rtol, s.v[i], zv)).powi(2);
        }
    }
    let n = if s.d4.is_some() { 2 } else { 1 } * s.q.len().max(1);
    let span = if c.span > 0.0 { c.span } else { 1.0 };
    (sum / n as f64).sqrt() * span / h
}

/// A PI step-size controller for an error that scales as `h²` (Gustafsson's, with Hairer &
/// Wanner's exponents): after an accepted step `h₊ = h · 0.9 · err^(−0.7/2) · err₋^(0.4/2)`,
/// after a rejected one `h₊ = h · 0.9 · err^(−1/2)`; growth at most ×2 (×1 right after a
/// rejection), shrink at most ×0.2.
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
        // accepted: PI; rejected: the step the estimate asks for (error ∝ h²), with margin
        let mut fac = if accepted {
            0.9 * err.powf(-0.35) * self.err_prev.max(1e-4).powf(0.2)
        } else {
            0.9 * err.powf(-0.5)
        };
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
