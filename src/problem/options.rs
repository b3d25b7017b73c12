//! The methods and their options: data, with one source of defaults written on each field. The
//! integrators that read them live in [`crate::solve`].

use super::method_options::{MethodOptions, Work};
use serde::{Deserialize, Serialize};

/// Options of the generalized-α integrator: the one source of its defaults, each written on its
/// field (builder style; `GenAlphaOptions::new(h)` is the default with step `h`).
///
/// The Newton defaults — `newton_tol = 1e-12`, modified Newton (`reuse_factorization = true`)
/// with the multiplier and acceleration tests at `lambda_tol = 1e-8` — are the ones every path
/// uses (mechanism files, mass–spring networks, pendulum chains); docs/maths.md §4 gives the
/// measurements behind each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[must_use]
pub struct GenAlphaOptions {
    /// Fixed step size `h`; default 1e-3.
    pub h: f64,
    /// Spectral radius at infinity `ρ∞ ∈ [0, 1)`; default 0.8.
    pub rho_inf: f64,
    /// Newton tolerance (relative displacement and constraint residual); default 1e-12.
    pub newton_tol: f64,
    /// Newton iteration limit per step; default 25.
    pub max_newton_iterations: usize,
    /// Tolerance on the last Newton increments of the multipliers and of the accelerations,
    /// relative to `max |λ|` and `max |q̈|`, applied after a modified-Newton (reused matrix)
    /// iteration (`λ = λ̃/(βh²)` and `q̈₊ = … + β'Δq` are resolved far less sharply than `q` by
    /// the residual test); default 1e-8. The acceleration test is skipped on the Jacobi path.
    pub lambda_tol: f64,
    /// Keep the factorized iteration matrix across iterations and steps while Newton contracts
    /// well ("modified Newton"); default `true`. `false` assembles and factorizes a fresh
    /// Jacobian in every iteration (full Newton).
    pub reuse_factorization: bool,
    /// Contraction rate above which a reused factorization is refreshed; default 0.3.
    pub reuse_contraction: f64,
    /// Linear solver; default [`LinearSolverKind::Auto`].
    #[serde(skip)]
    pub linear_solver: LinearSolverKind,
    /// Error control: a tolerance instead of a fixed step (`h` is then the first step's
    /// size); default `None` (fixed step).
    #[serde(default)]
    pub step_control: Option<StepControl>,
}

/// Error-controlled steps for generalized-α: each step's local error estimates in `q` and `v`
/// (docs/maths.md §14), in the weighted RMS norm with weights `atol + rtol·|q|` and
/// `atol + rtol·|v|`, are kept below `h / span` (error per unit step), so the local errors of a run add up to at most about the
/// tolerance and the global error follows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepControl {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// The smallest step allowed (a step that must be smaller fails the run); default 1e-12.
    pub h_min: f64,
    /// The largest step allowed; default 0: no limit.
    pub h_max: f64,
    /// The time over which the local errors may add up to the tolerance: each step's error
    /// is kept below `tol · h / span`; default 0, the problem's span `t_end − t0` (set when
    /// the run starts). Finite and not negative (generalized-α has no control per step).
    #[serde(default)]
    pub span: f64,
}

impl StepControl {
    /// `rtol = atol = tol`, no step limits beyond `h_min = 1e-12`.
    pub fn new(tol: f64) -> Self {
        StepControl {
            rtol: tol,
            atol: tol,
            h_min: 1e-12,
            h_max: 0.0,
            span: 0.0,
        }
    }
}

impl Default for GenAlphaOptions {
    fn default() -> Self {
        GenAlphaOptions {
            h: 1e-3,
            rho_inf: 0.8,
            newton_tol: 1e-12,
            max_newton_iterations: 25,
            lambda_tol: 1e-8,
            reuse_factorization: true,
            reuse_contraction: 0.3,
            linear_solver: LinearSolverKind::Auto,
            step_control: None,
        }
    }
}

