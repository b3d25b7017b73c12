//! Radau IIA of order 5 (three stages) under error control on the index-3 Euler–Lagrange
//! equations, as Hairer & Wanner's `radau5.f` treats index-3 systems (*Solving Ordinary
//! Differential Equations II*, §IV.8 and §VII.4; docs/maths.md §17).
//!
//! The stages are the positions `Qᵢ = q₀ + Zᵢ` at `t₀ + cᵢh` and the multipliers `Λᵢ`; the
//! collocation conditions give the stage velocities and accelerations from them,
//!
//! ```text
//! V = (A⁻¹ ⊗ I) Z / h,     Ȧ = (A⁻¹ ⊗ I)(V − 1 ⊗ v₀) / h,
//! r(t₀ + cᵢh, Qᵢ, Vᵢ, Ȧᵢ) + C_q(Qᵢ)ᵀΛᵢ = 0,     C(t₀ + cᵢh, Qᵢ) = 0     (i = 1, 2, 3),
//! ```
//!
//! and the method is stiffly accurate: `q₁ = Q₃`, `v₁ = V₃`, `q̈₁ = Ȧ₃`, `λ₁ = Λ₃`, so the new
//! state satisfies the equations of motion and the position constraints at `t₁` (the velocity
//! constraints to the method's order in `v`). The stage system is solved by simplified Newton
//! with `M`, `D`, `K` and `G` at the step's start, transformed with `T⁻¹A⁻¹T` into one real and one
//! complex system on the toolkit's iteration-matrix pattern ([`system`]). A Jacobian is kept
//! over steps while Newton converges fast, and a factorization while the step size is kept.
//!
//! The step size follows Gustafsson's predictive controller as in `radau5.f`; the collocation
//! polynomial gives the output between steps ([`Integrator::interpolate`]) and the next step's
//! starting stages.

mod step;
mod system;
mod tableau;

use crate::assembly::{self, Point};
use crate::error::{Error, OptionError, SolveError};
use crate::model::{Model, State};
use crate::problem::RadauOptions;
use crate::solve::Stats;
use crate::solve::integrator::{Landing, check_step_options, smallest_step, weight, zero_weight};
use std::sync::Arc;
use system::Systems;
use tableau::{C, E, T, TI, Tableau};

/// Largest step increase and decrease per step.
const GROW: f64 = 8.0;
const SHRINK: f64 = 5.0;
/// Safety factor of the step-size rule.
const SAFE: f64 = 0.9;
/// A step size change inside `[1, 1.2]` is not made: the factorizations are kept.
const KEEP_H: (f64, f64) = (1.0, 1.2);
/// A Newton contraction above this (after more than two iterations) asks for a new Jacobian.
const THETA_JAC: f64 = 1e-3;
/// After Newton failed to converge, the steps stay within the size that then converged,
/// growing by this factor per accepted step (CVODE's rule of holding the step after a
/// convergence failure, relaxed gradually): where the nonlinearity, not the error, bounds the
/// step, the controller otherwise grows it into the failure again and again.
const NEWTON_RELAX: f64 = 1.2;

