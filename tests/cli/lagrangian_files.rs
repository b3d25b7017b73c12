//! Lagrangians and Rayleigh functions written out in mechanism files, with velocities `A'`,
//! `th1'`: the same trajectories as hand-written Rust, a damped oscillator against its closed
//! form, quadratic drag reaching its terminal speed, and mistakes reported with their place.

use crate::common;
use lagrangian::library::pendulum::double_pendulum_angles;
use lagrangian::prelude::*;

/// The double pendulum in angles, written as a textbook Lagrangian.
const DOUBLE: &str = "Dimension: 2\nPhysicalParams: { m1: 1, m2: 2, l1: 1, l2: 0.5, g: 9.81 }\n\
    PartData:\n  Scalars: [th1, th2]\n\
    Lagrangian:\n  \
    T: (m1 + m2)/2*l1**2*th1'**2 + m2/2*l2**2*th2'**2 + m2*l1*l2*th1'*th2'*cos(th1 - th2)\n  \
    V: -(m1 + m2)*g*l1*cos(th1) - m2*g*l2*cos(th2)\n\
    ProblemData: { tend: 2, positions: { th1: 1, th2: -0.5 }, velocities: { th1: 0, th2: 1 } }\n\
    SolverParams: { step: 1e-3 }\n";

#[test]
fn a_lagrangian_written_out_moves_as_the_same_lagrangian_in_rust() {
    let (problem, plan) = lagrangian::spec::parse(DOUBLE, "double.yaml").unwrap();
    let from_file = simulate(&problem, plan.method.clone()).unwrap();
    let rust = Problem::new(double_pendulum_angles([1.0, 2.0], [1.0, 0.5], 9.81))
        .guess(&[1.0, -0.5], &[0.0, 1.0])
        .pin_v([0, 1])
        .t_end(2.0);
    let by_hand = simulate(&rust, GenAlphaOptions::new(1e-3)).unwrap();
    let worst = common::max_state_difference(&from_file, &by_hand);
    for (a, b) in from_file.records.iter().zip(&by_hand.records) {
        assert!((a.energy - b.energy).abs() < 1e-10);
    }
    eprintln!("double pendulum, file vs Rust over 2,000 steps: {worst:.1e}");
    assert!(worst < 1e-11, "{worst:e}");
}

#[test]
fn a_rayleigh_function_damps_as_the_closed_form() {
    // m ẍ + c ẋ + k x = 0 with m = 1, k = 4, c = 0.4 (ζ = 0.1), from x = 1 at rest
    let file = "Dimension: 2\nPhysicalParams: { k: 4, c: 0.4 }\n\
        PartData:\n  Fixed: { O: [0, 0] }\n  Particles: { A: 1 }\n  Springs: { OA: [k, 0] }\n\
        AppliedForces:\n  Dissipation:\n    damper: c/2*dot(A', A')\n\
        ProblemData: { tend: 5, positions: { A: [1, 0] } }\nSolverParams: { step: 1e-4 }\n";
    let (problem, plan) = lagrangian::spec::parse(file, "osc.yaml").unwrap();
    let sol = simulate(&problem, plan.method.clone()).unwrap();
    let (w, z) = (2.0f64, 0.1f64);
    let wd = w * (1.0 - z * z).sqrt();
    let mut worst = 0.0f64;
    for r in &sol.records {
        let t = r.state.t;
        let x = (-z * w * t).exp() * ((wd * t).cos() + z * w / wd * (wd * t).sin());
        worst = worst.max((r.state.q[0] - x).abs());
    }
    eprintln!("damped oscillator against the closed form: {worst:.1e}");
    assert!(worst < 1e-6, "{worst:e}");
    // the ledger: the energy lost equals the energy dissipated
    let e0 = sol.records[0].energy;
    assert!(sol.last().energy < 0.2 * e0);
}

