//! The Taylor-series method: at each step the motion's own Taylor series
//! `q(t + τ) = Σⱼ Qⱼ τʲ`, its coefficients order by order from the Euler–Lagrange equations
//! evaluated on series (Nedialkov & Pryce's DAETS computes its Taylor coefficients the same way,
//! through its code list; here every term a user writes, and every expression program of a
//! mechanism file, evaluates on [`Taylor`] numbers). A method of order `K` takes `q̇ = v`,
//! `v̇ = q̈` to order `K`: `Q₀ … Q_{K+1}`, so `v`'s series is of order `K` (and `q`'s of `K + 1`),
//! and the global error in both goes as `h^K`.
//!
//! With `E(t) = r(t, q, q̇, q̈) + C_qᵀλ` the residual of the equations of motion along the
//! series, its coefficient `k` depends on `Q_{k+2}` and `Λₖ` only through `M Q_{k+2} (k+1)(k+2)`
//! and `C_qᵀ Λₖ`, and coefficient `k + 2` of `C(t, q(t))` on `Q_{k+2}` only through
//! `C_q Q_{k+2}`. So each order is one solve with the matrix of the state's accelerations:
//!
//! ```text
//! [ M    C_qᵀ ] [ (k+1)(k+2) Q_{k+2} ]   [ −E⁰ₖ                 ]
//! [ C_q  0    ] [ Λₖ                 ] = [ −(k+1)(k+2) C⁰_{k+2} ]
//! ```
//!
//! (`E⁰`, `C⁰`: with the unknown coefficients zero), `k = 0` being the state's own `(q̈, λ)`
//! ([`StateSolver`]): one factorization per step. The residual and the constraints are
//! evaluated once per step, on [`TaylorVar`]s recorded on a [`SeriesTape`] — the incremental
//! evaluation of DAETS' code list: order `k` sweeps the tape for one more coefficient of every
//! operation (`O(k)` each, `O(K²)` per step), the solve gives `Q_{k+2}` and `Λₖ`, and only the
//! operations that read them are swept again (their coefficient `k` was computed with them
//! zero).
//!
//! The step follows the radius of convergence `ρ` the last four coefficients give
//! (`‖Qⱼ‖ ≈ s ρ⁻ʲ`, `s = max(1, ‖q‖∞)`; Jorba & Zou, Experiment. Math. 14, 2005, take two, which
//! a motion symmetric in time, with every other coefficient zero, defeats): each coordinate's
//! first term left out, `Aᵢ (h/ρ)^(K+2)` in `qᵢ` and `(K+2) (Aᵢ/ρ) (h/ρ)^(K+1)` in `vᵢ` with
//! `Aᵢ = max_j |Q_{j,i}| ρʲ`, is kept below its own weight `(atol + rtol|qᵢ|)·h/span`,
//! `(atol + rtol|vᵢ|)·h/span` (error per unit step, as DOP853 here: the local errors of a run add
//! up to at most the tolerance), and `h ≤ 0.8 ρ`. That bound presumes the motion analytic over
//! the step. Where it is not — `|x|`, `min`, `max`, a friction law's sign: the forces are
//! continuous but their derivatives jump, and every coefficient of one side's series is exact
//! while the step runs past the kink — the step is checked after it is taken: the old series'
//! acceleration at its end, `Σ j(j−1) Qⱼ hʲ⁻²`, against the new state's own. A kink crossed in
//! the step leaves a jump `Δa` there, and the step's error is `h·Δa` in `v` (`h²Δa/2` in `q`):
//! above the tolerance (and above `K + 1` times what the truncation of an analytic motion
//! leaves, so a smooth step always passes) the step is rejected and tried at a
//! quarter of its size, the steps after it growing at most twofold until one is taken whole, so
//! the method closes in on the kink and crosses it with a step as short as the tolerance needs.
//! After each step `q` and `v` are projected onto the constraints; between steps the series
//! itself is the dense output, of the method's order.

