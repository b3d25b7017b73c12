//! Helpers shared by the tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

pub static N: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory under the system's temporary directory, removed when the value is
/// dropped — unless the test is panicking, so that a failing test leaves its files to inspect.
pub struct TmpDir(PathBuf);

impl std::ops::Deref for TmpDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TmpDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for TmpDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for inspection: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A fresh, empty [`TmpDir`] named after the test process, a counter and `tag`.
pub fn tmp(tag: &str) -> TmpDir {
    let d = std::env::temp_dir().join(format!(
        "lagrangian-cli-{}-{}-{tag}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TmpDir(d)
}

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lagrangian"))
}

pub fn mech(name: &str) -> String {
    format!("{}/mechanisms/{name}", env!("CARGO_MANIFEST_DIR"))
}

pub fn run(args: &[&str], cwd: Option<&Path>) -> Output {
    let mut c = bin();
    c.args(args);
    if let Some(d) = cwd {
        c.current_dir(d);
    }
    c.output().unwrap()
}

pub fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// `lagrangian run` on a bundled file up to `t_end`, into a fresh directory; it must succeed.
pub fn run_bundled(file: &str, t_end: &str) -> TmpDir {
    let out = tmp(file.trim_end_matches(".yaml"));
    let o = run(
        &[
            "run",
            &mech(file),
            "--out",
            out.to_str().unwrap(),
            "--t-end",
            t_end,
            "--quiet",
        ],
        None,
    );
    assert!(
        o.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// `trajectory.csv` of a run: the header and the rows.
pub fn trajectory(out: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

/// Largest difference in positions and velocities between two runs with the same records (a
/// mechanism file against the same physics written in Rust).
pub fn max_state_difference(
    a: &lagrangian::output::Solution,
    b: &lagrangian::output::Solution,
) -> f64 {
    assert_eq!(
        a.records.len(),
        b.records.len(),
        "the runs have different records"
    );
    let mut w = 0.0f64;
    for (x, y) in a.records.iter().zip(&b.records) {
        assert_eq!(x.state.t, y.state.t);
        for (p, q) in x.state.q.iter().zip(&y.state.q) {
            w = w.max((p - q).abs());
        }
        for (p, q) in x.state.v.iter().zip(&y.state.v) {
            w = w.max((p - q).abs());
        }
    }
    w
}

/// A small deterministic generator of numbers in [−1, 1) (no external dependency).
pub struct Lcg(pub u64);

impl Lcg {
    /// The next number.
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64) / ((1u64 << 53) as f64) * 2.0 - 1.0
    }
    /// `n` numbers.
    pub fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.next()).collect()
    }
    /// `n` numbers in [−scale, scale).
    pub fn scaled(&mut self, n: usize, scale: f64) -> Vec<f64> {
        (0..n).map(|_| scale * self.next()).collect()
    }
}

/// Run `problem` by `plan` to its end time, every step's row recorded with the plan's columns.
pub fn record(
    problem: lagrangian::problem::Problem,
    plan: lagrangian::problem::RunPlan,
) -> lagrangian::output::sink::ColumnRecorder {
    let t_end = problem.t_end;
    let mut sim =
        lagrangian::simulation::Simulation::new(problem, plan).unwrap_or_else(|e| panic!("{e}"));
    let mut rec = lagrangian::output::sink::ColumnRecorder::every(1);
    sim.run_until(t_end, &mut [&mut rec])
        .unwrap_or_else(|e| panic!("{e}"));
    rec
}

/// Column `name` of a recorded run (a panic naming the columns there are if it has none).
pub fn column(t: &lagrangian::output::sink::ColumnRecorder, name: &str) -> Vec<f64> {
    t.column(name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", t.names()))
}

/// The last value of `column` in an in-memory run's result.
pub fn last_value(r: &lagrangian::run::memory::RunResult, column: &str) -> f64 {
    let c = r
        .column(column)
        .unwrap_or_else(|| panic!("no column {column}: {:?}", r.names));
    c[c.len() - 1]
}

/// The linear model `ẋ = f(x)` carried from `t` to `t_end` by classical RK4 in steps of at
/// most `h` (the last one shortened to land on `t_end`).
pub fn rk4_until(
    x: &mut nalgebra::DVector<f64>,
    t: &mut f64,
    t_end: f64,
    h: f64,
    f: impl Fn(&nalgebra::DVector<f64>) -> nalgebra::DVector<f64>,
) {
    while *t < t_end - 1e-12 {
        let h = (t_end - *t).min(h);
        let k1 = f(x);
        let k2 = f(&(&*x + &k1 * (h / 2.0)));
        let k3 = f(&(&*x + &k2 * (h / 2.0)));
        let k4 = f(&(&*x + &k3 * h));
        *x += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
        *t += h;
    }
}
