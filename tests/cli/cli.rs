//! The `lagrangian` command line: bundled mechanisms run and write complete results; `check`
//! reports the model; bad input ends with `file:line:column`, the field, a non-zero exit code and
//! no output file.

use crate::common;
use common::*;
use std::path::Path;
use std::process::Command;

#[test]
fn bundled_mechanisms_run_and_write_complete_results() {
    for (file, t_end, dof) in [
        ("mechanism0.yaml", "1", 3),
        ("double_pendulum.yaml", "1", 2),
        ("n_pendulum.yaml", "0.5", 10),
        ("hanging_chain.yaml", "1", 30),
        ("bridge.yaml", "0.5", 30),
        ("cloth.yaml", "0.02", 24300),
        ("andrews.yaml", "0.001", 1),
        ("rod_pendulum.yaml", "1", 2),
        ("double_pendulum_springs.yaml", "0.5", 4),
        ("double_pendulum_chain.yaml", "0.5", 28),
        ("kreisel.yaml", "0.5", 36),
        ("rscr.yaml", "0.5", 1),
        ("tennis_racket.yaml", "0.5", 6),
        ("two_bodies.yaml", "0.2", 12),
        ("puma560.yaml", "0.05", 0),
    ] {
        let out = run_bundled(file, t_end);
        let s = summary(&out);
        for key in [
            "steps",
            "newton_iterations",
            "build_seconds",
            "solve_seconds",
            "max_constraint_residual",
            "energy_drift",
            "dof",
        ] {
            assert!(s.get(key).is_some(), "{file}: summary lacks {key}");
        }
        assert_eq!(s["dof"].as_u64(), Some(dof), "{file}");
        assert!(
            s["max_constraint_residual"].as_f64().unwrap() < 1e-9,
            "{file}: {s}"
        );
        let (header, rows) = trajectory(&out);
        assert_eq!(header[0], "t");
        let energies = ["kinetic", "potential", "total", "max_constraint_residual"];
        let k = header.iter().position(|h| h == "kinetic").unwrap();
        assert_eq!(&header[k..k + 4], energies, "{file}");
        let ledger = [
            "work_forces",
            "work_drives",
            "work_time",
            "dissipated",
            "balance_error",
        ];
        assert_eq!(&header[header.len() - 5..], ledger, "{file}");
        assert!(
            rows.len() >= 2 && rows.iter().all(|r| r.len() == header.len()),
            "{file}"
        );
        let t_last = rows.last().unwrap()[0];
        assert!(
            (t_last - t_end.parse::<f64>().unwrap()).abs() < 1e-9,
            "{file}: last t {t_last}"
        );
        // no partial directory left behind
        assert!(std::fs::read_dir(&out).unwrap().all(|e| {
            !e.unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".partial")
        }));
    }
}

#[test]
fn mechanism0_columns_and_energy() {
    let out = run_bundled("mechanism0.yaml", "2");
    let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.starts_with("t,A.x,A.y,B.x,B.y,A.vx,A.vy,B.vx,B.vy,lambda:rigid OA,"),
        "{header}"
    );
    assert!(
        header.contains(",Px,Py,|P|,Lz,kinetic,potential,total,max_constraint_residual,"),
        "{header}"
    );
    let s = summary(&out);
    // T(0) = ½ (M L²/3) ω² + μ/6 |v_A|² = 50/3 + 25/3 = 25 with ω = 10
    assert!((s["energy_start"].as_f64().unwrap() - 25.0).abs() < 1e-12);
    assert!(s["energy_drift"].as_f64().unwrap().abs() < 1e-3, "{s}");
}

#[test]
fn default_run_writes_into_out_and_says_what_next() {
    let cwd = tmp("default");
    let o = run(&[], Some(&cwd));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("out/mechanism0/trajectory.csv") && text.contains("next:"),
        "{text}"
    );
    assert!(cwd.join("out/mechanism0/summary.json").exists());
}

