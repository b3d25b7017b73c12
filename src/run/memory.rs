//! A run kept in memory: the trajectory's columns, the summary, the scene and (when asked)
//! the sensitivities — what `run_to_folder` writes, for a library or Python user who wants
//! arrays instead of files (the Python package's `Problem.run`).
//!
//! ```
//! use lagrangian::run::memory::{run_in_memory, MemoryOptions};
//! // a mass on a spring stretched by 1, released from rest: x(t) = 1 + cos(2t)
//! let text = "Dimension: 2\nPhysicalParams: { k: 4, m: 1 }\n\
//!             PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Springs: { OA: [k, 1] } }\n\
//!             ProblemData: { tend: 1, positions: { A: [2, 0] } }\nSolverParams: { step: 1e-3 }\n";
//! let (problem, plan) = lagrangian::spec::parse(text, "spring.yaml")?;
//! let run = run_in_memory(problem, &plan, &MemoryOptions::default())?;
//! let (t, x) = (run.column("t").unwrap(), run.column("A.x").unwrap());
//! assert_eq!(t.len(), 1001);
//! assert!((x[1000] - (1.0 + 2f64.cos())).abs() < 1e-5); // generalized-α's O(h²) error
//! assert_eq!(run.summary.stats.steps, 1000);
//! # Ok::<(), lagrangian::Error>(())
//! ```

use super::RunControl;
use super::running::Running;
use crate::error::Error;
use crate::output::Interrupt;
use crate::output::columns::Columns;
use crate::output::scene::Scene;
use crate::output::sink::MemorySink;
use crate::output::summary::Summary;
use crate::output::table::Table;
use crate::problem::memory;
use crate::simulation::RunEnd;
use crate::solve::{Problem, RunPlan};
use std::time::Instant;

/// The most memory a trajectory kept in memory may take (4 GB).
pub const MAX_BYTES: f64 = 4e9;

/// How to run a problem in memory.
#[derive(Clone, Debug, Default)]
pub struct MemoryOptions {
    /// A flag that ends the run after the current step when raised.
    pub interrupt: Interrupt,
    /// Parameters to differentiate every column with respect to (see
    /// [`SensitivityRecorder::columns`](crate::output::sensitivity::SensitivityRecorder::columns)); default none.
    pub sensitivity: Vec<String>,
    /// The input file, for the summary.
    pub source: Option<String>,
    /// The caller copies the rows once more (into a NumPy array, freeing them as it goes):
    /// the run plans for both when it checks the memory available.
    pub copied: bool,
}

/// A run's results in memory.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// The column names (`t` first), as in `trajectory.csv`.
    pub names: Vec<String>,
    /// The rows, in time order.
    pub rows: Vec<Vec<f64>>,
    /// The summary (what `summary.json` holds).
    pub summary: Summary,
    /// The scene (what `scene.json` holds).
    pub scene: Scene,
    /// The sensitivity columns `d(<column>)/d(<p>)` (`t` not included), empty unless asked.
    pub sensitivity_names: Vec<String>,
    /// The sensitivity rows, one per trajectory row.
    pub sensitivity_rows: Vec<Vec<f64>>,
    /// How the run ended.
    pub end: RunEnd,
}

impl RunResult {
    /// The values of column `name` over the rows (trajectory or sensitivity columns).
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        if let Some(k) = self.names.iter().position(|n| n == name) {
            return Some(self.rows.iter().map(|r| r[k]).collect());
        }
        let k = self.sensitivity_names.iter().position(|n| n == name)?;
        Some(self.sensitivity_rows.iter().map(|r| r[k]).collect())
    }

    /// The trajectory as a table (for plots and animation).
    pub fn table(&self) -> Table {
        Table {
            columns: self.names.clone(),
            rows: self.rows.clone(),
        }
    }

    /// The offline animation page of the run (as `lagrangian animate` writes it; feature
    /// `view`).
    #[cfg(feature = "view")]
    pub fn animation_html(
        &self,
        opts: &crate::view::movie::AnimationOptions,
    ) -> Result<String, crate::error::PlotError> {
        use crate::view::{animation::html_of, movie::Movie};
        let movie = Movie::of(self.scene.clone(), &self.table(), opts)?;
        Ok(html_of(&movie))
    }
}

/// Bytes per row of a trajectory kept in memory beyond its values: the row's vector and
/// what the allocator keeps with it.
pub const ROW_OVERHEAD: f64 = 48.0;

/// Bytes the rows of `problem`'s run by `plan` take in memory, with `sensitivities` parameters to
/// differentiate with respect to: `rows × (8·width + ROW_OVERHEAD)` for the trajectory and as
/// much per parameter for the sensitivities.
///
/// ```
/// use lagrangian::library::pendulum::planar_pendulum;
/// use lagrangian::prelude::*;
/// use lagrangian::run::memory::record_bytes;
/// let p = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).t_end(1.0);
/// let plan = RunPlan::new(GenAlphaOptions::new(1e-3));
/// // 1002 rows (every step, the first and one to spare) of the default columns
/// let width = lagrangian::output::columns::Columns::new(&p, &plan.outputs).names().len() as f64;
/// assert_eq!(record_bytes(&p, &plan, 0), 1002.0 * (8.0 * width + 48.0));
/// ```
pub fn record_bytes(problem: &Problem, plan: &RunPlan, sensitivities: usize) -> f64 {
    let width = Columns::new(problem, &plan.outputs).names().len() as f64;
    let per_row = 8.0 * width + ROW_OVERHEAD;
    let sens_row = match sensitivities {
        0 => 0.0,
        n => 8.0 * (width - 1.0) * n as f64 + ROW_OVERHEAD,
    };
    plan.output_rows(problem) as f64 * (per_row + sens_row)
}

