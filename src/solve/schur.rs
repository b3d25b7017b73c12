//! A state's accelerations by the Schur complement of a constant mass matrix: for a small
//! model of point masses, bodies in natural coordinates or anything else of constant `M` under a
//! few constraints,
//!
//! ```text
//! [ M    C_qᵀ ] [ a ]   [ b₁ ]        S = C_q M⁻¹ C_qᵀ  (m × m),   S λ = C_q M⁻¹ b₁ − b₂,
//! [ C_q  0    ] [ λ ] = [ b₂ ]   ⇔    a = M⁻¹ (b₁ − C_qᵀ λ),
//! ```
//!
//! so a stage assembles only the forces, `C_q` and `γ` (not the terms' Jacobians, which a
//! constant `M` makes the same every time) and factorizes an `m × m` matrix instead of the
//! `(n + m)`-square one. A diagonal `M` is kept as its reciprocals; any other as its inverse,
//! computed once from its Cholesky factor `M = L Lᵀ` (`S = C_q V` with `V = M⁻¹ C_qᵀ`; for the
//! few coordinates of this path a product with `M⁻¹` is a few contiguous rows, where the
//! triangular solves by `L` were a third of a state's time). A state's `C_q` is written
//! by the constraints straight into the dense rows here, `γ` in the same pass (no sparse
//! pattern); one constraint (`S` a number) takes a few lines of its own.
//! [`StateSolver`](super::StateSolver) takes this path after its first, full solve has shown `M`
//! symmetric positive definite, and falls back to the full matrix when `S` is singular
//! (redundant constraints), so its errors stay those of the full solve.

use crate::assembly::Pattern;

/// The largest model the path serves: coordinates and constraints.
pub(super) const MOST_COORDS: usize = 64;
pub(super) const MOST_CONSTRAINTS: usize = 8;

/// A constant `M`: its diagonal's reciprocals, or its inverse (row-major `n × n`, from its
/// Cholesky factor, once).
enum Mass {
    Diagonal(Vec<f64>),
    Dense(Vec<f64>),
}

/// `M⁻¹`, and `C_q` and the factorized `S` of the last state.
pub(super) struct Schur {
    n: usize,
    m: usize,
    mass: Mass,
    /// `C_q`, row-major `m × n`.
    c: Vec<f64>,
    /// For a dense `M`: the rows `M⁻¹ c_k` (`S_kl = c_k · w_l`), row-major `m × n`.
    w: Vec<f64>,
    /// `S`'s LU (row-major, unit lower factor below the diagonal) and its row order.
    lu: Vec<f64>,
    piv: Vec<usize>,
    /// The reciprocals of `S`'s pivots.
    pivot_inv: [f64; MOST_CONSTRAINTS],
    /// Scratch of `n` values.
    y: Vec<f64>,
}

impl Schur {
    /// The path for the mass block of `values` (pattern order) when it is symmetric positive
    /// definite with finite entries (diagonal, or dense and factorized once); `None` otherwise.
    pub(super) fn new(pattern: &Pattern, values: &[f64], n: usize) -> Option<Schur> {
        let m = pattern.dim - n;
        if n > MOST_COORDS || m == 0 || m > MOST_CONSTRAINTS {
            return None;
        }
        let mut dense = vec![0.0; n * n];
        for j in 0..n {
            for s in pattern.col_ptr[j]..pattern.col_ptr[j + 1] {
                let row = pattern.row_idx[s];
                if row < n {
                    dense[row * n + j] += values[s];
                }
            }
        }
        let diagonal = (0..n).all(|i| (0..n).all(|j| i == j || dense[i * n + j] == 0.0));
        let mass = if diagonal {
            let minv: Vec<f64> = (0..n).map(|j| 1.0 / dense[j * n + j]).collect();
            let positive = minv.iter().all(|&x| x > 0.0 && x.is_finite());
            positive.then_some(Mass::Diagonal(minv))?
        } else {
            spd_inverse(dense, n)?
        };
        Some(Schur {
            n,
            m,
            mass,
            c: vec![0.0; m * n],
            w: vec![0.0; m * n],
            lu: vec![0.0; m * m],
            piv: vec![0; m],
            pivot_inv: [0.0; MOST_CONSTRAINTS],
            y: vec![0.0; n],
        })
    }

