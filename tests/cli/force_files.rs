//! Forces that depend on positions and velocities in mechanism files (`AppliedForces.Forces`):
//! a force at a point written with positions, drag written as a vector expression, a Lorentz
//! force, generalized forces along scalars, components and `Define`d angles — each against a
//! hand-written Rust model or a closed form — and mistakes reported with their place.

use crate::common;
use lagrangian::prelude::*;

/// The force laws written in Rust.
#[derive(Clone, Copy)]
enum Law {
    /// `F = −k q`.
    Spring(f64),
    /// `F = −c |v| v`.
    Drag(f64),
}

/// A particle of mass `m` in the plane under gravity `g` (downwards) and a force law.
struct Pushed {
    m: f64,
    g: f64,
    law: Law,
}

impl Term<2> for Pushed {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> D {
        (v[0] * v[0] + v[1] * v[1]) * (0.5 * self.m)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        q[1] * (self.m * self.g)
    }
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> SVector<D, 2> {
        match self.law {
            Law::Spring(k) => q * D::from(-k),
            Law::Drag(c) => v * ((v[0] * v[0] + v[1] * v[1]).sqrt() * (-c)),
        }
    }
}

/// The file's run and the same particle written in Rust, started alike.
fn file_and_rust(file: &str, law: Law, g: f64) -> (Solution, Solution) {
    let (problem, plan) = lagrangian::spec::parse(file, "force.yaml").unwrap();
    let from_file = simulate(&problem, plan.method.clone()).unwrap();
    let model = Model::builder(2)
        .term([0, 1], Pushed { m: 2.0, g, law })
        .build()
        .unwrap();
    let rust = Problem::new(model)
        .guess(&[1.0, 0.5], &[0.5, 2.0])
        .pin_q([0, 1])
        .pin_v([0, 1])
        .t_end(3.0);
    let by_hand = simulate(&rust, GenAlphaOptions::new(1e-3)).unwrap();
    (from_file, by_hand)
}

const START: &str = "ProblemData: { tend: 3, positions: { A: [1, 0.5] }, velocities: { A: [0.5, 2] } }\n\
                     SolverParams: { step: 1e-3 }\n";

#[test]
fn a_force_written_with_positions_moves_as_the_same_force_in_rust() {
    let file = format!(
        "Dimension: 2\nPhysicalParams: {{ k: 8 }}\nPartData:\n  Particles: {{ A: 2 }}\n\
         AppliedForces:\n  Forces:\n    A: [-k*A.x, -k*A.y]\n{START}"
    );
    let (f, r) = file_and_rust(&file, Law::Spring(8.0), 0.0);
    let w = common::max_state_difference(&f, &r);
    eprintln!("F = -k A, file vs Rust over 3,000 steps: {w:.1e}");
    assert!(w < 1e-12, "{w:e}");
    // and the harmonic closed form x = x₀ cos ωt + v₀/ω sin ωt, ω = 2, to the scheme's error
    let t = f.last().state.t;
    let x = (2.0 * t).cos() + 0.25 * (2.0 * t).sin();
    assert!((f.last().state.q[0] - x).abs() < 1e-4);
}

#[test]
fn drag_written_as_a_vector_expression_moves_as_the_same_drag_in_rust() {
    let file = format!(
        "Dimension: 2\nPhysicalParams: {{ c: 0.3 }}\nPartData:\n  Particles: {{ A: 2 }}\n\
         AppliedForces:\n  Gravity: 9.81\n  Forces:\n    A: -c*norm(A')*A'\n{START}"
    );
    let (f, r) = file_and_rust(&file, Law::Drag(0.3), 9.81);
    let w = common::max_state_difference(&f, &r);
    eprintln!("F = -c|A'|A', file vs Rust over 3,000 steps: {w:.1e}");
    assert!(w < 1e-12, "{w:e}");
    // the energy falls by the work of the drag
    assert!(f.last().energy < f.records[0].energy - 1.0);
}

