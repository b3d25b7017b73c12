//! Columns of the user's own (`Output.columns` entries `name: expression`,
//! `Problem::column_expr`, `Problem::column`): each against the value computed here from the
//! trajectory's other columns — expressions of time, points and velocities, a spring's and a
//! coordinate spring's force, a joint angle from `atan2` over many turns, a body's angular
//! velocity, quaternion and Euler angles — and the mistakes named with their place.

use lagrangian::model::columns::UserColumn;
use lagrangian::prelude::*;
use lagrangian::spec;
use std::f64::consts::PI;

use crate::common::{column as col, record as run};

/// The largest difference between two columns.
fn worst(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// The rod of tests/mechanics/joints.rs on its hinge about the world y axis, spun over the top
/// (12 rad/s at the bottom), with columns of its own.
fn spinning_rod() -> String {
    let hinge = crate::joints::REVOLUTE.replace("initial: 1.0", "initial: 0");
    crate::joints::rod(&hinge, "").replace(
        "ProblemData: { tend: 2 }",
        "ProblemData: { tend: 3, velocities: { hinge: 12 } }",
    ) + "Output:
  columns:
    - positions
    - velocities
    - angle: atan2(-Rod.Tip.x, -Rod.Tip.z)
    - w: Rod.omega
    - q: quaternion(Rod)
    - e: euler(Rod, YXZ)
    - E: euler(Rod, xyx)
    - speed: norm(Rod.Tip')
"
}

/// The rod turns about y by the hinge angle θ: R = R_y(θ). So the angle read off the tip with
/// `atan2` is θ over every turn, ω = (0, θ̇, 0), q = (cos θ/2, 0, sin θ/2, 0) on the branch that
/// starts at q = 1, the intrinsic YXZ angles (θ, 0, 0) and the extrinsic xyx ones (0, θ, 0)
/// wrapped into [0, π] of a proper sequence; the tip's speed is L|θ̇|.
#[test]
fn a_spinning_body_s_angle_rate_and_orientation() {
    let (p, plan) = spec::parse(&spinning_rod(), "rod.yaml").unwrap_or_else(|e| panic!("{e}"));
    let t = run(p, plan);
    let th = col(&t, "hinge");
    let rate = col(&t, "hinge.v");
    let turns = (th.last().unwrap() - th[0]) / (2.0 * PI);
    assert!(turns > 3.0, "the rod turns over the top: {turns} turns");
    assert!(worst(&col(&t, "angle"), &th) < 1e-9, "atan2 unwrapped");
    let zero = vec![0.0; th.len()];
    assert!(worst(&col(&t, "w.y"), &rate) < 1e-8);
    assert!(worst(&col(&t, "w.x"), &zero) < 1e-8 && worst(&col(&t, "w.z"), &zero) < 1e-8);
    let half: Vec<f64> = th.iter().map(|x| x / 2.0).collect();
    let cos: Vec<f64> = half.iter().map(|x| x.cos()).collect();
    let sin: Vec<f64> = half.iter().map(|x| x.sin()).collect();
    assert!(
        worst(&col(&t, "q.w"), &cos) < 1e-9,
        "quaternion continuous over turns"
    );
    assert!(worst(&col(&t, "q.y"), &sin) < 1e-9);
    assert!(worst(&col(&t, "q.x"), &zero) < 1e-9 && worst(&col(&t, "q.z"), &zero) < 1e-9);
    assert!(worst(&col(&t, "e.1"), &th) < 1e-9, "Euler angle over turns");
    assert!(worst(&col(&t, "e.2"), &zero) < 1e-9 && worst(&col(&t, "e.3"), &zero) < 1e-9);
    // extrinsic x, y, x: R = R_x(c) R_y(b) R_x(a) = R_y(θ) gives a = c = 0, b = |θ| mod 2π
    // as a proper sequence's middle angle in [0, π] (with a = c = π where θ mod 2π > π)
    let b = col(&t, "E.2");
    for (k, &x) in th.iter().enumerate() {
        let want = x.rem_euclid(2.0 * PI);
        let want = if want > PI { 2.0 * PI - want } else { want };
        assert!((b[k] - want).abs() < 1e-7, "row {k}: {} vs {want}", b[k]);
    }
    let speed: Vec<f64> = rate.iter().map(|w| w.abs()).collect();
    assert!(worst(&col(&t, "speed"), &speed) < 1e-8);
}

/// Rows far apart — output times half a second and a second apart, 5–12 rad of turning
/// between rows — still count every turn: the angle, the Euler angle and the quaternion's sign
/// follow every accepted step, not only the rows written.
#[test]
fn angles_between_sparse_rows_count_every_turn() {
    let (p, plan) = spec::parse(&spinning_rod(), "rod.yaml").unwrap_or_else(|e| panic!("{e}"));
    let last = *col(&run(p.clone(), plan.clone()), "hinge").last().unwrap();
    assert!(last > 6.0 * PI, "{last}");
    for dt in [0.5, 1.0] {
        let mut plan = plan.clone();
        plan.output_times = Some(lagrangian::problem::OutputTimes::Every(dt));
        let sparse = run(p.clone(), plan);
        let th = col(&sparse, "hinge");
        let apart = th
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f64::max);
        assert!(
            apart > PI + 1.0,
            "rows more than half a turn apart: {apart}"
        );
        assert!((th[th.len() - 1] - last).abs() < 1e-8);
        assert!(
            worst(&col(&sparse, "angle"), &th) < 1e-8,
            "atan2 over sparse rows"
        );
        assert!(
            worst(&col(&sparse, "e.1"), &th) < 1e-8,
            "Euler angle over sparse rows"
        );
        let cos: Vec<f64> = th.iter().map(|x| (x / 2.0).cos()).collect();
        assert!(
            worst(&col(&sparse, "q.w"), &cos) < 1e-8,
            "quaternion sign over sparse rows"
        );
    }
}

/// A particle on a damped spring to the origin and a coordinate spring–damper: the columns
/// `OA.force`, `OA.length`, `pull.force`, `pull.stretch`, an expression of time and a kinetic
/// energy written out, against the same computed from the positions and velocities.
#[test]
fn element_forces_and_expressions_of_the_state() {
    let text = "
Dimension: 2
PhysicalParams: { k: 40, l: 1, c: 0.7, m: 1.5, k2: 3, d2: 0.2 }
PartData:
  Fixed: { O: [0, 0] }
  Scalars: [u]
  Particles: { A: m }
  Masses: { u: 2 }
  Springs: { OA: [k, l, 0, c] }
  CoordinateSprings:
    pull: { coordinates: [A.x, u], stiffness: k2, damping: d2, offset: 0.5 }
AppliedForces: { Gravity: }
ProblemData: { tend: 2, positions: { A: [1.3, -0.4], u: 0.3 }, velocities: { A: [0.5, 2] } }
SolverParams: { step: 1e-3 }
Output:
  columns:
    - positions
    - velocities
    - energies
    - F: OA.force
    - len: OA.length
    - G: pull.force
    - s: pull.stretch
    - clock: t**2 + l
    - T: m/2*dot(A', A') + u'**2
";
    let (p, plan) = spec::parse(text, "spring.yaml").unwrap_or_else(|e| panic!("{e}"));
    let t = run(p, plan);
    let (x, y, vx, vy) = (
        col(&t, "A.x"),
        col(&t, "A.y"),
        col(&t, "A.vx"),
        col(&t, "A.vy"),
    );
    let (u, du, time) = (col(&t, "u"), col(&t, "u.v"), col(&t, "t"));
    let n = x.len();
    let len: Vec<f64> = (0..n).map(|k| x[k].hypot(y[k])).collect();
    let force: Vec<f64> = (0..n)
        .map(|k| 40.0 * (len[k] - 1.0) + 0.7 * (x[k] * vx[k] + y[k] * vy[k]) / len[k])
        .collect();
    let stretch: Vec<f64> = (0..n).map(|k| u[k] - x[k] - 0.5).collect();
    let pull: Vec<f64> = (0..n)
        .map(|k| 3.0 * stretch[k] + 0.2 * (du[k] - vx[k]))
        .collect();
    let clock: Vec<f64> = time.iter().map(|t| t * t + 1.0).collect();
    assert!(worst(&col(&t, "len"), &len) < 1e-12);
    assert!(worst(&col(&t, "F"), &force) < 1e-10);
    assert!(worst(&col(&t, "s"), &stretch) < 1e-12);
    assert!(worst(&col(&t, "G"), &pull) < 1e-11);
    assert!(worst(&col(&t, "clock"), &clock) < 1e-12);
    assert!(worst(&col(&t, "T"), &col(&t, "kinetic")) < 1e-10);
    let moved = force.iter().fold(0.0f64, |m, f| m.max(f.abs()));
    assert!(moved > 1.0, "the spring works: {moved}");
}

/// Columns given after the file is read (`Problem::column_expr`, as `--column` and Python's
/// `columns=` do) and Rust closures (`Problem::column`) are written like the file's own, and
/// follow a parameter change; the group `user` turns them off and on.
#[test]
fn columns_from_rust_and_after_reading() {
    let text = "
Dimension: 2
PhysicalParams: { l: 2 }
PartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: l } }
ProblemData: { tend: 0.5, positions: { A: [0, -l] }, velocities: { A: [3, 0] } }
SolverParams: { step: 1e-3 }
";
    let (p, plan) = spec::parse(text, "p.yaml").unwrap();
    let p = p
        .column_expr("theta", "atan2(A.x, -A.y)")
        .unwrap()
        .column_expr("rel", "norm(A)/l")
        .unwrap()
        .column(UserColumn::scalar("x2", |q, _v, _t| 2.0 * q[0]))
        .unwrap();
    let t = run(p.clone(), plan.clone());
    let (x, y) = (col(&t, "A.x"), col(&t, "A.y"));
    let theta: Vec<f64> = x.iter().zip(&y).map(|(x, y)| x.atan2(-y)).collect();
    assert!(worst(&col(&t, "theta"), &theta) < 1e-14);
    assert!(
        worst(
            &col(&t, "x2"),
            &x.iter().map(|x| 2.0 * x).collect::<Vec<_>>()
        ) < 1e-14
    );
    assert!(worst(&col(&t, "rel"), &vec![1.0; x.len()]) < 1e-9);
    // with l = 3 the expression takes the new value (the bar is still l long)
    let q = p.with_parameters(&[("l", 3.0)]).unwrap();
    let t = run(q, plan.clone());
    assert!(worst(&col(&t, "rel"), &vec![1.0; col(&t, "t").len()]) < 1e-9);
    assert!(t.column("x2").is_some());
    // the group `user` off
    let mut off = plan.clone();
    off.outputs.user = false;
    let t = run(p.clone(), off);
    assert!(t.column("theta").is_none() && t.column("A.x").is_some());
    // names taken, unknown names, bodies that do not exist
    let err = |r: Result<Problem, lagrangian::Error>| r.unwrap_err().to_string();
    assert!(err(p.clone().column_expr("A", "A")).contains("'A.x' is taken"));
    assert!(err(p.clone().column_expr("kinetic", "1")).contains("taken"));
    assert!(err(p.clone().column_expr("theta", "1")).contains("taken"));
    assert!(err(p.clone().column_expr("z", "B.x")).contains("undefined name 'B'"));
    assert!(err(p.clone().column_expr("a", "A''")).contains("accelerations"));
    assert!(err(p.clone().column_expr("q", "quaternion(A)")).contains("Bodies"));
    assert!(err(p.clone().column_expr("a,b", "1")).contains("cannot name a column"));
}

/// Mistakes in `Output.columns` are named with the file's line and column and the entry.
#[test]
fn column_mistakes_in_files() {
    let base = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 1 } }\n\
                ProblemData: { tend: 1, positions: { A: [1, 0] } }\nOutput:\n  columns:\n    - energies\n";
    for (entry, want) in [
        ("    - h: A.y + B.y\n", "undefined name 'B'"),
        ("    - q: euler(A, ZYX)\n", "not a body"),
        ("    - total: A.y\n", "taken"),
        ("    - h: [1, 2]\n", "expected an expression"),
        (
            "    - { a: A.x, b: A.y }\n",
            "expected a group name or a column",
        ),
        ("    - speed\n", "unknown column group 'speed'"),
    ] {
        let e = spec::parse(&format!("{base}{entry}"), "bad.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{entry}: {e}");
        assert!(e.contains("bad.yaml:7:"), "{entry}: {e}");
    }
}
