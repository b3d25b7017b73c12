//! Design by optimization: named parameters adjusted so that coordinates of a mechanism (or
//! any other column of its trajectory: a body's marker, a velocity, a user's column) pass
//! through targets at given times, by Levenberg–Marquardt ([`argmin`] drives the iterations).
//! With generalized-α the Jacobian is the exact one of the computed trajectory, from the forward
//! sensitivities of the scheme ([`SensitivityRecorder`]) — one run per iteration, whatever the
//! number of parameters; `x` is linearly interpolated between the run's (short) steps, and its
//! sensitivities the same way, so the gradient is the cost's. With DOP853, Radau IIA, the Taylor
//! method or RK4 the run stops at every target time by the method's continuous extension (no
//! straight line between long steps), and the Jacobian is taken by central differences of runs
//! at the accepted points (two runs per parameter, the relative step `∛rtol`).
//!
//! The cost is `½ Σᵢ wᵢ² (x_{cᵢ}(tᵢ; p) − x̂ᵢ)²`. A step solves
//! `(JᵀJ + μ diag(JᵀJ)) δ = −Jᵀr` (Marquardt's scaling makes it independent of the parameters'
//! units); `μ` falls by 3 after a step that lowers the cost and grows by 4 (the trial refused)
//! otherwise, also when the trial run fails (a parameter out of its range).
//!
//! ```
//! use lagrangian::run::fit::{fit, FitOptions, Target};
//! // a mass on a spring stretched by 1: x(t) = 1 + cos(√(k/m) t); measured with k = 4
//! let text = "Dimension: 2\nPhysicalParams: { k: 3, m: 1 }\n\
//!             PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Springs: { OA: [k, 1] } }\n\
//!             ProblemData: { tend: 1, positions: { A: [2, 0] } }\nSolverParams: { step: 1e-3 }\n";
//! let (problem, plan) = lagrangian::spec::parse(text, "spring.yaml")?;
//! let measured = problem.with_parameters(&[("k", 4.0)])?;
//! let targets = Target::from_run(&measured, &plan, &["A.x"], &[0.25, 0.5, 0.75, 1.0])?;
//! let report = fit(&problem, &plan, &["k"], &targets, &FitOptions::default())?;
//! assert!((report.parameters[0].1 - 4.0).abs() < 1e-9);
//! assert!(report.cost < 1e-6 * report.initial_cost);
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::error::{Error, OptionError};
use crate::output::columns::Columns;
use crate::output::folder::RunFolder;
use crate::output::sensitivity::SensitivityRecorder;
use crate::output::sink::ColumnRecorder;
use crate::output::{Interrupt, Recorder};
use crate::problem::{Method, OutputTimes};
use crate::run::{RunOptions, RunReport, run_to_folder};
use crate::simulation::Simulation;
use crate::solve::{Problem, RunPlan};
use argmin::core::{
    CostFunction, Error as ArgminError, Executor, IterState, KV, Problem as ArgminProblem, Solver,
    TerminationReason, TerminationStatus,
};
use nalgebra::{DMatrix, DVector};

/// A trajectory column's wanted value at a time.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Target {
    /// Time.
    pub t: f64,
    /// The column's name: a coordinate (`A.x`, `theta`) or any other column of the
    /// trajectory the plan's outputs write (`Arm.Tip.x`, `A.vx`, a user's column).
    pub coordinate: String,
    /// The wanted value.
    pub value: f64,
    /// Its weight `w` in the cost (1 by default).
    pub weight: f64,
}

impl Target {
    /// Targets taken from a run of `problem` by `plan`'s method itself (a measurement, or a
    /// design to match): the coordinates `names` at the times `times`.
    pub fn from_run(
        problem: &Problem,
        plan: &RunPlan,
        names: &[&str],
        times: &[f64],
    ) -> Result<Vec<Target>, Error> {
        let interrupt = Interrupt::new();
        let (columns, rows) = trajectory(problem, plan, names, None, &interrupt, times)?.0;
        let mut out = Vec::new();
        for &t in times {
            for (k, name) in columns.iter().enumerate() {
                out.push(Target {
                    t,
                    coordinate: name.clone(),
                    value: interpolate(&rows, t, |r| r.1[k])?,
                    weight: 1.0,
                });
            }
        }
        Ok(out)
    }
}

