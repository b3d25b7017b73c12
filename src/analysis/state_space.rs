//! A state-space model for control: the linearization about a configuration at rest or a steady
//! motion ([`Linearization`]) in minimal coordinates on the constraint manifold, with named inputs
//! (parameters that enter the forces) and named outputs (columns of the results).
//!
//! With `δq = N y` (`N` the orthonormal null-space basis of `C_q`), `x = (y, ẏ)`, inputs `u`
//! and outputs `z`:
//!
//! `ẋ = A x + B u + e`, `z = C x + D u`, `A = [0 I; −M_r⁻¹K_r −M_r⁻¹D_r]`,
//! `B = [0; −M_r⁻¹ Nᵀ ∂r/∂u]`, `C = [∂h/∂q N  ∂h/∂v N]`, `D = ∂h/∂u`,
//!
//! `e = [0; Nᵀ q̈₀]` the drift of a configuration at rest that is not an equilibrium (zero at
//! an equilibrium; about a steady motion zero, the motion's steadiness being
//! [`Linearization::in_motion`]'s to check),
//! `M_r, D_r, K_r = Nᵀ(M, D, K)N` as the linearization gives them (not symmetrized: gyroscopic
//! and circulatory forces stay), `r` the Euler–Lagrange residual and `z = h(q, v; u)`. The
//! derivatives in `u` are central differences of problems rebuilt with the parameter moved by
//! `10⁻⁶ (1 + |u|)` (as the column sensitivities are), those of `h` central differences in the
//! state; `A` is exact.
//!
//! ```
//! use lagrangian::analysis::StateSpace;
//! // a pendulum (m = 2, ℓ = 0.5) hanging at rest, pushed sideways by a force u on its bob:
//! // along the arc y, m ÿ = −(m g/ℓ) y + u
//! let text = "Dimension: 2\nPhysicalParams: { u: 0 }\nPartData: { Fixed: { O: [0, 0] }, \
//!             Particles: { A: 2 }, Bars: { OA: 0.5 } }\nAppliedForces: { Gravity: , \
//!             Forces: { A: [u, 0] } }\nProblemData: { tend: 1, positions: { A: [0, -0.5] } }\n";
//! let (problem, _plan) = lagrangian::spec::parse(text, "pendulum.yaml")?;
//! let q = problem.initial_values()?.state.q;
//! let x = |p: &lagrangian::problem::Problem, q: &[f64], _v: &[f64]| Ok(vec![q[0]]);
//! let ss = StateSpace::at_rest(&problem, &q, &["u"], &["A.x".into()], &x)?;
//! assert!((ss.a[(1, 0)] + 9.81 / 0.5).abs() < 1e-12);          // −g/ℓ
//! assert!(((&ss.c * &ss.b)[(0, 0)]).abs() < 1e-9);              // z = x: CB = 0 …
//! assert!(((&ss.c * &ss.a * &ss.b)[(0, 0)] - 0.5).abs() < 1e-8); // … CAB = 1/m
//! # Ok::<(), lagrangian::Error>(())
//! ```

use super::Linearization;
use crate::assembly;
use crate::error::{AnalysisError, Error, OptionError};
use crate::problem::Problem;
use nalgebra::{DMatrix, DVector};

/// Outputs `h(q, v)` of a problem (its columns, by name, in order).
pub type OutputMap<'a> = dyn Fn(&Problem, &[f64], &[f64]) -> Result<Vec<f64>, Error> + 'a;

/// `ẋ = A x + B u + e`, `z = C x + D u` about a configuration at rest or a steady motion.
#[derive(Clone, Debug, serde::Serialize)]
pub struct StateSpace {
    /// Time of the linearization.
    pub t: f64,
    /// The configuration.
    pub q: Vec<f64>,
    /// The velocities (zero at rest).
    pub v: Vec<f64>,
    /// `N` (n × f): `δq = N y`, the state `x = (y, ẏ)`.
    #[serde(serialize_with = "rows")]
    pub basis: DMatrix<f64>,
    /// The input parameters.
    pub inputs: Vec<String>,
    /// The output columns.
    pub outputs: Vec<String>,
    /// `A` (2f × 2f).
    #[serde(serialize_with = "rows")]
    pub a: DMatrix<f64>,
    /// `e` (2f): the drift, `[0; Nᵀ q̈₀]` at rest (zero at an equilibrium and about a steady
    /// motion). A linearization about a configuration that is not an equilibrium describes
    /// motions that start to move away from it at once.
    pub e: Vec<f64>,
    /// `B` (2f × inputs).
    #[serde(serialize_with = "rows")]
    pub b: DMatrix<f64>,
    /// `C` (outputs × 2f).
    #[serde(serialize_with = "rows")]
    pub c: DMatrix<f64>,
    /// `D` (outputs × inputs).
    #[serde(serialize_with = "rows")]
    pub d: DMatrix<f64>,
}

