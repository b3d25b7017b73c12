//! Error-controlled generalized-α: the global error follows the tolerance on the exact
//! pendulum (1.4× tol from 1e-3 to 1e-8), constraints stay at the Newton tolerance on every
//! accepted step, Andrews' mechanism approaches the Test Set's values as the tolerance falls
//! and reaches 1e-4 in fewer steps than the fixed step that does.

use lagrangian::error::OptionError;
use lagrangian::library::pendulum::planar_pendulum;
use lagrangian::prelude::*;
use serde_json::Value;

pub(crate) fn reference() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/pendulum_exact.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Andrews' mechanism to t = 0.03 and its consistent start (the Test Set's angles, the second
/// pinned).
pub(crate) fn andrews() -> (Problem, State) {
    use lagrangian::library::andrews::{Q0, andrews_model};
    let model = Arc::new(andrews_model());
    let init =
        consistent_initial_values(&model, &Q0, &[0.0; 7], &InitOptions::default().pin_q([1]))
            .unwrap();
    (Problem::new(model).t_end(0.03), init.state)
}

/// Kepler's e = 0.6 orbit (GM = 1, a = 1) over three periods: back at the perihelion (0.4, 0).
pub(crate) fn kepler() -> Problem {
    let text = "Dimension: 2\nPhysicalParams: { GM: 1, m: 0.001, e: 0.6, a: 1 }\n\
         PartData:\n  Fixed: { S: [0, 0] }\n  Particles: { P: m }\n\
         AppliedForces:\n  Potentials:\n    sun: -GM*m/norm(P - S)\n\
         ProblemData:\n  tend: 18.84955592153876\n  positions: { P: [a*(1 - e), 0] }\n  \
         velocities: { P: [0, sqrt(GM*(1 + e)/(a*(1 - e)))] }\n";
    lagrangian::spec::parse(text, "kepler.yaml").unwrap().0
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
            sim.run_until(10.0, &mut []).unwrap();
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

#[test]
fn andrews_mechanism_reaches_the_test_set_as_the_tolerance_falls() {
    use lagrangian::library::andrews::TEST_SET_Q_END as ANDREWS_Q_END;
    let (problem, start) = andrews();
    let mut last = f64::INFINITY;
    for tol in [1e-4, 1e-5, 1e-6] {
        let opts = GenAlphaOptions::new(1e-5).tolerance(tol);
        let mut sim = Simulation::from_state(problem.clone(), opts, &start).unwrap();
        sim.run_until(0.03, &mut []).unwrap();
        let s = sim.state();
        assert!((s.t - 0.03).abs() < 1e-12);
        let err = (s.q.iter().zip(ANDREWS_Q_END)).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        let st = sim.stats();
        eprintln!(
            "Andrews tol {tol:.0e}: max |q error| {err:.2e}, {} steps, {} rejected",
            st.steps, st.rejected_steps
        );
        // measured: 5.4e-5 (2,096 steps), 5.7e-6 (6,803), 3.4e-7 (21,014)
        assert!(err < tol && err < last, "tol {tol:e}: {err:e}");
        assert!(st.rejected_steps * 20 < st.steps);
        if tol == 1e-4 {
            // the fixed step h = 1e-5 needs 3,000 steps for 8.7e-5
            assert!(st.steps < 2_500, "{} steps", st.steps);
        }
        last = err;
    }
}

#[test]
fn generalized_alpha_under_error_control_follows_a_stiff_transient() {
    // the stiff oscillator (a light mass dragged on a damped spring, a mode at −1000/s): the
    // first steps resolve the transient of 1/1000 s. The estimate's q⁗ from the second
    // difference of `a` alone read the O(h₋²) error `a` keeps from a longer step as curvature
    // after each sharp reduction, and the step fell to h_min at t ≈ 1e-5 for every tol in
    // 1e-4 … 1e-7
    let problem = lagrangian::library::mass_spring::scenes::stiff_oscillator()
        .problem(2.0)
        .unwrap();
    let reference = simulate(&problem, RadauOptions::new(1e-12)).unwrap();
    for tol in [1e-4, 1e-6] {
        let sol = simulate(&problem, GenAlphaOptions::new(2e-4).tolerance(tol)).unwrap();
        let (r, s) = (&reference.last().state, &sol.last().state);
        let err = (0..s.q.len()).fold(0.0f64, |m, i| m.max((s.q[i] - r.q[i]).abs()));
        eprintln!(
            "stiff oscillator, generalized-α tol {tol:.0e}: error {err:.2e}, {} steps, {} rejected",
            sol.stats.steps, sol.stats.rejected_steps
        );
        // measured: 6.4e-5 in 1313 steps (5 rejected), 7.2e-7 in 13353 (6 rejected)
        assert!(err < tol, "tol {tol:e}: {err:e}");
        assert!(sol.stats.rejected_steps < 20);
    }
}

use crate::common;

/// Three masses hanging in a line on strongly damped springs (settled well before t = 1); at t = 1 a load of 50 N on C is switched on
/// within about a millisecond.
const SUDDEN_LOAD: &str = "Dimension: 2\nPhysicalParams: { k: 400, c: 20, m: 0.5 }\nPartData:\n  \
    Fixed: { O: [0, 0] }\n  Particles: { A: m, B: m, C: m }\n  \
    Springs: { OA: [k, 1, 0, c], AB: [k, 1, 0, c], BC: [k, 1, 0, c] }\n\
    AppliedForces:\n  Gravity:\n  Forces: { C: [0, -50*(0.5 + atan(2000*(t - 1))/3.141592653589793)] }\n\
    ProblemData: { tend: 3, positions: { A: [0, -1], B: [0, -2], C: [0, -3] } }\n";

#[test]
fn a_sudden_load_takes_small_steps_there_and_large_ones_elsewhere() {
    let dir = common::tmp("adaptive-load");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("load.yaml");
    std::fs::write(
        &file,
        format!("{SUDDEN_LOAD}SolverParams: {{ tol: 1e-6, integrator: genalpha }}\n"),
    )
    .unwrap();
    let out = dir.join("out");
    let o = common::run(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--output-every-step",
            "--columns",
            "positions",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (names, rows) = common::trajectory(&out);
    // one row per accepted step: the step sizes are the differences of t
    let dt: Vec<(f64, f64)> = rows
        .windows(2)
        .map(|w| (w[0][0], w[1][0] - w[0][0]))
        .collect();
    let near = dt
        .iter()
        .filter(|(t, _)| (t - 1.0).abs() < 0.01)
        .map(|x| x.1)
        .fold(f64::INFINITY, f64::min);
    let mut far: Vec<f64> = dt.iter().filter(|(t, _)| *t > 1.5).map(|x| x.1).collect();
    far.sort_by(f64::total_cmp);
    let typical = far[far.len() / 2];
    eprintln!(
        "{} steps; smallest near the load {near:.2e}, typical after it {typical:.2e}",
        dt.len()
    );
    assert!(near < typical / 20.0, "{near:e} vs {typical:e}");
    assert!((rows.last().unwrap()[0] - 3.0).abs() < 1e-12);
    let summary = common::summary(&out);
    assert!(
        summary["method"]["step_control"]["rtol"] == 1e-6,
        "{}",
        summary["method"]
    );
    // against a fine fixed step (h = 1e-5; its own error near 1e-7)
    std::fs::write(
        &file,
        format!("{SUDDEN_LOAD}SolverParams: {{ step: 1e-5 }}\n"),
    )
    .unwrap();
    let fine = dir.join("fine");
    let o = common::run(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--columns",
            "positions",
            "--output-every",
            "1000",
            "--out",
            fine.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success());
    let (_, reference) = common::trajectory(&fine);
    let (a, b) = (rows.last().unwrap(), reference.last().unwrap());
    let err = (1..names.len())
        .map(|i| (a[i] - b[i]).abs())
        .fold(0.0, f64::max);
    eprintln!("max position difference at t = 3 from the fine fixed step: {err:.2e}");
    assert!(err < 1e-4, "{err:e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tolerances_are_checked_and_exclude_a_step() {
    let dir = common::tmp("adaptive-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.yaml");
    std::fs::write(
        &file,
        format!("{SUDDEN_LOAD}SolverParams: {{ tol: 1e-6, step: 1e-3 }}\n"),
    )
    .unwrap();
    let o = common::run(&["check", file.to_str().unwrap()], None);
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(
        msg.contains("SolverParams.tol") && msg.contains("not both"),
        "{msg}"
    );
    std::fs::write(
        &file,
        format!("{SUDDEN_LOAD}SolverParams: {{ tol: 1e-6, integrator: rk4 }}\n"),
    )
    .unwrap();
    let o = common::run(&["check", file.to_str().unwrap()], None);
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(
        msg.contains("RK4 runs at a fixed step") && msg.contains("dop853"),
        "{msg}"
    );
    std::fs::write(
        &file,
        format!("{SUDDEN_LOAD}SolverParams: {{ integrator: dop853, steps: 100 }}\n"),
    )
    .unwrap();
    let o = common::run(&["check", file.to_str().unwrap()], None);
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(
        msg.contains("SolverParams.integrator") && msg.contains("give tol"),
        "{msg}"
    );
    // a file may name Radau IIA; its tolerance and step bounds carry over
    let text =
        format!("{SUDDEN_LOAD}SolverParams: {{ integrator: radau, tol: 1e-7, h_max: 0.01 }}\n");
    let (_, p_plan) = lagrangian::spec::parse(&text, "radau.yaml").unwrap();
    assert!(
        matches!(&p_plan.method, lagrangian::solve::Method::Radau(o) if o.rtol == 1e-7 && o.atol == 1e-7 && o.h_max == 0.01),
        "{:?}",
        p_plan.method
    );
    // Mechanism0's DAETS settings are honoured: tolerance 1e-12 by the Taylor series of order 20
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let (p, p_plan) = lagrangian::spec::parse(&text, "mechanism0.yaml").unwrap();
    assert!(
        matches!(&p_plan.method, lagrangian::solve::Method::Taylor(o) if o.rtol == 1e-12 && o.atol == 1e-12 && o.order == 20),
        "{:?}",
        p_plan.method
    );
    assert!(
        !p.notes.iter().any(|n| n.contains("order")),
        "{:?}",
        p.notes
    );
    // a run that changes the end time or the output keeps the method's automatic first step
    // (it became 10⁻³ once, and the first step of every such run that short)
    for ov in [
        lagrangian::solve::Overrides {
            t_end: Some(0.01),
            ..Default::default()
        },
        lagrangian::solve::Overrides {
            output_every_step: true,
            ..Default::default()
        },
    ] {
        let (mut q, mut q_plan) = (p.clone(), p_plan.clone());
        q_plan.apply(&mut q, &ov).unwrap();
        assert!(
            matches!(&q_plan.method, lagrangian::solve::Method::Taylor(o) if o.h0 == 0.0 && o.order == 20),
            "{:?}",
            q_plan.method
        );
    }
    // an order above the series' capacity runs at 22, noted; a named integrator wins
    let high = text.replace("order: 20", "order: 30");
    let (p, p_plan) = lagrangian::spec::parse(&high, "mechanism0.yaml").unwrap();
    assert!(matches!(&p_plan.method, lagrangian::solve::Method::Taylor(o) if o.order == 22));
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("order = 30") && n.contains("22"))
    );
    let named = text.replace("  Integration:", "  integrator: dop853\n  Integration:");
    let (_, p_plan) = lagrangian::spec::parse(&named, "mechanism0.yaml").unwrap();
    assert!(matches!(&p_plan.method, lagrangian::solve::Method::Dop853(o) if o.rtol == 1e-12));
    for bad in ["order: 1", "order: 2.5"] {
        let e = lagrangian::spec::parse(&text.replace("order: 20", bad), "mechanism0.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("whole number"), "{bad}: {e}");
    }
    assert_eq!(
        p_plan.output_times,
        Some(lagrangian::problem::OutputTimes::Every(0.02)),
        "1000 rows over [0, 20]"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Sensitivities refuse error control (generalized-α's and the Taylor series'); the options
/// refuse a method with what it cannot do (a fixed step for DOP853, Radau IIA and the Taylor
/// series, a tolerance for RK4,
/// `rho_inf` for another method than generalized-α) and an unknown method.
#[test]
fn options_a_method_cannot_take_are_refused() {
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let (p, p_plan) = lagrangian::spec::parse(&text, "mechanism0.yaml").unwrap();
    // --tol with generalized-α on the command line; sensitivities refuse error control
    let (mut q, mut q_plan) = (p.clone(), p_plan.clone());
    q_plan
        .apply(
            &mut q,
            &lagrangian::solve::Overrides {
                integrator: Some("genalpha".into()),
                tol: Some(1e-4),
                t_end: Some(0.1),
                ..Default::default()
            },
        )
        .unwrap();
    let err = lagrangian::output::sensitivity::SensitivityRecorder::new(&q, &q_plan, &["k"])
        .err()
        .unwrap();
    assert!(err.to_string().contains("fixed step"), "{err}");
    // and the file's own method, the Taylor series, is refused by name
    let err = lagrangian::output::sensitivity::SensitivityRecorder::new(&p, &p_plan, &["k"])
        .err()
        .unwrap();
    assert!(err.to_string().contains("method is taylor"), "{err}");
    // --integrator dop853 with a fixed step, or rk4 with a tolerance, is refused
    for (ov, text) in [
        (
            lagrangian::solve::Overrides {
                integrator: Some("dop853".into()),
                steps: Some(100),
                ..Default::default()
            },
            "chooses its own steps",
        ),
        (
            lagrangian::solve::Overrides {
                integrator: Some("rk4".into()),
                tol: Some(1e-6),
                ..Default::default()
            },
            "RK4 runs at a fixed step",
        ),
        (
            lagrangian::solve::Overrides {
                integrator: Some("bdf".into()),
                ..Default::default()
            },
            "expected genalpha, rk4, dop853, radau or taylor",
        ),
        (
            lagrangian::solve::Overrides {
                integrator: Some("radau".into()),
                steps: Some(100),
                ..Default::default()
            },
            "chooses its own steps",
        ),
        (
            lagrangian::solve::Overrides {
                integrator: Some("taylor".into()),
                steps: Some(100),
                ..Default::default()
            },
            "chooses its own steps",
        ),
        (
            // ρ∞ belongs to generalized-α: given to DOP853 it would do nothing
            lagrangian::solve::Overrides {
                rho_inf: Some(0.5),
                ..Default::default()
            },
            "--rho-inf 0.5 applies to generalized-α; this run's method is taylor",
        ),
    ] {
        let err = (p_plan.clone().apply(&mut p.clone(), &ov))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains(text), "{err}");
    }
}

#[test]
fn the_summary_says_the_steps_were_under_error_control() {
    let dir = common::tmp("adaptive-summary");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("p.yaml");
    std::fs::write(
        &file,
        "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 1 } }\n\
         AppliedForces: { Gravity: }\nProblemData: { tend: 1, positions: { A: [1, 0] } }\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = common::run(
        &[
            "run",
            file.to_str().unwrap(),
            "--tol",
            "1e-6",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success()
            && text.contains("steps under error control (rtol 1e-6, atol 1e-6;")
            && text.contains("DOP853"),
        "{text}"
    );
    // 1000 even intervals and the end, not a row per accepted step
    let (_, rows) = common::trajectory(&out);
    assert_eq!(rows.len(), 1001);
    assert_eq!(
        common::summary(&out)["output_times"],
        serde_json::json!({"every": 0.001})
    );
    assert_eq!(
        common::summary(&out)["overrides"],
        serde_json::json!(["tol=0.000001"])
    );
    std::fs::remove_dir_all(&dir).ok();
}

mod dop853;

pub(crate) mod car_axis;

mod radau;

mod taylor;

/// `x₀″ = −x₀`, `x₁″ = −25 x₁`.
pub(crate) struct TwoOscillators;

impl Term<2> for TwoOscillators {
    fn mass(&self) -> SMatrix<f64, 2, 2> {
        SMatrix::identity()
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        q[0] * q[0] * 0.5 + q[1] * q[1] * 12.5
    }
}

#[test]
fn a_relative_tolerance_alone_runs_from_rest_and_from_the_origin() {
    // atol = 0: the weight rtol·|x| of a component that is 0 was 0. DOP853 and Radau IIA chose
    // a first step of NaN from rest and the run ended at t = 0 with Ok; the Taylor method
    // stopped with StepTooSmall. Where a weight is 0 the largest component's stands in.
    let model = Model::builder(2)
        .term([0, 1], TwoOscillators)
        .build()
        .unwrap();
    let problem = Problem::new(model).t_end(10.0);
    let (c, s) = (|t: f64| t.cos(), |t: f64| t.sin());
    let starts = [
        ([1e4, 1.0], [0.0, 0.0], [1e4 * c(10.0), c(50.0)]),
        ([0.0, 0.0], [1e4, 5.0], [1e4 * s(10.0), s(50.0)]),
        ([0.0, 0.0], [0.0, 0.0], [0.0, 0.0]),
    ];
    let mut genalpha = GenAlphaOptions::new(1e-3).tolerance(1e-6);
    genalpha.step_control.as_mut().unwrap().atol = 0.0;
    let methods: [(Method, f64); 4] = [
        (
            Dop853Options {
                atol: 0.0,
                ..Dop853Options::new(1e-10)
            }
            .into(),
            1e-10,
        ),
        (
            RadauOptions {
                atol: 0.0,
                ..RadauOptions::new(1e-10)
            }
            .into(),
            1e-10,
        ),
        (
            TaylorOptions {
                atol: 0.0,
                ..TaylorOptions::new(1e-10, 0)
            }
            .into(),
            1e-10,
        ),
        (genalpha.into(), 1e-6),
    ];
    for (q0, v0, exact) in starts {
        for (method, tol) in &methods {
            let sol = simulate(&problem.clone().guess(&q0, &v0), method.clone()).unwrap();
            let last = &sol.last().state;
            let e = [
                (last.q[0] - exact[0]).abs() / 1e4,
                (last.q[1] - exact[1]).abs(),
            ];
            eprintln!(
                "{} from {q0:?}, {v0:?}: {} steps, errors {:.1e}, {:.1e}",
                method.name(),
                sol.stats.steps,
                e[0],
                e[1]
            );
            assert_eq!(last.t, 10.0, "{}", method.name());
            // measured: DOP853, Radau, Taylor ≤ 3e-13 (relative to the size), generalized-α 4e-8
            assert!(
                e[0] < 3.0 * tol && e[1] < 3.0 * tol,
                "{}: {e:?}",
                method.name()
            );
        }
    }
}

#[test]
fn a_span_that_is_not_finite_is_refused() {
    // span = NaN was read as negative (a control per step, silently); span = ∞ left no step at
    // all (StepTooSmall at t = 0); generalized-α has no control per step
    let problem = kepler();
    let mut genalpha = GenAlphaOptions::new(1e-3).tolerance(1e-6);
    for span in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0] {
        genalpha.step_control.as_mut().unwrap().span = span;
        let mut methods: Vec<Method> = vec![genalpha.clone().into()];
        if !span.is_finite() {
            methods.push(
                Dop853Options {
                    span,
                    ..Dop853Options::new(1e-8)
                }
                .into(),
            );
            methods.push(
                RadauOptions {
                    span,
                    ..RadauOptions::new(1e-8)
                }
                .into(),
            );
            methods.push(
                TaylorOptions {
                    span,
                    ..TaylorOptions::new(1e-8, 0)
                }
                .into(),
            );
        }
        for method in methods {
            let name = method.name();
            match simulate(&problem, method) {
                Err(Error::Options(OptionError::Invalid { option, message })) => {
                    assert_eq!(option, "span", "{name}: {message}");
                    let said = ["must be finite", "per unit step only"];
                    assert!(
                        said.iter().any(|s| message.contains(s)),
                        "{name}: {message}"
                    );
                }
                Err(e) => panic!("{name}, span {span}: {e}"),
                Ok(s) => panic!("{name}, span {span}: ran to t = {}", s.last().state.t),
            }
        }
    }
}

#[test]
fn a_negative_span_is_the_control_per_step() {
    // Kepler at tol 1e-8: each step's error below tol (Hairer's control, span < 0) takes fewer
    // steps and leaves a larger global error than the error per unit step (the default); the
    // negative span was replaced by the run's length from session 63 to 66
    let problem = kepler();
    let exact = [0.4, 0.0];
    let error = |sol: &Solution| {
        let q = &sol.last().state.q;
        (q[0] - exact[0]).abs().max((q[1] - exact[1]).abs())
    };
    let per_unit = simulate(&problem, Dop853Options::new(1e-8)).unwrap();
    let per_step = Dop853Options {
        span: -1.0,
        ..Dop853Options::new(1e-8)
    };
    let per_step = simulate(&problem, per_step).unwrap();
    let (e_unit, e_step) = (error(&per_unit), error(&per_step));
    eprintln!(
        "Kepler, DOP853 at 1e-8: per unit step {} steps, error {e_unit:.1e}; per step {} steps, \
         error {e_step:.1e}",
        per_unit.stats.steps, per_step.stats.steps
    );
    assert!(per_step.stats.steps < per_unit.stats.steps);
    assert!(e_step > 5.0 * e_unit, "{e_step:e} against {e_unit:e}");
}
