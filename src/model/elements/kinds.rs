//! The library's elements on points as three types: [`PointTerm`] (the elements with mass —
//! particles, springs, planar and 3D bodies), [`PointLoad`] (forces and torques, no kinetic
//! energy) and [`PointConstraint`] (distances, rigidity rows, equations), each an enum whose
//! `Declared<N>` / `Constraint<N, 1>` methods pass the call to the element it holds.
//!
//! Why: an element on points is placed on any of the local sizes [`ad::place`] has kernels for,
//! and each size of each element type is a copy of the AD kernel's derivative passes and of the
//! assembly's group loops, each type's share of the library's build multiplied by the number of
//! sizes (benches/README.md, "The library's elements on points as three types"). Placed as one
//! of these enums, the passes and the loops are compiled once per size for all the elements of
//! a kind; each element's own energies are compiled as before, inside the enum's arms. At run
//! time an element pays one `match` per energy evaluation, and the elements of one kind on one
//! size share a group.
//!
//! The enums' constants are those of their variants taken together: a kind has no kinetic
//! energy only if none of its elements has one (`PointLoad`), and may write a mass matrix if
//! any may (the library's kinetic elements declare they do not).
//!
//! [`ad::place`]: crate::ad::place
//!
//! ```
//! use lagrangian::ad::term_energy;
//! use lagrangian::model::elements::{PointTerm, Points, SpringBetween};
//! let s = PointTerm::from(SpringBetween {
//!     ends: Points::plain(2, 2), stiffness: 100.0, rest_length: 1.0, mass: 3.0, damping: 0.0,
//!     gravity: [0.0, -10.0, 0.0],
//! });
//! // the spring's own energies: T = ½ m |v|² = 1.5, V = ½·100·1.5² + 3·10·1 = 142.5
//! let [t, v, _] = term_energy::<_, 4>(&s, 0.0, &[0.0, 0.0, 1.5, 2.0], &[0.0, 1.0, 0.0, 1.0]);
//! assert!((t - 1.5).abs() < 1e-12 && (v - 142.5).abs() < 1e-12);
//! ```

use super::{
    BodyTorque, DistanceBetween, Equation, ParticleAt, PlanarBody, PlanarTorque, PointForce,
    RigidBody3, RigidityRow, SpringBetween,
};
use crate::model::{Constraint, Declared, KineticForm, Structure};
use nalgebra::{SMatrix, SVector};
use num_dual::DualNum;

/// `match` on the element an enum holds (bound to `$x`) and call its `Declared<N>` method `$m`
/// with the arguments `$args`.
macro_rules! delegate {
    ($self:ident, $x:ident, $name:ident, [$(($variant:ident, $ty:ty)),+], $m:ident $args:tt) => {
        match $self {
            $($name::$variant($x) => <$ty as Declared<N>>::$m $args,)+
        }
    };
}

