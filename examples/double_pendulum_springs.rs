//! The mass–spring course, exercise 3: a double pendulum whose rods are stiff springs.
//!
//! `cargo run --release --example double_pendulum_springs -- --t-end 2.0 --steps 4000`

use clap::Parser;
use lagrangian::library::mass_spring::scenes::*;
use serde_json::json;

#[derive(Parser)]
struct Args {
    /// Simulated time [s].
    #[arg(long = "t-end", default_value_t = 2.0)]
    t_end: f64,
    /// Number of steps.
    #[arg(long, default_value_t = 4000)]
    steps: usize,
}

fn main() -> std::process::ExitCode {
    let a = Args::parse();
    let (mut s, bobs) = double_pendulum_springs([1.0, 0.6], [1.0, 0.7], 9.81, [1.2, -0.4], 1e5);
    run_and_report(
        &mut s,
        a.t_end,
        a.steps,
        |s| json!({ "bob1": s.position(bobs[0]), "bob2": s.position(bobs[1]) }),
    )
}
