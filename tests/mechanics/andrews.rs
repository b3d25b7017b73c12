//! Andrews' squeezing mechanism (index 3, 7 angles, 6 loop closures): consistent
//! initialization from a rough guess with Θ pinned lands on the published q0, q̈0, λ0, and
//! generalized-α converges at order 2 on [0, 0.03].

use lagrangian::library::andrews::{LAMBDA0, Q0, QDD0, TEST_SET_Q_END as Q_END, andrews_model};
use lagrangian::prelude::*;

const GUESS: [f64; 7] = [-0.1, 0.0, 0.5, 0.2, 0.5, -0.2, 1.2];

#[test]
fn consistent_initialization_lands_on_published_values() {
    let model = Arc::new(andrews_model());
    let init = consistent_initial_values(
        &model,
        &GUESS,
        &[0.0; 7],
        &InitOptions::default().pin_q([1]),
    )
    .unwrap();
    let s = &init.state;
    assert_eq!(s.q[1], 0.0, "pinned Θ must stay");
    for i in 0..7 {
        assert!(
            (s.q[i] - Q0[i]).abs() < 1e-12,
            "q0[{i}] = {} vs {}",
            s.q[i],
            Q0[i]
        );
        assert_eq!(s.v[i], 0.0);
        assert!(
            (s.qdd[i] - QDD0[i]).abs() < 1e-8 * QDD0[0].abs(),
            "qdd0[{i}] = {} vs {}",
            s.qdd[i],
            QDD0[i]
        );
    }
    // The published λ uses M q̈ = f − Gᵀλ, as here.
    for (k, (got, want)) in s.lambda.iter().zip(LAMBDA0).enumerate() {
        assert!(
            (got - want).abs() < 1e-8 * LAMBDA0[0].abs(),
            "lambda0[{k}] = {got} vs {want}"
        );
    }
    assert_eq!((init.report.dof, init.report.rank), (1, 6));
    assert!(init.report.redundant.is_empty());
}

fn q_end(h: f64, reuse: bool) -> Vec<f64> {
    let model = Arc::new(andrews_model());
    let init = consistent_initial_values(
        &model,
        &GUESS,
        &[0.0; 7],
        &InitOptions::default().pin_q([1]),
    )
    .unwrap();
    let opts = GenAlphaOptions::new(h)
        .rho_inf(0.8)
        .reuse_factorization(reuse);
    let sol = simulate_from(&model, &init.state, 0.03, opts).unwrap();
    assert!((sol.last().state.t - 0.03).abs() < 1e-12);
    assert!(sol.max_constraint() < 1e-10);
    sol.last().state.q.clone()
}

fn maxdiff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

#[test]
fn second_order_convergence_on_the_whole_interval() {
    let hs = [4e-5, 2e-5, 1e-5];
    let q: Vec<Vec<f64>> = hs.iter().map(|&h| q_end(h, false)).collect();
    // Without reference values: successive differences fall by 4 (Richardson).
    let d1 = maxdiff(&q[0], &q[1]);
    let d2 = maxdiff(&q[1], &q[2]);
    let ratio = d1 / d2;
    assert!(
        (3.6..=4.4).contains(&ratio),
        "difference ratio {ratio:.3} (d1 = {d1:.3e}, d2 = {d2:.3e})"
    );
    // Against the test-set reference: errors fall by 4 as well, and are small.
    let e: Vec<f64> = q.iter().map(|x| maxdiff(x, &Q_END)).collect();
    for l in 0..2 {
        let r = e[l] / e[l + 1];
        assert!((3.6..=4.4).contains(&r), "error ratio {r:.3}: {e:?}");
    }
    assert!(e[2] < 1e-4, "error at h = 1e-5: {:.3e}", e[2]);
}

#[test]
fn modified_newton_gives_the_same_solution() {
    let full = q_end(2e-5, false);
    let reused = q_end(2e-5, true);
    // well below the discretization error (3.5e-4 at this step)
    assert!(
        maxdiff(&full, &reused) < 1e-5,
        "{}",
        maxdiff(&full, &reused)
    );
}
