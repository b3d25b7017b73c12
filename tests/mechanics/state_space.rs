//! State-space models for control (`run::linear`, `analysis::StateSpace`): the step response of
//! `ẋ = A x + B u`, `z = C x + D u` about an equilibrium against the nonlinear mechanism's own
//! response to a small step in the input, run by DOP853; the closed form of a pendulum; the
//! mistakes named.

use lagrangian::output::sink::ColumnRecorder;
use lagrangian::prelude::*;
use lagrangian::problem::OutputTimes;
use lagrangian::run::linear::state_space;
use lagrangian::run::modes::ModesAt;
use lagrangian::spec;

/// A pendulum (m = 1, ℓ = 1) pulled sideways by a damped spring to (1, −1), pushed by a force
/// u on its bob: its equilibrium leans, and the motion about it is coupled and damped.
const LEANING: &str = "
Dimension: 2
PhysicalParams: { u: 0 }
PartData:
  Fixed: { O: [0, 0], F: [1, -1] }
  Particles: { A: 1 }
  Bars: { OA: 1 }
  Springs: { AF: [5, 0.8, 0, 0.4] }
AppliedForces:
  Gravity:
  Forces: { A: [u, 0.5*u] }
ProblemData: { tend: 2, positions: { A: [0.3, -0.95] } }
Output:
  columns: [positions, reactions, { angle: 'atan2(A.x, -A.y)' }, { F: AF.force }]
";

#[test]
fn the_step_response_of_the_linear_model_is_the_mechanism_s() {
    let (problem, _plan) = spec::parse(LEANING, "leaning.yaml").unwrap();
    let outputs = ["A.x", "A.y", "angle", "F", "tension:OA"];
    let ss = state_space(&problem, ModesAt::Equilibrium, &["u"], &outputs).unwrap();
    assert_eq!((ss.a.nrows(), ss.b.ncols(), ss.c.nrows()), (2, 1, 5));
    // damped: both eigenvalues in the left half-plane, a complex pair
    let eig = ss.a.complex_eigenvalues();
    assert!(
        eig.iter().all(|z| z.re < 0.0 && z.im.abs() > 0.1),
        "{eig:?}"
    );
    // the nonlinear mechanism from its equilibrium, the input stepped to δ
    let delta = 1e-5;
    let times = [0.25, 0.5, 1.0, 1.5, 2.0];
    let moved = problem
        .with_parameters(&[("u", delta)])
        .unwrap()
        .guess(&ss.q, &vec![0.0; ss.q.len()]);
    let mut plan = RunPlan::from(Dop853Options::new(1e-12));
    plan.output_times = Some(OutputTimes::At([&[0.0][..], &times[..]].concat()));
    let mut sim = Simulation::new(moved, plan).unwrap();
    let mut rec = ColumnRecorder::every(1);
    sim.run(&mut [&mut rec]).unwrap();
    let z = |name: &str| rec.column(name).unwrap_or_else(|| panic!("{name}"));
    // the linear model by RK4 at a small step: x(0) = 0, u = δ
    let f = ss.a.nrows();
    let mut x = nalgebra::DVector::<f64>::zeros(f);
    let rhs = |x: &nalgebra::DVector<f64>| &ss.a * x + &ss.b * delta;
    let mut t = 0.0;
    for (k, &te) in times.iter().enumerate() {
        crate::common::rk4_until(&mut x, &mut t, te, 1e-4, rhs);
        // z(t) − z(0) = C x(t): the direct part D δ is in both
        let lin = &ss.c * &x;
        for (i, name) in outputs.iter().enumerate() {
            let col = z(name);
            let (got, want) = ((col[k + 1] - col[0]) / delta, lin[i] / delta);
            let scale = (0..ss.c.ncols()).fold(0.0f64, |m, j| m.max(ss.c[(i, j)].abs()));
            assert!(
                (got - want).abs() < 1e-3 * scale.max(want.abs()),
                "{name} at t = {te}: nonlinear {got}, linear {want}"
            );
        }
    }
}