/// A Radau IIA stepper over a [`Model`].
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::library::pendulum::planar_pendulum;
/// // the pendulum (g = ℓ = 1) in Cartesian coordinates, released at 90°: an index-3 DAE.
/// // After its period 4K(sin 45°) = 7.4162987… it is back at (1, 0).
/// let period = 4.0 * 1.854_074_677_301_372;
/// let problem = Problem::new(planar_pendulum(1.0, 1.0, 1.0))
///     .guess(&[1.0, 0.0], &[0.0, 0.0])
///     .t_end(period);
/// let sol = simulate(&problem, RadauOptions::new(1e-10))?;
/// let end = &sol.last().state;
/// assert!((end.q[0] - 1.0).abs() < 1e-8 && end.q[1].abs() < 1e-8);
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub struct Radau {
    model: Arc<Model>,
    opts: RadauOptions,
    tab: Tableau,
    sys: Systems,
    n: usize,
    m: usize,
    /// The tolerances the error estimate is held to (`radau5.f`'s transformation).
    rtol: f64,
    atol: f64,
    t: f64,
    /// The next attempt's step.
    h: f64,
    q: Vec<f64>,
    v: Vec<f64>,
    qdd: Vec<f64>,
    lambda: Vec<f64>,
    /// Stage unknowns: `Zᵢ = Qᵢ − q₀` (`3n`) and `Λᵢ` (`3m`).
    z: Vec<f64>,
    lam_s: Vec<f64>,
    /// Stage positions, velocities, accelerations (`3n` each).
    qs: Vec<f64>,
    vs: Vec<f64>,
    acc: Vec<f64>,
    /// Stage residuals (`3(n + m)`).
    f: Vec<f64>,
    /// Right-hand sides of the real (`n + m`) and complex (`2(n + m)`) systems.
    rr: Vec<f64>,
    rc: Vec<f64>,
    /// Newton weights `atol' + rtol'|q₀|`, `atol' + rtol'|v₀|` (`2n`).
    scale: Vec<f64>,
    /// Error-estimate work (`n` each).
    bq: Vec<f64>,
    dv: Vec<f64>,
    ev: Vec<f64>,
    lam_e: Vec<f64>,
    /// The last accepted step: its start, size, starting state, and the coefficients of the
    /// collocation polynomials of `q`, `v` and `λ` (`3n`, `3n`, `3m`).
    t_old: f64,
    h_old: f64,
    /// The end time the next step is aimed at.
    pub(super) land: Landing,
    q_old: Vec<f64>,
    v_old: Vec<f64>,
    lam_old: Vec<f64>,
    cq: Vec<f64>,
    cv: Vec<f64>,
    cl: Vec<f64>,
    /// The Jacobian is at the current state.
    jac_current: bool,
    /// Newton's contraction factor `θ/(1 − θ)`, carried over steps.
    faccon: f64,
    theta: f64,
    first: bool,
    last_rejected: bool,
    /// The largest step Newton is trusted with (see [`NEWTON_RELAX`]), and whether it failed
    /// since the last accepted step.
    h_newton: f64,
    newton_failed: bool,
    /// The last accepted step's size and error (the predictive controller).
    h_acc: f64,
    err_acc: f64,
    err: f64,
    step: usize,
    stats: Stats,
}

/// What the stage iteration ended with.
enum Newton {
    Converged {
        iterations: usize,
    },
    /// Not converging: retry with the step times this factor.
    Failed {
        factor: f64,
    },
}