    /// `C_q` (row-major `m × n`) to be written before [`factorize`](Self::factorize).
    pub(super) fn rows_mut(&mut self) -> &mut [f64] {
        &mut self.c
    }

    /// `x[k] −= (C_q y)_k` for the `m` entries of `x`, with the `C_q` last factorized.
    pub(super) fn subtract_rows(&self, y: &[f64], x: &mut [f64]) {
        let n = self.n;
        for (k, xk) in x.iter_mut().enumerate().take(self.m) {
            *xk -= (self.c[k * n..(k + 1) * n].iter().zip(y))
                .map(|(c, y)| c * y)
                .sum::<f64>();
        }
    }

    /// Factorize `S = C_q M⁻¹ C_qᵀ` of the `C_q` held; `Err` when `S` is singular to rounding
    /// (dependent constraints) or not finite.
    pub(super) fn factorize(&mut self) -> Result<(), ()> {
        let (n, m) = (self.n, self.m);
        let weights = match &self.mass {
            Mass::Diagonal(minv) => Some(&minv[..n]),
            Mass::Dense(inv) => {
                // V = M⁻¹ C_qᵀ, row k = M⁻¹ c_k (M⁻¹ symmetric): S_kl = c_k · v_l
                for (vk, ck) in self.w.chunks_exact_mut(n).zip(self.c.chunks_exact(n)) {
                    mat_vec(inv, ck, vk);
                }
                None
            }
        };
        let (c, v) = (&self.c, &self.w);
        let entry = |k: usize, l: usize| -> f64 {
            let ck = &c[k * n..(k + 1) * n];
            match weights {
                Some(w) => (ck.iter().zip(&c[l * n..(l + 1) * n]).zip(w))
                    .map(|((a, b), w)| a * w * b)
                    .sum(),
                None => ck
                    .iter()
                    .zip(&v[l * n..(l + 1) * n])
                    .map(|(a, b)| a * b)
                    .sum(),
            }
        };
        if m == 1 {
            // one constraint: S is a number
            let s = entry(0, 0);
            self.lu[0] = s;
            self.pivot_inv[0] = 1.0 / s;
            return match s.is_finite() && s > 0.0 {
                true => Ok(()),
                false => Err(()),
            };
        }
        let mut largest = 0.0f64;
        // S is symmetric: its upper triangle, mirrored
        for k in 0..m {
            for l in k..m {
                let s = entry(k, l);
                self.lu[k * m + l] = s;
                self.lu[l * m + k] = s;
                largest = largest.max(s.abs());
            }
        }
        if !largest.is_finite() || largest == 0.0 {
            return Err(());
        }
        // Gaussian elimination with partial pivoting, the pivots' reciprocals kept
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
            let d = 1.0 / self.lu[k * m + k];
            self.pivot_inv[k] = d;
            for i in k + 1..m {
                let f = self.lu[i * m + k] * d;
                self.lu[i * m + k] = f;
                for l in k + 1..m {
                    self.lu[i * m + l] -= f * self.lu[k * m + l];
                }
            }
        }
        Ok(())
    }

    /// `[a; λ]` of `[M C_qᵀ; C_q 0] [a; λ] = [b₁; b₂]` in place (`x` holds `b`), with the
    /// state last [`factorize`](Self::factorize)d.
    pub(super) fn solve(&mut self, x: &mut [f64]) {
        let (n, m) = (self.n, self.m);
        let (top, bottom) = x.split_at_mut(n);
        let (top, bottom, y) = (&mut top[..n], &mut bottom[..m], &mut self.y[..n]);
        let c = &self.c[..m * n];
        if let (1, Mass::Diagonal(minv)) = (m, &self.mass) {
            // one constraint on point masses: λ = (C_q y − b₂)/S, a = y − M⁻¹ C_qᵀ λ
            for ((y, w), b) in y.iter_mut().zip(minv).zip(top.iter()) {
                *y = w * b;
            }
            let cy: f64 = c.iter().zip(y.iter()).map(|(c, y)| c * y).sum();
            let lambda = (cy - bottom[0]) * self.pivot_inv[0];
            bottom[0] = lambda;
            for (((a, y), w), c) in top.iter_mut().zip(y.iter()).zip(minv).zip(c) {
                *a = y - w * (c * lambda);
            }
            return;
        }
        // y = M⁻¹ b₁
        match &self.mass {
            Mass::Diagonal(minv) => {
                for ((y, w), b) in y.iter_mut().zip(minv).zip(top.iter()) {
                    *y = w * b;
                }
            }
            Mass::Dense(inv) => mat_vec(inv, top, y),
        }
        let mut lambda = [0.0; MOST_CONSTRAINTS];
        if m == 1 {
            // one constraint: λ = (C_q y − b₂)/S
            let cy: f64 = c.iter().zip(y.iter()).map(|(c, y)| c * y).sum();
            lambda[0] = (cy - bottom[0]) * self.pivot_inv[0];
        } else {
            // S λ = C_q y − b₂, rows in the pivots' order
            for (k, r) in lambda.iter_mut().enumerate().take(m) {
                let p = self.piv[k];
                let cy: f64 = (c[p * n..(p + 1) * n].iter().zip(y.iter()))
                    .map(|(c, y)| c * y)
                    .sum();
                *r = cy - bottom[p];
            }
            for k in 0..m {
                for l in 0..k {
                    lambda[k] -= self.lu[k * m + l] * lambda[l];
                }
            }
            for k in (0..m).rev() {
                for l in k + 1..m {
                    lambda[k] -= self.lu[k * m + l] * lambda[l];
                }
                lambda[k] *= self.pivot_inv[k];
            }
        }
        bottom.copy_from_slice(&lambda[..m]);
        // a = y − M⁻¹ C_qᵀ λ
        match &self.mass {
            Mass::Diagonal(minv) => {
                for (j, a) in top.iter_mut().enumerate() {
                    let ct: f64 = (0..m).map(|k| c[k * n + j] * lambda[k]).sum();
                    *a = y[j] - minv[j] * ct;
                }
            }
            Mass::Dense(_) => {
                // M⁻¹ C_qᵀ λ = Σ_k λ_k v_k
                for (j, (a, y)) in top.iter_mut().zip(y.iter()).enumerate() {
                    let vl: f64 = (0..m).map(|k| self.w[k * n + j] * lambda[k]).sum();
                    *a = y - vl;
                }
            }
        }
    }
}

