//! Is the kinetic energy positive for every motion the constraints allow? The mass matrix
//! `M = ∂²T/∂v²` of a state must be positive definite on the constraint manifold,
//!
//! ```text
//! zᵀ M z > 0   for every z ≠ 0 with C_q z = 0,
//! ```
//!
//! or the equations of motion describe no mechanism: a negative mass accelerates against the
//! force, a singular one has no acceleration at all. [`MassCheck`] decides it at a state:
//!
//! 1. `M` alone by a sparse Cholesky factorization (symbolic analysis once, no allocation
//!    after): positive definite on all of `ℝⁿ`, so on the manifold — the usual case.
//! 2. Otherwise each term's own mass block: if every one is positive semidefinite, so is their
//!    sum `M`, and with constraints it is then positive definite on the manifold exactly when
//!    `[M C_qᵀ; C_q 0]` is regular, which every solve of accelerations already demands (massless
//!    points held by constraints pass here); without constraints `M` is singular.
//! 3. If a term's block is indefinite (a coupling term of a pendulum chain is, alone), the
//!    reduced matrix `Zᵀ M Z` on a basis `Z` of the null space of `C_q` decides, up to
//!    [`MASS_CHECK_DENSE_LIMIT`] coordinates.
//!
//! A failure names the term (by the coordinates it acts on) whose kinetic energy is negative
//! along the offending motion, and the coordinates that motion moves most.

use crate::assembly::{self, Pattern, Point};
use crate::model::Model;
use faer::dyn_stack::MemBuffer;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Par, Side};
use nalgebra::{DMatrix, DVector};

/// Above this many coordinates the reduced matrix of step 3 is not formed (dense: `n²` numbers,
/// `n³` operations); a model whose terms' mass blocks are indefinite and whose `M` is not
/// positive definite on all of `ℝⁿ` is then accepted unchecked.
pub const MASS_CHECK_DENSE_LIMIT: usize = 2000;

/// The mass matrix's positive definiteness on the constraint manifold at a state; the
/// workspace is kept between checks, so a check that passes allocates nothing.
///
/// ```
/// use lagrangian::library::pendulum::planar_pendulum;
/// use lagrangian::solve::MassCheck;
/// // a pendulum of mass 1 on a rod: M = I, positive definite
/// let model = planar_pendulum(1.0, 1.0, 9.81);
/// let mut check = MassCheck::new(&model);
/// assert_eq!(check.check(&model, 0.0, &[1.0, 0.0], &[0.0, 0.0]), Ok(true));
/// ```
pub struct MassCheck {
    pattern: Pattern,
    values: Vec<f64>,
    res: Vec<f64>,
    zeros: Vec<f64>,
    /// Pattern slot of every entry of `M`'s lower triangle, in the lower triangle's CSC order.
    slots: Vec<usize>,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    lower: Vec<f64>,
    symbolic: Option<SymbolicCholesky<usize>>,
    l_values: Vec<f64>,
    mem: MemBuffer,
}

/// Why a state's mass matrix is not positive definite on the constraint manifold.
#[derive(Clone, Debug, PartialEq)]
pub struct MassDefect {
    /// `true`: some allowed motion has negative kinetic energy; `false`: one has none.
    pub negative: bool,
    /// The term and the motion, in words.
    pub detail: String,
}

