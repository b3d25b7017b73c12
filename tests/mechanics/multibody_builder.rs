//! Bodies and joints built in Rust (`spec::multibody`, issue 38 item 2 "in Rust"): the same
//! problems as the files they stand for, the closed-form physics, drives and forces along joint
//! coordinates, and the errors of a wrong builder.

use crate::common::last_value as last;
use lagrangian::analysis::ModesReport;
use lagrangian::run::memory::{MemoryOptions, RunResult, run_in_memory};
use lagrangian::spec;
use lagrangian::spec::multibody::{Body, Joint, JointKind, Multibody};
use std::f64::consts::{FRAC_PI_2, PI};

const G: f64 = 9.81;

fn run(mech: &Multibody) -> RunResult {
    let (problem, plan) = mech.problem_and_plan().unwrap();
    run_in_memory(problem, &plan, &MemoryOptions::default()).unwrap()
}

/// docs/yaml.md's planar arm of two bodies, in Rust.
fn planar_arm() -> Multibody {
    Multibody::new(2)
        .body(
            "Upper",
            Body::new(1.5)
                .com([0.4, 0.05])
                .moment(0.08)
                .marker("Elbow", [0.9, 0.0]),
        )
        .body(
            "Lower",
            Body::new(0.7)
                .com([0.3, 0.0])
                .moment(0.02)
                .marker("Tip", [0.6, 0.0]),
        )
        .joint("shoulder", Joint::revolute("ground", "Upper").initial(-1.0))
        .joint(
            "elbow",
            Joint::revolute("Upper", "Lower")
                .parent_at([0.9, 0.0])
                .initial(1.3),
        )
        .t_end(1.0)
        .yaml("SolverParams: { tol: 1e-10 }")
}

#[test]
fn the_builder_gives_the_files_problem_and_run() {
    let text = "Dimension: 2\nPartData:\n  Bodies:\n    Upper: { mass: 1.5, com: [0.4, 0.05], \
                inertia: 0.08, markers: { Elbow: [0.9, 0] } }\n    Lower: { mass: 0.7, com: \
                [0.3, 0], inertia: 0.02, markers: { Tip: [0.6, 0] } }\n  Joints:\n    shoulder: \
                { type: revolute, bodies: [ground, Upper], initial: -1 }\n    elbow: { type: \
                revolute, bodies: [Upper, Lower], parent: { at: [0.9, 0] }, initial: 1.3 }\n\
                AppliedForces: { Gravity: }\nProblemData: { tend: 1 }\nSolverParams: { tol: 1e-10 }\n";
    let (problem, plan) = spec::parse(text, "arm.yaml").unwrap();
    let file = run_in_memory(problem, &plan, &MemoryOptions::default()).unwrap();
    let built = run(&planar_arm());
    assert_eq!(file.names, built.names);
    for name in ["Lower.Tip.x", "Lower.Tip.y", "shoulder", "elbow", "elbow.v"] {
        assert_eq!(last(&file, name), last(&built, name), "{name}");
    }
    // the file the builder writes reads back to the same problem
    let again = spec::parse(&planar_arm().to_yaml().unwrap(), "again.yaml").unwrap();
    assert_eq!(again.0.q_guess, planar_arm().problem().unwrap().q_guess);
}

/// A rod of mass `m`, length `l` hinged at one end about the world's y axis, in space.
fn rod(m: f64, l: f64, angle: f64) -> Multibody {
    let end = m * l * l / 12.0;
    Multibody::new(3)
        .body(
            "Rod",
            Body::new(m)
                .com([l / 2.0, 0.0, 0.0])
                .inertia([1e-6, end, end])
                .marker("Tip", [l, 0.0, 0.0]),
        )
        .joint(
            "hinge",
            Joint::revolute("ground", "Rod")
                .parent_axis([0.0, -1.0, 0.0])
                .child_axis([0.0, -1.0, 0.0])
                .initial(angle),
        )
}

#[test]
fn a_rod_on_a_revolute_joint_has_the_compound_pendulum_frequency() {
    let (m, l) = (2.0, 1.2);
    // hanging straight down: the angle from the world's x to the rod about −y is −π/2
    let problem = rod(m, l, -FRAC_PI_2).problem().unwrap();
    let report = ModesReport::initial(&problem).unwrap();
    assert!(
        report.max_acceleration < 1e-10,
        "{}",
        report.max_acceleration
    );
    assert_eq!(report.modes.len(), 1, "{:?}", report.modes);
    // ω² = m g d / (I_G + m d²), d = ℓ/2, I_G = m ℓ²/12
    let d = l / 2.0;
    let w = (m * G * d / (m * l * l / 12.0 + m * d * d)).sqrt();
    let got = report.modes[0].omega;
    assert!((got - w).abs() < 1e-10 * w, "{got} vs {w}");
}