#[test]
fn quadratic_drag_reaches_the_terminal_speed() {
    // R = c/3 |v|³ gives the force −c|v|v: a falling mass reaches √(m g / c)
    let file = "Dimension: 2\nPhysicalParams: { m: 2, c: 0.5, g: 9.81 }\n\
        PartData:\n  Particles: { A: m }\n\
        AppliedForces:\n  Gravity: g\n  Dissipation:\n    air: c/3*norm(A')**3\n\
        ProblemData: { tend: 5, positions: { A: [0, 0] }, velocities: { A: [0.1, 0] } }\n\
        SolverParams: { tol: 1e-8 }\n";
    let (problem, plan) = lagrangian::spec::parse(file, "drag.yaml").unwrap();
    let sol = simulate(&problem, plan.method.clone()).unwrap();
    let v = &sol.last().state.v;
    let speed = (v[0] * v[0] + v[1] * v[1]).sqrt();
    let terminal = (2.0f64 * 9.81 / 0.5).sqrt();
    eprintln!("speed at t = 5: {speed:.9}, terminal {terminal:.9}");
    assert!((speed - terminal).abs() < 1e-6 * terminal);
    assert!(v[0].abs() < 1e-3 && v[1] < 0.0);
}

#[test]
fn mistakes_with_velocities_name_their_place() {
    let base = "Dimension: 2\nPartData:\n  Fixed: { O: [0, 0] }\n  Particles: { P: 1 }\n  \
                Scalars: [s]\n  Define: { D: \"[s*s, 0]\" }\n\
                ProblemData: { tend: 1, positions: { P: [1, 0], s: 1 } }\n";
    for (tail, place, part) in [
        (
            "AppliedForces:\n  Potentials:\n    v: dot(P', P')\n",
            "AppliedForces.Potentials.v",
            "Lagrangian (T, R), Dissipation and Forces only",
        ),
        (
            "AppliedForces:\n  Dissipation:\n    d: dot(D'', D'')\n",
            "AppliedForces.Dissipation.d",
            "D'' is a second derivative",
        ),
        ("Lagrangian:\n  T: s'**2\n  L: 1\n", "Lagrangian", "L"),
        ("Lagrangian:\n  R: P'\n", "Lagrangian.R", "must be a scalar"),
        ("Lagrangian:\n  V: 3\n", "Lagrangian", "does not involve"),
    ] {
        let e = lagrangian::spec::parse(&format!("{base}{tail}"), "v.yaml").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("v.yaml:") && msg.contains(place) && msg.contains(part),
            "{msg}"
        );
    }
}

#[test]
fn names_as_on_paper_greek_and_accented_move_as_the_ascii_ones() {
    // scalars θ₁ → θ, φ; parameters μ, ℓ, ω (Greek and letter-like symbols), as on paper
    let paper = DOUBLE
        .replace("th1", "θ")
        .replace("th2", "φ")
        .replace("m1", "μ")
        .replace("l1", "ℓ")
        .replace("g: 9.81", "ω: 9.81")
        .replace("*g*", "*ω*");
    let (a, a_plan) = lagrangian::spec::parse(DOUBLE, "double.yaml").unwrap();
    let (b, b_plan) = lagrangian::spec::parse(&paper, "paper.yaml").unwrap();
    assert_eq!(b.model.coordinate_names()[0], "θ");
    let (a, b) = (
        simulate(&a, a_plan.method.clone()).unwrap(),
        simulate(&b, b_plan.method.clone()).unwrap(),
    );
    assert_eq!(a.last().state.q, b.last().state.q);
    // a point named Ä (its bars split by upper-case letters: OÄ, ÄB)
    let text = std::fs::read_to_string(common::mech("double_pendulum.yaml")).unwrap();
    let umlaut = text
        .replace("{ A: m1", "{ Ä: m1")
        .replace("OA: l1", "OÄ: l1")
        .replace("AB: l2", "ÄB: l2")
        .replace("    A: [", "    Ä: [")
        .replace("{ A, B }", "{ Ä, B }")
        .replace("t: 10", "t: 0.2");
    let (p, p_plan) = lagrangian::spec::parse(&umlaut, "umlaut.yaml").unwrap();
    let sol = simulate(&p, &p_plan).unwrap();
    let names = lagrangian::output::columns::Columns::new(&p, &p_plan.outputs)
        .names()
        .to_vec();
    assert!(names.contains(&"Ä.x".to_string()), "{names:?}");
    assert!(sol.last().max_constraint < 1e-10);
    // the case rules hold in every script: a point starts upper-case, a scalar lower-case
    let e = lagrangian::spec::parse(&DOUBLE.replace("th1", "Θ"), "bad.yaml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("'Θ'") && e.contains("lower-case"), "{e}");
}
