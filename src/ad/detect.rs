//! What a term leaves out, found when it is wrapped: a [`Term`] that implements neither
//! [`kinetic`](Term::kinetic) nor [`lagrangian`](Term::lagrangian) has no kinetic energy
//! ([`Structure::NoKinetic`]), and one that implements neither
//! [`dissipation`](Term::dissipation) nor [`force`](Term::force) has neither — so the short
//! version a user writes first (a `potential` alone) takes the cheapest derivation without
//! declaring anything.
//!
//! The test is exact, not a sample: the default bodies of those methods mark a thread-local
//! set of bits when they run (`model::defaults`), and a method a term overrides never runs its
//! default body. One call of each on zeros tells which are defaults.

use crate::model::{defaults, Structure, Term};
use nalgebra::SVector;
use num_dual::DualNum;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A term with what it leaves out detected: its [`Structure`] (`General` becomes `NoKinetic`
/// without `kinetic` and `lagrangian`) and whether it has dissipation or forces.
pub(crate) struct Detected<T> {
    pub(crate) term: T,
    pub(crate) structure: Structure,
    dissipation_or_force: bool,
}

/// The default bodies that ran during `f` (none if it panicked: nothing is concluded).
fn defaults_run(f: impl FnOnce()) -> u8 {
    defaults::take();
    let ok = catch_unwind(AssertUnwindSafe(f)).is_ok();
    let ran = defaults::take();
    if ok {
        ran
    } else {
        0
    }
}

impl<T> Detected<T> {
    /// Detect what `term` leaves out.
    pub(crate) fn new<const N: usize>(term: T) -> Self
    where
        T: Term<N>,
    {
        let z = SVector::<f64, N>::zeros();
        let declared = term.structure();
        let mut structure = declared;
        if declared == Structure::General {
            let kinetic = defaults_run(|| {
                term.kinetic(0.0, &z, &z);
            });
            let lagrangian = defaults_run(|| {
                term.lagrangian(0.0, &z, &z);
            });
            if kinetic & defaults::KINETIC != 0 && lagrangian & defaults::LAGRANGIAN != 0 {
                structure = Structure::NoKinetic;
            }
        }
        let mut dissipation_or_force = term.has_dissipation_or_force();
        if dissipation_or_force {
            let ran = defaults_run(|| {
                term.dissipation(0.0, &z, &z);
                term.force(0.0, &z, &z);
            });
            dissipation_or_force = ran & (defaults::DISSIPATION | defaults::FORCE)
                != defaults::DISSIPATION | defaults::FORCE;
        }
        Detected {
            term,
            structure,
            dissipation_or_force,
        }
    }
}

impl<T: Term<N>, const N: usize> Term<N> for Detected<T> {
    const TRANSLATION_INVARIANT: Option<usize> = T::TRANSLATION_INVARIANT;
    #[inline(always)]
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        self.term.kinetic(t, q, v)
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
        self.term.lagrangian(t, q, v)
    }
    #[inline(always)]
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        self.term.dissipation(t, q, v)
    }
    #[inline(always)]
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> SVector<D, N> {
        self.term.force(t, q, v)
    }
    #[inline(always)]
    fn has_dissipation_or_force(&self) -> bool {
        self.dissipation_or_force
    }
    #[inline(always)]
    fn structure(&self) -> Structure {
        self.structure
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

#[cfg(test)]
mod tests {
    use super::*;

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
                    Term::<2>::structure(&t),
                    Term::<2>::has_dissipation_or_force(&t),
                )
            }),
            (Structure::NoKinetic, false)
        );
        let t = Detected::new(WithKinetic);
        assert_eq!(Term::<2>::structure(&t), Structure::General);
        assert!(!Term::<2>::has_dissipation_or_force(&t));
        let t = Detected::new(OwnLagrangian);
        assert_eq!(Term::<2>::structure(&t), Structure::General);
        let t = Detected::new(Damper);
        assert_eq!(Term::<2>::structure(&t), Structure::NoKinetic);
        assert!(Term::<2>::has_dissipation_or_force(&t));
        let t = Detected::new(Pushed);
        assert!(Term::<2>::has_dissipation_or_force(&t));
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let t = Detected::new(Fragile);
        std::panic::set_hook(hook);
        assert_eq!(Term::<2>::structure(&t), Structure::General);
    }
}
