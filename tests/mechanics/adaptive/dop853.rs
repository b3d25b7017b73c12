//! DOP853 on the index-1 form with projection: order 8 on the exact pendulum, the global error
//! within a small factor of the tolerance from 1e-3 to 1e-12, constraints at round-off after
//! every step, the continuous extension against the exact solution between steps.

use super::reference;
use lagrangian::library::pendulum::planar_pendulum;
use lagrangian::prelude::*;

/// The pendulum (g = 1, released horizontally) to t = 10 with DOP853 at `tol`: the error at
/// t = 10, steps, rejections; `|C|` and `|C_q v|` checked after every accepted step.
fn dop853_pendulum(tol: f64) -> (f64, usize, usize) {
    let (e, st) = pendulum_to_10(Dop853Options::new(tol), &format!("tol {tol:e}"));
    (e, st.steps, st.rejected_steps)
}

/// The pendulum (g = 1, released horizontally) to t = 10 by `plan`: the error in `q` at t = 10
/// against the exact solution and the counters; `|C|` and `|C_q v|` below 1e-14 after every
/// step (`what` names the run in the message).
pub(crate) fn pendulum_to_10(plan: impl Into<RunPlan>, what: &str) -> (f64, Stats) {
    let refs = reference();
    let r = &refs["cases"]["grav=1"]["at"]["10"];
    let problem = Problem::new(planar_pendulum(1.0, 1.0, 1.0))
        .guess(&[1.0, 0.0], &[0.0, 0.0])
        .t_end(10.0);
    let mut sim = Simulation::new(problem, plan).unwrap();
    let mut worst = 0.0f64;
    let mut check = |ev: &Event| {
        let (q, v) = (ev.state.q, ev.state.v);
        let c = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1.0);
        let cv = q[0] * v[0] + q[1] * v[1];
        worst = worst.max(c.abs()).max(cv.abs());
        Control::Continue
    };
    sim.run_until(10.0, &mut [&mut check]).unwrap();
    assert!(worst < 1e-14, "{what}: constraint residual {worst:e}");
    let s = sim.state();
    assert!((s.t - 10.0).abs() < 1e-12);
    let e = (s.q[0] - r["x"].as_f64().unwrap())
        .abs()
        .max((s.q[1] - r["y"].as_f64().unwrap()).abs());
    (e, sim.stats().clone())
}

#[test]
fn dop853_error_follows_the_tolerance_on_the_exact_pendulum() {
    let mut last_steps = 0;
    for k in 3..=12 {
        let tol = 10f64.powi(-k);
        let (e, steps, rejected) = dop853_pendulum(tol);
        eprintln!(
            "DOP853 tol {tol:.0e}: error {e:.3e} ({:.2}× tol), {steps} steps, {rejected} rejected",
            e / tol
        );
        // measured: 0.004–0.27 × tol; 12 steps at 1e-3 … 202 at 1e-12
        assert!(e < 3.0 * tol, "tol {tol:e}: error {e:e}");
        assert!(steps >= last_steps && steps < 250, "{steps} steps");
        last_steps = steps;
    }
}

/// The pendulum at the fixed step `h` (`h_min = h_max = h0 = h`, a tolerance no step fails):
/// the largest error at t = 1, 3 and 10 (each a whole number of steps).
fn fixed_step_error(h: f64) -> f64 {
    let refs = reference();
    let mut worst = 0.0f64;
    for t in ["1", "3", "10"] {
        let r = &refs["cases"]["grav=1"]["at"][t];
        let problem = Problem::new(planar_pendulum(1.0, 1.0, 1.0))
            .guess(&[1.0, 0.0], &[0.0, 0.0])
            .t_end(t.parse().unwrap());
        let opts = Dop853Options {
            h0: h,
            h_min: h * (1.0 - 1e-9),
            h_max: h,
            span: -1.0,
            ..Dop853Options::new(0.9)
        };
        let sol = simulate(&problem, opts).unwrap();
        assert_eq!(sol.stats.rejected_steps, 0);
        let s = &sol.last().state;
        let e = (s.q[0] - r["x"].as_f64().unwrap())
            .abs()
            .max((s.q[1] - r["y"].as_f64().unwrap()).abs());
        worst = worst.max(e);
    }
    worst
}

