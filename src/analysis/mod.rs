//! Beyond simulation: the exact linearization of a mechanism about a state at rest, and its
//! vibration modes on the constraint manifold.
//!
//! About a configuration `q` at rest (`v = 0`, accelerations `q̈` and multipliers `λ` from the
//! state's acceleration-level equations), a small motion `q + δq` obeys
//!
//! `M δq̈ + D δq̇ + K δq + C_qᵀ δλ = 0`,  `C_q δq = 0`,
//!
//! with `M = ∂r/∂q̈`, `D = ∂r/∂v`, `K = ∂r/∂q + Σ λ_k ∇²C_k` — every one exact, from the same AD
//! kernels the integrator uses (`r` is the Euler–Lagrange residual). With `N` an orthonormal
//! basis of the null space of `C_q` (from an SVD) and `δq = N y`, the motion on the manifold
//! is `M_r ÿ + D_r ẏ + K_r y = 0` with `X_r = Nᵀ X N`. The undamped modes solve
//! `K_r φ = ω² M_r φ` (by a Cholesky factor of `M_r` and a symmetric eigenproblem); a mode with
//! `ω² > 0` oscillates at `ω`, one with `ω² < 0` grows like `e^{√(−ω²) t}` (unstable), and
//! `ω² ≈ 0` is a rigid-body or neutral direction. Each mode's damping ratio is the modal
//! `ζ = φᵀ D_r φ / (2ω)` (exact for proportional damping).
//!
//! ```
//! use lagrangian::analysis::Linearization;
//! // a pendulum of length 2 hanging at rest: ω = √(g/ℓ)
//! let text = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 2 } }\n\
//!             AppliedForces: { Gravity: }\nProblemData: { tend: 1, positions: { A: [0, -2] } }\n";
//! let (problem, _plan) = lagrangian::spec::parse(text, "pendulum.yaml")?;
//! let lin = Linearization::at_rest(&problem, &problem.initial_values()?.state.q)?;
//! let modes = lin.modes()?;
//! assert_eq!(modes.len(), 1);
//! assert!((modes[0].omega - (9.81f64 / 2.0).sqrt()).abs() < 1e-12);
//! # Ok::<(), lagrangian::Error>(())
//! ```

mod equilibrium;
mod report;
mod state_space;

pub use equilibrium::{Equilibrium, EquilibriumOptions, Stability, project_onto_constraints};
pub use report::ModesReport;
pub use state_space::{OutputMap, StateSpace};

use crate::assembly;
use crate::error::{Error, SolveError};
use crate::problem::{LinearSolverKind, Problem};
use crate::solve::{StateSolver, null_space};
use nalgebra::{DMatrix, DVector};

/// The most coordinates a linearization takes: its matrices are dense (`n²` numbers each, the
/// eigenproblem `O(n³)`), so larger models are refused rather than filling the memory.
pub const MAX_COORDINATES: usize = 2000;

/// The linearization of a mechanism about a configuration at rest.
#[derive(Clone, Debug)]
pub struct Linearization {
    /// Time.
    pub t: f64,
    /// The configuration.
    pub q: Vec<f64>,
    /// Accelerations at rest (zero at an equilibrium).
    pub acceleration: Vec<f64>,
    /// Multipliers at rest.
    pub lambda: Vec<f64>,
    /// `M = ∂r/∂q̈` (n × n).
    pub mass: DMatrix<f64>,
    /// `D = ∂r/∂v` (n × n).
    pub damping: DMatrix<f64>,
    /// `K = ∂r/∂q + Σ λ_k ∇²C_k` (n × n).
    pub stiffness: DMatrix<f64>,
    /// `C_q` (m × n).
    pub constraint_jacobian: DMatrix<f64>,
    /// Orthonormal basis of the null space of `C_q` (n × f; f the degrees of freedom).
    pub basis: DMatrix<f64>,
}

