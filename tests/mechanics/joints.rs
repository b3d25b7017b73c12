//! Bodies given by mass, centre of mass and inertia, and the joint library between them
//! (`Bodies`, `Joints` in mechanism files): each joint against a closed form or an equivalent
//! mechanism, the PUMA 560's drive torques against a recursive Newton–Euler computation written
//! here, independent of the toolkit, and the file mistakes named with their place.

use lagrangian::output::sink::ColumnRecorder;
use lagrangian::prelude::*;
use lagrangian::spec;
use std::f64::consts::PI;

/// Run a file's problem with its plan (or the plan's method at step `h`), every step recorded.
fn run(text: &str, h: Option<f64>) -> ColumnRecorder {
    let (p, plan) = spec::parse(text, "joints.yaml").unwrap_or_else(|e| panic!("{e}"));
    let plan = match h {
        Some(h) => RunPlan::from(plan.method.clone().with_h(h)),
        None => plan,
    };
    crate::common::record(p, plan)
}

use crate::common::column as col;

fn last(t: &ColumnRecorder, name: &str) -> f64 {
    *col(t, name).last().expect("rows")
}

/// `y'' = f(y)` for a scalar angle by classical RK4 at a small step: the reference motions.
fn rk4(f: impl Fn(f64) -> f64, y0: f64, v0: f64, t: f64, steps: usize) -> (f64, f64) {
    let h = t / steps as f64;
    let (mut y, mut v) = (y0, v0);
    for _ in 0..steps {
        let (k1y, k1v) = (v, f(y));
        let (k2y, k2v) = (v + h / 2.0 * k1v, f(y + h / 2.0 * k1y));
        let (k3y, k3v) = (v + h / 2.0 * k2v, f(y + h / 2.0 * k2y));
        let (k4y, k4v) = (v + h * k3v, f(y + h * k3y));
        y += h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    (y, v)
}

/// A uniform rod (m, L) hanging from the world y axis by `joint` (the rest of the entry),
/// released at 1 rad: `θ̈ = −(3g/2L) sin θ`.
pub(crate) fn rod(joint: &str, extra: &str) -> String {
    format!(
        "
Title: rod
Dimension: 3
PhysicalParams: {{ m: 2, L: 1 }}
PartData:
  Bodies:
    Rod:
      mass: m
      com: [0, 0, -L/2]
      inertia: [m*L**2/12, m*L**2/12, 0.001]
      markers: {{ Tip: [0, 0, -L] }}
  Joints:
    hinge: {joint}
{extra}
AppliedForces:
  Gravity: 9.81
ProblemData: {{ tend: 2 }}
SolverParams: {{ tol: 1e-11 }}
"
    )
}

pub(crate) const REVOLUTE: &str = "{ type: revolute, bodies: [ground, Rod], parent: { z: [0, 1, 0], x: [0, 0, -1] }, \
                        child: { z: [0, 1, 0], x: [0, 0, -1] }, initial: 1.0 }";

fn pendulum_reference() -> (f64, f64) {
    rk4(|th| -1.5 * 9.81 * th.sin(), 1.0, 0.0, 2.0, 20_000)
}

#[test]
fn revolute_pendulum_swings_as_its_closed_form() {
    let t = run(&rod(REVOLUTE, ""), None);
    let (th, om) = pendulum_reference();
    assert!((last(&t, "t") - 2.0).abs() < 1e-12);
    let (got, rate) = (last(&t, "hinge"), last(&t, "hinge.v"));
    assert!((got - th).abs() < 1e-8, "θ {got} vs {th}");
    assert!((rate - om).abs() < 1e-7, "θ' {rate} vs {om}");
    // the marker at the tip, the body's axes unit and orthogonal
    let (x, z) = (last(&t, "Rod.Tip.x"), last(&t, "Rod.Tip.z"));
    assert!(
        (x + th.sin()).abs() < 1e-8 && (z + th.cos()).abs() < 1e-8,
        "{x} {z}"
    );
    let i = ["x", "y", "z"].map(|c| last(&t, &format!("Rod.i.{c}")));
    assert!((i.iter().map(|c| c * c).sum::<f64>() - 1.0).abs() < 1e-12);
    // the energy of a conservative run
    let e = col(&t, "total");
    assert!((e[e.len() - 1] - e[0]).abs() < 1e-9 * e[0].abs());
}

/// A damper written on the tip marker's velocity (the rate of a defined point) acts as the
/// joint damper `−c L² θ̇` written on the joint coordinate's rate.
#[test]
fn dampers_on_a_marker_and_on_the_joint_rate_agree() {
    let marker = run(
        &rod(REVOLUTE, "").replace(
            "AppliedForces:\n  Gravity: 9.81\n",
            "AppliedForces:\n  Gravity: 9.81\n  Dissipation:\n    air: 0.3/2*dot(Rod.Tip', Rod.Tip')\n",
        ),
        None,
    );
    let joint = run(
        &rod(REVOLUTE, "").replace(
            "AppliedForces:\n  Gravity: 9.81\n",
            "AppliedForces:\n  Gravity: 9.81\n  Forces:\n    hinge: -0.3*L**2*hinge'\n",
        ),
        None,
    );
    let (a, b) = (last(&marker, "hinge"), last(&joint, "hinge"));
    assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    let (th, _) = pendulum_reference();
    assert!((a - th).abs() > 1e-3, "the damper did something");
}

/// A spherical joint and a universal joint (first axis along the world y axis) with the rod
/// released in the xz plane: the revolute pendulum's motion, the universal's second angle 0.
#[test]
fn spherical_and_universal_swing_as_the_revolute_pendulum() {
    let (th, _) = pendulum_reference();
    let sph = run(
        &rod("{ type: spherical, bodies: [ground, Rod] }", "").replace(
            "      markers: { Tip: [0, 0, -L] }\n",
            "      markers: { Tip: [0, 0, -L] }\n      position: [0, 0, 0]\n      \
             orientation: { axis: [0, 1, 0], angle: 1.0 }\n",
        ),
        None,
    );
    let uni = run(
        &rod(
            "{ type: universal, bodies: [ground, Rod], parent: { z: [0, 0, 1], x: [0, 1, 0] }, \
             child: { z: [0, 0, 1], x: [0, 1, 0] }, initial: [1.0, 0] }",
            "",
        ),
        None,
    );
    for t in [&sph, &uni] {
        let (x, z) = (last(t, "Rod.Tip.x"), last(t, "Rod.Tip.z"));
        assert!(
            (x + th.sin()).abs() < 1e-8 && (z + th.cos()).abs() < 1e-8,
            "{x} {z}"
        );
    }
    assert!((last(&uni, "hinge_1") - th).abs() < 1e-8);
    assert!(last(&uni, "hinge_2").abs() < 1e-10);
    // released about the second axis (the child's y, along −x at θ₁ = 0): the same swing in
    // the yz plane, now in θ₂, with θ₁ at rest
    let second = run(
        &rod(
            "{ type: universal, bodies: [ground, Rod], parent: { z: [0, 0, 1], x: [0, 1, 0] }, \
             child: { z: [0, 0, 1], x: [0, 1, 0] }, initial: [0, 1.0] }",
            "",
        ),
        None,
    );
    assert!(
        (last(&second, "hinge_2") - th).abs() < 1e-8,
        "{}",
        last(&second, "hinge_2")
    );
    assert!(last(&second, "hinge_1").abs() < 1e-10);
    let (y, z) = (last(&second, "Rod.Tip.y"), last(&second, "Rod.Tip.z"));
    assert!(
        (y + th.sin()).abs() < 1e-8 && (z + th.cos()).abs() < 1e-8,
        "{y} {z}"
    );
}

/// A prismatic joint along a line inclined at 45° below the horizontal: the body slides with
/// `s̈ = g/√2` and does not turn.
#[test]
fn prismatic_slider_accelerates_down_its_line() {
    let text = "
Title: slider
Dimension: 3
PartData:
  Bodies:
    Block: { mass: 3, inertia: [0.1, 0.2, 0.3] }
  Joints:
    s: { type: prismatic, bodies: [ground, Block], parent: { z: [1, 0, -1] }, child: { z: [1, 0, -1] }, initial: 0.5 }
AppliedForces:
  Gravity: 9.81
ProblemData: { tend: 1.5, velocities: { s: 0.2 } }
SolverParams: { tol: 1e-10 }
";
    let t = run(text, None);
    let a = 9.81 / 2f64.sqrt();
    let want = 0.5 + 0.2 * 1.5 + 0.5 * a * 1.5 * 1.5;
    assert!(
        (last(&t, "s") - want).abs() < 1e-9,
        "{} vs {want}",
        last(&t, "s")
    );
    let r = 1.0 / 2f64.sqrt();
    assert!((last(&t, "Block.x") - want * r).abs() < 1e-9);
    assert!((last(&t, "Block.z") + want * r).abs() < 1e-9);
    assert!((last(&t, "Block.i.x") - 1.0).abs() < 1e-12 && last(&t, "Block.j.vx").abs() < 1e-12);
}

/// A cylindrical joint on a vertical axis: the body (centre of mass on the axis) falls freely
/// along it and spins at its initial rate; a planar joint on the horizontal plane: it glides
/// and turns uniformly.
#[test]
fn cylindrical_and_planar_joints_move_freely_along_their_coordinates() {
    let cyl = "
Title: cylinder
Dimension: 3
PartData:
  Bodies:
    Sleeve: { mass: 2, com: [0, 0, 0.3], inertia: [0.05, 0.05, 0.02] }
  Joints:
    c: { type: cylindrical, bodies: [ground, Sleeve], initial: [0.2, 1.0] }
AppliedForces:
  Gravity: 9.81
ProblemData: { tend: 2, velocities: { c_angle: 3, c_slide: 0.5 } }
SolverParams: { tol: 1e-10 }
";
    let t = run(cyl, None);
    let (angle, slide) = (last(&t, "c_angle"), last(&t, "c_slide"));
    assert!((angle - (0.2 + 3.0 * 2.0)).abs() < 1e-8, "{angle}");
    assert!(
        (slide - (1.0 + 0.5 * 2.0 - 0.5 * 9.81 * 4.0)).abs() < 1e-8,
        "{slide}"
    );
    // 6.2 rad: past π, the angle is continuous; the body's x axis turned by it
    let ix = last(&t, "Sleeve.i.x");
    assert!((ix - angle.cos()).abs() < 1e-8, "{ix} vs {}", angle.cos());

    let planar = "
Title: puck
Dimension: 3
PartData:
  Bodies:
    Puck: { mass: 0.5, inertia: [0.01, 0.01, 0.02] }
  Joints:
    p: { type: planar, bodies: [ground, Puck], initial: [0.1, -0.2, 0.3] }
AppliedForces:
  Gravity: 9.81
ProblemData: { tend: 3, velocities: { p_x: 0.4, p_y: 0.25, p_angle: -2 } }
SolverParams: { tol: 1e-10 }
";
    let t = run(planar, None);
    for (name, want) in [
        ("p_x", 0.1 + 0.4 * 3.0),
        ("p_y", -0.2 + 0.25 * 3.0),
        ("p_angle", 0.3 - 2.0 * 3.0),
        ("Puck.x", 0.1 + 0.4 * 3.0),
        ("Puck.z", 0.0),
    ] {
        let got = last(&t, name);
        assert!((got - want).abs() < 1e-8, "{name}: {got} vs {want}");
    }
}

/// A second body welded to the rod's tip by a fixed joint: one compound pendulum with
/// `I_O θ̈ = −(m₁ L/2 + m₂ L) g sin θ`, `I_O = m₁L²/3 + I₂ + m₂L²`.
#[test]
fn fixed_joint_welds_two_bodies_into_one() {
    let text = rod(REVOLUTE, "    weld: { type: fixed, bodies: [Rod, Ball], parent: { at: [0, 0, -L] } }\n")
        .replace(
            "      markers: { Tip: [0, 0, -L] }\n",
            "      markers: { Tip: [0, 0, -L] }\n    Ball: { mass: 1.5, inertia: [0.02, 0.02, 0.02] }\n",
        );
    let t = run(&text, None);
    let (m1, m2, l, g) = (2.0, 1.5, 1.0, 9.81);
    let io = m1 * l * l / 3.0 + 0.02 + m2 * l * l;
    let k = (m1 * l / 2.0 + m2 * l) * g / io;
    let (th, _) = rk4(|x| -k * x.sin(), 1.0, 0.0, 2.0, 20_000);
    assert!(
        (last(&t, "hinge") - th).abs() < 1e-8,
        "{} vs {th}",
        last(&t, "hinge")
    );
    assert!((last(&t, "Ball.x") + l * th.sin()).abs() < 1e-8);
}

/// Two wheels on vertical axles geared at −1/2, the first driven with constant angular
/// acceleration through four turns: the second follows at the ratio (over any number of turns:
/// joint angles are coordinates), and the motor supplies `(I₁ + r² I₂) α`.
#[test]
fn gear_turns_the_second_wheel_at_its_ratio_over_many_turns() {
    let text = "
Title: gears
Dimension: 3
PartData:
  Bodies:
    W1: { mass: 1, inertia: [0.02, 0.02, 0.04] }
    W2: { mass: 3, inertia: [0.1, 0.1, 0.16], position: [0.3, 0, 0] }
  Joints:
    a: { type: revolute, bodies: [ground, W1] }
    b: { type: revolute, bodies: [ground, W2], parent: { at: [0.3, 0, 0] } }
    mesh: { type: gear, coordinates: [a, b], ratio: -0.5 }
  Drives:
    motor: { quantity: a, motion: 0.5*4*t**2 }
AppliedForces:
  Gravity: 9.81
ProblemData: { tend: 3.6 }
SolverParams: { tol: 1e-10 }
";
    let t = run(text, None);
    let (a, b) = (col(&t, "a"), col(&t, "b"));
    let n = a.len() - 1;
    assert!(a[n] > 8.0 * PI, "four turns: {}", a[n]);
    for k in 0..=n {
        assert!(
            (b[k] + 0.5 * a[k]).abs() < 1e-10,
            "row {k}: {} vs {}",
            b[k],
            a[k]
        );
    }
    let torque = col(&t, "drive:motor");
    let want = (0.04 + 0.25 * 0.16) * 4.0;
    let worst = torque.iter().fold(0.0f64, |w, x| w.max((x - want).abs()));
    // the states' velocities projected onto the constraints after every step (DOP853): the
    // torque is exact to round-off (generalized-α's index-3 velocities, off by O(h²), would
    // give 2e-5 at h = 1e-3 through the wheels' centripetal terms)
    assert!(worst < 1e-8, "motor torque off by {worst:.3e}");
}

// ---- the PUMA 560 ------------------------------------------------------------------------

pub(crate) const DH: [(f64, f64, f64); 6] = [
    (0.0, 0.0, PI / 2.0),
    (0.0, 0.4318, 0.0),
    (0.15005, 0.0203, -PI / 2.0),
    (0.4318, 0.0, PI / 2.0),
    (0.0, 0.0, -PI / 2.0),
    (0.0, 0.0, 0.0),
];
pub(crate) const MASS: [f64; 6] = [2.0, 17.4, 4.8, 0.82, 0.34, 0.09];
pub(crate) const COM: [[f64; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [-0.3638, 0.006, 0.2275],
    [-0.0203, -0.0141, 0.070],
    [0.0, 0.019, 0.0],
    [0.0, 0.0, 0.0],
    [0.0, 0.0, 0.032],
];
pub(crate) const INERTIA: [[f64; 3]; 6] = [
    [0.18, 0.35, 0.18],
    [0.13, 0.524, 0.539],
    [0.066, 0.075, 0.0125],
    [1.8e-3, 1.3e-3, 1.8e-3],
    [0.3e-3, 0.4e-3, 0.3e-3],
    [0.15e-3, 0.15e-3, 0.04e-3],
];

type V3 = [f64; 3];
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(s: f64, a: V3) -> V3 {
    a.map(|x| s * x)
}
/// `R v` and `Rᵀ v` for the DH rotation `Rz(θ) Rx(α)` (rows).
fn rot(th: f64, al: f64) -> [V3; 3] {
    let (st, ct, sa, ca) = (th.sin(), th.cos(), al.sin(), al.cos());
    [
        [ct, -st * ca, st * sa],
        [st, ct * ca, -ct * sa],
        [0.0, sa, ca],
    ]
}
fn mul(r: &[V3; 3], v: V3) -> V3 {
    r.map(|row| row[0] * v[0] + row[1] * v[1] + row[2] * v[2])
}
fn mul_t(r: &[V3; 3], v: V3) -> V3 {
    std::array::from_fn(|k| r[0][k] * v[0] + r[1][k] * v[1] + r[2][k] * v[2])
}

/// Joint torques by the recursive Newton–Euler algorithm (Luh, Walker & Paul) in link frames,
/// standard DH, gravity 9.81 along −z of the base.
pub(crate) fn rne(q: [f64; 6], qd: [f64; 6], qdd: [f64; 6]) -> [f64; 6] {
    let z = [0.0, 0.0, 1.0];
    let (mut w, mut wd, mut vd) = ([0.0; 3], [0.0; 3], [0.0, 0.0, 9.81]);
    let mut rs = Vec::new();
    let mut ps = Vec::new();
    let mut forces = Vec::new();
    let mut moments = Vec::new();
    for i in 0..6 {
        let (d, a, al) = DH[i];
        let r = rot(q[i], al);
        let p = [a, d * al.sin(), d * al.cos()];
        wd = mul_t(
            &r,
            add(add(wd, scale(qdd[i], z)), cross(w, scale(qd[i], z))),
        );
        w = mul_t(&r, add(w, scale(qd[i], z)));
        vd = add(add(cross(wd, p), cross(w, cross(w, p))), mul_t(&r, vd));
        let c = COM[i];
        let ac = add(add(cross(wd, c), cross(w, cross(w, c))), vd);
        let iw = [
            INERTIA[i][0] * w[0],
            INERTIA[i][1] * w[1],
            INERTIA[i][2] * w[2],
        ];
        let iwd = [
            INERTIA[i][0] * wd[0],
            INERTIA[i][1] * wd[1],
            INERTIA[i][2] * wd[2],
        ];
        forces.push(scale(MASS[i], ac));
        moments.push(add(iwd, cross(w, iw)));
        rs.push(r);
        ps.push(p);
    }
    let (mut f, mut n) = ([0.0; 3], [0.0; 3]);
    let mut tau = [0.0; 6];
    for i in (0..6).rev() {
        let (p, c) = (ps[i], COM[i]);
        let own = add(cross(add(p, c), forces[i]), moments[i]);
        if i == 5 {
            n = own;
            f = forces[i];
        } else {
            let r = &rs[i + 1];
            n = add(mul(r, add(n, cross(mul_t(r, p), f))), own);
            f = add(mul(r, f), forces[i]);
        }
        tau[i] =
            n[0] * mul_t(&rs[i], z)[0] + n[1] * mul_t(&rs[i], z)[1] + n[2] * mul_t(&rs[i], z)[2];
    }
    tau
}

/// The bundled PUMA 560 with every joint driven along `q_i = 0.4 sin(1.5 t + 0.7 i)`: the drive
/// torques `drive:q1 … q6` against recursive Newton–Euler at every row over the 2 s.
#[test]
fn puma560_drive_torques_match_recursive_newton_euler() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/mechanisms/puma560.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let t = run(&text, Some(5e-4));
    let times = col(&t, "t");
    assert!((times[times.len() - 1] - 2.0).abs() < 1e-12);
    let torques: Vec<Vec<f64>> = (1..=6).map(|k| col(&t, &format!("drive:q{k}"))).collect();
    let mut worst: f64 = 0.0;
    for (row, &s) in times.iter().enumerate() {
        let arg = |i: usize| 1.5 * s + 0.7 * (i + 1) as f64;
        let q = std::array::from_fn(|i| 0.4 * arg(i).sin());
        let qd = std::array::from_fn(|i| 0.6 * arg(i).cos());
        let qdd = std::array::from_fn(|i| -0.9 * arg(i).sin());
        let tau = rne(q, qd, qdd);
        let size = tau.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for k in 0..6 {
            worst = worst.max((torques[k][row] - tau[k]).abs() / size);
        }
    }
    eprintln!(
        "PUMA 560 drive torques vs RNE: largest difference {worst:.2e} of the largest torque"
    );
    assert!(worst < 1e-6, "{worst:.3e}");
    // the joint angles are the drives' motions, and each body's marker where the chain puts it
    let q6 = col(&t, "q6");
    let last_row = q6.len() - 1;
    assert!((q6[last_row] - 0.4 * (1.5f64 * 2.0 + 4.2).sin()).abs() < 1e-12);
}

#[test]
fn joint_file_mistakes_are_named_with_their_place() {
    let good = rod(REVOLUTE, "");
    for (from, to, place, part) in [
        (
            "bodies: [ground, Rod]",
            "bodies: [ground, Rd]",
            "Joints.hinge.bodies",
            "unknown body 'Rd'",
        ),
        (
            "type: revolute",
            "type: hinge",
            "Joints.hinge.type",
            "unknown joint type 'hinge'",
        ),
        (
            "initial: 1.0",
            "initial: [1, 2]",
            "Joints.hinge.initial",
            "1 initial value",
        ),
        (
            "initial: 1.0",
            "initial: 1.0, dh: [0, 0, 0]",
            "Joints.hinge.dh",
            "leave out child",
        ),
        ("mass: m", "mass: -m", "Bodies.Rod.mass", "must be positive"),
        (
            "[m*L**2/12, m*L**2/12, 0.001]",
            "[1, 1, 3]",
            "Bodies.Rod.inertia",
            "not a physical inertia",
        ),
        (
            "x: [0, 0, -1] }, child",
            "x: [0, 1, 0] }, child",
            "Joints.hinge.parent.x",
            "along the z axis",
        ),
        // a 3D body read in the plane: its vectors have three components
        (
            "Dimension: 3",
            "Dimension: 2",
            "Bodies.Rod.com",
            "expected 2 components",
        ),
        ("Dimension: 3", "Dimension: 1", "Bodies", "(Dimension 3)"),
    ] {
        let bad = good.replacen(from, to, 1);
        assert_ne!(bad, good, "{from}");
        let e = spec::parse(&bad, "j.yaml").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("j.yaml:") && msg.contains(place) && msg.contains(part),
            "{to}: {msg}"
        );
    }
    // a body no joint places and that has no pose
    let lone = good.replace(
        "      markers: { Tip: [0, 0, -L] }\n",
        "      markers: { Tip: [0, 0, -L] }\n    Lost: { mass: 1, inertia: [1, 1, 1] }\n",
    );
    let msg = spec::parse(&lone, "j.yaml").unwrap_err().to_string();
    assert!(msg.contains("body 'Lost' has no initial pose"), "{msg}");
}

