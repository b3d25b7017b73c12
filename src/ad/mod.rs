//! Euler–Lagrange residual and its exact Jacobians by forward automatic differentiation.
//!
//! For a term with Lagrangian `L(t,q,v)`, dissipation `R` and forces `Q` on `N` local coordinates
//! the residual is
//!
//! ```text
//! r(t,q,v,a) = d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q,    d/dt ∂L/∂v = L_vv a + L_vq v + L_vt
//! ```
//!
//! `d/dt ∂L/∂v` is one forward pass: `L` is evaluated on `DualSVec<Dual<S>, N>`, the inner
//! `Dual` carrying the direction `(q̇, v̇, ṫ) = (v, a, 1)` and the outer vector dual the gradient
//! in `v`. With `S = f64` this gives the residual; with `S = DualSVec<f64, N>` seeded on `q` (resp.
//! `v`) it gives `K = ∂r/∂q` (resp. `C_t = ∂r/∂v` and, as a by-product, `M = L_vv = ∂r/∂a`) —
//! third derivatives of `L`, all at static size.
//!
//! For a constraint block `C(t,q) ∈ Rᴹ` a second-order vector dual gives `C`, `C_q` and
//! `Σ λ_k ∇²C_k` in one pass; a scalar `Dual2` along `(q̇, ṫ) = (v, 1)` gives
//! `C_qq(v,v) + 2 C_qt v + C_tt`, the acceleration-level right-hand side.
//!
//! The public functions here evaluate one local term or constraint; they are what the
//! assembly calls and what tests compare with closed forms and finite differences.

mod builder;
mod compare;
mod dense;
mod detect;
mod expr;
mod padded;
mod passes;
pub mod place;
mod quadratic;
mod relative;
mod sampled;
mod structured;
mod verify;

pub use compare::{compare_constraint_kernels, compare_term_kernels};
pub use expr::ExprKernel;
pub use place::Derivatives;

use crate::expr::taylor::TaylorVar;
use crate::model::euler_lagrange::{
    constant_mass_residual, constraint_force, el_residual, series_residual,
};
pub use crate::model::kernel::ConstraintBlocks;
use crate::model::kernel::{ConstraintKernel, KernelCoefficients, TermKernel};
use crate::model::{Constraint, Declared, Structure, may_write_mass, no_kinetic};
use dense::{Dense1S, Dense2S, Site, Untagged};
use nalgebra::{Const, Dim, SMatrix, SVector, U1};
use num_dual::{Dual2, Dual64, DualSVec, DualStruct};
use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::OnceLock;

/// Euler–Lagrange residual `r = d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q` of one term.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::ad::term_residual;
/// // Pendulum in its angle: L = ½ m ℓ² θ̇² + m g ℓ cos θ  ⇒  r = m ℓ² θ̈ + m g ℓ sin θ.
/// struct Angle;
/// impl Term<1> for Angle {
///     fn lagrangian<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 1>, v: &SVector<D, 1>) -> D {
///         v[0] * v[0] * 0.5 + q[0].cos() * 9.81
///     }
/// }
/// let r = term_residual(&Angle, 0.0, &[0.3], &[2.0], &[-1.0]);
/// assert!((r[0] - (-1.0 + 9.81 * 0.3f64.sin())).abs() < 1e-14);
/// ```
pub fn term_residual<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &[f64],
    v: &[f64],
    a: &[f64],
) -> SVector<f64, N> {
    let (q, v, a) = (
        SVector::from_column_slice(q),
        SVector::from_column_slice(v),
        SVector::from_column_slice(a),
    );
    match term.structure() {
        Structure::General | Structure::MassMatrix => return el_residual(term, t, &q, &v, &a).0,
        Structure::PointMasses => {
            return structured::residual_point_masses::<T, N, Untagged>(term, t, &q, &v, &a);
        }
        Structure::NoKinetic | Structure::ConstantMass => {}
    }
    let mass = structured::constant_mass(term, t, &q, &v);
    let known = structured::Known {
        mass: Some(&mass),
        invariant: false,
    };
    structured::residual::<T, N, Untagged>(term, known, t, &q, &v, &a)
}

