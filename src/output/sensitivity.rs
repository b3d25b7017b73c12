//! Parameter sensitivities of a run as an observer: the forward sensitivities of the
//! generalized-α scheme ([`Sensitivity`]) advanced after every accepted step and recorded as
//! columns `d(<coordinate>)/d(<p>)`, `d(v:<coordinate>)/d(<p>)` and `d(lambda:<constraint>)/d(<p>)`
//! — what `run --sensitivity k,m` writes to `sensitivity.csv`.
//!
//! ```
//! use lagrangian::output::sensitivity::SensitivityRecorder;
//! use lagrangian::simulation::Simulation;
//! // a mass on a spring stretched by 1: x(t) = 1 + cos(ωt), ω = √(k/m), so
//! // dx/dk = −t sin(ωt) / (2√(km))
//! let text = "Dimension: 2\nPhysicalParams: { k: 4, m: 1 }\n\
//!             PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Springs: { OA: [k, 1] } }\n\
//!             ProblemData: { tend: 1, positions: { A: [2, 0] } }\nSolverParams: { step: 1e-3 }\n";
//! let problem = lagrangian::spec::parse(text, "spring.yaml")?;
//! let mut sens = SensitivityRecorder::new(&problem, &["k"], 1)?;
//! let mut sim = Simulation::new(problem.clone(), problem.method.clone())?;
//! sim.run(problem.t_end, &mut [&mut sens])?;
//! let dxdk = *sens.column("d(A.x)/d(k)").unwrap().last().unwrap();
//! let exact = -1.0 * (2.0f64).sin() / (2.0 * 2.0);
//! assert!((dxdk - exact).abs() < 1e-5 * exact.abs()); // the scheme's own error, O(h²)
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::error::Error;
use crate::output::{Control, Event, Observer};
use crate::problem::Problem;
use crate::solve::sensitivity::Sensitivity;

/// The most memory the recorded sensitivities may take (2 GB).
pub const MAX_BYTES: f64 = 2e9;

/// Records the sensitivities of every `every`-th state (and the first and last).
pub struct SensitivityRecorder {
    engine: Sensitivity,
    /// The method's step (the run's steps are this long but the shortened last one).
    h: f64,
    t: f64,
    every: usize,
    names: Vec<String>,
    /// The times of the rows.
    pub times: Vec<f64>,
    /// The rows: for each parameter, `dq/dp`, `dv/dp`, `dλ/dp`.
    pub rows: Vec<Vec<f64>>,
}

impl SensitivityRecorder {
    /// Sensitivities of `problem`'s run with respect to the parameters `names`.
    pub fn new(problem: &Problem, names: &[&str], every: usize) -> Result<Self, Error> {
        let model = &problem.model;
        let width = names.len() * (2 * model.n_coords() + model.n_constraints());
        let rows = problem.steps(problem.method.h()) / every.max(1) + 2;
        let bytes = 8.0 * rows as f64 * width as f64;
        if bytes > MAX_BYTES {
            return Err(crate::error::SolveError::TooLarge(format!(
                "the sensitivities would take {:.1} GB in memory ({rows} rows × {width} \
                 columns; the limit is {:.0} GB): write fewer rows (--output-every) or choose \
                 fewer parameters",
                bytes / 1e9,
                MAX_BYTES / 1e9
            ))
            .into());
        }
        let engine = Sensitivity::new(problem, names)?;
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
        let columns = columns
            .into_iter()
            .map(|c| c.replace([',', '"'], "_"))
            .collect();
        Ok(SensitivityRecorder {
            engine,
            h: problem.method.h(),
            t: problem.t0,
            every: every.max(1),
            names: columns,
            times: Vec::new(),
            rows: Vec::new(),
        })
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

    /// The rows as CSV text with a header (`t` first).
    pub fn to_csv(&self) -> String {
        let mut out = format!("t,{}\n", self.names.join(","));
        for (t, row) in self.times.iter().zip(&self.rows) {
            out.push_str(&format!("{t:.12e}"));
            for x in row {
                out.push_str(&format!(",{x:.12e}"));
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
            for k in 0..self.engine.names().len() {
                let s = self.engine.of(k);
                row.extend_from_slice(&s.q);
                row.extend_from_slice(&s.v);
                row.extend_from_slice(&s.lambda);
            }
            self.times.push(t);
            self.rows.push(row);
        }
        Ok(Control::Continue)
    }
}
