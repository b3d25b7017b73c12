//! Plots of a run's table — `trajectory.csv`, `npy/` or `trajectory.parquet` (plotters; PNG and SVG): chosen columns against time, and a
//! default diagnostics sheet (energies, momenta, constraint residual, positions).
//!
//! Text needs a TrueType font: `LAGRANGIAN_FONT` if set, else DejaVu Sans or Liberation Sans from
//! the usual system places (Debian: package `fonts-dejavu-core`).

use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use crate::error::PlotError;

fn perr<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> PlotError + '_ {
    move |e| PlotError::Draw(format!("{what}: {e}"))
}

/// Draws with `draw` on an RGB bitmap of `size` and writes it to `path` as PNG with the png
/// crate (plotters' own PNG encoder would bring the image crate, with its other formats, into
/// every build for this one call).
fn write_png(
    path: &Path,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    let mut buf = vec![0u8; size.0 as usize * size.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, size).into_drawing_area();
        draw(&root)?;
        root.present().map_err(perr("png"))?;
    }
    encode_png(path, size, &buf)
}

/// The RGB bitmap `buf` of `size` written to `path` as PNG.
pub(crate) fn encode_png(path: &Path, size: (u32, u32), buf: &[u8]) -> Result<(), PlotError> {
    let file = std::fs::File::create(path).map_err(perr("png"))?;
    let mut png = png::Encoder::new(std::io::BufWriter::new(file), size.0, size.1);
    png.set_color(png::ColorType::Rgb);
    png.set_depth(png::BitDepth::Eight);
    // what plotters' encoder asked for: half the file of the png crate's defaults
    png.set_compression(png::Compression::Default);
    png.set_filter(png::FilterType::Sub);
    png.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut out = png.write_header().map_err(perr("png"))?;
    out.write_image_data(buf).map_err(perr("png"))?;
    out.finish().map_err(perr("png"))
}

static FONT: OnceLock<Result<(), String>> = OnceLock::new();

pub(crate) fn ensure_font() -> Result<(), PlotError> {
    FONT.get_or_init(|| {
        let mut candidates: Vec<PathBuf> = std::env::var_os("LAGRANGIAN_FONT").map(PathBuf::from).into_iter().collect();
        candidates.extend(
            [
                "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/TTF/DejaVuSans.ttf",
                "/usr/share/fonts/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
                "/Library/Fonts/Arial.ttf",
                "C:\\Windows\\Fonts\\arial.ttf",
            ]
            .map(PathBuf::from),
        );
        for c in candidates {
            if let Ok(bytes) = std::fs::read(&c) {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return Ok(());
                }
            }
        }
        Err("no TrueType font found for plot text: install fonts-dejavu-core or set LAGRANGIAN_FONT=/path/to/font.ttf".into())
    })
    .clone()
    .map_err(|m| PlotError::missing("font", m))
}

pub use crate::output::table::Table;