#[test]
fn check_reports_dof_and_initial_point() {
    let o = run(&["check", &mech("mechanism0.yaml")], None);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("degrees of freedom: 3"), "{text}");
    assert!(text.contains("redundant constraints: none"));
    assert!(text.contains("A.x") && text.contains("rigid OA"), "{text}");
    let o = run(&["check", &mech("n_pendulum.yaml")], None);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && text.contains("degrees of freedom: 10"),
        "{text}"
    );
}

/// Run a bad file: non-zero exit, the message names `file:line:column` and `field`, no output.
fn bad(yaml: &str, expect_loc: &str, expect_text: &[&str]) {
    let dir = tmp("bad");
    let file = dir.join("bad.yaml");
    std::fs::write(&file, yaml).unwrap();
    let out = dir.join("out");
    let o = run(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!o.status.success(), "accepted:\n{yaml}");
    let loc = format!("{}:{expect_loc}", file.display());
    assert!(err.contains(&loc), "expected '{loc}' in: {err}");
    for t in expect_text {
        assert!(err.contains(t), "expected '{t}' in: {err}");
    }
    assert!(
        !out.join("summary.json").exists() && !out.join("trajectory.csv").exists(),
        "{err}"
    );
}

const GOOD: &str = "Title: ok
Dimension: 2
PhysicalParams: { m: 1, l: 1 }
PartData:
  Fixed: { O: [0, 0] }
  Particles: { B: m }
  Bars: { OB: l }
AppliedForces:
  Gravity:
ProblemData:
  tend: 1
  positions: { B: [l, 0] }
";

