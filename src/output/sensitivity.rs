//! Parameter sensitivities of a run as an observer: the forward sensitivities of the
//! generalized-α scheme ([`Sensitivity`]) advanced after every accepted step and recorded
//! either for the state ([`SensitivityRecorder::new`]: columns `d(<coordinate>)/d(<p>)`,
//! `d(v:<coordinate>)/d(<p>)` and `d(lambda:<constraint>)/d(<p>)`) or for every column of the
//! trajectory ([`SensitivityRecorder::columns`]: `d(<column>)/d(<p>)` — point positions and
//! velocities, multipliers, reactions, bar tensions, momenta, energies) — what
//! `run --sensitivity k,m` writes to `sensitivity.csv`.
//!
//! A column is a function `y(t, x, p)` of the state `x = (q, v, q̈, λ)` and the parameters, so
//! its total derivative along the run is `dy/dp = ∂y/∂x · S + ∂y/∂p` with `S = dx/dp`; it is
//! taken as the directional derivative of `y` along `(S, 1)` by the fourth-order difference
//! of the problem rebuilt at `p ± h`, `p ± 2h` evaluated at `x ± h S`, `x ± 2h S`.
//!
//! ```
//! use lagrangian::output::sensitivity::SensitivityRecorder;
//! use lagrangian::simulation::Simulation;
//! // a mass on a spring stretched by 1: x(t) = 1 + cos(ωt), ω = √(k/m), so
//! // dx/dk = −t sin(ωt) / (2√(km))
//! let text = "Dimension: 2\nPhysicalParams: { k: 4, m: 1 }\n\
//!             PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Springs: { OA: [k, 1] } }\n\
//!             ProblemData: { tend: 1, positions: { A: [2, 0] } }\nSolverParams: { step: 1e-3 }\n";
//! let (problem, plan) = lagrangian::spec::parse(text, "spring.yaml")?;
//! let mut sens = SensitivityRecorder::new(&problem, &plan, &["k"])?;
//! let mut sim = Simulation::new(problem, plan)?;
//! sim.run(&mut [&mut sens])?;
//! let dxdk = *sens.column("d(A.x)/d(k)").unwrap().last().unwrap();
//! let exact = -1.0 * (2.0f64).sin() / (2.0 * 2.0);
//! assert!((dxdk - exact).abs() < 1e-5 * exact.abs()); // the scheme's own error, O(h²)
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::error::Error;
use crate::model::StateView;
use crate::output::columns::Columns;
use crate::output::{Control, Event, Observer};
use crate::problem::{Problem, RunPlan};
use crate::solve::sensitivity::{Sensitivity, difference};

/// The most memory the recorded sensitivities may take (2 GB).
pub const MAX_BYTES: f64 = 2e9;

/// Records the sensitivities of the states the plan keeps (every `output_every`-th, the first
/// and the last).
pub struct SensitivityRecorder {
    engine: Sensitivity,
    /// The method's step (the run's steps are this long but the shortened last one).
    h: f64,
    t: f64,
    every: usize,
    names: Vec<String>,
    /// The times of the rows.
    pub times: Vec<f64>,
    /// The rows: for each parameter, `dq/dp`, `dv/dp`, `dλ/dp` (state mode), or the derivative
    /// of each chosen trajectory column (column mode).
    pub rows: Vec<Vec<f64>>,
    /// Column mode: for each parameter, the columns of its four shifted problems.
    columns: Option<ColumnMode>,
}

/// What the column mode needs: the trajectory columns of every shifted problem and which of
/// them are differentiated.
struct ColumnMode {
    /// `[parameter][shift]`.
    columns: Vec<[Columns; 4]>,
    /// The indices of the differentiated columns in a trajectory row.
    keep: Vec<usize>,
    /// Workspace: the shifted state and the rows.
    x: [Vec<f64>; 4],
    rows: [Vec<f64>; 4],
}

/// Trajectory columns that are not functions of the current state and parameters (`t`, the
/// ledger's integrals over the run) or not differentiable (the constraint residual's maximum).
fn differentiable(name: &str, group: &str) -> bool {
    group != "ledger" && name != "max_constraint_residual"
}

impl SensitivityRecorder {
    /// Sensitivities of `problem`'s run by `plan` with respect to the parameters `names`.
    pub fn new(problem: &Problem, plan: &RunPlan, names: &[&str]) -> Result<Self, Error> {
        let model = &problem.model;
        let width = names.len() * (2 * model.n_coords() + model.n_constraints());
        Self::check_size(problem, plan, width)?;
        let engine = Sensitivity::new(problem, plan, names)?;
        let names = Self::state_names(problem, names);
        Ok(Self::with_names(problem, plan, engine, names))
    }

