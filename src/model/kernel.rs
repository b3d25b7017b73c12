//! The element interface between a model and the assembly: **kernels compute local blocks**.
//!
//! A term kernel sees only its own `N` coordinates: given the local `q`, `v`, `a` it returns its
//! residual `r = d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q` and the weighted block
//! `J = c_M·M + c_D·∂r/∂v + c_K·∂r/∂q` (`N × N`). A constraint kernel returns `C`, `C_q` and
//! `Σ λ_k ∇²C_k` on its coordinates. Gathering the local inputs from the global arrays and
//! scattering the blocks into the global residual and the fixed sparsity pattern is the
//! assembly's job ([`crate::assembly`]), done for all elements of one kernel type in one
//! monomorphized loop ([`group`](super::group)).
//!
//! [`TermAd`](crate::ad::TermAd) and [`ConstraintAd`](crate::ad::ConstraintAd) implement these
//! traits for any [`Term`](crate::model::Term) and [`Constraint`](crate::model::Constraint) by
//! forward AD. A hand-written kernel implements them directly for speed (the particle, spring,
//! distance and load kernels of [`crate::model::elements`]) and is checked against the AD kernel
//! of the same physics with [`compare_term_kernels`](crate::ad::compare_term_kernels) /
//! [`compare_constraint_kernels`](crate::ad::compare_constraint_kernels).

use crate::expr::taylor::TaylorVar;
use nalgebra::{DMatrix, SMatrix, SVector};

/// Weights of the three Jacobian blocks of a term: `J = mass·M + damping·∂r/∂v +
/// stiffness·∂r/∂q`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelCoefficients {
    /// Factor on `M = ∂r/∂a`.
    pub mass: f64,
    /// Factor on `∂r/∂v`.
    pub damping: f64,
    /// Factor on `∂r/∂q`.
    pub stiffness: f64,
}

