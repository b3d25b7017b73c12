//! `trajectory.parquet`: a run's table as Apache Parquet, the columnar file pandas
//! (`pandas.read_parquet`), pyarrow, Polars, R's arrow and MATLAB's `parquetread` read.
//!
//! The file (Parquet format 2, written streamed): the magic `PAR1`; row groups of up to
//! [`GROUP_VALUES`] values, each a column chunk per output column holding one data page of
//! plain little-endian float64 values (a required column: no definition or repetition levels;
//! uncompressed, so the values are exact and cost 8 bytes each, as in `.npy`); then the footer
//! — the schema (one required `DOUBLE` per column, named as in `trajectory.csv`), the row groups
//! with their column chunks' offsets and sizes, the writer's name — in Thrift's compact
//! protocol ([`thrift`]), its length, and `PAR1` again. [`read_parquet_rows`] reads such files
//! back (and refuses, with a message, the encodings it does not decode).
//!
//! ```
//! use lagrangian::output::parquet::{read_parquet, ParquetSink};
//! use lagrangian::output::sink::{Schema, TableSink};
//! let dir = std::env::temp_dir().join(format!("lagrangian-doc-parquet-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let names = ["t".to_string(), "A.x".to_string()];
//! let mut sink = ParquetSink::create(&dir, Schema { names: &names, groups: &[] })?;
//! sink.row(&[0.0, 1.5])?;
//! sink.row(&[0.1, -2.25])?;
//! sink.finish()?;
//! let (columns, rows) = read_parquet(&dir.join("trajectory.parquet"))?;
//! assert_eq!(columns, names);
//! assert_eq!(rows, [[0.0, 1.5], [0.1, -2.25]]);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod thrift;

use crate::output::sink::{Schema, TableSink};
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use thrift::{Decoder, Encoder};

/// The name of the Parquet table in a result folder.
pub const FILE: &str = crate::output::sink::PARQUET_FILE;

/// The values a row group holds (8 MB of float64; at least 64 rows of a wide table, up to
/// 64 MB): a run's rows are buffered this far.
pub const GROUP_VALUES: usize = 1 << 20;

const MAGIC: &[u8; 4] = b"PAR1";

// Parquet's enums (parquet.thrift)
const TYPE_DOUBLE: i32 = 5;
const REQUIRED: i32 = 0;
const PLAIN: i32 = 0;
const RLE: i32 = 3;
const UNCOMPRESSED: i32 = 0;
const DATA_PAGE: i32 = 0;

/// Where a column chunk is in the file.
struct Chunk {
    offset: u64,
    bytes: u64,
    values: usize,
}

/// `trajectory.parquet` being written: the rows of the current row group, column by column.
pub struct ParquetSink {
    out: BufWriter<File>,
    names: Vec<String>,
    /// The current row group's values, one vector per column.
    columns: Vec<Vec<f64>>,
    rows_per_group: usize,
    /// Bytes written so far (the offset of the next byte).
    at: u64,
    /// The finished row groups' column chunks.
    groups: Vec<Vec<Chunk>>,
    finished: bool,
}

impl ParquetSink {
    /// Create `dir/trajectory.parquet` for the columns of `schema`.
    pub fn create(dir: &Path, schema: Schema<'_>) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(dir.join(FILE))?);
        out.write_all(MAGIC)?;
        let width = schema.names.len().max(1);
        Ok(ParquetSink {
            out,
            names: schema.names.to_vec(),
            columns: vec![Vec::new(); schema.names.len()],
            // at least 64 rows a group while that buffers at most 64 MB: a wide table's footer
            // (some 50 bytes per column and group) stays a small part of the file
            rows_per_group: (GROUP_VALUES / width)
                .max((8 * GROUP_VALUES / width).min(64))
                .max(1),
            at: MAGIC.len() as u64,
            groups: Vec::new(),
            finished: false,
        })
    }

    /// Write the buffered rows as a row group: per column a page header and the values.
    fn flush_group(&mut self) -> io::Result<()> {
        let rows = self.columns.first().map_or(0, Vec::len);
        if rows == 0 {
            return Ok(());
        }
        let mut chunks = Vec::with_capacity(self.columns.len());
        for values in &mut self.columns {
            let size = i32::try_from(8 * values.len()).map_err(io::Error::other)?;
            let mut h = Encoder::default();
            h.i32(1, DATA_PAGE);
            h.i32(2, size);
            h.i32(3, size);
            h.begin(5);
            h.i32(1, values.len() as i32);
            h.i32(2, PLAIN);
            h.i32(3, RLE);
            h.i32(4, RLE);
            h.end();
            h.end();
            self.out.write_all(&h.bytes)?;
            for v in values.iter() {
                self.out.write_all(&v.to_le_bytes())?;
            }
            let bytes = (h.bytes.len() + 8 * values.len()) as u64;
            chunks.push(Chunk {
                offset: self.at,
                bytes,
                values: values.len(),
            });
            self.at += bytes;
            values.clear();
        }
        self.groups.push(chunks);
        Ok(())
    }

