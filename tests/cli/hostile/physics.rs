//! Wrong physics is refused, with the term, the time and the cause named: a mass matrix that is
//! not positive definite at the start or becomes so during the run, a Rayleigh function that
//! feeds energy in, a prescribed motion that depends on the state, a force on a point that
//! cannot move, a conservative run whose energy grows (a step across a pole). What is unusual but right (massless points held by constraints, terms whose
//! own mass blocks are indefinite while their sum is not) still runs.

use crate::common::{run, tmp};
use lagrangian::error::{Error, SolveError};
use lagrangian::prelude::*;
use lagrangian::solve::MassCheck;
use lagrangian::spec;

/// A file with one scalar `th` and the given `Lagrangian` lines.
fn scalar_file(lagrangian: &str, step: &str) -> String {
    format!(
        "Dimension: 1\nPartData:\n  Scalars: [th]\nLagrangian:\n{lagrangian}\n\
         ProblemData: {{ tend: 3, positions: {{ th: 1 }} }}\nSolverParams: {{ step: {step} }}\n"
    )
}

fn run_file(text: &str) -> Result<Solution, Error> {
    let (problem, plan) = spec::parse(text, "physics.yaml")?;
    simulate(&problem, plan.method.clone())
}

#[test]
fn a_mass_that_turns_negative_stops_the_run_when_it_does() {
    // T = ½(1 − t)θ̇²: positive, singular at t = 1, negative after
    let text = scalar_file("  T: (1 - t)/2*th'**2\n  V: th**2/2", "1e-3");
    match run_file(&text) {
        Err(Error::Solve(SolveError::MassNotPositive { t, step, detail })) => {
            assert!((1.0..1.0 + 16e-3 + 1e-9).contains(&t), "t = {t}");
            assert!(step > 0);
            assert!(
                detail.contains("the term on th has a negative kinetic energy"),
                "{detail}"
            );
        }
        other => panic!("expected a mass error, got {other:?}"),
    }
    // from the command line: refused with the cause, nothing written
    let dir = tmp("mass-negative");
    let file = dir.join("sing.yaml");
    std::fs::write(&file, &text).unwrap();
    let out = dir.join("out");
    let o = run(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && !err.contains("panicked"), "{err}");
    assert!(
        err.contains("mass matrix is not positive definite"),
        "{err}"
    );
    assert!(!out.join("trajectory.csv").exists());
}

#[test]
fn negative_and_indefinite_kinetic_energies_are_refused_at_the_start() {
    let cases = [
        (scalar_file("  T: -1/2*th'**2", "1e-3"), "the term on th"),
        (
            "Dimension: 1\nPartData:\n  Scalars: [a, b]\nLagrangian:\n  T: a'**2/2 - b'**2/2\n  \
             V: (a**2 + b**2)/2\nProblemData: { tend: 1, positions: { a: 1, b: 1 } }\n\
             SolverParams: { step: 1e-3 }\n"
                .to_string(),
            "the term on a, b has a negative kinetic energy for a motion along b",
        ),
    ];
    for (text, named) in cases {
        match run_file(&text) {
            Err(Error::Solve(SolveError::MassNotPositive { t, step, detail })) => {
                assert_eq!((t, step), (0.0, 0));
                assert!(detail.contains(named), "{detail}");
            }
            other => panic!("expected a mass error, got {other:?}"),
        }
    }
}

