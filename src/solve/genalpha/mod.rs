//! Generalized-α for the index-3 Euler–Lagrange DAE (Arnold–Brüls algorithm, Chung–Hulbert
//! parameters), with the `βh²` scaling that keeps the iteration matrix well conditioned.
//!
//! From `ρ∞ ∈ [0, 1)`: `α_m = (2ρ∞−1)/(ρ∞+1)`, `α_f = ρ∞/(ρ∞+1)`, `γ = ½ + α_f − α_m`,
//! `β = ¼(γ+½)²`. One step from `(q, v, q̈, a, λ)`:
//!
//! ```text
//! q₊ = q + h v + h²(½−β) a + h² β a₊          (1−α_m) a₊ + α_m a = (1−α_f) q̈₊ + α_f q̈
//! v₊ = v + h(1−γ) a + h γ a₊                   r(t₊, q₊, v₊, q̈₊, λ₊) = 0,  C(t₊, q₊) = 0
//! ```
//!
//! Newton runs on `(q₊, λ̃₊)` with `λ̃ = βh² λ`, `Δv = γ/(βh) Δq`, `Δq̈ = β' Δq`,
//! `β' = (1−α_m)/(βh²(1−α_f))`, on the scaled system
//!
//! ```text
//! [ M (1−α_m)/(1−α_f) + γh ∂r/∂v + βh² ∂r/∂q + ∂(C_qᵀλ̃)/∂q    C_qᵀ ] [Δq ]   [ βh² r + C_qᵀλ̃ ]
//! [ C_q                                                        0    ] [Δλ̃] = −[ C             ]
//! ```
//!
//! whose condition number does not grow as `h → 0`. Convergence is declared when every
//! constraint row satisfies `|C_k| ≤ tol·s_k` (`s_k = max(1, max_j |∂C_k/∂q_j|·|q_j|)`, so
//! `|C| ≤ tol` for constraints of unit size) and every dynamic row, divided by the diagonal of
//! the iteration matrix — an estimate of the remaining displacement — is below
//! `tol·(1 + |q_i|)`, and — after a modified-Newton iteration with a reused LU — the last
//! multiplier and acceleration increments are below `lambda_tol·(1 + max |λ|)` and
//! `lambda_tol·(1 + max |q̈|)`, after at least one Newton correction (the predicted `q̈₊` is an
//! extrapolation; accepting it unsolved lets its error propagate through `a`). The default
//! `tol = 1e-12` keeps the Newton error well below the discretization error even over 10⁴ steps.

use crate::assembly::{self, AssemblyCoefficients, Pattern, Point};
use crate::error::{Error, OptionError, SolveError};
use crate::model::{Model, State, StateView};
use crate::problem::{GenAlphaOptions, LinearSolverKind};
use crate::solve::Stats;
use crate::solve::adaptive::Controller;
use crate::solve::integrator::{Clock, END_MARGIN, Integrator, Landing, StepOutcome};
use crate::solve::linear::LinearSolver;
use crate::solve::par::{max_nan, par_each, par_max};
use std::sync::Arc;

mod control;
use control::check_step_control;

/// The tightest tolerance error-controlled generalized-α accepts: below it the controller met
/// round-off (measured: the pendulum at `tol = 3e-10` fell to `h_min`; benches/README.md).
pub const GENALPHA_TIGHTEST: f64 = 1e-9;

/// The generalized-α coefficients derived from `ρ∞`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenAlphaParams {
    /// `α_m`.
    pub alpha_m: f64,
    /// `α_f`.
    pub alpha_f: f64,
    /// `γ`.
    pub gamma: f64,
    /// `β`.
    pub beta: f64,
}

impl GenAlphaParams {
    /// Chung–Hulbert parameters.
    ///
    /// ```
    /// let p = lagrangian::solve::GenAlphaParams::from_rho_inf(1.0 / 3.0);
    /// assert!((p.alpha_m - (-0.25)).abs() < 1e-15 && (p.alpha_f - 0.25).abs() < 1e-15);
    /// assert!((p.gamma - 1.0).abs() < 1e-15 && (p.beta - 0.5625).abs() < 1e-15);
    /// ```
    pub fn from_rho_inf(rho: f64) -> Self {
        let alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
        let alpha_f = rho / (rho + 1.0);
        let gamma = 0.5 + alpha_f - alpha_m;
        let beta = 0.25 * (gamma + 0.5).powi(2);
        GenAlphaParams {
            alpha_m,
            alpha_f,
            gamma,
            beta,
        }
    }
}

