//! What a term's energies are found to be at sample states, so that the form a physicist
//! writes first takes the cheap derivation without a declaration:
//!
//! - a `kinetic` that is `½ vᵀ M v` with one constant `M` (a point mass's `½ m v·v`) is run as
//!   [`Structure::ConstantMass`](crate::model::Structure::ConstantMass): `M a` instead of the
//!   nested pass through `d/dt ∂L/∂v`;
//! - a potential and Rayleigh function that depend on two (or, in 3D, three) points only
//!   through their differences (a spring written on both ends' coordinates) take the passes of
//!   a translation-invariant term ([`super::relative`]): seeded on all points but the first.
//!
//! Unlike what [`super::detect`] finds (exactly, from the default bodies that run), these are
//! properties of functions, tested where they are evaluated: at five states spread over signs
//! and scales (positions up to 40, times up to 60), and for translations by moderate and by
//! large vectors. The tests are strict — a Hessian equal to rounding at every state, `T` equal
//! to `½ vᵀ M v` to 1e-10 of its terms' size, gradients summing to zero over the points to
//! 1e-12 of their size — so a kinetic energy with any dependence on `q` or `t`, a term linear
//! in `v`, a potential with any field acting on one point (gravity, a floor, an anchor) keeps
//! the general derivation. A state where a term is not finite (a pole) decides nothing: the
//! property must hold at every state, and a term that is not finite at one keeps the general
//! path; a term that panics there too.

