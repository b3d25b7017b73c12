//! Parameter sensitivities of the discrete generalized-α scheme against differences of
//! perturbed runs, for a damped spring network and a constrained mechanism; the
//! refusals.

use lagrangian::output::sensitivity::SensitivityRecorder;
use lagrangian::output::sink::ColumnRecorder;
use lagrangian::simulation::{Simulation, simulate};
use lagrangian::solve::{GenAlphaOptions, Method, Problem, RunPlan};
use lagrangian::spec;

/// The final state `(q, v, λ)` of a run of `problem` with `name` set to `value`.
fn final_state(problem: &Problem, plan: &RunPlan, name: &str, value: f64) -> Vec<f64> {
    let p = problem.with_parameters(&[(name, value)]).unwrap();
    let sol = simulate(&p, plan).unwrap();
    let s = &sol.last().state;
    [s.q.clone(), s.v.clone(), s.lambda.clone()].concat()
}

/// Every sensitivity of the final state against differences of whole runs with the parameter
/// perturbed, within `tol` relative to the largest of each group's sensitivities. A run's
/// Newton iteration leaves errors near 1e-12 that are not smooth in the parameter, so the
/// perturbation cannot be small: `δ = 3·10⁻⁴ p` with the fourth-order difference of four runs
/// `(8(x(p+δ) − x(p−δ)) − (x(p+2δ) − x(p−2δ))) / 12δ` (error `O(δ⁴)`), and the multipliers
/// solved to 1e-12 (`lambda_tol`).
fn check_against_perturbed_runs(problem: &Problem, plan: &RunPlan, names: &[&str], tol: f64) {
    let mut plan = plan.clone();
    if let Method::GenAlpha(o) = &mut plan.method {
        o.lambda_tol = 1e-12;
    }
    let plan = &plan;
    let mut rec = SensitivityRecorder::new(problem, plan, names).unwrap();
    let mut sim = Simulation::new(problem.clone(), plan).unwrap();
    sim.run(&mut [&mut rec]).unwrap();
    assert!((rec.times.last().unwrap() - problem.t_end).abs() < 1e-12);
    let last = rec.rows.last().unwrap();
    let (n, m) = (problem.model.n_coords(), problem.model.n_constraints());
    let width = 2 * n + m;
    for (k, &name) in names.iter().enumerate() {
        let p = problem
            .parameters
            .iter()
            .find(|(x, _)| x == name)
            .unwrap()
            .1;
        let d = 3e-4 * p;
        let x = [1.0, -1.0, 2.0, -2.0].map(|k| final_state(problem, plan, name, p + k * d));
        let fd: Vec<f64> = (0..x[0].len())
            .map(|i| (8.0 * (x[0][i] - x[1][i]) - (x[2][i] - x[3][i])) / (12.0 * d))
            .collect();
        let ours = &last[k * width..(k + 1) * width];
        for (group, range) in [("q", 0..n), ("v", n..2 * n), ("λ", 2 * n..width)] {
            let scale = ours[range.clone()]
                .iter()
                .fold(0.0f64, |a, x| a.max(x.abs()));
            for i in range {
                let err = (ours[i] - fd[i]).abs() / scale.max(1e-300);
                assert!(
                    err < tol,
                    "d{group}[{i}]/d{name}: {} vs {} from perturbed runs ({err:.2e} relative)",
                    ours[i],
                    fd[i]
                );
            }
        }
    }
}

#[test]
fn a_damped_spring_network_against_two_perturbed_runs() {
    // three masses on damped springs hanging from a point, released horizontally; the end
    // time is not a multiple of the step (the shortened last step is differentiated too)
    let text = "Dimension: 2\nPhysicalParams: { k: 40, c: 0.3, m: 0.5 }\nPartData:\n  \
                Fixed: { O: [0, 0] }\n  Particles: { A: m, B: m, C: 2*m }\n  \
                Springs: { OA: [k, 1, 0, c], AB: [k, 1, 0, c], BC: [2*k, 1, 0, c] }\n\
                AppliedForces: { Gravity: }\n\
                ProblemData: { tend: 0.8005, positions: { A: [1, 0], B: [2, 0], C: [3, 0] } }\n\
                SolverParams: { step: 1e-3 }\n";
    let (problem, plan) = spec::parse(text, "network.yaml").unwrap();
    check_against_perturbed_runs(&problem, &plan, &["k", "c", "m"], 1e-6);
}

