//! Parameter sweeps: one run per combination of parameter values, in parallel on the local
//! cores (rayon, one run per thread), tabulated as one row per case — the parameter values,
//! the summary's figures, the last value of chosen columns, or why the case failed. What
//! `lagrangian sweep FILE --set k=100,200,400 --set m=1,2` writes to `sweep.csv` (the Python
//! package's `lagrangian.sweep` does the same on threads or a Dask cluster).
//!
//! ```
//! use lagrangian::run::sweep::{sweep, SweepOptions};
//! // a mass on a spring stretched by 1 from rest: x(1) = 1 + cos(√(k/m))
//! let text = "Dimension: 2\nPhysicalParams: { k: 4, m: 1 }\n\
//!             PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Springs: { OA: [k, 1] } }\n\
//!             ProblemData: { tend: 1, positions: { A: [2, 0] } }\nSolverParams: { step: 1e-3 }\n";
//! let (problem, plan) = lagrangian::spec::parse(text, "spring.yaml")?;
//! let opts = SweepOptions {
//!     grid: vec![("k".into(), vec![1.0, 4.0, 9.0])],
//!     end: vec!["A.x".into()],
//!     ..SweepOptions::default()
//! };
//! let rows = sweep(&problem, &plan, &opts)?;
//! for (row, w) in rows.iter().zip([1.0f64, 2.0, 3.0]) {
//!     assert!((row.end[0] - (1.0 + w.cos())).abs() < 1e-5);
//! }
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::error::{Error, OptionError};
use crate::output::Interrupt;
use crate::output::summary::Summary;
use crate::problem::{Overrides, RunPlan, Spelling};
use crate::run::memory::{MemoryOptions, run_in_memory};
use crate::solve::Problem;
use rayon::prelude::*;
use std::fmt::Write as _;

/// The most cases a sweep takes.
pub const MAX_CASES: usize = 100_000;

/// What to sweep and how to run each case.
#[derive(Clone, Debug, Default)]
pub struct SweepOptions {
    /// Each parameter with its values; the cases are every combination (the last parameter
    /// varies fastest).
    pub grid: Vec<(String, Vec<f64>)>,
    /// Run options applied to every case (end time, step, method, …).
    pub overrides: Overrides,
    /// Columns whose last value each row reports.
    pub end: Vec<String>,
    /// Threads (0: one per core; more than the cores are clamped to their number).
    pub jobs: usize,
    /// Raised: cases not yet started are skipped (reported as interrupted).
    pub interrupt: Interrupt,
}

/// One case of a sweep.
#[derive(Clone, Debug)]
pub struct SweepRow {
    /// The parameter values of the case.
    pub values: Vec<(String, f64)>,
    /// The run's summary (`None` when it failed).
    pub summary: Option<Summary>,
    /// The last value of each of [`SweepOptions::end`]'s columns (NaN when it failed).
    pub end: Vec<f64>,
    /// Why the case failed, if it did.
    pub error: Option<String>,
}

/// Every combination of the grid's values, the last parameter fastest.
pub fn cases(grid: &[(String, Vec<f64>)]) -> Vec<Vec<(String, f64)>> {
    let mut out = vec![Vec::new()];
    for (name, values) in grid {
        out = out
            .into_iter()
            .flat_map(|case: Vec<(String, f64)>| {
                values.iter().map(move |&v| {
                    let mut c = case.clone();
                    c.push((name.clone(), v));
                    c
                })
            })
            .collect();
    }
    out
}

/// Run `problem` by `plan` once per case of `opts.grid` on `opts.jobs` threads. The problem must come
/// from a file (each case rebuilds it with its values); a parameter the file does not have,
/// a column it does not write, or too many cases are refused before anything runs; a case
/// that fails is reported in its row.
pub fn sweep(
    problem: &Problem,
    plan: &RunPlan,
    opts: &SweepOptions,
) -> Result<Vec<SweepRow>, Error> {
    let bad = |option: &str, m: String| Error::from(OptionError::invalid(option, m));
    // the options as the caller wrote them: `--set k=1,2` / `--end c`, or `grid=` / `end=`
    let python = opts.overrides.spelling == Spelling::Python;
    let set = |n: &str, values: &str| match python {
        true => format!("grid={{\"{n}\": [{values}]}}"),
        false => format!("--set {n}={values}"),
    };
    let count = (opts.grid.iter()).fold(1f64, |n, (_, v)| n * v.len() as f64);
    if opts.grid.is_empty() || count < 1.0 {
        return Err(bad(
            "grid",
            format!(
                "a sweep needs at least one parameter with values, e.g. {}",
                set("k", "100, 200")
            ),
        ));
    }
    if count > MAX_CASES as f64 {
        return Err(Error::TooLarge(format!(
            "{count} cases (the limit is {MAX_CASES}): sweep fewer values"
        )));
    }
    // names are checked before anything runs (values only when each case is built)
    let known = |n: &String| problem.parameters.iter().any(|(p, _)| p == n);
    if let Some((n, _)) = opts.grid.iter().find(|(n, _)| !known(n)) {
        let names: Vec<&str> = problem.parameters.iter().map(|(p, _)| p.as_str()).collect();
        return Err(OptionError::UnknownName {
            kind: "parameter",
            name: n.clone(),
            message: format!(
                "{}: there is no parameter '{n}' (the file's parameters: {})",
                set(n, "…"),
                names.join(", ")
            ),
        }
        .into());
    }
    for (k, (n, _)) in opts.grid.iter().enumerate() {
        if opts.grid[..k].iter().any(|(m, _)| m == n) {
            return Err(bad(
                "grid",
                format!(
                    "parameter '{n}' is swept twice: give all its values at once, e.g. {}",
                    set(n, "1, 2, 3")
                ),
            ));
        }
    }
    let all = cases(&opts.grid);
    let (mut base, mut base_plan) = (problem.clone(), plan.clone());
    base_plan.apply(&mut base, &opts.overrides)?;
    let columns = crate::output::columns::Columns::new(&base, &base_plan.outputs);
    if let Some(c) = opts.end.iter().find(|c| !columns.names().contains(c)) {
        return Err(OptionError::UnknownName {
            kind: "column",
            name: c.clone(),
            message: format!(
                "{}: no such column (the columns: {})",
                match python {
                    true => format!("end=[\"{c}\"]"),
                    false => format!("--end {c}"),
                },
                columns.names()[1..].join(", ")
            ),
        }
        .into());
    }
    let jobs = threads(opts.jobs);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| bad("jobs", format!("cannot start {jobs} threads: {e}")))?;
    Ok(pool.install(|| {
        all.par_iter()
            .map(|c| run_case(problem, plan, c, opts))
            .collect()
    }))
}

