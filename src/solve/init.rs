//! Consistent initial values for the index-3 system.
//!
//! 1. **Positions**: the point on `C(t₀, q) = 0` nearest to the user's guess `g`, with pinned
//!    components held: `min ½‖q_F − g_F‖²  s.t.  C(t₀, q) = 0` over the free set `F`, solved by
//!    an [`argmin`] solver: Levenberg–Marquardt steps `Δ = −J_Fᵀ(J_F J_Fᵀ + μI)⁻¹ C` onto the manifold, then SQP
//!    steps with the exact Hessian `I + Σ μ_k ∇²C_k` towards the nearest point (KKT:
//!    `C = 0`, `q_F − g_F ∈ range J_Fᵀ`). `J_F⁺` is the rank-revealing (SVD) pseudo-inverse.
//! 2. **Rank**: a Gram–Schmidt sweep over the rows of `C_q` gives its rank, the degrees of
//!    freedom `n − rank C_q`, and names each row that depends on earlier ones (redundant when
//!    satisfied, conflicting when not).
//! 3. **Velocities**: least-norm correction of the free components,
//!    `Δv_F = −J_F⁺ (C_q v + C_t)`.
//! 4. **Accelerations and multipliers**: `[M C_qᵀ; C_q 0][q̈; λ] = [f; −γ]`, where `f = −r(q,v,0)`
//!    and `γ = C_qq(v,v) + 2C_qt v + C_tt`.

use crate::assembly::{self, Point};
use crate::error::{Error, InitError};
use crate::model::Model;
use crate::model::State;
use crate::problem::{InitOptions, LinearSolverKind};
use crate::solve::StateSolver;
use argmin::core::{
    CostFunction, Error as ArgminError, Executor, IterState, KV, Problem, Solver, State as _,
    TerminationReason, TerminationStatus,
};
use nalgebra::{DMatrix, DVector};

impl crate::problem::Problem {
    /// Consistent initial values at `t0`: positions nearest to the guesses with `pinned_q` held,
    /// velocities with `pinned_v` held, then accelerations and multipliers
    /// ([`consistent_initial_values`]). Redundant constraints are refused here, naming them —
    /// the integrator could not run with them — so `check` and `run` give the same verdict.
    pub fn initial_values(&self) -> Result<Initial, Error> {
        self.validate()?;
        let opts = InitOptions {
            t0: self.t0,
            pinned_q: self.pinned_q.clone(),
            pinned_v: self.pinned_v.clone(),
            ..InitOptions::default()
        };
        let init = consistent_initial_values(&self.model, &self.q_guess, &self.v_guess, &opts)?;
        if !init.report.redundant.is_empty() {
            let rows = init.report.redundant.join(", ");
            return Err(InitError::Redundant { rows }.into());
        }
        Ok(init)
    }
}

/// What consistent initialization found.
#[derive(Clone, Debug, PartialEq)]
pub struct InitReport {
    /// Number of coordinates `n`.
    pub n_coords: usize,
    /// Number of constraint rows `m`.
    pub n_constraints: usize,
    /// `rank C_q`.
    pub rank: usize,
    /// Degrees of freedom `n − rank C_q`.
    pub dof: usize,
    /// Constraint rows that depend on earlier rows (named).
    pub redundant: Vec<String>,
    /// Iterations of the position projection.
    pub position_iterations: u64,
    /// `max |q − guess|` over the coordinates.
    pub position_change: f64,
    /// `max |v − guess|` over the velocities.
    pub velocity_change: f64,
    /// `max |C|` at the initial point.
    pub max_constraint: f64,
}

/// A consistent initial state and the report of how it was found.
#[derive(Clone, Debug)]
pub struct Initial {
    /// The state `(t₀, q, v, q̈, λ)`.
    pub state: State,
    /// The report.
    pub report: InitReport,
}

