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

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

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

/// Read a float64 `.npy` file written by [`NpyFile`] (or NumPy, C order, little-endian):
/// its shape and data.
pub fn read_npy(path: &Path) -> io::Result<(Vec<usize>, Vec<f64>)> {
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    let bad = |m: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {m}", path.display()),
        )
    };
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file"));
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return Err(bad("unknown .npy version")),
    };
    let text = std::str::from_utf8(
        bytes
            .get(start..start + len)
            .ok_or_else(|| bad("short header"))?,
    )
    .map_err(|_| bad("header is not text"))?;
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
    let data: Vec<f64> = bytes[start + len..]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    if data.len() != shape.iter().product::<usize>() {
        return Err(bad("data length does not match the shape"));
    }
    Ok((shape, data))
}