    /// Sensitivities of every differentiable column of `problem`'s trajectory (as the plan's
    /// [`Outputs`](crate::problem::Outputs) choose them; not `t`, the ledger or the constraint
    /// residual) with respect to the parameters `names`: columns `d(<column>)/d(<p>)`.
    ///
    /// ```
    /// use lagrangian::output::sensitivity::SensitivityRecorder;
    /// use lagrangian::simulation::Simulation;
    /// // a mass on a spring stretched by 1, released from rest: its stretch is cos ωt with
    /// // ω = √(k/m), its potential energy V = k cos²(ωt) / 2, so dV/dk = c²/2 − c s t ω / 2
    /// let text = "Dimension: 2\nPhysicalParams: { k: 4, m: 1 }\n\
    ///             PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, \
    ///             Springs: { OA: [k, 1] } }\nProblemData: { tend: 1, positions: { A: [2, 0] } }\n\
    ///             SolverParams: { step: 1e-3 }\n";
    /// let (problem, plan) = lagrangian::spec::parse(text, "spring.yaml")?;
    /// let mut sens = SensitivityRecorder::columns(&problem, &plan, &["k"])?;
    /// let mut sim = Simulation::new(problem, plan)?;
    /// sim.run(&mut [&mut sens])?;
    /// let dv = *sens.column("d(potential)/d(k)").unwrap().last().unwrap();
    /// let (w, t) = (2.0f64, 1.0);
    /// let (c, s) = ((w * t).cos(), (w * t).sin());
    /// let exact = c * c / 2.0 - c * s * t * w / 2.0;
    /// assert!((dv - exact).abs() < 1e-5 * exact.abs());
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn columns(problem: &Problem, plan: &RunPlan, names: &[&str]) -> Result<Self, Error> {
        let mut plain = plan.outputs.clone();
        plain.ledger = false;
        let schema = Columns::new(problem, &plain);
        let mut keep = Vec::new();
        for (group, range) in schema.groups() {
            for i in range.clone() {
                if differentiable(&schema.names()[i], group) {
                    keep.push(i);
                }
            }
        }
        let width = names.len() * keep.len();
        Self::check_size(problem, plan, width)?;
        let engine = Sensitivity::new(problem, plan, names)?;
        let mut columns = Vec::new();
        for k in 0..names.len() {
            let (_, shifted) = engine.shifted(k);
            columns.push(shifted.each_ref().map(|p| Columns::new(p, &plain)));
        }
        let mut out = Vec::new();
        for p in names {
            out.extend(
                keep.iter()
                    .map(|&i| format!("d({})/d({p})", schema.names()[i])),
            );
        }
        let mut rec = Self::with_names(problem, plan, engine, out);
        rec.columns = Some(ColumnMode {
            columns,
            keep,
            x: Default::default(),
            rows: Default::default(),
        });
        Ok(rec)
    }

    /// Refuses a record that would not fit in [`MAX_BYTES`].
    fn check_size(problem: &Problem, plan: &RunPlan, width: usize) -> Result<(), Error> {
        let rows = plan.output_rows(problem);
        let bytes = 8.0 * rows as f64 * width as f64;
        if bytes > MAX_BYTES {
            return Err(Error::TooLarge(format!(
                "the sensitivities would take {:.1} GB in memory ({rows} rows × {width} \
                 columns; the limit is {:.0} GB): write fewer rows (--output-every) or choose \
                 fewer parameters",
                bytes / 1e9,
                MAX_BYTES / 1e9
            )));
        }
        Ok(())
    }

    fn with_names(
        problem: &Problem,
        plan: &RunPlan,
        engine: Sensitivity,
        names: Vec<String>,
    ) -> Self {
        SensitivityRecorder {
            engine,
            h: plan.method.h(),
            t: problem.t0,
            every: plan.output_every.max(1),
            names,
            times: Vec::new(),
            rows: Vec::new(),
            columns: None,
        }
    }

