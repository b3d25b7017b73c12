//! A state's accelerations by the Schur complement of a constant diagonal mass matrix: for a
//! small model of point masses (or any constant diagonal `M`) under a few constraints,
//!
//! ```text
//! [ M    C_qᵀ ] [ a ]   [ b₁ ]        S = C_q M⁻¹ C_qᵀ  (m × m),   S λ = C_q M⁻¹ b₁ − b₂,
//! [ C_q  0    ] [ λ ] = [ b₂ ]   ⇔    a = M⁻¹ (b₁ − C_qᵀ λ),
//! ```
//!
//! so a stage assembles only the forces, `C_q` and `γ` (not the terms' Jacobians, which a
//! constant `M` makes the same every time) and factorizes an `m × m` matrix instead of the
//! `(n + m)`-square one. [`StateSolver`](super::StateSolver) takes this path after its first,
//! full solve has shown `M` diagonal and positive, and falls back to the full matrix when `S` is
//! singular (redundant constraints), so its errors stay those of the full solve.

use crate::assembly::Pattern;

/// The largest model the path serves: coordinates and constraints.
pub(super) const MOST_COORDS: usize = 64;
pub(super) const MOST_CONSTRAINTS: usize = 8;

/// `M⁻¹` (diagonal), and `C_q` and the factorized `S` of the last state prepared.
pub(super) struct Schur {
    n: usize,
    m: usize,
    minv: Vec<f64>,
    /// `C_q`, row-major `m × n`.
    c: Vec<f64>,
    /// `S`'s LU (row-major, unit lower factor below the diagonal) and its row order.
    lu: Vec<f64>,
    piv: Vec<usize>,
    /// Scratch of `n` values.
    y: Vec<f64>,
}

impl Schur {
    /// The path for the mass block of `values` (pattern order) when it is diagonal with
    /// positive finite entries; `None` otherwise.
    pub(super) fn new(pattern: &Pattern, values: &[f64], n: usize) -> Option<Schur> {
        let m = pattern.dim - n;
        if n > MOST_COORDS || m == 0 || m > MOST_CONSTRAINTS {
            return None;
        }
        let mut minv = vec![0.0; n];
        for j in 0..n {
            for s in pattern.col_ptr[j]..pattern.col_ptr[j + 1] {
                let (row, x) = (pattern.row_idx[s], values[s]);
                if row == j {
                    minv[j] = 1.0 / x;
                } else if row < n && x != 0.0 {
                    return None;
                }
            }
        }
        let positive = minv.iter().all(|&x| x > 0.0 && x.is_finite());
        positive.then(|| Schur {
            n,
            m,
            minv,
            c: vec![0.0; m * n],
            lu: vec![0.0; m * m],
            piv: vec![0; m],
            y: vec![0.0; n],
        })
    }

    /// Take `C_q` from `values` (its rows below the mass block) and factorize `S`; `Err` when
    /// `S` is singular to rounding (dependent constraints) or not finite.
    pub(super) fn prepare(&mut self, pattern: &Pattern, values: &[f64]) -> Result<(), ()> {
        let (n, m) = (self.n, self.m);
        self.c.fill(0.0);
        for j in 0..n {
            for s in pattern.col_ptr[j]..pattern.col_ptr[j + 1] {
                let row = pattern.row_idx[s];
                if row >= n {
                    self.c[(row - n) * n + j] += values[s];
                }
            }
        }
        let mut largest = 0.0f64;
        for k in 0..m {
            for l in 0..m {
                let (ck, cl) = (&self.c[k * n..(k + 1) * n], &self.c[l * n..(l + 1) * n]);
                let s: f64 = (0..n).map(|j| ck[j] * self.minv[j] * cl[j]).sum();
                self.lu[k * m + l] = s;
                largest = largest.max(s.abs());
            }
        }
        if !largest.is_finite() || largest == 0.0 {
            return Err(());
        }
        // Gaussian elimination with partial pivoting
        for (k, p) in self.piv.iter_mut().enumerate() {
            *p = k;
        }
        for k in 0..m {
            let p = (k..m)
                .max_by(|&a, &b| {
                    self.lu[a * m + k]
                        .abs()
                        .total_cmp(&self.lu[b * m + k].abs())
                })
                .unwrap_or(k);
            if self.lu[p * m + k].abs() <= 1e-13 * largest {
                return Err(());
            }
            if p != k {
                for l in 0..m {
                    self.lu.swap(k * m + l, p * m + l);
                }
                self.piv.swap(k, p);
            }
            let d = self.lu[k * m + k];
            for i in k + 1..m {
                let f = self.lu[i * m + k] / d;
                self.lu[i * m + k] = f;
                for l in k + 1..m {
                    self.lu[i * m + l] -= f * self.lu[k * m + l];
                }
            }
        }
        Ok(())
    }

    /// `[a; λ]` of `[M C_qᵀ; C_q 0] [a; λ] = [b₁; b₂]` in place (`x` holds `b`), with the
    /// state last [`prepare`](Self::prepare)d.
    pub(super) fn solve(&mut self, x: &mut [f64]) {
        let (n, m) = (self.n, self.m);
        let (top, bottom) = x.split_at_mut(n);
        for j in 0..n {
            self.y[j] = self.minv[j] * top[j];
        }
        // S λ = C_q y − b₂, rows in the pivots' order
        let mut rhs = [0.0; MOST_CONSTRAINTS];
        for k in 0..m {
            let r = self.piv[k];
            let cy: f64 = (0..n).map(|j| self.c[r * n + j] * self.y[j]).sum();
            rhs[k] = cy - bottom[r];
        }
        for k in 0..m {
            for l in 0..k {
                rhs[k] -= self.lu[k * m + l] * rhs[l];
            }
        }
        for k in (0..m).rev() {
            for l in k + 1..m {
                rhs[k] -= self.lu[k * m + l] * rhs[l];
            }
            rhs[k] /= self.lu[k * m + k];
        }
        bottom.copy_from_slice(&rhs[..m]);
        // a = M⁻¹ (b₁ − C_qᵀ λ)
        for j in 0..n {
            let ct: f64 = (0..m).map(|k| self.c[k * n + j] * rhs[k]).sum();
            top[j] = self.y[j] - self.minv[j] * ct;
        }
    }
}
