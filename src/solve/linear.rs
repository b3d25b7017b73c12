//! Linear solvers for the iteration matrix, fed by the fixed-pattern assembly.
//!
//! * [`LinearSolverKind::Dense`]: the values are scattered into a dense column-major buffer and
//!   factorized in place by LU with partial pivoting — best for a few dozen unknowns.
//! * [`LinearSolverKind::Sparse`]: faer's sparse LU. The symbolic analysis (fill-reducing column
//!   ordering, elimination structure) is done once from the pattern; each refactorization reuses it
//!   and the numeric storage and scratch memory allocated the first time.
//! * [`LinearSolverKind::Jacobi`]: the diagonal of the iteration matrix only. For large
//!   unconstrained networks at small steps the scaled matrix `c_M M + γh D + βh² K` is dominated
//!   by the mass term, so Newton with its diagonal contracts by about `βh² k/(c_M m)` per
//!   iteration while each iteration costs one residual — far cheaper than streaming through LU
//!   factors of a 2D or 3D mesh. `Auto` starts there for large systems without constraints and
//!   switches to the sparse LU for good as soon as a fresh diagonal contracts poorly.

use crate::assembly::Pattern;
pub use crate::problem::LinearSolverKind;
use crate::solve::par::par_max;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::sparse::linalg::lu::{
    LuRef, LuSymbolicParams, NumericLu, SymbolicLu, factorize_symbolic_lu,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};

/// Largest system (`n + m`) that `Auto` solves densely.
pub const DENSE_LIMIT: usize = 48;

/// The matrix is (numerically) singular.
#[derive(Debug, Clone, PartialEq)]
pub struct Singular {
    /// What was found.
    pub detail: String,
}

pub(crate) enum LinearSolver {
    Dense(DenseLu),
    Sparse(Box<SparseLu>),
    Jacobi(Jacobi),
}

impl LinearSolver {
    /// The solver for `kind`. `Auto` gives dense LU up to [`DENSE_LIMIT`] unknowns, else Jacobi
    /// when every row has a diagonal entry (no constraints), else sparse LU.
    pub fn new(kind: LinearSolverKind, pattern: &Pattern) -> Result<Self, Singular> {
        let has_diag = pattern.dim == pattern.diag_slots.len()
            && pattern.diag_slots.iter().all(Option::is_some);
        Ok(match kind {
            LinearSolverKind::Auto if pattern.dim <= DENSE_LIMIT => {
                LinearSolver::Dense(DenseLu::new(pattern))
            }
            LinearSolverKind::Auto if has_diag => LinearSolver::Jacobi(Jacobi::new(pattern)),
            LinearSolverKind::Dense => LinearSolver::Dense(DenseLu::new(pattern)),
            LinearSolverKind::Jacobi if has_diag => LinearSolver::Jacobi(Jacobi::new(pattern)),
            LinearSolverKind::Jacobi => {
                return Err(Singular {
                    detail:
                        "the Jacobi solver needs a diagonal entry in every row (no constraints)"
                            .into(),
                });
            }
            _ => LinearSolver::Sparse(Box::new(SparseLu::new(pattern)?)),
        })
    }

    /// Whether this is an approximate (non-factorizing) solver.
    pub fn is_approximate(&self) -> bool {
        matches!(self, LinearSolver::Jacobi(_))
    }

    /// Factorize the matrix whose values (pattern order) are `values`.
    pub fn factorize(&mut self, pattern: &Pattern, values: &[f64]) -> Result<(), Singular> {
        match self {
            LinearSolver::Dense(d) => d.factorize(values),
            LinearSolver::Sparse(s) => s.factorize(pattern, values),
            LinearSolver::Jacobi(j) => j.factorize(values),
        }
    }

    /// Solve in place with the last factorization; fails if the result is not finite.
    pub fn solve(&mut self, rhs: &mut [f64]) -> Result<(), Singular> {
        self.solve_with(rhs, false)
    }

    /// As [`solve`](Self::solve); the diagonal solve of a long vector on rayon's threads when
    /// `parallel` (the same bits: `crate::solve::par`).
    pub(crate) fn solve_with(&mut self, rhs: &mut [f64], parallel: bool) -> Result<(), Singular> {
        let finite = match self {
            LinearSolver::Dense(d) => {
                d.solve(rhs);
                rhs.iter().all(|x| x.is_finite())
            }
            LinearSolver::Sparse(s) => {
                s.solve(rhs);
                rhs.iter().all(|x| x.is_finite())
            }
            LinearSolver::Jacobi(j) => j.solve(rhs, parallel),
        };
        if finite {
            Ok(())
        } else {
            Err(Singular {
                detail: "the solution of the linear system is not finite".into(),
            })
        }
    }
}

/// Dense LU with partial pivoting on a preallocated buffer.
pub(crate) struct DenseLu {
    n: usize,
    a: Vec<f64>,
    piv: Vec<usize>,
    /// Dense position (column-major) of each pattern slot.
    pos: Vec<usize>,
}

