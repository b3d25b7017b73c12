//! N spherical pendulums in angle coordinates (after the PHYS389 3D N-pendulum simulator) against the Cartesian index-3 chain;
//! chart switching through the pole; conservation of energy and of the vertical angular momentum;
//! monotone energy decay with joint damping; RK4 against generalized-α.

use lagrangian::library::pendulum::pendulum_chain_3d;
use lagrangian::library::spherical_chain::{Chart, Integrator, Rod, SphericalChain};
use lagrangian::prelude::*;

/// Cartesian bob positions and velocities of a chain given in angles (z-polar).
fn cartesian(chain: &SphericalChain) -> (Vec<f64>, Vec<f64>) {
    let d = chain.diagnostics();
    (
        d.positions.iter().flatten().copied().collect(),
        d.velocities.iter().flatten().copied().collect(),
    )
}

fn rods(spec: &[(f64, f64, f64, f64, f64, f64)]) -> Vec<Rod> {
    spec.iter()
        .map(|&(l, m, th, ph, thd, phd)| {
            let mut r = Rod::new(l, m, th, ph);
            r.theta_dot = thd;
            r.phi_dot = phd;
            r
        })
        .collect()
}

/// Bob positions after `t` from both models with step `h`.
fn both(spec: &[(f64, f64, f64, f64, f64, f64)], t: f64, h: f64) -> (Vec<f64>, Vec<f64>) {
    let g = 9.81;
    let mut chain = SphericalChain::new(rods(spec), g);
    let (q0, v0) = cartesian(&chain);
    chain
        .simulate(t, h, Integrator::GenAlpha(0.8), usize::MAX)
        .unwrap();
    let angle = cartesian(&chain).0;
    let masses: Vec<f64> = spec.iter().map(|s| s.1).collect();
    let lengths: Vec<f64> = spec.iter().map(|s| s.0).collect();
    let model = Arc::new(pendulum_chain_3d(&masses, &lengths, g).unwrap());
    let init = consistent_initial_values(&model, &q0, &v0, &InitOptions::default()).unwrap();
    assert!(init.report.position_change < 1e-12 && init.report.velocity_change < 1e-12);
    let sol = simulate_from(&model, &init.state, t, GenAlphaOptions::new(h)).unwrap();
    (angle, sol.last().state.q.clone())
}

fn maxdiff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

fn agree_and_converge(spec: &[(f64, f64, f64, f64, f64, f64)], t: f64) {
    let hs = [2e-3, 1e-3, 5e-4];
    let runs: Vec<(Vec<f64>, Vec<f64>)> = hs.iter().map(|&h| both(spec, t, h)).collect();
    let d = maxdiff(&runs[2].0, &runs[2].1);
    assert!(d < 1e-3, "angle and Cartesian models differ by {d:.3e}");
    for (name, pick) in [("angles", 0usize), ("cartesian", 1)] {
        let get = |k: usize| if pick == 0 { &runs[k].0 } else { &runs[k].1 };
        let r = maxdiff(get(0), get(1)) / maxdiff(get(1), get(2));
        eprintln!("{} rods, {name}: self-convergence ratio {r:.3}", spec.len());
        assert!(
            (3.5..=4.5).contains(&r),
            "{name}: self-convergence ratio {r:.2}"
        );
    }
    // the difference between the models shrinks with h too
    assert!(maxdiff(&runs[2].0, &runs[2].1) < maxdiff(&runs[0].0, &runs[0].1));
}

#[test]
fn double_and_triple_pendulum_angles_equal_cartesian() {
    agree_and_converge(
        &[
            (1.0, 1.0, 0.8, 0.0, 0.0, 1.0),
            (0.7, 0.5, 1.2, 0.5, 0.3, -0.5),
        ],
        1.5,
    );
    agree_and_converge(
        &[
            (1.0, 1.0, 0.7, 0.1, 0.0, 0.8),
            (0.6, 0.8, 1.0, 0.6, 0.2, 0.0),
            (0.5, 0.4, 1.4, 2.0, 0.0, 1.0),
        ],
        1.0,
    );
}

