//! Hand-derived kernels for mass–spring networks (seed 000 §4.1): residuals and exact Jacobians
//! written out, no AD. Each has an AD twin in [`crate::library::elements`] and tests compare them
//! to 1e-10 relative with [`compare_term_kernels`](crate::ad::compare_term_kernels).

use crate::model::kernel::{ConstraintKernel, ConstraintSlots, KernelCoefficients, TermKernel};
use nalgebra::{DMatrix, SMatrix, SVector};
use std::sync::Arc;

type V<const D: usize> = SVector<f64, D>;
type Mat<const D: usize> = SMatrix<f64, D, D>;

#[inline(always)]
fn point<const D: usize>(x: &[f64], idx: &[usize], off: usize) -> V<D> {
    V::<D>::from_fn(|k, _| x[idx[off + k]])
}

/// Point mass `m` under gravity `g`: `r = m a − m g`, `M = m I`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointMassKernel<const D: usize> {
    /// Mass.
    pub mass: f64,
    /// Gravity (acceleration vector).
    pub gravity: [f64; D],
}

impl<const D: usize> TermKernel for PointMassKernel<D> {
    fn size(&self) -> usize {
        D
    }
    fn add_residual(
        &self,
        idx: &[usize],
        _t: f64,
        _q: &[f64],
        _v: &[f64],
        a: &[f64],
        scale: f64,
        r: &mut [f64],
    ) {
        for k in 0..D {
            r[idx[k]] += scale * self.mass * (a[idx[k]] - self.gravity[k]);
        }
    }
    fn add_jacobian(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        c: &KernelCoefficients,
        r: &mut [f64],
        values: &mut [f64],
        slots: &[usize],
    ) {
        self.add_residual(idx, t, q, v, a, c.scale, r);
        for k in 0..D {
            values[slots[k * D + k]] += c.scale * c.mass * self.mass;
        }
    }
    fn energy(&self, idx: &[usize], _t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
        let (x, u) = (point::<D>(q, idx, 0), point::<D>(v, idx, 0));
        let kin = 0.5 * self.mass * u.norm_squared();
        let pot = -self.mass * x.dot(&V::<D>::from(self.gravity));
        [kin, pot, kin + pot]
    }
    fn dense_blocks(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
    ) -> [DMatrix<f64>; 4] {
        let mut r = vec![0.0; q.len()];
        self.add_residual(idx, t, q, v, a, 1.0, &mut r);
        [
            DMatrix::from_iterator(D, 1, idx.iter().map(|&i| r[i])),
            DMatrix::identity(D, D) * self.mass,
            DMatrix::zeros(D, D),
            DMatrix::zeros(D, D),
        ]
    }
}

/// Spring with axial damping (see [`Spring`](crate::library::elements::Spring) for the energy
/// form). With `d = x₂ − x₁`, `L = |d|`, `n = d/L`, `s = n·(v₂ − v₁)`, the force on `x₂` is
/// `−g`, on `x₁` is `+g`, with
///
/// ```text
/// g = k (L − ℓ₀) n + c s n
/// ∂g/∂d = k n nᵀ + k (L−ℓ₀)/L (I − n nᵀ) + c [ n ((I − n nᵀ) Δv)ᵀ + s (I − n nᵀ) ] / L
/// ∂g/∂Δv = c n nᵀ
/// ```
///
/// so `∂r/∂q = [G −G; −G G]` (material and geometric stiffness, seed 000 §4.1.1) and
/// `∂r/∂v = [H −H; −H H]`. With `anchor` set, `x₁` is that fixed point and only `x₂` is a
/// coordinate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringKernel<const D: usize> {
    /// Stiffness `k`.
    pub stiffness: f64,
    /// Rest length `ℓ₀`.
    pub rest_length: f64,
    /// Axial damping `c`.
    pub damping: f64,
    /// Fixed first end, if any.
    pub anchor: Option<[f64; D]>,
}

