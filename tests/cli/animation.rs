//! `lagrangian animate`: one offline HTML file whose inline data are the scene and the
//! decimated trajectory — checked against the run's own CSV and npy files, for a 2D and a 3D
//! mechanism and the 90 × 90 cloth (size bound).

use crate::common;
use common::*;
use lagrangian::view::animation::{AnimationOptions, frame_rows};
use lagrangian::view::movie::Movie;
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
    // a trajectory cut to its header
    let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    std::fs::write(out.join("kept.csv"), &csv).unwrap();
    std::fs::write(out.join("trajectory.csv"), csv.lines().next().unwrap()).unwrap();
    let o = run(&["animate", out.to_str().unwrap(), "--gif"], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("no data rows"), "{err}");
    std::fs::rename(out.join("kept.csv"), out.join("trajectory.csv")).unwrap();
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
    // the grid's springs and its fixed rim are in the scene
    assert_eq!(d["scene"]["links"].as_array().unwrap().len(), 16380);
    let points = d["scene"]["points"].as_array().unwrap();
    assert_eq!(points.iter().filter(|p| p["kind"] == "fixed").count(), 360);
    let mb = html.len() as f64 / 1e6;
    assert!(mb <= 25.0, "the 90 × 90 cloth's page is {mb:.1} MB");
}

/// Column `name` of the trajectory at row `r`.
fn value(header: &[String], row: &[f64], name: &str) -> f64 {
    row[header.iter().position(|h| h == name).expect(name)]
}

