//! Reusable elements in Cartesian coordinates: particles, distance constraints.

use crate::model::{Constraint, Term};
use nalgebra::SVector;
use num_dual::DualNum;

/// A point mass in `D` dimensions under uniform gravity `g` (a vector):
/// `T = ½ m |v|²`, `V = −m g·x`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle<const D: usize> {
    /// Mass.
    pub mass: f64,
    /// Gravity vector (acceleration), e.g. `(0, −9.81)`.
    pub gravity: [f64; D],
}

impl<const D: usize> Term<D> for Particle<D> {
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
}

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

/// A spring between two points `x₁ = q[0..D]`, `x₂ = q[D..2D]` with stiffness `k`, rest length
/// `ℓ₀` and axial damping `c` as Rayleigh dissipation:
///
/// ```text
/// V = ½ k (|x₂ − x₁| − ℓ₀)²,   R = ½ c (d/dt |x₂ − x₁|)² = ½ c ((x₂−x₁)·(v₂−v₁) / |x₂−x₁|)²
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

/// Seed 000's distance constraint between two points: `C = |x₂ − x₁| − ℓ` (a length, so `λ` is
/// the rod force).
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