/// Local blocks of one term: residual `r`, mass matrix `M = ∂r/∂a = L_vv`,
/// damping/gyroscopic matrix `C_t = ∂r/∂v` and stiffness `K = ∂r/∂q`.
#[derive(Clone, Debug)]
pub struct TermBlocks<const N: usize> {
    /// Residual `r(t,q,v,a)`.
    pub r: SVector<f64, N>,
    /// `∂r/∂a`.
    pub mass: SMatrix<f64, N, N>,
    /// `∂r/∂v`.
    pub damping: SMatrix<f64, N, N>,
    /// `∂r/∂q`.
    pub stiffness: SMatrix<f64, N, N>,
}

/// Residual and all Jacobian blocks of one term by forward AD (two passes with third-order
/// nested duals for a [`Structure::General`] term; second order at most otherwise).
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::ad::term_blocks;
/// // Harmonic oscillator with a velocity-dependent Lagrangian: L = ½ m v² − ½ k q², R = ½ c v².
/// struct Osc;
/// impl Term<1> for Osc {
///     fn kinetic<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, 1>, v: &SVector<D, 1>) -> D { v[0] * v[0] * 1.5 }
///     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 1>) -> D { q[0] * q[0] * 2.0 }
///     fn dissipation<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, 1>, v: &SVector<D, 1>) -> D { v[0] * v[0] * 0.25 }
/// }
/// let b = term_blocks(&Osc, 0.0, &[0.5], &[1.0], &[2.0]);
/// assert_eq!((b.mass[0], b.damping[0], b.stiffness[0]), (3.0, 0.5, 4.0));
/// assert!((b.r[0] - (3.0 * 2.0 + 4.0 * 0.5 + 0.5 * 1.0)).abs() < 1e-14);
/// ```
pub fn term_blocks<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &[f64],
    v: &[f64],
    a: &[f64],
) -> TermBlocks<N> {
    let qf = SVector::<f64, N>::from_column_slice(q);
    let vf = SVector::<f64, N>::from_column_slice(v);
    let af = SVector::<f64, N>::from_column_slice(a);
    term_blocks_static(term, t, &qf, &vf, &af)
}

/// The AD pass seeded on `q`: the residual and `K = ∂r/∂q`.
#[inline]
fn stiffness_pass<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    type S<const N: usize> = DualSVec<f64, N>;
    let q_seed = SVector::<S<N>, N>::from_fn(|i, _| S::from_re(q[i]).derivative(i));
    let v_plain = v.map(S::from_re);
    let (rq, _) = el_residual(term, S::from_re(t), &q_seed, &v_plain, &a.map(S::from_re));
    let mut k = SMatrix::<f64, N, N>::zeros();
    for i in 0..N {
        k.set_row(i, &rq[i].eps.unwrap_generic(Const::<N>, U1).transpose());
    }
    (rq.map(|x| x.re), k)
}

/// The AD pass seeded on `v`: the residual, `D = ∂r/∂v` and (from the momenta) `M = ∂r/∂a`.
#[inline]
fn velocity_pass<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> (SVector<f64, N>, SMatrix<f64, N, N>, SMatrix<f64, N, N>) {
    type S<const N: usize> = DualSVec<f64, N>;
    let v_seed = SVector::<S<N>, N>::from_fn(|i, _| S::from_re(v[i]).derivative(i));
    let q_plain = q.map(S::from_re);
    let (rv, p) = el_residual(term, S::from_re(t), &q_plain, &v_seed, &a.map(S::from_re));
    let (mut d, mut m) = (SMatrix::<f64, N, N>::zeros(), SMatrix::<f64, N, N>::zeros());
    for i in 0..N {
        d.set_row(i, &rv[i].eps.unwrap_generic(Const::<N>, U1).transpose());
        m.set_row(i, &p[i].eps.unwrap_generic(Const::<N>, U1).transpose());
    }
    (rv.map(|x| x.re), d, m)
}

