//! Planar `Bodies` and `Joints` in joint coordinates (issue 73: Dimension 2 builds the same
//! `multibody::Tree` as space): a two-link arm against its natural-coordinate twin, a free body
//! against the closed-form flight of a spinning lamina, a slider-crank's loop against its
//! closure.

use crate::common::{column as col, record};
use lagrangian::output::sink::ColumnRecorder;
use lagrangian::problem::Problem;
use lagrangian::spec;

fn run(text: &str) -> (Problem, ColumnRecorder) {
    let (p, plan) = spec::parse(text, "plane.yaml").unwrap_or_else(|e| panic!("{e}"));
    (p.clone(), record(p, plan))
}

const ARM: &str = "
Dimension: 2
PartData:
  COORDS
  Bodies:
    Upper: { mass: 1.5, com: [0.4, 0.05], inertia: 0.08, markers: { Elbow: [0.9, 0] } }
    Lower: { mass: 0.7, com: [0.3, 0], inertia: 0.02, markers: { Tip: [0.6, 0] } }
  Joints:
    shoulder: { type: revolute, bodies: [ground, Upper], initial: -1 }
    elbow: { type: revolute, bodies: [Upper, Lower], parent: { at: [0.9, 0] }, initial: 1.3 }
  Fixed: { O: [0.5, -1.5] }
  Springs:
    Lower.Tip-O: { stiffness: 20, length: 0.5 }
AppliedForces:
  Gravity:
  Torques: { Upper: 0.3*sin(2*t) }
ProblemData:
  tend: 3
  velocities: { shoulder: 0, elbow: 0.7 }
SolverParams: { integrator: dop853, tol: 1e-11 }
";

/// The arm is two coordinates and no constraint in joint coordinates (ten and eight in natural
/// ones); its markers, axes and velocities under gravity, a spring on a marker and a torque
/// on a body equal the natural-coordinate run's.
#[test]
fn a_planar_arm_in_joint_coordinates_equals_its_natural_twin() {
    let (tree, joint) = run(&ARM.replace("COORDS", ""));
    let (natural, nat) = run(&ARM.replace("COORDS", "Coordinates: natural"));
    assert_eq!(tree.model.n_coords(), 2);
    assert_eq!(tree.model.coordinate_names(), ["shoulder", "elbow"]);
    assert_eq!(tree.model.n_constraints(), 0);
    assert_eq!(natural.model.n_coords(), 10);
    let mut worst = 0.0f64;
    for c in [
        "Lower.Tip.x",
        "Lower.Tip.y",
        "Lower.Tip.vx",
        "Upper.Elbow.vy",
        "Lower.i.x",
        "Lower.i.y",
        "Upper.i.vx",
        "shoulder",
        "elbow",
    ] {
        let (a, b) = (col(&joint, c), col(&nat, c));
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            worst = worst.max((x - y).abs());
        }
    }
    assert!(worst < 1e-8, "joint against natural coordinates: {worst:e}");
    let moved = col(&joint, "elbow");
    assert!(
        (moved[0] - moved[moved.len() - 1]).abs() > 0.1,
        "the arm swung"
    );
}

/// A body no joint carries floats on a planar joint (`Puck_x`, `Puck_y`, `Puck_angle`); its
/// centre of mass flies the parabola and it spins at the rate its axis was given (`Puck.i`'s
/// rate `ω k × i`), its origin off the centre of mass.
#[test]
fn a_free_planar_body_flies_a_parabola_spinning() {
    let (th0, w, c) = (0.3f64, 2.5f64, [0.2f64, 0.1f64]);
    let (vx, vy) = (2.0, 3.0);
    let text = format!(
        "Dimension: 2
PartData:
  Bodies:
    Puck: {{ mass: 2, com: [{}, {}], inertia: 0.03, position: [1, 2], orientation: {th0} }}
AppliedForces: {{ Gravity: }}
ProblemData:
  tend: 1
  velocities: {{ Puck: [{vx}, {vy}], Puck.i: [{}, {}] }}
SolverParams: {{ integrator: dop853, tol: 1e-12 }}
",
        c[0],
        c[1],
        -w * th0.sin(),
        w * th0.cos()
    );
    let (p, t) = run(&text);
    assert_eq!(
        p.model.coordinate_names(),
        ["Puck_x", "Puck_y", "Puck_angle"]
    );
    let turned = |th: f64| {
        let (s, k) = th.sin_cos();
        [k * c[0] - s * c[1], s * c[0] + k * c[1]]
    };
    let rc0 = turned(th0);
    let centre0 = [1.0 + rc0[0], 2.0 + rc0[1]];
    let vc0 = [vx - w * rc0[1], vy + w * rc0[0]];
    let (ts, xs, ys, ths) = (
        col(&t, "t"),
        col(&t, "Puck.x"),
        col(&t, "Puck.y"),
        col(&t, "Puck_angle"),
    );
    let mut worst = 0.0f64;
    for k in 0..ts.len() {
        let tt = ts[k];
        let th = th0 + w * tt;
        let rc = turned(th);
        let x = centre0[0] + vc0[0] * tt - rc[0];
        let y = centre0[1] + vc0[1] * tt - 0.5 * 9.81 * tt * tt - rc[1];
        worst = worst
            .max((xs[k] - x).abs())
            .max((ys[k] - y).abs())
            .max((ths[k] - th).abs());
    }
    assert!(worst < 1e-9, "off the closed-form flight by {worst:e}");
    assert!(ts[ts.len() - 1] > 0.999);
}