/// Find consistent `q`, `v`, `q̈`, `λ` at `opts.t0` near the guesses, holding pinned components.
///
/// ```
/// use lagrangian::library::pendulum::planar_pendulum;
/// use lagrangian::solve::{consistent_initial_values, InitOptions};
/// // A pendulum of length 1 guessed at (0.9, -0.3) with x pinned: y moves to −√(1 − 0.81).
/// let model = planar_pendulum(1.0, 1.0, 9.81);
/// let init = consistent_initial_values(&model, &[0.9, -0.3], &[0.0, 0.0], &InitOptions::default().pin_q([0])).unwrap();
/// assert_eq!(init.state.q[0], 0.9);
/// assert!((init.state.q[1] + 0.19f64.sqrt()).abs() < 1e-12);
/// assert_eq!(init.report.dof, 1);
/// ```
pub fn consistent_initial_values(
    model: &Model,
    q_guess: &[f64],
    v_guess: &[f64],
    opts: &InitOptions,
) -> Result<Initial, Error> {
    let (n, m) = (model.n, model.m);
    check_inputs(n, q_guess, v_guess, opts)?;
    let t = opts.t0;
    let free_q: Vec<usize> = (0..n).filter(|i| !opts.pinned_q.contains(i)).collect();
    let free_v: Vec<usize> = (0..n).filter(|i| !opts.pinned_v.contains(i)).collect();
    if m > 0 && n + m > super::init_sparse::SPARSE_FROM {
        let sparse =
            super::init_sparse::consistent(model, q_guess, v_guess, opts, &free_q, &free_v);
        if let Some(init) = sparse? {
            return Ok(init);
        }
        // the dense path decides (dependent or ill-conditioned constraints, a guess it cannot
        // bring onto them): its matrices — C_q, the (n + m)² system and an SVD's factors
        let unknowns = (n + m) as f64;
        let need = 8.0 * (4.0 * unknowns * unknowns + (m * n) as f64);
        let what = format!(
            "initialization of {n} coordinates under {m} constraints that are dependent or ill \
             conditioned needs dense matrices of {:.1} GB (remove the dependent constraints)",
            need / 1e9
        );
        crate::problem::memory::check_bytes(need, &what).map_err(InitError::BadInput)?;
    }

    // 1. positions
    let (q, iterations) = project_positions(model, t, q_guess, &free_q, opts)?;
    let mut c = vec![0.0; m];
    assembly::constraint_values(model, t, &q, &mut c);
    let cmax = c.iter().fold(0.0f64, |a, x| a.max(x.abs()));

    // 2. rank and redundancy
    let jac = assembly::constraint_jacobian_dense(model, t, &q);
    if jac.iter().any(|x| !x.is_finite()) {
        return Err(InitError::NonFinite {
            what: "the constraint Jacobian C_q (a constraint is not differentiable at the \
                   consistent position, e.g. sqrt or norm of 0)",
        }
        .into());
    }
    let dependent = dependent_rows(&jac);
    let rank = m - dependent.len();
    let redundant: Vec<String> = dependent
        .iter()
        .map(|&r| model.constraint_row_name(r))
        .collect();
    let tol_c = opts.tol.max(1e-14) * 100.0;
    if !(cmax <= tol_c) {
        return Err(unsatisfiable(model, &c, &jac, &dependent, &free_q, iterations, opts).into());
    }

    // 3. velocities
    let v = project_velocities(model, t, &q, v_guess, &jac, &free_v)?;

    // 4. accelerations and multipliers
    let (qdd, lambda) = accelerations(model, t, &q, &v, opts.linear_solver, &jac, &redundant)?;

    let change = |x: &[f64], g: &[f64]| {
        x.iter()
            .zip(g)
            .fold(0.0f64, |a, (x, g)| a.max((x - g).abs()))
    };
    let report = InitReport {
        n_coords: n,
        n_constraints: m,
        rank,
        dof: n - rank,
        redundant,
        position_iterations: iterations,
        position_change: change(&q, q_guess),
        velocity_change: change(&v, v_guess),
        max_constraint: cmax,
    };
    Ok(Initial {
        state: State {
            t,
            q,
            v,
            qdd,
            lambda,
        },
        report,
    })
}

