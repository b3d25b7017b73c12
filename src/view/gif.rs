//! The motion as an animated GIF (for READMEs and papers): the frames and the camera of the
//! HTML page ([`Movie::camera`] at the GIF's size), drawn alike — springs as coils, bars as
//! rods, bodies as their basic points joined, fixed points as ground marks, trails and colours —
//! with the time in a corner. Each frame is shown for the simulated time to the next one
//! (speed 1; GIF delays are whole hundredths of a second, at least 2), and it loops.

use crate::error::PlotError;
use crate::output::scene::{LinkKind, ScenePointKind};
use crate::view::movie::{Camera, Movie, colour_of};
use crate::view::plot::ensure_font;
use plotters::prelude::*;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// Largest GIF side, pixels.
pub const MAX_SIDE: u32 = 4096;

const TRAIL: [RGBColor; 6] = [
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
    RGBColor(227, 119, 194),
    RGBColor(188, 189, 34),
    RGBColor(127, 127, 127),
];

/// Write `movie` as an animated GIF of `size` pixels to `out` (through a temporary file).
pub fn write_gif(movie: &Movie, size: (u32, u32), out: &Path) -> Result<(), PlotError> {
    check_size("GIF", size)?;
    ensure_font()?;
    through_partial(out, "gif.partial", |part| encode(movie, size, part))
}

/// `Err` unless each side of `size` is 16 to [`MAX_SIDE`] pixels.
fn check_size(what: &str, (w, h): (u32, u32)) -> Result<(), PlotError> {
    match (16..=MAX_SIDE).contains(&w) && (16..=MAX_SIDE).contains(&h) {
        true => Ok(()),
        false => Err(PlotError::InvalidOption {
            option: "size".into(),
            message: format!("{what} size {w}x{h}: each side must be 16 to {MAX_SIDE} pixels"),
        }),
    }
}

/// `write` into a partial file beside `out` (extension `partial`), then moved onto `out`: an
/// earlier `out` stays whole until the new one is.
fn through_partial(
    out: &Path,
    partial: &str,
    write: impl FnOnce(&Path) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    let part = out.with_extension(partial);
    let result = write(&part)
        .and_then(|()| std::fs::rename(&part, out).map_err(|e| PlotError::write(out, e)));
    if result.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    result
}

/// Write the frame of `movie` nearest the time `t` to `out` as a PNG of `size` pixels: the
/// GIF's drawing of that instant, trails up to it (a still for a README or a paper), through a
/// partial file as the GIF.
pub fn write_frame_png(
    movie: &Movie,
    size: (u32, u32),
    t: f64,
    out: &Path,
) -> Result<(), PlotError> {
    check_size("frame", size)?;
    let (w, h) = size;
    let Some(f) = nearest_frame(&movie.times, t) else {
        return Err(PlotError::InvalidOption {
            option: "frame-at".into(),
            message: format!("a frame at t = {t}: not a finite time, or a run without rows"),
        });
    };
    ensure_font()?;
    let cam = movie.camera(w as f64, h as f64);
    let mut buf = vec![0u8; 3 * w as usize * h as usize];
    draw_frame(movie, &cam, &Slots::of(movie), f, &mut buf, size)?;
    through_partial(out, "png.partial", |part| {
        crate::view::plot::encode_png(part, size, &buf)
    })
}

/// The frame of `times` nearest `t` (`None` for a `t` that is not finite, or no frames).
fn nearest_frame(times: &[f64], t: f64) -> Option<usize> {
    if !t.is_finite() {
        return None;
    }
    (0..times.len()).min_by(|&a, &b| (times[a] - t).abs().total_cmp(&(times[b] - t).abs()))
}