/// A slider-crank in the plane: the crank driven at 3 rad/s, the slider on a prismatic joint
/// along the ground's `x`, the loop closed by the revolute joint between rod and slider
/// (its angle a coordinate of its own, its three rows held by the index-3 machinery). The
/// slider sits at `x = r cos θ + √(l² − r² sin² θ)`.
#[test]
fn a_planar_slider_crank_closes_its_loop() {
    let (r, l) = (1.0f64, 3.0f64);
    let text = format!(
        "Dimension: 2
PartData:
  Bodies:
    Crank: {{ mass: 1, com: [0.5, 0], inertia: 0.1 }}
    Rod: {{ mass: 2, com: [1.5, 0], inertia: 1.5 }}
    Slider: {{ mass: 3, inertia: 0.1 }}
  Joints:
    crank: {{ type: revolute, bodies: [ground, Crank] }}
    wrist: {{ type: revolute, bodies: [Crank, Rod], parent: {{ at: [{r}, 0] }} }}
    slide: {{ type: prismatic, bodies: [ground, Slider], initial: {} }}
    pin: {{ type: revolute, bodies: [Rod, Slider], parent: {{ at: [{l}, 0] }} }}
  Drives:
    motor: {{ quantity: crank, motion: 3*t }}
AppliedForces: {{ Gravity: }}
ProblemData: {{ tend: 2.5 }}
SolverParams: {{ integrator: radau, tol: 1e-10 }}
",
        r + l
    );
    let (p, t) = run(&text);
    assert_eq!(p.model.n_coords(), 4, "crank, wrist, slide and pin's angle");
    let th = col(&t, "crank");
    let worst = crate::closed_chains::slider_crank_miss(&t, r, l);
    assert!(worst < 1e-8, "slider off its closed form by {worst:.3e}");
    assert!(th[th.len() - 1] > 7.0, "the crank turned past a full turn");
}

/// A torque on a planar body in joint coordinates is a number about `z` (an expression); a list
/// is refused at its place.
#[test]
fn a_planar_torque_is_a_number() {
    let text = ARM
        .replace("COORDS", "")
        .replace("0.3*sin(2*t)", "[0, 0, 1]");
    let e = spec::parse(&text, "plane.yaml").unwrap_err().to_string();
    assert!(
        e.contains("AppliedForces.Torques.Upper") && e.contains("expected an expression"),
        "{e}"
    );
}

