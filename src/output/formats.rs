//! The table formats of a result folder, each with its sink, its file and its size per value:
//! the one list a new format joins (docs/architecture.md, "Where things go"). Above the sinks'
//! modules, which know only the [`TableSink`] interface of `sink`.

use crate::output::csv::{self, CsvSink};
use crate::output::npy::{self, NpySink};
use crate::output::sink::{Schema, TableSink};
use crate::problem::Format;
use std::io;
use std::path::Path;

/// The sink of `format` writing into the folder `dir` (a run's partial directory): the files
/// each format writes there are its own (`trajectory.csv`; `npy/` with `npy/columns.json`;
/// `trajectory.parquet`).
pub fn file_sink(format: Format, dir: &Path, schema: Schema<'_>) -> io::Result<Box<dyn TableSink>> {
    Ok(match format {
        Format::Csv => Box::new(CsvSink::create(dir, schema)?),
        Format::Npy => Box::new(NpySink::create(dir, schema)?),
        #[cfg(feature = "parquet")]
        Format::Parquet => Box::new(crate::output::parquet::ParquetSink::create(dir, schema)?),
        #[cfg(not(feature = "parquet"))]
        Format::Parquet => return Err(no_parquet()),
    })
}

/// The error of a Parquet file asked of a build without the feature `parquet`.
#[cfg(not(feature = "parquet"))]
pub fn no_parquet() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "this build of lagrangian has no Parquet writer or reader: its feature `parquet` (on by \
         default) is off",
    )
}

/// The file or folder `format` writes in a result folder.
pub fn file_name(format: Format) -> &'static str {
    match format {
        Format::Csv => csv::FILE,
        Format::Npy => npy::FOLDER,
        Format::Parquet => crate::output::sink::PARQUET_FILE,
    }
}

/// Bytes a value takes in `format` (for the estimate of a run's output before it starts).
pub fn bytes_per_value(format: Format) -> f64 {
    match format {
        // 13 significant digits, sign, exponent and comma
        Format::Csv => 24.0,
        Format::Npy | Format::Parquet => 8.0,
    }
}