/// A Lagrangian term on its `N` local coordinates, on `f64`: the residual
/// `r = d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q`, its weighted Jacobian block and its energies.
///
/// The flags tell the assembly which local inputs to gather (a spring reads no accelerations, a
/// load reads nothing but `t`); a kernel with a flag off receives zeros in that input.
pub trait TermKernel<const N: usize>: Send + Sync + 'static {
    /// Whether the kernel reads `q`.
    const USES_Q: bool = true;
    /// Whether the kernel reads `v`.
    const USES_V: bool = true;
    /// Whether the kernel reads `a`.
    const USES_A: bool = true;
    /// Whether the residual depends on `t`. A kernel that reads neither `t` nor `q` nor `v` (a
    /// point mass's weight `−m g`) has the same residual at rest in every state: the explicit
    /// methods add it once per evaluation instead of calling the kernel.
    const USES_T: bool = true;
    /// Whether large groups of this kernel are assembled in parallel ([`Model::parallel_assembly`](crate::model::Model::parallel_assembly)):
    /// worth it when an element costs far more than reading and writing its entries (AD
    /// kernels, 10–30 ns for a spring's residual). A hand-derived spring (5 ns) is bound by
    /// memory and loses to the scheduled order's indirection and second pass (measured with
    /// the block schedule: the 90 × 90 cloth 0.55 s → 0.76 s on one thread, 0.61–0.66 s on
    /// two).
    const PARALLEL: bool = false;
    /// Whether `M = ∂r/∂a` is constant (and `r` linear in `a`): no kinetic energy, point
    /// masses, a constant mass matrix. A model whose kernels all say so has one mass matrix for
    /// every state, factorized once by the explicit methods ([`StateSolver`](crate::solve::StateSolver)).
    /// The default: a kernel that does not read `a` (`M = 0`).
    fn constant_mass(&self) -> bool {
        !Self::USES_A
    }
    /// The residual `r(t, q, v, a)`.
    fn residual(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
    ) -> SVector<f64, N>;
    /// The residual and `J = c.mass·M + c.damping·∂r/∂v + c.stiffness·∂r/∂q`.
    fn jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
        c: &KernelCoefficients,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>);
    /// `[T, V, v·∂L/∂v − L]`.
    fn energy(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> [f64; 3];
    /// The generalized momentum `p = ∂L/∂v` (`N` entries).
    fn momentum(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N>;
    /// The powers that change the energy function `h = v·∂L/∂v − L`:
    /// `[Q·v, v·∂R/∂v, −∂L/∂t]` — the power of the applied forces, the power dissipated by
    /// the Rayleigh function, and the power of an explicit time dependence of `L`. Along a
    /// motion, `dh/dt = Q·v − v·∂R/∂v − ∂L/∂t + λᵀC_t` summed over the terms and constraints.
    fn power(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> [f64; 3];
    /// Dense `(r, M, ∂r/∂v, ∂r/∂q)` for checks: three [`jacobian`](TermKernel::jacobian) calls
    /// with unit weights.
    fn dense_blocks(&self, t: f64, q: &[f64], v: &[f64], a: &[f64]) -> [DMatrix<f64>; 4] {
        let (q, v, a) = (local::<N>(q), local::<N>(v), local::<N>(a));
        let unit = |mass, damping, stiffness| KernelCoefficients {
            mass,
            damping,
            stiffness,
        };
        let (r, m) = self.jacobian(t, &q, &v, &a, &unit(1.0, 0.0, 0.0));
        let (_, d) = self.jacobian(t, &q, &v, &a, &unit(0.0, 1.0, 0.0));
        let (_, k) = self.jacobian(t, &q, &v, &a, &unit(0.0, 0.0, 1.0));
        [
            DMatrix::from_column_slice(N, 1, r.as_slice()),
            DMatrix::from_column_slice(N, N, m.as_slice()),
            DMatrix::from_column_slice(N, N, d.as_slice()),
            DMatrix::from_column_slice(N, N, k.as_slice()),
        ]
    }
    /// The residual on Taylor series in time: with `q`, `v`, `a` the series of a motion, the
    /// series of `r(t, q, v, a)` along it (what the Taylor-series integrator evaluates). `q`
    /// and `v` are known to one more coefficient than `a = v̇` (a kernel may take `d/dt ∂L/∂v`
    /// from the series of `∂L/∂v`); the result is wanted to as many as `a`.
    /// `None`: the kernel has no form on series (a load given as a Rust closure of time).
    fn taylor_residual(
        &self,
        _t: TaylorVar,
        _q: &SVector<TaylorVar, N>,
        _v: &SVector<TaylorVar, N>,
        _a: &SVector<TaylorVar, N>,
    ) -> Option<SVector<TaylorVar, N>> {
        None
    }
    /// Whether the assembly's loop over a group computes the residual by
    /// [`__loop_residual`](TermKernel::__loop_residual) (not for users; the default: by
    /// [`residual`](TermKernel::residual)). The AD kernels evaluate a user's energies there on
    /// number types of their own, so that the loop is the only caller of those instances and
    /// LLVM inlines them into it (`ad::dense::Site`); a group of such kernels always has a
    /// schedule (one block in its own order when too small for a parallel one), so the residual
    /// has one loop.
    #[doc(hidden)]
    const __LOOP_RESIDUAL: bool = false;
    /// The residual as the assembly's loop computes it, when [`__LOOP_RESIDUAL`] says that the
    /// kernel overrides it.
    ///
    /// [`__LOOP_RESIDUAL`]: TermKernel::__LOOP_RESIDUAL
    #[doc(hidden)]
    #[inline(always)]
    fn __loop_residual(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
    ) -> SVector<f64, N> {
        self.residual(t, q, v, a)
    }
    // Runs `f`, the assembly's loop over a group, from code placed with this type (see
    // `model::Placed`; not for users).
    crate::model::placed_method!();
}

/// `C(t, q)`, `C_q` and `Σ λ_k ∇²C_k` of a constraint block.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstraintBlocks<const N: usize, const M: usize> {
    /// `C(t,q)`.
    pub c: SVector<f64, M>,
    /// `C_q`.
    pub jac: SMatrix<f64, M, N>,
    /// `∂(C_qᵀ λ)/∂q = Σ λ_k ∇²C_k`.
    pub hess_lambda: SMatrix<f64, N, N>,
}

/// A block of `M` constraint rows `C(t, q) = 0` on its `N` local coordinates, on `f64`.
pub trait ConstraintKernel<const N: usize, const M: usize>: Send + Sync + 'static {
    /// `C(t, q)`.
    fn value(&self, t: f64, q: &SVector<f64, N>) -> SVector<f64, M>;
    /// `C` and `C_q` (first derivatives only).
    fn jacobian(&self, t: f64, q: &SVector<f64, N>) -> (SVector<f64, M>, SMatrix<f64, M, N>);
    /// `C`, `C_q` and `Σ λ_k ∇²C_k` (second derivatives).
    fn blocks(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        lambda: &SVector<f64, M>,
    ) -> ConstraintBlocks<N, M>;
    /// `C_t`.
    fn time_derivative(&self, t: f64, q: &SVector<f64, N>) -> SVector<f64, M>;
    /// `γ = C_qq(v,v) + 2C_qt v + C_tt`, so that `d²C/dt² = C_q q̈ + γ`.
    fn gamma(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, M>;
    /// `C` on Taylor series in time: the series of `C(t, q(t))` along the series `q`.
    /// `None`: the kernel has no form on series.
    fn taylor_value(
        &self,
        _t: TaylorVar,
        _q: &SVector<TaylorVar, N>,
    ) -> Option<SVector<TaylorVar, M>> {
        None
    }
    /// `C_qᵀλ` on Taylor series in time, along the series `q` and `λ`. `None`: the kernel has
    /// no form on series.
    fn taylor_force(
        &self,
        _t: TaylorVar,
        _q: &SVector<TaylorVar, N>,
        _lambda: &SVector<TaylorVar, M>,
    ) -> Option<SVector<TaylorVar, N>> {
        None
    }
    /// Dense `(C, C_q, Σλ∇²C)` for checks.
    fn dense_blocks(&self, t: f64, q: &[f64], lambda: &[f64]) -> [DMatrix<f64>; 3] {
        let b = self.blocks(t, &local::<N>(q), &local::<M>(lambda));
        [
            DMatrix::from_column_slice(M, 1, b.c.as_slice()),
            DMatrix::from_column_slice(M, N, b.jac.as_slice()),
            DMatrix::from_column_slice(N, N, b.hess_lambda.as_slice()),
        ]
    }
    // Runs `f`, the assembly's loop over a group, from code placed with this type (see
    // `model::Placed`; not for users).
    crate::model::placed_method!();
}

/// The first `N` entries of `x` (zeros past its end).
fn local<const N: usize>(x: &[f64]) -> SVector<f64, N> {
    SVector::from_fn(|i, _| x.get(i).copied().unwrap_or(0.0))
}
