//! Beyond simulation: the exact linearization of a mechanism about a state at rest or in steady
//! motion, and its vibration modes on the constraint manifold.
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
//! About a **steady motion** `(q, v)` ([`Linearization::in_motion`]) the same equations hold with
//! `M, D, K` taken at the moving state: `D = ∂r/∂v` then carries the gyroscopic forces and `K`
//! the centrifugal ones, and neither is symmetrized. The motion is steady in the coordinates
//! chosen when its velocities are constant (`q̈ = 0`) and the coordinates that move are cyclic
//! (`K v = 0`: the linearization is the same all along it) — a spinning top in its Euler angles,
//! a rotor in its angle. The roots of `det(s² M_r + s D_r + K_r) = 0`
//! ([`Linearization::damped_modes`]) are then the motion's own: a top's nutation is the pair
//! `±iω_n`. Constraints must not change along the motion (`∂(C_q v)/∂q = 0`); the report says
//! how far from steady the state is. In coordinates that are not cyclic for the motion (a top
//! given as a body, a conical pendulum in Cartesian coordinates) the motion is steady in a
//! moving frame: [`Symmetry`] finds the rotation, translation or shift that carries it, and the
//! linearization is taken in that frame's co-moving coordinates.
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
mod symmetry;

pub use equilibrium::{Equilibrium, EquilibriumOptions, Stability, project_onto_constraints};
pub use report::ModesReport;
pub use state_space::{OutputMap, StateSpace};
pub use symmetry::Symmetry;

use crate::assembly;
use crate::error::{AnalysisError, Error};
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
    /// Velocities (zero at rest; a steady motion's in [`Linearization::in_motion`]).
    pub velocity: Vec<f64>,
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
    /// In motion: the symmetry the motion is an orbit of, when one was found. When it moves
    /// the frame (`Ξ ≠ 0`), `damping` and `stiffness` are the co-moving ones, `D + 2MΞ` and
    /// `K + DΞ + MΞ²` ([`Symmetry`]).
    pub symmetry: Option<Symmetry>,
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
    AnalysisError::Linearization(what.to_string()).into()
}

impl Linearization {
    /// The linearization of `problem` about the configuration `q` at rest, at `problem.t0`.
    pub fn at_rest(problem: &Problem, q: &[f64]) -> Result<Linearization, Error> {
        Linearization::about(problem, q, &vec![0.0; q.len()])
    }

    /// The linearization of `problem` about the state `(q, v)` of a steady motion, at
    /// `problem.t0`: `M`, `D = ∂r/∂v` (with the gyroscopic forces) and `K` at the moving state.
    /// When a symmetry that moves the frame carries the state along ([`Symmetry::of_motion`]),
    /// in its co-moving coordinates: `D + 2MΞ`, `K + DΞ + MΞ²` (module notes of [`Symmetry`]).
    /// Otherwise refused when a constraint changes along the motion (`∂(C_q v)/∂q ≠ 0`: the
    /// manifold's curvature would enter the linearization); how steady the motion is — its
    /// accelerations and how much the linearization changes along it — is in
    /// [`Linearization::steadiness`].
    ///
    /// ```
    /// use lagrangian::analysis::Linearization;
    /// // a rotor in its angle, spinning at 3 rad/s, on a torsion spring of 4 N·m/rad:
    /// // T = ½ J φ̇², J = 1; steady (no acceleration, nothing depends on φ but the spring)
    /// let text = "Dimension: 2\nPartData: { Scalars: [phi] }\nLagrangian: { T: phi'**2/2 }\n\
    ///             ProblemData: { tend: 1, positions: { phi: 0 }, velocities: { phi: 3 } }\n";
    /// let (problem, _plan) = lagrangian::spec::parse(text, "rotor.yaml")?;
    /// let state = problem.initial_values()?.state;
    /// let lin = Linearization::in_motion(&problem, &state.q, &state.v)?;
    /// assert_eq!(lin.steadiness(), (0.0, 0.0));
    /// let roots = lin.damped_modes()?;       // a free rotor: s = 0 twice
    /// assert!(roots.iter().all(|s| s.omega_n < 1e-12));
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn in_motion(problem: &Problem, q: &[f64], v: &[f64]) -> Result<Linearization, Error> {
        if v.len() != q.len() {
            return Err(singular(&format!(
                "{} velocities for {} positions",
                v.len(),
                q.len()
            )));
        }
        let mut lin = Linearization::about(problem, q, v)?;
        // a search: a state near this one the solver cannot take (a singular configuration)
        // leaves it without a symmetry, and the motion is treated as in its own coordinates
        lin.symmetry = Symmetry::of_motion(problem, q, v).unwrap_or(None);
        if let Some(sym) = lin.moving_frame() {
            // co-moving coordinates: D + 2MΞ, K + DΞ + MΞ²
            let (m, d, xi) = (&lin.mass, &lin.damping, &sym.xi);
            let stiffness = &lin.stiffness + d * xi + m * xi * xi;
            lin.damping = d + m * xi * 2.0;
            lin.stiffness = stiffness;
            return Ok(lin);
        }
        if let Some((row, change)) = lin.constraint_change(problem) {
            let name = problem.model.constraint_row_name(row);
            return Err(singular(&format!(
                "constraint '{name}' changes along the motion (∂(C_q v)/∂q = {change:.3e}) and \
                 no rotation, translation or shift that leaves the mechanism unchanged carries \
                 it along this motion: it is not a steady motion, or not one in these \
                 coordinates (write it in coordinates in which it is steady, as a top in its \
                 Euler angles)"
            )));
        }
        Ok(lin)
    }

