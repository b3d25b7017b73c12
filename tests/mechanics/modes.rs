//! Linearization and modes (`analysis`) against closed forms: the double pendulum's two
//! frequencies, a fixed–free spring–mass chain's spectrum with its zero transverse modes, and an
//! inverted pendulum reported unstable.

use lagrangian::analysis::{Linearization, Mode, ModeKind};
use lagrangian::spec;

fn modes_of(text: &str) -> Vec<lagrangian::analysis::Mode> {
    let (problem, _) = spec::parse(text, "modes.yaml").unwrap();
    let q = problem.initial_values().unwrap().state.q;
    Linearization::at_rest(&problem, &q)
        .unwrap()
        .modes()
        .unwrap()
}

#[test]
fn double_pendulum_frequencies_match_the_closed_form() {
    let (m1, m2, l1, l2, g) = (1.0f64, 0.6, 1.0, 0.7, 9.81);
    let text = format!(
        "Dimension: 2\nPartData: {{ Fixed: {{ O: [0, 0] }}, Particles: {{ A: {m1}, B: {m2} }}, \
         Bars: {{ OA: {l1}, AB: {l2} }} }}\nAppliedForces: {{ Gravity: }}\n\
         ProblemData: {{ tend: 1, positions: {{ A: [0, -{l1}], B: [0, -{}] }} }}\n",
        l1 + l2
    );
    let modes = modes_of(&text);
    check_double_pendulum(&modes, m1, m2, l1, l2, g);
    // mass-normalized shapes: δq = N φ with φᵀ M_r φ = 1 means δqᵀ M δq = 1 (M = diag of masses)
    for m in &modes {
        let s = &m.shape;
        let e = m1 * (s[0] * s[0] + s[1] * s[1]) + m2 * (s[2] * s[2] + s[3] * s[3]);
        assert!((e - 1.0).abs() < 1e-12, "{e}");
    }
}

#[test]
fn a_fixed_free_spring_chain_has_the_analytic_spectrum_and_zero_transverse_modes() {
    let (n, k, m, len) = (8usize, 50.0f64, 0.2, 0.5);
    let text = format!(
        "Dimension: 2\nPartData:\n  Fixed: {{ O: [0, 0] }}\n  Chains:\n    \
         C: {{ from: O, to: [{}, 0], n: {n}, mass: {m}, stiffness: {k} }}\n\
         ProblemData: {{ tend: 1 }}\n",
        n as f64 * len
    );
    let modes = modes_of(&text);
    assert_eq!(modes.len(), 2 * n);
    // unstretched springs have no transverse stiffness: n zero modes
    let zero = modes.iter().filter(|m| m.kind == ModeKind::Zero).count();
    assert_eq!(zero, n);
    let along: Vec<f64> = (modes.iter())
        .filter(|m| m.kind == ModeKind::Oscillating)
        .map(|m| m.omega)
        .collect();
    for (j, w) in along.iter().enumerate() {
        let want = 2.0
            * (k / m).sqrt()
            * ((2 * j + 1) as f64 * std::f64::consts::PI / (2.0 * (2 * n + 1) as f64)).sin();
        assert!((w / want - 1.0).abs() < 1e-12, "mode {j}: {w} vs {want}");
    }
}

#[test]
fn an_inverted_pendulum_is_unstable() {
    let text = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 2 } }\n\
                AppliedForces: { Gravity: }\nProblemData: { tend: 1, positions: { A: [0, 2] } }\n";
    let modes = modes_of(text);
    assert_eq!(modes.len(), 1);
    assert_eq!(modes[0].kind, ModeKind::Unstable);
    // growth rate √(g/ℓ)
    assert!((modes[0].omega - (9.81f64 / 2.0).sqrt()).abs() < 1e-12);
}

#[test]
fn damping_gives_the_modal_damping_ratio() {
    // one mass on a damped spring along x (and free across): ζ = c / (2 √(k m))
    let (k, m, c) = (40.0f64, 0.5, 0.3);
    let text = format!(
        "Dimension: 2\nPartData:\n  Fixed: {{ O: [0, 0] }}\n  Chains:\n    \
         C: {{ from: O, to: [1, 0], n: 1, mass: {m}, stiffness: {k}, damping: {c} }}\n\
         ProblemData: {{ tend: 1 }}\n"
    );
    let modes = modes_of(&text);
    let osc: Vec<_> = modes
        .iter()
        .filter(|x| x.kind == ModeKind::Oscillating)
        .collect();
    assert_eq!(osc.len(), 1);
    assert!((osc[0].omega - (k / m).sqrt()).abs() < 1e-12);
    let want = c / (2.0 * (k * m).sqrt());
    assert!(
        (osc[0].damping_ratio - want).abs() < 1e-12,
        "{} vs {want}",
        osc[0].damping_ratio
    );
}

use crate::common;

