//! Error-controlled generalized-α: the global error follows the tolerance on the exact
//! pendulum (1.4× tol from 1e-3 to 1e-8), constraints stay at the Newton tolerance on every
//! accepted step, Andrews' mechanism approaches the Test Set's values as the tolerance falls.

use lagrangian::library::pendulum::planar_pendulum;
use lagrangian::prelude::*;
use serde_json::Value;

fn reference() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/pendulum_exact.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The pendulum (g = 1, released horizontally) to t = 10 at tolerance `tol`: the error in q at
/// t = 10 against the exact solution, the steps and the rejections; the constraint checked at
/// every accepted step.
fn pendulum_at(tol: f64) -> (f64, usize, usize) {
    let refs = reference();
    let r = &refs["cases"]["grav=1"]["at"]["10"];
    let model = Arc::new(planar_pendulum(1.0, 1.0, 1.0));
    let init = consistent_initial_values(&model, &[1.0, 0.0], &[0.0, 0.0], &InitOptions::default())
        .unwrap();
    let mut sim = Simulation::from_state(
        Problem::new(model.clone()).t_end(10.0),
        GenAlphaOptions::new(1e-3).tolerance(tol),
        &init.state,
    )
    .unwrap();
    let mut c = [0.0];
    while 10.0 - sim.t() > 1e-12 {
        let rest = 10.0 - sim.t();
        if rest < sim.integrator().h() {
            sim.run(10.0, &mut []).unwrap();
            break;
        }
        sim.step().unwrap();
        let s = sim.state();
        lagrangian::assembly::constraint_values(&model, s.t, &s.q, &mut c);
        assert!(c[0].abs() <= 1e-12, "|C| = {:e} at t = {}", c[0], s.t);
    }
    let s = sim.state();
    assert!((s.t - 10.0).abs() < 1e-12, "ended at {}", s.t);
    let e = (s.q[0] - r["x"].as_f64().unwrap())
        .abs()
        .max((s.q[1] - r["y"].as_f64().unwrap()).abs());
    let st = sim.stats();
    (e, st.steps, st.rejected_steps)
}

#[test]
fn the_global_error_follows_the_tolerance_on_the_exact_pendulum() {
    let mut last = f64::INFINITY;
    let mut steps_before = 0;
    for k in 3..=8 {
        let tol = 10f64.powi(-k);
        let (e, steps, rejected) = pendulum_at(tol);
        eprintln!(
            "tol {tol:.0e}: error {e:.3e} ({:.2}× tol), {steps} steps, {rejected} rejected",
            e / tol
        );
        assert!(e < 10.0 * tol, "tol {tol:e}: error {e:e}");
        assert!(e < last, "tol {tol:e}: error {e:e} not below {last:e}");
        assert!(
            rejected * 20 < steps,
            "{rejected} rejections in {steps} steps"
        );
        assert!(steps > steps_before);
        (last, steps_before) = (e, steps);
    }
}

/// q(0.03) of Andrews' mechanism in the CWI/Bari IVP test set (PSIDE, tolerances 1e-14).
const ANDREWS_Q_END: [f64; 7] = [
    15.81077119629904,
    -15.75637105984298,
    0.04082224013073101,
    -0.5347301163226948,
    0.5244099658805304,
    0.5347301163226948,
    1.048080741042263,
];

#[test]
fn andrews_mechanism_reaches_the_test_set_as_the_tolerance_falls() {
    use lagrangian::library::andrews::{andrews_model, Q0};
    let model = Arc::new(andrews_model());
    let init =
        consistent_initial_values(&model, &Q0, &[0.0; 7], &InitOptions::default().pin_q([1]))
            .unwrap();
    let problem = Problem::new(model.clone()).t_end(0.03);
    let mut last = f64::INFINITY;
    for tol in [1e-4, 1e-5, 1e-6] {
        let opts = GenAlphaOptions::new(1e-5).tolerance(tol);
        let mut sim = Simulation::from_state(problem.clone(), opts, &init.state).unwrap();
        sim.run(0.03, &mut []).unwrap();
        let s = sim.state();
        assert!((s.t - 0.03).abs() < 1e-12);
        let err = (s.q.iter().zip(ANDREWS_Q_END)).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        let st = sim.stats();
        eprintln!(
            "Andrews tol {tol:.0e}: max |q error| {err:.2e}, {} steps, {} rejected",
            st.steps, st.rejected_steps
        );
        // measured: 7.0e-4 (1,169 steps), 1.1e-4 (3,699), 1.4e-5 (11,703)
        // the weights atol + rtol·|q| allow 1 + |q| ≈ 17 times tol on the two large angles
        assert!(
            err < 2.0 * tol * (1.0 + 15.81) && err < last,
            "tol {tol:e}: {err:e}"
        );
        last = err;
    }
    assert!(last < 1e-4);
}
