//! AD residual + Jacobian blocks of single terms (static-size nested duals).

use criterion::{criterion_group, criterion_main, Criterion};
use lagrangian::ad::{term_blocks, term_residual};
use lagrangian::library::andrews::Andrews;
use lagrangian::library::elements::Spring;
use lagrangian::library::pendulum::DoublePendulum;
use std::hint::black_box;

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

criterion_group!(benches, bench);
criterion_main!(benches);
