//! Work–precision of generalized-α at a fixed step and under error control (`--tol`): the error
//! against a reference, the accepted steps, the rejected attempts, the factorizations and the
//! seconds spent stepping, for
//!
//! - the planar pendulum (g = 1, released horizontally) at t = 10 against its exact solution,
//! - Andrews' squeezing mechanism at t = 0.03 against the CWI/Bari Test Set (PSIDE, tol 1e-14),
//! - three masses on damped springs with a 50 N load switched on within ~1 ms at t = 1: the
//!   largest error at ten times before, during and after the load (rows at those times,
//!   interpolated between steps) against a fixed step of 2·10⁻⁶ s.
//!
//! Prints one JSON line per run. `cargo run --release --example work_precision [-- --case andrews]`
//! (benches/README.md and docs/maths.md §14 quote its figures.)

use clap::Parser;
use lagrangian::library::andrews::{Q0, TEST_SET_Q_END as ANDREWS_Q_END, andrews_model};
use lagrangian::library::pendulum::planar_pendulum;
use lagrangian::output::Recorder;
use lagrangian::prelude::*;
use serde_json::json;

#[derive(Parser)]
struct Args {
    /// pendulum, andrews, load or all.
    #[arg(long, default_value = "all")]
    case: String,
    /// ρ∞ of generalized-α.
    #[arg(long = "rho-inf", default_value_t = 0.8)]
    rho_inf: f64,
}

/// The pendulum at t = 10 (tests/reference/pendulum_exact.json, case grav=1).
const PENDULUM_Q_END: [f64; 2] = [-0.8115864461913038, -0.5842323513453958];

/// Three masses on damped springs, a load switched on at t = 1 (as in tests/mechanics/adaptive.rs).
const SUDDEN_LOAD: &str = "Dimension: 2\nPhysicalParams: { k: 400, c: 20, m: 0.5 }\nPartData:\n  \
    Fixed: { O: [0, 0] }\n  Particles: { A: m, B: m, C: m }\n  \
    Springs: { OA: [k, 1, 0, c], AB: [k, 1, 0, c], BC: [k, 1, 0, c] }\n\
    AppliedForces:\n  Gravity:\n  Forces: { C: [0, -50*(0.5 + atan(2000*(t - 1))/3.141592653589793)] }\n\
    ProblemData: { tend: 3, positions: { A: [0, -1], B: [0, -2], C: [0, -3] } }\n";

/// How a run is controlled.
#[derive(Clone, Copy)]
enum Control {
    Fixed(f64),
    Tol(f64),
}

/// Run `problem` from `state` to the last of `times` and return (max |q − reference| over the
/// rows at `times`, stats); `reference` holds the rows' `q` one after another.
fn measure(
    problem: &Problem,
    state: &State,
    times: &[f64],
    opts: GenAlphaOptions,
    reference: &[f64],
) -> Result<(f64, Stats), Error> {
    let t_end = *times.last().expect("a time");
    let problem = problem.clone().t_end(t_end);
    let plan = RunPlan::new(opts).output_at(times);
    let mut sim = Simulation::from_state(problem, plan, state)?;
    let mut rows = Recorder::every(1);
    sim.run(&mut [&mut rows])?;
    let q = rows.records.iter().flat_map(|r| r.state.q.iter().copied());
    let err = q
        .zip(reference)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    Ok((err, sim.stats()))
}

fn print(case: &str, control: Control, result: Result<(f64, Stats), Error>) {
    let (kind, value) = match control {
        Control::Fixed(h) => ("h", h),
        Control::Tol(t) => ("tol", t),
    };
    match result {
        Ok((err, st)) => println!(
            "{}",
            json!({
                "case": case, kind: value, "error": err, "steps": st.steps,
                "rejected": st.rejected_steps, "factorizations": st.factorizations,
                "newton_iterations": st.newton_iterations, "seconds": st.solve_seconds,
            })
        ),
        Err(e) => println!(
            "{}",
            json!({ "case": case, kind: value, "failed": e.to_string() })
        ),
    }
}

fn options(control: Control, h0: f64, rho_inf: f64) -> GenAlphaOptions {
    match control {
        Control::Fixed(h) => GenAlphaOptions::new(h).rho_inf(rho_inf),
        Control::Tol(t) => GenAlphaOptions::new(h0).rho_inf(rho_inf).tolerance(t),
    }
}

fn pendulum(rho_inf: f64) -> Result<(), Error> {
    let model = Arc::new(planar_pendulum(1.0, 1.0, 1.0));
    let init =
        consistent_initial_values(&model, &[1.0, 0.0], &[0.0, 0.0], &InitOptions::default())?;
    let problem = Problem::new(model);
    let runs = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4]
        .map(Control::Fixed)
        .into_iter()
        .chain([1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8].map(Control::Tol));
    for c in runs {
        let r = measure(
            &problem,
            &init.state,
            &[10.0],
            options(c, 1e-3, rho_inf),
            &PENDULUM_Q_END,
        );
        print("pendulum", c, r);
    }
    Ok(())
}

fn andrews(rho_inf: f64) -> Result<(), Error> {
    let model = Arc::new(andrews_model());
    let init =
        consistent_initial_values(&model, &Q0, &[0.0; 7], &InitOptions::default().pin_q([1]))?;
    let problem = Problem::new(model);
    let runs = [1e-4, 3e-5, 1e-5, 3e-6, 1e-6]
        .map(Control::Fixed)
        .into_iter()
        .chain([1e-3, 1e-4, 3e-5, 1e-5, 1e-6, 1e-7].map(Control::Tol));
    for c in runs {
        let r = measure(
            &problem,
            &init.state,
            &[0.03],
            options(c, 1e-5, rho_inf),
            &ANDREWS_Q_END,
        );
        print("andrews", c, r);
    }
    Ok(())
}

/// Where the load case is compared: before, during and after the load.
const LOAD_TIMES: [f64; 10] = [0.5, 1.0, 1.002, 1.005, 1.01, 1.02, 1.05, 1.2, 2.0, 3.0];

fn load(rho_inf: f64) -> Result<(), Error> {
    let (problem, _) = lagrangian::spec::parse(SUDDEN_LOAD, "load.yaml")?;
    let init = problem.initial_values()?;
    let fine = GenAlphaOptions::new(2e-6).rho_inf(rho_inf);
    let reference: Vec<f64> = {
        let plan = RunPlan::new(fine).output_at(LOAD_TIMES);
        let mut sim = Simulation::from_state(problem.clone(), plan, &init.state)?;
        let mut rows = Recorder::every(1);
        sim.run_until(3.0, &mut [&mut rows])?;
        rows.records
            .iter()
            .flat_map(|r| r.state.q.clone())
            .collect()
    };
    let runs = [1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5]
        .map(Control::Fixed)
        .into_iter()
        .chain([1e-3, 1e-4, 1e-5, 1e-6, 1e-7].map(Control::Tol));
    for c in runs {
        let r = measure(
            &problem,
            &init.state,
            &LOAD_TIMES,
            options(c, 1e-3, rho_inf),
            &reference,
        );
        print("load", c, r);
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    let args = Args::parse();
    let all = args.case == "all";
    if all || args.case == "pendulum" {
        pendulum(args.rho_inf)?;
    }
    if all || args.case == "andrews" {
        andrews(args.rho_inf)?;
    }
    if all || args.case == "load" {
        load(args.rho_inf)?;
    }
    Ok(())
}
