//! Benchmark: the 1000-mass spring chain written as a new user writes it — a point mass with
//! `kinetic` and `potential`, a spring and an anchored spring with `potential` alone, nothing
//! declared (no `structure`, no `TRANSLATION_INVARIANT`, no `has_dissipation_or_force`) —
//! against the library's hand kernels on the same chain (`benchmark_chain`: 1 kg masses 1 m
//! apart on springs of k = 1000 from a fixed point, gravity −9.81 along y; 1 s at h = 1e-3).
//! The point mass is also written the short way, its kinetic energy as its mass matrix
//! (`Term::mass`), and then the springs too, as `Interaction`s in the difference of their ends
//! (the tutorial's form). Prints one JSON line with the best of `--repeat` solve times, their ratios
//! and the largest differences of the final positions.
//!
//! `cargo run --release --example user_terms [-- --repeat 3]`

use lagrangian::ad::Derivatives;
use lagrangian::library::mass_spring::scenes::benchmark_chain;
use lagrangian::prelude::*;
use serde_json::json;

/// A point mass `m` under gravity along −y.
struct Mass(f64);
impl Term<3> for Mass {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 3>,
        v: &SVector<D, 3>,
    ) -> D {
        v.dot(v) * (0.5 * self.0)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 3>) -> D {
        q[1] * (self.0 * 9.81)
    }
}

/// The same point mass with its kinetic energy written as its (constant) mass matrix, the form
/// the tutorial teaches first.
struct Lumped(f64);
impl Term<3> for Lumped {
    fn mass(&self) -> SMatrix<f64, 3, 3> {
        SMatrix::identity() * self.0
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 3>) -> D {
        q[1] * (self.0 * 9.81)
    }
}

/// A spring of stiffness `k` and rest length `l` between two points.
struct Spring(f64, f64);
impl Term<6> for Spring {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 6>) -> D {
        let d = q.fixed_rows::<3>(3) - q.fixed_rows::<3>(0);
        let s = d.dot(&d).sqrt() - self.1;
        s * s * (0.5 * self.0)
    }
}

/// A spring of stiffness `k` and rest length `l` from the origin to a point.
struct Anchored(f64, f64);
impl Term<3> for Anchored {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 3>) -> D {
        let s = q.dot(q).sqrt() - self.1;
        s * s * (0.5 * self.0)
    }
}

/// The same spring written in the difference `d` of its ends, for `between` and `anchored`.
struct Relative(f64, f64);
impl Interaction<3> for Relative {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, d: &SVector<D, 3>) -> D {
        let s = d.dot(d).sqrt() - self.1;
        s * s * (0.5 * self.0)
    }
}

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

fn main() -> Result<(), Error> {
    let repeat: usize = arg("--repeat").and_then(|s| s.parse().ok()).unwrap_or(3);
    let n = 1000;
    let (t_end, steps) = (1.0, 1000);
    let mut hand = f64::INFINITY;
    let mut qh = Vec::new();
    let mut options = None;
    for _ in 0..repeat {
        let mut s = benchmark_chain(n);
        s.options.derivatives = Derivatives::Hand;
        options = Some(s.options.method.clone());
        let sol = s.simulate(t_end, steps)?;
        hand = hand.min(sol.stats.solve_seconds);
        qh = s.state_vectors().0;
    }
    let mut opts = options.expect("one run");
    opts.h = t_end / steps as f64;
    // 0: `kinetic`-written masses, 1: `mass`-written, 2: and springs as `Interaction`s
    let run = |form: usize| -> Result<(f64, Vec<f64>), Error> {
        let mut b = Model::builder(3 * n);
        let point = |i: usize| [3 * i, 3 * i + 1, 3 * i + 2];
        b = match form {
            2 => b.anchored([0.0; 3], point(0), Relative(1000.0, 1.0)),
            _ => b.term(point(0), Anchored(1000.0, 1.0)),
        };
        for i in 0..n {
            b = match form {
                0 => b.term(point(i), Mass(1.0)),
                _ => b.term(point(i), Lumped(1.0)),
            };
            if i > 0 {
                let (p, c) = (point(i - 1), point(i));
                b = match form {
                    2 => b.between(p, c, Relative(1000.0, 1.0)),
                    _ => b.term([p[0], p[1], p[2], c[0], c[1], c[2]], Spring(1000.0, 1.0)),
                };
            }
        }
        let q0: Vec<f64> = (0..n).flat_map(|i| [(i + 1) as f64, 0.0, 0.0]).collect();
        let problem = Problem::new(b.build()?)
            .guess(&q0, &vec![0.0; 3 * n])
            .t_end(t_end);
        let plan = RunPlan::new(opts.clone()).output_every(steps);
        let mut best = f64::INFINITY;
        let mut q = Vec::new();
        for _ in 0..repeat {
            let sol = simulate(&problem, &plan)?;
            best = best.min(sol.stats.solve_seconds);
            q = sol.last().state.q.clone();
        }
        Ok((best, q))
    };
    let (user, qu) = run(0)?;
    let (lumped, ql) = run(1)?;
    let (relative, qr) = run(2)?;
    let diff = |q: &[f64]| {
        qh.iter()
            .zip(q)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
    };
    println!(
        "{}",
        json!({ "case": "chain1000", "hand_seconds": hand, "user_seconds": user,
                "ratio": user / hand, "max_position_difference": diff(&qu),
                "mass_written_seconds": lumped, "mass_written_ratio": lumped / hand,
                "mass_written_position_difference": diff(&ql),
                "interaction_seconds": relative, "interaction_ratio": relative / hand,
                "interaction_position_difference": diff(&qr), "repeat": repeat })
    );
    Ok(())
}
