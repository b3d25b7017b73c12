//! DOP853: the explicit Runge–Kutta pair of order 8 (Dormand & Prince; Hairer, Nørsett &
//! Wanner I, §II.10) under error control, for non-stiff mechanisms, on the index-1 form
//!
//! ```text
//! q̇ = v,   v̇ = q̈(t, q, v)   with   [M C_qᵀ; C_q 0] [q̈; λ] = [−r(t, q, v, 0); −γ]
//! ```
//!
//! ([`StateSolver`]), followed after every accepted step by the projection of `q` onto
//! `C(t, q) = 0` and of `v` onto `C_q v + C_t = 0`, both `M`-orthogonal (Hairer, Lubich &
//! Wanner, *Geometric Numerical Integration*, §IV.4): the drift of the index-1 form is removed
//! at each step, so the constraints hold to round-off while the error is that of an eighth-order
//! method (docs/maths.md §16).
//!
//! Each step's local error is estimated as in Hairer's `dop853.f`: the fifth-order estimate
//! `e₅ = h Σ ê⁵ⱼ kⱼ`, damped by the third-order one, `err = ‖e₅‖² / √(‖e₅‖² + 0.01‖e₃‖²)`, in
//! the RMS norm over `q` and `v` with weights `atol + rtol·max(|y₀|, |y₁|)`. Unlike `dop853.f`
//! it is kept below `h/span` (error per unit step, as the toolkit's generalized-α does): the
//! local errors of a run add up to at most the tolerance, and the global error follows it
//! (Kepler's e = 0.6 orbit: 0.2–6 × tol, against 30–430 × with the error per step). A step is
//! accepted when `err·span/h ≤ 1`; the next step is `h·min(3, max(1/6, 0.9 (err·span/h)^(−1/7)))`
//! (no growth right after a rejection). Between steps, the continuous extension of order 7
//! (three more stages, evaluated only when output between steps is asked for) gives `q` and `v`
//! ([`Integrator::interpolate`]).
//!
//! Stiffness is detected as in `dop853.f` (but tested after every accepted step, a pass over
//! `2n` values against twelve evaluations of `f`): the estimate `h·|λ| ≈ h‖k₁₂ − k₁₁‖/‖y₁ − Y₁₁‖` of
//! the step against the fastest mode exceeds the method's stability boundary (6.1) in 15
//! accepted steps without 6 below it in a row, once beyond 100 times the boundary (a fast
//! mode not yet excited let the error test pass: the attempt is refused and the next one is
//! at the boundary, so the mode is not rung), or when 80 of 200 attempts in a
//! row were rejected (a fast mode ringing at the edge of the step's accuracy and stability:
//! smooth problems reject a few in a hundred); the integrator then says so
//! ([`Integrator::advice`]) — an implicit method would take far fewer steps. When shrinking a
//! rejected step `10³`-fold no longer lowers the error (the forces' rounding, not the method's
//! error: a stiff mode ringing), the run goes on with Radau IIA when the method was chosen
//! for it (`switch_when_stiff`), and stops with [`SolveError::ErrorFloor`] when the user
//! named DOP853 — never an endless search for a step; likewise a named DOP853 struggling for
//! five windows in a row stops with [`SolveError::Struggling`] and its advice.

mod tableau;

use crate::error::{Error, InitError, SolveError};
use crate::model::{Model, State, StateView};
use crate::problem::{Dop853Options, LinearSolverKind, Method};
use crate::solve::integrator::{
    ErrorFloor, Integrator, Landing, StepOutcome, check_step_options, smallest_step, weight,
    zero_weight,
};
use crate::solve::{StateSolver, Stats};
use std::sync::Arc;
use tableau::{A, C, D, E3, E5, STAGES, STAGES_DENSE};

/// The stability boundary of DOP853 on the negative real axis, as `dop853.f` uses it.
const STIFF_BOUNDARY: f64 = 6.1;

