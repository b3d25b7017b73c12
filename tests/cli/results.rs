//! What a run reports besides positions: multipliers, reaction forces and the energy ledger,
//! checked against closed forms and the ledger's order of convergence.

use lagrangian::output::sink::ColumnRecorder;
use lagrangian::prelude::*;
use lagrangian::spec;

/// Run a mechanism file's problem to `t_end` with step `h`, keeping every `every`-th row.
fn table(text: &str, t_end: f64, h: f64, every: usize) -> ColumnRecorder {
    let (p, plan) = spec::parse(text, "test.yaml").unwrap();
    let mut sim = Simulation::new(p.t_end(t_end), plan.method.with_h(h)).unwrap();
    let mut rec = ColumnRecorder::every(every);
    sim.run(&mut [&mut rec]).unwrap();
    rec
}

fn col(t: &ColumnRecorder, name: &str) -> Vec<f64> {
    t.column(name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", t.names()))
}

/// A particle on a massless rod: the rod's tension is `m (g·r̂ + |v|²/ℓ)` at every instant
/// (`r̂` the unit vector from the pivot, `g·r̂ = g cos θ`).
#[test]
fn rod_tension_matches_the_closed_form() {
    let text = std::fs::read_to_string("mechanisms/rod_pendulum.yaml").unwrap();
    let (m, g, l) = (1.0, 13.7503671, 1.0);
    let t = table(&text, 1.0, 1e-4, 50);
    let (x, y) = (col(&t, "B.x"), col(&t, "B.y"));
    let (vx, vy) = (col(&t, "B.vx"), col(&t, "B.vy"));
    let tension = col(&t, "tension:OB");
    let (fx, fy) = (col(&t, "force:OB:B.x"), col(&t, "force:OB:B.y"));
    let mut worst: f64 = 0.0;
    for k in 0..x.len() {
        let (rx, ry) = (x[k] / l, y[k] / l);
        let exact = m * (-g * ry + (vx[k] * vx[k] + vy[k] * vy[k]) / l);
        worst = worst.max((tension[k] - exact).abs() / (m * g));
        // the rod pulls the bob toward the pivot with the tension
        assert!((fx[k] + tension[k] * rx).abs() < 1e-9 * (1.0 + tension[k].abs()));
        assert!((fy[k] + tension[k] * ry).abs() < 1e-9 * (1.0 + tension[k].abs()));
    }
    // released horizontally: the tension runs from 0 to 3 m g at the bottom
    assert!(tension.iter().cloned().fold(0.0, f64::max) > 2.9 * m * g);
    assert!(worst < 1e-5, "tension error {worst:.3e} (relative to m g)");
    // the generalized reaction on B's coordinates is the same force
    let rx = col(&t, "reaction:bar OB:B.x");
    for k in 0..x.len() {
        assert!((rx[k] - fx[k]).abs() < 1e-9 * (1.0 + fx[k].abs()));
    }
}

/// Three bars hanging at rest: each bar carries the weight below it, and the support feels the
/// whole weight.
#[test]
fn hanging_bars_carry_the_weight_below() {
    let text = "
Title: hanging bars
Dimension: 2
PartData:
  Fixed: { O: [0, 0] }
  Particles: { A: 1, B: 2, C: 3 }
  Bars: { OA: 1, AB: 1, BC: 1 }
AppliedForces:
  Gravity: 9.81
ProblemData:
  tend: 0.1
  positions: { A: [0, -1], B: [0, -2], C: [0, -3] }
";
    let t = table(text, 0.1, 1e-3, 10);
    let g = 9.81;
    for (bar, load) in [("OA", 6.0), ("AB", 5.0), ("BC", 3.0)] {
        for x in col(&t, &format!("tension:{bar}")) {
            assert!((x - load * g).abs() < 1e-9, "{bar}: {x} vs {}", load * g);
        }
    }
    for (x, y) in col(&t, "force:OA:O.x").iter().zip(col(&t, "force:OA:O.y")) {
        assert!(
            x.abs() < 1e-9 && (y + 6.0 * g).abs() < 1e-9,
            "support force ({x}, {y})"
        );
    }
    // at rest nothing moves: velocities zero, no work, nothing dissipated
    assert!(col(&t, "C.vy").iter().all(|v| v.abs() < 1e-12));
    let l = t.ledger().unwrap();
    assert!(l.balance_error.abs() < 1e-12 && l.work_forces == 0.0);
}

/// `balance_error` of a run: the ledger's residual `E(t) − E(0) − W + D`.
fn balance(text: &str, t_end: f64, h: f64) -> lagrangian::output::ledger::LedgerTotals {
    table(text, t_end, h, usize::MAX).ledger().unwrap()
}

fn assert_order_two(name: &str, errors: &[f64]) {
    for w in errors.windows(2) {
        let rate = (w[0] / w[1]).abs().log2();
        assert!(
            rate > 1.8 && rate < 2.3,
            "{name}: balance errors {errors:?} converge at rate {rate:.2}, not 2"
        );
    }
}

/// The damped hanging chain loses energy by dissipation alone: the ledger accounts for it, and
/// what remains (the integrator's error) vanishes as h².
#[test]
fn ledger_of_the_damped_chain_converges_at_order_two() {
    let text = std::fs::read_to_string("mechanisms/hanging_chain.yaml").unwrap();
    let runs: Vec<_> = [4e-3, 2e-3, 1e-3]
        .iter()
        .map(|&h| balance(&text, 1.0, h))
        .collect();
    let last = runs[2];
    assert!(last.dissipated > 0.1, "dissipated {}", last.dissipated);
    assert_eq!((last.work_forces, last.work_drives), (0.0, 0.0));
    // the energy change is the dissipation, to the balance error
    assert!((last.energy_change + last.dissipated).abs() < 1e-3 * last.dissipated);
    let errors: Vec<f64> = runs.iter().map(|l| l.balance_error).collect();
    assert_order_two("damped chain", &errors);
}

/// Andrews' mechanism gains the work of its driving torque: the ledger accounts for it, and the
/// balance error vanishes as h².
#[test]
fn ledger_of_the_driven_andrews_mechanism_converges_at_order_two() {
    let text = std::fs::read_to_string("mechanisms/andrews.yaml").unwrap();
    let runs: Vec<_> = [4e-5, 2e-5, 1e-5]
        .iter()
        .map(|&h| balance(&text, 0.003, h))
        .collect();
    let last = runs[2];
    assert!(last.work_forces > 1e-3, "work {}", last.work_forces);
    assert!((last.energy_change - last.work_forces).abs() < 1e-3 * last.work_forces);
    let errors: Vec<f64> = runs.iter().map(|l| l.balance_error).collect();
    assert_order_two("Andrews", &errors);
}

/// The ledger of a run under error control integrates its powers by the method's own
/// continuous extension, so `balance_error` is the method's error, not a trapezoidal rule's: the
/// bundled PUMA 560 (six drives doing 28 J of work) at DOP853 tol 1e-10 balances to 1e-12 of its work
/// (the trapezoid on its 9 steps: −2e-5 J), every row an interpolated instant; the damped
/// chain by DOP853 and by Radau IIA balances to their tolerances; RK4 converges at order 4.
#[test]
fn the_ledger_under_error_control_is_the_methods_error() {
    use lagrangian::problem::{Dop853Options, Method, RadauOptions, Rk4Options};
    let run = |text: &str, t_end: f64, method: Method| {
        let (p, mut plan) = spec::parse(text, "test.yaml").unwrap();
        plan.method = method;
        let mut sim = Simulation::new(p.t_end(t_end), plan).unwrap();
        let mut rec = ColumnRecorder::every(1);
        sim.run(&mut [&mut rec]).unwrap();
        rec.ledger().unwrap()
    };
    let puma = std::fs::read_to_string("mechanisms/puma560.yaml").unwrap();
    let l = run(&puma, 2.0, Method::Dop853(Dop853Options::new(1e-10)));
    assert!(l.work_drives.abs() > 1.0, "{l:?}");
    assert!(
        l.balance_error.abs() < 1e-12 * l.work_drives.abs().max(1.0),
        "{l:?}"
    );

    let chain = std::fs::read_to_string("mechanisms/hanging_chain.yaml").unwrap();
    for (method, tol) in [
        (Method::Dop853(Dop853Options::new(1e-10)), 1e-10),
        (Method::Radau(RadauOptions::new(1e-10)), 1e-10),
    ] {
        let l = run(&chain, 1.0, method.clone());
        assert!(l.dissipated > 0.1, "{l:?}");
        assert!(
            l.balance_error.abs() < 100.0 * tol * l.dissipated,
            "{method:?}: {l:?}"
        );
    }
    let errors: Vec<f64> = [4e-3, 2e-3, 1e-3]
        .iter()
        .map(|&h| run(&chain, 1.0, Method::Rk4(Rk4Options::new(h))).balance_error)
        .collect();
    for w in errors.windows(2) {
        let rate = (w[0] / w[1]).abs().log2();
        assert!(
            rate > 3.7,
            "RK4 balance errors {errors:?}: rate {rate:.2}, not 4"
        );
    }
}