/// The threads a sweep asking for `jobs` runs on: one per core for 0, never more than the
/// cores (each case is bound by arithmetic; more threads only cost memory).
///
/// ```
/// use lagrangian::run::sweep::threads;
/// let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
/// assert_eq!((threads(0), threads(100_000), threads(1)), (cores, cores, 1));
/// ```
pub fn threads(jobs: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match jobs {
        0 => cores,
        j => j.min(cores),
    }
}

fn refs(case: &[(String, f64)]) -> Vec<(&str, f64)> {
    case.iter().map(|(n, v)| (n.as_str(), *v)).collect()
}

/// One case: the problem rebuilt with its values, run keeping its first and last rows.
fn run_case(
    problem: &Problem,
    plan: &RunPlan,
    case: &[(String, f64)],
    opts: &SweepOptions,
) -> SweepRow {
    let failed = |e: String| SweepRow {
        values: case.to_vec(),
        summary: None,
        end: vec![f64::NAN; opts.end.len()],
        error: Some(e),
    };
    if opts.interrupt.raised() {
        return failed("interrupted before it started".into());
    }
    let result = problem.with_parameters(&refs(case)).and_then(|mut p| {
        let mut plan = plan.clone();
        plan.apply(&mut p, &opts.overrides)?;
        plan.output_every = usize::MAX;
        plan.output_times = None;
        let memory = MemoryOptions {
            interrupt: opts.interrupt.clone(),
            ..MemoryOptions::default()
        };
        run_in_memory(p, &plan, &memory)
    });
    match result {
        Ok(r) if r.summary.interrupted => failed(format!(
            "interrupted at t = {}",
            r.summary.stopped_at.unwrap_or(r.summary.t_end)
        )),
        Ok(r) => SweepRow {
            values: case.to_vec(),
            end: (opts.end.iter())
                .map(|c| {
                    r.column(c)
                        .and_then(|v| v.last().copied())
                        .unwrap_or(f64::NAN)
                })
                .collect(),
            summary: Some(r.summary),
            error: None,
        },
        Err(e) => failed(e.to_string()),
    }
}

/// The summary figures each row reports.
pub const FIGURES: [&str; 7] = [
    "t_end",
    "steps",
    "newton_iterations",
    "solve_seconds",
    "max_constraint_residual",
    "energy_drift",
    "energy_end",
];

fn figures(s: &Summary) -> [String; 7] {
    let e = |x: f64| format!("{x:e}");
    [
        format!("{}", s.t_end),
        s.stats.steps.to_string(),
        s.stats.newton_iterations.to_string(),
        format!("{:.6}", s.stats.solve_seconds),
        e(s.max_constraint_residual),
        e(s.energy_drift),
        e(s.energy_end),
    ]
}

/// The table as CSV: the parameters, [`FIGURES`], the end columns, `error` (quoted).
pub fn to_csv(rows: &[SweepRow], end: &[String]) -> String {
    let mut out = String::new();
    let Some(first) = rows.first() else {
        return out;
    };
    let mut header: Vec<String> = first.values.iter().map(|(n, _)| n.clone()).collect();
    header.extend(FIGURES.iter().map(|f| f.to_string()));
    header.extend(end.iter().map(|c| format!("end:{c}")));
    header.push("error".into());
    let _ = writeln!(out, "{}", header.join(","));
    for r in rows {
        let mut cells: Vec<String> = r.values.iter().map(|(_, v)| format!("{v}")).collect();
        match &r.summary {
            Some(s) => cells.extend(figures(s)),
            None => cells.extend(FIGURES.iter().map(|_| String::new())),
        }
        cells.extend(r.end.iter().map(|x| format!("{x:e}")));
        cells.push(match &r.error {
            Some(e) => format!("\"{}\"", e.replace('"', "'").replace('\n', " ")),
            None => String::new(),
        });
        let _ = writeln!(out, "{}", cells.join(","));
    }
    out
}