use crate::assembly::{self, TaylorPoint};
use crate::error::{Error, InitError, OptionError, SolveError};
use crate::expr::taylor::{SeriesTape, TaylorVar};
use crate::model::{Model, State, StateView};
use crate::problem::{LinearSolverKind, TaylorOptions};
use crate::solve::integrator::{
    Integrator, Landing, StepOutcome, check_step_options, smallest_step, weight, zero_weight,
};
use crate::solve::{StateSolver, Stats};
use std::sync::Arc;

/// The fraction of the step the error bound allows that the method takes.
const SAFETY: f64 = 0.9;

/// The largest step as a fraction of the series' radius of convergence.
const MAX_FRACTION: f64 = 0.8;

/// A Taylor-series stepper over a [`Model`] whose elements all evaluate on series (every
/// [`Term`](crate::model::Term), [`Constraint`](crate::model::Constraint) and expression of a
/// mechanism file, and the library's hand-derived kernels; not a load given as a Rust closure).
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::library::pendulum::angle_pendulum;
/// // a pendulum (g = ℓ = 1) released at 90° is back after its period 4K(sin 45°) = 7.4162987…
/// let period = 4.0 * 1.854_074_677_301_372;
/// let problem = Problem::new(angle_pendulum(1.0, 1.0, 1.0))
///     .guess(&[std::f64::consts::FRAC_PI_2], &[0.0])
///     .t_end(period);
/// let sol = simulate(&problem, TaylorOptions::new(1e-12, 20))?;
/// let end = &sol.last().state;
/// assert!((end.q[0] - std::f64::consts::FRAC_PI_2).abs() < 1e-11 && end.v[0].abs() < 1e-11);
/// assert!(sol.stats.steps < 60);
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub struct TaylorSeries {
    model: Arc<Model>,
    solver: StateSolver,
    opts: TaylorOptions,
    n: usize,
    m: usize,
    t: f64,
    /// The next step.
    h: f64,
    q: Vec<f64>,
    v: Vec<f64>,
    qdd: Vec<f64>,
    lambda: Vec<f64>,
    /// The current state's series: `Q₀ … Q_{K+1}` of each coordinate, one after the other.
    coef: Vec<f64>,
    /// `Λ₀ … Λ_{K−1}` of each multiplier, one after the other.
    lam_coef: Vec<f64>,
    /// The last step's series, start and size (the dense output).
    coef_old: Vec<f64>,
    t_old: f64,
    h_old: f64,
    /// The end time the next step is aimed at.
    land: Landing,
    /// The state's evaluation recorded, swept order by order.
    tape: SeriesTape,
    /// Its inputs (`t` first, then `q`, `v`, `a`, `λ`) and outputs (the residual, then `C`).
    ins: Vec<TaylorVar>,
    outs: Vec<TaylorVar>,
    /// The leads of the outputs and the unknowns of the inputs (see [`SeriesTape::prepare`]).
    leads: Vec<(TaylorVar, usize)>,
    unknowns: Vec<(TaylorVar, Option<usize>)>,
    rhs: Vec<f64>,
    /// The multipliers' series of the state before the step being tried (the state itself
    /// is the old series' first coefficients), and the landing it aimed at: what a rejected
    /// step gives back.
    lam_coef_old: Vec<f64>,
    land_old: Landing,
    /// After a rejection: the largest next step (twice the last one taken), until a step is
    /// taken whole.
    cap: f64,
    step: usize,
    stats: Stats,
}

