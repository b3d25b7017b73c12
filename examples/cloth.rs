//! Benchmark: an M×M cloth membrane with a fixed rim (see
//! `lagrangian::library::mass_spring::scenes::cloth`). Prints one JSON line.
//!
//! `cargo run --release --example cloth -- --m 90 --h 1e-3 --t-end 1 [--derivatives ad]`

use clap::Parser;
use lagrangian::ad::Derivatives;
use lagrangian::library::mass_spring::scenes::{cloth, rms_displacement};
use lagrangian::solve::LinearSolverKind;
use serde_json::json;
use std::process::ExitCode;

#[derive(Parser)]
struct Args {
    /// Particles per side.
    #[arg(long, default_value_t = 90)]
    m: usize,
    /// Step size.
    #[arg(long, default_value_t = 1e-3)]
    h: f64,
    /// End time.
    #[arg(long = "t-end", default_value_t = 1.0)]
    t_end: f64,
    /// Linear solver: auto (Jacobi-first, LU fallback), sparse (LU) or dense.
    #[arg(long, default_value = "auto")]
    solver: String,
    /// Spectral radius at infinity.
    #[arg(long = "rho-inf", default_value_t = 0.8)]
    rho_inf: f64,
    /// Newton tolerance (default: the benchmark scenes' 1e-10).
    #[arg(long = "newton-tol")]
    newton_tol: Option<f64>,
    /// Element kernels: hand-derived (`hand`) or by AD from the energies (`ad`).
    #[arg(long, default_value = "hand")]
    derivatives: String,
}

fn main() -> ExitCode {
    let a = Args::parse();
    let (mut s, mid) = match cloth(a.m) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    s.options.method.rho_inf = a.rho_inf;
    s.options.derivatives = match a.derivatives.as_str() {
        "ad" => Derivatives::Ad,
        _ => Derivatives::Hand,
    };
    if let Some(tol) = a.newton_tol {
        s.options.method.newton_tol = tol;
    }
    s.options.method.linear_solver = match a.solver.as_str() {
        "sparse" => LinearSolverKind::Sparse,
        "dense" => LinearSolverKind::Dense,
        "jacobi" => LinearSolverKind::Jacobi,
        _ => LinearSolverKind::Auto,
    };
    let (q0, _) = s.state_vectors();
    let steps = (a.t_end / a.h).round() as usize;
    match s.simulate(a.t_end, steps) {
        Ok(sol) => {
            let mid = s.position(mid);
            println!(
                "{}",
                json!({
                    "m": a.m, "coordinates": s.n_coords(), "h": a.h, "t_end": a.t_end,
                    "mid": mid, "q_rms": rms_displacement(&s, &q0),
                    "build_seconds": s.info().build_seconds,
                    "solve_seconds": sol.stats.solve_seconds,
                    "steps": sol.stats.steps,
                    "newton_iterations": sol.stats.newton_iterations,
                    "factorizations": sol.stats.factorizations,
                    "solver_switches": sol.stats.solver_switches,
                })
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
