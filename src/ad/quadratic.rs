//! Kinetic energies written as their mass matrix, `T = ½ vᵀ M(t, q) v`
//! ([`Structure::MassMatrix`](crate::model::Structure::MassMatrix): a term that writes
//! [`mass_matrix`](crate::model::Term::mass_matrix) instead of `kinetic`). With `∂L/∂v = M v`
//! the Euler–Lagrange residual is
//!
//! ```text
//! r = M a + Ṁ v − ½ ∇_q(vᵀ M v) + ∇V + ∂R/∂v − Q,    Ṁ = Σ_k ∂M/∂q_k v_k + ∂M/∂t
//! ```
//!
//! (docs/maths.md §15): `M` and `Ṁ` from one pass of `M` on a first-order dual along the path
//! `(t, q) + ε (1, v)`, and `∇_q(½ vᵀ M v − V)` from one pass of `M` and `V` seeded on `q` — first
//! derivatives of `M` only, where the general path differentiates `L` three times through nested
//! duals. The matrix of a state's accelerations, `∂r/∂a = M`, is the first pass's value.

use super::dense::Untagged;
use super::detect::Detected;
use super::passes;
use crate::model::Declared;
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::{Dual64, DualSVec};

/// The residual `r(t, q, v, a)` of a `MassMatrix` term and its (symmetrized) mass matrix
/// `M(t, q) = ∂r/∂a`. Never inlined: in `TermAd::residual_general` it is an arm every term type
/// carries, and it should not enlarge the general path of terms that never take it.
#[inline(never)]
pub(crate) fn residual_and_mass<T: Declared<N>, const N: usize>(
    term: &Detected<T>,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    // M and Ṁ along the path.
    let qp = SVector::<Dual64, N>::from_fn(|i, _| Dual64::new(q[i], v[i]));
    let mp = term.written_mass(Dual64::new(t, 1.0), &qp);
    let m = SMatrix::<f64, N, N>::from_fn(|i, j| 0.5 * (mp[(i, j)].re + mp[(j, i)].re));
    let mdot = SMatrix::<f64, N, N>::from_fn(|i, j| 0.5 * (mp[(i, j)].eps + mp[(j, i)].eps));
    // ∇_q(½ vᵀ M v − V) in one pass seeded on q.
    type S<const N: usize> = DualSVec<f64, N>;
    let qg = SVector::<S<N>, N>::from_fn(|i, _| S::from_re(q[i]).derivative(i));
    let tg = S::<N>::from_re(t);
    let mg = term.written_mass(tg, &qg);
    let mut l = -term.potential(tg, &qg);
    for i in 0..N {
        let mut row = S::<N>::from_re(0.0);
        for j in 0..N {
            row += mg[(i, j)] * v[j];
        }
        l += row * (0.5 * v[i]);
    }
    let lq = l.eps.unwrap_generic(Const::<N>, U1);
    let mut r = m * a + mdot * v - lq;
    if term.has_dissipation_or_force() {
        r += passes::dissipation_gradient::<Detected<T>, N, N, Untagged>(term, t, q, v)
            - term.force(t, q, v);
    }
    (r, m)
}
