//! A run into a folder: the problem through the one run loop into `trajectory.csv` and
//! `summary.json`, with progress on the terminal and clean interruption — what `lagrangian run`
//! does, as a library function a Rust or Python user can call too.
//!
//! ```
//! use lagrangian::prelude::*;
//! use lagrangian::library::pendulum::planar_pendulum;
//! use lagrangian::run::{run_to_folder, RunOptions};
//! let dir = std::env::temp_dir().join(format!("lagrangian-doc-run-{}", std::process::id()));
//! let problem = Problem::new(planar_pendulum(1.0, 1.0, 9.81))
//!     .guess(&[1.0, 0.0], &[0.0, 0.0])
//!     .t_end(0.5);
//! let plan = RunPlan::new(GenAlphaOptions::new(1e-3));
//! let report = run_to_folder(problem, &plan, &RunOptions::new(&dir))?;
//! assert_eq!(report.summary.stats.steps, 500);
//! assert!(report.summary.max_constraint_residual < 1e-10);
//! assert!(dir.join("trajectory.csv").exists() && dir.join("summary.json").exists());
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), lagrangian::Error>(())
//! ```

pub mod equilibrium;
pub mod fit;
pub mod memory;
pub mod modes;
pub mod sweep;

use crate::error::{Error, InitError, SolveError};
use crate::output::csv::CsvWriter;
use crate::output::ledger::LedgerTotals;
use crate::output::progress::Progress;
use crate::output::sensitivity::SensitivityRecorder;
use crate::output::summary::{RunFacts, Summary, Tally};
use crate::output::{Interrupt, Observer};
use crate::problem::Spelling;
use crate::simulation::{RunEnd, Simulation};
use crate::solve::{Problem, RunPlan};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The folder inside the output folder that an interrupted run's results go to.
pub const INTERRUPTED: &str = "interrupted";

/// How to run a problem into a folder.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The output folder (created if needed). An earlier result there is replaced only when
    /// this run completes; an interrupted run's results go to `out/interrupted`.
    pub out: PathBuf,
    /// Show a progress bar on the terminal (only when stderr is a terminal and the run is long).
    pub progress: bool,
    /// The input file, for the summary.
    pub source: Option<String>,
    /// A flag that ends the run after the current step when raised (Ctrl-C, another thread).
    pub interrupt: Interrupt,
    /// When the work started (parsing included), for `build_seconds`; default: the call.
    pub started: Option<Instant>,
    /// Parameters to differentiate the run with respect to: their forward sensitivities go to
    /// `sensitivity.csv` ([`SensitivityRecorder`]); default none.
    pub sensitivity: Vec<String>,
}

impl RunOptions {
    /// Write into `out`, no progress bar, no source.
    pub fn new(out: impl AsRef<Path>) -> Self {
        RunOptions {
            out: out.as_ref().to_path_buf(),
            progress: false,
            source: None,
            interrupt: Interrupt::new(),
            started: None,
            sensitivity: Vec::new(),
        }
    }
}

/// What a run into a folder produced.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The summary (also written as `summary.json`).
    pub summary: Summary,
    /// The folder the results are in (`out`, or `out/interrupted`).
    pub dir: PathBuf,
    /// The files written, in `dir` (`trajectory.csv`, the `npy` folder, `summary.json`).
    pub files: Vec<PathBuf>,
    /// How the run ended.
    pub end: RunEnd,
}

impl RunReport {
    /// Whether the run was interrupted before its end time.
    pub fn interrupted(&self) -> bool {
        self.summary.interrupted
    }
}