    /// The footer: the file's metadata in the compact protocol.
    fn footer(&self) -> Vec<u8> {
        let mut m = Encoder::default();
        m.i32(1, 2); // format version
        m.list(2, thrift::STRUCT, self.names.len() + 1);
        m.element(); // the root: a group of the columns
        m.string(4, "schema");
        m.i32(5, self.names.len() as i32);
        m.end();
        for name in &self.names {
            m.element();
            m.i32(1, TYPE_DOUBLE);
            m.i32(3, REQUIRED);
            m.string(4, name);
            m.end();
        }
        let rows: usize = self
            .groups
            .iter()
            .map(|g| g.first().map_or(0, |c| c.values))
            .sum();
        m.i64(3, rows as i64);
        m.list(4, thrift::STRUCT, self.groups.len());
        for group in &self.groups {
            m.element();
            m.list(1, thrift::STRUCT, group.len());
            for (c, name) in group.iter().zip(&self.names) {
                m.element(); // ColumnChunk
                m.i64(2, c.offset as i64);
                m.begin(3); // ColumnMetaData
                m.i32(1, TYPE_DOUBLE);
                m.list(2, thrift::I32, 2);
                m.value_i32(PLAIN);
                m.value_i32(RLE);
                m.list(3, thrift::BINARY, 1);
                m.value_string(name);
                m.i32(4, UNCOMPRESSED);
                m.i64(5, c.values as i64);
                m.i64(6, c.bytes as i64);
                m.i64(7, c.bytes as i64);
                m.i64(9, c.offset as i64);
                m.end();
                m.end();
            }
            m.i64(2, group.iter().map(|c| c.bytes as i64).sum());
            m.i64(3, group.first().map_or(0, |c| c.values as i64));
            m.end();
        }
        m.string(6, concat!("lagrangian version ", env!("CARGO_PKG_VERSION")));
        m.end();
        m.bytes
    }
}

impl TableSink for ParquetSink {
    fn row(&mut self, values: &[f64]) -> io::Result<()> {
        if values.len() != self.columns.len() {
            return Err(io::Error::other(format!(
                "a row of {} values for a table of {} columns",
                values.len(),
                self.columns.len()
            )));
        }
        for (c, v) in self.columns.iter_mut().zip(values) {
            c.push(*v);
        }
        if self.columns.first().map_or(0, Vec::len) >= self.rows_per_group {
            self.flush_group()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        if self.finished {
            return Ok(());
        }
        self.flush_group()?;
        let footer = self.footer();
        self.out.write_all(&footer)?;
        self.out.write_all(&(footer.len() as u32).to_le_bytes())?;
        self.out.write_all(MAGIC)?;
        self.out.flush()?;
        self.finished = true;
        Ok(())
    }
}

fn bad(path: &Path, m: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {m}", path.display()),
    )
}

/// A Parquet file's columns and where their values are.
pub struct ParquetLayout {
    /// The column names.
    pub names: Vec<String>,
    /// The number of rows.
    pub rows: usize,
    /// Per row group: its rows, and per column its data's (offset, bytes).
    groups: Vec<(usize, Vec<(u64, u64)>)>,
}

