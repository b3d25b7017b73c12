//! Bodies on joints in joint coordinates (`lagrangian::multibody`): the PUMA 560's torques by
//! the tree's Newton–Euler recursion against an independent one; the free arm falling as the
//! same arm in natural coordinates does; a free body keeping its energy and angular momentum
//! and a heavy top its energy, on every integrator, with the quaternions held at unit length.

use super::joints::{COM, DH, INERTIA, MASS, rne};
use lagrangian::multibody::{Joint, RigidBody, Tree, Workspace, quat_rotation};
use lagrangian::prelude::*;
use lagrangian::spec;

/// The PUMA 560 of `mechanisms/puma560.yaml` as a tree: standard DH, link `i`'s frame DH
/// frame `i`.
pub(crate) fn puma() -> Arc<Tree> {
    let mut tree = Tree::new([0.0, 0.0, -9.81]);
    let mut parent = None;
    for i in 0..6 {
        let (d, a, alpha) = DH[i];
        let body = RigidBody::new(MASS[i], INERTIA[i]).com(COM[i]);
        let joint = Joint::revolute().dh([d, a, alpha]);
        let name = format!("q{}", i + 1);
        parent = Some(
            tree.add(&format!("Link{}", i + 1), parent, &name, joint, body)
                .unwrap(),
        );
    }
    Arc::new(tree)
}

/// Inverse dynamics of a fully driven tree is one recursion per instant: the tree's RNEA
/// equals the independent Newton–Euler of tests/mechanics/joints.rs (Luh, Walker & Paul, in
/// DH link frames) to round-off along the bundled motion.
#[test]
fn puma560_tree_torques_equal_recursive_newton_euler() {
    let tree = puma();
    assert_eq!(
        tree.coordinate_names(),
        ["q1", "q2", "q3", "q4", "q5", "q6"]
    );
    let mut ws = Workspace::new(&tree);
    let mut worst = 0.0f64;
    for row in 0..=400 {
        let s = row as f64 * 0.005;
        let arg = |i: usize| 1.5 * s + 0.7 * (i + 1) as f64;
        let q: [f64; 6] = std::array::from_fn(|i| 0.4 * arg(i).sin());
        let qd: [f64; 6] = std::array::from_fn(|i| 0.6 * arg(i).cos());
        let qdd: [f64; 6] = std::array::from_fn(|i| -0.9 * arg(i).sin());
        let reference = rne(q, qd, qdd);
        let mut tau = [0.0; 6];
        tree.rnea(&mut ws, &q, &qd, &qdd, &mut tau);
        let size = reference.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for k in 0..6 {
            worst = worst.max((tau[k] - reference[k]).abs() / size);
        }
    }
    println!("PUMA 560 tree RNEA vs independent RNE: {worst:.2e} of the largest torque");
    assert!(worst < 1e-13, "{worst:e}");
}

/// The arm let go at the bundled start: its joint angles after 0.5 s in joint coordinates
/// (6 coordinates, no constraints) and in natural coordinates (60 coordinates, 54
/// constraints), both by DOP853 at 1e-11.
#[test]
fn puma560_falls_in_joint_coordinates_as_in_natural_coordinates() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/mechanisms/puma560.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let cut = text.find("  Drives:").unwrap();
    let rest = text.find("AppliedForces:").unwrap();
    let free = format!("{}{}", &text[..cut], &text[rest..]).replace("tend: 2", "tend: 0.5");
    let (natural, _) = spec::parse(&free, "puma_free.yaml").unwrap();
    let natural = simulate(&natural, Dop853Options::new(1e-11)).unwrap();
    let names = natural_names(&free);
    let tree = puma();
    let q0: Vec<f64> = (1..=6).map(|i| 0.4 * (0.7 * i as f64).sin()).collect();
    let problem = Problem::new(tree.model().unwrap())
        .guess(&q0, &[0.0; 6])
        .t_end(0.5);
    let joint = simulate(&problem, Dop853Options::new(1e-11)).unwrap();
    let (a, b) = (&natural.last().state, &joint.last().state);
    assert!((a.t - 0.5).abs() < 1e-12 && (b.t - 0.5).abs() < 1e-12);
    let mut worst = 0.0f64;
    for (k, &i) in names.iter().enumerate() {
        worst = worst.max((a.q[i] - b.q[k]).abs());
    }
    let moved = (0..6).map(|k| (b.q[k] - q0[k]).abs()).fold(0.0, f64::max);
    println!(
        "PUMA 560 falling 0.5 s: joint vs natural coordinates {worst:.2e} rad (moved {moved:.2}); \
         steps {} vs {}",
        joint.stats.steps, natural.stats.steps
    );
    assert!(moved > 0.1, "{moved}");
    assert!(worst < 1e-7, "{worst:e}");
    let e = |s: &Solution| (s.records[0].energy, s.last().energy);
    let (e0, e1) = e(&joint);
    assert!((e1 - e0).abs() < 1e-8 * e0.abs().max(1.0), "{e0} → {e1}");
    let (n0, _) = e(&natural);
    assert!(
        (n0 - e0).abs() < 1e-9 * e0.abs().max(1.0),
        "energies {n0} vs {e0}"
    );
}