/// A generalized-α time stepper over a [`Model`], holding its workspace.
pub struct GenAlpha {
    model: Arc<Model>,
    opts: GenAlphaOptions,
    p: GenAlphaParams,
    pattern: Pattern,
    lin: LinearSolver,
    /// The elementwise loops of a step may run on rayon's threads: the model's assembly does
    /// (`crate::solve::par`).
    par: bool,
    /// The time of a fixed step.
    clock: Clock,
    step: usize,
    /// Under error control: the end time the next step is aimed at.
    land: Landing,
    q: Vec<f64>,
    v: Vec<f64>,
    qdd: Vec<f64>,
    /// `q̈` of the previous step (for the predictor), valid once `step ≥ 1`.
    qdd_prev: Vec<f64>,
    a: Vec<f64>,
    lambda: Vec<f64>,
    /// `λ` of the previous step.
    lambda_prev: Vec<f64>,
    // workspace
    qn: Vec<f64>,
    vn: Vec<f64>,
    qddn: Vec<f64>,
    lam_t: Vec<f64>,
    res: Vec<f64>,
    values: Vec<f64>,
    /// Inverse weights of the dynamic rows (see [`GenAlpha::error`]).
    weight: Vec<f64>,
    /// Inverse weights of the constraint rows.
    con_weight: Vec<f64>,
    factor_valid: bool,
    stats: Stats,
    /// Error control (when `opts.step_control` is set): the controller, the time reached, the
    /// previous step's size (the predictor's too), `a₊` of the attempt, the step size of the
    /// factorized matrix, the last accepted step's error estimate.
    ctrl: Option<Controller>,
    t: f64,
    h_prev: f64,
    a_new: Vec<f64>,
    /// `a` as accepted (at the offset `δh₋` of the last step) and the `a` the last step used.
    a_acc: Vec<f64>,
    a_used: Vec<f64>,
    /// The second difference of `a` (≈ q⁗), projected onto the constraints' tangent space.
    d4: Vec<f64>,
    h_factor: f64,
    last_error: f64,
    /// The Newton error estimate (relative displacement) this step's attempt ended with, and
    /// the one of the last accepted step, times `β'` of their steps: the uncertainty of `a`.
    newton_err: f64,
    acc_noise_prev: f64,
    /// The velocity projection after each controlled step.
    proj: Option<crate::solve::StateSolver>,
}