#[test]
fn dop853_converges_with_order_8_on_the_constrained_pendulum() {
    let e: Vec<f64> = [4.0, 8.0, 16.0]
        .iter()
        .map(|&k| fixed_step_error(1.0 / k))
        .collect();
    let orders: Vec<f64> = e.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    eprintln!("DOP853 fixed steps 1/4, 1/8, 1/16: errors {e:?}, orders {orders:?}");
    for p in orders {
        assert!((7.5..9.0).contains(&p), "order {p}");
    }
}

#[test]
fn dop853_output_between_steps_is_of_the_method_s_accuracy() {
    // rows every 0.25 s from the continuous extension (order 7), against runs that land on
    // each time with a step of their own
    let tol = 1e-10;
    let problem = Problem::new(planar_pendulum(1.0, 1.0, 1.0))
        .guess(&[1.0, 0.0], &[0.0, 0.0])
        .t_end(4.0);
    let plan = RunPlan::new(Dop853Options::new(tol)).output_dt(0.25);
    let sol = simulate(&problem, &plan).unwrap();
    assert_eq!(sol.records.len(), 17);
    assert!(sol.stats.steps < 40, "{} steps", sol.stats.steps);
    let mut worst = 0.0f64;
    for r in &sol.records[1..16] {
        let s = &r.state;
        let landed = simulate(&problem.clone().t_end(s.t), Dop853Options::new(tol)).unwrap();
        let l = &landed.last().state;
        let d = (0..2)
            .map(|i| (s.q[i] - l.q[i]).abs().max((s.v[i] - l.v[i]).abs()))
            .fold(0.0, f64::max);
        worst = worst.max(d);
        assert!(r.max_constraint < 1e-14);
        assert!((r.energy - sol.records[0].energy).abs() < 10.0 * tol);
    }
    eprintln!("largest difference between interpolated and landed states: {worst:.2e}");
    assert!(worst < 5.0 * tol, "{worst:e}");
}

#[test]
fn dop853_meets_andrews_test_set_values() {
    use lagrangian::library::andrews::TEST_SET_Q_END;
    let (problem, start) = super::andrews();
    let mut errors = Vec::new();
    for tol in [1e-6, 1e-8, 1e-10] {
        let mut sim =
            Simulation::from_state(problem.clone(), Dop853Options::new(tol), &start).unwrap();
        sim.run_until(0.03, &mut []).unwrap();
        let s = sim.state();
        let err = (s.q.iter().zip(TEST_SET_Q_END)).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        let st = sim.stats();
        eprintln!(
            "Andrews DOP853 tol {tol:.0e}: max |q error| {err:.2e}, {} steps, {} rejected",
            st.steps, st.rejected_steps
        );
        errors.push((tol, err));
    }
    // measured: 5.7e-8, 1.5e-9, 1.4e-9. The Test Set's values lie 1.43e-9 from the converged
    // solution: scipy's DOP853 and Radau and this method meet there to 1e-11 at tol 1e-11
    // (benches/README.md, "High-order work–precision")
    for (tol, err) in errors {
        assert!(err < 3.0 * tol.max(1.5e-9), "tol {tol:e}: {err:e}");
    }
}

#[test]
fn dop853_error_follows_the_tolerance_on_kepler_s_eccentric_orbit() {
    // e = 0.6 over three periods: back at the perihelion (0.4, 0)
    let p = super::kepler();
    for k in 4..=12 {
        let tol = 10f64.powi(-k);
        let sol = simulate(&p, Dop853Options::new(tol)).unwrap();
        let q = &sol.last().state.q;
        let e = (q[0] - 0.4).abs().max(q[1].abs());
        let st = &sol.stats;
        eprintln!(
            "Kepler tol {tol:.0e}: error {e:.2e} ({:.2}× tol), {} steps, {} rejected",
            e / tol,
            st.steps,
            st.rejected_steps
        );
        // measured: 0.2–5.7 × tol (the largest at 1e-4), 41 … 432 steps
        assert!(e < 10.0 * tol, "tol {tol:e}: {e:e}");
        if k == 10 {
            assert!(
                e <= 3e-10 && st.steps <= 20_000,
                "{e:e} in {} steps",
                st.steps
            );
        }
    }
}