    /// `M`, `D`, `K` and `C_q` at `(q, v)` with the state's accelerations and multipliers.
    fn about(problem: &Problem, q: &[f64], v: &[f64]) -> Result<Linearization, Error> {
        let model = &problem.model;
        let (n, m) = (model.n_coords(), model.n_constraints());
        if q.len() != n {
            return Err(singular(&format!(
                "{} positions for {n} coordinates",
                q.len()
            )));
        }
        if n > MAX_COORDINATES {
            return Err(Error::TooLarge(format!(
                "modes are computed with dense matrices: {n} coordinates is above the limit of \
                 {MAX_COORDINATES}"
            )));
        }
        let t = problem.t0;
        let mut state = StateSolver::new(model, LinearSolverKind::Dense);
        let (a, lambda) = state.solve(model, t, q, v)?;
        let (a, lambda) = (a.to_vec(), lambda.to_vec());
        let [_, mass, damping, dr_dq] = assembly::dense_term_blocks(model, t, q, v, &a);
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
            velocity: v.to_vec(),
            mass,
            damping,
            stiffness,
            constraint_jacobian: cq,
            basis,
            symmetry: None,
        })
    }

    /// The constraint row that changes most along the motion and `max |∂(C_q v)/∂q|` relative
    /// to `max |C_q|`, when above 1e-8 (central differences of `C_q` along `v`).
    fn constraint_change(&self, problem: &Problem) -> Option<(usize, f64)> {
        let vmax = self.velocity.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if self.constraint_jacobian.nrows() == 0 || vmax == 0.0 {
            return None;
        }
        let scale = self.q.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        let eps = 1e-6 * scale / vmax;
        let at = |s: f64| {
            let q: Vec<f64> = (self.q.iter().zip(&self.velocity))
                .map(|(q, v)| q + s * eps * v)
                .collect();
            assembly::constraint_jacobian_dense(&problem.model, self.t, &q)
        };
        let change =
            (at(1.0) - at(-1.0)) / (2.0 * eps) * DVector::from_column_slice(&self.velocity);
        let size = self.constraint_jacobian.amax().max(f64::MIN_POSITIVE) * vmax;
        let row = change.iamax();
        let rel = change[row].abs() / size;
        (rel > 1e-8).then_some((row, rel))
    }

    /// How steady the state is: `(max |q̈|, |K v| / (|K| |v|))` — the largest acceleration (0
    /// for a steady motion or an equilibrium) and how much the linearization changes along the
    /// motion (0 when the moving coordinates are cyclic; max norms). `(0, 0)` at rest in
    /// equilibrium. In a moving frame: `(max |q̈ − Ξ v|, defect)`, the acceleration the frame
    /// does not explain and how far its generator is from a symmetry ([`Symmetry::defect`]).
    pub fn steadiness(&self) -> (f64, f64) {
        let v = DVector::from_column_slice(&self.velocity);
        if let Some(sym) = self.moving_frame() {
            // the accelerations the frame's motion does not explain, and how far its
            // generator is from a symmetry
            let a = DVector::from_column_slice(&self.acceleration) - &sym.xi * &v;
            return (a.amax(), sym.defect);
        }
        let amax = self.acceleration.iter().fold(0.0f64, |m, a| m.max(a.abs()));
        let kv = (&self.stiffness * &v).amax();
        let size = self.stiffness.amax() * v.amax();
        (amax, if size > 0.0 { kv / size } else { 0.0 })
    }

    /// The symmetry of a motion steady only in a moving frame (`Ξ ≠ 0`), in whose co-moving
    /// coordinates the matrices are taken; `None` at rest and in cyclic coordinates.
    pub fn moving_frame(&self) -> Option<&Symmetry> {
        self.symmetry.as_ref().filter(|s| s.moves_frame())
    }

    /// Whether the state moves (any velocity nonzero).
    pub fn is_moving(&self) -> bool {
        self.velocity.iter().any(|v| *v != 0.0)
    }

    /// `(M_r, D_r, K_r)`: the matrices on the constraint manifold — symmetrized at rest; as
    /// they are in motion, where `D_r` carries the gyroscopic forces (skew-symmetric) and `K_r`
    /// may be unsymmetric.
    pub fn reduced(&self) -> [DMatrix<f64>; 3] {
        let n = &self.basis;
        let moving = self.is_moving();
        [&self.mass, &self.damping, &self.stiffness].map(|x| {
            let r = n.transpose() * x * n;
            match moving {
                true => r,
                false => (&r + r.transpose()) * 0.5,
            }
        })
    }

    /// The undamped modes, by increasing `ω²` (at rest only: in motion the gyroscopic forces
    /// couple the modes, whose roots [`Linearization::damped_modes`] gives).
    pub fn modes(&self) -> Result<Vec<Mode>, Error> {
        if self.is_moving() {
            return Err(singular(
                "undamped modes are about a state at rest; in motion the roots of \
                 det(s²M + sD + K) = 0 (damped_modes) are the modes",
            ));
        }
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
    /// Zero within rounding: `|s|` below [`zero_root_bound`] of the matrix (a rigid-body or
    /// neutral direction; `re`, `im`, `omega_n` are then 0).
    pub zero: bool,
}

