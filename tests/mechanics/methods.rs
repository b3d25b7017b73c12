//! Every error-controlled method on every reference model, from two tables: a method is tested
//! on all models by adding one line to [`METHODS`], a model on all methods by one line of
//! [`MODELS`]. For each pair and each of the method's tolerances, the global error at the end
//! (against an exact solution, the values of the CWI/Bari Test Set for IVP Solvers, or the
//! energy a conservative chaotic motion keeps) must be within the pair's factor of the
//! tolerance, and the position constraints must hold after every accepted step.

use crate::adaptive;
use lagrangian::library::andrews::TEST_SET_Q_END;
use lagrangian::library::car_axis;
use lagrangian::library::pendulum::{
    angle_pendulum, double_pendulum_cartesian, double_pendulum_positions, planar_pendulum,
};
use lagrangian::prelude::*;

/// An integrator under test: how it is made for a tolerance, and the tolerances it is run at
/// (a second-order method is not run at tolerances it would need millions of steps for).
struct MethodRow {
    name: &'static str,
    make: fn(f64) -> Method,
    tols: &'static [f64],
    /// The largest `|C|` allowed after an accepted step at a tolerance: the Newton iteration's
    /// own tolerance, or round-off where the method projects onto the constraints.
    constraint: fn(f64) -> f64,
}

const METHODS: &[MethodRow] = &[
    MethodRow {
        name: "generalized-α",
        make: |tol| GenAlphaOptions::new(1e-3).tolerance(tol).into(),
        tols: &[1e-4, 1e-6],
        // measured ≤ 6e-13
        constraint: |_| 1e-11,
    },
    MethodRow {
        name: "DOP853",
        make: |tol| Dop853Options::new(tol).into(),
        tols: &[1e-4, 1e-7, 1e-10],
        // projection after every step: measured ≤ 5e-16
        constraint: |_| 1e-14,
    },
    MethodRow {
        name: "Radau IIA",
        make: |tol| RadauOptions::new(tol).into(),
        tols: &[1e-4, 1e-7, 1e-10],
        // the simplified Newton iteration stops at a fraction of the tolerance: measured
        // ≤ 1e-3 × tol
        constraint: |tol| 1e-2 * tol + 1e-14,
    },
];

/// A reference model: the problem (with its consistent start, where the guess is not one), the
/// largest error of a state at its end time against the reference there, and the reference's
/// own accuracy (errors are held to the factor times the larger of it and the tolerance).
struct ModelRow {
    name: &'static str,
    problem: fn() -> (Problem, Option<State>),
    error: fn(&Model, &State) -> f64,
    floor: f64,
}

const MODELS: &[ModelRow] = &[
    ModelRow {
        name: "pendulum (exact, t = 10)",
        problem: || {
            let p = Problem::new(planar_pendulum(1.0, 1.0, 1.0))
                .guess(&[1.0, 0.0], &[0.0, 0.0])
                .t_end(10.0);
            (p, None)
        },
        error: |_, s| {
            // the elliptic-function solution (tests/reference/pendulum_exact.json, g = 1)
            let r = &adaptive::reference()["cases"]["grav=1"]["at"]["10"];
            let (x, y) = (r["x"].as_f64().unwrap(), r["y"].as_f64().unwrap());
            (s.q[0] - x).abs().max((s.q[1] - y).abs())
        },
        floor: 0.0,
    },
    ModelRow {
        name: "Andrews' squeezer (t = 0.03)",
        problem: || {
            let (p, start) = adaptive::andrews();
            (p, Some(start))
        },
        error: |_, s| max_diff(&s.q, &TEST_SET_Q_END),
        // the Test Set's values lie 1.43e-9 from the converged solution, where DOP853 and
        // Radau meet, and scipy's methods too (benches/README.md, "High-order work–precision")
        floor: 1.5e-9,
    },
    ModelRow {
        name: "car axis (stiff, t = 3)",
        problem: || (adaptive::car_axis::car_axis(), None),
        error: |_, s| max_diff(&s.q, &car_axis::TEST_SET_Q_END),
        floor: 0.0,
    },
    ModelRow {
        name: "Kepler e = 0.6 (3 periods)",
        problem: || (adaptive::kepler(), None),
        // back at the perihelion (a(1 − e), 0) after three periods
        error: |_, s| (s.q[0] - 0.4).abs().max(s.q[1].abs()),
        floor: 0.0,
    },
    ModelRow {
        name: "double pendulum (energy, t = 5)",
        problem: || {
            let (l, th) = ([1.0, 0.7], [1.2, -0.4]);
            let q = double_pendulum_positions(l, th);
            let p = Problem::new(double_pendulum_cartesian([1.0, 0.6], l, 9.81))
                .guess(&q, &[0.0; 4])
                .t_end(5.0);
            (p, None)
        },
        // chaotic, so the error is the energy's: released at rest, E = g Σ mᵢ yᵢ(0) = −7.6713…
        error: |m, s| {
            let e0 = 9.81 * (-1.2f64.cos() - 0.6 * (1.2f64.cos() + 0.7 * 0.4f64.cos()));
            (lagrangian::assembly::energies(m, s.t, &s.q, &s.v)[2] - e0).abs()
        },
        floor: 0.0,
    },
];