/// Shapes, the picture's solids: mistakes named with their place, good ones in the scene.
#[test]
fn body_shapes_are_checked_and_reach_the_scene() {
    let good = rod(REVOLUTE, "");
    let marker = "      markers: { Tip: [0, 0, -L] }\n";
    for (shape, place, part) in [
        (
            "{ box: [1, -1, 1] }",
            "Bodies.Rod.shapes.0.box.1",
            "edges must be positive",
        ),
        (
            "{ cylinder: [1] }",
            "Bodies.Rod.shapes.0.cylinder",
            "[radius, length]",
        ),
        (
            "{ sphere: 0 }",
            "Bodies.Rod.shapes.0.sphere",
            "must be positive",
        ),
        (
            "{ sphere: 1, axis: z }",
            "Bodies.Rod.shapes.0.axis",
            "only a cylinder",
        ),
        (
            "{ circle: 1 }",
            "Bodies.Rod.shapes.0.circle",
            "in the plane",
        ),
        (
            "{ cylinder: [1, 2], axis: w }",
            "Bodies.Rod.shapes.0.axis",
            "x, y or z",
        ),
        (
            "{ box: [1, 1, 1], sphere: 1 }",
            "Bodies.Rod.shapes.0",
            "one of box",
        ),
        ("{ cone: 1 }", "Bodies.Rod.shapes.0.cone", "cone"),
        ("{ sphere: 1, at: [0, 1] }", "Bodies.Rod.shapes.0.at", "3"),
    ] {
        let bad = good.replacen(marker, &format!("{marker}      shapes: [{shape}]\n"), 1);
        assert_ne!(bad, good);
        let msg = spec::parse(&bad, "j.yaml").unwrap_err().to_string();
        assert!(
            msg.starts_with("j.yaml:") && msg.contains(place) && msg.contains(part),
            "{shape}: {msg}"
        );
    }
    // and good ones reach the scene
    let drawn = good.replacen(
        marker,
        &format!("{marker}      shapes: [{{ box: [0.1, 0.1, 1], at: [0, 0, -0.5] }}, {{ cylinder: [0.05, 0.2], axis: x }}]\n"),
        1,
    );
    let (problem, _) = spec::parse(&drawn, "j.yaml").unwrap();
    let scene = lagrangian::output::scene::Scene::of(&problem);
    let rod = scene.bodies.iter().find(|b| b.name == "Rod").unwrap();
    assert_eq!(rod.shapes.len(), 2);
    assert_eq!(
        (rod.shapes[0].size, rod.shapes[0].at),
        ([0.1, 0.1, 1.0], [0.0, 0.0, -0.5])
    );
    assert_eq!(
        (rod.shapes[1].size, rod.shapes[1].axis),
        ([0.05, 0.2, 0.0], 0)
    );
    assert_eq!(
        rod.frame.clone().unwrap(),
        ["Rod", "Rod.i", "Rod.j"].map(String::from)
    );
}

