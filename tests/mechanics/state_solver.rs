//! The accelerations of a state are exact for a large unconstrained model whose mass matrix is
//! not diagonal (where `LinearSolverKind::Auto` iterates with the diagonal inside Newton's
//! method): consistent initial values and the output's `q̈`.

use lagrangian::library::pendulum::DoublePendulum;
use lagrangian::model::Declared;
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

/// `T = ½ (2 v₀² + 2 v₀ v₁ + v₁²)`, `V = q₀⁴/4 + cos q₁`, declared of constant mass.
#[derive(Clone, Copy)]
struct Coupled;

impl Declared<2> for Coupled {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> D {
        (v[0] * v[0] * 2.0 + v[0] * v[1] * 2.0 + v[1] * v[1]) * 0.5
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        q[0].powi(4) * 0.25 + q[1].cos()
    }
    fn structure(&self) -> Structure {
        Structure::ConstantMass
    }
}

#[test]
fn a_constant_mass_matrix_is_factorized_once_and_reused_exactly() {
    let model = Model::builder(2).term([0, 1], Coupled).build().unwrap();
    assert!(model.constant_mass());
    let dp = DoublePendulum {
        m: [1.0, 2.0],
        l: [1.0, 0.5],
        g: 9.81,
    };
    let general = Model::builder(2).term([0, 1], dp).build().unwrap();
    assert!(!general.constant_mass());
    let mut reused = StateSolver::new(&model, LinearSolverKind::Auto);
    for k in 0..4 {
        let q = [0.3 + 0.4 * k as f64, -1.1 + 0.7 * k as f64];
        let v = [0.2 * k as f64, -0.5];
        let (qdd, _) = reused.solve(&model, 0.0, &q, &v).unwrap();
        // M q̈ = −∇V with M = [2 1; 1 1]: q̈ = M⁻¹ (−q₀³, sin q₁)
        let f = [-q[0].powi(3), q[1].sin()];
        let want = [f[0] - f[1], -f[0] + 2.0 * f[1]];
        for i in 0..2 {
            assert!(
                (qdd[i] - want[i]).abs() < 1e-14 * (1.0 + want[i].abs()),
                "{k}"
            );
        }
    }
    // point masses (a diagonal M) under a potential of expressions: each state as a fresh solver
    let file = "Dimension: 2\nPhysicalParams: { k: 3 }\nPartData:\n  Particles: { A: 1.5, B: 0.5 }\n\
                AppliedForces:\n  Potentials:\n    pair: -k/norm(A - B) + dot(A, A)**2\n\
                ProblemData:\n  tend: 1\n  positions: { A: [0, 0], B: [1, 0.5] }\n";
    let (problem, _) = lagrangian::spec::parse(file, "pair.yaml").unwrap();
    let model = &problem.model;
    assert!(model.constant_mass());
    let mut reused = StateSolver::new(model, LinearSolverKind::Auto);
    for k in 0..4 {
        let q = [0.1 * k as f64, -0.2, 1.0 + 0.3 * k as f64, 0.5];
        let v = [0.3, 0.1 * k as f64, -0.2, 0.4];
        let got = reused.solve(model, 0.0, &q, &v).unwrap().0.to_vec();
        let mut fresh = StateSolver::new(model, LinearSolverKind::Auto);
        let want = fresh.solve(model, 0.0, &q, &v).unwrap().0.to_vec();
        assert_eq!(got, want, "state {k}");
    }
    assert_eq!(reused.factorizations(), 1);
}
