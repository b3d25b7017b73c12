//! Springs between two points (or a point and a fixed anchor) with axial Rayleigh damping: the
//! law written once as an [`Interaction`] ([`Spring`]; [`AnchoredSpring`] is it placed at a
//! fixed point) and the hand kernels beside it ([`SpringKernel`], [`AnchoredSpringKernel`]).

use super::points::{sub, three};
use super::{Mat, Points, V};
use crate::expr::taylor::TaylorVar;
use crate::model::euler_lagrange::constant_mass_residual;
use crate::model::kernel::{KernelCoefficients, TermKernel};
use crate::model::{Anchored, Between, Declared, Interaction, KineticForm, Structure};
use nalgebra::SVector;
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

/// The spring's law in the separation `d = x₂ − x₁` and its rate `ḋ`: written once, placed
/// between two points ([`Spring`] as a term, [`Declared`], or [`Between`]) or
/// from a fixed point ([`AnchoredSpring`], [`Anchored`]).
impl<const D: usize> Interaction<D> for Spring<D> {
    // inlined into the AD passes: their seeded arguments stay in registers
    #[inline(always)]
    fn potential<T: DualNum<Primitive = f64> + Copy>(&self, _t: T, d: &SVector<T, D>) -> T {
        let mut s = T::from(0.0);
        for k in 0..D {
            s += d[k] * d[k];
        }
        self.elastic(s)
    }
    #[inline(always)]
    fn dissipation<T: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: T,
        d: &SVector<T, D>,
        dd: &SVector<T, D>,
    ) -> T {
        if self.damping == 0.0 {
            return T::from(0.0);
        }
        let (mut s, mut p) = (T::from(0.0), T::from(0.0));
        for k in 0..D {
            s += d[k] * d[k];
            p += d[k] * dd[k];
        }
        self.axial_dissipation(s, p)
    }
}

impl<const D: usize> Spring<D> {
    /// `V = ½ k (√s − ℓ₀)²` of the squared length `s = d·d`.
    #[inline(always)]
    fn elastic<T: DualNum<Primitive = f64> + Copy>(&self, s: T) -> T {
        let stretch = s.sqrt() - self.rest_length;
        stretch * stretch * (0.5 * self.stiffness)
    }
    /// `R = ½ c p² / s` of `s = d·d` and `p = d·ḋ` (`ṡ = p/√s` the rate of extension).
    #[inline(always)]
    fn axial_dissipation<T: DualNum<Primitive = f64> + Copy>(&self, s: T, p: T) -> T {
        p * p / s * (0.5 * self.damping)
    }
}

macro_rules! impl_spring {
    ($d:literal, $n:literal) => {
        /// [`Between`] two coordinate points.
        impl Declared<$n> for Spring<$d> {
            const TRANSLATION_INVARIANT: Option<usize> = Some($d);
            const KINETIC: KineticForm = KineticForm::Zero;
            #[inline(always)]
            fn potential<T: DualNum<Primitive = f64> + Copy>(&self, t: T, q: &SVector<T, $n>) -> T {
                Between(*self).potential(t, q)
            }
            #[inline(always)]
            fn dissipation<T: DualNum<Primitive = f64> + Copy>(
                &self,
                t: T,
                q: &SVector<T, $n>,
                v: &SVector<T, $n>,
            ) -> T {
                Between(*self).dissipation(t, q, v)
            }
            fn has_dissipation_or_force(&self) -> bool {
                self.damping != 0.0
            }
            fn structure(&self) -> Structure {
                Structure::NoKinetic
            }
        }
    };
}
impl_spring!(1, 2);
impl_spring!(2, 4);
impl_spring!(3, 6);

/// A spring from a fixed point `p` to a point `x = q`: [`Spring`]'s law [`Anchored`] at `p`.
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

impl<const D: usize> AnchoredSpring<D> {
    /// The same element as [`Spring`]'s law placed at the anchor.
    #[inline(always)]
    fn placed(&self) -> Anchored<Spring<D>, D> {
        Anchored {
            anchor: self.anchor,
            interaction: Spring {
                stiffness: self.stiffness,
                rest_length: self.rest_length,
                damping: self.damping,
            },
        }
    }
}