impl Target {
    /// Targets from a table's text (CSV, as `trajectory.csv`): a header `t,<coordinate>,…`
    /// (any order; `#` lines are comments), then rows of numbers; an empty cell or `nan` is no
    /// target. `source` names the table in messages (`data.csv:3:7`). Weights are 1.
    ///
    /// ```
    /// use lagrangian::run::fit::Target;
    /// let t = Target::from_csv("t,A.x,B.y\n0.5,1.25,\n1,1.5,-2\n", "data.csv")?;
    /// assert_eq!(t.len(), 3); // B.y has no value at 0.5
    /// assert_eq!((t[2].t, t[2].coordinate.as_str(), t[2].value), (1.0, "B.y", -2.0));
    /// let e = Target::from_csv("t,A.x\n0.5,one\n", "data.csv").unwrap_err();
    /// assert!(e.to_string().contains("data.csv:2:5"), "{e}");
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn from_csv(text: &str, source: &str) -> Result<Vec<Target>, Error> {
        let bad = |line: usize, col: usize, m: String| -> Error {
            OptionError::invalid("targets", format!("{source}:{line}:{col}: {m}")).into()
        };
        // a byte-order mark (a table saved by Excel) is no part of the first name
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = (text.lines().enumerate())
            .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
            .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
        let (hl, header) = lines.next().ok_or_else(|| {
            bad(
                1,
                1,
                "the table is empty: expected a header t,<coordinate>,…".into(),
            )
        })?;
        let names: Vec<String> = (header.split(','))
            .map(|c| c.trim().trim_matches('"').to_string())
            .collect();
        if let Some((k, n)) = (names.iter().enumerate()).find(|(k, n)| names[..*k].contains(n)) {
            let m = format!(
                "column '{n}' appears twice in the header (column {})",
                k + 1
            );
            return Err(bad(hl, 1, m));
        }
        let time = names.iter().position(|n| n == "t").ok_or_else(|| {
            bad(
                hl,
                1,
                format!("the header has no column 't' (found {})", names.join(", ")),
            )
        })?;
        let mut out = Vec::new();
        for (ln, line) in lines {
            let cells: Vec<&str> = line.split(',').collect();
            if cells.len() != names.len() {
                let m = format!("{} cells for {} columns", cells.len(), names.len());
                return Err(bad(ln, 1, m));
            }
            let mut col = 1;
            let mut values = Vec::with_capacity(cells.len());
            for c in &cells {
                let v = c.trim().trim_matches('"');
                let x = match v {
                    "" => f64::NAN,
                    _ => v
                        .parse::<f64>()
                        .ok()
                        .filter(|x| !x.is_nan())
                        .ok_or_else(|| match v.eq_ignore_ascii_case("nan") {
                            true => bad(ln, col, format!("'{v}' is no measurement: leave the cell empty where there is none")),
                            false => bad(ln, col, format!("'{v}' is not a number")),
                        })?,
                };
                if x.abs() > LARGEST_TARGET {
                    let m = format!(
                        "{v} is beyond {LARGEST_TARGET:e}: its squared residual would overflow the cost"
                    );
                    return Err(bad(ln, col, m));
                }
                values.push(x);
                col += c.len() + 1;
            }
            let t = values[time];
            if !t.is_finite() {
                return Err(bad(ln, 1, "a row needs a finite time t".into()));
            }
            for (k, &x) in values.iter().enumerate() {
                if k != time && !x.is_nan() {
                    if !x.is_finite() {
                        return Err(bad(ln, 1, format!("{} = {x} is not finite", names[k])));
                    }
                    out.push(Target {
                        t,
                        coordinate: names[k].clone(),
                        value: x,
                        weight: 1.0,
                    });
                }
            }
        }
        if out.is_empty() {
            return Err(bad(hl, 1, "the table holds no target values".into()));
        }
        Ok(out)
    }
}

/// The largest target value (and time) taken: squares of residuals must stay finite.
pub const LARGEST_TARGET: f64 = 1e150;

/// How to fit.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Most iterations (runs); default 50.
    pub max_iterations: u64,
    /// Stop when an accepted step lowers the cost by less than this fraction, or the cost is
    /// below `tolerance²` times its start; default 1e-12.
    pub tolerance: f64,
    /// Raised (from another thread, Ctrl-C), it stops the run under way after its current
    /// step and the fit with an error.
    pub interrupt: Interrupt,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            max_iterations: 50,
            tolerance: 1e-12,
            interrupt: Interrupt::new(),
        }
    }
}

