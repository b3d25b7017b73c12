//! Writing results: trajectory (CSV, NumPy) and run summary, atomically.
//!
//! A run holds its folder `DIR` ([`RunFolder`]: a lock, so a second run into `DIR` is refused)
//! and writes into a hidden `DIR/.partial-<pid>/` directory, leaving the results of an earlier
//! run in `DIR` untouched while it runs. Only when it has finished are its files moved into
//! `DIR` by name, `summary.json` last (the old summary is removed first, so a summary always
//! belongs to the files beside it); nothing in `DIR` that the toolkit did not write is touched.
//! A run that fails, panics or is interrupted leaves the earlier result as it was; its partial
//! directory is removed on the way out, or — after a kill — by the next run in the same `DIR`.

use crate::error::Error;
use crate::output::columns::Columns;
use crate::output::folder::RunFolder;
use crate::output::ledger::LedgerTotals;
use crate::output::npy::NpyFile;
use crate::output::observe::{Control, Event, Observer};
use crate::output::scene::Scene;
use crate::output::summary::Summary;
use crate::solve::{Problem, RunPlan};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The files of one run, being written: `trajectory.csv` and/or `npy/<group>.npy`.
pub struct RunFiles {
    folder: RunFolder,
    csv: Option<BufWriter<File>>,
    /// `t.npy` and one file per group, with the group's column range.
    npy: Vec<(Range<usize>, NpyFile)>,
    /// Further files written whole into the partial directory (`scene.json`).
    extra: Vec<String>,
}

/// The formats a run writes and the column groups the `.npy` files follow.
pub struct Formats<'a> {
    /// Write `trajectory.csv`.
    pub csv: bool,
    /// Write `npy/t.npy` and `npy/<group>.npy` for these groups (name, column range), with
    /// `npy/columns.json` naming the columns of each.
    pub npy: Option<&'a [(&'static str, Range<usize>)]>,
}

impl RunFiles {
    /// Start a run in `dir`: open the partial files and write the CSV header `columns` (earlier
    /// results in `dir` stay until this run finishes).
    pub fn create(dir: &Path, columns: &[String], formats: Formats<'_>) -> io::Result<Self> {
        let folder = RunFolder::open(dir)?;
        let partial = folder.partial().to_path_buf();
        let csv = match formats.csv {
            true => {
                let mut csv = BufWriter::new(File::create(partial.join("trajectory.csv"))?);
                writeln!(csv, "{}", columns.join(","))?;
                Some(csv)
            }
            false => None,
        };
        let mut npy = Vec::new();
        if let Some(groups) = formats.npy {
            let folder = partial.join("npy");
            fs::create_dir_all(&folder)?;
            npy.push((0..1, NpyFile::create(&folder.join("t.npy"), None)?));
            let mut names = serde_json::Map::new();
            names.insert("t".into(), serde_json::json!(["t"]));
            for (g, range) in groups {
                let file = NpyFile::create(&folder.join(format!("{g}.npy")), Some(range.len()))?;
                npy.push((range.clone(), file));
                names.insert(g.to_string(), serde_json::json!(columns[range.clone()]));
            }
            let text = serde_json::to_string_pretty(&names).map_err(io::Error::other)?;
            fs::write(folder.join("columns.json"), text + "\n")?;
        }
        Ok(RunFiles {
            folder,
            csv,
            npy,
            extra: Vec::new(),
        })
    }

    /// `Err` when `sub` inside the folder exists as a file (see [`RunFolder::check_folder`]).
    pub fn check_folder(&self, sub: &str) -> io::Result<()> {
        self.folder.check_folder(sub)
    }

    /// Write a further file `name` of the run now (moved into place with the others).
    pub fn write_file(&mut self, name: &str, text: &str) -> io::Result<()> {
        fs::write(self.folder.partial().join(name), text)?;
        self.extra.push(name.to_string());
        Ok(())
    }

    /// Append one row.
    pub fn row(&mut self, values: &[f64]) -> io::Result<()> {
        if let Some(csv) = &mut self.csv {
            let mut first = true;
            for v in values {
                if !first {
                    csv.write_all(b",")?;
                }
                first = false;
                write!(csv, "{v:.12e}")?;
            }
            csv.write_all(b"\n")?;
        }
        for (range, f) in &mut self.npy {
            f.row(&values[range.clone()])?;
        }
        Ok(())
    }

    /// Finish: write the summary and move the files into place (summary last).
    pub fn finish<S: serde::Serialize>(self, summary: &S) -> io::Result<()> {
        let dir = self.folder.dir().to_path_buf();
        self.finish_in(summary, &dir)
    }

    /// Finish into `dir` instead (created if needed): for an interrupted run, a folder beside
    /// the earlier complete result. Results of an earlier run that this run does not write
    /// (a format it left out) are removed, so every file in `dir` belongs to the new summary.
    pub fn finish_in<S: serde::Serialize>(self, summary: &S, dir: &Path) -> io::Result<()> {
        self.finish_as(summary, dir, "summary.json")
    }

