//! Parameter sweeps: `lagrangian sweep` against the same runs made one by one, the same table
//! on one thread and on two, failing cases in their rows, refusals before anything runs.

use lagrangian::run::sweep::{SweepOptions, cases, sweep};
use lagrangian::spec;

use crate::common;

/// The header and rows of a CSV file (cells as text).
fn table(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.splitn(12, ',').map(String::from).collect())
        .collect();
    (header, rows)
}

#[test]
fn the_command_line_sweep_equals_the_runs_made_one_by_one() {
    let out = common::tmp("sweep-cli");
    let o = common::run(
        &[
            "sweep",
            &common::mech("mechanism0.yaml"),
            "--set",
            "k=100,400",
            "--set",
            "m=1,2,4",
            "--t-end",
            "0.2",
            "--end",
            "B.y,A.x",
            "--jobs",
            "2",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("6 cases (0 failed)"));
    let (header, rows) = table(&out.join("sweep.csv"));
    assert_eq!(header[..3], ["k", "m", "t_end"]);
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    assert_eq!(rows.len(), 6);
    // the last parameter varies fastest
    let order: Vec<(String, String)> = rows.iter().map(|r| (r[0].clone(), r[1].clone())).collect();
    assert_eq!(order[0], ("100".into(), "1".into()));
    assert_eq!(order[1], ("100".into(), "2".into()));
    assert_eq!(order[3], ("400".into(), "1".into()));
    for r in &rows {
        let one = common::tmp("sweep-one");
        let o = common::run(
            &[
                "run",
                &common::mech("mechanism0.yaml"),
                "--set",
                &format!("k={}", r[0]),
                "--set",
                &format!("m={}", r[1]),
                "--t-end",
                "0.2",
                "--quiet",
                "--out",
                one.to_str().unwrap(),
            ],
            None,
        );
        assert!(o.status.success());
        let (names, traj) = common::trajectory(&one);
        let last = traj.last().unwrap();
        for c in ["B.y", "A.x"] {
            let alone = last[names.iter().position(|n| n == c).unwrap()];
            let swept: f64 = r[col(&format!("end:{c}"))].parse().unwrap();
            assert!(
                (swept - alone).abs() <= 1e-11 * alone.abs().max(1e-3),
                "{c}: {swept} vs {alone}"
            );
        }
        let summary = common::summary(&one);
        assert_eq!(r[col("steps")], summary["steps"].to_string());
        assert_eq!(
            r[col("newton_iterations")],
            summary["newton_iterations"].to_string()
        );
        assert_eq!(r[col("error")], "");
        std::fs::remove_dir_all(&one).ok();
    }
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn one_thread_and_two_give_the_same_table() {
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let (problem, plan) = spec::parse(&text, "mechanism0.yaml").unwrap();
    let problem = problem.t_end(0.1);
    let mut opts = SweepOptions {
        grid: vec![
            ("k".into(), vec![100.0, 200.0, 300.0]),
            ("L".into(), vec![0.5, 1.0]),
        ],
        end: vec!["B.x".into(), "lambda:rigid OA".into()],
        jobs: 1,
        ..SweepOptions::default()
    };
    let one = sweep(&problem, &plan, &opts).unwrap();
    opts.jobs = 2;
    let two = sweep(&problem, &plan, &opts).unwrap();
    assert_eq!(one.len(), 6);
    for (a, b) in one.iter().zip(&two) {
        assert_eq!(a.values, b.values);
        assert_eq!(a.end, b.end); // bit for bit: each case runs alone on its thread
        assert!(a.error.is_none() && a.end.iter().all(|x| x.is_finite()));
    }
    assert_eq!(
        cases(&opts.grid)[1],
        [("k".to_string(), 100.0), ("L".to_string(), 1.0)]
    );
}

#[test]
fn a_failing_case_is_reported_in_its_row_and_mistakes_before_anything_runs() {
    let out = common::tmp("sweep-fail");
    let args = |extra: &[&str]| {
        let mut a = vec!["sweep".to_string(), common::mech("mechanism0.yaml")];
        a.extend(extra.iter().map(|s| s.to_string()));
        a.extend(["--t-end", "0.05", "--quiet", "--out"].map(String::from));
        a.push(out.to_str().unwrap().to_string());
        a
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        common::run(&refs, None)
    };
    let o = run(&["--set", "L=1,-1", "--end", "B.y"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 of 2 cases failed"));
    let (header, rows) = table(&out.join("sweep.csv"));
    let err = header.iter().position(|h| h == "error").unwrap();
    assert_eq!(rows[0][err], "");
    assert!(
        rows[1][err].contains("mechanism0.yaml:14:7"),
        "{}",
        rows[1][err]
    );
    let o = run(&["--set", "stiffness=1,2"]);
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(
        msg.contains("no parameter 'stiffness'") && msg.contains("L, M, k"),
        "{msg}"
    );
    let o = run(&["--set", "k=1", "--end", "B.z"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--end B.z: no such column"));
    let o = run(&["--set", "k=1,abc"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("'abc' is not a finite number"));
    // a parameter set twice would label rows with values that were not run
    let o = run(&["--set", "k=100,200", "--set", "k=300"]);
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && msg.contains("'k' is swept twice"),
        "{msg}"
    );
    // far more threads than cores: clamped, the sweep runs
    let o = run(&["--set", "k=100,200", "--jobs", "100000"]);
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{msg}");
    assert_eq!(table(&out.join("sweep.csv")).1.len(), 2);
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn library_sweep_errors_name_the_options_as_the_caller_wrote_them() {
    let text = std::fs::read_to_string("mechanisms/mechanism0.yaml").unwrap();
    let (problem, plan) = spec::parse(&text, "mechanism0.yaml").unwrap();
    let mut opts = SweepOptions {
        grid: vec![("kk".into(), vec![1.0])],
        ..SweepOptions::default()
    };
    let cli = sweep(&problem, &plan, &opts).unwrap_err().to_string();
    assert!(
        cli.contains("--set kk=…: there is no parameter 'kk'"),
        "{cli}"
    );
    opts.overrides.spelling = lagrangian::problem::Spelling::Python;
    let python = sweep(&problem, &plan, &opts).unwrap_err().to_string();
    assert!(
        python.contains("grid={\"kk\": […]}: there is no parameter 'kk'"),
        "{python}"
    );
    opts.grid = vec![("k".into(), vec![1.0])];
    opts.end = vec!["B.z".into()];
    let python = sweep(&problem, &plan, &opts).unwrap_err().to_string();
    assert!(python.contains("end=[\"B.z\"]: no such column"), "{python}");
}