/// What a fit found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FitReport {
    /// The parameters, with their values at the start.
    pub start: Vec<(String, f64)>,
    /// The parameters, with their fitted values.
    pub parameters: Vec<(String, f64)>,
    /// How many targets were fitted.
    pub targets: usize,
    /// The cost at the start.
    pub initial_cost: f64,
    /// The cost at the end.
    pub cost: f64,
    /// The cost after each accepted step.
    pub history: Vec<f64>,
    /// Iterations (each one run with sensitivities).
    pub iterations: u64,
}

/// Rows `(t, values)`.
type Table = Vec<(f64, Vec<f64>)>;

/// The chosen coordinates' names and rows `(t, their values)`.
type Rows = (Vec<String>, Table);

/// A run of `problem` by `plan`'s method at every step: the columns `names` and, for
/// `params`, the rows of their sensitivities `(t, [parameter][column])`. Coordinates come
/// from the state and its sensitivities; any other trajectory column (a body's marker
/// `Arm.Tip.x`, a velocity, a user's column) from the columns of the plan's outputs and their
/// sensitivities (`SensitivityRecorder::columns`).
fn trajectory(
    problem: &Problem,
    plan: &RunPlan,
    names: &[&str],
    params: Option<&[&str]>,
    interrupt: &Interrupt,
    times: &[f64],
) -> Result<(Rows, Table), Error> {
    let coords = problem.model.coordinate_names();
    let idx: Option<Vec<usize>> = (names.iter())
        .map(|n| coords.iter().position(|c| c == n))
        .collect();
    let Some(idx) = idx else {
        return column_trajectory(problem, plan, names, params, interrupt, times);
    };
    let plan = plan_at(problem, plan, times);
    let mut rec = Recorder::every(1);
    let mut sens = match params {
        Some(p) => Some(SensitivityRecorder::new(problem, &plan, p)?),
        None => None,
    };
    record(problem, &plan, &mut rec, sens.as_mut(), interrupt)?;
    let rows = (rec.records.iter())
        .map(|r| (r.state.t, idx.iter().map(|&i| r.state.q[i]).collect()))
        .collect();
    let (n, m) = (coords.len(), problem.model.n_constraints());
    let width = 2 * n + m;
    let srows = match &sens {
        Some(s) => (s.times.iter().zip(&s.rows))
            .map(|(&t, row)| {
                let per: Vec<f64> = (0..row.len() / width)
                    .flat_map(|k| idx.iter().map(move |&i| row[k * width + i]))
                    .collect();
                (t, per)
            })
            .collect(),
        None => Vec::new(),
    };
    Ok(((names.iter().map(|s| s.to_string()).collect(), rows), srows))
}

/// The plan of a fit's run: `plan`'s method, every step kept; a method other than
/// generalized-α (whose steps are long, and whose Jacobian comes from differences of runs)
/// also stops at the target `times` inside the span, by its continuous extension — the
/// targets are met at their times, not on a straight line between two steps.
fn plan_at(problem: &Problem, plan: &RunPlan, times: &[f64]) -> RunPlan {
    let mut out = RunPlan::new(plan.method.clone());
    if !by_sensitivities(plan) {
        let (t0, t1) = (problem.t0, problem.t_end);
        let mut at: Vec<f64> = (times.iter().copied())
            .filter(|&t| t >= t0 && t <= t1)
            .collect();
        at.sort_by(f64::total_cmp);
        at.dedup();
        if !at.is_empty() {
            out.output_times = Some(OutputTimes::At(at));
        }
    }
    out
}

/// Whether a fit by `plan` takes its Jacobian from the forward sensitivities of the
/// generalized-α scheme (else from central differences of runs, [`FitProblem::jacobian`]).
fn by_sensitivities(plan: &RunPlan) -> bool {
    plan.method.options().has_sensitivities()
}

/// The relative parameter step of a central difference for `method`: `∛rtol` (between 1e-6
/// and 1e-3) for the error-controlled methods — their runs change by about `rtol` when the
/// steps they choose change, so a difference quotient over `δ` carries `rtol/δ` beside the
/// truncation `δ²` — and 1e-6 for a fixed step (smooth in the parameters).
fn difference_step(method: &Method) -> f64 {
    let o = method.options();
    match o.tolerances() {
        // a method with sensitivities is differentiated by them, not here
        Some((rtol, _)) if !o.has_sensitivities() => rtol.cbrt().clamp(1e-6, 1e-3),
        _ => 1e-6,
    }
}