/// Refuse guesses of the wrong size, pins that are not coordinates and non-finite guesses.
fn check_inputs(
    n: usize,
    q_guess: &[f64],
    v_guess: &[f64],
    opts: &InitOptions,
) -> Result<(), InitError> {
    if q_guess.len() != n || v_guess.len() != n {
        return Err(InitError::BadInput(format!(
            "guesses have {} positions and {} velocities, the model has {n} coordinates",
            q_guess.len(),
            v_guess.len()
        )));
    }
    if let Some(&i) = opts
        .pinned_q
        .iter()
        .chain(&opts.pinned_v)
        .find(|&&i| i >= n)
    {
        return Err(InitError::BadInput(format!(
            "pinned index {i} is not a coordinate (n = {n})"
        )));
    }
    if q_guess.iter().chain(v_guess).any(|x| !x.is_finite()) {
        return Err(InitError::NonFinite {
            what: "the guesses",
        });
    }
    Ok(())
}

/// The positions nearest the guess (in the free coordinates) that satisfy `C(t, q) = 0`, and the
/// iterations it took (Gauss–Newton with a Levenberg–Marquardt safeguard, [`ProjectionSolver`]).
fn project_positions(
    model: &Model,
    t: f64,
    q_guess: &[f64],
    free_q: &[usize],
    opts: &InitOptions,
) -> Result<(Vec<f64>, u64), InitError> {
    let mut q = q_guess.to_vec();
    if model.m == 0 {
        return Ok((q, 0));
    }
    let non_finite = InitError::NonFinite {
        what: "the constraints",
    };
    let problem = Projection {
        model,
        t,
        guess: q_guess,
        free: free_q,
    };
    let c0 = problem.cost(&q).map_err(|_| non_finite.clone())?;
    if !c0.is_finite() {
        return Err(non_finite);
    }
    let res = Executor::new(
        problem,
        ProjectionSolver {
            tol: opts.tol,
            step: f64::INFINITY,
            mu: 1e-3,
        },
    )
    .configure(|s| s.param(q.clone()).max_iters(opts.max_iterations))
    .run();
    match res {
        Ok(r) => {
            if let Some(p) = r.state.param.clone().or(r.state.best_param.clone()) {
                q = p;
            }
            Ok((q, r.state.iter))
        }
        Err(_) => Err(InitError::NonFinite {
            what: "the position projection",
        }),
    }
}

/// The error for constraints the projection could not satisfy, with the worst row and a hint:
/// conflicting dependent rows, or pins that over-determine the constraints.
fn unsatisfiable(
    model: &Model,
    c: &[f64],
    jac: &DMatrix<f64>,
    dependent: &[usize],
    free_q: &[usize],
    iterations: u64,
    opts: &InitOptions,
) -> InitError {
    let tol_c = opts.tol.max(1e-14) * 100.0;
    let cmax = c.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let worst = (0..c.len())
        .max_by(|&a, &b| c[a].abs().total_cmp(&c[b].abs()))
        .map(|k| model.constraint_row_name(k))
        .unwrap_or_default();
    let conflicting: Vec<String> = dependent
        .iter()
        .filter(|&&r| c[r].abs() > tol_c)
        .map(|&r| model.constraint_row_name(r))
        .collect();
    let mut hint = String::new();
    if !conflicting.is_empty() {
        hint = format!(
            "; conflicting rows (dependent on earlier rows but not satisfied): {}",
            conflicting.join(", ")
        );
    } else if !opts.pinned_q.is_empty() {
        let jf = jac.select_columns(free_q);
        if dependent_rows(&jf).len() > dependent.len() {
            hint = "; the pinned coordinates over-determine the constraints (unpin some)".into();
        } else {
            hint = "; the pinned values may lie outside the reachable set, or the guess is too far"
                .into();
        }
    }
    InitError::Unsatisfiable {
        residual: cmax,
        iterations,
        worst,
        hint,
    }
}