#[test]
fn dop853_says_when_a_mechanism_is_stiff() {
    // a slow oscillator (ω = 1) dragging a light mass on a damped spring: the light mass
    // follows within 1/1000 s (a mode at −1000/s), so stability, not accuracy, holds DOP853's
    // steps down
    let problem = lagrangian::library::mass_spring::scenes::stiff_oscillator()
        .problem(2.0)
        .unwrap();
    let mut sim = Simulation::new(problem, Dop853Options::new(1e-6)).unwrap();
    sim.run(&mut []).unwrap();
    let advice = sim.integrator().advice();
    eprintln!("{} steps: {advice:?}", sim.stats().steps);
    let advice = advice.expect("stiffness detected");
    assert!(
        advice.contains("stiff") && advice.contains("radau"),
        "{advice}"
    );
    // a non-stiff run says nothing
    let p = Problem::new(planar_pendulum(1.0, 1.0, 1.0)).guess(&[1.0, 0.0], &[0.0, 0.0]);
    let mut sim = Simulation::new(p, Dop853Options::new(1e-8)).unwrap();
    sim.run_until(1.0, &mut []).unwrap();
    assert!(sim.integrator().advice().is_none());
}

#[test]
fn dop853_chosen_by_a_tolerance_goes_on_with_radau_where_the_problem_is_stiff() {
    use lagrangian::run::memory::{MemoryOptions, run_in_memory};
    use lagrangian::solve::Overrides;
    let system = lagrangian::library::mass_spring::scenes::stiff_oscillator();
    let (base, base_plan) = (system.problem(2.0).unwrap(), system.plan(2.0, 1).unwrap());
    let reference = simulate(&base, Dop853Options::new(1e-12)).unwrap();
    let alone = simulate(&base, Dop853Options::new(1e-6)).unwrap();
    // a tolerance alone picks DOP853 that switches; a named DOP853 does not
    let (mut auto, mut auto_plan) = (base.clone(), base_plan.clone());
    let tol = Overrides {
        tol: Some(1e-6),
        ..Default::default()
    };
    auto_plan.apply(&mut auto, &tol).unwrap();
    assert!(
        matches!(&auto_plan.method, Method::Dop853(d) if d.switch_when_stiff && d.rtol == 1e-6)
    );
    let (mut named, mut named_plan) = (base.clone(), base_plan.clone());
    let dop853 = Overrides {
        integrator: Some("dop853".into()),
        ..tol
    };
    named_plan.apply(&mut named, &dop853).unwrap();
    assert!(matches!(&named_plan.method, Method::Dop853(d) if !d.switch_when_stiff));
    // a file whose tolerance picked the switching DOP853, run with `--integrator dop853`
    // alone: the named method runs as named, at the file's tolerance
    let (mut again, mut again_plan) = (auto.clone(), auto_plan.clone());
    let only_the_name = Overrides {
        integrator: Some("dop853".into()),
        ..Default::default()
    };
    again_plan.apply(&mut again, &only_the_name).unwrap();
    assert!(
        matches!(&again_plan.method, Method::Dop853(d) if !d.switch_when_stiff && d.rtol == 1e-6)
    );

    let mut sim = Simulation::new(auto.clone(), &auto_plan).unwrap();
    sim.run(&mut []).unwrap();
    let sw = sim.switches().to_vec();
    let (r, s) = (&reference.last().state, sim.state());
    let err = (0..s.q.len()).fold(0.0f64, |m, i| m.max((s.q[i] - r.q[i]).abs()));
    let st = sim.stats();
    eprintln!(
        "stiff oscillator, tol 1e-6: DOP853 alone {} steps; with the switch {} steps (at t = {:.4}), \
         error {err:.2e}",
        alone.stats.steps,
        st.steps,
        sw.first().map_or(f64::NAN, |w| w.t)
    );
    assert_eq!(sw.len(), 1, "{sw:?}");
    assert_eq!(
        (sw[0].from.as_str(), sw[0].to.as_str()),
        ("dop853", "radau")
    );
    // measured: at t = 0.155 (the fifteenth stiff step), 55 steps in all against 328
    assert!(sw[0].t > 0.0 && sw[0].t < 0.5, "switched at {}", sw[0].t);
    assert!(matches!(sim.method(), Method::Radau(r) if r.rtol == 1e-6 && r.atol == 1e-6));
    assert!(sim.integrator().advice().is_none());
    assert!(3 * st.steps < alone.stats.steps, "{} steps", st.steps);
    assert!(err < 1e-5, "{err:e}");

    // the summary says so; the named DOP853 runs to the end and advises instead
    let run = run_in_memory(auto, &auto_plan, &MemoryOptions::default()).unwrap();
    let text = run.summary.to_string();
    assert!(text.contains("radau instead of dop853 (stiff"), "{text}");
    assert_eq!(run.summary.switches.len(), 1);
    let run = run_in_memory(named, &named_plan, &MemoryOptions::default()).unwrap();
    assert!(run.summary.switches.is_empty());
    assert!(run.summary.notes.iter().any(|n| n.contains("stiff")));

    // a mechanism that is not stiff never switches
    let p = Problem::new(planar_pendulum(1.0, 1.0, 1.0)).guess(&[1.0, 0.0], &[0.0, 0.0]);
    let mut sim = Simulation::new(p, Dop853Options::new(1e-8).switch_when_stiff()).unwrap();
    sim.run_until(10.0, &mut []).unwrap();
    assert!(sim.switches().is_empty());
}

