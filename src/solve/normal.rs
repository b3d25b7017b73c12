//! The constraints' normal equations `(J Jᵀ + μ D) y = b` with `J = C_q` restricted to a set of
//! free coordinates, sparse: the pattern of `J Jᵀ` from the constraint elements' coordinates
//! and its symbolic Cholesky analysis (fill-reducing ordering) once, each state's values and
//! numeric factorization after. Consistent initialization of large models projects positions
//! and velocities with them (`Δ = −Jᵀ(J Jᵀ + μD)⁻¹ C`, the least-norm correction) in memory and
//! time of the order of the factor's size — where a dense `m × n` Jacobian and its QR or
//! Gram–Schmidt cost `m n` numbers and `m² n` operations (a chain of 1,600 bars: 34 s).

use crate::assembly::{self, ConstraintElement};
use crate::model::Model;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, LltRef, SymbolicCholesky, SymmetricOrdering,
    factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};

/// The numeric `L Lᵀ` factorization of the lower triangle `a` into `l_values` by `symbolic`'s
/// analysis (`mem` its scratch); `false` when a pivot is not positive.
pub(crate) fn numeric_llt(
    symbolic: &SymbolicCholesky<usize>,
    a: SparseColMatRef<'_, usize, f64>,
    l_values: &mut [f64],
    mem: &mut MemBuffer,
) -> bool {
    symbolic
        .factorize_numeric_llt(
            l_values,
            a,
            Side::Lower,
            Default::default(),
            Par::Seq,
            MemStack::new(mem),
            Default::default(),
        )
        .is_ok()
}

/// The sparse normal equations of a model's constraints on a set of free coordinates.
pub(crate) struct NormalEquations {
    m: usize,
    elements: Vec<ConstraintElement>,
    /// Per element: its first row, rows, and the coordinates it acts on.
    layout: Vec<(usize, usize, Vec<usize>)>,
    /// `J`'s entries by row: `row_ptr[r]..row_ptr[r + 1]` index `cols` and `jv`.
    row_ptr: Vec<usize>,
    cols: Vec<usize>,
    jv: Vec<f64>,
    /// The slot in `jv` of element `e`'s local entry `(k, j)` (`usize::MAX`: a pinned column).
    local_slot: Vec<Vec<usize>>,
    /// `(slot a, slot b, slot of J Jᵀ)` for every product `J_aj J_bj` with `a ≥ b`.
    products: Vec<(usize, usize, usize)>,
    /// The lower triangle of `J Jᵀ` (CSC) and the slot of each diagonal entry.
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    diag: Vec<usize>,
    /// `max diag(J Jᵀ)` of the last factorization.
    dmax: f64,
    symbolic: SymbolicCholesky<usize>,
    l_values: Vec<f64>,
    mem: MemBuffer,
    local: Vec<f64>,
}

