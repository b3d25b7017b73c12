//! What a mechanism *is*: generalized coordinates, Lagrangian terms, holonomic constraints.
//!
//! A model is a sum of [`Term`]s, each acting on a few of the `n` generalized coordinates, plus a
//! list of [`Constraint`]s `C(t, q_I) = 0`, each over a few coordinates and with its own Lagrange
//! multipliers (Exudyn's assembly principle: contributions are summed per coordinate index).
//! Every user function is generic over `D: DualNum<Primitive = f64> + Copy`, so the toolkit can
//! evaluate it on nested dual numbers and obtain exact derivatives.
//!
//! A small system is one term over all its coordinates:
//!
//! ```
//! use lagrangian::prelude::*;
//!
//! /// Planar pendulum in Cartesian coordinates (x, y), y up.
//! struct Pendulum { m: f64, l: f64, g: f64 }
//!
//! impl Term<2> for Pendulum {
//!     fn kinetic<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, 2>, v: &SVector<D, 2>) -> D {
//!         v.dot(v) * (0.5 * self.m)
//!     }
//!     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
//!         q[1] * (self.m * self.g)
//!     }
//! }
//! impl Constraint<2, 1> for Pendulum {
//!     fn constraint<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> SVector<D, 1> {
//!         SVector::from([(q.dot(q) - self.l * self.l) * 0.5])
//!     }
//! }
//!
//! let p = Pendulum { m: 1.0, l: 1.0, g: 9.81 };
//! let model = Model::builder(2)
//!     .term([0, 1], Pendulum { ..p })
//!     .constraint("rod", [0, 1], p)
//!     .build()
//!     .unwrap();
//! assert_eq!((model.n_coords(), model.n_constraints()), (2, 1));
//! ```

/// The hidden provided method `__placed` of the traits whose types a group's assembly loop is
/// placed with (see [`Placed`]): one definition for all of them.
macro_rules! placed_method {
    () => {
        #[doc(hidden)]
        #[inline(never)]
        fn __placed<R>(f: impl FnOnce() -> R) -> R
        where
            Self: Sized,
        {
            f()
        }
    };
}
pub(crate) use placed_method;

mod builder;
pub mod columns;
mod declared;
pub mod elements;
pub(crate) mod euler_lagrange;
pub mod geometry;
pub mod group;
mod interaction;
pub mod kernel;
pub mod orientation;
mod state;

pub use builder::{ConstraintKernelBox, ModelBuilder, TermKernelBox};
pub use declared::{Declared, KineticForm, Placed, Structure};
pub(crate) use declared::{may_write_mass, no_kinetic};
use group::{Constraints, Terms};
pub use interaction::{Anchored, Between, Interaction};
pub use kernel::{ConstraintBlocks, ConstraintKernel, KernelCoefficients, TermKernel};
use nalgebra::{SMatrix, SVector};
use num_dual::DualNum;
pub use state::{State, StateView};

/// Which default bodies of [`Term`]'s methods ran on this thread (bits): a method a term
/// overrides never runs its default, so one call tells whether it was left out (`ad::detect`).
#[doc(hidden)]
pub mod defaults {
    use std::cell::Cell;
    /// [`Term::kinetic`](super::Term::kinetic)'s default ran.
    pub const KINETIC: u8 = 1;
    /// [`Term::lagrangian`](super::Term::lagrangian)'s default ran.
    pub const LAGRANGIAN: u8 = 2;
    /// [`Term::dissipation`](super::Term::dissipation)'s default ran.
    pub const DISSIPATION: u8 = 4;
    /// [`Term::force`](super::Term::force)'s default ran.
    pub const FORCE: u8 = 8;
    /// [`Term::mass`](super::Term::mass)'s default ran.
    pub const MASS: u8 = 16;
    /// [`Term::mass_matrix`](super::Term::mass_matrix)'s default ran.
    pub const MASS_MATRIX: u8 = 32;
    thread_local! {
        static RAN: Cell<u8> = const { Cell::new(0) };
    }
    /// Mark a default body as run.
    #[inline(always)]
    pub fn mark(bit: u8) {
        RAN.with(|r| r.set(r.get() | bit));
    }
    /// The bits marked since the last call, cleared.
    pub fn take() -> u8 {
        RAN.with(|r| r.replace(0))
    }
}

