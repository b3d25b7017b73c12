//! Robot arms in joint coordinates (`lagrangian::multibody`): figures for benches/README.md.
//!
//! ```text
//! cargo run --release --example joint_space                 # all, one JSON line each
//! cargo run --release --example joint_space -- inverse      # PUMA 560 inverse dynamics per instant
//! cargo run --release --example joint_space -- fall 1e-10   # the free PUMA 560, 5 s from rest
//! cargo run --release --example joint_space -- chain 100    # a chain of revolute links, 1 s
//! cargo run --release --example joint_space -- chain 1000 0.1 genalpha   # 0.1 s, gen.-α h = 1e-3
//! TOL=1e-6 cargo run --release --example joint_space -- chain 1000 0.4   # DOP853 at 1e-6
//! cargo run --release --example joint_space -- setup 2000   # a chain's model and start, no run
//! cargo run --release --example joint_space -- gravity      # the PUMA's gravity torques at the start
//! ```
//!
//! `benches/joint_space_peers.py` runs these against Pinocchio and MuJoCo.

use lagrangian::multibody::{Joint, RigidBody, Tree, Workspace};
use lagrangian::prelude::*;
use std::f64::consts::PI;
use std::time::Instant;

/// The PUMA 560 of mechanisms/puma560.yaml (standard DH, Corke's parameters).
fn puma() -> Arc<Tree> {
    let dh = [
        (0.0, 0.0, PI / 2.0),
        (0.0, 0.4318, 0.0),
        (0.15005, 0.0203, -PI / 2.0),
        (0.4318, 0.0, PI / 2.0),
        (0.0, 0.0, -PI / 2.0),
        (0.0, 0.0, 0.0),
    ];
    let mass = [2.0, 17.4, 4.8, 0.82, 0.34, 0.09];
    let com = [
        [0.0, 0.0, 0.0],
        [-0.3638, 0.006, 0.2275],
        [-0.0203, -0.0141, 0.070],
        [0.0, 0.019, 0.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.032],
    ];
    let inertia = [
        [0.18, 0.35, 0.18],
        [0.13, 0.524, 0.539],
        [0.066, 0.075, 0.0125],
        [1.8e-3, 1.3e-3, 1.8e-3],
        [0.3e-3, 0.4e-3, 0.3e-3],
        [0.15e-3, 0.15e-3, 0.04e-3],
    ];
    let mut tree = Tree::new([0.0, 0.0, -9.81]);
    let mut parent = None;
    for i in 0..6 {
        let (d, a, alpha) = dh[i];
        let body = RigidBody::new(mass[i], inertia[i]).com(com[i]);
        let joint = Joint::revolute().dh([d, a, alpha]);
        let name = format!("q{}", i + 1);
        let link = format!("Link{}", i + 1);
        parent = Some(tree.add(&link, parent, &name, joint, body).expect("valid"));
    }
    Arc::new(tree)
}

/// Inverse dynamics along the bundled motion: the seconds per instant.
fn inverse() {
    let tree = puma();
    let mut ws = Workspace::new(&tree);
    let mut tau = [0.0; 6];
    let instants = 200_000;
    let start = Instant::now();
    let mut sum = 0.0;
    for row in 0..instants {
        let s = row as f64 * 1e-5;
        let arg = |i: usize| 1.5 * s + 0.7 * (i + 1) as f64;
        let q: [f64; 6] = std::array::from_fn(|i| 0.4 * arg(i).sin());
        let qd: [f64; 6] = std::array::from_fn(|i| 0.6 * arg(i).cos());
        let qdd: [f64; 6] = std::array::from_fn(|i| -0.9 * arg(i).sin());
        tree.rnea(&mut ws, &q, &qd, &qdd, &mut tau);
        sum += tau[1];
    }
    let per = start.elapsed().as_secs_f64() / instants as f64;
    println!(
        "{{\"case\": \"puma560_inverse\", \"seconds_per_instant\": {per:.3e}, \"check\": {sum:.6e}}}"
    );
}

/// The free PUMA 560 from the bundled start at rest, 5 s, DOP853 at `tol`.
fn fall(tol: f64) {
    let tree = puma();
    let q0: Vec<f64> = (1..=6).map(|i| 0.4 * (0.7 * i as f64).sin()).collect();
    let problem = Problem::new(tree.model().expect("model"))
        .guess(&q0, &[0.0; 6])
        .t_end(5.0);
    let start = Instant::now();
    let sol = simulate(&problem, Dop853Options::new(tol)).expect("run");
    let secs = start.elapsed().as_secs_f64();
    let q = &sol.last().state.q;
    println!(
        "{{\"case\": \"puma560_fall\", \"tol\": {tol:e}, \"seconds\": {secs:.4}, \"steps\": {}, \"q\": {:?}}}",
        sol.stats.steps, q
    );
}

