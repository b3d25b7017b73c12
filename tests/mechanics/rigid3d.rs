//! 3D rigid bodies in John–Ned natural coordinates (DAETS, `Rigids` in `Dimension: 3`):
//!
//! * a body on a fixed hinge is a compound pendulum, `I_axis φ̈ = −m g d sin φ` with
//!   `I_axis = I_xx + m d²` — checked against the exact pendulum solution
//!   (tests/reference/pendulum_exact.json) with a full, non-diagonal inertia tensor;
//! * a free asymmetric body under a constant torque follows the Newton–Euler equations
//!   `I ω̇ + ω × Iω = Qᵀτ`, `Q̇ = Q[ω]×`, integrated independently here by RK4; its kinetic
//!   energy at the start equals `½ ωᵀIω`;
//! * bad bodies (geometry off the frame rule, unphysical inertia, fixed items that do not fit)
//!   are errors at their place.

use lagrangian::output::Record;
use lagrangian::prelude::*;
use lagrangian::solve::Problem as Mechanism;
use lagrangian::spec;
use nalgebra::{Matrix3, Vector3};

fn init(m: &Mechanism) -> lagrangian::solve::Initial {
    m.initial_values().unwrap()
}

const HINGED: &str = r#"
Title: body on a hinge
Dimension: 3
PhysicalParams: { m: 2, cx: 0.3, cy: 0.5, cz: 0.2, psi: "atan2(cz, cy)" }
PartData:
  Fixed: { O: [0, 0, 0], H: [0, 1, 0] }
  Rigids:
    plate:
      Basic: [O, H, P]
      Geom: { H: [1, 0, 0], P: [0, 1, 0], G: [cx, cy, cz] }
      Dyna: [[cx, cy, cz], m, [[0.4, 0.05, -0.03], [0.05, 0.3, 0.02], [-0.03, 0.02, 0.5]]]
AppliedForces:
  Gravity: (0.4 + m*(cy**2 + cz**2))/(m*sqrt(cy**2 + cz**2))   # makes m g d / I_axis = 1
ProblemData:
  tend: 3
  positions: { P: [cos(psi), 0, sin(psi)] }                     # centroid level with the hinge
  fixedpositions: { P.x }
"#;

fn reference_phi(t: &str) -> f64 {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/pendulum_exact.json"
    ))
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["cases"]["grav=1"]["at"][t]["phi"].as_f64().unwrap()
}

/// φ of the centroid about the hinge (world y axis), from the downward vertical.
fn phi(m: &Mechanism, q: &[f64]) -> f64 {
    let g = m.geometry.points.iter().find(|p| p.name == "G").unwrap();
    let x = g.position(q, 0.0);
    x[0].atan2(-x[2])
}