impl MassCheck {
    /// The check for `model`'s states: the pattern of `M`'s lower triangle and its symbolic
    /// Cholesky analysis (fill-reducing ordering) done once.
    pub fn new(model: &Model) -> Self {
        let pattern = Pattern::new(model);
        let n = model.n_coords();
        let mut col_ptr = vec![0];
        let (mut row_idx, mut slots) = (Vec::new(), Vec::new());
        for j in 0..n {
            for s in pattern.col_ptr[j]..pattern.col_ptr[j + 1] {
                let i = pattern.row_idx[s];
                if i >= j && i < n {
                    row_idx.push(i);
                    slots.push(s);
                }
            }
            col_ptr.push(row_idx.len());
        }
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
        let symbolic = factorize_symbolic_cholesky(
            sym,
            Side::Lower,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams::default(),
        )
        .ok();
        let (l_len, req) = match &symbolic {
            Some(s) => (
                s.len_val(),
                s.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()),
            ),
            None => (0, faer::dyn_stack::StackReq::empty()),
        };
        MassCheck {
            values: vec![0.0; pattern.nnz()],
            res: vec![0.0; pattern.dim],
            zeros: vec![0.0; pattern.dim],
            pattern,
            lower: vec![0.0; slots.len()],
            slots,
            col_ptr,
            row_idx,
            symbolic,
            l_values: vec![0.0; l_len],
            mem: MemBuffer::new(req),
        }
    }

    /// Whether `M(t, q, v)` is positive definite on the constraint manifold at `(t, q)` (steps
    /// 1–3 of the module's description): `Ok(true)` when `M` itself is (found without
    /// allocating), `Ok(false)` when only on the manifold, the defect otherwise.
    pub fn check(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<bool, MassDefect> {
        if self.positive_definite(model, t, q, v) {
            return Ok(true);
        }
        self.diagnose(model, t, q, v).map(|()| false)
    }

    /// Step 1: `M` by sparse Cholesky.
    fn positive_definite(&mut self, model: &Model, t: f64, q: &[f64], v: &[f64]) -> bool {
        let n = model.n_coords();
        if n == 0 {
            return true;
        }
        assembly::augmented_matrix(
            model,
            &self.pattern,
            (t, q, v),
            &self.zeros,
            &mut self.res,
            &mut self.values,
        );
        for (l, &s) in self.lower.iter_mut().zip(&self.slots) {
            *l = self.values[s];
        }
        if self.lower.iter().any(|x| !x.is_finite()) {
            return false;
        }
        let Some(symbolic) = &self.symbolic else {
            return false;
        };
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx);
        let a = SparseColMatRef::new(sym, &self.lower);
        super::normal::numeric_llt(symbolic, a, &mut self.l_values, &mut self.mem)
    }

    /// Steps 2 and 3, once step 1 failed (allocates).
    fn diagnose(&self, model: &Model, t: f64, q: &[f64], v: &[f64]) -> Result<(), MassDefect> {
        let (n, m) = (model.n_coords(), model.n_constraints());
        let zeros = vec![0.0; n];
        let p = Point {
            t,
            q,
            v,
            a: &zeros,
            lambda: &[],
        };
        let blocks = term_mass_blocks(model, &p);
        let scale = blocks
            .iter()
            .map(|b| b.mass.diagonal().amax())
            .fold(0.0f64, f64::max)
            .max(f64::MIN_POSITIVE);
        if let Some(b) = blocks
            .iter()
            .find(|b| b.mass.iter().any(|x| !x.is_finite()))
        {
            return Err(MassDefect {
                negative: false,
                detail: format!(
                    "the mass matrix of {} is not finite",
                    term_name(model, &b.indices)
                ),
            });
        }
        let semidefinite = blocks
            .iter()
            .all(|b| smallest_eigen(&b.mass).0 >= -1e-12 * scale);
        if semidefinite && m > 0 {
            // M ⪰ 0: positive definite on the manifold iff [M C_qᵀ; C_q 0] is regular,
            // which the solve of the accelerations checks
            return Ok(());
        }
        let basis = if m == 0 {
            DMatrix::identity(n, n)
        } else if n <= MASS_CHECK_DENSE_LIMIT {
            null_space(&assembly::constraint_jacobian_dense(model, t, q), n)
        } else {
            return Ok(());
        };
        let global = dense_mass(n, &blocks);
        let reduced = basis.transpose() * &global * &basis;
        let reduced = (&reduced + reduced.transpose()) * 0.5;
        if reduced.nrows() == 0 {
            return Ok(());
        }
        let eig = nalgebra::SymmetricEigen::new(reduced);
        let k = eig.eigenvalues.imin();
        let (lowest, y) = (eig.eigenvalues[k], eig.eigenvectors.column(k));
        let largest = eig.eigenvalues.amax().max(f64::MIN_POSITIVE);
        if lowest > 1e-12 * largest {
            return Ok(());
        }
        let z = &basis * y;
        Err(describe(model, &blocks, &z, lowest < -1e-12 * largest))
    }
}

/// One term element's mass block and where it sits.
struct TermMass {
    indices: Vec<usize>,
    mass: DMatrix<f64>,
}

