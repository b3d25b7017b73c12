//! The two linear systems of a Radau IIA step on the index-3 equations, on the fixed pattern of
//! the toolkit's iteration matrix.
//!
//! With `M = ∂r/∂a`, `D = ∂r/∂v`, `K = ∂r/∂q + ∂(C_qᵀλ)/∂q` and `G = C_q` at one point, the
//! simplified Newton matrix of the stages splits (`T⁻¹A⁻¹T`, [`super::tableau`]) into
//!
//! ```text
//! real:     [ s_r (μ_r²/h² M + μ_r/h D + K)   Gᵀ ]      complex:  [ s_c (μ_c²/h² M + μ_c/h D + K)   Gᵀ ]
//!           [ G                              0  ]                [ G                              0  ]
//! ```
//!
//! with the dynamic rows scaled by `s_r = (h/μ_r)²` and `s_c = h²/|μ_c|²` (as generalized-α
//! scales by `βh²`: the condition number then does not grow as `h → 0`, and the multipliers
//! are solved for as `s·Δλ`). The complex system of dimension `N = n + m` is solved as the real
//! one `[Re −Im; Im Re]` of dimension `2N`, whose pattern is built once from `N`'s.
//!
//! `M`, `D` and `K` are kept apart (three assemblies, each one pass of the elements' AD) so a
//! new step size needs no new evaluation of the model: only new combinations and
//! factorizations.

use crate::assembly::{self, AssemblyCoefficients, Pattern, Point};
use crate::model::Model;
use crate::problem::LinearSolverKind;
use crate::solve::linear::{LinearSolver, Singular};

/// Where a slot of the doubled matrix takes its value from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Re,
    Im,
    NegIm,
}

/// The Jacobian blocks at one point and the two factorized systems.
pub(super) struct Systems {
    pattern: Pattern,
    doubled: Pattern,
    /// Per slot of `doubled`: the slot of `pattern` and the part.
    map: Vec<(usize, Part)>,
    /// Whether a slot of `pattern` is in the dynamic block (row and column `< n`).
    dynamic: Vec<bool>,
    n: usize,
    m_vals: Vec<f64>,
    d_vals: Vec<f64>,
    k_vals: Vec<f64>,
    real_vals: Vec<f64>,
    cplx_vals: Vec<f64>,
    real: LinearSolver,
    cplx: LinearSolver,
    res: Vec<f64>,
    /// The step size of the factorizations (0: none).
    pub factor_h: f64,
}

/// The doubled pattern `[Re −Im; Im Re]`: `Im` only on the dynamic block (`G` is real).
fn doubled(p: &Pattern, dynamic: &[bool]) -> (Pattern, Vec<(usize, Part)>) {
    let big = p.dim;
    let mut col_ptr = vec![0usize; 2 * big + 1];
    let mut row_idx = Vec::new();
    let mut map = Vec::new();
    for j in 0..big {
        let slots = p.col_ptr[j]..p.col_ptr[j + 1];
        for s in slots.clone() {
            row_idx.push(p.row_idx[s]);
            map.push((s, Part::Re));
        }
        for s in slots.filter(|&s| dynamic[s]) {
            row_idx.push(big + p.row_idx[s]);
            map.push((s, Part::Im));
        }
        col_ptr[j + 1] = row_idx.len();
    }
    for j in 0..big {
        let slots = p.col_ptr[j]..p.col_ptr[j + 1];
        for s in slots.clone().filter(|&s| dynamic[s]) {
            row_idx.push(p.row_idx[s]);
            map.push((s, Part::NegIm));
        }
        for s in slots {
            row_idx.push(big + p.row_idx[s]);
            map.push((s, Part::Re));
        }
        col_ptr[big + j + 1] = row_idx.len();
    }
    let pattern = Pattern {
        dim: 2 * big,
        col_ptr,
        row_idx,
        term_slots: Vec::new(),
        con_slots: Vec::new(),
        diag_slots: Vec::new(),
    };
    (pattern, map)
}

impl Systems {
    /// The pattern of `model`, its doubled form, and a solver for each (`Jacobi` is not a
    /// solver for these systems: it becomes the sparse LU).
    pub fn new(model: &Model, kind: LinearSolverKind) -> Result<Self, Singular> {
        let pattern = Pattern::new(model);
        let n = model.n;
        let mut dynamic = vec![false; pattern.nnz()];
        for j in 0..n {
            for s in pattern.col_ptr[j]..pattern.col_ptr[j + 1] {
                dynamic[s] = pattern.row_idx[s] < n;
            }
        }
        let (doubled, map) = doubled(&pattern, &dynamic);
        let kind = match kind {
            LinearSolverKind::Jacobi => LinearSolverKind::Sparse,
            k => k,
        };
        let real = LinearSolver::new(kind, &pattern)?;
        let cplx = LinearSolver::new(kind, &doubled)?;
        let nnz = pattern.nnz();
        Ok(Systems {
            n,
            m_vals: vec![0.0; nnz],
            d_vals: vec![0.0; nnz],
            k_vals: vec![0.0; nnz],
            real_vals: vec![0.0; nnz],
            cplx_vals: vec![0.0; doubled.nnz()],
            res: vec![0.0; pattern.dim],
            real,
            cplx,
            pattern,
            doubled,
            map,
            dynamic,
            factor_h: 0.0,
        })
    }