impl GenAlphaOptions {
    /// Options with step size `h` and defaults otherwise.
    pub fn new(h: f64) -> Self {
        GenAlphaOptions {
            h,
            ..GenAlphaOptions::default()
        }
    }
    /// Set `ρ∞`.
    pub fn rho_inf(mut self, r: f64) -> Self {
        self.rho_inf = r;
        self
    }
    /// Set the Newton tolerance.
    pub fn newton_tol(mut self, tol: f64) -> Self {
        self.newton_tol = tol;
        self
    }
    /// Set the relative tolerance on the last multiplier and acceleration increments.
    pub fn lambda_tol(mut self, tol: f64) -> Self {
        self.lambda_tol = tol;
        self
    }
    /// Set the Newton iteration limit.
    pub fn max_newton_iterations(mut self, k: usize) -> Self {
        self.max_newton_iterations = k;
        self
    }
    /// Reuse the factorization across iterations and steps (modified Newton) or not (full
    /// Newton).
    pub fn reuse_factorization(mut self, yes: bool) -> Self {
        self.reuse_factorization = yes;
        self
    }
    /// Choose the linear solver.
    pub fn linear_solver(mut self, k: LinearSolverKind) -> Self {
        self.linear_solver = k;
        self
    }
    /// Control the error with tolerance `tol` (relative and absolute) instead of a fixed step.
    pub fn tolerance(mut self, tol: f64) -> Self {
        self.step_control = Some(StepControl::new(tol));
        self
    }
}

/// Options of the RK4 integrator (defaults written on each field).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[must_use]
pub struct Rk4Options {
    /// Fixed step size `h`; default 1e-3.
    pub h: f64,
}

impl Default for Rk4Options {
    fn default() -> Self {
        Rk4Options { h: 1e-3 }
    }
}

impl Rk4Options {
    /// Options with step size `h`.
    pub fn new(h: f64) -> Self {
        Rk4Options { h }
    }
}

/// Options of the DOP853 integrator (defaults written on each field).
///
/// Each step's local error, estimated from the embedded fifth- and third-order solutions, in the
/// RMS norm over `q` and `v` weighted by `atol + rtol·max(|y₀|, |y₁|)` (Hairer, Nørsett &
/// Wanner I, §II.10), is kept below `h/span`: the local errors of a run add up to at most the
/// tolerance (docs/maths.md §16).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[must_use]
pub struct Dop853Options {
    /// Relative tolerance; default 1e-8.
    pub rtol: f64,
    /// Absolute tolerance; default 1e-8.
    pub atol: f64,
    /// The first step; default 0: chosen from the derivatives at the start (Hairer's `hinit`).
    pub h0: f64,
    /// The largest step; default 0: no limit.
    pub h_max: f64,
    /// The smallest step: a step that must be smaller fails the run; default 0: ten units of
    /// round-off of `t`.
    pub h_min: f64,
    /// The time over which the local errors may add up to the tolerance: each step's error is
    /// kept below `tol · h / span` (error per unit step), so the global error follows the
    /// tolerance; default 0, the problem's span `t_end − t0` (set when the run starts). A
    /// negative value asks for Hairer's plain per-step control (each step's error below `tol`);
    /// NaN and infinities are refused.
    #[serde(default)]
    pub span: f64,
    /// Go on with Radau IIA, at the same tolerances, from the step where stiffness is detected
    /// (Hairer's test: fifteen accepted steps held down by stability); default false: the run
    /// stays with DOP853 and its summary advises an implicit method. The method a tolerance
    /// alone chooses ([`RunPlan::apply`](crate::problem::RunPlan::apply) without an
    /// integrator, a mechanism file's `tol` without `integrator`) sets it.
    #[serde(default)]
    pub switch_when_stiff: bool,
}

