//! `lagrangian plot` produces valid PNG and SVG files of the requested size, for a mechanism run
//! and for a spherical-pendulum (after the PHYS389 3D N-pendulum simulator) run; bad requests are clear errors.

use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lagrangian"))
}

use crate::common;
use common::tmp;

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(
        &b[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is not a PNG",
        path.display()
    );
    assert_eq!(&b[12..16], b"IHDR");
    let w = u32::from_be_bytes(b[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(b[20..24].try_into().unwrap());
    assert!(
        b.ends_with(&[0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]),
        "PNG without IEND"
    );
    (w, h)
}

fn svg_size(path: &Path) -> (u32, u32) {
    let s = std::fs::read_to_string(path).unwrap();
    assert!(
        s.contains("<svg") && s.trim_end().ends_with("</svg>"),
        "{} is not an SVG",
        path.display()
    );
    let attr = |name: &str| -> u32 {
        let i = s.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        s[i..].split('"').next().unwrap().parse().unwrap()
    };
    assert!(
        s.contains("<text") && s.contains("t [s]"),
        "axis label missing"
    );
    (attr("width"), attr("height"))
}

fn run_ok(args: &[&str]) -> String {
    let o = bin().args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).to_string()
}

#[test]
fn plots_of_a_mechanism_run() {
    let out = tmp("mech");
    let o = out.to_str().unwrap();
    run_ok(&[
        "run",
        &format!(
            "{}/mechanisms/double_pendulum.yaml",
            env!("CARGO_MANIFEST_DIR")
        ),
        "--out",
        o,
        "--t-end",
        "1",
        "--quiet",
    ]);
    let text = run_ok(&["plot", o]);
    assert!(text.contains("diagnostics.png") && text.contains("diagnostics.svg"));
    assert_eq!(png_size(&out.join("diagnostics.png")), (1200, 800));
    assert_eq!(svg_size(&out.join("diagnostics.svg")), (1200, 800));
    run_ok(&[
        "plot",
        o,
        "--columns",
        "A.x,A.y,total",
        "--size",
        "640x480",
        "--out",
        out.join("mine").to_str().unwrap(),
    ]);
    assert_eq!(png_size(&out.join("mine.png")), (640, 480));
    assert_eq!(svg_size(&out.join("mine.svg")), (640, 480));
    let svg = std::fs::read_to_string(out.join("mine.svg")).unwrap();
    assert!(
        svg.contains("A.x") && svg.contains("total"),
        "legend missing"
    );
    // errors
    let e = bin()
        .args(["plot", o, "--columns", "nope"])
        .output()
        .unwrap();
    assert!(!e.status.success() && String::from_utf8_lossy(&e.stderr).contains("no column 'nope'"));
    let e = bin().args(["plot", o, "--size", "12"]).output().unwrap();
    assert!(!e.status.success() && String::from_utf8_lossy(&e.stderr).contains("WIDTHxHEIGHT"));
    let e = bin().args(["plot", "/nonexistent"]).output().unwrap();
    assert!(!e.status.success() && String::from_utf8_lossy(&e.stderr).contains("cannot read"));
    // a destination that cannot be written is named, not dumped as a debug value
    std::fs::create_dir_all(out.join("taken.png")).unwrap();
    let dest = out.join("taken");
    let e = bin()
        .args(["plot", o, "--out", dest.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(!e.status.success(), "{err}");
    assert!(
        err.contains(&format!("cannot write {}.png", dest.display()))
            && err.contains("directory")
            && !err.contains("IOError(")
            && !err.contains("kind:"),
        "{err}"
    );
}

#[test]
fn spherical_pendulum_file_runs_with_diagnostics_and_plots() {
    let out = tmp("chain");
    let o = out.to_str().unwrap();
    let file = format!(
        "{}/mechanisms/spherical_pendulums.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    run_ok(&["run", &file, "--out", o, "--t-end", "2", "--quiet"]);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["steps"].as_u64(), Some(2000));
    // chart switches are restarts of the shared run loop
    assert!(s["restarts"].as_u64().unwrap() > 0, "{s}");
    // undamped: energy bounded, Lz conserved to the method's accuracy
    assert!(s["energy_drift"].as_f64().unwrap().abs() < 1e-3, "{s}");
    assert!(
        (s["angular_momentum_end"][2].as_f64().unwrap()
            - s["angular_momentum_start"][2].as_f64().unwrap())
        .abs()
            < 1e-3,
        "{s}"
    );
    let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for c in [
        "P1.x",
        "P3.vz",
        "Px",
        "|P|",
        "Lz",
        "|L|",
        "kinetic",
        "potential",
        "total",
    ] {
        assert!(
            header.split(',').any(|h| h == c),
            "column {c} missing: {header}"
        );
    }
    // RK4 as the PHYS389 simulator had
    let rk = tmp("chain-rk4");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("integrator: genalpha", "integrator: rk4");
    let f2 = rk.join("rk4.yaml");
    std::fs::write(&f2, text).unwrap();
    run_ok(&[
        "run",
        f2.to_str().unwrap(),
        "--out",
        rk.to_str().unwrap(),
        "--t-end",
        "1",
        "--quiet",
    ]);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rk.join("summary.json")).unwrap()).unwrap();
    assert!(s["energy_drift"].as_f64().unwrap().abs() < 1e-6, "{s}");
    run_ok(&["plot", o]);
    assert_eq!(png_size(&out.join("diagnostics.png")), (1200, 800));
    // check prints the bobs
    let text = run_ok(&["check", &file]);
    assert!(text.contains("P3 = ("), "{text}");
    // a bad pendulum file names the place
    let bad_dir = tmp("chain-bad");
    let bad = bad_dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "timedelta: 1e-3\nsteps: 10\npendula:\n  - { length: 1, mass: -1, theta: 0.5, phi: 0 }\n",
    )
    .unwrap();
    let e = bin().args(["run", bad.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(
        !e.status.success() && err.contains("bad.yaml:4:") && err.contains("must be positive"),
        "{err}"
    );
}

#[test]
fn a_column_spanning_the_whole_double_range_plots_quickly() {
    let d = tmp("huge");
    std::fs::write(
        d.join("trajectory.csv"),
        "t,x,kinetic,potential,total,max_constraint_residual\n0,-1e308,1e308,-1e308,0,0\n1,1e308,0,1,2,1e308\n",
    )
    .unwrap();
    let start = std::time::Instant::now();
    run_ok(&["plot", d.to_str().unwrap(), "--columns", "x"]);
    run_ok(&["plot", d.to_str().unwrap()]);
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
    assert!(d.join("plot.png").exists() && d.join("diagnostics.svg").exists());
}

/// A run written only as `.npy` files or only as Parquet plots as its CSV does (the formats
/// docs/yaml.md names); a damaged table — `t` renamed, a column twice, the time going back —
/// is refused by `plot` and `animate` with the column named, nothing drawn.
#[test]
fn runs_in_every_format_plot_and_damaged_tables_are_refused() {
    let dir = tmp("plot-formats");
    let m0 = common::mech("mechanism0.yaml");
    for format in ["npy", "parquet"] {
        let out = dir.join(format);
        let o = out.to_str().unwrap();
        run_ok(&[
            "run", &m0, "--t-end", "0.2", "--format", format, "--quiet", "--out", o,
        ]);
        assert!(!out.join("trajectory.csv").exists());
        run_ok(&["plot", o]);
        assert!(png_size(&out.join("diagnostics.png")).0 > 0, "{format}");
    }
    let csv = dir.join("csv");
    let o = csv.to_str().unwrap();
    run_ok(&["run", &m0, "--t-end", "0.2", "--quiet", "--out", o]);
    let good = std::fs::read_to_string(csv.join("trajectory.csv")).unwrap();
    let (header, rest) = good.split_once('\n').unwrap();
    let mut lines: Vec<&str> = rest.lines().collect();
    lines.swap(3, 7);
    let reversed = format!("{header}\n{}\n", lines.join("\n"));
    let second = header.split(',').nth(1).unwrap();
    let twice = good.replacen(&format!(",{second},"), ",t,", 1);
    for (table, want) in [
        (
            good.replacen("t,", "time,", 1),
            "the first column is 'time'",
        ),
        (twice, "column 't' appears twice"),
        (reversed, "the time 't' goes back"),
    ] {
        std::fs::write(csv.join("trajectory.csv"), &table).unwrap();
        for command in ["plot", "animate"] {
            let done = bin().args([command, o]).output().unwrap();
            let err = String::from_utf8_lossy(&done.stderr);
            assert!(
                !done.status.success() && err.contains(want) && err.contains("trajectory.csv"),
                "{command}, {want}: {err}"
            );
        }
    }
}

/// Run folders damaged as a crash, a copy or an editor leave them — the last row cut, a row
/// short, a word in a number's place, bytes that are no text, an empty table, a header alone,
/// a summary or scene that is no JSON, no scene — are refused by `plot` and `animate` with the
/// file (and the row) named, and nothing is drawn.
#[test]
fn damaged_run_folders_are_refused_with_the_file_named() {
    let dir = tmp("plot-damaged");
    let base = dir.join("base");
    let o = base.to_str().unwrap();
    run_ok(&[
        "run",
        &common::mech("double_pendulum.yaml"),
        "--t-end",
        "0.2",
        "--quiet",
        "--out",
        o,
    ]);
    let good = std::fs::read_to_string(base.join("trajectory.csv")).unwrap();
    let row = |k: usize| good.lines().nth(k).unwrap().to_string();
    let cut = &good[..good.len() - 7];
    let short = good.replacen(&row(5), row(5).rsplit_once(',').unwrap().0, 1);
    let word = good.replacen(&row(6), &row(6).replacen(',', ",abc,", 1), 1);
    let header = format!("{}\n", row(0));
    let csv = "trajectory.csv";
    let damages: Vec<(&str, &[u8], &str, &[&str])> = vec![
        (
            csv,
            cut.as_bytes(),
            "the last row has no line end",
            &["plot", "animate"],
        ),
        (
            csv,
            short.as_bytes(),
            "trajectory.csv:6",
            &["plot", "animate"],
        ),
        (
            csv,
            word.as_bytes(),
            "trajectory.csv:7",
            &["plot", "animate"],
        ),
        (
            csv,
            &[0xff, 0xfe, 0x00, 0x41],
            "trajectory.csv",
            &["plot", "animate"],
        ),
        (csv, b"", "trajectory.csv is empty", &["plot", "animate"]),
        (csv, header.as_bytes(), "no data rows", &["plot", "animate"]),
        ("summary.json", b"{\"title\": ", "summary.json", &["plot"]),
        (
            "summary.json",
            b"[1, 2]",
            "summary.json: not a JSON object",
            &["plot"],
        ),
        ("scene.json", b"{", "scene.json", &["animate"]),
    ];
    for (k, (file, bytes, want, commands)) in damages.into_iter().enumerate() {
        let d = dir.join(format!("damaged{k}"));
        std::fs::create_dir_all(&d).unwrap();
        for f in ["trajectory.csv", "summary.json", "scene.json"] {
            std::fs::copy(base.join(f), d.join(f)).unwrap();
        }
        std::fs::write(d.join(file), bytes).unwrap();
        for command in commands {
            let done = bin().args([command, d.to_str().unwrap()]).output().unwrap();
            let err = String::from_utf8_lossy(&done.stderr);
            assert!(
                done.status.code() == Some(1) && err.contains(want),
                "{file} #{k}, {command}: {err}"
            );
        }
        for drawn in ["diagnostics.png", "diagnostics.svg", "animation.html"] {
            assert!(!d.join(drawn).exists(), "{file} #{k}: {drawn} written");
        }
    }
    // no scene: `animate` says which file and who writes it; `plot` needs none
    let d = dir.join("noscene");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(base.join("trajectory.csv"), d.join("trajectory.csv")).unwrap();
    let done = bin()
        .args(["animate", d.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(
        !done.status.success() && err.contains("scene.json") && err.contains("lagrangian run"),
        "{err}"
    );
    run_ok(&["plot", d.to_str().unwrap()]);
}