/// `M = ∂r/∂a = ∂²L/∂v²` in one second-order pass seeded on `v` alone, on the dense
/// second-order number: num-dual's `Dual2SVec` spent 64 % of a DOP853 run of Andrews'
/// mechanism in its products (benches/README.md, session 23).
#[inline]
fn mass_pass<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SMatrix<f64, N, N> {
    type S<const N: usize> = dense::Dense2S<N>;
    let v_seed = SVector::<S<N>, N>::from_fn(|i, _| S::from_re(v[i]).derivative(i));
    let l = term.lagrangian(S::from_re(t), &q.map(S::from_re), &v_seed);
    l.v2.unwrap_generic(Const::<N>, Const::<N>)
}

#[inline]
fn term_blocks_static<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> TermBlocks<N> {
    if matches!(
        term.structure(),
        Structure::NoKinetic | Structure::ConstantMass
    ) {
        let mass = structured::constant_mass(term, t, q, v);
        let known = structured::Known {
            mass: Some(&mass),
            invariant: false,
        };
        let w = |mass, damping, stiffness| KernelCoefficients {
            mass,
            damping,
            stiffness,
        };
        let (r, stiffness) = structured::weighted(term, known, t, q, v, a, &w(0.0, 0.0, 1.0));
        let (_, damping) = structured::weighted(term, known, t, q, v, a, &w(0.0, 1.0, 0.0));
        return TermBlocks {
            r,
            mass,
            damping,
            stiffness,
        };
    }
    let (_, stiffness) = stiffness_pass(term, t, q, v, a);
    let (r, damping, mass) = velocity_pass(term, t, q, v, a);
    TermBlocks {
        r,
        mass,
        damping,
        stiffness,
    }
}

/// Energies of one term: kinetic `T`, potential `V` and the energy function
/// `h = v·∂L/∂v − L` (equal to `T + V` for `T` quadratic in `v`).
pub fn term_energy<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &[f64],
    v: &[f64],
) -> [f64; 3] {
    let qf = SVector::<f64, N>::from_column_slice(q);
    let vf = SVector::<f64, N>::from_column_slice(v);
    let tv = DualSVec::<f64, N>::from_re(t);
    let qd = SVector::<DualSVec<f64, N>, N>::from_fn(|i, _| DualSVec::from_re(qf[i]));
    let vd = SVector::<DualSVec<f64, N>, N>::from_fn(|i, _| DualSVec::from_re(vf[i]).derivative(i));
    let l = term.lagrangian(tv, &qd, &vd);
    let p = l.eps.unwrap_generic(Const::<N>, U1);
    [
        term.kinetic(t, &qf, &vf),
        term.potential(t, &qf),
        p.dot(&vf) - l.re,
    ]
}