/// The positions of the joint angles q1 … q6 among the natural model's coordinates.
fn natural_names(text: &str) -> Vec<usize> {
    let (p, _) = spec::parse(text, "puma_free.yaml").unwrap();
    let names = p.model.coordinate_names();
    (1..=6)
        .map(|i| names.iter().position(|n| n == &format!("q{i}")).unwrap())
        .collect()
}

/// `ω` in the body from a quaternion and its rate: `2 G(q) q̇ / |q|²`.
fn omega(q: &[f64], qd: &[f64]) -> [f64; 3] {
    let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
    let g = [[-x, w, z, -y], [-y, -z, w, x], [-z, y, -x, w]];
    let s = 2.0 / (w * w + x * x + y * y + z * z);
    g.map(|r| s * (r[0] * qd[0] + r[1] * qd[1] + r[2] * qd[2] + r[3] * qd[3]))
}

/// A tennis racket on a free joint, no gravity, spun about its intermediate axis with a
/// small wobble, so it flips (Dzhanibekov): kinetic energy, the world angular momentum
/// `R I ω` and the quaternion's length kept; the centre moves on its line.
#[test]
fn free_body_keeps_energy_and_angular_momentum_through_its_flips() {
    let inertia = [0.1, 0.5, 0.45];
    let mut tree = Tree::new([0.0; 3]);
    tree.add(
        "Racket",
        None,
        "free",
        Joint::free(),
        RigidBody::new(2.0, inertia),
    )
    .unwrap();
    let tree = Arc::new(tree);
    assert_eq!(tree.n_coords(), 7);
    // the intermediate axis is z (0.1 < 0.45 < 0.5)
    let w0 = [0.01, 0.02, 6.0];
    // q̇ = ½ q ⊗ (0, ω) at q = (1, 0, 0, 0)
    let q = [0.1, 0.0, 0.3, 1.0, 0.0, 0.0, 0.0];
    let v = [0.5, 0.0, 0.0, 0.0, w0[0] / 2.0, w0[1] / 2.0, w0[2] / 2.0];
    let problem = Problem::new(tree.model().unwrap()).guess(&q, &v).t_end(4.0);
    let sol = simulate(&problem, Dop853Options::new(1e-11)).unwrap();
    let momentum = |s: &State| {
        let w = omega(&s.q[3..7], &s.v[3..7]);
        let r = quat_rotation(&s.q[3..7]);
        let iw = [0, 1, 2].map(|k| inertia[k] * w[k]);
        [0, 1, 2].map(|k| r[k][0] * iw[0] + r[k][1] * iw[1] + r[k][2] * iw[2])
    };
    let h0 = momentum(&sol.records[0].state);
    let e0 = sol.records[0].energy;
    let (mut dh, mut de, mut flipped) = (0.0f64, 0.0f64, false);
    for r in &sol.records {
        let h = momentum(&r.state);
        dh = dh.max((0..3).map(|k| (h[k] - h0[k]).abs()).fold(0.0, f64::max));
        de = de.max((r.energy - e0).abs());
        let w = omega(&r.state.q[3..7], &r.state.v[3..7]);
        flipped |= w[2] < -5.0;
        assert!(r.max_constraint < 1e-9, "|q| off by {:e}", r.max_constraint);
    }
    let end = &sol.last().state;
    println!(
        "free racket 4 s: |ΔL| {dh:.1e}, |ΔE| {de:.1e}, steps {}",
        sol.stats.steps
    );
    assert!(flipped, "the racket never flipped");
    assert!(dh < 1e-8 * 3.0 && de < 1e-8 * e0, "{dh:e} {de:e}");
    assert!((end.q[0] - (0.1 + 0.5 * 4.0)).abs() < 1e-9 && (end.q[2] - 0.3).abs() < 1e-12);
}