impl TaylorSeries {
    /// A stepper from the consistent `state` of `model`. Refused: an order outside
    /// `2..=MAX_ORDER`, tolerances or steps out of range, an element without a form on series.
    pub fn new(
        model: impl Into<Arc<Model>>,
        state: &State,
        opts: TaylorOptions,
    ) -> Result<Self, Error> {
        let model: Arc<Model> = model.into();
        check_step_options(
            "Taylor",
            opts.rtol,
            opts.atol,
            [opts.h0, opts.h_min, opts.h_max],
            opts.span,
        )?;
        // order 0: chosen from the first state's series, computed to the highest order
        let chosen = opts.order == 0;
        let mut opts = opts;
        if chosen {
            opts.order = TaylorOptions::MAX_ORDER;
        }
        let k = opts.order;
        if !(2..=TaylorOptions::MAX_ORDER).contains(&k) {
            return Err(OptionError::invalid(
                "order",
                format!(
                    "the Taylor method's order {k} must lie in 2..={}",
                    TaylorOptions::MAX_ORDER
                ),
            )
            .into());
        }
        let (n, m) = (model.n_coords(), model.n_constraints());
        let zero = TaylorVar::constant(0.0);
        let mut me = TaylorSeries {
            solver: StateSolver::new(&model, LinearSolverKind::Auto),
            n,
            m,
            t: state.t,
            h: 0.0,
            q: state.q.clone(),
            v: state.v.clone(),
            qdd: vec![0.0; n],
            lambda: vec![0.0; m],
            coef: vec![0.0; n * (k + 2)],
            lam_coef: vec![0.0; m * k],
            coef_old: vec![0.0; n * (k + 2)],
            t_old: state.t,
            h_old: 0.0,
            land: Landing::default(),
            tape: SeriesTape::default(),
            ins: vec![zero; 1 + 3 * n + m],
            outs: vec![zero; n + m],
            leads: Vec::with_capacity(n + m),
            unknowns: Vec::with_capacity(1 + 3 * n + m),
            rhs: vec![0.0; n + m],
            lam_coef_old: vec![0.0; m * k],
            land_old: Landing::default(),
            cap: f64::INFINITY,
            step: 0,
            stats: Stats::default(),
            model,
            opts,
        };
        let first = |me: &mut TaylorSeries| {
            me.series().map_err(|e| match e {
                SolveError::NonFinite { .. } => InitError::NonFinite { what: "the forces" }.into(),
                SolveError::Unsupported { detail, .. } => {
                    OptionError::invalid("integrator", detail).into()
                }
                e => Error::from(e),
            })
        };
        first(&mut me)?;
        if chosen {
            let k = me.best_order();
            me.opts.order = k;
            for c in [&mut me.coef, &mut me.coef_old] {
                c.resize(n * (k + 2), 0.0);
            }
            for c in [&mut me.lam_coef, &mut me.lam_coef_old] {
                c.resize(m * k, 0.0);
            }
            first(&mut me)?;
        }
        me.stats.order = me.opts.order;
        me.h = me.next_step()?;
        if me.opts.h0 > 0.0 {
            me.h = me.h.min(me.opts.h0);
        }
        Ok(me)
    }

    /// The current state's series `Q₀ … Q_{K+1}`, `Λ₀ … Λ_{K−1}` (and its `q̈`, `λ`).
    fn series(&mut self) -> Result<(), SolveError> {
        let (n, m, k_max) = (self.n, self.m, self.opts.order);
        let (t, step) = (self.t, self.step);
        let before = self.solver.factorizations();
        let (qdd, lam) = self
            .solver
            .solve(&self.model, t, &self.q, &self.v)
            .map_err(|e| solve_error(e, t, step))?;
        self.qdd.copy_from_slice(qdd);
        self.lambda.copy_from_slice(lam);
        let w = self.coef_width();
        for i in 0..n {
            let c = &mut self.coef[i * w..(i + 1) * w];
            c.fill(0.0);
            (c[0], c[1], c[2]) = (self.q[i], self.v[i], 0.5 * self.qdd[i]);
        }
        for r in 0..m {
            self.lam_coef[r * k_max] = self.lambda[r];
        }
        self.record()?;
        self.stats.residual_evaluations += 1;
        self.known();
        for s in -(self.tape.max_lead() as isize)..=0 {
            self.tape.stage(s);
        }
        for k in 1..k_max {
            self.order(k)?;
        }
        self.stats.factorizations += self.solver.factorizations() - before;
        let finite = self
            .coef
            .iter()
            .chain(&self.lam_coef)
            .all(|x| x.is_finite());
        if !finite {
            return Err(SolveError::NonFinite {
                t,
                step,
                what: "Taylor coefficients",
                detail: ": the motion's series has no finite coefficients here (a singularity \
                         of the forces, or a step across one)"
                    .into(),
            });
        }
        Ok(())
    }

