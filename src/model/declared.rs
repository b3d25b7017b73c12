//! What a term may declare beyond its energies, for the expert who wants a derivation the
//! toolkit cannot find on its own ([`Declared`]), and the one trait the derivative passes see.
//!
//! A [`Term`] is physics alone; every `Term` is a `Declared` that declares nothing (a blanket
//! implementation), and the toolkit finds what such a term leaves out exactly — no kinetic
//! energy, no dissipation or forces, a mass matrix written as one — and, at sample states, a
//! constant mass matrix written as `kinetic` and a potential of point differences
//! (`ad::detect`, `ad::sampled`). A type implements `Declared` *instead of* `Term` only to
//! declare what is not found: a [`Structure`] with points of mass
//! ([`Structure::PointMasses`]), translation invariance with forces, or that no value of the
//! type has kinetic energy ([`KineticForm`]). Every declaration is checked against the general
//! derivation when the first term of its type is added, and refused if it does not hold.

use super::{Term, defaults, half_quadratic_form};
use nalgebra::{SMatrix, SVector};
use num_dual::DualNum;

/// Runs `f` — the assembly's loop over a group of elements of this type — from code that rustc
/// places with this type, beside the methods written for it (not for users: implemented for
/// every type, and the toolkit calls it).
///
/// A crate's generic instances go to code-generation units by the type they are methods of;
/// the assembly loop of a group and the loop's closure would otherwise sit in a unit of this
/// library's own, where the methods written for the type are external calls LLVM does not
/// inline. Called through here, the loop (a closure, copied into its caller's unit) runs in this
/// type's unit, so LLVM may inline a user's `potential` or `dissipation` into it under cargo's
/// default release profile (benches/README.md, "Assembly loops placed with the user's type").
#[doc(hidden)]
pub trait Placed {
    /// Run `f` from this type's code-generation unit.
    fn __placed<R>(f: impl FnOnce() -> R) -> R
    where
        Self: Sized;
}

impl<T> Placed for T {
    #[inline(never)]
    fn __placed<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}

/// What the kinetic energy of *every* value of a type can be ([`Declared::KINETIC`]), so the
/// toolkit compiles only the derivations such a type can take: a smaller and faster build for
/// elements of many kinds, the same equations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KineticForm {
    /// Any (the default).
    #[default]
    Any,
    /// Written as [`kinetic`](Declared::kinetic) or [`lagrangian`](Declared::lagrangian) (or
    /// none), never as [`mass`](Declared::mass) or [`mass_matrix`](Declared::mass_matrix).
    Function,
    /// None: springs, dampers, loads — any value of the type has `T = 0`.
    Zero,
}

impl KineticForm {
    /// The form that admits both `self` and `other` (an enum of element types).
    pub const fn widest(self, other: KineticForm) -> KineticForm {
        match (self, other) {
            (KineticForm::Any, _) | (_, KineticForm::Any) => KineticForm::Any,
            (KineticForm::Function, _) | (_, KineticForm::Function) => KineticForm::Function,
            _ => KineticForm::Zero,
        }
    }
}

/// No value of `T` has kinetic energy ([`KineticForm::Zero`]).
pub(crate) const fn no_kinetic<T: Declared<N>, const N: usize>() -> bool {
    matches!(T::KINETIC, KineticForm::Zero)
}

/// A value of `T` may write its kinetic energy as mass matrices ([`KineticForm::Any`]).
pub(crate) const fn may_write_mass<T: Declared<N>, const N: usize>() -> bool {
    matches!(T::KINETIC, KineticForm::Any)
}

