//! Accelerations and multipliers of a state: the acceleration-level (index-1) equations
//!
//! ```text
//! [ M    C_qᵀ ] [ q̈ ]   [ −r(t, q, v, 0) ]
//! [ C_q  0    ] [ λ  ] = [ −γ(t, q, v)    ]
//! ```
//!
//! (`r` the Euler–Lagrange residual at zero acceleration, `γ = C_qq(v, v) + 2C_qt v + C_tt`).
//! Consistent initialization solves them once; the output solves them at each written row, so
//! the multipliers and reaction forces it reports are those of the state `(q, v)` — free of the
//! start-up oscillation of index-3 multipliers and of their roundoff, which grows as `1/h²`.

use crate::assembly::{self, Pattern, Point};
use crate::error::{Error, InitError, SolveError};
use crate::model::Model;
use crate::problem::LinearSolverKind;
use crate::solve::linear::LinearSolver;
use crate::solve::schur::{self, Schur};

/// The error of a singular acceleration-level matrix.
fn singular<E>(_: E) -> InitError {
    InitError::SingularAugmented {
        redundant: String::new(),
        culprit: String::new(),
    }
}

/// Solves the acceleration-level equations of a model's states, keeping the sparsity pattern,
/// the symbolic analysis and the workspace between calls.
///
/// ```
/// use lagrangian::library::pendulum::planar_pendulum;
/// use lagrangian::solve::StateSolver;
/// use lagrangian::problem::LinearSolverKind;
/// // a pendulum (m = ℓ = 1, g = 9.81) passing the bottom at speed 2: rod force m(g + v²/ℓ)
/// let model = planar_pendulum(1.0, 1.0, 9.81);
/// let mut s = StateSolver::new(&model, LinearSolverKind::Auto);
/// let (qdd, lambda) = s.solve(&model, 0.0, &[0.0, -1.0], &[2.0, 0.0])?;
/// assert!((qdd[1] - 4.0).abs() < 1e-12);               // centripetal v²/ℓ, upwards
/// assert!((lambda[0] - (9.81 + 4.0)).abs() < 1e-12);  // C = ½(|x|² − ℓ²): λ = tension/ℓ
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub struct StateSolver {
    pattern: Pattern,
    kind: LinearSolverKind,
    lin: Option<LinearSolver>,
    values: Vec<f64>,
    res: Vec<f64>,
    x: Vec<f64>,
    gamma: Vec<f64>,
    zeros: Vec<f64>,
    /// `M` is the same in every state and there are no constraints: the matrix is `M` alone,
    /// factorized on the first solve and reused ([`Model::constant_mass`]).
    constant: bool,
    /// The factorization (or `inverse_diagonal`) of the constant `M` is ready.
    ready: bool,
    /// The reciprocals of the diagonal of the last matrix `solve_diagonal` solved with (empty
    /// when it was not diagonal).
    inverse_diagonal: Vec<f64>,
    /// With a constant `M` and no constraints: the forces at rest of the groups whose forces
    /// at rest never change (point masses' weights), summed on the first solve, and the other
    /// groups ([`assembly::forces_at_rest`]).
    at_rest: Option<(Vec<f64>, Vec<usize>)>,
    /// Matrices factorized (or divided by, when diagonal) so far.
    factorized: usize,
    /// The group that solves the model's `M` alone, without a matrix ([`Model::articulated`]:
    /// a tree of bodies by articulated bodies, `O(n)`), and the coordinates of the last solve.
    articulated: Option<(usize, Vec<f64>)>,
    /// A small constrained model of constant `M`: states by the Schur complement
    /// (`solve/schur.rs`), set up after the first full solve; `schur_last`: the last solve
    /// went that way (so [`solve_again`](Self::solve_again) does).
    pub(super) schur: Option<Schur>,
    schur_possible: bool,
    pub(super) schur_last: bool,
}

