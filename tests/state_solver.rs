//! The accelerations of a state are exact for a large unconstrained model whose mass matrix is
//! not diagonal (where `LinearSolverKind::Auto` iterates with the diagonal inside Newton's
//! method): consistent initial values and the output's `q̈`.

use lagrangian::library::pendulum::DoublePendulum;
use lagrangian::prelude::*;
use lagrangian::solve::StateSolver;

#[test]
fn accelerations_are_exact_for_a_coupled_mass_matrix_above_the_dense_limit() {
    // 30 independent double pendulums in angles: 60 coordinates, 2×2 blocks of M
    let dp = DoublePendulum {
        m: [1.0, 2.0],
        l: [1.0, 0.5],
        g: 9.81,
    };
    let mut b = Model::builder(60);
    for k in 0..30 {
        b = b.term([2 * k, 2 * k + 1], dp);
    }
    let model = b.build().unwrap();
    let q: Vec<f64> = (0..60).map(|i| 0.3 + 0.01 * i as f64).collect();
    let v: Vec<f64> = (0..60).map(|i| 0.5 - 0.02 * i as f64).collect();
    let one = Model::builder(2).term([0, 1], dp).build().unwrap();
    for kind in [
        LinearSolverKind::Auto,
        LinearSolverKind::Jacobi,
        LinearSolverKind::Sparse,
    ] {
        let mut big = StateSolver::new(&model, kind);
        let (qdd, _) = big.solve(&model, 0.0, &q, &v).unwrap();
        let qdd = qdd.to_vec();
        let mut small = StateSolver::new(&one, LinearSolverKind::Dense);
        for k in 0..30 {
            let (want, _) = small
                .solve(&one, 0.0, &q[2 * k..2 * k + 2], &v[2 * k..2 * k + 2])
                .unwrap();
            for i in 0..2 {
                let got = qdd[2 * k + i];
                assert!(
                    (got - want[i]).abs() < 1e-12 * want[i].abs().max(1.0),
                    "{kind:?}"
                );
            }
        }
    }
    let init = consistent_initial_values(&model, &q, &v, &InitOptions::default()).unwrap();
    let mut small = StateSolver::new(&one, LinearSolverKind::Dense);
    let (want, _) = small.solve(&one, 0.0, &q[..2], &v[..2]).unwrap();
    assert!(
        (init.state.qdd[0] - want[0]).abs() < 1e-12 && (init.state.qdd[1] - want[1]).abs() < 1e-12
    );
}
