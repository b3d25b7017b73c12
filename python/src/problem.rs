//! `lagrangian._lagrangian.Problem`: a mechanism file (text, name, parameter overrides) built
//! into a problem; `check`, `run` (arrays, summary, scene, sensitivities), the offline
//! animation page of a run. Runs release the GIL and stop at Ctrl-C or when cancelled.

use crate::continuation::Continuation;
use crate::{interruptible, to_dict, to_py, Cancel, LagrangianError};
use lagrangian::problem::{Overrides, Spelling};
use lagrangian::run::memory::{start_in_memory, MemoryOptions, RunResult};
use lagrangian::run::{run_to_folder, RunOptions};
use lagrangian::view::movie::AnimationOptions;
use lagrangian::view::plot::Table;
use numpy::{PyArray2, PyArrayMethods, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::types::PyTuple;

/// A mechanism built from its file text with parameter overrides.
#[pyclass(module = "lagrangian._lagrangian", frozen)]
pub struct Problem {
    problem: lagrangian::solve::Problem,
    /// The plan the file asks for (its `SolverParams` and `Output`), before a run's keywords.
    plan: lagrangian::solve::RunPlan,
}

/// `rows` (all of width `width`) as a 2-D array in column-major order, so that each column
/// (`result["B.y"]`) is a contiguous view; each row freed once copied: the peak is the rows
/// and the array (`run::memory::record_bytes` twice, which the run checked against the memory
/// available before it started). The array comes from NumPy, so a machine without the memory
/// raises `MemoryError` instead of aborting.
pub(crate) fn array2<'py>(
    py: Python<'py>,
    rows: Vec<Vec<f64>>,
    width: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let n = rows.len();
    let order = PyDict::new(py);
    order.set_item("order", "F")?;
    let array = py
        .import("numpy")?
        .call_method("empty", ((n, width),), Some(&order))?
        .cast_into::<PyArray2<f64>>()?;
    {
        let mut view = array.readwrite();
        let flat = view
            .as_slice_mut()
            .map_err(|e| LagrangianError::new_err(e.to_string()))?;
        for (r, row) in rows.into_iter().enumerate() {
            for (c, x) in row.into_iter().enumerate().take(width) {
                flat[c * n + r] = x;
            }
        }
    }
    Ok(array)
}

#[pymethods]
impl Problem {
    /// Build the mechanism in `text` (named `name` in messages) with `sets` replacing
    /// parameter values. Raises `MechanismError` with the file position on a bad file.
    #[new]
    #[pyo3(signature = (text, name, sets = Vec::new()))]
    fn new(py: Python<'_>, text: &str, name: &str, sets: Vec<(String, f64)>) -> PyResult<Self> {
        let (problem, plan) = py
            .detach(|| lagrangian::spec::parse_with(text, name, &sets))
            .map_err(|e| crate::spec_error(py, e))?;
        Ok(Problem { problem, plan })
    }

    /// Build the mechanism a `Multibody` builder stands for, directly from its values (no
    /// file text in between), with `sets` replacing parameter values. Raises
    /// `MechanismError` placed in the builder's `to_yaml` text.
    #[staticmethod]
    #[pyo3(signature = (builder, sets = Vec::new()))]
    fn from_multibody(
        py: Python<'_>,
        builder: PyRef<'_, crate::multibody::Multibody>,
        sets: Vec<(String, f64)>,
    ) -> PyResult<Self> {
        let builder = builder.builder().clone();
        let (problem, plan) = py
            .detach(|| builder.build_with(&sets))
            .map_err(|e| crate::spec_error(py, e))?;
        Ok(Problem { problem, plan })
    }

    /// The title.
    #[getter]
    fn title(&self) -> String {
        self.problem.title.clone()
    }

    /// The named parameters and their values, in file order.
    #[getter]
    fn parameters(&self) -> Vec<(String, f64)> {
        self.problem.parameters.clone()
    }

    /// The names of the generalized coordinates.
    #[getter]
    fn coordinates(&self) -> Vec<String> {
        self.problem.model.coordinate_names().to_vec()
    }

    /// `(t0, t_end, step)`.
    #[getter]
    fn times(&self) -> (f64, f64, f64) {
        let p = &self.problem;
        (p.t0, p.t_end, self.plan.method.h())
    }

