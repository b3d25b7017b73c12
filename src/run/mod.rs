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
pub mod linear;
pub mod memory;
pub mod modes;
pub mod running;
pub mod sweep;

use crate::error::{Error, InitError, SolveError};
use crate::output::Interrupt;
use crate::output::columns::Columns;
use crate::output::folder::RunFolder;
use crate::output::formats;
use crate::output::ledger::LedgerTotals;
use crate::output::scene::Scene;
use crate::output::sensitivity::SensitivityRows;
use crate::output::sink::{Schema, TableSink};
use crate::output::summary::{RunFacts, Summary, Tally};
use crate::problem::Spelling;
use crate::simulation::{RunEnd, Simulation};
use crate::solve::{Problem, RunPlan};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The folder inside the output folder that an interrupted run's results go to.
pub const INTERRUPTED: &str = "interrupted";

/// The most bytes of results one run may write (50 GB, estimated before it starts).
pub const MAX_OUTPUT_BYTES: f64 = 50e9;

/// How a run is watched and what it records beside its table: what [`run`] takes from
/// [`RunOptions`] and [`memory::MemoryOptions`].
#[derive(Clone, Debug, Default)]
pub struct RunControl {
    /// A flag that ends the run after the current step when raised (Ctrl-C, another thread).
    pub interrupt: Interrupt,
    /// Show a progress bar on the terminal (only when the run is long; feature `cli`).
    pub progress: bool,
    /// The input file, for the summary.
    pub source: Option<String>,
    /// When the work started (parsing included), for `build_seconds`; default: the call.
    pub started: Option<Instant>,
    /// Parameters to differentiate the run with respect to ([`SensitivityRecorder::columns`](crate::output::sensitivity::SensitivityRecorder::columns)).
    pub sensitivity: Vec<String>,
    /// The folder the sinks write into, named in the messages of their errors.
    pub place: Option<PathBuf>,
}

/// What [`run`] produced beside the rows its sinks took.
pub struct Ran {
    /// The summary of the run.
    pub summary: Summary,
    /// How the run ended.
    pub end: RunEnd,
    /// The column names (`t` first).
    pub names: Vec<String>,
    /// The sensitivities of the rows, when [`RunControl::sensitivity`] named parameters.
    pub sensitivity: Option<SensitivityRows>,
}

/// Integrate `problem` from consistent initial values to its end time by `plan`, writing the
/// rows the plan keeps of its columns (`Columns::new(&problem, &plan.outputs)`) to every sink
/// and finishing them — **the one run** behind [`run_to_folder`] (file sinks in the result
/// folder) and [`memory::run_in_memory`] (a [`MemorySink`](crate::output::sink::MemorySink)).
///
/// ```
/// use lagrangian::library::pendulum::planar_pendulum;
/// use lagrangian::output::sink::MemorySink;
/// use lagrangian::prelude::*;
/// use lagrangian::run::{run, RunControl};
/// let p = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).guess(&[1.0, 0.0], &[0.0, 0.0]).t_end(0.5);
/// let plan = RunPlan::new(GenAlphaOptions::new(1e-3)).output_every(100);
/// let mut memory = MemorySink::default();
/// let ran = run(p, &plan, &mut [&mut memory], &RunControl::default())?;
/// assert_eq!(memory.rows.len(), 6); // t = 0, 0.1, …, 0.5
/// assert_eq!(ran.names, memory.names);
/// assert_eq!(ran.summary.stats.steps, 500);
/// // released at rest: the rod force starts at zero (λ = 0)
/// assert!(memory.column("lambda:rod").unwrap()[0].abs() < 1e-9);
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub fn run(
    problem: Problem,
    plan: &RunPlan,
    sinks: &mut [&mut dyn TableSink],
    control: &RunControl,
) -> Result<Ran, Error> {
    let t_end = problem.t_end;
    running::Running::start(problem, plan, control)?.until(t_end, sinks)
}

