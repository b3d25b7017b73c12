//! Every example runs (`cargo test` builds them next to the test binaries) and its one-line JSON
//! report makes physical sense. Short settings keep this fast.

use serde_json::Value;
use std::process::Command;

fn run(name: &str, args: &[&str]) -> Value {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    let path = dir.join(name);
    let out = Command::new(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", path.display()));
    assert!(
        out.status.success(),
        "{name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("{name}: not one JSON line ({e}): {text}"))
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64()
        .unwrap_or_else(|| panic!("missing number {k} in {v}"))
}

#[test]
fn andrews_prints_the_state_at_t_end() {
    let v = run("andrews", &["--h", "1e-4"]);
    assert_eq!(v["q"].as_array().unwrap().len(), 7);
    assert_eq!(v["v"].as_array().unwrap().len(), 7);
    assert_eq!(v["lambda"].as_array().unwrap().len(), 6);
    assert_eq!(v["steps"].as_u64(), Some(300));
    assert!(f(&v, "newton_iterations") >= 300.0 && f(&v, "solve_seconds") >= 0.0);
    // β(0.03) = 15.81… (test set), far from converged at h = 1e-4 but close
    assert!((v["q"][0].as_f64().unwrap() - 15.81).abs() < 0.1);
}

#[test]
fn benchmark_examples_report_their_fields() {
    let c = run("chain", &["--n", "50", "--t-end", "0.1"]);
    assert_eq!(c["steps"].as_u64(), Some(100));
    assert_eq!(c["last"].as_array().unwrap().len(), 3);
    assert!(
        f(&c, "q_rms") > 0.0 && f(&c, "build_seconds") >= 0.0 && f(&c, "factorizations") >= 1.0
    );
    // the free end falls freely until the spring wave arrives: y = −g t²/2
    assert!((c["last"][1].as_f64().unwrap() + 0.5 * 9.81 * 0.01).abs() < 1e-6);
    // After 10 ms the pushed middle particle (v_z = 1) has risen by almost v t = 0.01; its light
    // mass (0.01 kg on k = 100 springs) is pulled back within a few more ms.
    let m = run("cloth", &["--m", "9", "--t-end", "0.01"]);
    assert_eq!(f(&m, "coordinates"), 243.0);
    let z = m["mid"][2].as_f64().unwrap();
    assert!(z > 0.009 && z < 0.01, "{m}");
}

#[test]
fn seed_examples_run_and_behave() {
    let h = run("hanging_chain", &["--t-end", "1", "--steps", "200"]);
    assert!(
        (f(&h, "energy_end") - f(&h, "energy_start")).abs() < 1e-3 * f(&h, "energy_start").abs()
    );
    assert!(h["bottom"][1].as_f64().unwrap() < -10.0);

    let b = run("bridge", &["--t-end", "0.5", "--steps", "500"]);
    // 12 m girder, k = 1e5: deflections of centimetres, up or down with the periodic load
    assert!(
        f(&b, "min_z").abs() < 0.3 && (f(&b, "mid_z") - 1.0).abs() < 0.3,
        "{b}"
    );

    let r = run("rod_pendulum", &["--t-end", "1", "--steps", "500"]);
    assert!(f(&r, "max_constraint_residual") < 1e-9);
    let bob = r["bob"].as_array().unwrap();
    let len = (bob[0].as_f64().unwrap().powi(2) + bob[1].as_f64().unwrap().powi(2)).sqrt();
    assert!((len - 1.0).abs() < 1e-9);

    let d = run(
        "double_pendulum_chain",
        &["--t-end", "0.5", "--steps", "500"],
    );
    assert!(f(&d, "max_constraint_residual") < 1e-9);
    assert!(
        f(&d, "energy_end") < f(&d, "energy_start"),
        "the chain is damped"
    );

    let s = run(
        "double_pendulum_springs",
        &["--t-end", "0.5", "--steps", "1000"],
    );
    assert!((f(&s, "energy_end") - f(&s, "energy_start")).abs() < 1e-2);

    let k = run("kreisel", &["--t-end", "1", "--steps", "1000"]);
    assert!(
        (f(&k, "lz_end") - f(&k, "lz_start")).abs() < 1e-4 * f(&k, "lz_start"),
        "{k}"
    );
}