    /// The residual `r + C_qᵀλ` and the constraints `C` evaluated once at the state on
    /// [`TaylorVar`]s, recorded on the tape, and the tape made ready for the orders: the
    /// residual wanted to coefficient `k` and `C` to `k + 2` at order `k`, whose unknowns are
    /// `Q_{k+2}` in `q`'s coefficient `k + 2`, `v`'s `k + 1`, `a`'s `k`, and `Λₖ`.
    fn record(&mut self) -> Result<(), SolveError> {
        let (n, m) = (self.n, self.m);
        self.tape.begin();
        self.ins[0] = TaylorVar::input(self.t);
        let state = self
            .q
            .iter()
            .chain(&self.v)
            .chain(&self.qdd)
            .chain(&self.lambda);
        for (x, &value) in self.ins[1..].iter_mut().zip(state) {
            *x = TaylorVar::input(value);
        }
        let (res, cs) = self.outs.split_at_mut(n);
        let at = TaylorPoint {
            t: self.ins[0],
            q: &self.ins[1..1 + n],
            v: &self.ins[1 + n..1 + 2 * n],
            a: &self.ins[1 + 2 * n..1 + 3 * n],
            lambda: &self.ins[1 + 3 * n..],
        };
        let done = assembly::taylor_residual(&self.model, &at, res).and_then(|()| match m {
            0 => Ok(()),
            _ => assembly::taylor_constraints(&self.model, &at, cs),
        });
        self.tape.end();
        let unsupported = |detail: String| SolveError::Unsupported {
            method: "taylor",
            t: self.t,
            step: self.step,
            detail,
        };
        done.map_err(|kernel| unsupported(no_series(kernel)))?;
        self.leads.clear();
        let lead = |i: usize| if i < n { 0 } else { 2 };
        self.leads
            .extend(self.outs.iter().enumerate().map(|(i, &x)| (x, lead(i))));
        self.unknowns.clear();
        let unknown = |i: usize| match i {
            0 => None,
            i if i <= n => Some(2),
            i if i <= 2 * n => Some(1),
            _ => Some(0),
        };
        self.unknowns
            .extend(self.ins.iter().enumerate().map(|(i, &x)| (x, unknown(i))));
        let last = self.opts.order - 1;
        self.tape
            .prepare(last, &self.leads, &self.unknowns)
            .map_err(|e| unsupported(format!("Taylor series: {e}")))
    }

    /// The tape's inputs of coordinate `i`: its `q`, `v` and `a` (`ins` holds `t`, then every
    /// `q`, `v`, `a`, then `λ`).
    fn inputs_of(&self, i: usize) -> (TaylorVar, TaylorVar, TaylorVar) {
        let n = self.n;
        (
            self.ins[1 + i],
            self.ins[1 + n + i],
            self.ins[1 + 2 * n + i],
        )
    }

    /// The inputs' coefficients the state gives: `t₀ + τ`, `Q₀ … Q₂` in `q`, `v = q̇` and
    /// `a = q̈` to the same, `Λ₀`.
    fn known(&mut self) {
        let (n, w, k_max) = (self.n, self.coef_width(), self.opts.order);
        self.tape.set(self.ins[0], 0, self.t);
        self.tape.set(self.ins[0], 1, 1.0);
        for i in 0..n {
            let (q, v, a) = self.inputs_of(i);
            let c = &self.coef[i * w..i * w + 3];
            for (k, &x) in c.iter().enumerate() {
                self.tape.set(q, k, x);
            }
            self.tape.set(v, 0, c[1]);
            self.tape.set(v, 1, 2.0 * c[2]);
            self.tape.set(a, 0, 2.0 * c[2]);
        }
        for r in 0..self.m {
            self.tape
                .set(self.ins[1 + 3 * n + r], 0, self.lam_coef[r * k_max]);
        }
    }