impl Radau {
    /// Prepare from the consistent `state` of `model`.
    pub fn new(
        model: impl Into<Arc<Model>>,
        state: &State,
        opts: RadauOptions,
    ) -> Result<Self, Error> {
        let model: Arc<Model> = model.into();
        let bad = |option: &str, m: String| Error::from(OptionError::invalid(option, m));
        check_step_options(
            "Radau",
            opts.rtol,
            opts.atol,
            [opts.h0, opts.h_min, opts.h_max],
            opts.span,
        )?;
        if opts.max_newton_iterations < 2 {
            return Err(bad(
                "max_newton_iterations",
                "Radau max_newton_iterations must be at least 2".into(),
            ));
        }
        if !(opts.newton_tol >= 0.0 && opts.newton_tol < 1.0) {
            return Err(bad(
                "newton_tol",
                format!(
                    "Radau newton_tol = {} must lie in [0, 1) (0: automatic)",
                    opts.newton_tol
                ),
            ));
        }
        let (n, m) = (model.n, model.m);
        if state.q.len() != n || state.v.len() != n || state.lambda.len() != m {
            return Err(bad(
                "state",
                format!(
                    "state sizes (q {}, v {}, lambda {}) do not match the model (n = {n}, m = {m})",
                    state.q.len(),
                    state.v.len(),
                    state.lambda.len()
                ),
            ));
        }
        let sys = Systems::new(&model, opts.linear_solver)
            .map_err(|s| SolveError::singular(state.t, 0, "", s.detail))?;
        // The estimate goes as h⁴, the local error of the solution as h⁶. radau5.f holds the
        // estimate to 0.1·tol^(2/3) (local error ≈ tol per step: Kepler's e = 0.6 orbit 70–290 ×
        // tol); 0.1·tol^(9/10) keeps it below tol·h, so the global error follows tol (Kepler
        // 2.2–5.9 ×, a spring 0.05–0.1 ×; docs/maths.md §17)
        let (rtol, atol) = if opts.rtol > 0.0 {
            let r = 0.1 * opts.rtol.powf(0.9);
            (r, r * opts.atol / opts.rtol)
        } else {
            (0.0, 0.1 * opts.atol.powf(0.9))
        };
        let nm = n + m;
        let mut me = Radau {
            tab: Tableau::new(),
            sys,
            n,
            m,
            rtol,
            atol,
            t: state.t,
            h: opts.h0,
            q: state.q.clone(),
            v: state.v.clone(),
            qdd: state.qdd.clone(),
            lambda: state.lambda.clone(),
            z: vec![0.0; 3 * n],
            lam_s: vec![0.0; 3 * m],
            qs: vec![0.0; 3 * n],
            vs: vec![0.0; 3 * n],
            acc: vec![0.0; 3 * n],
            f: vec![0.0; 3 * nm],
            rr: vec![0.0; nm],
            rc: vec![0.0; 2 * nm],
            scale: vec![0.0; 2 * n],
            bq: vec![0.0; n],
            dv: vec![0.0; n],
            ev: vec![0.0; n],
            lam_e: vec![0.0; m],
            t_old: state.t,
            h_old: 0.0,
            land: Landing::default(),
            q_old: state.q.clone(),
            v_old: state.v.clone(),
            lam_old: state.lambda.clone(),
            cq: vec![0.0; 3 * n],
            cv: vec![0.0; 3 * n],
            cl: vec![0.0; 3 * m],
            jac_current: false,
            faccon: 1.0,
            theta: 1.0,
            first: true,
            last_rejected: false,
            h_newton: f64::INFINITY,
            newton_failed: false,
            h_acc: 0.0,
            err_acc: 1e-2,
            err: 0.0,
            step: 0,
            stats: Stats::default(),
            model,
            opts,
        };
        if !(me.h > 0.0) {
            me.h = me.initial_step();
        }
        me.jacobian();
        Ok(me)
    }