/// The mass block `∂r/∂a` of every term element at `p` (dense, local).
fn term_mass_blocks(model: &Model, p: &Point) -> Vec<TermMass> {
    let mut out = Vec::new();
    for g in &model.terms {
        for e in 0..g.len() {
            let [_, mass, _, _] = g.dense_blocks(e, p);
            if mass.iter().all(|&x| x == 0.0) {
                continue;
            }
            out.push(TermMass {
                indices: g.indices(e).to_vec(),
                mass: (&mass + mass.transpose()) * 0.5,
            });
        }
    }
    out
}

/// `M` assembled densely from the blocks.
fn dense_mass(n: usize, blocks: &[TermMass]) -> DMatrix<f64> {
    let mut global = DMatrix::zeros(n, n);
    for b in blocks {
        for (li, &gi) in b.indices.iter().enumerate() {
            for (lj, &gj) in b.indices.iter().enumerate() {
                global[(gi, gj)] += b.mass[(li, lj)];
            }
        }
    }
    global
}

/// The smallest eigenvalue of a symmetric matrix and its unit eigenvector.
fn smallest_eigen(a: &DMatrix<f64>) -> (f64, DVector<f64>) {
    if a.nrows() == 0 {
        return (f64::INFINITY, DVector::zeros(0));
    }
    let eig = nalgebra::SymmetricEigen::new(a.clone());
    let k = eig.eigenvalues.imin();
    (eig.eigenvalues[k], eig.eigenvectors.column(k).into_owned())
}

/// "the term on θ, φ": a term by the coordinates it acts on.
fn term_name(model: &Model, indices: &[usize]) -> String {
    let names = model.coordinate_names();
    let on: Vec<&str> = indices.iter().map(|&i| names[i].as_str()).collect();
    format!("the term on {}", on.join(", "))
}

/// The defect along the motion `z`: the term with the most negative `zᵀ M_e z` (or, when none
/// is negative, the coordinates `z` moves that no term gives mass).
fn describe(model: &Model, blocks: &[TermMass], z: &DVector<f64>, negative: bool) -> MassDefect {
    let names = model.coordinate_names();
    let mut moved: Vec<usize> = (0..z.len()).filter(|&i| z[i].abs() > 0.3).collect();
    if moved.is_empty() {
        moved.push(z.iamax());
    }
    moved.sort_by(|&a, &b| z[b].abs().total_cmp(&z[a].abs()));
    moved.truncate(4);
    let along: Vec<&str> = moved.iter().map(|&i| names[i].as_str()).collect();
    let along = along.join(", ");
    let energy = |b: &TermMass| {
        let local = DVector::from_iterator(b.indices.len(), b.indices.iter().map(|&i| z[i]));
        local.dot(&(&b.mass * &local))
    };
    let worst = blocks
        .iter()
        .map(|b| (energy(b), b))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    match worst {
        Some((e, b)) if negative && e < 0.0 => MassDefect {
            negative: true,
            detail: format!(
                "{} has a negative kinetic energy for a motion along {along}",
                term_name(model, &b.indices)
            ),
        },
        _ if negative => MassDefect {
            negative: true,
            detail: format!("the kinetic energy is negative for a motion along {along}"),
        },
        _ => MassDefect {
            negative: false,
            detail: format!(
                "a motion along {along} has no kinetic energy (no term gives it mass there)"
            ),
        },
    }
}

/// An orthonormal basis (`n × f`) of the null space of `c` (`m × n`), from the SVD of `c`
/// padded to a square matrix; singular values below `1e-10 · σ_max` count as zero.
pub(crate) fn null_space(c: &DMatrix<f64>, n: usize) -> DMatrix<f64> {
    if c.nrows() == 0 {
        return DMatrix::identity(n, n);
    }
    let rows = c.nrows().max(n);
    let mut square = DMatrix::zeros(rows, n);
    square.rows_mut(0, c.nrows()).copy_from(c);
    let svd = square.svd(false, true);
    let vt = svd.v_t.expect("the SVD was asked for V");
    let smax = svd.singular_values.iter().fold(0.0f64, |m, x| m.max(*x));
    let free: Vec<usize> = (0..n)
        .filter(|&i| svd.singular_values[i] <= 1e-10 * smax)
        .collect();
    let mut basis = DMatrix::zeros(n, free.len());
    for (k, &i) in free.iter().enumerate() {
        basis.column_mut(k).copy_from(&vt.row(i).transpose());
    }
    basis
}