/// `½ vᵀ M v`, summed by hand: nalgebra's product of a matrix and a vector of dual numbers
/// goes through `gemv`, whose multiplications by `α = 1` and `β = 0` cost a dual product each.
#[doc(hidden)]
#[inline(always)]
pub fn half_quadratic_form<D: DualNum<Primitive = f64> + Copy, const N: usize>(
    m: &SMatrix<D, N, N>,
    v: &SVector<D, N>,
) -> D {
    let mut sum = D::from(0.0);
    for i in 0..N {
        let mut row = D::from(0.0);
        for j in 0..N {
            row += m[(i, j)] * v[j];
        }
        sum += row * v[i];
    }
    sum * 0.5
}

/// A contribution to the Lagrangian over `N` local coordinates.
///
/// Implement [`kinetic`](Term::kinetic) `T(t,q,v)` and [`potential`](Term::potential) `V(t,q)`,
/// or override [`lagrangian`](Term::lagrangian) `L = T − V` directly. Optional: Rayleigh
/// dissipation `R(t,q,v)` (adds `∂R/∂v` to the residual) and generalized forces `Q(t,q,v)`
/// (non-conservative, subtracted from the residual). Every method has a zero default.
///
/// The Euler–Lagrange residual contributed by the term is
/// `r = d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q`. What the toolkit needs beyond the energies — which
/// parts a term leaves out, whether its kinetic energy is a constant mass matrix, whether it
/// acts through the differences of points — it finds itself; [`Declared`] is the trait for
/// declaring what it cannot find.
pub trait Term<const N: usize>: Send + Sync {
    /// Kinetic energy `T(t, q, v)`; defaults to `½ vᵀ (M + M(t, q)) v` with the matrices of
    /// [`mass`](Term::mass) and [`mass_matrix`](Term::mass_matrix) (zero unless written).
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        defaults::mark(defaults::KINETIC);
        let m = self.mass().map(D::from) + self.mass_matrix(t, q);
        half_quadratic_form(&m, v)
    }
    /// The kinetic energy written as its constant mass matrix, `T = ½ vᵀ M v`: the short form
    /// for point masses in Cartesian coordinates and bodies on their basic points. Write it
    /// instead of [`kinetic`](Term::kinetic); the toolkit then takes `M` once, never
    /// differentiates `T`, and factorizes a model's constant `M` once for explicit methods
    /// ([`Structure::ConstantMass`], found without declaring it).
    ///
    /// ```
    /// use lagrangian::prelude::*;
    /// // a point mass of 2 kg in the plane under gravity along −y
    /// struct Mass;
    /// impl Term<2> for Mass {
    ///     fn mass(&self) -> SMatrix<f64, 2, 2> {
    ///         SMatrix::identity() * 2.0
    ///     }
    ///     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
    ///         q[1] * (2.0 * 9.81)
    ///     }
    /// }
    /// // r = M a + ∇V: at rest with a = (0, −g) the forces balance
    /// let r = lagrangian::ad::term_residual(&Mass, 0.0, &[0.3, 1.0], &[1.0, 0.0], &[0.0, -9.81]);
    /// assert!(r.norm() < 1e-14);
    /// ```
    fn mass(&self) -> SMatrix<f64, N, N> {
        defaults::mark(defaults::MASS);
        SMatrix::zeros()
    }
    /// The kinetic energy written as its mass matrix, `T = ½ vᵀ M(t, q) v` with `M` symmetric —
    /// every mechanism in generalized coordinates whose kinetic energy has no terms linear in
    /// `v` (pendulums in angles, linkages, robots). Write it instead of
    /// [`kinetic`](Term::kinetic); the residual then takes `M(t, q)` and its first derivatives
    /// alone (`M a + Ṁ v − ½ ∇_q(vᵀ M v) + ∇V + ∂R/∂v − Q`, two first-order passes of `M`
    /// instead of third-order passes of `L`), and the matrix of a state's accelerations is one
    /// evaluation of `M` ([`Structure::MassMatrix`], found without declaring it).
    ///
    /// ```
    /// use lagrangian::prelude::*;
    /// // a particle in polar coordinates (r, φ): M = diag(m, m r²)
    /// struct Polar;
    /// impl Term<2> for Polar {
    ///     fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> SMatrix<D, 2, 2> {
    ///         SMatrix::from([[D::from(1.0), D::from(0.0)], [D::from(0.0), q[0] * q[0]]])
    ///     }
    /// }
    /// // r = (r̈ − r φ̇², r² φ̈ + 2 r ṙ φ̇): at r = 2, ṙ = 0.5, φ̇ = 3 and no acceleration
    /// let r = lagrangian::ad::term_residual(&Polar, 0.0, &[2.0, 0.0], &[0.5, 3.0], &[0.0, 0.0]);
    /// assert!((r[0] + 18.0).abs() < 1e-13 && (r[1] - 6.0).abs() < 1e-13);
    /// ```
    fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
    ) -> SMatrix<D, N, N> {
        defaults::mark(defaults::MASS_MATRIX);
        SMatrix::from_element(D::from(0.0))
    }
    /// Potential energy `V(t, q)`.
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, N>) -> D {
        D::from(0.0)
    }
    /// Lagrangian `L(t, q, v)`; defaults to `T − V`.
    fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        defaults::mark(defaults::LAGRANGIAN);
        self.kinetic(t, q, v) - self.potential(t, q)
    }
    /// Rayleigh dissipation function `R(t, q, v)`.
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
        _v: &SVector<D, N>,
    ) -> D {
        defaults::mark(defaults::DISSIPATION);
        D::from(0.0)
    }
    /// Generalized (non-conservative) forces `Q(t, q, v)`.
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
        _v: &SVector<D, N>,
    ) -> SVector<D, N> {
        defaults::mark(defaults::FORCE);
        SVector::from_element(D::from(0.0))
    }
}