#[test]
fn a_driven_hinge_over_three_turns_takes_the_gravity_torque() {
    // turned at w = 2 rad/s from the horizontal: θ = w t, θ̈ = 0, so the drive's torque
    // balances gravity alone: τ = m g d cos θ (the angle from x about −y, z up)
    let (m, l, w) = (2.0, 1.2, 2.0);
    let t_end = 3.0 * 2.0 * PI / w;
    let mech = rod(m, l, 0.0)
        .parameter("w", w)
        .drive("motor", "hinge", "w*t")
        .t_end(t_end)
        .yaml("SolverParams: { tol: 1e-10 }\nOutput: { dt: 0.05 }");
    let r = run(&mech);
    let (t, tau, th) = (
        r.column("t").unwrap(),
        r.column("drive:motor").unwrap(),
        r.column("hinge").unwrap(),
    );
    let d = l / 2.0;
    let mut worst = 0.0f64;
    for k in 0..t.len() {
        assert!((th[k] - w * t[k]).abs() < 1e-9, "t {}: {}", t[k], th[k]);
        worst = worst.max((tau[k] - m * G * d * (w * t[k]).cos()).abs());
    }
    assert!(t[t.len() - 1] > t_end - 1e-9);
    assert!(worst < 1e-6 * m * G * d, "torque off by {worst}");
}

#[test]
fn a_joint_spring_from_the_builder_sets_the_frequency() {
    // no gravity, a torsion spring k on the hinge: ω² = k / (I_G + m d²)
    let (m, l, k) = (2.0, 1.2, 30.0);
    let mech = rod(m, l, 0.2)
        .gravity([0.0, 0.0, 0.0])
        .parameter("k", k)
        .force("hinge", "-k*(hinge - 0.2)");
    let report = ModesReport::initial(&mech.problem().unwrap()).unwrap();
    let d = l / 2.0;
    let w = (k / (m * l * l / 12.0 + m * d * d)).sqrt();
    assert_eq!(report.modes.len(), 1);
    assert!((report.modes[0].omega - w).abs() < 1e-10 * w);
}

#[test]
fn welded_and_sliding_bodies_from_the_builder() {
    // a block on a prismatic joint along the world's z, gravity along −z: s = s₀ − ½ g t²; a
    // lid welded 0.2 above it
    let mech = Multibody::new(3)
        .body("Block", Body::new(3.0).inertia([0.1, 0.1, 0.1]))
        .body("Lid", Body::new(1.0).inertia([0.01, 0.01, 0.01]))
        .joint("slide", Joint::prismatic("ground", "Block").initial(0.5))
        .joint(
            "weld",
            Joint::new(JointKind::Fixed, "Block", "Lid").parent_at([0.0, 0.0, 0.2]),
        )
        .t_end(0.5)
        .yaml("SolverParams: { tol: 1e-10 }");
    let r = run(&mech);
    let s = 0.5 - 0.5 * G * 0.25;
    assert!(
        (last(&r, "slide") - s).abs() < 1e-8,
        "{}",
        last(&r, "slide")
    );
    assert!(
        (last(&r, "Lid.z") - (s + 0.2)).abs() < 1e-8,
        "{}",
        last(&r, "Lid.z")
    );
}

#[test]
fn a_wrong_builder_is_refused_with_the_place() {
    let unknown = Multibody::new(3)
        .body("Arm", Body::new(1.0).inertia([0.1, 0.1, 0.1]))
        .joint("hinge", Joint::revolute("ground", "Forearm").initial(0.1));
    let e = unknown.problem().unwrap_err().to_string();
    assert!(e.contains("hinge") && e.contains("Forearm"), "{e}");
    let bad_mass = Multibody::new(2).body("Arm", Body::new(-1.0).moment(0.1));
    let e = bad_mass.problem().unwrap_err().to_string();
    assert!(e.contains("Arm") && e.contains("mass"), "{e}");
    let twice = planar_arm().yaml("PartData: { Bodies: { Upper: { mass: 1 } } }");
    let e = twice.problem().unwrap_err().to_string();
    assert!(e.contains("PartData.Bodies") && e.contains("twice"), "{e}");
    let e = planar_arm()
        .yaml("Output: [")
        .problem()
        .unwrap_err()
        .to_string();
    assert!(e.contains("not valid"), "{e}");
}

#[test]
fn a_gear_couples_two_joint_coordinates() {
    // two wheels on hinges of their own, the second geared at −2 to the first, which is driven
    let wheel = || Body::new(1.0).inertia([0.1, 0.1, 0.1]);
    let (w, t_end) = (1.5, 2.0);
    let mech = Multibody::new(3)
        .gravity([0.0, 0.0, 0.0])
        .body("A", wheel())
        .body("B", wheel())
        .joint("ja", Joint::revolute("ground", "A").initial(0.0))
        .joint(
            "jb",
            Joint::revolute("ground", "B")
                .parent_at([2.0, 0.0, 0.0])
                .initial(0.3),
        )
        .gear("pair", "ja", "jb", -2.0, 0.3)
        .parameter("w", w)
        .drive("motor", "ja", "w*t")
        .t_end(t_end)
        .yaml("SolverParams: { tol: 1e-10 }");
    let r = run(&mech);
    let jb = last(&r, "jb");
    assert!((jb - (0.3 - 2.0 * w * t_end)).abs() < 1e-9, "{jb}");
    // B turns about its hinge: its origin stays there
    assert!((last(&r, "B.x") - 2.0).abs() < 1e-10);
}

