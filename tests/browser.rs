//! The animation page in a real browser (headless Chromium, installed by `.ci/run`): for a 2D
//! mechanism, a 3D rigid body and the 90 × 90 cloth the page loads without console errors; the
//! points it draws in two frames lie within a pixel of the trajectory's values projected by
//! `view::movie::Camera`; screenshots of the first and the last frame match at the fixed
//! points and differ where points moved. And the GIF: its frame count, size and framing.

mod common;
use common::*;
use lagrangian::view::animation::AnimationOptions;
use lagrangian::view::movie::Movie;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The browser: `LAGRANGIAN_CHROMIUM`, else `chromium`, `chromium-browser` or `google-chrome`.
fn chromium() -> PathBuf {
    let env = std::env::var_os("LAGRANGIAN_CHROMIUM").map(PathBuf::from);
    let found = env.into_iter().chain(
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .flat_map(|n| {
                let path = std::env::var_os("PATH").unwrap_or_default();
                std::env::split_paths(&path)
                    .map(move |d| d.join(n))
                    .collect::<Vec<_>>()
            }),
    );
    for c in found {
        if c.is_file() {
            return c;
        }
    }
    panic!(
        "the browser tests need headless Chromium: `apt-get install chromium` \
         (bash .ci/run installs it), or set LAGRANGIAN_CHROMIUM=/path/to/chrome"
    );
}

const WINDOW: (u32, u32) = (800, 600);

/// Chromium, headless, on `page#hash` with `mode` (`--dump-dom` or `--screenshot=…`); the
/// output and the console lines the page logged.
fn browse(page: &Path, hash: &str, mode: &str) -> (String, Vec<String>) {
    let profile = tmp("chromium-profile");
    let url = format!("file://{}#{hash}", page.display());
    let o = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-extensions",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            &format!("--user-data-dir={}", profile.display()),
            &format!("--window-size={},{}", WINDOW.0, WINDOW.1),
            mode,
            &url,
        ])
        .current_dir(&profile)
        .output()
        .expect("chromium starts");
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "chromium failed on {url}: {err}");
    let console = err
        .lines()
        .filter(|l| l.contains(":CONSOLE") && l.contains("animation.html"))
        .map(String::from)
        .collect();
    let _ = std::fs::remove_dir_all(&profile);
    (String::from_utf8_lossy(&o.stdout).to_string(), console)
}

/// The page's probe of frames `which` (`0,7,last`): canvas size and projected points.
fn probe(page: &Path, which: &str) -> serde_json::Value {
    let (dom, console) = browse(page, &format!("probe={which}"), "--dump-dom");
    assert!(console.is_empty(), "console output: {console:#?}");
    let tag = "<pre id=\"probe\">{";
    let start = dom.find(tag).expect("the page wrote its probe") + tag.len() - 1;
    let end = start + dom[start..].find("</pre>").unwrap();
    let json = dom[start..end]
        .replace("&amp;", "&")
        .replace("&quot;", "\"");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["errors"], serde_json::json!([]), "errors in the page");
    v
}

/// RGB pixels of a PNG screenshot.
fn pixels(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let n = info.color_type.samples();
    let px = buf[..info.buffer_size()]
        .chunks(n)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, px)
}

fn screenshot(page: &Path, frame: &str) -> (u32, u32, Vec<[u8; 3]>) {
    let shot = page.with_file_name(format!("shot-{frame}.png"));
    let (_, console) = browse(
        page,
        &format!("frame={frame}"),
        &format!("--screenshot={}", shot.display()),
    );
    assert!(console.is_empty(), "console output: {console:#?}");
    pixels(&shot)
}