/// Axis label with units for a column name.
pub fn unit_label(names: &[&str]) -> String {
    // a pendulum's own figure: `KE1`, `p1.x`, `|L1|`, `chart1` (the N-pendulum quantities)
    let own = |n: &str, tag: &str| {
        let n = n.trim_start_matches('|');
        n.strip_prefix(tag)
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    };
    let kind = |n: &str| {
        if ["kinetic", "potential", "total"].contains(&n)
            || ["KE", "PE", "ME"].iter().any(|e| own(n, e))
        {
            "energy [J]"
        } else if own(n, "p") {
            "momentum [kg m/s]"
        } else if own(n, "L") {
            "angular momentum [kg m²/s]"
        } else if own(n, "chart") {
            "chart (1: z-polar, 0: x-polar)"
        } else if (n.starts_with("theta") || n.starts_with("phi")) && n.ends_with(".v") {
            "angular rate [rad/s]"
        } else if n == "max_constraint_residual" {
            "max |C|"
        } else if n == "|L|" || (n.starts_with('L') && n.len() == 2) {
            "angular momentum [kg m²/s]"
        } else if n == "|P|" || (n.starts_with('P') && n.len() == 2) {
            "momentum [kg m/s]"
        } else if n.ends_with(".vx") || n.ends_with(".vy") || n.ends_with(".vz") {
            "velocity [m/s]"
        } else if n.ends_with(".x") || n.ends_with(".y") || n.ends_with(".z") {
            "position [m]"
        } else if n.starts_with("theta") || n.starts_with("phi") {
            "angle [rad]"
        } else {
            "value"
        }
    };
    let k0 = names.first().map(|n| kind(n)).unwrap_or("value");
    if names.iter().all(|n| kind(n) == k0) {
        k0.to_string()
    } else {
        "value (mixed units)".to_string()
    }
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    table: &Table,
    cols: &[usize],
    title: &str,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let t: Vec<f64> = table.rows.iter().map(|r| r[0]).collect();
    let (t0, t1) = (t[0], *t.last().unwrap_or(&t[0]));
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &c in cols {
        for r in &table.rows {
            if r[c].is_finite() {
                lo = lo.min(r[c]);
                hi = hi.max(r[c]);
            }
        }
    }
    if !lo.is_finite() {
        lo = 0.0;
        hi = 1.0;
    }
    let (lo, hi) = padded(lo, hi);
    // values far from 1 (a residual at round-off, 10⁹ of a force) drawn in units of a power
    // of ten, which the axis names: the ticks of a range of 10⁻¹⁶ would not be drawn
    let size = hi.abs().max(lo.abs());
    let exp = match size > 0.0 && size.is_finite() && !(1e-2..1e5).contains(&size) {
        true => (size.log10().floor() as i32).clamp(-300, 300),
        false => 0,
    };
    let unit = 10f64.powi(exp);
    let (lo, hi) = (lo / unit, hi / unit);
    let t1 = if t1 > t0 { t1 } else { t0 + 1.0 };
    let names: Vec<&str> = cols.iter().map(|&c| table.columns[c].as_str()).collect();
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(t0..t1, lo..hi)
        .map_err(perr("chart"))?;
    let fmt = move |v: &f64| format!("{v:.3}");
    let label = match exp {
        0 => unit_label(&names),
        e => format!("{} ×1e{e}", unit_label(&names)),
    };
    chart
        .configure_mesh()
        .x_desc("t [s]")
        .y_desc(label)
        .y_label_formatter(&fmt)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(perr("axes"))?;
    for (i, &c) in cols.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(
                table.rows.iter().map(|r| (r[0], r[c] / unit)),
                color.stroke_width(1),
            ))
            .map_err(perr("series"))?
            .label(table.columns[c].clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(perr("legend"))?;
    Ok(())
}

fn resolve(table: &Table, columns: &[String]) -> Result<Vec<usize>, PlotError> {
    columns
        .iter()
        .map(|c| {
            table.col(c).ok_or_else(|| {
                PlotError::missing(
                    c.as_str(),
                    format!(
                        "no column '{c}' (available: {})",
                        table.columns[1..].join(", ")
                    ),
                )
            })
        })
        .collect()
}

/// `Err` naming `path` and the cause when it cannot be written (the drawing library would
/// report it as a debug dump after drawing).
fn writable(path: &Path) -> Result<(), PlotError> {
    std::fs::File::create(path)
        .map(|_| ())
        .map_err(|e| PlotError::write(path, e))
}

/// Plot `columns` of `table` against `t` into `stem.png` and `stem.svg`.
pub fn plot_columns(
    table: &Table,
    columns: &[String],
    title: &str,
    stem: &Path,
    size: (u32, u32),
) -> Result<Vec<PathBuf>, PlotError> {
    ensure_font()?;
    let cols = resolve(table, columns)?;
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    writable(&png)?;
    writable(&svg)?;
    write_png(&png, size, |root| {
        root.fill(&WHITE).map_err(perr("png"))?;
        draw_panel(root, table, &cols, title)
    })?;
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(perr("svg"))?;
        draw_panel(&root, table, &cols, title)?;
        root.present().map_err(perr("svg"))?;
    }
    Ok(vec![png, svg])
}