    /// The consistent initial point and the model's sizes (a dict); the printed report.
    fn check<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, String)> {
        let p = &self.problem;
        self.plan.validate(p).map_err(|e| to_py(py, e))?;
        let init = py.detach(|| p.initial_values()).map_err(|e| to_py(py, e))?;
        let report = lagrangian::output::check::check_report(p, &init, false);
        let r = &init.report;
        let d = PyDict::new(py);
        d.set_item("title", &p.title)?;
        d.set_item("coordinates", p.model.coordinate_names())?;
        d.set_item("n_coordinates", r.n_coords)?;
        d.set_item("n_constraints", r.n_constraints)?;
        d.set_item("rank", r.rank)?;
        d.set_item("dof", r.dof)?;
        d.set_item("redundant", &r.redundant)?;
        d.set_item("max_constraint_residual", r.max_constraint)?;
        let s = &init.state;
        for (key, x) in [
            ("q", &s.q),
            ("v", &s.v),
            ("qdd", &s.qdd),
            ("lambda", &s.lambda),
        ] {
            d.set_item(key, x)?;
        }
        d.set_item("parameters", &p.parameters)?;
        Ok((d.into_any(), report))
    }

    /// The static equilibrium downhill from the guesses (as `lagrangian equilibrium`), as
    /// `equilibrium.json` has it (a dict).
    #[pyo3(signature = (hold_pins=false, max_iterations=500, source=None))]
    fn equilibrium<'py>(
        &self,
        py: Python<'py>,
        hold_pins: bool,
        max_iterations: u64,
        source: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let p = &self.problem;
        let opts = lagrangian::analysis::EquilibriumOptions {
            hold_pins,
            max_iterations,
            ..Default::default()
        };
        let eq = py
            .detach(|| lagrangian::analysis::Equilibrium::find(p, &opts))
            .map_err(|e| to_py(py, e))?;
        // a restart event (a chain's change of chart) may have changed the coordinates
        let p = eq.problem.as_ref().unwrap_or(p);
        let report = lagrangian::run::equilibrium::EquilibriumReport::new(p, &eq, source);
        to_dict(py, &report)
    }

    /// The vibration modes about the consistent initial configuration (`at = "initial"`) or
    /// the equilibrium (`"equilibrium"`), or the roots about the initial steady motion
    /// (`"motion"`), as `modes.json` has them (a dict).
    #[pyo3(signature = (at="initial"))]
    fn modes<'py>(&self, py: Python<'py>, at: &str) -> PyResult<Bound<'py, PyAny>> {
        use lagrangian::analysis::ModesReport;
        let p = &self.problem;
        let report = match at {
            "initial" => py.detach(|| ModesReport::initial(p)),
            "equilibrium" => py.detach(|| ModesReport::equilibrium(p)),
            "motion" => py.detach(|| ModesReport::motion(p)),
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "at = {other:?}: 'initial', 'equilibrium' or 'motion'"
                )))
            }
        }
        .map_err(|e| to_py(py, e))?;
        to_dict(py, &report)
    }

    /// Fit the parameters `vary` to targets — a CSV table's text `csv` (named `source`), or
    /// times `t` and `(coordinate, values)` columns (NaN: no target) — by `run::fit`, as
    /// `lagrangian fit`; the report (a dict). `cancel` (or Ctrl-C) stops it.
    #[pyo3(signature = (vary, csv=None, source=None, t=None, columns=None, max_iterations=50,
                        tolerance=1e-12, cancel=None))]
    #[allow(clippy::too_many_arguments)]
    fn fit<'py>(
        &self,
        py: Python<'py>,
        vary: Vec<String>,
        csv: Option<String>,
        source: Option<String>,
        t: Option<Vec<f64>>,
        columns: Option<Vec<(String, Vec<f64>)>>,
        max_iterations: u64,
        tolerance: f64,
        cancel: Option<Py<Cancel>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        use lagrangian::run::fit::{fit, FitOptions, Target};
        let value_error = pyo3::exceptions::PyValueError::new_err;
        let targets = match (csv, t, columns) {
            (Some(text), None, None) => {
                Target::from_csv(&text, source.as_deref().unwrap_or("<targets>"))
                    .map_err(|e| to_py(py, e))?
            }
            (None, Some(t), Some(columns)) => {
                let mut out = Vec::new();
                for (name, values) in columns {
                    if values.len() != t.len() {
                        return Err(value_error(format!(
                            "targets: column '{name}' has {} values for {} times",
                            values.len(),
                            t.len()
                        )));
                    }
                    for (&t, &value) in t.iter().zip(&values) {
                        if !value.is_nan() {
                            out.push(Target {
                                t,
                                coordinate: name.clone(),
                                value,
                                weight: 1.0,
                            });
                        }
                    }
                }
                out
            }
            _ => {
                return Err(value_error(
                    "targets: a CSV table, or times and columns".to_string(),
                ))
            }
        };
        let stop = cancel.map(|c| c.get().stop.clone()).unwrap_or_default();
        let opts = FitOptions {
            max_iterations,
            tolerance,
            interrupt: stop.clone(),
        };
        let (problem, plan) = (self.problem.clone(), self.plan.clone());
        let report = interruptible(py, &stop, move || {
            let names: Vec<&str> = vary.iter().map(String::as_str).collect();
            fit(&problem, &plan, &names, &targets, &opts)
        })?;
        to_dict(py, &report)
    }

    /// The state-space model about the initial configuration or the equilibrium (`at`), inputs
    /// the parameters `inputs`, outputs the columns `outputs` (`run::linear::state_space`): a
    /// dict with `a`, `b`, `c`, `d` and `basis` as 2-D arrays of their shapes (empty ones
    /// too), `e`, `q`, `v` as 1-D arrays.
    #[pyo3(signature = (inputs, outputs, at="initial"))]
    fn state_space<'py>(
        &self,
        py: Python<'py>,
        inputs: Vec<String>,
        outputs: Vec<String>,
        at: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        use lagrangian::run::modes::ModesAt;
        let at = match at {
            "initial" => ModesAt::Initial,
            "equilibrium" => ModesAt::Equilibrium,
            "motion" => ModesAt::Motion,
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "at = {other:?}: 'initial', 'equilibrium' or 'motion'"
                )));
            }
        };
        let p = &self.problem;
        let ss = py
            .detach(|| {
                let i: Vec<&str> = inputs.iter().map(String::as_str).collect();
                let o: Vec<&str> = outputs.iter().map(String::as_str).collect();
                lagrangian::run::linear::state_space(p, at, &i, &o)
            })
            .map_err(|e| to_py(py, e))?;
        // built here rather than through `to_dict`: its matrices would become nested lists
        // only to be replaced by arrays
        let dict = PyDict::new(py);
        dict.set_item("t", ss.t)?;
        dict.set_item("inputs", &ss.inputs)?;
        dict.set_item("outputs", &ss.outputs)?;
        for (key, m) in [
            ("a", &ss.a),
            ("b", &ss.b),
            ("c", &ss.c),
            ("d", &ss.d),
            ("basis", &ss.basis),
        ] {
            let a = numpy::ndarray::Array2::from_shape_fn(m.shape(), |(i, j)| m[(i, j)]);
            dict.set_item(key, PyArray2::from_owned_array(py, a))?;
        }
        for (key, x) in [("e", &ss.e), ("q", &ss.q), ("v", &ss.v)] {
            dict.set_item(key, numpy::PyArray1::from_slice(py, x))?;
        }
        Ok(dict.into_any())
    }

    /// Integrate with the overrides given (as `lagrangian run`'s options), keeping every
    /// `output_every`-th row (or the rows at `output_dt` / `output_at`) in memory, or with
    /// `out` writing them to that folder as `lagrangian run --out` does (`formats`: any of
    /// `csv`, `npy`, `parquet`); `sensitivity` names parameters to differentiate every column with respect to;
    /// `cancel` stops the run from another thread. In memory: the column names, the array, the
    /// summary, the scene, the sensitivity names and array, and the run to go on with
    /// (`Continuation`); with `out`: the folder the results
    /// are in and the summary.
    #[pyo3(signature = (t_end=None, step=None, steps=None, output_every=None, method=None,
                        rho_inf=None, columns=None, sensitivity=Vec::new(), source=None,
                        tol=None, output_dt=None, output_at=None, output_every_step=false,
                        out=None, formats=None, cancel=None))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        t_end: Option<f64>,
        step: Option<f64>,
        steps: Option<usize>,
        output_every: Option<usize>,
        method: Option<String>,
        rho_inf: Option<f64>,
        columns: Option<Vec<String>>,
        sensitivity: Vec<String>,
        source: Option<String>,
        tol: Option<f64>,
        output_dt: Option<f64>,
        output_at: Option<Vec<f64>>,
        output_every_step: bool,
        out: Option<std::path::PathBuf>,
        formats: Option<Vec<String>>,
        cancel: Option<Py<Cancel>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let (mut problem, mut plan) = (self.problem.clone(), self.plan.clone());
        // entries `name = expression` are columns of the user's own, the others groups
        let (user_columns, columns): (Vec<String>, Option<Vec<String>>) = match columns {
            Some(c) => {
                let (user, groups) = c.into_iter().partition(|c| c.contains('='));
                (user, Some(groups))
            }
            None => (Vec::new(), None),
        };
        let ov = Overrides {
            user_columns,
            steps,
            step,
            t_end,
            rho_inf,
            integrator: method,
            output_every,
            columns,
            formats: formats.or(out.as_ref().map(|_| vec!["npy".to_string()])),
            tol,
            output_dt,
            output_at,
            output_every_step,
            spelling: Spelling::Python,
        };
        plan.apply(&mut problem, &ov).map_err(|e| to_py(py, e))?;
        let stop = cancel.map(|c| c.get().stop.clone()).unwrap_or_default();
        if let Some(out) = out {
            let mut opts = RunOptions::new(&out);
            (opts.source, opts.sensitivity, opts.interrupt) = (source, sensitivity, stop.clone());
            let r = interruptible(py, &stop, move || run_to_folder(problem, &plan, &opts))?;
            let summary = to_dict(py, &r.summary)?;
            let dir = r.dir.to_string_lossy().into_owned().into_pyobject(py)?;
            return PyTuple::new(py, [dir.into_any(), summary]);
        }
        let opts = MemoryOptions {
            sensitivity,
            source,
            interrupt: stop.clone(),
            copied: true,
        };
        let (run, r) = interruptible(py, &stop, move || {
            let t_end = problem.t_end;
            let mut run = start_in_memory(problem, &plan, &opts)?;
            let r = run.until(t_end)?;
            Ok((run, r))
        })?;
        let mut items = run_items(py, r)?;
        items.push(Bound::new(py, Continuation::new(run))?.into_any());
        PyTuple::new(py, items)
    }
}