#[test]
fn a_lorentz_force_turns_a_charge_on_a_circle_and_does_no_work() {
    // m v̇ = e v × b with b = B ẑ: a circle of radius m v/(e B) in the period 2π m/(e B)
    let (m, e, bz, v0) = (2.0f64, 0.5f64, 4.0f64, 3.0f64);
    let period = 2.0 * std::f64::consts::PI * m / (e * bz);
    let file = format!(
        "Dimension: 3\nPhysicalParams: {{ e: {e}, B: {bz} }}\nPartData:\n  Particles: {{ A: {m} }}\n  \
         FixedVectors: {{ b: [0, 0, B] }}\n\
         AppliedForces:\n  Forces:\n    A: e*cross(A', b)\n\
         ProblemData: {{ tend: {period}, positions: {{ A: [0, 0, 0] }}, velocities: {{ A: [{v0}, 0, 0.25] }} }}\n\
         SolverParams: {{ tol: 1e-9 }}\n"
    );
    let (problem, plan) = lagrangian::spec::parse(&file, "lorentz.yaml").unwrap();
    let sol = simulate(&problem, plan.method.clone()).unwrap();
    let radius = m * v0 / (e * bz);
    let mut off_circle = 0.0f64;
    for r in &sol.records {
        // centre (0, −radius): the charge starts at the origin moving along +x, turned to −y
        let (x, y) = (r.state.q[0], r.state.q[1]);
        off_circle = off_circle.max(((x * x + (y + radius).powi(2)).sqrt() - radius).abs());
        assert!((r.energy - sol.records[0].energy).abs() < 1e-6 * sol.records[0].energy);
    }
    let end = &sol.last().state;
    eprintln!(
        "Lorentz: off the circle {off_circle:.1e}, after one period ({:.3e}, {:.3e}, {:.6})",
        end.q[0], end.q[1], end.q[2]
    );
    assert!(off_circle < 1e-6 * radius);
    assert!(end.q[0].abs() < 1e-5 && end.q[1].abs() < 1e-5);
    assert!((end.q[2] - 0.25 * period).abs() < 1e-8);
}

#[test]
fn forces_along_scalars_components_and_defined_angles() {
    // a load on a component: A.x = x₀ + ½ (f/m) t²; a torque along a Define'd angle on a
    // particle held on a circle: θ = θ₀ + ½ τ/(m ℓ²) t²; a damping force along a scalar
    // coordinate against the same damping written as a Rayleigh function
    let file = "Dimension: 2\nPhysicalParams: { f: 5, tau: 3, c: 0.7 }\n\
        PartData:\n  Fixed: { O: [0, 0] }\n  Points: [A, B]\n  Particles: { A: 2, B: 1.5 }\n  Bars: { OB: 2 }\n  \
        Scalars: [s, u]\n  Define: { th: \"atan2(B.y, B.x)\" }\n\
        Lagrangian:\n  T: s'**2/2 + u'**2/2\n  V: 2*s**2 + 2*u**2\n  R: c/2*u'**2\n\
        AppliedForces:\n  Forces:\n    A.x: f\n    th: tau\n    s: -c*s'\n\
        ProblemData: { tend: 2, positions: { A: [1, 0], B: [2, 0], s: 1, u: 1 } }\n\
        SolverParams: { step: 1e-4 }\n";
    let (problem, plan) = lagrangian::spec::parse(file, "scalars.yaml").unwrap();
    let sol = simulate(&problem, plan.method.clone()).unwrap();
    let names = problem.model.coordinate_names();
    let at = |n: &str| names.iter().position(|x| x == n).unwrap();
    let end = &sol.last().state;
    let t = end.t;
    assert!((end.q[at("A.x")] - (1.0 + 0.5 * 2.5 * t * t)).abs() < 1e-9);
    assert!(end.q[at("A.y")].abs() < 1e-12);
    let theta = end.q[at("B.y")].atan2(end.q[at("B.x")]);
    let expected = 0.5 * 3.0 / (1.5 * 4.0) * t * t;
    eprintln!("torque along a defined angle: θ(2) = {theta:.9}, closed form {expected:.9}");
    assert!((theta - expected).abs() < 1e-6);
    // s and u obey the same equation, one damped by a force, the other by a Rayleigh function
    for r in &sol.records {
        assert!((r.state.q[at("s")] - r.state.q[at("u")]).abs() < 1e-13);
    }
    assert!(end.q[at("s")].abs() < 0.5);
}

#[test]
fn force_mistakes_name_their_place() {
    let base = "Dimension: 2\nPartData:\n  Particles: { P: 1 }\n  Scalars: [s]\n  \
                Define: { D: \"[s*s, 0]\" }\n\
                ProblemData: { tend: 1, positions: { P: [1, 0], s: 1 } }\nAppliedForces:\n  Forces:\n";
    for (tail, place, part) in [
        ("    Q: [1, 0]\n", "Forces.Q", "unknown point or scalar 'Q'"),
        ("    P.w: 1\n", "Forces.P.w", "unknown point or scalar"),
        ("    P: 1\n", "Forces.P", "expected a list of 2 expressions"),
        ("    P: s\n", "Forces.P", "found a scalar"),
        ("    P: [1, 2, 3]\n", "Forces.P", "expected 2 components"),
        (
            "    s: P\n",
            "Forces.s",
            "expected a scalar, found a vector",
        ),
        ("    s: D''.x\n", "Forces.s", "D'' is a second derivative"),
        (
            "    P: [1/(P.x - 1), 0]\n",
            "Forces.P",
            "not defined at the position guesses",
        ),
        ("    P: [q, 0]\n", "Forces.P", "undefined name 'q'"),
    ] {
        let e = lagrangian::spec::parse(&format!("{base}{tail}"), "f.yaml").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("f.yaml:") && msg.contains(place) && msg.contains(part),
            "{tail}: {msg}"
        );
    }
}
