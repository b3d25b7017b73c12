//! The cost of watching a conservative run's energy (`solve::EnergyWatch`, every
//! `PHYSICS_CHECK_EVERY` steps): for conservative mechanism files, the time of one check at the
//! run's last state against the time of the steps it watches.
//!
//! ```text
//! cargo run --release --example energy_watch [-- --repeat 3]
//! ```
//!
//! One JSON line per file: `step_seconds` (a run's solve time per step, the checks included),
//! `check_seconds` (one check, best of many), `share` = check / (16 steps), and whether the
//! watch stayed on to the end.

use lagrangian::prelude::*;
use lagrangian::simulation::PHYSICS_CHECK_EVERY;
use lagrangian::solve::EnergyWatch;
use serde_json::json;
use std::time::Instant;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() -> Result<(), Error> {
    let repeat: usize = arg("--repeat").and_then(|s| s.parse().ok()).unwrap_or(3);
    let root = env!("CARGO_MANIFEST_DIR");
    for (file, t_end) in [
        ("double_pendulum.yaml", 10.0),
        ("mechanism0.yaml", 5.0),
        ("outer_solar_system.yaml", 1000.0),
        ("n_pendulum.yaml", 5.0),
        ("phys389_config.toml", 5.0),
    ] {
        let path = format!("{root}/mechanisms/{file}");
        let text = std::fs::read_to_string(&path).expect("a bundled file");
        let (problem, plan) = lagrangian::spec::parse_with(&text, file, &[])?;
        let problem = problem.t_end(t_end);
        let method = plan.method;
        let mut step_seconds = f64::INFINITY;
        let mut end = None;
        let mut steps = 0;
        for _ in 0..repeat {
            let mut sim = Simulation::new(problem.clone(), method.clone())?;
            let start = Instant::now();
            let run = sim.run_until(t_end, &mut []);
            let seconds = start.elapsed().as_secs_f64();
            run?;
            steps = sim.steps().max(1);
            step_seconds = step_seconds.min(seconds / steps as f64);
            end = Some(sim.state());
        }
        let s = end.expect("one run");
        let model = &problem.model;
        let mut watch = EnergyWatch::new(model, s.t, &s.q, &s.v, 0);
        let on = watch.is_on();
        let calls = 2000;
        let mut check_seconds = f64::INFINITY;
        for _ in 0..repeat {
            let start = Instant::now();
            for k in 0..calls {
                watch
                    .check(model, s.t, &s.q, &s.v, k)
                    .expect("the same state");
            }
            check_seconds = check_seconds.min(start.elapsed().as_secs_f64() / calls as f64);
        }
        let share = check_seconds / (PHYSICS_CHECK_EVERY as f64 * step_seconds);
        println!(
            "{}",
            json!({ "file": file, "steps": steps, "step_seconds": step_seconds,
                    "check_seconds": check_seconds, "share": share, "watched": on })
        );
    }
    Ok(())
}
