//! One Radau IIA attempt: the stages, the error test, the step-size rule of `radau5.f`
//! (with Gustafsson's predictive controller), acceptance; and the [`Integrator`] interface.

use super::tableau::P;
use super::{GROW, KEEP_H, NEWTON_RELAX, Newton, Radau, SAFE, SHRINK, THETA_JAC};
use crate::error::SolveError;
use crate::model::{Model, StateView};
use crate::solve::Stats;
use crate::solve::integrator::{Integrator, StepOutcome};
use std::sync::Arc;

impl Radau {
    /// One attempt of size `h` (the next step, bounded by `h_max`).
    fn attempt(&mut self) -> Result<StepOutcome, SolveError> {
        let mut h = self.h;
        if self.opts.h_max > 0.0 {
            h = h.min(self.opts.h_max);
        }
        if !(h >= self.h_min()) {
            return Err(SolveError::StepTooSmall {
                method: "radau",
                t: self.t,
                h,
                error: self.err,
            });
        }
        if self.sys.factor_h != h {
            let (mu_r, mu_c) = (self.tab.mu_r, self.tab.mu_c);
            self.sys
                .factorize(h, mu_r, mu_c)
                .map_err(|s| self.singular(self.t + h, s))?;
            self.stats.factorizations += 2;
        }
        self.guess(h);
        let iterations = match self.newton(h)? {
            Newton::Converged { iterations } => iterations,
            Newton::Failed { factor } => {
                // radau5.f: a shorter step, with a fresh Jacobian unless it is one already
                self.newton_failed = true;
                self.reject(h * factor);
                if !self.jac_current {
                    self.jacobian();
                }
                return Ok(StepOutcome::Rejected);
            }
        };
        let err = self.error_estimate(h);
        self.err = err;
        let maxit = self.opts.max_newton_iterations as f64;
        let fac = SAFE.min(SAFE * (1.0 + 2.0 * maxit) / (iterations as f64 + 2.0 * maxit));
        let mut quot = if err.is_finite() {
            (err.powf(0.25) / fac).clamp(1.0 / GROW, SHRINK)
        } else {
            SHRINK
        };
        if !(err < 1.0) {
            let h_new = if self.first { 0.1 * h } else { h / quot };
            self.reject(h_new);
            return Ok(StepOutcome::Rejected);
        }
        if !self.first {
            // Gustafsson: the error's trend over the last two accepted steps
            let gus = (self.h_acc / h) * (err * err / self.err_acc).powf(0.25) / SAFE;
            quot = quot.max(gus.clamp(1.0 / GROW, SHRINK));
        }
        self.h_acc = h;
        self.err_acc = err.max(1e-2);
        let mut h_new = h / quot;
        if self.last_rejected {
            h_new = h_new.min(h);
        }
        // the step Newton converged at after failing, relaxed slowly
        self.h_newton = match self.newton_failed {
            true => h,
            false => self.h_newton * NEWTON_RELAX,
        };
        self.newton_failed = false;
        h_new = h_new.min(self.h_newton);
        self.accept(h);
        // a smaller step is a wish after an accepted one, not a must: h_min bounds it
        if self.opts.h_min > 0.0 {
            h_new = h_new.max(self.opts.h_min);
        }
        let new_jacobian = iterations > 2 && self.theta > THETA_JAC;
        let ratio = h_new / h;
        if !new_jacobian && (KEEP_H.0..=KEEP_H.1).contains(&ratio) {
            h_new = h;
        }
        self.h = h_new;
        if new_jacobian {
            self.jacobian();
        } else {
            self.jac_current = false;
        }
        Ok(StepOutcome::Accepted)
    }

    fn reject(&mut self, h_new: f64) {
        self.h = h_new;
        self.stats.rejected_steps += 1;
        self.last_rejected = true;
    }

    /// Take the converged stages of size `h`: the collocation polynomials over the step, then
    /// the new state from the last stage.
    fn accept(&mut self, h: f64) {
        let (n, m) = (self.n, self.m);
        for k in 0..3 {
            for j in 0..n {
                let (mut a, mut b) = (0.0, 0.0);
                for (i, p) in P.iter().enumerate() {
                    a += self.z[i * n + j] * p[k];
                    b += (self.vs[i * n + j] - self.v[j]) * p[k];
                }
                self.cq[k * n + j] = a;
                self.cv[k * n + j] = b;
            }
            for j in 0..m {
                let mut a = 0.0;
                for (i, p) in P.iter().enumerate() {
                    a += (self.lam_s[i * m + j] - self.lambda[j]) * p[k];
                }
                self.cl[k * m + j] = a;
            }
        }
        self.q_old.copy_from_slice(&self.q);
        self.v_old.copy_from_slice(&self.v);
        self.lam_old.copy_from_slice(&self.lambda);
        self.t_old = self.t;
        self.h_old = h;
        for j in 0..n {
            self.q[j] += self.z[2 * n + j];
        }
        self.v.copy_from_slice(&self.vs[2 * n..]);
        self.qdd.copy_from_slice(&self.acc[2 * n..]);
        self.lambda.copy_from_slice(&self.lam_s[2 * m..]);
        self.t = self.land.after(self.t_old, h);
        self.step += 1;
        self.stats.steps = self.step;
        self.first = false;
        self.last_rejected = false;
    }
}

impl Integrator for Radau {
    fn method(&self) -> &'static str {
        "radau"
    }
    fn model(&self) -> &Arc<Model> {
        &self.model
    }
    fn t(&self) -> f64 {
        self.t
    }
    fn h(&self) -> f64 {
        self.h
    }
    fn set_h(&mut self, h: f64) {
        if h > 0.0 && h.is_finite() {
            self.h = h;
        }
    }
    fn land_on(&mut self, t: f64) {
        self.set_h(t - self.t);
        self.land.aim(t, self.h);
    }
    fn step(&mut self) -> Result<StepOutcome, SolveError> {
        self.attempt()
    }
    fn view(&self) -> StateView<'_> {
        StateView {
            t: self.t,
            q: &self.q,
            v: &self.v,
            qdd: &self.qdd,
            lambda: &self.lambda,
        }
    }
    fn stats(&self) -> &Stats {
        &self.stats
    }
    /// The collocation polynomials of the last accepted step (order 3 between the nodes, the
    /// method's stage order): `y(t₀ + xh) = y₀ + Σₖ (Σᵢ (Yᵢ − y₀) Pᵢₖ) xᵏ⁺¹`.
    fn interpolate(&mut self, t: f64, q: &mut [f64], v: &mut [f64]) -> Result<bool, SolveError> {
        if self.step == 0 {
            return Ok(false);
        }
        let n = self.n;
        let x = ((t - self.t_old) / self.h_old).clamp(0.0, 1.0);
        let p = [x, x * x, x * x * x];
        for j in 0..n {
            let (mut a, mut b) = (self.q_old[j], self.v_old[j]);
            for (k, pk) in p.iter().enumerate() {
                a += self.cq[k * n + j] * pk;
                b += self.cv[k * n + j] * pk;
            }
            q[j] = a;
            v[j] = b;
        }
        Ok(true)
    }
}