    /// The first step from the slopes at the start: `0.01‖y‖/‖ẏ‖` in the weighted RMS norm
    /// over `q` and `v` (Hairer, Nørsett & Wanner I, §II.4), `10⁻⁶` when either is tiny.
    fn initial_step(&self) -> f64 {
        let (atol, rtol) = (self.atol, self.rtol);
        // (one stand-in for q and v: at rest the velocities have no size of their own yet)
        let zero = zero_weight(atol, rtol, self.q.iter().chain(&self.v).copied());
        let sk = |y| weight(atol, rtol, y, zero);
        let (mut d0, mut d1) = (0.0, 0.0);
        for i in 0..self.n {
            d0 += (self.q[i] / sk(self.q[i])).powi(2) + (self.v[i] / sk(self.v[i])).powi(2);
            d1 += (self.v[i] / sk(self.q[i])).powi(2) + (self.qdd[i] / sk(self.v[i])).powi(2);
        }
        let (d0, d1) = (d0.sqrt(), d1.sqrt());
        let mut h = if d0 < 1e-5 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        };
        if self.opts.h_max > 0.0 {
            h = h.min(self.opts.h_max);
        }
        h
    }

    /// The smallest step allowed at the current time.
    fn h_min(&self) -> f64 {
        smallest_step(self.opts.h_min, self.t, self.h_old)
    }

    fn singular(&self, t: f64, s: crate::solve::linear::Singular) -> SolveError {
        SolveError::singular(t, self.step + 1, "", s.detail)
    }

    /// `M`, `D`, `K`, `G` at the current state.
    fn jacobian(&mut self) {
        let pt = Point {
            t: self.t,
            q: &self.q,
            v: &self.v,
            a: &self.qdd,
            lambda: &self.lambda,
        };
        self.sys.jacobian(&self.model, &pt);
        self.stats.jacobian_evaluations += 3;
        self.jac_current = true;
    }

    /// The starting stages for a step of size `h`: the last step's collocation polynomials
    /// extrapolated, or (first step) the Taylor polynomial of the start.
    fn guess(&mut self, h: f64) {
        let (n, m) = (self.n, self.m);
        if self.step == 0 {
            for (i, c) in C.iter().enumerate() {
                let s = c * h;
                for j in 0..n {
                    self.z[i * n + j] = s * self.v[j] + 0.5 * s * s * self.qdd[j];
                }
                self.lam_s[i * m..(i + 1) * m].copy_from_slice(&self.lambda);
            }
            return;
        }
        let r = h / self.h_old;
        for (i, c) in C.iter().enumerate() {
            let x = 1.0 + c * r;
            let p = [x, x * x, x * x * x];
            for j in 0..n {
                // Z relative to the new start q₁ = q_old + poly(1)
                let at = |k: usize| self.cq[k * n + j];
                let poly = |p: &[f64; 3]| at(0) * p[0] + at(1) * p[1] + at(2) * p[2];
                self.z[i * n + j] = poly(&p) - poly(&[1.0, 1.0, 1.0]);
            }
            for j in 0..m {
                let at = |k: usize| self.cl[k * m + j];
                self.lam_s[i * m + j] =
                    self.lam_old[j] + at(0) * p[0] + at(1) * p[1] + at(2) * p[2];
            }
        }
    }

    /// Stage positions, velocities and accelerations from `Z`.
    fn stage_values(&mut self, h: f64) {
        let n = self.n;
        let ai = &self.tab.ainv;
        for i in 0..3 {
            for j in 0..n {
                self.qs[i * n + j] = self.q[j] + self.z[i * n + j];
                let mut s = 0.0;
                for (k, a) in ai[i].iter().enumerate() {
                    s += a * self.z[k * n + j];
                }
                self.vs[i * n + j] = s / h;
            }
        }
        for i in 0..3 {
            for j in 0..n {
                let mut s = 0.0;
                for (k, a) in ai[i].iter().enumerate() {
                    s += a * (self.vs[k * n + j] - self.v[j]);
                }
                self.acc[i * n + j] = s / h;
            }
        }
    }

    /// The stage residuals `[r + C_qᵀΛ; C]` into `f`; whether they are finite.
    fn residuals(&mut self, h: f64) -> bool {
        let (n, m) = (self.n, self.m);
        let nm = n + m;
        for (i, c) in C.iter().enumerate() {
            let pt = Point {
                t: self.t + c * h,
                q: &self.qs[i * n..(i + 1) * n],
                v: &self.vs[i * n..(i + 1) * n],
                a: &self.acc[i * n..(i + 1) * n],
                lambda: &self.lam_s[i * m..(i + 1) * m],
            };
            assembly::residual(&self.model, &pt, 1.0, &mut self.f[i * nm..(i + 1) * nm]);
        }
        self.stats.residual_evaluations += 3;
        self.f.iter().all(|x| x.is_finite())
    }

    /// The stage iteration's tolerance `κ` on the weighted increments of `Z` and `V` (weights
    /// `atol + rtol·|y₀|` of the user's tolerances): `0.1·h/span`. What Newton leaves in `V` is
    /// carried by every later step, and those errors add up (with `radau5.f`'s `κ = 0.03`,
    /// Kepler's orbit ended 180 × tol off at 1e-4). Below by `0.1 ε/max(rtol, atol)`: with
    /// `radau5.f`'s `10 ε/rtol` the stages of a tight run stopped at up to `10 ε` of a
    /// coordinate's size — in the outer solar system's velocities (of 0.007 AU/day, weighed
    /// against `atol`) a bias that 3,000 steps carried to an error of 4.4e-9 at tol 1e-12, worse
    /// than 6.3e-10 at 1e-10. Increments at round-off end the iteration by the noise test.
    fn newton_tolerance(&self, h: f64) -> f64 {
        if self.opts.newton_tol > 0.0 {
            return self.opts.newton_tol;
        }
        let floor = 0.1 * f64::EPSILON / self.opts.rtol.max(self.opts.atol);
        let per_unit = if self.opts.span > 0.0 {
            (h / self.opts.span).min(1.0)
        } else {
            1.0
        };
        (0.1 * per_unit).max(floor).min(0.1)
    }

    /// The stage system by simplified Newton in the transformed unknowns (`radau5.f`'s
    /// convergence test: `θ/(1−θ)·‖ΔW‖ ≤ κ` with `κ = max(10 ε/rtol', min(0.03, √rtol'))`, and
    /// an early stop when the contraction cannot reach it in the iterations left).
    fn newton(&mut self, h: f64) -> Result<Newton, SolveError> {
        let (n, m) = (self.n, self.m);
        let nm = n + m;
        let maxit = self.opts.max_newton_iterations;
        let fnewt = self.newton_tolerance(h);
        let sr = Systems::scale_real(h, self.tab.mu_r);
        let sc = Systems::scale_complex(h, self.tab.mu_c);
        let (rtol, atol) = (self.opts.rtol, self.opts.atol);
        let zero = zero_weight(atol, rtol, self.q.iter().chain(&self.v).copied());
        for j in 0..n {
            self.scale[j] = weight(atol, rtol, self.q[j], zero);
            self.scale[n + j] = weight(atol, rtol, self.v[j], zero);
        }
        // Round-off: the stage positions are resolved to a few ε·max|q| (the constraints are
        // evaluated there), their velocities `A⁻¹Z/h` to ten times that over h. Increments
        // below both are noise: the stages are converged as far as they can be (tiny steps,
        // where the weights of `v` ask for more digits than exist).
        let qmax = self.q.iter().fold(f64::MIN_POSITIVE, |m, x| m.max(x.abs()));
        let noise_z = 16.0 * f64::EPSILON * qmax;
        let noise_v = 10.0 * noise_z / h;
        self.faccon = self.faccon.max(f64::EPSILON).powf(0.8);
        self.theta = self.faccon;
        let (mut dyno_old, mut thq_old) = (0.0, 1.0);
        for k in 0..maxit {
            self.stage_values(h);
            if !self.residuals(h) {
                return Ok(Newton::Failed { factor: 0.5 });
            }
            for row in 0..nm {
                let fi = |i: usize| self.f[i * nm + row];
                let g = |k: usize| TI[k][0] * fi(0) + TI[k][1] * fi(1) + TI[k][2] * fi(2);
                let (s_r, s_c) = if row < n { (sr, sc) } else { (1.0, 1.0) };
                self.rr[row] = -s_r * g(0);
                self.rc[row] = -s_c * g(1);
                self.rc[nm + row] = -s_c * g(2);
            }
            let t1 = self.t + h;
            self.sys
                .solve_real(&mut self.rr)
                .map_err(|s| self.singular(t1, s))?;
            self.sys
                .solve_complex(&mut self.rc)
                .map_err(|s| self.singular(t1, s))?;
            self.stats.newton_iterations += 1;
            // ΔW₀ = rr[..n], ΔW₁ = rc[..n], ΔW₂ = rc[nm..nm + n]
            // the increments of the stage positions and of the velocities they give
            // (`ΔV = A⁻¹ΔZ/h`): a velocity left unconverged is carried by every later step
            let ai = &self.tab.ainv;
            let (mut sum, mut noise) = (0.0, 0.0f64);
            for j in 0..n {
                let w = [self.rr[j], self.rc[j], self.rc[nm + j]];
                let dz: [f64; 3] =
                    std::array::from_fn(|i| T[i][0] * w[0] + T[i][1] * w[1] + T[i][2] * w[2]);
                for i in 0..3 {
                    self.z[i * n + j] += dz[i];
                    let dv = (ai[i][0] * dz[0] + ai[i][1] * dz[1] + ai[i][2] * dz[2]) / h;
                    sum += (dz[i] / self.scale[j]).powi(2) + (dv / self.scale[n + j]).powi(2);
                    noise = noise.max((dz[i] / noise_z).abs()).max((dv / noise_v).abs());
                }
            }
            for j in 0..m {
                let w = [
                    self.rr[n + j] / sr,
                    self.rc[n + j] / sc,
                    self.rc[nm + n + j] / sc,
                ];
                for i in 0..3 {
                    self.lam_s[i * m + j] += T[i][0] * w[0] + T[i][1] * w[1] + T[i][2] * w[2];
                }
            }
            let dyno = (sum / (6 * n).max(1) as f64).sqrt();
            // at round-off and no longer contracting: as converged as the stages can be
            if k >= 1 && noise <= 1.0 && dyno > 0.2 * dyno_old {
                self.stage_values(h);
                return Ok(Newton::Converged { iterations: k + 1 });
            }
            if k >= 1 {
                let thq = dyno / dyno_old;
                self.theta = if k == 1 { thq } else { (thq * thq_old).sqrt() };
                thq_old = thq;
                if self.theta < 0.99 {
                    self.faccon = self.theta / (1.0 - self.theta);
                    let left = (maxit - 1 - k) as i32;
                    let dyth = self.faccon * dyno * self.theta.powi(left) / fnewt;
                    if dyth >= 1.0 && k + 1 < maxit {
                        let q = dyth.clamp(1e-4, 20.0);
                        let factor = 0.8 * q.powf(-1.0 / (4.0 + left as f64));
                        return Ok(Newton::Failed { factor });
                    }
                } else {
                    return Ok(Newton::Failed { factor: 0.5 });
                }
            }
            dyno_old = dyno.max(f64::EPSILON);
            if self.faccon * dyno <= fnewt {
                // the velocities and accelerations of the stages as they are now
                self.stage_values(h);
                return Ok(Newton::Converged { iterations: k + 1 });
            }
        }
        Ok(Newton::Failed { factor: 0.5 })
    }

    /// The error estimate of the converged stages (units of the tolerance).
    ///
    /// With `ZE = Σ eᵢ Zᵢ / h` (positions and velocities), the estimate `e` solves
    /// `(μ_r/h 𝕄 − J) e = F(y₀) + 𝕄·ZE` on the first-order form `y = (q, v, λ)` with
    /// `𝕄 = diag(I, M, 0)`; eliminating `e_v = μ_r/h e_q − b_q` leaves the real system
    /// `[μ_r²/h² M + μ_r/h D + K, Gᵀ; G, 0] [e_q; e_λ] = [M(q̈₀ + ZE_v + μ_r/h b_q) + D b_q; 0]`
    /// with `b_q = v₀ + ZE_q`. After a rejection (and on the first step) a large estimate is
    /// refined by one more evaluation at `y₀ + e`, as `radau5.f` does for stiff components.
    fn error_estimate(&mut self, h: f64) -> f64 {
        let n = self.n;
        let mu = self.tab.mu_r;
        let sr = Systems::scale_real(h, mu);
        for j in 0..n {
            let (zq, zv) = self.ze(j, h);
            self.bq[j] = self.v[j] + zq;
            self.dv[j] = self.qdd[j] + zv + mu / h * self.bq[j];
        }
        self.sys.mass_damping(&self.dv, &self.bq, 1.0, &mut self.ev);
        for j in 0..n {
            self.rr[j] = sr * self.ev[j];
        }
        self.rr[n..].fill(0.0);
        if self.sys.solve_real(&mut self.rr).is_err() {
            return f64::INFINITY;
        }
        let mut err = self.error_norm(h, sr);
        if err >= 1.0 && (self.first || self.last_rejected) {
            err = self.refined_estimate(h, sr);
        }
        err
    }

    /// `ZE = Σᵢ eᵢ Zᵢ / h` of coordinate `j`, in position and in velocity (`Zᵢ` of `v` is
    /// `Vᵢ − v₀`).
    fn ze(&self, j: usize, h: f64) -> (f64, f64) {
        let n = self.n;
        let (mut zq, mut zv) = (0.0, 0.0);
        for (i, e) in E.iter().enumerate() {
            zq += e * self.z[i * n + j];
            zv += e * (self.vs[i * n + j] - self.v[j]);
        }
        (zq / h, zv / h)
    }

    /// The weighted RMS norm of the estimate in `rr` (`e_q`, `s_r e_λ`) against
    /// `atol' + rtol'·max(|y₀|, |y₁|)`: `e_q`; of `e_v`, the part along the constraints (a
    /// differential variable of index 1) and `h` times the part across them (index 2); `h² e_λ`
    /// (index 3). Without constraints `v` is all of index 1.
    fn error_norm(&mut self, h: f64, sr: f64) -> f64 {
        let (n, m) = (self.n, self.m);
        let nm = n + m;
        let mu_h = self.tab.mu_r / h;
        let (rtol, atol) = (self.rtol, self.atol);
        for j in 0..n {
            self.dv[j] = mu_h * self.rr[j] - self.bq[j];
        }
        if m > 0 {
            // the part along the constraints: [J Gᵀ; G 0][x; y] = [M e_v; 0] with the step's
            // real matrix J = M + O(h) (its stiff directions damped, as the estimate's own)
            self.sys.mass_damping(&self.dv, &self.bq, 0.0, &mut self.ev);
            self.rc[..n].copy_from_slice(&self.ev);
            self.rc[n..nm].fill(0.0);
            if self.sys.solve_real(&mut self.rc[..nm]).is_err() {
                return f64::INFINITY;
            }
        } else {
            self.rc[..n].copy_from_slice(&self.dv);
        }
        let mut sum = 0.0;
        let (q1, v1, l1) = (
            &self.z[2 * n..3 * n],
            &self.vs[2 * n..3 * n],
            &self.lam_s[2 * m..],
        );
        let ends = |j: usize| [self.q[j], self.q[j] + q1[j], self.v[j], v1[j]];
        let zero = zero_weight(atol, rtol, (0..n).flat_map(ends));
        let zl = zero_weight(atol, rtol, (0..m).flat_map(|j| [self.lambda[j], l1[j]])).max(zero);
        for j in 0..n {
            let eq = self.rr[j];
            let (ev, along) = (self.dv[j], self.rc[j]);
            let sq = weight(
                atol,
                rtol,
                self.q[j].abs().max((self.q[j] + q1[j]).abs()),
                zero,
            );
            let sv = weight(atol, rtol, self.v[j].abs().max(v1[j].abs()), zero);
            sum += (eq / sq).powi(2) + (along / sv).powi(2) + (h * (ev - along) / sv).powi(2);
        }
        for j in 0..m {
            let el = self.rr[n + j] / sr;
            let sl = weight(atol, rtol, self.lambda[j].abs().max(l1[j].abs()), zl);
            sum += (h * h * el / sl).powi(2);
        }
        (sum / (2 * n + m).max(1) as f64).sqrt()
    }

    /// The estimate again with `F` at `y₀ + e` (one more residual).
    fn refined_estimate(&mut self, h: f64, sr: f64) -> f64 {
        let (n, m) = (self.n, self.m);
        let nm = n + m;
        let mu = self.tab.mu_r;
        // y₀ + e into the first stage's buffers (the stages are recomputed before any use)
        for j in 0..n {
            let eq = self.rr[j];
            let ev = mu / h * eq - self.bq[j];
            let (zq, zv) = self.ze(j, h);
            self.qs[j] = self.q[j] + eq;
            self.acc[j] = -zv;
            // b_q at y₀ + e
            self.bq[j] = self.v[j] + ev + zq;
            self.vs[j] = self.v[j] + ev;
        }
        for j in 0..m {
            self.lam_e[j] = self.lambda[j] + self.rr[n + j] / sr;
        }
        let pt = Point {
            t: self.t,
            q: &self.qs[..n],
            v: &self.vs[..n],
            a: &self.acc[..n],
            lambda: &self.lam_e,
        };
        assembly::residual(&self.model, &pt, 1.0, &mut self.f[..nm]);
        self.stats.residual_evaluations += 1;
        // rhs: −R_dyn + M μ/h b_q + D b_q; constraint rows −C
        for j in 0..n {
            self.dv[j] = mu / h * self.bq[j];
        }
        self.sys.mass_damping(&self.dv, &self.bq, 1.0, &mut self.ev);
        for j in 0..n {
            self.rr[j] = sr * (self.ev[j] - self.f[j]);
        }
        for j in 0..m {
            self.rr[n + j] = -self.f[n + j];
        }
        if !self.rr.iter().all(|x| x.is_finite()) || self.sys.solve_real(&mut self.rr).is_err() {
            return f64::INFINITY;
        }
        // the stage buffers were overwritten: recompute them for the norm and the acceptance
        self.stage_values(h);
        self.error_norm(h, sr)
    }
}