impl GenAlpha {
    /// Prepare the stepper from a consistent `state` (see
    /// [`consistent_initial_values`](crate::solve::consistent_initial_values)); `a₀ = q̈₀`
    /// (under error control moved to `q̈₀ + δh q⃛₀` on the first step).
    pub fn new(
        model: impl Into<Arc<Model>>,
        state: &State,
        opts: GenAlphaOptions,
    ) -> Result<Self, Error> {
        let model: Arc<Model> = model.into();
        let (n, m) = (model.n, model.m);
        if !(opts.h > 0.0 && opts.h.is_finite()) {
            return Err(OptionError::invalid(
                "h",
                format!("step size h = {} must be positive", opts.h),
            )
            .into());
        }
        if !(0.0..1.0).contains(&opts.rho_inf) {
            return Err(OptionError::invalid(
                "rho_inf",
                format!(
                    "rho_inf = {} must lie in [0, 1) (1 is not stable for index 3)",
                    opts.rho_inf
                ),
            )
            .into());
        }
        if !(opts.newton_tol > 0.0) || opts.max_newton_iterations == 0 {
            return Err(OptionError::invalid(
                "newton_tol",
                "newton_tol and max_newton_iterations must be positive",
            )
            .into());
        }
        if let Some(c) = &opts.step_control {
            check_step_control(c)?;
        }
        if state.q.len() != n
            || state.v.len() != n
            || state.qdd.len() != n
            || state.lambda.len() != m
        {
            return Err(OptionError::invalid("state", format!(
                "state sizes (q {}, v {}, qdd {}, lambda {}) do not match the model (n = {n}, m = {m})",
                state.q.len(),
                state.v.len(),
                state.qdd.len(),
                state.lambda.len()
            ))
            .into());
        }
        let pattern = Pattern::new(&model);
        let lin = LinearSolver::new(opts.linear_solver, &pattern)
            .map_err(|s| SolveError::singular(state.t, 0, "", s.detail))?;
        let nnz = pattern.nnz();
        let p = GenAlphaParams::from_rho_inf(opts.rho_inf);
        let proj = (opts.step_control.is_some() && m > 0)
            .then(|| crate::solve::StateSolver::new(&model, opts.linear_solver));
        let par = !model.parallel_colors().is_empty();
        let mut g = GenAlpha {
            model,
            p,
            pattern,
            lin,
            par,
            clock: Clock::new(state.t),
            step: 0,
            land: Landing::default(),
            q: state.q.clone(),
            v: state.v.clone(),
            qdd: state.qdd.clone(),
            qdd_prev: state.qdd.clone(),
            a: state.qdd.clone(),
            lambda: state.lambda.clone(),
            lambda_prev: state.lambda.clone(),
            qn: vec![0.0; n],
            vn: vec![0.0; n],
            qddn: vec![0.0; n],
            lam_t: vec![0.0; m],
            res: vec![0.0; n + m],
            values: vec![0.0; nnz],
            weight: vec![1.0; n],
            con_weight: vec![1.0; m],
            factor_valid: false,
            stats: Stats::default(),
            ctrl: opts.step_control.map(|_| Controller::new()),
            t: state.t,
            h_prev: opts.h,
            a_new: state.qdd.clone(),
            a_acc: state.qdd.clone(),
            a_used: state.qdd.clone(),
            d4: vec![0.0; n],
            h_factor: opts.h,
            last_error: 0.0,
            newton_err: 0.0,
            acc_noise_prev: 0.0,
            proj,
            opts,
        };
        g.qn.clone_from(&g.q);
        g.vn.clone_from(&g.v);
        g.qddn.clone_from(&g.qdd);
        let bh2 = g.p.beta * g.opts.h * g.opts.h;
        for (lt, l) in g.lam_t.iter_mut().zip(&g.lambda) {
            *lt = bh2 * l;
        }
        if g.ctrl.is_some() {
            g.start_jerk(state)?;
        }
        g.assemble_matrix(state.t);
        Ok(g)
    }

    /// The generalized-α parameters in use.
    pub fn params(&self) -> GenAlphaParams {
        self.p
    }

    /// The error estimate of the last accepted step (error per unit step over the tolerance;
    /// 0 without error control).
    pub fn last_error(&self) -> f64 {
        self.last_error
    }

    /// Coefficients of the scaled iteration matrix.
    fn coefficients(&self) -> AssemblyCoefficients {
        let h = self.opts.h;
        let GenAlphaParams {
            alpha_m,
            alpha_f,
            gamma,
            beta,
        } = self.p;
        let bh2 = beta * h * h;
        AssemblyCoefficients {
            scale: bh2,
            mass: (1.0 - alpha_m) / (bh2 * (1.0 - alpha_f)),
            damping: gamma / (beta * h),
            stiffness: 1.0,
            stiffness_lambda: 1.0,
        }
    }

    /// Assemble the iteration matrix at the current iterate (into `values`, residual into `res`)
    /// and refresh the convergence weights from its diagonal.
    fn assemble_matrix(&mut self, t: f64) {
        self.h_factor = self.opts.h;
        let k = self.coefficients();
        let pt = Point {
            t,
            q: &self.qn,
            v: &self.vn,
            a: &self.qddn,
            lambda: &self.lam_t,
        };
        assembly::residual_and_matrix(
            &self.model,
            &self.pattern,
            &pt,
            &k,
            &mut self.res,
            &mut self.values,
        );
        self.stats.jacobian_evaluations += 1;
        for (w, s) in self.weight.iter_mut().zip(&self.pattern.diag_slots) {
            let d = s.map_or(0.0, |s| self.values[s].abs());
            *w = if d.is_finite() { d } else { 0.0 };
        }
        // A coordinate without mass (one only constraints involve: a joint's angle) has a
        // diagonal of round-off size (`∂(C_qᵀλ̃)/∂q`), and its residual is `C_qᵀλ̃`: measured
        // against the constraint entries of its row (columns n.., rows sorted: they come first)
        // instead, its remaining error is that of the multipliers, not a displacement over
        // round-off.
        let n = self.qn.len();
        for j in n..self.pattern.dim {
            for s in self.pattern.col_ptr[j]..self.pattern.col_ptr[j + 1] {
                let row = self.pattern.row_idx[s];
                if row >= n {
                    break;
                }
                let c = self.values[s].abs();
                if c.is_finite() && self.weight[row] < 1e-8 * c {
                    self.weight[row] = c;
                }
            }
        }
        for (w, q) in self.weight.iter_mut().zip(&self.qn) {
            let d = if *w > 0.0 { *w } else { 1.0 };
            *w = 1.0 / (d * (1.0 + q.abs()));
        }
        // constraint rows: relative to the size of the terms of C, max_j |∂C_k/∂q_j|·max(1, |q_j|).
        // Rows n + k of the first n columns hold exactly C_q, and rows are sorted within a column,
        // so they come last: walk each column backwards until a dynamic row.
        self.con_weight.fill(1.0);
        if self.con_weight.is_empty() {
            return;
        }
        for (j, q) in self.qn.iter().enumerate() {
            let scale = q.abs().max(1.0);
            for s in (self.pattern.col_ptr[j]..self.pattern.col_ptr[j + 1]).rev() {
                let row = self.pattern.row_idx[s];
                if row < n {
                    break;
                }
                let x = self.values[s].abs() * scale;
                let w = &mut self.con_weight[row - n];
                if x.is_finite() && x * *w > 1.0 {
                    *w = 1.0 / x;
                }
            }
        }
    }