impl NormalEquations {
    /// The pattern and symbolic analysis for `model`'s constraints with `free` (ascending) the
    /// coordinates that may move; `None` when the analysis fails.
    pub fn new(model: &Model, free: &[usize]) -> Option<Self> {
        let (n, m) = (model.n_coords(), model.n_constraints());
        let mut is_free = vec![false; n];
        for &i in free {
            is_free[i] = true;
        }
        let elements = assembly::constraint_elements(model);
        let layout: Vec<(usize, usize, Vec<usize>)> = (elements.iter())
            .map(|el| {
                let (row, rows) = el.rows(model);
                (row, rows, el.indices(model).to_vec())
            })
            .collect();
        // J by rows: each row's free coordinates (sorted, once each)
        let mut row_cols: Vec<Vec<usize>> = vec![Vec::new(); m];
        for (row, rows, idx) in &layout {
            for r in *row..row + rows {
                row_cols[r].extend(idx.iter().copied().filter(|&i| is_free[i]));
            }
        }
        let mut row_ptr = vec![0];
        let mut cols = Vec::new();
        for rc in &mut row_cols {
            rc.sort_unstable();
            rc.dedup();
            cols.extend_from_slice(rc);
            row_ptr.push(cols.len());
        }
        let slot = |r: usize, i: usize| -> Option<usize> {
            let s = &cols[row_ptr[r]..row_ptr[r + 1]];
            s.binary_search(&i).ok().map(|k| row_ptr[r] + k)
        };
        let local_slot: Vec<Vec<usize>> = (layout.iter())
            .map(|(row, rows, idx)| {
                (0..*rows)
                    .flat_map(|k| idx.iter().map(move |&i| (row + k, i)))
                    .map(|(r, i)| slot(r, i).unwrap_or(usize::MAX))
                    .collect()
            })
            .collect();
        // rows meeting at each coordinate: the pattern of J Jᵀ
        let mut at: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for r in 0..m {
            for s in row_ptr[r]..row_ptr[r + 1] {
                at[cols[s]].push((r, s));
            }
        }
        let mut pairs: Vec<(usize, usize)> = (0..m).map(|r| (r, r)).collect();
        for rows in &at {
            for &(a, _) in rows {
                for &(b, _) in rows {
                    if a > b {
                        pairs.push((b, a)); // (column, row) of the lower triangle
                    }
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut col_ptr = vec![0; m + 1];
        for &(c, _) in &pairs {
            col_ptr[c + 1] += 1;
        }
        for c in 0..m {
            col_ptr[c + 1] += col_ptr[c];
        }
        let row_idx: Vec<usize> = pairs.iter().map(|p| p.1).collect();
        let entry = |row: usize, col: usize| -> usize {
            let s = &row_idx[col_ptr[col]..col_ptr[col + 1]];
            col_ptr[col] + s.binary_search(&row).expect("in the pattern")
        };
        let diag: Vec<usize> = (0..m).map(|r| entry(r, r)).collect();
        let mut products = Vec::new();
        for rows in &at {
            for &(a, sa) in rows {
                for &(b, sb) in rows {
                    if a >= b {
                        products.push((sa, sb, entry(a, b)));
                    }
                }
            }
        }
        let sym = SymbolicSparseColMatRef::new_checked(m, m, &col_ptr, None, &row_idx);
        let symbolic = factorize_symbolic_cholesky(
            sym,
            Side::Lower,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams::default(),
        )
        .ok()?;
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        Some(NormalEquations {
            m,
            elements,
            layout,
            jv: vec![0.0; cols.len()],
            row_ptr,
            cols,
            local_slot,
            products,
            values: vec![0.0; row_idx.len()],
            col_ptr,
            row_idx,
            diag,
            dmax: 0.0,
            l_values: vec![0.0; symbolic.len_val()],
            symbolic,
            mem: MemBuffer::new(req),
            local: Vec::new(),
        })
    }

    /// `J = C_q(t, q)` on the free coordinates (pinned columns left out).
    pub fn jacobian(&mut self, model: &Model, t: f64, q: &[f64]) {
        self.jv.fill(0.0);
        for (e, el) in self.elements.iter().enumerate() {
            let (_, rows, idx) = &self.layout[e];
            self.local.resize(rows * idx.len(), 0.0);
            el.jacobian(model, t, q, &mut self.local);
            for (x, &s) in self.local.iter().zip(&self.local_slot[e]) {
                if s != usize::MAX {
                    self.jv[s] += x;
                }
            }
        }
    }

    /// Whether every entry of `J` is finite.
    pub fn finite(&self) -> bool {
        self.jv.iter().all(|x| x.is_finite())
    }

    /// Factorize `J Jᵀ + μ max diag(J Jᵀ) I`; `false` when the factorization fails.
    pub fn factorize(&mut self, mu: f64) -> bool {
        self.values.fill(0.0);
        for &(a, b, s) in &self.products {
            self.values[s] += self.jv[a] * self.jv[b];
        }
        self.dmax = (self.diag.iter())
            .map(|&s| self.values[s])
            .fold(0.0f64, f64::max)
            .max(f64::MIN_POSITIVE);
        for &s in &self.diag {
            self.values[s] += mu * self.dmax;
        }
        let sym = SymbolicSparseColMatRef::new_checked(
            self.m,
            self.m,
            &self.col_ptr,
            None,
            &self.row_idx,
        );
        numeric_llt(
            &self.symbolic,
            SparseColMatRef::new(sym, &self.values),
            &mut self.l_values,
            &mut self.mem,
        )
    }

    /// An estimate of `λ_min / λ_max` of the last factorized matrix — near 0 when `J`'s rows
    /// are (nearly) dependent: a solve of a pseudo-random right-hand side grows by about
    /// `1/λ_min` along a dependent combination of rows, which it meets. `None`: not finite.
    pub fn conditioning(&mut self) -> Option<f64> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut x: Vec<f64> = (0..self.m)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 11) as f64) / ((1u64 << 53) as f64) + 0.5
            })
            .collect();
        self.solve(&mut x);
        let big = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        (big.is_finite()).then(|| 1.5 / (big * self.dmax).max(f64::MIN_POSITIVE))
    }

    /// `y ← (J Jᵀ + μD)⁻¹ y` with the last factorization.
    pub fn solve(&mut self, y: &mut [f64]) {
        let rhs = MatMut::from_column_major_slice_mut(y, self.m, 1);
        LltRef::new(&self.symbolic, &self.l_values).solve_in_place_with_conj(
            Conj::No,
            rhs,
            Par::Seq,
            MemStack::new(&mut self.mem),
        );
    }

    /// `out ← J x` (`x` over all coordinates).
    pub fn mul(&self, x: &[f64], out: &mut [f64]) {
        for (r, o) in out.iter_mut().enumerate() {
            *o = (self.row_ptr[r]..self.row_ptr[r + 1])
                .map(|s| self.jv[s] * x[self.cols[s]])
                .sum();
        }
    }

    /// `x ← x + s Jᵀ y` (`x` over all coordinates; pinned ones untouched).
    pub fn add_transpose(&self, y: &[f64], s: f64, x: &mut [f64]) {
        for (r, yr) in y.iter().enumerate() {
            for k in self.row_ptr[r]..self.row_ptr[r + 1] {
                x[self.cols[k]] += s * self.jv[k] * yr;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::elements::{AnchoredRod, Particle, Rod};

    /// Two particles on rods (anchor–A, A–B), the second rod written once or twice: the
    /// conditioning estimate is of order 1 for independent rows and at rounding for dependent
    /// ones (what sends initialization to the dense path, which names them); a least-norm
    /// correction `Δ = −Jᵀ(J Jᵀ)⁻¹ r` makes `J(v + Δ) = 0`.
    #[test]
    fn dependent_rows_show_in_the_factorization() {
        let build = |twice: bool| {
            let mut b = crate::model::Model::builder(4)
                .term(
                    [0, 1],
                    Particle {
                        mass: 1.0,
                        gravity: [0.0, -9.81],
                    },
                )
                .term(
                    [2, 3],
                    Particle {
                        mass: 1.0,
                        gravity: [0.0, -9.81],
                    },
                )
                .constraint(
                    "rod",
                    [0, 1],
                    AnchoredRod {
                        anchor: [0.0, 0.0],
                        length: 1.0,
                    },
                )
                .constraint("link", [0, 1, 2, 3], Rod { length: 1.0 });
            if twice {
                b = b.constraint("link again", [0, 1, 2, 3], Rod { length: 1.0 });
            }
            b.build().unwrap()
        };
        let q = [0.6, -0.8, 1.2, -1.6];
        let model = build(false);
        let mut ne = NormalEquations::new(&model, &[0, 1, 2, 3]).unwrap();
        ne.jacobian(&model, 0.0, &q);
        assert!(ne.factorize(0.0));
        let ratio = ne.conditioning().unwrap();
        assert!(ratio > 1e-3, "{ratio}");
        let mut v = vec![0.3, 0.1, -0.2, 0.5];
        let mut r = vec![0.0; 2];
        ne.mul(&v, &mut r);
        ne.solve(&mut r);
        ne.add_transpose(&r, -1.0, &mut v);
        let mut after = vec![0.0; 2];
        ne.mul(&v, &mut after);
        assert!(after.iter().all(|x| x.abs() < 1e-14), "{after:?}");
        let model = build(true);
        let mut ne = NormalEquations::new(&model, &[0, 1, 2, 3]).unwrap();
        ne.jacobian(&model, 0.0, &q);
        if ne.factorize(0.0) {
            let ratio = ne.conditioning().unwrap_or(0.0);
            assert!(ratio < 1e-12, "{ratio}");
        }
    }
}
