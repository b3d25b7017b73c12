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

mod groups;

use crate::expr::taylor::TaylorVar;
use crate::model::Model;
use crate::model::group::ConstraintSlots;
pub use crate::model::group::{Point, TaylorPoint};
use crate::model::kernel::KernelCoefficients;

/// Compressed-column pattern of the iteration matrix and per-element slot maps.
pub struct Pattern {
    /// Dimension `n + m`.
    pub dim: usize,
    /// CSC column pointers (`dim + 1`).
    pub col_ptr: Vec<usize>,
    /// CSC row indices.
    pub row_idx: Vec<usize>,
    /// Per term group: `N×N` slots per element, row-major.
    pub(crate) term_slots: Vec<Vec<usize>>,
    /// Per constraint group: hessian, jacobian and transposed jacobian slots.
    pub(crate) con_slots: Vec<ConstraintSlots>,
    /// Slot of each diagonal entry `(i, i)` of the dynamic rows, if present.
    pub(crate) diag_slots: Vec<Option<usize>>,
}

impl Pattern {
    /// No entries, for a solver that needs no matrix (a tree's accelerations by articulated
    /// bodies): `dim` is `n + m` all the same.
    pub fn empty(model: &Model) -> Self {
        let dim = model.n + model.m;
        Pattern {
            dim,
            col_ptr: vec![0; dim + 1],
            row_idx: Vec::new(),
            term_slots: Vec::new(),
            con_slots: Vec::new(),
            diag_slots: vec![None; model.n],
        }
    }
    /// Build the pattern of `model`.
    pub fn new(model: &Model) -> Self {
        let n = model.n;
        let dim = n + model.m;
        let mut entries: Vec<(usize, usize)> = Vec::new();
        for g in &model.terms {
            for e in 0..g.len() {
                let idx = g.indices(e);
                for &i in idx {
                    entries.extend(idx.iter().map(|&j| (i, j)));
                }
            }
        }
        for g in &model.constraints {
            for e in 0..g.len() {
                let idx = g.indices(e);
                for &i in idx {
                    entries.extend(idx.iter().map(|&j| (i, j)));
                }
                for k in 0..g.rows() {
                    for &j in idx {
                        entries.push((n + g.row(e) + k, j));
                        entries.push((j, n + g.row(e) + k));
                    }
                }
            }
        }
        // CSC order: the entries bucketed by column (a counting sort), then each column's rows
        // sorted and deduplicated
        let mut start = vec![0usize; dim + 1];
        for &(_, c) in &entries {
            start[c + 1] += 1;
        }
        for c in 0..dim {
            start[c + 1] += start[c];
        }
        let mut rows = vec![0usize; entries.len()];
        let mut fill = start.clone();
        for &(r, c) in &entries {
            rows[fill[c]] = r;
            fill[c] += 1;
        }
        drop(entries);
        let mut col_ptr = vec![0usize; dim + 1];
        let mut row_idx = Vec::with_capacity(rows.len());
        for c in 0..dim {
            let col = &mut rows[start[c]..start[c + 1]];
            col.sort_unstable();
            for (k, &r) in col.iter().enumerate() {
                if k == 0 || col[k - 1] != r {
                    row_idx.push(r);
                }
            }
            col_ptr[c + 1] = row_idx.len();
        }
        row_idx.shrink_to_fit();
        // the slot of entry (i, j): a binary search in column j
        let find = |i: usize, j: usize| -> Option<usize> {
            let (a, b) = (col_ptr[j], col_ptr[j + 1]);
            row_idx[a..b].binary_search(&i).ok().map(|k| a + k)
        };
        let slot =
            |i: usize, j: usize| find(i, j).expect("every element's entries are in the pattern");
        let term_slots = model
            .terms
            .iter()
            .map(|g| {
                let mut s = Vec::with_capacity(g.len() * g.size().pow(2));
                for e in 0..g.len() {
                    let idx = g.indices(e);
                    for &i in idx {
                        s.extend(idx.iter().map(|&j| slot(i, j)));
                    }
                }
                s
            })
            .collect();
        let con_slots = model
            .constraints
            .iter()
            .map(|g| {
                let mut s = ConstraintSlots::default();
                for e in 0..g.len() {
                    let idx = g.indices(e);
                    for &i in idx {
                        s.hess.extend(idx.iter().map(|&j| slot(i, j)));
                    }
                    for k in 0..g.rows() {
                        let row = n + g.row(e) + k;
                        s.jac.extend(idx.iter().map(|&j| slot(row, j)));
                        s.jac_t.extend(idx.iter().map(|&j| slot(j, row)));
                    }
                }
                s
            })
            .collect();
        let diag_slots = (0..n).map(|i| find(i, i)).collect();
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

/// Residual `[scale·r_dyn + C_qᵀλ ; C]` into `res` (length `n + m`).
pub fn residual(model: &Model, s: &Point, scale: f64, res: &mut [f64]) {
    let n = model.n;
    res.fill(0.0);
    let (r, c) = res.split_at_mut(n);
    for g in &model.terms {
        g.add_residual(s, scale, r);
    }
    for g in &model.constraints {
        g.add_residual(s, r, c);
    }
}

/// The forces at zero acceleration `r(t, q, v, 0)` of a model without constraints into `res`
/// (`n` entries): `constant`, the sum of the groups whose residual at rest is the same in every
/// state ([`Terms::constant_at_rest`](crate::model::group::Terms::constant_at_rest), found by
/// [`forces_constant_at_rest`]), plus the groups `varying` evaluated at `s` (`s.a` zeros).
pub fn forces_at_rest(
    model: &Model,
    s: &Point,
    constant: &[f64],
    varying: &[usize],
    res: &mut [f64],
) {
    res[..model.n].copy_from_slice(constant);
    for &g in varying {
        model.terms[g].add_residual(s, 1.0, &mut res[..model.n]);
    }
}

/// The sum at `s` (`s.a` zeros) of the term groups whose residual at rest is the same in every
/// state, and the other groups' indices: what [`forces_at_rest`] takes.
pub fn forces_constant_at_rest(model: &Model, s: &Point) -> (Vec<f64>, Vec<usize>) {
    let mut constant = vec![0.0; model.n];
    let mut varying = Vec::new();
    for (g, group) in model.terms.iter().enumerate() {
        match group.constant_at_rest() {
            true => group.add_residual(s, 1.0, &mut constant),
            false => varying.push(g),
        }
    }
    (constant, varying)
}

/// `Σ_g |r_g|` over the term groups (springs, loads, masses, … each summed first) into
/// `out` (length `n`): the size of the forces that balance each other in `r`, a scale to judge
/// a residual against.
pub fn gross_residual(model: &Model, s: &Point, out: &mut [f64]) {
    let n = model.n;
    out[..n].fill(0.0);
    let mut r = vec![0.0; n];
    for g in &model.terms {
        r.fill(0.0);
        g.add_residual(s, 1.0, &mut r);
        for (o, x) in out.iter_mut().zip(&r) {
            *o += x.abs();
        }
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
        mass: k.mass,
        damping: k.damping,
        stiffness: k.stiffness,
    };
    for (g, slots) in model.terms.iter().zip(&pattern.term_slots) {
        g.add_jacobian(s, k.scale, &coef, r, values, slots);
    }
    for (g, slots) in model.constraints.iter().zip(&pattern.con_slots) {
        g.add_jacobian(s, k.stiffness_lambda, r, c, values, slots);
    }
}

/// `[M C_qᵀ; C_q 0]` at `(t, q, v)` into `values` (pattern order) and the forces at zero
/// acceleration `r(t, q, v, 0)` into `res`: the matrix of a state's accelerations and
/// multipliers. `zeros` holds at least `max(n, m)` zeros.
pub fn augmented_matrix(
    model: &Model,
    pattern: &Pattern,
    (t, q, v): (f64, &[f64], &[f64]),
    zeros: &[f64],
    res: &mut [f64],
    values: &mut [f64],
) {
    let k = AssemblyCoefficients {
        scale: 1.0,
        mass: 1.0,
        damping: 0.0,
        stiffness: 0.0,
        stiffness_lambda: 0.0,
    };
    residual_and_matrix(
        model,
        pattern,
        &at_rest(model, (t, q, v), zeros),
        &k,
        res,
        values,
    );
}

/// The point `(t, q, v)` with zero accelerations and multipliers (from `zeros`, at least
/// `max(n, m)` long): where a state's forces `r(t, q, v, 0)` and constraints are evaluated.
fn at_rest<'a>(
    model: &Model,
    (t, q, v): (f64, &'a [f64], &'a [f64]),
    zeros: &'a [f64],
) -> Point<'a> {
    Point {
        t,
        q,
        v,
        a: &zeros[..model.n],
        lambda: &zeros[..model.m],
    }
}

