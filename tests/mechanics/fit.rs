//! Design by optimization: parameters fitted to trajectories by Levenberg–Marquardt with the exact
//! Jacobian from the forward sensitivities — a damped network's spring constant and damping, and a
//! constrained mechanism's rod length and spring — and the refusals.

use lagrangian::run::fit::{FitOptions, Target, fit};
use lagrangian::solve::{GenAlphaOptions, RunPlan};
use lagrangian::spec;

#[test]
fn a_damped_network_recovers_its_spring_constant_and_damping() {
    let text = "Dimension: 2\nPhysicalParams: { k: 40, c: 0.3, m: 0.5 }\nPartData:\n  \
                Fixed: { O: [0, 0] }\n  Particles: { A: m, B: m, C: 2*m }\n  \
                Springs: { OA: [k, 1, 0, c], AB: [k, 1, 0, c], BC: [2*k, 1, 0, c] }\n\
                AppliedForces: { Gravity: }\n\
                ProblemData: { tend: 1, positions: { A: [1, 0], B: [2, 0], C: [3, 0] } }\n\
                SolverParams: { step: 1e-3 }\n";
    let (truth, truth_plan) = spec::parse(text, "network.yaml").unwrap();
    let times: Vec<f64> = (1..=20).map(|i| 0.05 * i as f64).collect();
    let measured = Target::from_run(&truth, &truth_plan, &["C.x", "C.y"], &times).unwrap();
    assert_eq!(measured.len(), 40);
    let start = truth.with_parameters(&[("k", 25.0), ("c", 1.0)]).unwrap();
    let opts = FitOptions::default();
    let report = fit(&start, &truth_plan, &["k", "c"], &measured, &opts).unwrap();
    assert!(report.cost <= 1e-2 * report.initial_cost, "{report:?}");
    assert!(report.cost <= 1e-20 * report.initial_cost, "{report:?}");
    let [(_, k), (_, c)] = [&report.parameters[0], &report.parameters[1]].map(|x| x.clone());
    assert!(
        (k - 40.0).abs() < 1e-8 && (c - 0.3).abs() < 1e-8,
        "k = {k}, c = {c}"
    );
    assert!(report.history.windows(2).all(|w| w[1] < w[0]));
    assert!(report.iterations <= 20, "{}", report.iterations);
}

#[test]
fn a_constrained_mechanism_is_designed_to_meet_its_targets() {
    // Mechanism0: choose the rod length L and the spring k so that B passes where it passes
    // with L = 1.2, k = 400 (a target trajectory of B at eight times)
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let problem = spec::parse(&text, "mechanism0.yaml").unwrap().0.t_end(0.8);
    let plan = RunPlan::new(GenAlphaOptions::new(1e-3));
    let design = problem
        .with_parameters(&[("L", 1.2), ("k", 400.0)])
        .unwrap();
    let times: Vec<f64> = (1..=8).map(|i| 0.1 * i as f64).collect();
    let targets = Target::from_run(&design, &plan, &["B.x", "B.y"], &times).unwrap();
    let report = fit(
        &problem,
        &plan,
        &["L", "k"],
        &targets,
        &FitOptions::default(),
    )
    .unwrap();
    assert!(report.cost <= 1e-2 * report.initial_cost, "{report:?}");
    let (l, k) = (report.parameters[0].1, report.parameters[1].1);
    assert!(
        (l - 1.2).abs() < 1e-6 && (k - 400.0).abs() < 1e-4,
        "L = {l}, k = {k}"
    );
}

#[test]
fn a_fit_says_what_it_cannot_use() {
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let problem = spec::parse(&text, "mechanism0.yaml").unwrap().0.t_end(0.1);
    let plan = RunPlan::new(GenAlphaOptions::new(1e-3));
    let err = Target::from_run(&problem, &plan, &["Z.x"], &[0.05]).unwrap_err();
    assert!(err.to_string().contains("no column 'Z.x' to fit"), "{err}");
    let err = Target::from_run(&problem, &plan, &["B.x"], &[0.5]).unwrap_err();
    assert!(err.to_string().contains("outside the run"), "{err}");
    let targets = Target::from_run(&problem, &plan, &["B.x"], &[0.05]).unwrap();
    let err = fit(&problem, &plan, &["q"], &targets, &FitOptions::default()).unwrap_err();
    assert!(err.to_string().contains("unknown parameter 'q'"), "{err}");
}