/// Columns of the point (a name starting with an upper-case letter, columns `X.x`, `X.y`, …)
/// whose coordinates move the most over the run (sum of the ranges), if there is one.
fn moving_point(table: &Table) -> Option<Vec<usize>> {
    let mut best: Option<(f64, Vec<usize>)> = None;
    for name in &table.columns {
        let Some(point) = name.strip_suffix(".x") else {
            continue;
        };
        if !point.starts_with(char::is_uppercase) {
            continue;
        }
        let cols: Vec<usize> = [".x", ".y", ".z"]
            .iter()
            .filter_map(|a| table.col(&format!("{point}{a}")))
            .collect();
        let range: f64 = cols
            .iter()
            .map(|&k| {
                let (lo, hi) = table
                    .rows
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| {
                        (l.min(r[k]), h.max(r[k]))
                    });
                if hi >= lo { hi - lo } else { 0.0 }
            })
            .sum();
        if best.as_ref().is_none_or(|(r, _)| range > *r) {
            best = Some((range, cols));
        }
    }
    best.map(|(_, cols)| cols)
}

/// The default sheet: energies, momenta (if the run has them), constraint residual, and the
/// coordinates of the point that moves the most, as a 2 × 2 grid into `stem.png` and
/// `stem.svg`.
pub fn diagnostics_sheet(
    table: &Table,
    title: &str,
    stem: &Path,
    size: (u32, u32),
) -> Result<Vec<PathBuf>, PlotError> {
    let pick =
        |names: &[&str]| -> Vec<usize> { names.iter().filter_map(|n| table.col(n)).collect() };
    let energy = pick(&["kinetic", "potential", "total"]);
    let mut momenta = pick(&["Lx", "Ly", "Lz", "|L|"]);
    if momenta.is_empty() {
        momenta = pick(&["Px", "Py", "Pz", "|P|"]);
    }
    let residual = pick(&["max_constraint_residual"]);
    let first = moving_point(table).unwrap_or_else(|| {
        (1..table.columns.len().min(4))
            .filter(|&c| !energy.contains(&c))
            .collect()
    });
    let panels = vec![
        (energy, "energies".to_string()),
        (momenta, "momenta".to_string()),
        (residual, "constraint residual".to_string()),
        (first, "coordinates".to_string()),
    ];
    panel_sheet(table, title, &panels, stem, size)
}

/// The run's own panels ([`PlotPanel`](crate::problem::PlotPanel): a title and columns each),
/// in a grid of two columns, into `stem.png` and `stem.svg`; a column the table lacks is an
/// error that lists the table's columns.
pub fn panels_sheet(
    table: &Table,
    title: &str,
    panels: &[crate::problem::PlotPanel],
    stem: &Path,
    size: (u32, u32),
) -> Result<Vec<PathBuf>, PlotError> {
    let resolved = panels
        .iter()
        .map(|p| Ok((resolve(table, &p.columns)?, p.title.clone())))
        .collect::<Result<Vec<_>, PlotError>>()?;
    panel_sheet(table, title, &resolved, stem, size)
}

/// Panels (columns, title) in a grid of at most two columns, as PNG and SVG.
fn panel_sheet(
    table: &Table,
    title: &str,
    panels: &[(Vec<usize>, String)],
    stem: &Path,
    size: (u32, u32),
) -> Result<Vec<PathBuf>, PlotError> {
    ensure_font()?;
    let cols = panels.len().clamp(1, 2);
    let rows = panels.len().div_ceil(2).max(1);
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    writable(&png)?;
    writable(&svg)?;
    write_png(&png, size, |root| {
        root.fill(&WHITE).map_err(perr("png"))?;
        let root = root
            .titled(title, ("sans-serif", 26))
            .map_err(perr("png"))?;
        for (area, (cols, name)) in root.split_evenly((rows, cols)).iter().zip(panels) {
            if !cols.is_empty() {
                draw_panel(area, table, cols, name)?;
            }
        }
        Ok(())
    })?;
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(perr("svg"))?;
        let root = root
            .titled(title, ("sans-serif", 26))
            .map_err(perr("svg"))?;
        for (area, (cols, name)) in root.split_evenly((rows, cols)).iter().zip(panels) {
            if !cols.is_empty() {
                draw_panel(area, table, cols, name)?;
            }
        }
        root.present().map_err(perr("svg"))?;
    }
    Ok(vec![png, svg])
}