/// The residual `r + C_qᵀλ` on Taylor series in time along the series of a motion into `res`
/// (length `n`), for the Taylor-series integrator. `Err` names the first kernel type without a
/// form on series.
pub fn taylor_residual(
    model: &Model,
    s: &TaylorPoint,
    res: &mut [TaylorVar],
) -> Result<(), &'static str> {
    res.fill(TaylorVar::constant(0.0));
    for g in &model.terms {
        g.add_taylor_residual(s, res)?;
    }
    for g in &model.constraints {
        g.add_taylor_force(s, res)?;
    }
    Ok(())
}

/// Constraint values `C(t, q)` on Taylor series in time into `c` (length `m`). `Err` names the
/// first kernel type without a form on series.
pub fn taylor_constraints(
    model: &Model,
    s: &TaylorPoint,
    c: &mut [TaylorVar],
) -> Result<(), &'static str> {
    for g in &model.constraints {
        g.taylor_values(s, c)?;
    }
    Ok(())
}

/// Constraint values `C(t, q)` into `c` (length `m`).
pub fn constraint_values(model: &Model, t: f64, q: &[f64], c: &mut [f64]) {
    for g in &model.constraints {
        g.values(t, q, c);
    }
}

/// Dense constraint Jacobian `C_q` (`m × n`).
pub fn constraint_jacobian_dense(model: &Model, t: f64, q: &[f64]) -> nalgebra::DMatrix<f64> {
    let mut j = nalgebra::DMatrix::zeros(model.m, model.n);
    for g in &model.constraints {
        g.add_dense_jacobian(t, q, &mut j);
    }
    j
}

