//! The mass–spring course examples, §6.3: a cross-braced bridge deck anchored at both ends under gravity and a periodic load.
//!
//! `cargo run --release --example bridge -- --t-end 4.0 --steps 4000`

use clap::Parser;
use lagrangian::library::mass_spring::scenes::*;
use serde_json::json;

#[derive(Parser)]
struct Args {
    /// Simulated time [s].
    #[arg(long = "t-end", default_value_t = 4.0)]
    t_end: f64,
    /// Number of steps.
    #[arg(long, default_value_t = 4000)]
    steps: usize,
}

fn main() -> std::process::ExitCode {
    let a = Args::parse();
    let mut s = bridge(12, 50.0, 6.0);
    run_and_report(&mut s, a.t_end, a.steps, |s| {
        let dz: Vec<f64> = s.masses.iter().map(|m| m.pos[2]).collect();
        json!({ "min_z": dz.iter().cloned().fold(f64::INFINITY, f64::min), "mid_z": s.masses[s.masses.len() / 2].pos[2] })
    })
}