/// Powers of one term: `[Q·v, v·∂R/∂v, −∂L/∂t]` (applied forces, Rayleigh dissipation,
/// explicit time dependence), each by one first-order forward pass along `v` or `t`.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::ad::term_power;
/// // a damped, forced oscillator with a time-dependent spring: L = ½v² − ½(1 + t)q²,
/// // R = ½·0.3·v², Q = 2
/// struct Osc;
/// impl Term<1> for Osc {
///     fn kinetic<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, 1>, v: &SVector<D, 1>) -> D {
///         v[0] * v[0] * 0.5
///     }
///     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, 1>) -> D {
///         (t + 1.0) * q[0] * q[0] * 0.5
///     }
///     fn dissipation<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, 1>, v: &SVector<D, 1>) -> D {
///         v[0] * v[0] * 0.15
///     }
///     fn force<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, 1>, _v: &SVector<D, 1>) -> SVector<D, 1> {
///         SVector::from([D::from(2.0)])
///     }
/// }
/// // at q = 2, v = 3: Q·v = 6, v·∂R/∂v = 0.3·9 = 2.7, −∂L/∂t = ½q² = 2
/// let [w, d, e] = term_power::<_, 1>(&Osc, 0.5, &[2.0], &[3.0]);
/// assert_eq!(w, 6.0);
/// assert!((d - 2.7).abs() < 1e-14 && (e - 2.0).abs() < 1e-14);
/// ```
pub fn term_power<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &[f64],
    v: &[f64],
) -> [f64; 3] {
    let qf = SVector::<f64, N>::from_column_slice(q);
    let vf = SVector::<f64, N>::from_column_slice(v);
    let (applied, dissipated) = if term.has_dissipation_or_force() {
        let qd = qf.map(Dual64::from_re);
        let vd = SVector::<Dual64, N>::from_fn(|i, _| Dual64::new(vf[i], vf[i]));
        let r = term.dissipation(Dual64::from_re(t), &qd, &vd);
        (term.force(t, &qf, &vf).dot(&vf), r.eps)
    } else {
        (0.0, 0.0)
    };
    let td = Dual64::from_re(t).derivative();
    let l = term.lagrangian(td, &qf.map(Dual64::from_re), &vf.map(Dual64::from_re));
    [applied, dissipated, -l.eps]
}

/// `C`, `C_q` and `∂(C_qᵀλ)/∂q` in one second-order forward pass.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::ad::constraint_blocks;
/// struct Circle;
/// impl Constraint<2, 1> for Circle {
///     fn constraint<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> SVector<D, 1> {
///         SVector::from([(q[0] * q[0] + q[1] * q[1] - 1.0) * 0.5])
///     }
/// }
/// let b = constraint_blocks(&Circle, 0.0, &[0.6, -0.8], &[2.0]);
/// assert!(b.c[0].abs() < 1e-15);
/// assert_eq!((b.jac[(0, 0)], b.jac[(0, 1)]), (0.6, -0.8));
/// assert_eq!(b.hess_lambda, nalgebra::Matrix2::identity() * 2.0);
/// ```
#[inline]
pub fn constraint_blocks<C: Constraint<N, M>, const N: usize, const M: usize>(
    con: &C,
    t: f64,
    q: &[f64],
    lambda: &[f64],
) -> ConstraintBlocks<N, M> {
    // dense parts (`dense`): branch-free operations that inline into a user's constraint
    let td = Dense2S::<N>::from_re(t);
    let qd = SVector::<Dense2S<N>, N>::from_fn(|i, _| Dense2S::from_re(q[i]).derivative(i));
    let c = con.constraint(td, &qd);
    let mut out = ConstraintBlocks::<N, M> {
        c: SVector::zeros(),
        jac: SMatrix::zeros(),
        hess_lambda: SMatrix::zeros(),
    };
    for k in 0..M {
        out.c[k] = c[k].re;
        let g: nalgebra::SMatrix<f64, 1, N> = c[k].v1.unwrap_generic(U1, Const::<N>);
        out.jac.set_row(k, &g);
        if lambda[k] != 0.0 {
            let h = c[k].v2.unwrap_generic(Const::<N>, Const::<N>);
            out.hess_lambda += h * lambda[k];
        }
    }
    out
}

/// `C` and `C_q` (first-order pass).
#[inline]
pub fn constraint_jacobian<C: Constraint<N, M>, const N: usize, const M: usize>(
    con: &C,
    t: f64,
    q: &[f64],
) -> (SVector<f64, M>, SMatrix<f64, M, N>) {
    let td = Dense1S::<N>::from_re(t);
    let qd = SVector::<Dense1S<N>, N>::from_fn(|i, _| Dense1S::from_re(q[i]).derivative(i));
    let c = con.constraint(td, &qd);
    let mut jac = SMatrix::<f64, M, N>::zeros();
    let mut val = SVector::<f64, M>::zeros();
    for k in 0..M {
        val[k] = c[k].re;
        let g = c[k].eps.unwrap_generic(Const::<N>, U1);
        jac.set_row(k, &g.transpose());
    }
    (val, jac)
}

