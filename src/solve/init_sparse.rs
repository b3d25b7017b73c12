//! Consistent initialization of large constrained models without dense matrices.
//!
//! Above [`SPARSE_FROM`] unknowns (`n + m`) the positions are projected onto `C(t₀, q) = 0` by
//! Levenberg–Marquardt steps `Δ = −J_Fᵀ(J_F J_Fᵀ + μ D)⁻¹ C` and the velocities onto
//! `C_q v + C_t = 0` by the least-norm `Δv = −J_Fᵀ(J_F J_Fᵀ)⁻¹ (C_q v + C_t)`, both with the
//! sparse normal equations ([`NormalEquations`]); the constraints' independence is read from the
//! factorization of `C_q C_qᵀ` (its smallest eigenvalue against its largest, estimated). The
//! accelerations and multipliers come from the sparse acceleration-level solve
//! ([`StateSolver`]). Where the constraints turn out dependent, ill conditioned or not
//! satisfiable, the dense path decides and names the rows, as for small models. What the dense
//! path adds for small models — the nearest point to the guess on the constraint manifold by
//! SQP — it skips above this size too, so both paths give the same state.

use super::normal::NormalEquations;
use super::{InitReport, Initial};
use crate::assembly;
use crate::error::{Error, InitError};
use crate::model::{Model, State};
use crate::problem::InitOptions;
use crate::solve::StateSolver;

/// The model size (`n + m`) from which initialization takes the sparse path: the dense path's
/// SQP refinement stops there too.
pub(crate) const SPARSE_FROM: usize = 1500;

/// Below this estimate of `λ_min/λ_max` of `C_q C_qᵀ` the constraints are taken as possibly
/// dependent (a condition number of `C_q` beyond ~10⁶) and the dense path decides.
const DEPENDENT_BELOW: f64 = 1e-12;

/// Consistent values by the sparse path; `Ok(None)` where the dense path must decide (the
/// constraints dependent or ill conditioned, not satisfied, or the velocities not consistent).
pub(crate) fn consistent(
    model: &Model,
    q_guess: &[f64],
    v_guess: &[f64],
    opts: &InitOptions,
    free_q: &[usize],
    free_v: &[usize],
) -> Result<Option<Initial>, Error> {
    let (n, m, t) = (model.n, model.m, opts.t0);
    let Some(mut ne) = NormalEquations::new(model, free_q) else {
        return Ok(None);
    };
    let Some((q, iterations)) = project_positions(model, &mut ne, q_guess, opts)? else {
        return Ok(None);
    };
    let mut c = vec![0.0; m];
    assembly::constraint_values(model, t, &q, &mut c);
    let cmax = c.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let all: Vec<usize> = (0..n).collect();
    let mut full = match free_q.len() == n {
        true => ne,
        false => match NormalEquations::new(model, &all) {
            Some(x) => x,
            None => return Ok(None),
        },
    };
    full.jacobian(model, t, &q);
    let independent = full.finite()
        && full.factorize(0.0)
        && full.conditioning().is_some_and(|r| r > DEPENDENT_BELOW);
    if !independent {
        return Ok(None);
    }
    // velocities: the least-norm change of the free components
    let mut ct = vec![0.0; m];
    assembly::constraint_time_derivative(model, t, &q, &mut ct);
    let mut own = match free_v.len() == n {
        true => None,
        false => match NormalEquations::new(model, free_v) {
            Some(x) => Some(x),
            None => return Ok(None),
        },
    };
    if let Some(nv) = &mut own {
        nv.jacobian(model, t, &q);
        if !nv.factorize(0.0) {
            return Ok(None);
        }
    }
    // r = C_q v + C_t with every column (pinned ones too), the change on the free ones
    let mut v = v_guess.to_vec();
    let mut r = vec![0.0; m];
    full.mul(&v, &mut r);
    for (x, c) in r.iter_mut().zip(&ct) {
        *x += c;
    }
    let nv = own.as_mut().unwrap_or(&mut full);
    nv.solve(&mut r);
    nv.add_transpose(&r, -1.0, &mut v);
    let vscale = 1.0 + v.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let mut resid = vec![0.0; m];
    full.mul(&v, &mut resid);
    if (resid.iter().zip(&ct)).any(|(x, c)| !((x + c).abs() <= 1e-9 * vscale)) {
        return Ok(None);
    }
    let mut solver = StateSolver::new(model, opts.linear_solver);
    let (qdd, lambda) = match solver.solve(model, t, &q, &v) {
        Ok((a, l)) => (a.to_vec(), l.to_vec()),
        Err(Error::Init(InitError::SingularAugmented { redundant, .. })) => {
            let culprit = (model.singular_mass(&q))
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            return Err(InitError::SingularAugmented { redundant, culprit }.into());
        }
        Err(e) => return Err(e),
    };
    let change =
        |x: &[f64], g: &[f64]| (x.iter().zip(g)).fold(0.0f64, |a, (x, g)| a.max((x - g).abs()));
    let report = InitReport {
        n_coords: n,
        n_constraints: m,
        rank: m,
        dof: n - m,
        redundant: Vec::new(),
        position_iterations: iterations,
        position_change: change(&q, q_guess),
        velocity_change: change(&v, v_guess),
        max_constraint: cmax,
    };
    Ok(Some(Initial {
        state: State {
            t,
            q,
            v,
            qdd,
            lambda,
        },
        report,
    }))
}