    /// Why the residual at the current iterate is not finite: the state diverged (a smaller
    /// step may help), or an element is undefined at a finite state (named).
    fn non_finite_detail(&self, t: f64) -> String {
        let state = [&self.qn, &self.vn, &self.qddn, &self.lam_t];
        if state.iter().any(|x| x.iter().any(|v| !v.is_finite())) {
            return ": the state diverged; try a smaller step size".into();
        }
        let pt = Point {
            t,
            q: &self.qn,
            v: &self.vn,
            a: &self.qddn,
            lambda: &self.lam_t,
        };
        match assembly::locate_non_finite(&self.model, &pt) {
            Some(e) => format!(
                ": {e} is not finite at a finite state (an expression undefined there, e.g. \
                 the square root of a negative number or a division by zero)"
            ),
            None => String::new(),
        }
    }

    fn residual(&mut self, t: f64) {
        let pt = Point {
            t,
            q: &self.qn,
            v: &self.vn,
            a: &self.qddn,
            lambda: &self.lam_t,
        };
        assembly::residual(
            &self.model,
            &pt,
            self.p.beta * self.opts.h * self.opts.h,
            &mut self.res,
        );
        self.stats.residual_evaluations += 1;
    }

    /// Weighted error of the current residual: `max(max_i |res_i|/w_i, max_k |C_k|/s_k)` with
    /// `w_i = |S_ii|(1 + |q_i|)` (a relative displacement estimate) and `s_k` the size of the
    /// terms of `C_k` (1 for constraints of unit size).
    fn error(&self) -> f64 {
        let n = self.model.n;
        let e = par_max!(self.par; x = &self.res[..n], w = &self.weight[..]; {
            x.iter().zip(w).fold(0.0f64, |e, (x, w)| max_nan(e, (x * w).abs()))
        });
        let c = (self.res[n..].iter().zip(&self.con_weight))
            .fold(0.0f64, |e, (x, w)| max_nan(e, (x * w).abs()));
        max_nan(e, c)
    }

    /// One attempt: the error-controlled step, or the fixed step.
    fn step_on_this_thread(&mut self) -> Result<StepOutcome, SolveError> {
        match self.ctrl {
            Some(_) => self.controlled_step(),
            None => self.advance().map(|()| StepOutcome::Accepted),
        }
    }

    /// Advance one step of size `h`: predict, correct by Newton, accept.
    fn advance(&mut self) -> Result<(), SolveError> {
        let step = self.step + 1;
        let t1 = self.clock.at(step, self.opts.h);
        self.predict();
        let iterations = self.newton(t1, step)?;
        self.stats.newton_iterations += iterations;
        self.accept(step);
        Ok(())
    }