macro_rules! term_kind {
    ($(#[$doc:meta])* $name:ident { $($variant:ident($ty:ty)),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub enum $name {
            $(#[doc = concat!("A [`", stringify!($ty), "`].")] $variant($ty),)+
        }

        $(impl From<$ty> for $name {
            fn from(x: $ty) -> Self {
                $name::$variant(x)
            }
        })+

        impl<const N: usize> Declared<N> for $name {
            const KINETIC: KineticForm =
                KineticForm::Zero $(.widest(<$ty as Declared<N>>::KINETIC))+;
            fn kinetic<D: DualNum<Primitive = f64> + Copy>(
                &self,
                t: D,
                q: &SVector<D, N>,
                v: &SVector<D, N>,
            ) -> D {
                delegate!(self, x, $name, [$(($variant, $ty)),+], kinetic(x, t, q, v))
            }
            fn mass(&self) -> SMatrix<f64, N, N> {
                delegate!(self, x, $name, [$(($variant, $ty)),+], mass(x))
            }
            fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(
                &self,
                t: D,
                q: &SVector<D, N>,
            ) -> SMatrix<D, N, N> {
                delegate!(self, x, $name, [$(($variant, $ty)),+], mass_matrix(x, t, q))
            }
            fn potential<D: DualNum<Primitive = f64> + Copy>(
                &self,
                t: D,
                q: &SVector<D, N>,
            ) -> D {
                delegate!(self, x, $name, [$(($variant, $ty)),+], potential(x, t, q))
            }
            fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
                &self,
                t: D,
                q: &SVector<D, N>,
                v: &SVector<D, N>,
            ) -> D {
                delegate!(self, x, $name, [$(($variant, $ty)),+], lagrangian(x, t, q, v))
            }
            fn dissipation<D: DualNum<Primitive = f64> + Copy>(
                &self,
                t: D,
                q: &SVector<D, N>,
                v: &SVector<D, N>,
            ) -> D {
                delegate!(self, x, $name, [$(($variant, $ty)),+], dissipation(x, t, q, v))
            }
            fn force<D: DualNum<Primitive = f64> + Copy>(
                &self,
                t: D,
                q: &SVector<D, N>,
                v: &SVector<D, N>,
            ) -> SVector<D, N> {
                delegate!(self, x, $name, [$(($variant, $ty)),+], force(x, t, q, v))
            }
            fn has_dissipation_or_force(&self) -> bool {
                delegate!(self, x, $name, [$(($variant, $ty)),+], has_dissipation_or_force(x))
            }
            fn structure(&self) -> Structure {
                delegate!(self, x, $name, [$(($variant, $ty)),+], structure(x))
            }
            fn point_mass_matrix(&self) -> [[f64; 4]; 4] {
                delegate!(self, x, $name, [$(($variant, $ty)),+], point_mass_matrix(x))
            }
            fn mass_points<D: DualNum<Primitive = f64> + Copy>(
                &self,
                t: D,
                q: &SVector<D, N>,
            ) -> [[D; 3]; 4] {
                delegate!(self, x, $name, [$(($variant, $ty)),+], mass_points(x, t, q))
            }
        }
    };
}

term_kind!(
    /// The library's elements on points with mass, as one type (module docs): what
    /// [`ad::place`](crate::ad::place) places them as.
    PointTerm {
        Particle(ParticleAt),
        Spring(SpringBetween),
        Planar(PlanarBody),
        Body(RigidBody3),
    }
);

term_kind!(
    /// The library's forces and torques at points, as one type (module docs); none has kinetic
    /// energy, so neither has the kind.
    PointLoad {
        Force(PointForce),
        PlanarTorque(PlanarTorque),
        BodyTorque(BodyTorque),
    }
);

/// The library's one-row constraints on points, as one type (module docs).
#[derive(Clone, Debug)]
pub enum PointConstraint {
    /// A [`DistanceBetween`].
    Distance(DistanceBetween),
    /// A [`RigidityRow`].
    Rigidity(RigidityRow),
    /// An [`Equation`].
    Equation(Equation),
}

impl From<DistanceBetween> for PointConstraint {
    fn from(x: DistanceBetween) -> Self {
        PointConstraint::Distance(x)
    }
}
impl From<RigidityRow> for PointConstraint {
    fn from(x: RigidityRow) -> Self {
        PointConstraint::Rigidity(x)
    }
}
impl From<Equation> for PointConstraint {
    fn from(x: Equation) -> Self {
        PointConstraint::Equation(x)
    }
}

impl<const N: usize> Constraint<N, 1> for PointConstraint {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
    ) -> SVector<D, 1> {
        match self {
            PointConstraint::Distance(x) => {
                <DistanceBetween as Constraint<N, 1>>::constraint(x, t, q)
            }
            PointConstraint::Rigidity(x) => <RigidityRow as Constraint<N, 1>>::constraint(x, t, q),
            PointConstraint::Equation(x) => <Equation as Constraint<N, 1>>::constraint(x, t, q),
        }
    }
}

// The kinds' constants, checked when the library is built: the kinetic elements declare that
// they write no mass matrix, the loads that they have no kinetic energy, and no kind claims a
// translation invariance (a declaration only the springs on coordinates make).
const _: () = assert!(matches!(
    <PointTerm as Declared<4>>::KINETIC,
    KineticForm::Function
));
const _: () = assert!(matches!(
    <PointLoad as Declared<4>>::KINETIC,
    KineticForm::Zero
));
const _: () = assert!(<PointTerm as Declared<4>>::TRANSLATION_INVARIANT.is_none());
