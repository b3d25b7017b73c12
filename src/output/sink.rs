//! Where a run's table goes: a [`TableSink`] takes the rows one by one — a file format
//! (`trajectory.csv`, `npy/`, `trajectory.parquet`) or memory ([`MemorySink`], what the Python
//! arrays come from) — and the [`TableWriter`] observer computes each kept row of a run's
//! [`Columns`] once and hands it to every sink. A new format is one file: a type implementing
//! `TableSink`, a [`Format`](crate::problem::Format) variant and its line in
//! [`formats::file_sink`](crate::output::formats::file_sink).
//!
//! ```
//! use lagrangian::library::pendulum::planar_pendulum;
//! use lagrangian::output::columns::Columns;
//! use lagrangian::output::sink::{MemorySink, TableWriter};
//! use lagrangian::prelude::*;
//! use lagrangian::simulation::Simulation;
//! let p = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).guess(&[1.0, 0.0], &[0.0, 0.0]).t_end(0.1);
//! let plan = RunPlan::new(GenAlphaOptions::new(1e-3)).output_every(10);
//! let columns = Columns::new(&p, &plan.outputs);
//! let mut memory = MemorySink::with_names(columns.names());
//! let mut writer = TableWriter::new(columns, plan.output_every).sink(&mut memory);
//! Simulation::new(p, &plan)?.run(&mut [&mut writer])?;
//! drop(writer);
//! assert_eq!(memory.rows.len(), 11); // t = 0, 0.01, …, 0.1
//! assert_eq!(memory.names[0], "t");
//! assert!((memory.rows[10][0] - 0.1).abs() < 1e-12);
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::error::{Error, SolveError};
use crate::output::columns::Columns;
use crate::output::ledger::LedgerTotals;
use crate::output::observe::{Control, Event, Observer};
use crate::problem::RunPlan;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The columns of a table: their names (`t` first) and the groups they form (name and range
/// of columns; `t` is in none).
#[derive(Clone, Copy, Debug)]
pub struct Schema<'a> {
    /// The column names, `t` first.
    pub names: &'a [String],
    /// The column groups (`positions`, `energies`, …) with their column ranges.
    pub groups: &'a [(&'static str, Range<usize>)],
}

impl<'a> Schema<'a> {
    /// The schema of `columns`.
    pub fn of(columns: &'a Columns) -> Self {
        Schema {
            names: columns.names(),
            groups: columns.groups(),
        }
    }
}

/// A destination of a run's table, row by row.
pub trait TableSink {
    /// Told the column names (`t` first) before the first row; a sink made for a
    /// [`Schema`] already knows them.
    fn columns(&mut self, _names: &[String]) {}

    /// Take one row (one value per column of the schema the sink was made for).
    fn row(&mut self, values: &[f64]) -> io::Result<()>;

    /// The table is complete: write what is buffered and close. Called once, after the last
    /// row; a sink dropped without it leaves its files unfinished (the folder they are in is
    /// thrown away, see [`RunFolder`](crate::output::folder::RunFolder)).
    fn finish(&mut self) -> io::Result<()>;
}

/// The rows kept in memory: what `run_in_memory` returns and the Python arrays are made of.
#[derive(Clone, Debug, Default)]
pub struct MemorySink {
    /// The column names, `t` first.
    pub names: Vec<String>,
    /// The rows, in time order.
    pub rows: Vec<Vec<f64>>,
}

impl MemorySink {
    /// The values of column `name` over the rows.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let k = self.names.iter().position(|n| n == name)?;
        Some(self.rows.iter().map(|r| r[k]).collect())
    }
}

