//! `trajectory.csv`: a header of column names, then one line per kept row, written as the run
//! goes; every value in the shortest decimal form that reads back as the same `f64` (`{:e}`: up
//! to 17 significant digits, `1e-1`, `-3.0000000000000004e0`), so no digit the methods reach is
//! lost.
//!
//! ```
//! use lagrangian::output::csv::CsvSink;
//! use lagrangian::output::sink::{Schema, TableSink};
//! let dir = std::env::temp_dir().join(format!("lagrangian-doc-csv-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let names = ["t".to_string(), "A.x".to_string()];
//! let mut csv = CsvSink::create(&dir, Schema { names: &names, groups: &[("positions", 1..2)] })?;
//! csv.row(&[0.0, 1.5])?;
//! csv.row(&[0.1 + 0.2, -1e-300])?;
//! csv.finish()?;
//! let text = std::fs::read_to_string(dir.join("trajectory.csv"))?;
//! assert_eq!(text, "t,A.x\n0e0,1.5e0\n3.0000000000000004e-1,-1e-300\n");
//! let back: f64 = "3.0000000000000004e-1".parse().unwrap();
//! assert_eq!(back, 0.1 + 0.2); // the same double, to the bit
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), std::io::Error>(())
//! ```

use crate::output::sink::{Schema, TableSink};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// The name of the CSV table in a result folder.
pub const FILE: &str = "trajectory.csv";

/// `trajectory.csv` being written.
pub struct CsvSink {
    out: BufWriter<File>,
}

impl CsvSink {
    /// Create `dir/trajectory.csv` and write its header.
    pub fn create(dir: &Path, schema: Schema<'_>) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(dir.join(FILE))?);
        writeln!(out, "{}", schema.names.join(","))?;
        Ok(CsvSink { out })
    }
}

impl TableSink for CsvSink {
    fn row(&mut self, values: &[f64]) -> io::Result<()> {
        for (k, v) in values.iter().enumerate() {
            if k > 0 {
                self.out.write_all(b",")?;
            }
            write!(self.out, "{v:e}")?;
        }
        self.out.write_all(b"\n")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
