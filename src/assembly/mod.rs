//! Global assembly with a fixed sparsity pattern.
//!
//! The unknowns of every linear system are `(q, λ)` with `n + m` entries. The pattern of
//!
//! ```text
//! S = [ c_M·M + c_D·∂r/∂v + c_K·(∂r/∂q + ∂(C_qᵀλ)/∂q)   C_qᵀ ]
//!     [ C_q                                               0   ]
//! ```
//!
//! is the union of the local blocks of all terms and constraints. It is computed once; each
//! element keeps the *slots* (positions in the values array, CSC order) of its entries, so
//! assembling is a scatter-add into a preallocated array — no search, no allocation.

use crate::model::kernel::{ConstraintSlots, KernelCoefficients};
use crate::model::Model;
use std::collections::HashMap;

/// Compressed-column pattern of the iteration matrix and per-element slot maps.
pub struct Pattern {
    /// Dimension `n + m`.
    pub dim: usize,
    /// CSC column pointers (`dim + 1`).
    pub col_ptr: Vec<usize>,
    /// CSC row indices.
    pub row_idx: Vec<usize>,
    /// Per term: `N×N` slots, row-major.
    pub(crate) term_slots: Vec<Vec<usize>>,
    /// Per constraint block: (hessian, jacobian, jacobian transposed) slots.
    pub(crate) con_slots: Vec<[Vec<usize>; 3]>,
    /// Slot of each diagonal entry `(i, i)` of the dynamic rows, if present.
    pub(crate) diag_slots: Vec<Option<usize>>,
}

impl Pattern {
    /// Build the pattern of `model`.
    pub fn new(model: &Model) -> Self {
        let n = model.n;
        let dim = n + model.m;
        let mut entries: Vec<(usize, usize)> = Vec::new();
        for t in &model.terms {
            for &i in &t.indices {
                for &j in &t.indices {
                    entries.push((i, j));
                }
            }
        }
        for c in &model.constraints {
            for &i in &c.indices {
                for &j in &c.indices {
                    entries.push((i, j));
                }
            }
            for k in 0..c.item.rows() {
                for &j in &c.indices {
                    entries.push((n + c.row + k, j));
                    entries.push((j, n + c.row + k));
                }
            }
        }
        // CSC order: by column, then row.
        entries.sort_unstable_by_key(|&(r, c)| (c, r));
        entries.dedup();
        let mut col_ptr = vec![0usize; dim + 1];
        for &(_, c) in &entries {
            col_ptr[c + 1] += 1;
        }
        for c in 0..dim {
            col_ptr[c + 1] += col_ptr[c];
        }
        let row_idx: Vec<usize> = entries.iter().map(|&(r, _)| r).collect();
        let slot: HashMap<(usize, usize), usize> =
            entries.iter().enumerate().map(|(s, &e)| (e, s)).collect();
        let term_slots = model
            .terms
            .iter()
            .map(|t| {
                let mut s = Vec::with_capacity(t.indices.len().pow(2));
                for &i in &t.indices {
                    for &j in &t.indices {
                        s.push(slot[&(i, j)]);
                    }
                }
                s
            })
            .collect();
        let con_slots = model
            .constraints
            .iter()
            .map(|c| {
                let mut h = Vec::new();
                for &i in &c.indices {
                    for &j in &c.indices {
                        h.push(slot[&(i, j)]);
                    }
                }
                let (mut jac, mut jac_t) = (Vec::new(), Vec::new());
                for k in 0..c.item.rows() {
                    for &j in &c.indices {
                        jac.push(slot[&(n + c.row + k, j)]);
                        jac_t.push(slot[&(j, n + c.row + k)]);
                    }
                }
                [h, jac, jac_t]
            })
            .collect();
        let diag_slots = (0..n).map(|i| slot.get(&(i, i)).copied()).collect();
        Pattern {
            dim,
            col_ptr,
            row_idx,
            term_slots,
            con_slots,
            diag_slots,
        }
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }
}