/// How to run a problem into a folder.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The output folder (created if needed). An earlier result there is replaced only when
    /// this run completes; an interrupted run's results go to `out/interrupted`.
    pub out: PathBuf,
    /// Show a progress bar on the terminal (only when stderr is a terminal and the run is long;
    /// feature `cli`).
    pub progress: bool,
    /// The input file, for the summary.
    pub source: Option<String>,
    /// A flag that ends the run after the current step when raised (Ctrl-C, another thread).
    pub interrupt: Interrupt,
    /// When the work started (parsing included), for `build_seconds`; default: the call.
    pub started: Option<Instant>,
    /// Parameters to differentiate the run with respect to: their forward sensitivities go to
    /// `sensitivity.csv` ([`SensitivityRecorder`](crate::output::sensitivity::SensitivityRecorder)); default none.
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

    /// What [`run`] takes of these options.
    pub fn control(&self) -> RunControl {
        RunControl {
            interrupt: self.interrupt.clone(),
            progress: self.progress,
            source: self.source.clone(),
            started: self.started,
            sensitivity: self.sensitivity.clone(),
            place: Some(self.out.clone()),
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

/// Refuse a run whose files would not fit on any reasonable disk (more than
/// [`MAX_OUTPUT_BYTES`]), before anything is written.
fn check_output_size(
    problem: &Problem,
    plan: &RunPlan,
    width: usize,
    dir: &Path,
) -> Result<(), Error> {
    let rows = plan.output_rows(problem);
    let per_value: f64 = plan
        .outputs
        .formats
        .iter()
        .map(|&f| formats::bytes_per_value(f))
        .sum();
    let bytes = rows as f64 * width as f64 * per_value;
    if bytes > MAX_OUTPUT_BYTES {
        return Err(Error::Io {
            path: dir.display().to_string(),
            message: format!(
                "the run would write about {:.3} GB ({rows} rows × {width} columns); the limit \
                 is {:.0} GB: write fewer rows (--output-every, --output-dt, Output: every, dt) \
                 or fewer columns (--columns, Output: columns)",
                bytes / 1e9,
                MAX_OUTPUT_BYTES / 1e9
            ),
        });
    }
    Ok(())
}

/// Integrate `problem` from consistent initial values to its end time by `plan`, writing its
/// table in the plan's formats ([`formats::file_sink`]), the scene, the sensitivities and the
/// summary into `opts.out` atomically ([`RunFolder`]: the earlier result is replaced, by
/// name, only when the run completes; a run that fails leaves it unchanged).
pub fn run_to_folder(
    problem: Problem,
    plan: &RunPlan,
    opts: &RunOptions,
) -> Result<RunReport, Error> {
    let io = |e: std::io::Error| Error::io(&opts.out, e);
    let columns = Columns::new(&problem, &plan.outputs);
    check_output_size(&problem, plan, columns.names().len(), &opts.out)?;
    let mut folder = RunFolder::open(&opts.out).map_err(io)?;
    folder.check_folder(INTERRUPTED).map_err(io)?;
    let mut files = Vec::new();
    for &f in &plan.outputs.formats {
        files.push(formats::file_sink(f, folder.partial(), Schema::of(&columns)).map_err(io)?);
    }
    let scene = serde_json::to_string_pretty(&Scene::of(&problem)).map_err(std::io::Error::other);
    scene
        .and_then(|s| folder.write_file("scene.json", &(s + "\n")))
        .map_err(io)?;
    let mut sinks: Vec<&mut dyn TableSink> = (files.iter_mut())
        .map(|f| f.as_mut() as &mut dyn TableSink)
        .collect();
    let ran = run(problem, plan, &mut sinks, &opts.control())?;
    drop(sinks);
    drop(files);
    if let Some(s) = &ran.sensitivity {
        folder
            .write_file("sensitivity.csv", &s.to_csv())
            .map_err(io)?;
    }
    let dir = match ran.summary.interrupted {
        true => opts.out.join(INTERRUPTED),
        false => opts.out.clone(),
    };
    folder
        .finish(&ran.summary, &dir, "summary.json")
        .map_err(|e| Error::io(&dir, e))?;
    let mut files: Vec<PathBuf> = (ran.summary.outputs.formats.iter())
        .map(|f| dir.join(formats::file_name(*f)))
        .collect();
    if ran.sensitivity.is_some() {
        files.push(dir.join("sensitivity.csv"));
    }
    files.extend(["scene.json", "summary.json"].map(|f| dir.join(f)));
    Ok(RunReport {
        summary: ran.summary,
        dir,
        files,
        end: ran.end,
    })
}

/// The message of a run's error for its user: a diverged Newton iteration suggests a quarter
/// of the step that failed (the only failure a smaller step cures), spelled as that user gives
/// options (`--step`, `step=`), and a failed initialization says so.
///
/// ```
/// use lagrangian::error::{Error, SolveError};
/// use lagrangian::problem::Spelling;
/// use lagrangian::run::describe;
/// let e = SolveError::NewtonDiverged { t: 1.0, step: 10, h: 0.1, iterations: 9, residual: 2.0 };
/// let e = Error::from(e);
/// assert!(describe(&e, Spelling::Cli).ends_with("(for example --step 2.5e-2)"));
/// assert!(describe(&e, Spelling::Python).ends_with("(for example step=2.5e-2)"));
/// ```
pub fn describe(e: &Error, spelling: Spelling) -> String {
    match e {
        Error::Solve(e @ SolveError::NewtonDiverged { h, .. }) => {
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
    summary.notes.extend(sim.drives().lag_note());
    summary.switches = sim.switches().to_vec();
    summary
}
