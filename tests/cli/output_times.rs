//! Output at requested times: rows between steps are interpolated (cubic Hermite) and projected
//! onto the constraints, as accurate as the steps around them; rows that fall on steps are the
//! steps themselves; the steps do not change; runs land on `t_end`.

use lagrangian::library::pendulum::{angle_pendulum, planar_pendulum};
use lagrangian::output::Recorder;
use lagrangian::prelude::*;
use lagrangian::problem::OutputTimes;
use serde_json::Value;

use crate::common;

fn exact(t: &str) -> [f64; 2] {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/pendulum_exact.json"
    ))
    .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let r = &v["cases"]["grav=1"]["at"][t];
    [r["x"].as_f64().unwrap(), r["y"].as_f64().unwrap()]
}

/// The pendulum (g = 1, released horizontally) to t = 10, recording what `problem` asks for.
fn pendulum(opts: GenAlphaOptions, times: Option<OutputTimes>) -> (Vec<State>, Stats) {
    let model = Arc::new(planar_pendulum(1.0, 1.0, 1.0));
    let init = consistent_initial_values(&model, &[1.0, 0.0], &[0.0, 0.0], &InitOptions::default())
        .unwrap();
    let problem = Problem::new(model).t_end(10.0);
    let mut plan = RunPlan::new(opts);
    plan.output_times = times;
    let mut sim = Simulation::from_state(problem, plan, &init.state).unwrap();
    let mut rec = Recorder::every(1);
    sim.run(&mut [&mut rec]).unwrap();
    let states = rec.records.into_iter().map(|r| r.state).collect();
    (states, sim.stats())
}

fn error(s: &State, t: &str) -> f64 {
    let r = exact(t);
    (s.q[0] - r[0]).abs().max((s.q[1] - r[1]).abs())
}

/// The state is on the circle, moves along it, and its multiplier is the rod's
/// `λ = |v|² − g y` (m = ℓ = g = 1).
fn assert_consistent(s: &State) {
    let c = 0.5 * (s.q[0] * s.q[0] + s.q[1] * s.q[1] - 1.0);
    let cv = s.q[0] * s.v[0] + s.q[1] * s.v[1];
    let lambda = s.v[0] * s.v[0] + s.v[1] * s.v[1] - s.q[1];
    assert!(c.abs() < 1e-14, "C = {c:e} at t = {}", s.t);
    assert!(cv.abs() < 1e-13, "C_q v = {cv:e} at t = {}", s.t);
    assert!((s.lambda[0] - lambda).abs() < 1e-11, "λ at t = {}", s.t);
}

#[test]
fn rows_between_steps_are_as_accurate_as_steps_at_those_times() {
    // h = 0.0123: t = 1 and 3 fall inside steps; t = 10 is the end (the last step shortened)
    let (rows, _) = pendulum(
        GenAlphaOptions::new(0.0123),
        Some(OutputTimes::At(vec![1.0, 3.0, 10.0])),
    );
    let t: Vec<f64> = rows.iter().map(|s| s.t).collect();
    assert_eq!(t, [1.0, 3.0, 10.0]);
    // a step of nearly the same size that lands on 1 and 3 (h = 1/81, 3/243)
    let (landed, _) = pendulum(GenAlphaOptions::new(1.0 / 81.0), None);
    let on = |x: f64| landed.iter().find(|s| (s.t - x).abs() < 1e-9).unwrap();
    for (s, name) in rows.iter().zip(["1", "3", "10"]) {
        if name != "10" {
            assert_consistent(s); // the last row is the last step, index-3 as it is
        }
        let e = error(s, name);
        let e_landed = error(on(s.t), name);
        eprintln!("t = {name}: interpolated error {e:.4e}, landed (h = 1/81) {e_landed:.4e}");
        // both errors are the scheme's O(h²); the step sizes differ by 0.4 %
        assert!(
            (e - e_landed).abs() < 0.05 * e_landed,
            "{e:e} vs {e_landed:e}"
        );
    }
}