/// `M` holonomic (possibly rheonomic) constraint equations `C(t, q_I) = 0` over `N` local
/// coordinates. Each row gets its own Lagrange multiplier `λ`; the residual gains `C_qᵀ λ`.
pub trait Constraint<const N: usize, const M: usize>: Send + Sync {
    /// The constraint values `C(t, q)`.
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
    ) -> SVector<D, M>;
}

/// The name and rows of a constraint block, in the order the blocks were added.
#[derive(Clone, Debug)]
pub(crate) struct BlockInfo {
    pub name: String,
    /// First multiplier (global constraint row) of this block.
    pub row: usize,
    pub rows: usize,
}

/// A mechanism: `n` generalized coordinates, a sum of Lagrangian terms and constraint blocks,
/// stored in groups by kernel type ([`group`]).
pub struct Model {
    pub(crate) n: usize,
    pub(crate) m: usize,
    pub(crate) names: Vec<String>,
    pub(crate) terms: Vec<Box<dyn Terms>>,
    pub(crate) constraints: Vec<Box<dyn Constraints>>,
    pub(crate) blocks: Vec<BlockInfo>,
}

impl Model {
    /// Start building a model with `n` generalized coordinates.
    pub fn builder(n: usize) -> ModelBuilder {
        ModelBuilder::new(n)
    }
    /// Number of generalized coordinates `n`.
    pub fn n_coords(&self) -> usize {
        self.n
    }
    /// Assemble large groups of terms (at least [`group::PARALLEL_MIN_ELEMENTS`] elements of
    /// one kind whose kernel sets [`TermKernel::PARALLEL`], as AD kernels do) in blocks on
    /// rayon's threads, the blocks of one color at a time (`true`, the default), or element by
    /// element (`false`). The schedule's order is the same on any number of threads, so results
    /// do not depend on it (`RAYON_NUM_THREADS`, or a pool's `install`); they differ from the
    /// element-by-element order by round-off.
    pub fn parallel_assembly(mut self, on: bool) -> Self {
        let n = self.n;
        for g in &mut self.terms {
            g.set_parallel(on, n);
        }
        self
    }
    /// The number of colors of each group of terms assembled in parallel (empty when none is):
    /// the synchronizations per assembly of the group.
    pub fn parallel_colors(&self) -> Vec<usize> {
        self.terms
            .iter()
            .map(|g| g.colors())
            .filter(|&c| c > 0)
            .collect()
    }
    /// Number of constraint equations (multipliers) `m`.
    pub fn n_constraints(&self) -> usize {
        self.m
    }
    /// Names of the coordinates (default `q[i]`).
    pub fn coordinate_names(&self) -> &[String] {
        &self.names
    }
    /// Name of constraint row `row` (`name` for a one-row block, `name[k]` otherwise).
    pub fn constraint_row_name(&self, row: usize) -> String {
        for c in &self.blocks {
            if row >= c.row && row < c.row + c.rows {
                return if c.rows == 1 {
                    c.name.clone()
                } else {
                    format!("{}[{}]", c.name, row - c.row)
                };
            }
        }
        format!("constraint row {row}")
    }
    /// Constraint blocks in the order they were added: name and global rows.
    pub fn constraint_blocks(&self) -> impl Iterator<Item = (&str, std::ops::Range<usize>)> {
        self.blocks
            .iter()
            .map(|b| (b.name.as_str(), b.row..b.row + b.rows))
    }
    /// Whether the mass matrix `M = ∂r/∂a` is the same in every state (every term without
    /// kinetic energy, of point masses or of a constant mass matrix).
    pub fn constant_mass(&self) -> bool {
        self.terms.iter().all(|g| g.constant_mass())
    }
    /// The group that holds all of the model's inertia and solves `M x = b` alone in `O(n)`
    /// (a tree of bodies in joint coordinates, by articulated bodies), when the model has no
    /// constraints, that group covers every coordinate and no other reads accelerations: the
    /// explicit methods' accelerations then need no matrix.
    pub fn articulated(&self) -> Option<usize> {
        if self.m != 0 {
            return None;
        }
        let found = (self.terms.iter())
            .position(|g| g.len() == 1 && g.size() == self.n && g.solves_mass())?;
        let others_massless =
            (self.terms.iter().enumerate()).all(|(k, g)| k == found || !g.reads_acceleration());
        others_massless.then_some(found)
    }
    /// Solve `M x = b` in place (`x` holds `b`) at `q` with the group of
    /// [`articulated`](Model::articulated) `g`. `Err`: `M` is singular there.
    pub fn solve_articulated(&self, g: usize, q: &[f64], x: &mut [f64]) -> Result<(), String> {
        self.terms[g].solve_mass(q, x)
    }
    /// The generalized forces `−r(t, q, v, 0)` of every group but `g` into `x` (length `n`):
    /// the load on the [`articulated`](Model::articulated) group `g`.
    pub(crate) fn forces_on_articulated(&self, g: usize, s: &group::Point<'_>, x: &mut [f64]) {
        x.fill(0.0);
        for (k, group) in self.terms.iter().enumerate() {
            if k != g {
                group.add_residual(s, -1.0, x);
            }
        }
    }
    /// The accelerations `q̈ = M⁻¹(x − b(q, v))` of the [`articulated`](Model::articulated)
    /// group `g` under the other groups' forces `x` (`forces_on_articulated`), its own bias
    /// and gravity inside its recursion ([`Terms::forward_dynamics`]); `q̈` replaces `x`.
    /// `Err`: `M` is singular there.
    pub fn articulated_accelerations(
        &self,
        g: usize,
        q: &[f64],
        v: &[f64],
        x: &mut [f64],
    ) -> Result<(), String> {
        self.terms[g].forward_dynamics(q, v, x)
    }
    /// The first group that names where its own mass matrix is singular at `q`
    /// (a tree names the joint and body): a diagnosis for the message of a singular system.
    pub fn singular_mass(&self, q: &[f64]) -> Option<String> {
        self.terms.iter().find_map(|g| g.singular_mass(q))
    }
    /// Number of Lagrangian terms.
    pub fn n_terms(&self) -> usize {
        self.terms.iter().map(|g| g.len()).sum()
    }
    /// Number of kernel groups (terms, constraints): one per kernel type and size.
    pub fn n_groups(&self) -> (usize, usize) {
        (self.terms.len(), self.constraints.len())
    }
}