/// A run's result for Python: the column names, the array, the summary (a dict), the scene
/// (`scene.json`'s text, what the animation page takes), the sensitivity names and array.
pub(crate) fn run_items(py: Python<'_>, r: RunResult) -> PyResult<Vec<Bound<'_, PyAny>>> {
    let summary = to_dict(py, &r.summary)?;
    let scene = serde_json::to_string(&r.scene).unwrap_or_default();
    let data = array2(py, r.rows, r.names.len())?;
    let sens = array2(py, r.sensitivity_rows, r.sensitivity_names.len())?;
    Ok(vec![
        r.names.into_pyobject(py)?.into_any(),
        data.into_any(),
        summary,
        scene.into_pyobject(py)?.into_any(),
        r.sensitivity_names.into_pyobject(py)?.into_any(),
        sens.into_any(),
    ])
}

/// The offline animation page (one HTML document) of a run: its scene as JSON, its column
/// names and rows; `fps`, `max_frames`, `trails`, `colour` and `frames` (the bodies' axes) as
/// `lagrangian animate` takes them.
#[pyfunction]
#[pyo3(signature = (scene, names, data, fps=None, max_frames=None, trails=None, colour=None, frames=None))]
#[allow(clippy::too_many_arguments)]
fn animation_html(
    py: Python<'_>,
    scene: &str,
    names: Vec<String>,
    data: PyReadonlyArray2<'_, f64>,
    fps: Option<f64>,
    max_frames: Option<usize>,
    trails: Option<Vec<String>>,
    colour: Option<String>,
    frames: Option<bool>,
) -> PyResult<String> {
    let scene: lagrangian::output::scene::Scene = serde_json::from_str(scene)
        .map_err(|e| LagrangianError::new_err(format!("the scene: {e}")))?;
    let array = data.as_array();
    if array.ncols() != names.len() {
        return Err(LagrangianError::new_err(format!(
            "{} column names for {} columns",
            names.len(),
            array.ncols()
        )));
    }
    let rows: Vec<Vec<f64>> = array.rows().into_iter().map(|r| r.to_vec()).collect();
    let table = Table {
        columns: names,
        rows,
    };
    let mut opts = AnimationOptions {
        trails,
        colour,
        frames,
        ..AnimationOptions::default()
    };
    if let Some(f) = fps {
        opts.fps = f;
    }
    if let Some(m) = max_frames {
        opts.max_frames = m;
    }
    py.detach(|| {
        let movie = lagrangian::view::movie::Movie::of(scene, &table, &opts)?;
        Ok(lagrangian::view::animation::html_of(&movie))
    })
    .map_err(|e: lagrangian::error::PlotError| LagrangianError::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Problem>()?;
    m.add_function(wrap_pyfunction!(animation_html, m)?)?;
    Ok(())
}
