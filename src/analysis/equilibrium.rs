//! Static equilibrium on the constraint manifold.
//!
//! An equilibrium at time `t₀` is a configuration `q` with `C(t₀, q) = 0` where the static
//! Euler–Lagrange residual — `r(t₀, q, 0, 0) = ∂V/∂q − Q` for a kinetic energy quadratic in
//! `v` — is balanced by the constraint forces:
//!
//! `r_F(q) + C_{q,F}ᵀ λ = 0`  over the free coordinates `F`,  `C(t₀, q) = 0`.
//!
//! Loads are taken at `t₀`. The search minimizes the potential on the manifold by a
//! trust-region Newton method ([`argmin`] drives the iterations): at an iterate `q`, with
//! `N` an orthonormal basis of the null space of `C_{q,F}`, least-squares multipliers
//! `λ = −(C_{q,F}ᵀ)⁺ r_F`, the reduced gradient `g = Nᵀ r_F` and the reduced Hessian
//! `H = Nᵀ (∂r/∂q + Σ λ_k ∇²C_k)_{FF} N` (exact, by AD), the step `y` minimizes
//! `gᵀy + ½ yᵀH y` in the ball `‖y‖ ≤ Δ` — solved exactly from the spectrum of `H`, so it is
//! well defined where `H` is singular or indefinite (a straight hanging chain, a flat membrane
//! at its rest lengths). The trial `q + N y` is projected back onto `C = 0` (Gauss–Newton,
//! least-norm), and the actual decrease of the potential along the chord `d` from `q` to the
//! trial, `−∫₀¹ r(q + s d)·d ds` (Simpson's rule, exact for a quadratic potential and
//! independent of how `V` is written), is compared with the model's `−(gᵀy + ½ yᵀHy)` to accept
//! the step and adapt `Δ`. Near the solution the step is Newton's, so convergence is quadratic.
//!
//! What was found is classified by the eigenvalues of `H` there (their signs do not depend on
//! the basis): all positive — **stable**; one negative — **unstable**; none negative but
//! one zero — **neutral** (a mechanism that can move without changing its potential).
//!
//! ```
//! use lagrangian::analysis::{Equilibrium, EquilibriumOptions, Stability};
//! // a pendulum of length 2 started at 60°: it comes to rest hanging straight down
//! let text = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 2 } }\n\
//!             AppliedForces: { Gravity: }\nProblemData: { tend: 1, positions: { A: [1.7320508, -1] } }\n";
//! let (problem, _plan) = lagrangian::spec::parse(text, "pendulum.yaml")?;
//! let eq = Equilibrium::find(&problem, &EquilibriumOptions::default())?;
//! assert!(eq.q[0].abs() < 1e-12 && (eq.q[1] + 2.0).abs() < 1e-12);
//! assert_eq!(eq.stability, Stability::Stable);
//! // the rod carries the weight: λ C_q = (0, −m g) with C = (x² + y² − ℓ²)/2 scaled
//! assert!(eq.residual < 1e-12);
//! # Ok::<(), lagrangian::Error>(())
//! ```

use super::{MAX_COORDINATES, null_space};
use crate::assembly::{self, Point};
use crate::error::{AnalysisError, Error};
use crate::model::{Model, StateView};
use crate::problem::Problem;
use crate::solve::pinv_solve;
use argmin::core::{
    CostFunction, Error as ArgminError, Executor, IterState, KV, Problem as ArgminProblem, Solver,
    TerminationReason, TerminationStatus,
};
use nalgebra::{DMatrix, DVector, SymmetricEigen};

/// How to search for an equilibrium.
#[derive(Clone, Debug, PartialEq)]
pub struct EquilibriumOptions {
    /// Hold the pinned components of the guesses (`fixedpositions`) where they are, as a hand
    /// would; default `false`: pins only shape the starting point, every coordinate is free.
    pub hold_pins: bool,
    /// Most trust-region iterations; default 500.
    pub max_iterations: u64,
    /// Converged when `max |r_F + C_{q,F}ᵀλ| ≤ tolerance ·` the force scale
    /// ([`Equilibrium::force_scale`]); default 1e-11.
    pub tolerance: f64,
}

impl Default for EquilibriumOptions {
    fn default() -> Self {
        EquilibriumOptions {
            hold_pins: false,
            max_iterations: 500,
            tolerance: 1e-11,
        }
    }
}

