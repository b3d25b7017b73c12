//! What a term leaves out, found when it is wrapped: a [`Term`] that implements neither
//! [`kinetic`](Term::kinetic) nor [`lagrangian`](Term::lagrangian) has no kinetic energy
//! ([`Structure::NoKinetic`]), and one that implements neither
//! [`dissipation`](Term::dissipation) nor [`force`](Term::force) has neither — so the short
//! version a user writes first (a `potential` alone) takes the cheapest derivation without
//! declaring anything. Likewise a term that writes its kinetic energy as a mass matrix —
//! [`mass`](Term::mass) (constant) or [`mass_matrix`](Term::mass_matrix) (`M(t, q)`) — instead
//! of `kinetic` and `lagrangian` is [`Structure::ConstantMass`] or [`Structure::MassMatrix`].
//!
//! The test is exact, not a sample: the default bodies of those methods mark a thread-local
//! set of bits when they run (`model::defaults`), and a method a term overrides never runs its
//! default body. One call of each on zeros tells which are defaults.

use super::sampled;
use crate::model::{
    Declared, KineticForm, Structure, defaults, half_quadratic_form, may_write_mass,
};
use nalgebra::{SMatrix, SVector};
use num_dual::DualNum;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A term with what it leaves out detected: its [`Structure`] (`General` becomes `NoKinetic`
/// without `kinetic` and `lagrangian`, `ConstantMass` with [`mass`](Term::mass) written instead
/// of them, `MassMatrix` with [`mass_matrix`](Term::mass_matrix)) and whether it has
/// dissipation or forces.
pub(crate) struct Detected<T> {
    pub(crate) term: T,
    pub(crate) structure: Structure,
    /// The term writes `dissipation` (and does not say it has neither).
    dissipation: bool,
    /// The term writes `force` (and does not say it has neither).
    force: bool,
    /// `kinetic` is the default, `½ vᵀ M v` over the matrices written: (`mass`, `mass_matrix`).
    kinetic_default: Option<(bool, bool)>,
    /// Not declared translation invariant, but found so at sample states (`sampled`): the
    /// reduced passes in points of dimension `sampled::point_dimension::<N>()`.
    pub(crate) invariant: bool,
}

/// Whether the term's kinetic energy equals `½ vᵀ M v` over the matrices it writes
/// (`written`: `mass`, `mass_matrix`) at a state with no special values (to rounding).
fn kinetic_is_written_mass<T: Declared<N>, const N: usize>(
    term: &T,
    written: (bool, bool),
) -> bool {
    if written == (false, false) {
        return true;
    }
    let q = SVector::<f64, N>::from_fn(|i, _| 0.31 + 0.17 * i as f64);
    let v = SVector::<f64, N>::from_fn(|i, _| 0.73 - 0.29 * i as f64);
    let t = 0.41;
    catch_unwind(AssertUnwindSafe(|| {
        let mut m = SMatrix::<f64, N, N>::zeros();
        if written.0 {
            m += term.mass();
        }
        if written.1 {
            m += term.mass_matrix(t, &q);
        }
        let want = 0.5 * v.dot(&(m * v));
        let got = term.kinetic(t, &q, &v);
        (got - want).abs() <= 1e-12 * (1.0 + want.abs()) && got.is_finite()
    }))
    .unwrap_or(false)
}

/// The default bodies that ran during `f` (none if it panicked: nothing is concluded).
fn defaults_run(f: impl FnOnce()) -> u8 {
    defaults::take();
    let ok = catch_unwind(AssertUnwindSafe(f)).is_ok();
    let ran = defaults::take();
    if ok { ran } else { 0 }
}

impl<T> Detected<T> {
    /// Detect what `term` leaves out.
    pub(crate) fn new<const N: usize>(term: T) -> Self
    where
        T: Declared<N>,
    {
        let z = SVector::<f64, N>::zeros();
        let kinetic = defaults_run(|| {
            term.kinetic(0.0, &z, &z);
        });
        let lagrangian = defaults_run(|| {
            term.lagrangian(0.0, &z, &z);
        });
        let lagrangian_default = lagrangian & defaults::LAGRANGIAN != 0;
        let mut kinetic_default = (kinetic & defaults::KINETIC != 0).then_some((
            kinetic & defaults::MASS == 0,
            kinetic & defaults::MASS_MATRIX == 0,
        ));
        // The marks say which default bodies ran, not whose: a wrapper whose `kinetic` forwards
        // to a term's default body marks as that term would. The term's own `mass` and
        // `mass_matrix` must mark the same, and its kinetic energy equal `½ vᵀ M v` over them.
        if let Some(written) = kinetic_default {
            let own = defaults_run(|| {
                term.mass();
                term.mass_matrix(0.0, &z);
            });
            let own = (own & defaults::MASS == 0, own & defaults::MASS_MATRIX == 0);
            if own != written || !kinetic_is_written_mass(&term, written) {
                kinetic_default = None;
            }
        }
        let declared = term.structure();
        let mut structure = declared;
        if declared == Structure::General && lagrangian_default {
            structure = match kinetic_default {
                Some((_, true)) => Structure::MassMatrix,
                Some((true, false)) => Structure::ConstantMass,
                Some((false, false)) => Structure::NoKinetic,
                None => Structure::General,
            };
        }
        // each on its own: the default of the one left out is then never called (it marks a
        // thread-local, which a residual of a spring with dissipation but no force paid)
        let written =
            |bit: u8, f: &dyn Fn()| term.has_dissipation_or_force() && defaults_run(f) & bit == 0;
        let dissipation = written(defaults::DISSIPATION, &|| {
            term.dissipation(0.0, &z, &z);
        });
        let force = written(defaults::FORCE, &|| {
            term.force(0.0, &z, &z);
        });
        let mut me = Detected {
            term,
            structure,
            dissipation,
            force,
            kinetic_default,
            invariant: false,
        };
        // `kinetic` written: ½ m v·v is a constant mass matrix however it is written, tested
        // on the wrapped term (the same instances of its passes as the kernels run) and only
        // for a user's type (`const`: not compiled for the library's elements)
        if const { sampled::users::<T, N>() }
            && declared == Structure::General
            && lagrangian_default
            && kinetic_default.is_none()
            && sampled::constant_quadratic_kinetic(&me)
        {
            me.structure = Structure::ConstantMass;
        }
        // the reduced passes serve the structured derivations (not a general Lagrangian's)
        me.invariant = const { sampled::tested::<T, N>() }
            && matches!(me.structure, Structure::NoKinetic | Structure::ConstantMass)
            && sampled::translation_invariant(&me, dissipation, force);
        me
    }

    /// `½ vᵀ M v` over the matrices the term writes. Not inlined: a term that writes `kinetic`
    /// itself would carry this arm wherever its kinetic energy is evaluated.
    #[inline(never)]
    fn written_kinetic<D: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D
    where
        T: Declared<N>,
    {
        half_quadratic_form(&self.written_mass(t, q), v)
    }

    /// The constant mass matrix of a term that writes it as [`mass`](Term::mass) alone.
    #[inline(always)]
    pub(crate) fn written_constant_mass<const N: usize>(&self) -> Option<SMatrix<f64, N, N>>
    where
        T: Declared<N>,
    {
        // the constant first: not compiled for a type that writes no mass matrix
        (may_write_mass::<T, N>() && self.kinetic_default == Some((true, false)))
            .then(|| self.term.mass())
    }

    /// The whole mass matrix the term writes, `M + M(t, q)` (symmetric or not, as written).
    #[inline(always)]
    pub(crate) fn written_mass<D: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        t: D,
        q: &SVector<D, N>,
    ) -> SMatrix<D, N, N>
    where
        T: Declared<N>,
    {
        match self.kinetic_default {
            Some((true, true)) => self.term.mass().map(D::from) + self.term.mass_matrix(t, q),
            Some((true, false)) => self.term.mass().map(D::from),
            Some((false, true)) => self.term.mass_matrix(t, q),
            _ => SMatrix::from_element(D::from(0.0)),
        }
    }
}

