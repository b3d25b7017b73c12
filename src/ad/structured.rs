//! Structure-aware derivation (docs/maths.md §15): terms whose kinetic energy is absent or has
//! a constant mass matrix (`Structure::NoKinetic`, `Structure::ConstantMass`) are derived part by
//! part, each with the lowest derivative order it needs:
//!
//! ```text
//! r = M a + ∇V + ∂R/∂v − Q
//! ∂r/∂a = M,   ∂r/∂q = ∇²V + ∂²R/∂v∂q − ∂Q/∂q,   ∂r/∂v = ∂²R/∂v² − ∂Q/∂v
//! ```
//!
//! The residual takes two first-order passes (`V` seeded on `q`, `R` seeded on `v`) instead of
//! the general path's nested pass through `d/dt ∂L/∂v`; the stiffness block one second-order
//! pass of `V` and, with dissipation or forces, one mixed pass of `R` on hyper-dual numbers
//! (seeded on `v` and on `q`, keeping only `∂²R/∂v∂q` of the second derivatives); the damping
//! block one second-order pass of `R` on `v`. No third derivatives.
//!
//! A `Structure::PointMasses` term (kinetic energy a constant quadratic form in the velocities
//! of points of any form) has the residual `Σ_a J_aᵀ Σ_b m_ab ẍ_b + ∇V + ∂R/∂v − Q`: its
//! kinetic part is the virtual work of the points' inertia forces, one evaluation of each point
//! on `DualSVec<Dual2>` (`J_a` from the seeds on `q`, `ẍ_a` along the path); its Jacobians take
//! the general path.
//!
//! A term declared translation invariant (`Term::TRANSLATION_INVARIANT`) has its `V`, `R` and
//! `Q` passes seeded on all points but the first ([`relative`]).

use super::relative;
use crate::model::kernel::KernelCoefficients;
use crate::model::{Structure, Term};
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::{Dual2, Dual2SVec, DualSVec, HyperDualVec};

type Vec1<const N: usize> = DualSVec<f64, N>;

/// `∇V` by one first-order pass seeded on `q`.
#[inline]
fn potential_gradient<T: Term<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
) -> SVector<f64, N> {
    let qd = SVector::<Vec1<N>, N>::from_fn(|i, _| Vec1::from_re(q[i]).derivative(i));
    term.potential(Vec1::from_re(t), &qd)
        .eps
        .unwrap_generic(Const::<N>, U1)
}

/// `∇V` and `∇²V` by one second-order pass seeded on `q`.
#[inline]
fn potential_hessian<T: Term<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    type S<const N: usize> = Dual2SVec<f64, N>;
    let qd = SVector::<S<N>, N>::from_fn(|i, _| S::from_re(q[i]).derivative(i));
    let v = term.potential(S::from_re(t), &qd);
    (
        v.v1.unwrap_generic(U1, Const::<N>).transpose(),
        v.v2.unwrap_generic(Const::<N>, Const::<N>),
    )
}

/// `∂R/∂v − Q` by one first-order pass of `R` seeded on `v`.
#[inline]
fn dissipation_force<T: Term<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, N> {
    let vd = SVector::<Vec1<N>, N>::from_fn(|i, _| Vec1::from_re(v[i]).derivative(i));
    let rv = term
        .dissipation(Vec1::from_re(t), &q.map(Vec1::from_re), &vd)
        .eps
        .unwrap_generic(Const::<N>, U1);
    rv - term.force(t, q, v)
}

/// `∂R/∂v − Q` and its derivative in `q`: `R` on hyper-dual numbers (`eps1` seeded on `v`,
/// `eps2` on `q`, `eps1eps2` = `∂²R/∂v∂q`), `Q` on duals seeded on `q`.
#[inline]
fn dissipation_force_q<T: Term<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    type X<const N: usize> = HyperDualVec<f64, Const<N>, Const<N>>;
    let qx = SVector::<X<N>, N>::from_fn(|i, _| X::from_re(q[i]).derivative2(i));
    let vx = SVector::<X<N>, N>::from_fn(|i, _| X::from_re(v[i]).derivative1(i));
    let r = term.dissipation(X::from_re(t), &qx, &vx);
    let qi = SVector::<Vec1<N>, N>::from_fn(|i, _| Vec1::from_re(q[i]).derivative(i));
    let f = term.force(Vec1::from_re(t), &qi, &v.map(Vec1::from_re));
    let mut k = r.eps1eps2.unwrap_generic(Const::<N>, Const::<N>);
    let mut g = r.eps1.unwrap_generic(Const::<N>, U1);
    for i in 0..N {
        g[i] -= f[i].re;
        let row = f[i].eps.unwrap_generic(Const::<N>, U1);
        for j in 0..N {
            k[(i, j)] -= row[j];
        }
    }
    (g, k)
}

/// `∂R/∂v − Q` and its derivative in `v`: one second-order pass of `R` seeded on `v`, `Q` on
/// duals seeded on `v`.
#[inline]
fn dissipation_force_v<T: Term<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    type S<const N: usize> = Dual2SVec<f64, N>;
    let vd = SVector::<S<N>, N>::from_fn(|i, _| S::from_re(v[i]).derivative(i));
    let r = term.dissipation(S::from_re(t), &q.map(S::from_re), &vd);
    let vs = SVector::<Vec1<N>, N>::from_fn(|i, _| Vec1::from_re(v[i]).derivative(i));
    let f = term.force(Vec1::from_re(t), &q.map(Vec1::from_re), &vs);
    let mut d = r.v2.unwrap_generic(Const::<N>, Const::<N>);
    let mut g = r.v1.unwrap_generic(U1, Const::<N>).transpose();
    for i in 0..N {
        g[i] -= f[i].re;
        let row = f[i].eps.unwrap_generic(Const::<N>, U1);
        for j in 0..N {
            d[(i, j)] -= row[j];
        }
    }
    (g, d)
}

