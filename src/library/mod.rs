//! Mechanism definitions in Rust, used by tests, docs and examples (the spherical chain's
//! description lives in [`crate::mechanisms`], which the mechanism-file reader may import;
//! its run is here).

pub mod andrews;
pub mod car_axis;
pub mod elements;
pub mod mass_spring;
pub mod pendulum;
pub mod spherical_chain;
