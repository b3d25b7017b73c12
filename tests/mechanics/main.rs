//! The library's mechanics and methods, one test binary (one link instead of one per file):
//! derivatives against hand-derived and finite-difference ones, reference solutions (the exact
//! pendulum, Andrews' squeezer, the car axis), convergence orders, consistent initial values,
//! equilibrium, modes, sensitivities and the course API.

#[path = "../common/mod.rs"]
mod common;

mod ad_derivation;
mod adaptive;
mod andrews;
mod closed_chains;
mod consistent_init;
mod continuation;
mod coordinate_elements;
mod custom_method;
mod double_pendulum;
mod equilibrium;
mod fit;
mod found;
mod inverse_dynamics;
mod joint_space;
mod joints;
mod linkages;
mod mass_spring;
mod methods;
mod mode_shapes;
mod modes;
mod multibody_ad;
mod multibody_builder;
mod parallel;
mod pendulum_exact;
mod planar_bodies;
mod planar_trees;
mod potentials;
mod rigid3d;
mod rigid_body_rust;
mod rscr;
mod sensitivity;
mod solvers;
mod spherical_chain;
mod state_solver;
mod state_space;
mod steady_motion;
mod structure;
mod three_ways;
mod urdf;
mod user_columns;