/// What an equilibrium is like, from the Hessian of the potential on the manifold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stability {
    /// Every direction raises the potential: a minimum.
    Stable,
    /// Some direction lowers it: a saddle or maximum.
    Unstable,
    /// No direction lowers it, some leave it unchanged (to second order).
    Neutral,
}

/// A static equilibrium.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Equilibrium {
    /// Time the loads and constraints were taken at.
    pub t: f64,
    /// The configuration.
    pub q: Vec<f64>,
    /// The multipliers (constraint forces `−C_qᵀλ`).
    pub lambda: Vec<f64>,
    /// The coordinates held in place (`hold_pins`).
    pub held: Vec<usize>,
    /// The generalized force a hand holding them exerts, `r + C_qᵀλ` on each held coordinate.
    pub holding_forces: Vec<f64>,
    /// `max |r_F + C_{q,F}ᵀλ|` over the free coordinates.
    pub residual: f64,
    /// The force scale the residual is measured against: the largest force on a free
    /// coordinate from one kind of term (springs, loads, …; [`assembly::gross_residual`]) or
    /// from the constraints.
    pub force_scale: f64,
    /// `max |C(t₀, q)|`.
    pub constraint_residual: f64,
    /// Trust-region iterations taken.
    pub iterations: u64,
    /// What it is like.
    pub stability: Stability,
    /// Eigenvalues of the reduced Hessian `H`, increasing (in the units of `r` per unit of
    /// the coordinates; their signs give the stability).
    pub hessian_eigenvalues: Vec<f64>,
    /// The iterates from the starting point to the equilibrium (for pictures; from the last
    /// change of coordinates on, when the problem's restart event changed them).
    #[serde(skip)]
    pub path: Vec<Vec<f64>>,
    /// The problem whose coordinates `q` is in, when the search went on in another one: the
    /// problem's restart event (a pendulum chain's change of chart) fired where the search got
    /// stuck. `None`: the problem given.
    #[serde(skip)]
    pub problem: Option<Problem>,
}

impl Equilibrium {
    /// The equilibrium of `problem` nearest (downhill) to its consistent initial
    /// configuration.
    ///
    /// Coordinates that are singular at the equilibrium — a spherical pendulum hanging at the
    /// pole of its angles' chart — stall the search or leave a direction without stiffness;
    /// when the problem has a restart event that fires where the search ended (at rest), the
    /// search goes on in the problem it gives (up to 8 times), and the result carries that
    /// problem ([`Equilibrium::problem`]).
    pub fn find(problem: &Problem, opts: &EquilibriumOptions) -> Result<Equilibrium, Error> {
        let mut q0 = problem.initial_values()?.state.q;
        let mut current: Option<Problem> = None;
        let mut floor = None;
        for _ in 0..8 {
            let p = current.as_ref().unwrap_or(problem);
            let (found, last, scale) = Equilibrium::search(p, &q0, opts, floor);
            floor = Some(scale);
            let Some(rule) = &p.restart else {
                return found;
            };
            let (n, m) = (p.model.n_coords(), p.model.n_constraints());
            let zeros = vec![0.0; n.max(m)];
            let at_rest = StateView {
                t: p.t0,
                q: &last,
                v: &zeros[..n],
                qdd: &zeros[..n],
                lambda: &zeros[..m],
            };
            // found where the coordinates are singular (the restart event fires there), or
            // stalled at such a place: go on in the problem the event gives
            let Some(next) = rule.check(at_rest)? else {
                return found.map(|mut eq| {
                    eq.problem = current;
                    eq
                });
            };
            let next = next.t0(p.t0).t_end(p.t_end);
            q0 = next.initial_values()?.state.q;
            current = Some(next);
        }
        let p = current.as_ref().unwrap_or(problem);
        let mut eq = Equilibrium::search(p, &q0, opts, floor).0?;
        eq.problem = current;
        Ok(eq)
    }

    /// The equilibrium of `problem` downhill from `q0` (which must satisfy the constraints).
    pub fn from(
        problem: &Problem,
        q0: &[f64],
        opts: &EquilibriumOptions,
    ) -> Result<Equilibrium, Error> {
        Equilibrium::search(problem, q0, opts, None).0
    }