/// `C_t` into `out` (length `m`).
pub fn constraint_time_derivative(model: &Model, t: f64, q: &[f64], out: &mut [f64]) {
    for g in &model.constraints {
        g.time_derivative(t, q, out);
    }
}

/// `C_q` at `(t, q)` into the dense row-major `m × n` matrix `jac` and `C` into `c` (length
/// `m`): a projection's constraint rows without the sparse pattern.
pub fn constraint_rows(model: &Model, (t, q): (f64, &[f64]), jac: &mut [f64], c: &mut [f64]) {
    jac.fill(0.0);
    for g in &model.constraints {
        g.add_rows(t, q, jac, c);
    }
}

/// `C_q` at `(t, q)` into the dense row-major `m × n` matrix `jac` and
/// `γ = C_qq(v,v) + 2C_qt v + C_tt` into `gamma` (length `m`): a state's constraint rows for the
/// accelerations, without the sparse pattern (the Schur complement of a small model).
pub fn constraint_rows_and_gamma(
    model: &Model,
    (t, q, v): (f64, &[f64], &[f64]),
    jac: &mut [f64],
    gamma: &mut [f64],
) {
    jac.fill(0.0);
    for g in &model.constraints {
        g.add_rows_and_gamma(t, q, v, jac, gamma);
    }
}

/// `γ = C_qq(v,v) + 2C_qt v + C_tt` into `out` (length `m`).
pub fn constraint_gamma(model: &Model, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
    for g in &model.constraints {
        g.gamma(t, q, v, out);
    }
}

/// Sum of term energies `[T, V, h]` (kinetic, potential, energy function `v·L_v − L`).
pub fn energies(model: &Model, t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
    let mut e = [0.0; 3];
    for g in &model.terms {
        let x = g.energy(t, q, v);
        for k in 0..3 {
            e[k] += x[k];
        }
    }
    e
}