fn encode(movie: &Movie, (w, h): (u32, u32), path: &Path) -> Result<(), PlotError> {
    let fail = |e: &dyn std::fmt::Display| PlotError::write(path, e);
    let file = File::create(path).map_err(|e| fail(&e))?;
    let mut palette = Palette::new();
    let mut enc = gif::Encoder::new(BufWriter::new(file), w as u16, h as u16, &palette.rgb)
        .map_err(|e| fail(&e))?;
    enc.set_repeat(gif::Repeat::Infinite)
        .map_err(|e| fail(&e))?;
    let cam = movie.camera(w as f64, h as f64);
    let mut buf = vec![0u8; 3 * w as usize * h as usize];
    let mut indices = vec![0u8; w as usize * h as usize];
    let n = movie.frames.len();
    let slots = Slots::of(movie);
    for f in 0..n {
        draw_frame(movie, &cam, &slots, f, &mut buf, (w, h))?;
        for (i, px) in indices.iter_mut().zip(buf.chunks_exact(3)) {
            *i = palette.index([px[0], px[1], px[2]]);
        }
        let mut frame = gif::Frame {
            width: w as u16,
            height: h as u16,
            buffer: std::borrow::Cow::Borrowed(&indices),
            ..gif::Frame::default()
        };
        let dt = match f + 1 < n {
            true => movie.times[f + 1] - movie.times[f],
            false => 1.0, // a pause before it loops
        };
        frame.delay = (100.0 * dt).round().clamp(2.0, 6000.0) as u16;
        enc.write_frame(&frame).map_err(|e| fail(&e))?;
    }
    let mut file = enc.into_inner().map_err(|e| fail(&e))?;
    std::io::Write::flush(&mut file).map_err(|e| fail(&e))
}

/// One palette for every frame: the colours the drawing uses exactly, then a 6 × 6 × 6 colour
/// cube and greys; any other colour (antialiased edges, text, the colour scale) goes to its
/// nearest entry. (A per-frame NeuQuant palette cost 190 ms a frame on the cloth.)
struct Palette {
    rgb: Vec<u8>,
    known: std::collections::HashMap<[u8; 3], u8>,
}

impl Palette {
    fn new() -> Palette {
        let mut colours: Vec<[u8; 3]> = vec![
            [250, 250, 250],
            [0, 0, 0],
            [51, 51, 51],
            [119, 119, 119],
            [31, 119, 180],
            [214, 39, 40],
            [44, 160, 44],
            [140, 86, 75],
            [150, 150, 150],
        ];
        colours.extend(TRAIL.iter().map(|c| [c.0, c.1, c.2]));
        let level = |k: usize| (k * 51) as u8;
        for r in 0..6 {
            for g in 0..6 {
                for b in 0..6 {
                    colours.push([level(r), level(g), level(b)]);
                }
            }
        }
        let mut grey = 8u8;
        while colours.len() < 256 {
            colours.push([grey; 3]);
            grey = grey.saturating_add(10);
        }
        let known = colours
            .iter()
            .enumerate()
            .rev()
            .map(|(i, c)| (*c, i as u8))
            .collect();
        Palette {
            rgb: colours.iter().flatten().copied().collect(),
            known,
        }
    }

