//! The mass–spring course examples, §6.2: ten masses on springs hanging from a fixed point.
//!
//! `cargo run --release --example hanging_chain -- --t-end 5.0 --steps 800`

use clap::Parser;
use lagrangian::library::mass_spring::scenes::*;
use serde_json::json;

#[derive(Parser)]
struct Args {
    /// Simulated time [s].
    #[arg(long = "t-end", default_value_t = 5.0)]
    t_end: f64,
    /// Number of steps.
    #[arg(long, default_value_t = 800)]
    steps: usize,
}

fn main() -> std::process::ExitCode {
    let a = Args::parse();
    let mut s = hanging_chain(10);
    run_and_report(
        &mut s,
        a.t_end,
        a.steps,
        |s| json!({ "bottom": s.masses[9].pos }),
    )
}