    /// `Q_{k+2}` and `Λₖ` from the residual's coefficient `k` and the constraints' `k + 2`
    /// (stage `k` of the tape with them zero), written into the tape's inputs.
    fn order(&mut self, k: usize) -> Result<(), SolveError> {
        let (n, m, w, wl) = (self.n, self.m, self.coef_width(), self.opts.order);
        let (t, step) = (self.t, self.step);
        self.tape.stage(k as isize);
        let kk = ((k + 1) * (k + 2)) as f64;
        for i in 0..n {
            self.rhs[i] = -self.tape.coeff(self.outs[i], k);
        }
        for r in 0..m {
            self.rhs[n + r] = -kk * self.tape.coeff(self.outs[n + r], k + 2);
        }
        self.solver
            .solve_again(&self.model, &mut self.rhs)
            .map_err(|e| solve_error(e, t, step))?;
        for i in 0..n {
            let x = self.rhs[i] / kk;
            self.coef[i * w + k + 2] = x;
            let (q, v, a) = self.inputs_of(i);
            self.tape.set(q, k + 2, x);
            self.tape.set(v, k + 1, (k + 2) as f64 * x);
            self.tape.set(a, k, kk * x);
        }
        for r in 0..m {
            self.lam_coef[r * wl + k] = self.rhs[n + r];
            self.tape.set(self.ins[1 + 3 * n + r], k, self.rhs[n + r]);
        }
        if k + 1 < self.opts.order {
            self.tape.redo(k as isize);
        }
        Ok(())
    }

    /// The order whose series takes the most time per unit of work, from the current series
    /// (computed to the highest order: the coefficients of a lower order are the same): the
    /// step [`step_bound`](Self::step_bound) gives at order `K`, over the work of a step,
    /// `F + L (K + K²/30)` — a tape of `L` operations swept at `K` orders, each order costing a
    /// pass over the tape (about 30 times the arithmetic of one coefficient's product on this
    /// interpreter, measured: benches/README.md) and its products growing with the order; `F`,
    /// the work of a step beside the sweeps (the state's solve, the recording, the projection),
    /// two passes.
    fn best_order(&self) -> usize {
        let most = self.opts.order;
        let rate = |k: usize| {
            let kf = k as f64;
            self.step_bound(k) / (2.0 + kf + kf * kf / 30.0)
        };
        (4..=most)
            .filter(|&k| rate(k).is_finite())
            .max_by(|&a, &b| rate(a).total_cmp(&rate(b)))
            .unwrap_or(most)
    }

    /// The step the last four coefficients of order `k`'s series allow (see the module notes),
    /// before the step options' bounds.
    fn step_bound(&self, k: usize) -> f64 {
        let (n, w) = (self.n, self.coef_width());
        let o = &self.opts;
        let inf = |x: &[f64]| x.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let s = inf(&self.q).max(1.0);
        // the radius of convergence from the last four coefficients, ‖Q_j‖ ≈ s ρ^−j (four: a
        // motion symmetric in time about a turning point has every other, or three in four,
        // of them zero — the pendulum from rest at 90° only Q₂, Q₆, Q₁₀, …)
        let orders = k.saturating_sub(2).max(2)..=k + 1;
        let mut rho = f64::INFINITY;
        for j in orders.clone() {
            let u = (0..n).fold(0.0f64, |m, i| m.max(self.coef[i * w + j].abs())) / s;
            if u > 0.0 {
                rho = rho.min(u.powf(-1.0 / j as f64));
            }
        }
        if !rho.is_finite() {
            return f64::INFINITY;
        }
        let kf = k as f64;
        // only a relative tolerance on a state that is all 0 needs the motion's size
        let all_zero = |x: &[f64]| x.iter().all(|&x| x == 0.0);
        let reach = match o.atol == 0.0 && (all_zero(&self.q) || all_zero(&self.v)) {
            true => self.reach(orders.clone(), rho),
            false => (0.0, 0.0),
        };
        let zero = self.zero_weights(reach);
        // each coordinate's first term left out, A_i (h/ρ)^(K+2) in q_i and
        // (K+2) A_i/ρ (h/ρ)^(K+1) in v_i with A_i = max_j |Q_ij| ρ^j, below its own weight
        // w_i h/span (or w_i): bounds on x = h/ρ
        let mut x = MAX_FRACTION;
        for i in 0..n {
            let c = &self.coef[i * w..(i + 1) * w];
            // (|Q_ij|^(1/j) ρ)^j: no overflow of ρ^j where the product is at most s
            let a = orders.clone().fold(0.0f64, |m, j| {
                m.max((c[j].abs().powf(1.0 / j as f64) * rho).powi(j as i32))
            });
            if a == 0.0 {
                continue;
            }
            let (wq, wv) = self.weights(i, zero);
            let (bq, bv) = match o.span > 0.0 {
                true => (
                    (wq * rho / (a * o.span)).powf(1.0 / (kf + 1.0)),
                    (wv * rho * rho / ((kf + 2.0) * a * o.span)).powf(1.0 / kf),
                ),
                false => (
                    (wq / a).powf(1.0 / (kf + 2.0)),
                    (wv * rho / ((kf + 2.0) * a)).powf(1.0 / (kf + 1.0)),
                ),
            };
            x = x.min(bq).min(bv);
        }
        SAFETY * rho * x
    }