/// Attempts in struggling windows in a row after which a run the user gave DOP853 stops with
/// [`SolveError::Struggling`] (a run left to the tolerance switches to Radau IIA at the first).
const STRUGGLING_REFUSED: usize = 5 * ErrorFloor::WINDOW;

/// A DOP853 stepper over a [`Model`] (with or without constraints).
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::library::pendulum::angle_pendulum;
/// // a pendulum (g = ℓ = 1) released at 90° is back after its period 4K(sin 45°) = 7.4162987…
/// let period = 4.0 * 1.854_074_677_301_372;
/// let problem = Problem::new(angle_pendulum(1.0, 1.0, 1.0))
///     .guess(&[std::f64::consts::FRAC_PI_2], &[0.0])
///     .t_end(period);
/// let sol = simulate(&problem, Dop853Options::new(1e-10))?;
/// let end = &sol.last().state;
/// assert!((end.q[0] - std::f64::consts::FRAC_PI_2).abs() < 1e-9 && end.v[0].abs() < 1e-9);
/// assert!(sol.stats.steps < 60);
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub struct Dop853 {
    model: Arc<Model>,
    solver: StateSolver,
    opts: Dop853Options,
    /// Coordinates (the state `y = [q; v]` has `2n` components).
    n: usize,
    t: f64,
    /// The next attempt's step.
    h: f64,
    y: Vec<f64>,
    /// `f(t, y) = [v; q̈]` of the current state.
    f: Vec<f64>,
    lambda: Vec<f64>,
    /// The slopes `kⱼ`, stage after stage (`STAGES_DENSE × 2n`).
    k: Vec<f64>,
    /// A stage's state.
    ytmp: Vec<f64>,
    /// The last accepted step's new solution before projection.
    y1: Vec<f64>,
    /// The last accepted step's start.
    t_old: f64,
    h_old: f64,
    /// The end time the next step is aimed at.
    land: Landing,
    y_old: Vec<f64>,
    /// The continuous extension's coefficients over the last accepted step (`7 × 2n`).
    cont: Vec<f64>,
    cont_ready: bool,
    last_rejected: bool,
    /// The last attempt's error estimate (in units of the tolerance).
    err: f64,
    step: usize,
    stiff_count: usize,
    non_stiff_count: usize,
    stiff_at: Option<f64>,
    /// Rejections whose error no smaller step lowers.
    floor: ErrorFloor,
    stats: Stats,
}

/// The slope `[v; q̈]` of the state `y = [q; v]` at `t` into `out` (and its `λ`). `Ok(false)`
/// when the forces or the accelerations are not finite.
fn slope(
    model: &Model,
    solver: &mut StateSolver,
    stats: &mut Stats,
    t: f64,
    y: &[f64],
    out: &mut [f64],
    lambda: Option<&mut [f64]>,
) -> Result<bool, Error> {
    let n = y.len() / 2;
    let (q, v) = y.split_at(n);
    stats.residual_evaluations += 1;
    if let Some(finite) = solver.point_mass_accelerations(model, t, q, v, &mut out[n..]) {
        // point masses without constraints: the accelerations written in place
        out[..n].copy_from_slice(v);
        return Ok(finite);
    }
    // the factorizations the solver did (one in all for a constant mass matrix)
    let before = solver.factorizations();
    let finite = match solver.solve(model, t, q, v) {
        Ok((qdd, lam)) => {
            let finite = qdd.iter().chain(lam).all(|x| x.is_finite());
            if finite {
                out[..n].copy_from_slice(v);
                out[n..].copy_from_slice(qdd);
                if let Some(l) = lambda {
                    l.copy_from_slice(lam);
                }
            }
            finite
        }
        Err(Error::Init(InitError::NonFinite { .. })) => false,
        Err(e) => return Err(e),
    };
    stats.factorizations += solver.factorizations() - before;
    Ok(finite)
}

