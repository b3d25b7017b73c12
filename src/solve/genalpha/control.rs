//! Error control of generalized-α (docs/maths.md §14): one attempt of a step, the start-up
//! and step-size changes of `a`. The estimate and the controller are in
//! [`crate::solve::adaptive`].

use super::{GENALPHA_TIGHTEST, GenAlpha};
use crate::error::{OptionError, SolveError};
use crate::model::State;
use crate::problem::StepControl;
use crate::solve::GenAlphaParams;
use crate::solve::adaptive::{StepData, local_error};
use crate::solve::integrator::{StepOutcome, span_message};

impl GenAlpha {
    /// One attempt under error control: Newton from the predictor, then the local error
    /// estimate; accepted when it is within the tolerance, otherwise (or when Newton fails)
    /// the state stays and the step shrinks.
    pub(super) fn controlled_step(&mut self) -> Result<StepOutcome, SolveError> {
        let Some(c) = self.opts.step_control else {
            return self.advance().map(|()| StepOutcome::Accepted);
        };
        let (step, h) = (self.step + 1, self.opts.h);
        let at_min = h <= c.h_min * (1.0 + 1e-9);
        self.rescale_a(h);
        self.predict();
        match self.newton(self.t + h, step) {
            Ok(it) => self.stats.newton_iterations += it,
            Err(e) if at_min => return Err(e),
            Err(SolveError::NewtonDiverged { .. } | SolveError::NonFinite { .. }) => {
                self.stats.rejected_steps += 1;
                self.opts.h = self.ctrl.as_mut().map_or(h, |k| k.failed(h, &c));
                self.factor_valid = false;
                return Ok(StepOutcome::Rejected);
            }
            Err(e) => return Err(e),
        }
        let GenAlphaParams {
            alpha_m, alpha_f, ..
        } = self.p;
        let cf = (1.0 - alpha_f) / (1.0 - alpha_m);
        let inv_1m = 1.0 / (1.0 - alpha_m);
        for (((an, a), qdd), qddn) in (self.a_new.iter_mut())
            .zip(&self.a)
            .zip(&self.qdd)
            .zip(&self.qddn)
        {
            *an = (alpha_f * qdd - alpha_m * a) * inv_1m + cf * qddn;
        }
        let t1 = self.t + h;
        if let Some(proj) = &mut self.proj {
            // the velocity projection of an accepted step, done on the attempt (q₊ is the
            // accepted q): its factorization also projects the second difference of `a`
            proj.project_velocity(&self.model, t1, &self.qn, &mut self.vn)
                .map_err(|e| SolveError::singular(t1, step, "in the velocity projection", e))?;
        }
        // `a` (moved to the offset δh) and the last step's `a` (at δh₋) are h₋ + δ(h − h₋) apart
        let hp = self.h_prev + (self.p.alpha_m - self.p.alpha_f) * (h - self.h_prev);
        for (((d, an), a), ap) in (self.d4.iter_mut())
            .zip(&self.a_new)
            .zip(&self.a)
            .zip(&self.a_used)
        {
            *d = 2.0 * ((an - a) / h - (a - ap) / hp) / (h + hp);
        }
        // the same from the accelerations at the last three step points: `a` keeps an error
        // of order h₋² from the last step size, which a much shorter step reads as h⁻¹h₋⁻¹ in
        // its second difference; the accelerations carry none of it (but index 3 lets their
        // normal part oscillate, projected away below). Both approximate q⁗: the smaller
        // counts.
        let hq = self.h_prev;
        for (((d, an), a), ap) in (self.d4.iter_mut())
            .zip(&self.qddn)
            .zip(&self.qdd)
            .zip(&self.qdd_prev)
        {
            let dq = 2.0 * ((an - a) / h - (a - ap) / hq) / (h + hq);
            if dq.abs() < d.abs() {
                *d = dq;
            }
        }
        if let Some(proj) = &mut self.proj {
            proj.project_tangent(&self.model, &mut self.d4)
                .map_err(|e| SolveError::singular(t1, step, "in the velocity projection", e))?;
        }
        // the uncertainty of `a` per unit of 1 + |q_i|: the displacement Newton left (not below
        // round-off) times β' = (1 − α_m)/(βh²(1 − α_f)), for this step and the last one
        let bp = (1.0 - alpha_m) / (self.p.beta * h * h * (1.0 - alpha_f));
        let acc_noise = bp * self.newton_err;
        let data = StepData {
            q: &self.qn,
            v: &self.vn,
            d4: (self.step > 0).then_some(&self.d4[..]),
            a: &self.a,
            a_new: &self.a_new,
            h,
            h_prev: hp,
            acc_noise: acc_noise.max(self.acc_noise_prev),
        };
        let err = local_error(&c, &self.p, &data);
        let next = self.ctrl.as_mut().map_or(h, |k| k.next(h, err, &c));
        if err <= 1.0 {
            self.accept(step);
            self.last_error = err;
            self.acc_noise_prev = acc_noise;
            self.opts.h = next;
            return Ok(StepOutcome::Accepted);
        }
        if at_min {
            return Err(SolveError::StepTooSmall {
                method: "generalized-alpha",
                t: self.t,
                h,
                error: err,
            });
        }
        self.stats.rejected_steps += 1;
        self.opts.h = next;
        Ok(StepOutcome::Rejected)
    }