/// Explicit time derivative `C_t` of a rheonomic constraint.
pub fn constraint_dt<C: Constraint<N, M>, const N: usize, const M: usize>(
    con: &C,
    t: f64,
    q: &[f64],
) -> SVector<f64, M> {
    let td = Dual64::from_re(t).derivative();
    let qd = SVector::<Dual64, N>::from_fn(|i, _| Dual64::from_re(q[i]));
    con.constraint(td, &qd).map(|c| c.eps)
}

/// `γ = C_qq(v,v) + 2 C_qt v + C_tt`, so that `d²C/dt² = C_q q̈ + γ` along a motion.
#[inline]
pub fn constraint_gamma<C: Constraint<N, M>, const N: usize, const M: usize>(
    con: &C,
    t: f64,
    q: &[f64],
    v: &[f64],
) -> SVector<f64, M> {
    let td = Dual2::new(t, 1.0, 0.0);
    let qd = SVector::<Dual2<f64>, N>::from_fn(|i, _| Dual2::new(q[i], v[i], 0.0));
    con.constraint(td, &qd).map(|c| c.v2)
}

// ---------------------------------------------------------------------------------------------
// AD implementations of the element kernels.

/// A [`Term`](crate::model::Term) (any [`Declared`]) turned into a [`TermKernel`] by forward
/// AD, along the derivation its [`Structure`] allows.
pub struct TermAd<T, const N: usize> {
    /// The term, with what it leaves out detected (`detect`).
    term: detect::Detected<T>,
    /// The constant mass matrix of a `ConstantMass` term that writes `kinetic` (one that writes
    /// `mass` is asked for it where it is needed), from the first state it sees. Boxed:
    /// inline, an `N × N` matrix every term carries (288 bytes for a spring between two 3D
    /// points, which needs none) would spread a large group's kernels over memory.
    mass: OnceLock<Box<SMatrix<f64, N, N>>>,
}

impl<T: Declared<N>, const N: usize> TermAd<T, N> {
    /// Wrap a term, with what it leaves out detected. What a [`Declared`] term declares is
    /// taken as it is here: [`ModelBuilder::term`](crate::model::ModelBuilder::term) checks it
    /// (on the first term of a type) before it wraps the term.
    pub fn new(term: T) -> Self {
        let term = detect::Detected::new(term);
        Self {
            term,
            mass: OnceLock::new(),
        }
    }