/// `out = y + h Σⱼ aⱼ kⱼ` over the stages `j < s` with `aⱼ ≠ 0`.
fn combine(out: &mut [f64], y: &[f64], h: f64, a: &[f64], k: &[f64], s: usize) {
    // small states in registers (the same operations in the same order)
    match y.len() {
        2 => combine_fixed::<2>(out, y, h, a, k, s),
        4 => combine_fixed::<4>(out, y, h, a, k, s),
        6 => combine_fixed::<6>(out, y, h, a, k, s),
        8 => combine_fixed::<8>(out, y, h, a, k, s),
        len => {
            out.copy_from_slice(y);
            for (j, &aj) in a.iter().enumerate().take(s) {
                if aj != 0.0 {
                    let c = h * aj;
                    for (o, kj) in out.iter_mut().zip(&k[j * len..(j + 1) * len]) {
                        *o += c * kj;
                    }
                }
            }
        }
    }
}

/// [`combine`] for states of `L` components.
#[inline(always)]
fn combine_fixed<const L: usize>(
    out: &mut [f64],
    y: &[f64],
    h: f64,
    a: &[f64],
    k: &[f64],
    s: usize,
) {
    let mut sum: [f64; L] = std::array::from_fn(|i| y[i]);
    for (j, &aj) in a.iter().enumerate().take(s) {
        if aj != 0.0 {
            let c = h * aj;
            let kj = &k[j * L..(j + 1) * L];
            for i in 0..L {
                sum[i] += c * kj[i];
            }
        }
    }
    out[..L].copy_from_slice(&sum);
}

impl Dop853 {
    /// Prepare from the consistent `state` of `model`.
    pub fn new(
        model: impl Into<Arc<Model>>,
        state: &State,
        opts: Dop853Options,
    ) -> Result<Self, Error> {
        let model: Arc<Model> = model.into();
        let steps = [opts.h0, opts.h_min, opts.h_max];
        check_step_options("DOP853", opts.rtol, opts.atol, steps, opts.span)?;
        let n = model.n_coords();
        let len = 2 * n;
        let mut y = Vec::with_capacity(len);
        y.extend_from_slice(&state.q);
        y.extend_from_slice(&state.v);
        let solver = StateSolver::new(&model, LinearSolverKind::Auto);
        let mut me = Dop853 {
            n,
            t: state.t,
            h: opts.h0,
            f: vec![0.0; len],
            lambda: vec![0.0; model.n_constraints()],
            k: vec![0.0; STAGES_DENSE * len],
            ytmp: vec![0.0; len],
            y1: vec![0.0; len],
            t_old: state.t,
            h_old: 0.0,
            land: Landing::default(),
            y_old: y.clone(),
            cont: vec![0.0; 7 * len],
            cont_ready: false,
            last_rejected: false,
            err: 0.0,
            step: 0,
            stiff_count: 0,
            non_stiff_count: 0,
            stiff_at: None,
            floor: ErrorFloor::default(),
            stats: Stats::default(),
            y,
            model,
            solver,
            opts,
        };
        me.current_slope()?;
        if !(me.h > 0.0) {
            me.h = me.initial_step()?;
        }
        Ok(me)
    }

    /// `f` and `λ` of the current state; an error when they are not finite.
    fn current_slope(&mut self) -> Result<(), SolveError> {
        let ok = slope(
            &self.model,
            &mut self.solver,
            &mut self.stats,
            self.t,
            &self.y,
            &mut self.f,
            Some(&mut self.lambda),
        )
        .map_err(|e| self.singular(e, self.t))?;
        if ok {
            return Ok(());
        }
        let (q, v) = self.y.split_at(self.n);
        let zeros = vec![0.0; self.n.max(self.lambda.len())];
        let pt = crate::assembly::Point {
            t: self.t,
            q,
            v,
            a: &zeros[..self.n],
            lambda: &zeros[..self.lambda.len()],
        };
        let finite = self.y.iter().all(|x| x.is_finite());
        let detail = match crate::assembly::locate_non_finite(&self.model, &pt).filter(|_| finite) {
            Some(e) => format!(": {e} is not finite at a finite state"),
            None => ": the state diverged".into(),
        };
        Err(SolveError::NonFinite {
            t: self.t,
            step: self.step,
            what: "accelerations",
            detail,
        })
    }

