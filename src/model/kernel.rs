//! The type-erased element interface between a model and the assembly.
//!
//! [`TermAd`](crate::ad::TermAd) and [`ConstraintAd`](crate::ad::ConstraintAd) implement these
//! traits for any [`Term`](crate::model::Term) and [`Constraint`](crate::model::Constraint) by
//! forward AD. A hand-written kernel implements them directly for speed (see
//! [`crate::library::mass_spring`]) and can be checked against the AD kernel of the same physics
//! with [`compare_term_kernels`](crate::ad::compare_term_kernels) /
//! [`compare_constraint_kernels`](crate::ad::compare_constraint_kernels).
//!
//! Conventions: `idx` are the kernel's global coordinate indices (`size()` of them); `q`, `v`, `a`,
//! `r` are global arrays; `slots[i*N + j]` is the position of entry `(idx[i], idx[j])` in the
//! global `values` array of the iteration matrix.

use nalgebra::DMatrix;

/// Factors of one assembly: a term adds `scale·r` to the residual and
/// `scale·(mass·M + damping·∂r/∂v + stiffness·∂r/∂q)` to its matrix slots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelCoefficients {
    /// Factor on the residual and every block.
    pub scale: f64,
    /// Factor on `M = ∂r/∂a`.
    pub mass: f64,
    /// Factor on `∂r/∂v`.
    pub damping: f64,
    /// Factor on `∂r/∂q`.
    pub stiffness: f64,
}

/// A Lagrangian term as the assembly sees it: residual `r = d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q`, its
/// Jacobian blocks and its energies, on `f64`.
#[allow(clippy::too_many_arguments)]
pub trait TermKernel: Send + Sync {
    /// Number of local coordinates `N`.
    fn size(&self) -> usize;
    /// Add `scale·r` into `r[idx]`.
    fn add_residual(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        scale: f64,
        r: &mut [f64],
    );
    /// Add `c.scale·r` into `r[idx]` and the weighted blocks into `values[slots]`.
    fn add_jacobian(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        c: &KernelCoefficients,
        r: &mut [f64],
        values: &mut [f64],
        slots: &[usize],
    );
    /// `[T, V, v·∂L/∂v − L]`.
    fn energy(&self, idx: &[usize], t: f64, q: &[f64], v: &[f64]) -> [f64; 3];
    /// Local dense blocks `(r, M, ∂r/∂v, ∂r/∂q)` for checks (allocates).
    fn dense_blocks(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
    ) -> [DMatrix<f64>; 4];
}

/// Slots of a constraint block in the global values array (row-major local indexing).
pub struct ConstraintSlots<'a> {
    /// `N×N`: `(idx[i], idx[j])`.
    pub hess: &'a [usize],
    /// `M×N`: `(n + row + k, idx[j])`.
    pub jac: &'a [usize],
    /// `M×N`: `(idx[j], n + row + k)`.
    pub jac_t: &'a [usize],
}

/// A block of `M` constraint rows `C(t, q_I) = 0` as the assembly sees it.
#[allow(clippy::too_many_arguments)]
pub trait ConstraintKernel: Send + Sync {
    /// Number of local coordinates `N`.
    fn size(&self) -> usize;
    /// Number of rows `M`.
    fn rows(&self) -> usize;
    /// Write `C` into `c` (`M` values).
    fn value(&self, idx: &[usize], t: f64, q: &[f64], c: &mut [f64]);
    /// Write `C` into `c` and add `C_qᵀ λ` into `r`.
    fn add_residual(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        lambda: &[f64],
        r: &mut [f64],
        c: &mut [f64],
    );
    /// As `add_residual`, and add `stiffness·Σλ∇²C`, `C_q`, `C_qᵀ` into `values`.
    fn add_jacobian(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        lambda: &[f64],
        stiffness: f64,
        r: &mut [f64],
        c: &mut [f64],
        values: &mut [f64],
        slots: &ConstraintSlots,
    );
    /// Add `C_q` into rows `row..row+M` of the dense `jac` (all `n` columns).
    fn dense_jacobian(&self, idx: &[usize], t: f64, q: &[f64], row: usize, jac: &mut DMatrix<f64>);
    /// Write `C_t` into `out`.
    fn time_derivative(&self, idx: &[usize], t: f64, q: &[f64], out: &mut [f64]);
    /// Write `γ = C_qq(v,v) + 2C_qt v + C_tt` into `out`.
    fn gamma(&self, idx: &[usize], t: f64, q: &[f64], v: &[f64], out: &mut [f64]);
    /// Local dense `(C, C_q, Σλ∇²C)` for checks (allocates).
    fn dense_blocks(&self, idx: &[usize], t: f64, q: &[f64], lambda: &[f64]) -> [DMatrix<f64>; 3];
}