    /// What the structured passes take beside the term: `mass`, and translation invariance
    /// found at sample states.
    #[inline(always)]
    fn known<'a>(&self, mass: Option<&'a SMatrix<f64, N, N>>) -> structured::Known<'a, N> {
        structured::Known {
            mass,
            invariant: self.term.invariant,
        }
    }

    /// The residual of a `General` or `PointMasses` term. The inputs are taken by value: the
    /// assembly's loop gathers them into registers, and a reference passed to a function that
    /// is not inlined would keep them in memory on every path — the structured passes would then
    /// reload pairs of them from two separate stores (a stalled store forward per pair).
    #[inline(never)]
    fn residual_general<Tag: Dim>(
        &self,
        t: f64,
        q: SVector<f64, N>,
        v: SVector<f64, N>,
        a: SVector<f64, N>,
    ) -> SVector<f64, N> {
        match self.term.structure {
            Structure::PointMasses => {
                structured::residual_point_masses::<_, N, Tag>(&self.term, t, &q, &v, &a)
            }
            // a constant guard: for a type that cannot write a mass matrix the arm is not compiled
            Structure::MassMatrix if may_write_mass::<T, N>() => {
                quadratic::residual_and_mass(&self.term, t, &q, &v, &a).0
            }
            _ => el_residual(&self.term, t, &q, &v, &a).0,
        }
    }

    /// The residual along the term's structure ([`TermKernel::residual`]), its first-order
    /// passes on numbers tagged `Tag`.
    #[inline(always)]
    fn residual_at<Tag: Dim>(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
    ) -> SVector<f64, N> {
        if no_kinetic::<T, N>() {
            return structured::residual::<_, N, Tag>(&self.term, self.known(None), t, q, v, a);
        }
        match self.term.structure {
            Structure::General | Structure::PointMasses | Structure::MassMatrix => {
                self.residual_general::<Tag>(t, *q, *v, *a)
            }
            Structure::NoKinetic | Structure::ConstantMass => {
                let mut r =
                    structured::residual::<_, N, Tag>(&self.term, self.known(None), t, q, v, a);
                if self.term.structure == Structure::ConstantMass {
                    // a written matrix by value, in registers: behind the pointer `mass` gives
                    // (borrowed or owned), a point mass's `m·I` went to the stack number by
                    // number and came back in pairs — a stalled store forward per pair, nearly
                    // half of the point masses' loop
                    match self.term.written_constant_mass() {
                        Some(m) => r += m * a,
                        None => r += self.kept_mass(t, q, v) * a,
                    }
                }
                r
            }
        }
    }

    /// The residual and weighted Jacobian along the term's structure
    /// ([`TermKernel::jacobian`]).
    #[inline]
    fn jacobian_at(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
        c: &KernelCoefficients,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        if no_kinetic::<T, N>() {
            // a constant: the paths of a kinetic energy are not compiled for this type
            return structured::weighted(&self.term, self.known(None), t, q, v, a, c);
        }
        match self.term.structure {
            Structure::MassMatrix if may_write_mass::<T, N>() => {
                if c.stiffness == 0.0 && c.damping == 0.0 {
                    let (r, m) = quadratic::residual_and_mass(&self.term, t, q, v, a);
                    return (r, m * c.mass);
                }
                return weighted_blocks(&detect::Written(&self.term), t, q, v, a, c);
            }
            // (a `MassMatrix` here only for a type that says it cannot be one: the general
            // passes through the term's own Lagrangian are right for it too)
            Structure::General | Structure::PointMasses | Structure::MassMatrix => {
                return weighted_blocks(&self.term, t, q, v, a, c);
            }
            Structure::NoKinetic | Structure::ConstantMass => {}
        }
        let mass = self.mass(t, q, v);
        structured::weighted(&self.term, self.known(mass.as_deref()), t, q, v, a, c)
    }

    /// The constant mass matrix (`None` for `NoKinetic`).
    #[inline(always)]
    fn mass(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> Option<Cow<'_, SMatrix<f64, N, N>>> {
        if self.term.structure != Structure::ConstantMass {
            return None;
        }
        // a mass matrix the term writes (`Term::mass`) is taken as written, inlined into the
        // assembly's loop: a point mass's `m·I` costs nothing there, where a matrix kept
        // aside is 72 bytes more per element to read on every residual
        if let Some(m) = self.term.written_constant_mass() {
            return Some(Cow::Owned(m));
        }
        Some(Cow::Borrowed(self.kept_mass(t, q, v)))
    }

    /// The constant mass matrix kept from the first state the term saw (a `ConstantMass` term
    /// that writes `kinetic`).
    #[inline(always)]
    fn kept_mass(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> &SMatrix<f64, N, N> {
        match self.mass.get() {
            Some(m) => m,
            None => self.first_mass(t, *q, *v),
        }
    }

    /// The constant mass matrix from the first state a term sees (by value, as
    /// [`residual_general`](Self::residual_general)'s inputs).
    #[cold]
    #[inline(never)]
    fn first_mass(&self, t: f64, q: SVector<f64, N>, v: SVector<f64, N>) -> &SMatrix<f64, N, N> {
        self.mass
            .get_or_init(|| Box::new(structured::constant_mass(&self.term, t, &q, &v)))
    }
}