#[test]
fn rates_and_angular_velocities_start_the_motion() {
    // a wheel on a vertical hinge (gravity along its axis: no torque) started at 3 rad/s
    // turns at 3 rad/s; the same wheel as a free body on a spherical joint, spun about its
    // symmetry axis k = z by its angular velocity, keeps spinning: its i turns at 3 rad/s
    let wheel = || Body::new(1.0).inertia([0.1, 0.1, 0.2]);
    let t_end = 2.0;
    let hinge = Multibody::new(3)
        .body("W", wheel())
        .joint(
            "axle",
            Joint::revolute("ground", "W").initial(0.0).rate(3.0),
        )
        .t_end(t_end)
        .yaml("SolverParams: { tol: 1e-11 }");
    assert!(hinge.to_yaml().unwrap().contains("axle: 3.0"));
    let r = run(&hinge);
    assert!(
        (last(&r, "axle") - 3.0 * t_end).abs() < 1e-9,
        "{}",
        last(&r, "axle")
    );
    let top = Multibody::new(3)
        .body(
            "W",
            wheel()
                .position([0.0, 0.0, 0.0])
                .turned([0.0, 0.0, 1.0], 0.5)
                .angular_velocity([0.0, 0.0, 3.0]),
        )
        .joint("pivot", Joint::spherical("ground", "W"))
        .t_end(t_end)
        .yaml("SolverParams: { tol: 1e-11 }");
    let r = run(&top);
    let angle = last(&r, "W.i.y").atan2(last(&r, "W.i.x"));
    let expected = (0.5 + 3.0 * t_end + PI).rem_euclid(2.0 * PI) - PI;
    assert!((angle - expected).abs() < 1e-9, "{angle} vs {expected}");
    // in the plane: ω is one number, i̇ = ω perp(i)
    let disc = Multibody::new(2)
        .gravity([0.0, 0.0])
        .body(
            "D",
            Body::new(1.0)
                .moment(0.5)
                .position([0.0, 0.0])
                .angle(0.2)
                .angular_velocity([2.0]),
        )
        .t_end(1.0)
        .yaml("SolverParams: { tol: 1e-11 }");
    let r = run(&disc);
    let angle = last(&r, "D.i.y").atan2(last(&r, "D.i.x"));
    assert!((angle - 2.2).abs() < 1e-9, "{angle}");
    // what cannot be done is said
    let placed = Multibody::new(3)
        .body("W", wheel().angular_velocity([0.0, 0.0, 1.0]))
        .joint("axle", Joint::revolute("ground", "W"));
    let e = placed.problem().unwrap_err().to_string();
    assert!(
        e.contains("body 'W': an angular velocity needs the body's position"),
        "{e}"
    );
    let many = Multibody::new(3)
        .body("W", wheel())
        .joint("axle", Joint::revolute("ground", "W").rates(&[1.0, 2.0]));
    let e = many.problem().unwrap_err().to_string();
    assert!(
        e.contains("joint 'axle': 2 rates for its 1 coordinates (axle)"),
        "{e}"
    );
}

/// The builder hands its document to the file reader without text: its problem takes other
/// parameter values like a file's (sensitivities, fit, sweeps), and a mistake is placed at
/// its line in `to_yaml`'s text.
#[test]
fn a_built_problem_takes_new_parameters_and_places_its_mistakes() {
    let wheel = Body::new(1.0).inertia([0.1, 0.1, 0.2]);
    let mech = Multibody::new(3)
        .parameter("k", 3.0)
        .body("W", wheel.clone())
        .joint("axle", Joint::revolute("ground", "W").initial(0.1))
        .force("axle", "-k*axle");
    let p = mech.problem().unwrap();
    assert_eq!(p.parameters, [("k".to_string(), 3.0)]);
    let q = p.with_parameters(&[("k", 5.0)]).unwrap();
    assert_eq!(q.parameters, [("k".to_string(), 5.0)]);
    let e = Multibody::new(3)
        .body("W", wheel)
        .joint("axle", Joint::revolute("ground", "V"))
        .problem()
        .unwrap_err();
    assert_eq!(e.field, "PartData.Joints.axle.bodies");
    assert!(e.line > 1, "{e}");
    assert!(e.message.contains("unknown body 'V'"), "{e}");
}