#[test]
fn dop853_refuses_bad_options() {
    let p = Problem::new(planar_pendulum(1.0, 1.0, 1.0)).guess(&[1.0, 0.0], &[0.0, 0.0]);
    for (opts, text) in [
        (Dop853Options::new(-1.0), "must lie in [0, 1)"),
        (Dop853Options::new(0.0), "not both be 0"),
        (
            Dop853Options::new(1e-30),
            "below what double precision can hold",
        ),
        (
            Dop853Options {
                h_max: 1e-3,
                h_min: 1e-2,
                ..Dop853Options::new(1e-6)
            },
            "above h_max",
        ),
        (
            Dop853Options {
                h0: f64::NAN,
                ..Dop853Options::new(1e-6)
            },
            "h0",
        ),
        (
            Dop853Options {
                h_min: 5.0,
                ..Dop853Options::new(1e-6)
            },
            "is longer than the run's span 1",
        ),
    ] {
        let err = Simulation::new(p.clone(), opts).err().unwrap().to_string();
        assert!(err.contains(text), "{err}");
    }
    // a step floor the tolerance cannot be met above fails with the error against the tolerance
    let opts = Dop853Options {
        h0: 0.5,
        h_min: 0.4,
        ..Dop853Options::new(1e-12)
    };
    let err = simulate(&p.clone().t_end(2.0), opts)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("h_min") && err.contains("times the tolerance"),
        "{err}"
    );
}

#[test]
fn generalized_alpha_refuses_a_tolerance_it_cannot_meet_and_names_dop853() {
    let p = Problem::new(planar_pendulum(1.0, 1.0, 1.0)).guess(&[1.0, 0.0], &[0.0, 0.0]);
    let err = Simulation::new(p.clone(), GenAlphaOptions::new(1e-3).tolerance(1e-10))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("order 2") && err.contains("dop853"), "{err}");
    // what it asks for, DOP853 meets: the pendulum at 1e-10 and 1e-12 in 105 and 202 steps
    // (measured, tests above)
    assert!(Simulation::new(p, GenAlphaOptions::new(1e-3).tolerance(1e-9)).is_ok());
}