/// `out = A x` for the row-major square `A`.
#[inline]
fn mat_vec(a: &[f64], x: &[f64], out: &mut [f64]) {
    let n = x.len();
    for (o, row) in out.iter_mut().zip(a.chunks_exact(n)) {
        *o = row.iter().zip(x).map(|(a, b)| a * b).sum();
    }
}

/// The inverse of the symmetric `n × n` matrix `a` (row-major) by its Cholesky factor
/// `a = L Lᵀ`: `None` when it is not symmetric to rounding, not positive definite or not finite.
fn spd_inverse(mut a: Vec<f64>, n: usize) -> Option<Mass> {
    let scale = a.iter().fold(0.0f64, |s, x| s.max(x.abs()));
    for i in 0..n {
        for j in 0..i {
            if (a[i * n + j] - a[j * n + i]).abs() > 1e-12 * scale {
                return None;
            }
        }
    }
    let mut dinv = vec![0.0; n];
    for j in 0..n {
        let d = a[j * n + j] - (0..j).map(|k| a[j * n + k] * a[j * n + k]).sum::<f64>();
        if !(d > 1e-14 * scale) || !d.is_finite() {
            return None;
        }
        let ljj = d.sqrt();
        a[j * n + j] = ljj;
        dinv[j] = 1.0 / ljj;
        for i in j + 1..n {
            let s = a[i * n + j] - (0..j).map(|k| a[i * n + k] * a[j * n + k]).sum::<f64>();
            a[i * n + j] = s * dinv[j];
        }
    }
    for i in 0..n {
        for j in i + 1..n {
            a[i * n + j] = 0.0;
        }
    }
    // the columns of a⁻¹ = L⁻ᵀ L⁻¹ e_j
    let mut inv = vec![0.0; n * n];
    let mut e = vec![0.0; n];
    for j in 0..n {
        e.fill(0.0);
        e[j] = 1.0;
        forward(&a, &dinv, &mut e);
        backward(&a, &dinv, &mut e);
        for i in 0..n {
            inv[i * n + j] = e[i];
        }
    }
    // symmetric to the last bit
    for i in 0..n {
        for j in 0..i {
            let x = 0.5 * (inv[i * n + j] + inv[j * n + i]);
            inv[i * n + j] = x;
            inv[j * n + i] = x;
        }
    }
    inv.iter()
        .all(|x| x.is_finite())
        .then_some(Mass::Dense(inv))
}