impl<const D: usize> SpringKernel<D> {
    /// Spring between two coordinate points.
    pub fn new(stiffness: f64, rest_length: f64, damping: f64) -> Self {
        SpringKernel {
            stiffness,
            rest_length,
            damping,
            anchor: None,
        }
    }
    /// Spring from the fixed point `anchor` to a coordinate point.
    pub fn anchored(anchor: [f64; D], stiffness: f64, rest_length: f64, damping: f64) -> Self {
        SpringKernel {
            stiffness,
            rest_length,
            damping,
            anchor: Some(anchor),
        }
    }

    /// `(d, Δv)` from the local coordinates.
    #[inline(always)]
    fn geometry(&self, idx: &[usize], q: &[f64], v: &[f64]) -> (V<D>, V<D>) {
        match self.anchor {
            Some(p) => (
                point::<D>(q, idx, 0) - V::<D>::from(p),
                point::<D>(v, idx, 0),
            ),
            None => (
                point::<D>(q, idx, D) - point::<D>(q, idx, 0),
                point::<D>(v, idx, D) - point::<D>(v, idx, 0),
            ),
        }
    }

    /// `g = d (k (L − ℓ₀)/L + c (d·Δv)/L²)` with one square root and one division.
    #[inline(always)]
    fn force(&self, d: &V<D>, dv: &V<D>) -> V<D> {
        let l2 = d.norm_squared();
        let l = l2.sqrt();
        let inv = 1.0 / l;
        let mut f = self.stiffness * (l - self.rest_length) * inv;
        if self.damping != 0.0 {
            f += self.damping * d.dot(dv) * inv * inv;
        }
        d * f
    }

    #[inline]
    fn jacobians(&self, d: &V<D>, dv: &V<D>) -> (V<D>, Mat<D>, Mat<D>) {
        let l = d.norm();
        let n = d / l;
        let s = n.dot(dv);
        let nn = n * n.transpose();
        let p = Mat::<D>::identity() - nn;
        let g = n * (self.stiffness * (l - self.rest_length) + self.damping * s);
        let mut gd = nn * self.stiffness + p * (self.stiffness * (l - self.rest_length) / l);
        if self.damping != 0.0 {
            gd += (n * (p * dv).transpose() + p * s) * (self.damping / l);
        }
        (g, gd, nn * self.damping)
    }

    fn scatter(&self, blk: &Mat<D>, f: f64, values: &mut [f64], slots: &[usize]) {
        match self.anchor {
            Some(_) => {
                for i in 0..D {
                    for j in 0..D {
                        values[slots[i * D + j]] += f * blk[(i, j)];
                    }
                }
            }
            None => {
                let n = 2 * D;
                for i in 0..D {
                    for j in 0..D {
                        let x = f * blk[(i, j)];
                        values[slots[i * n + j]] += x;
                        values[slots[(i + D) * n + j + D]] += x;
                        values[slots[i * n + j + D]] -= x;
                        values[slots[(i + D) * n + j]] -= x;
                    }
                }
            }
        }
    }
}

