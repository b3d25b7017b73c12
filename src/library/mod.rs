//! Mechanism definitions in Rust, used by tests, docs and examples.

pub mod andrews;
pub mod elements;
pub mod mass_spring;
pub mod pendulum;
pub mod spherical_chain;
