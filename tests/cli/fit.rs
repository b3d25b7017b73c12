//! `lagrangian fit`: parameters fitted to a table of targets (here a run's own trajectory at
//! another stiffness and damping, so the fit must find them to round-off), the fitted run and
//! `fit.json` written, and the mistakes a user can make named.

use crate::common::*;
use std::path::Path;

const SPRING: &str = "Dimension: 2
PhysicalParams: { k: 3, c: 0.1, m: 1, m2: 2 }
PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Springs: { OA: [k, 1, 0, c] } }
ProblemData: { tend: 1, positions: { A: [2, 0.5] } }
SolverParams: { step: 1e-3 }
";

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn fit_finds_the_stiffness_and_damping_of_a_measured_run() {
    let dir = tmp("fit");
    let file = dir.join("spring.yaml");
    std::fs::write(&file, SPRING).unwrap();
    let f = file.to_str().unwrap();
    // the "measurement": the same mechanism with k = 4, c = 0.3
    let measured = dir.join("measured");
    let o = run(
        &[
            "run",
            f,
            "--set",
            "k=4",
            "--set",
            "c=0.3",
            "--quiet",
            "--out",
            measured.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = trajectory(&measured);
    let (x, y) = (
        header.iter().position(|h| h == "A.x").unwrap(),
        header.iter().position(|h| h == "A.y").unwrap(),
    );
    // every 50th row, A.y left out in the odd ones (an empty cell is no target)
    let mut csv = String::from("# measured at k = 4, c = 0.3\nt,A.x,A.y\n");
    for (i, r) in rows.iter().enumerate().step_by(50).skip(1) {
        let ay = if i % 100 == 0 {
            format!("{}", r[y])
        } else {
            String::new()
        };
        csv += &format!("{},{},{ay}\n", r[0], r[x]);
    }
    let target = dir.join("target.csv");
    std::fs::write(&target, csv).unwrap();
    let out = dir.join("fitted");
    let args = [
        "fit",
        f,
        "--target",
        target.to_str().unwrap(),
        "--vary",
        "k,c",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = run(&args, None);
    let said = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        said.contains("next: lagrangian run") && said.contains("--set k="),
        "{said}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fit.json")).unwrap()).unwrap();
    let value = |k: usize| report["parameters"][k][1].as_f64().unwrap();
    assert!(
        (value(0) - 4.0).abs() < 1e-8 && (value(1) - 0.3).abs() < 1e-8,
        "{report}"
    );
    assert_eq!(report["start"][0][1].as_f64(), Some(3.0));
    assert!(report["cost"].as_f64().unwrap() < 1e-16 * report["initial_cost"].as_f64().unwrap());
    // the fitted run is the measured one
    let (h2, fitted) = trajectory(&out);
    assert_eq!(h2, header);
    let last = |t: &Vec<Vec<f64>>| t.last().unwrap()[x];
    assert!((last(&fitted) - last(&rows)).abs() < 1e-8);
    assert!(
        summary(&out)["overrides"].to_string().contains("k="),
        "{}",
        summary(&out)
    );

    fit_mistakes(&dir, f, &target, &out);
}

