//! Placing physics on a model: the one place where the toolkit chooses between a hand-derived
//! kernel and forward AD for an element. The mass–spring networks, the generators and rigid
//! bodies of mechanism files and Rust code all place their elements through these functions.
//!
//! * On coordinate points (a point *is* `dim` coordinates) particles, springs and distance
//!   constraints get their hand kernels unless [`Derivatives::Ad`] asks for the AD reference.
//! * Elements on general [`Points`] (affine or expression points) are differentiated by AD on
//!   their local coordinate list ([`localize`]), of at most [`MAX_LOCAL`] coordinates. The
//!   library places its own as one of three kinds ([`PointTerm`], [`PointLoad`],
//!   [`PointConstraint`]), so each size has one kernel type per kind, not one per element type.

use crate::ad::padded::{Padded, PaddedConstraint};
use crate::ad::{ConstraintAd, ExprKernel, TermAd};
use crate::error::ModelError;
use crate::model::elements::{
    AnchoredDistance, AnchoredDistanceKernel, AnchoredSpring, AnchoredSpringKernel, Distance,
    DistanceKernel, ExprEnergy, Particle, ParticleAt, PointConstraint, PointLoad, PointMassKernel,
    PointTerm, Points, Spring, SpringBetween, SpringKernel, localize,
};
use crate::model::geometry::PointMap;
use crate::model::{Constraint, ConstraintKernelBox, Declared, TermKernelBox};

/// A term kernel and the global coordinates it acts on.
pub type PlacedTerm = (Vec<usize>, TermKernelBox);
/// A constraint kernel and the global coordinates it acts on.
pub type PlacedConstraint = (Vec<usize>, ConstraintKernelBox);

/// How the derivatives of an element with a hand kernel are obtained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Derivatives {
    /// Hand-derived residuals and Jacobians (fast; the default).
    #[default]
    Hand,
    /// Forward AD of the same energies and constraints (the reference).
    Ad,
}

/// The largest local coordinate list of an element on points (18: three 3D bodies' worth of
/// basic points, or six points).
pub const MAX_LOCAL: usize = 18;

macro_rules! any_size {
    ($name:ident, $($bound:tt)*) => {
        /// A term or constraint that serves every local size up to [`MAX_LOCAL`]: the sizes
        /// with kernels of their own (the sizes between are served padded, `ad/padded.rs`). The
        /// elements on [`Points`] implement it for every `N`.
        pub trait $name: $($bound)* + 'static {}
        impl<X: $($bound)* + 'static> $name for X {}
    };
}
any_size!(
    AnyTerm,
    Declared<1>
        + Declared<2>
        + Declared<3>
        + Declared<4>
        + Declared<6>
        + Declared<8>
        + Declared<9>
        + Declared<12>
        + Declared<18>
);
any_size!(AnyConstraint, Constraint<1, 1> + Constraint<2, 1> + Constraint<3, 1>
    + Constraint<4, 1> + Constraint<6, 1> + Constraint<8, 1> + Constraint<9, 1>
    + Constraint<12, 1> + Constraint<18, 1>);

/// Calls `$exact::<_, N>` for a local size `N` that has kernels of its own and
/// `$padded::<_, N, M>` for one served by the next such size `M` ([`Padded`]).
macro_rules! by_size {
    ($n:expr, $exact:ident, $padded:ident, $x:expr) => {
        match $n {
            1 => Ok($exact::<_, 1>($x)),
            2 => Ok($exact::<_, 2>($x)),
            3 => Ok($exact::<_, 3>($x)),
            4 => Ok($exact::<_, 4>($x)),
            5 => Ok($padded::<_, 5, 6>($x)),
            6 => Ok($exact::<_, 6>($x)),
            7 => Ok($padded::<_, 7, 8>($x)),
            8 => Ok($exact::<_, 8>($x)),
            9 => Ok($exact::<_, 9>($x)),
            10 => Ok($padded::<_, 10, 12>($x)),
            11 => Ok($padded::<_, 11, 12>($x)),
            12 => Ok($exact::<_, 12>($x)),
            13 => Ok($padded::<_, 13, 18>($x)),
            14 => Ok($padded::<_, 14, 18>($x)),
            15 => Ok($padded::<_, 15, 18>($x)),
            16 => Ok($padded::<_, 16, 18>($x)),
            17 => Ok($padded::<_, 17, 18>($x)),
            18 => Ok($exact::<_, 18>($x)),
            n => Err(ModelError::TooManyCoordinates { n, max: MAX_LOCAL }),
        }
    };
}

