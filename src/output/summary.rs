//! The summary of a run: one typed, versioned record shared by every kind of mechanism, written
//! as `summary.json`.

use crate::assembly;
use crate::error::Error;
use crate::model::StateView;
use crate::output::columns::MomentaWork;
use crate::output::ledger::LedgerTotals;
use crate::output::observe::{Control, Event, Observer};
use crate::problem::{Outputs, Work};
use crate::solve::{InitReport, Method, Problem, RunPlan, Stats};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the summary layout; raised when a field changes meaning or disappears.
pub const SUMMARY_FORMAT: u32 = 1;

/// What a run did and how: settings, sizes, counters, timings, conservation figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// [`SUMMARY_FORMAT`].
    pub format: u32,
    /// The tool and its version (`lagrangian 0.1.0`).
    pub tool: String,
    /// The problem's title.
    pub title: String,
    /// The input file, if any.
    pub source: Option<String>,
    /// The method's name (`generalized-alpha`, `rk4`).
    pub integrator: String,
    /// The method and every option it ran with.
    pub method: Method,
    /// Step size.
    pub h: f64,
    /// Start time.
    pub t0: f64,
    /// End time reached.
    pub t_end: f64,
    /// Time at which an observer stopped the run early, if it did.
    pub stopped_at: Option<f64>,
    /// Whether the run was interrupted (Ctrl-C, SIGTERM) rather than completed.
    #[serde(default)]
    pub interrupted: bool,
    /// Number of coordinates `n`.
    pub coordinates: usize,
    /// Number of constraint rows `m`.
    pub constraints: usize,
    /// Degrees of freedom `n − rank C_q` at the initial point (when the run found initial
    /// values).
    pub dof: Option<usize>,
    /// Named parameters of the problem.
    pub parameters: BTreeMap<String, f64>,
    /// Counters (steps, Newton iterations, factorizations, restarts, `solve_seconds`, …).
    #[serde(flatten)]
    pub stats: Stats,
    /// Seconds to build the model, find consistent initial values and prepare the integrator.
    pub build_seconds: f64,
    /// `max |C|` over every step of the run.
    pub max_constraint_residual: f64,
    /// Energy function `v·∂L/∂v − L` at the start.
    pub energy_start: f64,
    /// … at the end.
    pub energy_end: f64,
    /// `energy_end − energy_start`: physical change and integration error together (the
    /// ledger separates them).
    pub energy_drift: f64,
    /// Where the energy went: work of forces, drives and time dependence, dissipation, and the
    /// balance error `E(t) − E(0) − W + D` (when the run kept a ledger).
    pub ledger: Option<LedgerTotals>,
    /// Total linear momentum at the start (if the geometry defines momenta).
    pub momentum_start: Option<[f64; 3]>,
    /// … at the end.
    pub momentum_end: Option<[f64; 3]>,
    /// Total angular momentum about the origin at the start.
    pub angular_momentum_start: Option<[f64; 3]>,
    /// … at the end.
    pub angular_momentum_end: Option<[f64; 3]>,
    /// Keep every `output_every`-th step.
    pub output_every: usize,
    /// Or rows at these times, interpolated between steps (`{"every": Δt}` or
    /// `{"at": [t, …]}`); absent when the rows are steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_times: Option<crate::problem::OutputTimes>,
    /// The column groups and formats written.
    pub outputs: Outputs,
    /// Settings changed from the problem's source (command-line options, `--set`).
    pub overrides: Vec<String>,
    /// The parameters whose sensitivities the run wrote to `sensitivity.csv` (none if empty).
    #[serde(default)]
    pub sensitivity: Vec<String>,
    /// Settings that were read but had no effect.
    pub notes: Vec<String>,
    /// Changes of method during the run (DOP853 to Radau IIA where the problem turned out
    /// stiff); `method` is the last one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub switches: Vec<crate::solve::MethodSwitch>,
}

/// An observer that tallies what the summary needs: the first state, and `max |C|` over every
/// step (no allocation per step).
#[derive(Default)]
pub struct Tally {
    /// Time, energy function, linear and angular momentum of the first state.
    first: Option<(f64, Figures)>,
    /// `max |C|` so far.
    pub max_constraint: f64,
    c: Vec<f64>,
    /// Momenta workspace, kept for the summary.
    momenta: MomentaWork,
}