impl StateSolver {
    /// A solver for the states of `model`.
    pub fn new(model: &Model, kind: LinearSolverKind) -> Self {
        let articulated = model.articulated();
        let pattern = match articulated {
            Some(_) => Pattern::empty(model),
            None => Pattern::new(model),
        };
        let (n, m) = (model.n_coords(), model.n_constraints());
        StateSolver {
            values: vec![0.0; pattern.nnz()],
            pattern,
            kind,
            lin: None,
            res: vec![0.0; n + m],
            x: vec![0.0; n + m],
            gamma: vec![0.0; m],
            zeros: vec![0.0; n.max(m)],
            constant: m == 0 && model.constant_mass(),
            ready: false,
            inverse_diagonal: Vec::new(),
            at_rest: None,
            factorized: 0,
            articulated: articulated.map(|g| (g, vec![0.0; n])),
            schur: None,
            schur_possible: articulated.is_none()
                && matches!(kind, LinearSolverKind::Auto)
                && m > 0
                && m <= schur::MOST_CONSTRAINTS
                && n <= schur::MOST_COORDS
                && model.constant_mass(),
            schur_last: false,
        }
    }

    /// `(q̈, λ)` of the state `(t, q, v)`. A singular matrix (a singular mass matrix on the
    /// constraint manifold, redundant constraints) or non-finite forces are errors.
    pub fn solve(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(&[f64], &[f64]), Error> {
        let (n, m) = (model.n_coords(), model.n_constraints());
        if self.articulated.is_some() {
            return self.solve_articulated(model, t, q, v);
        }
        if self.schur.is_some() && self.solve_by_schur(model, t, q, v)? {
            return Ok((&self.x[..n], &self.x[n..n + m]));
        }
        let reuse = self.ready;
        if reuse && !self.inverse_diagonal.is_empty() {
            let mut x = std::mem::take(&mut self.x);
            let finite = self.point_mass_accelerations(model, t, q, v, &mut x[..n]);
            self.x = x;
            return match finite {
                Some(true) => Ok((&self.x[..n], &[])),
                _ => Err(InitError::NonFinite { what: "the forces" }.into()),
            };
        }
        if reuse {
            // the forces alone: M was factorized on the first call
            self.rest_forces(model, t, q, v);
        } else {
            self.assemble(model, t, q, Some(v));
        }
        self.right_hand_side(model, t, q, v)?;
        if reuse {
            self.solve_factorized()?;
        } else {
            self.factorize_solve()?;
            self.ready = self.constant;
            if self.schur_possible && self.schur.is_none() {
                // a constant M, symmetric positive definite in this first matrix: the Schur
                // path from now on
                self.schur = Schur::new(&self.pattern, &self.values, n);
                self.schur_possible = false;
            }
        }
        Ok((&self.x[..n], &self.x[n..n + m]))
    }

    /// `q̈ = −M⁻¹ r(t, q, v, 0)` into `qdd` (`n` entries) for a model of point masses without
    /// constraints (a constant diagonal `M`) once [`solve`](Self::solve) has seen its matrix:
    /// `Some(false)` when the accelerations are not finite, `None` off that path. What an
    /// explicit method's stage calls, so the accelerations go straight into its slope.
    pub fn point_mass_accelerations(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
        qdd: &mut [f64],
    ) -> Option<bool> {
        if !self.ready || self.inverse_diagonal.is_empty() {
            return None;
        }
        let n = model.n_coords();
        self.rest_forces(model, t, q, v);
        let mut finite = true;
        let xs = qdd.iter_mut().zip(&self.res[..n]);
        for ((x, r), d) in xs.zip(&self.inverse_diagonal) {
            *x = -r * d;
            finite &= x.is_finite();
        }
        Some(finite)
    }

    /// The terms' forces at rest `r(t, q, v, 0)` into `res` (no constraint forces), the groups
    /// whose forces at rest never change summed on the first call
    /// ([`assembly::forces_at_rest`]).
    fn rest_forces(&mut self, model: &Model, t: f64, q: &[f64], v: &[f64]) {
        let pt = Point {
            t,
            q,
            v,
            a: &self.zeros[..model.n_coords()],
            lambda: &[],
        };
        let (constant, varying) = self
            .at_rest
            .get_or_insert_with(|| assembly::forces_constant_at_rest(model, &pt));
        assembly::forces_at_rest(model, &pt, constant, varying, &mut self.res);
    }

    /// `x = [−r; −γ]` from the forces in `res` and `γ` at `(t, q, v)`; an error when not finite.
    fn right_hand_side(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), Error> {
        assembly::constraint_gamma(model, t, q, v, &mut self.gamma);
        self.negated_right_hand_side(model.n_coords())
    }

    /// `x = [−r; −γ]` from the forces in `res` and `γ` in `gamma`; an error when not finite.
    fn negated_right_hand_side(&mut self, n: usize) -> Result<(), Error> {
        for (x, r) in self.x.iter_mut().zip(&self.res[..n]) {
            *x = -r;
        }
        for (x, g) in self.x[n..].iter_mut().zip(&self.gamma) {
            *x = -g;
        }
        if self.x.iter().any(|x| !x.is_finite()) {
            return Err(InitError::NonFinite { what: "the forces" }.into());
        }
        Ok(())
    }

    /// `(q̈, λ)` by the Schur complement of the constant `M` (`solve/schur.rs`) into
    /// `x`: the forces at rest (the constant groups summed once), `C_q` straight into the
    /// complement's dense rows and `γ` in one pass over the constraints. `false` when its `S`
    /// is singular (the caller then solves the full matrix, which names the cause).
    fn solve_by_schur(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<bool, Error> {
        let n = model.n_coords();
        if self.schur.is_none() {
            return Ok(false);
        }
        self.rest_forces(model, t, q, v);
        if let Some(schur) = self.schur.as_mut() {
            let rows = schur.rows_mut();
            assembly::constraint_rows_and_gamma(model, (t, q, v), rows, &mut self.gamma);
        }
        self.negated_right_hand_side(n)?;
        let prepared = (self.schur.as_mut()).is_some_and(|s| s.factorize().is_ok());
        if prepared {
            self.solve_matrix(true)?;
        }
        Ok(prepared)
    }

    /// Project `v` onto the velocity constraints at `(t, q)`: the `M`-orthogonal correction
    /// `Δv` with `[M C_qᵀ; C_q 0] [Δv; μ] = [0; −(C_q v + C_t)]` (what error-controlled
    /// generalized-α applies after each step, so a step-size change does not meet the
    /// velocity drift of index 3; docs/maths.md §14).
    pub fn project_velocity(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &mut [f64],
    ) -> Result<(), Error> {
        let (n, m) = (model.n_coords(), model.n_constraints());
        if m == 0 {
            return Ok(());
        }
        let schur = self.matrix_at(model, t, q, Some(v));
        // C_t into the constraint rows, then C_q v from the matrix's constraint rows
        assembly::constraint_time_derivative(model, t, q, &mut self.gamma);
        self.x.fill(0.0);
        for (x, ct) in self.x[n..].iter_mut().zip(&self.gamma) {
            *x = -ct;
        }
        match (schur, &self.schur) {
            (true, Some(s)) => s.subtract_rows(v, &mut self.x[n..]),
            _ => self.subtract_constraint_rows(n, v),
        }
        self.solve_matrix(schur)?;
        for (vi, dv) in v.iter_mut().zip(&self.x[..n]) {
            *vi += dv;
        }
        Ok(())
    }

    /// Move `q` onto the position constraints `C(t, q) = 0` by Newton's method with the
    /// `M`-orthogonal correction `[M C_qᵀ; C_q 0] [Δq; μ] = [0; −C]` (what the output between
    /// steps applies to interpolated positions; docs/maths.md §14), until the correction is
    /// below `10⁻¹³ (1 + |q|∞)`. Returns the iterations; an error when 8 do not converge.
    ///
    /// ```
    /// use lagrangian::library::pendulum::planar_pendulum;
    /// use lagrangian::solve::StateSolver;
    /// use lagrangian::problem::LinearSolverKind;
    /// // a pendulum bob 1 % off its circle of radius 1 returns to it along the rod
    /// let model = planar_pendulum(1.0, 1.0, 9.81);
    /// let mut s = StateSolver::new(&model, LinearSolverKind::Auto);
    /// let mut q = [0.606, -0.808];
    /// s.project_position(&model, 0.0, &mut q)?;
    /// assert!((q[0] - 0.6).abs() < 1e-14 && (q[1] + 0.8).abs() < 1e-14);
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn project_position(
        &mut self,
        model: &Model,
        t: f64,
        q: &mut [f64],
    ) -> Result<usize, Error> {
        let (n, m) = (model.n_coords(), model.n_constraints());
        if m == 0 {
            return Ok(0);
        }
        for it in 1..=8 {
            // the Schur complement's rows come with `C` (into `res[n..]`); the full matrix
            // without it
            let schur = self.matrix_at(model, t, q, None);
            match schur {
                true => self.gamma[..m].copy_from_slice(&self.res[n..n + m]),
                false => assembly::constraint_values(model, t, q, &mut self.gamma),
            }
            if self.gamma.iter().any(|c| !c.is_finite()) {
                return Err(SolveError::Projection {
                    t,
                    detail: "met a non-finite constraint value".into(),
                }
                .into());
            }
            self.x[..n].fill(0.0);
            for (x, c) in self.x[n..].iter_mut().zip(&self.gamma) {
                *x = -c;
            }
            self.solve_matrix(schur)?;
            let scale = 1.0 + q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            let mut step = 0.0f64;
            for (qi, dq) in q.iter_mut().zip(&self.x[..n]) {
                *qi += dq;
                step = step.max(dq.abs());
            }
            if step <= 1e-13 * scale {
                return Ok(it);
            }
        }
        Err(SolveError::Projection {
            t,
            detail: "did not converge in 8 Newton iterations".into(),
        }
        .into())
    }

    /// Project `q` onto the position constraints and then `v` onto the velocity constraints at
    /// `t` ([`project_position`](Self::project_position),
    /// [`project_velocity`](Self::project_velocity)): what the explicit methods do after every
    /// step. Returns the matrices factorized.
    pub fn project_state(
        &mut self,
        model: &Model,
        t: f64,
        q: &mut [f64],
        v: &mut [f64],
    ) -> Result<usize, SolveError> {
        let before = self.factorized;
        self.project_position(model, t, q)
            .and_then(|_| self.project_velocity(model, t, q, v))
            .map_err(|e| match e {
                Error::Solve(s) => s,
                other => SolveError::Projection {
                    t,
                    detail: format!("failed: {other}"),
                },
            })?;
        Ok(self.factorized - before)
    }

    /// Project `x` `M`-orthogonally onto the null space of `C_q` at the state of the last
    /// [`project_velocity`](Self::project_velocity) call, reusing its factorization:
    /// `[M C_qᵀ; C_q 0] [Δ; μ] = [0; −C_q x]`, `x ← x + Δ` (no-op without constraints).
    pub fn project_tangent(&mut self, model: &Model, x: &mut [f64]) -> Result<(), Error> {
        let n = model.n_coords();
        let schur = self.schur_last && self.schur.is_some();
        if (self.lin.is_none() && !schur) || model.n_constraints() == 0 {
            return Ok(());
        }
        self.x.fill(0.0);
        if schur && let Some(s) = &mut self.schur {
            // the matrix of the last solve, by its Schur complement (which holds its `C_q`)
            s.subtract_rows(x, &mut self.x[n..]);
            s.solve(&mut self.x);
        } else {
            self.subtract_constraint_rows(n, x);
            if let Some(lin) = &mut self.lin {
                lin.solve(&mut self.x)
                    .map_err(|_| InitError::SingularAugmented {
                        redundant: String::new(),
                        culprit: String::new(),
                    })?;
            }
        }
        for (xi, d) in x.iter_mut().zip(&self.x[..n]) {
            *xi += d;
        }
        Ok(())
    }

    /// Solve `[M C_qᵀ; C_q 0] x = b` in place (`x` holds `b`, `n + m` entries) with the matrix
    /// of the last [`solve`](Self::solve): the Taylor-series method's system at every order of
    /// a state's series.
    pub fn solve_again(&mut self, model: &Model, x: &mut [f64]) -> Result<(), Error> {
        if let Some((g, q)) = &self.articulated {
            let n = model.n_coords();
            return model
                .solve_articulated(*g, q, &mut x[..n])
                .map_err(|detail| InitError::SingularMass { detail }.into());
        }
        if self.schur_last
            && let Some(schur) = &mut self.schur
        {
            schur.solve(x);
            return Ok(());
        }
        self.x.copy_from_slice(x);
        self.solve_factorized()?;
        x.copy_from_slice(&self.x);
        Ok(())
    }

    /// `q̈ = M⁻¹(−r(t, q, v, 0))` by the group that solves `M` alone (no constraints), its own
    /// bias and gravity inside its recursion ([`Model::articulated_accelerations`]).
    fn solve_articulated(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(&[f64], &[f64]), Error> {
        let n = model.n_coords();
        let pt = Point {
            t,
            q,
            v,
            a: &self.zeros[..n],
            lambda: &[],
        };
        let Some((g, last)) = &mut self.articulated else {
            unreachable!("called on the articulated path only")
        };
        last.copy_from_slice(q);
        model.forces_on_articulated(*g, &pt, &mut self.x[..n]);
        if self.x[..n].iter().any(|x| !x.is_finite()) {
            return Err(InitError::NonFinite { what: "the forces" }.into());
        }
        model
            .articulated_accelerations(*g, q, v, &mut self.x[..n])
            .map_err(|detail| InitError::SingularMass { detail })?;
        if self.x[..n].iter().any(|x| !x.is_finite()) {
            return Err(InitError::NonFinite { what: "the forces" }.into());
        }
        Ok((&self.x[..n], &self.x[n..]))
    }

    /// `x[n + k] −= (C_q y)_k` from the constraint rows of the assembled matrix.
    fn subtract_constraint_rows(&mut self, n: usize, y: &[f64]) {
        for (j, yj) in y.iter().enumerate() {
            for s in self.pattern.col_ptr[j]..self.pattern.col_ptr[j + 1] {
                let row = self.pattern.row_idx[s];
                if row >= n {
                    self.x[row] -= self.values[s] * yj;
                }
            }
        }
    }

    /// The matrix `[M C_qᵀ; C_q 0]` at `(t, q, v)` for a projection: by the Schur complement
    /// of a constant `M` when that path is set up and `S` is regular (`true`: only
    /// `C_q` written into its dense rows, `S` factorized), else assembled whole into `values`
    /// (`false`).
    fn matrix_at(&mut self, model: &Model, t: f64, q: &[f64], v: Option<&[f64]>) -> bool {
        if let Some(schur) = &mut self.schur {
            let c = &mut self.res[model.n_coords()..];
            assembly::constraint_rows(model, (t, q), schur.rows_mut(), c);
            if schur.factorize().is_ok() {
                return true;
            }
        }
        self.assemble(model, t, q, v);
        false
    }

    /// Solve for `x` in place with the matrix of [`matrix_at`](Self::matrix_at).
    fn solve_matrix(&mut self, schur: bool) -> Result<(), Error> {
        match (schur, &mut self.schur) {
            (true, Some(s)) => {
                s.solve(&mut self.x);
                self.factorized += 1;
                self.schur_last = true;
                Ok(())
            }
            _ => self.factorize_solve(),
        }
    }

    /// `[M C_qᵀ; C_q 0]` at `(t, q, v)` into `values` (the forces into `res`).
    /// (`v = 0` when `None`.)
    fn assemble(&mut self, model: &Model, t: f64, q: &[f64], v: Option<&[f64]>) {
        let v = v.unwrap_or(&self.zeros[..model.n_coords()]);
        assembly::augmented_matrix(
            model,
            &self.pattern,
            (t, q, v),
            &self.zeros,
            &mut self.res,
            &mut self.values,
        );
    }

    /// Whether the assembled matrix has no nonzero entry off its diagonal.
    fn is_diagonal(&self) -> bool {
        (0..self.pattern.dim).all(|j| {
            (self.pattern.col_ptr[j]..self.pattern.col_ptr[j + 1])
                .all(|s| self.pattern.row_idx[s] == j || self.values[s] == 0.0)
        })
    }

    /// How many matrices the solver has factorized (a diagonal one counts: it is divided by);
    /// a model of constant mass without constraints has its one factorized once.
    pub fn factorizations(&self) -> usize {
        self.factorized
    }

    /// Factorize `values` and solve for `x` in place (the solver is built on first use).
    fn factorize_solve(&mut self) -> Result<(), Error> {
        self.factorized += 1;
        self.schur_last = false;
        if self.lin.is_none() {
            self.lin = Some(LinearSolver::new(self.kind, &self.pattern).map_err(singular)?);
        }
        // the diagonal approximation is exact only for a diagonal matrix (point masses, no
        // constraints); otherwise the state's accelerations need the LU, for good
        if self.lin.as_ref().is_some_and(LinearSolver::is_approximate) && !self.is_diagonal() {
            self.lin =
                Some(LinearSolver::new(LinearSolverKind::Sparse, &self.pattern).map_err(singular)?);
        }
        if self.solve_diagonal() {
            return Ok(());
        }
        if let Some(lin) = &mut self.lin {
            lin.factorize(&self.pattern, &self.values)
                .map_err(singular)?;
            lin.solve(&mut self.x).map_err(singular)?;
        }
        Ok(())
    }

    /// Solve for `x` in place with the matrix factorized last (the diagonal, when it was one).
    fn solve_factorized(&mut self) -> Result<(), Error> {
        if !self.inverse_diagonal.is_empty() {
            for (x, d) in self.x.iter_mut().zip(&self.inverse_diagonal) {
                *x *= d;
            }
            return Ok(());
        }
        let lin = self.lin.as_mut().expect("a factorized matrix");
        lin.solve(&mut self.x).map_err(singular)?;
        Ok(())
    }

    /// `x ← x / diag` (by the reciprocals, kept) when the assembled matrix is diagonal with a
    /// nonzero diagonal whose reciprocals are finite (point masses without constraints: no
    /// factorization); `false` otherwise.
    fn solve_diagonal(&mut self) -> bool {
        self.inverse_diagonal.clear();
        if !self.is_diagonal() {
            return false;
        }
        let diagonal = |j: usize| {
            (self.pattern.col_ptr[j]..self.pattern.col_ptr[j + 1])
                .find(|&s| self.pattern.row_idx[s] == j)
                .map_or(0.0, |s| self.values[s])
        };
        let regular = |d: f64| d != 0.0 && d.is_finite() && (1.0 / d).is_finite();
        if (0..self.pattern.dim).any(|j| !regular(diagonal(j))) {
            return false;
        }
        let mut kept = std::mem::take(&mut self.inverse_diagonal);
        kept.extend((0..self.pattern.dim).map(|j| 1.0 / diagonal(j)));
        for (x, d) in self.x.iter_mut().zip(&kept) {
            *x *= d;
        }
        self.inverse_diagonal = kept;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Point masses' weights, which no state changes, are summed on the first solve and added
    /// to the other forces at every later one: the accelerations equal a fresh solver's (which
    /// assembles every group), and non-finite forces are still refused.
    #[test]
    fn weights_that_never_change_are_summed_once() {
        use crate::model::elements::{AnchoredSpringKernel, PointMassKernel};
        let mut b = Model::builder(4);
        for (i, (m, g)) in [(2.0, -9.81), (0.7, 3.0)].into_iter().enumerate() {
            b.add_term_kernel(
                &[2 * i, 2 * i + 1],
                PointMassKernel {
                    mass: m,
                    gravity: [0.5, g],
                },
            );
        }
        b.add_term_kernel(
            &[0, 1],
            AnchoredSpringKernel::new([0.0, 1.0], 40.0, 0.8, 0.3),
        );
        b.add_term_kernel(
            &[2, 3],
            AnchoredSpringKernel::new([1.0, 0.0], 15.0, 0.2, 0.0),
        );
        let model = b.build().unwrap();
        let mut s = StateSolver::new(&model, LinearSolverKind::Auto);
        for _ in 0..2 {
            s.solve(&model, 0.0, &[0.1, 0.2, 0.3, 0.4], &[0.0; 4])
                .unwrap();
        }
        let (constant, varying) = s.at_rest.clone().expect("summed on the first reuse");
        assert_eq!(varying, vec![1], "the springs' group");
        for (x, y) in constant.iter().zip([-1.0, 19.62, -0.35, -2.1]) {
            assert!((x - y).abs() < 1e-14, "{constant:?}");
        }
        for (q, v) in [
            ([0.3, -0.9, 1.4, 0.2], [1.0, -2.0, 0.5, 0.0]),
            ([2.0, 1.0, -0.5, 0.3], [0.0; 4]),
        ] {
            let got = s.solve(&model, 0.5, &q, &v).unwrap().0.to_vec();
            let mut fresh = StateSolver::new(&model, LinearSolverKind::Auto);
            let want = fresh.solve(&model, 0.5, &q, &v).unwrap().0;
            for (x, y) in got.iter().zip(want) {
                assert!((x - y).abs() <= 1e-15 * y.abs(), "{got:?} {want:?}");
            }
        }
        assert!(
            s.solve(&model, 0.5, &[f64::NAN, 0.0, 0.0, 0.0], &[0.0; 4])
                .is_err()
        );
    }
}
