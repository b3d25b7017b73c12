//! An animation of a run: one self-contained HTML file (`animation.html`) that plays the motion
//! in any current browser, fully offline — the page's code and the data (the scene and the
//! decimated frames) are inline, nothing is fetched. 2D and 3D (orbit with the mouse, shift-drag
//! to pan, wheel to zoom; the initial camera from `Animation: Scene: view: [azimuth,
//! elevation]`); play/pause, speed, a time slider, the time shown; loops. Springs are drawn as
//! coils, bars as rods, fixed points as ground marks. The page exposes a test hook,
//! `window.__lagrangian` (`frame()`, `show(f)`, `projected()`).

use crate::error::PlotError;
use crate::output::npy::read_npy;
use crate::output::plot::Table;
use serde_json::Value;
use std::path::{Path, PathBuf};

const TEMPLATE: &str = include_str!("animation.html");

/// How to sample a run into frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnimationOptions {
    /// Frames per second of simulated time (at speed 1); default 30.
    pub fps: f64,
    /// At most this many frames (the interval grows to fit); default 1000.
    pub max_frames: usize,
}

impl Default for AnimationOptions {
    fn default() -> Self {
        AnimationOptions {
            fps: 30.0,
            max_frames: 1000,
        }
    }
}

/// The rows of `times` to show: one per `1/fps` of time (the first at or after each tick),
/// the first and the last always, at most `max_frames`.
///
/// ```
/// use lagrangian::output::animation::{frame_rows, AnimationOptions};
/// let t: Vec<f64> = (0..=100).map(|k| k as f64 * 0.01).collect();   // 1 s in steps of 0.01
/// let rows = frame_rows(&t, &AnimationOptions { fps: 10.0, max_frames: 1000 });
/// assert_eq!(rows, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
/// let few = frame_rows(&t, &AnimationOptions { fps: 10.0, max_frames: 3 });
/// assert!(few.len() <= 3 && few[0] == 0 && *few.last().unwrap() == 100);
/// ```
pub fn frame_rows(times: &[f64], opts: &AnimationOptions) -> Vec<usize> {
    let (Some(&t0), Some(&t1)) = (times.first(), times.last()) else {
        return Vec::new();
    };
    let max = opts.max_frames.max(2);
    let mut dt = 1.0 / opts.fps.max(1e-9);
    if (t1 - t0) / dt + 1.0 > max as f64 {
        dt = (t1 - t0) / (max - 1) as f64;
    }
    let mut rows = vec![0];
    let mut tick = 0i64;
    for (k, &t) in times.iter().enumerate().skip(1) {
        let this = ((t - t0) / dt + 1e-9).floor() as i64;
        if this > tick && rows.len() < max - 1 {
            rows.push(k);
            tick = this;
        }
    }
    if *rows.last().unwrap_or(&0) != times.len() - 1 {
        rows.push(times.len() - 1);
    }
    rows
}

/// The trajectory of the run in `dir`: from `trajectory.csv`, or from `npy/` (positions).
fn trajectory(dir: &Path) -> Result<Table, PlotError> {
    let csv = dir.join("trajectory.csv");
    if csv.exists() {
        return Table::read(&csv);
    }
    let npy = dir.join("npy");
    let bad =
        |e: std::io::Error| PlotError(format!("cannot read the run in {}: {e}", dir.display()));
    let names: Value = serde_json::from_str(
        &std::fs::read_to_string(npy.join("columns.json")).map_err(|e| {
            PlotError(format!(
                "{}: no trajectory.csv and no npy/columns.json ({e})",
                dir.display()
            ))
        })?,
    )
    .map_err(|e| PlotError(format!("npy/columns.json: {e}")))?;
    let (_, t) = read_npy(&npy.join("t.npy")).map_err(bad)?;
    let (shape, pos) = read_npy(&npy.join("positions.npy")).map_err(bad)?;
    let mut columns = vec!["t".to_string()];
    let listed = names["positions"].as_array().cloned().unwrap_or_default();
    columns.extend(listed.iter().filter_map(|v| v.as_str().map(String::from)));
    let width = shape.get(1).copied().unwrap_or(0);
    if columns.len() != width + 1 || shape.first() != Some(&t.len()) {
        return Err(PlotError(
            "npy/positions.npy does not match npy/columns.json".into(),
        ));
    }
    let rows = (0..t.len())
        .map(|r| {
            std::iter::once(t[r])
                .chain(pos[r * width..(r + 1) * width].iter().copied())
                .collect()
        })
        .collect();
    Ok(Table { columns, rows })
}