/// Integrate `problem` from consistent initial values to its end time by `plan`, writing the
/// trajectory and the summary into `opts.out` atomically (see [`crate::output::csv`]). A run
/// that fails leaves an earlier result in the folder unchanged.
pub fn run_to_folder(
    problem: Problem,
    plan: &RunPlan,
    opts: &RunOptions,
) -> Result<RunReport, Error> {
    let start = opts.started.unwrap_or_else(Instant::now);
    let steps = problem.steps(plan.method.h());
    let mut sim = Simulation::new(problem.clone(), plan)?;
    let build_seconds = start.elapsed().as_secs_f64();
    let mut csv = CsvWriter::create(&opts.out, &problem, plan)?;
    csv.check_folder(INTERRUPTED)?;
    let mut tally = Tally::new();
    let mut progress = match plan.method.is_adaptive() {
        true => Progress::over_time(problem.t0, problem.t_end, opts.progress),
        false => Progress::new(steps, opts.progress && steps >= 2000),
    };
    let mut watch = opts.interrupt.clone();
    let names: Vec<&str> = opts.sensitivity.iter().map(String::as_str).collect();
    let mut sens = match names.is_empty() {
        true => None,
        false => Some(SensitivityRecorder::columns(&problem, plan, &names)?),
    };
    let mut observers: Vec<&mut dyn Observer> =
        vec![&mut csv, &mut tally, &mut progress, &mut watch];
    if let Some(s) = &mut sens {
        observers.push(s);
    }
    let end = sim.run(&mut observers);
    progress.finish();
    let end = end?;
    let interrupted = opts.interrupt.raised() && matches!(end, RunEnd::Stopped { .. });
    let mut summary = summarize(
        &sim,
        &end,
        interrupted,
        build_seconds,
        &opts.source,
        csv.ledger(),
        &mut tally,
    );
    if let Some(s) = &sens {
        csv.write_file("sensitivity.csv", &s.to_csv())?;
        summary.sensitivity = opts.sensitivity.clone();
    }
    let dir = match interrupted {
        true => opts.out.join(INTERRUPTED),
        false => opts.out.clone(),
    };
    csv.finish_in(&summary, &dir)?;
    let o = &summary.outputs;
    let files = [
        (o.csv, "trajectory.csv"),
        (o.npy, "npy"),
        (sens.is_some(), "sensitivity.csv"),
        (true, "scene.json"),
        (true, "summary.json"),
    ]
    .into_iter()
    .filter(|&(on, _)| on)
    .map(|(_, f)| dir.join(f))
    .collect();
    Ok(RunReport {
        summary,
        dir,
        files,
        end,
    })
}

/// The message of a run's error for a user who ran it with step `h`: a diverged Newton
/// iteration suggests a quarter of the step (the only failure a smaller step cures), spelled
/// as that user gives options (`--step`, `step=`), and a failed initialization says so.
///
/// ```
/// use lagrangian::error::{Error, SolveError};
/// use lagrangian::problem::Spelling;
/// use lagrangian::run::describe;
/// let e = Error::from(SolveError::NewtonDiverged { t: 1.0, step: 10, iterations: 9, residual: 2.0 });
/// assert!(describe(&e, 0.1, Spelling::Cli).ends_with("(for example --step 2.5e-2)"));
/// assert!(describe(&e, 0.1, Spelling::Python).ends_with("(for example step=2.5e-2)"));
/// ```
pub fn describe(e: &Error, h: f64, spelling: Spelling) -> String {
    match e {
        Error::Solve(e @ SolveError::NewtonDiverged { .. }) => {
            let step = spelling.given("step", &format!("{:e}", h / 4.0));
            format!("{e} (for example {step})")
        }
        Error::Init(InitError::BadInput(_)) => e.to_string(),
        Error::Init(e) => format!("initial values: {e}"),
        e => e.to_string(),
    }
}

/// The summary of a run that ended with `end` (its facts gathered from the simulation).
pub(crate) fn summarize(
    sim: &Simulation,
    end: &RunEnd,
    interrupted: bool,
    build_seconds: f64,
    source: &Option<String>,
    ledger: Option<LedgerTotals>,
    tally: &mut Tally,
) -> Summary {
    let stats = sim.stats();
    let mut summary = Summary::new(
        &RunFacts {
            problem: sim.problem(),
            plan: sim.plan(),
            init: sim.init_report(),
            stats: &stats,
            build_seconds,
            stopped_at: match end {
                RunEnd::Stopped { t } => Some(*t),
                RunEnd::Completed => None,
            },
            interrupted,
            source: source.clone(),
            last: sim.view(),
            ledger,
        },
        tally,
    );
    summary.notes.extend(sim.integrator().advice());
    summary.switches = sim.switches().to_vec();
    summary
}