#[test]
fn colours_and_trails_follow_the_columns() {
    let out = tmp("anim-colour");
    let args = [
        "run",
        &mech("double_pendulum.yaml"),
        "--t-end",
        "1",
        "--columns",
        "positions,velocities,reactions",
        "--quiet",
        "--animate",
        "--colour",
        "tension",
        "--trail",
        "B",
        "--out",
    ];
    let o = run(&[&args[..], &[out.to_str().unwrap()]].concat(), None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (header, rows) = trajectory(&out);
    let times: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    let chosen = frame_rows(&times, &AnimationOptions::default());
    let check = |d: &serde_json::Value, want: &dyn Fn(&[f64]) -> Vec<f64>| {
        let c = &d["colour"];
        let range = c["range"][1].as_f64().unwrap().abs() + c["range"][0].as_f64().unwrap().abs();
        for (f, &r) in chosen.iter().enumerate() {
            let shown: Vec<f64> = (c["values"][f].as_array().unwrap().iter())
                .map(|v| v.as_f64().unwrap())
                .collect();
            let want = want(&rows[r]);
            assert_eq!(shown.len(), want.len());
            for (s, w) in shown.iter().zip(&want) {
                assert!((s - w).abs() <= 1e-3 * range, "frame {f}: {s} vs {w}");
            }
        }
    };
    // tension: the two bars by their tension columns; B's trail
    let d = data(&std::fs::read_to_string(out.join("animation.html")).unwrap());
    assert_eq!(d["trails"], serde_json::json!([2]));
    assert_eq!(d["colour"]["links"], serde_json::json!([0, 1]));
    assert_eq!(d["colour"]["unit"], "N");
    check(&d, &|row| {
        vec![
            value(&header, row, "tension:OA"),
            value(&header, row, "tension:AB"),
        ]
    });
    // speed: the bobs by |v|, the bars by the mean of their ends (the pivot at rest)
    let d = data(&animate(&out, &["--colour", "speed"]));
    assert_eq!(d["colour"]["points"], serde_json::json!([1, 2]));
    let speed = |row: &[f64], p: &str| {
        value(&header, row, &format!("{p}.vx")).hypot(value(&header, row, &format!("{p}.vy")))
    };
    check(&d, &|row| {
        let (a, b) = (speed(row, "A"), speed(row, "B"));
        vec![a, b, a / 2.0, (a + b) / 2.0]
    });
    assert!(d["colour"]["range"][0].as_f64().unwrap() >= 0.0);
    // one column: its element
    let d = data(&animate(&out, &["--colour", "B.vx"]));
    assert_eq!(d["colour"]["points"], serde_json::json!([2]));
    check(&d, &|row| vec![value(&header, row, "B.vx")]);
    // refusals that name what is wrong
    for (extra, text) in [
        (&["--trail", "Z"][..], "trail Z: no such point"),
        (&["--trail", "O"][..], "trail O: a fixed point has no path"),
        (
            &["--colour", "bogus"][..],
            "colour bogus: not `speed`, `tension` or a column",
        ),
        (&["--gif", "--gif-size", "5x5"][..], "--gif-size 5x5"),
        (&["--fps", "0"][..], "--fps 0"),
    ] {
        let o = run(
            &[&["animate", out.to_str().unwrap()][..], extra].concat(),
            None,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains(text),
            "{extra:?}: {err}"
        );
    }
    // the documented range's ends are accepted
    for size in ["16x16", "4096x16"] {
        let o = run(
            &[
                "animate",
                out.to_str().unwrap(),
                "--gif",
                "--gif-size",
                size,
            ],
            None,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{size}: {err}");
        assert!(out.join("animation.gif").is_file());
    }
}

#[test]
fn the_animation_section_chooses_trails_and_colour() {
    let dir = tmp("anim-section");
    let text = std::fs::read_to_string(mech("double_pendulum.yaml")).unwrap()
        + "Animation:\n  Scene: { view: [0, 90] }\n  trails: [A, B]\n  colour: speed\n";
    let file = dir.join("dp.yaml");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("out");
    let args = [
        "run",
        file.to_str().unwrap(),
        "--t-end",
        "0.5",
        "--quiet",
        "--animate",
    ];
    let o = run(
        &[&args[..], &["--out", out.to_str().unwrap()]].concat(),
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = data(&std::fs::read_to_string(out.join("animation.html")).unwrap());
    assert_eq!(d["trails"], serde_json::json!([1, 2]));
    assert_eq!(d["colour"]["key"], "speed");
    assert_eq!(d["animation"]["Scene"]["view"], serde_json::json!([0, 90]));
    // the command line wins
    let d = data(&animate(&out, &["--trail", "A", "--colour", ""]));
    assert_eq!(d["trails"], serde_json::json!([1]));
    assert!(d["colour"].is_null());
}

#[test]
fn a_mechanism_on_a_line_animates_on_the_x_axis() {
    // Dimension 1: the page draws the points in the plane at y = 0
    let out = run_bundled("exudyn_assembly.yaml", "2");
    let html = animate(&out, &["--fps", "20"]);
    let d = data(&html);
    assert_eq!(d["scene"]["dimension"].as_u64(), Some(2));
    let (header, rows) = trajectory(&out);
    let times: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    let opts = AnimationOptions {
        fps: 20.0,
        ..Default::default()
    };
    let chosen = frame_rows(&times, &opts);
    let frames = d["frames"].as_array().unwrap();
    assert_eq!(frames.len(), chosen.len());
    let moving = d["moving"].as_array().unwrap();
    assert_eq!(moving.len(), 2);
    for (f, &r) in chosen.iter().enumerate() {
        for (k, name) in moving.iter().enumerate() {
            let col = header
                .iter()
                .position(|h| *h == format!("{}.x", name.as_str().unwrap()))
                .unwrap();
            let shown = frames[f][2 * k].as_f64().unwrap();
            assert!((shown - rows[r][col]).abs() < 1e-5 * rows[r][col].abs().max(1.0));
            assert_eq!(frames[f][2 * k + 1].as_f64(), Some(0.0));
        }
    }
}

#[test]
fn a_line_is_coloured_by_speed() {
    // Dimension 1: points have x and vx only (the page draws the line in the plane)
    let out = run_bundled("exudyn_assembly.yaml", "0.1");
    let o = run(
        &["animate", out.to_str().unwrap(), "--colour", "speed"],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(out.join("animation.html")).unwrap();
    assert!(html.contains("\"m/s\""), "the page names the speed's unit");
}

/// A run whose rows are farther apart than the frames, with points jumping across the picture
/// between them, is animated with a note on the terminal and on the page saying what to do; a
/// run with rows at the frame rate has none.
#[test]
fn a_coarse_output_is_noted() {
    let dir = tmp("coarse");
    let d = dir.to_str().unwrap();
    let dp = mech("double_pendulum.yaml");
    let go = |dt: &str| {
        let o = run(
            &[
                "run",
                &dp,
                "--t-end",
                "2",
                "--output-dt",
                dt,
                "--animate",
                "--quiet",
                "--out",
                d,
            ],
            None,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        let page = std::fs::read_to_string(dir.join("animation.html")).unwrap();
        (err, data(&page)["note"].clone())
    };
    let (err, note) = go("0.25");
    assert!(
        err.contains("note: rows every 0.250 s are coarser than the frames"),
        "{err}"
    );
    assert!(err.contains("--output-dt 0.0333"), "{err}");
    assert!(
        note.as_str()
            .is_some_and(|n| n.contains("% of the picture")),
        "{note}"
    );
    let (err, note) = go("0.02");
    assert!(!err.contains("note:") && note.is_null(), "{err} {note}");
    // the page shows it
    assert!(
        std::fs::read_to_string(dir.join("animation.html"))
            .unwrap()
            .contains("id=\"note\"")
    );
}

#[test]
fn planar_bodies_are_drawn_with_their_shapes_in_their_frames() {
    // docs/yaml.md's planar arm with a rectangle along each body and a circle at the elbow
    let out = tmp("anim-planar-bodies");
    let file = out.join("arm.yaml");
    std::fs::write(
        &file,
        "Dimension: 2\nPartData:\n  Bodies:\n    Upper:\n      mass: 1.5\n      com: [0.4, 0.05]\n\
         \x20     inertia: 0.08\n      markers: { Elbow: [0.9, 0] }\n      shapes:\n\
         \x20       - { box: [0.9, 0.1], at: [0.45, 0] }\n        - { circle: 0.05, at: [0.9, 0] }\n\
         \x20   Lower: { mass: 0.7, com: [0.3, 0], inertia: 0.02, markers: { Tip: [0.6, 0] }, \
         shapes: { box: [0.6, 0.06], at: [0.3, 0] } }\n\
         \x20 Joints:\n    shoulder: { type: revolute, bodies: [ground, Upper], initial: -1 }\n\
         \x20   elbow: { type: revolute, bodies: [Upper, Lower], parent: { at: [0.9, 0] }, initial: 1.3 }\n\
         AppliedForces: { Gravity: }\nProblemData: { tend: 1 }\n",
    )
    .unwrap();
    let dir = out.join("run");
    let o = run(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let movie = Movie::load(&dir, &AnimationOptions::default()).unwrap();
    assert_eq!(movie.framed.len(), 2);
    // the rectangle is one closed outline, the circle one circle
    assert_eq!(movie.framed[0].wires.len(), 2);
    assert_eq!(movie.framed[1].wires.len(), 1);
    let (header, rows) = trajectory(&dir);
    let mut checked = 0;
    for f in [0, movie.frames.len() / 2, movie.frames.len() - 1] {
        let t = movie.times[f];
        let row = rows
            .iter()
            .find(|r| (value(&header, r, "t") - t).abs() < 1e-12)
            .expect("the frame's row");
        let elbow = [
            value(&header, row, "Upper.Elbow.x"),
            value(&header, row, "Upper.Elbow.y"),
        ];
        let tip = [
            value(&header, row, "Lower.Tip.x"),
            value(&header, row, "Lower.Tip.y"),
        ];
        let wires = movie.wires(0, f);
        // the circle about the elbow marker, in the plane
        for p in &wires[1] {
            let r = (p[0] - elbow[0]).hypot(p[1] - elbow[1]);
            assert!((r - 0.05).abs() < 1e-9 && p[2] == 0.0, "frame {f}: {p:?}");
            checked += 1;
        }
        // the upper rectangle's far edge is centred on the elbow, the lower's on the tip
        let mid = |w: &Vec<[f64; 3]>, a: usize, b: usize| {
            [(w[a][0] + w[b][0]) / 2.0, (w[a][1] + w[b][1]) / 2.0]
        };
        let far = mid(&wires[0], 1, 2);
        assert!(
            (far[0] - elbow[0]).hypot(far[1] - elbow[1]) < 1e-9,
            "{far:?} {elbow:?}"
        );
        let lower = movie.wires(1, f);
        let end = mid(&lower[0], 1, 2);
        assert!(
            (end[0] - tip[0]).hypot(end[1] - tip[1]) < 1e-9,
            "{end:?} {tip:?}"
        );
        // the edge's length is the width: the frame is rigid and j is i turned by +90°
        let w = &wires[0];
        assert!(((w[2][0] - w[1][0]).hypot(w[2][1] - w[1][1]) - 0.1).abs() < 1e-9);
    }
    assert!(checked >= 3 * 17, "{checked} points on the circles");
    // the page carries the bodies and their poses
    let html = animate(&dir, &["--fps", "10"]);
    let d = data(&html);
    assert_eq!(d["posed"].as_array().map(Vec::len), Some(2));
}

/// `--frame-at T` draws the frame nearest `T` as a still: the bob is where the run put it.
#[test]
fn a_frame_is_drawn_as_a_still_where_the_run_put_the_bob() {
    let out = run_bundled("double_pendulum.yaml", "2");
    let args = ["--frame-at", "1.5", "--gif-size", "320x240", "--fps", "10"];
    animate(&out, &args);
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(out.join("frame.png")).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (320, 240));
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let pixel = |x: i32, y: i32| {
        let i = 3 * (y as usize * 320 + x as usize);
        [buf[i], buf[i + 1], buf[i + 2]]
    };
    // the same movie, its camera at the still's size: B's point at the frame nearest t = 1.5
    let opts = AnimationOptions {
        fps: 10.0,
        size: (320, 240),
        ..Default::default()
    };
    let movie = Movie::load(&out, &opts).unwrap();
    let f = (0..movie.times.len())
        .min_by(|&a, &b| {
            (movie.times[a] - 1.5)
                .abs()
                .total_cmp(&(movie.times[b] - 1.5).abs())
        })
        .unwrap();
    assert!((movie.times[f] - 1.5).abs() < 0.06, "{}", movie.times[f]);
    let b = (movie.scene.points.iter())
        .position(|p| p.name == "B")
        .unwrap();
    let [x, y] = movie
        .camera(320.0, 240.0)
        .project(movie.position(b, f).unwrap());
    let red = [214, 39, 40];
    let near = (-1..=1).flat_map(|dx| (-1..=1).map(move |dy| (dx, dy)));
    let bob = near
        .clone()
        .any(|(dx, dy)| pixel(x.round() as i32 + dx, y.round() as i32 + dy) == red);
    assert!(bob, "no bob at ({x:.1}, {y:.1})");
    // and not where it was at the start
    let [x0, y0] = movie
        .camera(320.0, 240.0)
        .project(movie.position(b, 0).unwrap());
    assert!((x - x0).hypot(y - y0) > 20.0);
    assert!(
        near.clone()
            .all(|(dx, dy)| pixel(x0.round() as i32 + dx, y0.round() as i32 + dy) != red)
    );
    // a time that is none
    let o = run(
        &["animate", out.to_str().unwrap(), "--frame-at", "inf"],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("a frame at t = inf"),
        "{err}"
    );
}
