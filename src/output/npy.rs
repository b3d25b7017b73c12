//! NumPy `.npy` files, streamed: one float64 array per column group, a row per output step.
//!
//! The format (NumPy's `format.py`, version 1.0): the magic `\x93NUMPY`, the version `1 0`, a
//! little-endian `u16` header length, and a header — a Python dict literal
//! `{'descr': '<f8', 'fortran_order': False, 'shape': (rows, cols), }` padded with spaces to
//! a multiple of 64 bytes and ending in `\n` — followed by the data in C order. The number of
//! rows is known only at the end, so the header is written with room for any count and
//! rewritten in place when the file is finished. `numpy.load` reads the files as they are.
//!
//! ```
//! use lagrangian::output::npy::{read_npy, NpyFile};
//! let path = std::env::temp_dir().join(format!("lagrangian-doc-{}.npy", std::process::id()));
//! let mut f = NpyFile::create(&path, Some(2))?;
//! f.row(&[1.0, 2.0])?;
//! f.row(&[3.0, 4.5])?;
//! f.finish()?;
//! let (shape, data) = read_npy(&path)?;
//! assert_eq!((shape, data), (vec![2, 2], vec![1.0, 2.0, 3.0, 4.5]));
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), std::io::Error>(())
//! ```

use crate::output::sink::{Schema, TableSink};
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

/// The folder of `.npy` results in a result folder, and the file in it that names each
/// array's columns.
pub const FOLDER: &str = "npy";
/// See [`FOLDER`].
pub const INDEX: &str = "columns.json";

/// Bytes before the data: magic, version, header length and the padded header.
const PREAMBLE: usize = 128;

/// A `.npy` file being written row by row.
pub struct NpyFile {
    out: BufWriter<File>,
    /// `Some(c)`: a 2-D array of `c` columns; `None`: a 1-D array (one value per row).
    cols: Option<usize>,
    rows: usize,
}

fn header(rows: usize, cols: Option<usize>) -> Vec<u8> {
    let shape = match cols {
        Some(c) => format!("({rows}, {c})"),
        None => format!("({rows},)"),
    };
    let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}");
    let mut h = Vec::with_capacity(PREAMBLE);
    h.extend_from_slice(b"\x93NUMPY\x01\x00");
    let len = (PREAMBLE - 10) as u16;
    h.extend_from_slice(&len.to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    while h.len() < PREAMBLE - 1 {
        h.push(b' ');
    }
    h.push(b'\n');
    h
}

impl NpyFile {
    /// Create `path` for rows of `cols` values (`None`: one value per row, a 1-D array).
    pub fn create(path: &Path, cols: Option<usize>) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
        out.write_all(&header(0, cols))?;
        Ok(NpyFile { out, cols, rows: 0 })
    }

    /// Append one row (its length must be the column count, or 1 for a 1-D array).
    pub fn row(&mut self, values: &[f64]) -> io::Result<()> {
        if values.len() != self.cols.unwrap_or(1) {
            return Err(io::Error::other(format!(
                "a row of {} values for an array of {} columns",
                values.len(),
                self.cols.unwrap_or(1)
            )));
        }
        for v in values {
            self.out.write_all(&v.to_le_bytes())?;
        }
        self.rows += 1;
        Ok(())
    }

    /// Write the final shape into the header and flush.
    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()?;
        let mut f = self.out.into_inner().map_err(|e| e.into_error())?;
        f.seek(SeekFrom::Start(0))?;
        f.write_all(&header(self.rows, self.cols))?;
        f.sync_data().or(Ok(()))
    }
}

/// The `npy/` folder of a run being written: `t.npy` (1-D) and one 2-D array per column group,
/// with `columns.json` naming each array's columns (`{"t": ["t"], "positions": ["A.x", …]}`).
pub struct NpySink {
    /// The column range of each array, and the array.
    files: Vec<(Range<usize>, NpyFile)>,
}

impl NpySink {
    /// Create `dir/npy/` with its arrays and `columns.json`.
    pub fn create(dir: &Path, schema: Schema<'_>) -> io::Result<Self> {
        let folder = dir.join(FOLDER);
        fs::create_dir_all(&folder)?;
        let mut files = vec![(0..1, NpyFile::create(&folder.join("t.npy"), None)?)];
        let mut names = serde_json::Map::new();
        names.insert("t".into(), serde_json::json!(["t"]));
        for (g, range) in schema.groups {
            let file = NpyFile::create(&folder.join(format!("{g}.npy")), Some(range.len()))?;
            files.push((range.clone(), file));
            names.insert(
                g.to_string(),
                serde_json::json!(schema.names[range.clone()]),
            );
        }
        let text = serde_json::to_string_pretty(&names).map_err(io::Error::other)?;
        fs::write(folder.join(INDEX), text + "\n")?;
        Ok(NpySink { files })
    }
}

