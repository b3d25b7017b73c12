//! A run that goes on: the one run loop of [`run`](super::run) in spans. [`Running::start`]
//! finds consistent initial values and prepares the integrator; each
//! [`until`](Running::until) steps on to a later time, writing the rows of that span to the
//! sinks it is given. The integrator keeps its whole state between spans (positions,
//! velocities, accelerations, the scheme's auxiliary variables, the step size and the error
//! controller's history), and so do the columns (the ledger's integrals, unwrapped angles) and
//! the sensitivities: a run in `n` spans writes the same rows as one run to the same end time,
//! to round-off (tests/mechanics/continuation.rs).
//!
//! ```
//! use lagrangian::library::pendulum::planar_pendulum;
//! use lagrangian::output::sink::MemorySink;
//! use lagrangian::prelude::*;
//! use lagrangian::run::{running::Running, RunControl};
//! let p = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).guess(&[1.0, 0.0], &[0.0, 0.0]).t_end(0.5);
//! let plan = RunPlan::new(GenAlphaOptions::new(1e-3)).output_every(100);
//! let mut run = Running::start(p, &plan, &RunControl::default())?;
//! let (mut first, mut second) = (MemorySink::default(), MemorySink::default());
//! run.until(0.5, &mut [&mut first])?;
//! run.until(1.0, &mut [&mut second])?; // goes on: rows after t = 0.5 only
//! assert_eq!((first.rows.len(), second.rows.len()), (6, 5)); // t = 0, …, 0.5 and 0.6, …, 1
//! assert!((second.rows[4][0] - 1.0).abs() < 1e-12);
//! assert_eq!(run.simulation().steps(), 1000);
//! # Ok::<(), lagrangian::Error>(())
//! ```

use super::{Ran, RunControl, summarize};
use crate::error::{Error, OptionError};
use crate::output::columns::Columns;
#[cfg(feature = "cli")]
use crate::output::progress::Progress;
use crate::output::sensitivity::SensitivityRecorder;
use crate::output::sink::{TableSink, TableWriter};
use crate::output::summary::Tally;
use crate::output::{Control, Event, Interrupt, Observer};
use crate::simulation::{RunEnd, Simulation};
use crate::solve::{Problem, RunPlan};
use std::time::Instant;

/// A run between its spans: the simulation and what its observers carry from one span to the
/// next. It owns everything (`Send`), so a worker thread or a Python object can hold it.
pub struct Running {
    sim: Simulation,
    /// The table's columns (`None` only while a span runs).
    columns: Option<Columns>,
    tally: Tally,
    sens: Option<SensitivityRecorder>,
    control: RunControl,
    build_seconds: f64,
    /// Spans run so far.
    spans: usize,
    /// The error a span failed with: the run cannot go on from a failed step.
    failed: Option<Error>,
}

/// An observer that does not see the first event of a span that goes on from an earlier one
/// (the state the earlier span ended with, which it has seen).
struct Later<'a> {
    inner: &'a mut dyn Observer,
    skip: bool,
}

impl Observer for Later<'_> {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        if std::mem::take(&mut self.skip) {
            return Ok(Control::Continue);
        }
        self.inner.observe(ev)
    }
    fn wants_work(&self, plan: &crate::problem::RunPlan) -> bool {
        self.inner.wants_work(plan)
    }
}

impl Running {
    /// Find consistent initial values for `problem` and prepare the integrator of `plan`, the
    /// columns of `plan.outputs` and, when `control` names parameters, their sensitivities.
    pub fn start(problem: Problem, plan: &RunPlan, control: &RunControl) -> Result<Self, Error> {
        let start = control.started.unwrap_or_else(Instant::now);
        let sim = Simulation::new(problem, plan)?;
        let build_seconds = start.elapsed().as_secs_f64();
        let columns = Columns::new(sim.problem(), &plan.outputs);
        let params: Vec<&str> = control.sensitivity.iter().map(String::as_str).collect();
        let sens = match params.is_empty() {
            true => None,
            false => Some(SensitivityRecorder::columns(sim.problem(), plan, &params)?),
        };
        Ok(Running {
            sim,
            columns: Some(columns),
            tally: Tally::new(),
            sens,
            control: control.clone(),
            build_seconds,
            spans: 0,
            failed: None,
        })
    }

