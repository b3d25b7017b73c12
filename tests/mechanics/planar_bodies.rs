//! Planar `Bodies` by mass, centre of mass and moment of inertia, and the planar joints (issue
//! 38 items 2 and 3, Dimension 2): each against a closed form or the same mechanism written
//! with `Rigids` on basic points.

use crate::common::last_value as last;
use lagrangian::analysis::ModesReport;
use lagrangian::run::memory::{MemoryOptions, RunResult, run_in_memory};
use lagrangian::spec;

fn run(text: &str) -> RunResult {
    let (problem, plan) = spec::parse(text, "planar.yaml").unwrap();
    run_in_memory(problem, &plan, &MemoryOptions::default()).unwrap()
}

const G: f64 = 9.81;

/// A compound pendulum hinged at its origin: mass 2, centre of mass 0.3 along its x, moment
/// 0.05 about it, a marker `Tip` at 1; the hinge angle from the world's x.
fn compound(th0: f64, solver: &str) -> String {
    format!(
        "Dimension: 2\nPartData:\n Bodies:\n  Arm: {{ mass: 2, com: [0.3, 0], inertia: 0.05, \
         markers: {{ Tip: [1, 0] }} }}\n\
         \x20Joints:\n  hinge: {{ type: revolute, bodies: [ground, Arm], initial: {th0} }}\n\
         AppliedForces: {{ Gravity: }}\nProblemData: {{ tend: 2 }}\n{solver}"
    )
}

#[test]
fn a_compound_pendulum_by_its_inertia_has_the_closed_form_frequency() {
    let (problem, _) =
        spec::parse(&compound(-std::f64::consts::FRAC_PI_2, ""), "pendulum.yaml").unwrap();
    let report = ModesReport::initial(&problem).unwrap();
    assert!(
        report.max_acceleration < 1e-12,
        "{}",
        report.max_acceleration
    );
    assert_eq!(report.modes.len(), 1);
    // ω² = m g d / (I_G + m d²)
    let (m, d, ig) = (2.0, 0.3, 0.05);
    let w = (m * G * d / (ig + m * d * d)).sqrt();
    assert!(
        (report.modes[0].omega - w).abs() < 1e-12 * w,
        "{}",
        report.modes[0].omega
    );
}

#[test]
fn a_swinging_body_follows_its_rigids_twin() {
    let th0 = -0.4f64;
    let tol = "SolverParams: { tol: 1e-11 }\n";
    let body = run(&compound(th0, tol));
    let rigids = run(&format!(
        "Dimension: 2\nPartData:\n  Fixed: {{ O: [0, 0] }}\n  Rigids:\n    OA: {{ Geom: [[1, 0]], \
         Dyna: [[0.3, 0], 2, 0.05] }}\nAppliedForces: {{ Gravity: }}\n\
         ProblemData: {{ tend: 2, positions: {{ A: [{}, {}] }}, fixedpositions: {{ A }} }}\n{tol}",
        th0.cos(),
        th0.sin()
    ));
    for (a, b) in [("Arm.Tip.x", "A.x"), ("Arm.Tip.y", "A.y")] {
        let (x, y) = (last(&body, a), last(&rigids, b));
        assert!((x - y).abs() < 1e-8, "{a} {x} vs {b} {y}");
    }
    // the hinge angle is the tip's direction, continuous
    let (x, y) = (last(&body, "Arm.Tip.x"), last(&body, "Arm.Tip.y"));
    assert!((last(&body, "hinge") - y.atan2(x)).abs() < 1e-9);
    // the frame stays a unit vector
    let (ix, iy) = (last(&body, "Arm.i.x"), last(&body, "Arm.i.y"));
    assert!((ix.hypot(iy) - 1.0).abs() < 1e-9);
}

