//! The dense and sparse linear solvers, and full versus modified Newton, give the same
//! trajectory (to well below the discretization error).

use lagrangian::library::pendulum::pendulum_chain_3d;
use lagrangian::prelude::*;

#[test]
fn dense_sparse_full_and_modified_newton_agree() {
    let n = 6;
    let model = Arc::new(
        pendulum_chain_3d(
            &[1.0, 0.5, 2.0, 1.0, 0.7, 1.2],
            &[0.3, 0.4, 0.2, 0.3, 0.25, 0.35],
            9.81,
        )
        .unwrap(),
    );
    let mut q = Vec::new();
    let mut z = 0.0;
    for i in 0..n {
        z -= 0.3;
        q.extend([0.1 * i as f64, 0.05 * (i as f64).cos(), z]);
    }
    let mut v = vec![0.0; 3 * n];
    v[3 * n - 3] = 2.0;
    let init = consistent_initial_values(&model, &q, &v, &InitOptions::default()).unwrap();
    let run = |kind, reuse| {
        let opts = GenAlphaOptions::new(1e-3)
            .linear_solver(kind)
            .reuse_factorization(reuse);
        simulate_from(&model, &init.state, 2.0, opts).unwrap()
    };
    let reference = run(LinearSolverKind::Dense, false);
    // discretization error scale: the same run with h/2
    let half = simulate_from(&model, &init.state, 2.0, GenAlphaOptions::new(5e-4)).unwrap();
    let disc = half
        .last()
        .state
        .q
        .iter()
        .zip(&reference.last().state.q)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    for (kind, reuse) in [
        (LinearSolverKind::Sparse, false),
        (LinearSolverKind::Dense, true),
        (LinearSolverKind::Sparse, true),
    ] {
        let s = run(kind, reuse);
        let d = s
            .last()
            .state
            .q
            .iter()
            .zip(&reference.last().state.q)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        // Full Newton: identical up to round-off. Modified Newton stops on the residual while
        // contracting only linearly: still far below the discretization error.
        let bound = if reuse { 1e-2 * disc } else { 1e-10 };
        assert!(
            d < bound,
            "{kind:?} reuse={reuse}: differs by {d:.3e} (discretization {disc:.3e})"
        );
        assert!(s.max_constraint() < 1e-12);
        if reuse {
            assert!(s.stats.factorizations < reference.stats.factorizations / 5);
        }
    }
}

#[test]
fn energy_is_conserved_to_the_order_of_the_method() {
    // Undamped chain: the energy drift of generalized-α (numerical dissipation of order h² at
    // resolved frequencies) falls by ~4 when h halves.
    let model = Arc::new(pendulum_chain_3d(&[1.0; 3], &[0.5; 3], 9.81).unwrap());
    let q = [0.5, 0.0, 0.0, 0.8, 0.0, -0.4, 1.0, 0.3, -0.8];
    let init = consistent_initial_values(&model, &q, &[0.0; 9], &InitOptions::default()).unwrap();
    let drift = |h: f64| {
        let s = simulate_from(
            &model,
            &init.state,
            1.0,
            GenAlphaOptions::new(h).rho_inf(0.9),
        )
        .unwrap();
        (s.last().energy - s.records[0].energy).abs()
    };
    let (d1, d2) = (drift(2e-3), drift(1e-3));
    assert!(d2 < 1e-2, "drift {d2:.3e}");
    let ratio = d1 / d2;
    assert!(
        ratio > 3.0,
        "energy drift ratio {ratio:.2} ({d1:.3e} → {d2:.3e})"
    );
}

#[test]
fn jacobi_modified_newton_switches_to_lu_when_it_contracts_poorly() {
    use lagrangian::library::mass_spring::scenes::benchmark_chain;
    // Soft chain at a small step: the diagonal approximation contracts well and is kept.
    let mut soft = benchmark_chain(60);
    let sol = soft.simulate(0.2, 200).unwrap();
    assert_eq!(sol.stats.solver_switches, 0);
    // Very stiff springs at a large step: the diagonal cannot represent the coupling; the solver
    // switches to the sparse LU once and the run still succeeds.
    let mut stiff = benchmark_chain(60);
    for s in &mut stiff.springs {
        s.stiffness = 1e7;
    }
    let sol = stiff.simulate(0.2, 20).unwrap();
    assert_eq!(sol.stats.solver_switches, 1);
    // and gives the LU answer
    let mut lu = benchmark_chain(60);
    for s in &mut lu.springs {
        s.stiffness = 1e7;
    }
    let (q0, v0) = lu.state_vectors();
    let model = Arc::new(
        lu.model(lagrangian::library::mass_spring::Derivatives::Hand)
            .unwrap(),
    );
    let init = consistent_initial_values(&model, &q0, &v0, &InitOptions::default()).unwrap();
    let opts = GenAlphaOptions::new(0.01)
        .newton_tol(1e-10)
        .reuse_factorization(true)
        .linear_solver(LinearSolverKind::Sparse);
    let reference = simulate_from(&model, &init.state, 0.2, opts).unwrap();
    let (q, _) = stiff.state_vectors();
    let d = q
        .iter()
        .zip(&reference.last().state.q)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(d < 1e-7, "{d:.3e}");
}