/// A chain of `n` unit links in the plane (`dim` 2) or in space (3, the joints' axes
/// alternating between the world's z and y), its tip on a spring to a fixed point, a torque
/// of time on its last body and a force at its tip; the same file in natural coordinates
/// when `natural`.
fn deep_chain(dim: usize, n: usize, natural: bool) -> String {
    let mut s = format!("Dimension: {dim}\nPartData:\n");
    if natural {
        s += "  Coordinates: natural\n";
    }
    s += "  Bodies:\n";
    let last = n - 1;
    for i in 0..n {
        s += &match dim {
            2 => format!(
                "    L{i}: {{ mass: 1, com: [0.5, 0], inertia: 0.08, markers: {{ Tip: [1, 0] }} }}\n"
            ),
            _ => format!(
                "    L{i}: {{ mass: 1, com: [0.5, 0, 0], inertia: [0.01, 0.08, 0.08], markers: \
                 {{ Tip: [1, 0, 0] }} }}\n"
            ),
        };
    }
    s += "  Joints:\n";
    for i in 0..n {
        let parent = if i == 0 {
            "ground".into()
        } else {
            format!("L{}", i - 1)
        };
        let frames = match (dim, i) {
            (_, 0) => String::new(),
            (2, _) => ", parent: { at: [1, 0] }".into(),
            (_, _) if i % 2 == 1 => {
                ", parent: { at: [1, 0, 0], z: [0, 1, 0] }, child: { z: [0, 1, 0] }".into()
            }
            _ => ", parent: { at: [1, 0, 0] }".into(),
        };
        let q0 = if i == 0 { -1.2 } else { 0.1 };
        s += &format!(
            "    j{i}: {{ type: revolute, bodies: [{parent}, L{i}]{frames}, initial: {q0} }}\n"
        );
    }
    let (fixed, torque, force) = match dim {
        2 => ("[3, -5]", "0.5*cos(3*t)", "[0.2, -1]"),
        _ => ("[3, -5, 1]", "[0, 0.3, '0.5*cos(3*t)']", "[0.2, -1, 0.3]"),
    };
    s += &format!(
        "  Fixed: {{ O: {fixed} }}\n  Springs:\n    L{last}.Tip-O: {{ stiffness: 50, length: 1 }}\n\
         AppliedForces:\n  Gravity:\n  Torques: {{ L{last}: {torque} }}\n  Forces: {{ L{last}.Tip: {force} }}\n\
         ProblemData: {{ tend: 0.3 }}\nSolverParams: {{ integrator: dop853, tol: 1e-10 }}\n"
    );
    s
}

/// Elements on points deep in a tree — a spring at the tip of a chain of 16 links in the plane
/// and of 10 in space, a torque on its last body, a force at its tip — act along the joints
/// (before, the tip's expression of the joint coordinates grew 2.6× per joint and was refused
/// past about eight): the motion equals the natural-coordinate twin's, where each element acts
/// on its own body's coordinates.
#[test]
fn elements_deep_in_a_chain_act_as_in_natural_coordinates() {
    for (dim, n) in [(2, 16), (3, 10)] {
        let (tree, joint) = run(&deep_chain(dim, n, false));
        let (_, nat) = run(&deep_chain(dim, n, true));
        assert_eq!(tree.model.n_coords(), n);
        let tip = format!("L{}.Tip", n - 1);
        let mut worst = 0.0f64;
        for c in ["x", "y", "vx", "vy"] {
            let name = format!("{tip}.{c}");
            for (x, y) in col(&joint, &name).iter().zip(&col(&nat, &name)) {
                worst = worst.max((x - y).abs());
            }
        }
        let moved = col(&joint, &format!("{tip}.x"));
        assert!(
            (moved[0] - moved[moved.len() - 1]).abs() > 0.05,
            "the chain moved"
        );
        assert!(
            worst < 1e-7,
            "dimension {dim}: joint against natural coordinates {worst:e}"
        );
    }
}

/// Expressions on points of bodies deep in a chain — a potential and a Rayleigh function of
/// the tip of 16 links in space, columns of its last body's angular velocity, orientation and
/// tip velocity — read the points along the joints (the written-out tip was refused: "the
/// expression expands to …"), and the motion and columns equal the natural-coordinate twin's.
#[test]
fn expressions_on_points_deep_in_a_chain_equal_natural_coordinates() {
    let n = 16;
    let last = n - 1;
    let extra = format!(
        "  Potentials: {{ pull: \"2.5*dot(L{last}.Tip - O, L{last}.Tip - O)\" }}\n  \
         Dissipation: {{ drag: \"0.05*dot(L{last}.Tip', L{last}.Tip')\" }}\n"
    );
    let columns = format!(
        "Output:\n  columns:\n    - w: L{last}.omega\n    - r: norm(L{last}.Tip - O)\n    \
         - v: L{last}.Tip'\n    - ypr: euler(L{last}, ZYX)\n    - tip: L{last}.Tip\n"
    );
    let file = |natural: bool| {
        let text = deep_chain(3, n, natural)
            .replace(
                "  Springs:\n    L15.Tip-O: { stiffness: 50, length: 1 }\n",
                "",
            )
            .replace("  Forces: {", &format!("{extra}  Forces: {{"))
            .replace("tend: 0.3", "tend: 0.2");
        text + &columns
    };
    let (tree, joint) = run(&file(false));
    let (_, nat) = run(&file(true));
    assert_eq!(tree.model.n_coords(), n);
    let mut worst = 0.0f64;
    let names = [
        "w.x", "w.y", "w.z", "r", "v.x", "v.z", "ypr.1", "ypr.2", "ypr.3", "tip.x", "tip.z",
    ];
    for c in names {
        for (x, y) in col(&joint, c).iter().zip(&col(&nat, c)) {
            worst = worst.max((x - y).abs());
        }
    }
    let w = col(&joint, "w.z");
    assert!(w.iter().any(|x| x.abs() > 0.5), "the last body turns");
    assert!(worst < 1e-8, "joint against natural coordinates {worst:e}");
}