impl<const D: usize> TermKernel for SpringKernel<D> {
    fn size(&self) -> usize {
        if self.anchor.is_some() {
            D
        } else {
            2 * D
        }
    }
    fn add_residual(
        &self,
        idx: &[usize],
        _t: f64,
        q: &[f64],
        v: &[f64],
        _a: &[f64],
        scale: f64,
        r: &mut [f64],
    ) {
        let (d, dv) = self.geometry(idx, q, v);
        let g = self.force(&d, &dv) * scale;
        match self.anchor {
            Some(_) => (0..D).for_each(|k| r[idx[k]] += g[k]),
            None => (0..D).for_each(|k| {
                r[idx[k]] -= g[k];
                r[idx[D + k]] += g[k];
            }),
        }
    }
    fn add_jacobian(
        &self,
        idx: &[usize],
        _t: f64,
        q: &[f64],
        v: &[f64],
        _a: &[f64],
        c: &KernelCoefficients,
        r: &mut [f64],
        values: &mut [f64],
        slots: &[usize],
    ) {
        let (d, dv) = self.geometry(idx, q, v);
        let (g, gd, h) = self.jacobians(&d, &dv);
        let g = g * c.scale;
        match self.anchor {
            Some(_) => (0..D).for_each(|k| r[idx[k]] += g[k]),
            None => (0..D).for_each(|k| {
                r[idx[k]] -= g[k];
                r[idx[D + k]] += g[k];
            }),
        }
        self.scatter(&gd, c.scale * c.stiffness, values, slots);
        if self.damping != 0.0 {
            self.scatter(&h, c.scale * c.damping, values, slots);
        }
    }
    fn energy(&self, idx: &[usize], _t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
        let (d, _) = self.geometry(idx, q, v);
        let e = 0.5 * self.stiffness * (d.norm() - self.rest_length).powi(2);
        [0.0, e, e]
    }
    fn dense_blocks(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
    ) -> [DMatrix<f64>; 4] {
        let n = self.size();
        let local: Vec<usize> = (0..n).collect();
        let ql: Vec<f64> = idx.iter().map(|&i| q[i]).collect();
        let vl: Vec<f64> = idx.iter().map(|&i| v[i]).collect();
        let al: Vec<f64> = idx.iter().map(|&i| a[i]).collect();
        let slots: Vec<usize> = (0..n * n).collect();
        let mut r = vec![0.0; n];
        let (mut kv, mut dv) = (vec![0.0; n * n], vec![0.0; n * n]);
        let ck = KernelCoefficients {
            scale: 1.0,
            mass: 0.0,
            damping: 0.0,
            stiffness: 1.0,
        };
        self.add_jacobian(&local, t, &ql, &vl, &al, &ck, &mut r, &mut kv, &slots);
        let cd = KernelCoefficients {
            scale: 1.0,
            mass: 0.0,
            damping: 1.0,
            stiffness: 0.0,
        };
        let mut r2 = vec![0.0; n];
        self.add_jacobian(&local, t, &ql, &vl, &al, &cd, &mut r2, &mut dv, &slots);
        [
            DMatrix::from_vec(n, 1, r),
            DMatrix::zeros(n, n),
            DMatrix::from_row_slice(n, n, &dv),
            DMatrix::from_row_slice(n, n, &kv),
        ]
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

/// A time-dependent external force `f(t)` on one point: `r = −f(t)`, no Jacobian.
#[derive(Clone)]
pub struct LoadKernel<const D: usize> {
    /// The force as a function of time.
    pub force: Arc<dyn Fn(f64) -> [f64; D] + Send + Sync>,
}

impl<const D: usize> TermKernel for LoadKernel<D> {
    fn size(&self) -> usize {
        D
    }
    fn add_residual(
        &self,
        idx: &[usize],
        t: f64,
        _q: &[f64],
        _v: &[f64],
        _a: &[f64],
        scale: f64,
        r: &mut [f64],
    ) {
        let f = (self.force)(t);
        for k in 0..D {
            r[idx[k]] -= scale * f[k];
        }
    }
    fn add_jacobian(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        c: &KernelCoefficients,
        r: &mut [f64],
        _values: &mut [f64],
        _slots: &[usize],
    ) {
        self.add_residual(idx, t, q, v, a, c.scale, r);
    }
    fn energy(&self, _idx: &[usize], _t: f64, _q: &[f64], _v: &[f64]) -> [f64; 3] {
        [0.0; 3]
    }
    fn dense_blocks(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
    ) -> [DMatrix<f64>; 4] {
        let mut r = vec![0.0; q.len()];
        self.add_residual(idx, t, q, v, a, 1.0, &mut r);
        [
            DMatrix::from_iterator(D, 1, idx.iter().map(|&i| r[i])),
            DMatrix::zeros(D, D),
            DMatrix::zeros(D, D),
            DMatrix::zeros(D, D),
        ]
    }
}