impl TableSink for MemorySink {
    fn columns(&mut self, names: &[String]) {
        self.names = names.to_vec();
    }
    fn row(&mut self, values: &[f64]) -> io::Result<()> {
        self.rows.push(values.to_vec());
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The file a Parquet table is written to (named here, below every format's module, for the
/// folder and the table reader, and for builds without the feature `parquet`).
pub const PARQUET_FILE: &str = "trajectory.parquet";

/// The observer that computes a run's [`Columns`] at every kept step (every `every`-th, and
/// the requested output times) and writes the row to each sink; a value that is not finite
/// stops the run naming its column ([`SolveError::NonFiniteOutput`]).
pub struct TableWriter<'s> {
    columns: Columns,
    every: usize,
    row: Vec<f64>,
    sinks: Vec<&'s mut dyn TableSink>,
    /// Where the sinks write, for the messages of their errors.
    place: PathBuf,
}

impl<'s> TableWriter<'s> {
    /// A writer of `columns`, keeping every `every`-th step (and the first and the last), with
    /// no sink yet.
    pub fn new(columns: Columns, every: usize) -> Self {
        TableWriter {
            row: Vec::with_capacity(columns.names().len()),
            columns,
            every: every.max(1),
            sinks: Vec::new(),
            place: PathBuf::new(),
        }
    }

    /// Write to `sink` too.
    pub fn sink(mut self, sink: &'s mut dyn TableSink) -> Self {
        self.sinks.push(sink);
        self
    }

    /// Write to every sink of `sinks`.
    pub fn sinks(mut self, sinks: impl IntoIterator<Item = &'s mut dyn TableSink>) -> Self {
        self.sinks.extend(sinks);
        self
    }

    /// Name `place` (the output folder) in the messages of the sinks' errors.
    pub fn at(mut self, place: &Path) -> Self {
        self.place = place.to_path_buf();
        self
    }

    /// The column names, `t` first.
    pub fn names(&self) -> &[String] {
        self.columns.names()
    }

    /// The columns.
    pub fn columns(&self) -> &Columns {
        &self.columns
    }

    /// The energy ledger so far, when the columns include it.
    pub fn ledger(&self) -> Option<LedgerTotals> {
        self.columns.ledger().map(|l| l.totals())
    }

    /// The columns, with what they carry from row to row (the ledger's integrals, unwrapped
    /// angles), for a writer of the run's next span.
    pub fn into_columns(self) -> Columns {
        self.columns
    }

    /// Finish every sink (see [`TableSink::finish`]).
    pub fn finish(&mut self) -> Result<(), Error> {
        for s in &mut self.sinks {
            s.finish().map_err(|e| Error::io(&self.place, e))?;
        }
        Ok(())
    }
}

impl MemorySink {
    /// A memory sink for the columns `names`.
    pub fn with_names(names: &[String]) -> Self {
        MemorySink {
            names: names.to_vec(),
            rows: Vec::new(),
        }
    }
}

/// Advance `columns` by the event and, when the event is kept (every `every`-th step, the
/// first, the last and the requested output times), compute its row into `row`: `Ok(true)`.
/// A value that is not finite is an error naming its column.
fn kept_row(
    columns: &mut Columns,
    every: usize,
    ev: &Event<'_>,
    row: &mut Vec<f64>,
) -> Result<bool, Error> {
    columns.advance(ev.problem, ev.state, ev.work);
    if !ev.is_output(every) {
        return Ok(false);
    }
    columns.row(ev.problem, ev.state, row);
    if let Some(k) = row.iter().position(|x| !x.is_finite()) {
        let column = columns.names()[k].clone();
        let t = ev.state.t;
        return Err(SolveError::NonFiniteOutput { t, column }.into());
    }
    Ok(true)
}

impl Observer for TableWriter<'_> {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        if kept_row(&mut self.columns, self.every, ev, &mut self.row)? {
            for s in &mut self.sinks {
                s.row(&self.row).map_err(|e| Error::io(&self.place, e))?;
            }
        }
        Ok(Control::Continue)
    }
    fn wants_work(&self, _plan: &RunPlan) -> bool {
        self.columns.ledger().is_some()
    }
}

/// A [`MemorySink`] that is its own observer, with the columns of the problem and plan of the
/// first state it sees: the short way to keep a run's table in memory.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::library::pendulum::planar_pendulum;
/// use lagrangian::output::sink::ColumnRecorder;
/// let problem = Problem::new(planar_pendulum(1.0, 1.0, 9.81))
///     .guess(&[1.0, 0.0], &[0.0, 0.0])
///     .t_end(0.5);
/// let mut sim = Simulation::new(problem, GenAlphaOptions::new(1e-3))?;
/// let mut table = ColumnRecorder::every(100);
/// sim.run(&mut [&mut table])?;
/// assert_eq!(table.rows.len(), 6);
/// // released at rest: the rod force starts at zero (λ = 0)
/// assert!(table.column("lambda:rod").unwrap()[0].abs() < 1e-9);
/// # Ok::<(), lagrangian::Error>(())
/// ```
#[derive(Default)]
pub struct ColumnRecorder {
    columns: Option<Columns>,
    every: usize,
    row: Vec<f64>,
    /// The rows, in time order.
    pub rows: Vec<Vec<f64>>,
}

impl ColumnRecorder {
    /// A recorder keeping every `every`-th step.
    pub fn every(every: usize) -> Self {
        ColumnRecorder {
            every: every.max(1),
            ..Default::default()
        }
    }
    /// The column names (empty before the first state).
    pub fn names(&self) -> &[String] {
        self.columns.as_ref().map_or(&[], |c| c.names())
    }
    /// The values of column `name` over the rows.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let k = self.names().iter().position(|n| n == name)?;
        Some(self.rows.iter().map(|r| r[k]).collect())
    }
    /// The energy ledger so far (when the problem's outputs include it).
    pub fn ledger(&self) -> Option<LedgerTotals> {
        self.columns.as_ref()?.ledger().map(|l| l.totals())
    }
}

impl Observer for ColumnRecorder {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        let columns =
            (self.columns).get_or_insert_with(|| Columns::new(ev.problem, &ev.plan.outputs));
        if kept_row(columns, self.every, ev, &mut self.row)? {
            self.rows.push(self.row.clone());
        }
        Ok(Control::Continue)
    }
    fn wants_work(&self, plan: &RunPlan) -> bool {
        match &self.columns {
            Some(c) => c.ledger().is_some(),
            None => plan.outputs.ledger,
        }
    }
}