impl Default for Dop853Options {
    fn default() -> Self {
        Dop853Options {
            rtol: 1e-8,
            atol: 1e-8,
            h0: 0.0,
            h_max: 0.0,
            h_min: 0.0,
            span: 0.0,
            switch_when_stiff: false,
        }
    }
}

impl Dop853Options {
    /// `rtol = atol = tol`, the other options at their defaults.
    pub fn new(tol: f64) -> Self {
        Dop853Options {
            rtol: tol,
            atol: tol,
            ..Dop853Options::default()
        }
    }
    /// Go on with Radau IIA where the problem turns out stiff
    /// ([`switch_when_stiff`](Self::switch_when_stiff)).
    pub fn switch_when_stiff(mut self) -> Self {
        self.switch_when_stiff = true;
        self
    }
    /// The Radau IIA options a switch continues with: these tolerances, step limits and span,
    /// and the first step `h0`.
    pub fn radau(&self, h0: f64) -> RadauOptions {
        RadauOptions {
            rtol: self.rtol,
            atol: self.atol,
            h0,
            h_max: self.h_max,
            h_min: self.h_min,
            span: self.span,
            ..RadauOptions::default()
        }
    }
}

/// Options of the Radau IIA integrator (defaults written on each field).
///
/// Each step's error is estimated as in Hairer & Wanner's `radau5.f` for index-3 systems: the
/// embedded estimate of order 3 in `q`; in `v` its part along the constraints, and `h` times the
/// part across them; `h²` times it in `λ` — in the RMS norm weighted by
/// `atol' + rtol'·max(|y₀|, |y₁|)`, where `rtol' = 0.1·rtol^(9/10)` and `atol' = rtol'·atol/rtol`
/// so that the global error of the fifth-order solution follows the tolerance (docs/maths.md
/// §17).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[must_use]
pub struct RadauOptions {
    /// Relative tolerance; default 1e-8.
    pub rtol: f64,
    /// Absolute tolerance; default 1e-8.
    pub atol: f64,
    /// The first step; default 0: chosen from the derivatives at the start.
    pub h0: f64,
    /// The largest step; default 0: no limit.
    pub h_max: f64,
    /// The smallest step: a step that must be smaller fails the run; default 0: ten units of
    /// round-off of `t`.
    pub h_min: f64,
    /// Newton iterations per attempt before the step is shortened; default 7.
    pub max_newton_iterations: usize,
    /// The stage iteration's tolerance `κ`: `θ/(1−θ)·‖ΔZ, ΔV‖ ≤ κ` in the RMS norm weighted by
    /// `atol + rtol·|y₀|`; default 0: `0.1·h/span`, so that what Newton leaves in the velocities,
    /// which every later step carries, adds up to a tenth of the tolerance.
    #[serde(default)]
    pub newton_tol: f64,
    /// The time over which the stage iterations' errors may add up (see `newton_tol`); default
    /// 0, the problem's span `t_end − t0` (set when the run starts).
    #[serde(default)]
    pub span: f64,
    /// Linear solver of the two stage systems; default [`LinearSolverKind::Auto`] (`Jacobi`
    /// is not one for them: it means the sparse LU).
    #[serde(skip)]
    pub linear_solver: LinearSolverKind,
}

impl Default for RadauOptions {
    fn default() -> Self {
        RadauOptions {
            rtol: 1e-8,
            atol: 1e-8,
            h0: 0.0,
            h_max: 0.0,
            h_min: 0.0,
            max_newton_iterations: 7,
            newton_tol: 0.0,
            span: 0.0,
            linear_solver: LinearSolverKind::Auto,
        }
    }
}

impl RadauOptions {
    /// `rtol = atol = tol`, the other options at their defaults.
    pub fn new(tol: f64) -> Self {
        RadauOptions {
            rtol: tol,
            atol: tol,
            ..RadauOptions::default()
        }
    }
}