fn term_n<T: Declared<N> + 'static, const N: usize>(t: T) -> TermKernelBox {
    TermKernelBox::new(TermAd::<T, N>::new(t))
}
fn term_padded<T: Declared<M> + 'static, const N: usize, const M: usize>(t: T) -> TermKernelBox {
    TermKernelBox::new::<_, N>(Padded::<M>::new(TermAd::<T, M>::new(t)))
}
fn constraint_n<C: Constraint<N, 1> + 'static, const N: usize>(c: C) -> ConstraintKernelBox {
    ConstraintKernelBox::new(ConstraintAd::<C, N, 1>::new(c))
}
fn constraint_padded<C: Constraint<M, 1> + 'static, const N: usize, const M: usize>(
    c: C,
) -> ConstraintKernelBox {
    ConstraintKernelBox::new::<_, N, 1>(PaddedConstraint::<M, 1>::new(
        ConstraintAd::<C, M, 1>::new(c),
    ))
}
fn expr_n<E: Into<ExprEnergy>, const N: usize>(e: E) -> TermKernelBox {
    TermKernelBox::new(ExprKernel::<N>::new(e.into()))
}
fn expr_padded<E: Into<ExprEnergy>, const N: usize, const M: usize>(e: E) -> TermKernelBox {
    TermKernelBox::new::<_, N>(Padded::<M>::new(ExprKernel::<M>::new(e.into())))
}

/// The AD kernel of `term` on `n` local coordinates.
pub fn ad_term<T: AnyTerm>(n: usize, term: T) -> Result<TermKernelBox, ModelError> {
    by_size!(n, term_n, term_padded, term)
}

/// The AD kernel of a one-row constraint on `n` local coordinates.
pub fn ad_constraint<C: AnyConstraint>(n: usize, c: C) -> Result<ConstraintKernelBox, ModelError> {
    by_size!(n, constraint_n, constraint_padded, c)
}

/// Localize `points` and build the kernel on the local coordinates; `None` when every point is
/// fixed (the element cannot affect the motion).
fn on_points<K>(
    dim: usize,
    points: &[&PointMap],
    kernel: impl FnOnce(usize, Points) -> Result<K, ModelError>,
) -> Result<Option<(Vec<usize>, K)>, ModelError> {
    let (idx, local) = localize(dim, points)?;
    if idx.is_empty() {
        return Ok(None);
    }
    let k = kernel(idx.len(), local)?;
    Ok(Some((idx, k)))
}

/// A term on points written on the global coordinates: the global coordinates it acts on and
/// its AD kernel, or `None` when every point is fixed (then it cannot affect the motion).
pub fn term_on<T: AnyTerm>(
    dim: usize,
    points: &[&PointMap],
    make: impl FnOnce(Points) -> T,
) -> Result<Option<PlacedTerm>, ModelError> {
    on_points(dim, points, |n, p| ad_term(n, make(p)))
}

/// A one-row constraint on points written on the global coordinates (`None` between fixed
/// points).
pub fn constraint_on<C: AnyConstraint>(
    dim: usize,
    points: &[&PointMap],
    make: impl FnOnce(Points) -> C,
) -> Result<Option<PlacedConstraint>, ModelError> {
    on_points(dim, points, |n, p| ad_constraint(n, make(p)))
}

/// [`term_on`] for one of the library's elements with mass, placed as a [`PointTerm`] (one
/// kernel type per size for all of them, `model/elements/kinds.rs`).
pub(crate) fn point_term_on<T: Into<PointTerm>>(
    dim: usize,
    points: &[&PointMap],
    make: impl FnOnce(Points) -> T,
) -> Result<Option<PlacedTerm>, ModelError> {
    term_on(dim, points, |p| make(p).into())
}

/// [`term_on`] for one of the library's forces and torques, placed as a [`PointLoad`].
pub(crate) fn point_load_on<T: Into<PointLoad>>(
    dim: usize,
    points: &[&PointMap],
    make: impl FnOnce(Points) -> T,
) -> Result<Option<PlacedTerm>, ModelError> {
    term_on(dim, points, |p| make(p).into())
}

/// [`constraint_on`] for one of the library's one-row constraints, placed as a
/// [`PointConstraint`].
pub(crate) fn point_constraint_on<T: Into<PointConstraint>>(
    dim: usize,
    points: &[&PointMap],
    make: impl FnOnce(Points) -> T,
) -> Result<Option<PlacedConstraint>, ModelError> {
    constraint_on(dim, points, |p| make(p).into())
}

fn dim_check(dim: usize) -> Result<(), ModelError> {
    if (1..=3).contains(&dim) {
        Ok(())
    } else {
        Err(ModelError::BadGeometry {
            element: "points".into(),
            detail: format!("points live in 1, 2 or 3 dimensions, not {dim}"),
        })
    }
}