/// A chain of `n` revolute links (rods of 1 kg, 0.1 m along their `x`, about parallel
/// horizontal axes) started straight out horizontally, falling 1 s: DOP853 at 1e-8.
fn chain_tree(n: usize) -> Arc<Tree> {
    let mut tree = Tree::new([0.0, 0.0, -9.81]);
    let mut parent = None;
    let axis =
        lagrangian::multibody::frame("hinge", [0.0; 3], [0.0, 1.0, 0.0], Some([1.0, 0.0, 0.0]))
            .expect("axis");
    for i in 0..n {
        let mut at = axis;
        if i > 0 {
            at.p = [0.1, 0.0, 0.0];
            at.r = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        }
        let joint = Joint::revolute().parent_frame(at);
        let body = RigidBody::new(1.0, [1e-5, 1e-3, 1e-3]).com([0.05, 0.0, 0.0]);
        parent = Some(
            tree.add(&format!("L{i}"), parent, &format!("j{i}"), joint, body)
                .expect("valid"),
        );
    }
    Arc::new(tree)
}

/// The chain of `n` links falling for `t_end` by `method` (DOP853 at 1e-8 or generalized-α
/// at a fixed step of 1e-3): the seconds per step.
fn chain(n: usize, t_end: f64, method: &str) {
    let tol: f64 = std::env::var("TOL").map_or(1e-8, |s| s.parse().expect("TOL"));
    let tree = chain_tree(n);
    let q0 = vec![0.0; n];
    let problem = Problem::new(tree.model().expect("model"))
        .guess(&q0, &vec![0.0; n])
        .t_end(t_end);
    let plan = match method {
        "genalpha" => RunPlan::new(GenAlphaOptions::new(1e-3)),
        _ => RunPlan::new(Dop853Options::new(tol)),
    };
    let start = Instant::now();
    let sol = simulate(&problem, plan).expect("run");
    let secs = start.elapsed().as_secs_f64();
    let steps = sol.stats.steps.max(1);
    println!(
        "{{\"case\": \"chain\", \"method\": \"{method}\", \"links\": {n}, \"t_end\": {t_end}, \"seconds\": {secs:.4}, \"steps\": {}, \"seconds_per_step\": {:.3e}}}",
        sol.stats.steps,
        secs / steps as f64
    );
}

fn setup(n: usize) {
    let start = Instant::now();
    let tree = chain_tree(n);
    let problem = Problem::new(tree.model().expect("model"))
        .guess(&vec![0.0; n], &vec![0.0; n])
        .t_end(1e-6);
    let sim = Simulation::new(problem, Dop853Options::new(1e-8)).expect("start");
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{{\"case\": \"setup\", \"links\": {n}, \"seconds\": {secs:.4}, \"t\": {}}}",
        sim.state().t
    );
}

/// The gravity torques at the bundled start (to check a peer's model before timing it).
fn gravity() {
    let tree = puma();
    let mut ws = Workspace::new(&tree);
    let q: Vec<f64> = (1..=6).map(|i| 0.4 * (0.7 * i as f64).sin()).collect();
    let mut tau = [0.0; 6];
    tree.rnea(&mut ws, &q, &[0.0; 6], &[0.0; 6], &mut tau);
    println!("{{\"case\": \"puma560_gravity\", \"q\": {q:?}, \"tau\": {tau:?}}}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |k: usize| args.get(k).map(String::as_str);
    match arg(0) {
        Some("inverse") => inverse(),
        Some("gravity") => gravity(),
        Some("fall") => fall(arg(1).map_or(1e-10, |s| s.parse().expect("tol"))),
        Some("chain") => chain(
            arg(1).map_or(100, |s| s.parse().expect("links")),
            arg(2).map_or(1.0, |s| s.parse().expect("t_end")),
            arg(3).unwrap_or("dop853"),
        ),
        Some("setup") => setup(arg(1).map_or(2000, |s| s.parse().expect("links"))),
        _ => {
            inverse();
            for tol in [1e-6, 1e-8, 1e-10, 1e-12] {
                fall(tol);
            }
            for n in [10, 100] {
                chain(n, 1.0, "dop853");
            }
            for n in [10, 100, 1000] {
                chain(n, 0.02, "dop853");
                chain(n, 0.1, "genalpha");
            }
            setup(2000);
        }
    }
}