impl<T: Declared<N>, const N: usize> Declared<N> for Detected<T> {
    const TRANSLATION_INVARIANT: Option<usize> = T::TRANSLATION_INVARIANT;
    const KINETIC: KineticForm = T::KINETIC;
    #[inline(always)]
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        match self.kinetic_default {
            None => self.term.kinetic(t, q, v),
            Some((false, false)) => D::from(0.0),
            // a constant guard: not compiled for a type that writes no mass matrix
            Some(_) if may_write_mass::<T, N>() => self.written_kinetic(t, q, v),
            Some(_) => self.term.kinetic(t, q, v),
        }
    }
    #[inline(always)]
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, N>) -> D {
        self.term.potential(t, q)
    }
    #[inline(always)]
    fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        // The term's own (for a written mass matrix, its default body is `½ vᵀ M v − V` over
        // the matrices written), with no branch in the general path: the `MassMatrix` path
        // wraps the term in `Written` instead.
        self.term.lagrangian(t, q, v)
    }
    #[inline(always)]
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        if self.dissipation {
            self.term.dissipation(t, q, v)
        } else {
            D::from(0.0)
        }
    }
    #[inline(always)]
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> SVector<D, N> {
        if self.force {
            self.term.force(t, q, v)
        } else {
            SVector::from_element(D::from(0.0))
        }
    }
    #[inline(always)]
    fn has_dissipation_or_force(&self) -> bool {
        self.dissipation || self.force
    }
    #[inline(always)]
    fn structure(&self) -> Structure {
        self.structure
    }
    fn mass(&self) -> SMatrix<f64, N, N> {
        self.term.mass()
    }
    #[inline(always)]
    fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
    ) -> SMatrix<D, N, N> {
        self.term.mass_matrix(t, q)
    }
    fn point_mass_matrix(&self) -> [[f64; 4]; 4] {
        self.term.point_mass_matrix()
    }
    #[inline(always)]
    fn mass_points<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
    ) -> [[D; 3]; 4] {
        self.term.mass_points(t, q)
    }
}