    /// [`Equilibrium::from`], with the configuration where the search ended and the force
    /// scale at `q0`; converged is judged against `floor` at least (default: that scale).
    fn search(
        problem: &Problem,
        q0: &[f64],
        opts: &EquilibriumOptions,
        floor: Option<f64>,
    ) -> (Result<Equilibrium, Error>, Vec<f64>, f64) {
        let model = &problem.model;
        let n = model.n_coords();
        if n > MAX_COORDINATES {
            let e = Error::TooLarge(format!(
                "equilibrium is computed with dense matrices: {n} coordinates is above the \
                 limit of {MAX_COORDINATES}"
            ));
            return (Err(e), q0.to_vec(), 0.0);
        }
        let held: Vec<usize> = match opts.hold_pins {
            true => problem.pinned_q.clone(),
            false => Vec::new(),
        };
        let statics = Statics {
            model,
            t: problem.t0,
            free: (0..n).filter(|i| !held.contains(i)).collect(),
        };
        let start = statics.local(q0);
        let scale = q0.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        let solver = TrustRegion {
            radius: 0.1 * scale,
            size: scale,
            floor: floor.unwrap_or(start.scale),
            tol: opts.tolerance,
            path: vec![q0.to_vec()],
            end: None,
        };
        let res = Executor::new(statics, solver)
            .configure(|s| {
                s.param(q0.to_vec())
                    .cost(start.residual)
                    .max_iters(opts.max_iterations)
            })
            .run();
        let res = match res {
            Ok(res) => res,
            Err(e) => {
                let e = failed(0, start.residual, &e.to_string());
                return (Err(e), q0.to_vec(), start.scale);
            }
        };
        let iterations = res.state.iter;
        let (statics, solver) = (res.problem.problem.expect("the problem"), res.solver);
        let q = res.state.param.unwrap_or_else(|| q0.to_vec());
        let local = statics.local(&q);
        if !matches!(solver.end, Some(End::Converged)) {
            let why = match solver.end {
                Some(End::Stuck) => "no step lowers the potential any further",
                Some(End::Unbounded) => {
                    "the potential falls without bound (is the mechanism supported?)"
                }
                _ => "the iteration limit was reached",
            };
            let e = failed(iterations, local.residual / local.scale, why);
            return (Err(e), q, solver.floor);
        }
        let floor = solver.floor;
        let report = statics.report(q.clone(), local, held, iterations, solver.path);
        (Ok(report), q, floor)
    }
}

impl Problem {
    /// The static equilibrium downhill from the consistent initial configuration, with the
    /// default options ([`Equilibrium::find`]).
    pub fn equilibrium(&self) -> Result<Equilibrium, Error> {
        Equilibrium::find(self, &EquilibriumOptions::default())
    }
}

/// Project `q` onto `C(t, q) = 0` by least-norm Gauss–Newton steps (every coordinate free);
/// `false` if that does not converge. Used to show a mode's motion on the manifold.
pub fn project_onto_constraints(model: &Model, t: f64, q: &mut [f64]) -> bool {
    let statics = Statics {
        model,
        t,
        free: (0..model.n_coords()).collect(),
    };
    statics.retract(q)
}

fn failed(iterations: u64, residual: f64, why: &str) -> Error {
    AnalysisError::NoEquilibrium {
        iterations,
        residual,
        detail: why.to_string(),
    }
    .into()
}

/// The statics of a model at one time, over the free coordinates.
struct Statics<'a> {
    model: &'a Model,
    t: f64,
    free: Vec<usize>,
}

/// First-order quantities at an iterate.
struct Local {
    /// `r(t, q, 0, 0)` (n).
    r: DVector<f64>,
    /// `C_{q,F}` (m × |F|).
    jac: DMatrix<f64>,
    /// Least-squares multipliers.
    lambda: DVector<f64>,
    /// `max |r_F + C_{q,F}ᵀλ|`.
    residual: f64,
    /// The force scale: the largest gross term force ([`assembly::gross_residual`]) or
    /// constraint force on a free coordinate.
    scale: f64,
}

