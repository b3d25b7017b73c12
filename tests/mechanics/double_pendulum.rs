//! The planar double pendulum written twice — in angles (an ODE) and in Cartesian coordinates
//! with two rods (an index-3 DAE) — gives the same bob positions up to the discretization error,
//! which falls at order 2.

use lagrangian::library::pendulum::{
    double_pendulum_angles, double_pendulum_cartesian, double_pendulum_positions,
};
use lagrangian::prelude::*;

const M: [f64; 2] = [1.0, 0.6];
const L: [f64; 2] = [1.0, 0.7];
const G: f64 = 9.81;
const TH0: [f64; 2] = [1.2, -0.4];
const OM0: [f64; 2] = [0.0, 1.5];

fn positions_both(h: f64, t_end: f64) -> ([f64; 4], [f64; 4], f64) {
    let angles = Arc::new(double_pendulum_angles(M, L, G));
    let ia = consistent_initial_values(&angles, &TH0, &OM0, &InitOptions::default()).unwrap();
    let sa = simulate_from(&angles, &ia.state, t_end, GenAlphaOptions::new(h)).unwrap();
    let th = &sa.last().state.q;
    let pa = double_pendulum_positions(L, [th[0], th[1]]);

    let cart = Arc::new(double_pendulum_cartesian(M, L, G));
    let q0 = double_pendulum_positions(L, TH0);
    let (c1, s1, c2, s2) = (TH0[0].cos(), TH0[0].sin(), TH0[1].cos(), TH0[1].sin());
    let v1 = [L[0] * c1 * OM0[0], L[0] * s1 * OM0[0]];
    let v0 = [
        v1[0],
        v1[1],
        v1[0] + L[1] * c2 * OM0[1],
        v1[1] + L[1] * s2 * OM0[1],
    ];
    let ic = consistent_initial_values(&cart, &q0, &v0, &InitOptions::default()).unwrap();
    assert!(ic.report.position_change < 1e-14 && ic.report.velocity_change < 1e-13);
    let sc = simulate_from(&cart, &ic.state, t_end, GenAlphaOptions::new(h)).unwrap();
    let pc: [f64; 4] = sc.last().state.q.clone().try_into().unwrap();
    // energies agree too
    let de = (sa.last().energy - sc.last().energy).abs();
    (pa, pc, de)
}

fn maxdiff(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

#[test]
fn angle_and_cartesian_models_agree_to_discretization_error() {
    let (pa1, pc1, de1) = positions_both(2e-3, 2.0);
    let (pa2, pc2, de2) = positions_both(1e-3, 2.0);
    let d1 = maxdiff(&pa1, &pc1);
    let d2 = maxdiff(&pa2, &pc2);
    assert!(d2 < 1e-3, "models differ by {d2:.3e} at h = 1e-3");
    let ratio = d1 / d2;
    assert!(
        (3.5..=4.5).contains(&ratio),
        "difference ratio {ratio:.2} ({d1:.3e} → {d2:.3e})"
    );
    assert!(
        de2 < de1 && de2 < 1e-2,
        "energy difference {de1:.3e} → {de2:.3e}"
    );
    // Each model converges at order 2 on its own (against its h/2 run).
    let (pa3, pc3, _) = positions_both(5e-4, 2.0);
    for (x1, x2, x3, name) in [
        (&pa1, &pa2, &pa3, "angles"),
        (&pc1, &pc2, &pc3, "cartesian"),
    ] {
        let r = maxdiff(x1, x2) / maxdiff(x2, x3);
        assert!(
            (3.5..=4.5).contains(&r),
            "{name}: self-convergence ratio {r:.2}"
        );
    }
}