/// A fit stopped by its interrupt flag (Ctrl-C): not an option's fault, the fit's end.
fn interrupted() -> Error {
    Error::Fit("interrupted before it converged".into())
}

/// A run of `problem` by `plan` seen by `rec` and, when given, the sensitivities `sens`;
/// `Err` when `interrupt` stopped it.
fn record(
    problem: &Problem,
    plan: &RunPlan,
    rec: &mut dyn crate::output::Observer,
    sens: Option<&mut SensitivityRecorder>,
    interrupt: &Interrupt,
) -> Result<(), Error> {
    let mut sim = Simulation::new(problem.clone(), plan)?;
    let mut stop = interrupt.clone();
    match sens {
        Some(s) => sim.run(&mut [rec, s, &mut stop])?,
        None => sim.run(&mut [rec, &mut stop])?,
    };
    if interrupt.raised() {
        return Err(interrupted());
    }
    Ok(())
}

/// [`trajectory`] for targets that are not all coordinates: the columns of the plan's
/// outputs (without the ledger, whose integrals are not functions of the state).
fn column_trajectory(
    problem: &Problem,
    plan: &RunPlan,
    names: &[&str],
    params: Option<&[&str]>,
    interrupt: &Interrupt,
    times: &[f64],
) -> Result<(Rows, Table), Error> {
    let mut run_plan = plan_at(problem, plan, times);
    run_plan.outputs = plan.outputs.clone();
    run_plan.outputs.ledger = false;
    let schema = Columns::new(problem, &run_plan.outputs);
    let available = schema.names();
    let fixed = ["t", "max_constraint_residual"];
    for n in names {
        if fixed.contains(n) || !available.iter().any(|c| c == n) {
            let listed: Vec<&str> = (available.iter().map(String::as_str))
                .filter(|c| !fixed.contains(c))
                .collect();
            return Err(OptionError::UnknownName {
                kind: "column",
                name: n.to_string(),
                message: format!(
                    "no column '{n}' to fit; the trajectory's columns are: {}",
                    listed.join(", ")
                ),
            }
            .into());
        }
    }
    let mut rec = ColumnRecorder::every(1);
    let mut sens = match params {
        Some(p) => Some(SensitivityRecorder::columns(problem, &run_plan, p)?),
        None => None,
    };
    record(problem, &run_plan, &mut rec, sens.as_mut(), interrupt)?;
    let at = |list: &[String], name: &str| list.iter().position(|c| c == name);
    let t = at(rec.names(), "t").unwrap_or(0);
    let idx: Vec<usize> = (names.iter())
        .map(|n| at(rec.names(), n).unwrap_or(0))
        .collect();
    let rows = (rec.rows.iter())
        .map(|r| (r[t], idx.iter().map(|&i| r[i]).collect()))
        .collect();
    let srows = match (&sens, params) {
        (Some(s), Some(params)) => {
            let mut sidx = Vec::new();
            for p in params {
                for n in names {
                    let name = format!("d({n})/d({p})");
                    sidx.push(at(s.names(), &name).ok_or_else(|| {
                        OptionError::invalid(
                            "targets",
                            format!("column '{n}' is not differentiable in '{p}'"),
                        )
                    })?);
                }
            }
            (s.times.iter().zip(&s.rows))
                .map(|(&t, row)| (t, sidx.iter().map(|&i| row[i]).collect()))
                .collect()
        }
        _ => Vec::new(),
    };
    Ok(((names.iter().map(|s| s.to_string()).collect(), rows), srows))
}