/// Sum of the term powers `[Q·v, v·∂R/∂v, −∂L/∂t]`: applied forces, Rayleigh dissipation and
/// an explicit time dependence of `L` (see [`TermKernel::power`](crate::model::TermKernel::power)).
pub fn powers(model: &Model, t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
    let mut e = [0.0; 3];
    for g in &model.terms {
        let x = g.power(t, q, v);
        for k in 0..3 {
            e[k] += x[k];
        }
    }
    e
}

/// The first term element whose Rayleigh function feeds energy in at `(t, q, v)`:
/// `v·∂R/∂v < 0` beyond round-off (below `−10⁻⁹` of the dissipation summed over all elements,
/// and more than `10⁻¹²` of the energy scale `T + |V|` over a time `dt`), described for an
/// error message with its power. A Rayleigh function is nonnegative with its minimum 0 at
/// `v = 0`, so its power is nonnegative (for a convex `R`, `v·∇R(v) ≥ R(v) − R(0) ≥ 0`).
pub fn negative_dissipation(
    model: &Model,
    t: f64,
    q: &[f64],
    v: &[f64],
    dt: f64,
) -> Option<(String, f64)> {
    let mut total = 0.0;
    let mut worst: Option<(usize, usize, f64)> = None;
    for (k, g) in model.terms.iter().enumerate() {
        for e in 0..g.len() {
            let d = g.element_power(e, t, q, v)[1];
            total += d.abs();
            if worst.is_none_or(|w| d < w.2) {
                worst = Some((k, e, d));
            }
        }
    }
    let (k, e, d) = worst.filter(|w| w.2 < -1e-9 * total)?;
    let [kinetic, potential, _] = energies(model, t, q, v);
    if !(-d * dt > 1e-12 * (kinetic + potential.abs())) {
        return None;
    }
    let names = &model.names;
    let on: Vec<&str> = (model.terms[k].indices(e).iter())
        .map(|&i| names[i].as_str())
        .collect();
    Some((format!("the term on {}", on.join(", ")), d))
}

/// Every term element's largest force `max |r_e(t, q, v, 0)|` (term groups in order, their
/// elements in order): a baseline to tell a blow-up by ([`grown_forces`]).
pub fn element_forces(model: &Model, t: f64, q: &[f64], v: &[f64]) -> Vec<f64> {
    let zeros = vec![0.0; model.n];
    let p = Point {
        t,
        q,
        v,
        a: &zeros,
        lambda: &[],
    };
    let mut out = Vec::with_capacity(model.n_terms());
    for g in &model.terms {
        out.extend((0..g.len()).map(|e| g.element_force(e, &p)));
    }
    out
}

/// The term whose forces grew most against `start` ([`element_forces`] of an earlier state of
/// the same model), when they grew at least `10³`-fold and are the largest of the model's now:
/// the term described for an error message, its force now, and the growth.
pub fn grown_forces(
    model: &Model,
    start: &[f64],
    t: f64,
    q: &[f64],
    v: &[f64],
) -> Option<(String, f64, f64)> {
    let now = element_forces(model, t, q, v);
    if now.len() != start.len() {
        return None;
    }
    let largest = now.iter().fold(0.0f64, |m, x| m.max(*x));
    let floor = 1e-12
        * start
            .iter()
            .fold(0.0f64, |m, x| m.max(*x))
            .max(f64::MIN_POSITIVE);
    let (k, growth) = (now.iter().zip(start))
        .map(|(f, f0)| f / f0.max(floor))
        .enumerate()
        .filter(|&(k, g)| g >= 1e3 && now[k] >= 0.1 * largest)
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let mut e = k;
    for g in &model.terms {
        if e < g.len() {
            let on: Vec<&str> = (g.indices(e).iter())
                .map(|&i| model.names[i].as_str())
                .collect();
            return Some((format!("the term on {}", on.join(", ")), now[k], growth));
        }
        e -= g.len();
    }
    None
}

