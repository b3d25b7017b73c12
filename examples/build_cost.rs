//! Benchmark: what building costs — the 100-pendulum 3D chain written with AD elements (model,
//! problem, simulation: pattern, workspaces, consistent initial values) and the 90 × 90 cloth
//! (model and simulation). Prints one JSON line; the median of `--repeat` builds each.
//!
//! `cargo run --release --example build_cost`

use lagrangian::library::mass_spring::scenes::cloth;
use lagrangian::library::pendulum::pendulum_chain_3d;
use lagrangian::prelude::*;
use serde_json::json;
use std::time::Instant;

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(f64::total_cmp);
    x[x.len() / 2]
}

fn main() -> Result<(), Error> {
    let repeat: usize = std::env::args()
        .skip_while(|a| a != "--repeat")
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let (mut chain, mut cloth_s) = (Vec::new(), Vec::new());
    for _ in 0..repeat {
        // the chain hanging straight down, released with a sideways push of the last bob
        let n = 100;
        let t0 = Instant::now();
        let model = pendulum_chain_3d(&vec![0.1; n], &vec![1.0; n], 9.81)?;
        let q: Vec<f64> = (0..n).flat_map(|i| [0.0, 0.0, -(i as f64 + 1.0)]).collect();
        let mut v = vec![0.0; 3 * n];
        v[3 * n - 3] = 1.0;
        let problem = Problem::new(model).guess(&q, &v).t_end(1.0);
        let sim = Simulation::new(problem, GenAlphaOptions::new(1e-3))?;
        chain.push(t0.elapsed().as_secs_f64());
        drop(sim);

        let t0 = Instant::now();
        let (s, _) = cloth(90)?;
        let problem = s.problem(1.0)?;
        let sim = Simulation::new(problem, GenAlphaOptions::new(1e-3))?;
        cloth_s.push(t0.elapsed().as_secs_f64());
        drop(sim);
    }
    println!(
        "{}",
        json!({
            "chain100_ad_build_seconds": median(chain),
            "cloth90_build_seconds": median(cloth_s),
            "repeat": repeat,
        })
    );
    Ok(())
}
