//! The chain as a [`Problem`]: its bobs, momenta and per-pendulum quantities, and chart
//! switches as restart events of the shared run loop. Builds the problem, runs nothing (the
//! mechanism-file reader takes it from here; `SphericalChain::simulate` in
//! [`crate::library::spherical_chain`] runs it).

use super::*;
use crate::model::StateView;
use crate::model::geometry::{
    Affine, CustomPoint, Geometry, Link, LinkKind, Momenta, NamedPoint, PointKind, PointMap,
    Quantities,
};
use crate::problem::{Problem, Restart};
use std::sync::{Arc, Mutex};

impl SphericalChain {
    /// The chain in its current charts as a [`Problem`] over `[t, t_end]`: the model, the
    /// current state as guesses, the bobs `P1 … PN` as points (with velocities), Cartesian
    /// momenta, and a chart switch (see [`normalize`](Self::normalize)) as a restart event
    /// whenever a rod's `sin θ` falls below `switch_below`. Switches are logged in `log`.
    pub fn problem(&self, t_end: f64, log: Arc<Mutex<ChartLog>>) -> Result<Problem, Error> {
        // the model first: it refuses a chain too large for memory before anything is spent
        let model = self.model()?;
        let (q, v) = self.vectors();
        let mut g = Geometry::new(3);
        // the support, and a rod from it to the first bob and from each bob to the next
        let support = PointMap::Affine(Affine::fixed([0.0; 3]));
        g.points
            .push(NamedPoint::new("O", PointKind::Fixed, support));
        for k in 0..self.rods.len() {
            let ends = match k {
                0 => ["O".to_string(), "P1".to_string()],
                _ => [format!("P{k}"), format!("P{}", k + 1)],
            };
            g.links.push(Link {
                name: format!("rod{}", k + 1),
                kind: LinkKind::Bar,
                ends,
                constraint: None,
            });
        }
        // one copy of the chain shared by every bob's point (a copy each would be n² rods)
        let shared = Arc::new(self.clone());
        for k in 0..self.rods.len() {
            let chain = Arc::clone(&shared);
            let bob = move |q: &[f64], v: &[f64], _t: f64| {
                let mut c = SphericalChain::clone(&chain);
                c.set_vectors(q, v);
                let (p, pd) = c.bob(k);
                ([p.x, p.y, p.z], [pd.x, pd.y, pd.z])
            };
            let map = PointMap::Custom(CustomPoint(Arc::new(bob)));
            g.points.push(NamedPoint::new(
                format!("P{}", k + 1),
                PointKind::Derived,
                map,
            ));
        }
        g.quantities = Some(self.quantities());
        let chain = self.clone();
        g.momenta = Momenta::Custom(Arc::new(move |q: &[f64], v: &[f64], _t: f64| {
            let mut c = chain.clone();
            c.set_vectors(q, v);
            let d = c.diagnostics();
            (d.momentum, d.angular_momentum)
        }));
        Ok(Problem::new(model)
            .title(format!("{} spherical pendulums", self.rods.len()))
            .guess(&q, &v)
            .t0(self.t)
            .t_end(t_end)
            .parameter("g", self.g)
            .geometry(g)
            .restart(ChartSwitch {
                chain: self.clone(),
                log,
            }))
    }

    /// Each pendulum's chart (`chart1`: 1 z-polar, 0 x-polar), linear momentum (`p1.x … |p1|`),
    /// angular momentum about the support (`L1.x … |L1|`) and kinetic, potential and mechanical
    /// energy (`KE1`, `PE1`, `ME1`), for the output group `quantities` (see [`RodFigures`]).
    fn quantities(&self) -> Quantities {
        let mut names = Vec::new();
        for i in 1..=self.rods.len() {
            names.push(format!("chart{i}"));
            for v in ["p", "L"] {
                names.extend(["x", "y", "z"].map(|c| format!("{v}{i}.{c}")));
                names.push(format!("|{v}{i}|"));
            }
            names.extend(["KE", "PE", "ME"].map(|e| format!("{e}{i}")));
        }
        let chain = self.clone();
        let eval = move |q: &[f64], v: &[f64], _t: f64, out: &mut Vec<f64>| {
            let mut c = chain.clone();
            c.set_vectors(q, v);
            let d = c.diagnostics();
            let norm = |x: &[f64; 3]| (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
            for (r, f) in c.rods.iter().zip(&d.rods) {
                out.push(f64::from(u8::from(r.chart == Chart::ZPolar)));
                for x in [&f.momentum, &f.angular_momentum] {
                    out.extend_from_slice(x);
                    out.push(norm(x));
                }
                out.extend([f.kinetic, f.potential, f.kinetic + f.potential]);
            }
        };
        Quantities {
            names,
            eval: Arc::new(eval),
        }
    }

    /// Position and velocity of bob `k` (0-based).
    fn bob(&self, k: usize) -> (Vector3<f64>, Vector3<f64>) {
        let (mut p, mut pd) = (Vector3::zeros(), Vector3::zeros());
        for i in 0..=k {
            let (e, ed, l, ld) = self.rod_state(i);
            p += e * l;
            pd += e * ld + ed * l;
        }
        (p, pd)
    }

    /// The chain at state `(t, q, v)` of a problem built in the charts of `charts`.
    pub(crate) fn at(&self, charts: &[Chart], s: StateView<'_>) -> SphericalChain {
        let mut c = self.clone();
        for (r, &ch) in c.rods.iter_mut().zip(charts) {
            r.chart = ch;
        }
        c.t = s.t;
        c.set_vectors(s.q, s.v);
        c
    }
}

/// The charts in use and the switches made during a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChartLog {
    /// Current chart of every rod.
    pub charts: Vec<Chart>,
    /// Switches made: time, rod index, new chart.
    pub switches: Vec<(f64, usize, Chart)>,
}

/// The chart switch as a restart event of the shared run loop.
struct ChartSwitch {
    chain: SphericalChain,
    log: Arc<Mutex<ChartLog>>,
}

impl Restart for ChartSwitch {
    fn check(&self, s: StateView<'_>) -> Result<Option<Problem>, Error> {
        // θ of each rod is its first coordinate; no allocation unless a switch is due
        let mut o = 0;
        let mut due = false;
        for r in &self.chain.rods {
            due |= s.q[o].sin() < self.chain.switch_below;
            o += r.ncoords();
        }
        if !due {
            return Ok(None);
        }
        let charts: Vec<Chart> = self.chain.rods.iter().map(|r| r.chart).collect();
        let mut c = self.chain.at(&charts, s);
        let switched = c.normalize();
        if let Ok(mut log) = self.log.lock() {
            for &i in &switched {
                log.switches.push((s.t, i, c.rods[i].chart));
            }
            log.charts = c.rods.iter().map(|r| r.chart).collect();
        }
        // the run loop sets the new problem's time span
        c.problem(s.t, self.log.clone()).map(Some)
    }
}