impl<const D: usize> Declared<D> for AnchoredSpring<D> {
    const KINETIC: KineticForm = KineticForm::Zero;
    #[inline(always)]
    fn potential<T: DualNum<Primitive = f64> + Copy>(&self, t: T, q: &SVector<T, D>) -> T {
        self.placed().potential(t, q)
    }
    #[inline(always)]
    fn dissipation<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> T {
        self.placed().dissipation(t, q, v)
    }
    fn has_dissipation_or_force(&self) -> bool {
        self.damping != 0.0
    }
    fn structure(&self) -> Structure {
        Structure::NoKinetic
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
/// so `∂r/∂q = [G −G; −G G]` (material and geometric stiffness) and `∂r/∂v = [H −H; −H H]`. Local coordinates: `x₁` then `x₂`; see
/// [`AnchoredSpringKernel`] for a spring whose first end is fixed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringKernel<const D: usize> {
    /// Stiffness `k`.
    pub stiffness: f64,
    /// Rest length `ℓ₀`.
    pub rest_length: f64,
    /// Axial damping `c`.
    pub damping: f64,
}

/// [`SpringKernel`] from the fixed point `anchor` to a coordinate point `x₂ = q` (`x₁ = p`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnchoredSpringKernel<const D: usize> {
    /// The fixed end.
    pub anchor: [f64; D],
    /// The spring law.
    pub spring: SpringKernel<D>,
}

