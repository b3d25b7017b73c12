//! `lagrangian._lagrangian.Continuation`: a run kept in memory that goes on
//! (`Result.continue_run`). It holds the run between spans — the integrator's whole state,
//! the columns' integrals, the sensitivities — so spans join as one run would (to round-off).

use crate::problem::run_items;
use crate::{interruptible, lock, Cancel, LagrangianError};
use lagrangian::run::memory::MemoryRun;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::{Arc, Mutex};

/// The run and how many spans of it have been handed to Python.
struct Spans {
    run: MemoryRun,
    given: usize,
}

/// A run kept in memory between its spans (`Problem.run`'s, for `Result.continue_run`).
#[pyclass(module = "lagrangian._lagrangian", frozen)]
pub struct Continuation {
    state: Arc<Mutex<Spans>>,
}

impl Continuation {
    /// The run whose first span has been handed to Python.
    pub(crate) fn new(run: MemoryRun) -> Self {
        let state = Arc::new(Mutex::new(Spans { run, given: 1 }));
        Continuation { state }
    }
}

#[pymethods]
impl Continuation {
    /// Step on to `t_end` from the result of span `span` (refused when a later span has been
    /// handed out since): as `Problem.run` in memory, the column names, the rows after the
    /// time the run had reached, the summary of the whole run so far, the scene, the
    /// sensitivity names and rows. The GIL is released;
    /// Ctrl-C or `cancel` stops it after its current step (the run stays where it stopped).
    #[pyo3(signature = (t_end, span, cancel=None))]
    fn until<'py>(
        &self,
        py: Python<'py>,
        t_end: f64,
        span: usize,
        cancel: Option<Py<Cancel>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        {
            let s = lock(&self.state);
            if s.given != span {
                let t = s.run.running().simulation().t();
                return Err(LagrangianError::new_err(format!(
                    "this result's run has gone on since (to t = {t}, by a later continue_run): \
                     continue from the newest result"
                )));
            }
        }
        let stop = cancel.map(|c| c.get().stop.clone()).unwrap_or_default();
        let state = self.state.clone();
        let flag = stop.clone();
        let r = interruptible(py, &stop, move || {
            let mut s = lock(&state);
            s.run.set_interrupt(flag.clone());
            let r = s.run.until(t_end)?;
            // a stopped span raises KeyboardInterrupt: its rows are not handed out, and the
            // same result goes on from where it stopped
            if !flag.raised() {
                s.given += 1;
            }
            Ok(r)
        })?;
        PyTuple::new(py, run_items(py, r)?)
    }
}
