//! Mass–spring networks: hand-derived kernels equal the AD kernels of the same energies (also
//! for nearly collinear, stretched and compressed springs); a whole run agrees between the two;
//! an unconstrained damped, loaded network agrees with an independent RK4 integration at tiny
//! steps, and generalized-α converges at order 2; `simulate` called frame by frame goes on as
//! one run.

use crate::common;
use common::Lcg;
use lagrangian::ad::{ConstraintAd, TermAd, compare_constraint_kernels, compare_term_kernels};
use lagrangian::library::elements::{AnchoredDistance, AnchoredSpring, Distance, Particle, Spring};
use lagrangian::library::mass_spring::{
    AnchoredDistanceKernel, AnchoredSpringKernel, Derivatives, DistanceKernel, MassSpringSystem,
    PointMassKernel, SpringKernel,
};

/// Configurations of a two-point spring in D dims: random, nearly collinear with the velocity,
/// strongly stretched, strongly compressed.
fn configs(rng: &mut Lcg, d: usize, l0: f64) -> Vec<(Vec<f64>, Vec<f64>)> {
    let mut out = Vec::new();
    for case in 0..40 {
        let x1 = rng.vec(d);
        let dir: Vec<f64> = rng.vec(d);
        let nrm = dir.iter().map(|x| x * x).sum::<f64>().sqrt();
        let len = match case % 4 {
            0 => l0 * (0.5 + rng.next().abs()),
            1 => l0 * 3.0,  // stretched
            2 => l0 * 0.2,  // compressed
            _ => l0 * 1.01, // nearly at rest length
        };
        let x2: Vec<f64> = (0..d).map(|k| x1[k] + len * dir[k] / nrm).collect();
        let mut v = rng.vec(2 * d);
        if case % 5 == 0 {
            // relative velocity nearly along the spring (nearly collinear motion)
            for k in 0..d {
                v[d + k] = v[k] + 0.7 * dir[k] / nrm + 1e-7 * rng.next();
            }
        }
        let q: Vec<f64> = x1.iter().chain(&x2).copied().collect();
        out.push((q, v));
    }
    out
}

#[test]
fn hand_derived_spring_and_distance_kernels_equal_ad() {
    let mut rng = Lcg(11);
    let (k, l0, c) = (250.0, 0.8, 1.7);
    let mut worst = 0.0f64;
    for (q, v) in configs(&mut rng, 3, l0) {
        let a = rng.vec(6);
        worst = worst.max(compare_term_kernels(
            &SpringKernel::<3>::new(k, l0, c),
            &TermAd::new(Spring::<3> {
                stiffness: k,
                rest_length: l0,
                damping: c,
            }),
            0.0,
            &q,
            &v,
            &a,
        ));
        let anchor = [q[0], q[1], q[2]];
        worst = worst.max(compare_term_kernels(
            &AnchoredSpringKernel::<3>::new(anchor, k, l0, c),
            &TermAd::new(AnchoredSpring {
                anchor,
                stiffness: k,
                rest_length: l0,
                damping: c,
            }),
            0.0,
            &q[3..],
            &v[3..],
            &a[3..],
        ));
        let lam = [rng.next() * 10.0];
        worst = worst.max(compare_constraint_kernels(
            &DistanceKernel::<3> { length: l0 },
            &ConstraintAd::new(Distance::<3> { length: l0 }),
            0.0,
            &q,
            &v,
            &lam,
        ));
        worst = worst.max(compare_constraint_kernels(
            &AnchoredDistanceKernel::<3> { anchor, length: l0 },
            &ConstraintAd::new(AnchoredDistance { anchor, length: l0 }),
            0.0,
            &q[3..],
            &v[3..],
            &lam,
        ));
        worst = worst.max(compare_term_kernels(
            &PointMassKernel::<3> {
                mass: 2.5,
                gravity: [0.0, -9.81, 0.3],
            },
            &TermAd::new(Particle {
                mass: 2.5,
                gravity: [0.0, -9.81, 0.3],
            }),
            0.0,
            &q[..3],
            &v[..3],
            &a[..3],
        ));
    }
    for (q, v) in configs(&mut rng, 2, l0) {
        let a = rng.vec(4);
        worst = worst.max(compare_term_kernels(
            &SpringKernel::<2>::new(k, l0, c),
            &TermAd::new(Spring::<2> {
                stiffness: k,
                rest_length: l0,
                damping: c,
            }),
            0.0,
            &q,
            &v,
            &a,
        ));
        worst = worst.max(compare_constraint_kernels(
            &DistanceKernel::<2> { length: l0 },
            &ConstraintAd::new(Distance::<2> { length: l0 }),
            0.0,
            &q,
            &v,
            &[3.0],
        ));
    }
    assert!(
        worst < 1e-10,
        "hand vs AD: worst relative difference {worst:.3e}"
    );
}

