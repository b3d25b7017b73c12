//! The native part of the Python package `lagrangian` (`lagrangian._lagrangian`): mechanism
//! files to NumPy arrays ([`problem`]), bodies and joints written from Python ([`multibody`]),
//! the mass–spring course API ([`mass_spring`]) and the errors as Python exceptions. The
//! pure-Python layer (`python/lagrangian/`) wraps these in picklable classes, sweeps and
//! notebook display.

use lagrangian::output::Interrupt;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

mod continuation;
mod mass_spring;
mod multibody;
mod problem;
mod trajectory;

// The exceptions are Python classes of module `lagrangian` (python/lagrangian/errors.py), so
// they pickle by name: a process pool or a Dask worker gives back the same class.
pyo3::import_exception!(lagrangian.errors, LagrangianError);
pyo3::import_exception!(lagrangian.errors, MechanismError);
pyo3::import_exception!(lagrangian.errors, OutOfMemory);

/// A toolkit error as a Python exception: file errors as [`MechanismError`] with their
/// position, a run too large for the memory as [`OutOfMemory`] (a `MemoryError`), the rest as
/// [`LagrangianError`].
pub(crate) fn to_py(py: Python<'_>, e: lagrangian::Error) -> PyErr {
    match e {
        lagrangian::Error::Spec(s) => spec_error(py, s),
        e @ lagrangian::Error::TooLarge(_) => OutOfMemory::new_err(e.to_string()),
        other => LagrangianError::new_err(other.to_string()),
    }
}

/// A file error with its position as attributes.
pub(crate) fn spec_error(_py: Python<'_>, s: lagrangian::error::SpecError) -> PyErr {
    MechanismError::new_err((
        s.to_string(),
        s.file.clone(),
        s.line,
        s.column,
        s.field.clone(),
        s.message.clone(),
    ))
}

/// A report (a summary, the modes, an equilibrium, a fit) as the Python values of its fields —
/// dicts, lists, tuples, floats (NaN as NaN), ints, strings — straight from its Rust type, as
/// its JSON file would read but without the text between.
pub(crate) fn to_dict<'py, T: serde::Serialize + ?Sized>(
    py: Python<'py>,
    report: &T,
) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, report)
        .map_err(|e| LagrangianError::new_err(format!("the report for Python: {e}")))
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `work` on a worker thread without the GIL while this thread checks for Ctrl-C (and other
/// signals) every 50 ms: a signal raises `stop` — `work` is to end at its next step, which
/// this waits for, so that what it changes is left consistent — and is raised in Python.
/// `stop` raised by someone else (a sweep that was interrupted) gives `KeyboardInterrupt`.
pub(crate) fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    stop: &Interrupt,
    work: impl FnOnce() -> Result<T, lagrangian::Error> + Send + 'static,
) -> PyResult<T> {
    let flag = stop.flag();
    let (tx, rx) = channel();
    // the receiver moves in and out of each wait without the GIL (it is not `Sync`)
    let rx = Mutex::new(rx);
    let worker = std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    loop {
        match py.detach(|| lock(&rx).recv_timeout(Duration::from_millis(50))) {
            Ok(_) if stop.raised() => {
                let _ = worker.join();
                return Err(PyKeyboardInterrupt::new_err("the run was cancelled"));
            }
            Ok(result) => {
                let _ = worker.join();
                return result.map_err(|e| to_py(py, e));
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = worker.join();
                return Err(LagrangianError::new_err("the run stopped without a result"));
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    flag.store(true, Ordering::Relaxed);
                    let _ = py.detach(|| lock(&rx).recv());
                    let _ = worker.join();
                    return Err(signal);
                }
            }
        }
    }
}

/// A flag that stops runs from another thread (`lagrangian.Cancel`): a run given it ends
/// after its current step once `set` is called, raising `KeyboardInterrupt`.
#[pyclass(module = "lagrangian._lagrangian", frozen)]
#[derive(Default)]
pub struct Cancel {
    pub(crate) stop: Interrupt,
}

#[pymethods]
impl Cancel {
    #[new]
    fn new() -> Self {
        Self::default()
    }
    /// Stop the runs given this flag (after their current step).
    fn set(&self) {
        self.stop.flag().store(true, Ordering::Relaxed);
    }
    /// Whether `set` was called.
    #[getter]
    fn is_set(&self) -> bool {
        self.stop.raised()
    }
}

#[pymodule]
fn _lagrangian(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Cancel>()?;
    m.add_class::<continuation::Continuation>()?;
    m.add("GROUPS", lagrangian::problem::GROUPS.to_vec())?;
    problem::register(m)?;
    mass_spring::register(m)?;
    multibody::register(m)?;
    Ok(())
}
