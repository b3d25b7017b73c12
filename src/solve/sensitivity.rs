//! Forward parameter sensitivities of the discrete generalized-α scheme.
//!
//! One generalized-α step (see [`GenAlpha`](crate::solve::GenAlpha)) solves
//! `G(x₊; x, p) = [βh² r(t₊, q₊, v₊, q̈₊; p) + C_qᵀλ̃₊ ; C(t₊, q₊; p)] = 0` for `(q₊, λ̃₊)`, with
//! `v₊`, `q̈₊` and `a₊` affine in `q₊` and the previous state `x = (q, v, q̈, a)`:
//!
//! ```text
//! a₊ = (q₊ − q − h v − h²(½−β) a) / (βh²),   q̈₊ = (a₊ − (α_f q̈ − α_m a)/(1−α_m)) / c,
//! v₊ = v + h(1−γ) a + hγ a₊,                  c = (1−α_f)/(1−α_m).
//! ```
//!
//! Differentiating with respect to a parameter `p` gives the sensitivities `S = dx/dp` of the
//! computed trajectory, step by step: with `δa*`, `δq̈*`, `δv*` the changes the previous state's
//! sensitivities cause at fixed `q₊`,
//!
//! ```text
//! J [S_q₊; S_λ̃₊] = −[βh² (D δv* + M δq̈*) + ∂G_dyn/∂p ; ∂C/∂p],
//! S_a₊ = δa* + S_q₊/(βh²),  S_q̈₊ = δq̈* + β' S_q₊,  S_v₊ = δv* + γ/(βh) S_q₊,
//! ```
//!
//! where `J` is the step's iteration matrix assembled and factorized at the converged state
//! (exact, by AD; the integrator itself may reuse an older factorization), `M = ∂r/∂q̈` and
//! `D = ∂r/∂v` there (`D δv* + M δq̈*` as the derivative of `r` along `(δv*, δq̈*)`: a
//! fourth-order central difference, exact up to round-off for `r` quadratic in `v` and linear
//! in `q̈`, as mechanical Lagrangians and Rayleigh functions make it). The initial
//! sensitivities are those of the consistent initial values.
//!
//! How `r` and `C` depend on a parameter is not differentiated through the model's builder
//! (a mechanism file's parameters reach its elements through arbitrary expressions): `∂G/∂p`
//! and the initial values' derivatives come from the model rebuilt at `p ± h_p` and
//! `p ± 2h_p`, `h_p = 10⁻³ max(|p|, 10⁻³)`, by the fourth-order difference
//! `(8(f₊ − f₋) − (f₊₂ − f₋₂)) / (12 h_p)` — no whole run is repeated, and its error,
//! `O(h_p⁴)`, is about `10⁻¹²` relative. The propagation is exact.

use crate::assembly::{self, AssemblyCoefficients, Pattern, Point};
use crate::error::{Error, OptionError, SolveError};
use crate::model::{Model, State, StateView};
use crate::problem::{LinearSolverKind, Method, Problem, RunPlan};
use crate::solve::GenAlphaParams;
use crate::solve::linear::LinearSolver;
use std::sync::Arc;

/// The sensitivities of a state with respect to one parameter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateSensitivity {
    /// `dq/dp`.
    pub q: Vec<f64>,
    /// `dv/dp`.
    pub v: Vec<f64>,
    /// `dq̈/dp`.
    pub qdd: Vec<f64>,
    /// `dλ/dp`.
    pub lambda: Vec<f64>,
    /// `da/dp` (the scheme's auxiliary acceleration).
    a: Vec<f64>,
}

/// A problem with one parameter shifted by `+h`, `−h`, `+2h`, `−2h`.
struct Shifted {
    h: f64,
    problems: [Problem; 4],
}

/// The fourth-order central difference `(8(f₊ − f₋) − (f₊₂ − f₋₂)) / (12 h)`, elementwise.
pub fn difference(f: [&[f64]; 4], h: f64) -> Vec<f64> {
    (0..f[0].len())
        .map(|i| (8.0 * (f[0][i] - f[1][i]) - (f[2][i] - f[3][i])) / (12.0 * h))
        .collect()
}

/// Forward sensitivities of a generalized-α run with respect to named parameters.
pub struct Sensitivity {
    names: Vec<String>,
    model: Arc<Model>,
    shifted: Vec<Shifted>,
    ga: GenAlphaParams,
    pattern: Pattern,
    lin: LinearSolver,
    values: Vec<f64>,
    s: Vec<StateSensitivity>,
    res: Vec<f64>,
    lam_t: Vec<f64>,
}