    /// A failed solve at `t` as a step error.
    fn singular(&self, e: Error, t: f64) -> SolveError {
        match e {
            Error::Solve(s) => s,
            other => SolveError::singular(t, self.step + 1, "", other),
        }
    }

    /// The first step from the derivatives at the start (Hairer, Nørsett & Wanner I, §II.4):
    /// `h₀ = 0.01‖y‖/‖f‖`, then `h₁ = (0.01/max(‖f‖, ‖f(y + h₀f) − f‖/h₀))^(1/8)`, and
    /// `min(100 h₀, h₁)`.
    fn initial_step(&mut self) -> Result<f64, SolveError> {
        let len = self.y.len();
        let (rtol, atol) = (self.opts.rtol, self.opts.atol);
        let rms = |x: &mut dyn Iterator<Item = f64>| {
            (x.map(|v| v * v).sum::<f64>() / len.max(1) as f64).sqrt()
        };
        let zero = zero_weight(atol, rtol, self.y.iter().copied());
        let sk = |yi: f64| weight(atol, rtol, yi, zero);
        let d0 = rms(&mut self.y.iter().map(|&y| y / sk(y)));
        let d1 = rms(&mut self.y.iter().zip(&self.f).map(|(&y, f)| f / sk(y)));
        let mut h0 = if d0 < 1e-5 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        };
        if self.opts.h_max > 0.0 {
            h0 = h0.min(self.opts.h_max);
        }
        combine(&mut self.ytmp, &self.y, h0, &[1.0], &self.f, 1);
        let ok = slope(
            &self.model,
            &mut self.solver,
            &mut self.stats,
            self.t + h0,
            &self.ytmp,
            &mut self.k[..len],
            None,
        )
        .map_err(|e| self.singular(e, self.t))?;
        if !ok {
            return Ok(h0 * 1e-3);
        }
        // (from rest at the origin, with `atol = 0`, the size after `h0` stands in)
        let zero = zero_weight(atol, rtol, self.y.iter().chain(&self.ytmp).copied());
        let sk = |yi: f64| weight(atol, rtol, yi, zero);
        let d2 = rms(&mut (0..len).map(|i| (self.k[i] - self.f[i]) / sk(self.y[i]))) / h0;
        let h1 = if d1.max(d2) <= 1e-15 {
            (h0 * 1e-3).max(1e-6)
        } else {
            (0.01 / d1.max(d2)).powf(1.0 / 8.0)
        };
        let mut h = (100.0 * h0).min(h1);
        if self.opts.h_max > 0.0 {
            h = h.min(self.opts.h_max);
        }
        Ok(h)
    }

    /// The smallest step allowed at the current time.
    fn h_min(&self) -> f64 {
        smallest_step(self.opts.h_min, self.t, self.h_old)
    }

    /// The stages of one attempt of size `h` from the current state, the new solution into `y1`
    /// and its slope into `k₁₂`. `Ok(false)` when a stage met non-finite forces.
    fn stages(&mut self, h: f64) -> Result<bool, SolveError> {
        let len = self.y.len();
        self.k[..len].copy_from_slice(&self.f);
        for s in 1..=STAGES {
            let out = if s == STAGES {
                &mut self.y1
            } else {
                &mut self.ytmp
            };
            combine(out, &self.y, h, &A[s], &self.k, s);
            let after = &mut self.k[s * len..];
            let state = if s == STAGES { &self.y1 } else { &self.ytmp };
            let ok = slope(
                &self.model,
                &mut self.solver,
                &mut self.stats,
                self.t + C[s] * h,
                state,
                &mut after[..len],
                None,
            )
            .map_err(|e| self.singular(e, self.t + C[s] * h))?;
            if !ok {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The error estimate of the attempt in `k`, `y1` (units of the tolerance).
    fn error(&self, h: f64) -> f64 {
        let len = self.y.len();
        let (rtol, atol) = (self.opts.rtol, self.opts.atol);
        let (mut e5, mut e3) = (0.0, 0.0);
        let zero = zero_weight(atol, rtol, self.y.iter().chain(&self.y1).copied());
        for i in 0..len {
            let sk = weight(atol, rtol, self.y[i].abs().max(self.y1[i].abs()), zero);
            let (mut a, mut b) = (0.0, 0.0);
            for j in 0..STAGES {
                let kj = self.k[j * len + i];
                a += E5[j] * kj;
                b += E3[j] * kj;
            }
            e5 += (a / sk) * (a / sk);
            e3 += (b / sk) * (b / sk);
        }
        if e5 == 0.0 && e3 == 0.0 {
            return 0.0;
        }
        // per unit step: `h·e/(h/span)`
        let scale = if self.opts.span > 0.0 {
            self.opts.span
        } else {
            h.abs()
        };
        scale * e5 / ((e5 + 0.01 * e3) * len as f64).sqrt()
    }

    /// The error estimate `err` (per unit step) of an attempt of size `h` as the error of that
    /// one step (infinite when the tolerance is already per step).
    fn per_step_error(&self, h: f64, err: f64) -> f64 {
        if self.opts.span > 0.0 {
            err * h.abs() / self.opts.span
        } else {
            f64::INFINITY
        }
    }

    /// The exponent of the step-size rule: the error estimate goes as `h⁸`, per unit step as
    /// `h⁷`.
    fn exponent(&self) -> f64 {
        if self.opts.span > 0.0 {
            1.0 / 7.0
        } else {
            1.0 / 8.0
        }
    }

    /// `h·|λ| ≈ h‖k₁₂ − k₁₁‖/‖y₁ − Y₁₁‖` of the attempt of size `h` (0 when the stages
    /// coincide).
    fn h_lambda(&self, h: f64) -> f64 {
        let len = self.y.len();
        let (mut num, mut den) = (0.0, 0.0);
        for i in 0..len {
            let dk = self.k[STAGES * len + i] - self.k[(STAGES - 1) * len + i];
            let dy = self.y1[i] - self.ytmp[i];
            num += dk * dk;
            den += dy * dy;
        }
        if den > 0.0 {
            h.abs() * (num / den).sqrt()
        } else {
            0.0
        }
    }

    /// Hairer's stiffness test on the accepted attempt's `h·|λ|` against the stability
    /// boundary.
    fn stiffness_test(&mut self, h_lambda: f64) {
        if h_lambda > STIFF_BOUNDARY {
            self.non_stiff_count = 0;
            self.stiff_count += 1;
            if self.stiff_count == 15 && self.stiff_at.is_none() {
                self.stiff_at = Some(self.t);
            }
        } else {
            self.non_stiff_count += 1;
            if self.non_stiff_count == 6 {
                self.stiff_count = 0;
            }
        }
    }

    /// Take the accepted attempt of size `h`: the new state (projected onto the constraints)
    /// and its slope.
    fn accept(&mut self, h: f64, h_lambda: f64) -> Result<(), SolveError> {
        self.stiffness_test(h_lambda);
        std::mem::swap(&mut self.y_old, &mut self.y);
        self.y.copy_from_slice(&self.y1);
        self.t_old = self.t;
        self.h_old = h;
        self.cont_ready = false;
        self.t = self.land.after(self.t_old, h);
        self.step += 1;
        self.stats.steps = self.step;
        if self.lambda.is_empty() {
            let len = self.y.len();
            self.f
                .copy_from_slice(&self.k[STAGES * len..(STAGES + 1) * len]);
            return Ok(());
        }
        let (q, v) = self.y.split_at_mut(self.n);
        self.stats.factorizations += self.solver.project_state(&self.model, self.t, q, v)?;
        self.current_slope()
    }

    /// The continuous extension of the last accepted step (three more stages), once.
    fn prepare_dense(&mut self) -> Result<(), SolveError> {
        if self.cont_ready || self.step == 0 {
            return Ok(());
        }
        let len = self.y.len();
        let h = self.h_old;
        for s in STAGES + 1..STAGES_DENSE {
            combine(&mut self.ytmp, &self.y_old, h, &A[s], &self.k, s);
            let t = self.t_old + C[s] * h;
            let (_, after) = self.k.split_at_mut(s * len);
            let ok = slope(
                &self.model,
                &mut self.solver,
                &mut self.stats,
                t,
                &self.ytmp,
                &mut after[..len],
                None,
            )
            .map_err(|e| self.singular(e, t))?;
            if !ok {
                return Err(SolveError::NonFinite {
                    t,
                    step: self.step,
                    what: "accelerations of the output between steps",
                    detail: String::new(),
                });
            }
        }
        let (k0, k12) = (&self.k[..len], &self.k[STAGES * len..(STAGES + 1) * len]);
        for i in 0..len {
            let dy = self.y1[i] - self.y_old[i];
            self.cont[i] = dy;
            self.cont[len + i] = h * k0[i] - dy;
            self.cont[2 * len + i] = 2.0 * dy - h * (k12[i] + k0[i]);
            for (r, d) in D.iter().enumerate() {
                let mut s = 0.0;
                for (j, &dj) in d.iter().enumerate() {
                    if dj != 0.0 {
                        s += dj * self.k[j * len + i];
                    }
                }
                self.cont[(3 + r) * len + i] = h * s;
            }
        }
        self.cont_ready = true;
        Ok(())
    }

    /// One attempt.
    fn attempt(&mut self) -> Result<StepOutcome, SolveError> {
        let mut h = self.h;
        if self.opts.h_max > 0.0 {
            h = h.min(self.opts.h_max);
        }
        if h < self.h_min() {
            return Err(SolveError::StepTooSmall {
                method: "dop853",
                t: self.t,
                h,
                error: self.err,
            });
        }
        if !self.stages(h)? {
            // non-finite forces inside the step: a smaller step
            self.err = f64::INFINITY;
            self.h = h / 4.0;
            self.stats.rejected_steps += 1;
            self.last_rejected = true;
            return Ok(StepOutcome::Rejected);
        }
        let err = self.error(h);
        self.err = err;
        let fac11 = err.powf(self.exponent());
        // the error per unit step does not fall with the step (a jump in the forces, or their
        // rounding): the attempt is judged per step, as Hairer's codes judge every step
        let per_step = err > 1.0
            && self.per_step_error(h, err) <= 1.0
            && self.floor.unresponsive(h, err, 1.0 / self.exponent());
        let h_lambda = if err <= 1.0 || per_step {
            self.h_lambda(h)
        } else {
            0.0
        };
        if (err <= 1.0 || per_step) && h_lambda > 100.0 * STIFF_BOUNDARY {
            // far past the stability boundary: a fast mode not yet excited let the error test
            // pass, and the step amplified it `(hλ)⁸`-fold — refused, the next attempt at the
            // boundary (or Radau IIA, for a run left to the tolerance)
            self.stiff_at.get_or_insert(self.t);
            self.h = h * STIFF_BOUNDARY / h_lambda;
            self.stats.rejected_steps += 1;
            self.last_rejected = true;
            self.floor.count_rejection();
            return Ok(StepOutcome::Rejected);
        }
        if err <= 1.0 {
            let mut h_new = h / (fac11 / 0.9).clamp(1.0 / 6.0, 3.0);
            if self.last_rejected {
                h_new = h_new.min(h);
            }
            self.accept(h, h_lambda)?;
            self.h = h_new;
            self.last_rejected = false;
            self.floor.accepted();
            Ok(StepOutcome::Accepted)
        } else if per_step {
            let h_from = self.floor.last_rejected().unwrap_or(h);
            if self.floor.accepted_per_step() {
                self.at_floor(h_from, h, err)?;
            }
            // (no stiffness test: the stages straddle the jump)
            self.accept(h, 0.0)?;
            self.h = h;
            self.last_rejected = false;
            Ok(StepOutcome::Accepted)
        } else {
            if let Some((h_from, _)) = self.floor.rejected(h, err) {
                self.at_floor(h_from, h, err)?;
            }
            if self.floor.struggled() {
                self.stiff_at.get_or_insert(self.t);
            }
            let attempts = self.floor.struggling_attempts();
            if !self.opts.switch_when_stiff && attempts >= STRUGGLING_REFUSED {
                return Err(SolveError::Struggling {
                    method: "dop853",
                    t: self.t,
                    attempts,
                    h,
                });
            }
            let shrink = if err.is_finite() {
                (fac11 / 0.9).min(3.0)
            } else {
                3.0
            };
            self.h = h / shrink;
            self.stats.rejected_steps += 1;
            self.last_rejected = true;
            Ok(StepOutcome::Rejected)
        }
    }

    /// The error estimate is the forces' rounding (shown from the step `h_from` down to `h`,
    /// error `err`): a DOP853 the user named stops with [`SolveError::ErrorFloor`]; one left
    /// to the tolerance goes on with Radau IIA from here (the run loop's `switch`).
    fn at_floor(&mut self, h_from: f64, h: f64, err: f64) -> Result<(), SolveError> {
        if !self.opts.switch_when_stiff {
            return Err(SolveError::ErrorFloor {
                method: "dop853",
                t: self.t,
                h_from,
                h,
                error: err,
            });
        }
        self.stiff_at.get_or_insert(self.t);
        Ok(())
    }

    /// Where stiffness was detected (the time of the 15th stiff step), if it was.
    pub fn stiff_at(&self) -> Option<f64> {
        self.stiff_at
    }
}

impl Integrator for Dop853 {
    fn method(&self) -> &'static str {
        "dop853"
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
            q: &self.y[..self.n],
            v: &self.y[self.n..],
            qdd: &self.f[self.n..],
            lambda: &self.lambda,
        }
    }
    fn stats(&self) -> &Stats {
        &self.stats
    }
    /// The continuous extension of order 7 over the last accepted step:
    /// `y(t₀ + θh) = y₀ + θ(F₀ + (1−θ)(F₁ + θ(F₂ + (1−θ)(F₃ + θ(F₄ + (1−θ)(F₅ + θF₆))))))`.
    fn interpolate(&mut self, t: f64, q: &mut [f64], v: &mut [f64]) -> Result<bool, SolveError> {
        if self.step == 0 {
            return Ok(false);
        }
        self.prepare_dense()?;
        let len = self.y.len();
        let x = ((t - self.t_old) / self.h_old).clamp(0.0, 1.0);
        let c = &self.cont;
        for i in 0..len {
            let mut s = c[6 * len + i] * x;
            s = (s + c[5 * len + i]) * (1.0 - x);
            s = (s + c[4 * len + i]) * x;
            s = (s + c[3 * len + i]) * (1.0 - x);
            s = (s + c[2 * len + i]) * x;
            s = (s + c[len + i]) * (1.0 - x);
            s = (s + c[i]) * x;
            let y = self.y_old[i] + s;
            if i < self.n {
                q[i] = y;
            } else {
                v[i - self.n] = y;
            }
        }
        Ok(true)
    }
    fn switch(&self) -> Option<(Method, &'static str)> {
        let switch = self.opts.switch_when_stiff && self.stiff_at.is_some();
        let why = "stiff: DOP853's steps were held down by stability";
        switch.then(|| (Method::Radau(self.opts.radau(self.h)), why))
    }
    fn advice(&self) -> Option<String> {
        self.stiff_at.map(|t| {
            format!(
                "DOP853 found the mechanism stiff from t = {t:.6}: its steps are held down by \
                 stability, not accuracy; Radau IIA (--integrator radau) or generalized-α \
                 (--integrator genalpha) take far fewer"
            )
        })
    }
}