/// A heavy symmetric top on a spherical joint, tilted and spinning: every integrator of
/// constrained mechanisms (RK4 takes none: the quaternion's length is a constraint) keeps its
/// energy and the quaternion's length and agrees with DOP853 at 1e-12.
#[test]
fn heavy_top_on_a_spherical_joint_runs_on_every_method() {
    let mut tree = Tree::new([0.0, 0.0, -9.81]);
    let top = RigidBody::new(1.0, [0.02, 0.02, 0.03]).com([0.0, 0.0, 0.1]);
    tree.add("Top", None, "ball", Joint::spherical(), top)
        .unwrap();
    let tree = Arc::new(tree);
    // tilted by 0.3 rad about x, spinning at 40 rad/s about its axis
    let (s, c) = (0.15f64.sin(), 0.15f64.cos());
    let q = [c, s, 0.0, 0.0];
    let w = [0.0, 0.0, 40.0];
    // q̇ = ½ q ⊗ (0, ω)
    let v = [
        -0.5 * (q[1] * w[0] + q[2] * w[1] + q[3] * w[2]),
        0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1]),
        0.5 * (q[0] * w[1] + q[3] * w[0] - q[1] * w[2]),
        0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0]),
    ];
    let problem = Problem::new(tree.model().unwrap()).guess(&q, &v).t_end(0.5);
    let reference = simulate(&problem, Dop853Options::new(1e-12)).unwrap();
    let end = reference.last().state.clone();
    let methods: Vec<(&str, RunPlan, f64)> = vec![
        ("generalized-α", GenAlphaOptions::new(1e-4).into(), 1e-3),
        ("Radau IIA", RadauOptions::new(1e-9).into(), 1e-6),
        ("Taylor", TaylorOptions::new(1e-10, 16).into(), 1e-7),
    ];
    for (name, plan, tol) in methods {
        let sol = simulate(&problem, plan).unwrap();
        let last = &sol.last().state;
        let dq = (0..4)
            .map(|k| (last.q[k] - end.q[k]).abs())
            .fold(0.0, f64::max);
        let e0 = sol.records[0].energy;
        let de = (sol.last().energy - e0).abs();
        let c = sol.max_constraint();
        println!("heavy top, {name}: |Δq| {dq:.1e}, |ΔE| {de:.1e}, |C| {c:.1e}");
        assert!(dq < tol, "{name}: {dq:e}");
        assert!(de < 10.0 * tol * e0.abs(), "{name}: energy {de:e}");
        assert!(c < 1e-8, "{name}: |q| off by {c:e}");
    }
}

