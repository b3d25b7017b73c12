//! Kernels on `M` local coordinates serving elements on fewer, `N ≤ M`.
//!
//! An element on points ([`crate::model::elements::Points`]) reads only the local coordinates
//! its points name, so evaluated on `M > N` coordinates, the extra ones zero, it gives its `N`
//! residual entries and blocks unchanged and zeros beyond them. The placing functions
//! ([`super::place`]) build AD kernels at a few sizes only — 1, 2, 3, 4, 6, 8, 9, 12, 18 —
//! and serve the sizes between with the next one up: each size is a full copy of every
//! element's derivative passes on its own dual numbers, and the nine sizes instead of eighteen
//! halve the code the library's build compiles (benches/README.md, "What a cold release build
//! costs"). An element on 7 coordinates costs what one on 8 does. The kernel served is behind
//! a pointer, so the groups of padded elements are one type for each pair of sizes.

use crate::expr::taylor::TaylorVar;
use crate::model::kernel::{ConstraintBlocks, ConstraintKernel, KernelCoefficients, TermKernel};
use nalgebra::{SMatrix, SVector, Scalar};
use num_traits::Zero;

/// `x` followed by zeros up to `M` entries (numbers or series).
#[inline]
fn pad<T: Scalar + Zero, const N: usize, const M: usize>(x: &SVector<T, N>) -> SVector<T, M> {
    SVector::from_fn(|i, _| if i < N { x[i].clone() } else { T::zero() })
}

/// The first `N` entries of `x`.
#[inline]
fn cut<T: Scalar, const N: usize, const M: usize>(x: &SVector<T, M>) -> SVector<T, N> {
    x.fixed_rows::<N>(0).into_owned()
}

/// What a padded term asks of the kernel it serves: the methods of [`TermKernel`] on `M`
/// coordinates, as a trait object (the trait's constants make it none itself).
trait TermOn<const M: usize>: Send + Sync {
    fn constant_mass(&self) -> bool;
    fn residual(&self, t: f64, q: &Vector<M>, v: &Vector<M>, a: &Vector<M>) -> Vector<M>;
    fn jacobian(
        &self,
        t: f64,
        q: &Vector<M>,
        v: &Vector<M>,
        a: &Vector<M>,
        c: &KernelCoefficients,
    ) -> (Vector<M>, SMatrix<f64, M, M>);
    fn energy(&self, t: f64, q: &Vector<M>, v: &Vector<M>) -> [f64; 3];
    fn momentum(&self, t: f64, q: &Vector<M>, v: &Vector<M>) -> Vector<M>;
    fn power(&self, t: f64, q: &Vector<M>, v: &Vector<M>) -> [f64; 3];
    fn taylor_residual(
        &self,
        t: TaylorVar,
        q: &Series<M>,
        v: &Series<M>,
        a: &Series<M>,
    ) -> Option<Series<M>>;
}

type Vector<const M: usize> = SVector<f64, M>;
type Series<const M: usize> = SVector<TaylorVar, M>;

impl<K: TermKernel<M>, const M: usize> TermOn<M> for K {
    fn constant_mass(&self) -> bool {
        TermKernel::constant_mass(self)
    }
    fn residual(&self, t: f64, q: &Vector<M>, v: &Vector<M>, a: &Vector<M>) -> Vector<M> {
        TermKernel::residual(self, t, q, v, a)
    }
    fn jacobian(
        &self,
        t: f64,
        q: &Vector<M>,
        v: &Vector<M>,
        a: &Vector<M>,
        c: &KernelCoefficients,
    ) -> (Vector<M>, SMatrix<f64, M, M>) {
        TermKernel::jacobian(self, t, q, v, a, c)
    }
    fn energy(&self, t: f64, q: &Vector<M>, v: &Vector<M>) -> [f64; 3] {
        TermKernel::energy(self, t, q, v)
    }
    fn momentum(&self, t: f64, q: &Vector<M>, v: &Vector<M>) -> Vector<M> {
        TermKernel::momentum(self, t, q, v)
    }
    fn power(&self, t: f64, q: &Vector<M>, v: &Vector<M>) -> [f64; 3] {
        TermKernel::power(self, t, q, v)
    }
    fn taylor_residual(
        &self,
        t: TaylorVar,
        q: &Series<M>,
        v: &Series<M>,
        a: &Series<M>,
    ) -> Option<Series<M>> {
        TermKernel::taylor_residual(self, t, q, v, a)
    }
}