impl DenseLu {
    fn new(p: &Pattern) -> Self {
        let n = p.dim;
        let mut pos = vec![0; p.nnz()];
        for c in 0..n {
            for s in p.col_ptr[c]..p.col_ptr[c + 1] {
                pos[s] = c * n + p.row_idx[s];
            }
        }
        DenseLu {
            n,
            a: vec![0.0; n * n],
            piv: vec![0; n],
            pos,
        }
    }

    fn factorize(&mut self, values: &[f64]) -> Result<(), Singular> {
        let n = self.n;
        self.a.fill(0.0);
        for (s, &p) in self.pos.iter().enumerate() {
            self.a[p] += values[s];
        }
        let amax = self.a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if !amax.is_finite() {
            return Err(Singular {
                detail: "the matrix has non-finite entries".into(),
            });
        }
        let tiny = amax * 1e-14 * n as f64;
        // the small systems of explicit methods (a constrained pendulum: 3 × 3, at every
        // stage) with the size a constant, their loops unrolled: the same operations
        let (a, piv) = (&mut self.a[..], &mut self.piv[..]);
        match n {
            2 => eliminate(a, piv, tiny, 2),
            3 => eliminate(a, piv, tiny, 3),
            4 => eliminate(a, piv, tiny, 4),
            5 => eliminate(a, piv, tiny, 5),
            6 => eliminate(a, piv, tiny, 6),
            _ => eliminate(a, piv, tiny, n),
        }
    }

    fn solve(&self, b: &mut [f64]) {
        let (a, piv) = (&self.a[..], &self.piv[..]);
        match self.n {
            2 => substitute(a, piv, b, 2),
            3 => substitute(a, piv, b, 3),
            4 => substitute(a, piv, b, 4),
            5 => substitute(a, piv, b, 5),
            6 => substitute(a, piv, b, 6),
            n => substitute(a, piv, b, n),
        }
    }
}

/// LU with partial pivoting of the column-major `n × n` matrix `a` in place (`piv`: the row
/// exchanged with each), a pivot at most `tiny` refused. Always inlined: called with a constant
/// `n`, its loops unroll.
#[inline(always)]
fn eliminate(a: &mut [f64], piv: &mut [usize], tiny: f64, n: usize) -> Result<(), Singular> {
    let a = &mut a[..n * n];
    for k in 0..n {
        // pivot search in column k
        let mut p = k;
        let mut best = a[k * n + k].abs();
        for i in k + 1..n {
            let x = a[k * n + i].abs();
            if x > best {
                best = x;
                p = i;
            }
        }
        if best <= tiny {
            return Err(Singular {
                detail: format!("zero pivot in column {k}"),
            });
        }
        piv[k] = p;
        if p != k {
            for j in 0..n {
                a.swap(j * n + k, j * n + p);
            }
        }
        // the columns right of k, updated by column k below the diagonal (slices, so
        // the inner loops run without bounds checks and vectorize)
        let (left, right) = a.split_at_mut((k + 1) * n);
        let col = &mut left[k * n + k..(k + 1) * n];
        let d = 1.0 / col[0];
        let below = &mut col[1..];
        below.iter_mut().for_each(|x| *x *= d);
        for other in right.chunks_exact_mut(n) {
            let akj = other[k];
            if akj != 0.0 {
                for (x, l) in other[k + 1..].iter_mut().zip(below.iter()) {
                    *x -= l * akj;
                }
            }
        }
    }
    Ok(())
}

/// `b ← (LU)⁻¹ P b` with [`eliminate`]'s factors. Always inlined, as it.
#[inline(always)]
fn substitute(a: &[f64], piv: &[usize], b: &mut [f64], n: usize) {
    let b = &mut b[..n];
    for k in 0..n {
        b.swap(k, piv[k]);
    }
    for (j, col) in a[..n * n].chunks_exact(n).enumerate() {
        let (done, rest) = b.split_at_mut(j + 1);
        let bj = done[j];
        if bj != 0.0 {
            for (x, l) in rest.iter_mut().zip(&col[j + 1..]) {
                *x -= l * bj;
            }
        }
    }
    for (j, col) in a[..n * n].chunks_exact(n).enumerate().rev() {
        let (rest, from) = b.split_at_mut(j);
        from[0] /= col[j];
        let bj = from[0];
        for (x, u) in rest.iter_mut().zip(&col[..j]) {
            *x -= u * bj;
        }
    }
}

/// faer sparse LU with the symbolic analysis done once.
pub(crate) struct SparseLu {
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
    mem: MemBuffer,
    factored: bool,
}

impl SparseLu {
    fn new(p: &Pattern) -> Result<Self, Singular> {
        let sym = SymbolicSparseColMatRef::new_checked(p.dim, p.dim, &p.col_ptr, None, &p.row_idx);
        let symbolic =
            factorize_symbolic_lu(sym, LuSymbolicParams::default()).map_err(|e| Singular {
                detail: format!("symbolic LU failed: {e:?}"),
            })?;
        let req = StackReq::or(
            symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        );
        Ok(SparseLu {
            symbolic,
            numeric: NumericLu::new(),
            mem: MemBuffer::new(req),
            factored: false,
        })
    }