/// Coefficients of one assembly: the iteration matrix is
/// `scale·(mass·M + damping·∂r/∂v + stiffness·∂r/∂q) + stiffness_lambda·∂(C_qᵀλ)/∂q`.
#[derive(Clone, Copy, Debug)]
pub struct AssemblyCoefficients {
    /// Factor on the dynamic residual rows and their Jacobian.
    pub scale: f64,
    /// Factor on `M`.
    pub mass: f64,
    /// Factor on `∂r/∂v`.
    pub damping: f64,
    /// Factor on `∂r/∂q`.
    pub stiffness: f64,
    /// Factor on `∂(C_qᵀλ)/∂q` (with λ as passed in).
    pub stiffness_lambda: f64,
}

/// Inputs of one evaluation at time `t`.
pub struct Point<'a> {
    /// Time.
    pub t: f64,
    /// Coordinates.
    pub q: &'a [f64],
    /// Velocities.
    pub v: &'a [f64],
    /// Accelerations.
    pub a: &'a [f64],
    /// Multipliers as they enter `C_qᵀλ` (possibly scaled).
    pub lambda: &'a [f64],
}

/// Residual `[scale·r_dyn + C_qᵀλ ; C]` into `res` (length `n + m`).
pub fn residual(model: &Model, s: &Point, scale: f64, res: &mut [f64]) {
    let n = model.n;
    res.fill(0.0);
    let (r, c) = res.split_at_mut(n);
    for t in &model.terms {
        t.item
            .add_residual(&t.indices, s.t, s.q, s.v, s.a, scale, r);
    }
    for con in &model.constraints {
        let rows = con.item.rows();
        con.item.add_residual(
            &con.indices,
            s.t,
            s.q,
            &s.lambda[con.row..con.row + rows],
            r,
            &mut c[con.row..con.row + rows],
        );
    }
}

/// Residual as in [`residual`] and the iteration matrix values (in pattern order).
pub fn residual_and_matrix(
    model: &Model,
    pattern: &Pattern,
    s: &Point,
    k: &AssemblyCoefficients,
    res: &mut [f64],
    values: &mut [f64],
) {
    let n = model.n;
    res.fill(0.0);
    values.fill(0.0);
    let (r, c) = res.split_at_mut(n);
    let coef = KernelCoefficients {
        scale: k.scale,
        mass: k.mass,
        damping: k.damping,
        stiffness: k.stiffness,
    };
    for (t, slots) in model.terms.iter().zip(&pattern.term_slots) {
        t.item
            .add_jacobian(&t.indices, s.t, s.q, s.v, s.a, &coef, r, values, slots);
    }
    for (con, sl) in model.constraints.iter().zip(&pattern.con_slots) {
        let rows = con.item.rows();
        con.item.add_jacobian(
            &con.indices,
            s.t,
            s.q,
            &s.lambda[con.row..con.row + rows],
            k.stiffness_lambda,
            r,
            &mut c[con.row..con.row + rows],
            values,
            &ConstraintSlots {
                hess: &sl[0],
                jac: &sl[1],
                jac_t: &sl[2],
            },
        );
    }
}

/// Constraint values `C(t, q)` into `c` (length `m`).
pub fn constraint_values(model: &Model, t: f64, q: &[f64], c: &mut [f64]) {
    for con in &model.constraints {
        let rows = con.item.rows();
        con.item
            .value(&con.indices, t, q, &mut c[con.row..con.row + rows]);
    }
}

/// Dense constraint Jacobian `C_q` (`m × n`).
pub fn constraint_jacobian_dense(model: &Model, t: f64, q: &[f64]) -> nalgebra::DMatrix<f64> {
    let mut j = nalgebra::DMatrix::zeros(model.m, model.n);
    for con in &model.constraints {
        con.item.dense_jacobian(&con.indices, t, q, con.row, &mut j);
    }
    j
}

