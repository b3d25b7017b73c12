//! `lagrangian animate`: one offline HTML file whose inline data are the scene and the
//! decimated trajectory — checked against the run's own CSV and npy files, for a 2D and a 3D
//! mechanism and the 90 × 90 cloth (size bound).

mod common;
use common::*;
use lagrangian::output::animation::{frame_rows, AnimationOptions};
use std::path::Path;

/// The inline data of an animation page.
fn data(html: &str) -> serde_json::Value {
    let start = html.find("const DATA = ").expect("inline data") + "const DATA = ".len();
    let end = start
        + html[start..]
            .find(";\nconst scene")
            .expect("end of the data");
    serde_json::from_str(&html[start..end]).expect("the inline data are JSON")
}

fn animate(dir: &Path, extra: &[&str]) -> String {
    let o = run(
        &[&["animate", dir.to_str().unwrap()][..], extra].concat(),
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(dir.join("animation.html")).unwrap()
}

/// The frames of the page equal the trajectory's rows at the chosen times.
fn check_frames(dir: &Path, html: &str, fps: f64, max_frames: usize) {
    let d = data(html);
    let (header, rows) = trajectory(dir);
    let times: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    let chosen = frame_rows(
        &times,
        &AnimationOptions {
            fps,
            max_frames,
            ..Default::default()
        },
    );
    let frames = d["frames"].as_array().unwrap();
    assert_eq!(frames.len(), chosen.len());
    let dim = d["scene"]["dimension"].as_u64().unwrap() as usize;
    let moving: Vec<&str> = d["moving"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(!moving.is_empty());
    let axes = ["x", "y", "z"];
    let scale = rows
        .iter()
        .flat_map(|r| r[1..].iter())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    for (f, &r) in chosen.iter().enumerate() {
        assert_eq!(d["t"][f].as_f64().unwrap(), times[r]);
        for (k, name) in moving.iter().enumerate() {
            for a in 0..dim {
                let col = header
                    .iter()
                    .position(|h| *h == format!("{name}.{}", axes[a]))
                    .unwrap();
                let shown = frames[f][k * dim + a].as_f64().unwrap();
                assert!(
                    (shown - rows[r][col]).abs() <= 1e-5 * scale.max(1.0),
                    "{name} frame {f}"
                );
            }
        }
    }
}

#[test]
fn a_2d_and_a_3d_run_animate_offline() {
    for (file, t_end) in [("double_pendulum.yaml", "2"), ("tennis_racket.yaml", "1")] {
        let out = run_bundled(file, t_end);
        let html = animate(&out, &["--fps", "20"]);
        // one file, nothing fetched
        for needle in ["http://", "https://", "<script src", "<link"] {
            assert!(
                !html.contains(needle),
                "{file}: the page refers to '{needle}'"
            );
        }
        assert!(html.contains("window.__lagrangian"));
        check_frames(&out, &html, 20.0, 1000);
    }
}

#[test]
fn frames_are_bounded_and_npy_runs_animate_too() {
    let out = tmp("anim-npy");
    let m0 = mech("mechanism0.yaml");
    let args = [
        "run", &m0, "--t-end", "3", "--format", "csv,npy", "--quiet", "--out",
    ];
    let o = run(&[&args[..], &[out.to_str().unwrap()]].concat(), None);
    assert!(o.status.success());
    let html = animate(&out, &["--max-frames", "50"]);
    check_frames(&out, &html, 30.0, 50);
    // the same page from the npy files alone
    std::fs::rename(out.join("trajectory.csv"), out.join("kept.csv")).unwrap();
    let from_npy = animate(&out, &["--max-frames", "50"]);
    std::fs::rename(out.join("kept.csv"), out.join("trajectory.csv")).unwrap();
    assert_eq!(data(&html)["frames"], data(&from_npy)["frames"]);
    // a folder without a run
    let empty = tmp("anim-empty");
    let o = run(&["animate", empty.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("scene.json"), "{err}");
}

#[test]
fn the_cloth_animation_stays_small() {
    let out = tmp("anim-cloth");
    let cloth = mech("cloth.yaml");
    let args = [
        "run",
        &cloth,
        "--t-end",
        "0.1",
        "--output-every",
        "1",
        "--columns",
        "positions",
    ];
    let o = run(
        &[&args[..], &["--quiet", "--out", out.to_str().unwrap()]].concat(),
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = animate(&out, &["--fps", "1000"]);
    let d = data(&html);
    assert_eq!(d["frames"].as_array().unwrap().len(), 101);
    assert_eq!(d["moving"].as_array().unwrap().len(), 8100);
    let mb = html.len() as f64 / 1e6;
    assert!(mb <= 25.0, "the 90 × 90 cloth's page is {mb:.1} MB");
}