/// A hanging pendulum (m = 2, ℓ = 0.5) pushed along x: `m ÿ = −(m g/ℓ) y + u` along the arc,
/// so A has eigenvalues ±i√(g/ℓ), and the bob's x answers with `CAB = 1/m` (its angle with
/// `1/(mℓ)`); an input that moves a constraint, an unknown input or output is refused.
#[test]
fn a_pendulum_s_state_space_and_the_mistakes() {
    let text = "Dimension: 2\nPhysicalParams: { u: 0, w: 1 }\nPartData: { Fixed: { O: [0, 0] }, \
                Particles: { A: 2 }, Bars: { OA: 0.5 } }\nAppliedForces: { Gravity: , \
                Forces: { A: [u, 0] } }\nPartData2: {}\n";
    let text = text.replace(
        "PartData2: {}\n",
        "ProblemData: { tend: 1, positions: { A: [0, -0.5] } }\n",
    );
    let (p, _) = spec::parse(&text, "p.yaml").unwrap();
    let ss = state_space(&p, ModesAt::Initial, &["u"], &["A.x"]).unwrap();
    let w = (9.81f64 / 0.5).sqrt();
    let eig = ss.a.complex_eigenvalues();
    for z in eig.iter() {
        assert!(
            z.re.abs() < 1e-9 && (z.im.abs() - w).abs() < 1e-9,
            "{eig:?}"
        );
    }
    assert!(((&ss.c * &ss.a * &ss.b)[(0, 0)] - 0.5).abs() < 1e-8);
    let err = |i: &[&str], o: &[&str]| {
        state_space(&p, ModesAt::Initial, i, o)
            .unwrap_err()
            .to_string()
    };
    assert!(err(&["k"], &["A.x"]).contains("unknown parameter 'k'"));
    assert!(err(&["u"], &["B.x"]).contains("no column 'B.x'"));
    assert!(err(&["u"], &["balance_error"]).contains("no column"));
    let driven = text.replace(
        "Bars: { OA: 0.5 } }",
        "Bars: { OA: 0.5 }, Drives: { d: { quantity: A.x, motion: w - 1 } } }",
    );
    let (pd, _) = spec::parse(&driven, "d.yaml").unwrap();
    let e = state_space(&pd, ModesAt::Initial, &["w"], &["A.x"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("changes the constraints"), "{e}");
}

/// About a configuration that is not an equilibrium the model is affine: the leaning pendulum
/// held at its guess has `e = [0; ÿ₀]` with `ÿ₀` the arc acceleration the mechanism has there;
/// about its equilibrium `e = 0`. Two particles on a spring, held on a line, translate freely:
/// the double zero root comes out of the eigenproblem as rounding noise and is labelled zero,
/// beside the stretching root `ω² = k (1/m₁ + 1/m₂)`.
#[test]
fn drift_off_equilibrium_and_zero_roots() {
    let (problem, _plan) = spec::parse(LEANING, "leaning.yaml").unwrap();
    let ss = state_space(&problem, ModesAt::Initial, &["u"], &["A.x"]).unwrap();
    let init = problem.initial_values().unwrap().state;
    // the arc acceleration: q̈ projected on the unit tangent N (one degree of freedom)
    let n: Vec<f64> = ss.basis.column(0).iter().copied().collect();
    let along: f64 = (0..n.len()).map(|i| n[i] * init.qdd[i]).sum();
    assert_eq!(ss.e.len(), 2);
    assert_eq!(ss.e[0], 0.0);
    assert!(
        (ss.e[1] - along).abs() < 1e-10 * along.abs().max(1.0),
        "{:?} vs {along}",
        ss.e
    );
    assert!(ss.drift() > 0.1);
    let eq = state_space(&problem, ModesAt::Equilibrium, &["u"], &["A.x"]).unwrap();
    assert!(eq.drift() < 1e-9, "{:?}", eq.e);
    let free = "Dimension: 2\nPartData:\n  Particles: { A: 3, B: 1.5 }\n  \
                Springs: { AB: [7, 1] }\n  Equations: { a: A.y + 0.3*A.x, b: B.y + 0.3*B.x }\n\
                ProblemData: { tend: 1, positions: { A: [0, 0], B: [1, -0.3] } }\n";
    let (p, _) = spec::parse(free, "free.yaml").unwrap_or_else(|e| panic!("{e}"));
    let ss = state_space(&p, ModesAt::Initial, &[], &[]).unwrap();
    let roots = ss.eigenvalues().unwrap();
    let (zero, moving): (Vec<_>, Vec<_>) = roots.iter().partition(|r| r.zero);
    assert!(
        !zero.is_empty() && zero.iter().all(|r| r.omega_n == 0.0 && r.re == 0.0),
        "{roots:?}"
    );
    let omega = (7.0f64 * (1.0 / 3.0 + 1.0 / 1.5)).sqrt();
    assert!(
        moving.len() == 1 && (moving[0].im - omega).abs() < 1e-9,
        "{roots:?}"
    );
}