#[test]
fn a_constrained_mechanism_against_two_perturbed_runs() {
    // Mechanism0: the rod length L enters the constraint, k the spring, m the particle
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let problem = spec::parse(&text, "mechanism0.yaml").unwrap().0.t_end(0.5);
    let plan = RunPlan::new(GenAlphaOptions::new(1e-3));
    check_against_perturbed_runs(&problem, &plan, &["L", "k", "m"], 1e-6);
}

/// A two-link arm of bodies on hinges in a file (joint coordinates, no constraints): the
/// upper link's mass `m1` and length `l` enter its inertia and the elbow's place, `k` an elbow
/// spring.
pub const ARM: &str = r#"
Title: two-link arm
Dimension: 3
PhysicalParams: { m1: 1.0, l: 1.0, k: 3.0 }
PartData:
  Bodies:
    Upper: { mass: m1, com: [l/2, 0, 0], inertia: [0.01, m1*l*l/12, m1*l*l/12] }
    Lower: { mass: 0.5, com: [0.4, 0, 0], inertia: [0.01, 0.05, 0.05], markers: { Tip: [0.8, 0, 0] } }
  Joints:
    shoulder: { type: revolute, bodies: [ground, Upper], parent: { z: [0, 1, 0] }, child: { z: [0, 1, 0] }, initial: 0.3 }
    elbow: { type: revolute, bodies: [Upper, Lower], parent: { at: [l, 0, 0], z: [0, 1, 0] }, child: { z: [0, 1, 0] }, initial: 0.5 }
AppliedForces:
  Gravity: [0, 0, -9.81]
  Forces: { elbow: -k*elbow }
ProblemData: { tend: 0.5 }
SolverParams: { step: 1e-3 }
"#;

#[test]
fn a_tree_of_bodies_against_perturbed_runs() {
    let (problem, plan) = spec::parse(ARM, "arm.yaml").unwrap();
    assert_eq!(problem.model.coordinate_names(), ["shoulder", "elbow"]);
    check_against_perturbed_runs(&problem, &plan, &["m1", "l", "k"], 1e-6);
}

/// The last row of every trajectory column of a run of `problem` with `name` set to `value`.
fn final_columns(
    problem: &Problem,
    plan: &RunPlan,
    name: &str,
    value: f64,
) -> (Vec<String>, Vec<f64>) {
    let p = problem.with_parameters(&[(name, value)]).unwrap();
    let mut rec = ColumnRecorder::every(1);
    let mut sim = Simulation::new(p, plan).unwrap();
    sim.run(&mut [&mut rec]).unwrap();
    let names = rec.names().to_vec();
    let last = names
        .iter()
        .map(|c| *rec.column(c).unwrap().last().unwrap())
        .collect();
    (names, last)
}

#[test]
fn every_trajectory_column_against_perturbed_runs() {
    // Mechanism0's positions, velocities, multipliers, reactions, momenta and
    // energies, each differentiated along the run with respect to L, k and m
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let problem = spec::parse(&text, "mechanism0.yaml").unwrap().0.t_end(0.5);
    let mut plan = RunPlan::new(GenAlphaOptions::new(1e-3));
    if let Method::GenAlpha(o) = &mut plan.method {
        o.lambda_tol = 1e-12;
    }
    let names = ["L", "k", "m"];
    let mut rec = SensitivityRecorder::columns(&problem, &plan, &names).unwrap();
    let mut sim = Simulation::new(problem.clone(), &plan).unwrap();
    sim.run(&mut [&mut rec]).unwrap();
    let mut checked = 0;
    for name in names {
        let p = problem
            .parameters
            .iter()
            .find(|(x, _)| x == name)
            .unwrap()
            .1;
        let d = 3e-4 * p;
        let runs = [1.0, -1.0, 2.0, -2.0].map(|k| final_columns(&problem, &plan, name, p + k * d));
        let cols = &runs[0].0;
        for group in [
            "B.x",
            "B.vx",
            "lambda:",
            "reaction:",
            "kinetic",
            "potential",
            "Lz",
        ] {
            assert!(
                cols.iter().any(|c| c.starts_with(group)),
                "no {group} column"
            );
        }
        // the scale of a column: its largest derivative with respect to any parameter (for
        // the total energy, whose derivative is a small difference, those of its two parts)
        for (i, c) in cols.iter().enumerate() {
            let ledger = ["dissipated", "balance_error"].contains(&c.as_str());
            if c == "t" || c == "max_constraint_residual" || c.starts_with("work_") || ledger {
                continue;
            }
            let x = |r: usize| runs[r].1[i];
            let fd = (8.0 * (x(0) - x(1)) - (x(2) - x(3))) / (12.0 * d);
            let ours = *rec
                .column(&format!("d({c})/d({name})"))
                .unwrap()
                .last()
                .unwrap();
            let parts = match c.as_str() {
                "total" => vec!["kinetic", "potential"],
                _ => vec![c.as_str()],
            };
            let mut scale = 1e-8f64;
            for (n, part) in names.iter().flat_map(|n| parts.iter().map(move |c| (n, c))) {
                let col = rec.column(&format!("d({part})/d({n})")).unwrap();
                scale = scale.max(col.last().unwrap().abs());
            }
            let err = (ours - fd).abs() / scale;
            assert!(
                err < 1e-6,
                "d({c})/d({name}): {ours} vs {fd} from perturbed runs ({err:.1e})"
            );
            checked += 1;
        }
    }
    assert!(checked > 40, "{checked} columns checked");
}