/// The residual and `J = c_M ∂r/∂a + c_D ∂r/∂v + c_K ∂r/∂q` by one pass on first-order duals
/// seeded along the Newton direction `(q, v, a) + εᵢ (c_K, c_D, c_M) eᵢ`: `∂r/∂εᵢ` is column
/// `i` of `J` (one pass instead of the stiffness and velocity passes, whose blocks it would
/// weight and add).
#[inline]
fn newton_pass<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
    c: &KernelCoefficients,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    type S<const N: usize> = DualSVec<f64, N>;
    let seed = |x: &SVector<f64, N>, w: f64| {
        SVector::<S<N>, N>::from_fn(|i, _| {
            let mut s = S::from_re(x[i]);
            s.eps = num_dual::Derivative::derivative_generic(Const::<N>, U1, i) * w;
            s
        })
    };
    let (r, _) = el_residual(
        term,
        S::from_re(t),
        &seed(q, c.stiffness),
        &seed(v, c.damping),
        &seed(a, c.mass),
    );
    let mut j = SMatrix::<f64, N, N>::zeros();
    for i in 0..N {
        j.set_row(i, &r[i].eps.unwrap_generic(Const::<N>, U1).transpose());
    }
    (r.map(|x| x.re), j)
}

/// The residual and `J = c_M M + c_D ∂r/∂v + c_K ∂r/∂q`: the [`newton_pass`]; without `c_D`
/// and `c_K` (the matrix of a state's accelerations: explicit methods, consistent initial
/// values) the residual and `M = ∂²L/∂v²` alone; with `c_K` alone (equilibria, modes) the pass
/// seeded on `q` alone.
#[inline]
fn weighted_blocks<T: Declared<N>, const N: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    a: &SVector<f64, N>,
    c: &KernelCoefficients,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    if c.stiffness == 0.0 && c.damping == 0.0 {
        let (r, _) = el_residual(term, t, q, v, a);
        return (r, mass_pass(term, t, q, v) * c.mass);
    }
    if c.mass == 0.0 && c.damping == 0.0 {
        let (r, k) = stiffness_pass(term, t, q, v, a);
        return (r, k * c.stiffness);
    }
    newton_pass(term, t, q, v, a, c)
}