    /// `M`, `D` and `K` (with `G`) at `pt` (three assemblies).
    pub fn jacobian(&mut self, model: &Model, pt: &Point) {
        let unit = |mass: f64, damping: f64, stiffness: f64| AssemblyCoefficients {
            scale: 1.0,
            mass,
            damping,
            stiffness,
            stiffness_lambda: stiffness,
        };
        for (k, vals) in [
            (unit(1.0, 0.0, 0.0), &mut self.m_vals),
            (unit(0.0, 1.0, 0.0), &mut self.d_vals),
            (unit(0.0, 0.0, 1.0), &mut self.k_vals),
        ] {
            assembly::residual_and_matrix(model, &self.pattern, pt, &k, &mut self.res, vals);
        }
        self.factor_h = 0.0;
    }

    /// The dynamic-row scale of the real system, `(h/μ_r)²`.
    pub fn scale_real(h: f64, mu_r: f64) -> f64 {
        (h / mu_r).powi(2)
    }

    /// The dynamic-row scale of the complex system, `h²/|μ_c|²`.
    pub fn scale_complex(h: f64, mu_c: (f64, f64)) -> f64 {
        h * h / (mu_c.0 * mu_c.0 + mu_c.1 * mu_c.1)
    }

    /// Form and factorize both systems for step `h`.
    pub fn factorize(&mut self, h: f64, mu_r: f64, mu_c: (f64, f64)) -> Result<(), Singular> {
        let sr = Self::scale_real(h, mu_r);
        let sc = Self::scale_complex(h, mu_c);
        let (a, b) = (mu_c.0 / h, mu_c.1 / h);
        // μ_c²/h² = (a² − b²) + 2ab i
        let (m_re, m_im) = (a * a - b * b, 2.0 * a * b);
        let (r1, r2) = (mu_r / h, (mu_r / h).powi(2));
        // G (the slots outside the dynamic block) is real and the same in every assembly
        let (mv, dv, kv, dynamic) = (&self.m_vals, &self.d_vals, &self.k_vals, &self.dynamic);
        let blend = |s: usize, scale: f64, cm: f64, cd: f64| {
            if dynamic[s] {
                scale * (cm * mv[s] + cd * dv[s] + kv[s])
            } else {
                kv[s]
            }
        };
        for (s, x) in self.real_vals.iter_mut().enumerate() {
            *x = blend(s, sr, r2, r1);
        }
        let im = |s: usize| sc * (m_im * mv[s] + b * dv[s]);
        for (x, &(s, part)) in self.cplx_vals.iter_mut().zip(&self.map) {
            *x = match part {
                Part::Re => blend(s, sc, m_re, a),
                Part::Im => im(s),
                Part::NegIm => -im(s),
            };
        }
        self.factor_h = 0.0;
        self.real.factorize(&self.pattern, &self.real_vals)?;
        self.cplx.factorize(&self.doubled, &self.cplx_vals)?;
        self.factor_h = h;
        Ok(())
    }

    /// Solve the real system in place (`n + m` entries).
    pub fn solve_real(&mut self, b: &mut [f64]) -> Result<(), Singular> {
        self.real.solve(b)
    }

    /// Solve the complex system in place: `b = [Re; Im]` (`2(n + m)` entries).
    pub fn solve_complex(&mut self, b: &mut [f64]) -> Result<(), Singular> {
        self.cplx.solve(b)
    }

    /// `out = M x + μ D y` over the dynamic block (`n` entries each).
    pub fn mass_damping(&self, x: &[f64], y: &[f64], mu: f64, out: &mut [f64]) {
        out.fill(0.0);
        for j in 0..self.n {
            for s in self.pattern.col_ptr[j]..self.pattern.col_ptr[j + 1] {
                if self.dynamic[s] {
                    let i = self.pattern.row_idx[s];
                    out[i] += self.m_vals[s] * x[j] + mu * self.d_vals[s] * y[j];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doubled_pattern_is_sorted_and_complete() {
        // a 2 × 2 dynamic block with one constraint row: N = 3
        let p = Pattern {
            dim: 3,
            col_ptr: vec![0, 3, 6, 8],
            row_idx: vec![0, 1, 2, 0, 1, 2, 0, 1],
            term_slots: Vec::new(),
            con_slots: Vec::new(),
            diag_slots: Vec::new(),
        };
        let dynamic = vec![true, true, false, true, true, false, false, false];
        let (d, map) = doubled(&p, &dynamic);
        assert_eq!(d.dim, 6);
        // Re everywhere twice (8 + 8), Im on the dynamic slots twice (4 + 4)
        assert_eq!(d.nnz(), 24);
        assert_eq!(map.len(), 24);
        for j in 0..6 {
            let col = &d.row_idx[d.col_ptr[j]..d.col_ptr[j + 1]];
            assert!(col.windows(2).all(|w| w[0] < w[1]), "column {j}: {col:?}");
        }
        // column 0: Re rows 0, 1, 2 then Im rows 3, 4
        assert_eq!(&d.row_idx[d.col_ptr[0]..d.col_ptr[1]], &[0, 1, 2, 3, 4]);
        // column 3 (imaginary part of unknown 0): −Im rows 0, 1 then Re rows 3, 4, 5
        assert_eq!(&d.row_idx[d.col_ptr[3]..d.col_ptr[4]], &[0, 1, 3, 4, 5]);
        assert_eq!(map[d.col_ptr[3]].1, Part::NegIm);
    }
}