    /// Predictor: `q̈₊` and `λ₊` extrapolated linearly from the last two steps (constant on the
    /// first step), so the predicted `q₊` is `O(h⁴)` off and Newton usually needs one iteration.
    fn predict(&mut self) {
        let h = self.opts.h;
        let GenAlphaParams {
            alpha_m,
            alpha_f,
            gamma,
            beta,
        } = self.p;
        let c = (1.0 - alpha_f) / (1.0 - alpha_m);
        let bh2 = beta * h * h;
        let w = if self.step == 0 { 0.0 } else { h / self.h_prev };
        let inv_1m = 1.0 / (1.0 - alpha_m);
        let (h1g, hg, hh) = (h * (1.0 - gamma), h * gamma, h * h * (0.5 - beta));
        par_each!(
            self.par;
            qn = &mut self.qn[..], vn = &mut self.vn[..], qddn = &mut self.qddn[..],
            q = &self.q[..], v = &self.v[..], qdd = &self.qdd[..], qdd_prev = &self.qdd_prev[..],
            a = &self.a[..];
            {
                for (((((qn, vn), qddn), (q, v)), (qdd, qdd_prev)), a) in qn
                    .iter_mut()
                    .zip(vn.iter_mut())
                    .zip(qddn.iter_mut())
                    .zip(q.iter().zip(v))
                    .zip(qdd.iter().zip(qdd_prev))
                    .zip(a)
                {
                    let astar = (alpha_f * qdd - alpha_m * a) * inv_1m;
                    let pred = qdd + w * (qdd - qdd_prev);
                    let an = astar + c * pred;
                    *qddn = pred;
                    *vn = v + h1g * a + hg * an;
                    *qn = q + h * v + hh * a + bh2 * an;
                }
            }
        );
        for ((lt, l), lp) in self
            .lam_t
            .iter_mut()
            .zip(&self.lambda)
            .zip(&self.lambda_prev)
        {
            *lt = bh2 * (l + w * (l - lp));
        }
    }

    /// Newton's method on the step's unknowns from the predicted point; the number of
    /// iterations.
    fn newton(&mut self, t1: f64, step: usize) -> Result<usize, SolveError> {
        let bh2 = self.p.beta * self.opts.h * self.opts.h;
        let tol = self.opts.newton_tol;
        let mut it = NewtonState {
            err_prev: f64::INFINITY,
            iterations: 0,
            fresh_this_step: false,
            lam_inc: 0.0,
            last_fresh: false,
            fresh_run: 0,
            acc_inc: 0.0,
            dq_max: 0.0,
        };
        loop {
            self.residual(t1);
            let err = self.error();
            if !err.is_finite() {
                return Err(SolveError::NonFinite {
                    t: t1,
                    step,
                    what: "residual",
                    detail: self.non_finite_detail(t1),
                });
            }
            // At least one correction: the predicted q̈₊ is an extrapolation, and a small
            // displacement residual does not bound its error (which would propagate through a).
            let lam_max = self.lam_t.iter().fold(0.0f64, |a, x| a.max(x.abs())) / bh2;
            // after a full Newton step (fresh matrix) the multiplier error is quadratic in its
            // increment; after a modified one it is of the size of the increment
            let lam_ok = it.last_fresh || it.lam_inc <= self.opts.lambda_tol * (1.0 + lam_max);
            // the same for the accelerations: q̈₊ = … + β'Δq amplifies an error left in q by
            // 1/(βh²), and through `a` it reaches the next steps. Not on the Jacobi path (large
            // unconstrained networks, diagonally dominant matrices): there the displacement
            // estimate is accurate, and the test would double the iterations (docs/maths.md §4).
            // An increment of `q` at its round-off is all there is to gain, whatever it makes
            // of q̈ (`β'` is 1/(βh²): 3·10⁸ at h = 10⁻⁴, so round-off in `q` moves q̈ by 10⁻⁷).
            let acc_ok = it.last_fresh || self.lin.is_approximate() || {
                let acc_max = par_max!(self.par; x = &self.qddn[..]; {
                    x.iter().fold(0.0f64, |a, x| a.max(x.abs()))
                });
                it.acc_inc <= self.opts.lambda_tol * (1.0 + acc_max) || {
                    let q_max = par_max!(self.par; x = &self.qn[..]; {
                        x.iter().fold(0.0f64, |a, x| a.max(x.abs()))
                    });
                    it.dq_max <= 4.0 * f64::EPSILON * (1.0 + q_max)
                }
            };
            if err <= tol && it.iterations > 0 && lam_ok && acc_ok {
                self.newton_err = err;
                return Ok(it.iterations);
            }
            let diverged = SolveError::NewtonDiverged {
                t: t1,
                step,
                h: self.opts.h,
                iterations: it.iterations,
                residual: err,
            };
            if it.iterations >= self.opts.max_newton_iterations {
                return Err(diverged);
            }
            let theta = err / it.err_prev;
            self.refresh_matrix(t1, step, theta, &mut it)?;
            // A fresh Newton matrix that keeps failing to reduce the residual: give up early.
            if it.fresh_run >= 4 {
                return Err(diverged);
            }
            self.correct(t1, step, &mut it)?;
            it.iterations += 1;
            it.err_prev = err;
        }
    }

