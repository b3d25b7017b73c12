//! The native part of the Python package `lagrangian` (`lagrangian._lagrangian`): mechanism
//! files to NumPy arrays ([`problem`]), the mass–spring course API ([`mass_spring`]) and the
//! errors as Python exceptions. The pure-Python layer (`python/lagrangian/`) wraps these in
//! picklable classes, sweeps and notebook display.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

mod mass_spring;
mod problem;

create_exception!(
    _lagrangian,
    LagrangianError,
    PyException,
    "A mechanism that cannot be built, initialized or integrated; the message says what and where."
);
create_exception!(
    _lagrangian,
    MechanismError,
    LagrangianError,
    "An error in a mechanism file, with its `file`, `line`, `column` and `field`."
);

/// A toolkit error as a Python exception: file errors as [`MechanismError`] with their
/// position, the rest as [`LagrangianError`].
pub(crate) fn to_py(py: Python<'_>, e: lagrangian::Error) -> PyErr {
    match e {
        lagrangian::Error::Spec(s) => spec_error(py, s),
        other => LagrangianError::new_err(other.to_string()),
    }
}

/// A file error with its position as attributes.
pub(crate) fn spec_error(py: Python<'_>, s: lagrangian::error::SpecError) -> PyErr {
    let err = MechanismError::new_err(s.to_string());
    let value = err.value(py);
    let _ = value.setattr("file", s.file.clone());
    let _ = value.setattr("line", s.line);
    let _ = value.setattr("column", s.column);
    let _ = value.setattr("field", s.field.clone());
    let _ = value.setattr("reason", s.message.clone());
    err
}

#[pymodule]
fn _lagrangian(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("LagrangianError", py.get_type::<LagrangianError>())?;
    m.add("MechanismError", py.get_type::<MechanismError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    problem::register(m)?;
    mass_spring::register(m)?;
    Ok(())
}