/// A run of a bundled file with the given extra arguments, animated at `fps`: the run's
/// directory (its page is `animation.html`) and the movie.
fn animated(file: &str, args: &[&str], fps: &str) -> (TmpDir, Movie) {
    let out = tmp(&format!("browser-{}", file.trim_end_matches(".yaml")));
    let o = run(
        &[
            &[
                "run",
                &mech(file),
                "--quiet",
                "--out",
                out.to_str().unwrap(),
            ][..],
            args,
        ]
        .concat(),
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["animate", out.to_str().unwrap(), "--fps", fps], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let opts = AnimationOptions {
        fps: fps.parse().unwrap(),
        ..Default::default()
    };
    let movie = Movie::load(&out, &opts).unwrap();
    (out, movie)
}

/// The page draws each point of frames `k` and last within a pixel of the projection of the
/// trajectory's values; screenshots of the first and last frames match at fixed points and
/// differ where points moved (at least `moved_share` of those that moved 15 px).
fn check_page(page: &Path, movie: &Movie, k: usize, moved_share: f64) {
    let last = movie.frames.len() - 1;
    let p = probe(page, &format!("{k},last"));
    let (w, h) = (p["width"].as_f64().unwrap(), p["height"].as_f64().unwrap());
    let cam = movie.camera(w, h);
    let mut compared = 0;
    for f in [k, last] {
        let shown = &p["frames"][f.to_string()];
        assert_eq!(shown["t"].as_f64().unwrap(), movie.times[f]);
        for (i, s) in shown["points"].as_array().unwrap().iter().enumerate() {
            let Some(q) = movie.position(i, f) else {
                assert!(s.is_null());
                continue;
            };
            let want = cam.project(q);
            let got = [s[0].as_f64().unwrap(), s[1].as_f64().unwrap()];
            let off = (got[0] - want[0]).hypot(got[1] - want[1]);
            assert!(
                off <= 1.0,
                "point {i}, frame {f}: {got:?} vs {want:?} ({off:.3} px)"
            );
            compared += 1;
        }
    }
    assert!(compared > 0);
    // screenshots: the canvas is the window less the 48 px control bar
    let (first, end) = (screenshot(page, "0"), screenshot(page, "last"));
    assert_eq!((first.0, first.1), WINDOW);
    let cam = movie.camera(WINDOW.0 as f64, (WINDOW.1 - 48) as f64);
    let at = |img: &(u32, u32, Vec<[u8; 3]>), x: f64, y: f64| {
        let (x, y) = (x.round() as i64, y.round() as i64);
        let inside = x >= 0 && y >= 0 && x < img.0 as i64 && y < img.1 as i64 - 48;
        inside.then(|| img.2[(y * img.0 as i64 + x) as usize])
    };
    let mut marks = 0;
    for i in 0..movie.fixed.len() {
        let Some(q) = movie.fixed[i] else { continue };
        let c = cam.project(q);
        // inside the ground mark under a fixed point: its grey, the same in both pictures
        for (dx, dy) in [(0.0, 7.0), (-1.0, 8.0), (1.0, 8.0)] {
            let (a, b) = (
                at(&first, c[0] + dx, c[1] + dy),
                at(&end, c[0] + dx, c[1] + dy),
            );
            if let (Some(a), Some(b)) = (a, b) {
                assert_eq!(
                    a, b,
                    "fixed point {i} differs between the first and last frame"
                );
                // #777 (overlapping marks' antialiased edges may shade it a little)
                let grey = a.iter().all(|&v| (v as i32 - 119).abs() <= 4);
                assert!(
                    grey,
                    "fixed point {i}: no ground mark where projected ({a:?})"
                );
                marks += 1;
            }
        }
    }
    let has_fixed = movie.fixed.iter().any(Option::is_some);
    assert!(marks > 0 || !has_fixed, "no fixed point on the picture");
    let (mut moved, mut differ) = (0, 0);
    for i in 0..movie.fixed.len() {
        let (Some(a), Some(b)) = (movie.position(i, 0), movie.position(i, last)) else {
            continue;
        };
        let (pa, pb) = (cam.project(a), cam.project(b));
        if movie.fixed[i].is_some() || (pa[0] - pb[0]).hypot(pa[1] - pb[1]) < 15.0 {
            continue;
        }
        moved += 1;
        let block = |img| {
            (-2..=2)
                .flat_map(|dy| (-2..=2).map(move |dx| (dx as f64, dy as f64)))
                .map(|(dx, dy)| at(img, pa[0] + dx, pa[1] + dy))
                .collect::<Vec<_>>()
        };
        if block(&first) != block(&end) {
            differ += 1;
        }
    }
    assert!(moved > 0, "nothing moved 15 px");
    let share = differ as f64 / moved as f64;
    assert!(
        share >= moved_share,
        "{differ} of {moved} moved points look the same in the first and last frame"
    );
}

#[test]
fn a_2d_mechanism_in_the_browser() {
    let (out, movie) = animated("andrews.yaml", &[], "1000");
    assert!(movie.frames.len() > 20);
    check_page(&out.join("animation.html"), &movie, 7, 0.9);
}

#[test]
fn a_3d_rigid_body_in_the_browser() {
    let (out, movie) = animated("tennis_racket.yaml", &["--t-end", "2"], "20");
    assert_eq!(movie.dim, 3);
    check_page(&out.join("animation.html"), &movie, 5, 0.9);
}

#[test]
fn the_cloth_in_the_browser() {
    let args = [
        "--t-end",
        "0.5",
        "--columns",
        "positions",
        "--output-every",
        "10",
    ];
    let (out, movie) = animated("cloth.yaml", &args, "200");
    assert_eq!(movie.frames.len(), 51);
    assert_eq!(movie.moving.len(), 8100);
    check_page(&out.join("animation.html"), &movie, 20, 0.5);
}

#[test]
fn the_gif_has_the_frames_size_and_framing_of_the_movie() {
    let out = run_bundled("double_pendulum.yaml", "2");
    let o = run(
        &[
            "animate",
            out.to_str().unwrap(),
            "--gif",
            "--fps",
            "10",
            "--gif-size",
            "320x240",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let movie = Movie::load(
        &out,
        &AnimationOptions {
            fps: 10.0,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(movie.frames.len(), 21);
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts
        .read_info(std::fs::File::open(out.join("animation.gif")).unwrap())
        .unwrap();
    assert_eq!((dec.width(), dec.height()), (320, 240));
    let cam = movie.camera(320.0, 240.0);
    let mut frames = 0;
    while let Some(frame) = dec.read_next_frame().unwrap() {
        assert_eq!((frame.width, frame.height), (320, 240));
        if frames + 1 < movie.frames.len() {
            assert_eq!(frame.delay, 10, "a tenth of a second per frame at 10 fps");
        }
        // the ground mark under each fixed point, where the camera puts it
        for q in movie.fixed.iter().flatten() {
            let c = cam.project(*q);
            let (x, y) = (c[0].round() as usize, (c[1] + 7.0).round() as usize);
            let p = &frame.buffer[4 * (y * 320 + x)..][..3];
            assert!(
                p.iter().all(|&v| (v as i32 - 119).abs() <= 12),
                "frame {frames}: {p:?}"
            );
        }
        frames += 1;
    }
    assert_eq!(frames, movie.frames.len());
}

#[test]
fn the_equilibrium_search_in_the_browser() {
    // Mechanism0 from its horizontal start down to rest; `t` counts the iterations
    let out = tmp("browser-equilibrium");
    let args = [
        "equilibrium",
        &mech("mechanism0.yaml"),
        "--out",
        out.to_str().unwrap(),
    ];
    let o = run(&args, None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["animate", out.to_str().unwrap(), "--fps", "1"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let opts = AnimationOptions {
        fps: 1.0,
        ..Default::default()
    };
    let movie = Movie::load(&out, &opts).unwrap();
    assert!(movie.frames.len() > 3, "{} frames", movie.frames.len());
    check_page(&out.join("animation.html"), &movie, 1, 0.9);
}

/// Pixels of `img` near the colour `c` (each channel within 12).
fn count_colour(px: &[[u8; 3]], c: [u8; 3]) -> usize {
    let near = |p: &[u8; 3]| (0..3).all(|k| (p[k] as i32 - c[k] as i32).abs() <= 12);
    px.iter().filter(|p| near(p)).count()
}

#[test]
fn bodies_with_their_shapes_and_axes_in_the_browser_and_the_gif() {
    let (out, movie) = animated("puma560.yaml", &["--t-end", "1"], "10");
    assert_eq!(movie.framed.len(), 6);
    assert!(movie.framed.iter().all(|b| !b.wires.is_empty()));
    let page = out.join("animation.html");
    check_page(&page, &movie, 4, 0.5);
    // every wireframe vertex and axis end within a pixel of the Rust projection
    let last = movie.frames.len() - 1;
    let p = probe(&page, &format!("4,{last}&frames=1"));
    let cam = movie.camera(p["width"].as_f64().unwrap(), p["height"].as_f64().unwrap());
    let near = |got: &serde_json::Value, want: [f64; 2], what: &str| {
        let g = [got[0].as_f64().unwrap(), got[1].as_f64().unwrap()];
        let off = (g[0] - want[0]).hypot(g[1] - want[1]);
        assert!(off <= 1.0, "{what}: {g:?} vs {want:?} ({off:.3} px)");
    };
    let l = movie.axis_length;
    let mut compared = 0;
    for f in [4, last] {
        let shown = &p["frames"][f.to_string()];
        for b in 0..movie.framed.len() {
            let wires = movie.wires(b, f);
            assert_eq!(shown["wires"][b].as_array().unwrap().len(), wires.len());
            for (w, wire) in wires.iter().enumerate() {
                for (i, q) in wire.iter().enumerate() {
                    near(&shown["wires"][b][w][i], cam.project(*q), "wire");
                    compared += 1;
                }
            }
            let pose = movie.pose(b, f);
            for (a, tip) in [[0.0; 3], [l, 0.0, 0.0], [0.0, l, 0.0], [0.0, 0.0, l]]
                .iter()
                .enumerate()
            {
                near(&shown["axes"][b][a], cam.project(pose.place(*tip)), "axis");
            }
        }
    }
    assert!(compared > 500, "{compared} vertices");
    // the axes are off unless asked for: none in the probe, no blue on the picture
    let plain = probe(&page, "0");
    assert!(
        plain["frames"]["0"]["axes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a.is_null())
    );
    let shot = |hash: &str, name: &str| {
        let file = out.join(name);
        let (_, console) = browse(&page, hash, &format!("--screenshot={}", file.display()));
        assert!(console.is_empty(), "console output: {console:#?}");
        pixels(&file).2
    };
    let blue = [31, 119, 180];
    let (off, on) = (
        shot("frame=0", "off.png"),
        shot("frame=0&frames=1", "on.png"),
    );
    assert_eq!(count_colour(&off, blue), 0);
    assert!(
        count_colour(&on, blue) > 60,
        "{} blue pixels",
        count_colour(&on, blue)
    );
    // the GIF: the same shapes, and the axes with --frames
    let gif_blue = |extra: &[&str]| {
        let args = [
            &["animate", out.to_str().unwrap(), "--gif", "--fps", "10"][..],
            extra,
        ]
        .concat();
        let o = run(&args, None);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::RGBA);
        let file = std::fs::File::open(out.join("animation.gif")).unwrap();
        let mut dec = opts.read_info(file).unwrap();
        let frame = dec.read_next_frame().unwrap().unwrap();
        let px: Vec<[u8; 3]> = frame.buffer.chunks(4).map(|c| [c[0], c[1], c[2]]).collect();
        (count_colour(&px, blue), count_colour(&px, [140, 86, 75]))
    };
    let (plain_blue, plain_brown) = gif_blue(&[]);
    let (framed_blue, _) = gif_blue(&["--frames"]);
    assert_eq!(plain_blue, 0);
    assert!(
        plain_brown > 200,
        "{plain_brown} pixels of the shapes' brown"
    );
    assert!(framed_blue > 40, "{framed_blue} blue pixels");
}
