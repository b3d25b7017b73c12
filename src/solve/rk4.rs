//! Classical explicit Runge–Kutta of order 4 for unconstrained (ODE) mechanisms, as the PHYS389 N-pendulum simulator used:
//! `q̇ = v`, `M(q) v̇ = f(t, q, v)` with `f = −r(t, q, v, 0)`, the accelerations from one
//! (dense or sparse) LU of the mass matrix per stage. For comparison with generalized-α; it is
//! only conditionally stable (stiff springs need tiny steps).

use crate::assembly::{self, AssemblyCoefficients, Pattern, Point};
use crate::error::{Error, OptionError, SolveError};
use crate::model::{Model, State, StateView};
use crate::problem::{LinearSolverKind, Rk4Options};
use crate::solve::Stats;
use crate::solve::integrator::{Clock, END_MARGIN, Integrator, StepOutcome};
use crate::solve::linear::LinearSolver;
use std::sync::Arc;

/// An RK4 stepper over an unconstrained [`Model`].
pub struct Rk4 {
    model: Arc<Model>,
    pattern: Pattern,
    lin: LinearSolver,
    h: f64,
    clock: Clock,
    step: usize,
    q: Vec<f64>,
    v: Vec<f64>,
    qdd: Vec<f64>,
    // workspace: stage states and slopes
    qs: Vec<f64>,
    vs: Vec<f64>,
    kq: [Vec<f64>; 4],
    kv: [Vec<f64>; 4],
    res: Vec<f64>,
    values: Vec<f64>,
    zeros: Vec<f64>,
    /// `kv[0]` holds the accelerations of the current state (computed at the end of the last
    /// step, so `qdd` belongs to `(q, v)` and the next step starts from them).
    fresh: bool,
    stats: Stats,
}

impl Rk4 {
    /// Prepare from `state`; the model must have no constraints.
    pub fn new(
        model: impl Into<Arc<Model>>,
        state: &State,
        opts: Rk4Options,
    ) -> Result<Self, Error> {
        let model: Arc<Model> = model.into();
        let h = opts.h;
        if model.n_constraints() > 0 {
            return Err(OptionError::invalid(
                "integrator",
                "RK4 integrates unconstrained (ODE) mechanisms only; use generalized-α",
            )
            .into());
        }
        if !(h > 0.0 && h.is_finite()) {
            return Err(
                OptionError::invalid("h", format!("step size h = {h} must be positive")).into(),
            );
        }
        let n = model.n_coords();
        let pattern = Pattern::new(&model);
        let lin = LinearSolver::new(LinearSolverKind::Auto, &pattern)
            .and_then(|l| match l.is_approximate() {
                true => LinearSolver::new(LinearSolverKind::Sparse, &pattern),
                false => Ok(l),
            })
            .map_err(|s| SolveError::singular(state.t, 0, "", s.detail))?;
        let nnz = pattern.nnz();
        Ok(Rk4 {
            model,
            pattern,
            lin,
            h,
            clock: Clock::new(state.t),
            step: 0,
            q: state.q.clone(),
            v: state.v.clone(),
            qdd: state.qdd.clone(),
            qs: vec![0.0; n],
            vs: vec![0.0; n],
            kq: std::array::from_fn(|_| vec![0.0; n]),
            kv: std::array::from_fn(|_| vec![0.0; n]),
            res: vec![0.0; n],
            values: vec![0.0; nnz],
            zeros: vec![0.0; n],
            fresh: false,
            stats: Stats::default(),
        })
    }