/// The velocities nearest the guess (least-norm change in the free components) with
/// `C_q v + C_t = 0`.
fn project_velocities(
    model: &Model,
    t: f64,
    q: &[f64],
    v_guess: &[f64],
    jac: &DMatrix<f64>,
    free_v: &[usize],
) -> Result<Vec<f64>, InitError> {
    let mut v = v_guess.to_vec();
    let m = model.m;
    if m == 0 {
        return Ok(v);
    }
    let mut ct = vec![0.0; m];
    assembly::constraint_time_derivative(model, t, q, &mut ct);
    let jv = jac * DVector::from_column_slice(&v) + DVector::from_column_slice(&ct);
    let jf = jac.select_columns(free_v);
    let dv = pinv_solve(&jf, &(-&jv));
    for (k, &i) in free_v.iter().enumerate() {
        v[i] += dv[k];
    }
    let resid = jac * DVector::from_column_slice(&v) + DVector::from_column_slice(&ct);
    let vscale = 1.0 + v.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let r = resid.amax();
    if !(r <= 1e-9 * vscale) {
        let unsatisfied: Vec<String> = (0..m)
            .filter(|&k| !(resid[k].abs() <= 1e-9 * vscale))
            .map(|k| model.constraint_row_name(k))
            .collect();
        let rows = match unsatisfied.len() {
            n if n > 6 => format!("{} and {} more rows", unsatisfied[..6].join(", "), n - 6),
            _ => unsatisfied.join(", "),
        };
        return Err(InitError::InconsistentVelocities { residual: r, rows });
    }
    Ok(v)
}

/// Solve `[M C_qᵀ; C_q 0][q̈; λ] = [−r(q,v,0); −γ]`.
fn accelerations(
    model: &Model,
    t: f64,
    q: &[f64],
    v: &[f64],
    kind: LinearSolverKind,
    jac: &DMatrix<f64>,
    redundant: &[String],
) -> Result<(Vec<f64>, Vec<f64>), Error> {
    let (n, m) = (model.n, model.m);
    if redundant.is_empty() {
        let mut solver = StateSolver::new(model, kind);
        return match solver.solve(model, t, q, v) {
            Ok((qdd, lambda)) => Ok((qdd.to_vec(), lambda.to_vec())),
            Err(Error::Init(InitError::SingularAugmented { redundant, .. })) => {
                let culprit = singular_culprit(model, t, q, jac);
                Err(InitError::SingularAugmented { redundant, culprit }.into())
            }
            Err(e) => Err(e),
        };
    }
    let zeros_n = vec![0.0; n];
    let zeros_m = vec![0.0; m];
    let mut res = vec![0.0; n + m];
    let pt = Point {
        t,
        q,
        v,
        a: &zeros_n,
        lambda: &zeros_m,
    };
    assembly::residual(model, &pt, 1.0, &mut res);
    let mut rhs = vec![0.0; n + m];
    for i in 0..n {
        rhs[i] = -res[i];
    }
    let mut gamma = vec![0.0; m];
    assembly::constraint_gamma(model, t, q, v, &mut gamma);
    for k in 0..m {
        rhs[n + k] = -gamma[k];
    }
    if rhs.iter().any(|x| !x.is_finite()) {
        return Err(InitError::NonFinite { what: "the forces" }.into());
    }
    // Redundant rows: q̈ is still unique if M is regular on the null space of C_q; take the
    // least-norm multipliers.
    let mut a = DMatrix::zeros(n + m, n + m);
    let [_, mm, _, _] = assembly::dense_term_blocks(model, t, q, v, &zeros_n);
    a.view_mut((0, 0), (n, n)).copy_from(&mm);
    a.view_mut((n, 0), (m, n)).copy_from(jac);
    a.view_mut((0, n), (n, m)).copy_from(&jac.transpose());
    let x = pinv_solve(&a, &DVector::from_vec(rhs.clone()));
    let r = (&a * &x - DVector::from_vec(rhs)).amax();
    if !(r <= 1e-8 * (1.0 + x.amax())) {
        return Err(InitError::SingularAugmented {
            redundant: format!("; redundant: {}", redundant.join(", ")),
            culprit: singular_culprit(model, t, q, jac),
        }
        .into());
    }
    let x = x.as_slice();
    Ok((x[..n].to_vec(), x[n..].to_vec()))
}

/// Largest model (`n + m`) whose singular acceleration-level matrix is searched for the motion
/// it cannot resolve (a dense SVD, `O((n + m)³)`).
const DIAGNOSE_UP_TO: usize = 600;