/// A matrix as JSON rows.
fn rows<S: serde::Serializer>(m: &DMatrix<f64>, s: S) -> Result<S::Ok, S::Error> {
    let r: Vec<Vec<f64>> = (0..m.nrows())
        .map(|i| m.row(i).iter().copied().collect())
        .collect();
    serde::Serialize::serialize(&r, s)
}

fn bad(m: String) -> Error {
    AnalysisError::Linearization(m).into()
}

impl StateSpace {
    /// The state-space model of `problem` about `q` at rest (at `problem.t0`), with the
    /// parameters `inputs` as inputs and the outputs `h` named `outputs`.
    pub fn at_rest(
        problem: &Problem,
        q: &[f64],
        inputs: &[&str],
        outputs: &[String],
        h: &OutputMap<'_>,
    ) -> Result<StateSpace, Error> {
        StateSpace::about(
            problem,
            Linearization::at_rest(problem, q)?,
            inputs,
            outputs,
            h,
        )
    }

    /// The state-space model of `problem` about the state of `lin` (at rest, or a steady
    /// motion from [`Linearization::in_motion`]: `A` with the gyroscopic and centrifugal
    /// forces, `∂r/∂u` and `h` at the moving state). About a motion steady in a moving frame
    /// ([`Linearization::symmetry`]) the state is the co-moving one, `δq = N y`,
    /// `δv = N ẏ + Ξ N y` at `t0`: `A` holds all along the motion, and so do `B` and `C` for
    /// input forces and outputs the frame's motion leaves unchanged (a tilt, a cone angle, a
    /// spring's length); for others they are those at `t0`.
    pub fn about(
        problem: &Problem,
        lin: Linearization,
        inputs: &[&str],
        outputs: &[String],
        h: &OutputMap<'_>,
    ) -> Result<StateSpace, Error> {
        let q = &lin.q.clone();
        let v = &lin.velocity.clone();
        let f = lin.basis.ncols();
        let nb = &lin.basis;
        let [mr, dr, kr] =
            [&lin.mass, &lin.damping, &lin.stiffness].map(|x| nb.transpose() * x * nb);
        let lu = mr.clone().lu();
        let solve = |x: &DMatrix<f64>| match f {
            0 => Ok(x.clone()), // no degree of freedom: empty (nalgebra's LU needs a size)
            _ => lu.solve(x).ok_or_else(|| {
                bad("the mass matrix on the constraint manifold is singular".into())
            }),
        };
        let mut a = DMatrix::zeros(2 * f, 2 * f);
        a.view_mut((0, f), (f, f)).fill_with_identity();
        a.view_mut((f, 0), (f, f)).copy_from(&-solve(&kr)?);
        a.view_mut((f, f), (f, f)).copy_from(&-solve(&dr)?);
        let t = lin.t;
        let z0 = h(problem, q, v)?;
        if z0.len() != outputs.len() {
            return Err(bad(format!(
                "{} output values for {} outputs",
                z0.len(),
                outputs.len()
            )));
        }
        // inputs: ∂r/∂u and ∂h/∂u by central differences of rebuilt problems
        let (mut b, mut d) = (
            DMatrix::zeros(2 * f, inputs.len()),
            DMatrix::zeros(outputs.len(), inputs.len()),
        );
        for (j, name) in inputs.iter().enumerate() {
            let u = (problem.parameters.iter().find(|(k, _)| k == name))
                .map(|x| x.1)
                .ok_or_else(|| -> Error {
                    OptionError::UnknownName {
                        kind: "parameter",
                        name: name.to_string(),
                        message: format!("unknown parameter '{name}' as an input"),
                    }
                    .into()
                })?;
            let du = 1e-6 * (1.0 + u.abs());
            let shifted = |s: f64| problem.with_parameters(&[(name, u + s * du)]);
            let (plus, minus) = (shifted(1.0)?, shifted(-1.0)?);
            let r = |p: &Problem| {
                assembly::dense_term_blocks(&p.model, t, q, v, &lin.acceleration)[0].clone()
            };
            let c = |p: &Problem| match p.model.n_constraints() {
                0 => Vec::new(),
                m => {
                    let mut out = vec![0.0; m];
                    assembly::constraint_values(&p.model, t, q, &mut out);
                    out
                }
            };
            let moved = c(&plus)
                .iter()
                .zip(c(&minus))
                .any(|(x, y)| (x - y).abs() > 1e-12);
            if moved {
                return Err(bad(format!(
                    "input '{name}' changes the constraints (a drive's motion): inputs are \
                     parameters of forces"
                )));
            }
            let dr_du = (r(&plus) - r(&minus)) / (2.0 * du);
            let force = solve(&(-(nb.transpose() * dr_du)))?;
            b.view_mut((f, j), (f, 1)).copy_from(&force);
            let (zp, zm) = (h(&plus, q, v)?, h(&minus, q, v)?);
            for i in 0..outputs.len() {
                d[(i, j)] = (zp[i] - zm[i]) / (2.0 * du);
            }
        }
        let c = output_matrix(problem, &lin, h, outputs.len())?;
        let mut e = vec![0.0; 2 * f];
        if lin.velocity.iter().all(|x| *x == 0.0) {
            let qdd = DVector::from_column_slice(&lin.acceleration);
            e[f..].copy_from_slice((nb.transpose() * qdd).as_slice());
        }
        Ok(StateSpace {
            e,
            t,
            q: q.to_vec(),
            v: v.to_vec(),
            basis: lin.basis,
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: outputs.to_vec(),
            a,
            b,
            c,
            d,
        })
    }
}

