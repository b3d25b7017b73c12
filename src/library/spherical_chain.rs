//! N connected spherical pendulums in angle coordinates with chart switches: the description,
//! its model and `Problem` (re-exported from [`crate::mechanisms::spherical_chain`], which the
//! mechanism-file reader builds from and which runs nothing), and their run through the shared
//! [`Simulation`] here: the integrator's choice, the records at the output steps, the chart
//! switches made.

pub use crate::mechanisms::spherical_chain::*;

use crate::error::Error;
use crate::output::{Control, Event};
use crate::problem::{GenAlphaOptions, Method, Rk4Options};
use crate::simulation::Simulation;
use std::sync::{Arc, Mutex};

/// Which integrator [`SphericalChain::simulate`] uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Integrator {
    /// Generalized-α with this ρ∞.
    GenAlpha(f64),
    /// Classical explicit Runge–Kutta of order 4.
    Rk4,
}

/// Result of [`SphericalChain::simulate`].
#[derive(Clone, Debug)]
pub struct ChainRun {
    /// Diagnostics at the output steps (the initial state first).
    pub records: Vec<Diagnostics>,
    /// Chart switches made (time, rod index, new chart).
    pub switches: Vec<(f64, usize, Chart)>,
    /// Newton iterations (generalized-α) over the run.
    pub newton_iterations: usize,
}

impl SphericalChain {
    /// Integrate over `t_end − t` with steps `h` through the shared [`Simulation`], recording
    /// every `output_every` steps, switching charts (and restarting the integrator from the
    /// exact Cartesian state) whenever a rod's `sin θ` falls below `switch_below`.
    pub fn simulate(
        &mut self,
        t_end: f64,
        h: f64,
        integrator: Integrator,
        output_every: usize,
    ) -> Result<ChainRun, Error> {
        let method: Method = match integrator {
            // modified Newton (the default) with its acceleration-increment test keeps the
            // order at the default tolerance (docs/maths.md §4, §7)
            Integrator::GenAlpha(rho) => GenAlphaOptions::new(h).rho_inf(rho).into(),
            Integrator::Rk4 => Rk4Options::new(h).into(),
        };
        let mut switches = Vec::new();
        for i in self.normalize() {
            switches.push((self.t, i, self.rods[i].chart));
        }
        let log = Arc::new(Mutex::new(ChartLog {
            charts: self.rods.iter().map(|r| r.chart).collect(),
            switches,
        }));
        let problem = self.problem(t_end, log.clone())?;
        let mut sim = Simulation::new(problem, method)?;
        let mut records = Vec::new();
        let every = output_every.max(1);
        let template = self.clone();
        let mut record = |ev: &Event| {
            if ev.is_output(every) {
                let charts = log.lock().map(|l| l.charts.clone()).unwrap_or_default();
                records.push(template.at(&charts, ev.state).diagnostics());
            }
            Control::Continue
        };
        sim.run(&mut [&mut record])?;
        let (charts, switches) = match log.lock() {
            Ok(l) => (l.charts.clone(), l.switches.clone()),
            Err(_) => (Vec::new(), Vec::new()),
        };
        *self = self.at(&charts, sim.view());
        self.normalize();
        Ok(ChainRun {
            records,
            switches,
            newton_iterations: sim.stats().newton_iterations,
        })
    }
}