/// `x ← L⁻¹ x` for the lower factor `l` (row-major) with its diagonal's reciprocals `dinv`.
fn forward(l: &[f64], dinv: &[f64], x: &mut [f64]) {
    let n = x.len();
    for i in 0..n {
        let s: f64 = (l[i * n..i * n + i].iter().zip(&x[..i]))
            .map(|(a, b)| a * b)
            .sum();
        x[i] = (x[i] - s) * dinv[i];
    }
}

/// `x ← L⁻ᵀ x` for the lower factor `l` (row-major) with its diagonal's reciprocals `dinv`.
fn backward(l: &[f64], dinv: &[f64], x: &mut [f64]) {
    let n = x.len();
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k * n + i] * x[k]).sum();
        x[i] = (x[i] - s) * dinv[i];
    }
}

#[cfg(test)]
mod tests {
    use crate::model::Model;
    use crate::model::elements::{AnchoredRod, Particle};
    use crate::problem::LinearSolverKind;
    use crate::solve::StateSolver;
    use nalgebra::SVector;
    use num_dual::DualNum;

    /// A pendulum of point mass `m` on a rod of length `l` (what `library::pendulum` builds).
    fn planar_pendulum(m: f64, l: f64, g: f64) -> Model {
        let bob = Particle {
            mass: m,
            gravity: [0.0, -g],
        };
        let rod = AnchoredRod {
            anchor: [0.0, 0.0],
            length: l,
        };
        Model::builder(2)
            .term([0, 1], bob)
            .constraint("rod", [0, 1], rod)
            .build()
            .unwrap()
    }

    /// Three bobs on rods, the first hung from the origin (`m = 3`: the elimination with
    /// pivots, where the pendulum's one constraint has its own few lines).
    fn planar_chain() -> Model {
        use crate::model::elements::Rod;
        let mut b = Model::builder(6);
        for (i, m) in [1.3, 0.4, 2.2].into_iter().enumerate() {
            let bob = Particle {
                mass: m,
                gravity: [0.0, -9.81],
            };
            b = b.term([2 * i, 2 * i + 1], bob);
        }
        let rod = AnchoredRod {
            anchor: [0.0, 0.0],
            length: 0.9,
        };
        b = b.constraint("top", [0, 1], rod);
        for (i, l) in [(0, 0.6), (1, 1.1)] {
            let idx = [2 * i, 2 * i + 1, 2 * i + 2, 2 * i + 3];
            b = b.constraint("link", idx, Rod::<2> { length: l });
        }
        b.build().unwrap()
    }

