//! A run's table read back from its folder (`trajectory.csv` or `npy/`) for plots and the
//! animation, in bounded memory: a run longer than [`MAX_TABLE_VALUES`] values is read with an
//! even stride over its rows (the first and the last always kept), streamed, so any run the
//! toolkit can write it can also draw.
//!
//! ```
//! use lagrangian::output::table::Table;
//! let path = std::env::temp_dir().join(format!("lagrangian-doc-table-{}.csv", std::process::id()));
//! let rows: String = (0..1001).map(|k| format!("{k},{}\n", 2 * k)).collect();
//! std::fs::write(&path, format!("t,x\n{rows}"))?;
//! let table = Table::read_at_most(&path, 200)?; // at most 200 values: 100 rows of 2
//! assert_eq!(table.rows.len(), 92); // every 11th row of 1001, and the last
//! assert_eq!((table.rows[1][0], table.rows.last().unwrap()[1]), (11.0, 2000.0));
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::PlotError;
use crate::output::npy::{npy_shape, read_npy_rows};
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The most values a table is read with (20 million: 160 MB): longer runs are read with a
/// stride.
pub const MAX_TABLE_VALUES: usize = 20_000_000;

/// A table of a run: column names and rows.
pub struct Table {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows of numbers.
    pub rows: Vec<Vec<f64>>,
}

/// The rows kept of `n` when at most `max_rows` may be: `0, s, 2s, …` and `n − 1`.
fn kept_rows(n: usize, max_rows: usize) -> Vec<usize> {
    let max_rows = max_rows.max(2);
    let stride = match n > max_rows {
        true => (n - 1).div_ceil(max_rows - 1),
        false => 1,
    };
    let mut rows: Vec<usize> = (0..n).step_by(stride).collect();
    if n > 0 && rows.last() != Some(&(n - 1)) {
        rows.push(n - 1);
    }
    rows
}

/// Whether the file's last byte ends a line.
fn ends_a_line(path: &Path) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = File::open(path)?;
    f.seek(SeekFrom::End(-1))?;
    let mut last = [0u8];
    f.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

fn cannot(path: &Path, e: impl std::fmt::Display) -> PlotError {
    PlotError::read(path, format!("cannot read {}: {e}", path.display()))
}

impl Table {
    /// Read `trajectory.csv` (at most [`MAX_TABLE_VALUES`] values).
    pub fn read(path: &Path) -> Result<Table, PlotError> {
        Table::read_at_most(path, MAX_TABLE_VALUES)
    }

    /// Read a CSV table of at most `max_values` values: two passes over the file, the first
    /// counting its rows, the second parsing the rows kept.
    pub fn read_at_most(path: &Path, max_values: usize) -> Result<Table, PlotError> {
        let open = || File::open(path).map(|f| BufReader::with_capacity(1 << 16, f));
        let mut lines = open().map_err(|e| cannot(path, e))?.lines();
        let header = match lines.next() {
            Some(l) => l.map_err(|e| cannot(path, e))?,
            None => {
                return Err(PlotError::read(
                    path,
                    format!("{} is empty", path.display()),
                ));
            }
        };
        let columns: Vec<String> = header.split(',').map(|s| s.trim().to_string()).collect();
        let mut n = 0usize;
        for l in lines {
            l.map_err(|e| cannot(path, e))?;
            n += 1;
        }
        if n == 0 {
            return Err(PlotError::read(
                path,
                format!("{} has no data rows", path.display()),
            ));
        }
        if !ends_a_line(path).map_err(|e| cannot(path, e))? {
            // a number cut short still reads as a number: a wrong value, not an error
            return Err(PlotError::read(
                path,
                format!(
                    "{}:{}: the last row has no line end — a table is written with one, so the \
                     file was cut while written (add a line end if the row is whole)",
                    path.display(),
                    n + 1
                ),
            ));
        }
        let kept = kept_rows(n, max_values / columns.len().max(1));
        let mut rows = Vec::with_capacity(kept.len());
        let mut want = kept.iter().peekable();
        let lines = open().map_err(|e| cannot(path, e))?.lines().skip(1);
        for (k, l) in lines.enumerate() {
            if want.peek() != Some(&&k) {
                continue;
            }
            want.next();
            let l = l.map_err(|e| cannot(path, e))?;
            let r: Result<Vec<f64>, _> = l.split(',').map(|x| x.trim().parse::<f64>()).collect();
            let r =
                r.map_err(|e| PlotError::read(path, format!("{}:{}: {e}", path.display(), k + 2)))?;
            if r.len() != columns.len() {
                return Err(PlotError::read(
                    path,
                    format!(
                        "{}:{}: {} values for {} columns",
                        path.display(),
                        k + 2,
                        r.len(),
                        columns.len()
                    ),
                ));
            }
            rows.push(r);
        }
        Ok(Table { columns, rows })
    }

