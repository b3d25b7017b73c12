//! The command line, mechanism files and what a run writes, one test binary (one link instead
//! of one per file): bundled and hostile inputs, error messages with their place, result
//! folders, plots and the animation page's files, sweeps, and the source tree's own rules.

#[path = "../common/mod.rs"]
mod common;

mod animation;
mod api;
mod architecture;
mod chain_toml;
mod cli;
mod cli_results;
mod errors;
mod examples_run;
mod fit;
mod force_files;
mod fuzz_yaml;
mod hostile;
mod lagrangian_files;
mod output_times;
mod plots;
mod results;
mod sweep;
mod yaml_models;