#[test]
fn swinging_through_the_pole_switches_charts_and_stays_on_the_cartesian_path() {
    // planar swing through the bottom (θ = 0 is the z-polar pole), and a second rod too
    let spec = [
        (1.0, 1.0, 1.4, 0.0, 0.0, 0.0),
        (0.8, 0.5, 1.5, 0.0, 0.0, 0.0),
    ];
    let mut chain = SphericalChain::new(rods(&spec), 9.81);
    let (q0, v0) = cartesian(&chain);
    let run = chain
        .simulate(3.0, 5e-4, Integrator::GenAlpha(0.8), 100)
        .unwrap();
    assert!(run.switches.len() >= 4, "switches {:?}", run.switches);
    assert!(
        run.switches.iter().any(|s| s.2 == Chart::XPolar)
            && run.switches.iter().any(|s| s.2 == Chart::ZPolar)
    );
    let model = Arc::new(pendulum_chain_3d(&[1.0, 0.5], &[1.0, 0.8], 9.81).unwrap());
    let init = consistent_initial_values(&model, &q0, &v0, &InitOptions::default()).unwrap();
    let sol = simulate_from(&model, &init.state, 3.0, GenAlphaOptions::new(5e-4)).unwrap();
    // the chain keeps every 100th step
    for (d, r) in run.records.iter().zip(sol.records.iter().step_by(100)) {
        assert!((d.t - r.state.t).abs() < 1e-12);
        let p: Vec<f64> = d.positions.iter().flatten().copied().collect();
        let e = maxdiff(&p, &r.state.q);
        assert!(e < 2e-3, "t = {}: {e:.3e}", d.t);
        // angles stay in range
    }
    for r in &chain.rods {
        assert!(
            (0.0..=std::f64::consts::PI).contains(&r.theta)
                && (0.0..std::f64::consts::TAU).contains(&r.phi)
        );
    }
}

#[test]
fn energy_bounded_and_vertical_angular_momentum_conserved() {
    let spec = [
        (1.0, 1.0, 1.0, 0.0, 0.2, 1.5),
        (0.8, 0.7, 1.3, 1.0, -0.4, 0.8),
        (0.6, 0.4, 0.9, 2.0, 0.0, -1.0),
    ];
    for (integrator, h, tol_e, tol_l) in [
        (Integrator::GenAlpha(0.95), 5e-4, 2e-2, 1e-4),
        (Integrator::Rk4, 5e-4, 1e-7, 1e-8),
    ] {
        let mut chain = SphericalChain::new(rods(&spec), 9.81);
        let run = chain.simulate(2.0, h, integrator, 50).unwrap();
        let e0 = run.records[0].kinetic + run.records[0].potential;
        let lz0 = run.records[0].angular_momentum[2];
        for d in &run.records {
            let e = d.kinetic + d.potential;
            assert!(
                (e - e0).abs() < tol_e * e0.abs().max(1.0),
                "{integrator:?}: energy {e} vs {e0} at t = {}",
                d.t
            );
            assert!(
                (d.angular_momentum[2] - lz0).abs() < tol_l * lz0.abs().max(1.0),
                "{integrator:?}: Lz {} vs {lz0}",
                d.angular_momentum[2]
            );
        }
    }
}

#[test]
fn joint_damping_makes_energy_decrease_monotonically() {
    let mut r = rods(&[
        (1.0, 1.0, 1.0, 0.0, 0.0, 1.0),
        (0.8, 0.6, 1.4, 0.5, 0.0, 0.0),
    ]);
    r[0].damping = 0.3;
    r[1].damping = 0.2;
    let mut chain = SphericalChain::new(r, 9.81);
    let run = chain
        .simulate(3.0, 1e-3, Integrator::GenAlpha(0.8), 10)
        .unwrap();
    let e: Vec<f64> = run
        .records
        .iter()
        .map(|d| d.kinetic + d.potential)
        .collect();
    assert!(
        e.windows(2).all(|w| w[1] <= w[0] + 1e-9),
        "energy increased"
    );
    assert!(e[e.len() - 1] < e[0] - 0.1);
}

#[test]
fn rk4_and_generalized_alpha_agree_with_elastic_rods_and_distributed_mass() {
    // centre of mass at 0.6 of the rod, rod inertia, elastic second rod
    let mut r = rods(&[
        (1.0, 1.0, 0.9, 0.0, 0.0, 0.7),
        (0.8, 0.6, 1.2, 0.4, 0.3, 0.0),
    ]);
    r[0].com = 0.6;
    r[0].inertia = 1.0 / 12.0;
    r[1].stiffness = Some(2000.0);
    let mut a = SphericalChain::new(r.clone(), 9.81);
    let mut b = SphericalChain::new(r, 9.81);
    let ra = a.simulate(1.0, 2e-4, Integrator::Rk4, 100).unwrap();
    let rb = b
        .simulate(1.0, 2e-4, Integrator::GenAlpha(0.9), 100)
        .unwrap();
    let pa: Vec<f64> = ra
        .records
        .last()
        .unwrap()
        .positions
        .iter()
        .flatten()
        .copied()
        .collect();
    let pb: Vec<f64> = rb
        .records
        .last()
        .unwrap()
        .positions
        .iter()
        .flatten()
        .copied()
        .collect();
    assert!(maxdiff(&pa, &pb) < 1e-3, "{:.3e}", maxdiff(&pa, &pb));
    // RK4 keeps the (conservative) energy tightly
    let e = |d: &lagrangian::library::spherical_chain::Diagnostics| d.kinetic + d.potential;
    assert!((e(ra.records.last().unwrap()) - e(&ra.records[0])).abs() < 1e-6);
}
