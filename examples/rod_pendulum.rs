//! The mass–spring course examples, §6.1: a rigid-rod pendulum through a distance constraint.
//!
//! `cargo run --release --example rod_pendulum -- --t-end 5.0 --steps 600`

use clap::Parser;
use lagrangian::library::mass_spring::scenes::*;
use serde_json::json;

#[derive(Parser)]
struct Args {
    /// Simulated time [s].
    #[arg(long = "t-end", default_value_t = 5.0)]
    t_end: f64,
    /// Number of steps.
    #[arg(long, default_value_t = 600)]
    steps: usize,
}

fn main() -> std::process::ExitCode {
    let a = Args::parse();
    let (mut s, bob) = rod_pendulum(1.0, 1.0, 9.81);
    run_and_report(
        &mut s,
        a.t_end,
        a.steps,
        |s| json!({ "bob": s.position(bob), "rod_force": s.constraint_forces()[0] }),
    )
}