/// `f` of the rows linearly interpolated at `t` (which must lie in the run's span).
fn interpolate(
    rows: &[(f64, Vec<f64>)],
    t: f64,
    f: impl Fn(&(f64, Vec<f64>)) -> f64,
) -> Result<f64, Error> {
    let k = rows.partition_point(|r| r.0 < t);
    let out =
        || OptionError::invalid("targets", format!("target time {t} is outside the run")).into();
    if k == rows.len() {
        let last = rows.last().ok_or_else(out)?;
        return match (last.0 - t).abs() <= 1e-12 * (1.0 + t.abs()) {
            true => Ok(f(last)),
            false => Err(out()),
        };
    }
    if rows[k].0 == t || k == 0 {
        return match rows[k].0 == t {
            true => Ok(f(&rows[k])),
            false => Err(out()),
        };
    }
    let (a, b) = (&rows[k - 1], &rows[k]);
    let s = (t - a.0) / (b.0 - a.0);
    Ok((1.0 - s) * f(a) + s * f(b))
}

/// The fit's problem: residuals `r` and their Jacobian at parameter values.
struct FitProblem<'a> {
    problem: &'a Problem,
    plan: &'a RunPlan,
    names: &'a [&'a str],
    targets: &'a [Target],
    interrupt: &'a Interrupt,
}

impl FitProblem<'_> {
    /// `(r, J)` at `p`; `J` only when `jacobian` or when it comes with the run (the
    /// sensitivities of generalized-α).
    fn evaluate(
        &self,
        p: &[f64],
        jacobian: bool,
    ) -> Result<(DVector<f64>, Option<DMatrix<f64>>), Error> {
        if !by_sensitivities(self.plan) {
            let r = self.residual(p)?;
            let jac = match jacobian {
                true => Some(self.jacobian(p)?),
                false => None,
            };
            return Ok((r, jac));
        }
        let (problem, coords) = self.at(p)?;
        let times: Vec<f64> = self.targets.iter().map(|t| t.t).collect();
        let ((_, rows), srows) = trajectory(
            &problem,
            self.plan,
            &coords,
            Some(self.names),
            self.interrupt,
            &times,
        )?;
        let (nt, np, nc) = (self.targets.len(), self.names.len(), coords.len());
        let r = self.residuals(&rows, &coords)?;
        let mut jac = DMatrix::zeros(nt, np);
        for (i, target) in self.targets.iter().enumerate() {
            let c = coords
                .binary_search(&target.coordinate.as_str())
                .expect("listed");
            for j in 0..np {
                jac[(i, j)] = target.weight * interpolate(&srows, target.t, |x| x.1[j * nc + c])?;
            }
        }
        Ok((r, Some(jac)))
    }

    /// The problem at parameter values `p` and the targets' columns, sorted, once each.
    fn at(&self, p: &[f64]) -> Result<(Problem, Vec<&str>), Error> {
        let sets: Vec<(&str, f64)> = self.names.iter().copied().zip(p.iter().copied()).collect();
        let problem = self.problem.with_parameters(&sets)?;
        let mut coords: Vec<&str> = self.targets.iter().map(|t| t.coordinate.as_str()).collect();
        coords.sort();
        coords.dedup();
        Ok((problem, coords))
    }

    /// The weighted residuals `wᵢ (x_{cᵢ}(tᵢ; p) − x̂ᵢ)` of one run at `p`.
    fn residual(&self, p: &[f64]) -> Result<DVector<f64>, Error> {
        let (problem, coords) = self.at(p)?;
        let times: Vec<f64> = self.targets.iter().map(|t| t.t).collect();
        let interrupt = self.interrupt;
        let ((_, rows), _) = trajectory(&problem, self.plan, &coords, None, interrupt, &times)?;
        self.residuals(&rows, &coords)
    }

    /// The weighted residuals of a run's `rows` of the columns `coords` (sorted).
    fn residuals(&self, rows: &Table, coords: &[&str]) -> Result<DVector<f64>, Error> {
        let mut r = DVector::zeros(self.targets.len());
        for (i, target) in self.targets.iter().enumerate() {
            let c = coords
                .binary_search(&target.coordinate.as_str())
                .expect("listed");
            r[i] = target.weight * (interpolate(rows, target.t, |x| x.1[c])? - target.value);
        }
        Ok(r)
    }

    /// `J = ∂r/∂p` by central differences of runs, `(r(p + δⱼeⱼ) − r(p − δⱼeⱼ))/2δⱼ` with
    /// `δⱼ = ε max(|pⱼ|, 10⁻⁸)` ([`difference_step`]): two runs per parameter.
    fn jacobian(&self, p: &[f64]) -> Result<DMatrix<f64>, Error> {
        let eps = difference_step(&self.plan.method);
        let mut jac = DMatrix::zeros(self.targets.len(), p.len());
        for j in 0..p.len() {
            let d = eps * p[j].abs().max(1e-8);
            let mut x = p.to_vec();
            x[j] = p[j] + d;
            let up = self.residual(&x)?;
            x[j] = p[j] - d;
            let down = self.residual(&x)?;
            jac.set_column(j, &((up - down) / (2.0 * d)));
        }
        Ok(jac)
    }
}

