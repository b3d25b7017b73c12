//! The forward-AD passes of the structure-aware derivation (docs/maths.md §15), seeded on the
//! last `H` of a term's `N` coordinates: all of them (`H = N`) for [`super::structured`] terms,
//! all points but the first for translation-invariant ones ([`super::relative`]).
//!
//! The Jacobian passes give the weighted matrix the Newton iteration needs, not the blocks one
//! by one: with `J = c_D ∂r/∂v + c_K ∂r/∂q`, the part from `R` and `Q` is the derivative along
//! the Newton direction `(q, v) + ε (c_K, c_D)`,
//!
//! ```text
//! ∂/∂ε (∂R/∂v − Q) = c_K (∂²R/∂v∂q − ∂Q/∂q) + c_D (∂²R/∂v² − ∂Q/∂v),
//! ```
//!
//! one pass of `R` on hyper-dual numbers (`eps1` seeded on `v`, `eps2` on `q` with `c_K` and
//! on `v` with `c_D`) and one of `Q` on first-order duals instead of a mixed and a second-order
//! pass of `R` and two of `Q`.

use super::dense::{Dense1S, Dense2S, DenseHyperS, Derivative as DenseDerivative, Untagged};
use crate::model::Declared;
use nalgebra::{Const, Dim, SMatrix, SVector, U1};

/// First-order numbers with a dense gradient (`super::dense`): branch-free, so small enough to
/// be inlined into a user's energies under any build settings.
/// `Tag` names the call site the number serves (`dense::Site`; untagged by default).
pub(super) type Vec1<const H: usize, Tag = Untagged> = Dense1S<H, Tag>;
/// The potential's Hessian on dense parts (`super::dense`): no `Option` tests in its operators.
type S2<const H: usize> = Dense2S<H>;
/// `eps1` seeded on `v`, `eps2` along the Newton direction: one flat number (the mixed parts
/// on first-order duals nested in first-order duals cost 1.4× as much: benches/README.md, "The
/// mixed pass on one flat hyper-dual number"), with dense parts (`super::dense`): num-dual's
/// `HyperDualVec` stayed calls under cargo's default profile (benches/README.md, "The Newton
/// pass on a dense hyper-dual number").
type X<const H: usize> = DenseHyperS<H, H>;

/// `x` with its last `H` coordinates seeded: `seed(x_i, Some(k))` for the `k`-th of them,
/// `seed(x_i, None)` for the others.
#[inline]
fn seeded<S, const N: usize, const H: usize>(
    x: &SVector<f64, N>,
    seed: impl Fn(f64, Option<usize>) -> S,
) -> SVector<S, N>
where
    S: nalgebra::Scalar,
{
    let d = N - H;
    SVector::from_fn(|i, _| seed(x[i], i.checked_sub(d)))
}

/// `x` on first-order duals seeded on its last `H` coordinates.
#[inline]
pub(super) fn seed1<const N: usize, const H: usize, Tag: Dim>(
    x: &SVector<f64, N>,
) -> SVector<Vec1<H, Tag>, N> {
    seeded::<_, N, H>(x, |x, i| match i {
        Some(i) => Vec1::from_re(x).derivative(i),
        None => Vec1::from_re(x),
    })
}

/// `x` on first-order duals with the derivative part `w` on its last `H` coordinates.
#[inline]
fn seed1_scaled<const N: usize, const H: usize>(
    x: &SVector<f64, N>,
    w: f64,
) -> SVector<Vec1<H>, N> {
    seeded::<_, N, H>(x, |x, i| {
        let mut s = Vec1::from_re(x);
        if let Some(i) = i {
            s.eps = DenseDerivative::derivative_generic(Const::<H>, U1, i) * w;
        }
        s
    })
}

/// `q` and `v` on hyper-dual numbers along the Newton direction: `eps1` seeded on `v`, `eps2`
/// with `c_K` on `q` and `c_D` on `v`, all on the last `H` coordinates.
#[inline]
fn seed_newton<const N: usize, const H: usize>(
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    ck: f64,
    cd: f64,
) -> (SVector<X<H>, N>, SVector<X<H>, N>) {
    let along = |i| DenseDerivative::derivative_generic(U1, Const::<H>, i);
    let qx = seeded::<_, N, H>(q, |x, i| {
        let mut s = X::from_re(x);
        if let Some(i) = i {
            s.eps2 = along(i) * ck;
        }
        s
    });
    let vx = seeded::<_, N, H>(v, |x, i| {
        let mut s = X::from_re(x);
        if let Some(i) = i {
            s = s.derivative1(i);
            s.eps2 = along(i) * cd;
        }
        s
    });
    (qx, vx)
}