/// `C = [∂h/∂q N, ∂h/∂v N]` by central differences along the basis `N` of `lin` at its state
/// (`m` outputs); in a moving frame `δv = δẋ + Ξ δx`, so a move of the co-moving position moves
/// `v` by `Ξ δx` too.
fn output_matrix(
    problem: &Problem,
    lin: &Linearization,
    h: &OutputMap<'_>,
    m: usize,
) -> Result<DMatrix<f64>, Error> {
    let (q, v, nb) = (&lin.q, &lin.velocity, &lin.basis);
    let (n, f) = (q.len(), nb.ncols());
    let xi = lin.moving_frame().map(|s| s.xi.clone());
    let scale = q.iter().fold(1.0f64, |s, x| s.max(x.abs()));
    let eps = 1e-6 * scale;
    let mut c = DMatrix::zeros(m, 2 * f);
    for k in 0..f {
        let dir: Vec<f64> = nb.column(k).iter().map(|x| x * eps).collect();
        let turned: Vec<f64> = match &xi {
            Some(xi) => (xi * DVector::from_column_slice(&dir))
                .iter()
                .copied()
                .collect(),
            None => vec![0.0; n],
        };
        let along = |s: f64, pos: bool| -> Result<Vec<f64>, Error> {
            let moved: Vec<f64> = (0..n).map(|i| s * dir[i]).collect();
            match pos {
                true => {
                    let dv: Vec<f64> = (0..n).map(|i| s * turned[i]).collect();
                    h(problem, &add(q, &moved), &add(v, &dv))
                }
                false => h(problem, q, &add(v, &moved)),
            }
        };
        for (col, pos) in [(k, true), (f + k, false)] {
            let (zp, zm) = (along(1.0, pos)?, along(-1.0, pos)?);
            for i in 0..m {
                c[(i, col)] = (zp[i] - zm[i]) / (2.0 * eps);
            }
        }
    }
    Ok(c)
}

impl StateSpace {
    /// The eigenvalues of `A` (1/s), by increasing `|s|` (none without degrees of freedom);
    /// roots within rounding of zero are zero (see [`roots`](super::roots)).
    pub fn eigenvalues(&self) -> Result<Vec<super::DampedMode>, Error> {
        super::roots(self.a.clone())
    }

    /// `max |e|`: how far from an equilibrium the configuration is (0 at one).
    pub fn drift(&self) -> f64 {
        self.e.iter().fold(0.0, |m, x| m.max(x.abs()))
    }
}

fn add(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}