#[test]
fn the_good_base_file_runs() {
    let dir = tmp("good");
    let file = dir.join("good.yaml");
    std::fs::write(&file, GOOD).unwrap();
    let o = run(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
            "--quiet",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn bad_input_is_reported_with_place_and_field() {
    // not YAML
    bad("Title: x\nDimension: [2\n", "3:1", &["not valid YAML"]);
    // unknown key
    bad(
        &GOOD.replace("  Bars:", "  Bras:"),
        "7:3",
        &["PartData.Bras", "unknown key 'Bras'"],
    );
    // missing field
    bad(
        &GOOD.replace("  tend: 1\n", ""),
        "10:1",
        &["ProblemData", "missing field 'tend'"],
    );
    // wrong type
    bad(
        &GOOD.replace("Particles: { B: m }", "Particles: { B: [1, 2] }"),
        "6:16",
        &["PartData.Particles.B", "expected a number"],
    );
    // undefined parameter
    bad(
        &GOOD.replace("Bars: { OB: l }", "Bars: { OB: 2*len }"),
        "7:11",
        &["PartData.Bars.OB", "undefined parameter 'len'"],
    );
    // division by zero
    bad(
        &GOOD.replace("{ m: 1, l: 1 }", "{ m: 1, l: 1/(m-1) }"),
        "3:25",
        &["PhysicalParams.l", "division by zero"],
    );
    // dimension mismatch
    bad(
        &GOOD.replace("Fixed: { O: [0, 0] }", "Fixed: { O: [0, 0, 0] }"),
        "5:12",
        &["PartData.Fixed.O", "expected 2 components"],
    );
    // a spring naming an unknown point
    bad(
        &GOOD.replace(
            "Bars: { OB: l }",
            "Bars: { OB: l }\n  Springs: { BC: [10, 1] }",
        ),
        "8:14",
        &["PartData.Springs.BC", "unknown point 'C'"],
    );
    // non-positive mass and length
    bad(
        &GOOD.replace("Particles: { B: m }", "Particles: { B: -m }"),
        "6:16",
        &["PartData.Particles.B", "mass must be positive"],
    );
    bad(
        &GOOD.replace("Bars: { OB: l }", "Bars: { OB: 0 }"),
        "7:11",
        &["PartData.Bars.OB", "length must be positive"],
    );
    // bad Dimension
    bad(
        &GOOD.replace("Dimension: 2", "Dimension: 4"),
        "2:1",
        &["Dimension", "must be 1, 2 or 3"],
    );
    // time not allowed in a constant
    bad(
        &GOOD.replace("Particles: { B: m }", "Particles: { B: m*t }"),
        "6:16",
        &["time t is not allowed"],
    );
}

#[test]
fn inconsistent_guess_and_newton_failure_keep_earlier_results() {
    // B pinned at distance 2 from O on a bar of length 1
    let yaml = GOOD.replace(
        "  positions: { B: [l, 0] }\n",
        "  positions: { B: [2, 0] }\n  fixedpositions: { B }\n",
    );
    let dir = tmp("inconsistent");
    let file = dir.join("m.yaml");
    std::fs::write(&file, yaml).unwrap();
    let out = dir.join("out");
    let o = run(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("cannot be satisfied") && err.contains("bar OB"),
        "{err}"
    );
    assert!(!out.join("summary.json").exists());
    // Newton failure: a huge step; the message names t and the step, and suggests more steps
    let out = tmp("newton");
    // an earlier complete result in the same directory survives a failed run unchanged
    // (results are replaced only by a run that completed)
    let o = run(
        &[
            "run",
            &mech("double_pendulum.yaml"),
            "--out",
            out.to_str().unwrap(),
            "--t-end",
            "0.1",
            "--quiet",
        ],
        None,
    );
    assert!(o.status.success() && out.join("summary.json").exists());
    let before = [
        std::fs::read(out.join("summary.json")).unwrap(),
        std::fs::read(out.join("trajectory.csv")).unwrap(),
    ];
    // a stale partial directory of a process that no longer exists is cleaned up
    let stale = out.join(".partial-4000000000");
    std::fs::create_dir_all(&stale).unwrap();
    let o = run(
        &[
            "run",
            &mech("double_pendulum.yaml"),
            "--out",
            out.to_str().unwrap(),
            "--steps",
            "2",
            "--quiet",
        ],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("at t = 5") && err.contains("step 1") && err.contains("--step 1.25e0"),
        "{err}"
    );
    let after = [
        std::fs::read(out.join("summary.json")).unwrap(),
        std::fs::read(out.join("trajectory.csv")).unwrap(),
    ];
    assert!(
        before == after,
        "the earlier result was changed by a failed run"
    );
    assert!(!stale.exists(), "stale partial directory left");
    // a step longer than the run is the run's length: the hint is smaller than that (it said
    // --step 1.25e0 after a step of 1 failed)
    let o = run(
        &[
            "run",
            &mech("mechanism0.yaml"),
            "--out",
            tmp("newton-long").to_str().unwrap(),
            "--step",
            "5",
            "--t-end",
            "1",
            "--quiet",
        ],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("at t = 1 (step 1)") && err.contains("--step 2.5e-1"),
        "{err}"
    );
    assert!(std::fs::read_dir(&out).unwrap().all(|e| {
        !e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(".partial")
    }));
    // a missing file
    let o = run(&["run", "/nonexistent/x.yaml"], None);
    assert!(
        !o.status.success()
            && String::from_utf8_lossy(&o.stderr).contains("/nonexistent/x.yaml:1:1")
    );
}

#[test]
fn rk4_from_the_command_line_agrees_with_generalized_alpha() {
    let (a, b) = (tmp("ga"), tmp("rk4"));
    let file = mech("hanging_chain.yaml");
    for (dir, integ) in [(&a, "genalpha"), (&b, "rk4")] {
        let o = run(
            &[
                "run",
                &file,
                "--out",
                dir.to_str().unwrap(),
                "--t-end",
                "0.5",
                "--steps",
                "1000",
                "--integrator",
                integ,
                "--quiet",
            ],
            None,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let last = |d: &Path| -> Vec<f64> {
        let csv = std::fs::read_to_string(d.join("trajectory.csv")).unwrap();
        csv.lines()
            .last()
            .unwrap()
            .split(',')
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let (ra, rb) = (last(&a), last(&b));
    // positions (columns 1..=30) agree to the generalized-α discretization error
    let d = ra[1..31]
        .iter()
        .zip(&rb[1..31])
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    assert!(d < 1e-3, "{d:.3e}");
    assert_eq!(summary(&b)["integrator"].as_str(), Some("rk4"));
    // RK4 on a constrained mechanism is refused clearly
    let o = run(
        &[
            "run",
            &mech("double_pendulum.yaml"),
            "--out",
            tmp("x").to_str().unwrap(),
            "--integrator",
            "rk4",
        ],
        None,
    );
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("unconstrained"));
}

#[test]
fn rod_pendulum_file_has_the_exact_period() {
    // g = 13.7503671: period 2 s; released horizontally at (1, 0, 0), at t = 1 it is at (−1, 0, 0)
    let (_, rows) = trajectory(&run_bundled("rod_pendulum.yaml", "1"));
    let last = rows.last().unwrap();
    assert!(
        (last[1] + 1.0).abs() < 1e-5 && last[2].abs() < 1e-2,
        "{last:?}"
    );
}

#[test]
fn kreisel_file_conserves_vertical_angular_momentum() {
    let (header, rows) = trajectory(&run_bundled("kreisel.yaml", "1"));
    let lz = header.iter().position(|c| c == "Lz").unwrap();
    let vals: Vec<f64> = rows.iter().map(|r| r[lz]).collect();
    // 12 masses of 0.1 kg at radius 1 with speed 4: Lz = 12 · 0.1 · 1 · 4 = 4.8
    assert!((vals[0] - 4.8).abs() < 1e-12, "{}", vals[0]);
    assert!(vals.iter().all(|v| (v - 4.8).abs() < 1e-4), "Lz drifted");
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    // `lagrangian run … | head -1`: the reader goes away; the run still completes its files
    use std::io::Read;
    use std::process::Stdio;
    let out = tmp("pipe");
    let mut child = bin()
        .args([
            "run",
            &mech("double_pendulum.yaml"),
            "--out",
            out.to_str().unwrap(),
            "--t-end",
            "0.2",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // close the read end at once
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(status.success(), "{err}");
    assert!(out.join("summary.json").exists());
}

#[test]
fn tennis_racket_flips_with_constant_angular_momentum() {
    // a free body spun about its intermediate axis (3D John–Ned body tracked by a point and two
    // vectors): the Noether charge L = Σ x × p over points and vectors stays put while the body
    // turns over
    let out = run_bundled("tennis_racket.yaml", "4");
    let (header, rows) = trajectory(&out);
    let col = |n: &str| header.iter().position(|c| c == n).unwrap();
    // vector coordinates are written by name, after the points
    assert!(header.iter().any(|c| c == "e1.x") && header.iter().any(|c| c == "Tip.y"));
    let l0 = rows[0][col("|L|")];
    // |L| = I2 w to first order: 0.2 * 4
    assert!((l0 - 0.8).abs() < 1e-3, "{l0}");
    for r in &rows {
        for c in ["Lx", "Ly", "Lz"] {
            assert!(
                (r[col(c)] - rows[0][col(c)]).abs() < 1e-5 * l0,
                "{c} at t = {}",
                r[0]
            );
        }
        // the centroid stays at rest
        assert!(r[col("A.x")].abs() < 1e-12 && r[col("Pz")].abs() < 1e-12);
    }
    // the intermediate axis e2 turns over (its world y component changes sign)
    let y = col("e2.y");
    assert!(rows[0][y] > 0.99);
    assert!(rows.iter().any(|r| r[y] < -0.9), "no flip before t = 4");
    let s = summary(&out);
    assert!(s["energy_drift"].as_f64().unwrap().abs() < 1e-6, "{s}");
}

const GOOD3: &str = "Title: pendulum with a prescribed slider
Dimension: 3
PhysicalParams: { L: 1 }
PartData:
  Fixed: { O: [0, 0, 0] }
  FixedVectors: { w: [0, 0, 1] }
  Points: [P]
  Scalars: [s]
  Define:
    Q: P + s*w
  Particles: { P: 1, Q: 2 }
  Equations:
    rod: dot(P - O, P - O) - L**2
    plane: P.z
    slide: s - 0.5*sin(t)
AppliedForces:
  Gravity: [0, -9.81, 0]
ProblemData:
  tend: 1
  positions: { P: [1, 0, 0], s: 0 }
";

#[test]
fn define_and_equations_run_and_bad_ones_are_reported_with_place() {
    let dir = tmp("good3");
    let file = dir.join("good3.yaml");
    std::fs::write(&file, GOOD3).unwrap();
    let out = dir.join("out");
    let o = run(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&out);
    assert_eq!(s["dof"].as_u64(), Some(1));
    // the scalar coordinate is a column; the prescribed slide s = ½ sin t holds
    let (header, rows) = trajectory(&out);
    let col = |n: &str| header.iter().position(|c| c == n).unwrap();
    let (ct, cs, qz) = (col("t"), col("s"), col("Q.z"));
    for r in &rows {
        assert!((r[cs] - 0.5 * r[ct].sin()).abs() < 1e-9);
        assert!((r[qz] - r[cs]).abs() < 1e-9);
    }

    bad(
        &GOOD3.replace("Q: P + s*w", "Q: P + s*u"),
        "10:5",
        &["PartData.Define.Q", "undefined name 'u'", "at character 7"],
    );
    bad(
        &GOOD3.replace("Q: P + s*w", "Q: P + s"),
        "10:5",
        &["PartData.Define.Q", "cannot add a vector and a scalar"],
    );
    bad(
        &GOOD3.replace("plane: P.z", "plane: P"),
        "14:5",
        &["PartData.Equations.plane", "must be a scalar"],
    );
    bad(
        &GOOD3.replace("plane: P.z", "plane: L - 1"),
        "14:5",
        &[
            "PartData.Equations.plane",
            "does not involve any coordinate",
        ],
    );
    bad(
        &GOOD3.replace("Scalars: [s]", "Scalars: [S]"),
        "8:13",
        &["PartData.Scalars.S", "lower-case"],
    );
    bad(
        &GOOD3.replace("Scalars: [s]", "Scalars: [s, L]"),
        "8:16",
        &["PartData.Scalars.L", "already a parameter"],
    );
    bad(
        &GOOD3.replace("Q: P + s*w", "Q: P + s*w\n    r: sqrt(s - 1)"),
        "11:5",
        &["PartData.Define.r", "not defined at the position guesses"],
    );
    bad(
        &GOOD3.replace("s: 0 }", "s: 0, Q: [1, 0, 0] }"),
        "20:36",
        &["ProblemData.positions.Q", "is derived"],
    );
    bad(
        &GOOD3.replace(", s: 0 }", " }"),
        "20:3",
        &["no position guess for s"],
    );
    bad(
        &GOOD3.replace("plane: P.z", "plane: dot(P, w) + cross(P, w)"),
        "14:5",
        &["cannot add a scalar and a vector"],
    );
}

#[test]
fn two_bodies_on_a_spring_conserve_momentum_angular_momentum_and_energy() {
    // two free 3D bodies, a spring between points derived on each (an element on all 18
    // coordinates), no gravity: P is conserved exactly by the discrete scheme (the spring
    // forces are equal and opposite), L and the energy to the discretization error
    let out = run_bundled("two_bodies.yaml", "1");
    let (header, rows) = trajectory(&out);
    let col = |n: &str| header.iter().position(|c| c == n).unwrap();
    let drift = |c: &str| {
        let k = col(c);
        rows.iter()
            .fold(0.0f64, |m, r| m.max((r[k] - rows[0][k]).abs()))
    };
    for c in ["Px", "Py", "Pz"] {
        assert!(drift(c) < 1e-10, "{c}: {:.3e}", drift(c));
    }
    let l0 = rows[0][col("|L|")];
    for c in ["Lx", "Ly", "Lz"] {
        assert!(drift(c) < 1e-4 * l0, "{c}: {:.3e}", drift(c));
    }
    assert!(
        drift("total") < 1e-4 * rows[0][col("total")],
        "{:.3e}",
        drift("total")
    );
    // the spring does work: the bodies exchange energy
    assert!(drift("kinetic") > 1e-2, "{:.3e}", drift("kinetic"));
}

#[test]
fn check_shows_derived_points() {
    // RSCR at crank angle 0: C = C1 + μ v with v = cos γ w + sin γ (C1/L3 × w) = (0, √3/2, ½)
    let o = run(&["check", &mech("rscr.yaml")], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("degrees of freedom: 1"), "{text}");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("C = ("))
        .expect("the derived point C is shown");
    let mu: f64 = text
        .lines()
        .find(|l| l.trim_start().starts_with("mu ="))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|x| x.parse().ok())
        .unwrap();
    let expect = [0.3, mu * 3f64.sqrt() / 2.0, mu / 2.0];
    let inner = &line[line.find('(').unwrap() + 1..line.find(')').unwrap()];
    let got: Vec<f64> = inner
        .split(',')
        .map(|x| x.trim().parse().unwrap())
        .collect();
    for k in 0..3 {
        assert!((got[k] - expect[k]).abs() < 1e-7, "{line}");
    }
}

#[test]
fn ctrl_c_and_sigterm_keep_the_earlier_result_and_file_the_partial_one() {
    for signal in ["INT", "TERM"] {
        let out = tmp(&format!("sig{signal}"));
        let dir = out.to_str().unwrap();
        // an earlier complete result
        let o = run(
            &[
                "run",
                &mech("double_pendulum.yaml"),
                "--out",
                dir,
                "--t-end",
                "0.1",
                "--quiet",
            ],
            None,
        );
        assert!(o.status.success());
        let before = std::fs::read(out.join("summary.json")).unwrap();
        // a long run, interrupted after a second
        let child = bin()
            .args([
                "run",
                &mech("cloth.yaml"),
                "--out",
                dir,
                "--t-end",
                "1000",
                "--quiet",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let pid = child.id().to_string();
        let k = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status();
        assert!(k.unwrap().success());
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("interrupted at t ="),
            "{signal}: {err}"
        );
        assert_eq!(std::fs::read(out.join("summary.json")).unwrap(), before);
        let s: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("interrupted/summary.json")).unwrap(),
        )
        .unwrap();
        let t = s["stopped_at"].as_f64().unwrap();
        // (under load the signal may arrive during initialization: then t = 0)
        assert!(
            s["interrupted"] == true && (0.0..1000.0).contains(&t),
            "{s}"
        );
        let csv = std::fs::read_to_string(out.join("interrupted/trajectory.csv")).unwrap();
        assert!(csv.lines().count() >= 2);
        assert!(std::fs::read_dir(&out).unwrap().all(|e| {
            !e.unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".partial")
        }));
    }
}

#[test]
fn check_reads_a_pipe() {
    use std::io::Write as _;
    let mut child = bin()
        .args(["check", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let text = std::fs::read(mech("double_pendulum.yaml")).unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("λ[bar OA]"), "{out}");
}

#[test]
fn negative_option_values_reach_the_checks_that_name_them() {
    let out = tmp("negative-values");
    let file = mech("double_pendulum.yaml");
    for (flag, value, text) in [
        ("--tol", "-1", "--tol -1 must lie in (0, 1)"),
        ("--t-end", "-1", "-1"),
        ("--step", "-1e-3", "--step -1e-3 must be positive"),
        // values in short form, not three hundred digits
        ("--step", "1e-300", "--step 1e-300 must be positive"),
        ("--t-end", "-1e-200", "--t-end -1e-200 must be finite"),
    ] {
        let args = ["run", &file, "--out", out.to_str().unwrap(), flag, value];
        let o = run(&args, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{flag} {value}: {err}");
        assert!(
            err.contains(text) && !err.contains("unexpected argument"),
            "{flag} {value}: {err}"
        );
    }
}

#[test]
fn a_tolerance_alone_runs_dop853_and_writes_a_bounded_table() {
    let out = tmp("dop853-cli");
    let file = mech("double_pendulum.yaml");
    let dir = out.to_str().unwrap();
    // --tol alone: DOP853, rows at 1000 even intervals and the end
    let o = run(
        &["run", &file, "--out", dir, "--tol", "1e-8", "--t-end", "2"],
        None,
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("DOP853") && text.contains("under error control"),
        "{text}"
    );
    let s = summary(&out);
    assert_eq!(s["integrator"], "dop853");
    let (_, rows) = trajectory(&out);
    assert_eq!(rows.len(), 1001);
    assert!((rows[500][0] - 1.0).abs() < 1e-12);
    let steps = s["steps"].as_u64().unwrap() as usize;
    assert!(steps < 1000, "{steps} steps");
    // a row per accepted step when asked
    let o = run(
        &[
            "run",
            &file,
            "--out",
            dir,
            "--tol",
            "1e-8",
            "--t-end",
            "2",
            "--output-every-step",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, rows) = trajectory(&out);
    assert_eq!(rows.len(), steps + 1);
    let overrides = summary(&out)["overrides"].to_string();
    assert!(overrides.contains("output_every_step=true"), "{overrides}");
    // --integrator genalpha keeps generalized-α under error control
    let o = run(
        &[
            "run",
            &file,
            "--out",
            dir,
            "--tol",
            "1e-4",
            "--t-end",
            "0.5",
            "--integrator",
            "genalpha",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(summary(&out)["integrator"], "generalized-alpha");
    // --integrator radau: Radau IIA on the index-3 equations, named in the summary
    let o = run(
        &[
            "run",
            &file,
            "--out",
            dir,
            "--tol",
            "1e-6",
            "--t-end",
            "0.5",
            "--integrator",
            "radau",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Radau IIA"), "{text}");
    assert_eq!(summary(&out)["integrator"], "radau");
    assert_eq!(trajectory(&out).1.len(), 1001);
    // refusals
    for (args, text) in [
        (
            vec!["--integrator", "dop853", "--steps", "10"],
            "chooses its own steps",
        ),
        (
            vec!["--integrator", "radau", "--steps", "10"],
            "chooses its own steps",
        ),
        (
            vec!["--integrator", "radau5x", "--tol", "1e-6"],
            "expected genalpha, rk4, dop853, radau or taylor",
        ),
        (
            vec!["--tol", "1e-6", "--output-every-step", "--output-dt", "0.1"],
            "give one of",
        ),
        (
            vec!["--integrator", "rk4", "--tol", "1e-6"],
            "RK4 runs at a fixed step",
        ),
    ] {
        let mut all = vec!["run", file.as_str(), "--out", dir];
        all.extend(args);
        let o = run(&all, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(text), "{err}");
    }
}

/// `lagrangian run robot.urdf`: the bundled PUMA 560 in URDF falls from its start at rest,
/// its joint coordinates the columns named after the URDF joints, its links drawn as points of
/// the scene; `--set` is refused (a URDF has no parameters).
#[test]
fn run_reads_a_urdf_robot() {
    let out = crate::common::tmp("urdf");
    let file = crate::common::mech("puma560.urdf");
    let o = crate::common::run(
        &[
            "run",
            &file,
            "--out",
            out.to_str().unwrap(),
            "--t-end",
            "0.5",
            "--quiet",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (header, rows) = crate::common::trajectory(&out);
    for q in ["q1", "q2", "q3", "q4", "q5", "q6"] {
        assert!(header.iter().any(|h| h == q), "{q} missing from {header:?}");
    }
    let t = header.iter().position(|h| h == "t").unwrap();
    assert!((rows.last().unwrap()[t] - 0.5).abs() < 1e-12);
    let scene = std::fs::read_to_string(out.join("scene.json")).unwrap();
    assert!(scene.contains("Link6"), "{scene}");
    let o = crate::common::run(
        &["run", &file, "--set", "k=1", "--out", out.to_str().unwrap()],
        None,
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no named parameters"));
}