/// Refuse a run whose rows (twice, when the caller copies them) would take more than
/// [`MAX_BYTES`] or, with the model, more than the memory available.
fn check_memory(problem: &Problem, plan: &RunPlan, opts: &MemoryOptions) -> Result<(), Error> {
    let rows = plan.output_rows(problem);
    let width = Columns::new(problem, &plan.outputs).names().len();
    let bytes = record_bytes(problem, plan, opts.sensitivity.len());
    let too_large = |m: String| Error::TooLarge(m);
    if bytes > MAX_BYTES {
        return Err(too_large(format!(
            "the trajectory would take {:.1} GB in memory ({rows} rows × {width} columns; the \
             limit is {:.0} GB): keep fewer rows (output_every, output_dt) or fewer columns, or \
             write the run to files",
            bytes / 1e9,
            MAX_BYTES / 1e9
        )));
    }
    let copies = if opts.copied { 2.0 } else { 1.0 };
    let model = &problem.model;
    let need = copies * bytes + memory::estimate(model.n_coords() + model.n_constraints());
    let what = format!(
        "the run's {rows} rows × {width} columns{} and its model need about {:.3} GB of memory",
        if opts.copied {
            ", copied into arrays,"
        } else {
            ""
        },
        need / 1e9
    );
    memory::check_bytes(need, &what)
        .map_err(|m| too_large(format!("{m}: keep fewer rows (output_every, output_dt) or fewer columns, or write the run to files")))
}

/// Integrate `problem` from consistent initial values to its end time by `plan`, keeping the
/// rows it asks for (every `output_every`-th step, or at its output times) of its columns in
/// memory ([`run`](super::run) with a [`MemorySink`]). Refuses a run whose rows would take
/// more than [`MAX_BYTES`] or than the memory available.
pub fn run_in_memory(
    problem: Problem,
    plan: &RunPlan,
    opts: &MemoryOptions,
) -> Result<RunResult, Error> {
    let t_end = problem.t_end;
    start_in_memory(problem, plan, opts)?.until(t_end)
}

/// A run kept in memory that goes on: [`Running`] with a [`MemorySink`] for each span, each
/// span's rows a [`RunResult`] of their own.
///
/// ```
/// use lagrangian::library::pendulum::planar_pendulum;
/// use lagrangian::prelude::*;
/// use lagrangian::run::memory::{run_in_memory, start_in_memory, MemoryOptions};
/// let p = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).guess(&[1.0, 0.0], &[0.0, 0.0]).t_end(2.0);
/// let plan = RunPlan::new(GenAlphaOptions::new(1e-3)).output_every(50);
/// let opts = MemoryOptions::default();
/// let whole = run_in_memory(p.clone(), &plan, &opts)?;
/// let mut run = start_in_memory(p, &plan, &opts)?;
/// let mut rows = run.until(0.5)?.rows; // t = 0 … 0.5
/// for t_end in [1.0, 1.5, 2.0] {
///     rows.extend(run.until(t_end)?.rows); // the rows after the time before
/// }
/// assert_eq!(rows.len(), whole.rows.len());
/// let x = |r: &[Vec<f64>]| r.last().unwrap()[1];
/// assert!((x(&rows) - x(&whole.rows)).abs() < 1e-13);
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub struct MemoryRun {
    running: Running,
    scene: Scene,
    opts: MemoryOptions,
}

/// Find consistent initial values for `problem` and prepare its run by `plan` in memory
/// ([`MemoryRun::until`] runs it). Refuses a run whose rows to the problem's end time would
/// take more than [`MAX_BYTES`] or than the memory available.
pub fn start_in_memory(
    problem: Problem,
    plan: &RunPlan,
    opts: &MemoryOptions,
) -> Result<MemoryRun, Error> {
    let started = Some(Instant::now());
    check_memory(&problem, plan, opts)?;
    let scene = Scene::of(&problem);
    let control = RunControl {
        interrupt: opts.interrupt.clone(),
        source: opts.source.clone(),
        started,
        sensitivity: opts.sensitivity.clone(),
        ..RunControl::default()
    };
    Ok(MemoryRun {
        running: Running::start(problem, plan, &control)?,
        scene,
        opts: opts.clone(),
    })
}

impl MemoryRun {
    /// Step on to `t_end` ([`Running::until`]): the rows of this span, the summary of the run
    /// so far. A later span is refused, as the first, when its rows would not fit in memory.
    pub fn until(&mut self, t_end: f64) -> Result<RunResult, Error> {
        if self.running.started() {
            let sim = self.running.simulation();
            let mut span = sim.problem().clone();
            (span.t0, span.t_end) = (sim.t(), t_end);
            check_memory(&span, sim.plan(), &self.opts)?;
        }
        let mut table = MemorySink::default();
        let ran = self.running.until(t_end, &mut [&mut table])?;
        let sens = ran.sensitivity.unwrap_or_default();
        Ok(RunResult {
            names: table.names,
            rows: table.rows,
            summary: ran.summary,
            scene: self.scene.clone(),
            sensitivity_names: sens.names,
            sensitivity_rows: sens.rows,
            end: ran.end,
        })
    }

    /// The run (its simulation, time and counters).
    pub fn running(&self) -> &Running {
        &self.running
    }

    /// Watch `interrupt` from the next span on.
    pub fn set_interrupt(&mut self, interrupt: Interrupt) {
        self.running.set_interrupt(interrupt);
    }
}