/// `x` with `decimals` decimals, trailing zeros cut, as JSON (`null` when not finite).
fn push_number(out: &mut String, x: f64, decimals: usize) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    let mut s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.truncate(s.trim_end_matches('0').trim_end_matches('.').len());
    }
    if s == "-0" {
        s = "0".into();
    }
    out.push_str(&s);
}

/// Write `dir/animation.html` for the run in `dir` (its `scene.json` and trajectory); the path.
pub fn write_html(dir: &Path, opts: &AnimationOptions) -> Result<PathBuf, PlotError> {
    let scene_path = dir.join("scene.json");
    let scene: Value =
        serde_json::from_str(&std::fs::read_to_string(&scene_path).map_err(|e| {
            PlotError(format!(
                "cannot read {}: {e} (written by `lagrangian run`)",
                scene_path.display()
            ))
        })?)
        .map_err(|e| PlotError(format!("{}: {e}", scene_path.display())))?;
    let table = trajectory(dir)?;
    let dim = scene["dimension"].as_u64().unwrap_or(0) as usize;
    if !(dim == 2 || dim == 3) {
        return Err(PlotError(
            "the scene has no spatial picture (dimension 2 or 3)".into(),
        ));
    }
    // the moving points whose columns the trajectory has
    let mut moving = Vec::new();
    let mut cols = Vec::new();
    for p in scene["points"].as_array().into_iter().flatten() {
        let idx: Option<Vec<usize>> = (p["columns"].as_array().into_iter().flatten())
            .map(|c| {
                table
                    .columns
                    .iter()
                    .position(|n| Some(n.as_str()) == c.as_str())
            })
            .collect();
        match (p["name"].as_str(), idx) {
            (Some(name), Some(idx)) if idx.len() == dim => {
                moving.push(name.to_string());
                cols.extend(idx);
            }
            _ => {}
        }
    }
    let times: Vec<f64> = table.rows.iter().map(|r| r[0]).collect();
    let rows = frame_rows(&times, opts);
    let scale = (rows.iter().flat_map(|&r| cols.iter().map(move |&c| (r, c))))
        .map(|(r, c)| table.rows[r][c].abs())
        .filter(|x| x.is_finite())
        .fold(1e-300f64, f64::max);
    let decimals = (5 - scale.log10().floor() as i64).clamp(0, 17) as usize;
    let mut frames = String::from("[");
    for (k, &r) in rows.iter().enumerate() {
        frames.push_str(if k == 0 { "[" } else { ",[" });
        for (j, &c) in cols.iter().enumerate() {
            if j > 0 {
                frames.push(',');
            }
            push_number(&mut frames, table.rows[r][c], decimals);
        }
        frames.push(']');
    }
    frames.push(']');
    let t: Vec<f64> = rows.iter().map(|&r| times[r]).collect();
    let data = format!(
        "{{\"scene\":{},\"animation\":{},\"moving\":{},\"t\":{},\"frames\":{}}}",
        scene,
        scene["animation"],
        serde_json::to_string(&moving).unwrap_or_default(),
        serde_json::to_string(&t).unwrap_or_default(),
        frames
    )
    // inside <script>: no "</script>" can close it early
    .replace('<', "\\u003c");
    let title = scene["title"].as_str().unwrap_or("lagrangian");
    let title = title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let html = TEMPLATE
        .replace("__TITLE__", &title)
        .replace("__DATA__", &data);
    let out = dir.join("animation.html");
    std::fs::write(&out, html)
        .map_err(|e| PlotError(format!("cannot write {}: {e}", out.display())))?;
    Ok(out)
}