    /// Finish into `dir` with the summary as the file `name` (`equilibrium.json`, …).
    pub fn finish_as<S: serde::Serialize>(
        mut self,
        summary: &S,
        dir: &Path,
        name: &str,
    ) -> io::Result<()> {
        if let Some(csv) = &mut self.csv {
            csv.flush()?;
        }
        for (_, f) in self.npy.drain(..) {
            f.finish()?;
        }
        let text = serde_json::to_string_pretty(summary).map_err(io::Error::other)?;
        fs::write(self.folder.partial().join(name), text + "\n")?;
        self.folder.place(dir, name, &self.extra)
    }

    /// Abandon the run: remove the partial files.
    pub fn abandon(self) {
        self.folder.abandon();
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

/// The most bytes of results one run may write (50 GB, estimated before it starts).
pub const MAX_OUTPUT_BYTES: f64 = 50e9;

/// Bytes per value in `trajectory.csv` (17 significant digits, sign, exponent, comma).
const CSV_BYTES: f64 = 24.0;

impl CsvWriter {
    /// Start writing `problem`'s trajectory into `dir` (see [`RunFiles::create`]): the
    /// columns and formats of `plan`, the rows it keeps.
    pub fn create(dir: &Path, problem: &Problem, plan: &RunPlan) -> Result<Self, Error> {
        let o = &plan.outputs;
        let columns = Columns::new(problem, o);
        // refuse a run whose results would not fit on any reasonable disk, before writing
        let rows = plan.output_rows(problem);
        let per_value = if o.csv { CSV_BYTES } else { 0.0 } + if o.npy { 8.0 } else { 0.0 };
        let bytes = rows as f64 * (columns.names().len() + 1) as f64 * per_value;
        if bytes > MAX_OUTPUT_BYTES {
            return Err(Error::Io {
                path: dir.display().to_string(),
                message: format!(
                    "the run would write about {:.3} GB ({rows} rows × {} columns); the limit \
                     is {:.0} GB: write fewer rows (--output-every, --output-dt, Output: every, dt) or fewer \
                     columns (--columns, Output: columns)",
                    bytes / 1e9,
                    columns.names().len() + 1,
                    MAX_OUTPUT_BYTES / 1e9
                ),
            });
        }
        let formats = Formats {
            csv: o.csv,
            npy: o.npy.then_some(columns.groups()),
        };
        let mut files =
            RunFiles::create(dir, columns.names(), formats).map_err(|e| Error::io(dir, e))?;
        let scene =
            serde_json::to_string_pretty(&Scene::of(problem)).map_err(std::io::Error::other);
        scene
            .and_then(|s| files.write_file("scene.json", &(s + "\n")))
            .map_err(|e| Error::io(dir, e))?;
        Ok(CsvWriter {
            row: Vec::with_capacity(columns.names().len()),
            files: Some(files),
            columns,
            every: plan.output_every.max(1),
            dir: dir.to_path_buf(),
        })
    }

    /// `Err` when the folder `sub` a result may go into (`interrupted`) exists as a file.
    pub fn check_folder(&self, sub: &str) -> Result<(), Error> {
        match &self.files {
            Some(f) => f.check_folder(sub).map_err(|e| Error::io(&self.dir, e)),
            None => Ok(()),
        }
    }

    /// Write a further file `name` of the run now, moved into place with the others when the
    /// run finishes (`sensitivity.csv`).
    pub fn write_file(&mut self, name: &str, text: &str) -> Result<(), Error> {
        match &mut self.files {
            Some(f) => f
                .write_file(name, text)
                .map_err(|e| Error::io(&self.dir, e)),
            None => Ok(()),
        }
    }

    /// The column names.
    pub fn columns(&self) -> &[String] {
        self.columns.names()
    }

    /// The energy ledger so far, when the columns include it.
    pub fn ledger(&self) -> Option<LedgerTotals> {
        self.columns.ledger().map(|l| l.totals())
    }

    /// Write the summary and move the results into place.
    pub fn finish(self, summary: &Summary) -> Result<(), Error> {
        let dir = self.dir.clone();
        self.finish_in(summary, &dir)
    }

    /// Write the summary and move the results into `dir` (see [`RunFiles::finish_in`]).
    pub fn finish_in(mut self, summary: &Summary, dir: &Path) -> Result<(), Error> {
        match self.files.take() {
            Some(f) => f.finish_in(summary, dir).map_err(|e| Error::io(dir, e)),
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
        self.columns.advance(ev.problem, ev.state);
        if ev.is_output(self.every) {
            self.columns.row(ev.problem, ev.state, &mut self.row);
            if let Some(k) = self.row.iter().position(|x| !x.is_finite()) {
                let column = self.columns.names()[k].clone();
                let t = ev.state.t;
                return Err(crate::error::SolveError::NonFiniteOutput { t, column }.into());
            }
            if let Some(f) = &mut self.files {
                f.row(&self.row).map_err(|e| Error::io(&self.dir, e))?;
            }
        }
        Ok(Control::Continue)
    }
}