    /// Under error control, `q⃛₀` by central differences of the state's accelerations along
    /// the motion (`t₀ ± ε, q₀ ± εv₀ + ε²q̈₀/2, v₀ ± εq̈₀`), kept in `a_used` until the first
    /// step moves `a₀ = q̈₀` to `q̈(t₀ + δh)` with it.
    pub(super) fn start_jerk(&mut self, state: &State) -> Result<(), SolveError> {
        let n = self.model.n;
        let mut solver = crate::solve::StateSolver::new(&self.model, self.opts.linear_solver);
        let eps = 1e-3 * self.opts.h;
        let mut acc = [vec![0.0; n], vec![0.0; n]];
        for (k, sgn) in [1.0, -1.0].into_iter().enumerate() {
            let e = sgn * eps;
            let q: Vec<f64> = (state.q.iter().zip(&state.v).zip(&state.qdd))
                .map(|((q, v), a)| q + e * v + 0.5 * e * e * a)
                .collect();
            let v: Vec<f64> = (state.v.iter().zip(&state.qdd))
                .map(|(v, a)| v + e * a)
                .collect();
            let (qdd, _) = solver
                .solve(&self.model, state.t + e, &q, &v)
                .map_err(|e| {
                    SolveError::singular(
                        state.t,
                        0,
                        "in the start-up derivative of the accelerations",
                        e,
                    )
                })?;
            acc[k].copy_from_slice(qdd);
        }
        for ((j, p), m) in self.a_used.iter_mut().zip(&acc[0]).zip(&acc[1]) {
            *j = (p - m) / (2.0 * eps);
        }
        Ok(())
    }

    /// Move `a` from the offset `δh₋` of the last step to the offset `δh` of a step of size
    /// `h` (`δ = α_m − α_f`): `a ← a + δ(h − h₋)(a − a₋)/h₋`, so a change of step size does
    /// not seed the scheme's spurious oscillation of `a`.
    fn rescale_a(&mut self, h: f64) {
        let delta = self.p.alpha_m - self.p.alpha_f;
        if self.step == 0 {
            for ((a, acc), jerk) in self.a.iter_mut().zip(&self.a_acc).zip(&self.a_used) {
                *a = acc + delta * h * jerk;
            }
            return;
        }
        let s = delta * (h - self.h_prev) / self.h_prev;
        for ((a, acc), used) in self.a.iter_mut().zip(&self.a_acc).zip(&self.a_used) {
            *a = acc + s * (acc - used);
        }
    }
}

/// The tolerances and step limits of error control: `rtol`, `atol` ≥ 0 and not both 0,
/// 0 < `h_min` ≤ `h_max` (0: no limit), and not tighter than generalized-α can reach
/// ([`GENALPHA_TIGHTEST`]).
pub(super) fn check_step_control(c: &StepControl) -> Result<(), OptionError> {
    let ok = c.rtol >= 0.0
        && c.atol >= 0.0
        && c.rtol + c.atol > 0.0
        && (c.rtol + c.atol).is_finite()
        && c.h_min > 0.0
        && c.h_min.is_finite()
        && (c.h_max == 0.0 || c.h_max >= c.h_min);
    if !ok {
        return Err(OptionError::invalid(
            "tol",
            format!(
                "step control: rtol = {}, atol = {} must be finite, ≥ 0 and not both 0, and \
                 0 < h_min = {} ≤ h_max = {} (0: no limit)",
                c.rtol, c.atol, c.h_min, c.h_max
            ),
        ));
    }
    if !c.span.is_finite() {
        return Err(OptionError::invalid(
            "span",
            span_message("step control", c.span),
        ));
    }
    if c.span < 0.0 {
        return Err(OptionError::invalid(
            "span",
            format!(
                "generalized-α's step control is per unit step only: span = {} must be 0 (the \
                 run's length) or positive",
                c.span
            ),
        ));
    }
    if c.rtol.max(c.atol) < GENALPHA_TIGHTEST {
        return Err(OptionError::invalid(
            "tol",
            format!(
                "generalized-α is of order 2: under error control it reaches about \
                 {GENALPHA_TIGHTEST:e} at best (its steps shrink as tol^(1/2) until \
                 round-off in its accelerations stops the controller); for tol = {:e} \
                 use DOP853, of order 8 (--integrator dop853, or no --integrator)",
                c.rtol.max(c.atol)
            ),
        ));
    }
    Ok(())
}
