//! Distance constraints between two points (or a point and an anchor): the smooth form
//! `½(|x₂ − x₁|² − ℓ²)` ([`Rod`], [`AnchoredRod`]), the length form `|x₂ − x₁| − ℓ`
//! ([`Distance`], [`AnchoredDistance`]) and their hand kernels ([`DistanceKernel`],
//! [`AnchoredDistanceKernel`]). Each law is written once, in the squared separation; the
//! anchored forms are the same law with the first point fixed.

use super::points::sub;
use super::{Mat, Points, V};
use crate::expr::taylor::TaylorVar;
use crate::model::Constraint;
use crate::model::euler_lagrange::constraint_force;
use crate::model::kernel::{ConstraintBlocks, ConstraintKernel};
use nalgebra::{SMatrix, SVector};
use num_dual::DualNum;

/// `|x₂ − x₁|²` of `q = [x₁, x₂]` (points of dimension `D`, `N = 2D`), or `|x − p|²` of
/// `q = x` (`N = D`) with `anchor = Some(p)`.
#[inline(always)]
fn separation_squared<T: DualNum<Primitive = f64> + Copy, const N: usize, const D: usize>(
    q: &SVector<T, N>,
    anchor: Option<&[f64; D]>,
) -> T {
    let mut s = T::from(0.0);
    for k in 0..D {
        let d = match anchor {
            Some(p) => q[k] - p[k],
            None => q[D + k] - q[k],
        };
        s += d * d;
    }
    s
}

/// Distance between two points `x₁ = q[0..D]`, `x₂ = q[D..2D]` held at `length`:
/// `C = ½(|x₂ − x₁|² − ℓ²)` (the smooth, square-root-free form).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rod<const D: usize> {
    /// Length `ℓ`.
    pub length: f64,
}

impl<const D: usize> Rod<D> {
    /// `½(s − ℓ²)` of the squared separation `s`.
    #[inline(always)]
    fn law<T: DualNum<Primitive = f64> + Copy>(&self, s: T) -> SVector<T, 1> {
        SVector::from([(s - self.length * self.length) * 0.5])
    }
}

macro_rules! impl_rod {
    ($d:literal, $n:literal) => {
        impl Constraint<$n, 1> for Rod<$d> {
            #[inline(always)]
            fn constraint<T: DualNum<Primitive = f64> + Copy>(
                &self,
                _t: T,
                q: &SVector<T, $n>,
            ) -> SVector<T, 1> {
                self.law(separation_squared::<T, $n, $d>(q, None))
            }
        }
    };
}
impl_rod!(2, 4);
impl_rod!(3, 6);

/// Distance from a point `x = q` to a fixed point `p`, held at `length`:
/// `C = ½(|x − p|² − ℓ²)`, [`Rod`] with its first point fixed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnchoredRod<const D: usize> {
    /// The fixed point.
    pub anchor: [f64; D],
    /// Length `ℓ`.
    pub length: f64,
}

impl<const D: usize> Constraint<D, 1> for AnchoredRod<D> {
    #[inline(always)]
    fn constraint<T: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: T,
        q: &SVector<T, D>,
    ) -> SVector<T, 1> {
        let rod = Rod::<D> {
            length: self.length,
        };
        rod.law(separation_squared::<T, D, D>(q, Some(&self.anchor)))
    }
}

/// The distance constraint of the mass–spring course code: `C = |x₂ − x₁| − ℓ` (a length, so
/// `λ` is the rod force), `C_q = [−nᵀ, nᵀ]` with `n` the unit vector from `x₁` to `x₂`.
///
/// ```
/// use lagrangian::model::elements::Distance;
/// use lagrangian::ad::constraint_blocks;
/// let d = Distance::<2> { length: 1.0 };
/// let b = constraint_blocks(&d, 0.0, &[0.0, 0.0, 3.0, 4.0], &[0.0]);
/// assert!((b.c[0] - 4.0).abs() < 1e-12); // |(3, 4)| − 1
/// assert!((b.jac[(0, 2)] - 0.6).abs() < 1e-12 && (b.jac[(0, 1)] + 0.8).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distance<const D: usize> {
    /// Length `ℓ`.
    pub length: f64,
}

impl<const D: usize> Distance<D> {
    /// `√s − ℓ` of the squared separation `s`.
    #[inline(always)]
    fn law<T: DualNum<Primitive = f64> + Copy>(&self, s: T) -> SVector<T, 1> {
        SVector::from([s.sqrt() - self.length])
    }
}