/// A small 2D network: a damped triangle hanging from two fixed points, with a periodic load.
fn truss(rng_seed: u64) -> MassSpringSystem<2> {
    let mut rng = Lcg(rng_seed);
    let mut s = MassSpringSystem::<2>::new([0.0, -9.81]);
    let f1 = s.add_fix([0.0, 0.0]);
    let f2 = s.add_fix([2.0, 0.0]);
    let a = s.add_mass(1.0, [0.5, -0.8]);
    let b = s.add_mass(1.5, [1.5, -0.9]);
    let c = s.add_mass_with_velocity(0.7, [1.0, -1.7], [0.3, 0.0]);
    s.add_damped_spring(f1, a, 0.9, 200.0, 0.5);
    s.add_damped_spring(f2, b, 0.9, 150.0, 0.5);
    s.add_damped_spring(a, b, 1.0, 300.0, 1.0);
    s.add_damped_spring(a, c, 1.0, 250.0, 0.2);
    s.add_damped_spring(b, c, 1.0, 250.0, 0.0);
    let amp = 2.0 + rng.next();
    s.add_load(c, move |t| [amp * (3.0 * t).sin(), 0.0]);
    s
}

/// Independent reference: the same ODE M q̈ = f(t, q, v) coded directly from Newton's law,
/// integrated by classical RK4 at a tiny step.
fn truss_rk4(t_end: f64, h: f64) -> Vec<f64> {
    let masses = [1.0, 1.5, 0.7];
    let fixes = [[0.0, 0.0], [2.0, 0.0]];
    // (node a, node b, rest, k, c); nodes ≥ 10 are fixed points
    let springs = [
        (10, 0, 0.9, 200.0, 0.5),
        (11, 1, 0.9, 150.0, 0.5),
        (0, 1, 1.0, 300.0, 1.0),
        (0, 2, 1.0, 250.0, 0.2),
        (1, 2, 1.0, 250.0, 0.0),
    ];
    let amp = 2.0 + Lcg(5).next();
    let rhs = |t: f64, y: &[f64]| -> Vec<f64> {
        let (q, v) = y.split_at(6);
        let mut f = [0.0; 6];
        for (i, m) in masses.iter().enumerate() {
            f[2 * i + 1] -= m * 9.81;
        }
        f[4] += amp * (3.0 * t).sin();
        for &(a, b, l0, k, c) in &springs {
            let pa = if a >= 10 {
                fixes[a - 10]
            } else {
                [q[2 * a], q[2 * a + 1]]
            };
            let va = if a >= 10 {
                [0.0, 0.0]
            } else {
                [v[2 * a], v[2 * a + 1]]
            };
            let (pb, vb) = ([q[2 * b], q[2 * b + 1]], [v[2 * b], v[2 * b + 1]]);
            let d = [pb[0] - pa[0], pb[1] - pa[1]];
            let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
            let n = [d[0] / l, d[1] / l];
            let s = n[0] * (vb[0] - va[0]) + n[1] * (vb[1] - va[1]);
            let mag = k * (l - l0) + c * s; // tension
            for kk in 0..2 {
                f[2 * b + kk] -= mag * n[kk];
                if a < 10 {
                    f[2 * a + kk] += mag * n[kk];
                }
            }
        }
        let mut dy = v.to_vec();
        dy.extend((0..6).map(|i| f[i] / masses[i / 2]));
        dy
    };
    let mut y = vec![
        0.5, -0.8, 1.5, -0.9, 1.0, -1.7, 0.0, 0.0, 0.0, 0.0, 0.3, 0.0,
    ];
    let steps = (t_end / h).round() as usize;
    for i in 0..steps {
        let t = i as f64 * h;
        let k1 = rhs(t, &y);
        let y2: Vec<f64> = y.iter().zip(&k1).map(|(a, b)| a + 0.5 * h * b).collect();
        let k2 = rhs(t + 0.5 * h, &y2);
        let y3: Vec<f64> = y.iter().zip(&k2).map(|(a, b)| a + 0.5 * h * b).collect();
        let k3 = rhs(t + 0.5 * h, &y3);
        let y4: Vec<f64> = y.iter().zip(&k3).map(|(a, b)| a + h * b).collect();
        let k4 = rhs(t + h, &y4);
        for j in 0..12 {
            y[j] += h / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]);
        }
    }
    y[..6].to_vec()
}