/// The rows of the derivative parts of `N` duals seeded on `H` coordinates (`N × H`).
#[inline]
fn jacobian_rows<const N: usize, const H: usize>(f: &SVector<Vec1<H>, N>) -> SMatrix<f64, N, H> {
    let mut m = SMatrix::<f64, N, H>::zeros();
    for i in 0..N {
        m.set_row(i, &f[i].eps.unwrap_generic(Const::<H>, U1).transpose());
    }
    m
}

/// `∇V` (in the last `H` coordinates) by one first-order pass on numbers tagged `Tag`. Always
/// inlined (as [`dissipation_gradient`]): into the residual's, and so the assembly's, loop.
#[inline(always)]
pub(super) fn potential_gradient<T: Declared<N>, const N: usize, const H: usize, Tag: Dim>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
) -> SVector<f64, H> {
    let qd = seed1::<N, H, Tag>(q);
    term.potential(Vec1::<H, Tag>::from_re(t), &qd)
        .eps
        .unwrap_generic(Const::<H>, U1)
}

/// `∂R/∂v` (in the last `H` coordinates) by one first-order pass seeded on `v`, on numbers
/// tagged `Tag`.
#[inline(always)]
pub(super) fn dissipation_gradient<T: Declared<N>, const N: usize, const H: usize, Tag: Dim>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, H> {
    let vd = seed1::<N, H, Tag>(v);
    term.dissipation(
        Vec1::<H, Tag>::from_re(t),
        &q.map(Vec1::<H, Tag>::from_re),
        &vd,
    )
    .eps
    .unwrap_generic(Const::<H>, U1)
}

/// `∇V` and `∇²V` (in the last `H` coordinates) by one second-order pass. Inlined, as the
/// Newton pass, into the caller that weights and expands their parts (the 3D spring's Jacobian
/// 150–155 → 136–137 ns against `#[inline(never)]`: benches/README.md).
#[inline]
pub(super) fn potential_hessian<T: Declared<N>, const N: usize, const H: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
) -> (SVector<f64, H>, SMatrix<f64, H, H>) {
    let qd = seed2::<N, H>(q);
    let pot = term.potential(S2::from_re(t), &qd);
    (
        pot.v1.unwrap_generic(U1, Const::<H>).transpose(),
        pot.v2.unwrap_generic(Const::<H>, Const::<H>),
    )
}

/// `x` on second-order duals seeded on its last `H` coordinates.
#[inline]
fn seed2<const N: usize, const H: usize>(x: &SVector<f64, N>) -> SVector<S2<H>, N> {
    seeded::<_, N, H>(x, |x, i| match i {
        Some(i) => S2::from_re(x).derivative(i),
        None => S2::from_re(x),
    })
}

/// What the Newton pass of `R` and `Q` gives: `∂R/∂v` and `A = c_K ∂²R/∂v∂q + c_D ∂²R/∂v²`
/// (rows and columns in the last `H` coordinates), `Q` and `B = c_K ∂Q/∂q + c_D ∂Q/∂v` (all
/// rows, columns in the last `H` coordinates).
pub(super) struct NewtonPass<const N: usize, const H: usize> {
    pub rv: SVector<f64, H>,
    pub a: SMatrix<f64, H, H>,
    pub force: SVector<f64, N>,
    pub b: SMatrix<f64, N, H>,
}

/// `∂R/∂v`, `Q` and their derivatives along the Newton direction `(q, v) + ε (c_K, c_D)`: `R`
/// on hyper-dual numbers, `Q` on first-order duals.
#[inline]
pub(super) fn dissipation_force_newton<T: Declared<N>, const N: usize, const H: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    ck: f64,
    cd: f64,
) -> NewtonPass<N, H> {
    let (qx, vx) = seed_newton::<N, H>(q, v, ck, cd);
    let r = term.dissipation(X::from_re(t), &qx, &vx);
    let f = term.force(
        Vec1::from_re(t),
        &seed1_scaled::<N, H>(q, ck),
        &seed1_scaled::<N, H>(v, cd),
    );
    NewtonPass {
        rv: r.eps1.unwrap_generic(Const::<H>, U1),
        a: r.eps1eps2.unwrap_generic(Const::<H>, Const::<H>),
        force: f.map(|x| x.re),
        b: jacobian_rows(&f),
    }
}