/// `τ(t)` of one joint as a Chebyshev series on `[1 − 1.001, 1 + 1.001]` (`x = (t − 1)/1.001`,
/// inside `(−1, 1)` so `acos` stays differentiable), degree `N`, as a file expression over the
/// defined angle `cheb = acos(x)`: `Σ c_k cos(k·cheb)`.
fn chebyshev(f: impl Fn(f64) -> f64, n: usize) -> (Vec<f64>, String) {
    let t_of = |x: f64| 1.0 + 1.001 * x;
    let fj: Vec<f64> = (0..=n)
        .map(|j| f(t_of((PI * j as f64 / n as f64).cos())))
        .collect();
    let w = |j: usize| if j == 0 || j == n { 0.5 } else { 1.0 };
    let c: Vec<f64> = (0..=n)
        .map(|k| {
            2.0 / n as f64
                * (0..=n)
                    .map(|j| w(j) * fj[j] * (PI * (j * k) as f64 / n as f64).cos())
                    .sum::<f64>()
                * w(k)
        })
        .collect();
    let text = c
        .iter()
        .enumerate()
        .map(|(k, ck)| format!("{ck:.17e}*cos({k}*cheb)"))
        .collect::<Vec<_>>()
        .join(" + ");
    (c, text)
}

/// The same arm run forwards: its joints free, the torques of the drive run (recursive
/// Newton–Euler on the prescribed motion, as Chebyshev series of degree 40) applied along the
/// joint coordinates, started on the prescribed state: it follows the prescribed motion back.
#[test]
fn puma560_driven_by_its_torques_follows_the_motion_back() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/mechanisms/puma560.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let motion = |t: f64| {
        let arg = |i: usize| 1.5 * t + 0.7 * (i + 1) as f64;
        (
            std::array::from_fn(|i| 0.4 * arg(i).sin()),
            std::array::from_fn(|i| 0.6 * arg(i).cos()),
            std::array::from_fn(|i| -0.9 * arg(i).sin()),
        )
    };
    let mut forces = String::from("  Forces:\n");
    for k in 0..6 {
        let tau = |t: f64| {
            let (q, qd, qdd) = motion(t);
            rne(q, qd, qdd)[k]
        };
        let (c, series) = chebyshev(tau, 40);
        // the series reproduces the torque between its nodes
        for t in [0.0, 0.37, 1.1, 2.0] {
            let x: f64 = (t - 1.0) / 1.001;
            let s: f64 = c
                .iter()
                .enumerate()
                .map(|(j, cj)| cj * (j as f64 * x.acos()).cos())
                .sum();
            assert!(
                (s - tau(t)).abs() < 1e-11 * (1.0 + tau(t).abs()),
                "joint {k} at {t}"
            );
        }
        forces.push_str(&format!("    q{}: {series}\n", k + 1));
    }
    let start = text.find("  Drives:").unwrap();
    let end = text.find("AppliedForces:").unwrap();
    let (_, qd0, _) = motion(0.0);
    let velocities = (0..6)
        .map(|i| format!("q{}: {:.17e}", i + 1, qd0[i]))
        .collect::<Vec<_>>()
        .join(", ");
    let free = format!(
        "{}  Define:\n    cheb: acos((t - 1)/1.001)\n{}",
        &text[..start],
        &text[end..]
    )
    .replace("AppliedForces:\n", &format!("AppliedForces:\n{forces}"))
    .replace(
        "ProblemData: { tend: 2 }",
        &format!("ProblemData: {{ tend: 2, velocities: {{ {velocities} }} }}"),
    )
    .replace(
        "SolverParams: { step: 1e-4 }",
        "SolverParams: { tol: 1e-10 }",
    );
    let t = run(&free, None);
    let times = col(&t, "t");
    let mut worst: f64 = 0.0;
    for k in 0..6 {
        let q = col(&t, &format!("q{}", k + 1));
        for (row, &s) in times.iter().enumerate() {
            let (want, _, _) = motion(s);
            worst = worst.max((q[row] - want[k]).abs());
        }
    }
    eprintln!("PUMA 560 forward dynamics under the RNE torques: joints within {worst:.2e} rad");
    assert!(worst < 1e-6, "{worst:.3e} rad");
    assert!((times[times.len() - 1] - 2.0).abs() < 1e-12);
}