fn positions(s: &MassSpringSystem<2>) -> Vec<f64> {
    s.masses.iter().flat_map(|m| m.pos).collect()
}

fn maxdiff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

#[test]
fn unconstrained_network_matches_independent_rk4_at_order_two() {
    let reference = truss_rk4(1.0, 1e-5);
    let reference_coarse = truss_rk4(1.0, 2e-5);
    assert!(
        maxdiff(&reference, &reference_coarse) < 1e-12,
        "RK4 reference not converged"
    );
    let mut errs = Vec::new();
    for steps in [500, 1000, 2000] {
        let mut s = truss(5);
        s.options.method.newton_tol = 1e-12;
        s.options.method.reuse_factorization = false;
        s.simulate(1.0, steps).unwrap();
        errs.push(maxdiff(&positions(&s), &reference));
    }
    for l in 0..2 {
        let r = errs[l] / errs[l + 1];
        assert!((3.6..=4.4).contains(&r), "error ratio {r:.2}: {errs:?}");
    }
    assert!(errs[2] < 1e-4, "{errs:?}");
}

#[test]
fn hand_and_ad_runs_agree() {
    let mut hand = truss(5);
    let mut ad = truss(5);
    ad.options.derivatives = Derivatives::Ad;
    // with a constraint as well
    for s in [&mut hand, &mut ad] {
        let a = lagrangian::library::mass_spring::Node::Mass(0);
        let c = lagrangian::library::mass_spring::Node::Mass(2);
        s.constraints.clear();
        s.add_distance_constraint(a, c, 1.0);
        s.simulate(0.5, 500).unwrap();
    }
    let d = maxdiff(&positions(&hand), &positions(&ad));
    assert!(d < 1e-9, "hand vs AD trajectories differ by {d:.3e}");
    assert!((hand.constraint_forces()[0] - ad.constraint_forces()[0]).abs() < 1e-6);
}

#[test]
fn chain_helper_and_constraint_forces() {
    // A rigid rod (distance constraint) pendulum hanging at rest: the rod force equals m g.
    let mut s = MassSpringSystem::<3>::new([0.0, -9.81, 0.0]);
    let f = s.add_fix([0.0, 0.0, 0.0]);
    let m = s.add_mass(2.0, [0.0, -1.0, 0.0]);
    s.add_distance_constraint(f, m, 1.0);
    s.simulate(1.0, 100).unwrap();
    assert!(
        (s.constraint_forces()[0] - 2.0 * 9.81).abs() < 1e-9,
        "{:?}",
        s.constraint_forces()
    );
    assert!((s.position(m)[1] + 1.0).abs() < 1e-12);
    // chain helper: n masses, equal spacing, springs at rest length
    let mut c = MassSpringSystem::<3>::new([0.0, 0.0, 0.0]);
    let f = c.add_fix([0.0, 0.0, 0.0]);
    let nodes = c.add_chain(f, [0.0, 0.0, -3.0], 3, 0.5, 100.0, 0.0);
    assert_eq!(nodes.len(), 3);
    assert_eq!(c.position(nodes[2]), [0.0, 0.0, -3.0]);
    assert!(
        c.springs
            .iter()
            .all(|s| (s.rest_length - 1.0).abs() < 1e-15)
    );
    // without gravity nothing moves
    c.simulate(1.0, 10).unwrap();
    assert!((c.position(nodes[2])[2] + 3.0).abs() < 1e-12);
}