#[test]
fn two_bodies_joined_by_revolute_joints_move_as_the_rigids_double_pendulum() {
    let tol = "SolverParams: { tol: 1e-11 }\n";
    let (th1, th2) = (-1.0f64, 0.3f64);
    let body = run(&format!(
        "Dimension: 2\nPartData:\n Bodies:\n  Upper: {{ mass: 1.5, com: [0.4, 0.05], inertia: 0.08, \
         markers: {{ Elbow: [0.9, 0] }} }}\n  Lower: {{ mass: 0.7, com: [0.3, 0], inertia: 0.02, \
         markers: {{ Tip: [0.6, 0] }} }}\n\
         \x20Joints:\n  shoulder: {{ type: revolute, bodies: [ground, Upper], initial: {th1} }}\n  \
         elbow: {{ type: revolute, bodies: [Upper, Lower], parent: {{ at: [0.9, 0] }}, \
         initial: {} }}\n\
         AppliedForces: {{ Gravity: }}\nProblemData: {{ tend: 1.5 }}\n{tol}",
        th2 - th1
    ));
    let rigids = run(&format!(
        "Dimension: 2\nPartData:\n  Fixed: {{ O: [0, 0] }}\n  Rigids:\n    \
         OA: {{ Geom: [[0.9, 0]], Dyna: [[0.4, 0.05], 1.5, 0.08] }}\n    \
         AB: {{ Geom: [[0.6, 0]], Dyna: [[0.3, 0], 0.7, 0.02] }}\n\
         AppliedForces: {{ Gravity: }}\nProblemData: {{ tend: 1.5, positions: {{ A: [{}, {}], \
         B: [{}, {}] }}, fixedpositions: {{ A, B }} }}\n{tol}",
        0.9 * th1.cos(),
        0.9 * th1.sin(),
        0.9 * th1.cos() + 0.6 * th2.cos(),
        0.9 * th1.sin() + 0.6 * th2.sin()
    ));
    for (a, b) in [
        ("Upper.Elbow.x", "A.x"),
        ("Upper.Elbow.y", "A.y"),
        ("Lower.Tip.x", "B.x"),
        ("Lower.Tip.y", "B.y"),
    ] {
        let (x, y) = (last(&body, a), last(&rigids, b));
        assert!((x - y).abs() < 1e-7, "{a} {x} vs {b} {y}");
    }
}

#[test]
fn a_block_slides_down_a_prismatic_joint_as_the_closed_form() {
    // a block on a line inclined at α through the origin: s(t) = s0 − ½ g sin α t²
    let alpha = 0.5f64;
    let body = run(&format!(
        "Dimension: 2\nPartData:\n Bodies:\n  Block: {{ mass: 3, inertia: 0.1 }}\n\
         \x20Joints:\n  s: {{ type: prismatic, bodies: [ground, Block], parent: {{ angle: {alpha} }}, \
         initial: 2 }}\n\
         AppliedForces: {{ Gravity: }}\nProblemData: {{ tend: 1 }}\nSolverParams: {{ tol: 1e-11 }}\n"
    ));
    let s = 2.0 - 0.5 * G * alpha.sin();
    assert!((last(&body, "s") - s).abs() < 1e-9, "{}", last(&body, "s"));
    assert!((last(&body, "Block.x") - s * alpha.cos()).abs() < 1e-9);
    assert!((last(&body, "Block.y") - s * alpha.sin()).abs() < 1e-9);
    // the block keeps its orientation along the line
    assert!((last(&body, "Block.i.x") - alpha.cos()).abs() < 1e-9);
}