/// Options of the Taylor-series method ([`TaylorSeries`](crate::solve::TaylorSeries)): the
/// motion's own Taylor series at each step (`v` to order `order`, `q` to one more), its
/// coefficients order by order from the Euler–Lagrange equations evaluated on series
/// (Nedialkov & Pryce's DAETS method, here on the index-1 form with projection onto the
/// constraints), the step chosen from the radius of convergence the last four coefficients give
/// so that the local errors, against `atol + rtol·‖y‖∞`, add up to at most 1 over `span`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[must_use]
pub struct TaylorOptions {
    /// The method's order (DAETS' `order`): the global error goes as `h^order`, at most
    /// [`TaylorOptions::MAX_ORDER`]; default 0: chosen at the first step, the order whose
    /// series gives the most time per unit of work at the tolerance
    /// ([`TaylorSeries`](crate::solve::TaylorSeries), "Order").
    pub order: usize,
    /// Relative tolerance; default 1e-10.
    pub rtol: f64,
    /// Absolute tolerance; default 1e-10.
    pub atol: f64,
    /// The first step's upper bound; default 0: the step the series gives.
    pub h0: f64,
    /// The largest step; default 0: no limit.
    pub h_max: f64,
    /// The smallest step: a step that must be smaller fails the run; default 0: ten units of
    /// round-off of `t`.
    pub h_min: f64,
    /// The time over which the local errors may add up to the tolerance (error per unit
    /// step); default 0, the problem's span `t_end − t0` (set when the run starts). Negative:
    /// each step's error below the tolerance.
    #[serde(default)]
    pub span: f64,
}

impl TaylorOptions {
    /// The highest order (the series number type's capacity less the two orders the
    /// constraints' series reach beyond `v`'s).
    pub const MAX_ORDER: usize = crate::expr::taylor::CAPACITY - 2;
    /// `rtol = atol = tol` at order `order` (0: chosen from the tolerance), the other options
    /// at their defaults.
    pub fn new(tol: f64, order: usize) -> Self {
        TaylorOptions {
            rtol: tol,
            atol: tol,
            order,
            ..TaylorOptions::default()
        }
    }
}

impl Default for TaylorOptions {
    fn default() -> Self {
        TaylorOptions {
            order: 0,
            rtol: 1e-10,
            atol: 1e-10,
            h0: 0.0,
            h_max: 0.0,
            h_min: 0.0,
            span: 0.0,
        }
    }
}

/// Options of [`consistent_initial_values`](crate::solve::consistent_initial_values).
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct InitOptions {
    /// Initial time `t₀`; default 0.
    pub t0: f64,
    /// Coordinates held at their guessed values.
    pub pinned_q: Vec<usize>,
    /// Velocity components held at their guessed values.
    pub pinned_v: Vec<usize>,
    /// Tolerance on `max |C|` and on the position step; default 1e-12.
    pub tol: f64,
    /// Iteration limit of the position projection; default 500.
    pub max_iterations: u64,
    /// Linear solver for the acceleration-level system; default `Auto`.
    pub linear_solver: LinearSolverKind,
}

impl Default for InitOptions {
    fn default() -> Self {
        InitOptions {
            t0: 0.0,
            pinned_q: Vec::new(),
            pinned_v: Vec::new(),
            tol: 1e-12,
            max_iterations: 500,
            linear_solver: LinearSolverKind::Auto,
        }
    }
}

impl InitOptions {
    /// Set the initial time.
    pub fn t0(mut self, t0: f64) -> Self {
        self.t0 = t0;
        self
    }
    /// Hold these coordinates at their guessed values.
    pub fn pin_q(mut self, idx: impl IntoIterator<Item = usize>) -> Self {
        self.pinned_q.extend(idx);
        self
    }
    /// Hold these velocity components at their guessed values.
    pub fn pin_v(mut self, idx: impl IntoIterator<Item = usize>) -> Self {
        self.pinned_v.extend(idx);
        self
    }
    /// Set the tolerance.
    pub fn tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }
}