/// What makes `[M C_qᵀ; C_q 0]` singular at `q`, for the message (`": …"`, or empty): a tree
/// names the joint and body that cannot be accelerated; otherwise, for models of up to
/// [`DIAGNOSE_UP_TO`] unknowns, the coordinates of the motion with neither inertia nor a
/// constraint holding it (the null vector's largest `q̈` components).
fn singular_culprit(model: &Model, t: f64, q: &[f64], jac: &DMatrix<f64>) -> String {
    if let Some(s) = model.singular_mass(q) {
        return format!(": {s}");
    }
    let (n, m) = (model.n, model.m);
    if n + m > DIAGNOSE_UP_TO || n == 0 {
        return String::new();
    }
    let zeros = vec![0.0; n];
    let [_, mm, _, _] = assembly::dense_term_blocks(model, t, q, &zeros, &zeros);
    let mut a = DMatrix::zeros(n + m, n + m);
    a.view_mut((0, 0), (n, n)).copy_from(&mm);
    a.view_mut((n, 0), (m, n)).copy_from(jac);
    a.view_mut((0, n), (n, m)).copy_from(&jac.transpose());
    if a.iter().any(|x| !x.is_finite()) {
        return String::new();
    }
    let Some(svd) = nalgebra::SVD::try_new(a, false, true, f64::EPSILON, 10_000) else {
        return String::new();
    };
    let Some(vt) = svd.v_t else {
        return String::new();
    };
    let k = svd.singular_values.imin();
    let x: Vec<f64> = (0..n).map(|j| vt[(k, j)]).collect();
    let big = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    if !(big > 1e-3) {
        // the null vector lies in the multipliers: dependent constraint rows
        return String::new();
    }
    let mut idx: Vec<usize> = (0..n).filter(|&j| x[j].abs() >= 0.3 * big).collect();
    idx.sort_by(|&a, &b| x[b].abs().total_cmp(&x[a].abs()));
    let names = model.coordinate_names();
    let list: Vec<&str> = idx.iter().take(6).map(|&j| names[j].as_str()).collect();
    let more = idx.len().saturating_sub(6);
    let tail = match more {
        0 => String::new(),
        _ => format!(" and {more} more"),
    };
    format!(
        ": the motion along {}{tail} has neither inertia nor a constraint holding it (a body \
         without mass or inertia where it can move)",
        list.join(", ")
    )
}

/// Least-norm least-squares solution `A⁺ b`: by a Householder QR when `A` has full rank and is
/// well conditioned (the usual case: `A = Rᵀ Qᵀ` for a wide `A`, `x = Q R⁻ᵀ b`; `A = Q R` for a
/// tall or square one, `x = R⁻¹ Qᵀ b`), else by SVD with a relative rank tolerance. NaN if `A`
/// or `b` is not finite or the SVD does not converge (nalgebra's SVD without an iteration
/// limit never returns on a NaN entry), so that callers see a non-finite step.
pub(crate) fn pinv_solve(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    if a.nrows() == 0 || a.ncols() == 0 {
        return DVector::zeros(a.ncols());
    }
    let nan = || DVector::from_element(a.ncols(), f64::NAN);
    if a.iter().chain(b.iter()).any(|x| !x.is_finite()) {
        return nan();
    }
    if let Some(x) = qr_solve(a, b) {
        return x;
    }
    let Some(svd) = nalgebra::SVD::try_new(a.clone(), true, true, f64::EPSILON, 10_000) else {
        return nan();
    };
    let smax = svd.singular_values.max();
    let eps = smax * 1e-12 * (a.nrows().max(a.ncols()) as f64);
    svd.solve(b, eps)
        .unwrap_or_else(|_| DVector::zeros(a.ncols()))
}

/// Rows of `a` that are (numerically) linear combinations of earlier rows, by modified
/// Gram–Schmidt with reorthogonalization.
pub(crate) fn dependent_rows(a: &DMatrix<f64>) -> Vec<usize> {
    let mut basis: Vec<DVector<f64>> = Vec::new();
    let mut dep = Vec::new();
    for k in 0..a.nrows() {
        let row = a.row(k).transpose();
        let norm0 = row.norm();
        let mut r = row.clone();
        for _ in 0..2 {
            for b in &basis {
                let p = b.dot(&r);
                r.axpy(-p, b, 1.0);
            }
        }
        let nr = r.norm();
        if norm0 == 0.0 || nr <= 1e-9 * norm0 {
            dep.push(k);
        } else {
            basis.push(r / nr);
        }
    }
    dep
}

