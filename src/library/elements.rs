//! Reusable elements in Cartesian coordinates: particles, springs, distance constraints (they
//! live in [`crate::model::elements`]; re-exported here).

pub use crate::model::elements::{
    AnchoredDistance, AnchoredRod, AnchoredSpring, Distance, Particle, Rod, Spring,
};
