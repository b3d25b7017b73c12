//! Result folders: a run replaces only the files it writes, holds its folder against a second
//! run, and leaves nothing half-done on any failure path.

use crate::common::{mech, run, summary, tmp, trajectory};
use lagrangian::output::folder::RunFolder;
use std::fs;
use std::path::Path;

/// Hidden files the toolkit keeps while it works (partial directories, the lock).
fn leftovers(dir: &Path) -> Vec<String> {
    let names = fs::read_dir(dir).unwrap().flatten();
    let names = names.filter_map(|e| e.file_name().into_string().ok());
    names.filter(|n| n.starts_with('.')).collect()
}

fn run_into(out: &Path, extra: &[&str]) -> std::process::Output {
    let file = mech("double_pendulum.yaml");
    let mut args = vec!["run", &file, "--out", out.to_str().unwrap(), "--quiet"];
    args.extend_from_slice(&["--t-end", "0.01"]);
    args.extend_from_slice(extra);
    run(&args, None)
}

fn ok(o: &std::process::Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
}

fn refused(o: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!o.status.success(), "should fail");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn a_users_files_among_the_results_survive_every_run() {
    let out = tmp("own-files");
    fs::create_dir_all(out.join("npy")).unwrap();
    fs::write(out.join("npy/measurements.txt"), "mine\n").unwrap();
    fs::write(out.join("notes.txt"), "mine too\n").unwrap();
    // .npy with two groups, then CSV only, then .npy with one group
    ok(&run_into(
        &out,
        &["--format", "npy", "--columns", "positions,velocities"],
    ));
    assert!(out.join("npy/velocities.npy").is_file());
    ok(&run_into(&out, &["--format", "csv"]));
    assert!(!out.join("npy/t.npy").exists() && !out.join("npy/columns.json").exists());
    assert!(out.join("trajectory.csv").is_file());
    ok(&run_into(
        &out,
        &["--format", "npy", "--columns", "positions"],
    ));
    assert!(out.join("npy/positions.npy").is_file() && out.join("npy/t.npy").is_file());
    assert!(
        !out.join("npy/velocities.npy").exists(),
        "an earlier run's group stays"
    );
    assert!(
        !out.join("trajectory.csv").exists(),
        "a format the run left out stays"
    );
    assert_eq!(
        fs::read_to_string(out.join("npy/measurements.txt")).unwrap(),
        "mine\n"
    );
    assert_eq!(
        fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine too\n"
    );
    assert!(leftovers(&out).is_empty(), "{:?}", leftovers(&out));
    // a run that writes no .npy leaves a folder with a user's file in it, and removes an
    // empty one
    ok(&run_into(&out, &["--format", "csv"]));
    assert!(out.join("npy/measurements.txt").is_file());
    fs::remove_file(out.join("npy/measurements.txt")).unwrap();
    ok(&run_into(&out, &["--format", "npy"]));
    ok(&run_into(&out, &["--format", "csv"]));
    assert!(!out.join("npy").exists());
}

#[test]
fn a_second_run_into_a_held_folder_is_refused_and_the_first_completes() {
    let out = tmp("held");
    let held = RunFolder::open(&out).unwrap();
    let err = refused(&run_into(&out, &[]));
    assert!(err.contains("another run is writing into"), "{err}");
    assert!(!out.join("trajectory.csv").exists());
    // in the same process too: a second holder is refused
    let e = RunFolder::open(&out).unwrap_err().to_string();
    assert!(e.contains("another run is writing into"), "{e}");
    drop(held);
    ok(&run_into(&out, &[]));
    assert!(leftovers(&out).is_empty(), "{:?}", leftovers(&out));
}

#[test]
fn runs_started_together_into_one_folder_never_mix_their_results() {
    let out = tmp("together");
    // different end times: each summary must describe the trajectory beside it
    let ends = ["0.01", "0.02", "0.03", "0.04"];
    let children: Vec<_> = ends
        .iter()
        .map(|t| {
            let file = mech("double_pendulum.yaml");
            let o = out.to_str().unwrap();
            let args = ["run", &file, "--out", o, "--quiet", "--t-end", t];
            crate::common::bin()
                .args(args)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut completed = 0;
    for c in children {
        let o = c.wait_with_output().unwrap();
        match o.status.success() {
            true => completed += 1,
            false => {
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(err.contains("another run is writing into"), "{err}");
            }
        }
    }
    assert!(completed >= 1);
    let s = summary(&out);
    let (_, rows) = trajectory(&out);
    let t_end = s["t_end"].as_f64().unwrap();
    assert!((rows.last().unwrap()[0] - t_end).abs() < 1e-12, "{s}");
    assert!(leftovers(&out).is_empty(), "{:?}", leftovers(&out));
}

#[test]
fn a_result_that_cannot_be_replaced_fails_before_anything_moves() {
    let out = tmp("unreplaceable");
    ok(&run_into(&out, &[]));
    let before = fs::read_to_string(out.join("trajectory.csv")).unwrap();
    for name in ["summary.json", "scene.json"] {
        let moved = out.join(format!("{name}.keep"));
        fs::rename(out.join(name), &moved).unwrap();
        fs::create_dir(out.join(name)).unwrap();
        let err = refused(&run_into(&out, &["--step", "2e-3"]));
        assert!(err.contains(name) && err.contains("is a folder"), "{err}");
        assert_eq!(
            fs::read_to_string(out.join("trajectory.csv")).unwrap(),
            before
        );
        assert!(leftovers(&out).is_empty(), "{:?}", leftovers(&out));
        fs::remove_dir(out.join(name)).unwrap();
        fs::rename(&moved, out.join(name)).unwrap();
    }
    // an interrupted run's folder that is a file: refused before the run
    fs::write(out.join("interrupted"), "a file\n").unwrap();
    let err = refused(&run_into(&out, &["--step", "2e-3"]));
    assert!(
        err.contains("interrupted") && err.contains("is a file"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(out.join("trajectory.csv")).unwrap(),
        before
    );
    assert!(leftovers(&out).is_empty(), "{:?}", leftovers(&out));
}

#[test]
fn an_output_folder_that_is_a_file_is_named() {
    let dir = tmp("out-file");
    let file = dir.join("result");
    fs::write(&file, "a file\n").unwrap();
    let err = refused(&run_into(&file, &[]));
    assert!(err.contains("result") && err.contains("is a file"), "{err}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "a file\n");
}

#[test]
fn a_refused_mode_amplitude_leaves_nothing_behind() {
    let out = tmp("mode-amplitude");
    let file = mech("double_pendulum.yaml");
    let o = out.to_str().unwrap();
    ok(&run(&["modes", &file, "--out", o, "--animate", "1"], None));
    let mode = out.join("mode-1");
    let before = fs::read_to_string(mode.join("trajectory.csv")).unwrap();
    let args = [
        "modes",
        &file,
        "--out",
        o,
        "--animate",
        "1",
        "--amplitude",
        "1e6",
    ];
    let err = refused(&run(&args, None));
    assert!(
        err.contains("amplitude") && err.contains("beyond the mechanism's size"),
        "{err}"
    );
    for a in ["-0.1", "nan"] {
        let args = [&args[..6], &["--amplitude", a]].concat();
        let err = refused(&run(&args, None));
        assert!(err.contains("give a positive --amplitude"), "{a}: {err}");
    }
    assert_eq!(
        fs::read_to_string(mode.join("trajectory.csv")).unwrap(),
        before
    );
    assert!(leftovers(&mode).is_empty(), "{:?}", leftovers(&mode));
    assert!(leftovers(&out).is_empty(), "{:?}", leftovers(&out));
}
