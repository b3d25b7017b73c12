//! Distance constraints between two points (or a point and an anchor): the smooth form
//! `½(|x₂ − x₁|² − ℓ²)` ([`Rod`], [`AnchoredRod`]), the length form `|x₂ − x₁| − ℓ`
//! ([`Distance`], [`AnchoredDistance`]) and its hand kernel ([`DistanceKernel`]).

use super::points::sub;
use super::{point, Mat, Points, V};
use crate::model::kernel::{ConstraintKernel, ConstraintSlots};
use crate::model::Constraint;
use nalgebra::{DMatrix, SVector};
use num_dual::DualNum;

/// Distance between two points `x₁ = q[0..D]`, `x₂ = q[D..2D]` held at `length`:
/// `C = ½(|x₂ − x₁|² − ℓ²)` (the smooth, square-root-free form).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rod<const D: usize> {
    /// Length `ℓ`.
    pub length: f64,
}

macro_rules! impl_rod {
    ($d:literal, $n:literal) => {
        impl Constraint<$n, 1> for Rod<$d> {
            fn constraint<T: DualNum<Primitive = f64> + Copy>(
                &self,
                _t: T,
                q: &SVector<T, $n>,
            ) -> SVector<T, 1> {
                let mut s = T::from(0.0);
                for k in 0..$d {
                    let d = q[$d + k] - q[k];
                    s += d * d;
                }
                SVector::from([(s - self.length * self.length) * 0.5])
            }
        }
    };
}
impl_rod!(2, 4);
impl_rod!(3, 6);

/// Distance from a point `x = q` to a fixed point `p`, held at `length`:
/// `C = ½(|x − p|² − ℓ²)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnchoredRod<const D: usize> {
    /// The fixed point.
    pub anchor: [f64; D],
    /// Length `ℓ`.
    pub length: f64,
}

impl<const D: usize> Constraint<D, 1> for AnchoredRod<D> {
    fn constraint<T: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: T,
        q: &SVector<T, D>,
    ) -> SVector<T, 1> {
        let mut s = T::from(0.0);
        for k in 0..D {
            let d = q[k] - self.anchor[k];
            s += d * d;
        }
        SVector::from([(s - self.length * self.length) * 0.5])
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

macro_rules! impl_distance {
    ($d:literal, $n:literal) => {
        impl Constraint<$n, 1> for Distance<$d> {
            fn constraint<T: DualNum<Primitive = f64> + Copy>(
                &self,
                _t: T,
                q: &SVector<T, $n>,
            ) -> SVector<T, 1> {
                let mut s = T::from(0.0);
                for k in 0..$d {
                    let d = q[$d + k] - q[k];
                    s += d * d;
                }
                SVector::from([s.sqrt() - self.length])
            }
        }
    };
}
impl_distance!(2, 4);
impl_distance!(3, 6);

/// `C = |x − p| − ℓ` to a fixed point `p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnchoredDistance<const D: usize> {
    /// The fixed point.
    pub anchor: [f64; D],
    /// Length `ℓ`.
    pub length: f64,
}

impl<const D: usize> Constraint<D, 1> for AnchoredDistance<D> {
    fn constraint<T: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: T,
        q: &SVector<T, D>,
    ) -> SVector<T, 1> {
        let mut s = T::from(0.0);
        for k in 0..D {
            let d = q[k] - self.anchor[k];
            s += d * d;
        }
        SVector::from([s.sqrt() - self.length])
    }
}

/// Seed 000's distance constraint `C = |x₂ − x₁| − ℓ` (or `|x − p| − ℓ` with a fixed `p`):
///
/// ```text
/// C_q = [−nᵀ, nᵀ],   ∂(C_qᵀλ)/∂q = λ [Mₙ −Mₙ; −Mₙ Mₙ],   Mₙ = (I − n nᵀ)/L,
/// C_t = 0,   γ = Δvᵀ Mₙ Δv
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceKernel<const D: usize> {
    /// Length `ℓ`.
    pub length: f64,
    /// Fixed first point, if any.
    pub anchor: Option<[f64; D]>,
}

impl<const D: usize> DistanceKernel<D> {
    #[inline]
    fn geometry(&self, idx: &[usize], q: &[f64]) -> V<D> {
        match self.anchor {
            Some(p) => point::<D>(q, idx, 0) - V::<D>::from(p),
            None => point::<D>(q, idx, D) - point::<D>(q, idx, 0),
        }
    }
    #[inline]
    fn rel_velocity(&self, idx: &[usize], v: &[f64]) -> V<D> {
        match self.anchor {
            Some(_) => point::<D>(v, idx, 0),
            None => point::<D>(v, idx, D) - point::<D>(v, idx, 0),
        }
    }
    /// Local gradient entries `∂C/∂q_j`.
    #[inline]
    fn grad(&self, n: &V<D>, j: usize) -> f64 {
        match self.anchor {
            Some(_) => n[j],
            None if j < D => -n[j],
            None => n[j - D],
        }
    }
}

