//! The Euler–Lagrange residual of one term, and a constraint block's `C_qᵀλ`, on any number
//! type: what the AD passes of [`crate::ad`] evaluate on dual numbers, and the Taylor-series
//! integrator on series ([`crate::expr::taylor::Taylor`]), the hand kernels' included (through
//! their AD forms).
//!
//! ```text
//! r(t,q,v,a) = d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q,    d/dt ∂L/∂v = L_vv a + L_vq v + L_vt
//! ```
//!
//! On numbers of one instant ([`el_residual`]) `d/dt ∂L/∂v` is one forward pass: `L` on
//! `DualSVec<Dual<S>, N>`, the inner `Dual` along the motion `(q̇, v̇, ṫ) = (v, a, 1)`, the
//! outer vector dual the gradient in `v`. On Taylor series ([`series_residual`]) the series
//! carries the motion: `∂L/∂v` on first-order duals, and its series differentiated.

use super::{Constraint, Declared};
use crate::expr::taylor::TaylorVar;
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::{Dual, DualNum, DualSVec};

/// `x` on first-order duals of its `N` entries: each seeded on its own direction (`seeded`) or
/// constant.
#[inline(always)]
fn on_duals<S, const N: usize>(x: &SVector<S, N>, seeded: bool) -> SVector<DualSVec<S, N>, N>
where
    S: DualNum<Primitive = f64> + Copy,
{
    SVector::from_fn(|i, _| match seeded {
        true => DualSVec::from_re(x[i]).derivative(i),
        false => DualSVec::from_re(x[i]),
    })
}

/// Residual of one term and, optionally, the momentum `p = ∂L/∂v`, on scalar type `S`.
#[inline]
pub(crate) fn el_residual<S, T, const N: usize>(
    term: &T,
    t: S,
    q: &SVector<S, N>,
    v: &SVector<S, N>,
    a: &SVector<S, N>,
) -> (SVector<S, N>, SVector<S, N>)
where
    S: DualNum<Primitive = f64> + Copy,
    T: Declared<N>,
{
    // d/dt ∂L/∂v: inner Dual along (v, a, 1), outer DualSVec = gradient in v.
    let tx = DualSVec::<Dual<S>, N>::from_re(Dual::new(t, S::from(1.0)));
    let qx = SVector::<DualSVec<Dual<S>, N>, N>::from_fn(|i, _| {
        DualSVec::from_re(Dual::new(q[i], v[i]))
    });
    let vx = SVector::<DualSVec<Dual<S>, N>, N>::from_fn(|i, _| {
        DualSVec::from_re(Dual::new(v[i], a[i])).derivative(i)
    });
    let lx = term.lagrangian(tx, &qx, &vx);
    let lv = lx.eps.unwrap_generic(Const::<N>, U1);
    // ∂L/∂q
    let ty = DualSVec::<S, N>::from_re(t);
    let lq = term
        .lagrangian(ty, &on_duals(q, true), &on_duals(v, false))
        .eps
        .unwrap_generic(Const::<N>, U1);
    let mut r = SVector::<S, N>::from_fn(|i, _| lv[i].eps - lq[i]);
    let p = SVector::<S, N>::from_fn(|i, _| lv[i].re);
    if term.has_dissipation_or_force() {
        r += nonconservative(term, t, q, v);
    }
    (r, p)
}

/// `∂R/∂v − Q` of one term on scalar type `S`.
#[inline]
pub(crate) fn nonconservative<S, T, const N: usize>(
    term: &T,
    t: S,
    q: &SVector<S, N>,
    v: &SVector<S, N>,
) -> SVector<S, N>
where
    S: DualNum<Primitive = f64> + Copy,
    T: Declared<N>,
{
    let ty = DualSVec::<S, N>::from_re(t);
    let rv = term
        .dissipation(ty, &on_duals(q, false), &on_duals(v, true))
        .eps
        .unwrap_generic(Const::<N>, U1);
    rv - term.force(t, q, v)
}

/// `r = M a + ∇V + ∂R/∂v − Q` of a term without kinetic energy (`mass` `None`) or with the
/// constant mass matrix `mass`, on scalar type `S`: one first-order pass of `V` instead of the
/// passes through `L`.
pub(crate) fn constant_mass_residual<S, T, const N: usize>(
    term: &T,
    mass: Option<&SMatrix<f64, N, N>>,
    t: S,
    q: &SVector<S, N>,
    v: &SVector<S, N>,
    a: &SVector<S, N>,
) -> SVector<S, N>
where
    S: DualNum<Primitive = f64> + Copy,
    T: Declared<N>,
{
    let ty = DualSVec::<S, N>::from_re(t);
    let mut r = term
        .potential(ty, &on_duals(q, true))
        .eps
        .unwrap_generic(Const::<N>, U1);
    if term.has_dissipation_or_force() {
        r += nonconservative(term, t, q, v);
    }
    if let Some(m) = mass {
        for i in 0..N {
            for j in 0..N {
                if m[(i, j)] != 0.0 {
                    r[i] += a[j] * m[(i, j)];
                }
            }
        }
    }
    r
}