#[test]
fn rows_on_steps_are_the_steps_and_output_does_not_change_the_steps() {
    let opts = GenAlphaOptions::new(1e-3);
    let (every_dt, st1) = pendulum(opts.clone(), Some(OutputTimes::Every(0.01)));
    let (every_k, st2) = pendulum(opts, None);
    assert_eq!(st1.steps, st2.steps);
    assert_eq!(every_dt.len(), 1001);
    for (k, s) in every_dt.iter().enumerate() {
        let step = &every_k[10 * k];
        assert!((s.t - step.t).abs() < 1e-12, "{} vs {}", s.t, step.t);
        assert_eq!((&s.q, &s.v), (&step.q, &step.v), "row {k} at t = {}", s.t);
    }
    // under error control: the same steps, the same end, rows at the grid
    let tol = GenAlphaOptions::new(1e-3).tolerance(1e-6);
    let (rows, st1) = pendulum(tol.clone(), Some(OutputTimes::Every(0.25)));
    let (steps, st2) = pendulum(tol, None);
    assert_eq!(
        (st1.steps, st1.rejected_steps),
        (st2.steps, st2.rejected_steps)
    );
    assert_eq!(rows.len(), 41);
    for (k, s) in rows.iter().enumerate().take(40).skip(1) {
        assert!((s.t - 0.25 * k as f64).abs() < 1e-12);
        assert_consistent(s);
    }
    assert_eq!(rows.last().unwrap().q, steps.last().unwrap().q);
    for (s, name) in [(&rows[4], "1"), (&rows[12], "3"), (&rows[40], "10")] {
        let e = error(s, name);
        eprintln!("tol 1e-6, t = {name}: error {e:.3e}");
        assert!(e < 1e-5, "t = {name}: {e:e}");
    }
}

#[test]
fn unconstrained_models_and_rk4_interpolate_too() {
    // a pendulum in its angle (no constraints) swinging from 1 rad, RK4 at h = 0.01; rows
    // every 0.0333 against a fine RK4 run whose steps land on them (h = 0.0333/333)
    let problem = Problem::new(angle_pendulum(1.0, 1.0, 9.81))
        .guess(&[1.0], &[0.0])
        .t_end(2.0);
    let rk4 = |h: f64| RunPlan::new(Rk4Options::new(h)).output_dt(0.0333);
    let sol = simulate(&problem, rk4(0.01)).unwrap();
    let fine = simulate(&problem, rk4(0.0333 / 333.0)).unwrap();
    assert_eq!(sol.records.len(), 62); // 0, 0.0333, …, 1.998, and 2
    assert_eq!(fine.records.len(), 62);
    assert_eq!(sol.records.last().unwrap().state.t, 2.0);
    let mut worst = [0.0f64; 3];
    for (r, f) in sol.records.iter().zip(&fine.records) {
        let (s, f) = (&r.state, &f.state);
        assert!((s.t - f.t).abs() < 1e-12);
        worst[0] = worst[0].max((s.q[0] - f.q[0]).abs());
        worst[1] = worst[1].max((s.v[0] - f.v[0]).abs());
        worst[2] = worst[2].max((s.qdd[0] - f.qdd[0]).abs());
    }
    // RK4's own error at its steps: a run at h = 0.0333/3 whose steps land on the rows
    let coarse = simulate(&problem, rk4(0.0111)).unwrap();
    let own = (coarse.records.iter().zip(&fine.records))
        .map(|(c, f)| (c.state.q[0] - f.state.q[0]).abs())
        .fold(0.0, f64::max);
    eprintln!(
        "RK4 h = 0.01, rows between steps: max |Δθ| {:.2e}, |Δθ̇| {:.2e}, |Δθ̈| {:.2e}; \
         at the steps of h = 0.0111: |Δθ| {own:.2e}",
        worst[0], worst[1], worst[2]
    );
    // the interpolation's O(h⁴) error stays below RK4's own accumulated error
    assert!(worst[0] < own, "{worst:?} vs {own:e}");
    assert!(worst[1] < 5.0 * own && worst[2] < 15.0 * own, "{worst:?}");
}

#[test]
fn bad_output_times_are_refused() {
    let p = Problem::new(planar_pendulum(1.0, 1.0, 9.81))
        .guess(&[1.0, 0.0], &[0.0, 0.0])
        .t_end(1.0);
    for (times, part) in [
        (OutputTimes::Every(0.0), "positive"),
        (OutputTimes::Every(f64::NAN), "positive"),
        (OutputTimes::Every(1e-12), "rows"),
        (OutputTimes::At(vec![0.5, 0.2]), "increase"),
        (OutputTimes::At(vec![0.5, 2.0]), "outside"),
    ] {
        let mut plan = RunPlan::new(GenAlphaOptions::new(1e-3));
        plan.output_times = Some(times);
        let e = simulate(&p, plan).unwrap_err();
        assert!(e.to_string().contains(part), "{e}");
    }
}