/// The power of the driving (rheonomic) constraints, `λᵀ C_t`, with `ct` a workspace of
/// length `m` (zero for scleronomic constraints).
pub fn drive_power(model: &Model, t: f64, q: &[f64], lambda: &[f64], ct: &mut [f64]) -> f64 {
    constraint_time_derivative(model, t, q, ct);
    ct.iter().zip(lambda).map(|(c, l)| c * l).sum()
}

/// Which element makes the residual at `p` non-finite, described for an error message: the
/// constraint by its name, a term by the coordinates it acts on. `None` when every element is
/// finite there (or the state itself is not).
pub fn locate_non_finite(model: &Model, p: &Point) -> Option<String> {
    let names = &model.names;
    for g in &model.terms {
        if let Some(e) = g.first_non_finite(p) {
            let on: Vec<&str> = g.indices(e).iter().map(|&i| names[i].as_str()).collect();
            return Some(format!("the term on {}", on.join(", ")));
        }
    }
    for g in &model.constraints {
        if let Some(e) = g.first_non_finite(p.t, p.q) {
            let row = g.row(e);
            let name = (model.constraint_blocks())
                .find(|(_, rows)| rows.contains(&row))
                .map_or_else(|| format!("row {row}"), |(n, _)| n.to_string());
            return Some(format!("the constraint '{name}'"));
        }
    }
    None
}

/// One constraint element of a model: its group and place in the group. Blocks (in the order
/// of [`Model::constraint_blocks`]) and elements correspond one to one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstraintElement {
    group: usize,
    element: usize,
}

/// The constraint element of every block, in block order.
pub fn constraint_elements(model: &Model) -> Vec<ConstraintElement> {
    let mut by_row: Vec<(usize, ConstraintElement)> = Vec::with_capacity(model.blocks.len());
    for (group, g) in model.constraints.iter().enumerate() {
        for element in 0..g.len() {
            by_row.push((g.row(element), ConstraintElement { group, element }));
        }
    }
    by_row.sort_by_key(|x| x.0);
    let mut out = Vec::with_capacity(model.blocks.len());
    for b in &model.blocks {
        if let Ok(i) = by_row.binary_search_by_key(&b.row, |x| x.0) {
            out.push(by_row[i].1);
        }
    }
    out
}

impl ConstraintElement {
    /// The global coordinates the element acts on.
    pub fn indices<'m>(&self, model: &'m Model) -> &'m [usize] {
        model.constraints[self.group].indices(self.element)
    }
    /// Its first row in the model's constraints and its number of rows.
    pub fn rows(&self, model: &Model) -> (usize, usize) {
        let g = &model.constraints[self.group];
        (g.row(self.element), g.rows())
    }
    /// Its `C_q` (`rows × indices().len()`, row-major) into `out`.
    pub fn jacobian(&self, model: &Model, t: f64, q: &[f64], out: &mut [f64]) {
        model.constraints[self.group].local_jacobian(self.element, t, q, out)
    }
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
    let p = Point {
        t,
        q,
        v,
        a,
        lambda: &[],
    };
    for g in &model.terms {
        for e in 0..g.len() {
            let b = g.dense_blocks(e, &p);
            let idx = g.indices(e);
            for (li, &gi) in idx.iter().enumerate() {
                out[0][(gi, 0)] += b[0][(li, 0)];
                for k in 1..4 {
                    for (lj, &gj) in idx.iter().enumerate() {
                        out[k][(gi, gj)] += b[k][(li, lj)];
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
    for g in &model.constraints {
        for e in 0..g.len() {
            let b = g.dense_blocks(e, t, q, lambda);
            let idx = g.indices(e);
            for (li, &gi) in idx.iter().enumerate() {
                for (lj, &gj) in idx.iter().enumerate() {
                    h[(gi, gj)] += b[2][(li, lj)];
                }
            }
        }
    }
    h
}

/// Generalized momenta `p = ∂L/∂v`, summed over the terms, into `p` (length `n`); for a
/// kinetic energy quadratic in `v` this is `M(q) v`.
pub fn momenta(model: &Model, t: f64, q: &[f64], v: &[f64], p: &mut [f64]) {
    p[..model.n].fill(0.0);
    for g in &model.terms {
        g.add_momentum(t, q, v, p);
    }
}