impl Statics<'_> {
    fn force(&self, q: &[f64]) -> DVector<f64> {
        self.forces(q, false).0
    }

    /// `r(t, q, 0, 0)` and, if asked, the gross forces [`assembly::gross_residual`].
    fn forces(&self, q: &[f64], gross: bool) -> (DVector<f64>, Vec<f64>) {
        let (n, m) = (self.model.n, self.model.m);
        let zeros = vec![0.0; n.max(m)];
        let p = Point {
            t: self.t,
            q,
            v: &zeros[..n],
            a: &zeros[..n],
            lambda: &zeros[..m],
        };
        let mut res = vec![0.0; n + m];
        assembly::residual(self.model, &p, 1.0, &mut res);
        let mut sizes = Vec::new();
        if gross {
            sizes = vec![0.0; n];
            assembly::gross_residual(self.model, &p, &mut sizes);
        }
        (DVector::from_column_slice(&res[..n]), sizes)
    }

    fn local(&self, q: &[f64]) -> Local {
        let (r, gross) = self.forces(q, true);
        let rf = DVector::from_iterator(self.free.len(), self.free.iter().map(|&i| r[i]));
        let jac =
            assembly::constraint_jacobian_dense(self.model, self.t, q).select_columns(&self.free);
        let lambda = pinv_solve(&jac.transpose(), &(-&rf));
        let balance = &rf + jac.transpose() * &lambda;
        let amax = |v: &DVector<f64>| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        Local {
            residual: if balance.iter().all(|x| x.is_finite()) {
                amax(&balance)
            } else {
                f64::NAN
            },
            scale: (self.free.iter().map(|&i| gross[i]))
                .chain((jac.transpose() * &lambda).iter().map(|x| x.abs()))
                .fold(f64::MIN_POSITIVE, f64::max),
            r,
            jac,
            lambda,
        }
    }

    /// `(N, g, H)`: the null-space basis, the reduced gradient and the reduced Hessian.
    fn reduced(&self, q: &[f64], l: &Local) -> (DMatrix<f64>, DVector<f64>, DMatrix<f64>) {
        let n = self.model.n;
        let basis = null_space(&l.jac, self.free.len());
        let rf = DVector::from_iterator(self.free.len(), self.free.iter().map(|&i| l.r[i]));
        let zeros = vec![0.0; n];
        let [_, _, _, drdq] = assembly::dense_term_blocks(self.model, self.t, q, &zeros, &zeros);
        let h =
            drdq + assembly::dense_constraint_hessian(self.model, self.t, q, l.lambda.as_slice());
        let h = h.select_rows(&self.free).select_columns(&self.free);
        let hr = basis.transpose() * h * &basis;
        let g = basis.transpose() * rf;
        (basis, g, (&hr + hr.transpose()) * 0.5)
    }

    /// Project `q` onto `C(t, q) = 0` by least-norm Gauss–Newton steps on the free
    /// coordinates; `false` if that does not converge.
    fn retract(&self, q: &mut [f64]) -> bool {
        let m = self.model.m;
        if m == 0 {
            return true;
        }
        let size = q.iter().fold(1.0f64, |a, x| a.max(x.abs()));
        let mut c = vec![0.0; m];
        let mut last = f64::INFINITY;
        for _ in 0..40 {
            assembly::constraint_values(self.model, self.t, q, &mut c);
            let cmax = c.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            if !cmax.is_finite() {
                return false;
            }
            if cmax <= 1e-15 * size || (cmax <= 1e-12 * size && cmax > 0.5 * last) {
                return true;
            }
            last = cmax;
            let jac = assembly::constraint_jacobian_dense(self.model, self.t, q)
                .select_columns(&self.free);
            let d = pinv_solve(&jac, &DVector::from_column_slice(&c));
            for (k, &i) in self.free.iter().enumerate() {
                q[i] -= d[k];
            }
        }
        false
    }

    /// The work the static forces do from `q` to `q + d`: `−∫₀¹ r(q + s d)·d ds` (Simpson).
    fn work(&self, q: &[f64], d: &[f64], r0: &DVector<f64>) -> f64 {
        let at = |s: f64| {
            let x: Vec<f64> = q.iter().zip(d).map(|(a, b)| a + s * b).collect();
            self.force(&x)
        };
        let dot = |r: &DVector<f64>| r.iter().zip(d).map(|(a, b)| a * b).sum::<f64>();
        -(dot(r0) + 4.0 * dot(&at(0.5)) + dot(&at(1.0))) / 6.0
    }

    fn report(
        &self,
        q: Vec<f64>,
        l: Local,
        held: Vec<usize>,
        iterations: u64,
        path: Vec<Vec<f64>>,
    ) -> Equilibrium {
        let (_, _, h) = self.reduced(&q, &l);
        let mut eig: Vec<f64> = match h.nrows() {
            0 => Vec::new(),
            _ => SymmetricEigen::new(h).eigenvalues.iter().copied().collect(),
        };
        eig.sort_by(f64::total_cmp);
        let big = eig.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let zero = 1e-9 * big.max(f64::MIN_POSITIVE);
        let stability = match () {
            _ if eig.iter().any(|&x| x < -zero) => Stability::Unstable,
            _ if eig.iter().any(|&x| x.abs() <= zero) => Stability::Neutral,
            _ => Stability::Stable,
        };
        let cq = assembly::constraint_jacobian_dense(self.model, self.t, &q);
        let total = &l.r + cq.transpose() * &l.lambda;
        let mut c = vec![0.0; self.model.m];
        assembly::constraint_values(self.model, self.t, &q, &mut c);
        Equilibrium {
            t: self.t,
            holding_forces: held.iter().map(|&i| total[i]).collect(),
            held,
            residual: l.residual,
            force_scale: l.scale,
            constraint_residual: c.iter().fold(0.0f64, |a, x| a.max(x.abs())),
            lambda: l.lambda.iter().copied().collect(),
            q,
            iterations,
            stability,
            hessian_eigenvalues: eig,
            path,
            problem: None,
        }
    }
}

