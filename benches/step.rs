//! One generalized-α step of a 100-pendulum 3D Cartesian chain (300 coordinates, 100 rods),
//! full Newton and with the factorization reused.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use lagrangian::library::pendulum::pendulum_chain_3d;
use lagrangian::prelude::*;

fn chain_state(n: usize) -> (Arc<Model>, State) {
    let model = pendulum_chain_3d(&vec![1.0; n], &vec![0.1; n], 9.81).unwrap();
    let mut q = Vec::with_capacity(3 * n);
    for i in 0..n {
        let a = 0.3 + 0.01 * i as f64;
        q.extend([
            0.1 * (i + 1) as f64 * a.cos(),
            0.0,
            -0.1 * (i + 1) as f64 * a.sin(),
        ]);
    }
    let init =
        consistent_initial_values(&model, &q, &vec![0.0; 3 * n], &InitOptions::default()).unwrap();
    (Arc::new(model), init.state)
}

fn bench(c: &mut Criterion) {
    let (model, state) = chain_state(100);
    for (name, reuse) in [
        ("chain100/step_full_newton", false),
        ("chain100/step_reuse_lu", true),
    ] {
        c.bench_function(name, |b| {
            b.iter_batched_ref(
                || {
                    let mut g = GenAlpha::new(
                        model.clone(),
                        &state,
                        GenAlphaOptions::new(1e-3).reuse_factorization(reuse),
                    )
                    .unwrap();
                    g.step().unwrap(); // warm: first factorization, workspaces
                    g
                },
                |g| g.step().unwrap(),
                BatchSize::SmallInput,
            )
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
