//! Static equilibrium: a chain of rods hanging between two supports against its closed-form
//! discrete catenary, Mechanism0 at rest, a flat membrane (singular stiffness at the start),
//! the inverted pendulum (unstable), held pins and an unsupported mass (no equilibrium).

use lagrangian::analysis::{Equilibrium, EquilibriumOptions, Stability};
use lagrangian::assembly;
use lagrangian::error::{AnalysisError, Error};
use lagrangian::solve::Problem;

/// A mechanism file's problem (its plan does not matter for equilibria).
fn parse(text: &str, file: &str) -> Result<Problem, lagrangian::error::SpecError> {
    lagrangian::spec::parse(text, file).map(|(p, _)| p)
}

const G: f64 = 9.81;

fn coord(p: &lagrangian::solve::Problem, name: &str) -> usize {
    let names = p.model.coordinate_names();
    names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no coordinate {name} in {names:?}"))
}

/// The discrete catenary: `N` rods of length `ℓ` between supports at `(0, 0)` and `(S, 0)`,
/// a unit mass at each inner joint. The horizontal tension `H` is the same in every rod; rod
/// `k` carries the vertical force `m g ((N−1)/2 − k)`, so `tan θ_k = m g ((N−1)/2 − k) / H`,
/// and `H` solves `Σ ℓ cos θ_k = S` (bisection to round-off). Returns the joints.
fn discrete_catenary(n: usize, l: f64, span: f64) -> Vec<[f64; 2]> {
    let slope = |k: usize, h: f64| G * ((n as f64 - 1.0) / 2.0 - k as f64) / h;
    let width = |h: f64| {
        (0..n)
            .map(|k| l / (1.0 + slope(k, h).powi(2)).sqrt())
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (1e-6f64, 1e6f64);
    for _ in 0..300 {
        let mid = (lo * hi).sqrt();
        if width(mid) < span {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let h = 0.5 * (lo + hi);
    let mut p = vec![[0.0, 0.0]];
    for k in 0..n {
        let s = slope(k, h);
        let c = 1.0 / (1.0 + s * s).sqrt();
        let last = p[k];
        p.push([last[0] + l * c, last[1] - l * s * c]);
    }
    p
}

#[test]
fn a_chain_of_rods_hangs_in_its_discrete_catenary() {
    // ten unit rods from A = (0, 0) to K = (6, 0), started as a U: down, across, up
    let names = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"];
    let start = [
        (0, 0),
        (0, -1),
        (0, -2),
        (1, -2),
        (2, -2),
        (3, -2),
        (4, -2),
        (5, -2),
        (6, -2),
        (6, -1),
        (6, 0),
    ];
    let particles: Vec<String> = names[1..10].iter().map(|n| format!("{n}: 1")).collect();
    let bars: Vec<String> = (0..10)
        .map(|k| format!("{}{}: 1", names[k], names[k + 1]))
        .collect();
    let guesses: Vec<String> = (1..10)
        .map(|k| format!("{}: [{}, {}]", names[k], start[k].0, start[k].1))
        .collect();
    let text = format!(
        "Dimension: 2\nPartData:\n  Fixed: {{ A: [0, 0], K: [6, 0] }}\n  Particles: {{ {} }}\n  \
         Bars: {{ {} }}\nAppliedForces: {{ Gravity: }}\nProblemData: {{ tend: 1, positions: {{ {} }} }}\n",
        particles.join(", "),
        bars.join(", "),
        guesses.join(", ")
    );
    let problem = parse(&text, "catenary.yaml").unwrap();
    let eq = Equilibrium::find(&problem, &EquilibriumOptions::default()).unwrap();
    let exact = discrete_catenary(10, 1.0, 6.0);
    let mut err = 0.0f64;
    for k in 1..10 {
        let x = eq.q[coord(&problem, &format!("{}.x", names[k]))];
        let y = eq.q[coord(&problem, &format!("{}.y", names[k]))];
        err = err
            .max((x - exact[k][0]).abs())
            .max((y - exact[k][1]).abs());
    }
    assert!(err < 1e-10, "distance from the discrete catenary {err:.3e}");
    assert_eq!(eq.stability, Stability::Stable);
    assert!(eq.constraint_residual < 1e-12, "{}", eq.constraint_residual);
    // the supports carry the whole weight: the bar multipliers at the ends balance 9 m g
    assert!(
        eq.path.len() >= 2 && eq.iterations < 100,
        "{}",
        eq.iterations
    );
}

#[test]
fn mechanism0_comes_to_rest_hanging_straight_down() {
    // rod OA (L = 1), a massive spring AB (k = 500, ℓ = 1, μ = 0.5) and a particle B (m = 2):
    // at rest A = (0, −L) and the spring carries m g plus half its own weight
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let problem = parse(&text, "mechanism0.yaml").unwrap();
    let eq = Equilibrium::find(&problem, &EquilibriumOptions::default()).unwrap();
    let (m, mu, k) = (2.0, 0.5, 500.0);
    let stretch = (m + mu / 2.0) * G / k;
    let at = |name: &str| eq.q[coord(&problem, name)];
    let want = [
        ("A.x", 0.0),
        ("A.y", -1.0),
        ("B.x", 0.0),
        ("B.y", -2.0 - stretch),
    ];
    for (name, value) in want {
        assert!(
            (at(name) - value).abs() < 1e-12,
            "{name} = {} (want {value})",
            at(name)
        );
    }
    assert_eq!(eq.stability, Stability::Stable);
    assert_eq!(eq.hessian_eigenvalues.len(), 3);
}

#[test]
fn a_flat_membrane_sags_from_a_singular_start() {
    // springs at their rest lengths in a plane: no stiffness across it at the start
    let text = "Dimension: 3\nPartData:\n  Grids:\n    P: { n: [5, 5], spacing: [0.2, 0.2], \
                origin: [0, 0, 0], mass: 0.01, stiffness: 100, rim: fixed }\n\
                AppliedForces: { Gravity: }\nProblemData: { tend: 1 }\n";
    let problem = parse(text, "membrane.yaml").unwrap();
    let lin = lagrangian::analysis::Linearization::at_rest(&problem, &problem.q_guess).unwrap();
    let zero_stiffness = lin
        .modes()
        .unwrap()
        .iter()
        .filter(|m| m.omega == 0.0)
        .count();
    assert_eq!(
        zero_stiffness, 25,
        "the flat start has no stiffness across the plane"
    );
    let eq = Equilibrium::find(&problem, &EquilibriumOptions::default()).unwrap();
    assert_eq!(eq.stability, Stability::Stable);
    assert!(eq.residual <= 1e-11 * eq.force_scale, "{}", eq.residual);
    // symmetric under the grid's mirror images, lowest in the middle
    let z = |i: usize, j: usize| eq.q[coord(&problem, &format!("P_{i}_{j}.z"))];
    for i in 1..=5 {
        for j in 1..=5 {
            assert!((z(i, j) - z(6 - i, j)).abs() < 1e-12);
            assert!((z(i, j) - z(j, i)).abs() < 1e-12);
            assert!(z(i, j) >= z(3, 3) && z(i, j) < 0.0);
        }
    }
    // a minimum of the potential: every small displacement raises it
    let v = |q: &[f64]| assembly::energies(&problem.model, 0.0, q, &vec![0.0; q.len()])[1];
    let v0 = v(&eq.q);
    for k in 0..eq.q.len() {
        for s in [-1e-4, 1e-4] {
            let mut q = eq.q.clone();
            q[k] += s;
            assert!(v(&q) > v0, "coordinate {k} by {s}");
        }
    }
}

fn pendulum(x: f64, y: f64) -> lagrangian::solve::Problem {
    let text = format!(
        "Dimension: 2\nPartData: {{ Fixed: {{ O: [0, 0] }}, Particles: {{ A: 1 }}, Bars: {{ OA: 2 }} }}\n\
         AppliedForces: {{ Gravity: }}\nProblemData: {{ tend: 1, positions: {{ A: [{x}, {y}] }} }}\n"
    );
    parse(&text, "pendulum.yaml").unwrap()
}

#[test]
fn the_inverted_pendulum_is_an_unstable_equilibrium() {
    let eq = Equilibrium::find(&pendulum(0.0, 2.0), &EquilibriumOptions::default()).unwrap();
    assert_eq!(eq.q, [0.0, 2.0]);
    assert_eq!(eq.stability, Stability::Unstable);
    // H = −m g / ℓ along the circle
    assert!((eq.hessian_eigenvalues[0] + G / 2.0).abs() < 1e-12);
    // nudged, it falls to the bottom
    let eq = Equilibrium::find(&pendulum(0.01, 2.0), &EquilibriumOptions::default()).unwrap();
    assert!(
        eq.q[0].abs() < 1e-12 && (eq.q[1] + 2.0).abs() < 1e-12,
        "{:?}",
        eq.q
    );
    assert_eq!(eq.stability, Stability::Stable);
    assert!((eq.hessian_eigenvalues[0] - G / 2.0).abs() < 1e-12);
}

#[test]
fn held_pins_stay_and_report_the_force_that_holds_them() {
    // Mechanism0 with A.x and B held at their guesses: A = (1, 0), B = (2, 0), the spring at
    // its rest length; the hand at B carries B's weight and half the spring's
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let problem = parse(&text, "mechanism0.yaml").unwrap();
    let opts = EquilibriumOptions {
        hold_pins: true,
        ..EquilibriumOptions::default()
    };
    let eq = Equilibrium::find(&problem, &opts).unwrap();
    let by = coord(&problem, "B.y");
    let k = eq.held.iter().position(|&i| i == by).unwrap();
    assert!(
        (eq.holding_forces[k] - 2.25 * G).abs() < 1e-12,
        "{:?}",
        eq.holding_forces
    );
    assert!((eq.q[coord(&problem, "A.x")] - 1.0).abs() < 1e-15);
}

#[test]
fn an_unsupported_mass_has_no_equilibrium() {
    let text = "Dimension: 2\nPartData: { Particles: { A: 1 } }\nAppliedForces: { Gravity: }\n\
                ProblemData: { tend: 1, positions: { A: [0, 0] } }\n";
    let problem = parse(text, "falling.yaml").unwrap();
    let err = Equilibrium::find(&problem, &EquilibriumOptions::default()).unwrap_err();
    match &err {
        Error::Analysis(AnalysisError::NoEquilibrium { detail, .. }) => {
            assert!(detail.contains("supported"), "{err}")
        }
        e => panic!("{e}"),
    }
}

use crate::common;

/// A directory path that does not exist yet (the command creates it), removed after the test.
fn temp(name: &str) -> common::TmpDir {
    let d = common::tmp(&format!("eq-{name}"));
    std::fs::remove_dir(&d).unwrap();
    d
}

#[test]
fn the_equilibrium_command_writes_the_report_the_scene_and_the_search() {
    let out = temp("cli");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_lagrangian"))
        .args([
            "equilibrium",
            "mechanisms/mechanism0.yaml",
            "--animate",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("stable equilibrium"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("equilibrium.json")).unwrap())
            .unwrap();
    assert_eq!(json["stability"], "stable");
    let by = json["coordinates"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c == "B.y")
        .unwrap();
    let want = -2.0 - 2.25 * G / 500.0;
    assert!((json["q"][by].as_f64().unwrap() - want).abs() < 1e-12);
    // the rod carries the particle, the spring and half its own weight (its centroid is at ℓ/2)
    let rod = &json["constraints"][0];
    let fy = rod["reaction"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == "A.y")
        .unwrap()[1]
        .as_f64()
        .unwrap();
    assert!((fy - (2.0 + 0.5 + 0.5) * G).abs() < 1e-10, "{fy}");
    // the last row of the search is the equilibrium
    let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let last: Vec<f64> = csv
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    let col = header.iter().position(|c| *c == "B.y").unwrap();
    assert!((last[col] - want).abs() < 1e-11);
    assert!(out.join("scene.json").exists() && out.join("animation.html").exists());
}

#[test]
fn the_equilibrium_command_says_why_there_is_none() {
    let dir = temp("none");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("falling.yaml");
    std::fs::write(
        &file,
        "Dimension: 2\nPartData: { Particles: { A: 1 } }\nAppliedForces: { Gravity: }\n\
         ProblemData: { tend: 1, positions: { A: [0, 0] } }\n",
    )
    .unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_lagrangian"))
        .arg("equilibrium")
        .arg(&file)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(
        stderr.contains("no equilibrium") && stderr.contains("supported"),
        "{stderr}"
    );
    assert!(!dir.join("out").join("equilibrium.json").exists());
}

/// PHYS389's double spherical pendulum (its TOML as bundled) and the same with one pendulum:
/// each rests hanging straight down, where the first rod's angles (polar axis z) are singular
/// — the search changes charts as a run does and finds it, stable, at the potential
/// `−g Σ m_i (ℓ_1 + … + ℓ_i)`.
#[test]
fn spherical_pendulums_rest_hanging_down_at_their_charts_pole() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/mechanisms/phys389_config.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let second = text.find("[[system.sim.pendula]]").unwrap();
    let second = second + text[second + 1..].find("[[system.sim.pendula]]").unwrap() + 1;
    let plot = text.rfind("[system.plot]").unwrap();
    let single = format!("{}{}", &text[..second], &text[plot..]);
    let cases = [
        (text.clone(), -G * (1.0 * 1.0 + 0.5 * (1.0 + 0.8))),
        (single, -G * 1.0 * 1.0),
    ];
    for (toml, expected) in cases {
        let dir = std::env::temp_dir().join(format!("eq-chain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("chain.toml");
        std::fs::write(&file, &toml).unwrap();
        let (problem, _) = lagrangian::spec::load(&file).unwrap();
        let eq = Equilibrium::find(&problem, &EquilibriumOptions::default()).unwrap();
        let p = eq.problem.as_ref().unwrap_or(&problem);
        let zeros = vec![0.0; eq.q.len()];
        let [_, v, _] = assembly::energies(&p.model, eq.t, &eq.q, &zeros);
        assert!((v - expected).abs() < 1e-8, "V = {v}, expected {expected}");
        assert_eq!(eq.stability, Stability::Stable);
        assert!(eq.problem.is_some(), "the chart changed on the way");
    }
}