/// The exact linearization of a tree (`analysis`, through the tree's RNEA Jacobians): a double
/// pendulum of two point masses on revolute joints hanging at rest has the closed-form
/// frequencies `det(K − ω² M) = 0` with `M`, `K` of the angles.
#[test]
fn double_pendulum_tree_modes_match_the_closed_form() {
    use lagrangian::analysis::Linearization;
    use lagrangian::multibody::{frame, spatial::Pose};
    let (m1, m2, l1, l2, g) = (1.0f64, 0.6, 1.0, 0.7, 9.81);
    let mut tree = Tree::new([0.0, 0.0, -g]);
    // hinges about the world's y with the frames' x along the world's z: the bobs along each
    // link's −x hang below at zero
    let hinge = frame("hinge", [0.0; 3], [0.0, 1.0, 0.0], Some([0.0, 0.0, 1.0])).unwrap();
    let upper = RigidBody::new(m1, [0.0; 3]).com([-l1, 0.0, 0.0]);
    let a = tree.add(
        "Upper",
        None,
        "th1",
        Joint::revolute().parent_frame(hinge),
        upper,
    );
    let elbow = Pose {
        r: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        p: [-l1, 0.0, 0.0],
    };
    let lower = RigidBody::new(m2, [0.0; 3]).com([-l2, 0.0, 0.0]);
    tree.add(
        "Lower",
        Some(a.unwrap()),
        "th2",
        Joint::revolute().parent_frame(elbow),
        lower,
    )
    .unwrap();
    let tree = Arc::new(tree);
    let (low, _) = tree.body_point(1, [-l2, 0.0, 0.0], &[0.0, 0.0], &[0.0, 0.0]);
    assert!(
        (low[2] + l1 + l2).abs() < 1e-12 && low[0].abs() < 1e-12,
        "{low:?}"
    );
    let problem = Problem::new(tree.model().unwrap()).guess(&[0.0, 0.0], &[0.0, 0.0]);
    let modes = Linearization::at_rest(&problem, &[0.0, 0.0])
        .unwrap()
        .modes()
        .unwrap();
    crate::modes::check_double_pendulum(&modes, m1, m2, l1, l2, g);
}

/// A chain of `n` revolute links (rods of 1 kg and 0.1 m about parallel horizontal axes).
fn chain(n: usize) -> Arc<Tree> {
    let mut tree = Tree::new([0.0, 0.0, -9.81]);
    let mut parent = None;
    for i in 0..n {
        let mut at =
            lagrangian::multibody::frame("hinge", [0.0; 3], [0.0, 1.0, 0.0], None).unwrap();
        if i > 0 {
            at.p = [0.1, 0.0, 0.0];
        }
        let joint = Joint::revolute().parent_frame(at);
        let body = RigidBody::new(1.0, [1e-5, 1e-3, 1e-3]).com([0.05, 0.0, 0.0]);
        parent = Some(
            tree.add(&format!("L{i}"), parent, &format!("j{i}"), joint, body)
                .unwrap(),
        );
    }
    Arc::new(tree)
}

/// A 700-link chain released straight out: its bias torques near the pivot are sums of
/// 10⁵ N·m that cancel, and formed apart from the articulated-body recursion their rounding,
/// divided by the chain's ill-conditioned `M`, put noise of 1e-8 into `q̈` — DOP853 at 1e-8
/// stalled at t = 5e-4 with steps of 1e-8 s. With gravity and velocity terms inside the
/// recursion it runs in tens of steps, conserving energy and agreeing with a tighter run.
#[test]
fn a_long_chain_falls_at_a_tight_tolerance() {
    let tree = chain(700);
    let n = tree.n_coords();
    let problem = Problem::new(tree.model().unwrap())
        .guess(&vec![0.0; n], &vec![0.0; n])
        .t_end(0.02);
    let run = |tol: f64| simulate(&problem, Dop853Options::new(tol)).unwrap();
    let (a, b) = (run(1e-8), run(1e-11));
    let e0 = a.records[0].energy;
    let drift = (a.records.iter())
        .map(|r| (r.energy - e0).abs())
        .fold(0.0, f64::max);
    let (qa, qb) = (&a.last().state.q, &b.last().state.q);
    let off = (0..n).map(|i| (qa[i] - qb[i]).abs()).fold(0.0, f64::max);
    println!(
        "700-link chain to 0.02 s: {} and {} steps, energy drift {drift:.1e}, q off {off:.1e}",
        a.stats.steps, b.stats.steps
    );
    assert!(a.stats.steps < 100, "{} steps", a.stats.steps);
    assert!(drift < 1e-8 * 2.4e4, "{drift:e}");
    assert!(off < 1e-7, "{off:e}");
}
