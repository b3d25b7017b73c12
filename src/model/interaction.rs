//! Elements between two points that depend on them only through their difference — springs,
//! dampers, actuators, attraction between bodies: an [`Interaction`] is written in
//! `d = x₂ − x₁` and `ḋ = v₂ − v₁` alone, and placed between two points ([`Between`]) or from a
//! fixed point to a point ([`Anchored`]): one element, both placements.
//!
//! Placed between two points it is translation invariant by construction, so its derivative
//! passes are seeded on the `D` coordinates of `d` instead of the `2D` of both points
//! (docs/maths.md §15): a 3D spring's potential Hessian carries 13 numbers instead of 43.
//! With `E = [−I; I]`,
//!
//! ```text
//! V(q) = V(d),   ∂V/∂q = E ∂V/∂d,   ∂²V/∂q² = E (∂²V/∂d²) Eᵀ,   Q = E f(d, ḋ)
//! ```
//!
//! and likewise for `R(d, ḋ)`; anchored at `p`, `d = x − p` and `∂d/∂x = I`.

use super::{Declared, KineticForm, Placed, defaults};
use nalgebra::SVector;
use num_dual::DualNum;

/// An element between two points of dimension `D`, written in their difference
/// `d = x₂ − x₁` and its rate `ḋ = v₂ − v₁`: potential `V(t, d)`, Rayleigh dissipation
/// `R(t, d, ḋ)`, and a force `f(t, d, ḋ)` on the second point (the first takes `−f`). Every
/// method has a zero default; write those the element has. Place it with
/// [`ModelBuilder::between`](crate::model::ModelBuilder::between) or
/// [`ModelBuilder::anchored`](crate::model::ModelBuilder::anchored).
///
/// ```
/// use lagrangian::prelude::*;
/// // a spring of stiffness 100 and rest length 1 with axial damping 0.5
/// struct Spring;
/// impl Interaction<3> for Spring {
///     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, d: &SVector<D, 3>) -> D {
///         let s = d.dot(d).sqrt() - 1.0;
///         s * s * 50.0
///     }
///     fn dissipation<D: DualNum<Primitive = f64> + Copy>(
///         &self,
///         _t: D,
///         d: &SVector<D, 3>,
///         dd: &SVector<D, 3>,
///     ) -> D {
///         let p = d.dot(dd);
///         p * p / d.dot(d) * 0.25
///     }
/// }
/// // stretched to 1.5 along x and opening at 2 m/s: the axial force 100·0.5 + 0.5·2 = 51 N
/// // pulls the ends together
/// let s = Between::new(Spring);
/// let (q, v) = ([0.0, 0.0, 0.0, 1.5, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0, 0.0, 0.0]);
/// let r = lagrangian::ad::term_residual(&s, 0.0, &q, &v, &[0.0; 6]);
/// assert!((r[3] - 51.0).abs() < 1e-12 && (r[0] + 51.0).abs() < 1e-12);
/// ```
pub trait Interaction<const D: usize>: Send + Sync {
    /// Potential energy `V(t, d)`.
    fn potential<S: DualNum<Primitive = f64> + Copy>(&self, _t: S, _d: &SVector<S, D>) -> S {
        S::from(0.0)
    }
    /// Rayleigh dissipation function `R(t, d, ḋ)`.
    fn dissipation<S: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: S,
        _d: &SVector<S, D>,
        _dd: &SVector<S, D>,
    ) -> S {
        defaults::mark(defaults::DISSIPATION);
        S::from(0.0)
    }
    /// The (non-conservative) force `f(t, d, ḋ)` on the second point; the first takes `−f`.
    fn force<S: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: S,
        _d: &SVector<S, D>,
        _dd: &SVector<S, D>,
    ) -> SVector<S, D> {
        defaults::mark(defaults::FORCE);
        SVector::from_element(S::from(0.0))
    }
}

/// An [`Interaction`] between two points `x₁ = q[0..D]`, `x₂ = q[D..2D]`: a term on `2D`
/// coordinates ([`Declared`]), translation invariant by construction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Between<I>(pub I);