/// A point mass `m` under gravity `g` (`dim` components) on a coordinate point:
/// `r = m (a − g)`.
pub fn point_mass(
    dim: usize,
    mass: f64,
    gravity: &[f64],
    how: Derivatives,
) -> Result<TermKernelBox, ModelError> {
    dim_check(dim)?;
    let g2 = [gravity[0], gravity[1]];
    let g3 = [g2[0], g2[1], gravity.get(2).copied().unwrap_or(0.0)];
    if dim == 1 {
        let gravity = [gravity[0]];
        return Ok(match how {
            Derivatives::Hand => TermKernelBox::new(PointMassKernel::<1> { mass, gravity }),
            Derivatives::Ad => term_n(Particle::<1> { mass, gravity }),
        });
    }
    Ok(match (how, dim) {
        (Derivatives::Hand, 2) => TermKernelBox::new(PointMassKernel::<2> { mass, gravity: g2 }),
        (Derivatives::Hand, _) => TermKernelBox::new(PointMassKernel::<3> { mass, gravity: g3 }),
        (Derivatives::Ad, 2) => term_n(Particle::<2> { mass, gravity: g2 }),
        (Derivatives::Ad, _) => term_n(Particle::<3> { mass, gravity: g3 }),
    })
}

/// A mass `m` on one coordinate (Exudyn's `Mass1D`): `T = ½ m q̇²`, `r = m q̈` (hand kernel).
pub fn coordinate_mass(mass: f64) -> TermKernelBox {
    TermKernelBox::new(PointMassKernel::<1> {
        mass,
        gravity: [0.0],
    })
}

/// A spring (stiffness `k`, rest length `ℓ₀`, axial damping `c`) between two coordinate points,
/// or from the fixed `anchor` to one: local coordinates (first end, second end), or the moving
/// end alone.
pub fn spring(
    dim: usize,
    anchor: Option<&[f64]>,
    k: f64,
    l0: f64,
    c: f64,
    how: Derivatives,
) -> Result<TermKernelBox, ModelError> {
    dim_check(dim)?;
    let a2 = anchor.map(|p| [p[0], p[1]]);
    let a3 = anchor.map(|p| [p[0], p[1], p.get(2).copied().unwrap_or(0.0)]);
    let (stiffness, rest_length, damping) = (k, l0, c);
    let ad2 = Spring::<2> {
        stiffness,
        rest_length,
        damping,
    };
    let ad3 = Spring::<3> {
        stiffness,
        rest_length,
        damping,
    };
    Ok(match (how, dim) {
        (Derivatives::Hand, 2) => match a2 {
            None => TermKernelBox::new::<_, 4>(SpringKernel::<2>::new(k, l0, c)),
            Some(p) => TermKernelBox::new(AnchoredSpringKernel::<2>::new(p, k, l0, c)),
        },
        (Derivatives::Hand, _) => match a3 {
            None => TermKernelBox::new::<_, 6>(SpringKernel::<3>::new(k, l0, c)),
            Some(p) => TermKernelBox::new(AnchoredSpringKernel::<3>::new(p, k, l0, c)),
        },
        (Derivatives::Ad, 2) => match a2 {
            None => term_n::<_, 4>(ad2),
            Some(anchor) => term_n(AnchoredSpring {
                anchor,
                stiffness,
                rest_length,
                damping,
            }),
        },
        (Derivatives::Ad, _) => match a3 {
            None => term_n::<_, 6>(ad3),
            Some(anchor) => term_n(AnchoredSpring {
                anchor,
                stiffness,
                rest_length,
                damping,
            }),
        },
    })
}

/// The distance constraint `|x₂ − x₁| − ℓ` between two coordinate points (or `|x − p| − ℓ` to
/// the fixed `anchor`).
pub fn distance(
    dim: usize,
    anchor: Option<&[f64]>,
    length: f64,
    how: Derivatives,
) -> Result<ConstraintKernelBox, ModelError> {
    dim_check(dim)?;
    let a2 = anchor.map(|p| [p[0], p[1]]);
    let a3 = anchor.map(|p| [p[0], p[1], p.get(2).copied().unwrap_or(0.0)]);
    Ok(match (how, dim) {
        (Derivatives::Hand, 2) => match a2 {
            None => ConstraintKernelBox::new::<_, 4, 1>(DistanceKernel::<2> { length }),
            Some(anchor) => ConstraintKernelBox::new(AnchoredDistanceKernel { anchor, length }),
        },
        (Derivatives::Hand, _) => match a3 {
            None => ConstraintKernelBox::new::<_, 6, 1>(DistanceKernel::<3> { length }),
            Some(anchor) => ConstraintKernelBox::new(AnchoredDistanceKernel { anchor, length }),
        },
        (Derivatives::Ad, 2) => match a2 {
            None => constraint_n::<_, 4>(Distance::<2> { length }),
            Some(anchor) => constraint_n(AnchoredDistance { anchor, length }),
        },
        (Derivatives::Ad, _) => match a3 {
            None => constraint_n::<_, 6>(Distance::<3> { length }),
            Some(anchor) => constraint_n(AnchoredDistance { anchor, length }),
        },
    })
}

