//! Memory: what a run would need is refused before it is spent, with both figures; what the
//! toolkit writes it can read back in bounded memory.

use crate::common::tmp;
use lagrangian::output::npy::NpyFile;
use lagrangian::output::table::{Table, run_table};
use std::fs;
use std::path::Path;
use std::process::Command;

/// The PHYS389 configuration of `n` pendulums.
fn pendulums_toml(dir: &Path, n: usize) -> String {
    let mut text = String::from("[system.sim]\ng = 9.81\ntimedelta = 0.001\nsteps = 10\n");
    for k in 0..n {
        let theta = 0.1 + 0.001 * k as f64;
        text += &format!(
            "[[system.sim.pendula]]\nlength = 1.0\nmass = 1.0\ntheta = {theta}\nphi = 0.0\n\
             thetadot = 0.0\nphidot = 0.0\nzPolar = true\n"
        );
    }
    let path = dir.join(format!("chain{n}.toml"));
    fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// The command with its address space limited to `kib` KiB (`ulimit -v`): a refusal that spent
/// the memory first would abort on a failed allocation instead of erring.
fn bin_within(kib: u64) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_lagrangian"));
    c
}

#[test]
fn a_pendulum_chain_too_large_for_memory_is_refused_before_it_is_built() {
    let dir = tmp("chain-memory");
    let out = dir.join("out");
    // within 1 GB of address space: the chain of 10,000 took 11 GB before its refusal when
    // every bob's point held a copy of the whole chain
    for (n, cap) in [(3000, "100000000"), (10_000, "8000000000")] {
        let file = pendulums_toml(&dir, n);
        let o = bin_within(1_000_000)
            .args(["run", &file, "--out", out.to_str().unwrap(), "--quiet"])
            .env("LAGRANGIAN_MAX_MEMORY", cap)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("a chain of {n} pendulums"))
                && err.contains("GB of memory")
                && err.contains("LAGRANGIAN_MAX_MEMORY"),
            "{err}"
        );
        assert!(!out.join("trajectory.csv").exists());
    }
    // a small chain under the same caps runs
    let file = pendulums_toml(&dir, 20);
    let o = bin_within(1_000_000)
        .args(["run", &file, "--out", out.to_str().unwrap(), "--quiet"])
        .env("LAGRANGIAN_MAX_MEMORY", "100000000")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_long_run_is_read_back_with_a_stride_the_same_from_csv_and_npy() {
    let dir = tmp("long-table");
    let n = 10_001;
    let mut csv = String::from("t,x,y\n");
    fs::create_dir_all(dir.join("npy")).unwrap();
    let mut t = NpyFile::create(&dir.join("npy/t.npy"), None).unwrap();
    let mut xy = NpyFile::create(&dir.join("npy/positions.npy"), Some(2)).unwrap();
    for k in 0..n {
        let (tk, x, y) = (k as f64 * 1e-3, (k as f64).sin(), k as f64);
        csv += &format!("{tk:.12e},{x:.12e},{y:.12e}\n");
        t.row(&[tk]).unwrap();
        xy.row(&[x, y]).unwrap();
    }
    t.finish().unwrap();
    xy.finish().unwrap();
    fs::write(
        dir.join("npy/columns.json"),
        r#"{"t": ["t"], "positions": ["x", "y"]}"#,
    )
    .unwrap();
    fs::write(dir.join("trajectory.csv"), csv).unwrap();
    // at most 3,003 values: 1,001 rows of 3, every 10th row (the last among them)
    let a = Table::read_at_most(&dir.join("trajectory.csv"), 3003).unwrap();
    assert_eq!(a.rows.len(), 1001);
    assert_eq!(a.rows[1][2], 10.0);
    assert_eq!(a.rows.last().unwrap()[2], (n - 1) as f64);
    // the whole table from .npy equals the CSV's
    fs::rename(dir.join("trajectory.csv"), dir.join("later.csv")).unwrap();
    let b = run_table(&dir).unwrap();
    let c = Table::read(&dir.join("later.csv")).unwrap();
    assert_eq!((b.columns.clone(), b.rows.len()), (c.columns.clone(), n));
    for (rb, rc) in b.rows.iter().zip(&c.rows) {
        for (x, y) in rb.iter().zip(rc) {
            assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "{x} {y}");
        }
    }
}

#[test]
fn a_file_larger_than_any_mechanism_is_refused_before_it_is_read() {
    let dir = tmp("huge-file");
    let path = dir.join("huge.yaml");
    let line = format!("# {}\n", "x".repeat(1000));
    fs::write(&path, line.repeat(17 << 10)).unwrap();
    let e = lagrangian::spec::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("huge.yaml:1:1") && e.contains("at most 16 MB"),
        "{e}"
    );
    let text = fs::read_to_string(&path).unwrap();
    let e = lagrangian::spec::parse(&text, "text.yaml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("at most 16 MB"), "{e}");
}

/// A large model whose constraints are dependent (a bar written twice among 600) leaves the
/// sparse initialization for the dense one, which names the rows — and whose matrices are
/// counted first: under a cap they do not fit, it is refused with the figure instead of
/// allocating (the 2,000-body case aborted at 2.9 GB before).
#[test]
fn dense_initialization_of_a_large_dependent_model_is_refused_under_the_cap() {
    let dir = tmp("dependent-large");
    let n = 600;
    let particles: Vec<String> = (1..=n).map(|i| format!("P{i}: 1")).collect();
    let mut bars = vec!["OP1: 1".to_string(), "P2P1: 1".to_string()];
    bars.extend((1..n).map(|i| format!("P{i}P{}: 1", i + 1)));
    let positions: Vec<String> = (1..=n).map(|i| format!("P{i}: [{i}, 0, 0]")).collect();
    let text = format!(
        "Dimension: 3\nPartData:\n  Fixed: {{ O: [0, 0, 0] }}\n  Particles: {{ {} }}\n  \
         Bars: {{ {} }}\nProblemData: {{ tend: 0.01, positions: {{ {} }} }}\n\
         SolverParams: {{ step: 1e-3 }}\n",
        particles.join(", "),
        bars.join(", "),
        positions.join(", ")
    );
    let file = dir.join("dependent.yaml");
    fs::write(&file, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_lagrangian"))
        .args(["check", file.to_str().unwrap()])
        .env("LAGRANGIAN_MAX_MEMORY", "60000000")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{e}");
    assert!(
        e.contains("dependent or ill conditioned needs dense matrices of 0.2 GB")
            && e.contains("LAGRANGIAN_MAX_MEMORY=60000000")
            && !e.contains("initial values: initial values"),
        "{e}"
    );
}