impl CostFunction for Statics<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    /// `max |r_F + C_{q,F}ᵀλ|`, the force left unbalanced.
    fn cost(&self, q: &Vec<f64>) -> Result<f64, ArgminError> {
        Ok(self.local(q).residual)
    }
}

/// Why the search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Converged,
    Stuck,
    Unbounded,
}

/// The trust-region Newton method on the constraint manifold (see the module notes).
struct TrustRegion {
    /// The trust radius `Δ`.
    radius: f64,
    tol: f64,
    /// `max(1, max |q₀|)`: an iterate `10¹⁰` times farther out has run away.
    size: f64,
    /// The force scale at the first starting point: converged means `residual ≤ tol ·
    /// max(scale, floor)`, so a minimum where every force vanishes (a pendulum hanging
    /// straight down: no force balances another) is not judged against round-off.
    floor: f64,
    path: Vec<Vec<f64>>,
    end: Option<End>,
}

type TState = IterState<Vec<f64>, (), (), (), (), f64>;

impl<'a> Solver<Statics<'a>, TState> for TrustRegion {
    fn name(&self) -> &str {
        "trust-region Newton on the constraint manifold"
    }

    fn next_iter(
        &mut self,
        problem: &mut ArgminProblem<Statics<'a>>,
        mut state: TState,
    ) -> Result<(TState, Option<KV>), ArgminError> {
        let q = state.take_param().unwrap_or_default();
        let p = problem.problem.as_ref().expect("the problem is set");
        let l = p.local(&q);
        if !l.residual.is_finite() {
            return Err(ArgminError::msg(
                "the forces are not finite at the starting point",
            ));
        }
        if l.residual <= self.tol * l.scale.max(self.floor) {
            self.end = Some(End::Converged);
            return Ok((state.param(q).cost(l.residual), None));
        }
        let (basis, g, h) = p.reduced(&q, &l);
        let eig = SymmetricEigen::new(h.clone());
        let size = q.iter().fold(1.0f64, |a, x| a.max(x.abs()));
        for _ in 0..80 {
            let (y, newton) = trust_step(&eig, &g, self.radius);
            let ynorm = y.norm();
            let df = &basis * &y;
            let mut trial = q.clone();
            for (k, &i) in p.free.iter().enumerate() {
                trial[i] += df[k];
            }
            if !p.retract(&mut trial) {
                self.radius = 0.25 * ynorm.min(self.radius);
                continue;
            }
            let d: Vec<f64> = trial.iter().zip(&q).map(|(a, b)| a - b).collect();
            let pred = -(g.dot(&y) + 0.5 * (y.transpose() * &h * &y)[(0, 0)]);
            let noise = 1e-12
                * d.iter()
                    .zip(l.r.iter())
                    .map(|(a, b)| (a * b).abs())
                    .sum::<f64>();
            let next = p.local(&trial);
            let mut accept = false;
            if pred > noise {
                let rho = p.work(&q, &d, &l.r) / pred;
                if rho < 0.25 || !rho.is_finite() {
                    self.radius = 0.25 * ynorm;
                } else if rho > 0.75 && ynorm > 0.99 * self.radius {
                    self.radius *= 2.0;
                }
                accept = rho > 1e-4 && next.residual.is_finite();
            }
            // Newton's step on a convex model, judged by the force where the decrease of the
            // potential is below what the projection resolves
            accept |= newton && next.residual < 0.5 * l.residual;
            if accept {
                self.path.push(trial.clone());
                if trial.iter().any(|x| x.abs() > 1e10 * self.size) {
                    self.end = Some(End::Unbounded);
                }
                return Ok((state.param(trial).cost(next.residual), None));
            }
            if pred <= noise || self.radius < 1e-15 * size {
                break;
            }
        }
        // no better point at this precision: converged if the force is at round-off
        self.end = Some(match l.residual <= 1e-8 * l.scale {
            true => End::Converged,
            false => End::Stuck,
        });
        Ok((state.param(q).cost(l.residual), None))
    }