/// A term that writes its mass matrix, with `L = ½ vᵀ M v − V` over the matrices written
/// (no default bodies, no marks): what the general passes of a `MassMatrix` term evaluate.
pub(crate) struct Written<'a, T>(pub(crate) &'a Detected<T>);

impl<T: Declared<N>, const N: usize> Declared<N> for Written<'_, T> {
    #[inline(always)]
    fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        half_quadratic_form(&self.0.written_mass(t, q), v) - self.0.term.potential(t, q)
    }
    #[inline(always)]
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        self.0.dissipation(t, q, v)
    }
    #[inline(always)]
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> SVector<D, N> {
        self.0.force(t, q, v)
    }
    #[inline(always)]
    fn has_dissipation_or_force(&self) -> bool {
        self.0.has_dissipation_or_force()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Term;

    struct OnlyPotential;
    impl Term<2> for OnlyPotential {
        fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
            q[0] * q[1]
        }
    }
    struct WithKinetic;
    impl Term<2> for WithKinetic {
        fn kinetic<D: DualNum<Primitive = f64> + Copy>(
            &self,
            _t: D,
            _q: &SVector<D, 2>,
            v: &SVector<D, 2>,
        ) -> D {
            v.dot(v)
        }
    }
    struct OwnLagrangian;
    impl Term<2> for OwnLagrangian {
        fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
            &self,
            _t: D,
            q: &SVector<D, 2>,
            v: &SVector<D, 2>,
        ) -> D {
            v[0] * q[1]
        }
    }
    struct Damper;
    impl Term<2> for Damper {
        fn dissipation<D: DualNum<Primitive = f64> + Copy>(
            &self,
            _t: D,
            _q: &SVector<D, 2>,
            v: &SVector<D, 2>,
        ) -> D {
            v[0] * v[0]
        }
    }
    struct Pushed;
    impl Term<2> for Pushed {
        fn force<D: DualNum<Primitive = f64> + Copy>(
            &self,
            t: D,
            _q: &SVector<D, 2>,
            _v: &SVector<D, 2>,
        ) -> SVector<D, 2> {
            SVector::from([t, t])
        }
    }
    struct Lumped;
    impl Term<2> for Lumped {
        fn mass(&self) -> SMatrix<f64, 2, 2> {
            SMatrix::identity() * 3.0
        }
    }
    struct Polar;
    impl Term<2> for Polar {
        fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(
            &self,
            _t: D,
            q: &SVector<D, 2>,
        ) -> SMatrix<D, 2, 2> {
            let z = D::from(0.0);
            SMatrix::from([[D::from(1.0), z], [z, q[0] * q[0]]])
        }
    }
    struct Both;
    impl Term<2> for Both {
        fn mass(&self) -> SMatrix<f64, 2, 2> {
            SMatrix::identity()
        }
        fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(
            &self,
            t: D,
            _q: &SVector<D, 2>,
        ) -> SMatrix<D, 2, 2> {
            SMatrix::identity() * t
        }
    }
    /// Forwards `kinetic` alone.
    struct Forwards<T>(T);
    impl<T: Declared<2>> Declared<2> for Forwards<T> {
        fn kinetic<D: DualNum<Primitive = f64> + Copy>(
            &self,
            t: D,
            q: &SVector<D, 2>,
            v: &SVector<D, 2>,
        ) -> D {
            self.0.kinetic(t, q, v)
        }
    }
    /// A potential that panics at the origin: nothing is concluded about it.
    struct Fragile;
    impl Term<2> for Fragile {
        fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
            assert!(q[0].re() != 0.0, "the probe's origin");
            q[0].recip()
        }
    }

    #[test]
    fn what_a_term_leaves_out_is_found_exactly() {
        let d = |s: Structure, df: bool| (s, df);
        let of = |x: &dyn Fn() -> (Structure, bool)| x();
        assert_eq!(
            of(&|| {
                let t = Detected::new(OnlyPotential);
                d(
                    Declared::<2>::structure(&t),
                    Declared::<2>::has_dissipation_or_force(&t),
                )
            }),
            (Structure::NoKinetic, false)
        );
        // `T = v·v`, a constant mass matrix written as `kinetic`: found at sample states
        let t = Detected::new(WithKinetic);
        assert_eq!(Declared::<2>::structure(&t), Structure::ConstantMass);
        assert!(!Declared::<2>::has_dissipation_or_force(&t));
        let t = Detected::new(OwnLagrangian);
        assert_eq!(Declared::<2>::structure(&t), Structure::General);
        let t = Detected::new(Damper);
        assert_eq!(Declared::<2>::structure(&t), Structure::NoKinetic);
        assert!(Declared::<2>::has_dissipation_or_force(&t));
        // the force it leaves out is never called (its default body marks a thread-local)
        defaults::take();
        let z = SVector::<f64, 2>::zeros();
        assert_eq!(t.force(0.0, &z, &z), z);
        assert_eq!(defaults::take(), 0);
        let t = Detected::new(Pushed);
        assert!(Declared::<2>::has_dissipation_or_force(&t));
        let t = Detected::new(Lumped);
        assert_eq!(Declared::<2>::structure(&t), Structure::ConstantMass);
        let v = SVector::from([1.0, 2.0]);
        assert_eq!(t.kinetic(0.0, &v, &v), 7.5);
        assert_eq!(t.lagrangian(0.0, &v, &v), 7.5);
        let t = Detected::new(Polar);
        assert_eq!(Declared::<2>::structure(&t), Structure::MassMatrix);
        assert_eq!(t.kinetic(0.0, &SVector::from([3.0, 0.0]), &v), 0.5 + 18.0);
        // both written: T = ½ vᵀ (I + t I) v
        let t = Detected::new(Both);
        assert_eq!(Declared::<2>::structure(&t), Structure::MassMatrix);
        assert_eq!(t.kinetic(2.0, &v, &v), 7.5);
        // the raw term's default kinetic energy is the same
        assert_eq!(Term::kinetic(&Both, 2.0, &v, &v), 7.5);
        // a wrapper that forwards `kinetic` to a term's default body, not its matrices, marks
        // as that term would: it is not taken for one that writes a mass matrix
        let t = Detected::new(Forwards(Polar));
        assert_eq!(Declared::<2>::structure(&t), Structure::General);
        assert_eq!(t.kinetic(0.0, &SVector::from([3.0, 0.0]), &v), 0.5 + 18.0);
        let t = Detected::new(Forwards(Lumped));
        assert_eq!(Declared::<2>::structure(&t), Structure::ConstantMass);
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let t = Detected::new(Fragile);
        std::panic::set_hook(hook);
        assert_eq!(Declared::<2>::structure(&t), Structure::General);
    }
}
