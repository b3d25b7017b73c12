//! Consistent initialization: a perturbed guess lands on the constraint manifold with pinned values
//! unchanged and at the nearest point; redundant constraints are named; conflicting and
//! unsatisfiable sets give clear errors; rheonomic constraints get consistent velocities.

use lagrangian::error::InitError;
use lagrangian::library::elements::{AnchoredRod, Particle, Rod};
use lagrangian::library::pendulum::{driven_pendulum, pendulum_chain_3d, planar_pendulum};
use lagrangian::prelude::*;

#[test]
fn perturbed_chain_lands_on_manifold_with_pins_held() {
    let n = 4;
    let model = Arc::new(pendulum_chain_3d(&[1.0; 4], &[1.0, 0.8, 0.6, 0.5], 9.81).unwrap());
    // stretched-out chain, perturbed
    let mut q = vec![];
    let mut x = 0.0;
    for (i, l) in [1.0, 0.8, 0.6, 0.5].iter().enumerate() {
        x += l;
        q.extend([x + 0.05 * (i as f64 - 1.5), 0.1 * i as f64, -0.07]);
    }
    let v = vec![0.3; 3 * n];
    let pins = [2usize, 7, 10];
    let init = consistent_initial_values(
        &model,
        &q,
        &v,
        &InitOptions::default().pin_q(pins).pin_v([0]),
    )
    .unwrap();
    let s = &init.state;
    for &p in &pins {
        assert_eq!(s.q[p], q[p], "pinned coordinate {p} moved");
    }
    assert_eq!(s.v[0], v[0]);
    let mut c = vec![0.0; 4];
    lagrangian::assembly::constraint_values(&model, 0.0, &s.q, &mut c);
    assert!(c.iter().all(|x| x.abs() < 1e-12), "{c:?}");
    // velocity level: C_q v = 0
    let j = lagrangian::assembly::constraint_jacobian_dense(&model, 0.0, &s.q);
    let jv = &j * nalgebra::DVector::from_column_slice(&s.v);
    assert!(jv.amax() < 1e-12);
    // acceleration level: C_q q̈ + γ = 0
    let mut g = vec![0.0; 4];
    lagrangian::assembly::constraint_gamma(&model, 0.0, &s.q, &s.v, &mut g);
    let ja = &j * nalgebra::DVector::from_column_slice(&s.qdd) + nalgebra::DVector::from_vec(g);
    assert!(ja.amax() < 1e-10, "{}", ja.amax());
    assert_eq!(init.report.dof, 8);
    // nearest point: the correction d = q − guess on the free set lies in the row space of
    // J_F (KKT conditions of min ½|d|² s.t. C = 0).
    let free: Vec<usize> = (0..12).filter(|i| !pins.contains(i)).collect();
    let jf = j.select_columns(&free);
    let d = nalgebra::DVector::from_iterator(free.len(), free.iter().map(|&i| s.q[i] - q[i]));
    // d − J_Fᵀ(J_F J_Fᵀ)⁻¹ J_F d = 0
    let proj = &jf.transpose() * (&jf * jf.transpose()).try_inverse().unwrap() * (&jf * &d);
    assert!(
        (&d - proj).amax() < 1e-9,
        "correction is not the nearest-point correction"
    );
}

#[test]
fn pendulum_released_horizontally_has_textbook_initial_values() {
    // λ = m(|v|² − g y)/ℓ² = 0 at rest on the horizontal; q̈ = (0, −g)
    let model = Arc::new(planar_pendulum(2.0, 1.0, 9.81));
    let init = consistent_initial_values(
        &model,
        &[1.2, 0.05],
        &[0.0, 0.4],
        &InitOptions::default().pin_q([1]),
    )
    .unwrap();
    let s = &init.state;
    assert!((s.q[0] - (1.0f64 - 0.05 * 0.05).sqrt()).abs() < 1e-13);
    // velocity tangent to the circle
    assert!((s.q[0] * s.v[0] + s.q[1] * s.v[1]).abs() < 1e-14);
    let v2 = s.v[0] * s.v[0] + s.v[1] * s.v[1];
    let lam = 2.0 * (v2 - 9.81 * s.q[1]) / 1.0;
    assert!(
        (s.lambda[0] - lam).abs() < 1e-12,
        "{} vs {lam}",
        s.lambda[0]
    );
    // reaction force: −C_qᵀλ = −λ (x, y): the rod pulls towards the pivot
    let rf = reaction_forces(&model, s);
    assert_eq!(rf[0].0, "rod");
    assert!((rf[0].1[0] + s.lambda[0] * s.q[0]).abs() < 1e-14);
}