const FILE: &str = "Dimension: 2\nPhysicalParams: { g: 9.81 }\nPartData:\n  Fixed: { O: [0, 0] }\n  \
    Particles: { A: 1 }\n  Bars: { OA: 1 }\nAppliedForces:\n  Gravity:\n\
    ProblemData: { tend: 1, positions: { A: [1, 0] } }\n";

#[test]
fn files_and_the_command_line_ask_for_output_times() {
    let dir = common::tmp("output-times");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("p.yaml");
    // Output.dt in the file, with error control
    std::fs::write(
        &file,
        format!("{FILE}SolverParams: {{ tol: 1e-6 }}\nOutput: {{ dt: 0.1 }}\n"),
    )
    .unwrap();
    let out = dir.join("a");
    let args = [
        "run",
        file.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = common::run(&args, None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (names, rows) = common::trajectory(&out);
    let t: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(t.len(), 11);
    for (k, x) in t.iter().enumerate() {
        assert!((x - 0.1 * k as f64).abs() < 1e-12, "{t:?}");
    }
    let col = |n: &str| names.iter().position(|x| x == n).unwrap();
    let (x, y) = (col("A.x"), col("A.y"));
    for r in &rows {
        // the CSV keeps 13 digits: |x|, |y| ≤ 1 are rounded by up to 5e-13
        let c = r[x] * r[x] + r[y] * r[y] - 1.0;
        assert!(c.abs() < 2e-12, "t = {}: {c:e}", r[0]);
    }
    assert_eq!(common::summary(&out)["output_times"]["every"], 0.1);
    // --output-at on the command line replaces it
    let out2 = dir.join("b");
    let o = common::run(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--output-at",
            "0.25,0.5,1",
            "--out",
            out2.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, rows2) = common::trajectory(&out2);
    let t2: Vec<f64> = rows2.iter().map(|r| r[0]).collect();
    assert_eq!(t2, [0.25, 0.5, 1.0]);
    // at t = 0.5 the two runs agree (the same steps; one row interpolated the same way)
    assert_eq!(rows2[1][1..], rows[5][1..]);
    // refusals, with their place
    std::fs::write(&file, format!("{FILE}Output: {{ every: 2, dt: 0.1 }}\n")).unwrap();
    let o = common::run(&["run", file.to_str().unwrap(), "--quiet"], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("p.yaml:") && err.contains("Output.dt"),
        "{err}"
    );
    std::fs::write(&file, format!("{FILE}Output: {{ at: [0.5, 3] }}\n")).unwrap();
    let o = common::run(&["run", file.to_str().unwrap(), "--quiet"], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("outside"), "{err}");
    let o = common::run(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--output-dt",
            "0.1",
            "--output-every",
            "2",
        ],
        None,
    );
    assert!(!o.status.success());
    std::fs::remove_dir_all(&dir).ok();
}

/// A tolerance given on top of a file (`--tol`, Python's `tol=`) changes the method, not the
/// rows the file asks for: its `Output: { dt }` stays (801 rows over 8 s, not the 1001 of the
/// default under error control), and so does `at`.
#[test]
fn a_tolerance_keeps_the_file_s_output_times() {
    use lagrangian::solve::Overrides;
    let file = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 1 } }\n\
                AppliedForces: { Gravity: }\nProblemData: { tend: 8, positions: { A: [1, 0] } }\n";
    let tol = Overrides {
        tol: Some(1e-8),
        ..Default::default()
    };
    for (output, want) in [
        ("Output: { dt: 0.01 }\n", OutputTimes::Every(0.01)),
        (
            "Output: { at: [1, 2.5, 8] }\n",
            OutputTimes::At(vec![1.0, 2.5, 8.0]),
        ),
    ] {
        let (mut p, mut plan) =
            lagrangian::spec::parse(&format!("{file}{output}"), "f.yaml").unwrap();
        plan.apply(&mut p, &tol).unwrap();
        assert!(plan.method.is_adaptive());
        assert_eq!(plan.output_times, Some(want), "{output}");
    }
    // without output times of its own, the default rows under error control
    let (mut p, mut plan) = lagrangian::spec::parse(file, "f.yaml").unwrap();
    plan.apply(&mut p, &tol).unwrap();
    assert_eq!(plan.output_times, Some(OutputTimes::Every(8.0 / 1000.0)));
}
