//! Observers: what the run loop calls with the state after every accepted step.
//!
//! An [`Observer`] sees the initial state of a run and then the state after every accepted
//! step, and may stop the run. The in-memory [`Recorder`], the table writer
//! ([`TableWriter`](crate::output::sink::TableWriter): its rows to CSV, `.npy`, Parquet or
//! memory) and progress reporting (`output::progress::Progress`, feature `cli`) are observers;
//! the one run loop is
//! [`Simulation::run`](crate::simulation::Simulation::run).

use crate::error::Error;
use crate::model::StateView;
use crate::output::Record;
use crate::solve::{Problem, RunPlan, Stats};

/// What an observer wants after seeing a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Go on.
    Continue,
    /// End the run after this step (the run ends as stopped, not as failed).
    Stop,
}

/// One observed instant of a run.
#[derive(Clone, Copy, Debug)]
pub struct Event<'a> {
    /// The problem being solved (it can change during a run, see
    /// [`Restart`](crate::solve::Restart)).
    pub problem: &'a Problem,
    /// How it is run: the current method, the rows kept, the columns and formats.
    pub plan: &'a RunPlan,
    /// The state.
    pub state: StateView<'a>,
    /// Accepted steps since the simulation started (0: the initial state).
    pub step: usize,
    /// Whether this is the last step of the run (the end time is reached).
    pub last: bool,
    /// Counters so far.
    pub stats: &'a Stats,
    /// With output times ([`RunPlan::output_times`]): whether this instant is one of them
    /// (`None` without: the every-k-steps rule applies).
    pub requested: Option<bool>,
    /// The state lies between two steps (interpolated at a requested time), not at a step.
    pub interpolated: bool,
    /// The ledger's works `∫ [Q·v, v·∂R/∂v, −∂L/∂t, λᵀC_t] dt` since the previous event,
    /// integrated by the method's continuous extension ([`StepWork`](crate::solve::StepWork));
    /// `None` where the ledger takes the trapezoidal rule (generalized-α, the first event, a
    /// restart).
    pub work: Option<[f64; 4]>,
}

impl Event<'_> {
    /// Whether the output includes this instant: a requested output time when the plan
    /// has [`output_times`](RunPlan::output_times), otherwise every `every`-th step (the
    /// initial and the last state always count).
    pub fn is_output(&self, every: usize) -> bool {
        match self.requested {
            Some(r) => r,
            None => self.step == 0 || self.last || self.step.is_multiple_of(every.max(1)),
        }
    }
}

/// A sink called with the initial state and after every accepted step.
pub trait Observer {
    /// See one state; return [`Control::Stop`] to end the run.
    fn observe(&mut self, event: &Event<'_>) -> Result<Control, Error>;
    /// Whether it keeps the energy ledger of a run by `plan` and so wants its works integrated
    /// by the method's continuous extension ([`Event::work`]); the run computes them only
    /// then.
    fn wants_work(&self, _plan: &RunPlan) -> bool {
        false
    }
}

/// Keeps a [`Record`] of every `every`-th step (and the first and last) in memory.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// Record every `every` steps; 1 keeps all.
    pub every: usize,
    /// The records, in time order.
    pub records: Vec<Record>,
}

impl Recorder {
    /// A recorder keeping every `every`-th step.
    pub fn every(every: usize) -> Self {
        Recorder {
            every: every.max(1),
            records: Vec::new(),
        }
    }
}

impl Observer for Recorder {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        if ev.is_output(self.every) {
            self.records
                .push(Record::new(&ev.problem.model, ev.state.to_state()));
        }
        Ok(Control::Continue)
    }
}

/// Any closure `FnMut(&Event) -> Control` is an observer (e.g. a stop condition).
impl<F: FnMut(&Event<'_>) -> Control> Observer for F {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        Ok(self(ev))
    }
}

/// Stops the run when its flag is raised — by a Ctrl-C / SIGTERM handler (the command line), a
/// GUI button or another thread. The run then ends as [`RunEnd::Stopped`](crate::simulation::RunEnd)
/// at the last completed step.
///
/// ```
/// use lagrangian::output::{Control, Event, Interrupt, Observer};
/// use std::sync::atomic::Ordering;
/// let mut stop = Interrupt::new();
/// let flag = stop.flag();
/// flag.store(true, Ordering::Relaxed);
/// assert!(stop.raised());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Interrupt {
    flag: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Interrupt {
    /// A lowered flag.
    pub fn new() -> Self {
        Self::default()
    }
    /// The flag to raise (shared).
    pub fn flag(&self) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
        self.flag.clone()
    }
    /// Whether the flag was raised.
    pub fn raised(&self) -> bool {
        self.flag.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Observer for Interrupt {
    fn observe(&mut self, _event: &Event<'_>) -> Result<Control, Error> {
        Ok(if self.raised() {
            Control::Stop
        } else {
            Control::Continue
        })
    }
}