#[test]
fn invalid_networks_are_errors_not_panics() {
    let mut s = MassSpringSystem::<2>::new([0.0, -9.81]);
    let a = s.add_mass(0.0, [1.0, 0.0]);
    assert!(
        s.simulate(1.0, 10)
            .unwrap_err()
            .to_string()
            .contains("mass must be positive")
    );
    s.masses[0].mass = 1.0;
    s.add_spring(a, lagrangian::library::mass_spring::Node::Fix(7), 1.0, 10.0);
    assert!(
        s.simulate(1.0, 10)
            .unwrap_err()
            .to_string()
            .contains("unknown")
    );
    s.springs.clear();
    assert!(s.simulate(0.0, 10).is_err());
    let before = s.masses.clone();
    s.add_distance_constraint(a, a, 1.0);
    assert!(s.simulate(1.0, 10).is_err());
    assert_eq!(s.masses, before, "a failed run must not change the state");
}

fn richardson_ratio(mut run: impl FnMut(usize) -> Vec<f64>, steps: [usize; 3]) -> f64 {
    let q: Vec<Vec<f64>> = steps.iter().map(|&n| run(n)).collect();
    maxdiff(&q[0], &q[1]) / maxdiff(&q[1], &q[2])
}

#[test]
fn chain_and_cloth_converge_at_order_two() {
    use lagrangian::library::mass_spring::scenes::{benchmark_chain, cloth};
    let chain = |steps: usize| {
        let mut s = benchmark_chain(20);
        s.options.method.newton_tol = 1e-13;
        s.simulate(0.5, steps).unwrap();
        s.state_vectors().0
    };
    let r = richardson_ratio(chain, [250, 500, 1000]);
    assert!((3.6..=4.4).contains(&r), "chain: ratio {r:.2}");
    let membrane = |steps: usize| {
        let (mut s, _) = cloth(7).unwrap();
        s.options.method.newton_tol = 1e-13;
        s.simulate(0.3, steps).unwrap();
        s.state_vectors().0
    };
    let r = richardson_ratio(membrane, [150, 300, 600]);
    assert!((3.6..=4.4).contains(&r), "cloth: ratio {r:.2}");
}

#[test]
fn rod_pendulum_through_the_hand_derived_distance_constraint_matches_the_exact_solution() {
    // g = 13.7503671 gives period 2 (tests/reference/pendulum_exact.json): at t = 1 the bob is at
    // (−1, 0) with λ ≈ 0; at t = 0.5 at the bottom with tension 41.2511 = 3 m g.
    use lagrangian::library::mass_spring::scenes::rod_pendulum;
    let (mut s, bob) = rod_pendulum(1.0, 1.0, 13.7503671);
    s.options.method.newton_tol = 1e-12;
    s.simulate(0.5, 2000).unwrap();
    let p = s.position(bob);
    assert!(p[0].abs() < 1e-4 && (p[1] + 1.0).abs() < 1e-8, "{p:?}");
    assert!(
        (s.constraint_forces()[0] - 41.251101299996144).abs() < 1e-3,
        "{:?}",
        s.constraint_forces()
    );
    s.simulate(0.5, 2000).unwrap();
    let p = s.position(bob);
    assert!((p[0] + 1.0).abs() < 1e-6 && p[1].abs() < 2e-3, "{p:?}");
}