impl Tally {
    /// An empty tally.
    pub fn new() -> Self {
        Tally::default()
    }
}

impl Observer for Tally {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        let model = &ev.problem.model;
        self.c.resize(model.n_constraints(), 0.0);
        assembly::constraint_values(model, ev.state.t, ev.state.q, &mut self.c);
        let c = self.c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        self.max_constraint = self
            .max_constraint
            .max(if c.is_nan() { f64::INFINITY } else { c });
        if self.first.is_none() {
            let f = figures(ev.problem, &mut self.momenta, ev.state);
            self.first = Some((ev.state.t, f));
        }
        Ok(Control::Continue)
    }
}

/// What a summary is made from besides the tally.
pub struct RunFacts<'a> {
    /// The problem at the end of the run (after any restarts).
    pub problem: &'a Problem,
    /// The plan run (its method the last one used, after any switches).
    pub plan: &'a RunPlan,
    /// The initialization report, if the run found initial values.
    pub init: Option<&'a InitReport>,
    /// Counters.
    pub stats: &'a Stats,
    /// Build seconds.
    pub build_seconds: f64,
    /// Time at which an observer stopped the run, if it did.
    pub stopped_at: Option<f64>,
    /// Whether the stop was an interruption (Ctrl-C, SIGTERM).
    pub interrupted: bool,
    /// The input file, if any.
    pub source: Option<String>,
    /// The final state.
    pub last: StateView<'a>,
    /// The energy ledger at the end, if the run kept one.
    pub ledger: Option<LedgerTotals>,
}

/// Energy function, linear and angular momentum of a state.
type Figures = (f64, [f64; 3], [f64; 3]);

fn figures(p: &Problem, m: &mut MomentaWork, s: StateView<'_>) -> Figures {
    let [_, _, e] = assembly::energies(&p.model, s.t, s.q, s.v);
    let (lin, ang) = m.momenta(p, s);
    (e, lin, ang)
}

impl Summary {
    /// The summary of a finished run.
    pub fn new(facts: &RunFacts<'_>, tally: &mut Tally) -> Self {
        let p = facts.problem;
        let with_momenta = !matches!(p.geometry.momenta, crate::model::geometry::Momenta::None);
        let first = tally.first.map(|x| x.1);
        let last = Some(figures(p, &mut tally.momenta, facts.last));
        let (e0, e1) = (
            first.map_or(f64::NAN, |x| x.0),
            last.map_or(f64::NAN, |x| x.0),
        );
        let mom = |x: Option<Figures>, k: usize| {
            x.filter(|_| with_momenta)
                .map(|x| if k == 0 { x.1 } else { x.2 })
        };
        Summary {
            format: SUMMARY_FORMAT,
            tool: format!("lagrangian {}", env!("CARGO_PKG_VERSION")),
            title: p.title.clone(),
            source: facts.source.clone(),
            integrator: facts.plan.method.name().to_string(),
            method: facts.plan.method.clone(),
            h: facts.plan.method.h(),
            t0: tally.first.map_or(p.t0, |x| x.0),
            t_end: facts.last.t,
            stopped_at: facts.stopped_at,
            interrupted: facts.interrupted,
            coordinates: p.model.n_coords(),
            constraints: p.model.n_constraints(),
            dof: facts.init.map(|r| r.dof),
            parameters: p.parameters.iter().cloned().collect(),
            stats: facts.stats.clone(),
            build_seconds: facts.build_seconds,
            max_constraint_residual: tally.max_constraint,
            energy_start: e0,
            energy_end: e1,
            energy_drift: e1 - e0,
            momentum_start: mom(first, 0),
            momentum_end: mom(last, 0),
            // on a line there is no rotation
            angular_momentum_start: mom(first, 1).filter(|_| p.geometry.dimension >= 2),
            angular_momentum_end: mom(last, 1).filter(|_| p.geometry.dimension >= 2),
            ledger: facts.ledger,
            output_every: facts.plan.output_every,
            output_times: facts.plan.output_times.clone(),
            outputs: facts.plan.outputs.clone(),
            overrides: p.overrides.clone(),
            sensitivity: Vec::new(),
            notes: p.notes.clone(),
            switches: Vec::new(),
        }
    }
}

