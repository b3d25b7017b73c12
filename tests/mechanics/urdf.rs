//! Robots read from URDF (`lagrangian::spec::urdf`): the bundled PUMA 560 equals the same arm
//! in Denavit–Hartenberg form; a floating base with a mimic joint runs with its coupling held and
//! its energy kept; every mistake is refused with its line and the element's name.

use super::joint_space::puma;
use super::joints::rne;
use lagrangian::multibody::Workspace;
use lagrangian::prelude::*;
use lagrangian::spec::urdf;

fn bundled() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/mechanisms/puma560.urdf");
    std::fs::read_to_string(path).unwrap()
}

/// The URDF arm's torques equal the DH arm's and the independent Newton–Euler's along the
/// bundled motion (its link frames differ from DH's: URDF turns a joint after its origin).
#[test]
fn urdf_puma560_equals_the_denavit_hartenberg_arm() {
    let robot = urdf::read(&bundled(), "puma560.urdf").unwrap();
    assert_eq!(
        robot.tree.coordinate_names(),
        ["q1", "q2", "q3", "q4", "q5", "q6"]
    );
    assert_eq!(robot.start, [0.0; 6]);
    assert!(
        robot
            .joints
            .iter()
            .all(|j| j.kind == "continuous" && j.limit == [None; 4])
    );
    let dh = puma();
    let (mut wu, mut wd) = (Workspace::new(&robot.tree), Workspace::new(&dh));
    let mut worst = 0.0f64;
    for row in 0..=200 {
        let s = row as f64 * 0.01;
        let arg = |i: usize| 1.5 * s + 0.7 * (i + 1) as f64;
        let q: [f64; 6] = std::array::from_fn(|i| 0.4 * arg(i).sin());
        let qd: [f64; 6] = std::array::from_fn(|i| 0.6 * arg(i).cos());
        let qdd: [f64; 6] = std::array::from_fn(|i| -0.9 * arg(i).sin());
        let (mut a, mut b) = ([0.0; 6], [0.0; 6]);
        robot.tree.rnea(&mut wu, &q, &qd, &qdd, &mut a);
        dh.rnea(&mut wd, &q, &qd, &qdd, &mut b);
        let r = rne(q, qd, qdd);
        let size = r.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for k in 0..6 {
            worst = worst.max((a[k] - b[k]).abs().max((a[k] - r[k]).abs()) / size);
        }
    }
    println!("URDF PUMA 560 vs DH arm and independent RNE: {worst:.1e} of the largest torque");
    assert!(worst < 1e-13, "{worst:e}");
}

/// A floating base carrying two fingers, the second mimicking the first at −2× (a gear): under
/// gravity from a start with the fingers apart, the run keeps the coupling, the quaternion's
/// length and the energy; the free fall of the whole is `z = −½ g t²`.
#[test]
fn floating_base_with_a_mimic_joint_runs() {
    let text = r#"<?xml version="1.0"?>
<robot name="gripper">
  <link name="world"/>
  <link name="palm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.02" izz="0.015"/></inertial>
    <visual><geometry><mesh filename="palm.stl"/></geometry></visual></link>
  <link name="f1"><inertial><origin xyz="0 0 0.05"/><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-5"/></inertial></link>
  <link name="f2"><inertial><origin xyz="0 0 0.05"/><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-5"/></inertial></link>
  <joint name="base" type="floating"><parent link="world"/><child link="palm"/></joint>
  <joint name="a" type="revolute"><parent link="palm"/><child link="f1"/>
    <origin xyz="0.05 0 0"/><axis xyz="0 1 0"/><limit lower="0.2" upper="1.0"/></joint>
  <joint name="b" type="revolute"><parent link="palm"/><child link="f2"/>
    <origin xyz="-0.05 0 0"/><axis xyz="0 1 0"/><mimic joint="a" multiplier="-2"/></joint>
</robot>"#;
    let robot = urdf::read(text, "gripper.urdf").unwrap();
    assert_eq!(robot.tree.n_coords(), 9);
    // a starts at the middle of its limits (0 is outside them)
    assert!((robot.start[7] - 0.6).abs() < 1e-15);
    assert!(robot.notes[0].contains("1 link(s)") && robot.notes[0].contains("ignored"));
    let problem = robot.problem().unwrap().t_end(1.0);
    assert_eq!(problem.notes, robot.notes);
    assert_eq!(problem.model.n_constraints(), 2);
    let sol = simulate(&problem, Dop853Options::new(1e-10)).unwrap();
    let names = problem.model.coordinate_names();
    let (ia, ib) = (
        names.iter().position(|n| n == "a").unwrap(),
        names.iter().position(|n| n == "b").unwrap(),
    );
    let iz = names.iter().position(|n| n == "base_z").unwrap();
    for r in &sol.records {
        let q = &r.state.q;
        assert!(
            (q[ib] + 2.0 * q[ia]).abs() < 1e-9,
            "mimic off at t = {}",
            r.state.t
        );
        assert!(r.max_constraint < 1e-9);
    }
    let e0 = sol.records[0].energy;
    let last = sol.last();
    assert!(
        (last.energy - e0).abs() < 1e-8 * e0.abs().max(1.0),
        "{} → {}",
        e0,
        last.energy
    );
    // the centre of mass falls freely; the palm's origin with it up to the fingers' motion
    assert!(
        (last.state.q[iz] + 0.5 * 9.81).abs() < 0.05,
        "{}",
        last.state.q[iz]
    );
}