    /// The column names (`t` first).
    pub fn names(&self) -> &[String] {
        self.columns.as_ref().map_or(&[], |c| c.names())
    }

    /// The simulation (its time, state, counters).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// Whether a span has run (the next one goes on from where it ended).
    pub fn started(&self) -> bool {
        self.spans > 0
    }

    /// Watch `interrupt` from the next span on (a new Ctrl-C handler, another thread's flag).
    pub fn set_interrupt(&mut self, interrupt: Interrupt) {
        self.control.interrupt = interrupt;
    }

    /// Step on to `t_end`, writing the rows of this span to every sink and finishing them:
    /// the first span's rows start with the initial state; a later span's start after the
    /// state the one before ended with. The summary is of the whole run so far (counters,
    /// `max |C|`, the energy since the start), the sensitivities of this span's rows.
    ///
    /// Errors: `t_end` not after the current time (for a later span), not finite, or — the
    /// run failed in an earlier span and cannot go on from a failed step — that span's error
    /// again.
    pub fn until(&mut self, t_end: f64, sinks: &mut [&mut dyn TableSink]) -> Result<Ran, Error> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let t = self.sim.t();
        if self.started() && !(t_end > t) {
            let why = format!(
                "end time {t_end} is not after the run's time {t}: it goes on forward only"
            );
            return Err(OptionError::invalid("t_end", why).into());
        }
        let ran = self.span(t_end, sinks);
        if let Err(e) = &ran {
            self.failed = Some(e.clone());
        }
        ran
    }

    /// One span (see [`until`](Self::until)).
    fn span(&mut self, t_end: f64, sinks: &mut [&mut dyn TableSink]) -> Result<Ran, Error> {
        let later = self.started(); // the first event is the state the last span ended with
        self.spans += 1;
        let columns = (self.columns.take()).expect("the columns are back after every span");
        let names = columns.names().to_vec();
        for s in sinks.iter_mut() {
            s.columns(&names);
        }
        let place = self.control.place.clone().unwrap_or_default();
        let sinks = sinks.iter_mut().map(|s| &mut **s as &mut dyn TableSink);
        let mut table = TableWriter::new(columns, self.sim.plan().output_every)
            .sinks(sinks)
            .at(&place);
        #[cfg(feature = "cli")]
        let mut progress = {
            let show = self.control.progress;
            let steps = ((t_end - self.sim.t()) / self.sim.method().h()).ceil();
            match self.sim.method().is_adaptive() || later {
                true => Progress::over_time(self.sim.t(), t_end, show),
                false => Progress::new(steps as usize, show && steps >= 2000.0),
            }
        };
        let mut watch = self.control.interrupt.clone();
        let mut end = {
            let skip = later;
            let mut table = Later {
                inner: &mut table,
                skip,
            };
            let mut tally = Later {
                inner: &mut self.tally,
                skip,
            };
            let mut observers: Vec<&mut dyn Observer> = vec![&mut table, &mut tally, &mut watch];
            #[cfg(feature = "cli")]
            observers.insert(2, &mut progress); // before the interrupt, as it always was
            let mut sens = self.sens.as_mut().map(|s| Later { inner: s, skip });
            if let Some(s) = &mut sens {
                observers.push(s);
            }
            self.sim.run_until(t_end, &mut observers)
        };
        #[cfg(feature = "cli")]
        progress.finish();
        if end.is_ok() {
            end = table.finish().and(end);
        }
        let ledger = table.ledger();
        self.columns = Some(table.into_columns());
        let end = end?;
        let interrupted = self.control.interrupt.raised() && matches!(end, RunEnd::Stopped { .. });
        let mut summary = summarize(
            &self.sim,
            &end,
            interrupted,
            self.build_seconds,
            &self.control.source,
            ledger,
            &mut self.tally,
        );
        summary.sensitivity = self.control.sensitivity.clone();
        Ok(Ran {
            summary,
            end,
            names,
            sensitivity: self.sens.as_mut().map(SensitivityRecorder::take_rows),
        })
    }
}