    /// The palette entry of `c`: exact when there is one, else the nearest.
    fn index(&mut self, c: [u8; 3]) -> u8 {
        if let Some(&i) = self.known.get(&c) {
            return i;
        }
        let d = |k: usize| -> i32 {
            (0..3)
                .map(|j| (self.rgb[3 * k + j] as i32 - c[j] as i32).pow(2))
                .sum()
        };
        let best = (0..256).min_by_key(|&k| d(k)).unwrap_or(0) as u8;
        self.known.insert(c, best);
        best
    }
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn px(p: [f64; 2]) -> (i32, i32) {
    let c = |x: f64| x.round().clamp(-1e6, 1e6) as i32;
    (c(p[0]), c(p[1]))
}

fn rgb(c: [u8; 3]) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

fn err(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(format!("drawing a GIF frame: {e}"))
}

/// The zig-zag of a spring from `a` to `b` (as the page draws it).
fn coil(a: [f64; 2], b: [f64; 2]) -> Vec<(i32, i32)> {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len = dx.hypot(dy);
    let (nx, ny) = match len > 0.0 {
        true => (-dy / len, dx / len),
        false => (0.0, 0.0),
    };
    let amp = (0.08 * len).min(6.0);
    let turns = 8;
    let mut out = vec![px(a)];
    for i in 1..2 * turns {
        let u = i as f64 / (2 * turns) as f64;
        let side = if i % 2 == 1 { amp } else { -amp };
        out.push(px([a[0] + u * dx + side * nx, a[1] + u * dy + side * ny]));
    }
    out.push(px(b));
    out
}

/// Each point's and drawn link's slot in a row of colour values (found once for all frames).
struct Slots {
    point: Vec<Option<usize>>,
    link: Vec<Option<usize>>,
}

impl Slots {
    fn of(movie: &Movie) -> Slots {
        let links = &movie.links;
        let mut s = Slots {
            point: vec![None; movie.fixed.len()],
            link: vec![None; links.len()],
        };
        if let Some(c) = &movie.colour {
            for (j, &k) in c.points.iter().enumerate() {
                s.point[k] = Some(j);
            }
            let drawn: std::collections::HashMap<usize, usize> =
                links.iter().enumerate().map(|(d, l)| (l.0, d)).collect();
            for (j, l) in c.links.iter().enumerate() {
                if let Some(&d) = drawn.get(l) {
                    s.link[d] = Some(c.points.len() + j);
                }
            }
        }
        s
    }
}

fn draw_frame(
    movie: &Movie,
    cam: &Camera,
    slots: &Slots,
    f: usize,
    buf: &mut [u8],
    size: (u32, u32),
) -> Result<(), PlotError> {
    let root = BitMapBackend::with_buffer(buf, size).into_drawing_area();
    root.fill(&RGBColor(250, 250, 250)).map_err(err)?;
    let at = |k: usize| movie.position(k, f).map(|p| cam.project(p));
    let links = &movie.links;
    let many = links.len() > 2000;
    for (j, &k) in movie.trails.iter().enumerate() {
        let path: Vec<(i32, i32)> = (0..=f)
            .filter_map(|g| movie.position(k, g).map(|p| px(cam.project(p))))
            .collect();
        let style = TRAIL[j % TRAIL.len()].stroke_width(2);
        root.draw(&PathElement::new(path, style)).map_err(err)?;
    }
    draw_bodies(movie, &root, &at)?;
    draw_framed(movie, cam, &root, f)?;
    let colour = movie.colour.as_ref();
    let value = |slot: usize| colour.map(|c| rgb(colour_of(c.values[f][slot], c.range)));
    for (d, (_, [a, b], kind)) in links.iter().enumerate() {
        let (Some(pa), Some(pb)) = (at(*a), at(*b)) else {
            continue;
        };
        let spring = matches!(kind, LinkKind::Spring | LinkKind::MassiveSpring);
        let c = match slots.link[d] {
            Some(s) => value(s).unwrap_or(BLACK),
            None if spring => RGBColor(31, 119, 180),
            None => RGBColor(51, 51, 51),
        };
        let width = match kind {
            LinkKind::MassiveBar => 5,
            LinkKind::Bar => 3,
            _ => 1,
        };
        let path = match spring && !many {
            true => coil(pa, pb),
            false => vec![px(pa), px(pb)],
        };
        root.draw(&PathElement::new(path, c.stroke_width(width)))
            .map_err(err)?;
    }
    for k in 0..movie.fixed.len() {
        let Some(c) = at(k) else { continue };
        let (x, y) = px(c);
        if movie.fixed[k].is_some() {
            let mark = vec![(x, y), (x - 7, y + 11), (x + 7, y + 11)];
            let grey = RGBColor(119, 119, 119);
            root.draw(&Polygon::new(mark, grey.filled())).map_err(err)?;
            continue;
        }
        let slot = slots.point[k];
        if many && slot.is_none() {
            continue;
        }
        let derived = movie.scene.points[k].kind == ScenePointKind::Derived;
        let c = match slot {
            Some(s) => value(s).unwrap_or(BLACK),
            None if derived => RGBColor(44, 160, 44),
            None => RGBColor(214, 39, 40),
        };
        let r = if many { 2 } else { 4 };
        root.draw(&Circle::new((x, y), r, c.filled()))
            .map_err(err)?;
    }
    draw_labels(movie, &root, f)?;
    root.present().map_err(err)
}

fn draw_bodies(
    movie: &Movie,
    root: &Area,
    at: &dyn Fn(usize) -> Option<[f64; 2]>,
) -> Result<(), PlotError> {
    for (k, body) in movie.bodies.iter().enumerate() {
        // a body with shapes is drawn by them (`draw_framed`)
        if movie
            .scene
            .bodies
            .get(k)
            .is_some_and(|b| !b.shapes.is_empty())
        {
            continue;
        }
        let mut ps: Vec<(i32, i32)> = (body.iter().copied()).filter_map(at).map(px).collect();
        if ps.len() < 2 {
            continue;
        }
        if ps.len() > 2 {
            ps.push(ps[0]);
        }
        let style = RGBColor(140, 86, 75).stroke_width(6);
        root.draw(&PathElement::new(ps, style)).map_err(err)?;
    }
    Ok(())
}

/// The bodies' shapes in frame `f` and, when asked for, their axes (`i` red, `j` green, `k`
/// blue), as the page draws them.
fn draw_framed(movie: &Movie, cam: &Camera, root: &Area, f: usize) -> Result<(), PlotError> {
    let brown = RGBColor(140, 86, 75);
    for b in 0..movie.framed.len() {
        for w in movie.wires(b, f) {
            let path: Vec<(i32, i32)> = w.iter().map(|&p| px(cam.project(p))).collect();
            root.draw(&PathElement::new(path, brown.stroke_width(1)))
                .map_err(err)?;
        }
        if !movie.show_frames {
            continue;
        }
        let pose = movie.pose(b, f);
        let o = px(cam.project(pose.origin));
        let colours = [
            RGBColor(214, 39, 40),
            RGBColor(44, 160, 44),
            RGBColor(31, 119, 180),
        ];
        for (a, c) in colours.into_iter().enumerate() {
            let mut tip = [0.0; 3];
            tip[a] = movie.axis_length;
            let e = px(cam.project(pose.place(tip)));
            root.draw(&PathElement::new(vec![o, e], c.stroke_width(2)))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// The time, the title and (when colouring) the colour scale.
fn draw_labels(movie: &Movie, root: &Area, f: usize) -> Result<(), PlotError> {
    let (_, h) = root.dim_in_pixel();
    let font = ("sans-serif", 16).into_font().color(&BLACK);
    let time = format!("t = {:.4} s", movie.times[f]);
    root.draw(&Text::new(time, (10, h as i32 - 24), font.clone()))
        .map_err(err)?;
    if !movie.scene.title.is_empty() {
        root.draw(&Text::new(movie.scene.title.clone(), (10, 8), font.clone()))
            .map_err(err)?;
    }
    if let Some(c) = &movie.colour {
        let unit = match c.unit.is_empty() {
            true => String::new(),
            false => format!(" [{}]", c.unit),
        };
        let label = format!("{}{unit}  {:.3} … {:.3}", c.key, c.range[0], c.range[1]);
        root.draw(&Text::new(label, (10, 30), font.clone()))
            .map_err(err)?;
        for x in 0..160 {
            let v = c.range[0] + (c.range[1] - c.range[0]) * x as f64 / 159.0;
            let col = rgb(colour_of(v, c.range));
            let r = Rectangle::new([(10 + x, 52), (11 + x, 62)], col.filled());
            root.draw(&r).map_err(err)?;
        }
    }
    Ok(())
}