#[test]
fn redundant_constraint_is_named_and_still_initializes() {
    // A particle on a rod of length 1, plus the same rod written a second time.
    let model = Arc::new(
        Model::builder(2)
            .term(
                [0, 1],
                Particle {
                    mass: 1.0,
                    gravity: [0.0, -9.81],
                },
            )
            .constraint(
                "rod",
                [0, 1],
                AnchoredRod {
                    anchor: [0.0, 0.0],
                    length: 1.0,
                },
            )
            .constraint(
                "rod again",
                [0, 1],
                AnchoredRod {
                    anchor: [0.0, 0.0],
                    length: 1.0,
                },
            )
            .build()
            .unwrap(),
    );
    let init =
        consistent_initial_values(&model, &[0.9, -0.5], &[0.0, 0.0], &InitOptions::default())
            .unwrap();
    assert_eq!(init.report.redundant, vec!["rod again".to_string()]);
    assert_eq!((init.report.rank, init.report.dof), (1, 1));
    // q̈ is still unique; the two multipliers share the load
    let s = &init.state;
    let lam = s.lambda[0] + s.lambda[1];
    assert!((lam - 9.81 * (-s.q[1])).abs() < 1e-9, "total λ {lam}");
    // and the integrator refuses the singular index-3 system with a clear message
    let err = match simulate_from(&model, &init.state, 0.1, GenAlphaOptions::new(1e-3)) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("integrating with a redundant constraint must fail"),
    };
    assert!(err.contains("singular"), "{err}");
}

