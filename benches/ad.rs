//! AD residual + Jacobian blocks of single terms (static-size nested duals).

use criterion::{Criterion, criterion_group, criterion_main};
use lagrangian::ad::{TermAd, term_blocks, term_residual};
use lagrangian::library::andrews::Andrews;
use lagrangian::library::elements::{Particle, Spring};
use lagrangian::library::mass_spring::SpringKernel;
use lagrangian::library::pendulum::DoublePendulum;
use lagrangian::model::elements::PointMassKernel;
use lagrangian::model::{Declared, KernelCoefficients, Term, TermKernel};
use nalgebra::SVector;
use num_dual::DualNum;
use std::hint::black_box;

/// A spring whose structure is not declared: the general third-order derivation.
struct GeneralSpring(Spring<3>);

impl Term<6> for GeneralSpring {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, 6>) -> D {
        Declared::potential(&self.0, t, q)
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, 6>,
        v: &SVector<D, 6>,
    ) -> D {
        Declared::dissipation(&self.0, t, q, v)
    }
}

/// The 3D damped spring three ways: the hand kernel, AD along its declared structure
/// (`NoKinetic`), AD along the general path.
fn spring_kernels(c: &mut Criterion) {
    let (k, l, d) = (1000.0, 1.0, 0.01);
    let hand = SpringKernel::<3>::new(k, l, d);
    let spring = Spring::<3> {
        stiffness: k,
        rest_length: l,
        damping: d,
    };
    let ad = TermAd::<_, 6>::new(spring);
    let general = TermAd::<_, 6>::new(GeneralSpring(spring));
    let q = SVector::<f64, 6>::from([0.1, 0.2, -0.3, 1.4, 0.5, 0.2]);
    let v = SVector::<f64, 6>::from([0.3, -0.1, 0.2, -0.5, 0.4, 0.1]);
    let a = SVector::<f64, 6>::zeros();
    let w = KernelCoefficients {
        mass: 1.0,
        damping: 0.5,
        stiffness: 0.25,
    };
    c.bench_function("spring3d_kernel/hand/residual", |b| {
        b.iter(|| hand.residual(0.0, black_box(&q), black_box(&v), &a))
    });
    c.bench_function("spring3d_kernel/ad/residual", |b| {
        b.iter(|| ad.residual(0.0, black_box(&q), black_box(&v), &a))
    });
    c.bench_function("spring3d_kernel/general/residual", |b| {
        b.iter(|| general.residual(0.0, black_box(&q), black_box(&v), &a))
    });
    let hand0 = SpringKernel::<3>::new(k, l, 0.0);
    let ad0 = TermAd::<_, 6>::new(Spring::<3> {
        damping: 0.0,
        ..spring
    });
    c.bench_function("spring3d_kernel/hand_undamped/residual", |b| {
        b.iter(|| hand0.residual(0.0, black_box(&q), black_box(&v), &a))
    });
    c.bench_function("spring3d_kernel/ad_undamped/residual", |b| {
        b.iter(|| ad0.residual(0.0, black_box(&q), black_box(&v), &a))
    });
    c.bench_function("spring3d_kernel/hand/jacobian", |b| {
        b.iter(|| hand.jacobian(0.0, black_box(&q), black_box(&v), &a, &w))
    });
    c.bench_function("spring3d_kernel/ad/jacobian", |b| {
        b.iter(|| ad.jacobian(0.0, black_box(&q), black_box(&v), &a, &w))
    });
    c.bench_function("spring3d_kernel/general/jacobian", |b| {
        b.iter(|| general.jacobian(0.0, black_box(&q), black_box(&v), &a, &w))
    });
}

