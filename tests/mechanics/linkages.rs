//! The bundled linkages: Chebyshev's straight-line linkage against its closed-form kinematics
//! (and the straightness of its tracing point), and the rod–plate–bead mechanism with a
//! collinear joint conserving energy and angular momentum.

use lagrangian::output::sink::ColumnRecorder;
use lagrangian::prelude::*;

fn bundled(name: &str) -> (Problem, RunPlan) {
    let path = format!("{}/mechanisms/{name}", env!("CARGO_MANIFEST_DIR"));
    lagrangian::spec::load(std::path::Path::new(&path)).unwrap()
}

/// All rows of a run of `problem` by the file's method to its end.
fn table((problem, plan): &(Problem, RunPlan)) -> ColumnRecorder {
    let mut t = ColumnRecorder::every(1);
    let mut sim = Simulation::new(problem.clone(), plan).unwrap();
    sim.run(&mut [&mut t]).unwrap();
    t
}

#[test]
fn chebyshev_linkage_follows_its_closed_form_and_draws_a_straight_line() {
    let problem = bundled("chebyshev_linkage.yaml");
    let t = table(&problem);
    let col = |n: &str| t.column(n).unwrap();
    let (time, ax, ay, bx, by, px, py) = (
        col("t"),
        col("A.x"),
        col("A.y"),
        col("B.x"),
        col("B.y"),
        col("P.x"),
        col("P.y"),
    );
    let (o2, rocker, coupler) = ([2.0f64, 0.0], 2.5f64, 1.0f64);
    let (mut worst, mut crooked) = (0.0f64, 0.0f64);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..time.len() {
        // the driven rocker: θ(t) = atan2(2, 1.5) + 0.2 sin 2t
        let th = 2.0f64.atan2(1.5) + 0.2 * (2.0 * time[i]).sin();
        let a = [rocker * th.cos(), rocker * th.sin()];
        // B: where the circles |B − O2| = 2.5 and |B − A| = 1 meet, on the branch of the start
        let d = [a[0] - o2[0], a[1] - o2[1]];
        let dd = (d[0] * d[0] + d[1] * d[1]).sqrt();
        let along = (rocker * rocker - coupler * coupler + dd * dd) / (2.0 * dd);
        let h = (rocker * rocker - along * along).sqrt();
        let (u, n) = ([d[0] / dd, d[1] / dd], [-d[1] / dd, d[0] / dd]);
        let b = [
            o2[0] + along * u[0] + h * n[0],
            o2[1] + along * u[1] + h * n[1],
        ];
        for (x, y) in [(ax[i], a[0]), (ay[i], a[1]), (bx[i], b[0]), (by[i], b[1])] {
            worst = worst.max((x - y).abs());
        }
        worst = worst.max((px[i] - 0.5 * (a[0] + b[0])).abs());
        crooked = crooked.max((py[i] - 2.0).abs());
        lo = lo.min(px[i]);
        hi = hi.max(px[i]);
    }
    eprintln!(
        "Chebyshev: positions against the closed form {worst:.1e}; P.x over [{lo:.3}, {hi:.3}] \
         with |P.y − 2| ≤ {crooked:.2e}"
    );
    assert!(worst < 1e-10, "{worst:e}");
    // a stroke of 0.86 that stays within 0.5 % of its length of the line y = 2
    assert!(hi - lo > 0.85 && crooked < 5e-3, "{lo} {hi} {crooked}");
    // the drive delivers the work that changes the energy
    let balance = col("balance_error");
    let scale = col("total")[0].abs();
    assert!(balance.iter().all(|b| b.abs() < 1e-6 * scale));
}

#[test]
fn rod_plate_and_bead_on_a_collinear_joint_conserve_energy_and_angular_momentum() {
    let problem = bundled("collinear.yaml");
    let t = table(&problem);
    let col = |n: &str| t.column(n).unwrap();
    let (e, lz) = (col("total"), col("Lz"));
    let (ax, ay, cx, cy) = (col("A.x"), col("A.y"), col("C.x"), col("C.y"));
    let (mut de, mut dl, mut off) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..e.len() {
        de = de.max((e[i] - e[0]).abs());
        dl = dl.max((lz[i] - lz[0]).abs());
        // O, A, C on one line: the cross product (A − O) × (C − O) vanishes
        off = off.max((ax[i] * cy[i] - ay[i] * cx[i]).abs());
    }
    eprintln!(
        "collinear joint over 10 s: energy {de:.1e} of {:.3}, Lz {dl:.1e} of {:.3}, off the line {off:.1e}",
        e[0], lz[0]
    );
    assert!(de < 1e-6 * e[0].abs() && dl < 1e-6 * lz[0].abs());
    assert!(off < 1e-12);
    // the bead really slides and the rod really turns
    let r: Vec<f64> = (0..e.len()).map(|i| cx[i].hypot(cy[i])).collect();
    let spread = r.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - r.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(spread > 0.05);
    assert!(ay.iter().any(|y| *y < -1.0) && ax.iter().any(|x| *x < -1.0));
}