/// A hinge angle of 1e17 rad (one unit of rounding is 16 rad there): the angle cannot follow
/// the rod, which swung away from it (exit 0 with max |C| ≈ 1 before); the run is refused
/// naming the coordinate. At 1e3 rad the same rod swings as at 1 rad.
#[test]
fn an_angle_too_large_to_resolve_the_motion_stops_the_run() {
    let far = REVOLUTE.replace("initial: 1.0", "initial: 1e17");
    let (p, plan) = lagrangian::spec::parse(&rod(&far, ""), "rod.yaml").unwrap();
    let e = match lagrangian::simulation::simulate(&p, plan) {
        Ok(s) => panic!("ran to t = {} with the hinge at 1e17 rad", s.last().state.t),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("hinge = 1e17 is beyond 1e15") && e.contains("1.600e1"),
        "{e}"
    );
    // 1e3 rad is 1 rad and 159 turns: a good angle
    let turned = REVOLUTE.replace(
        "initial: 1.0",
        &format!("initial: {}", 1.0 + 318.0 * std::f64::consts::PI),
    );
    let (p, plan) = lagrangian::spec::parse(&rod(&turned, ""), "rod.yaml").unwrap();
    let s = lagrangian::simulation::simulate(&p, plan).unwrap();
    assert!((s.last().state.t - 2.0).abs() < 1e-12);
}