/// A 3D point mass under gravity: the hand kernel and AD along `ConstantMass`.
fn particle_kernels(c: &mut Criterion) {
    let hand = PointMassKernel::<3> {
        mass: 2.0,
        gravity: [0.0, 0.0, -9.81],
    };
    let ad = TermAd::<_, 3>::new(Particle::<3> {
        mass: 2.0,
        gravity: [0.0, 0.0, -9.81],
    });
    let q = SVector::<f64, 3>::from([0.1, 0.2, -0.3]);
    let v = SVector::<f64, 3>::from([0.3, -0.1, 0.2]);
    let a = SVector::<f64, 3>::from([1.0, 0.5, -2.0]);
    c.bench_function("particle3d_kernel/hand/residual", |b| {
        b.iter(|| hand.residual(0.0, black_box(&q), black_box(&v), black_box(&a)))
    });
    c.bench_function("particle3d_kernel/ad/residual", |b| {
        b.iter(|| ad.residual(0.0, black_box(&q), black_box(&v), black_box(&a)))
    });
}

fn bench(c: &mut Criterion) {
    let spring = Spring::<3> {
        stiffness: 1000.0,
        rest_length: 1.0,
        damping: 0.01,
    };
    let q = [0.1, 0.2, -0.3, 1.4, 0.5, 0.2];
    let v = [0.3, -0.1, 0.2, -0.5, 0.4, 0.1];
    let a = [0.0; 6];
    c.bench_function("spring3d_damped/residual", |b| {
        b.iter(|| term_residual(black_box(&spring), 0.0, black_box(&q), black_box(&v), &a))
    });
    c.bench_function("spring3d_damped/residual+jacobians", |b| {
        b.iter(|| term_blocks(black_box(&spring), 0.0, black_box(&q), black_box(&v), &a))
    });
    let dp = DoublePendulum {
        m: [1.0, 0.6],
        l: [1.0, 0.7],
        g: 9.81,
    };
    let (q2, v2, a2) = ([1.2, -0.4], [0.3, 1.5], [0.1, -0.2]);
    c.bench_function("double_pendulum/residual", |b| {
        b.iter(|| term_residual(black_box(&dp), 0.0, black_box(&q2), black_box(&v2), &a2))
    });
    c.bench_function("double_pendulum/residual+jacobians", |b| {
        b.iter(|| term_blocks(black_box(&dp), 0.0, black_box(&q2), black_box(&v2), &a2))
    });
    let an = Andrews::default();
    let q7 = lagrangian::library::andrews::Q0;
    let v7 = [1.0, -2.0, 0.5, 0.3, -0.2, 0.1, 0.4];
    c.bench_function("andrews/residual+jacobians", |b| {
        b.iter(|| {
            term_blocks(
                black_box(&an),
                0.0,
                black_box(&q7),
                black_box(&v7),
                &[0.0; 7],
            )
        })
    });
}

/// What the Newton iteration asks of a general term: the residual and the weighted Jacobian
/// `c_M M + c_D ∂r/∂v + c_K ∂r/∂q` (`TermKernel::jacobian`).
fn weighted(c: &mut Criterion) {
    let w = KernelCoefficients {
        mass: 1.0,
        damping: 0.5,
        stiffness: 0.25,
    };
    let dp = TermAd::<_, 2>::new(DoublePendulum {
        m: [1.0, 0.6],
        l: [1.0, 0.7],
        g: 9.81,
    });
    let (q2, v2, a2) = (
        SVector::<f64, 2>::from([1.2, -0.4]),
        SVector::<f64, 2>::from([0.3, 1.5]),
        SVector::<f64, 2>::from([0.1, -0.2]),
    );
    c.bench_function("double_pendulum/weighted_jacobian", |b| {
        b.iter(|| dp.jacobian(0.0, black_box(&q2), black_box(&v2), &a2, &w))
    });
    let an = TermAd::<_, 7>::new(Andrews::default());
    let q7 = SVector::<f64, 7>::from(lagrangian::library::andrews::Q0);
    let v7 = SVector::<f64, 7>::from([1.0, -2.0, 0.5, 0.3, -0.2, 0.1, 0.4]);
    let a7 = SVector::<f64, 7>::zeros();
    c.bench_function("andrews/weighted_jacobian", |b| {
        b.iter(|| an.jacobian(0.0, black_box(&q7), black_box(&v7), &a7, &w))
    });
}

criterion_group!(benches, spring_kernels, particle_kernels, bench, weighted);
criterion_main!(benches);