/// How far from zero rounding alone moves a zero root of a matrix with largest entry `scale`
/// (the bound for `n` rows): `√(n ε scale)` — a double zero root (a free coordinate's
/// `ÿ = 0`) splits into `±√δ` under a perturbation `δ` of the matrix, and Schur's backward
/// error is `δ ≈ n ε ‖A‖`.
pub fn zero_root_bound(n: usize, scale: f64) -> f64 {
    4.0 * (n.max(1) as f64 * f64::EPSILON * scale).sqrt()
}

/// The eigenvalues of a real square matrix by the real Schur form, one per complex-conjugate
/// pair (`Im s ≥ 0`) and each real root, by increasing `|s|`; those within
/// [`zero_root_bound`] of zero are zero (`DampedMode::zero`). An empty matrix has none.
pub fn roots(a: DMatrix<f64>) -> Result<Vec<DampedMode>, Error> {
    let n = a.nrows();
    if n == 0 {
        return Ok(Vec::new());
    }
    if a.iter().any(|x| !x.is_finite()) {
        return Err(singular(
            "the matrix of the eigenproblem has entries that are not finite",
        ));
    }
    let scale = a.amax().max(f64::MIN_POSITIVE);
    let tiny = zero_root_bound(n, scale);
    let schur = nalgebra::Schur::try_new(a, f64::EPSILON, 100_000)
        .ok_or_else(|| singular("the damped eigenproblem did not converge"))?;
    let mut modes: Vec<DampedMode> = (schur.complex_eigenvalues().iter())
        .filter(|s| s.im >= -1e-12 * scale)
        .map(|s| {
            let (re, im) = (s.re, s.im.max(0.0));
            let omega_n = re.hypot(im);
            match omega_n <= tiny {
                true => DampedMode {
                    re: 0.0,
                    im: 0.0,
                    omega_n: 0.0,
                    damping_ratio: 0.0,
                    zero: true,
                },
                false => DampedMode {
                    re,
                    im,
                    omega_n,
                    damping_ratio: -re / omega_n,
                    zero: false,
                },
            }
        })
        .collect();
    modes.sort_by(|a, b| a.omega_n.total_cmp(&b.omega_n).then(a.re.total_cmp(&b.re)));
    Ok(modes)
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
        roots(a)
    }
}