/// The terminal text of a run (what `lagrangian run` prints).
impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let s = self;
        let count = |n: usize, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            n => format!("{n} {many}"),
        };
        let dof = match s.dof {
            Some(d) => count(d, "degree of freedom", "degrees of freedom"),
            None => "? degrees of freedom".to_string(),
        };
        writeln!(
            f,
            "{} — {}, {}, {dof}",
            s.title,
            count(s.coordinates, "coordinate", "coordinates"),
            count(s.constraints, "constraint", "constraints"),
        )?;
        let options = s.method.options();
        let method = options.describe(s.stats.order);
        let n = s.stats.steps;
        let steps = format!("{n} step{}", if n == 1 { "" } else { "s" });
        let steps = match options.tolerances() {
            Some((rtol, atol)) if options.rejects_steps() => format!(
                "{steps} under error control (rtol {rtol:.0e}, atol {atol:.0e}; {} rejected)",
                s.stats.rejected_steps
            ),
            Some((rtol, atol)) => {
                format!("{steps} under error control (rtol {rtol:.0e}, atol {atol:.0e})")
            }
            None => format!("{steps} of h = {:.3e} s", s.h),
        };
        writeln!(f, "  t = {} … {} s, {steps}, {method}", s.t0, s.t_end)?;
        let work = match options.work() {
            Work::Accelerations => format!(
                "{} evaluations of the accelerations",
                s.stats.residual_evaluations
            ),
            Work::SeriesResiduals => format!(
                "{} evaluations of the residual on series",
                s.stats.residual_evaluations
            ),
            Work::NewtonIterations => format!("{} Newton iterations", s.stats.newton_iterations),
        };
        writeln!(
            f,
            "  {work}, {} factorizations; build {:.3} s, solve {:.3} s",
            s.stats.factorizations, s.build_seconds, s.stats.solve_seconds
        )?;
        write!(
            f,
            "  energy {:.6} → {:.6} (drift {:.3e}); max |C| {:.2e}",
            s.energy_start, s.energy_end, s.energy_drift, s.max_constraint_residual
        )?;
        if let Some(l) = &s.ledger {
            let mut parts = Vec::new();
            for (name, w) in [
                ("forces", l.work_forces),
                ("drives", l.work_drives),
                ("time-dependent L", l.work_time),
            ] {
                if w != 0.0 {
                    parts.push(format!("work of {name} {w:.6}"));
                }
            }
            if l.dissipated != 0.0 {
                parts.push(format!("dissipated {:.6}", l.dissipated));
            }
            if !parts.is_empty() {
                write!(f, "\n  ledger: {}", parts.join(", "))?;
            }
            write!(f, "\n  energy balance error {:.3e}", l.balance_error)?;
        }
        if let (Some(a), Some(b)) = (s.angular_momentum_start, s.angular_momentum_end) {
            write!(f, "\n  angular momentum Lz {:.6} → {:.6}", a[2], b[2])?;
        } else if let (Some(a), Some(b)) = (s.momentum_start, s.momentum_end) {
            write!(f, "\n  momentum Px {:.6} → {:.6}", a[0], b[0])?;
        }
        for w in &s.switches {
            write!(
                f,
                "\n  from t = {:.6} on {} instead of {} ({})",
                w.t, w.to, w.from, w.reason
            )?;
        }
        if s.stats.restarts > 0 {
            write!(f, "\n  {} restarts (chart switches)", s.stats.restarts)?;
        }
        match (s.stopped_at, s.interrupted) {
            (Some(t), true) => write!(f, "\n  interrupted at t = {t}")?,
            (Some(t), false) => write!(f, "\n  stopped by an observer at t = {t}")?,
            _ => {}
        }
        for n in &s.notes {
            write!(f, "\n  note: {n}")?;
        }
        Ok(())
    }
}
