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
//! the general path's nested pass through `d/dt ∂L/∂v`; the weighted Jacobian
//! `c_M M + c_D ∂r/∂v + c_K ∂r/∂q` one second-order pass of `V` and, with dissipation or
//! forces, one pass of `R` on hyper-dual numbers along the Newton direction
//! (`∂R/∂v` and `c_K ∂²R/∂v∂q + c_D ∂²R/∂v²` at once, [`passes`]). No third derivatives.
//!
//! A `Structure::PointMasses` term (kinetic energy a constant quadratic form in the velocities
//! of points of any form) has the residual `Σ_a J_aᵀ Σ_b m_ab ẍ_b + ∇V + ∂R/∂v − Q`: its
//! kinetic part is the virtual work of the points' inertia forces, one evaluation of each point
//! on `DualSVec<Dual2>` (`J_a` from the seeds on `q`, `ẍ_a` along the path); its Jacobians take
//! the general path.
//!
//! A term declared translation invariant (`Declared::TRANSLATION_INVARIANT`) has its `V`, `R` and
//! `Q` passes seeded on all points but the first ([`relative`]).

use super::dense::Untagged;
use super::{passes, relative};
use crate::model::kernel::KernelCoefficients;
use crate::model::{Declared, Structure};
use nalgebra::{Const, Dim, SMatrix, SVector, U1};
use num_dual::{Dual2, Dual2SVec, DualSVec};

/// What a structured term's derivation takes beside its energies: its constant mass matrix
/// (`None`: no kinetic energy, or added by the caller) and whether it was found translation
/// invariant at sample states (`sampled`; a declaration is known from the type): then its
/// passes are seeded on all points but the first ([`relative`]).
#[derive(Clone, Copy)]
pub(crate) struct Known<'a, const N: usize> {
    pub(crate) mass: Option<&'a SMatrix<f64, N, N>>,
    pub(crate) invariant: bool,
}

/// `∂R/∂v − Q` by one first-order pass of `R` seeded on `v`, on numbers tagged `Tag`.
#[inline(always)]
fn dissipation_force<T: Declared<N>, const N: usize, Tag: Dim>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, N> {
    passes::dissipation_gradient::<T, N, N, Tag>(term, t, q, v) - term.force(t, q, v)
}

/// The constant mass matrix `M = ∂²T/∂v²` of a term declared `ConstantMass` (zero for
/// `NoKinetic`), by one second-order pass of `T` seeded on `v` at the given state.
pub(crate) fn constant_mass<T: Declared<N>, const N: usize>(
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
pub(crate) fn residual<T: Declared<N>, const N: usize, Tag: Dim>(
    term: &T,
    known: Known<'_, N>,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> SVector<f64, N> {
    let Known { mass, invariant } = known;
    let mut r = relative::residual::<T, N, Tag>(term, invariant, t, q, v).unwrap_or_else(|| {
        let mut r = passes::potential_gradient::<T, N, N, Tag>(term, t, q);
        if term.has_dissipation_or_force() {
            r += dissipation_force::<T, N, Tag>(term, t, q, v);
        }
        r
    });
    if let Some(m) = mass {
        r += m * a;
    }
    r
}

/// The residual and `J = c_M M + c_D ∂r/∂v + c_K ∂r/∂q` of a term with constant mass matrix
/// `known.mass` (`None`: no kinetic energy), with only the passes the weights need.
#[inline]
pub(crate) fn weighted<T: Declared<N>, const N: usize>(
    term: &T,
    known: Known<'_, N>,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
    c: &KernelCoefficients,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    let Known { mass, invariant } = known;
    if let Some((mut r, mut j)) = relative::weighted(term, invariant, t, q, v, c) {
        if let Some(m) = mass {
            r += m * a;
            j += m * c.mass;
        }
        return (r, j);
    }
    let (mut r, mut j) = if c.stiffness != 0.0 {
        let (g, h) = passes::potential_hessian::<T, N, N>(term, t, q);
        (g, h * c.stiffness)
    } else {
        (
            passes::potential_gradient::<T, N, N, Untagged>(term, t, q),
            SMatrix::zeros(),
        )
    };
    if let Some(m) = mass {
        r += m * a;
        j += m * c.mass;
    }
    if term.has_dissipation_or_force() {
        if c.stiffness == 0.0 && c.damping == 0.0 {
            r += dissipation_force::<T, N, Untagged>(term, t, q, v);
        } else {
            let p =
                passes::dissipation_force_newton::<T, N, N>(term, t, q, v, c.stiffness, c.damping);
            r += p.rv - p.force;
            j += p.a - p.b;
        }
    }
    (r, j)
}

/// The kinetic part of the residual of a `PointMasses` term, `Σ_a J_aᵀ f_a` with
/// `f_a = Σ_b m_ab ẍ_b`: the points evaluated once on `DualSVec<Dual2>` — the outer dual seeded
/// on `q` gives `J_a`, the inner one along the path `(q + v s + a s²/2, t + s)` gives `ẍ_a`.
#[inline]
fn point_inertia<T: Declared<N>, const N: usize>(
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
                .filter(|&(_, &mab)| mab != 0.0)
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
pub(crate) fn residual_point_masses<T: Declared<N>, const N: usize, Tag: Dim>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> SVector<f64, N> {
    let mut r =
        point_inertia(term, t, q, v, a) + passes::potential_gradient::<T, N, N, Tag>(term, t, q);
    if term.has_dissipation_or_force() {
        r += dissipation_force::<T, N, Tag>(term, t, q, v);
    }
    r
}