    /// Assemble and factorize the Newton matrix when it is stale (or reuse is off), switching
    /// from the diagonal approximation to the sparse LU when the diagonal contracts poorly.
    fn refresh_matrix(
        &mut self,
        t1: f64,
        step: usize,
        theta: f64,
        it: &mut NewtonState,
    ) -> Result<(), SolveError> {
        let singular =
            |s: crate::solve::linear::Singular| SolveError::singular(t1, step, "", s.detail);
        if self.lin.is_approximate() && it.fresh_this_step && theta > self.opts.reuse_contraction {
            // the diagonal approximation contracts poorly even when fresh: use the LU for good
            self.lin =
                LinearSolver::new(LinearSolverKind::Sparse, &self.pattern).map_err(singular)?;
            self.factor_valid = false;
            self.stats.solver_switches += 1;
        }
        let approx = self.lin.is_approximate();
        let drifted = (self.opts.h / self.h_factor - 1.0).abs() > 0.2;
        let need = !self.opts.reuse_factorization
            || !self.factor_valid
            || drifted
            || theta > self.opts.reuse_contraction;
        it.last_fresh = need && !approx;
        if !need {
            return Ok(());
        }
        self.assemble_matrix(t1);
        it.fresh_this_step = true;
        if let Err(s) = self.lin.factorize(&self.pattern, &self.values) {
            if !approx {
                return Err(singular(s));
            }
            // a zero diagonal: fall back to the LU
            self.lin =
                LinearSolver::new(LinearSolverKind::Sparse, &self.pattern).map_err(singular)?;
            self.stats.solver_switches += 1;
            self.lin
                .factorize(&self.pattern, &self.values)
                .map_err(singular)?;
        }
        self.stats.factorizations += 1;
        self.factor_valid = true;
        if theta >= 1.0 {
            it.fresh_run += 1;
        } else {
            it.fresh_run = 0;
        }
        Ok(())
    }

    /// Solve for the Newton increment and apply it to `q₊`, `v₊`, `q̈₊` and `λ₊`.
    fn correct(&mut self, t1: f64, step: usize, it: &mut NewtonState) -> Result<(), SolveError> {
        let n = self.model.n;
        let GenAlphaParams {
            alpha_m,
            alpha_f,
            gamma,
            beta,
        } = self.p;
        let h = self.opts.h;
        let bh2 = beta * h * h;
        let gp = gamma / (beta * h);
        let bp = (1.0 - alpha_m) / (bh2 * (1.0 - alpha_f));
        // `res ← J⁻¹ r`, and the increment is `−res`: a linear solve commutes exactly with the
        // sign (rounding is symmetric), so this is the solve of `−r` without a pass to negate
        self.lin
            .solve_with(&mut self.res, self.par)
            .map_err(|s| SolveError::singular(t1, step, "", s.detail))?;
        let dq_max = par_max!(
            self.par;
            dq = &self.res[..n], qn = &mut self.qn[..], vn = &mut self.vn[..],
            qddn = &mut self.qddn[..];
            {
                let mut e = 0.0f64;
                for (((dq, qn), vn), qddn) in dq.iter().zip(qn).zip(vn).zip(qddn) {
                    *qn -= dq;
                    *vn -= gp * dq;
                    *qddn -= bp * dq;
                    e = e.max(dq.abs());
                }
                e
            }
        );
        it.acc_inc = bp * dq_max;
        it.dq_max = dq_max;
        let mut lam_inc = 0.0f64;
        for (lt, d) in self.lam_t.iter_mut().zip(&self.res[n..]) {
            *lt -= d;
            lam_inc = lam_inc.max(d.abs());
        }
        it.lam_inc = lam_inc / bh2;
        Ok(())
    }