    /// The state-mode column names.
    fn state_names(problem: &Problem, names: &[&str]) -> Vec<String> {
        let model = &problem.model;
        let coords = model.coordinate_names();
        let mut lambda = Vec::new();
        for (block, rows) in model.constraint_blocks() {
            for k in 0..rows.len() {
                lambda.push(match rows.len() {
                    1 => format!("lambda:{block}"),
                    _ => format!("lambda:{block}:{}", k + 1),
                });
            }
        }
        let mut columns = Vec::new();
        for p in names {
            columns.extend(coords.iter().map(|c| format!("d({c})/d({p})")));
            columns.extend(coords.iter().map(|c| format!("d(v:{c})/d({p})")));
            columns.extend(lambda.iter().map(|c| format!("d({c})/d({p})")));
        }
        columns
            .into_iter()
            .map(|c| c.replace([',', '"'], "_"))
            .collect()
    }

    /// The column names (`t` not included).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The values of column `name` over the rows.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let k = self.names.iter().position(|n| n == name)?;
        Some(self.rows.iter().map(|r| r[k]).collect())
    }

    /// The rows recorded so far, taken out (the recorder goes on with none): what a span of a
    /// run that goes on ([`Running`](crate::run::running::Running)) hands over.
    pub fn take_rows(&mut self) -> SensitivityRows {
        SensitivityRows {
            names: self.names.clone(),
            times: std::mem::take(&mut self.times),
            rows: std::mem::take(&mut self.rows),
        }
    }
}

/// Recorded sensitivity rows: the derivative of each column with respect to each parameter at
/// the kept rows' times.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SensitivityRows {
    /// The column names (`t` not included): `d(<column>)/d(<parameter>)`.
    pub names: Vec<String>,
    /// The times of the rows.
    pub times: Vec<f64>,
    /// The rows, one per kept trajectory row.
    pub rows: Vec<Vec<f64>>,
}

impl SensitivityRows {
    /// The rows as CSV text with a header (`t` first), as `sensitivity.csv` holds them.
    pub fn to_csv(&self) -> String {
        let mut out = format!("t,{}\n", self.names.join(","));
        for (t, row) in self.times.iter().zip(&self.rows) {
            out.push_str(&format!("{t:e}"));
            for x in row {
                out.push_str(&format!(",{x:e}"));
            }
            out.push('\n');
        }
        out
    }
}

impl Observer for SensitivityRecorder {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        let t = ev.state.t;
        if ev.step > 0 {
            let dt = t - self.t;
            // the integrator's own step, unless this is the shortened last one
            let h = match (dt - self.h).abs() <= 1e-6 * self.h {
                true => self.h,
                false => dt,
            };
            self.engine.advance(ev.state, h)?;
        }
        self.t = t;
        if ev.is_output(self.every) {
            let mut row = Vec::with_capacity(self.names.len());
            match &mut self.columns {
                None => {
                    for k in 0..self.engine.names().len() {
                        let s = self.engine.of(k);
                        row.extend_from_slice(&s.q);
                        row.extend_from_slice(&s.v);
                        row.extend_from_slice(&s.lambda);
                    }
                }
                Some(mode) => mode.row(&self.engine, ev.state, &mut row),
            }
            self.times.push(t);
            self.rows.push(row);
        }
        Ok(Control::Continue)
    }
}

impl ColumnMode {
    /// The derivatives of the kept columns at state `s` for every parameter, appended to `row`.
    fn row(&mut self, engine: &Sensitivity, s: StateView<'_>, row: &mut Vec<f64>) {
        let (n, m) = (s.q.len(), s.lambda.len());
        for k in 0..engine.names().len() {
            let (h, problems) = engine.shifted(k);
            let d = engine.of(k);
            for (j, step) in [1.0, -1.0, 2.0, -2.0].into_iter().enumerate() {
                let x = &mut self.x[j];
                x.clear();
                let parts = [
                    (s.q, &d.q),
                    (s.v, &d.v),
                    (s.qdd, &d.qdd),
                    (s.lambda, &d.lambda),
                ];
                for (base, dir) in parts {
                    x.extend(base.iter().zip(dir.iter()).map(|(b, e)| b + step * h * e));
                }
                let view = StateView {
                    t: s.t,
                    q: &x[..n],
                    v: &x[n..2 * n],
                    qdd: &x[2 * n..3 * n],
                    lambda: &x[3 * n..3 * n + m],
                };
                self.columns[k][j].row(&problems[j], view, &mut self.rows[j]);
            }
            let [a, b, c, e] = &self.rows;
            let full = difference([a, b, c, e], h);
            row.extend(self.keep.iter().map(|&i| full[i]));
        }
    }
}
