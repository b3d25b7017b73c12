//! A 3D rigid body hung from a fixed point by a spring, written with the Rust elements in a few
//! lines (natural coordinates: the world positions of three body points `A`, `B`, `C`), and the
//! same mechanism as a YAML file. Both are `Problem`s run through the same `Simulation`; the
//! trajectories agree to round-off (the YAML spring uses its hand kernel, the Rust one AD), the
//! body stays rigid, and with `ρ∞ = 0.95` (little numerical dissipation) the energy is conserved to the
//! scheme's accuracy.

use lagrangian::model::elements::{Frame, LocalPoint, Points, RigidBody3, SpringBetween};
use lagrangian::prelude::*;
use lagrangian::spec;

/// The mechanism in Rust: the whole of what a user writes.
fn rust_problem() -> Result<Problem, Error> {
    let g = [0.0, 0.0, -9.81];
    let inertia = [[0.5, 0.0, 0.0], [0.0, 0.4, 0.0], [0.0, 0.0, 0.3]];
    let frame = Frame::points(1.0, [0.0, 1.0]); // B = (1, 0, 0), C = (0, 1, 0) in the body
    let body = RigidBody3::new(Points::plain(3, 3), frame, 2.0, [0.2, 0.3, 0.1], inertia, g)?;
    let hook = vec![LocalPoint::fixed([0.0, 0.0, 2.0]), LocalPoint::coords(0, 3)];
    let (stiffness, rest_length) = (200.0, 0.5);
    let spring = SpringBetween {
        ends: Points::new(3, hook),
        stiffness,
        rest_length,
        mass: 0.0,
        damping: 0.0,
        gravity: g,
    };
    let all: [usize; 9] = std::array::from_fn(|i| i);
    let model = Model::builder(9)
        .term(all, body.clone())
        .constraint("rigid body", all, body.rigidity())
        .term([0, 1, 2], spring)
        .build()?;
    // A at (0, 0, 1) moving along x, the body spinning at 1 rad/s about z
    let q = [0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0];
    let v = [0.3, 0.0, 0.0, 0.3, 1.0, 0.0, -0.7, 0.0, 0.0];
    Ok(Problem::new(model).guess(&q, &v).t_end(1.0))
}

const YAML: &str = "\
Title: body on a spring
Dimension: 3
PartData:
  Fixed: { T: [0, 0, 2] }
  Rigids:
    ABC:
      Geom: [[1, 0, 0], [0, 1, 0]]
      Dyna: [[0.2, 0.3, 0.1], 2, [0.5, 0.4, 0.3]]
  Springs: { T-A: [200, 0.5] }
AppliedForces:
  Gravity: 9.81
ProblemData:
  tend: 1
  positions: { A: [0, 0, 1], B: [1, 0, 1], C: [0, 1, 1] }
  velocities: { A: [0.3, 0, 0], B: [0.3, 1, 0], C: [-0.7, 0, 0] }
";

fn method() -> GenAlphaOptions {
    GenAlphaOptions::new(1e-3).rho_inf(0.95)
}

#[test]
fn rust_elements_and_yaml_give_the_same_rigid_body_motion() {
    let rust = simulate(&rust_problem().unwrap(), method()).unwrap();
    let (yaml_problem, _) = spec::parse(YAML, "body.yaml").unwrap();
    assert_eq!(yaml_problem.model.n_coords(), 9);
    assert_eq!(yaml_problem.model.n_constraints(), 3);
    let yaml = simulate(&yaml_problem, method()).unwrap();
    assert_eq!(rust.records.len(), yaml.records.len());
    let mut worst = 0.0f64;
    for (a, b) in rust.records.iter().zip(&yaml.records) {
        for (x, y) in a.state.q.iter().zip(&b.state.q) {
            worst = worst.max((x - y).abs());
        }
    }
    println!("max |Δq| Rust vs YAML over 1 s: {worst:.2e}");
    assert!(worst < 1e-10, "trajectories differ by {worst:e}");
    // the body moved: it turned and the spring swung it
    let (q0, q1) = (&rust.records[0].state.q, &rust.last().state.q);
    let moved = q0
        .iter()
        .zip(q1)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(moved > 0.3, "moved only {moved}");
}

#[test]
fn rust_rigid_body_stays_rigid_and_conserves_energy() {
    let sol = simulate(&rust_problem().unwrap(), method()).unwrap();
    let e0 = sol.records[0].energy;
    let drift = sol
        .records
        .iter()
        .map(|r| (r.energy - e0).abs())
        .fold(0.0, f64::max);
    println!(
        "energy {e0:.6}, max drift {drift:.2e}, max |C| {:.2e}",
        sol.max_constraint()
    );
    assert!(sol.max_constraint() < 1e-10);
    assert!(drift < 1e-4 * e0.abs().max(1.0), "energy drift {drift:e}");
}