/// Levenberg–Marquardt on `½‖C(t₀, q)‖²` over the free coordinates from the guess, with the
/// trust-region control of the dense path's restoration; `None` when it stalls above the
/// tolerance (the dense path then reports why).
fn project_positions(
    model: &Model,
    ne: &mut NormalEquations,
    q_guess: &[f64],
    opts: &InitOptions,
) -> Result<Option<(Vec<f64>, u64)>, Error> {
    let (m, t) = (model.m, opts.t0);
    let non_finite = || -> Error {
        InitError::NonFinite {
            what: "the constraints",
        }
        .into()
    };
    let mut q = q_guess.to_vec();
    let mut c = vec![0.0; m];
    assembly::constraint_values(model, t, &q, &mut c);
    if c.iter().any(|x| !x.is_finite()) {
        return Err(non_finite());
    }
    let (mut y, mut jd, mut trial, mut ct) = (vec![0.0; m], vec![0.0; m], q.clone(), vec![0.0; m]);
    let mut mu = 1e-3;
    for it in 0..opts.max_iterations {
        let cmax = c.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        if cmax <= opts.tol {
            return Ok(Some((q, it)));
        }
        ne.jacobian(model, t, &q);
        if !ne.finite() {
            return Err(non_finite());
        }
        let n2 = c.iter().map(|x| x * x).sum::<f64>();
        let mut accepted = false;
        for _ in 0..40 {
            if !ne.factorize(mu) {
                mu *= 4.0;
                continue;
            }
            y.copy_from_slice(&c);
            ne.solve(&mut y);
            trial.copy_from_slice(&q);
            ne.add_transpose(&y, -1.0, &mut trial);
            let step: Vec<f64> = trial.iter().zip(&q).map(|(a, b)| a - b).collect();
            ne.mul(&step, &mut jd);
            let lin = (c.iter().zip(&jd))
                .map(|(a, b)| (a + b) * (a + b))
                .sum::<f64>();
            let pred = n2 - lin;
            assembly::constraint_values(model, t, &trial, &mut ct);
            let n2t = ct.iter().map(|x| x * x).sum::<f64>();
            let rho = (n2 - n2t) / pred.max(f64::MIN_POSITIVE);
            if n2t.is_finite() && rho > 1e-4 && n2t < n2 {
                if rho > 0.75 {
                    mu = (mu / 5.0).max(1e-12);
                } else if rho < 0.25 {
                    mu *= 2.0;
                }
                std::mem::swap(&mut q, &mut trial);
                std::mem::swap(&mut c, &mut ct);
                accepted = true;
                break;
            }
            mu *= 4.0;
        }
        if !accepted {
            return Ok(None);
        }
    }
    let cmax = c.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    Ok((cmax <= opts.tol).then_some((q, opts.max_iterations)))
}