#[test]
fn sensitivities_refuse_what_they_cannot_do() {
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let problem = spec::parse(&text, "mechanism0.yaml").unwrap().0;
    let plan = RunPlan::new(GenAlphaOptions::new(1e-3));
    let err = SensitivityRecorder::new(&problem, &plan, &["stiffness"])
        .err()
        .unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains("unknown parameter 'stiffness'") && msg.contains("k"),
        "{msg}"
    );
    let rk4 = RunPlan::new(lagrangian::solve::Rk4Options::new(1e-3));
    let err = SensitivityRecorder::new(&problem, &rk4, &["k"])
        .err()
        .unwrap();
    assert!(err.to_string().contains("generalized-α"), "{err}");
    // a problem built in Rust without a source cannot be rebuilt with other values
    let model = lagrangian::library::pendulum::planar_pendulum(1.0, 1.0, 9.81);
    let bare = Problem::new(model)
        .guess(&[1.0, 0.0], &[0.0, 0.0])
        .parameter("g", 9.81);
    let err = SensitivityRecorder::new(&bare, &plan, &["g"])
        .err()
        .unwrap();
    assert!(err.to_string().contains("no source"), "{err}");
}

use crate::common;

#[test]
fn run_with_sensitivity_writes_sensitivity_csv() {
    let out = common::tmp("sensitivity-cli");
    let o = common::run(
        &[
            "run",
            &common::mech("mechanism0.yaml"),
            "--t-end",
            "0.2",
            "--integrator",
            "genalpha",
            "--quiet",
            "--sensitivity",
            "k,L",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("sensitivity.csv")).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert_eq!(header[0], "t");
    assert!(header.contains(&"d(B.y)/d(k)") && header.contains(&"d(lambda:rigid OA)/d(L)"));
    // the same numbers as the library's recorder
    let problem = spec::parse(
        &std::fs::read_to_string(common::mech("mechanism0.yaml")).unwrap(),
        "mechanism0.yaml",
    )
    .unwrap()
    .0
    .t_end(0.2);
    let plan = RunPlan::new(GenAlphaOptions::new(1e-3));
    let mut rec = SensitivityRecorder::columns(&problem, &plan, &["k", "L"]).unwrap();
    let mut sim = Simulation::new(problem, &plan).unwrap();
    sim.run(&mut [&mut rec]).unwrap();
    let col = header.iter().position(|c| *c == "d(B.y)/d(k)").unwrap();
    let last: f64 = text
        .lines()
        .last()
        .unwrap()
        .split(',')
        .nth(col)
        .unwrap()
        .parse()
        .unwrap();
    let want = *rec.column("d(B.y)/d(k)").unwrap().last().unwrap();
    assert!(
        (last - want).abs() <= 1e-11 * want.abs(),
        "{last} vs {want}"
    );
    assert_eq!(
        common::summary(&out)["sensitivity"],
        serde_json::json!(["k", "L"])
    );
    std::fs::remove_dir_all(&out).ok();
}
