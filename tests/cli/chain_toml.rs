//! The PHYS389 N-pendulum simulator's own `config.toml`: it runs unmodified and moves as the
//! same chain written as YAML; its `[system.plot]` toggles choose the panels of
//! `lagrangian plot`; the per-pendulum columns add up to the totals; mistakes name their place.

use crate::common;
use common::*;
use lagrangian::prelude::*;

const YAML: &str = "title: double spherical pendulum\ng: 9.81\ntimedelta: 0.001\nsteps: 5000\npendula:\n\
  - { length: 1.0, mass: 1.0, theta: 1.0, phi: 0.0, theta_dot: 0, phi_dot: 1.5, z_polar: true }\n\
  - { length: 0.8, mass: 0.5, theta: 2*pi/3, phi: 0.3, theta_dot: 0, phi_dot: 0, z_polar: false }\n";

#[test]
fn the_toml_configuration_moves_as_the_same_chain_in_yaml() {
    let (toml, toml_plan) =
        lagrangian::spec::load(std::path::Path::new(&mech("phys389_config.toml"))).unwrap();
    let (yaml, yaml_plan) = lagrangian::spec::parse(YAML, "chain.yaml").unwrap();
    let a = simulate(&toml, toml_plan.method.clone()).unwrap();
    let b = simulate(&yaml, yaml_plan.method.clone()).unwrap();
    assert_eq!(a.records.len(), b.records.len());
    assert_eq!(a.stats.restarts, b.stats.restarts);
    assert!(a.stats.restarts >= 3, "the rods change chart");
    for (x, y) in a.records.iter().zip(&b.records) {
        assert_eq!(x.state.t, y.state.t);
        assert!((x.energy - y.energy).abs() < 1e-12);
    }
}

#[test]
fn plot_toggles_choose_the_panels_and_the_pendulum_columns_add_up() {
    let out = tmp("toml-run");
    let o = run(
        &[
            "run",
            &mech("phys389_config.toml"),
            "--t-end",
            "2",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&out);
    let panels: Vec<(String, Vec<String>)> = s["outputs"]["plots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let cols = p["columns"].as_array().unwrap();
            let cols = cols
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            (p["title"].as_str().unwrap().to_string(), cols)
        })
        .collect();
    let expect: Vec<(&str, Vec<&str>)> = vec![
        ("x", vec!["P1.x", "P1.y", "P1.z", "P2.x", "P2.y", "P2.z"]),
        ("theta", vec!["theta1", "theta2"]),
        ("phi", vec!["phi1", "phi2"]),
        ("zPolar", vec!["chart1", "chart2"]),
        ("KE", vec!["KE1", "KE2"]),
        ("PE", vec!["PE1", "PE2"]),
        ("totalAM", vec!["Lz"]),
        ("totalME", vec!["total"]),
    ];
    assert_eq!(panels.len(), expect.len(), "{panels:?}");
    for ((t, c), (et, ec)) in panels.iter().zip(&expect) {
        assert_eq!(
            (t.as_str(), c.iter().map(String::as_str).collect::<Vec<_>>()),
            (*et, ec.clone())
        );
    }
    // lagrangian plot draws exactly those panels
    let o = run(&["plot", out.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(out.join("plot.svg")).unwrap();
    // the texts of the picture: panel titles, legends, axis labels
    let texts: Vec<&str> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim()))
        .collect();
    for (t, cols) in &expect {
        assert!(texts.contains(t), "panel {t}");
        for c in cols {
            assert!(texts.contains(c), "legend {c}");
        }
    }
    for absent in ["P1.vx", "ME1", "|P|", "kinetic", "p1.x"] {
        assert!(!texts.contains(&absent), "{absent} drawn");
    }
    assert!(texts.contains(&"energy [J]") && texts.contains(&"chart (1: z-polar, 0: x-polar)"));
    // each pendulum's momentum and energy add up to the totals; charts are 0 or 1
    let (header, rows) = trajectory(&out);
    let col = |n: &str| {
        header
            .iter()
            .position(|h| h == n)
            .unwrap_or_else(|| panic!("{n}"))
    };
    for r in &rows {
        let sum = |f: &dyn Fn(usize) -> String| (1..=2).map(|i| r[col(&f(i))]).sum::<f64>();
        assert!((sum(&|i| format!("KE{i}")) - r[col("kinetic")]).abs() < 1e-9);
        assert!((sum(&|i| format!("PE{i}")) - r[col("potential")]).abs() < 1e-9);
        assert!((sum(&|i| format!("L{i}.z")) - r[col("Lz")]).abs() < 1e-9);
        assert!((sum(&|i| format!("p{i}.x")) - r[col("Px")]).abs() < 1e-9);
        for i in 1..=2 {
            let me = r[col(&format!("KE{i}"))] + r[col(&format!("PE{i}"))];
            assert!((r[col(&format!("ME{i}"))] - me).abs() < 1e-9);
            assert!(r[col(&format!("chart{i}"))] == 0.0 || r[col(&format!("chart{i}"))] == 1.0);
        }
    }
    // a chart switch shows in the chart column
    let c2: Vec<f64> = rows.iter().map(|r| r[col("chart2")]).collect();
    assert!(c2.contains(&0.0) && c2.contains(&1.0));
}