impl Sensitivity {
    /// Prepare the sensitivities of `problem`'s run by `plan` (generalized-α, a problem that can be
    /// rebuilt with other parameter values) with respect to the parameters `names`, starting
    /// from those of its consistent initial values.
    pub fn new(problem: &Problem, plan: &RunPlan, names: &[&str]) -> Result<Sensitivity, Error> {
        let bad = |option: &str, m: String| -> Error { OptionError::invalid(option, m).into() };
        let Method::GenAlpha(opts) = &plan.method else {
            return Err(bad(
                "integrator",
                format!(
                    "sensitivities are computed for the generalized-α scheme only, and this run's \
                 method is {}: give --integrator genalpha (method=\"genalpha\" in Python)",
                    plan.method.name()
                ),
            ));
        };
        if problem.restart.is_some() {
            return Err(bad(
                "sensitivity",
                "sensitivities across restart events (chart switches) are not supported".into(),
            ));
        }
        if opts.step_control.is_some() {
            return Err(bad(
                "tol",
                "sensitivities are computed for a fixed step; error control (tol) chooses its \
                 steps from the solution, and its velocity projection is not differentiated"
                    .into(),
            ));
        }
        if plan.output_times.is_some() {
            return Err(bad(
                "output_times",
                "sensitivities are written at the steps (output_every); output times between \
                 steps (output_dt, output_at) are not interpolated for them"
                    .into(),
            ));
        }
        let model = problem.model.clone();
        let (n, m) = (model.n_coords(), model.n_constraints());
        let mut shifted = Vec::new();
        let mut s = Vec::new();
        for &name in names {
            let Some(&(_, p)) = problem.parameters.iter().find(|(k, _)| k == name) else {
                let known: Vec<&str> = problem.parameters.iter().map(|(k, _)| k.as_str()).collect();
                return Err(OptionError::UnknownName {
                    kind: "parameter",
                    name: name.to_string(),
                    message: format!(
                        "unknown parameter '{name}' for sensitivities; the parameters are: {}",
                        known.join(", ")
                    ),
                }
                .into());
            };
            let h = 1e-3 * p.abs().max(1e-3);
            let mut problems = Vec::with_capacity(4);
            for k in [1.0, -1.0, 2.0, -2.0] {
                let q = problem.with_parameters(&[(name, p + k * h)])?;
                if q.model.n_coords() != n || q.model.n_constraints() != m {
                    return Err(bad(
                        "sensitivity",
                        format!(
                            "changing '{name}' changes the model's size: no sensitivity exists"
                        ),
                    ));
                }
                problems.push(q);
            }
            let init: Vec<State> = (problems.iter())
                .map(|q| q.initial_values().map(|i| i.state))
                .collect::<Result<_, _>>()?;
            let d = |f: fn(&State) -> &[f64]| {
                difference([f(&init[0]), f(&init[1]), f(&init[2]), f(&init[3])], h)
            };
            let qdd = d(|x| &x.qdd);
            s.push(StateSensitivity {
                q: d(|x| &x.q),
                v: d(|x| &x.v),
                lambda: d(|x| &x.lambda),
                a: qdd.clone(),
                qdd,
            });
            let problems: [Problem; 4] = problems
                .try_into()
                .map_err(|_| bad("sensitivity", "four".into()))?;
            shifted.push(Shifted { h, problems });
        }
        let pattern = Pattern::new(&model);
        let kind = match opts.linear_solver {
            LinearSolverKind::Jacobi => LinearSolverKind::Auto,
            k => k,
        };
        let lin = LinearSolver::new(kind, &pattern).map_err(|e| bad("linear_solver", e.detail))?;
        let nnz = pattern.nnz();
        Ok(Sensitivity {
            names: names.iter().map(|x| x.to_string()).collect(),
            model,
            shifted,
            ga: GenAlphaParams::from_rho_inf(opts.rho_inf),
            pattern,
            lin,
            values: vec![0.0; nnz],
            s,
            res: vec![0.0; n + m],
            lam_t: vec![0.0; m],
        })
    }

    /// The parameters, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The step `h` and the problem rebuilt with parameter `k` at `p + h`, `p − h`, `p + 2h`,
    /// `p − 2h` (for the derivatives of quantities computed from a state and the parameters:
    /// along `(S, 1)`, by [`difference`]).
    pub fn shifted(&self, k: usize) -> (f64, &[Problem; 4]) {
        (self.shifted[k].h, &self.shifted[k].problems)
    }

    /// The sensitivities of the current state with respect to parameter `k`.
    pub fn of(&self, k: usize) -> &StateSensitivity {
        &self.s[k]
    }