    fn terminate(&mut self, _state: &TState) -> TerminationStatus {
        match self.end {
            Some(_) => TerminationStatus::Terminated(TerminationReason::SolverConverged),
            None => TerminationStatus::NotTerminated,
        }
    }
}

/// The minimizer of `gᵀy + ½ yᵀHy` over `‖y‖ ≤ Δ`, from the spectrum of `H` (Moré and
/// Sorensen's characterization: `(H + σI) y = −g`, `H + σI ⪰ 0`, `σ(Δ − ‖y‖) = 0`), with the
/// "hard case" — `g` orthogonal to the lowest eigenvector — completed along that vector.
fn trust_step(
    eig: &SymmetricEigen<f64, nalgebra::Dyn>,
    g: &DVector<f64>,
    delta: f64,
) -> (DVector<f64>, bool) {
    let mu = &eig.eigenvalues;
    let u = &eig.eigenvectors;
    let a = u.transpose() * g;
    let y_of = |s: f64| -> DVector<f64> {
        let c = DVector::from_iterator(
            mu.len(),
            (0..mu.len()).map(|i| {
                let den = mu[i] + s;
                if den > 0.0 { -a[i] / den } else { 0.0 }
            }),
        );
        u * c
    };
    let lmin = mu.iter().copied().fold(f64::INFINITY, f64::min);
    // the scale of σ: the curvature, or the gradient over the radius where there is none
    let big = mu
        .iter()
        .fold(g.norm() / delta, |m, x| m.max(x.abs()))
        .max(f64::MIN_POSITIVE);
    if lmin > 1e-12 * big {
        let y = y_of(0.0);
        if y.norm() <= delta {
            return (y, true);
        }
    }
    let lo = (-lmin).max(0.0) + 1e-12 * big;
    let y_lo = y_of(lo);
    if y_lo.norm() <= delta {
        // the hard case: fill the ball along the lowest eigenvector
        let k = (0..mu.len())
            .min_by(|&i, &j| mu[i].total_cmp(&mu[j]))
            .unwrap_or(0);
        let v = u.column(k).into_owned();
        let (b, c) = (y_lo.dot(&v), y_lo.norm_squared() - delta * delta);
        let tau = -b + (b * b - c).max(0.0).sqrt();
        return (y_lo + v * tau, false);
    }
    // ‖y(σ)‖ falls from above Δ at `lo` to below Δ at `hi`: bisect (on a log scale)
    let (mut l, mut h) = (lo, lo + g.norm() / delta + big);
    for _ in 0..200 {
        let mid = match l > 0.0 {
            true => (l * h).sqrt(),
            false => 0.5 * (l + h),
        };
        if y_of(mid).norm() > delta {
            l = mid
        } else {
            h = mid
        }
        if h - l <= 1e-15 * h {
            break;
        }
    }
    let y = y_of(h);
    let shrink = (delta / y.norm()).min(1.0);
    (y * shrink, false)
}