/// An element on more coordinates than an element may have is refused at its place, saying
/// why a point of a deep body brings so many and what to do.
#[test]
fn an_element_deeper_than_an_element_may_reach_is_refused_with_the_way_out() {
    let e = spec::parse(&deep_chain(2, 24, false), "deep.yaml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("PartData.Springs.L23.Tip-O")
            && e.contains("24 coordinates")
            && e.contains("Coordinates: natural"),
        "{e}"
    );
}

/// A hanging loop of `2 down + 2` unit links from the ground at the origin back to the ground
/// at `[2, 0]` (down, right, up), the last joint closing it with no `initial`.
fn hanging_loop(down: usize, natural: bool) -> String {
    let turns: Vec<f64> = std::iter::repeat_n(-std::f64::consts::FRAC_PI_2, down)
        .chain([0.0, 0.0])
        .chain(std::iter::repeat_n(std::f64::consts::FRAC_PI_2, down))
        .collect();
    let mut s = String::from("Dimension: 2\nPartData:\n");
    if natural {
        s += "  Coordinates: natural\n";
    }
    s += "  Bodies:\n";
    for i in 0..turns.len() {
        s += &format!("    L{i}: {{ mass: 1, com: [0.5, 0], inertia: 0.08 }}\n");
    }
    s += "  Joints:\n";
    let mut before = 0.0;
    for (i, a) in turns.iter().enumerate() {
        let parent = if i == 0 {
            "ground".into()
        } else {
            format!("L{}", i - 1)
        };
        let at = if i == 0 {
            ""
        } else {
            ", parent: { at: [1, 0] }"
        };
        s += &format!(
            "    j{i}: {{ type: revolute, bodies: [{parent}, L{i}]{at}, initial: {} }}\n",
            a - before
        );
        before = *a;
    }
    s += &format!(
        "    close: {{ type: revolute, bodies: [ground, L{}], parent: {{ at: [2, 0] }}, child: \
         {{ at: [1, 0] }} }}\nAppliedForces: {{ Gravity: }}\nProblemData: {{ tend: 0.5 }}\n\
         SolverParams: {{ integrator: radau, tol: 1e-9 }}\n",
        turns.len() - 1
    );
    s
}

/// A loop closed by a joint whose coordinate the file does not give starts where the bodies'
/// frames put it, in joint and in natural coordinates (natural coordinates took 0 and the
/// start moved the whole loop by 3.9 to meet it); the two swing alike.
#[test]
fn a_loop_closing_joint_starts_where_its_bodies_are() {
    let (_, joint) = run(&hanging_loop(3, false));
    let (_, nat) = run(&hanging_loop(3, true));
    // the bottom links start where the file puts them: L3 at (0, -3), L4 at (1, -3)
    for t in [&joint, &nat] {
        assert!((col(t, "L3.x")[0]).abs() < 1e-12 && (col(t, "L3.y")[0] + 3.0).abs() < 1e-12);
        assert!((col(t, "L4.x")[0] - 1.0).abs() < 1e-12);
        assert!((col(t, "close")[0] - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    }
    let mut worst = 0.0f64;
    for c in ["L3.x", "L3.y", "L4.vx", "L7.y"] {
        for (x, y) in col(&joint, c).iter().zip(&col(&nat, c)) {
            worst = worst.max((x - y).abs());
        }
    }
    assert!(worst < 1e-7, "joint against natural coordinates: {worst:e}");
    let y = col(&joint, "L3.y");
    assert!((y[0] - y[y.len() - 1]).abs() > 1e-3, "the loop swung");
}