#[test]
fn hinged_body_is_the_exact_compound_pendulum() {
    let (m, _) = spec::parse(HINGED, "hinged.yaml").unwrap();
    assert_eq!((m.model.n_coords(), m.model.n_constraints()), (3, 2));
    let i = init(&m);
    assert_eq!(i.report.dof, 1);
    assert!((phi(&m, &i.state.q) - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    let mut errs = Vec::new();
    for h in [2e-3, 1e-3, 5e-4] {
        let opts = GenAlphaOptions::new(h).rho_inf(0.9);
        let sol = simulate_from(&m.model, &i.state, 3.0, opts).unwrap();
        let at = |t: f64| {
            let r = sol
                .records
                .iter()
                .min_by(|a, b| {
                    (a.state.t - t)
                        .abs()
                        .partial_cmp(&(b.state.t - t).abs())
                        .unwrap()
                })
                .unwrap();
            assert!((r.state.t - t).abs() < 1e-9);
            phi(&m, &r.state.q)
        };
        let e = (at(1.0) - reference_phi("1"))
            .abs()
            .max((at(3.0) - reference_phi("3")).abs());
        errs.push(e);
    }
    eprintln!(
        "hinge: max |φ − φ_exact| at t = 1, 3 for h = 2e-3, 1e-3, 5e-4: {:.3e} {:.3e} {:.3e}",
        errs[0], errs[1], errs[2]
    );
    assert!(errs[2] < 5e-7, "{errs:?}");
    for w in errs.windows(2) {
        let r = w[0] / w[1];
        assert!((3.5..4.5).contains(&r), "{errs:?}");
    }
}

// ---- free body under a constant torque, against Newton–Euler ----

const C_LOCAL: [f64; 3] = [0.3, 0.2, 0.1];
const I_DIAG: [f64; 3] = [0.5, 0.3, 0.7];
const MASS: f64 = 1.5;
const OMEGA0: [f64; 3] = [1.0, 0.5, -2.0];
const TAU: [f64; 3] = [0.1, -0.2, 0.05];
const LOCAL: [[f64; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.4, 0.8, 0.0]];

fn free_body_yaml(torque: bool) -> String {
    // initial pose Q = 1, A at the origin; v_G = 0; v_X = ω × (X − G)
    let w = Vector3::from(OMEGA0);
    let g = Vector3::from(C_LOCAL);
    let vel = |x: [f64; 3]| {
        let v = w.cross(&(Vector3::from(x) - g));
        format!("[{}, {}, {}]", v[0], v[1], v[2])
    };
    let pos = |x: [f64; 3]| format!("[{}, {}, {}]", x[0], x[1], x[2]);
    format!(
        "Title: free body
Dimension: 3
PartData:
  Rigids:
    body:
      Basic: [A, B, C]
      Geom: {{ B: {b}, C: {c} }}
      Dyna: [{cg}, {MASS}, {inertia}]
AppliedForces:
  Torques: {{ body: {tau} }}
ProblemData:
  tend: 2
  positions: {{ A: {pa}, B: {b}, C: {c} }}
  velocities: {{ A: {va}, B: {vb}, C: {vc} }}
",
        b = pos(LOCAL[1]),
        c = pos(LOCAL[2]),
        cg = pos(C_LOCAL),
        inertia = pos(I_DIAG),
        tau = if torque { pos(TAU) } else { pos([0.0; 3]) },
        pa = pos(LOCAL[0]),
        va = vel(LOCAL[0]),
        vb = vel(LOCAL[1]),
        vc = vel(LOCAL[2]),
    )
}

/// Newton–Euler by RK4: body-frame ω, rotation Q; the centroid stays at rest (a pure couple).
fn newton_euler(t_end: f64, h: f64) -> Matrix3<f64> {
    let inertia = Matrix3::from_diagonal(&Vector3::from(I_DIAG));
    let inv = inertia.try_inverse().unwrap();
    let tau = Vector3::from(TAU);
    let f = |q: &Matrix3<f64>, w: &Vector3<f64>| {
        let wd = inv * (q.transpose() * tau - w.cross(&(inertia * w)));
        (q * w.cross_matrix(), wd)
    };
    let (mut q, mut w) = (Matrix3::identity(), Vector3::from(OMEGA0));
    let n = (t_end / h).round() as usize;
    for _ in 0..n {
        let (k1q, k1w) = f(&q, &w);
        let (k2q, k2w) = f(&(q + k1q * (h / 2.0)), &(w + k1w * (h / 2.0)));
        let (k3q, k3w) = f(&(q + k2q * (h / 2.0)), &(w + k2w * (h / 2.0)));
        let (k4q, k4w) = f(&(q + k3q * h), &(w + k3w * h));
        q += (k1q + k2q * 2.0 + k3q * 2.0 + k4q) * (h / 6.0);
        w += (k1w + k2w * 2.0 + k3w * 2.0 + k4w) * (h / 6.0);
    }
    q
}

#[test]
fn free_body_kinetic_energy_is_the_classical_one() {
    let (m, _) = spec::parse(&free_body_yaml(false), "free.yaml").unwrap();
    assert_eq!((m.model.n_coords(), m.model.n_constraints()), (9, 3));
    let i = init(&m);
    assert_eq!(i.report.dof, 6);
    // the given rigid velocities are kept (they satisfy the velocity constraints)
    assert!(i.report.velocity_change < 1e-12);
    let rec = Record::new(&m.model, i.state.clone());
    let w = Vector3::from(OMEGA0);
    let t = 0.5 * w.dot(&(Matrix3::from_diagonal(&Vector3::from(I_DIAG)) * w));
    assert!(
        (rec.kinetic - t).abs() < 1e-12 * t,
        "{} vs {t}",
        rec.kinetic
    );
    assert_eq!(rec.potential, 0.0);
}

#[test]
fn free_body_under_torque_follows_newton_euler() {
    let (m, _) = spec::parse(&free_body_yaml(true), "free.yaml").unwrap();
    let i = init(&m);
    let t_end = 2.0;
    let q_ref = newton_euler(t_end, 1e-4);
    let g = Vector3::from(C_LOCAL);
    let expect: Vec<Vector3<f64>> = LOCAL
        .iter()
        .map(|x| g + q_ref * (Vector3::from(*x) - g))
        .collect();
    let mut errs = Vec::new();
    for h in [2e-3, 1e-3, 5e-4] {
        let opts = GenAlphaOptions::new(h).rho_inf(0.9);
        let sol = simulate_from(&m.model, &i.state, t_end, opts).unwrap();
        assert!(sol.max_constraint() < 1e-10);
        let q = &sol.last().state.q;
        let e = (0..3).fold(0.0f64, |x, p| {
            let got = Vector3::new(q[3 * p], q[3 * p + 1], q[3 * p + 2]);
            x.max((got - expect[p]).norm())
        });
        errs.push(e);
    }
    eprintln!(
        "free body: max position error at t = 2 for h = 2e-3, 1e-3, 5e-4: {:.3e} {:.3e} {:.3e}",
        errs[0], errs[1], errs[2]
    );
    assert!(errs[2] < 1e-6, "{errs:?}");
    for w in errs.windows(2) {
        let r = w[0] / w[1];
        assert!((3.5..4.5).contains(&r), "{errs:?}");
    }
}

#[test]
fn bad_bodies_are_errors_at_their_place() {
    let base = HINGED.to_string();
    for (from, to, msg) in [
        ("H: [1, 0, 0], P", "H: [1, 0.1, 0], P", "[b, 0, 0]"),
        ("P: [0, 1, 0], G", "P: [0, 1, 0.2], G", "[c1, c2, 0]"),
        ("P: [0, 1, 0], G", "P: [0, -1, 0], G", "c2 > 0"),
        (
            "[[0.4, 0.05, -0.03], [0.05, 0.3, 0.02], [-0.03, 0.02, 0.5]]",
            "[0.1, 0.1, 0.5]",
            "not a physical inertia",
        ),
        (
            "[[0.4, 0.05, -0.03], [0.05, 0.3, 0.02], [-0.03, 0.02, 0.5]]",
            "[[0.4, 0.05, 0], [0, 0.3, 0], [0, 0, 0.5]]",
            "symmetric",
        ),
        ("H: [0, 1, 0] }", "H: [0, 2, 0] }", "do not fit"),
        (
            "Basic: [O, H, P]",
            "Basic: [u, H, P]",
            "first basic item must be a point",
        ),
        ("Basic: [O, H, P]", "Basic: [O, H]", "three names"),
        (
            "Dyna: [[cx, cy, cz], m,",
            "Dyna: [[cx, cy, cz], -m,",
            "mass must be positive",
        ),
    ] {
        assert!(base.contains(from), "{from}");
        let text = base.replace(from, to);
        let e = match spec::parse(&text, "bad.yaml") {
            Err(e) => e,
            Ok(_) => panic!("accepted: {to}"),
        };
        assert!(e.message.contains(msg), "{to}: {e}");
        assert!(e.field.starts_with("PartData.Rigids.plate"), "{e}");
        assert!(e.line > 1, "{e}");
    }
}

#[test]
fn a_body_keyed_by_its_points_is_the_same_body() {
    // `OHPG: { Geom: [H, P, G local] }` is the short form of `Basic: [O, H, P]` with G derived
    let short = HINGED.replace(
        "    plate:\n      Basic: [O, H, P]\n      Geom: { H: [1, 0, 0], P: [0, 1, 0], G: [cx, cy, cz] }\n",
        "    OHPG:\n      Geom: [[1, 0, 0], [0, 1, 0], [cx, cy, cz]]\n",
    );
    assert_ne!(short, HINGED);
    let (a, b) = (
        spec::parse(HINGED, "long.yaml").unwrap().0,
        spec::parse(&short, "short.yaml").unwrap().0,
    );
    let opts = || GenAlphaOptions::new(1e-3);
    let sa = simulate_from(&a.model, &init(&a).state, 1.0, opts()).unwrap();
    let sb = simulate_from(&b.model, &init(&b).state, 1.0, opts()).unwrap();
    assert_eq!(sa.last().state.q, sb.last().state.q);
    assert!(b.geometry.points.iter().any(|p| p.name == "G"));
}