    fn factorize(&mut self, p: &Pattern, values: &[f64]) -> Result<(), Singular> {
        if values.iter().any(|x| !x.is_finite()) {
            return Err(Singular {
                detail: "the matrix has non-finite entries".into(),
            });
        }
        let sym = SymbolicSparseColMatRef::new_checked(p.dim, p.dim, &p.col_ptr, None, &p.row_idx);
        let mat = SparseColMatRef::new(sym, values);
        self.factored = false;
        self.symbolic
            .factorize_numeric_lu(
                &mut self.numeric,
                mat,
                Par::Seq,
                MemStack::new(&mut self.mem),
                Default::default(),
            )
            .map_err(|e| Singular {
                detail: format!("sparse LU: {e:?}"),
            })?;
        self.factored = true;
        Ok(())
    }

    fn solve(&mut self, b: &mut [f64]) {
        debug_assert!(self.factored);
        let n = b.len();
        let rhs = MatMut::from_column_major_slice_mut(b, n, 1);
        LuRef::new_unchecked(&self.symbolic, &self.numeric).solve_in_place_with_conj(
            Conj::No,
            rhs,
            Par::Seq,
            MemStack::new(&mut self.mem),
        );
    }
}

/// Diagonal approximation of the iteration matrix.
pub(crate) struct Jacobi {
    slots: Vec<usize>,
    inv: Vec<f64>,
}

impl Jacobi {
    fn new(p: &Pattern) -> Self {
        let slots: Vec<usize> = p.diag_slots.iter().map(|s| s.expect("checked")).collect();
        Jacobi {
            inv: vec![0.0; slots.len()],
            slots,
        }
    }
    fn factorize(&mut self, values: &[f64]) -> Result<(), Singular> {
        for (i, (&s, inv)) in self.slots.iter().zip(self.inv.iter_mut()).enumerate() {
            let d = values[s];
            if d == 0.0 || !d.is_finite() {
                return Err(Singular {
                    detail: format!("zero or non-finite diagonal entry in row {i}"),
                });
            }
            *inv = 1.0 / d;
        }
        Ok(())
    }
    /// `b ← D⁻¹ b`; whether every entry is finite.
    fn solve(&self, b: &mut [f64], parallel: bool) -> bool {
        let non_finite = par_max!(parallel; b = b, inv = &self.inv[..]; {
            let mut finite = true;
            for (x, d) in b.iter_mut().zip(inv) {
                *x *= d;
                finite &= x.is_finite();
            }
            if finite { 0.0 } else { f64::NAN }
        });
        !non_finite.is_nan()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dense pattern of dimension `n` (every entry a slot, column by column).
    fn dense(n: usize) -> Pattern {
        Pattern {
            dim: n,
            col_ptr: (0..=n).map(|c| c * n).collect(),
            row_idx: (0..n * n).map(|s| s % n).collect(),
            term_slots: Vec::new(),
            con_slots: Vec::new(),
            diag_slots: Vec::new(),
        }
    }

    /// Saddle-point matrices `[M Gᵀ; G 0]` (a zero block: pivoting needed) of every size up to
    /// 9, the fixed sizes (2–6) and the general loop alike: `A x = b` to rounding, and a
    /// singular matrix refused.
    #[test]
    fn dense_lu_solves_small_saddle_point_systems() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64) / ((1u64 << 53) as f64) - 0.5
        };
        for dim in 1..=9 {
            let m = dim / 3;
            let n = dim - m;
            let mut a = vec![0.0; dim * dim];
            for c in 0..dim {
                for r in 0..dim {
                    let v = match (r < n, c < n) {
                        (true, true) if r == c => 2.0 + next(),
                        (true, true) => 0.1 * next(),
                        _ => 0.0,
                    };
                    a[c * dim + r] = v;
                }
            }
            for k in 0..m {
                for j in 0..n {
                    let g = next() + if j == k { 1.0 } else { 0.0 };
                    a[j * dim + n + k] = g;
                    a[(n + k) * dim + j] = g;
                }
            }
            let x: Vec<f64> = (0..dim).map(|_| next()).collect();
            let mut b: Vec<f64> = (0..dim)
                .map(|r| (0..dim).map(|c| a[c * dim + r] * x[c]).sum())
                .collect();
            let p = dense(dim);
            let mut lu = DenseLu::new(&p);
            lu.factorize(&a).expect("regular");
            lu.solve(&mut b);
            let e = b
                .iter()
                .zip(&x)
                .fold(0.0f64, |w, (u, v)| w.max((u - v).abs()));
            assert!(e < 1e-13, "dimension {dim}: {e:e}");
            // a repeated constraint row: singular
            if m >= 2 {
                for j in 0..dim {
                    a[j * dim + n + 1] = a[j * dim + n];
                }
                for r in 0..dim {
                    a[(n + 1) * dim + r] = a[n * dim + r];
                }
                assert!(lu.factorize(&a).is_err(), "dimension {dim}");
            }
        }
    }
}
