//! A point mass under uniform gravity: the AD form ([`Particle`]) and the hand kernel
//! ([`PointMassKernel`]) of the same physics, held equal by tests (tests/mechanics/mass_spring.rs).

use super::{Mat, Points, V};
use crate::expr::taylor::TaylorVar;
use crate::model::kernel::{KernelCoefficients, TermKernel};
use crate::model::{Declared, KineticForm, Structure};
use nalgebra::SVector;
use num_dual::DualNum;

/// A point mass in `D` dimensions under uniform gravity `g` (a vector):
/// `T = ½ m |v|²`, `V = −m g·x`, so the Euler–Lagrange residual is `r = m a − m g`.
///
/// ```
/// use lagrangian::model::elements::Particle;
/// use lagrangian::ad::{term_energy, term_residual};
/// let p = Particle { mass: 2.0, gravity: [0.0, -9.81] };
/// // at rest at height 3 with zero acceleration, gravity is the whole residual
/// let r = term_residual(&p, 0.0, &[0.0, 3.0], &[0.0, 0.0], &[0.0, 0.0]);
/// assert!((r[1] - 2.0 * 9.81).abs() < 1e-12 && r[0] == 0.0);
/// // T = ½ m |v|² = 4, V = m g y = 58.86
/// let [t, v, _] = term_energy(&p, 0.0, &[0.0, 3.0], &[2.0, 0.0]);
/// assert!((t - 4.0).abs() < 1e-12 && (v - 58.86).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle<const D: usize> {
    /// Mass.
    pub mass: f64,
    /// Gravity vector (acceleration), e.g. `(0, −9.81)`.
    pub gravity: [f64; D],
}

impl<const D: usize> Declared<D> for Particle<D> {
    const KINETIC: KineticForm = KineticForm::Function;
    fn kinetic<T: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: T,
        _q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> T {
        v.dot(v) * (0.5 * self.mass)
    }
    fn potential<T: DualNum<Primitive = f64> + Copy>(&self, _t: T, q: &SVector<T, D>) -> T {
        let mut e = T::from(0.0);
        for k in 0..D {
            e -= q[k] * (self.mass * self.gravity[k]);
        }
        e
    }
    fn has_dissipation_or_force(&self) -> bool {
        false
    }
    fn structure(&self) -> Structure {
        Structure::ConstantMass
    }
}

/// Point mass `m` under gravity `g`: `r = m a − m g`, `M = m I`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointMassKernel<const D: usize> {
    /// Mass.
    pub mass: f64,
    /// Gravity (acceleration vector).
    pub gravity: [f64; D],
}

impl<const D: usize> TermKernel<D> for PointMassKernel<D> {
    const USES_Q: bool = false;
    const USES_V: bool = false;
    const USES_T: bool = false;
    fn constant_mass(&self) -> bool {
        true
    }
    #[inline(always)]
    fn residual(&self, _t: f64, _q: &V<D>, _v: &V<D>, a: &V<D>) -> V<D> {
        (a - V::<D>::from(self.gravity)) * self.mass
    }
    #[inline(always)]
    fn jacobian(
        &self,
        t: f64,
        q: &V<D>,
        v: &V<D>,
        a: &V<D>,
        c: &KernelCoefficients,
    ) -> (V<D>, Mat<D>) {
        (
            self.residual(t, q, v, a),
            Mat::<D>::identity() * (c.mass * self.mass),
        )
    }
    fn energy(&self, _t: f64, q: &V<D>, v: &V<D>) -> [f64; 3] {
        let kin = 0.5 * self.mass * v.norm_squared();
        let pot = -self.mass * q.dot(&V::<D>::from(self.gravity));
        [kin, pot, kin + pot]
    }
    fn momentum(&self, _t: f64, _q: &V<D>, v: &V<D>) -> V<D> {
        v * self.mass
    }
    fn power(&self, _t: f64, _q: &V<D>, _v: &V<D>) -> [f64; 3] {
        [0.0; 3]
    }
    fn taylor_residual(
        &self,
        _t: TaylorVar,
        _q: &SVector<TaylorVar, D>,
        _v: &SVector<TaylorVar, D>,
        a: &SVector<TaylorVar, D>,
    ) -> Option<SVector<TaylorVar, D>> {
        Some(SVector::from_fn(|i, _| {
            (a[i] - self.gravity[i]) * self.mass
        }))
    }
}

/// A point mass at a point of the mechanism that need not be a coordinate (a point of a rigid
/// body, a point defined by an expression): with `x(q, t)` the point,
/// `T = ½ m |ẋ|²`, `V = −m g·x`. For a point that *is* `D` coordinates, [`Particle`] (or its
/// hand kernel) is the same physics.
///
/// ```
/// use lagrangian::model::elements::{LocalPoint, ParticleAt, Points};
/// use lagrangian::ad::{term_energy, term_residual};
/// // the midpoint of two 2D coordinate points, x = (q₀ + q₂)/2, y = (q₁ + q₃)/2
/// let mid = LocalPoint::Affine {
///     c: [0.0; 3],
///     a: vec![(0, [0.5, 0.0, 0.0]), (1, [0.0, 0.5, 0.0]), (2, [0.5, 0.0, 0.0]), (3, [0.0, 0.5, 0.0])],
/// };
/// let p = ParticleAt { point: Points::new(2, vec![mid]), mass: 2.0, gravity: [0.0, -9.81, 0.0] };
/// // both ends moving up at 1 m/s, at heights 1 and 3: T = ½·2·1², V = 2·9.81·2
/// let [t, v, _] = term_energy::<_, 4>(&p, 0.0, &[0.0, 1.0, 1.0, 3.0], &[0.0, 1.0, 0.0, 1.0]);
/// assert!((t - 1.0).abs() < 1e-12 && (v - 39.24).abs() < 1e-12);
/// // at rest: the weight m g splits equally between the two ends
/// let r = term_residual::<_, 4>(&p, 0.0, &[0.0, 1.0, 1.0, 3.0], &[0.0; 4], &[0.0; 4]);
/// assert!((r[1] - 9.81).abs() < 1e-12 && (r[3] - 9.81).abs() < 1e-12);
/// ```
#[derive(Clone, Debug)]
pub struct ParticleAt {
    /// The point (one).
    pub point: Points,
    /// Mass.
    pub mass: f64,
    /// Gravity vector (acceleration).
    pub gravity: [f64; 3],
}

impl<const N: usize> Declared<N> for ParticleAt {
    const KINETIC: KineticForm = KineticForm::Function;
    fn kinetic<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> T {
        let u = self.point.vel(0, q, v, t);
        self.point.dot(&u, &u) * (0.5 * self.mass)
    }
    fn potential<T: DualNum<Primitive = f64> + Copy>(&self, t: T, q: &SVector<T, N>) -> T {
        self.point
            .grav(&self.point.pos(0, q, t), self.mass, &self.gravity)
    }
    fn has_dissipation_or_force(&self) -> bool {
        false
    }
    fn structure(&self) -> Structure {
        match self.point.is_affine() {
            true => Structure::ConstantMass,
            false => Structure::PointMasses,
        }
    }
    fn point_mass_matrix(&self) -> [[f64; 4]; 4] {
        let mut m = [[0.0; 4]; 4];
        m[0][0] = self.mass;
        m
    }
    fn mass_points<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
    ) -> [[T; 3]; 4] {
        let z = [T::from(0.0); 3];
        [self.point.pos(0, q, t), z, z, z]
    }
}