impl<const D: usize> SpringKernel<D> {
    /// Spring between two coordinate points.
    pub fn new(stiffness: f64, rest_length: f64, damping: f64) -> Self {
        SpringKernel {
            stiffness,
            rest_length,
            damping,
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

    /// `g` and the weighted block `c_K ∂g/∂d + c_D ∂g/∂Δv`.
    #[inline(always)]
    fn weighted(&self, d: &V<D>, dv: &V<D>, c: &KernelCoefficients) -> (V<D>, Mat<D>) {
        let l = d.norm();
        let n = d / l;
        let s = n.dot(dv);
        let nn = n * n.transpose();
        let p = Mat::<D>::identity() - nn;
        let g = n * (self.stiffness * (l - self.rest_length) + self.damping * s);
        let mut blk =
            (nn * self.stiffness + p * (self.stiffness * (l - self.rest_length) / l)) * c.stiffness;
        if self.damping != 0.0 {
            blk += (n * (p * dv).transpose() + p * s) * (c.stiffness * self.damping / l);
            blk += nn * (c.damping * self.damping);
        }
        (g, blk)
    }

    /// `[0, c ṡ², 0]` with `ṡ = d·Δv/|d|` the rate of extension.
    fn power_of(&self, d: &V<D>, dv: &V<D>) -> [f64; 3] {
        let s = d.dot(dv) / d.norm();
        [0.0, self.damping * s * s, 0.0]
    }

    fn energy_of(&self, d: &V<D>) -> [f64; 3] {
        let e = 0.5 * self.stiffness * (d.norm() - self.rest_length).powi(2);
        [0.0, e, e]
    }
}

impl<const D: usize> AnchoredSpringKernel<D> {
    /// Spring from the fixed point `anchor` to a coordinate point.
    pub fn new(anchor: [f64; D], stiffness: f64, rest_length: f64, damping: f64) -> Self {
        AnchoredSpringKernel {
            anchor,
            spring: SpringKernel::new(stiffness, rest_length, damping),
        }
    }
}

impl<const D: usize> TermKernel<D> for AnchoredSpringKernel<D> {
    const USES_A: bool = false;
    #[inline(always)]
    fn residual(&self, _t: f64, q: &V<D>, v: &V<D>, _a: &V<D>) -> V<D> {
        self.spring.force(&(q - V::<D>::from(self.anchor)), v)
    }
    #[inline(always)]
    fn jacobian(
        &self,
        _t: f64,
        q: &V<D>,
        v: &V<D>,
        _a: &V<D>,
        c: &KernelCoefficients,
    ) -> (V<D>, Mat<D>) {
        self.spring.weighted(&(q - V::<D>::from(self.anchor)), v, c)
    }
    fn energy(&self, _t: f64, q: &V<D>, _v: &V<D>) -> [f64; 3] {
        self.spring.energy_of(&(q - V::<D>::from(self.anchor)))
    }
    fn momentum(&self, _t: f64, _q: &V<D>, _v: &V<D>) -> V<D> {
        V::<D>::zeros()
    }
    fn power(&self, _t: f64, q: &V<D>, v: &V<D>) -> [f64; 3] {
        self.spring.power_of(&(q - V::<D>::from(self.anchor)), v)
    }
    fn taylor_residual(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, D>,
        v: &SVector<TaylorVar, D>,
        a: &SVector<TaylorVar, D>,
    ) -> Option<SVector<TaylorVar, D>> {
        let law = AnchoredSpring {
            anchor: self.anchor,
            stiffness: self.spring.stiffness,
            rest_length: self.spring.rest_length,
            damping: self.spring.damping,
        };
        Some(constant_mass_residual(&law, None, t, q, v, a))
    }
}

macro_rules! impl_spring_kernel {
    ($d:literal, $n:literal) => {
        impl TermKernel<$n> for SpringKernel<$d> {
            const USES_A: bool = false;
            #[inline(always)]
            fn residual(&self, _t: f64, q: &V<$n>, v: &V<$n>, _a: &V<$n>) -> V<$n> {
                let d = q.fixed_rows::<$d>($d) - q.fixed_rows::<$d>(0);
                let dv = v.fixed_rows::<$d>($d) - v.fixed_rows::<$d>(0);
                let g = self.force(&d, &dv);
                let mut r = V::<$n>::zeros();
                r.fixed_rows_mut::<$d>(0).copy_from(&(-g));
                r.fixed_rows_mut::<$d>($d).copy_from(&g);
                r
            }
            #[inline(always)]
            fn jacobian(
                &self,
                _t: f64,
                q: &V<$n>,
                v: &V<$n>,
                _a: &V<$n>,
                c: &KernelCoefficients,
            ) -> (V<$n>, Mat<$n>) {
                let d = q.fixed_rows::<$d>($d) - q.fixed_rows::<$d>(0);
                let dv = v.fixed_rows::<$d>($d) - v.fixed_rows::<$d>(0);
                let (g, blk) = self.weighted(&d, &dv, c);
                let mut r = V::<$n>::zeros();
                r.fixed_rows_mut::<$d>(0).copy_from(&(-g));
                r.fixed_rows_mut::<$d>($d).copy_from(&g);
                let mut j = Mat::<$n>::zeros();
                j.fixed_view_mut::<$d, $d>(0, 0).copy_from(&blk);
                j.fixed_view_mut::<$d, $d>($d, $d).copy_from(&blk);
                j.fixed_view_mut::<$d, $d>(0, $d).copy_from(&(-blk));
                j.fixed_view_mut::<$d, $d>($d, 0).copy_from(&(-blk));
                (r, j)
            }
            fn energy(&self, _t: f64, q: &V<$n>, _v: &V<$n>) -> [f64; 3] {
                self.energy_of(&(q.fixed_rows::<$d>($d) - q.fixed_rows::<$d>(0)))
            }
            fn momentum(&self, _t: f64, _q: &V<$n>, _v: &V<$n>) -> V<$n> {
                V::<$n>::zeros()
            }
            fn power(&self, _t: f64, q: &V<$n>, v: &V<$n>) -> [f64; 3] {
                let d = q.fixed_rows::<$d>($d) - q.fixed_rows::<$d>(0);
                self.power_of(&d, &(v.fixed_rows::<$d>($d) - v.fixed_rows::<$d>(0)))
            }
            fn taylor_residual(
                &self,
                t: TaylorVar,
                q: &SVector<TaylorVar, $n>,
                v: &SVector<TaylorVar, $n>,
                a: &SVector<TaylorVar, $n>,
            ) -> Option<SVector<TaylorVar, $n>> {
                let law = Spring::<$d> {
                    stiffness: self.stiffness,
                    rest_length: self.rest_length,
                    damping: self.damping,
                };
                Some(constant_mass_residual(&law, None, t, q, v, a))
            }
        }
    };
}
impl_spring_kernel!(2, 4);
impl_spring_kernel!(3, 6);

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

impl SpringBetween {
    /// Its elastic and damping law, [`Spring`]'s.
    #[inline(always)]
    fn law(&self) -> Spring<3> {
        Spring {
            stiffness: self.stiffness,
            rest_length: self.rest_length,
            damping: self.damping,
        }
    }
}

impl<const N: usize> Declared<N> for SpringBetween {
    const KINETIC: KineticForm = KineticForm::Function;
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
            let mid: [T; 3] = three(|i| (y[i] + z[i]) * 0.5);
            e += p.grav(&mid, self.mass, &self.gravity);
        }
        if self.stiffness != 0.0 {
            let d = sub(&z, &y);
            e += self.law().elastic(p.dot(&d, &d));
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
        self.law().axial_dissipation(p.dot(&d, &d), p.dot(&d, &dv))
    }
    fn has_dissipation_or_force(&self) -> bool {
        self.damping != 0.0
    }
    fn structure(&self) -> Structure {
        if self.mass == 0.0 {
            Structure::NoKinetic
        } else if self.ends.is_affine() {
            Structure::ConstantMass
        } else {
            Structure::PointMasses
        }
    }
    fn point_mass_matrix(&self) -> [[f64; 4]; 4] {
        // T = m/6 (|ẏ|² + ẏ·ż + |ż|²) = ½ (m/3 |ẏ|² + 2·m/6 ẏ·ż + m/3 |ż|²)
        let (d, o) = (self.mass / 3.0, self.mass / 6.0);
        [[d, o, 0.0, 0.0], [o, d, 0.0, 0.0], [0.0; 4], [0.0; 4]]
    }
    fn mass_points<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
    ) -> [[T; 3]; 4] {
        let z = [T::from(0.0); 3];
        [self.ends.pos(0, q, t), self.ends.pos(1, q, t), z, z]
    }
}