macro_rules! impl_distance {
    ($d:literal, $n:literal) => {
        impl Constraint<$n, 1> for Distance<$d> {
            #[inline(always)]
            fn constraint<T: DualNum<Primitive = f64> + Copy>(
                &self,
                _t: T,
                q: &SVector<T, $n>,
            ) -> SVector<T, 1> {
                self.law(separation_squared::<T, $n, $d>(q, None))
            }
        }
    };
}
impl_distance!(2, 4);
impl_distance!(3, 6);

/// `C = |x − p| − ℓ` to a fixed point `p`: [`Distance`] with its first point fixed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnchoredDistance<const D: usize> {
    /// The fixed point.
    pub anchor: [f64; D],
    /// Length `ℓ`.
    pub length: f64,
}

impl<const D: usize> Constraint<D, 1> for AnchoredDistance<D> {
    #[inline(always)]
    fn constraint<T: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: T,
        q: &SVector<T, D>,
    ) -> SVector<T, 1> {
        let distance = Distance::<D> {
            length: self.length,
        };
        distance.law(separation_squared::<T, D, D>(q, Some(&self.anchor)))
    }
}

/// The hand kernel of [`Distance`], `C = |x₂ − x₁| − ℓ` (a length, so `λ` is the rod force):
///
/// ```text
/// C_q = [−nᵀ, nᵀ],   ∂(C_qᵀλ)/∂q = λ [Mₙ −Mₙ; −Mₙ Mₙ],   Mₙ = (I − n nᵀ)/L,
/// C_t = 0,   γ = Δvᵀ Mₙ Δv
/// ```
///
/// with `n` the unit vector from `x₁` to `x₂`. See [`AnchoredDistanceKernel`] for a fixed `x₁`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceKernel<const D: usize> {
    /// Length `ℓ`.
    pub length: f64,
}

/// The hand kernel of [`AnchoredDistance`], `C = |x − p| − ℓ` to the fixed point `p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnchoredDistanceKernel<const D: usize> {
    /// The fixed point.
    pub anchor: [f64; D],
    /// Length `ℓ`.
    pub length: f64,
}

/// `(L, n)` of the separation `d`.
#[inline(always)]
fn unit<const D: usize>(d: &V<D>) -> (f64, V<D>) {
    let l = d.norm();
    (l, d / l)
}

/// `λ Mₙ = λ (I − n nᵀ)/L`.
#[inline(always)]
fn curvature<const D: usize>(l: f64, n: &V<D>, lambda: f64) -> Mat<D> {
    (Mat::<D>::identity() - n * n.transpose()) * (lambda / l)
}

/// `γ = (|Δv|² − (n·Δv)²)/L`.
#[inline(always)]
fn gamma_of<const D: usize>(d: &V<D>, dv: &V<D>) -> f64 {
    let (l, n) = unit(d);
    (dv.norm_squared() - n.dot(dv).powi(2)) / l
}

impl<const D: usize> ConstraintKernel<D, 1> for AnchoredDistanceKernel<D> {
    fn value(&self, _t: f64, q: &V<D>) -> V<1> {
        V::<1>::new((q - V::<D>::from(self.anchor)).norm() - self.length)
    }
    #[inline(always)]
    fn jacobian(&self, _t: f64, q: &V<D>) -> (V<1>, SMatrix<f64, 1, D>) {
        let (l, n) = unit(&(q - V::<D>::from(self.anchor)));
        (V::<1>::new(l - self.length), n.transpose())
    }
    #[inline(always)]
    fn blocks(&self, _t: f64, q: &V<D>, lambda: &V<1>) -> ConstraintBlocks<D, 1> {
        let (l, n) = unit(&(q - V::<D>::from(self.anchor)));
        ConstraintBlocks {
            c: V::<1>::new(l - self.length),
            jac: n.transpose(),
            hess_lambda: curvature(l, &n, lambda[0]),
        }
    }
    fn time_derivative(&self, _t: f64, _q: &V<D>) -> V<1> {
        V::<1>::zeros()
    }
    fn gamma(&self, _t: f64, q: &V<D>, v: &V<D>) -> V<1> {
        V::<1>::new(gamma_of(&(q - V::<D>::from(self.anchor)), v))
    }
    fn taylor_value(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, D>,
    ) -> Option<SVector<TaylorVar, 1>> {
        let law = AnchoredDistance {
            anchor: self.anchor,
            length: self.length,
        };
        Some(law.constraint(t, q))
    }
    fn taylor_force(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, D>,
        lambda: &SVector<TaylorVar, 1>,
    ) -> Option<SVector<TaylorVar, D>> {
        let law = AnchoredDistance {
            anchor: self.anchor,
            length: self.length,
        };
        Some(constraint_force(&law, t, q, lambda))
    }
}