impl CostFunction for FitProblem<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, p: &Vec<f64>) -> Result<f64, ArgminError> {
        let (r, _) = self
            .evaluate(p, false)
            .map_err(|e| ArgminError::msg(e.to_string()))?;
        Ok(0.5 * r.norm_squared())
    }
}

/// Levenberg–Marquardt with Marquardt's scaling.
struct Marquardt {
    mu: f64,
    tol: f64,
    initial: f64,
    history: Vec<f64>,
    done: bool,
    /// The residuals and Jacobian at the current point.
    at: Option<(DVector<f64>, DMatrix<f64>)>,
}

type FState = IterState<Vec<f64>, (), (), (), (), f64>;

impl<'a> Solver<FitProblem<'a>, FState> for Marquardt {
    fn name(&self) -> &str {
        "Levenberg–Marquardt"
    }

    fn next_iter(
        &mut self,
        problem: &mut ArgminProblem<FitProblem<'a>>,
        mut state: FState,
    ) -> Result<(FState, Option<KV>), ArgminError> {
        let p = state.take_param().unwrap_or_default();
        let fp = problem.problem.as_ref().expect("the problem is set");
        let msg = |e: Error| ArgminError::msg(e.to_string());
        let (r, jac) = match self.at.take() {
            Some(x) => x,
            None => match fp.evaluate(&p, true).map_err(msg)? {
                (r, Some(jac)) => (r, jac),
                (_, None) => unreachable!("asked for the Jacobian"),
            },
        };
        let cost = 0.5 * r.norm_squared();
        if self.history.is_empty() {
            // a parameter the targets do not see cannot be fitted: say which
            let norms: Vec<f64> = (0..jac.ncols()).map(|j| jac.column(j).norm()).collect();
            let largest = norms.iter().fold(0.0f64, |m, x| m.max(*x));
            if let Some(j) = norms.iter().position(|x| !(*x > 1e-14 * largest)) {
                return Err(msg(OptionError::invalid(
                    "parameters",
                    format!(
                        "parameter '{}' has no influence on the targets (their sensitivities \
                         to it are zero at the start): it cannot be fitted to them",
                        fp.names[j]
                    ),
                )
                .into()));
            }
            self.initial = cost;
            self.history.push(cost);
        }
        let jtj = jac.transpose() * &jac;
        let g = jac.transpose() * &r;
        for _ in 0..30 {
            let mut a = jtj.clone();
            for k in 0..a.nrows() {
                a[(k, k)] += self.mu * jtj[(k, k)].max(1e-300);
            }
            let Some(delta) = a.lu().solve(&(-&g)) else {
                self.mu *= 4.0;
                continue;
            };
            let trial: Vec<f64> = p.iter().zip(delta.iter()).map(|(a, b)| a + b).collect();
            if fp.interrupt.raised() {
                return Err(msg(interrupted()));
            }
            match fp.evaluate(&trial, false) {
                Ok((rt, jt)) if 0.5 * rt.norm_squared() < cost => {
                    let new = 0.5 * rt.norm_squared();
                    self.mu = (self.mu / 3.0).max(1e-12);
                    self.history.push(new);
                    let small = delta.amax()
                        <= self.tol * (1.0 + p.iter().fold(0.0f64, |m, x| m.max(x.abs())));
                    self.done = cost - new <= self.tol * cost
                        || new <= self.tol * self.tol * self.initial
                        || small;
                    // the Jacobian at the accepted point (differences of runs: only now)
                    let jt = match jt {
                        Some(jt) => jt,
                        None if self.done => DMatrix::zeros(rt.len(), trial.len()),
                        None => fp.jacobian(&trial).map_err(msg)?,
                    };
                    self.at = Some((rt, jt));
                    return Ok((state.param(trial).cost(new), None));
                }
                _ => self.mu *= 4.0,
            }
        }
        // no step lowers the cost: a (local) minimum at this precision
        self.done = true;
        self.at = Some((r, jac));
        Ok((state.param(p).cost(cost), None))
    }

