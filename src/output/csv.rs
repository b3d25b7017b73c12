//! Writing results: trajectory CSV and run summary, atomically.
//!
//! A run writes into a hidden `DIR/.partial-<pid>/` directory; only when it has finished are
//! `trajectory.csv` and then `summary.json` moved into `DIR`. Results of an earlier run in `DIR`
//! are removed when a new run starts. So an interrupted or failed run never leaves a result
//! that looks complete: `summary.json` exists only for finished runs.

use crate::error::Error;
use crate::output::columns::Columns;
use crate::output::observe::{Control, Event, Observer};
use crate::output::summary::Summary;
use crate::solve::Problem;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The files of one run, being written.
pub struct RunFiles {
    dir: PathBuf,
    partial: PathBuf,
    csv: BufWriter<File>,
}

impl RunFiles {
    /// Start a run in `dir`: remove earlier results there, open the partial CSV and write the
    /// header `columns`.
    pub fn create(dir: &Path, columns: &[String]) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
        for f in ["summary.json", "trajectory.csv"] {
            let p = dir.join(f);
            if p.exists() {
                fs::remove_file(p)?;
            }
        }
        let partial = dir.join(format!(".partial-{}", std::process::id()));
        fs::create_dir_all(&partial)?;
        let mut csv = BufWriter::new(File::create(partial.join("trajectory.csv"))?);
        writeln!(csv, "{}", columns.join(","))?;
        Ok(RunFiles {
            dir: dir.to_path_buf(),
            partial,
            csv,
        })
    }

    /// Append one row.
    pub fn row(&mut self, values: &[f64]) -> io::Result<()> {
        let mut first = true;
        for v in values {
            if !first {
                self.csv.write_all(b",")?;
            }
            first = false;
            write!(self.csv, "{v:.12e}")?;
        }
        self.csv.write_all(b"\n")
    }

    /// Finish: write the summary and move both files into place (summary last).
    pub fn finish<S: serde::Serialize>(mut self, summary: &S) -> io::Result<()> {
        self.csv.flush()?;
        let text = serde_json::to_string_pretty(summary).map_err(io::Error::other)?;
        fs::write(self.partial.join("summary.json"), text + "\n")?;
        fs::rename(
            self.partial.join("trajectory.csv"),
            self.dir.join("trajectory.csv"),
        )?;
        fs::rename(
            self.partial.join("summary.json"),
            self.dir.join("summary.json"),
        )?;
        fs::remove_dir_all(&self.partial)
    }

    /// Abandon the run: remove the partial files.
    pub fn abandon(self) {
        let _ = fs::remove_dir_all(&self.partial);
    }
}

/// Writes `trajectory.csv` (the [`Columns`] of the problem, every `every`-th step and the first
/// and last) and, when finished, `summary.json` into a folder, as an observer.
pub struct CsvWriter {
    files: Option<RunFiles>,
    columns: Columns,
    every: usize,
    row: Vec<f64>,
    dir: PathBuf,
}

impl CsvWriter {
    /// Start writing `problem`'s trajectory into `dir` (see [`RunFiles::create`]).
    pub fn create(dir: &Path, problem: &Problem, every: usize) -> Result<Self, Error> {
        let columns = Columns::new(problem);
        let files = RunFiles::create(dir, columns.names()).map_err(|e| Error::io(dir, e))?;
        Ok(CsvWriter {
            row: Vec::with_capacity(columns.names().len()),
            files: Some(files),
            columns,
            every: every.max(1),
            dir: dir.to_path_buf(),
        })
    }

    /// The column names.
    pub fn columns(&self) -> &[String] {
        self.columns.names()
    }

    /// Write the summary and move the results into place.
    pub fn finish(mut self, summary: &Summary) -> Result<(), Error> {
        match self.files.take() {
            Some(f) => f.finish(summary).map_err(|e| Error::io(&self.dir, e)),
            None => Ok(()),
        }
    }

    /// Give up: remove the partial files.
    pub fn abandon(mut self) {
        if let Some(f) = self.files.take() {
            f.abandon();
        }
    }
}

impl Drop for CsvWriter {
    /// A writer dropped without [`finish`](CsvWriter::finish) leaves no partial files.
    fn drop(&mut self) {
        if let Some(f) = self.files.take() {
            f.abandon();
        }
    }
}

impl Observer for CsvWriter {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        if ev.is_output(self.every) {
            self.columns.row(ev.problem, ev.state, &mut self.row);
            if let Some(f) = &mut self.files {
                f.row(&self.row)
                    .map_err(|e| Error::io(&self.dir.join("trajectory.csv"), e))?;
            }
        }
        Ok(Control::Continue)
    }
}