    /// The next step: the series' bound at the method's order, within the step options.
    fn next_step(&self) -> Result<f64, SolveError> {
        let (o, kf) = (&self.opts, self.opts.order as f64);
        let mut h = self.step_bound(self.opts.order);
        if o.h_max > 0.0 {
            h = h.min(o.h_max);
        }
        if !h.is_finite() {
            // a polynomial motion of lower order than the series: any step is exact
            h = if o.span > 0.0 { o.span } else { 1.0 };
        }
        let smallest = smallest_step(o.h_min, self.t, self.h_old);
        if h < smallest {
            return Err(SolveError::StepTooSmall {
                method: "taylor",
                t: self.t,
                h: smallest,
                error: (smallest / h).powf(kf),
            });
        }
        Ok(h)
    }

    /// How far the step of size `h` just taken (the old series in `coef_old`, the new state's
    /// acceleration in `qdd`) is from the tolerance — within it when at most 1:
    /// `maxᵢ max(h|Δa|ᵢ/w_{v,i}, h²|Δa|ᵢ/(2w_{q,i})) / c`, `w` each coordinate's weights and
    /// `c = max(1, (K + 1)·h/span)` — an analytic step leaves at most `(K + 1)·w·h/span`, a
    /// step across a kink must keep its jump's error within one tolerance. On an analytic
    /// motion `Δa` is the acceleration series' truncation, `∝ h^K`.
    fn step_excess(&self, h: f64) -> f64 {
        let (w, o, k) = (self.coef_width(), &self.opts, self.opts.order);
        let mut jump = 0.0f64;
        // the sizes before the step stand in where the state after it is all 0
        let before =
            |j: usize| (0..self.n).fold(0.0f64, |m, i| m.max(self.coef_old[i * w + j].abs()));
        let zero = match o.atol > 0.0 {
            true => (0.0, 0.0),
            false => self.zero_weights((before(0), before(1))),
        };
        for i in 0..self.n {
            let c = &self.coef_old[i * w..(i + 1) * w];
            let mut a = 0.0;
            for j in (2..c.len()).rev() {
                a = a * h + (j * (j - 1)) as f64 * c[j];
            }
            // each coordinate against its own weights
            let d = (a - self.qdd[i]).abs();
            if d == 0.0 {
                continue;
            }
            let (wq, wv) = self.weights(i, zero);
            jump = jump.max(d / wv).max(0.5 * h * d / wq);
        }
        let share = match o.span > 0.0 {
            true => (h / o.span).min(1.0),
            false => 1.0,
        };
        // what an analytic step's truncation leaves, or a step's whole share of the tolerance
        let room = ((k + 1) as f64 * share).max(1.0);
        h * jump / room
    }