    fn terminate(&mut self, _state: &FState) -> TerminationStatus {
        match self.done {
            true => TerminationStatus::Terminated(TerminationReason::SolverConverged),
            false => TerminationStatus::NotTerminated,
        }
    }
}

/// Adjust the parameters `names` of `problem` (starting from their values in it) so that its
/// run by `plan`'s method meets `targets` in the least-squares sense.
pub fn fit(
    problem: &Problem,
    plan: &RunPlan,
    names: &[&str],
    targets: &[Target],
    opts: &FitOptions,
) -> Result<FitReport, Error> {
    if targets.is_empty() || names.is_empty() {
        return Err(
            OptionError::invalid("parameters", "a fit needs parameters and targets").into(),
        );
    }
    if let Some((i, n)) = (names.iter().enumerate()).find(|(i, n)| names[..*i].contains(n)) {
        let message = format!(
            "parameter '{n}' is named twice (as the {} parameter to vary)",
            i + 1
        );
        return Err(OptionError::invalid("parameters", &message).into());
    }
    if opts.max_iterations == 0 {
        let message = "at least 1: a fit runs the mechanism once per iteration";
        return Err(OptionError::invalid("max_iterations", message).into());
    }
    if !(opts.tolerance.is_finite() && opts.tolerance > 0.0 && opts.tolerance < 1.0) {
        let message = format!(
            "{} is not a tolerance: give a number in (0, 1)",
            opts.tolerance
        );
        return Err(OptionError::invalid("tolerance", &message).into());
    }
    let start: Vec<f64> = (names.iter())
        .map(|n| {
            (problem.parameters.iter().find(|(k, _)| k == n))
                .map(|x| x.1)
                .ok_or_else(|| {
                    OptionError::UnknownName {
                        kind: "parameter",
                        name: n.to_string(),
                        message: format!("unknown parameter '{n}'"),
                    }
                    .into()
                })
        })
        .collect::<Result<_, Error>>()?;
    let fp = FitProblem {
        problem,
        plan,
        names,
        targets,
        interrupt: &opts.interrupt,
    };
    let solver = Marquardt {
        mu: 1e-3,
        tol: opts.tolerance,
        initial: 0.0,
        history: Vec::new(),
        done: false,
        at: None,
    };
    let res = Executor::new(fp, solver)
        .configure(|s| s.param(start.clone()).max_iters(opts.max_iterations))
        .run()
        .map_err(|e| Error::Fit(e.to_string()))?;
    let p = res.state.param.clone().unwrap_or(start.clone());
    let solver = res.solver;
    Ok(FitReport {
        start: names.iter().map(|n| n.to_string()).zip(start).collect(),
        parameters: names.iter().map(|n| n.to_string()).zip(p).collect(),
        targets: targets.len(),
        initial_cost: solver.initial,
        cost: *solver.history.last().unwrap_or(&f64::NAN),
        history: solver.history,
        iterations: res.state.iter,
    })
}

/// [`fit`], then a run of the fitted problem by `plan` written into `run.out` as
/// [`run_to_folder`] writes one (`trajectory.csv`, `summary.json`, … — to compare with the
/// data), and the report beside it as `fit.json`. The run's interrupt stops the fit too.
pub fn fit_to_folder(
    problem: &Problem,
    plan: &RunPlan,
    names: &[&str],
    targets: &[Target],
    opts: &FitOptions,
    run: &RunOptions,
) -> Result<(FitReport, RunReport), Error> {
    let opts = FitOptions {
        interrupt: run.interrupt.clone(),
        ..opts.clone()
    };
    let report = fit(problem, plan, names, targets, &opts)?;
    let sets: Vec<(&str, f64)> = (report.parameters.iter())
        .map(|(n, v)| (n.as_str(), *v))
        .collect();
    let fitted = problem.with_parameters(&sets)?;
    let ran = run_to_folder(fitted, plan, run)?;
    let file = run.out.join("fit.json");
    let text = serde_json::to_string_pretty(&report).map_err(std::io::Error::other);
    RunFolder::open(&run.out)
        .and_then(|f| {
            std::fs::write(f.partial().join("fit.json"), text? + "\n")?;
            f.place_one("fit.json")
        })
        .map_err(|e| Error::io(&file, e))?;
    Ok((report, ran))
}