    /// Index of a column.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// The table as a run's, or an error naming what is damaged (read from `path`): its first
    /// column is `t`, no column name appears twice, and the time never goes back.
    pub fn checked(self, path: &Path) -> Result<Table, PlotError> {
        let bad = |m: String| Err(PlotError::read(path, format!("{}: {m}", path.display())));
        if self.columns.first().map(String::as_str) != Some("t") {
            let first = self.columns.first().cloned().unwrap_or_default();
            return bad(format!(
                "the first column is '{first}', not the time 't': not a run's table"
            ));
        }
        for (k, name) in self.columns.iter().enumerate() {
            if self.columns[..k].contains(name) {
                return bad(format!(
                    "column '{name}' appears twice (columns {} and {})",
                    self.col(name).unwrap_or(0) + 1,
                    k + 1
                ));
            }
        }
        if let Some(k) = (1..self.rows.len()).find(|&k| !(self.rows[k][0] >= self.rows[k - 1][0])) {
            let (a, b) = (self.rows[k - 1][0], self.rows[k][0]);
            return bad(format!(
                "the time 't' goes back from {a} to {b} (rows {k} and {} read): not one run's rows in order",
                k + 1
            ));
        }
        Ok(self)
    }
}

/// The table of the run in `dir`: `trajectory.csv`, or every group of `npy/`, or
/// `trajectory.parquet` (at most [`MAX_TABLE_VALUES`] values, see [`Table::read_at_most`]).
pub fn run_table(dir: &Path) -> Result<Table, PlotError> {
    let csv = dir.join(crate::output::csv::FILE);
    if csv.exists() {
        return Table::read(&csv)?.checked(&csv);
    }
    let parquet = dir.join(crate::output::sink::PARQUET_FILE);
    if parquet.exists() && !dir.join("npy").join("columns.json").exists() {
        return parquet_table(&parquet)?.checked(&parquet);
    }
    npy_table(dir)?.checked(&dir.join("npy"))
}

/// The table of the run in `dir/npy`.
fn npy_table(dir: &Path) -> Result<Table, PlotError> {
    let npy = dir.join("npy");
    let bad = |e: std::io::Error| {
        PlotError::read(
            dir,
            format!("cannot read the run in {}: {e}", dir.display()),
        )
    };
    let names: Value = serde_json::from_str(
        &std::fs::read_to_string(npy.join("columns.json")).map_err(|e| {
            PlotError::read(
                dir,
                format!(
                    "cannot read a run in {}: no trajectory.csv, npy/columns.json or \
                     trajectory.parquet ({e})",
                    dir.display()
                ),
            )
        })?,
    )
    .map_err(|e| PlotError::read(&npy, format!("npy/columns.json: {e}")))?;
    let groups: Vec<(&String, &Vec<Value>)> = (names.as_object().into_iter().flatten())
        .filter(|(g, _)| *g != "t")
        .filter_map(|(g, listed)| listed.as_array().map(|l| (g, l)))
        .collect();
    let width = 1 + groups.iter().map(|(_, l)| l.len()).sum::<usize>();
    let (_, n) = npy_shape(&npy.join("t.npy")).map_err(bad)?;
    let kept = kept_rows(n, MAX_TABLE_VALUES / width);
    let (_, t) = read_npy_rows(&npy.join("t.npy"), &kept).map_err(bad)?;
    let mut columns = vec!["t".to_string()];
    let mut rows: Vec<Vec<f64>> = t.iter().map(|&t| vec![t]).collect();
    for (group, listed) in groups {
        let (shape, data) = read_npy_rows(&npy.join(format!("{group}.npy")), &kept).map_err(bad)?;
        let width = shape.get(1).copied().unwrap_or(0);
        if listed.len() != width || shape.first() != Some(&n) {
            return Err(PlotError::read(
                &npy,
                format!("npy/{group}.npy does not match npy/columns.json"),
            ));
        }
        columns.extend(listed.iter().filter_map(|v| v.as_str().map(String::from)));
        for (r, row) in rows.iter_mut().enumerate() {
            row.extend_from_slice(&data[r * width..(r + 1) * width]);
        }
    }
    Ok(Table { columns, rows })
}

/// A build without the feature `parquet` reads no Parquet file.
#[cfg(not(feature = "parquet"))]
fn parquet_table(path: &Path) -> Result<Table, PlotError> {
    Err(cannot(path, crate::output::formats::no_parquet()))
}

/// The table of a run's `trajectory.parquet` (at most [`MAX_TABLE_VALUES`] values).
#[cfg(feature = "parquet")]
fn parquet_table(path: &Path) -> Result<Table, PlotError> {
    use crate::output::parquet::{parquet_layout, read_parquet_rows};
    let layout = parquet_layout(path).map_err(|e| cannot(path, e))?;
    if layout.rows == 0 {
        return Err(PlotError::read(
            path,
            format!("{} has no data rows", path.display()),
        ));
    }
    let kept = kept_rows(layout.rows, MAX_TABLE_VALUES / layout.names.len().max(1));
    let (columns, rows) = read_parquet_rows(path, &kept).map_err(|e| cannot(path, e))?;
    Ok(Table { columns, rows })
}