/// Whether a point map is exactly `dim` coordinates (`x_k = q_{i_k}`), and which.
fn plain(dim: usize, p: &PointMap) -> Option<Vec<usize>> {
    let a = p.as_affine()?;
    let ok = a.c == [0.0; 3]
        && a.a.len() == dim
        && a.a
            .iter()
            .enumerate()
            .all(|(k, (_, v))| (0..3).all(|l| v[l] == if l == k { 1.0 } else { 0.0 }));
    ok.then(|| a.a.keys().copied().collect())
}

/// A particle of mass `m` at a point of the mechanism: the hand kernel when the point is a
/// coordinate point, else [`ParticleAt`] by AD. `None` for a fixed point.
pub fn particle_at(
    dim: usize,
    point: &PointMap,
    mass: f64,
    gravity: [f64; 3],
) -> Result<Option<PlacedTerm>, ModelError> {
    if let Some(idx) = plain(dim, point) {
        return Ok(Some((
            idx,
            point_mass(dim, mass, &gravity, Derivatives::Hand)?,
        )));
    }
    point_term_on(dim, &[point], |p| ParticleAt {
        point: p,
        mass,
        gravity,
    })
}

/// A spring element between two points of the mechanism ([`SpringBetween`]: stiffness, rest
/// length, uniform mass, axial damping): the hand kernel when it is massless and its ends are
/// coordinate points (or one is fixed), else AD. `None` between fixed points.
#[allow(clippy::too_many_arguments)]
pub fn spring_between(
    dim: usize,
    a: &PointMap,
    b: &PointMap,
    stiffness: f64,
    rest_length: f64,
    mass: f64,
    damping: f64,
    gravity: [f64; 3],
) -> Result<Option<PlacedTerm>, ModelError> {
    if mass == 0.0 && stiffness != 0.0 && dim >= 2 {
        let hand = |anchor: Option<[f64; 3]>, idx: Vec<usize>| {
            let k = spring(
                dim,
                anchor.as_ref().map(|p| &p[..]),
                stiffness,
                rest_length,
                damping,
                Derivatives::Hand,
            )?;
            Ok::<_, ModelError>(Some((idx, k)))
        };
        match (plain(dim, a), plain(dim, b)) {
            (Some(ia), Some(ib)) => return hand(None, ia.into_iter().chain(ib).collect()),
            (None, Some(ib)) if a.is_fixed() => return hand(Some(a.eval(&[], 0.0)), ib),
            _ => {}
        }
    }
    point_term_on(dim, &[a, b], |ends| SpringBetween {
        ends,
        stiffness,
        rest_length,
        mass,
        damping,
        gravity,
    })
}

/// A force `F(t, q, v)` at a point ([`PointForce`](crate::model::elements::PointForce)): the
/// components are expressions of time and the global coordinates and velocities
/// ([`VExpr::velocity`](crate::expr::VExpr::velocity)); the element acts on the point's
/// coordinates and those the force involves. `None` when neither moves (a force at a fixed
/// point that depends on time only does no work).
pub fn force_at(
    dim: usize,
    point: &PointMap,
    force: [crate::expr::VExpr; 3],
) -> Result<Option<PlacedTerm>, ModelError> {
    use crate::expr::vector::VELOCITY;
    let mut involved = std::collections::BTreeSet::new();
    for f in &force {
        f.coords(&mut involved);
    }
    if point.coords().is_empty() {
        return Ok(None);
    }
    let extra = involved.iter().map(|j| j % VELOCITY).collect();
    let (idx, local) = crate::model::elements::localize_with(dim, &[point], &extra)?;
    let at = |g: usize| idx.binary_search(&g).unwrap_or(usize::MAX);
    let force = force.map(|f| {
        f.remap(&|j| match j >= VELOCITY {
            true => VELOCITY + at(j - VELOCITY),
            false => at(j),
        })
    });
    let k = ad_term(
        idx.len(),
        PointLoad::from(crate::model::elements::PointForce {
            point: local,
            force,
        }),
    )?;
    Ok(Some((idx, k)))
}