#[test]
fn two_welded_bodies_swing_as_one() {
    // Arm (as above) with a second body welded at its tip turned by 0.7 rad: one body of mass
    // 2 + 0.5 whose centre of mass and moment follow from the parts (parallel axes)
    let tol = "SolverParams: { tol: 1e-11 }\n";
    let th0 = -0.6f64;
    let welded = run(&format!(
        "Dimension: 2\nPartData:\n Bodies:\n  Arm: {{ mass: 2, com: [0.3, 0], inertia: 0.05, \
         markers: {{ Tip: [1, 0] }} }}\n  Weight: {{ mass: 0.5, com: [0.1, 0], inertia: 0.01 }}\n\
         \x20Joints:\n  hinge: {{ type: revolute, bodies: [ground, Arm], initial: {th0} }}\n  \
         weld: {{ type: fixed, bodies: [Arm, Weight], parent: {{ at: [1, 0], angle: 0.7 }} }}\n\
         AppliedForces: {{ Gravity: }}\nProblemData: {{ tend: 2 }}\n{tol}"
    ));
    // the weight's centre in Arm's frame: (1, 0) + 0.1 (cos 0.7, sin 0.7)
    let (wx, wy) = (1.0 + 0.1 * 0.7f64.cos(), 0.1 * 0.7f64.sin());
    let m = 2.5;
    let (cx, cy) = ((2.0 * 0.3 + 0.5 * wx) / m, 0.5 * wy / m);
    let d2 = |x: f64, y: f64| (x - cx).powi(2) + (y - cy).powi(2);
    let ig = 0.05 + 2.0 * d2(0.3, 0.0) + 0.01 + 0.5 * d2(wx, wy);
    let one = run(&format!(
        "Dimension: 2\nPartData:\n Bodies:\n  Arm: {{ mass: {m}, com: [{cx}, {cy}], inertia: {ig}, \
         markers: {{ Tip: [1, 0] }} }}\n\
         \x20Joints:\n  hinge: {{ type: revolute, bodies: [ground, Arm], initial: {th0} }}\n\
         AppliedForces: {{ Gravity: }}\nProblemData: {{ tend: 2 }}\n{tol}"
    ));
    for c in ["Arm.Tip.x", "Arm.Tip.y", "hinge"] {
        assert!((last(&welded, c) - last(&one, c)).abs() < 1e-8, "{c}");
    }
}

#[test]
fn planar_body_and_joint_mistakes_are_named_with_their_place() {
    let base = |body: &str, joint: &str| {
        format!(
            "Dimension: 2\nPartData:\n Bodies:\n  Arm: {{ mass: 1, inertia: 0.1{body} }}\n\
             \x20Joints:\n  j: {{ type: revolute, bodies: [ground, Arm]{joint} }}\n\
             ProblemData: {{ tend: 1 }}\n"
        )
    };
    for (text, want) in [
        (
            base(", shapes: [{ cylinder: [1, 2] }]", ""),
            "PartData.Bodies.Arm.shapes.0.cylinder",
        ),
        (
            base(", shapes: [{ box: [1, 2, 3] }]", ""),
            "PartData.Bodies.Arm.shapes.0.box",
        ),
        (
            base(", shapes: { circle: 1, axis: z }", ""),
            "PartData.Bodies.Arm.shapes.axis",
        ),
        (
            base(", shapes: { box: [1, 0] }", ""),
            "PartData.Bodies.Arm.shapes.box.1",
        ),
        (
            base("", "").replace("revolute", "spherical"),
            "in the plane",
        ),
        (base("", ", dh: [0, 1, 0]"), "PartData.Joints.j.dh"),
        (
            base("", ", parent: { at: [1, 0, 0] }"),
            "PartData.Joints.j.parent.at",
        ),
        (
            base("", ", parent: { z: [0, 0, 1] }"),
            "PartData.Joints.j.parent",
        ),
        (
            base(", orientation: 1", ""),
            "orientation without a position",
        ),
        (
            base("", "").replace("inertia: 0.1", "inertia: -1"),
            "PartData.Bodies.Arm.inertia",
        ),
        (
            base("", "").replace("inertia: 0.1", "inertia: [1, 2, 3]"),
            "PartData.Bodies.Arm.inertia",
        ),
    ] {
        let e = match spec::parse(&text, "bad.yaml") {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(want) && e.contains("bad.yaml:"), "{want}: {e}");
    }
}

#[test]
fn a_torque_on_a_planar_body_turns_it_about_its_hinge() {
    // no gravity, τ = 0.5 about the hinge: θ(t) = θ₀ + ½ τ / (I_G + m d²) t²
    let body = run(
        "Dimension: 2\nPartData:\n Bodies:\n  Arm: { mass: 2, com: [0.3, 0], inertia: 0.05 }\n \
         Joints:\n  hinge: { type: revolute, bodies: [ground, Arm], initial: 0.2 }\n\
         AppliedForces: { Torques: { Arm: 0.5 } }\nProblemData: { tend: 1 }\n\
         SolverParams: { tol: 1e-11 }\n",
    );
    let io = 0.05 + 2.0 * 0.3 * 0.3;
    let want = 0.2 + 0.5 * 0.5 / io;
    assert!(
        (last(&body, "hinge") - want).abs() < 1e-9,
        "{}",
        last(&body, "hinge")
    );
}
