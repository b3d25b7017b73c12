//! An animation of a run: one self-contained HTML file (`animation.html`) that plays the motion
//! in any current browser, fully offline — the page's code and the data (the scene and the
//! decimated frames) are inline, nothing is fetched. 2D and 3D (orbit with the mouse, shift-drag
//! to pan, wheel to zoom; the initial camera from `Animation: Scene: view: [azimuth,
//! elevation]`); play/pause, speed, a time slider, the time shown; loops. Springs are drawn as
//! coils, bars as rods, fixed points as ground marks, bodies as their basic points joined;
//! optional trails of chosen points and colouring by speed, tension or a column. The page
//! exposes a test hook, `window.__lagrangian` (`frame()`, `show(f)`, `projected()`), and reads
//! its URL hash: `#frame=K` (or `last`) shows frame `K` paused, `#probe=0,5,last` writes the
//! projected points of those frames as JSON into `<pre id="probe">` (for headless tests).

use crate::error::PlotError;
pub use crate::view::movie::{AnimationOptions, frame_rows};
use crate::view::movie::{Colouring, Movie};
use std::path::{Path, PathBuf};

const TEMPLATE: &str = include_str!("animation.html");

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

/// `values` as a JSON list, each with `decimals` decimals.
fn push_list(out: &mut String, values: &[f64], decimals: usize) {
    out.push('[');
    for (j, &x) in values.iter().enumerate() {
        if j > 0 {
            out.push(',');
        }
        push_number(out, x, decimals);
    }
    out.push(']');
}

/// `rows` as a JSON list of lists, each number with `decimals` decimals.
fn rows_json(rows: &[Vec<f64>], decimals: usize) -> String {
    let mut out = String::from("[");
    for (k, r) in rows.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        push_list(&mut out, r, decimals);
    }
    out.push(']');
    out
}

/// The bodies drawn in their frames: `"posed"` (name and wireframe in the body frame),
/// `"poses"` (per frame, twelve numbers a body), `"axis"` (the axes' length) and
/// `"show_frames"`.
fn framed_json(movie: &Movie, decimals: usize) -> String {
    let posed: Vec<serde_json::Value> = (movie.framed.iter())
        .map(|b| serde_json::json!({"name": b.name, "wires": b.wires}))
        .collect();
    format!(
        "\"posed\":{},\"poses\":{},\"axis\":{},\"show_frames\":{}",
        serde_json::Value::from(posed),
        rows_json(&movie.poses, decimals.max(6)),
        movie.axis_length,
        movie.show_frames
    )
}

/// Decimals that keep `digits` significant digits of numbers up to `scale`.
fn decimals_for(scale: f64, digits: i64) -> usize {
    (digits - 1 - scale.max(1e-300).log10().floor() as i64).clamp(0, 17) as usize
}

/// The colouring as JSON for the page (4 significant digits of its range).
fn colour_json(c: &Colouring) -> String {
    let scale = c.range[0].abs().max(c.range[1].abs());
    let d = decimals_for(scale, 4);
    let values = rows_json(&c.values, d);
    format!(
        "{{\"key\":{},\"unit\":{},\"points\":{:?},\"links\":{:?},\"range\":{},\"values\":{}}}",
        serde_json::Value::from(c.key.as_str()),
        serde_json::Value::from(c.unit.as_str()),
        c.points,
        c.links,
        serde_json::to_string(&c.range).unwrap_or_default(),
        values
    )
}

/// Write `dir/animation.html` — and with `gif` also `dir/animation.gif` — for the run in `dir`
/// (its `scene.json` and trajectory); the paths written.
pub fn write(dir: &Path, opts: &AnimationOptions, gif: bool) -> Result<Vec<PathBuf>, PlotError> {
    write_noting(dir, opts, gif).map(|(files, _)| files)
}

/// [`write()`], and the movie's [`note`](Movie::note) when its rows are too far apart for a
/// smooth animation (the page shows it too).
pub fn write_noting(
    dir: &Path,
    opts: &AnimationOptions,
    gif: bool,
) -> Result<(Vec<PathBuf>, Option<String>), PlotError> {
    let movie = Movie::load(dir, opts)?;
    let html = dir.join("animation.html");
    write_html_of(&movie, &html)?;
    let mut files = vec![html];
    if gif {
        let out = dir.join("animation.gif");
        crate::view::gif::write_gif(&movie, opts.size, &out)?;
        files.push(out);
    }
    if let Some(t) = opts.frame_at {
        let out = dir.join("frame.png");
        crate::view::gif::write_frame_png(&movie, opts.size, t, &out)?;
        files.push(out);
    }
    Ok((files, movie.note))
}

/// Write `dir/animation.html` for the run in `dir` (its `scene.json` and trajectory); the path.
pub fn write_html(dir: &Path, opts: &AnimationOptions) -> Result<PathBuf, PlotError> {
    let movie = Movie::load(dir, opts)?;
    let out = dir.join("animation.html");
    write_html_of(&movie, &out)?;
    Ok(out)
}

/// Write the page of `movie` to `out` (through a temporary file: an earlier page stays whole
/// until the new one is complete).
pub fn write_html_of(movie: &Movie, out: &Path) -> Result<(), PlotError> {
    let html = html_of(movie);
    let part = out.with_extension("html.partial");
    let fail = |e: std::io::Error| PlotError::write(out, e);
    std::fs::write(&part, html).map_err(fail)?;
    std::fs::rename(&part, out).map_err(fail)
}

/// The offline page of `movie`: one HTML document with its data and player inline (what
/// [`write_html_of`] writes; what a notebook shows).
pub fn html_of(movie: &Movie) -> String {
    let scale = (movie.frames.iter().flatten())
        .map(|x| x.abs())
        .filter(|x| x.is_finite())
        .fold(1e-300f64, f64::max);
    let decimals = decimals_for(scale, 6);
    let frames = rows_json(&movie.frames, decimals);
    let colour = movie.colour.as_ref().map_or("null".into(), colour_json);
    let data = format!(
        "{{\"scene\":{},\"animation\":{},\"moving\":{},\"t\":{},\"trails\":{:?},\"colour\":{},\"note\":{},{},\"frames\":{}}}",
        serde_json::to_string(&movie.scene).unwrap_or_else(|_| "{}".into()),
        serde_json::to_string(&movie.scene.animation).unwrap_or_else(|_| "null".into()),
        serde_json::to_string(&movie.moving).unwrap_or_default(),
        serde_json::to_string(&movie.times).unwrap_or_default(),
        movie.trails,
        colour,
        serde_json::to_string(&movie.note).unwrap_or_else(|_| "null".into()),
        framed_json(movie, decimals),
        frames
    )
    // inside <script>: no "</script>" can close it early
    .replace('<', "\\u003c");
    let title = match movie.scene.title.as_str() {
        "" => "lagrangian",
        title => title,
    };
    let title = title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    TEMPLATE
        .replace("__TITLE__", &title)
        .replace("__DATA__", &data)
}