/// Which linear solver to use for the iteration matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LinearSolverKind {
    /// Dense up to [`DENSE_LIMIT`](crate::solve::linear::DENSE_LIMIT) unknowns, sparse above.
    #[default]
    Auto,
    /// Dense LU with partial pivoting.
    Dense,
    /// Sparse LU (faer) with a symbolic factorization computed once.
    Sparse,
    /// Diagonal of the iteration matrix (unconstrained systems only); see [`crate::solve::linear`].
    Jacobi,
}

impl MethodOptions for GenAlphaOptions {
    fn name(&self) -> &'static str {
        "generalized-alpha"
    }
    fn h(&self) -> f64 {
        self.h
    }
    fn set_h(&mut self, h: f64) {
        self.h = h;
    }
    fn tolerances(&self) -> Option<(f64, f64)> {
        self.step_control.map(|c| (c.rtol, c.atol))
    }
    fn tolerances_mut(&mut self) -> Option<(&mut f64, &mut f64)> {
        self.step_control
            .as_mut()
            .map(|c| (&mut c.rtol, &mut c.atol))
    }
    fn span_mut(&mut self) -> Option<&mut f64> {
        self.step_control.as_mut().map(|c| &mut c.span)
    }
    fn describe(&self, _order_run: usize) -> String {
        format!("generalized-α, ρ∞ = {}", self.rho_inf)
    }
    fn extends_beyond_second_order(&self) -> bool {
        false
    }
    fn has_sensitivities(&self) -> bool {
        true
    }
}

impl MethodOptions for Rk4Options {
    fn name(&self) -> &'static str {
        "rk4"
    }
    fn h(&self) -> f64 {
        self.h
    }
    fn set_h(&mut self, h: f64) {
        self.h = h;
    }
    // its work, the mass solves, counted as Newton iterations (the default)
    fn describe(&self, _order_run: usize) -> String {
        "RK4".to_string()
    }
}

/// The step-size and tolerance fields every error-controlled Runge–Kutta-like method's options
/// have (`h0`, `rtol`, `atol`, `span`), as [`MethodOptions`] items.
macro_rules! controlled_fields {
    () => {
        fn h(&self) -> f64 {
            self.h0
        }
        fn set_h(&mut self, h: f64) {
            self.h0 = h;
        }
        fn tolerances(&self) -> Option<(f64, f64)> {
            Some((self.rtol, self.atol))
        }
        fn tolerances_mut(&mut self) -> Option<(&mut f64, &mut f64)> {
            Some((&mut self.rtol, &mut self.atol))
        }
        fn span_mut(&mut self) -> Option<&mut f64> {
            Some(&mut self.span)
        }
    };
}

impl MethodOptions for Dop853Options {
    fn name(&self) -> &'static str {
        "dop853"
    }
    controlled_fields!();
    fn describe(&self, _order_run: usize) -> String {
        "DOP853 (explicit Runge–Kutta of order 8)".to_string()
    }
    fn work(&self) -> Work {
        Work::Accelerations
    }
}

impl MethodOptions for RadauOptions {
    fn name(&self) -> &'static str {
        "radau"
    }
    controlled_fields!();
    fn describe(&self, _order_run: usize) -> String {
        "Radau IIA (implicit, order 5, on the index-3 equations)".to_string()
    }
}

impl MethodOptions for TaylorOptions {
    fn name(&self) -> &'static str {
        "taylor"
    }
    controlled_fields!();
    fn describe(&self, order_run: usize) -> String {
        match self.order {
            0 => format!("Taylor series of order {order_run} (chosen from the tolerance)"),
            k => format!("Taylor series of order {k}"),
        }
    }
    fn work(&self) -> Work {
        Work::SeriesResiduals
    }
    fn rejects_steps(&self) -> bool {
        // the series bounds its own error: no step is rejected
        false
    }
}