    /// Accelerations at `(t, qs, vs)` into `kv[k]`.
    fn accel(&mut self, t: f64, k: usize, step: usize) -> Result<(), SolveError> {
        let coef = AssemblyCoefficients {
            scale: 1.0,
            mass: 1.0,
            damping: 0.0,
            stiffness: 0.0,
            stiffness_lambda: 0.0,
        };
        let pt = Point {
            t,
            q: &self.qs,
            v: &self.vs,
            a: &self.zeros,
            lambda: &[],
        };
        assembly::residual_and_matrix(
            &self.model,
            &self.pattern,
            &pt,
            &coef,
            &mut self.res,
            &mut self.values,
        );
        self.lin
            .factorize(&self.pattern, &self.values)
            .map_err(|s| SolveError::singular(t, step, "(mass matrix)", s.detail))?;
        self.stats.factorizations += 1;
        for (o, r) in self.kv[k].iter_mut().zip(&self.res) {
            *o = -r;
        }
        self.lin
            .solve(&mut self.kv[k])
            .map_err(|s| SolveError::singular(t, step, "(mass matrix)", s.detail))?;
        if self.kv[k].iter().any(|x| !x.is_finite()) {
            let finite = self.qs.iter().chain(&self.vs).all(|x| x.is_finite());
            let pt = Point {
                t,
                q: &self.qs,
                v: &self.vs,
                a: &self.zeros,
                lambda: &[],
            };
            let detail = match assembly::locate_non_finite(&self.model, &pt).filter(|_| finite) {
                Some(e) => format!(": {e} is not finite at a finite state"),
                None => ": the state diverged; try a smaller step size".into(),
            };
            return Err(SolveError::NonFinite {
                t,
                step,
                what: "accelerations",
                detail,
            });
        }
        Ok(())
    }

    /// One RK4 step.
    fn advance(&mut self) -> Result<(), SolveError> {
        let h = self.h;
        let t = self.clock.at(self.step, h);
        let step = self.step + 1;
        let c = [0.0, 0.5, 0.5, 1.0];
        for k in 0..4 {
            if k == 0 {
                self.qs.copy_from_slice(&self.q);
                self.vs.copy_from_slice(&self.v);
            } else {
                for i in 0..self.q.len() {
                    self.qs[i] = self.q[i] + c[k] * h * self.kq[k - 1][i];
                    self.vs[i] = self.v[i] + c[k] * h * self.kv[k - 1][i];
                }
            }
            self.kq[k].copy_from_slice(&self.vs);
            if k > 0 || !self.fresh {
                self.accel(t + c[k] * h, k, step)?;
            }
        }
        for i in 0..self.q.len() {
            self.q[i] += h / 6.0
                * (self.kq[0][i] + 2.0 * self.kq[1][i] + 2.0 * self.kq[2][i] + self.kq[3][i]);
            self.v[i] += h / 6.0
                * (self.kv[0][i] + 2.0 * self.kv[1][i] + 2.0 * self.kv[2][i] + self.kv[3][i]);
        }
        // the accelerations of the new state: its own q̈, and the next step's first slope
        self.qs.copy_from_slice(&self.q);
        self.vs.copy_from_slice(&self.v);
        self.fresh = false;
        self.accel(t + h, 0, step)?;
        self.fresh = true;
        self.qdd.copy_from_slice(&self.kv[0]);
        self.step = step;
        self.stats.steps = step;
        Ok(())
    }
}

impl Integrator for Rk4 {
    fn method(&self) -> &'static str {
        "rk4"
    }
    fn model(&self) -> &Arc<Model> {
        &self.model
    }
    fn t(&self) -> f64 {
        self.clock.at(self.step, self.h)
    }
    fn h(&self) -> f64 {
        self.h
    }
    fn set_h(&mut self, h: f64) {
        if h != self.h && h > 0.0 && h.is_finite() {
            self.clock.rebase(self.step, self.h);
            self.h = h;
        }
    }
    fn land_on(&mut self, t: f64) {
        let h = t - self.t();
        if h < self.h * (1.0 - END_MARGIN) {
            self.set_h(h);
        }
        self.clock.land(self.step, t);
    }
    fn step(&mut self) -> Result<StepOutcome, SolveError> {
        self.advance().map(|()| StepOutcome::Accepted)
    }
    /// The current state (`q̈` of `(q, v)`; no multipliers).
    fn view(&self) -> StateView<'_> {
        StateView {
            t: self.t(),
            q: &self.q,
            v: &self.v,
            qdd: &self.qdd,
            lambda: &[],
        }
    }
    /// Counters (`factorizations` counts the mass-matrix factorizations).
    fn stats(&self) -> &Stats {
        &self.stats
    }
}
