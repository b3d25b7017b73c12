//! Modes beyond the undamped spectrum: the damped roots against the closed form and against
//! `det(s²M + sD + K) = 0` with non-proportional damping, modes about the equilibrium, mode
//! shapes as point displacements, and a mode's motion for the viewer.

use lagrangian::analysis::{Linearization, ModeKind, ModesReport};
use lagrangian::run::modes::mode_to_folder;
use lagrangian::spec;
use nalgebra::{Complex, DMatrix};

use crate::common;

fn damped_chain(n: usize, c: f64) -> String {
    format!(
        "Dimension: 2\nPartData:\n  Fixed: {{ O: [0, 0] }}\n  Chains:\n    \
         C: {{ from: O, to: [{n}, 0], n: {n}, mass: 0.5, stiffness: 40, damping: {c} }}\n\
         ProblemData: {{ tend: 1 }}\n"
    )
}

#[test]
fn a_damped_spring_has_the_closed_form_roots() {
    // m ẍ + c ẋ + k x = 0: s = −c/(2m) ± i √(k/m − (c/2m)²); across the spring two zero roots
    let (k, m, c) = (40.0f64, 0.5, 0.3);
    let (problem, _) = spec::parse(&damped_chain(1, c), "damped.yaml").unwrap();
    let report = ModesReport::initial(&problem).unwrap();
    let roots = &report.damped;
    assert_eq!(roots.len(), 3, "{roots:?}");
    let last = &roots[2];
    assert!((last.re + c / (2.0 * m)).abs() < 1e-12, "{last:?}");
    assert!((last.im - (k / m - (c / (2.0 * m)).powi(2)).sqrt()).abs() < 1e-12);
    assert!((last.omega_n - (k / m).sqrt()).abs() < 1e-12);
    assert!((last.damping_ratio - c / (2.0 * (k * m).sqrt())).abs() < 1e-12);
    assert!(roots[0].omega_n.abs() < 1e-6 && roots[1].omega_n.abs() < 1e-6);
}

#[test]
fn damped_roots_solve_the_quadratic_eigenproblem_with_non_proportional_damping() {
    // three masses along x with damped springs: D is not a combination of M and K
    let (problem, _) = spec::parse(&damped_chain(3, 2.5), "damped.yaml").unwrap();
    let q = problem.initial_values().unwrap().state.q;
    let lin = Linearization::at_rest(&problem, &q).unwrap();
    let [m, d, k] = lin.reduced();
    let roots = lin.damped_modes().unwrap();
    let oscillating: Vec<_> = roots.iter().filter(|r| r.im > 1e-6).collect();
    assert_eq!(oscillating.len(), 3, "{roots:?}");
    let c = |x: &DMatrix<f64>| x.map(|v| Complex::new(v, 0.0));
    let (mc, dc, kc) = (c(&m), c(&d), c(&k));
    for r in oscillating {
        let s = Complex::new(r.re, r.im);
        let a = &mc * (s * s) + &dc * s + &kc;
        // the smallest singular value of s²M + sD + K, relative to its largest
        let sv = a.svd(false, false).singular_values;
        let rel = sv.min() / sv.max();
        assert!(rel < 1e-12, "root {s}: σ_min/σ_max = {rel:.3e}");
        assert!(r.re < 0.0 && r.damping_ratio > 0.0 && r.damping_ratio < 1.0);
    }
}

#[test]
fn modes_about_the_equilibrium_and_their_point_shapes() {
    // Mechanism0 starts horizontal (not at rest); about its equilibrium nothing accelerates
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let (problem, _) = spec::parse(&text, "mechanism0.yaml").unwrap();
    let initial = ModesReport::initial(&problem).unwrap();
    assert!(initial.max_acceleration > 1.0);
    let report = ModesReport::equilibrium(&problem).unwrap();
    assert_eq!(report.at, "equilibrium");
    assert!(
        report.max_acceleration < 1e-9,
        "{}",
        report.max_acceleration
    );
    assert!(report.modes.iter().all(|m| m.kind == ModeKind::Oscillating));
    // the points A and B are the coordinates themselves: their displacements are the shapes
    assert_eq!(report.points, ["A", "B"]);
    for (mode, shapes) in report.modes.iter().zip(&report.point_shapes) {
        for (p, name) in report.points.iter().enumerate() {
            for (k, axis) in ["x", "y"].iter().enumerate() {
                let i = (report.coordinates.iter())
                    .position(|c| *c == format!("{name}.{axis}"))
                    .unwrap();
                assert!((shapes[p][k] - mode.shape[i]).abs() < 1e-9 * (1.0 + mode.shape[i].abs()));
            }
        }
    }
}