    /// Coordinate `i`'s tolerance weights in `q` and `v`, `atol + rtol|qᵢ|` and
    /// `atol + rtol|vᵢ|`, or the stand-ins `zero` ([`zero_weight`]) where they are 0.
    fn weights(&self, i: usize, (zq, zv): (f64, f64)) -> (f64, f64) {
        let (atol, rtol) = (self.opts.atol, self.opts.rtol);
        (
            weight(atol, rtol, self.q[i], zq),
            weight(atol, rtol, self.v[i], zv),
        )
    }

    /// The stand-ins for the weights that are 0 (a relative tolerance alone at a coordinate
    /// that is 0): `rtol` times the largest coordinate's size, or the size `reach` (of `q`,
    /// of `v`) when the whole state is 0 (from rest, from the origin). Nothing when `atol > 0`.
    fn zero_weights(&self, reach: (f64, f64)) -> (f64, f64) {
        let (atol, rtol) = (self.opts.atol, self.opts.rtol);
        (
            zero_weight(atol, rtol, self.q.iter().copied().chain([reach.0])),
            zero_weight(atol, rtol, self.v.iter().copied().chain([reach.1])),
        )
    }

    /// The sizes of `q` and `v` the current series reach within one radius `rho`:
    /// `maxᵢⱼ |Q_ij| ρʲ` and `maxᵢⱼ j|Q_ij| ρʲ⁻¹` over the coefficients of `orders` and the
    /// state's own (`Q₀ = q`, `Q₁ = v`) — what stands for the motion's size in a relative
    /// tolerance where the state is all 0.
    fn reach(&self, orders: std::ops::RangeInclusive<usize>, rho: f64) -> (f64, f64) {
        let w = self.coef_width();
        let (mut rq, mut rv) = (0.0f64, 0.0f64);
        for i in 0..self.n {
            let c = &self.coef[i * w..(i + 1) * w];
            for j in [1, 2].into_iter().chain(orders.clone()) {
                // (|Q_ij|^(1/j) ρ)^j: no overflow of ρ^j
                let p = (c[j].abs().powf(1.0 / j as f64) * rho).powi(j as i32);
                (rq, rv) = (rq.max(p), rv.max(j as f64 * p / rho));
            }
            rq = rq.max(c[0].abs());
        }
        (rq, rv)
    }

    /// Back to the state before the step just tried: its series, and the state they begin
    /// with (`Q₀ = q`, `Q₁ = v`, `2Q₂ = q̈`, `Λ₀ = λ`, as [`series`](Self::series) wrote them).
    fn restore(&mut self) {
        std::mem::swap(&mut self.coef, &mut self.coef_old);
        std::mem::swap(&mut self.lam_coef, &mut self.lam_coef_old);
        let (w, k) = (self.coef_width(), self.opts.order);
        for i in 0..self.n {
            let c = &self.coef[i * w..];
            (self.q[i], self.v[i], self.qdd[i]) = (c[0], c[1], 2.0 * c[2]);
        }
        for r in 0..self.m {
            self.lambda[r] = self.lam_coef[r * k];
        }
        self.land = self.land_old;
        self.t = self.t_old;
        self.step -= 1;
        self.stats.steps = self.step;
    }

    /// Coefficients kept per coordinate: `Q₀ … Q_{K+1}`.
    fn coef_width(&self) -> usize {
        self.opts.order + 2
    }

    /// `q` and `v` of the series `c` (one coordinate's) at `τ`.
    fn eval(c: &[f64], tau: f64) -> (f64, f64) {
        let mut q = 0.0;
        let mut v = 0.0;
        for j in (0..c.len()).rev() {
            q = q * tau + c[j];
            if j > 0 {
                v = v * tau + j as f64 * c[j];
            }
        }
        (q, v)
    }
}

/// The message for an element without a form on Taylor series.
fn no_series(kernel: &str) -> String {
    format!(
        "the Taylor-series method evaluates every element on series, and `{kernel}` has no \
         form on them (a load given as a Rust closure of time); choose integrator dop853 or \
         radau, or write the load as a Term"
    )
}

