//! Mechanisms as data: descriptions that build their [`Model`](crate::model::Model) and
//! [`Problem`](crate::problem::Problem) and run nothing. The mechanism-file reader
//! ([`crate::spec`]) builds from them; [`crate::library`] re-exports them beside their runs.
//!
//! - [`spherical_chain`]: N spherical pendulums in angle coordinates with per-rod chart
//!   switches (its run, `SphericalChain::simulate`, is in
//!   [`crate::library::spherical_chain`]).
//! - [`lattice`]: the layout of chains and grids of particles and springs.

pub mod lattice;
pub mod spherical_chain;
