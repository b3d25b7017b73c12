//! Benchmark: whole runs with AD kernels against the same networks with hand-derived kernels —
//! the 1000-mass spring chain, the 90 × 90 cloth (both 1 s at h = 1e-3) and the 100-pendulum 3D
//! chain (masses on distance constraints, hanging, the last bob pushed sideways; 2,000 steps of
//! 1e-3). Prints one JSON line per run with the best of `--repeat` solve times and the AD/hand
//! ratio, and the largest difference of the final positions.
//!
//! `cargo run --release --example ad_vs_hand [-- --repeat 3 --case chain|cloth|pendulums]`

use lagrangian::ad::Derivatives;
use lagrangian::library::mass_spring::MassSpringSystem;
use lagrangian::library::mass_spring::scenes::{BENCHMARK_NEWTON_TOL, benchmark_chain, cloth};
use lagrangian::prelude::*;
use serde_json::json;

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

/// The 100-pendulum chain: bobs of 0.1 kg at (0, 0, −i) on rods of length 1 from a fixed point.
fn pendulums(n: usize) -> MassSpringSystem<3> {
    let mut s = MassSpringSystem::<3>::new([0.0, 0.0, -9.81]);
    s.options.method.newton_tol = BENCHMARK_NEWTON_TOL;
    let mut prev = s.add_fix([0.0; 3]);
    for i in 1..=n {
        let vel = if i == n { [1.0, 0.0, 0.0] } else { [0.0; 3] };
        let m = s.add_mass_with_velocity(0.1, [0.0, 0.0, -(i as f64)], vel);
        s.add_distance_constraint(prev, m, 1.0);
        prev = m;
    }
    s
}

/// Best solve time of `repeat` runs and the final positions.
fn time(
    make: &dyn Fn() -> MassSpringSystem<3>,
    how: Derivatives,
    t_end: f64,
    steps: usize,
    repeat: usize,
) -> Result<(f64, Vec<f64>), Error> {
    let mut best = f64::INFINITY;
    let mut q = Vec::new();
    for _ in 0..repeat {
        let mut s = make();
        s.options.derivatives = how;
        let sol = s.simulate(t_end, steps)?;
        best = best.min(sol.stats.solve_seconds);
        q = s.state_vectors().0;
    }
    Ok((best, q))
}

fn main() -> Result<(), Error> {
    let repeat: usize = arg("--repeat").and_then(|s| s.parse().ok()).unwrap_or(3);
    let case = arg("--case").unwrap_or_else(|| "all".into());
    type Make = Box<dyn Fn() -> MassSpringSystem<3>>;
    let cases: Vec<(&str, Make, f64, usize)> = vec![
        ("chain1000", Box::new(|| benchmark_chain(1000)), 1.0, 1000),
        (
            "cloth90",
            Box::new(|| cloth(90).expect("cloth").0),
            1.0,
            1000,
        ),
        ("pendulums100", Box::new(|| pendulums(100)), 2.0, 2000),
    ];
    for (name, make, t_end, steps) in &cases {
        if case != "all" && !name.starts_with(case.as_str()) {
            continue;
        }
        let (hand, qh) = time(make, Derivatives::Hand, *t_end, *steps, repeat)?;
        let (ad, qa) = time(make, Derivatives::Ad, *t_end, *steps, repeat)?;
        let diff = qh
            .iter()
            .zip(&qa)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        println!(
            "{}",
            json!({ "case": name, "hand_seconds": hand, "ad_seconds": ad,
                    "ratio": ad / hand, "max_position_difference": diff, "repeat": repeat })
        );
    }
    Ok(())
}