#[test]
fn conflicting_constraints_are_named() {
    // Same rod, two different lengths: no solution, and the second row is the conflicting one.
    let model = Arc::new(
        Model::builder(2)
            .term(
                [0, 1],
                Particle {
                    mass: 1.0,
                    gravity: [0.0, -9.81],
                },
            )
            .constraint(
                "short rod",
                [0, 1],
                AnchoredRod {
                    anchor: [0.0, 0.0],
                    length: 1.0,
                },
            )
            .constraint(
                "long rod",
                [0, 1],
                AnchoredRod {
                    anchor: [0.0, 0.0],
                    length: 1.5,
                },
            )
            .build()
            .unwrap(),
    );
    let e = consistent_initial_values(&model, &[0.9, -0.5], &[0.0, 0.0], &InitOptions::default())
        .unwrap_err();
    let msg = e.to_string();
    match e {
        Error::Init(InitError::Unsatisfiable { residual, hint, .. }) => {
            assert!(residual > 0.1);
            assert!(
                hint.contains("long rod") || hint.contains("short rod"),
                "{msg}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(msg.contains("cannot be satisfied"), "{msg}");
}

#[test]
fn unreachable_pinned_value_is_a_clear_error() {
    // x pinned at 2 on a rod of length 1: impossible.
    let model = Arc::new(planar_pendulum(1.0, 1.0, 9.81));
    let e = consistent_initial_values(
        &model,
        &[2.0, 0.0],
        &[0.0, 0.0],
        &InitOptions::default().pin_q([0]),
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::Init(InitError::Unsatisfiable { .. })),
        "{e:?}"
    );
    assert!(e.to_string().contains("rod"), "{e}");
}

#[test]
fn pinned_velocities_that_violate_the_constraint_are_an_error() {
    // bob at (0, −1): the rod allows only horizontal velocity; pinning v_y = 1 is inconsistent
    let model = Arc::new(planar_pendulum(1.0, 1.0, 9.81));
    let e = consistent_initial_values(
        &model,
        &[0.0, -1.0],
        &[0.0, 1.0],
        &InitOptions::default().pin_v([1]),
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::Init(InitError::InconsistentVelocities { .. })),
        "{e:?}"
    );
}

#[test]
fn bad_input_is_reported() {
    let model = Arc::new(planar_pendulum(1.0, 1.0, 9.81));
    assert!(matches!(
        consistent_initial_values(&model, &[1.0], &[0.0, 0.0], &InitOptions::default()),
        Err(Error::Init(InitError::BadInput(_)))
    ));
    assert!(matches!(
        consistent_initial_values(
            &model,
            &[1.0, f64::NAN],
            &[0.0, 0.0],
            &InitOptions::default()
        ),
        Err(Error::Init(InitError::NonFinite { .. }))
    ));
    assert!(matches!(
        consistent_initial_values(
            &model,
            &[1.0, 0.0],
            &[0.0, 0.0],
            &InitOptions::default().pin_q([5])
        ),
        Err(Error::Init(InitError::BadInput(_)))
    ));
}

#[test]
fn rheonomic_constraint_gets_consistent_velocity_and_is_followed() {
    // pivot p(t) = (0.3 sin 4t, 0): at t0 = 0 the pivot moves with velocity 1.2 in x. With the
    // bob at angle 0.5, C_q v + C_t = x v_x + y v_y − 1.2 x = 0; the least-norm correction of
    // v = 0 is v = 1.2 x (x, y) (the rod's direction, |x| = 1).
    let model = Arc::new(driven_pendulum(1.0, 1.0, 9.81, 0.3, 4.0));
    let (x, y) = (0.5f64.sin(), -(0.5f64.cos()));
    let init =
        consistent_initial_values(&model, &[x, y], &[0.0, 0.0], &InitOptions::default()).unwrap();
    let v = &init.state.v;
    assert!(
        (v[0] - 1.2 * x * x).abs() < 1e-12 && (v[1] - 1.2 * x * y).abs() < 1e-12,
        "{v:?}"
    );
    let sol = simulate_from(&model, &init.state, 3.0, GenAlphaOptions::new(1e-3)).unwrap();
    assert!(sol.max_constraint() < 1e-12);
    // the bob stays at distance 1 from the moving pivot
    for r in &sol.records {
        let px = 0.3 * (4.0 * r.state.t).sin();
        let d = ((r.state.q[0] - px).powi(2) + r.state.q[1].powi(2)).sqrt();
        assert!((d - 1.0).abs() < 1e-11);
    }
    // energy is not conserved (the drive does work) — the driven pendulum gains energy
    let e: Vec<f64> = sol.records.iter().map(|r| r.energy).collect();
    assert!(e.iter().fold(0.0f64, |m, x| m.max((x - e[0]).abs())) > 1e-2);
}

#[test]
fn rod_between_two_particles_is_a_free_rigid_dumbbell() {
    // Two particles joined by a rod in free flight (no gravity): the centre of mass moves
    // uniformly and the rod length holds — checks Rod<2> in a full simulation.
    let model = Arc::new(
        Model::builder(4)
            .term(
                [0, 1],
                Particle {
                    mass: 1.0,
                    gravity: [0.0, 0.0],
                },
            )
            .term(
                [2, 3],
                Particle {
                    mass: 3.0,
                    gravity: [0.0, 0.0],
                },
            )
            .constraint("rod", [0, 1, 2, 3], Rod::<2> { length: 2.0 })
            .build()
            .unwrap(),
    );
    let init = consistent_initial_values(
        &model,
        &[0.0, 0.0, 2.1, 0.0],
        &[0.0, 1.0, 0.0, -1.0],
        &InitOptions::default().pin_q([0, 1]),
    )
    .unwrap();
    let s0 = init.state.clone();
    let sol = simulate_from(&model, &s0, 2.0, GenAlphaOptions::new(1e-3)).unwrap();
    let com = |s: &State| [(s.q[0] + 3.0 * s.q[2]) / 4.0, (s.q[1] + 3.0 * s.q[3]) / 4.0];
    let vcom = [
        (s0.v[0] + 3.0 * s0.v[2]) / 4.0,
        (s0.v[1] + 3.0 * s0.v[3]) / 4.0,
    ];
    let (c0, c1) = (com(&s0), com(&sol.last().state));
    for k in 0..2 {
        assert!((c1[k] - (c0[k] + 2.0 * vcom[k])).abs() < 1e-10);
    }
    // Newton guarantees |C| ≤ tol·s with s = max_j |∂C/∂q_j|·|q_j| ≈ |d|·|x| ≈ 4 here
    assert!(sol.max_constraint() < 4e-12, "{:.3e}", sol.max_constraint());
}

#[test]
fn far_guess_of_a_100_pendulum_chain_converges() {
    // Regression: consecutive bobs in the guess are up to 40 % off the rod length; a
    // curvature-free Gauss–Newton cycled here. The two-phase solver lands on the manifold.
    let n = 100;
    let model = Arc::new(pendulum_chain_3d(&vec![1.0; n], &vec![0.1; n], 9.81).unwrap());
    let mut q = Vec::new();
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
    assert!(init.report.max_constraint < 1e-12);
    assert_eq!(init.report.dof, 200);
    assert!(
        init.report.position_iterations < 400,
        "far guess: {} iterations",
        init.report.position_iterations
    );
    // A hanging zigzag with every rod 5 % too long: LM damps the folding modes; converges.
    let mut q = Vec::new();
    for i in 0..n {
        q.extend([0.02 * (i as f64).sin(), 0.0, -0.105 * (i + 1) as f64]);
    }
    let init =
        consistent_initial_values(&model, &q, &vec![0.0; 3 * n], &InitOptions::default()).unwrap();
    assert!(init.report.max_constraint < 1e-12);
    assert!(
        init.report.position_iterations < 400,
        "{} iterations",
        init.report.position_iterations
    );
    // a short chain with the same guess is quick
    let model = Arc::new(pendulum_chain_3d(&[1.0; 10], &[0.1; 10], 9.81).unwrap());
    let init =
        consistent_initial_values(&model, &q[..30], &[0.0; 30], &InitOptions::default()).unwrap();
    assert!(
        init.report.position_iterations < 20,
        "{} iterations",
        init.report.position_iterations
    );
}

/// A chain of `n` unit masses on bars of length 1 from the origin (a mechanism file), its
/// guesses off the bars' lengths by up to 3 %.
fn bar_chain(n: usize) -> String {
    let particles: Vec<String> = (1..=n).map(|i| format!("P{i}: 1")).collect();
    let mut bars = vec!["OP1: 1".to_string()];
    bars.extend((1..n).map(|i| format!("P{i}P{}: 1", i + 1)));
    let guesses: Vec<String> = (1..=n)
        .map(|i| {
            let (s, c) = (i as f64).sin_cos();
            format!("P{i}: [{}, {}, {}]", 0.97 * i as f64, 0.1 * s, 0.05 * c)
        })
        .collect();
    format!(
        "Dimension: 3\nPartData:\n  Fixed: {{ O: [0, 0, 0] }}\n  Particles: {{ {} }}\n  \
         Bars: {{ {} }}\nAppliedForces: {{ Gravity: [0, -9.81, 0] }}\n\
         ProblemData: {{ tend: 0.01, positions: {{ {} }} }}\nSolverParams: {{ step: 1e-3 }}\n",
        particles.join(", "),
        bars.join(", "),
        guesses.join(", ")
    )
}

/// Large models (n + m above 1,500) are initialized with sparse normal equations, not dense
/// m × n matrices: a chain of 600 bars lands on its constraints with the pinned values held,
/// velocities consistent and the accelerations those of the state (dependent rows are left to
/// the dense path, which names them: `solve::normal`'s unit test).
#[test]
fn a_large_chain_initializes_with_sparse_normal_equations() {
    use lagrangian::assembly::{constraint_jacobian_dense, constraint_values};
    use lagrangian::solve::StateSolver;
    let n = 600;
    let (problem, _) = lagrangian::spec::parse(&bar_chain(n), "chain.yaml").unwrap();
    let model = problem.model.clone();
    assert!(model.n_coords() + model.n_constraints() > 1500);
    let (q0, mut v0) = (problem.q_guess.clone(), problem.v_guess.clone());
    for (i, v) in v0.iter_mut().enumerate() {
        *v = 0.3 * ((i % 7) as f64 - 3.0);
    }
    let pins = [0usize, 4, 299];
    let opts = InitOptions::default().pin_q(pins).pin_v([5]);
    let init = consistent_initial_values(&model, &q0, &v0, &opts).unwrap();
    let s = &init.state;
    for p in pins {
        assert_eq!(s.q[p], q0[p]);
    }
    assert_eq!(s.v[5], v0[5]);
    let mut c = vec![0.0; model.n_constraints()];
    constraint_values(&model, 0.0, &s.q, &mut c);
    let cmax = c.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    assert!(cmax < 1e-9, "max |C| = {cmax}");
    let jv =
        constraint_jacobian_dense(&model, 0.0, &s.q) * nalgebra::DVector::from_column_slice(&s.v);
    assert!(jv.amax() < 1e-9 * 4.0, "max |C_q v| = {}", jv.amax());
    assert_eq!((init.report.rank, init.report.dof), (n, 2 * n));
    assert!(init.report.position_change > 1e-3 && init.report.position_change < 0.5);
    let mut solver = StateSolver::new(&model, LinearSolverKind::Auto);
    let (qdd, lambda) = solver.solve(&model, 0.0, &s.q, &s.v).unwrap();
    let da = (qdd.iter().zip(&s.qdd)).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    let dl = (lambda.iter().zip(&s.lambda)).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    assert!(da < 1e-9 && dl < 1e-9, "{da} {dl}");
}