/// Mistakes (an unknown parameter, a column that is no coordinate, a cell that is no number, a
/// file under error control without a step) are errors; the earlier result stays.
fn fit_mistakes(dir: &Path, f: &str, target: &Path, out: &Path) {
    // mistakes: an unknown parameter, a column that is no coordinate, a cell that is no number
    let bad = |vary: &str, table: &str, want: &str| {
        std::fs::write(target, table).unwrap();
        let args = [
            "fit",
            f,
            "--target",
            target.to_str().unwrap(),
            "--vary",
            vary,
            "--out",
            out.to_str().unwrap(),
        ];
        let o = run(&args, None);
        let e = stderr(&o);
        assert!(
            !o.status.success() && e.contains(want) && !e.contains("panicked"),
            "{want}: {e}"
        );
    };
    bad("q", "t,A.x\n0.5,1.2\n", "unknown parameter 'q'");
    bad("k", "t,Q.x\n0.5,1.2\n", "no column 'Q.x' to fit");
    bad(
        "k",
        "t,A.x\n0.5,1.2\n0.7,x\n",
        "target.csv:3:5: 'x' is not a number",
    );
    bad("k", "A.x\n1.2\n", "no column 't'");
    bad(
        "k",
        "t,A.x,A.x\n0.5,1.2,1.3\n",
        "column 'A.x' appears twice",
    );
    bad(
        "k",
        "t,A.x\n0.5,nan\n",
        "target.csv:2:5: 'nan' is no measurement",
    );
    bad(
        "k",
        "t,A.x\n0.5,1e308\n",
        "its squared residual would overflow",
    );
    bad("k", "t,A.x\n5,1.2\n", "outside the run");
    // a file under error control: the fit runs its method, the Jacobian from differences of
    // runs; --step goes back to generalized-α's exact sensitivities
    let tol = dir.join("tol.yaml");
    std::fs::write(&tol, SPRING.replace("step: 1e-3", "tol: 1e-8")).unwrap();
    std::fs::write(target, "t,A.x\n0.5,1.2\n").unwrap();
    let args = [
        "fit",
        tol.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "--vary",
        "k",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = run(&args, None);
    let said = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        said.contains("Jacobian from differences of runs by dop853"),
        "{said}"
    );
    let args = [&args[..], &["--step", "1e-3"]].concat();
    let o = run(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(said.contains("exact sensitivities"), "{said}");
    // the earlier result is still there
    assert!(out.join("fit.json").is_file() && out.join("trajectory.csv").is_file());
    fit_options_refused(f, target, out);
}

/// A parameter named twice, no iterations, a tolerance that is none, and a target that is
/// one of the files the fit writes (its own earlier `trajectory.csv`, measured data a user
/// keeps there): refused, each naming its culprit, the files untouched.
fn fit_options_refused(f: &str, target: &Path, out: &Path) {
    std::fs::write(target, "t,A.x\n0.5,1.2\n").unwrap();
    let refused = |extra: &[&str], vary: &str, target: &Path, want: &str| {
        let args = [
            &["fit", f, "--target", target.to_str().unwrap()][..],
            &["--vary", vary, "--out", out.to_str().unwrap()],
            extra,
        ]
        .concat();
        let o = run(&args, None);
        let e = stderr(&o);
        assert!(
            !o.status.success() && e.contains(want) && !e.contains("panicked"),
            "{want}: {e}"
        );
    };
    refused(&[], "k,k", target, "parameter 'k' is named twice");
    refused(
        &[],
        "k,m2",
        target,
        "parameter 'm2' has no influence on the targets",
    );
    refused(
        &["--max-iterations", "0"],
        "k",
        target,
        "at least 1: a fit runs",
    );
    for tol in ["nan", "-1", "0"] {
        refused(&["--tolerance", tol], "k", target, "is not a tolerance");
    }
    let own = out.join("trajectory.csv");
    let before = std::fs::read(&own).unwrap();
    refused(&[], "k", &own, "is one of the files it writes into");
    let dotted = out.join(".").join("trajectory.csv");
    refused(&[], "k", &dotted, "is one of the files it writes into");
    assert_eq!(
        std::fs::read(&own).unwrap(),
        before,
        "the measured table is untouched"
    );
}

/// Ctrl-C stops a long fit after the current step: an error that says so, no panic, and the
/// earlier result in the folder untouched.
#[test]
fn ctrl_c_stops_a_fit_and_keeps_the_earlier_result() {
    let dir = tmp("fit-int");
    let file = dir.join("spring.yaml");
    std::fs::write(&file, SPRING).unwrap();
    let target = dir.join("target.csv");
    std::fs::write(&target, "t,A.x\n0.5,1.2\n").unwrap();
    let out = dir.join("out");
    let (f, t, o) = (
        file.to_str().unwrap(),
        target.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let done = run(&["fit", f, "--target", t, "--vary", "k", "--out", o], None);
    assert!(done.status.success(), "{}", stderr(&done));
    let before = std::fs::read(out.join("fit.json")).unwrap();
    let child = bin()
        .args([
            "fit", f, "--target", t, "--vary", "k", "--out", o, "--t-end", "1e4",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let k = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    assert!(k.unwrap().success());
    let o = child.wait_with_output().unwrap();
    let e = stderr(&o);
    assert!(
        !o.status.success() && e.contains("interrupted") && !e.contains("panicked"),
        "{e}"
    );
    assert_eq!(std::fs::read(out.join("fit.json")).unwrap(), before);
}

/// `lagrangian linearize`: the state-space model about the equilibrium printed and written as
/// JSON and `.npy` (a particle on a damped spring in the plane: 2 degrees of freedom, one
/// input, two outputs); an unknown output is named.
#[test]
fn linearize_writes_the_state_space_model() {
    let dir = tmp("linearize");
    let file = dir.join("spring.yaml");
    std::fs::write(&file, SPRING).unwrap();
    let out = dir.join("linear");
    let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
    let args = [
        "linearize",
        f,
        "--inputs",
        "k",
        "--outputs",
        "A.x,A.y",
        "--at",
        "equilibrium",
        "--out",
        o,
    ];
    let done = run(&args, None);
    let said = String::from_utf8_lossy(&done.stdout).to_string();
    assert!(done.status.success(), "{}", stderr(&done));
    assert!(
        said.contains("4 states") && said.contains("eigenvalues of A"),
        "{said}"
    );
    for (name, shape) in [("A", [4, 4]), ("B", [4, 1]), ("C", [2, 4]), ("D", [2, 1])] {
        let (s, _) = lagrangian::output::npy::read_npy(&out.join(format!("{name}.npy"))).unwrap();
        assert_eq!(s, shape, "{name}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state_space.json")).unwrap())
            .unwrap();
    assert_eq!(json["outputs"], serde_json::json!(["A.x", "A.y"]));
    assert_eq!(json["a"].as_array().unwrap().len(), 4);
    let args = [
        "linearize",
        f,
        "--inputs",
        "k",
        "--outputs",
        "A.q",
        "--out",
        o,
    ];
    let bad = run(&args, None);
    assert!(
        !bad.status.success() && stderr(&bad).contains("no column 'A.q'"),
        "{}",
        stderr(&bad)
    );
}

/// A target table saved by Excel — a byte-order mark before the header, CRLF line ends — reads
/// as the same table written plainly.
#[test]
fn targets_saved_by_excel_are_read() {
    use lagrangian::run::fit::Target;
    let plain = Target::from_csv("t,A.x,A.y\n0.5,1.2,\n1,1.5,0.25\n", "plain.csv").unwrap();
    let excel = "\u{feff}t,A.x,A.y\r\n0.5,1.2,\r\n1,1.5,0.25\r\n";
    let read = Target::from_csv(excel, "excel.csv").unwrap_or_else(|e| panic!("{e}"));
    let key = |v: &[Target]| -> Vec<(f64, String, f64)> {
        v.iter()
            .map(|x| (x.t, x.coordinate.clone(), x.value))
            .collect()
    };
    assert_eq!(key(&read), key(&plain));
    assert_eq!(read.len(), 3);
}

/// Every command that reads a mechanism file and writes a folder refuses a file that is one
/// of the folder's result files (issue 70 item 12), and leaves it as it was.
#[test]
fn no_command_writes_over_the_file_it_reads() {
    let dir = tmp("own-input");
    let d = dir.to_str().unwrap();
    let text = "Dimension: 1\nPartData: { Particles: { A: 1 } }\n\
                ProblemData: { tend: 0.1, positions: { A: [1] } }\n";
    let file = dir.join("scene.json");
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    let commands: [&[&str]; 5] = [
        &["run", f, "--out", d],
        &["modes", f, "--out", d],
        &["sweep", f, "--set", "x=1,2", "--out", d],
        &["equilibrium", f, "--out", d],
        &[
            "linearize",
            f,
            "--inputs",
            "u",
            "--outputs",
            "A.x",
            "--out",
            d,
        ],
    ];
    for args in commands {
        let o = run(args, None);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && e.contains("is one of the files it writes into"),
            "{args:?}: {e}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
}