/// `C_qᵀλ = ∂(λᵀC)/∂q` of one constraint block on scalar type `S` (one first-order pass).
pub(crate) fn constraint_force<S, C, const N: usize, const M: usize>(
    con: &C,
    t: S,
    q: &SVector<S, N>,
    lambda: &SVector<S, M>,
) -> SVector<S, N>
where
    S: DualNum<Primitive = f64> + Copy,
    C: Constraint<N, M>,
{
    let c = con.constraint(DualSVec::<S, N>::from_re(t), &on_duals(q, true));
    let mut f = SVector::<S, N>::from_element(S::from(0.0));
    for m in 0..M {
        f += c[m].eps.unwrap_generic(Const::<N>, U1) * lambda[m];
    }
    f
}

/// `r = d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q` along a motion given as Taylor series: `∂L/∂v` and
/// `∂L/∂q` by two first-order passes, `d/dt` by the series itself (no pass along the motion:
/// the series carries it). `q` and `v` must be known to one more coefficient than the result is
/// wanted to (`∂L/∂v`'s last is lost to `d/dt`).
pub(crate) fn series_residual<T: Declared<N>, const N: usize>(
    term: &T,
    t: TaylorVar,
    q: &SVector<TaylorVar, N>,
    v: &SVector<TaylorVar, N>,
) -> SVector<TaylorVar, N> {
    let ty = DualSVec::<TaylorVar, N>::from_re(t);
    let p = term
        .lagrangian(ty, &on_duals(q, false), &on_duals(v, true))
        .eps
        .unwrap_generic(Const::<N>, U1);
    let lq = term
        .lagrangian(ty, &on_duals(q, true), &on_duals(v, false))
        .eps
        .unwrap_generic(Const::<N>, U1);
    let mut r = SVector::<TaylorVar, N>::from_fn(|i, _| p[i].derivative() - lq[i]);
    if term.has_dissipation_or_force() {
        r += nonconservative(term, t, q, v);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Term;

    /// A term with every part: a configuration-dependent mass, a time-dependent potential.
    struct Swing;
    impl Term<2> for Swing {
        fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
            &self,
            t: D,
            q: &SVector<D, 2>,
            v: &SVector<D, 2>,
        ) -> D {
            let m = q[1] * q[1] + 2.0;
            v[0] * v[0] * m * 0.5
                + v[1] * v[1] * 0.5
                + v[0] * v[1] * q[0].sin() * 0.3
                + q[0].cos() * 9.81
                - q[1] * t.sin()
        }
    }

    #[test]
    fn the_series_residual_equals_the_passes_along_the_motion() {
        use crate::expr::taylor::{Taylor, series_of};
        // a motion as series to order 8: q(τ) = q₀ + q₁τ + …, v = q̇, a = q̈
        let n = 8;
        let c = [
            [0.3, 0.7, -0.2, 0.05, 0.01, -0.02, 0.003, 0.001, 0.0004],
            [1.1, -0.4, 0.3, -0.1, 0.02, 0.01, -0.004, 0.002, 0.0001],
        ];
        // the passes along the motion on the value series
        let q = SVector::<Taylor, 2>::from(c.map(|c| Taylor::new(&c, n + 1)));
        let v = q.map(|x| x.derivative());
        let a = v.map(|x| x.derivative());
        let t = Taylor::variable(0.4, n + 1);
        let want = el_residual(
            &Swing,
            t,
            &q.map(|x| x.truncate(n)),
            &v.map(|x| x.truncate(n)),
            &a,
        )
        .0;
        // the first-order passes recorded on the tape, `d/dt` by the series
        let (vc0, vc1) = (v[0].coefficients().to_vec(), v[1].coefficients().to_vec());
        let got = series_of(
            [&[0.4, 1.0], &c[0], &c[1], &vc0, &vc1],
            n - 1,
            |[t, q0, q1, v0, v1]| {
                let r = series_residual(&Swing, t, &[q0, q1].into(), &[v0, v1].into());
                [r[0], r[1]]
            },
        );
        for i in 0..2 {
            for k in 0..n - 1 {
                let (x, y) = (got[i][k], want[i].coeff(k));
                assert!(
                    (x - y).abs() < 1e-12 * (1.0 + y.abs()),
                    "r{i}, coefficient {k}: {x} vs {y}"
                );
            }
        }
    }
}