impl<T: Declared<N> + 'static, const N: usize> TermKernel<N> for TermAd<T, N> {
    const USES_A: bool = !no_kinetic::<T, N>();
    const PARALLEL: bool = true;
    /// The term's own type places the loop (so LLVM may inline a user's terms into it).
    #[inline(always)]
    fn __placed<R>(f: impl FnOnce() -> R) -> R {
        T::__placed(f)
    }
    fn constant_mass(&self) -> bool {
        matches!(
            self.term.structure,
            Structure::NoKinetic | Structure::ConstantMass
        )
    }
    /// Inlined into the assembly's loop (the general paths are called): a spring's or a
    /// particle's residual is a few nanoseconds, and a call would spill its inputs.
    #[inline(always)]
    fn residual(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
    ) -> SVector<f64, N> {
        self.residual_at::<Untagged>(t, q, v, a)
    }
    const __LOOP_RESIDUAL: bool = true;
    /// On numbers of this kernel's own (`Site<Self>`): the assembly's loop is then the one
    /// caller of the user's energies on them, and LLVM inlines them there.
    #[inline(always)]
    fn __loop_residual(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
    ) -> SVector<f64, N> {
        self.residual_at::<Site<Self>>(t, q, v, a)
    }
    #[inline]
    fn jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
        c: &KernelCoefficients,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        self.jacobian_at(t, q, v, a, c)
    }
    fn energy(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> [f64; 3] {
        // `h = p·v − L` without a derivative pass where the kinetic energy is a quadratic form
        // in `v` (Euler's theorem: `p·v = 2T`, so `h = T + V`); the physics check evaluates it
        // for every term every few steps. The constant first: for a type without kinetic energy
        // the arms below are not compiled.
        if no_kinetic::<T, N>() || self.term.structure == Structure::NoKinetic {
            let potential = self.term.potential(t, q);
            return [0.0, potential, potential];
        }
        match self.term.structure {
            Structure::ConstantMass | Structure::MassMatrix => {
                let (kinetic, potential) = (self.term.kinetic(t, q, v), self.term.potential(t, q));
                [kinetic, potential, kinetic + potential]
            }
            _ => term_energy(&self.term, t, q.as_slice(), v.as_slice()),
        }
    }
    fn power(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> [f64; 3] {
        term_power(&self.term, t, q.as_slice(), v.as_slice())
    }
    fn taylor_residual(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, N>,
        v: &SVector<TaylorVar, N>,
        a: &SVector<TaylorVar, N>,
    ) -> Option<SVector<TaylorVar, N>> {
        if no_kinetic::<T, N>() {
            return Some(constant_mass_residual(&self.term, None, t, q, v, a));
        }
        Some(match self.term.structure {
            Structure::NoKinetic | Structure::ConstantMass => {
                let re = |x: &SVector<TaylorVar, N>| x.map(|x| x.re());
                let mass = self.mass(t.re(), &re(q), &re(v));
                constant_mass_residual(&self.term, mass.as_deref(), t, q, v, a)
            }
            Structure::MassMatrix if may_write_mass::<T, N>() => {
                series_residual(&detect::Written(&self.term), t, q, v)
            }
            _ => series_residual(&self.term, t, q, v),
        })
    }
    fn momentum(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N> {
        let tv = DualSVec::<f64, N>::from_re(t);
        let qd = q.map(DualSVec::<f64, N>::from_re);
        let vd =
            SVector::<DualSVec<f64, N>, N>::from_fn(|i, _| DualSVec::from_re(v[i]).derivative(i));
        let l = self.term.lagrangian(tv, &qd, &vd);
        l.eps.unwrap_generic(Const::<N>, U1)
    }
}

/// A [`Constraint`] turned into a [`ConstraintKernel`] by forward AD.
pub struct ConstraintAd<C, const N: usize, const M: usize> {
    con: C,
    _p: PhantomData<[(); M]>,
}

impl<C, const N: usize, const M: usize> ConstraintAd<C, N, M> {
    /// Wrap a constraint.
    pub fn new(con: C) -> Self {
        Self {
            con,
            _p: PhantomData,
        }
    }
}

impl<C: Constraint<N, M> + 'static, const N: usize, const M: usize> ConstraintKernel<N, M>
    for ConstraintAd<C, N, M>
{
    /// The constraint's own type places the loop (so LLVM may inline a user's constraint into it).
    #[inline(always)]
    fn __placed<R>(f: impl FnOnce() -> R) -> R {
        <C as crate::model::Placed>::__placed(f)
    }
    #[inline]
    fn value(&self, t: f64, q: &SVector<f64, N>) -> SVector<f64, M> {
        self.con.constraint(t, q)
    }
    #[inline]
    fn jacobian(&self, t: f64, q: &SVector<f64, N>) -> (SVector<f64, M>, SMatrix<f64, M, N>) {
        constraint_jacobian(&self.con, t, q.as_slice())
    }
    #[inline]
    fn blocks(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        lambda: &SVector<f64, M>,
    ) -> ConstraintBlocks<N, M> {
        constraint_blocks(&self.con, t, q.as_slice(), lambda.as_slice())
    }
    fn time_derivative(&self, t: f64, q: &SVector<f64, N>) -> SVector<f64, M> {
        constraint_dt(&self.con, t, q.as_slice())
    }
    #[inline]
    fn gamma(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, M> {
        constraint_gamma(&self.con, t, q.as_slice(), v.as_slice())
    }
    fn taylor_value(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, N>,
    ) -> Option<SVector<TaylorVar, M>> {
        Some(self.con.constraint(t, q))
    }
    fn taylor_force(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, N>,
        lambda: &SVector<TaylorVar, M>,
    ) -> Option<SVector<TaylorVar, N>> {
        Some(constraint_force(&self.con, t, q, lambda))
    }
}