/// What a mode does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModeKind {
    /// `ω² > 0`: it oscillates.
    Oscillating,
    /// `ω² ≈ 0`: a rigid-body or neutral direction.
    Zero,
    /// `ω² < 0`: it grows (the configuration is unstable).
    Unstable,
}

/// One undamped mode.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Mode {
    /// `ω²` (1/s²).
    pub omega_squared: f64,
    /// `ω = √ω²` in rad/s (0 for a zero mode; for an unstable one the growth rate `√(−ω²)`).
    pub omega: f64,
    /// `ω / 2π` in Hz (0 unless oscillating).
    pub hz: f64,
    /// What the mode does.
    pub kind: ModeKind,
    /// Modal damping ratio `φᵀ D_r φ / (2ω)` (0 for a zero mode).
    pub damping_ratio: f64,
    /// The shape in the coordinates (`δq = N φ`, mass-normalized: `φᵀ M_r φ = 1`).
    pub shape: Vec<f64>,
}

fn singular(what: &str) -> Error {
    SolveError::Linearization(what.to_string()).into()
}

impl Linearization {
    /// The linearization of `problem` about the configuration `q` at rest, at `problem.t0`.
    pub fn at_rest(problem: &Problem, q: &[f64]) -> Result<Linearization, Error> {
        let model = &problem.model;
        let (n, m) = (model.n_coords(), model.n_constraints());
        if q.len() != n {
            return Err(singular(&format!(
                "{} positions for {n} coordinates",
                q.len()
            )));
        }
        if n > MAX_COORDINATES {
            return Err(SolveError::TooLarge(format!(
                "modes are computed with dense matrices: {n} coordinates is above the limit of \
                 {MAX_COORDINATES}"
            ))
            .into());
        }
        let t = problem.t0;
        let v = vec![0.0; n];
        let mut state = StateSolver::new(model, LinearSolverKind::Dense);
        let (a, lambda) = state.solve(model, t, q, &v)?;
        let (a, lambda) = (a.to_vec(), lambda.to_vec());
        let [_, mass, damping, dr_dq] = assembly::dense_term_blocks(model, t, q, &v, &a);
        let stiffness = dr_dq + assembly::dense_constraint_hessian(model, t, q, &lambda);
        let cq = match m {
            0 => DMatrix::zeros(0, n),
            _ => assembly::constraint_jacobian_dense(model, t, q),
        };
        let basis = null_space(&cq, n);
        Ok(Linearization {
            t,
            q: q.to_vec(),
            acceleration: a,
            lambda,
            mass,
            damping,
            stiffness,
            constraint_jacobian: cq,
            basis,
        })
    }

    /// `(M_r, D_r, K_r)`: the matrices on the constraint manifold (symmetrized).
    pub fn reduced(&self) -> [DMatrix<f64>; 3] {
        let n = &self.basis;
        [&self.mass, &self.damping, &self.stiffness].map(|x| {
            let r = n.transpose() * x * n;
            (&r + r.transpose()) * 0.5
        })
    }