fn refused(text: &str) -> String {
    let e = urdf::read(text, "bad.urdf").unwrap_err();
    assert!(e.line >= 1, "{e}");
    e.to_string()
}

/// Two roots, a cycle, a link that is the child of two joints, a joint naming a missing link,
/// an axis without direction, a non-physical inertia, an unknown type, broken XML and a mimic of
/// nothing: each refused with the file, line and name.
#[test]
fn urdf_mistakes_are_named_with_their_place() {
    let link = |n: &str| {
        format!(
            r#"<link name="{n}"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial></link>"#
        )
    };
    let joint = |n: &str, p: &str, c: &str| {
        format!(
            r#"<joint name="{n}" type="revolute"><parent link="{p}"/><child link="{c}"/></joint>"#
        )
    };
    let robot = |body: String| format!("<robot name=\"r\">\n{body}\n</robot>");
    let two_roots = robot(format!(
        "{}{}{}{}",
        link("a"),
        link("b"),
        link("c"),
        joint("j", "a", "b")
    ));
    assert!(
        refused(&two_roots).contains("2 roots (a, c)"),
        "{}",
        refused(&two_roots)
    );
    let cycle = robot(format!(
        "{}{}{}{}",
        link("a"),
        link("b"),
        joint("j", "a", "b"),
        joint("k", "b", "a")
    ));
    assert!(refused(&cycle).contains("cycle"), "{}", refused(&cycle));
    let twice = robot(format!(
        "{}{}{}{}{}",
        link("a"),
        link("b"),
        link("c"),
        joint("j", "a", "c"),
        joint("k", "b", "c")
    ));
    let m = refused(&twice);
    assert!(
        m.contains("joint 'k'") && m.contains("already the child"),
        "{m}"
    );
    let missing = robot(format!("{}{}", link("a"), joint("j", "a", "nowhere")));
    let m = refused(&missing);
    assert!(
        m.contains("'nowhere' is not defined") && m.contains("bad.urdf:"),
        "{m}"
    );
    let axis = robot(format!(
        r#"{}{}<joint name="j" type="revolute"><parent link="a"/><child link="b"/>
<axis xyz="0 0 0"/></joint>"#,
        link("a"),
        link("b")
    ));
    let m = refused(&axis);
    assert!(
        m.contains("joint 'j'") && m.contains("no direction") && m.contains(":3:"),
        "{m}"
    );
    let inertia = robot(format!(
        r#"{}<link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="0.1" izz="0.1"/></inertial></link>{}"#,
        link("a"),
        joint("j", "a", "b")
    ));
    let m = refused(&inertia);
    assert!(
        m.contains("body 'b'") && m.contains("sum of the other two"),
        "{m}"
    );
    let kind = robot(format!(
        r#"{}{}<joint name="j" type="ball"><parent link="a"/><child link="b"/></joint>"#,
        link("a"),
        link("b")
    ));
    assert!(refused(&kind).contains("unknown type 'ball'"));
    assert!(refused("<robot><link name=\"a\"></robot>").contains("not valid XML"));
    let mimic = robot(format!(
        r#"{}{}<joint name="j" type="revolute"><parent link="a"/><child link="b"/><mimic joint="ghost"/></joint>"#,
        link("a"),
        link("b")
    ));
    assert!(refused(&mimic).contains("mimics 'ghost'"));
}