/// A term's energies with what it declares about them — the trait the toolkit's derivative
/// passes take. Every [`Term`] is one that declares nothing; implement it *instead of* `Term`
/// (the same energies, then the declarations) to declare what the toolkit cannot find itself:
///
/// - [`structure`](Declared::structure): [`Structure::PointMasses`] with
///   [`mass_points`](Declared::mass_points) and [`point_mass_matrix`](Declared::point_mass_matrix)
///   (the others are found without declaring them);
/// - [`TRANSLATION_INVARIANT`](Declared::TRANSLATION_INVARIANT): the potential, dissipation and
///   forces depend on the points only through their differences (found at sample states for a
///   term without forces on two points, or three in space);
/// - [`has_dissipation_or_force`](Declared::has_dissipation_or_force): `false` for a value that
///   has neither though its type writes them;
/// - [`KINETIC`](Declared::KINETIC): what every value's kinetic energy can be.
///
/// A declaration that does not hold is refused when the first term of its type is added
/// ([`ModelError::WrongDeclaration`](crate::error::ModelError::WrongDeclaration)). Implement
/// one of the two traits, not both; with both in scope, call a `Term`'s methods as
/// `Term::potential(&x, …)`.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::model::Declared;
/// // a 2D spring with a constant force along its axis on the second point (the first takes
/// // the opposite): a function of the points' difference, forces and all
/// struct Pushed;
/// impl Declared<4> for Pushed {
///     const TRANSLATION_INVARIANT: Option<usize> = Some(2);
///     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 4>) -> D {
///         let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
///         let s = (dx * dx + dy * dy).sqrt() - 1.0;
///         s * s * 50.0
///     }
///     fn force<D: DualNum<Primitive = f64> + Copy>(
///         &self,
///         _t: D,
///         q: &SVector<D, 4>,
///         _v: &SVector<D, 4>,
///     ) -> SVector<D, 4> {
///         let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
///         let l = (dx * dx + dy * dy).sqrt();
///         let (ux, uy) = (dx / l * 2.0, dy / l * 2.0);
///         SVector::from([-ux, -uy, ux, uy])
///     }
/// }
/// // stretched by 0.5 along x: 50 N of the spring less the 2 N push on each end
/// let model = Model::builder(4).term([0, 1, 2, 3], Pushed).build().unwrap();
/// let r = lagrangian::ad::term_residual(&Pushed, 0.0, &[0.0, 0.0, 1.5, 0.0], &[0.0; 4], &[0.0; 4]);
/// assert!((r[0] + 48.0).abs() < 1e-12 && (r[2] - 48.0).abs() < 1e-12);
/// assert_eq!(model.n_terms(), 1);
/// ```
pub trait Declared<const N: usize>: Send + Sync {
    /// `Some(D)` if the term's potential, dissipation and forces depend on its coordinates
    /// `q = [x₁, …, x_P]` (points of dimension `D`, `N = P·D`) only through the differences of
    /// the points, and on the velocities only through the differences of theirs: moving all
    /// points by one vector, or with one common velocity, changes nothing. The toolkit then
    /// seeds its derivative passes on `x₂ … x_P` alone and recovers the derivatives in `x₁` as
    /// minus their sum (docs/maths.md §15): a 3D spring's passes run on 3 seeds instead of 6.
    /// Used with [`Structure::NoKinetic`] and [`Structure::ConstantMass`].
    const TRANSLATION_INVARIANT: Option<usize> = None;
    /// What the kinetic energy of every value of the type can be ([`KineticForm`]).
    const KINETIC: KineticForm = KineticForm::Any;
    /// [`Term::kinetic`].
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
    /// [`Term::mass`].
    fn mass(&self) -> SMatrix<f64, N, N> {
        defaults::mark(defaults::MASS);
        SMatrix::zeros()
    }
    /// [`Term::mass_matrix`].
    fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
    ) -> SMatrix<D, N, N> {
        defaults::mark(defaults::MASS_MATRIX);
        SMatrix::from_element(D::from(0.0))
    }
    /// [`Term::potential`].
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, N>) -> D {
        D::from(0.0)
    }
    /// [`Term::lagrangian`].
    fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        defaults::mark(defaults::LAGRANGIAN);
        self.kinetic(t, q, v) - self.potential(t, q)
    }
    /// [`Term::dissipation`].
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
        _v: &SVector<D, N>,
    ) -> D {
        defaults::mark(defaults::DISSIPATION);
        D::from(0.0)
    }
    /// [`Term::force`].
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
        _v: &SVector<D, N>,
    ) -> SVector<D, N> {
        defaults::mark(defaults::FORCE);
        SVector::from_element(D::from(0.0))
    }
    /// Whether [`dissipation`](Declared::dissipation) or [`force`](Declared::force) is nonzero
    /// for this value. `false` (the default is `true`) lets the toolkit skip their derivatives;
    /// a term that implements neither is found to have neither without it.
    fn has_dissipation_or_force(&self) -> bool {
        true
    }
    /// How the Lagrangian is built, so the toolkit derives each part with the lowest
    /// derivative order it needs ([`Structure`]); the default, [`Structure::General`], is right
    /// for every term, and `NoKinetic`, `ConstantMass` and `MassMatrix` are found without it.
    fn structure(&self) -> Structure {
        Structure::General
    }
    /// For [`Structure::PointMasses`]: the constant symmetric matrix `m_ab` of
    /// `T = ½ Σ_ab m_ab ẋ_a·ẋ_b` over the (at most four) [`mass_points`](Declared::mass_points);
    /// rows of unused points zero.
    fn point_mass_matrix(&self) -> [[f64; 4]; 4] {
        [[0.0; 4]; 4]
    }
    /// For [`Structure::PointMasses`]: the points (or vectors) `x_a(t, q)` whose velocities the
    /// kinetic energy is a constant quadratic form of — any functions of `t` and `q`.
    fn mass_points<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
    ) -> [[D; 3]; 4] {
        [[D::from(0.0); 3]; 4]
    }
    // Runs `f`, the assembly's loop over a group of these terms, from code placed with this
    // type ([`Placed`]); a wrapper forwards to the type it wraps (not for users).
    crate::model::placed_method!();
}