/// An AD term kernel on `M` local coordinates used for an element on the first `N` of them.
/// The kernel is behind a pointer: a group of padded elements is one type for each pair of
/// sizes, whatever the elements' types — a group's assembly compiled for each element type
/// at each of the ten padded sizes was a tenth of the library's machine code — and a call
/// through the pointer is nothing beside an AD pass on eight or more coordinates.
pub struct Padded<const M: usize>(Box<dyn TermOn<M>>);

impl<const M: usize> Padded<M> {
    /// Serve `kernel` to an element on fewer coordinates.
    pub fn new<K: TermKernel<M>>(kernel: K) -> Self {
        Padded(Box::new(kernel))
    }
}

impl<const N: usize, const M: usize> TermKernel<N> for Padded<M> {
    // the kernels served are AD kernels, each element far costlier than its entries
    const PARALLEL: bool = true;
    fn constant_mass(&self) -> bool {
        self.0.constant_mass()
    }
    fn residual(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
    ) -> SVector<f64, N> {
        cut(&self.0.residual(t, &pad(q), &pad(v), &pad(a)))
    }
    fn jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
        c: &KernelCoefficients,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        let (r, j) = self.0.jacobian(t, &pad(q), &pad(v), &pad(a), c);
        (cut(&r), j.fixed_view::<N, N>(0, 0).into_owned())
    }
    fn energy(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> [f64; 3] {
        self.0.energy(t, &pad(q), &pad(v))
    }
    fn momentum(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N> {
        cut(&self.0.momentum(t, &pad(q), &pad(v)))
    }
    fn power(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> [f64; 3] {
        self.0.power(t, &pad(q), &pad(v))
    }
    fn taylor_residual(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, N>,
        v: &SVector<TaylorVar, N>,
        a: &SVector<TaylorVar, N>,
    ) -> Option<SVector<TaylorVar, N>> {
        let (q, v, a) = (pad(q), pad(v), pad(a));
        Some(cut(&self.0.taylor_residual(t, &q, &v, &a)?))
    }
}

/// What a padded constraint asks of the kernel it serves: the methods of
/// [`ConstraintKernel`] on `M` coordinates, as a trait object.
trait ConstraintOn<const M: usize, const R: usize>: Send + Sync {
    fn value(&self, t: f64, q: &Vector<M>) -> Vector<R>;
    fn jacobian(&self, t: f64, q: &Vector<M>) -> (Vector<R>, SMatrix<f64, R, M>);
    fn blocks(&self, t: f64, q: &Vector<M>, lambda: &Vector<R>) -> ConstraintBlocks<M, R>;
    fn time_derivative(&self, t: f64, q: &Vector<M>) -> Vector<R>;
    fn gamma(&self, t: f64, q: &Vector<M>, v: &Vector<M>) -> Vector<R>;
    fn taylor_value(&self, t: TaylorVar, q: &Series<M>) -> Option<Series<R>>;
    fn taylor_force(&self, t: TaylorVar, q: &Series<M>, lambda: &Series<R>) -> Option<Series<M>>;
}

impl<K: ConstraintKernel<M, R>, const M: usize, const R: usize> ConstraintOn<M, R> for K {
    fn value(&self, t: f64, q: &Vector<M>) -> Vector<R> {
        ConstraintKernel::value(self, t, q)
    }
    fn jacobian(&self, t: f64, q: &Vector<M>) -> (Vector<R>, SMatrix<f64, R, M>) {
        ConstraintKernel::jacobian(self, t, q)
    }
    fn blocks(&self, t: f64, q: &Vector<M>, lambda: &Vector<R>) -> ConstraintBlocks<M, R> {
        ConstraintKernel::blocks(self, t, q, lambda)
    }
    fn time_derivative(&self, t: f64, q: &Vector<M>) -> Vector<R> {
        ConstraintKernel::time_derivative(self, t, q)
    }
    fn gamma(&self, t: f64, q: &Vector<M>, v: &Vector<M>) -> Vector<R> {
        ConstraintKernel::gamma(self, t, q, v)
    }
    fn taylor_value(&self, t: TaylorVar, q: &Series<M>) -> Option<Series<R>> {
        ConstraintKernel::taylor_value(self, t, q)
    }
    fn taylor_force(&self, t: TaylorVar, q: &Series<M>, lambda: &Series<R>) -> Option<Series<M>> {
        ConstraintKernel::taylor_force(self, t, q, lambda)
    }
}

/// An AD constraint kernel of `R` rows on `M` local coordinates used for an element on the
/// first `N` of them, behind a pointer as [`Padded`] is.
pub struct PaddedConstraint<const M: usize, const R: usize>(Box<dyn ConstraintOn<M, R>>);

impl<const M: usize, const R: usize> PaddedConstraint<M, R> {
    /// Serve `kernel` to an element on fewer coordinates.
    pub fn new<K: ConstraintKernel<M, R>>(kernel: K) -> Self {
        PaddedConstraint(Box::new(kernel))
    }
}

impl<const N: usize, const M: usize, const R: usize> ConstraintKernel<N, R>
    for PaddedConstraint<M, R>
{
    fn value(&self, t: f64, q: &SVector<f64, N>) -> SVector<f64, R> {
        self.0.value(t, &pad(q))
    }
    fn jacobian(&self, t: f64, q: &SVector<f64, N>) -> (SVector<f64, R>, SMatrix<f64, R, N>) {
        let (c, j) = self.0.jacobian(t, &pad(q));
        (c, j.fixed_view::<R, N>(0, 0).into_owned())
    }
    fn blocks(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        lambda: &SVector<f64, R>,
    ) -> ConstraintBlocks<N, R> {
        let b = self.0.blocks(t, &pad(q), lambda);
        ConstraintBlocks {
            c: b.c,
            jac: b.jac.fixed_view::<R, N>(0, 0).into_owned(),
            hess_lambda: b.hess_lambda.fixed_view::<N, N>(0, 0).into_owned(),
        }
    }
    fn time_derivative(&self, t: f64, q: &SVector<f64, N>) -> SVector<f64, R> {
        self.0.time_derivative(t, &pad(q))
    }
    fn gamma(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, R> {
        self.0.gamma(t, &pad(q), &pad(v))
    }
    fn taylor_value(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, N>,
    ) -> Option<SVector<TaylorVar, R>> {
        self.0.taylor_value(t, &pad(q))
    }
    fn taylor_force(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, N>,
        lambda: &SVector<TaylorVar, R>,
    ) -> Option<SVector<TaylorVar, N>> {
        Some(cut(&self.0.taylor_force(t, &pad(q), lambda)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::{ConstraintAd, TermAd};
    use crate::model::{Constraint, Term};
    use num_dual::DualNum;

    /// Every part of a term on the first five of `N` coordinates: a configuration-dependent
    /// mass, an explicit time dependence, dissipation and a force.
    struct Five;
    impl<const N: usize> Term<N> for Five {
        fn kinetic<D: DualNum<Primitive = f64> + Copy>(
            &self,
            t: D,
            q: &SVector<D, N>,
            v: &SVector<D, N>,
        ) -> D {
            (q[0] * q[0] + 1.0) * v[0] * v[0] * 0.5
                + q[1] * v[1] * v[2]
                + v[3] * v[3] * t.cos()
                + v[4] * v[4] * 2.0
        }
        fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, N>) -> D {
            q[3] * q[4].sin() + t * q[2] * q[0] + q[1].powi(4)
        }
        fn dissipation<D: DualNum<Primitive = f64> + Copy>(
            &self,
            _t: D,
            q: &SVector<D, N>,
            v: &SVector<D, N>,
        ) -> D {
            (v[3] - v[4]).powi(2) * (q[2] * q[2] + 0.3)
        }
        fn force<D: DualNum<Primitive = f64> + Copy>(
            &self,
            t: D,
            q: &SVector<D, N>,
            v: &SVector<D, N>,
        ) -> SVector<D, N> {
            let mut f = SVector::from_element(D::from(0.0));
            f[1] = q[0] * v[2] + t;
            f[4] = -v[4] * q[3];
            f
        }
    }

    struct Closes;
    impl<const N: usize> Constraint<N, 1> for Closes {
        fn constraint<D: DualNum<Primitive = f64> + Copy>(
            &self,
            t: D,
            q: &SVector<D, N>,
        ) -> SVector<D, 1> {
            SVector::from([q[0] * q[0] + q[1] * q[4] - (t * q[2]).sin() + q[3]])
        }
    }

    fn close<const R: usize, const C: usize>(a: &SMatrix<f64, R, C>, b: &SMatrix<f64, R, C>) {
        assert!(
            (a - b).abs().max() <= 1e-15 * (1.0 + b.abs().max()),
            "{a} vs {b}"
        );
    }

    /// On five coordinates, the kernel of size 6 serves exactly what the kernel of size 5 does.
    #[test]
    fn a_padded_kernel_is_the_kernel_of_its_size() {
        let q = SVector::<f64, 5>::from([0.3, -0.7, 1.1, 0.4, -0.2]);
        let v = SVector::<f64, 5>::from([-0.5, 0.6, 0.2, 1.3, -0.8]);
        let a = SVector::<f64, 5>::from([0.9, -0.1, 0.7, -1.2, 0.4]);
        let t = 0.35;
        let exact = TermAd::<Five, 5>::new(Five);
        let padded = Padded::<6>::new(TermAd::<Five, 6>::new(Five));
        close(
            &TermKernel::<5>::residual(&padded, t, &q, &v, &a),
            &TermKernel::<5>::residual(&exact, t, &q, &v, &a),
        );
        for (mass, damping, stiffness) in [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.7, 0.2, 0.05)] {
            let c = KernelCoefficients {
                mass,
                damping,
                stiffness,
            };
            let (r1, j1) = TermKernel::<5>::jacobian(&padded, t, &q, &v, &a, &c);
            let (r2, j2) = TermKernel::<5>::jacobian(&exact, t, &q, &v, &a, &c);
            close(&r1, &r2);
            close(&j1, &j2);
            assert!(j2.abs().max() > 0.1);
        }
        let e = |x: [f64; 3]| SVector::<f64, 3>::from(x);
        close(
            &e(TermKernel::<5>::energy(&padded, t, &q, &v)),
            &e(TermKernel::<5>::energy(&exact, t, &q, &v)),
        );
        close(
            &e(TermKernel::<5>::power(&padded, t, &q, &v)),
            &e(TermKernel::<5>::power(&exact, t, &q, &v)),
        );
        close(
            &TermKernel::<5>::momentum(&padded, t, &q, &v),
            &TermKernel::<5>::momentum(&exact, t, &q, &v),
        );
        assert_eq!(
            TermKernel::<5>::constant_mass(&padded),
            TermKernel::<5>::constant_mass(&exact)
        );

        let exact = ConstraintAd::<Closes, 5, 1>::new(Closes);
        let padded = PaddedConstraint::<6, 1>::new(ConstraintAd::<Closes, 6, 1>::new(Closes));
        let lambda = SVector::<f64, 1>::from([-1.7]);
        let (b1, b2) = (
            ConstraintKernel::<5, 1>::blocks(&padded, t, &q, &lambda),
            ConstraintKernel::<5, 1>::blocks(&exact, t, &q, &lambda),
        );
        close(&b1.c, &b2.c);
        close(&b1.jac, &b2.jac);
        close(&b1.hess_lambda, &b2.hess_lambda);
        let (c1, j1) = ConstraintKernel::<5, 1>::jacobian(&padded, t, &q);
        let (c2, j2) = ConstraintKernel::<5, 1>::jacobian(&exact, t, &q);
        close(&c1, &c2);
        close(&j1, &j2);
        close(
            &ConstraintKernel::<5, 1>::value(&padded, t, &q),
            &ConstraintKernel::<5, 1>::value(&exact, t, &q),
        );
        close(
            &ConstraintKernel::<5, 1>::time_derivative(&padded, t, &q),
            &ConstraintKernel::<5, 1>::time_derivative(&exact, t, &q),
        );
        close(
            &ConstraintKernel::<5, 1>::gamma(&padded, t, &q, &v),
            &ConstraintKernel::<5, 1>::gamma(&exact, t, &q, &v),
        );
    }
}
