//! A planar rigid body on two basic points.

use super::Points;
use super::points::three;
use crate::model::{Declared, KineticForm, Structure};
use nalgebra::SVector;
use num_dual::DualNum;

/// A rigid body in the plane carried by two basic points `P₀`, `P₁` a distance `ℓ` apart (hold
/// `|P₁ − P₀| = ℓ` with a [`DistanceBetween`](super::DistanceBetween)). With the body axis
/// `u = (P₁ − P₀)/ℓ`, its normal `u⊥ = (−u_y, u_x)` and the centroid at `(ξ, η)` in the body
/// frame, `G = P₀ + ξ u + η u⊥`, and
///
/// ```text
/// T = ½ m |Ġ|² + ½ I_G |u̇|²,   V = −m g·G
/// ```
///
/// (`|u̇|` is the angular speed, since `u` is a unit vector turning in the plane).
///
/// ```
/// use lagrangian::model::elements::{PlanarBody, Points};
/// use lagrangian::ad::term_energy;
/// // a rod of length 2 from (0, 0) to (2, 0), centroid at its middle, spinning about P₀ at
/// // ω = 3 rad/s: P₁ moves at (0, 6). T = ½ m (ω ℓ/2)² + ½ I_G ω² with I_G = m ℓ²/12.
/// let (m, l, w) = (1.5, 2.0, 3.0);
/// let body = PlanarBody {
///     basic: Points::plain(2, 2), mass: m, inertia: m * l * l / 12.0, centroid: [1.0, 0.0],
///     length: l, gravity: [0.0, -9.81, 0.0],
/// };
/// let [t, v, _] = term_energy::<_, 4>(&body, 0.0, &[0.0, 0.0, 2.0, 0.0], &[0.0, 0.0, 0.0, 6.0]);
/// let about_p0 = m * l * l / 3.0; // I about the end
/// assert!((t - 0.5 * about_p0 * w * w).abs() < 1e-12 && v.abs() < 1e-12);
/// ```
#[derive(Clone, Debug)]
pub struct PlanarBody {
    /// The basic points `P₀`, `P₁`.
    pub basic: Points,
    /// Mass `m`.
    pub mass: f64,
    /// Moment of inertia about the centroid `I_G`.
    pub inertia: f64,
    /// The centroid `(ξ, η)` in the body frame (`P₀` at the origin, `P₁` at `(ℓ, 0)`).
    pub centroid: [f64; 2],
    /// Distance `ℓ` between the basic points.
    pub length: f64,
    /// Gravity vector (acceleration).
    pub gravity: [f64; 3],
}

impl<const N: usize> Declared<N> for PlanarBody {
    const KINETIC: KineticForm = KineticForm::Function;
    fn kinetic<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> T {
        let (p, c) = (&self.basic, &self.centroid);
        let (v0, v1) = (p.vel(0, q, v, t), p.vel(1, q, v, t));
        let du = three(|k| (v1[k] - v0[k]) * (1.0 / self.length));
        let perp = [-du[1], du[0], T::from(0.0)];
        let vg: [T; 3] = three(|k| v0[k] + du[k] * c[0] + perp[k] * c[1]);
        p.dot(&vg, &vg) * (0.5 * self.mass) + p.dot(&du, &du) * (0.5 * self.inertia)
    }
    fn potential<T: DualNum<Primitive = f64> + Copy>(&self, t: T, q: &SVector<T, N>) -> T {
        let (p, c) = (&self.basic, &self.centroid);
        let (p0, p1) = (p.pos(0, q, t), p.pos(1, q, t));
        let u = three(|k| (p1[k] - p0[k]) * (1.0 / self.length));
        let g: [T; 3] = three(|k| {
            let perp = if k == 0 {
                -u[1]
            } else if k == 1 {
                u[0]
            } else {
                T::from(0.0)
            };
            p0[k] + u[k] * c[0] + perp * c[1]
        });
        p.grav(&g, self.mass, &self.gravity)
    }
    fn has_dissipation_or_force(&self) -> bool {
        false
    }
    fn structure(&self) -> Structure {
        match self.basic.is_affine() {
            true => Structure::ConstantMass,
            false => Structure::PointMasses,
        }
    }
    /// `T = ½ m |Ṗ₀ + ξ u̇ + η u̇⊥|² + ½ I_G |u̇|²` over `(P₀, u, u⊥)`, `u = (P₁ − P₀)/ℓ`.
    fn point_mass_matrix(&self) -> [[f64; 4]; 4] {
        let (m, [xi, eta], i) = (self.mass, self.centroid, self.inertia);
        [
            [m, m * xi, m * eta, 0.0],
            [m * xi, m * xi * xi + i, m * xi * eta, 0.0],
            [m * eta, m * xi * eta, m * eta * eta, 0.0],
            [0.0; 4],
        ]
    }
    /// The basic point `P₀`, the unit vector `u` to `P₁` and `u` turned by +90°.
    fn mass_points<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
    ) -> [[T; 3]; 4] {
        let p = &self.basic;
        let (p0, p1) = (p.pos(0, q, t), p.pos(1, q, t));
        let u = three(|k| (p1[k] - p0[k]) * (1.0 / self.length));
        let z = T::from(0.0);
        [p0, u, [-u[1], u[0], z], [z; 3]]
    }
}