impl<const D: usize> ConstraintKernel for DistanceKernel<D> {
    fn size(&self) -> usize {
        if self.anchor.is_some() {
            D
        } else {
            2 * D
        }
    }
    fn rows(&self) -> usize {
        1
    }
    fn value(&self, idx: &[usize], _t: f64, q: &[f64], c: &mut [f64]) {
        c[0] = self.geometry(idx, q).norm() - self.length;
    }
    fn add_residual(
        &self,
        idx: &[usize],
        _t: f64,
        q: &[f64],
        lambda: &[f64],
        r: &mut [f64],
        c: &mut [f64],
    ) {
        let d = self.geometry(idx, q);
        let l = d.norm();
        c[0] = l - self.length;
        let n = d / l;
        for j in 0..self.size() {
            r[idx[j]] += self.grad(&n, j) * lambda[0];
        }
    }
    fn add_jacobian(
        &self,
        idx: &[usize],
        _t: f64,
        q: &[f64],
        lambda: &[f64],
        stiffness: f64,
        r: &mut [f64],
        c: &mut [f64],
        values: &mut [f64],
        slots: &ConstraintSlots,
    ) {
        let d = self.geometry(idx, q);
        let l = d.norm();
        c[0] = l - self.length;
        let n = d / l;
        let nl = self.size();
        for j in 0..nl {
            let g = self.grad(&n, j);
            r[idx[j]] += g * lambda[0];
            values[slots.jac[j]] += g;
            values[slots.jac_t[j]] += g;
        }
        let f = stiffness * lambda[0];
        if f != 0.0 {
            let mn = (Mat::<D>::identity() - n * n.transpose()) * (f / l);
            for i in 0..nl {
                for j in 0..nl {
                    let sign = if self.anchor.is_some() || (i < D) == (j < D) {
                        1.0
                    } else {
                        -1.0
                    };
                    values[slots.hess[i * nl + j]] += sign * mn[(i % D, j % D)];
                }
            }
        }
    }
    fn dense_jacobian(
        &self,
        idx: &[usize],
        _t: f64,
        q: &[f64],
        row: usize,
        jac: &mut DMatrix<f64>,
    ) {
        let d = self.geometry(idx, q);
        let n = d / d.norm();
        for j in 0..self.size() {
            jac[(row, idx[j])] += self.grad(&n, j);
        }
    }
    fn time_derivative(&self, _idx: &[usize], _t: f64, _q: &[f64], out: &mut [f64]) {
        out[0] = 0.0;
    }
    fn gamma(&self, idx: &[usize], _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let d = self.geometry(idx, q);
        let l = d.norm();
        let n = d / l;
        let dv = self.rel_velocity(idx, v);
        out[0] = (dv.norm_squared() - n.dot(&dv).powi(2)) / l;
    }
    fn dense_blocks(&self, idx: &[usize], t: f64, q: &[f64], lambda: &[f64]) -> [DMatrix<f64>; 3] {
        let nl = self.size();
        let local: Vec<usize> = (0..nl).collect();
        let ql: Vec<f64> = idx.iter().map(|&i| q[i]).collect();
        let slots_h: Vec<usize> = (0..nl * nl).collect();
        let slots_j: Vec<usize> = (nl * nl..nl * nl + nl).collect();
        let slots_jt: Vec<usize> = (nl * nl + nl..nl * nl + 2 * nl).collect();
        let mut values = vec![0.0; nl * nl + 2 * nl];
        let mut r = vec![0.0; nl];
        let mut c = [0.0];
        let sl = ConstraintSlots {
            hess: &slots_h,
            jac: &slots_j,
            jac_t: &slots_jt,
        };
        self.add_jacobian(
            &local,
            t,
            &ql,
            lambda,
            1.0,
            &mut r,
            &mut c,
            &mut values,
            &sl,
        );
        [
            DMatrix::from_vec(1, 1, c.to_vec()),
            DMatrix::from_row_slice(1, nl, &values[nl * nl..nl * nl + nl]),
            DMatrix::from_row_slice(nl, nl, &values[..nl * nl]),
        ]
    }
}

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
        SVector::from([(p.dot(&d, &d) - self.length * self.length) * 0.5])
    }
}