/// `C_t` into `out` (length `m`).
pub fn constraint_time_derivative(model: &Model, t: f64, q: &[f64], out: &mut [f64]) {
    for con in &model.constraints {
        let rows = con.item.rows();
        con.item
            .time_derivative(&con.indices, t, q, &mut out[con.row..con.row + rows]);
    }
}

/// `γ = C_qq(v,v) + 2C_qt v + C_tt` into `out` (length `m`).
pub fn constraint_gamma(model: &Model, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
    for con in &model.constraints {
        let rows = con.item.rows();
        con.item
            .gamma(&con.indices, t, q, v, &mut out[con.row..con.row + rows]);
    }
}

/// Sum of term energies `[T, V, h]` (kinetic, potential, energy function `v·L_v − L`).
pub fn energies(model: &Model, t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
    let mut e = [0.0; 3];
    for term in &model.terms {
        let x = term.item.energy(&term.indices, t, q, v);
        for k in 0..3 {
            e[k] += x[k];
        }
    }
    e
}

/// Dense global blocks `(r, M, ∂r/∂v, ∂r/∂q)` of all terms, for checks and small problems.
pub fn dense_term_blocks(
    model: &Model,
    t: f64,
    q: &[f64],
    v: &[f64],
    a: &[f64],
) -> [nalgebra::DMatrix<f64>; 4] {
    let n = model.n;
    let mut out = [
        nalgebra::DMatrix::zeros(n, 1),
        nalgebra::DMatrix::zeros(n, n),
        nalgebra::DMatrix::zeros(n, n),
        nalgebra::DMatrix::zeros(n, n),
    ];
    for term in &model.terms {
        let b = term.item.dense_blocks(&term.indices, t, q, v, a);
        for (k, blk) in b.iter().enumerate() {
            for (li, &gi) in term.indices.iter().enumerate() {
                if k == 0 {
                    out[0][(gi, 0)] += blk[(li, 0)];
                } else {
                    for (lj, &gj) in term.indices.iter().enumerate() {
                        out[k][(gi, gj)] += blk[(li, lj)];
                    }
                }
            }
        }
    }
    out
}

/// Dense `Σ λ_k ∇²C_k` over all constraints (`n × n`).
pub fn dense_constraint_hessian(
    model: &Model,
    t: f64,
    q: &[f64],
    lambda: &[f64],
) -> nalgebra::DMatrix<f64> {
    let mut h = nalgebra::DMatrix::zeros(model.n, model.n);
    for con in &model.constraints {
        let rows = con.item.rows();
        let b = con
            .item
            .dense_blocks(&con.indices, t, q, &lambda[con.row..con.row + rows]);
        for (li, &gi) in con.indices.iter().enumerate() {
            for (lj, &gj) in con.indices.iter().enumerate() {
                h[(gi, gj)] += b[2][(li, lj)];
            }
        }
    }
    h
}

/// Generalized momenta `p = M(q) v` (exact `∂L/∂v` when `T` is quadratic in `v` with no linear
/// terms, as for every point-based mechanism) into `p` (length `n`). Allocates: for output.
pub fn momenta(model: &Model, pattern: &Pattern, t: f64, q: &[f64], v: &[f64], p: &mut [f64]) {
    let n = model.n;
    let zeros = vec![0.0; n];
    let lam = vec![0.0; model.m];
    let mut res = vec![0.0; pattern.dim];
    let mut values = vec![0.0; pattern.nnz()];
    let k = AssemblyCoefficients {
        scale: 1.0,
        mass: 1.0,
        damping: 0.0,
        stiffness: 0.0,
        stiffness_lambda: 0.0,
    };
    let pt = Point {
        t,
        q,
        v,
        a: &zeros,
        lambda: &lam,
    };
    residual_and_matrix(model, pattern, &pt, &k, &mut res, &mut values);
    p[..n].fill(0.0);
    for col in 0..n {
        for s in pattern.col_ptr[col]..pattern.col_ptr[col + 1] {
            let row = pattern.row_idx[s];
            if row < n {
                p[row] += values[s] * v[col];
            }
        }
    }
}