/// Every [`Term`] is a [`Declared`] that declares nothing.
impl<T: Term<N>, const N: usize> Declared<N> for T {
    #[inline(always)]
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        Term::kinetic(self, t, q, v)
    }
    #[inline(always)]
    fn mass(&self) -> SMatrix<f64, N, N> {
        Term::mass(self)
    }
    #[inline(always)]
    fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
    ) -> SMatrix<D, N, N> {
        Term::mass_matrix(self, t, q)
    }
    #[inline(always)]
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, N>) -> D {
        Term::potential(self, t, q)
    }
    #[inline(always)]
    fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        Term::lagrangian(self, t, q, v)
    }
    #[inline(always)]
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        Term::dissipation(self, t, q, v)
    }
    #[inline(always)]
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> SVector<D, N> {
        Term::force(self, t, q, v)
    }
}

/// What a [`Term`] promises about its Lagrangian, so its residual and Jacobians take the cheapest
/// derivation (docs/maths.md §15):
///
/// | structure | residual | passes for the Jacobians |
/// | --- | --- | --- |
/// | `General` | `d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q` | third derivatives of `L` |
/// | `NoKinetic` | `∇V + ∂R/∂v − Q` | `∇²V`; `R_vq`, `R_vv` |
/// | `ConstantMass` | `M a + ∇V + ∂R/∂v − Q` | as `NoKinetic`, `M` once |
/// | `MassMatrix` | `M a + Ṁ v − ½ ∇_q(vᵀ M v) + ∇V + ∂R/∂v − Q` | `M` alone for `c_K = c_D = 0`; else as `General` |
/// | `PointMasses` | `Σ_a J_aᵀ Σ_b m_ab ẍ_b + ∇V + ∂R/∂v − Q` | as `General` |
///
/// Every structure but `PointMasses` is found without declaring it ([`Declared::structure`]):
///
/// ```
/// use lagrangian::prelude::*;
/// // a spring to the origin: no kinetic energy, so ∇V and ∇²V by one second-order pass
/// struct Anchor;
/// impl Term<2> for Anchor {
///     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
///         q.dot(q) * 50.0
///     }
/// }
/// assert_eq!(lagrangian::ad::TermAd::<_, 2>::new(Anchor).derivation().0, Structure::NoKinetic);
/// let r = lagrangian::ad::term_residual(&Anchor, 0.0, &[0.1, -0.2], &[0.0; 2], &[0.0; 2]);
/// assert!((r[0] - 10.0).abs() < 1e-14 && (r[1] + 20.0).abs() < 1e-14);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Structure {
    /// `L(t, q, v)` of any form, [`lagrangian`](Term::lagrangian) possibly overridden.
    #[default]
    General,
    /// No kinetic energy: `L = −V(t, q)` ([`kinetic`](Term::kinetic) and
    /// [`lagrangian`](Term::lagrangian) not overridden), with any dissipation and forces —
    /// springs, potentials, dampers, loads.
    NoKinetic,
    /// `L = T − V` ([`lagrangian`](Term::lagrangian) not overridden) with `T = ½ vᵀ M v` and `M`
    /// constant (no dependence on `t` or `q`; no terms linear in `v`) — point masses in
    /// Cartesian coordinates, planar bodies on their basic points. Found without declaring it
    /// for a term that writes [`mass`](Term::mass) and neither `kinetic` nor `lagrangian`, and
    /// at sample states for one whose `kinetic` is such a form.
    ConstantMass,
    /// `L = T − V` ([`lagrangian`](Term::lagrangian) not overridden) with `T = ½ vᵀ M(t, q) v`
    /// written as [`mass_matrix`](Term::mass_matrix) (and possibly [`mass`](Term::mass)), found
    /// without declaring it. The residual is `M a + Ṁ v − ½ ∇_q(vᵀ M v) + ∇V + ∂R/∂v − Q` from
    /// two first-order passes of `M` (along the path and seeded on `q`), the matrix of a state's
    /// accelerations `M` itself; the other Jacobians take the general path.
    MassMatrix,
    /// `L = T − V` ([`lagrangian`](Declared::lagrangian) not overridden) with
    /// `T = ½ Σ_ab m_ab ẋ_a·ẋ_b` over points `x_a(t, q)` of any form
    /// ([`mass_points`](Declared::mass_points)) and constant `m_ab`
    /// ([`point_mass_matrix`](Declared::point_mass_matrix))
    /// — a massive bar on points that are expressions of the coordinates, a 3D body on its
    /// point and frame vectors (`k = i × j` is quadratic in `q`). The residual's kinetic part is the virtual work of
    /// the points' inertia forces, `Σ_a J_aᵀ f_a` with `f_a = Σ_b m_ab ẍ_b` (`J_a = ∂x_a/∂q`):
    /// one first-over-second-order pass per point instead of nested passes through `L`. The
    /// Jacobians take the general path.
    PointMasses,
}