impl<I> Between<I> {
    /// The element `interaction` between two points.
    pub fn new(interaction: I) -> Self {
        Self(interaction)
    }
}

/// An [`Interaction`] from the fixed point `anchor` to the point `x = q`: a term ([`Declared`]) on `D`
/// coordinates with `d = x − anchor`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Anchored<I, const D: usize> {
    /// The fixed first point.
    pub anchor: [f64; D],
    /// The element.
    pub interaction: I,
}

/// `x₂ − x₁` of `q = [x₁, x₂]`.
#[inline(always)]
fn difference<S: DualNum<Primitive = f64> + Copy, const D: usize, const N: usize>(
    q: &SVector<S, N>,
) -> SVector<S, D> {
    SVector::from_fn(|k, _| q[D + k] - q[k])
}

/// `[−f, f]`.
#[inline(always)]
fn opposite<S: DualNum<Primitive = f64> + Copy, const D: usize, const N: usize>(
    f: &SVector<S, D>,
) -> SVector<S, N> {
    SVector::from_fn(|i, _| if i < D { -f[i] } else { f[i - D] })
}

macro_rules! impl_between {
    ($d:literal, $n:literal) => {
        impl<I: Interaction<$d>> Declared<$n> for Between<I> {
            const TRANSLATION_INVARIANT: Option<usize> = Some($d);
            const KINETIC: KineticForm = KineticForm::Zero;
            #[inline(always)]
            fn potential<S: DualNum<Primitive = f64> + Copy>(&self, t: S, q: &SVector<S, $n>) -> S {
                self.0.potential(t, &difference::<S, $d, $n>(q))
            }
            #[inline(always)]
            fn dissipation<S: DualNum<Primitive = f64> + Copy>(
                &self,
                t: S,
                q: &SVector<S, $n>,
                v: &SVector<S, $n>,
            ) -> S {
                let (d, dd) = (difference::<S, $d, $n>(q), difference::<S, $d, $n>(v));
                self.0.dissipation(t, &d, &dd)
            }
            #[inline(always)]
            fn force<S: DualNum<Primitive = f64> + Copy>(
                &self,
                t: S,
                q: &SVector<S, $n>,
                v: &SVector<S, $n>,
            ) -> SVector<S, $n> {
                let (d, dd) = (difference::<S, $d, $n>(q), difference::<S, $d, $n>(v));
                opposite::<S, $d, $n>(&self.0.force(t, &d, &dd))
            }
            #[inline(always)]
            fn __placed<R>(f: impl FnOnce() -> R) -> R {
                <I as Placed>::__placed(f)
            }
        }
    };
}
impl_between!(1, 2);
impl_between!(2, 4);
impl_between!(3, 6);

impl<I, const D: usize> Anchored<I, D> {
    /// `x − anchor`.
    #[inline(always)]
    fn offset<S: DualNum<Primitive = f64> + Copy>(&self, q: &SVector<S, D>) -> SVector<S, D> {
        SVector::from_fn(|k, _| q[k] - self.anchor[k])
    }
}

impl<I: Interaction<D>, const D: usize> Declared<D> for Anchored<I, D> {
    const KINETIC: KineticForm = KineticForm::Zero;
    #[inline(always)]
    fn potential<S: DualNum<Primitive = f64> + Copy>(&self, t: S, q: &SVector<S, D>) -> S {
        self.interaction.potential(t, &self.offset(q))
    }
    #[inline(always)]
    fn dissipation<S: DualNum<Primitive = f64> + Copy>(
        &self,
        t: S,
        q: &SVector<S, D>,
        v: &SVector<S, D>,
    ) -> S {
        self.interaction.dissipation(t, &self.offset(q), v)
    }
    #[inline(always)]
    fn force<S: DualNum<Primitive = f64> + Copy>(
        &self,
        t: S,
        q: &SVector<S, D>,
        v: &SVector<S, D>,
    ) -> SVector<S, D> {
        self.interaction.force(t, &self.offset(q), v)
    }
    #[inline(always)]
    fn __placed<R>(f: impl FnOnce() -> R) -> R {
        <I as Placed>::__placed(f)
    }
}
