//! Physics elements as Rust types, one file per physics: the AD form (a [`Term`](crate::model::Term)
//! or [`Constraint`](crate::model::Constraint)) and, where speed matters, the hand-derived kernel
//! of the same physics beside it; tests hold the two equal
//! ([`compare_term_kernels`](crate::ad::compare_term_kernels)).

mod distance;
mod load;
mod particle;
mod spring;

pub use distance::{AnchoredDistance, AnchoredRod, Distance, DistanceKernel, Rod};
pub use load::LoadKernel;
pub use particle::{Particle, PointMassKernel};
pub use spring::{AnchoredSpring, Spring, SpringKernel};

use nalgebra::{SMatrix, SVector};

type V<const D: usize> = SVector<f64, D>;
type Mat<const D: usize> = SMatrix<f64, D, D>;

/// The `D` components of the point at local offset `off` of `idx`, gathered from the global `x`.
#[inline(always)]
fn point<const D: usize>(x: &[f64], idx: &[usize], off: usize) -> V<D> {
    V::<D>::from_fn(|k, _| x[idx[off + k]])
}