#[test]
fn massless_points_held_by_constraints_and_indefinite_couplings_still_run() {
    // a massless elbow A between two bars (a spring along the first bar, which it never
    // stretches, puts A in a term): M = diag(0, 0, 1, 1) is singular, but the constraints fix
    // A's motion by B's, so M is positive definite on the manifold
    let text = "Dimension: 2\nPartData:\n  Fixed: { O: [0, 0] }\n  Points: [A]\n  \
                Particles: { B: 1 }\n  Bars: { OA: 1, AB: 1 }\n  Springs: { OA: [1, 1] }\n\
                AppliedForces:\n  \
                Gravity: [0, -9.81]\nProblemData: { tend: 0.5, positions: { A: [1, 0], B: [1.6, 0.8] } }\n\
                SolverParams: { step: 1e-3 }\n";
    let (problem, plan) = spec::parse(text, "elbow.yaml").unwrap();
    let model = problem.model.clone();
    let init = problem.initial_values().unwrap();
    let s = &init.state;
    let mut check = MassCheck::new(&model);
    assert_eq!(check.check(&model, s.t, &s.q, &s.v), Ok(false));
    let sol = simulate(&problem, plan.method.clone()).unwrap();
    assert!(sol.last().state.t > 0.49);
    // without the second bar A is free and massless: refused, naming it
    let free = text.replace("Bars: { OA: 1, AB: 1 }", "Bars: { AB: 1 }");
    match run_file(&free) {
        Err(Error::Solve(SolveError::MassNotPositive { detail, .. })) => {
            assert!(detail.contains("A.x") || detail.contains("A.y"), "{detail}");
            assert!(detail.contains("no kinetic energy"), "{detail}");
        }
        Err(Error::Init(e)) => assert!(e.to_string().contains("singular"), "{e}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    // a double pendulum in angles written as three terms: the coupling term's own mass
    // block [[0, c], [c, 0]] is indefinite, the sum is positive definite
    let text = "Dimension: 2\nPartData:\n  Scalars: [a, b]\nLagrangian:\n  \
                T: a'**2 + b'**2/2 + a'*b'*cos(a - b)\n  V: -2*9.81*cos(a) - 9.81*cos(b)\n\
                ProblemData: { tend: 1, positions: { a: 1, b: -0.5 } }\nSolverParams: { step: 1e-3 }\n";
    let sol = run_file(text).unwrap();
    assert!(sol.last().state.t > 0.99);
}

#[test]
fn a_rayleigh_function_that_feeds_energy_in_is_refused() {
    let text = scalar_file("  T: th'**2/2\n  V: th**2/2\n  R: -th'**2/2", "1e-3");
    match run_file(&text) {
        Err(Error::Solve(SolveError::NegativeDissipation { t, term, power, .. })) => {
            assert!(t > 0.0 && t < 0.05, "t = {t}");
            assert_eq!(term, "the term on th");
            assert!(power < 0.0);
        }
        other => panic!("expected a dissipation error, got {other:?}"),
    }
    // the same with the right sign runs and dissipates
    let text = scalar_file("  T: th'**2/2\n  V: th**2/2\n  R: th'**2/2", "1e-3");
    let sol = run_file(&text).unwrap();
    assert!(sol.last().energy < 0.5 * sol.records[0].energy);
}

#[test]
fn a_motion_that_depends_on_the_state_and_a_force_on_a_fixed_point_are_refused() {
    let crank = |motion: &str, forces: &str| {
        format!(
            "Dimension: 2\nPartData:\n  Fixed: {{ O: [0, 0] }}\n  Particles: {{ A: 1 }}\n  \
             Bars: {{ OA: 1 }}\n  Drives:\n    motor:\n      quantity: atan2(A.y, A.x)\n      \
             motion: {motion}\nAppliedForces:\n  Gravity: [0, -9.81]\n{forces}\
             ProblemData: {{ tend: 1, positions: {{ A: [1, 0] }} }}\nSolverParams: {{ step: 1e-3 }}\n"
        )
    };
    let e = spec::parse(&crank("0.5*t + A.x", ""), "crank.yaml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("crank.yaml:9:"), "{e}");
    assert!(e.contains("depends on A.x"), "{e}");
    let e = spec::parse(&crank("0.5*t", "  Forces: { O: [1, 0] }\n"), "crank.yaml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("crank.yaml:12:"), "{e}");
    assert!(e.contains("'O' does not move"), "{e}");
    // the drive as it should be written runs
    let (problem, plan) = spec::parse(&crank("0.5*t", ""), "crank.yaml").unwrap();
    let sol = simulate(&problem, plan.method.clone()).unwrap();
    let q = &sol.last().state.q;
    assert!((q[1].atan2(q[0]) - 0.5).abs() < 1e-8);
    // two drives asking the same angle for different speeds: both named
    let conflicting = crank(
        "0.5*t\n    second:\n      quantity: atan2(A.y, A.x)\n      motion: t",
        "",
    );
    let e = spec::parse(&conflicting, "crank.yaml")
        .unwrap()
        .0
        .initial_values()
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("drive motor") && e.contains("drive second") && e.contains("conflicting"),
        "{e}"
    );
}

#[test]
fn a_particle_falling_into_a_pole_is_named_not_sent_to_smaller_steps() {
    // V = −1/|x| from x = 1 at rest: the particle reaches the pole at t = π/(2√2) = 1.1107
    let text = "Dimension: 1\nPartData:\n  Scalars: [x]\nLagrangian:\n  T: x'**2/2\n  \
                V: -1/abs(x)\nProblemData: { tend: 3, positions: { x: 1 } }\nSolverParams: { STEP }\n";
    for (params, failure) in [
        ("step: 1e-3", "Newton iteration diverged"),
        ("tol: 1e-8, integrator: dop853", "step size fell"),
    ] {
        let text = text.replace("STEP", params);
        match run_file(&text) {
            Err(Error::Solve(SolveError::Singularity {
                t,
                term,
                growth,
                failure: f,
                ..
            })) => {
                assert!((1.0..1.12).contains(&t), "t = {t}");
                assert_eq!(term, "the term on x");
                assert!(growth > 1e3, "{growth}");
                assert!(f.contains(failure), "{f}");
            }
            other => panic!("expected a singularity, got {other:?}"),
        }
    }
}

#[test]
fn a_step_across_a_pole_that_does_not_fail_is_caught_by_the_energy() {
    // V = −1/|x| from x = 1 at rest: explicit RK4 never fails a step; at h = 0.05 one lands on
    // the far side of the pole with a kinetic energy it never gives back (E from −1 to +85)
    let text = "Dimension: 1\nPartData:\n  Scalars: [x]\nLagrangian:\n  T: x'**2/2\n  \
                V: -1/abs(x)\nProblemData: { tend: 3, positions: { x: 1 } }\n\
                SolverParams: { step: 0.05, integrator: rk4 }\n";
    match run_file(text) {
        Err(Error::Solve(SolveError::EnergyGained {
            t,
            e0,
            e,
            term,
            change,
            ..
        })) => {
            // the pole is reached at t = π/(2√2) = 1.11; checks every 16 steps of 0.05
            assert!((1.11..1.7).contains(&t), "t = {t}");
            assert!((e0 + 1.0).abs() < 1e-9 && e > 10.0, "{e0} → {e}");
            assert_eq!(term, "the term on x");
            assert!(change.is_finite(), "{change}");
        }
        other => panic!("expected the energy's gain, got {other:?}"),
    }
    // a particle flying past the pole of −1/|P − S| in the plane, named by its potential
    let flyby = "Dimension: 2\nPartData:\n  Fixed: { S: [0, 0] }\n  Particles: { P: 1 }\n\
                 AppliedForces:\n  Potentials:\n    sun: -1/norm(P - S)\n\
                 ProblemData:\n  tend: 4\n  positions: { P: [-1, 0.001] }\n  \
                 velocities: { P: [1, 0] }\nSolverParams: { step: 0.01, integrator: rk4 }\n";
    let err = run_file(flyby).unwrap_err().to_string();
    assert!(
        err.contains("conservative") && err.contains("pole"),
        "{err}"
    );
    // with a small step, or under error control, the same motion runs (and keeps its energy)
    for params in [
        "step: 1e-3, integrator: rk4",
        "tol: 1e-8, integrator: dop853",
    ] {
        let text = text
            .replace("step: 0.05, integrator: rk4", params)
            .replace("tend: 3", "tend: 1");
        let sol = run_file(&text).unwrap_or_else(|e| panic!("{params}: {e}"));
        let (first, last) = (sol.records.first().unwrap(), sol.last());
        assert!(
            (last.energy - first.energy).abs() < 1e-5,
            "{params}: {}",
            last.energy
        );
    }
}

/// A Rayleigh function without a velocity in it (`R: x**2`, a `Dissipation` entry of the
/// positions) dissipated nothing, silently: refused with its place, as the velocities it needs.
#[test]
fn rayleigh_functions_without_velocities_are_refused() {
    for (text, place) in [
        (
            scalar_file("  T: th'**2/2\n  R: 0.3*th**2", "1e-3"),
            "Lagrangian.R",
        ),
        (
            "Dimension: 1\nPartData:\n  Scalars: [th]\nLagrangian:\n  T: th'**2/2\n\
             AppliedForces:\n  Dissipation:\n    drag: 0.3*th\n\
             ProblemData: { tend: 1, positions: { th: 1 } }\n"
                .to_string(),
            "AppliedForces.Dissipation.drag",
        ),
    ] {
        let e = spec::parse(&text, "r.yaml").unwrap_err().to_string();
        assert!(e.contains(place) && e.contains("holds none"), "{e}");
    }
    // with a velocity it is taken
    assert!(
        spec::parse(
            &scalar_file("  T: th'**2/2\n  R: 0.3*th'**2", "1e-3"),
            "r.yaml"
        )
        .is_ok()
    );
}