    /// Advance the sensitivities over one accepted step of size `h` that ended in `new`.
    pub fn advance(&mut self, new: StateView<'_>, h: f64) -> Result<(), Error> {
        let GenAlphaParams {
            alpha_m,
            alpha_f,
            gamma,
            beta,
        } = self.ga;
        let bh2 = beta * h * h;
        let c = (1.0 - alpha_f) / (1.0 - alpha_m);
        let beta_p = (1.0 - alpha_m) / (bh2 * (1.0 - alpha_f));
        for (lt, l) in self.lam_t.iter_mut().zip(new.lambda) {
            *lt = bh2 * l;
        }
        let pt = Point {
            t: new.t,
            q: new.q,
            v: new.v,
            a: new.qdd,
            lambda: &self.lam_t,
        };
        let coef = |scale, mass, damping, stiffness, stiffness_lambda| AssemblyCoefficients {
            scale,
            mass,
            damping,
            stiffness,
            stiffness_lambda,
        };
        let (model, pattern) = (&self.model, &self.pattern);
        // the step's iteration matrix (as the integrator scales it), at the converged state
        let step = coef(bh2, beta_p, gamma / (beta * h), 1.0, 1.0);
        assembly::residual_and_matrix(model, pattern, &pt, &step, &mut self.res, &mut self.values);
        let singular = |e: crate::solve::linear::Singular| -> Error {
            SolveError::singular(new.t, 0, "(sensitivities)", e.detail).into()
        };
        self.lin
            .factorize(pattern, &self.values)
            .map_err(singular)?;
        let n = model.n_coords();
        for k in 0..self.s.len() {
            let s = &self.s[k];
            let da: Vec<f64> = (0..n)
                .map(|i| -(s.q[i] + h * s.v[i] + h * h * (0.5 - beta) * s.a[i]) / bh2)
                .collect();
            let dqdd: Vec<f64> = (0..n)
                .map(|i| (da[i] - (alpha_f * s.qdd[i] - alpha_m * s.a[i]) / (1.0 - alpha_m)) / c)
                .collect();
            let dv: Vec<f64> = (0..n)
                .map(|i| s.v[i] + h * (1.0 - gamma) * s.a[i] + h * gamma * da[i])
                .collect();
            let mut rhs = self.parameter_derivative(k, &pt, bh2);
            for r in rhs.iter_mut() {
                *r = -*r;
            }
            let md = self.rate_derivative(&pt, &dv, &dqdd);
            for (r, x) in rhs.iter_mut().zip(&md) {
                *r -= bh2 * x;
            }
            self.lin.solve(&mut rhs).map_err(singular)?;
            let s = &mut self.s[k];
            for i in 0..n {
                let sq = rhs[i];
                s.q[i] = sq;
                s.a[i] = da[i] + sq / bh2;
                s.qdd[i] = dqdd[i] + beta_p * sq;
                s.v[i] = dv[i] + gamma / (beta * h) * sq;
            }
            for (l, x) in s.lambda.iter_mut().zip(&rhs[n..]) {
                *l = x / bh2;
            }
        }
        Ok(())
    }

    /// `D δv + M δq̈` at `pt`: the derivative of `r` along `(δv, δq̈)` by the fourth-order
    /// central difference — exact up to round-off when `r` is at most quadratic in `v` and
    /// linear in `q̈` (kinetic energies quadratic in `v`, Rayleigh dissipation), `O(ε⁴)`
    /// otherwise — with `ε` a thousandth of the velocities' and accelerations' size. Four
    /// residuals cost less than assembling `M` and `D`.
    fn rate_derivative(&self, pt: &Point<'_>, dv: &[f64], dqdd: &[f64]) -> Vec<f64> {
        let n = dv.len();
        let amax = |x: &[f64]| x.iter().fold(0.0f64, |a, y| a.max(y.abs()));
        let dir = amax(dv).max(amax(dqdd));
        if dir == 0.0 {
            return vec![0.0; n];
        }
        let eps = 1e-3 * (1.0 + amax(pt.v).max(amax(pt.a))) / dir;
        let at = |k: f64| {
            let v: Vec<f64> = pt.v.iter().zip(dv).map(|(x, d)| x + k * eps * d).collect();
            let a: Vec<f64> =
                pt.a.iter()
                    .zip(dqdd)
                    .map(|(x, d)| x + k * eps * d)
                    .collect();
            let p = Point {
                v: &v,
                a: &a,
                ..*pt
            };
            let mut r = vec![0.0; self.res.len()];
            assembly::residual(&self.model, &p, 1.0, &mut r);
            r.truncate(n);
            r
        };
        let f = [at(1.0), at(-1.0), at(2.0), at(-2.0)];
        difference([&f[0], &f[1], &f[2], &f[3]], eps)
    }

    /// `∂G/∂p_k` at `pt`: the scaled residual `[βh² r + C_qᵀλ̃; C]` of the shifted models,
    /// differenced.
    fn parameter_derivative(&self, k: usize, pt: &Point<'_>, bh2: f64) -> Vec<f64> {
        let sh = &self.shifted[k];
        let len = self.res.len();
        let f: Vec<Vec<f64>> = (sh.problems.iter())
            .map(|p| {
                let mut r = vec![0.0; len];
                assembly::residual(&p.model, pt, bh2, &mut r);
                r
            })
            .collect();
        difference([&f[0], &f[1], &f[2], &f[3]], sh.h)
    }
}
