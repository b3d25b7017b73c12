//! The guides of `docs/`, rendered with the API documentation (`cargo doc --open`, then
//! `lagrangian::guide`): the tutorial (its examples run as doctests), the mechanism-file
//! reference, the mathematics, the architecture and the Python guide.

#[doc = include_str!("../docs/tutorial.md")]
pub mod tutorial {}

#[doc = include_str!("../docs/yaml.md")]
pub mod yaml {}

#[doc = include_str!("../docs/maths.md")]
pub mod maths {}

#[doc = include_str!("../docs/architecture.md")]
pub mod architecture {}

#[doc = include_str!("../docs/python.md")]
pub mod python {}