/// The nearest-point problem handed to argmin; its cost is `max |C(t₀, q)|`.
struct Projection<'a> {
    model: &'a Model,
    t: f64,
    guess: &'a [f64],
    free: &'a [usize],
}

impl CostFunction for Projection<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, q: &Vec<f64>) -> Result<f64, ArgminError> {
        let mut c = vec![0.0; self.model.m];
        assembly::constraint_values(self.model, self.t, q, &mut c);
        Ok(c.iter().fold(
            0.0f64,
            |a, x| if x.is_nan() { f64::NAN } else { a.max(x.abs()) },
        ))
    }
}

/// Two-phase nearest-point solver. Off the manifold (`max |C| > tol`) it takes
/// Levenberg–Marquardt steps for the underdetermined system, `Δ = −J_Fᵀ(J_F J_Fᵀ + μI)⁻¹ C`
/// (trust-region control of `μ`; Gauss–Newton, hence quadratic, near the manifold). On the manifold it takes a sequential-quadratic-programming step
/// on the KKT system of `min ½‖q_F − g_F‖²`:
/// `[I + Σ μ_k ∇²C_k, J_Fᵀ; J_F, 0] [Δ; ν] = −[d + J_Fᵀ μ; C]`, with least-squares multipliers
/// `μ = −(J_Fᵀ)⁺ d`, capped at `‖d‖`; restoration steps follow it back onto the manifold.
struct ProjectionSolver {
    tol: f64,
    step: f64,
    /// Levenberg–Marquardt damping, relative to `max diag(J_F J_Fᵀ)`.
    mu: f64,
}

/// [`pinv_solve`] by QR, or `None` when `A` is rank deficient or ill conditioned (a diagonal
/// entry of `R` below 1e-8 of the largest): then the SVD decides the rank.
fn qr_solve(a: &DMatrix<f64>, b: &DVector<f64>) -> Option<DVector<f64>> {
    let good = |r: &DMatrix<f64>| {
        let d = r.diagonal().abs();
        d.min() > 1e-8 * d.max()
    };
    if a.nrows() <= a.ncols() {
        let qr = a.transpose().qr();
        let r = qr.r();
        if !good(&r) {
            return None;
        }
        let y = r.tr_solve_upper_triangular(b)?;
        Some(qr.q() * y)
    } else {
        let qr = a.clone().qr();
        let r = qr.r();
        if !good(&r) {
            return None;
        }
        r.solve_upper_triangular(&(qr.q().transpose() * b))
    }
}

/// Above this many unknowns (`|F| + m`) the tangential SQP refinement is skipped (dense SVD) and
/// the projection point is returned.
pub(crate) const SQP_LIMIT: usize = super::init_sparse::SPARSE_FROM;

type PState = IterState<Vec<f64>, (), (), (), (), f64>;

impl<'a> Solver<Projection<'a>, PState> for ProjectionSolver {
    fn name(&self) -> &str {
        "nearest-point projection onto C(t0, q) = 0"
    }