#[test]
fn stiff_spring_double_pendulum_approaches_the_rigid_one() {
    use lagrangian::library::mass_spring::scenes::double_pendulum_springs;
    use lagrangian::library::pendulum::{double_pendulum_cartesian, double_pendulum_positions};
    use lagrangian::prelude::*;
    let (m, l, g, th) = ([1.0, 0.6], [1.0, 0.7], 9.81, [1.2, -0.4]);
    let cart = Arc::new(double_pendulum_cartesian(m, l, g));
    let q0 = double_pendulum_positions(l, th);
    let init = consistent_initial_values(&cart, &q0, &[0.0; 4], &InitOptions::default()).unwrap();
    let rigid = simulate_from(&cart, &init.state, 0.5, GenAlphaOptions::new(1e-4)).unwrap();
    let r = &rigid.last().state.q;
    let mut prev = f64::INFINITY;
    for k in [1e4, 1e5, 1e6] {
        let (mut s, bobs) = double_pendulum_springs(m, l, g, th, k);
        s.simulate(0.5, 5000).unwrap();
        let (p1, p2) = (s.position(bobs[0]), s.position(bobs[1]));
        let d = [p1[0] - r[0], p1[1] - r[1], p2[0] - r[2], p2[1] - r[3]]
            .iter()
            .fold(0.0f64, |a, x| a.max(x.abs()));
        assert!(
            d < prev,
            "k = {k}: distance to the rigid pendulum {d:.3e} did not shrink"
        );
        prev = d;
    }
    assert!(prev < 2e-3, "{prev:.3e}");
}

/// A conservative 2D network: a rod pendulum carrying a spring pendulum, swinging.
fn swinging() -> MassSpringSystem<2> {
    let mut s = MassSpringSystem::<2>::new([0.0, -9.81]);
    let o = s.add_fix([0.0, 0.0]);
    let a = s.add_mass_with_velocity(1.0, [0.6, -0.8], [0.5, 0.0]);
    let b = s.add_mass(0.5, [1.2, -1.6]);
    s.add_distance_constraint(o, a, 1.0);
    s.add_spring(a, b, 1.0, 80.0);
    s
}

fn energy(s: &MassSpringSystem<2>) -> f64 {
    let model = s.model(Derivatives::Hand).unwrap();
    let (q, v) = s.state_vectors();
    lagrangian::assembly::energies(&model, s.time(), &q, &v)[2]
}

fn state(s: &MassSpringSystem<2>) -> Vec<f64> {
    s.masses
        .iter()
        .flat_map(|m| m.pos.into_iter().chain(m.vel))
        .collect()
}

#[test]
fn simulate_called_frame_by_frame_goes_on_as_one_run() {
    // one call over 10 s at h = 0.01, and 500 frames of two steps each
    let mut once = swinging();
    let e0 = energy(&once);
    once.simulate(10.0, 1000).unwrap();
    let mut frames = swinging();
    for k in 0..500 {
        // how often records are kept is no change to the system: the run goes on
        frames.options.output_every = if k % 2 == 0 { 1 } else { usize::MAX };
        let sol = frames.simulate(0.02, 2).unwrap();
        if k % 2 == 0 {
            assert!(
                sol.records.len() >= 2,
                "{} records of two steps",
                sol.records.len()
            );
        }
    }
    assert!((frames.time() - 10.0).abs() < 1e-12);
    let d = maxdiff(&state(&once), &state(&frames));
    assert!(d < 1e-12, "frames differ from one run by {d:.3e}");
    let (drift_once, drift_frames) = ((energy(&once) - e0).abs(), (energy(&frames) - e0).abs());
    assert!(
        drift_frames <= 1.5 * drift_once + 1e-12,
        "energy drift {drift_frames:.3e} (frames) vs {drift_once:.3e} (one run)"
    );
    // a restart at every frame (what a clone or `reset` does) is another run
    let mut restarted = swinging();
    for _ in 0..500 {
        restarted.simulate(0.02, 2).unwrap();
        restarted.reset();
    }
    let d = maxdiff(&state(&once), &state(&restarted));
    assert!(
        d > 1e-8,
        "restarting every frame changed the run by only {d:.3e}"
    );
    // a changed state starts afresh from it, as a new system would
    frames.masses[1].vel[0] += 0.1;
    let mut fresh = frames.clone();
    frames.simulate(0.5, 50).unwrap();
    fresh.simulate(0.5, 50).unwrap();
    assert_eq!(state(&frames), state(&fresh));
    // so does reset
    let mut again = frames.clone();
    frames.reset();
    frames.simulate(0.5, 50).unwrap();
    again.simulate(0.5, 50).unwrap();
    assert_eq!(state(&frames), state(&again));
}