#[test]
fn the_older_layout_with_units_reads_too() {
    // settings directly in [system], angles as [value, unit], zPole
    let text = "[system]\ng = 9.81\ntimedelta = 0.001\nsteps = 10\nfilename = \"old\"\n\
                [[system.pendula]]\nlength = 1\nmass = 1\ntheta = [0.25, 'p']\nphi = [30, 'd']\n\
                thetadot = [0, 'r']\nphidot = [1, 'r']\nzPole = true\n";
    let c = lagrangian::spec::parse_chain(text, "config.toml").unwrap();
    let r = &c.chain.rods[0];
    assert!((r.theta - std::f64::consts::FRAC_PI_4).abs() < 1e-15);
    assert!((r.phi - 30f64.to_radians()).abs() < 1e-15 && r.phi_dot == 1.0);
    assert_eq!(c.title, "old");
}

/// TOML has no bare expressions: a quoted value is one, as in the YAML files (`theta = "pi/4"`,
/// `g = "9.81"`); a quoted word that is no expression is refused at its line.
#[test]
fn quoted_values_are_expressions() {
    let plain = "[system.sim]\ng = 9.81\ntimedelta = 0.001\nsteps = 10\n\
                 [[system.sim.pendula]]\nlength = 1.0\nmass = 1.0\ntheta = 0.7853981633974483\nphi = 0.0\n";
    let quoted = plain
        .replace("g = 9.81", "g = \"9.81\"")
        .replace("theta = 0.7853981633974483", "theta = \"pi/4\"")
        .replace("steps = 10", "steps = \"2*5\"");
    let (a, b) = (
        lagrangian::spec::parse_chain(plain, "a.toml").unwrap(),
        lagrangian::spec::parse_chain(&quoted, "b.toml").unwrap(),
    );
    assert_eq!((a.chain.g, a.steps), (b.chain.g, b.steps));
    assert_eq!(a.chain.rods[0].theta, b.chain.rods[0].theta);
    let e = lagrangian::spec::parse(&plain.replace("g = 9.81", "g = \"fast\""), "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("c.toml:2:1") && e.contains("'fast'"), "{e}");
}

#[test]
fn toml_mistakes_name_their_place() {
    let good = "[system.sim]\ng = 9.81\ntimedelta = 0.001\nsteps = 10\n\
                [[system.sim.pendula]]\nlength = 1.0\nmass = 1.0\ntheta = 1.0\nphi = 0.0\n";
    for (text, place, part) in [
        ("[system.sim\ng = 1\n", "c.toml:1:", "not valid TOML"),
        ("title = \"x\"\n", "c.toml:1:1", "missing table [system]"),
        (
            "[system.sim]\ng = 9.81\ntimedelta = 0.001\nsteps = 2\n",
            "c.toml:1:1",
            "no pendulums: the chain needs [[system.sim.pendula]]",
        ),
        (
            "color = 1\n[system.sim]\n",
            "c.toml:1:1",
            "unknown key 'color'",
        ),
        (
            &good.replace("theta = 1.0", "theta = [1, 'g']"),
            "c.toml:8:1",
            "unknown angle unit 'g'",
        ),
        (
            &good.replace("mass = 1.0", "mass = -1.0"),
            "c.toml:7:1",
            "pendulum 1: the mass must be positive, got -1",
        ),
        (
            &good.replace("length = 1.0", "length = 0.0"),
            "c.toml:6:1",
            "pendulum 1: the length must be positive, got 0",
        ),
        (
            &format!("{good}[system.plot]\nx = 3\n"),
            "c.toml:11:1",
            "expected true, false or a list",
        ),
        (
            &good.replace("steps = 10", "steps = -1"),
            "c.toml:4:1",
            "steps",
        ),
    ] {
        let e = lagrangian::spec::parse(text, "c.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(place) && e.contains(part), "{text}\n→ {e}");
    }
}

/// A pendulum chain is drawn with its support and rods: the scene has the fixed support `O`
/// at the origin and a rod from it to the first bob and from each bob to the next, and the
/// movie's rods join positions one rod length apart in every frame.
#[test]
fn a_chain_is_drawn_with_its_support_and_rods() {
    let out = tmp("chain-rods");
    let o = run(
        &[
            "run",
            &mech("phys389_config.toml"),
            "--t-end",
            "0.2",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let movie = lagrangian::view::movie::Movie::load(&out, &Default::default()).unwrap();
    let points = &movie.scene.points;
    assert_eq!(points[0].name, "O");
    assert_eq!(
        points[0].kind,
        lagrangian::output::scene::ScenePointKind::Fixed
    );
    assert_eq!(movie.fixed[0], Some([0.0; 3]));
    let bobs = points.len() - 1;
    assert!(bobs >= 2 && movie.links.len() == bobs, "{:?}", movie.links);
    for (k, (_, [a, b], kind)) in movie.links.iter().enumerate() {
        assert_eq!(
            (*a, *b, *kind),
            (k, k + 1, lagrangian::output::scene::LinkKind::Bar)
        );
        // the same length in every frame
        let len = |f: usize| {
            let (p, q) = (
                movie.position(*a, f).unwrap(),
                movie.position(*b, f).unwrap(),
            );
            (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>().sqrt()
        };
        for f in 1..movie.frames.len() {
            assert!((len(f) - len(0)).abs() < 1e-9 * len(0), "rod {k} frame {f}");
        }
    }
}