/// A constraint written out as an expression of the global coordinates, `C(t, q) = 0`
/// ([`Equation`](crate::model::elements::Equation)) on the coordinates it involves; `None` if it
/// involves none.
pub fn equation(expr: &crate::expr::VExpr) -> Result<Option<PlacedConstraint>, ModelError> {
    let mut set = std::collections::BTreeSet::new();
    expr.coords(&mut set);
    let idx: Vec<usize> = set.into_iter().collect();
    if idx.is_empty() {
        return Ok(None);
    }
    let local = expr.remap(&|j| idx.binary_search(&j).unwrap_or(usize::MAX));
    let k = ad_constraint(
        idx.len(),
        PointConstraint::from(crate::model::elements::Equation { expr: local }),
    )?;
    Ok(Some((idx, k)))
}

/// Energies written out as expressions of the global coordinates, velocities and time
/// ([`ExprEnergy`]), placed on the coordinates whose
/// position or velocity they involve; `None` if they involve none.
pub fn energy(e: ExprEnergy) -> Result<Option<PlacedTerm>, ModelError> {
    use crate::expr::vector::VELOCITY;
    let mut set = std::collections::BTreeSet::new();
    for x in [&e.kinetic, &e.potential, &e.dissipation]
        .into_iter()
        .flatten()
    {
        x.coords(&mut set);
    }
    let idx: Vec<usize> = set
        .into_iter()
        .map(|j| j % VELOCITY)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if idx.is_empty() {
        return Ok(None);
    }
    // local positions keep their velocities VELOCITY above them
    let pos = |g: usize| idx.binary_search(&g).unwrap_or(usize::MAX);
    let local = |x: &Option<crate::expr::VExpr>| {
        x.as_ref().map(|x| {
            x.remap(&|j| match j >= VELOCITY {
                true => VELOCITY + pos(j - VELOCITY),
                false => pos(j),
            })
        })
    };
    let term = ExprEnergy {
        kinetic: local(&e.kinetic),
        potential: local(&e.potential),
        dissipation: local(&e.dissipation),
    };
    let k = by_size!(idx.len(), expr_n, expr_padded, term)?;
    Ok(Some((idx, k)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::compare_term_kernels;
    use crate::model::elements::PlanarBody;

    /// A kind's AD kernel is its element's: residual, mass, damping and stiffness blocks
    /// (`compare_term_kernels`), and the structure and flags the kernel reads, for a damped,
    /// massive spring and a planar body under gravity on four coordinates in motion.
    #[test]
    fn a_kind_differentiates_as_its_element() {
        let spring = SpringBetween {
            ends: Points::plain(2, 2),
            stiffness: 80.0,
            rest_length: 0.7,
            mass: 2.5,
            damping: 1.5,
            gravity: [0.0, -9.81, 0.0],
        };
        let body = PlanarBody {
            basic: Points::plain(2, 2),
            mass: 3.0,
            inertia: 0.4,
            centroid: [0.3, 0.1],
            length: 1.1,
            gravity: [0.0, -9.81, 0.0],
        };
        let (q, v, a) = (
            [0.1, -0.2, 0.9, 0.5],
            [0.3, 0.1, -0.4, 0.2],
            [1.0, -2.0, 0.5, 0.3],
        );
        let kind = TermAd::<PointTerm, 4>::new(spring.clone().into());
        let own = TermAd::<SpringBetween, 4>::new(spring.clone());
        assert!(compare_term_kernels(&kind, &own, 0.2, &q, &v, &a) < 1e-14);
        let kind = TermAd::<PointTerm, 4>::new(body.clone().into());
        let own = TermAd::<PlanarBody, 4>::new(body.clone());
        assert!(compare_term_kernels(&kind, &own, 0.2, &q, &v, &a) < 1e-14);
        let (ks, kb) = (
            PointTerm::from(spring.clone()),
            PointTerm::from(body.clone()),
        );
        assert_eq!(
            Declared::<4>::structure(&ks),
            Declared::<4>::structure(&spring),
            "the spring's structure"
        );
        assert_eq!(
            Declared::<4>::structure(&kb),
            Declared::<4>::structure(&body)
        );
        assert!(Declared::<4>::has_dissipation_or_force(&ks));
        assert!(!Declared::<4>::has_dissipation_or_force(&kb));
        assert_eq!(
            Declared::<4>::point_mass_matrix(&kb),
            Declared::<4>::point_mass_matrix(&body)
        );
    }
}