/// The factor of the tolerance the error of each pair must stay under, in the order of
/// [`METHODS`] (rows) and [`MODELS`] (columns). Measured (`cargo test --release --test
/// mechanics methods:: -- --nocapture`), the worst over each row's tolerances: Kepler's orbit
/// gathers its error over three periods, generalized-α's most (its order is two).
const FACTOR: [[f64; 5]; 3] = [
    // generalized-α: 1.22, 3.31, 0.17, 14.1, 0.11
    [3.0, 6.0, 1.0, 25.0, 1.0],
    // DOP853: 0.05, 0.95, 0.002, 5.7, 0.20
    [1.0, 3.0, 0.1, 10.0, 1.0],
    // Radau IIA: 0.02, 0.98, 0.03, 5.9, 0.43
    [1.0, 3.0, 0.3, 10.0, 1.0],
];

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    (a.iter().zip(b)).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

/// One method on one model at `tol`: the error at the end, the steps, and the largest `|C|`
/// after any accepted step.
fn run(method: &MethodRow, model: &ModelRow, tol: f64) -> (f64, usize, f64) {
    let (problem, start) = (model.problem)();
    let t_end = problem.t_end;
    let m = problem.model.clone();
    let mut sim = match start {
        Some(s) => Simulation::from_state(problem, (method.make)(tol), &s),
        None => Simulation::new(problem, (method.make)(tol)),
    }
    .unwrap();
    let mut c = vec![0.0; m.n_constraints()];
    let mut worst_c = 0.0f64;
    let mut check = |ev: &Event| {
        lagrangian::assembly::constraint_values(&m, ev.state.t, ev.state.q, &mut c);
        worst_c = c.iter().fold(worst_c, |w, x| w.max(x.abs()));
        Control::Continue
    };
    sim.run_until(t_end, &mut [&mut check]).unwrap();
    let s = sim.state();
    assert_eq!(s.t, t_end, "a run ends at its end time exactly");
    ((model.error)(&m, &s), sim.stats().steps, worst_c)
}

#[test]
fn every_method_follows_its_tolerance_on_every_reference_model() {
    let mut failures = Vec::new();
    for (i, method) in METHODS.iter().enumerate() {
        for (j, model) in MODELS.iter().enumerate() {
            for &tol in method.tols {
                let (e, steps, c) = run(method, model, tol);
                eprintln!(
                    "{}, {}, tol {tol:.0e}: error {e:.2e} ({:.2} × tol), {steps} steps, \
                     max |C| {c:.1e}",
                    method.name,
                    model.name,
                    e / tol.max(model.floor)
                );
                if e.is_nan() || e > FACTOR[i][j] * tol.max(model.floor) {
                    failures.push(format!(
                        "{} on {} at tol {tol:e}: error {e:e} > {} × tol",
                        method.name, model.name, FACTOR[i][j]
                    ));
                }
                if c.is_nan() || c > (method.constraint)(tol) {
                    failures.push(format!(
                        "{} on {} at tol {tol:e}: |C| = {c:e} after a step",
                        method.name, model.name
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every method, fixed-step or error-controlled, ends a run at its end time itself, also when
/// the last step is shortened to get there: `0.001 + 0.009` rounds to `0.010000000000000002`,
/// which a user comparing `t[-1] == t_end` (or starting the next piece from it) would see.
#[test]
fn every_method_lands_exactly_on_its_end_times() {
    let methods: [(&str, Method); 6] = [
        ("generalized-α", GenAlphaOptions::new(1e-3).into()),
        (
            "generalized-α, error control",
            GenAlphaOptions::new(1e-3).tolerance(1e-6).into(),
        ),
        ("RK4", lagrangian::solve::Rk4Options::new(1e-3).into()),
        ("DOP853", Dop853Options::new(1e-8).into()),
        ("Radau IIA", RadauOptions::new(1e-8).into()),
        ("Taylor", TaylorOptions::new(1e-10, 20).into()),
    ];
    for (name, method) in methods {
        // the first step 10⁻³, so that the error-controlled ones step across 0.001
        let method = method.with_h(1e-3);
        let problem = Problem::new(angle_pendulum(1.0, 1.0, 9.81))
            .guess(&[1.0], &[0.0])
            .t_end(1.0);
        let mut sim = Simulation::new(problem, method).unwrap();
        for t_end in [0.01, 0.0123, 0.1, 0.30000000000000004, 0.7] {
            sim.run_until(t_end, &mut []).unwrap();
            assert_eq!(sim.t(), t_end, "{name}");
            assert_eq!(sim.state().t, t_end, "{name}");
        }
    }
}