    /// Accept the step: update `a`, rotate the state buffers, unscale `λ`.
    fn accept(&mut self, step: usize) {
        let GenAlphaParams {
            alpha_m,
            alpha_f,
            beta,
            ..
        } = self.p;
        let h = self.opts.h;
        let bh2 = beta * h * h;
        let c = (1.0 - alpha_f) / (1.0 - alpha_m);
        let inv_1m = 1.0 / (1.0 - alpha_m);
        self.h_prev = h;
        if self.ctrl.is_some() {
            self.t = self.land.after(self.t, h);
            self.a_used.copy_from_slice(&self.a);
        }
        par_each!(self.par; a = &mut self.a[..], qdd = &self.qdd[..], qddn = &self.qddn[..]; {
            for ((a, qdd), qddn) in a.iter_mut().zip(qdd).zip(qddn) {
                let astar = (alpha_f * qdd - alpha_m * *a) * inv_1m;
                *a = astar + c * qddn;
            }
        });
        if self.ctrl.is_some() {
            self.a_acc.copy_from_slice(&self.a);
        }
        std::mem::swap(&mut self.q, &mut self.qn);
        std::mem::swap(&mut self.v, &mut self.vn);
        std::mem::swap(&mut self.qdd_prev, &mut self.qddn);
        std::mem::swap(&mut self.qdd, &mut self.qdd_prev);
        std::mem::swap(&mut self.lambda_prev, &mut self.lambda);
        for (l, lt) in self.lambda.iter_mut().zip(&self.lam_t) {
            *l = lt / bh2;
        }
        self.step = step;
        self.stats.steps = step;
    }
}

/// The bookkeeping of one step's Newton iteration.
struct NewtonState {
    err_prev: f64,
    iterations: usize,
    /// A matrix was assembled during this step.
    fresh_this_step: bool,
    /// Last multiplier increment (unscaled).
    lam_inc: f64,
    /// The last solve used a matrix assembled at its iterate.
    last_fresh: bool,
    /// Consecutive iterations with a fresh matrix and no contraction.
    fresh_run: usize,
    /// Last acceleration increment `β'|Δq|`.
    acc_inc: f64,
    /// Last displacement increment `|Δq|`.
    dq_max: f64,
}

impl Integrator for GenAlpha {
    fn method(&self) -> &'static str {
        "generalized-alpha"
    }
    fn model(&self) -> &Arc<Model> {
        &self.model
    }
    fn t(&self) -> f64 {
        match self.ctrl {
            Some(_) => self.t,
            None => self.clock.at(self.step, self.opts.h),
        }
    }
    fn land_on(&mut self, t: f64) {
        let h = t - self.t();
        match self.ctrl {
            Some(_) => {
                self.set_h(h);
                self.land.aim(t, self.opts.h);
            }
            None => {
                // a step within rounding of the method's own is taken as it is (its
                // factorization stays)
                if h < self.opts.h * (1.0 - END_MARGIN) {
                    self.set_h(h);
                }
                self.clock.land(self.step, t);
            }
        }
    }
    fn h(&self) -> f64 {
        self.opts.h
    }
    fn step(&mut self) -> Result<StepOutcome, SolveError> {
        let outside_pool = rayon::current_thread_index().is_none();
        if self.par && outside_pool && rayon::current_num_threads() > 1 {
            // The whole step on one of rayon's threads: its parallel assembly and loops then
            // fork from a worker (a push on its own queue) instead of each being injected
            // from outside the pool, which wakes and waits for this thread every time (the
            // 90 × 90 cloth with AD kernels on two threads: 0.81–0.86 → 0.61–0.65 s).
            return rayon::scope(|_| self.step_on_this_thread());
        }
        self.step_on_this_thread()
    }
    fn set_h(&mut self, h: f64) {
        if self.ctrl.is_some() {
            // the factorization stays while it has not drifted (see `refresh_matrix`)
            if h > 0.0 && h.is_finite() {
                self.opts.h = h;
            }
            return;
        }
        if h != self.opts.h && h > 0.0 && h.is_finite() {
            // the iteration matrix depends on h: factorize afresh
            self.clock.rebase(self.step, self.opts.h);
            self.opts.h = h;
            self.factor_valid = false;
        }
    }
    fn view(&self) -> StateView<'_> {
        StateView {
            t: self.t(),
            q: &self.q,
            v: &self.v,
            qdd: &self.qdd,
            lambda: &self.lambda,
        }
    }
    fn stats(&self) -> &Stats {
        &self.stats
    }
}