    /// The undamped modes, by increasing `ω²`.
    pub fn modes(&self) -> Result<Vec<Mode>, Error> {
        let [mr, dr, kr] = self.reduced();
        let f = mr.nrows();
        if f == 0 {
            return Ok(Vec::new());
        }
        let chol = mr.clone().cholesky().ok_or_else(|| {
            singular("the mass matrix on the constraint manifold is not positive definite")
        })?;
        let l = chol.l();
        let linv = l
            .clone()
            .try_inverse()
            .ok_or_else(|| singular("the mass matrix is singular"))?;
        let a = &linv * &kr * linv.transpose();
        let eig = nalgebra::SymmetricEigen::new((&a + a.transpose()) * 0.5);
        // ω² below this is a zero mode (relative to the largest, and to the stiffness scale)
        let scale = eig.eigenvalues.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let zero = 1e-9 * scale.max(f64::MIN_POSITIVE);
        let mut order: Vec<usize> = (0..f).collect();
        order.sort_by(|&i, &j| eig.eigenvalues[i].total_cmp(&eig.eigenvalues[j]));
        let modes = order
            .into_iter()
            .map(|i| {
                let w2 = eig.eigenvalues[i];
                let y: DVector<f64> = linv.transpose() * eig.eigenvectors.column(i);
                let kind = match w2 {
                    x if x > zero => ModeKind::Oscillating,
                    x if x < -zero => ModeKind::Unstable,
                    _ => ModeKind::Zero,
                };
                let omega = match kind {
                    ModeKind::Zero => 0.0,
                    _ => w2.abs().sqrt(),
                };
                let modal_damping = (y.transpose() * &dr * &y)[(0, 0)];
                Mode {
                    omega_squared: w2,
                    omega,
                    hz: match kind {
                        ModeKind::Oscillating => omega / (2.0 * std::f64::consts::PI),
                        _ => 0.0,
                    },
                    kind,
                    damping_ratio: match kind {
                        ModeKind::Oscillating => modal_damping / (2.0 * omega),
                        _ => 0.0,
                    },
                    shape: (&self.basis * &y).iter().copied().collect(),
                }
            })
            .collect();
        Ok(modes)
    }
}

/// A root `s` of `det(s² M_r + s D_r + K_r) = 0` with `Im s ≥ 0`: a mode of the damped
/// linearization, `y(t) = Re(φ e^{st})`. The frequency and damping ratio follow MATLAB's `damp`:
/// `ω_n = |s|`, `ζ = −Re s / |s|` (a real negative root has `ζ = 1`, a real positive one `−1`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct DampedMode {
    /// `Re s` (1/s): the decay rate, negative when it decays.
    pub re: f64,
    /// `Im s` (rad/s): the damped frequency `ω_d`.
    pub im: f64,
    /// `ω_n = |s|` (rad/s).
    pub omega_n: f64,
    /// `ζ = −Re s / |s|` (0 for `s = 0`).
    pub damping_ratio: f64,
}

impl Linearization {
    /// The modes with damping: the eigenvalues of the first-order form
    /// `ż = [0 I; −M_r⁻¹K_r −M_r⁻¹D_r] z` (real Schur form), one per complex-conjugate pair and
    /// each real root, by increasing `|s|`.
    pub fn damped_modes(&self) -> Result<Vec<DampedMode>, Error> {
        let [mr, dr, kr] = self.reduced();
        let f = mr.nrows();
        if f == 0 {
            return Ok(Vec::new());
        }
        let minv = mr
            .cholesky()
            .ok_or_else(|| {
                singular("the mass matrix on the constraint manifold is not positive definite")
            })?
            .inverse();
        let mut a = DMatrix::zeros(2 * f, 2 * f);
        a.view_mut((0, f), (f, f)).fill_with_identity();
        a.view_mut((f, 0), (f, f)).copy_from(&(-&minv * kr));
        a.view_mut((f, f), (f, f)).copy_from(&(-&minv * dr));
        let scale = a.amax().max(f64::MIN_POSITIVE);
        let schur = nalgebra::Schur::try_new(a, f64::EPSILON, 100_000)
            .ok_or_else(|| singular("the damped eigenproblem did not converge"))?;
        let mut modes: Vec<DampedMode> = (schur.complex_eigenvalues().iter())
            .filter(|s| s.im >= -1e-12 * scale)
            .map(|s| {
                let (re, im) = (s.re, s.im.max(0.0));
                let omega_n = re.hypot(im);
                DampedMode {
                    re,
                    im,
                    omega_n,
                    damping_ratio: match omega_n > 1e-12 * scale.sqrt() {
                        true => -re / omega_n,
                        false => 0.0,
                    },
                }
            })
            .collect();
        modes.sort_by(|a, b| a.omega_n.total_cmp(&b.omega_n).then(a.re.total_cmp(&b.re)));
        Ok(modes)
    }
}