use super::dense::Untagged;
use super::passes;
use crate::model::{Declared, may_write_mass};
use nalgebra::{Const, SVector};
use num_dual::Dual2SVec;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Relative size of what a property may leave (rounding of the term's own arithmetic).
const ROUNDING: f64 = 1e-10;

/// The sample states `(t, q, v)`: no special values, both signs, scales from 0.1 to 40.
fn samples<const N: usize>() -> impl Iterator<Item = (f64, SVector<f64, N>, SVector<f64, N>)> {
    const SCALE: [f64; 5] = [1.0, 1.0, 0.1, 8.0, 40.0];
    const TIME: [f64; 5] = [0.3, 0.75, -1.9, 6.1, 60.3];
    (0..5).map(|k| {
        let kf = k as f64;
        let s = SCALE[k];
        let q = SVector::<f64, N>::from_fn(|i, _| {
            s * (0.4 + 0.9 * (1.3 * i as f64 + 2.1 * kf + 0.5).sin())
        });
        let v = SVector::<f64, N>::from_fn(|i, _| s * (0.7 * i as f64 + 1.1 * kf + 0.2).cos());
        (TIME[k], q, v)
    })
}

/// `f` where it returns, `false` where it panics (a term's `assert!` at a sample state).
fn unless_it_panics(f: impl FnOnce() -> bool) -> bool {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(false)
}

/// Whether the term's `kinetic` is `½ vᵀ M v` with one constant matrix `M` at every sample
/// state: its Hessian in `v` (one second-order pass) the same everywhere, and `T` equal to the
/// quadratic form (no part constant or linear in `v`).
pub(crate) fn constant_quadratic_kinetic<T: Declared<N>, const N: usize>(term: &T) -> bool {
    type S<const N: usize> = Dual2SVec<f64, N>;
    unless_it_panics(|| {
        let mut first = None;
        for (t, q, v) in samples::<N>() {
            let vd = SVector::<S<N>, N>::from_fn(|i, _| S::from_re(v[i]).derivative(i));
            let k = term.kinetic(S::from_re(t), &q.map(S::from_re), &vd);
            let h = k.v2.unwrap_generic(Const::<N>, Const::<N>);
            if !(k.re.is_finite() && h.iter().all(|x| x.is_finite())) {
                return false;
            }
            let m = *first.get_or_insert(h);
            let size = m.abs().max();
            if (h - m).abs().max() > ROUNDING * size {
                return false;
            }
            // ½ vᵀ M v against T, to the size of the form's terms
            let form = 0.5 * v.dot(&(m * v));
            let terms = 0.5 * v.abs().dot(&(m.abs() * v.abs()));
            if (k.re - form).abs() > ROUNDING * terms.max(k.re.abs()) {
                return false;
            }
        }
        true
    })
}

/// The dimension of the points a term on `N` coordinates is tested for translation invariance
/// in: two points on a line, in the plane or in space, or three in space (0: not tested).
pub(crate) const fn point_dimension<const N: usize>() -> usize {
    match N {
        2 => 1,
        4 => 2,
        6 | 9 => 3,
        _ => 0,
    }
}

/// Whether the tests are compiled for terms of type `T`: a type whose kinetic energy may take
/// any form (`KineticForm::Any`: a user's), not one of the library's elements, which declare
/// what they are (their structure and translation invariance, `KineticForm::Function`) or have
/// no kinetic energy by construction (its loads and wrappers, `KineticForm::Zero`). For those
/// the tests and the reduced passes they would select are not compiled at all (`const`
/// conditions).
pub(crate) const fn users<T: Declared<N>, const N: usize>() -> bool {
    may_write_mass::<T, N>()
}

/// Whether a term of type `T` is tested for translation invariance: a user's type
/// ([`users`]) that declares none, of a size with a [`point_dimension`].
pub(crate) const fn tested<T: Declared<N>, const N: usize>() -> bool {
    users::<T, N>() && T::TRANSLATION_INVARIANT.is_none() && point_dimension::<N>() > 0
}

/// `Σ_p x_p[k]` over the points of dimension `d`, for each component `k`, against the size of
/// the terms summed: whether the sums vanish to `tol`.
fn sums_vanish<const N: usize>(g: &SVector<f64, N>, d: usize, tol: f64) -> bool {
    let size = g.abs().max();
    (0..d).all(|k| {
        let sum: f64 = g.iter().skip(k).step_by(d).sum();
        sum.abs() <= tol * size
    })
}

/// Whether the term's potential (and Rayleigh function, with `dissipation`) depends on its
/// points (of dimension [`point_dimension`]) only through their differences, at every sample
/// state: the gradients' sums over the points vanish (`∂V/∂x₁ = −Σ_{p>1} ∂V/∂x_p`, what the
/// reduced passes take), and the values are unchanged by moving every point by a moderate and
/// by a large vector (positions, and velocities for `R`). A term that writes a force is not
/// tested (`false`).
pub(crate) fn translation_invariant<T: Declared<N>, const N: usize>(
    term: &T,
    dissipation: bool,
    force: bool,
) -> bool {
    let d = point_dimension::<N>();
    if d == 0 || force {
        return false;
    }
    let shift = |x: &SVector<f64, N>, scale: f64| {
        SVector::<f64, N>::from_fn(|i, _| x[i] + scale * [2.5, -1.75, 3.25][i % d])
    };
    let near = |a: f64, b: f64, slope: f64| {
        let tol = ROUNDING * (a.abs().max(b.abs()) + slope);
        (a - b).abs() <= tol && a.is_finite() && b.is_finite()
    };
    unless_it_panics(|| {
        for (t, q, v) in samples::<N>() {
            let g = passes::potential_gradient::<T, N, N, Untagged>(term, t, &q);
            if !g.iter().all(|x| x.is_finite()) || !sums_vanish(&g, d, 1e-12) {
                return false;
            }
            let v0 = term.potential(t, &q);
            for scale in [1.0, 16.0] {
                // what moving the points leaves by rounding: |∇V| times the vector's size
                let slope = g.abs().max() * 4.0 * scale * N as f64;
                if !near(term.potential(t, &shift(&q, scale)), v0, slope) {
                    return false;
                }
            }
            if !dissipation {
                continue;
            }
            let gv = passes::dissipation_gradient::<T, N, N, Untagged>(term, t, &q, &v);
            if !gv.iter().all(|x| x.is_finite()) || !sums_vanish(&gv, d, 1e-12) {
                return false;
            }
            let r0 = term.dissipation(t, &q, &v);
            for scale in [1.0, 16.0] {
                let slope = (gv.abs().max() + r0.abs()) * 4.0 * scale * N as f64;
                let moved = term.dissipation(t, &shift(&q, scale), &v);
                let carried = term.dissipation(t, &q, &shift(&v, scale));
                if !near(moved, r0, slope) || !near(carried, r0, slope) {
                    return false;
                }
            }
        }
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Term;
    use num_dual::DualNum;

    /// `T = ½ vᵀ M v` with a constant `M` written out by components (not a point mass's form).
    struct Coupled;
    impl Term<2> for Coupled {
        fn kinetic<D: DualNum<Primitive = f64> + Copy>(
            &self,
            _t: D,
            _q: &SVector<D, 2>,
            v: &SVector<D, 2>,
        ) -> D {
            v[0] * v[0] * 1.5 + v[0] * v[1] * 0.4 + v[1] * v[1] * 0.5
        }
    }
    /// A kinetic energy of the given kind.
    struct Kinetic(u8);
    impl Term<2> for Kinetic {
        fn kinetic<D: DualNum<Primitive = f64> + Copy>(
            &self,
            t: D,
            q: &SVector<D, 2>,
            v: &SVector<D, 2>,
        ) -> D {
            let base = v.dot(v) * 0.5;
            match self.0 {
                // a pendulum's ½ (v₀² + q₀² v₁²): M(q)
                0 => (v[0] * v[0] + q[0] * q[0] * v[1] * v[1]) * 0.5,
                // a mass growing in time
                1 => base * (t * 1e-3 + 1.0),
                // a gyroscopic (magnetic) part linear in v
                2 => base + (q[0] * v[1] - q[1] * v[0]) * 0.25,
                // a constant added (an energy's zero moved: harmless, but not ½ vᵀ M v)
                3 => base + 1.0,
                // M(q) only far from the origin
                4 => base * (q[0] * q[0] * 1e-6 + 1.0),
                // a pole at one sample's velocity
                _ => base / (v[0] - 0.2f64.cos()),
            }
        }
    }

    #[test]
    fn a_constant_mass_is_found_only_where_t_is_its_quadratic_form() {
        assert!(constant_quadratic_kinetic(&Coupled));
        for kind in 0..6 {
            assert!(!constant_quadratic_kinetic(&Kinetic(kind)), "kind {kind}");
        }
    }

    /// A spring between two points of dimension `N / 2`, with what else `self.0` asks for.
    struct Pair(u8);
    impl Term<6> for Pair {
        fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, 6>) -> D {
            let d = q.fixed_rows::<3>(3) - q.fixed_rows::<3>(0);
            let s = d.dot(&d).sqrt() - 1.0;
            let spring = s * s * 50.0 * (t.sin() * 0.1 + 1.0);
            match self.0 {
                // gravity on both ends
                1 => spring + (q[2] + q[5]) * 9.81,
                // a floor under the first end
                2 if q[2].re() < 0.0 => spring + q[2] * q[2] * 1e3,
                // a field far weaker than the spring, on one end
                3 => spring + q[0] * 1e-6,
                _ => spring,
            }
        }
        fn dissipation<D: DualNum<Primitive = f64> + Copy>(
            &self,
            _t: D,
            q: &SVector<D, 6>,
            v: &SVector<D, 6>,
        ) -> D {
            let d = q.fixed_rows::<3>(3) - q.fixed_rows::<3>(0);
            let dd = v.fixed_rows::<3>(3) - v.fixed_rows::<3>(0);
            match self.0 {
                // drag on the second end: not invariant under a common velocity
                4 => v.fixed_rows::<3>(3).dot(&v.fixed_rows::<3>(3)),
                // damping that grows with the first end's height
                5 => d.dot(&dd).powi(2) * (q[2] * 0.1 + 1.0),
                _ => d.dot(&dd).powi(2) / d.dot(&d),
            }
        }
    }

    #[test]
    fn translation_invariance_is_found_only_where_it_holds() {
        assert_eq!(point_dimension::<6>(), 3);
        assert_eq!(point_dimension::<3>(), 0);
        assert!(translation_invariant(&Pair(0), false, false));
        assert!(translation_invariant(&Pair(0), true, false));
        for kind in 1..4 {
            assert!(!translation_invariant(&Pair(kind), false, false), "{kind}");
        }
        for kind in 4..6 {
            assert!(translation_invariant(&Pair(kind), false, false));
            assert!(!translation_invariant(&Pair(kind), true, false), "{kind}");
        }
        // a term that writes a force is not tested
        assert!(!translation_invariant(&Pair(0), true, true));
    }
}
