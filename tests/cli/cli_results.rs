//! What `lagrangian run` writes and how a user shapes it: `--set` (the same as editing the
//! file), `--step` landing on the end time, `--columns` and `--format npy` (read back by our
//! reader and, where a Python with NumPy is at hand, by `numpy.load`), the settings in the
//! summary, a brief `check` of a large model.

use crate::common;
use common::*;
use lagrangian::output::npy::read_npy;
use lagrangian::output::parquet::read_parquet;
use std::path::Path;

fn ok(o: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn fails_with(o: &std::process::Output, text: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "expected failure");
    assert!(err.contains(text), "expected '{text}' in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn set_equals_editing_the_file() {
    let dir = tmp("set");
    let text = std::fs::read_to_string(mech("mechanism0.yaml")).unwrap();
    let edited = text
        .replace("k: 500", "k: 200")
        .replace("m: 2 }", "m: 0.5 }");
    assert_ne!(text, edited);
    let file = dir.join("edited.yaml");
    std::fs::write(&file, edited).unwrap();
    let (a, b) = (dir.join("a"), dir.join("b"));
    let args = ["--t-end", "0.5", "--quiet", "--out"];
    let m0 = mech("mechanism0.yaml");
    let set = ["run", &m0, "--set", "k=200", "--set", "m=0.5"];
    ok(&run(
        &[&set[..], &args, &[a.to_str().unwrap()]].concat(),
        None,
    ));
    let plain = ["run", file.to_str().unwrap()];
    ok(&run(
        &[&plain[..], &args, &[b.to_str().unwrap()]].concat(),
        None,
    ));
    let read = |d: &Path| std::fs::read_to_string(d.join("trajectory.csv")).unwrap();
    assert_eq!(
        read(&a),
        read(&b),
        "--set k=200 m=0.5 differs from the edited file"
    );
    let s = summary(&a);
    assert_eq!(s["parameters"]["k"].as_f64(), Some(200.0));
    assert_eq!(s["parameters"]["m"].as_f64(), Some(0.5));
    let overrides: Vec<&str> = (s["overrides"].as_array().unwrap().iter())
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(overrides, ["k=200", "m=0.5", "t_end=0.5"]);
    // a name the file does not define, and a value that is not a number
    let o = run(&["check", &m0, "--set", "kk=1"], None);
    fails_with(
        &o,
        "there is no parameter 'kk' (the file's parameters: L, M, k, l, mu, m)",
    );
    fails_with(
        &run(&["check", &m0, "--set", "k=abc"], None),
        "not a number",
    );
    fails_with(&run(&["check", &m0, "--set", "k"], None), "NAME=VALUE");
}

#[test]
fn step_lands_exactly_on_the_end_time() {
    let out = tmp("step");
    let m0 = mech("mechanism0.yaml");
    let args = [
        "run", &m0, "--step", "0.003", "--t-end", "0.01", "--quiet", "--out",
    ];
    ok(&run(&[&args[..], &[out.to_str().unwrap()]].concat(), None));
    let (_, rows) = trajectory(&out);
    let t: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(t.len(), 5, "{t:?}");
    assert!(
        (t[3] - 0.009).abs() < 1e-15 && (t[4] - 0.01).abs() < 1e-15,
        "{t:?}"
    );
    let s = summary(&out);
    assert_eq!(s["steps"].as_u64(), Some(4));
    assert_eq!(s["t_end"].as_f64(), Some(t[4]));
    assert!(s["max_constraint_residual"].as_f64().unwrap() < 1e-10);
    // both --steps and --step: refused by the parser
    let both = ["run", &m0, "--step", "0.1", "--steps", "10", "--out"];
    let o = run(&[&both[..], &[out.to_str().unwrap()]].concat(), None);
    fails_with(&o, "cannot be used with");
}

#[test]
fn columns_and_npy_round_trip() {
    let out = tmp("npy");
    let m0 = mech("mechanism0.yaml");
    let o = run(
        &[
            "run",
            &m0,
            "--t-end",
            "0.2",
            "--integrator",
            "genalpha",
            "--output-every",
            "10",
            "--columns",
            "positions,multipliers,reactions,energies,ledger",
            "--format",
            "csv,npy,parquet",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    ok(&o);
    let (header, rows) = trajectory(&out);
    assert_eq!(rows.len(), 21);
    assert!(!header.iter().any(|h| h.contains(".v")), "{header:?}");
    let names: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("npy/columns.json")).unwrap())
            .unwrap();
    let mut k = 1;
    let (shape, t) = read_npy(&out.join("npy/t.npy")).unwrap();
    assert_eq!(shape, [21]);
    for (r, row) in rows.iter().enumerate() {
        assert!((t[r] - row[0]).abs() <= 1e-11 * row[0].abs());
    }
    for group in [
        "positions",
        "multipliers",
        "reactions",
        "energies",
        "ledger",
    ] {
        let cols = names[group].as_array().unwrap();
        let (shape, data) = read_npy(&out.join(format!("npy/{group}.npy"))).unwrap();
        assert_eq!(shape, [21, cols.len()], "{group}");
        for (j, c) in cols.iter().enumerate() {
            assert_eq!(header[k + j], c.as_str().unwrap());
            for (r, row) in rows.iter().enumerate() {
                let (x, y) = (data[r * cols.len() + j], row[k + j]);
                assert!(
                    (x - y).abs() <= 1e-11 * y.abs().max(1e-300),
                    "{group} {c}: {x} vs {y}"
                );
            }
        }
        k += cols.len();
    }
    assert_eq!(k, header.len());
    let s = summary(&out);
    assert_eq!(s["output_every"].as_u64(), Some(10));
    assert_eq!(
        s["outputs"]["formats"],
        serde_json::json!(["csv", "npy", "parquet"])
    );
    assert_eq!(s["outputs"]["velocities"].as_bool(), Some(false));
    // the Parquet table holds the same values as the .npy arrays, exactly, under the CSV's names
    let (pq_names, pq_rows) = read_parquet(&out.join("trajectory.parquet")).unwrap();
    assert_eq!(pq_names, header);
    assert_eq!(pq_rows.len(), 21);
    let (_, energies) = read_npy(&out.join("npy/energies.npy")).unwrap();
    let e0 = header.iter().position(|h| h == "kinetic").unwrap();
    for (r, row) in pq_rows.iter().enumerate() {
        assert_eq!(row[0], t[r]);
        assert_eq!(row[e0..e0 + 4], energies[4 * r..4 * r + 4]);
    }
    numpy_and_pandas_read(&out);
    // npy only: the earlier trajectory.csv and .parquet go (every file in DIR belongs to the
    // summary)
    let o = run(
        &[
            "run",
            &m0,
            "--t-end",
            "0.1",
            "--format",
            "npy",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    ok(&o);
    assert!(!out.join("trajectory.csv").exists());
    assert!(!out.join("trajectory.parquet").exists());
    // Mechanism0 runs its Taylor series (tol: 1e-12, order: 20): 1000 intervals and the end
    let (shape, _) = read_npy(&out.join("npy/t.npy")).unwrap();
    assert_eq!(shape, [1001]);
    let bad = ["run", &m0, "--columns", "positions,speed", "--out"];
    let o = run(&[&bad[..], &[out.to_str().unwrap()]].concat(), None);
    fails_with(&o, "unknown column group 'speed'");
}

/// NumPy reads the `.npy` files as they are, and pandas (pyarrow) the Parquet table, equal to
/// the `.npy` arrays bit for bit — where a Python with NumPy and pandas is at hand (CI's .venv).
fn numpy_and_pandas_read(out: &Path) {
    let py = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if py.exists() {
        let script = format!(
            "import numpy as np, json; d = '{}'; names = json.load(open(d + '/columns.json'))\n\
             for g in names:\n    a = np.load(d + '/' + g + '.npy'); assert a.dtype == np.float64\n\
             \x20   assert a.shape[0] == 21 and (a.ndim == 1 or a.shape[1] == len(names[g])), g\n\
             print('numpy ok')",
            out.join("npy").display()
        );
        let o = std::process::Command::new(&py)
            .args(["-c", &script])
            .output()
            .unwrap();
        assert!(ok(&o).contains("numpy ok"));
    }
    if py.exists() {
        let script = format!(
            "import numpy as np, pandas as pd, json; d = '{}'\n\
             df = pd.read_parquet(d + '/trajectory.parquet')\n\
             names = json.load(open(d + '/npy/columns.json'))\n\
             assert len(df) == 21 and all(df.dtypes == np.float64)\n\
             for g, cols in names.items():\n\
             \x20   a = np.load(d + '/npy/' + g + '.npy').reshape(21, -1)\n\
             \x20   assert np.array_equal(df[cols].to_numpy(), a), g\n\
             print('pandas ok')",
            out.display()
        );
        let o = std::process::Command::new(&py)
            .args(["-c", &script])
            .output()
            .unwrap();
        assert!(ok(&o).contains("pandas ok"));
    }
}

/// A Parquet-only run: plots and the animation read it as they read the CSV of the same run;
/// a damaged file is an error, never a panic.
#[test]
fn a_parquet_table_reads_back_and_damage_is_an_error() {
    let m0 = mech("mechanism0.yaml");
    let (csv, pq) = (tmp("pq-csv"), tmp("pq-only"));
    for (out, format) in [(&csv, "csv"), (&pq, "parquet")] {
        let args = [
            "run", &m0, "--t-end", "0.05", "--format", format, "--quiet", "--out",
        ];
        ok(&run(&[&args[..], &[out.to_str().unwrap()]].concat(), None));
    }
    assert!(!pq.join("trajectory.csv").exists() && !pq.join("npy").exists());
    let (a, b) = (
        lagrangian::output::table::run_table(&csv).unwrap(),
        lagrangian::output::table::run_table(&pq).unwrap(),
    );
    assert_eq!(a.columns, b.columns);
    assert_eq!(a.rows.len(), b.rows.len());
    for (x, y) in a.rows.iter().flatten().zip(b.rows.iter().flatten()) {
        assert!((x - y).abs() <= 1e-12 * y.abs().max(1e-300), "{x} vs {y}");
    }
    // every truncation and a flipped byte anywhere in the footer: an error or a table, no panic
    let bytes = std::fs::read(pq.join("trajectory.parquet")).unwrap();
    let damaged = pq.join("damaged.parquet");
    for n in (0..bytes.len())
        .step_by(97)
        .chain(bytes.len() - 300..bytes.len())
    {
        std::fs::write(&damaged, &bytes[..n]).unwrap();
        assert!(read_parquet(&damaged).is_err(), "{n} bytes read as a table");
        let mut flipped = bytes.clone();
        flipped[n] ^= 0xA5;
        std::fs::write(&damaged, &flipped).unwrap();
        let _ = read_parquet(&damaged);
    }
}

#[test]
fn output_section_of_a_file() {
    let dir = tmp("section");
    let text = std::fs::read_to_string(mech("rod_pendulum.yaml")).unwrap()
        + "Output: { columns: [positions, reactions], format: npy, every: 100 }\n";
    let file = dir.join("rod.yaml");
    std::fs::write(&file, text.replace("tend: 4", "tend: 0.5")).unwrap();
    let out = dir.join("out");
    ok(&run(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    ));
    let (shape, _) = read_npy(&out.join("npy/reactions.npy")).unwrap();
    // reaction:bar OB:B.x/y/z, force:OB:O.x/y/z, force:OB:B.x/y/z, tension:OB
    assert_eq!(shape, [6, 10]);
    let twice = text.replace("step: 1e-3", "step: 1e-3\n  output_every: 5");
    std::fs::write(&file, twice).unwrap();
    let o = run(&["check", file.to_str().unwrap()], None);
    fails_with(&o, "Output.every: the output stride is given twice");
}

#[test]
fn check_of_a_large_model_is_brief_unless_verbose() {
    let cloth = mech("cloth.yaml");
    let brief = ok(&run(&["check", &cloth], None));
    assert!(brief.len() < 20_000, "check printed {} bytes", brief.len());
    assert!(brief.contains("coordinates (24300)") && brief.contains("and 24276 more"));
    let all = ok(&run(&["check", &cloth, "--verbose"], None));
    assert!(all.len() > 1_000_000, "verbose printed {} bytes", all.len());
}

#[test]
fn the_integrator_option_holds_for_pendulum_chain_files() {
    let out = tmp("chain-rk4");
    let file = mech("spherical_pendulums.yaml");
    let args = [
        "run",
        &file,
        "--integrator",
        "rk4",
        "--t-end",
        "0.05",
        "--quiet",
        "--out",
    ];
    ok(&run(&[&args[..], &[out.to_str().unwrap()]].concat(), None));
    let s = summary(&out);
    assert_eq!(s["integrator"].as_str(), Some("rk4"));
    assert_eq!(s["newton_iterations"].as_u64(), Some(0));
    assert_eq!(s["overrides"][1].as_str(), Some("integrator=rk4"));
}

/// A force that becomes undefined at a finite state is named, with no "smaller step" hint.
#[test]
fn a_non_finite_force_names_its_element() {
    let dir = tmp("nan-force");
    let text = "
Dimension: 2
PartData:
  Fixed: { O: [0, 0] }
  Particles: { B: 1 }
  Bars: { OB: 1 }
AppliedForces:
  Forces: { B: [0, sqrt(0.05 - t)] }
ProblemData:
  tend: 0.1
  positions: { B: [1, 0] }
";
    let file = dir.join("nan.yaml");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("out");
    let o = run(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    fails_with(&o, "the term on B.x, B.y is not finite at a finite state");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("smaller step"), "{err}");
    assert!(!out.join("summary.json").exists());
}

/// `run` writes the scene beside the trajectory: fixed points with their place, moving points
/// with trajectory columns that exist, links by kind, bodies, the file's Animation settings.
#[test]
fn run_writes_the_scene() {
    let out = run_bundled("mechanism0.yaml", "0.01");
    let scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scene.json")).unwrap()).unwrap();
    let (header, _) = trajectory(&out);
    assert_eq!(scene["dimension"].as_u64(), Some(2));
    let points = scene["points"].as_array().unwrap();
    let o = points.iter().find(|p| p["name"] == "O").unwrap();
    assert_eq!(o["kind"], "fixed");
    assert_eq!(o["position"], serde_json::json!([0.0, 0.0, 0.0]));
    for p in points.iter().filter(|p| p["kind"] != "fixed") {
        for c in p["columns"].as_array().unwrap() {
            assert!(
                header.iter().any(|h| h == c.as_str().unwrap()),
                "{c} not in the trajectory"
            );
        }
    }
    let kinds: Vec<&str> = (scene["links"].as_array().unwrap().iter())
        .map(|l| l["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"massive-spring"), "{kinds:?}");
    assert!(scene["animation"].is_object(), "{}", scene["animation"]);
    assert_eq!(scene["bodies"][0]["name"], "OA");
    // the tennis racket: a 3D body on a point and two vectors
    let out = run_bundled("tennis_racket.yaml", "0.01");
    let scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scene.json")).unwrap()).unwrap();
    assert_eq!(scene["dimension"].as_u64(), Some(3));
    assert!(!scene["bodies"].as_array().unwrap().is_empty());
    // the file reads back as the typed scene the pictures use, losslessly
    for (file, dir) in [
        ("mechanism0.yaml", run_bundled("mechanism0.yaml", "0.01")),
        ("", out),
    ] {
        let path = dir.join("scene.json");
        let text: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let typed = lagrangian::output::scene::Scene::read(&path).unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), text, "{file}");
    }
    // a scene of nothing is a scene without a picture, and a wrong one says where
    let dir = std::env::temp_dir().join(format!("lagrangian-scene-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("empty.json"), "{}").unwrap();
    let empty = lagrangian::output::scene::Scene::read(&dir.join("empty.json")).unwrap();
    assert_eq!((empty.dimension, empty.points.len()), (0, 0));
    std::fs::write(
        dir.join("bad.json"),
        r#"{"points": [{"name": "A", "kind": "flying"}]}"#,
    )
    .unwrap();
    let e = lagrangian::output::scene::Scene::read(&dir.join("bad.json")).unwrap_err();
    assert!(e.contains("flying") && e.contains("line 1"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_that_would_fill_the_disk_is_refused_before_it_starts() {
    // the cloth at every step for 1e8 steps: about 10⁸ rows × 48,601 columns
    let out = tmp("huge-output");
    std::fs::write(out.join("summary.json"), "{\"earlier\": true}\n").unwrap();
    let args = [
        "run",
        &mech("cloth.yaml"),
        "--t-end",
        "100",
        "--step",
        "1e-6",
        "--output-every",
        "1",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = run(&args, None);
    fails_with(&o, "the limit is 50 GB");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--output-every"), "{err}");
    // nothing was written: no partial folder, the earlier result unchanged
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["summary.json"], "{left:?}");
    let kept = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert_eq!(kept, "{\"earlier\": true}\n");
    // an ordinary run of the same file still starts
    let small = tmp("small-output");
    let o = run(
        &[
            "run",
            &mech("cloth.yaml"),
            "--t-end",
            "0.002",
            "--quiet",
            "--out",
            small.to_str().unwrap(),
        ],
        None,
    );
    ok(&o);
}

#[test]
fn a_model_too_large_for_the_memory_is_refused_before_factorizing() {
    // a 200 × 200 cloth (120,000 coordinates, about 0.32 GB estimated) under a 100 MB cap
    let dir = tmp("too-large");
    let text = std::fs::read_to_string(mech("cloth.yaml"))
        .unwrap()
        .replace("n: [90, 90]", "n: [200, 200]");
    let file = dir.join("cloth200.yaml");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("out");
    let o = bin()
        .args([
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
        .env("LAGRANGIAN_MAX_MEMORY", "1e8")
        .output()
        .unwrap();
    fails_with(&o, "too large for this machine: 120000 coordinates");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("0.323 GB") && err.contains("0.1 GB available"),
        "{err}"
    );
    assert!(!out.join("summary.json").exists());
    let o = bin()
        .args(["check", file.to_str().unwrap()])
        .env("LAGRANGIAN_MAX_MEMORY", "1e8")
        .output()
        .unwrap();
    fails_with(&o, "too large for this machine");
    // with room it builds and checks
    let o = bin()
        .args(["check", file.to_str().unwrap()])
        .env("LAGRANGIAN_MAX_MEMORY", "1e10")
        .output()
        .unwrap();
    ok(&o);
}

/// `--column NAME=EXPRESSION` adds columns of the user's own to a file's run (the group `user`,
/// `npy/user.npy`); `--columns` without `user` leaves them out; a mistake names the option.
#[test]
fn columns_of_one_s_own_from_the_command_line() {
    let out = tmp("user-columns");
    let m0 = mech("mechanism0.yaml");
    let args = [
        "run",
        &m0,
        "--t-end",
        "0.05",
        "--column",
        "F = AB.force",
        "--column",
        "angle = atan2(A.y, A.x)",
        "--format",
        "csv,npy",
        "--quiet",
        "--out",
    ];
    ok(&run(&[&args[..], &[out.to_str().unwrap()]].concat(), None));
    let (header, rows) = trajectory(&out);
    let at = |n: &str| {
        header
            .iter()
            .position(|h| h == n)
            .unwrap_or_else(|| panic!("{n}: {header:?}"))
    };
    let (ax, ay, bx, by) = (at("A.x"), at("A.y"), at("B.x"), at("B.y"));
    for r in &rows {
        let len = (r[bx] - r[ax]).hypot(r[by] - r[ay]);
        assert!((r[at("F")] - 500.0 * (len - 1.0)).abs() < 1e-8 * 500.0);
        assert!((r[at("angle")] - r[ay].atan2(r[ax])).abs() < 1e-12);
    }
    let names: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("npy/columns.json")).unwrap())
            .unwrap();
    assert_eq!(names["user"], serde_json::json!(["F", "angle"]));
    let (shape, _) = read_npy(&out.join("npy/user.npy")).unwrap();
    assert_eq!(shape, [rows.len(), 2]);
    assert!(
        summary(&out)["overrides"]
            .to_string()
            .contains("F = AB.force")
    );
    // with --columns: the groups named and the columns given
    let args = [
        "run",
        &m0,
        "--t-end",
        "0.01",
        "--columns",
        "positions",
        "--column",
        "F = AB.force",
        "--quiet",
        "--out",
    ];
    ok(&run(&[&args[..], &[out.to_str().unwrap()]].concat(), None));
    let (header, _) = trajectory(&out);
    assert!(header.contains(&"F".to_string()), "{header:?}");
    for (bad, want) in [
        ("F", "--column 'F': expected name = expression"),
        ("F = Q.x", "undefined name 'Q'"),
        ("B.x = 1", "is taken"),
    ] {
        let args = [
            "run", &m0, "--t-end", "0.01", "--column", bad, "--quiet", "--out",
        ];
        let o = run(&[&args[..], &[out.to_str().unwrap()]].concat(), None);
        fails_with(&o, want);
    }
}

/// The Parquet reader reads back the toolkit's own tables (required float64 columns, plain,
/// uncompressed); a file pandas wrote (optional columns, dictionary pages, Snappy) is refused
/// with what to do, not misread — where a Python with pandas is at hand (CI's .venv).
#[test]
fn a_table_pandas_wrote_is_refused_not_misread() {
    let py = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if !py.exists() {
        return;
    }
    let out = tmp("pq-pandas");
    let script = format!(
        "import numpy as np, pandas as pd\n\
         t = np.linspace(0, 1, 101)\n\
         pd.DataFrame({{'t': t, 'x': np.round(np.sin(t), 1)}}).to_parquet('{}')\n\
         print('written')",
        out.join("trajectory.parquet").display()
    );
    let o = std::process::Command::new(&py)
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(ok(&o).contains("written"));
    let e = match lagrangian::output::table::run_table(&out) {
        Ok(_) => panic!("a table pandas wrote was read"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("the toolkit reads back the tables it writes"),
        "{e}"
    );
    let o = run(&["plot", out.to_str().unwrap(), "--columns", "x"], None);
    fails_with(&o, "read such a file with them");
}