macro_rules! impl_distance_kernel {
    ($d:literal, $n:literal) => {
        impl ConstraintKernel<$n, 1> for DistanceKernel<$d> {
            fn value(&self, _t: f64, q: &V<$n>) -> V<1> {
                let d = q.fixed_rows::<$d>($d) - q.fixed_rows::<$d>(0);
                V::<1>::new(d.norm() - self.length)
            }
            #[inline(always)]
            fn jacobian(&self, _t: f64, q: &V<$n>) -> (V<1>, SMatrix<f64, 1, $n>) {
                let (l, n) = unit(&(q.fixed_rows::<$d>($d) - q.fixed_rows::<$d>(0)));
                let mut jac = SMatrix::<f64, 1, $n>::zeros();
                jac.fixed_columns_mut::<$d>(0).copy_from(&(-n.transpose()));
                jac.fixed_columns_mut::<$d>($d).copy_from(&n.transpose());
                (V::<1>::new(l - self.length), jac)
            }
            #[inline(always)]
            fn blocks(&self, t: f64, q: &V<$n>, lambda: &V<1>) -> ConstraintBlocks<$n, 1> {
                let (c, jac) = self.jacobian(t, q);
                let (l, n) = unit(&(q.fixed_rows::<$d>($d) - q.fixed_rows::<$d>(0)));
                let m = curvature(l, &n, lambda[0]);
                let mut h = Mat::<$n>::zeros();
                h.fixed_view_mut::<$d, $d>(0, 0).copy_from(&m);
                h.fixed_view_mut::<$d, $d>($d, $d).copy_from(&m);
                h.fixed_view_mut::<$d, $d>(0, $d).copy_from(&(-m));
                h.fixed_view_mut::<$d, $d>($d, 0).copy_from(&(-m));
                ConstraintBlocks {
                    c,
                    jac,
                    hess_lambda: h,
                }
            }
            fn time_derivative(&self, _t: f64, _q: &V<$n>) -> V<1> {
                V::<1>::zeros()
            }
            fn gamma(&self, _t: f64, q: &V<$n>, v: &V<$n>) -> V<1> {
                let d = q.fixed_rows::<$d>($d) - q.fixed_rows::<$d>(0);
                let dv = v.fixed_rows::<$d>($d) - v.fixed_rows::<$d>(0);
                V::<1>::new(gamma_of(&d, &dv))
            }
            fn taylor_value(
                &self,
                t: TaylorVar,
                q: &SVector<TaylorVar, $n>,
            ) -> Option<SVector<TaylorVar, 1>> {
                Some(
                    Distance::<$d> {
                        length: self.length,
                    }
                    .constraint(t, q),
                )
            }
            fn taylor_force(
                &self,
                t: TaylorVar,
                q: &SVector<TaylorVar, $n>,
                lambda: &SVector<TaylorVar, 1>,
            ) -> Option<SVector<TaylorVar, $n>> {
                let law = Distance::<$d> {
                    length: self.length,
                };
                Some(constraint_force(&law, t, q, lambda))
            }
        }
    };
}
impl_distance_kernel!(2, 4);
impl_distance_kernel!(3, 6);

/// The distance constraint between two points of the mechanism (bars, the rigidity of a planar
/// body): `C = ½ (|P₁ − P₀|² − ℓ²)`, so `C_q = (P₁ − P₀)·∂(P₁ − P₀)/∂q` and `λ ℓ` is the bar's
/// tension.
///
/// ```
/// use lagrangian::model::elements::{DistanceBetween, Points};
/// use lagrangian::ad::constraint_blocks;
/// let bar = DistanceBetween { ends: Points::plain(2, 2), length: 1.0 };
/// let b = constraint_blocks::<_, 4, 1>(&bar, 0.0, &[0.0, 0.0, 3.0, 4.0], &[0.0]);
/// assert!((b.c[0] - 12.0).abs() < 1e-12); // ½ (25 − 1)
/// assert!((b.jac[(0, 2)] - 3.0).abs() < 1e-12 && (b.jac[(0, 1)] + 4.0).abs() < 1e-12);
/// ```
#[derive(Clone, Debug)]
pub struct DistanceBetween {
    /// The two points.
    pub ends: Points,
    /// Length `ℓ`.
    pub length: f64,
}

impl<const N: usize> Constraint<N, 1> for DistanceBetween {
    fn constraint<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
    ) -> SVector<T, 1> {
        let p = &self.ends;
        let d = sub(&p.pos(1, q, t), &p.pos(0, q, t));
        let rod = Rod::<3> {
            length: self.length,
        };
        rod.law(p.dot(&d, &d))
    }
}