    /// Two points whose kinetic energy couples them, `T = ½ vᵀ A v` with `A` constant and not
    /// diagonal (as a body's in natural coordinates), under gravity.
    struct Coupled;

    impl crate::model::Declared<4> for Coupled {
        fn kinetic<D: DualNum<Primitive = f64> + Copy>(
            &self,
            _t: D,
            _q: &SVector<D, 4>,
            v: &SVector<D, 4>,
        ) -> D {
            let a = [
                [2.0, 0.0, 0.5, 0.1],
                [0.0, 2.0, -0.3, 0.5],
                [0.5, -0.3, 1.0, 0.0],
                [0.1, 0.5, 0.0, 1.5],
            ];
            let mut t = D::from(0.0);
            for i in 0..4 {
                for j in 0..4 {
                    t += v[i] * v[j] * (0.5 * a[i][j]);
                }
            }
            t
        }
        fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 4>) -> D {
            (q[1] * 2.0 + q[3]) * 9.81
        }
        fn has_dissipation_or_force(&self) -> bool {
            false
        }
    }

    /// [`Coupled`] on a rod from the origin and a rod between its points: the Schur complement
    /// by the Cholesky factor of `A`.
    fn coupled_pair() -> Model {
        use crate::model::elements::Rod;
        let rod = AnchoredRod {
            anchor: [0.0, 0.0],
            length: 0.9,
        };
        Model::builder(4)
            .term([0, 1, 2, 3], Coupled)
            .constraint("top", [0, 1], rod)
            .constraint("link", [0, 1, 2, 3], Rod::<2> { length: 0.6 })
            .build()
            .unwrap()
    }

    /// A constrained model of constant mass takes the Schur complement after its first solve,
    /// and gives the full matrix's accelerations, multipliers, `solve_again` and projections —
    /// one constraint and three on point masses, two on a constant mass that is not diagonal.
    #[test]
    fn point_masses_under_constraints_solve_by_the_schur_complement() {
        let chain_q = [0.54, -0.72, 0.9, -1.2, 1.56, -2.08];
        let cases = [
            (planar_pendulum(1.3, 0.9, 9.81), vec![0.54, -0.72], false),
            (planar_chain(), chain_q.to_vec(), false),
            (coupled_pair(), chain_q[..4].to_vec(), true),
        ];
        let l2 = 0.81;
        for (model, q0, dense) in cases {
            let n = q0.len();
            let mut s = StateSolver::new(&model, LinearSolverKind::Auto);
            let mut full = StateSolver::new(&model, LinearSolverKind::Sparse);
            let v0: Vec<f64> = (0..n).map(|i| 0.3 * i as f64 - 0.8).collect();
            s.solve(&model, 0.0, &q0, &v0).unwrap();
            let mass = &s.schur.as_ref().expect("the Schur path is set up").mass;
            assert_eq!(matches!(mass, super::Mass::Dense(_)), dense);
            let shifted: Vec<f64> = q0.iter().map(|x| -0.7 * x + 0.1).collect();
            let turned: Vec<f64> = q0.chunks(2).flat_map(|p| [p[1], -p[0]]).collect();
            for q in [q0.clone(), shifted, turned] {
                let v: Vec<f64> = v0.iter().rev().copied().collect();
                let (a1, l1) = s.solve(&model, 0.3, &q, &v).unwrap();
                let (a1, l1) = (a1.to_vec(), l1.to_vec());
                assert!(s.schur_last);
                let (a2, l2) = full.solve(&model, 0.3, &q, &v).unwrap();
                for (x, y) in a1.iter().chain(&l1).zip(a2.iter().chain(l2)) {
                    assert!((x - y).abs() < 1e-13 * (1.0 + y.abs()), "{a1:?} {l1:?}");
                }
                let mut b1: Vec<f64> = (0..n + model.n_constraints())
                    .map(|i| (i as f64 * 0.7).sin())
                    .collect();
                let mut b2 = b1.clone();
                s.solve_again(&model, &mut b1).unwrap();
                full.solve_again(&model, &mut b2).unwrap();
                for (x, y) in b1.iter().zip(&b2) {
                    assert!((x - y).abs() < 1e-13 * (1.0 + y.abs()), "{b1:?} {b2:?}");
                }
            }
            // the projections onto the constraints, and the tangent projection after them
            let (mut q1, mut v1): (Vec<f64>, Vec<f64>) =
                (q0.iter().map(|x| x * 1.02).collect(), v0.clone());
            let (mut q2, mut v2) = (q1.clone(), v1.clone());
            s.project_state(&model, 0.0, &mut q1, &mut v1).unwrap();
            full.project_state(&model, 0.0, &mut q2, &mut v2).unwrap();
            assert!(s.schur_last, "projected by the Schur complement");
            let mut x1: Vec<f64> = (0..n).map(|i| 0.4 - 0.2 * i as f64).collect();
            let mut x2 = x1.clone();
            s.project_tangent(&model, &mut x1).unwrap();
            full.project_tangent(&model, &mut x2).unwrap();
            for (x, y) in q1
                .iter()
                .chain(&v1)
                .chain(&x1)
                .zip(q2.iter().chain(&v2).chain(&x2))
            {
                assert!((x - y).abs() < 1e-13, "{q1:?} {v1:?} {x1:?}");
            }
            // the first rod: on its circle, velocity and tangent across it
            assert!((q1[0] * q1[0] + q1[1] * q1[1] - l2).abs() < 1e-14);
            assert!((q1[0] * v1[0] + q1[1] * v1[1]).abs() < 1e-14);
            assert!((q1[0] * x1[0] + q1[1] * x1[1]).abs() < 1e-14);
            // the tangent projection after a solve: with that state's `C_q`
            let (q, v) = (q1.clone(), v1.clone());
            s.solve(&model, 0.0, &q, &v).unwrap();
            full.solve(&model, 0.0, &q, &v).unwrap();
            let (mut x1, mut x2) = (vec![0.3; n], vec![0.3; n]);
            s.project_tangent(&model, &mut x1).unwrap();
            full.project_tangent(&model, &mut x2).unwrap();
            for (x, y) in x1.iter().zip(&x2) {
                assert!((x - y).abs() < 1e-13, "{x1:?} {x2:?}");
            }
        }
    }

    /// Constraints that become dependent make `S` singular: the solve falls back to the full
    /// matrix, whose error says so, and never returns numbers.
    #[test]
    fn dependent_constraints_leave_the_schur_path_for_the_full_error() {
        let rod = |x| AnchoredRod {
            anchor: [x, 0.0],
            length: 1.0,
        };
        let bob = Particle {
            mass: 1.0,
            gravity: [0.0, -9.81],
        };
        let model = Model::builder(2)
            .term([0, 1], bob)
            .constraint("left", [0, 1], rod(0.0))
            .constraint("right", [0, 1], rod(2.0))
            .build()
            .unwrap();
        let mut s = StateSolver::new(&model, LinearSolverKind::Auto);
        s.solve(&model, 0.0, &[0.6, -0.8], &[0.0; 2]).unwrap();
        assert!(s.schur.is_some(), "the Schur path is set up");
        s.solve(&model, 0.0, &[1.0, -0.5], &[0.3, 0.0]).unwrap();
        assert!(s.schur_last);
        // both rods along the x axis: their rows are parallel
        let err = s.solve(&model, 0.0, &[1.0, 0.0], &[0.0; 2]).unwrap_err();
        assert!(err.to_string().contains("singular"), "{err}");
    }
}