#[test]
fn a_tree_of_bodies_is_designed_to_meet_its_targets() {
    // the two-link arm in joint coordinates: choose the upper link's length l (its inertia and
    // the elbow's place) and the elbow spring k so that the tip passes where it passes with
    // l = 1.2, k = 5
    let (problem, plan) = spec::parse(crate::sensitivity::ARM, "arm.yaml").unwrap();
    let design = problem.with_parameters(&[("l", 1.2), ("k", 5.0)]).unwrap();
    let times: Vec<f64> = (1..=10).map(|i| 0.05 * i as f64).collect();
    let targets =
        Target::from_run(&design, &plan, &["Lower.Tip.x", "Lower.Tip.z"], &times).unwrap();
    let report = fit(
        &problem,
        &plan,
        &["l", "k"],
        &targets,
        &FitOptions::default(),
    )
    .unwrap();
    assert!(report.cost <= 1e-20 * report.initial_cost, "{report:?}");
    let (l, k) = (report.parameters[0].1, report.parameters[1].1);
    assert!(
        (l - 1.2).abs() < 1e-8 && (k - 5.0).abs() < 1e-6,
        "l = {l}, k = {k}"
    );
}

/// An exact damped oscillator, `m ẍ + c ẋ + k x = 0` from `x = 1` at rest: `x(t) =
/// e^{−ζω t}(cos ω_d t + ζω/ω_d sin ω_d t)`. Targets from the closed form at 12 times; the fit by
/// an error-controlled method — the runs stop at the target times by the method's continuous
/// extension, the Jacobian by central differences of runs — recovers k and c to the method's
/// tolerance (generalized-α at its default step: 7e-6 relative).
#[test]
fn error_controlled_methods_fit_an_exact_damped_oscillator() {
    use lagrangian::problem::{Dop853Options, Method, RadauOptions, TaylorOptions};
    let (m, k, c) = (0.5f64, 20.0f64, 0.8f64);
    let exact = |t: f64| {
        let (w, z) = ((k / m).sqrt(), c / (2.0 * (k * m).sqrt()));
        let wd = w * (1.0 - z * z).sqrt();
        (-z * w * t).exp() * ((wd * t).cos() + z * w / wd * (wd * t).sin())
    };
    let text = "Dimension: 1\nPhysicalParams: { k: 12, c: 0.3, m: 0.5 }\nPartData:\n  \
                Scalars: [x]\nLagrangian:\n  T: m/2*x'**2\n  V: k/2*x**2\n  R: c/2*x'**2\n\
                ProblemData: { tend: 2, positions: { x: 1 } }\nSolverParams: { tol: 1e-10 }\n";
    let (problem, plan) = spec::parse(text, "oscillator.yaml").unwrap();
    let targets: Vec<Target> = (1..=12)
        .map(|i| {
            let t = 0.13 * i as f64 + 0.05;
            Target {
                t,
                coordinate: "x".into(),
                value: exact(t),
                weight: 1.0,
            }
        })
        .collect();
    for method in [
        Method::Dop853(Dop853Options::new(1e-11)),
        Method::Radau(RadauOptions::new(1e-11)),
        Method::Taylor(TaylorOptions::new(1e-11, 16)),
    ] {
        let mut plan = plan.clone();
        plan.method = method.clone();
        let report = fit(
            &problem,
            &plan,
            &["k", "c"],
            &targets,
            &FitOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{method:?}: {e}"));
        let (kf, cf) = (report.parameters[0].1, report.parameters[1].1);
        assert!(
            (kf - k).abs() < 1e-8 * k && (cf - c).abs() < 1e-7 * c,
            "{method:?}: k = {kf}, c = {cf} ({report:?})"
        );
        assert!(report.iterations <= 20, "{method:?}: {report:?}");
    }
}
