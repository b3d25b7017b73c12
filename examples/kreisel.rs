//! The mass–spring course examples, §6.4: a spinning kreisel — a ring of masses on springs around a fixed tip.
//!
//! `cargo run --release --example kreisel -- --t-end 3.0 --steps 3000`

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
    let mut s = kreisel(12, 1.0, 1.0, 4.0);
    let lz0 = angular_momentum_z(&s);
    run_and_report(
        &mut s,
        a.t_end,
        a.steps,
        move |s| json!({ "lz_start": lz0, "lz_end": angular_momentum_z(s), "ring0": s.masses[0].pos }),
    )
}
