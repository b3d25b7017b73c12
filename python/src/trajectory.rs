//! The course API's recorded trajectory (`mss.record = True`, `mss.trajectory`): the times,
//! the masses' positions and velocities and the energies of every step `simulate` takes, kept
//! across calls as one run, handed to Python as NumPy arrays.

use lagrangian::output::Record;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The rows recorded so far, flat: `q` and `v` hold `masses · dim` values a row.
#[derive(Default)]
pub struct Trajectory {
    width: usize,
    dim: usize,
    t: Vec<f64>,
    q: Vec<f64>,
    v: Vec<f64>,
    kinetic: Vec<f64>,
    potential: Vec<f64>,
}

impl Trajectory {
    /// Append a call's records: rows after the last one kept (a continued call's first record
    /// is the state the previous call ended in). A system whose number of masses changed
    /// starts a new trajectory.
    pub fn append(&mut self, records: &[Record], masses: usize, dim: usize) {
        let width = masses * dim;
        if width != self.width || dim != self.dim {
            *self = Trajectory {
                width,
                dim,
                ..Trajectory::default()
            };
        }
        let last = self.t.last().copied().unwrap_or(f64::NEG_INFINITY);
        for r in records.iter().filter(|r| r.state.t > last) {
            self.t.push(r.state.t);
            self.q.extend_from_slice(&r.state.q[..width]);
            self.v.extend_from_slice(&r.state.v[..width]);
            self.kinetic.push(r.kinetic);
            self.potential.push(r.potential);
        }
    }

    /// `{"t": (n,), "pos": (n, masses, dim), "vel": (n, masses, dim), "kinetic": (n,),
    /// "potential": (n,)}`, copies that Python owns.
    pub fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let n = self.t.len();
        let masses = self.width.checked_div(self.dim).unwrap_or(0);
        let d = PyDict::new(py);
        d.set_item("t", PyArray1::from_slice(py, &self.t))?;
        for (name, flat) in [("pos", &self.q), ("vel", &self.v)] {
            let array = PyArray1::from_slice(py, flat).reshape([n, masses, self.dim])?;
            d.set_item(name, array)?;
        }
        d.set_item("kinetic", PyArray1::from_slice(py, &self.kinetic))?;
        d.set_item("potential", PyArray1::from_slice(py, &self.potential))?;
        Ok(d)
    }
}