/// A state solver's error at step `step` as a solver error.
fn solve_error(e: Error, t: f64, step: usize) -> SolveError {
    match e {
        Error::Solve(s) => s,
        Error::Init(InitError::NonFinite { .. }) => SolveError::NonFinite {
            t,
            step,
            what: "forces",
            detail: String::new(),
        },
        other => SolveError::singular(t, step, "", other),
    }
}

impl Integrator for TaylorSeries {
    fn method(&self) -> &'static str {
        "taylor"
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
        // a shorter step only: the series bounds the error of this one
        if h > 0.0 && h.is_finite() {
            self.h = self.h.min(h);
        }
    }
    fn land_on(&mut self, t: f64) {
        // at most a step ahead, give or take 10⁻⁹ of one (the run loop's margin)
        let h = t - self.t;
        if h > 0.0 {
            self.h = h;
        }
        self.land.aim(t, self.h);
    }
    fn step(&mut self) -> Result<StepOutcome, SolveError> {
        let (n, w, h) = (self.n, self.coef_width(), self.h);
        self.land_old = self.land;
        let (t_old, h_old) = (self.t_old, self.h_old);
        for i in 0..n {
            (self.q[i], self.v[i]) = Self::eval(&self.coef[i * w..(i + 1) * w], h);
        }
        std::mem::swap(&mut self.coef, &mut self.coef_old);
        std::mem::swap(&mut self.lam_coef, &mut self.lam_coef_old);
        (self.t_old, self.h_old) = (self.t, h);
        self.t = self.land.after(self.t, h);
        self.step += 1;
        self.stats.steps = self.step;
        if self.m > 0 {
            let (q, v) = (&mut self.q, &mut self.v);
            self.stats.factorizations += self.solver.project_state(&self.model, self.t, q, v)?;
        }
        self.series()?;
        let excess = self.step_excess(h);
        if !(excess <= 1.0) {
            // the series' truncation beyond the tolerance (the radius' estimate too bold), or a
            // kink inside the step: back, and a step `excess^(−1/K)` shorter — a quarter at
            // most, as a kink (whose jump no shorter step straddling it lowers) needs
            let shrink = (0.9 * excess.powf(-1.0 / self.opts.order as f64)).clamp(0.25, 0.9);
            self.restore();
            (self.t_old, self.h_old) = (t_old, h_old);
            self.stats.rejected_steps += 1;
            let smallest = smallest_step(self.opts.h_min, self.t, h_old);
            if shrink * h < smallest {
                return Err(SolveError::StepTooSmall {
                    method: "taylor",
                    t: self.t,
                    h: smallest,
                    error: f64::INFINITY,
                });
            }
            self.h = shrink * h;
            self.cap = self.h;
            return Ok(StepOutcome::Rejected);
        }
        // the series' bound, and no longer a step than the acceleration's truncation just met
        // allows (`∝ h^K`; never shorter than the step just taken): the radius estimated from
        // four coefficients can promise more than the truncation gives (the outer solar
        // system: 18 of 64 attempts refused without this, 9 of 35 with it)
        let grow = (0.9 * excess.powf(-1.0 / self.opts.order as f64)).max(1.0);
        let next = self.next_step()?.min(grow * h);
        self.h = next.min(2.0 * self.cap);
        self.cap = match next <= 2.0 * self.cap {
            true => f64::INFINITY, // taken whole: no cap
            false => self.h,
        };
        Ok(StepOutcome::Accepted)
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
    /// The last step's series at `t`: positions of order `K + 1`, velocities of order `K`.
    fn interpolate(&mut self, t: f64, q: &mut [f64], v: &mut [f64]) -> Result<bool, SolveError> {
        if self.step == 0 {
            return Ok(false);
        }
        let tau = (t - self.t_old).clamp(0.0, self.h_old);
        let w = self.coef_width();
        for i in 0..self.n {
            (q[i], v[i]) = Self::eval(&self.coef_old[i * w..(i + 1) * w], tau);
        }
        Ok(true)
    }
}