impl TableSink for NpySink {
    fn row(&mut self, values: &[f64]) -> io::Result<()> {
        for (range, f) in &mut self.files {
            f.row(&values[range.clone()])?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        for (_, f) in self.files.drain(..) {
            f.finish()?;
        }
        Ok(())
    }
}

/// The layout of a float64 `.npy` file: its shape and where its data start.
struct NpyLayout {
    shape: Vec<usize>,
    data_start: u64,
}

fn bad_npy(path: &Path, m: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {m}", path.display()),
    )
}

/// Read the preamble of the `.npy` file `f` (at its start) and check its data length.
fn layout(path: &Path, f: &mut File) -> io::Result<NpyLayout> {
    let bad = |m: &str| bad_npy(path, m);
    let mut pre = [0u8; 12];
    f.read_exact(&mut pre[..10])
        .map_err(|_| bad("not a .npy file"))?;
    if &pre[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file"));
    }
    let (len, start) = match pre[6] {
        1 => (u16::from_le_bytes([pre[8], pre[9]]) as usize, 10),
        2 | 3 => {
            f.read_exact(&mut pre[10..12])
                .map_err(|_| bad("short header"))?;
            (
                u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]]) as usize,
                12,
            )
        }
        _ => return Err(bad("unknown .npy version")),
    };
    if len > 1 << 20 {
        return Err(bad("header longer than 1 MB"));
    }
    let mut header = vec![0u8; len];
    f.read_exact(&mut header).map_err(|_| bad("short header"))?;
    let text = std::str::from_utf8(&header).map_err(|_| bad("header is not text"))?;
    if !text.contains("'descr': '<f8'") || text.contains("'fortran_order': True") {
        return Err(bad("expected little-endian float64 in C order"));
    }
    let shape_text = text
        .split("'shape': (")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("no shape"))?;
    let shape: Vec<usize> = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| bad("bad shape")))
        .collect::<Result<_, _>>()?;
    let data_start = (start + len) as u64;
    let values = shape.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
    let bytes = values.and_then(|v| v.checked_mul(8)).map(|b| b as u64);
    if bytes.map(|b| b + data_start) != Some(f.metadata()?.len()) {
        return Err(bad("data length does not match the shape"));
    }
    Ok(NpyLayout { shape, data_start })
}

/// Read a float64 `.npy` file written by [`NpyFile`] (or NumPy, C order, little-endian):
/// its shape and data.
pub fn read_npy(path: &Path) -> io::Result<(Vec<usize>, Vec<f64>)> {
    let (shape, rows) = npy_shape(path)?;
    read_npy_rows(path, &(0..rows).collect::<Vec<_>>()).map(|(_, d)| (shape, d))
}

/// The shape of a `.npy` file and its number of rows (its first dimension; 1 for a 0-D array).
pub fn npy_shape(path: &Path) -> io::Result<(Vec<usize>, usize)> {
    let l = layout(path, &mut File::open(path)?)?;
    let rows = l.shape.first().copied().unwrap_or(1);
    Ok((l.shape, rows))
}

/// Read only the rows `rows` (ascending) of a float64 `.npy` file: its shape and the rows'
/// values one after the other — what a plot of a long run reads, without the whole file in
/// memory.
pub fn read_npy_rows(path: &Path, rows: &[usize]) -> io::Result<(Vec<usize>, Vec<f64>)> {
    let mut f = File::open(path)?;
    let l = layout(path, &mut f)?;
    let width = l.shape.iter().skip(1).product::<usize>();
    let n = l.shape.first().copied().unwrap_or(1);
    if rows.iter().any(|&r| r >= n) || rows.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad_npy(path, "rows out of range or not ascending"));
    }
    let mut data = Vec::new();
    data.try_reserve_exact(rows.len() * width)
        .map_err(|_| bad_npy(path, "too large to read into memory"))?;
    let mut r = std::io::BufReader::with_capacity(1 << 16, f);
    let mut at = 0usize; // the next row the reader is at
    r.seek(SeekFrom::Start(l.data_start))?;
    let mut buf = vec![0u8; width * 8];
    for &row in rows {
        if row > at {
            r.seek_relative(((row - at) * width * 8) as i64)?;
        }
        r.read_exact(&mut buf)?;
        data.extend(
            buf.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8]))),
        );
        at = row + 1;
    }
    Ok((l.shape, data))
}
