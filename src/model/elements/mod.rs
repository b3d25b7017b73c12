//! Physics elements as Rust types, one file per physics: the AD form (a term, [`Declared`](crate::model::Declared),
//! or [`Constraint`](crate::model::Constraint)) and, where speed matters, the hand-derived kernel
//! of the same physics beside it; tests hold the two equal
//! ([`compare_term_kernels`](crate::ad::compare_term_kernels)).

//!
//! Two families: elements directly on coordinates (`Particle`, `Spring`, `Distance`, … with
//! hand kernels), and elements on [`Points`] of the mechanism, which may be affine in the
//! coordinates or expressions of them ([`ParticleAt`], [`SpringBetween`], [`DistanceBetween`],
//! [`PlanarBody`], [`RigidBody3`] with [`Rigidity3`], [`PointForce`], [`PlanarTorque`],
//! [`BodyTorque`], [`Equation`], [`ExprEnergy`]). The second family implements `Declared<N>` / `Constraint<N, M>`
//! for every `N`, so one value serves whatever local coordinate list it is placed on.

mod body3;
mod distance;
mod equation;
mod kinds;
mod load;
mod particle;
mod planar_body;
mod points;
mod potential;
mod spring;
mod torque;

pub use crate::expr::chain::{ChainLink, ChainPoint, Factor, quat_rotation, rot_axis};
pub use body3::{RigidBody3, Rigidity3, RigidityRow, second_moment};
pub use distance::{
    AnchoredDistance, AnchoredDistanceKernel, AnchoredRod, Distance, DistanceBetween,
    DistanceKernel, Rod,
};
pub use equation::Equation;
pub use kinds::{PointConstraint, PointLoad, PointTerm};
pub use load::{LoadKernel, PointForce};
pub use particle::{Particle, ParticleAt, PointMassKernel};
pub use planar_body::PlanarBody;
pub use points::{Frame, LocalPoint, Points, localize, localize_with};
pub use potential::ExprEnergy;
pub use spring::{AnchoredSpring, AnchoredSpringKernel, Spring, SpringBetween, SpringKernel};
pub use torque::{BodyTorque, PlanarTorque};

use nalgebra::{SMatrix, SVector};

type V<const D: usize> = SVector<f64, D>;
type Mat<const D: usize> = SMatrix<f64, D, D>;