/// `WIDTHxHEIGHT` in pixels, each in `100..=10000`.
///
/// ```
/// use lagrangian::view::plot::parse_size;
/// assert_eq!(parse_size("1200x800"), Some((1200, 800)));
/// assert_eq!(parse_size("5x5"), None);
/// ```
pub fn parse_size(size: &str) -> Option<(u32, u32)> {
    let (a, b) = size.split_once('x')?;
    let (w, h) = (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?);
    let ok = |x: u32| (100..=10000).contains(&x);
    (ok(w) && ok(h)).then_some((w, h))
}

/// The run's summary.json in `dir`: `None` when there is none (a table written elsewhere);
/// refused when it is there but is not a JSON object (a damaged run folder would otherwise
/// lose its title and its own panels without a word).
fn run_summary(dir: &Path) -> Result<Option<serde_json::Value>, PlotError> {
    let path = dir.join("summary.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(PlotError::Read {
                path: path.display().to_string(),
                message: format!("cannot read {}: {e}", path.display()),
            });
        }
    };
    let damaged = |what: String| PlotError::Read {
        path: path.display().to_string(),
        message: format!(
            "{}: {what} (written by `lagrangian run`; remove it to plot the table alone)",
            path.display()
        ),
    };
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v @ serde_json::Value::Object(_)) => Ok(Some(v)),
        Ok(_) => Err(damaged("not a JSON object".into())),
        Err(e) => Err(damaged(e.to_string())),
    }
}

/// The panels a run's summary asks for (its `outputs.plots`; none if absent).
fn run_panels(summary: Option<&serde_json::Value>) -> Vec<crate::problem::PlotPanel> {
    summary
        .and_then(|v| serde_json::from_value(v["outputs"]["plots"].clone()).ok())
        .unwrap_or_default()
}

/// `lagrangian plot DIR`: the run's own panels (the N-pendulum configuration's `system.plot`
/// toggles) or the diagnostics sheet of the run in `dir` (no `columns`) or the
/// chosen columns against `t`, as PNG and SVG at `out` (default `DIR/diagnostics` or
/// `DIR/plot`); the files written.
pub fn plot_run(
    dir: &Path,
    columns: &[String],
    out: Option<PathBuf>,
    size: (u32, u32),
) -> Result<Vec<PathBuf>, PlotError> {
    let table = crate::output::table::run_table(dir)?;
    let summary = run_summary(dir)?;
    let title = (summary.as_ref())
        .and_then(|v| v["title"].as_str().map(String::from))
        .unwrap_or_else(|| dir.display().to_string());
    let panels = run_panels(summary.as_ref());
    match columns.is_empty() {
        true if !panels.is_empty() => {
            let out = out.unwrap_or_else(|| dir.join("plot"));
            panels_sheet(&table, &title, &panels, &out, size)
        }
        true => {
            let out = out.unwrap_or_else(|| dir.join("diagnostics"));
            diagnostics_sheet(&table, &title, &out, size)
        }
        false => {
            let out = out.unwrap_or_else(|| dir.join("plot"));
            plot_columns(&table, columns, &title, &out, size)
        }
    }
}

/// The axis range for data in `[lo, hi]`: 5 % margins, and a width that stays finite (values
/// near ±1.8e308 would make it infinite, and the axis generation would never end): the range
/// is clipped to ±1e307.
fn padded(lo: f64, hi: f64) -> (f64, f64) {
    const BIG: f64 = 1e307;
    let (lo, hi) = (lo.clamp(-BIG, BIG), hi.clamp(-BIG, BIG));
    let pad = if hi > lo {
        0.05 * (hi - lo)
    } else {
        0.5 * lo.abs().max(1e-12)
    };
    // values that are never negative (a residual's size, a kinetic energy) keep 0 as the floor
    let floor = if lo >= 0.0 { 0.0 } else { -2.0 * BIG };
    ((lo - pad).max(floor), (hi + pad).min(2.0 * BIG))
}

#[cfg(test)]
mod range_tests {
    #[test]
    fn huge_ranges_stay_finite() {
        let (lo, hi) = super::padded(-1e308, 1e308);
        assert!(lo.is_finite() && hi.is_finite() && (hi - lo).is_finite());
        assert_eq!(super::padded(-1.0, 9.0), (-1.5, 9.5));
        assert_eq!(super::padded(0.0, 10.0), (0.0, 10.5));
    }
}
