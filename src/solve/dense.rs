//! Output between steps: the state at a requested time inside an accepted step
//! (docs/maths.md §14).
//!
//! Over the step `[t₀, t₁]` of size `h`, with `θ = (t − t₀)/h`, positions and velocities are
//! the cubic Hermite interpolants of their end values and derivatives,
//!
//! ```text
//! q(θ) = h₀₀ q₀ + h₁₀ h v₀ + h₀₁ q₁ + h₁₁ h v₁
//! v(θ) = h₀₀ v₀ + h₁₀ h q̈₀ + h₀₁ v₁ + h₁₁ h q̈₁
//! h₀₀ = 2θ³ − 3θ² + 1,  h₁₀ = θ³ − 2θ² + θ,  h₀₁ = −2θ³ + 3θ²,  h₁₁ = θ³ − θ²,
//! ```
//!
//! accurate to `O(h⁴)` and `O(h⁴)` in the smooth solution — below the scheme's own local
//! error `O(h³)`, so interpolated rows are as accurate as the steps around them. The result is
//! then made consistent: `q` is projected onto `C(t, q) = 0`, `v` onto `C_q v + C_t = 0`
//! (both `M`-orthogonally), and `q̈, λ` are those of `(t, q, v)`
//! ([`StateSolver`]). A row between steps thus satisfies the constraints to round-off like a
//! row at a step.

use crate::error::{Error, SolveError};
use crate::model::{Model, State, StateView};
use crate::solve::{Integrator, StateSolver};
use std::sync::Arc;

/// Interpolates inside the last step: remembers the state at the step's start, and produces
/// consistent states at times inside it. Allocates only when the model's size changes.
#[derive(Default)]
pub struct DenseOutput {
    start: State,
    out: State,
    solver: Option<(Arc<Model>, StateSolver)>,
}

impl DenseOutput {
    /// Nothing remembered yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Remember `s` as the start of the next step.
    pub fn save(&mut self, s: StateView<'_>) {
        self.start.t = s.t;
        self.start.q.clone_from_slice_or_resize(s.q);
        self.start.v.clone_from_slice_or_resize(s.v);
        self.start.qdd.clone_from_slice_or_resize(s.qdd);
    }

    /// The last state made by [`at`](Self::at).
    pub fn state(&self) -> StateView<'_> {
        self.out.view()
    }

    /// The time remembered by [`save`](Self::save).
    pub fn start_time(&self) -> f64 {
        self.start.t
    }

    /// The consistent state at `t` inside the step from the remembered start to `end`, of
    /// `model` (the model of both).
    ///
    /// ```
    /// use lagrangian::prelude::*;
    /// use lagrangian::library::pendulum::planar_pendulum;
    /// use lagrangian::solve::DenseOutput;
    /// // a pendulum step of 0.05 s; halfway the interpolated bob is on its circle
    /// let model = Arc::new(planar_pendulum(1.0, 1.0, 9.81));
    /// let init = consistent_initial_values(&model, &[1.0, 0.0], &[0.0, 0.0], &InitOptions::default())?;
    /// let mut g = GenAlpha::new(model.clone(), &init.state, GenAlphaOptions::new(0.05))?;
    /// let mut dense = DenseOutput::new();
    /// dense.save(g.view());
    /// g.step()?;
    /// let s = dense.at(&model, 0.025, g.view())?;
    /// let r = (s.q[0] * s.q[0] + s.q[1] * s.q[1]).sqrt();
    /// assert!((r - 1.0).abs() < 1e-14 && (s.q[0] * s.v[0] + s.q[1] * s.v[1]).abs() < 1e-13);
    /// assert!((s.q[1] + 0.5 * 9.81 * 0.025f64.powi(2)).abs() < 1e-6); // free fall from rest
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn at(
        &mut self,
        model: &Arc<Model>,
        t: f64,
        end: StateView<'_>,
    ) -> Result<StateView<'_>, Error> {
        self.hermite(t, end);
        self.consistent(model, t)
    }

    /// The consistent state at `t` inside `integrator`'s last accepted step: from the method's
    /// own continuous extension where it has one ([`Integrator::interpolate`]; DOP853's is of
    /// order 7), from the cubic Hermite interpolant otherwise, then projected as in
    /// [`at`](Self::at).
    pub fn at_integrator(
        &mut self,
        model: &Arc<Model>,
        t: f64,
        integrator: &mut dyn Integrator,
    ) -> Result<StateView<'_>, Error> {
        let n = integrator.view().q.len();
        self.out.q.resize(n, 0.0);
        self.out.v.resize(n, 0.0);
        if integrator.interpolate(t, &mut self.out.q, &mut self.out.v)? {
            self.out.t = t;
        } else {
            self.hermite(t, integrator.view());
        }
        self.consistent(model, t)
    }

    /// `q`, `v` at `t` from the cubic Hermite interpolant between the start and `end`.
    fn hermite(&mut self, t: f64, end: StateView<'_>) {
        let h = end.t - self.start.t;
        let theta = if h > 0.0 {
            ((t - self.start.t) / h).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let (t2, t3) = (theta * theta, theta * theta * theta);
        let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
        let h10 = (t3 - 2.0 * t2 + theta) * h;
        let h01 = -2.0 * t3 + 3.0 * t2;
        let h11 = (t3 - t2) * h;
        let n = end.q.len();
        let s = &self.start;
        self.out.t = t;
        self.out.q.resize(n, 0.0);
        self.out.v.resize(n, 0.0);
        for i in 0..n {
            self.out.q[i] = h00 * s.q[i] + h10 * s.v[i] + h01 * end.q[i] + h11 * end.v[i];
            self.out.v[i] = h00 * s.v[i] + h10 * s.qdd[i] + h01 * end.v[i] + h11 * end.qdd[i];
        }
    }

    /// Project the interpolated `q`, `v` onto the constraints at `t`; `q̈`, `λ` of the result.
    fn consistent(&mut self, model: &Arc<Model>, t: f64) -> Result<StateView<'_>, Error> {
        let fresh = !matches!(&self.solver, Some((m, _)) if Arc::ptr_eq(m, model));
        if fresh {
            let kind = crate::problem::LinearSolverKind::Auto;
            self.solver = Some((model.clone(), StateSolver::new(model, kind)));
        }
        let Some((_, solver)) = &mut self.solver else {
            unreachable!("set above")
        };
        let fail = |e: Error| -> Error {
            match e {
                Error::Solve(SolveError::Projection { .. }) => e,
                other => SolveError::Projection {
                    t,
                    detail: format!("failed: {other}"),
                }
                .into(),
            }
        };
        solver
            .project_position(model, t, &mut self.out.q)
            .map_err(fail)?;
        solver
            .project_velocity(model, t, &self.out.q, &mut self.out.v)
            .map_err(fail)?;
        let (qdd, lambda) = solver
            .solve(model, t, &self.out.q, &self.out.v)
            .map_err(fail)?;
        self.out.qdd.clone_from_slice_or_resize(qdd);
        self.out.lambda.clone_from_slice_or_resize(lambda);
        Ok(self.out.view())
    }
}

/// `clone_from` for a vector from a slice, reusing its storage.
trait CopyFrom {
    fn clone_from_slice_or_resize(&mut self, s: &[f64]);
}

impl CopyFrom for Vec<f64> {
    fn clone_from_slice_or_resize(&mut self, s: &[f64]) {
        self.resize(s.len(), 0.0);
        self.copy_from_slice(s);
    }
}