#[test]
fn a_mode_is_shown_on_the_constraint_manifold() {
    let text = std::fs::read_to_string("mechanisms/double_pendulum.yaml").unwrap();
    let (problem, _) = spec::parse(&text, "double_pendulum.yaml").unwrap();
    let report = ModesReport::equilibrium(&problem).unwrap();
    let dir = common::tmp("mode-motion");
    let motion = mode_to_folder(&problem, &report, 2, Some(0.5), &dir).unwrap();
    assert!((motion.period - 2.0 * std::f64::consts::PI / report.modes[1].omega).abs() < 1e-12);
    let (names, rows) = common::trajectory(&dir);
    assert_eq!(rows.len(), 121);
    assert!((rows[120][0] - 2.0 * motion.period).abs() < 1e-12);
    // every frame keeps the rods' lengths (projected back onto the constraints)
    let col = |n: &str| names.iter().position(|c| c == n).unwrap();
    let (ax, ay, bx, by) = (col("A.x"), col("A.y"), col("B.x"), col("B.y"));
    let len = |r: &Vec<f64>| [r[ax].hypot(r[ay]), (r[bx] - r[ax]).hypot(r[by] - r[ay])];
    let l0 = len(&rows[0]);
    let moved = rows
        .iter()
        .map(|r| (r[bx] - rows[0][bx]).abs())
        .fold(0.0, f64::max);
    assert!(moved > 0.05, "the mode moves B by {moved}");
    for r in &rows {
        let l = len(r);
        assert!(
            (l[0] - l0[0]).abs() < 1e-12 && (l[1] - l0[1]).abs() < 1e-12,
            "{l:?}"
        );
    }
    let err = mode_to_folder(&problem, &report, 3, None, &dir).unwrap_err();
    assert!(err.to_string().contains("modes 1 to 2"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_modes_command_animates_a_mode_about_the_equilibrium() {
    let dir = common::tmp("modes-animate");
    let out = dir.join("out");
    let o = common::run(
        &[
            "modes",
            "mechanisms/mechanism0.yaml",
            "--at",
            "equilibrium",
            "--animate",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))),
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.contains("linearized about the equilibrium configuration"),
        "{text}"
    );
    assert!(out.join("modes.json").exists());
    assert!(out.join("mode-1").join("animation.html").exists());
    assert!(out.join("mode-1").join("mode.json").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn andrews_mechanism_at_rest_oscillates_at_its_mode_frequency() {
    // Andrews' squeezer (7 bodies, 7 rigidity constraints, 1 degree of freedom) without its
    // driving torque comes to rest against its spring; started there with a small velocity
    // along its one mode, the simulated period matches 2π/ω (the issue asks 0.5 %)
    let text = std::fs::read_to_string("mechanisms/andrews.yaml").unwrap();
    let (problem, _) = spec::parse(&text, "andrews.yaml").unwrap();
    let problem = problem.with_parameters(&[("mom", 0.0)]).unwrap();
    // the published initial point is itself an equilibrium without the torque, an unstable
    // one (the spring at its longest); the crank turned on, the search finds the stable one
    let eq = problem.equilibrium().unwrap();
    assert_eq!(eq.stability, lagrangian::analysis::Stability::Unstable);
    let mut problem = problem;
    problem.pinned_q.clear();
    problem.pinned_v.clear();
    let (x, y) = (problem.q_guess[0], problem.q_guess[1]);
    problem.q_guess[0] = x * 1f64.cos() - y * 1f64.sin();
    problem.q_guess[1] = x * 1f64.sin() + y * 1f64.cos();
    let report = ModesReport::equilibrium(&problem).unwrap();
    assert_eq!(report.modes.len(), 1);
    let mode = &report.modes[0];
    assert_eq!(mode.kind, ModeKind::Oscillating);
    let eq = problem.equilibrium().unwrap();
    assert_eq!(eq.stability, lagrangian::analysis::Stability::Stable);
    let q0 = eq.q;
    let n = q0.len();
    let eps = 1e-4 / mode.shape.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let v0: Vec<f64> = mode.shape.iter().map(|x| eps * x * mode.omega).collect();
    let period = 2.0 * std::f64::consts::PI / mode.omega;
    let h = period / 4000.0;
    let sim = problem
        .clone()
        .guess(&q0, &v0)
        .pin_q(0..n)
        .pin_v(0..n)
        .t_end(6.0 * period);
    let mut rec = lagrangian::output::sink::ColumnRecorder::every(1);
    let method = lagrangian::solve::GenAlphaOptions::new(h);
    let mut s = lagrangian::simulation::Simulation::new(sim, method).unwrap();
    s.run(&mut [&mut rec]).unwrap();
    let t = rec.column("t").unwrap();
    let x = rec.column("F.x").unwrap();
    let x0 = x[0];
    // upward crossings of F.x through its rest value, linearly interpolated
    let ups: Vec<f64> = (1..x.len())
        .filter(|&i| x[i - 1] < x0 && x[i] >= x0)
        .map(|i| t[i - 1] + (t[i] - t[i - 1]) * (x0 - x[i - 1]) / (x[i] - x[i - 1]))
        .collect();
    assert!(ups.len() >= 4, "{} crossings", ups.len());
    let simulated = (ups[ups.len() - 1] - ups[0]) / (ups.len() - 1) as f64;
    let rel = (simulated / period - 1.0).abs();
    eprintln!(
        "Andrews: ω = {:.4} rad/s, simulated period {simulated:.6e} vs {period:.6e} ({rel:.1e})",
        mode.omega
    );
    assert!(rel < 1e-3, "period {simulated} vs {period} ({rel:.2e})");
}