/// The constant mass matrix `M = ∂²T/∂v²` of a term declared `ConstantMass` (zero for
/// `NoKinetic`), by one second-order pass of `T` seeded on `v` at the given state.
pub(crate) fn constant_mass<T: Term<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SMatrix<f64, N, N> {
    if term.structure() != Structure::ConstantMass {
        return SMatrix::zeros();
    }
    type S<const N: usize> = Dual2SVec<f64, N>;
    let vd = SVector::<S<N>, N>::from_fn(|i, _| S::from_re(v[i]).derivative(i));
    let k = term.kinetic(S::from_re(t), &q.map(S::from_re), &vd);
    k.v2.unwrap_generic(Const::<N>, Const::<N>)
}

/// `r = M a + ∇V + ∂R/∂v − Q` of a term with constant mass matrix `mass` (`None`: no kinetic
/// energy). Always inlined, with [`relative::residual`], into the assembly's loop: called, the
/// spring's pass read the just-gathered inputs back from the stack (perf: 14 % of the pass on
/// that load) — the 1000-mass chain took 0.097 s with AD kernels, 0.056 s inlined
/// (benches/README.md).
#[inline(always)]
pub(crate) fn residual<T: Term<N>, const N: usize>(
    term: &T,
    mass: Option<&SMatrix<f64, N, N>>,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> SVector<f64, N> {
    let mut r = relative::residual(term, t, q, v).unwrap_or_else(|| {
        let mut r = potential_gradient(term, t, q);
        if term.has_dissipation_or_force() {
            r += dissipation_force(term, t, q, v);
        }
        r
    });
    if let Some(m) = mass {
        r += m * a;
    }
    r
}

/// The residual and `J = c_M M + c_D ∂r/∂v + c_K ∂r/∂q` of a term with constant mass matrix
/// `mass` (`None`: no kinetic energy), with only the passes the weights need.
#[inline]
pub(crate) fn weighted<T: Term<N>, const N: usize>(
    term: &T,
    mass: Option<&SMatrix<f64, N, N>>,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
    c: &KernelCoefficients,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    if let Some((mut r, mut j)) = relative::weighted(term, t, q, v, c) {
        if let Some(m) = mass {
            r += m * a;
            j += m * c.mass;
        }
        return (r, j);
    }
    let (mut r, mut j) = if c.stiffness != 0.0 {
        let (g, h) = potential_hessian(term, t, q);
        (g, h * c.stiffness)
    } else {
        (potential_gradient(term, t, q), SMatrix::zeros())
    };
    if let Some(m) = mass {
        r += m * a;
        j += m * c.mass;
    }
    if term.has_dissipation_or_force() {
        let mut g = None;
        if c.stiffness != 0.0 {
            let (gq, k) = dissipation_force_q(term, t, q, v);
            j += k * c.stiffness;
            g = Some(gq);
        }
        if c.damping != 0.0 {
            let (gv, d) = dissipation_force_v(term, t, q, v);
            j += d * c.damping;
            g = Some(gv);
        }
        r += g.unwrap_or_else(|| dissipation_force(term, t, q, v));
    }
    (r, j)
}

/// The kinetic part of the residual of a `PointMasses` term, `Σ_a J_aᵀ f_a` with
/// `f_a = Σ_b m_ab ẍ_b`: the points evaluated once on `DualSVec<Dual2>` — the outer dual seeded
/// on `q` gives `J_a`, the inner one along the path `(q + v s + a s²/2, t + s)` gives `ẍ_a`.
#[inline]
fn point_inertia<T: Term<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> SVector<f64, N> {
    type P<const N: usize> = DualSVec<Dual2<f64>, N>;
    let m = term.point_mass_matrix();
    let qd =
        SVector::<P<N>, N>::from_fn(|i, _| P::from_re(Dual2::new(q[i], v[i], a[i])).derivative(i));
    let x = term.mass_points(P::from_re(Dual2::new(t, 1.0, 0.0)), &qd);
    let mut r = SVector::<f64, N>::zeros();
    for (xa, ma) in x.iter().zip(&m) {
        for k in 0..3 {
            // f_a[k] = Σ_b m_ab ẍ_b[k]
            let f: f64 = (x.iter().zip(ma))
                .filter(|(_, &mab)| mab != 0.0)
                .map(|(xb, mab)| mab * xb[k].re.v2)
                .sum();
            if f != 0.0 {
                let jac = xa[k].eps.unwrap_generic(Const::<N>, U1);
                r += jac.map(|d| d.re * f);
            }
        }
    }
    r
}

/// `r = Σ_a J_aᵀ Σ_b m_ab ẍ_b + ∇V + ∂R/∂v − Q` of a `PointMasses` term.
#[inline]
pub(crate) fn residual_point_masses<T: Term<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> SVector<f64, N> {
    let mut r = point_inertia(term, t, q, v, a) + potential_gradient(term, t, q);
    if term.has_dissipation_or_force() {
        r += dissipation_force(term, t, q, v);
    }
    r
}
