//! The mass–spring course, exercise 3: a double pendulum hanging from a spring chain.
//!
//! `cargo run --release --example double_pendulum_chain -- --t-end 3.0 --steps 3000`

use clap::Parser;
use lagrangian::library::mass_spring::scenes::*;
use serde_json::json;

#[derive(Parser)]
struct Args {
    /// Simulated time [s].
    #[arg(long = "t-end", default_value_t = 3.0)]
    t_end: f64,
    /// Number of steps.
    #[arg(long, default_value_t = 3000)]
    steps: usize,
}

fn main() -> std::process::ExitCode {
    let a = Args::parse();
    let (mut s, bobs) = double_pendulum_on_chain(8);
    run_and_report(
        &mut s,
        a.t_end,
        a.steps,
        |s| json!({ "bob1": s.position(bobs[0]), "bob2": s.position(bobs[1]), "rod_forces": s.constraint_forces() }),
    )
}
