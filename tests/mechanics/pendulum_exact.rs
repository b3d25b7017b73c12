//! Planar Cartesian pendulum (index 3) against the exact solution (Jacobi elliptic functions,
//! tests/reference/pendulum_exact.json): generalized-α converges at order 2 in q, v and λ for
//! ρ∞ ∈ {0.5, 0.8, 0.9}, and the constraint stays below the Newton tolerance at every step.

use lagrangian::library::pendulum::planar_pendulum;
use lagrangian::prelude::*;
use serde_json::Value;

fn reference() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/pendulum_exact.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Max errors (q, v, λ) at the given times for step h.
fn errors(case: &Value, h: f64, rho: f64, times: &[&str]) -> Vec<[f64; 3]> {
    let grav = case["grav"].as_f64().unwrap();
    let model = Arc::new(planar_pendulum(1.0, 1.0, grav));
    let init = consistent_initial_values(&model, &[1.0, 0.0], &[0.0, 0.0], &InitOptions::default())
        .unwrap();
    let tol = 1e-12;
    let mut g = Simulation::from_state(
        Problem::new(model.clone()),
        GenAlphaOptions::new(h).rho_inf(rho).newton_tol(tol),
        &init.state,
    )
    .unwrap();
    let mut out = Vec::new();
    let mut c = [0.0];
    for &ts in times {
        let t: f64 = ts.parse().unwrap();
        while g.t() < t - 0.5 * h {
            g.step().unwrap();
            let s = g.state();
            lagrangian::assembly::constraint_values(&model, s.t, &s.q, &mut c);
            assert!(
                c[0].abs() <= tol,
                "|C| = {} above the Newton tolerance at t = {}",
                c[0],
                s.t
            );
        }
        let s = g.state();
        let r = &case["at"][ts];
        let eq = (s.q[0] - r["x"].as_f64().unwrap())
            .abs()
            .max((s.q[1] - r["y"].as_f64().unwrap()).abs());
        let ev = (s.v[0] - r["vx"].as_f64().unwrap())
            .abs()
            .max((s.v[1] - r["vy"].as_f64().unwrap()).abs());
        let el = (s.lambda[0] - r["lambda"].as_f64().unwrap()).abs();
        out.push([eq, ev, el]);
    }
    out
}

#[test]
fn second_order_convergence_against_exact_solution() {
    let refs = reference();
    let case = &refs["cases"]["grav=1"];
    let times = ["1", "3", "10"];
    for rho in [0.5, 0.8, 0.9] {
        let hs = [0.01, 0.005, 0.0025];
        let errs: Vec<Vec<[f64; 3]>> = hs.iter().map(|&h| errors(case, h, rho, &times)).collect();
        for (ti, t) in times.iter().enumerate() {
            for k in 0..3 {
                for l in 0..2 {
                    let ratio = errs[l][ti][k] / errs[l + 1][ti][k];
                    println!(
                        "rho {rho} t {t} var {k}: e(h)={:.3e} e(h/2)={:.3e} ratio {ratio:.2}",
                        errs[l][ti][k],
                        errs[l + 1][ti][k]
                    );
                    assert!(
                        (3.6..=4.4).contains(&ratio),
                        "rho_inf {rho}, t = {t}, {}: error ratio {ratio:.2} (errors {:.3e} → {:.3e}) is not ≈ 4",
                        ["q", "v", "lambda"][k],
                        errs[l][ti][k],
                        errs[l + 1][ti][k]
                    );
                }
            }
        }
        // and the errors are small in absolute terms
        assert!(errs[2][2][0] < 1e-3);
    }
}

#[test]
fn stiff_case_grav_13_matches_exact() {
    let refs = reference();
    let case = &refs["cases"]["grav=13.7503671"];
    let e = errors(case, 1e-3, 0.8, &["0.5", "1", "2"]);
    for (k, x) in e.iter().enumerate() {
        assert!(
            x[0] < 1e-3 && x[1] < 1e-2,
            "case grav=13.75, point {k}: errors {x:?}"
        );
    }
}