#[test]
fn the_modes_command_prints_and_writes_modes_json() {
    let dir = common::tmp("modes-cli");
    let file = dir.join("hanging.yaml");
    std::fs::write(
        &file,
        "Title: hanging pendulum\nDimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, \
         Bars: { OA: 2 } }\nAppliedForces: { Gravity: }\nProblemData: { tend: 1, positions: { A: [0, -2] } }\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = common::run(
        &[
            "modes",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--set",
            "g=4",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&o.stdout);
    // --set of an undefined parameter is refused; without it the run works
    assert!(!o.status.success());
    let o = common::run(
        &[
            "modes",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    let text2 = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text2.contains("1 degrees of freedom") && text2.contains("oscillating"),
        "{text2}"
    );
    assert!(!text2.contains("not an equilibrium"), "{text2}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("modes.json")).unwrap()).unwrap();
    let w = json["modes"][0]["omega"].as_f64().unwrap();
    assert!((w - (9.81f64 / 2.0).sqrt()).abs() < 1e-12, "{w}");
    assert_eq!(json["modes"][0]["kind"], "oscillating");
    assert_eq!(json["coordinates"], serde_json::json!(["A.x", "A.y"]));
}

#[test]
fn a_small_oscillation_of_the_constrained_double_pendulum_has_the_mode_frequencies() {
    // hanging double pendulum in Cartesian coordinates (two bar constraints), started in each
    // mode with a small velocity ε φ: the simulated period matches 2π/ω to 1e-4 (the issue asks 0.5 %)
    let base = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1, B: 0.6 }, \
                Bars: { OA: 1, AB: 0.7 } }\nAppliedForces: { Gravity: }\n";
    let (problem, _) = spec::parse(
        &format!("{base}ProblemData: {{ tend: 1, positions: {{ A: [0, -1], B: [0, -1.7] }} }}\n"),
        "dp.yaml",
    )
    .unwrap();
    let q = problem.initial_values().unwrap().state.q;
    let modes = Linearization::at_rest(&problem, &q)
        .unwrap()
        .modes()
        .unwrap();
    for mode in &modes {
        let eps = 1e-3 / mode.shape.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let v: Vec<f64> = mode.shape.iter().map(|x| eps * x * mode.omega).collect();
        let period = 2.0 * std::f64::consts::PI / mode.omega;
        let text = format!(
            "{base}ProblemData: {{ tend: {}, positions: {{ A: [0, -1], B: [0, -1.7] }}, \
             velocities: {{ A: [{}, {}], B: [{}, {}] }} }}\nSolverParams: {{ step: 1e-4, output_every: 1 }}\n",
            6.0 * period,
            v[0],
            v[1],
            v[2],
            v[3]
        );
        let dir = common::tmp("modes-sim");
        let file = dir.join("dp.yaml");
        std::fs::write(&file, text).unwrap();
        let out = dir.join("out");
        let o = common::run(
            &[
                "run",
                file.to_str().unwrap(),
                "--quiet",
                "--columns",
                "positions",
                "--out",
                out.to_str().unwrap(),
            ],
            None,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (header, rows) = common::trajectory(&out);
        let col = header.iter().position(|h| h == "B.x").unwrap();
        // upward zero crossings of B.x, linearly interpolated
        let ups: Vec<f64> = rows
            .windows(2)
            .filter(|w| w[0][col] < 0.0 && w[1][col] >= 0.0)
            .map(|w| w[0][0] + (w[1][0] - w[0][0]) * -w[0][col] / (w[1][col] - w[0][col]))
            .collect();
        assert!(ups.len() >= 4, "{} crossings", ups.len());
        let simulated = (ups[ups.len() - 1] - ups[0]) / (ups.len() - 1) as f64;
        let rel = (simulated / period - 1.0).abs();
        eprintln!(
            "mode ω = {:.6}: simulated period {simulated:.6} vs 2π/ω {period:.6} ({rel:.1e})",
            mode.omega
        );
        assert!(
            rel < 1e-4,
            "ω = {}: period {simulated} vs {period} ({rel:.2e})",
            mode.omega
        );
    }
}

#[test]
fn a_model_too_large_for_dense_modes_is_refused() {
    // 700 particles in 3D: 2,100 coordinates, above the dense limit of 2,000
    let text = "Dimension: 3\nPartData:\n  Fixed: { O: [0, 0, 0] }\n  Chains:\n    \
                C: { from: O, to: [70, 0, 0], n: 700, mass: 1, stiffness: 10 }\n\
                ProblemData: { tend: 1 }\n";
    let (problem, _) = spec::parse(text, "long.yaml").unwrap();
    let q = problem.q_guess.clone();
    let e = match Linearization::at_rest(&problem, &q) {
        Ok(_) => panic!("a linearization of 2,100 coordinates was built"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("2100 coordinates is above the limit of 2000"),
        "{e}"
    );
}

/// The two frequencies of a double pendulum of point masses `m1`, `m2` on massless rods `l1`,
/// `l2`: in the angles `M = [[(m1+m2) l1², m2 l1 l2], [m2 l1 l2, m2 l2²]]`,
/// `K = diag((m1+m2) g l1, m2 g l2)`, and `det(K − ω² M) = 0` is
/// `(ac − b²) x² − (a k2 + c k1) x + k1 k2 = 0` — both modes oscillating at these `ω²` to 1e-12.
pub(crate) fn check_double_pendulum(modes: &[Mode], m1: f64, m2: f64, l1: f64, l2: f64, g: f64) {
    let (a, b, c) = ((m1 + m2) * l1 * l1, m2 * l1 * l2, m2 * l2 * l2);
    let (k1, k2) = ((m1 + m2) * g * l1, m2 * g * l2);
    let (qa, qb, qc) = (a * c - b * b, -(a * k2 + c * k1), k1 * k2);
    let disc = (qb * qb - 4.0 * qa * qc).sqrt();
    let want = [(-qb - disc) / (2.0 * qa), (-qb + disc) / (2.0 * qa)];
    assert_eq!(modes.len(), 2);
    for (m, w2) in modes.iter().zip(want) {
        assert_eq!(m.kind, ModeKind::Oscillating);
        assert!(
            (m.omega_squared / w2 - 1.0).abs() < 1e-12,
            "{} vs {w2}",
            m.omega_squared
        );
    }
}