/// Read the footer of the Parquet file `path`: its columns and row groups. Only what the
/// toolkit writes is taken — required float64 columns, plain and uncompressed — anything else
/// is refused naming what it is.
pub fn parquet_layout(path: &Path) -> io::Result<ParquetLayout> {
    let mut f = File::open(path)?;
    let len = f.metadata()?.len();
    let mut tail = [0u8; 8];
    if len < 12 {
        return Err(bad(path, "not a Parquet file (too short)"));
    }
    f.seek(SeekFrom::Start(len - 8))?;
    f.read_exact(&mut tail)?;
    let meta_len = u32::from_le_bytes(tail[..4].try_into().expect("four bytes")) as u64;
    if &tail[4..] != MAGIC || meta_len + 12 > len {
        return Err(bad(path, "not a Parquet file"));
    }
    let mut meta = vec![0u8; meta_len as usize];
    f.seek(SeekFrom::Start(len - 8 - meta_len))?;
    f.read_exact(&mut meta)?;
    let meta = Decoder::new(&meta)
        .read_struct()
        .map_err(|e| bad(path, e))?;
    let schema = meta.list(2);
    let mut names = Vec::new();
    for e in schema.iter().skip(1) {
        let name = e.string(4).unwrap_or_default();
        if e.int(1) != Some(TYPE_DOUBLE as i64) || e.int(3) != Some(REQUIRED as i64) {
            return Err(bad(
                path,
                format!(
                    "column '{name}' is not a required float64 column: the toolkit reads back the \
                     tables it writes (pandas and pyarrow write optional columns: read such a \
                     file with them)"
                ),
            ));
        }
        names.push(name);
    }
    let mut groups = Vec::new();
    for g in meta.list(4) {
        // at most the file's length in values: a damaged count allocates nothing
        let rows = g.int(3).unwrap_or(0).clamp(0, (len / 8) as i64) as usize;
        let mut chunks = Vec::new();
        for c in g.list(1) {
            let m = c
                .field(3)
                .ok_or_else(|| bad(path, "a column chunk without metadata"))?;
            if m.int(4) != Some(UNCOMPRESSED as i64) {
                return Err(bad(path, "compressed columns are not read here"));
            }
            let (offset, bytes) = (m.int(9).unwrap_or(-1), m.int(7).unwrap_or(-1));
            if offset < 0 || bytes < 0 || (offset + bytes) as u64 > len {
                return Err(bad(path, "a column chunk outside the file"));
            }
            if (bytes as u64) < 8 * rows as u64 {
                return Err(bad(path, "a column chunk shorter than its rows"));
            }
            chunks.push((offset as u64, bytes as u64));
        }
        if chunks.len() != names.len() {
            return Err(bad(path, "a row group without every column"));
        }
        groups.push((rows, chunks));
    }
    let rows = groups.iter().map(|g| g.0).sum();
    if rows as u64 > len / 8 {
        return Err(bad(path, "more rows than the file holds"));
    }
    Ok(ParquetLayout {
        names,
        rows,
        groups,
    })
}

/// The values of one column chunk: its data pages, each plain float64.
fn chunk_values(path: &Path, bytes: &[u8], rows: usize) -> io::Result<Vec<f64>> {
    let mut values = Vec::with_capacity(rows.min(bytes.len() / 8));
    let mut d = Decoder::new(bytes);
    while values.len() < rows {
        let page = d.read_struct().map_err(|e| bad(path, e))?;
        let size = page.int(3).unwrap_or(-1);
        let header = page.field(5);
        let n = header.and_then(|h| h.int(1)).unwrap_or(-1);
        if page.int(1) != Some(DATA_PAGE as i64) || header.and_then(|h| h.int(2)) != Some(0) {
            return Err(bad(path, "only plain data pages are read here"));
        }
        let data = usize::try_from(size)
            .ok()
            .and_then(|s| bytes.get(d.at..d.at.checked_add(s)?))
            .filter(|b| n >= 0 && b.len() == 8 * n as usize)
            .ok_or_else(|| bad(path, "a data page that does not hold its values"))?;
        values.extend(
            data.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8"))),
        );
        d.at += data.len();
    }
    match values.len() == rows {
        true => Ok(values),
        false => Err(bad(path, "a column chunk with more values than its rows")),
    }
}

/// Read the rows `kept` (ascending) of a Parquet table the toolkit wrote: the column names and
/// the rows — one row group at a time, so a long run's plot never holds the whole file.
pub fn read_parquet_rows(path: &Path, kept: &[usize]) -> io::Result<(Vec<String>, Vec<Vec<f64>>)> {
    let layout = parquet_layout(path)?;
    if kept.iter().any(|&r| r >= layout.rows) || kept.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad(path, "rows out of range or not ascending"));
    }
    let mut f = File::open(path)?;
    let mut out: Vec<Vec<f64>> = Vec::with_capacity(kept.len());
    let (mut first, mut next) = (0usize, 0usize); // the group's first row; the next kept index
    for (rows, chunks) in &layout.groups {
        let end = kept[next..].partition_point(|&r| r < first + rows) + next;
        if end > next {
            let mut group: Vec<Vec<f64>> = (next..end).map(|_| Vec::new()).collect();
            for &(offset, bytes) in chunks {
                let mut buf = vec![0u8; bytes as usize];
                f.seek(SeekFrom::Start(offset))?;
                f.read_exact(&mut buf)?;
                let values = chunk_values(path, &buf, *rows)?;
                for (row, &k) in group.iter_mut().zip(&kept[next..end]) {
                    row.push(values[k - first]);
                }
            }
            out.extend(group);
            next = end;
        }
        first += rows;
    }
    Ok((layout.names, out))
}

/// Read a whole Parquet table the toolkit wrote (see [`read_parquet_rows`]).
pub fn read_parquet(path: &Path) -> io::Result<(Vec<String>, Vec<Vec<f64>>)> {
    let rows = parquet_layout(path)?.rows;
    read_parquet_rows(path, &(0..rows).collect::<Vec<_>>())
}