    fn init(
        &mut self,
        problem: &mut Problem<Projection<'a>>,
        state: PState,
    ) -> Result<(PState, Option<KV>), ArgminError> {
        let q = state.get_param().cloned().unwrap_or_default();
        let c = problem.problem("cost_count", |p| p.cost(&q))?;
        Ok((state.cost(c), None))
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<Projection<'a>>,
        mut state: PState,
    ) -> Result<(PState, Option<KV>), ArgminError> {
        let q = state.take_param().unwrap_or_default();
        let p = problem.problem.as_ref().expect("problem is set");
        let m = p.model.m;
        let nf = p.free.len();
        let mut c = vec![0.0; m];
        assembly::constraint_values(p.model, p.t, &q, &mut c);
        let cvec = DVector::from_column_slice(&c);
        let jac = assembly::constraint_jacobian_dense(p.model, p.t, &q).select_columns(p.free);
        let c_old = state.get_cost();
        if c_old > self.tol || nf + m > SQP_LIMIT {
            // restoration: Levenberg–Marquardt on ½‖C‖², Δ = −J_Fᵀ (J_F J_Fᵀ + μI)⁻¹ C. The
            // damping suppresses the near-singular modes of J_F J_Fᵀ (folding a zigzag chain)
            // that a plain least-norm Newton step would blow up; μ → 0 near the manifold.
            let jjt = &jac * jac.transpose();
            let dmax = jjt.diagonal().amax().max(f64::MIN_POSITIVE);
            let n2_old = cvec.norm_squared();
            for _ in 0..40 {
                let mut a = jjt.clone();
                for k in 0..m {
                    a[(k, k)] += self.mu * dmax;
                }
                let y = match a.clone().cholesky() {
                    Some(ch) => ch.solve(&cvec),
                    None => pinv_solve(&a, &cvec),
                };
                let delta = -(jac.transpose() * y);
                let lin = &cvec + &jac * &delta;
                let pred = n2_old - lin.norm_squared();
                let mut trial = q.clone();
                for (k, &i) in p.free.iter().enumerate() {
                    trial[i] += delta[k];
                }
                let mut ctv = vec![0.0; m];
                assembly::constraint_values(p.model, p.t, &trial, &mut ctv);
                let n2 = ctv.iter().map(|x| x * x).sum::<f64>();
                let rho = (n2_old - n2) / pred.max(f64::MIN_POSITIVE);
                if n2.is_finite() && rho > 1e-4 && n2 < n2_old {
                    if rho > 0.75 {
                        self.mu = (self.mu / 5.0).max(1e-12);
                    } else if rho < 0.25 {
                        self.mu *= 2.0;
                    }
                    let ct = ctv.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                    self.step = if ct > self.tol || nf + m <= SQP_LIMIT {
                        f64::INFINITY
                    } else {
                        0.0
                    };
                    return Ok((state.param(trial).cost(ct), None));
                }
                self.mu *= 4.0;
            }
            // no decrease possible: stuck (reported by the caller)
            self.step = 0.0;
            return Ok((state.param(q).cost(c_old), None));
        }
        // tangential SQP step towards the guess
        let d = DVector::from_iterator(nf, p.free.iter().map(|&i| q[i] - p.guess[i]));
        if d.amax() == 0.0 {
            // the guess itself satisfies the constraints: it is the nearest point
            self.step = 0.0;
            return Ok((state.param(q).cost(c_old), None));
        }
        let mu = pinv_solve(&jac.transpose(), &(-&d));
        let mut lam_full = vec![0.0; m];
        lam_full.copy_from_slice(mu.as_slice());
        let hfull = assembly::dense_constraint_hessian(p.model, p.t, &q, &lam_full);
        let mut kkt = DMatrix::zeros(nf + m, nf + m);
        for (a, &i) in p.free.iter().enumerate() {
            for (b, &j) in p.free.iter().enumerate() {
                kkt[(a, b)] = hfull[(i, j)] + if a == b { 1.0 } else { 0.0 };
            }
        }
        kkt.view_mut((nf, 0), (m, nf)).copy_from(&jac);
        kkt.view_mut((0, nf), (nf, m)).copy_from(&jac.transpose());
        let mut rhs = DVector::zeros(nf + m);
        rhs.rows_mut(0, nf)
            .copy_from(&(-(&d + jac.transpose() * &mu)));
        rhs.rows_mut(nf, m).copy_from(&(-&cvec));
        let sol = pinv_solve(&kkt, &rhs);
        let mut delta = sol.rows(0, nf).into_owned();
        let dn = d.amax();
        if delta.amax() > dn && dn > 0.0 {
            delta *= dn / delta.amax();
        }
        let mut trial = q.clone();
        for (k, &i) in p.free.iter().enumerate() {
            trial[i] += delta[k];
        }
        let ct = p.cost(&trial)?;
        self.step = delta.amax();
        if !ct.is_finite() {
            self.step = 0.0;
            return Ok((state.param(q).cost(c_old), None));
        }
        Ok((state.param(trial).cost(ct), None))
    }

    fn terminate(&mut self, state: &PState) -> TerminationStatus {
        let q = state
            .get_param()
            .map(|q| q.iter().fold(0.0f64, |a, x| a.max(x.abs())))
            .unwrap_or(0.0);
        if state.get_cost() <= self.tol && self.step <= 1e-10 * (1.0 + q) {
            TerminationStatus::Terminated(TerminationReason::SolverConverged)
        } else {
            TerminationStatus::NotTerminated
        }
    }
}
