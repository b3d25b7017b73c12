//! Mechanism files build the same physics as the Rust models: the double pendulum file against
//! the Cartesian library model, the cloth file against the mass–spring scene, a planar rigid body
//! in natural coordinates against the compound-pendulum equation, a torque against θ̈ = τ/I, and a
//! derived body point staying rigidly attached.

use lagrangian::library::mass_spring::scenes::cloth;
use lagrangian::library::pendulum::{double_pendulum_cartesian, double_pendulum_positions};
use lagrangian::prelude::*;
use lagrangian::solve::Problem as Mechanism;
use lagrangian::spec;

fn init(m: &Mechanism) -> lagrangian::solve::Initial {
    m.initial_values().unwrap()
}

fn file(name: &str) -> Mechanism {
    spec::load(std::path::Path::new(&format!(
        "{}/mechanisms/{name}",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap()
    .0
}

#[test]
fn double_pendulum_file_equals_the_library_model() {
    let m = file("double_pendulum.yaml");
    let i = init(&m);
    let a = simulate_from(&m.model, &i.state, 1.0, GenAlphaOptions::new(1e-3)).unwrap();
    let lib = Arc::new(double_pendulum_cartesian([1.0, 0.6], [1.0, 0.7], 9.81));
    let q0 = double_pendulum_positions([1.0, 0.7], [1.2, -0.4]);
    let il = consistent_initial_values(&lib, &q0, &[0.0; 4], &InitOptions::default()).unwrap();
    let b = simulate_from(&lib, &il.state, 1.0, GenAlphaOptions::new(1e-3)).unwrap();
    let d = a
        .last()
        .state
        .q
        .iter()
        .zip(&b.last().state.q)
        .fold(0.0f64, |x, (p, q)| x.max((p - q).abs()));
    // the file's bars use the same ½(|d|² − ℓ²) constraint: identical up to round-off
    assert!(d < 1e-9, "{d:.3e}");
}

#[test]
fn cloth_file_equals_the_mass_spring_scene() {
    let text = std::fs::read_to_string(format!(
        "{}/mechanisms/cloth.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let (m, _) = spec::parse(
        &text
            .replace("n: [90, 90]", "n: [9, 9]")
            .replace("P_45_45", "P_5_5"),
        "cloth9.yaml",
    )
    .unwrap();
    let i = init(&m);
    let opts = GenAlphaOptions::new(1e-3)
        .newton_tol(1e-12)
        .reuse_factorization(true);
    let a = simulate_from(&m.model, &i.state, 0.05, opts.clone()).unwrap();
    let (s, mid) = cloth(9).unwrap();
    let sm = Arc::new(
        s.model(lagrangian::library::mass_spring::Derivatives::Hand)
            .unwrap(),
    );
    let (q, v) = s.state_vectors();
    let is = consistent_initial_values(&sm, &q, &v, &InitOptions::default()).unwrap();
    let b = simulate_from(&sm, &is.state, 0.05, opts).unwrap();
    // same point order (row-major grid): compare all coordinates and the pushed particle
    let d = a
        .last()
        .state
        .q
        .iter()
        .zip(&b.last().state.q)
        .fold(0.0f64, |x, (p, q)| x.max((p - q).abs()));
    assert!(d < 1e-10, "{d:.3e}");
    let lagrangian::library::mass_spring::Node::Mass(k) = mid else {
        panic!()
    };
    assert!(b.last().state.q[3 * k + 2] > 0.0);
}

const ROD: &str = "Title: compound pendulum
Dimension: 2
PhysicalParams: { L: 1.3, M: 2 }
PartData:
  Fixed: { O: [0, 0] }
  Rigids:
    OA:
      Geom: [[L, 0]]
      Dyna: [[L/2, 0], M, M*L**2/12]
AppliedForces:
  Gravity:
ProblemData:
  tend: 2
  positions: { A: [L, 0] }
";

/// θ from the downward vertical of the angle model `I_O θ̈ = −M g (L/2) sin θ`.
struct Compound {
    io: f64,
    mgl: f64,
}
impl Term<1> for Compound {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 1>,
        v: &SVector<D, 1>,
    ) -> D {
        v[0] * v[0] * (0.5 * self.io)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 1>) -> D {
        -q[0].cos() * self.mgl
    }
}

#[test]
fn rigid_rod_in_natural_coordinates_is_a_compound_pendulum() {
    let (m, _) = spec::parse(ROD, "rod.yaml").unwrap();
    let i = init(&m);
    assert_eq!(i.report.dof, 1);
    let (l, mass, g) = (1.3, 2.0, 9.81);
    // at rest on the horizontal: angular acceleration of A's direction = M g (L/2) / I_O
    let alpha = mass * g * l / 2.0 / (mass * l * l / 3.0);
    assert!(
        (i.state.qdd[1] + alpha * l).abs() < 1e-10,
        "{:?}",
        i.state.qdd
    );
    let a = simulate_from(&m.model, &i.state, 1.0, GenAlphaOptions::new(1e-3)).unwrap();
    let ang = Arc::new(
        Model::builder(1)
            .term(
                [0],
                Compound {
                    io: mass * l * l / 3.0,
                    mgl: mass * g * l / 2.0,
                },
            )
            .build()
            .unwrap(),
    );
    let ia = consistent_initial_values(
        &ang,
        &[std::f64::consts::FRAC_PI_2],
        &[0.0],
        &InitOptions::default(),
    )
    .unwrap();
    let b = simulate_from(&ang, &ia.state, 1.0, GenAlphaOptions::new(1e-3)).unwrap();
    let th = b.last().state.q[0];
    let (ax, ay) = (a.last().state.q[0], a.last().state.q[1]);
    // two discretizations (natural coordinates vs the angle), each O(h²) ≈ 1e-6 off here
    assert!(
        (ax - l * th.sin()).abs() < 1e-5 && (ay + l * th.cos()).abs() < 1e-5,
        "({ax}, {ay}) vs θ = {th}"
    );
    // energy: T = ½ I_O ω², V = −M g (L/2) cos θ
    assert!((a.last().energy - b.last().energy).abs() < 1e-4);
}

#[test]
fn torque_spins_a_body_at_tau_over_inertia() {
    // no gravity, torque 0.5 about the fixed end: θ̈ = τ / I_O
    let yaml = ROD.replace("  Gravity:\n", "  Torques: { OA: 0.5 }\n");
    let (m, _) = spec::parse(&yaml, "torque.yaml").unwrap();
    let i = init(&m);
    let a = simulate_from(&m.model, &i.state, 1.0, GenAlphaOptions::new(1e-3)).unwrap();
    let io = 2.0 * 1.3 * 1.3 / 3.0;
    let th = 0.5 / io / 2.0; // θ(1) = ½ (τ/I) t²
    let (ax, ay) = (a.last().state.q[0], a.last().state.q[1]);
    assert!((ay.atan2(ax) - th).abs() < 1e-6, "{} vs {th}", ay.atan2(ax));
}

#[test]
fn derived_points_move_with_their_body() {
    // a body OAC with C off the axis; a particle at C and a spring from C to a fixed point
    let yaml = "Title: derived
Dimension: 2
PartData:
  Fixed: { O: [0, 0], F: [2, 1] }
  Rigids:
    OAC:
      Geom: [[1, 0], [0.5, 0.3]]
      Dyna: [[0.5, 0], 1, 0.1]
  Particles: { C: 0.2 }
  Springs: { CF: [50, 1] }
AppliedForces:
  Gravity:
ProblemData:
  tend: 1
  positions: { A: [0, -1] }
";
    let (m, _) = spec::parse(yaml, "derived.yaml").unwrap();
    let i = init(&m);
    let s = simulate_from(&m.model, &i.state, 1.0, GenAlphaOptions::new(1e-3)).unwrap();
    let c = m.geometry.points.iter().find(|p| p.name == "C").unwrap();
    for r in &s.records {
        let (a, cp) = (
            [r.state.q[0], r.state.q[1]],
            c.position(&r.state.q, r.state.t),
        );
        let d_oc = (cp[0].powi(2) + cp[1].powi(2)).sqrt();
        let d_ac = ((cp[0] - a[0]).powi(2) + (cp[1] - a[1]).powi(2)).sqrt();
        assert!(
            (d_oc - (0.25f64 + 0.09).sqrt()).abs() < 1e-9
                && (d_ac - (0.25f64 + 0.09).sqrt()).abs() < 1e-9
        );
    }
    // energy is conserved up to the method's numerical dissipation
    assert!(
        (s.last().energy - s.records[0].energy).abs() < 1e-2 * s.records[0].energy.abs().max(1.0)
    );
}

/// Points F, E, G, H of Andrews' mechanism from the joint angles (β, Θ, γ, Φ, δ, Ω, ε).
fn andrews_points(q: &[f64]) -> [f64; 8] {
    let (rr, d, zt, u, xa, ya) = (7e-3, 28e-3, 4e-2, 4e-2, -0.06934, -0.00227);
    let (b, th, de, ep) = (q[0], q[1], q[4], q[6]);
    [
        rr * b.cos(),
        rr * b.sin(),
        rr * b.cos() - d * (b + th).cos(),
        rr * b.sin() - d * (b + th).sin(),
        xa + zt * de.cos(),
        ya + zt * de.sin(),
        xa + u * ep.sin(),
        ya - u * ep.cos(),
    ]
}

#[test]
fn andrews_in_natural_coordinates_matches_the_angle_form() {
    let m = file("andrews.yaml");
    assert_eq!((m.model.n_coords(), m.model.n_constraints()), (8, 7));
    let i = init(&m);
    assert_eq!(i.report.dof, 1);
    // accelerations: F̈ = rr β̈₀ (−sin β₀, cos β₀) with the published β̈₀; E starts at rest
    let (b0, bdd) = (
        lagrangian::library::andrews::Q0[0],
        lagrangian::library::andrews::QDD0[0],
    );
    assert!((i.state.qdd[0] + 7e-3 * bdd * b0.sin()).abs() < 1e-8 * 100.0);
    assert!((i.state.qdd[1] - 7e-3 * bdd * b0.cos()).abs() < 1e-8 * 100.0);
    assert!(i.state.qdd[2].abs() < 1e-8 && i.state.qdd[3].abs() < 1e-8);
    // against the CWI test-set reference q(0.03), through the point positions
    let q_end = lagrangian::library::andrews::TEST_SET_Q_END;
    let reference = andrews_points(&q_end);
    let at_end = |h: f64| {
        let opts = GenAlphaOptions::new(h).newton_tol(1e-12);
        let s = simulate_from(&m.model, &i.state, 0.03, opts).unwrap();
        let q = s.last().state.q.clone();
        q.iter()
            .zip(&reference)
            .fold(0.0f64, |x, (a, b)| x.max((a - b).abs()))
    };
    let (e1, e2) = (at_end(2e-5), at_end(1e-5));
    assert!(e2 < 5e-6, "error at h = 1e-5: {e2:.3e} m");
    let r = e1 / e2;
    assert!(
        (3.5..=4.5).contains(&r),
        "error ratio {r:.2} ({e1:.3e} → {e2:.3e})"
    );
    // and against the angle-form model at the same step
    let angles = Arc::new(lagrangian::library::andrews::andrews_model());
    let guess = [-0.1, 0.0, 0.5, 0.2, 0.5, -0.2, 1.2];
    let ia = consistent_initial_values(
        &angles,
        &guess,
        &[0.0; 7],
        &InitOptions::default().pin_q([1]),
    )
    .unwrap();
    let sa = simulate_from(&angles, &ia.state, 0.03, GenAlphaOptions::new(1e-5)).unwrap();
    let pa = andrews_points(&sa.last().state.q);
    let d = pa
        .iter()
        .zip(&reference)
        .fold(0.0f64, |x, (a, b)| x.max((a - b).abs()));
    assert!(d < 5e-6, "angle form vs reference {d:.3e}");
}

#[test]
fn solver_params_select_the_integrator() {
    let base = "Title: spring\nDimension: 2\nPartData:\n  Fixed: { O: [0, 0] }\n  Particles: { B: 1 }\n  Springs: { OB: [10, 1] }\nProblemData:\n  tend: 1\n  positions: { B: [1.5, 0] }\n";
    let (_, m_plan) = spec::parse(base, "s.yaml").unwrap();
    assert!(!matches!(m_plan.method, lagrangian::solve::Method::Rk4(_)));
    let (m, m_plan) = spec::parse(
        &format!("{base}SolverParams: {{ integrator: rk4, steps: 500 }}\n"),
        "s.yaml",
    )
    .unwrap();
    assert!(matches!(m_plan.method, lagrangian::solve::Method::Rk4(_)));
    assert_eq!(m.steps(m_plan.method.h()), 500);
    let e = match spec::parse(
        &format!("{base}SolverParams: {{ integrator: euler }}\n"),
        "s.yaml",
    ) {
        Err(e) => e,
        Ok(_) => panic!("accepted integrator: euler"),
    };
    assert_eq!(e.field, "SolverParams.integrator");
    assert!(
        e.message.contains("genalpha, rk4, dop853, radau or taylor"),
        "{e}"
    );
}
