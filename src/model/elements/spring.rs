//! Springs between two points (or a point and a fixed anchor) with axial Rayleigh damping: the
//! AD forms ([`Spring`], [`AnchoredSpring`]) and the hand kernel ([`SpringKernel`]).

use super::points::sub;
use super::{point, Mat, Points, V};
use crate::model::kernel::{KernelCoefficients, TermKernel};
use crate::model::Term;
use nalgebra::{DMatrix, SVector};
use num_dual::DualNum;

/// A spring between two points `x₁ = q[0..D]`, `x₂ = q[D..2D]` with stiffness `k`, rest length
/// `ℓ₀` and axial damping `c` as Rayleigh dissipation:
///
/// ```text
/// V = ½ k (|x₂ − x₁| − ℓ₀)²,   R = ½ c (d/dt |x₂ − x₁|)² = ½ c ((x₂−x₁)·(v₂−v₁) / |x₂−x₁|)²
/// ```
///
/// ```
/// use lagrangian::model::elements::Spring;
/// use lagrangian::ad::{term_energy, term_residual};
/// let s = Spring::<2> { stiffness: 100.0, rest_length: 1.0, damping: 0.5 };
/// // stretched to 1.5 along x and opening at 2 m/s: V = ½·100·0.5², the axial force
/// // k·0.5 + c·2 pulls the ends together
/// let (q, v) = ([0.0, 0.0, 1.5, 0.0], [0.0, 0.0, 2.0, 0.0]);
/// let [_, pot, _] = term_energy(&s, 0.0, &q, &v);
/// assert!((pot - 12.5).abs() < 1e-12);
/// let r = term_residual(&s, 0.0, &q, &v, &[0.0; 4]);
/// assert!((r[2] - 51.0).abs() < 1e-12 && (r[0] + 51.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring<const D: usize> {
    /// Stiffness `k`.
    pub stiffness: f64,
    /// Rest length `ℓ₀`.
    pub rest_length: f64,
    /// Axial damping `c`.
    pub damping: f64,
}

macro_rules! impl_spring {
    ($d:literal, $n:literal) => {
        impl Term<$n> for Spring<$d> {
            fn potential<T: DualNum<Primitive = f64> + Copy>(
                &self,
                _t: T,
                q: &SVector<T, $n>,
            ) -> T {
                let mut s = T::from(0.0);
                for k in 0..$d {
                    let d = q[$d + k] - q[k];
                    s += d * d;
                }
                let stretch = s.sqrt() - self.rest_length;
                stretch * stretch * (0.5 * self.stiffness)
            }
            fn dissipation<T: DualNum<Primitive = f64> + Copy>(
                &self,
                _t: T,
                q: &SVector<T, $n>,
                v: &SVector<T, $n>,
            ) -> T {
                if self.damping == 0.0 {
                    return T::from(0.0);
                }
                let (mut s, mut p) = (T::from(0.0), T::from(0.0));
                for k in 0..$d {
                    let d = q[$d + k] - q[k];
                    s += d * d;
                    p += d * (v[$d + k] - v[k]);
                }
                p * p / s * (0.5 * self.damping)
            }
            fn has_dissipation_or_force(&self) -> bool {
                self.damping != 0.0
            }
        }
    };
}
impl_spring!(2, 4);
impl_spring!(3, 6);

/// A spring from a fixed point `p` to a point `x = q`, as [`Spring`] with the first end fixed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnchoredSpring<const D: usize> {
    /// The fixed end.
    pub anchor: [f64; D],
    /// Stiffness `k`.
    pub stiffness: f64,
    /// Rest length `ℓ₀`.
    pub rest_length: f64,
    /// Axial damping `c`.
    pub damping: f64,
}

impl<const D: usize> Term<D> for AnchoredSpring<D> {
    fn potential<T: DualNum<Primitive = f64> + Copy>(&self, _t: T, q: &SVector<T, D>) -> T {
        let mut s = T::from(0.0);
        for k in 0..D {
            let d = q[k] - self.anchor[k];
            s += d * d;
        }
        let stretch = s.sqrt() - self.rest_length;
        stretch * stretch * (0.5 * self.stiffness)
    }
    fn dissipation<T: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: T,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> T {
        if self.damping == 0.0 {
            return T::from(0.0);
        }
        let (mut s, mut p) = (T::from(0.0), T::from(0.0));
        for k in 0..D {
            let d = q[k] - self.anchor[k];
            s += d * d;
            p += d * v[k];
        }
        p * p / s * (0.5 * self.damping)
    }
    fn has_dissipation_or_force(&self) -> bool {
        self.damping != 0.0
    }
}

/// Spring with axial damping (see [`Spring`] for the energy
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

/// A spring between two points of the mechanism (`y` = point 0, `z` = point 1, not necessarily
/// coordinates), with a uniformly distributed mass and axial damping:
///
/// ```text
/// T = m/6 (|ẏ|² + ẏ·ż + |ż|²),   V = ½ k (|z − y| − ℓ₀)² − m g·(y + z)/2,
/// R = ½ c (d/dt |z − y|)²
/// ```
///
/// With `k = 0` and a [`DistanceBetween`](super::DistanceBetween) constraint it is a massive bar.
/// Between two coordinate points with `m = 0` it is [`Spring`] (whose hand kernel is faster).
///
/// ```
/// use lagrangian::model::elements::{Points, SpringBetween};
/// use lagrangian::ad::term_energy;
/// let s = SpringBetween {
///     ends: Points::plain(2, 2), stiffness: 100.0, rest_length: 1.0, mass: 3.0, damping: 0.0,
///     gravity: [0.0, -10.0, 0.0],
/// };
/// // ends at (0, 0) and (1.5, 2), both moving at (0, 1): T = ½ m |v|², V = ½·100·1.5² + 3·10·1
/// let [t, v, _] = term_energy::<_, 4>(&s, 0.0, &[0.0, 0.0, 1.5, 2.0], &[0.0, 1.0, 0.0, 1.0]);
/// assert!((t - 1.5).abs() < 1e-12 && (v - 142.5).abs() < 1e-12);
/// ```
#[derive(Clone, Debug)]
pub struct SpringBetween {
    /// The two ends.
    pub ends: Points,
    /// Stiffness `k` (0: no elastic energy).
    pub stiffness: f64,
    /// Rest length `ℓ₀`.
    pub rest_length: f64,
    /// Mass `m`, spread uniformly along the spring.
    pub mass: f64,
    /// Axial damping `c`.
    pub damping: f64,
    /// Gravity vector (acceleration).
    pub gravity: [f64; 3],
}

impl<const N: usize> Term<N> for SpringBetween {
    fn kinetic<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> T {
        if self.mass == 0.0 {
            return T::from(0.0);
        }
        let p = &self.ends;
        let (y, z) = (p.vel(0, q, v, t), p.vel(1, q, v, t));
        (p.dot(&y, &y) + p.dot(&y, &z) + p.dot(&z, &z)) * (self.mass / 6.0)
    }
    fn potential<T: DualNum<Primitive = f64> + Copy>(&self, t: T, q: &SVector<T, N>) -> T {
        let p = &self.ends;
        let (y, z) = (p.pos(0, q, t), p.pos(1, q, t));
        let mut e = T::from(0.0);
        if self.mass != 0.0 {
            let mid: [T; 3] = std::array::from_fn(|i| (y[i] + z[i]) * 0.5);
            e += p.grav(&mid, self.mass, &self.gravity);
        }
        if self.stiffness != 0.0 {
            let d = sub(&z, &y);
            let s = p.dot(&d, &d).sqrt() - self.rest_length;
            e += s * s * (0.5 * self.stiffness);
        }
        e
    }
    fn dissipation<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> T {
        if self.damping == 0.0 {
            return T::from(0.0);
        }
        let p = &self.ends;
        let ((x0, v0), (x1, v1)) = (p.pos_vel(0, q, v, t), p.pos_vel(1, q, v, t));
        let (d, dv) = (sub(&x1, &x0), sub(&v1, &v0));
        let s = p.dot(&d, &dv);
        s * s / p.dot(&d, &d) * (0.5 * self.damping)
    }
    fn has_dissipation_or_force(&self) -> bool {
        self.damping != 0.0
    }
}
