//! A run as a movie: its scene, the frames sampled from its trajectory, optional trails and
//! colouring, and the camera that puts a point on the screen. Shared by the HTML page
//! ([`crate::view::animation`]) and the GIF ([`crate::view::gif`]), so both frame and
//! colour the motion alike.
//!
//! The projection (also what the page does, to the pixel): in 3D the point is turned by the
//! azimuth `a` about `z` and tilted by the elevation `e`,
//! `x' = cos a·x + sin a·y`, `y' = −sin e·(−sin a·x + cos a·y) + cos e·z`; in 2D `(x', y') =
//! (x, y)`. The box `[lo, hi]` of `(x', y')` over every point of every frame is centred in a
//! `w × h` picture at the scale `s = 0.9·min(w/(hi₀ − lo₀), h/(hi₁ − lo₁))`, `y` up.

use crate::error::PlotError;
use crate::output::scene::{LinkKind, Scene, ScenePoint};
use crate::view::plot::Table;
use crate::view::shapes::{Framed, Pose, framed, pose_in};
use serde_json::Value;
use std::path::Path;

/// How to sample a run into frames, and what to draw besides the mechanism.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationOptions {
    /// Frames per second of simulated time (at speed 1); default 30.
    pub fps: f64,
    /// At most this many frames (the interval grows to fit); default 1000.
    pub max_frames: usize,
    /// Points whose paths are drawn; `None`: the file's `Animation: trails`.
    pub trails: Option<Vec<String>>,
    /// Colour by `speed`, `tension` or a column's name; `None`: the file's `Animation: colour`.
    pub colour: Option<String>,
    /// GIF size in pixels; default 640 × 480.
    pub size: (u32, u32),
    /// Draw each body's axes (`i` red, `j` green, `k` blue); `None`: the file's `Animation:
    /// frames` (default no). The page has a switch for them.
    pub frames: Option<bool>,
    /// Also a still of the frame nearest this time (`frame.png`, of `size` pixels); default none.
    pub frame_at: Option<f64>,
}

impl Default for AnimationOptions {
    fn default() -> Self {
        AnimationOptions {
            fps: 30.0,
            max_frames: 1000,
            trails: None,
            colour: None,
            size: (640, 480),
            frames: None,
            frame_at: None,
        }
    }
}

/// The rows of `times` to show: one per `1/fps` of time (the first at or after each tick),
/// the first and the last always, at most `max_frames`.
///
/// ```
/// use lagrangian::view::animation::{frame_rows, AnimationOptions};
/// let t: Vec<f64> = (0..=100).map(|k| k as f64 * 0.01).collect();   // 1 s in steps of 0.01
/// let opts = AnimationOptions { fps: 10.0, ..Default::default() };
/// assert_eq!(frame_rows(&t, &opts), [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
/// let few = frame_rows(&t, &AnimationOptions { fps: 10.0, max_frames: 3, ..Default::default() });
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

pub use crate::output::table::run_table;

/// Values drawn as colours: one per coloured point and link, per frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Colouring {
    /// What is shown (`speed`, `tension`, or a column's name).
    pub key: String,
    /// Its unit (`m/s`, `N`, or empty).
    pub unit: String,
    /// Indices of the coloured points (into the scene's points).
    pub points: Vec<usize>,
    /// Indices of the coloured links (into the scene's links).
    pub links: Vec<usize>,
    /// Per frame: the points' values, then the links'.
    pub values: Vec<Vec<f64>>,
    /// Smallest and largest value over all frames.
    pub range: [f64; 2],
}

/// A run sampled into frames, with everything a picture of it needs.
#[derive(Clone, Debug)]
pub struct Movie {
    /// The scene (`scene.json`; a line's drawn in the plane: dimension 2).
    pub scene: Scene,
    /// 2 or 3.
    pub dim: usize,
    /// Per scene point: its fixed place, or `None` when it moves.
    pub fixed: Vec<Option<[f64; 3]>>,
    /// Per scene point: its slot in a frame (`k`: coordinates `dim·k ..`), when it moves.
    pub slot: Vec<Option<usize>>,
    /// Names of the moving points, by slot.
    pub moving: Vec<String>,
    /// The time of each frame.
    pub times: Vec<f64>,
    /// Each frame: the moving points' coordinates, `dim` per point.
    pub frames: Vec<Vec<f64>>,
    /// Points (scene indices) whose paths are drawn.
    pub trails: Vec<usize>,
    /// Colouring, when asked for.
    pub colour: Option<Colouring>,
    /// The links whose ends are points of the scene: index in the scene, ends, kind.
    pub links: Vec<(usize, [usize; 2], LinkKind)>,
    /// Each body's points (scene indices; its vectors left out), in order.
    pub bodies: Vec<Vec<usize>>,
    /// Why the animation will not be smooth, when the run's rows are farther apart than the
    /// frames and points jump across the picture between them (what to write instead).
    pub note: Option<String>,
    /// The bodies drawn in their frames (shapes, axes).
    pub framed: Vec<Framed>,
    /// Each frame: the poses of the framed bodies, twelve numbers each (origin, `i`, `j`, `k`).
    pub poses: Vec<Vec<f64>>,
    /// The length of a body's drawn axes: a tenth of the largest extent of the picture.
    pub axis_length: f64,
    /// Whether the axes are drawn (at first, on the page).
    pub show_frames: bool,
}

/// The note of a movie whose rows (at `times`) are too far apart for frames every
/// `1/fps`: rows sparser than 1.5 frame intervals and some point moving more than 5 % of the
/// picture between two frames.
fn coarseness(m: &Movie, times: &[f64], opts: &AnimationOptions) -> Option<String> {
    let (n, span) = (times.len(), times.last()? - times.first()?);
    if n < 2 || !(span > 0.0) {
        return None;
    }
    let rows = span / (n - 1) as f64;
    let frame = (1.0 / opts.fps.max(1e-9)).max(span / (opts.max_frames.max(2) - 1) as f64);
    if rows <= 1.5 * frame {
        return None;
    }
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    let mut jump = 0.0f64;
    for f in 0..m.frames.len() {
        for k in 0..m.fixed.len() {
            let Some(p) = m.position(k, f) else { continue };
            for i in 0..3 {
                if p[i].is_finite() {
                    (lo[i], hi[i]) = (lo[i].min(p[i]), hi[i].max(p[i]));
                }
            }
            let before = (f > 0 && m.slot[k].is_some()).then(|| m.position(k, f - 1));
            if let Some(Some(q)) = before {
                let d = (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>().sqrt();
                if d.is_finite() {
                    jump = jump.max(d);
                }
            }
        }
    }
    let extent = (0..3)
        .map(|i| hi[i] - lo[i])
        .filter(|x| x.is_finite())
        .fold(0.0, f64::max);
    let share = jump / extent;
    (extent > 0.0 && share > 0.05).then(|| {
        format!(
            "rows every {rows:.3} s are coarser than the frames (every {frame:.3} s): points \
             jump up to {:.0} % of the picture between frames; run with --output-dt {} \
             (Output: dt) for a smooth animation",
            100.0 * share,
            short(frame)
        )
    })
}

/// `x` with 3 significant digits, without trailing zeros (`0.0333`, `0.1`).
fn short(x: f64) -> String {
    let s = format!("{x:.3e}");
    s.parse::<f64>().map_or(s, |v| v.to_string())
}

fn read_scene(dir: &Path) -> Result<Scene, PlotError> {
    let path = dir.join("scene.json");
    if let Err(e) = std::fs::metadata(&path) {
        let why = format!(
            "cannot read {}: {e} (written by `lagrangian run`)",
            path.display()
        );
        return Err(PlotError::read(&path, why));
    }
    Scene::read(&path).map_err(|e| PlotError::read(&path, format!("{}: {e}", path.display())))
}

fn names_of(list: &Value) -> Vec<String> {
    match list {
        Value::String(s) => s.split(',').map(|s| s.trim().to_string()).collect(),
        Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    }
}

/// The column index that stands for a zero (the `y` of a point on a line).
const ZERO: usize = usize::MAX;

/// The points named in `names` (which must be moving points: `slot[k]` is some), by index.
fn trail_points(
    points: &[ScenePoint],
    slot: &[Option<usize>],
    names: &[String],
) -> Result<Vec<usize>, PlotError> {
    let mut trails = Vec::new();
    for n in names.iter().filter(|n| !n.is_empty()) {
        let why = match points.iter().position(|p| p.name == *n) {
            Some(k) if slot[k].is_some() => {
                trails.push(k);
                continue;
            }
            Some(_) => "a fixed point has no path",
            None => "no such point in the scene",
        };
        return Err(PlotError::missing(
            format!("trail {n}"),
            format!("trail {n}: {why}"),
        ));
    }
    Ok(trails)
}

/// The scene's links (index, the ends' points, kind) and its bodies' points, by point index.
#[allow(clippy::type_complexity)]
fn links_and_bodies(scene: &Scene) -> (Vec<(usize, [usize; 2], LinkKind)>, Vec<Vec<usize>>) {
    let index: std::collections::HashMap<&str, usize> = (scene.points.iter().enumerate())
        .map(|(k, p)| (p.name.as_str(), k))
        .collect();
    let find = |n: &String| index.get(n.as_str()).copied();
    let links = (scene.links.iter().enumerate())
        .filter_map(|(i, l)| Some((i, [find(&l.ends[0])?, find(&l.ends[1])?], l.kind)))
        .collect();
    let bodies = (scene.bodies.iter())
        .map(|b| b.items.iter().filter_map(find).collect())
        .collect();
    (links, bodies)
}

impl Movie {
    /// The run in `dir` (its `scene.json` and trajectory) sampled by `opts`.
    pub fn load(dir: &Path, opts: &AnimationOptions) -> Result<Movie, PlotError> {
        let scene = read_scene(dir)?;
        let table = run_table(dir)?;
        Movie::of(scene, &table, opts)
    }

    /// The movie of `scene` over the rows of `table`.
    pub fn of(
        mut scene: Scene,
        table: &Table,
        opts: &AnimationOptions,
    ) -> Result<Movie, PlotError> {
        let scene_dim = scene.dimension;
        if !(1..=3).contains(&scene_dim) {
            return Err(PlotError::missing(
                "dimension",
                "the scene has no spatial picture (dimension 1, 2 or 3)",
            ));
        }
        // a line is drawn in the plane, on the x axis
        let dim = scene_dim.max(2);
        scene.dimension = dim;
        let column = |name: &str| table.columns.iter().position(|n| n == name);
        let (mut fixed, mut slot, mut moving, mut cols) = (vec![], vec![], vec![], vec![]);
        for p in &scene.points {
            let place = p.position;
            let idx: Option<Vec<usize>> = p.columns.iter().map(|c| column(c)).collect();
            fixed.push(place);
            match idx.filter(|i| i.len() == scene_dim && place.is_none()) {
                Some(idx) => {
                    slot.push(Some(moving.len()));
                    moving.push(p.name.clone());
                    cols.extend(idx);
                    if scene_dim == 1 {
                        cols.push(ZERO);
                    }
                }
                None => slot.push(None),
            }
        }
        let times: Vec<f64> = table.rows.iter().map(|r| r[0]).collect();
        if times.is_empty() {
            return Err(PlotError::missing(
                "rows",
                "the trajectory has no rows: nothing to show",
            ));
        }
        let rows = frame_rows(&times, opts);
        let frames = rows
            .iter()
            .map(|&r| {
                let at = |c: usize| if c == ZERO { 0.0 } else { table.rows[r][c] };
                cols.iter().map(|&c| at(c)).collect()
            })
            .collect();
        let trail_names = match &opts.trails {
            Some(t) => t.clone(),
            None => names_of(scene.setting(&["trails"])),
        };
        let trails = trail_points(&scene.points, &slot, &trail_names)?;
        let key = opts.colour.clone().or_else(|| {
            let c = scene.setting(&["colour"]).as_str();
            c.or(scene.setting(&["color"]).as_str()).map(String::from)
        });
        let colour = match key {
            Some(key) if !key.is_empty() => Some(colouring(&scene, scene_dim, table, &rows, &key)?),
            _ => None,
        };
        let (links, bodies) = links_and_bodies(&scene);
        let framed = framed(&scene, &column);
        let poses = (rows.iter())
            .map(|&r| {
                (framed.iter())
                    .flat_map(|b| pose_in(b, &table.rows[r]))
                    .collect()
            })
            .collect();
        let show_frames =
            (opts.frames).unwrap_or(scene.setting(&["frames"]).as_bool() == Some(true));
        let mut movie = Movie {
            framed,
            poses,
            axis_length: 1.0,
            show_frames,
            links,
            bodies,
            times: rows.iter().map(|&r| times[r]).collect(),
            scene,
            dim,
            fixed,
            slot,
            moving,
            frames,
            trails,
            colour,
            note: None,
        };
        movie.note = coarseness(&movie, &times, opts);
        movie.axis_length = 0.1 * movie.extent();
        Ok(movie)
    }

    /// The pose of framed body `b` in frame `f`.
    pub fn pose(&self, b: usize, f: usize) -> Pose {
        Pose::of(&self.poses[f][12 * b..12 * b + 12])
    }

    /// The wireframe of framed body `b` in frame `f`, in the world.
    pub fn wires(&self, b: usize, f: usize) -> Vec<Vec<[f64; 3]>> {
        let pose = self.pose(b, f);
        (self.framed[b].wires.iter())
            .map(|w| w.iter().map(|&p| pose.place(p)).collect())
            .collect()
    }

    /// Every point drawn in frame `f` but the axes: the scene's points and the wireframes.
    fn drawn(&self, f: usize) -> impl Iterator<Item = [f64; 3]> + '_ {
        let points = (0..self.fixed.len()).filter_map(move |k| self.position(k, f));
        let wires =
            (0..self.framed.len()).flat_map(move |b| self.wires(b, f).into_iter().flatten());
        points.chain(wires)
    }

    /// The largest extent of the world box of everything drawn over every frame (1 when
    /// nothing is).
    fn extent(&self) -> f64 {
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for f in 0..self.frames.len() {
            for p in self.drawn(f).filter(|p| p.iter().all(|x| x.is_finite())) {
                for a in 0..3 {
                    (lo[a], hi[a]) = (lo[a].min(p[a]), hi[a].max(p[a]));
                }
            }
        }
        let e = (0..3).map(|a| hi[a] - lo[a]).fold(0.0, f64::max);
        if e > 0.0 { e } else { 1.0 }
    }

    /// Where scene point `k` is in frame `f` (`None`: no place known).
    pub fn position(&self, k: usize, f: usize) -> Option<[f64; 3]> {
        if let Some(s) = self.slot[k] {
            let row = &self.frames[f];
            let d = self.dim;
            return Some([
                row[d * s],
                row[d * s + 1],
                if d == 3 { row[d * s + 2] } else { 0.0 },
            ]);
        }
        self.fixed[k]
    }

    /// The initial camera: the file's `Animation: Scene: view` (default `[-60, 25]`) and the
    /// box of every point over every frame, for a `width × height` picture.
    pub fn camera(&self, width: f64, height: f64) -> Camera {
        let view = self.scene.setting(&["Scene", "view"]);
        let deg = |k: usize, d: f64| view[k].as_f64().unwrap_or(d).to_radians();
        let mut cam = Camera {
            dim: self.dim,
            azimuth: deg(0, -60.0),
            elevation: deg(1, 25.0),
            lo: [f64::INFINITY; 2],
            hi: [f64::NEG_INFINITY; 2],
            width,
            height,
        };
        for f in 0..self.frames.len() {
            for p in self.drawn(f) {
                let r = cam.rotate(p);
                for i in 0..2 {
                    // NaN never widens the box (as Math.min/max would poison it)
                    if r[i].is_finite() {
                        cam.lo[i] = cam.lo[i].min(r[i]);
                        cam.hi[i] = cam.hi[i].max(r[i]);
                    }
                }
            }
        }
        for i in 0..2 {
            if !(cam.hi[i] > cam.lo[i]) {
                let mid = if cam.lo[i].is_finite() {
                    cam.lo[i]
                } else {
                    0.0
                };
                cam.lo[i] = mid - 1.0;
                cam.hi[i] = mid + 1.0;
            }
        }
        cam
    }
}

/// A camera: azimuth and elevation (radians; 3D only), the box it frames, the picture size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// 2 or 3.
    pub dim: usize,
    /// Azimuth, radians.
    pub azimuth: f64,
    /// Elevation, radians.
    pub elevation: f64,
    /// Lower corner of the framed box (rotated coordinates).
    pub lo: [f64; 2],
    /// Upper corner.
    pub hi: [f64; 2],
    /// Picture width, pixels.
    pub width: f64,
    /// Picture height, pixels.
    pub height: f64,
}

impl Camera {
    /// `p` turned to the camera: `(x', y', depth)`.
    pub fn rotate(&self, p: [f64; 3]) -> [f64; 3] {
        if self.dim != 3 {
            return [p[0], p[1], 0.0];
        }
        let (sa, ca) = self.azimuth.sin_cos();
        let (se, ce) = self.elevation.sin_cos();
        let x = ca * p[0] + sa * p[1];
        let y = -sa * p[0] + ca * p[1];
        [x, -se * y + ce * p[2], ce * y + se * p[2]]
    }

    /// Pixels per unit length.
    pub fn scale(&self) -> f64 {
        0.9 * (self.width / (self.hi[0] - self.lo[0])).min(self.height / (self.hi[1] - self.lo[1]))
    }

    /// `p` on the picture, in pixels from the top left.
    ///
    /// ```
    /// use lagrangian::view::movie::Camera;
    /// let cam = Camera { dim: 2, azimuth: 0.0, elevation: 0.0, lo: [-1.0, -1.0], hi: [1.0, 1.0],
    ///                    width: 200.0, height: 100.0 };
    /// assert_eq!(cam.project([0.0, 0.0, 0.0]), [100.0, 50.0]);   // the centre
    /// assert_eq!(cam.project([1.0, 1.0, 0.0]), [145.0, 5.0]);    // 0.9 · 50 px per unit, y up
    /// ```
    pub fn project(&self, p: [f64; 3]) -> [f64; 2] {
        let r = self.rotate(p);
        let s = self.scale();
        let c = [
            (self.lo[0] + self.hi[0]) / 2.0,
            (self.lo[1] + self.hi[1]) / 2.0,
        ];
        [
            self.width / 2.0 + s * (r[0] - c[0]),
            self.height / 2.0 - s * (r[1] - c[1]),
        ]
    }
}

/// The colour of `x` on the scale `[lo, hi]`: blue–white–red when the range holds both
/// signs (white at zero), otherwise dark blue → green → yellow (viridis-like).
pub fn colour_of(x: f64, [lo, hi]: [f64; 2]) -> [u8; 3] {
    const SEQ: [[f64; 3]; 5] = [
        [68., 1., 84.],
        [59., 82., 139.],
        [33., 145., 140.],
        [94., 201., 98.],
        [253., 231., 37.],
    ];
    const DIV: [[f64; 3]; 3] = [[33., 102., 172.], [247., 247., 247.], [178., 24., 43.]];
    if !x.is_finite() {
        return [150, 150, 150];
    }
    let (stops, u): (&[[f64; 3]], f64) = if lo < 0.0 && hi > 0.0 {
        let m = (-lo).max(hi);
        (&DIV, 0.5 + 0.5 * x / m)
    } else if hi > lo {
        (&SEQ, (x - lo) / (hi - lo))
    } else {
        (&SEQ, 0.5)
    };
    let u = u.clamp(0.0, 1.0) * (stops.len() - 1) as f64;
    let i = (u.floor() as usize).min(stops.len() - 2);
    let w = u - i as f64;
    let mix = |c: usize| (stops[i][c] * (1.0 - w) + stops[i + 1][c] * w).round() as u8;
    [mix(0), mix(1), mix(2)]
}

/// The colouring by `key` of the frames at `rows`: `speed` (points by `|v|` from their
/// velocity columns, links by the mean of their ends), `tension` (bars by `tension:<bar>`), or
/// a column's name (the point `P` of `P.…`, or the link `L` of `…:L` / `…:L:…`). `dim` is the
/// mechanism's dimension (the scene of a line is drawn in the plane: its points have `vx` only).
fn colouring(
    scene: &Scene,
    dim: usize,
    table: &Table,
    rows: &[usize],
    key: &str,
) -> Result<Colouring, PlotError> {
    let column = |name: &str| table.columns.iter().position(|n| n == name);
    let (points, links) = (&scene.points, &scene.links);
    let pname = |k: usize| points[k].name.as_str();
    let lname = |k: usize| links[k].name.as_str();
    // each coloured element: the columns whose norm is its value (several: a mean of norms)
    let mut pts: Vec<(usize, Vec<Vec<usize>>)> = Vec::new();
    let mut lks: Vec<(usize, Vec<Vec<usize>>)> = Vec::new();
    let unit;
    match key {
        "speed" => {
            unit = "m/s";
            let vel = |k: usize| -> Option<Vec<usize>> {
                (["vx", "vy", "vz"][..dim].iter())
                    .map(|a| column(&format!("{}.{a}", pname(k))))
                    .collect()
            };
            for k in 0..points.len() {
                if let Some(c) = vel(k) {
                    pts.push((k, vec![c]));
                }
            }
            let index: std::collections::HashMap<&str, usize> =
                (0..points.len()).map(|k| (pname(k), k)).collect();
            for (i, l) in links.iter().enumerate() {
                let end = |j: usize| {
                    let k = *index.get(l.ends[j].as_str())?;
                    // a fixed end does not move: no columns, speed 0
                    if points[k].position.is_some() {
                        return Some(vec![]);
                    }
                    vel(k)
                };
                if let (Some(a), Some(b)) = (end(0), end(1)) {
                    lks.push((i, vec![a, b]));
                }
            }
            if pts.is_empty() {
                return Err(PlotError::missing(
                    "colour speed",
                    "colour by speed: the run has no velocity columns (P.vx …); \
                     run with the velocities group in Output: columns",
                ));
            }
        }
        "tension" => {
            unit = "N";
            for i in 0..links.len() {
                if let Some(c) = column(&format!("tension:{}", lname(i))) {
                    lks.push((i, vec![vec![c]]));
                }
            }
            if lks.is_empty() {
                return Err(PlotError::missing(
                    "colour tension",
                    "colour by tension: the run has no tension:<bar> columns \
                     (bars, and the reactions group in Output: columns)",
                ));
            }
        }
        name => {
            unit = "";
            let c = column(name).ok_or_else(|| {
                PlotError::missing(
                    format!("colour {name}"),
                    format!("colour {name}: not `speed`, `tension` or a column of the run"),
                )
            })?;
            let head = name.split(['.', ':']).next().unwrap_or("");
            let parts: Vec<&str> = name.split(':').collect();
            if let Some(k) = (0..points.len()).find(|&k| name.contains('.') && pname(k) == head) {
                pts.push((k, vec![vec![c]]));
            } else if let Some(i) =
                (0..links.len()).find(|&i| parts.len() > 1 && parts[1] == lname(i))
            {
                lks.push((i, vec![vec![c]]));
            } else {
                return Err(PlotError::missing(
                    format!("colour {name}"),
                    format!("colour {name}: the column belongs to no point or link of the scene"),
                ));
            }
        }
    }
    let norm = |r: usize, cs: &[usize]| cs.iter().map(|&c| table.rows[r][c].powi(2)).sum::<f64>();
    let value = |r: usize, parts: &[Vec<usize>]| {
        let n = parts.len() as f64;
        if parts.len() == 1 && parts[0].len() == 1 {
            return table.rows[r][parts[0][0]]; // one column: its signed value
        }
        parts.iter().map(|cs| norm(r, cs).sqrt()).sum::<f64>() / n
    };
    let values: Vec<Vec<f64>> = rows
        .iter()
        .map(|&r| {
            (pts.iter().chain(lks.iter()))
                .map(|(_, parts)| value(r, parts))
                .collect()
        })
        .collect();
    let finite = values.iter().flatten().filter(|x| x.is_finite());
    let lo = finite.clone().fold(f64::INFINITY, |a, &b| a.min(b));
    let hi = finite.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    Ok(Colouring {
        key: key.to_string(),
        unit: unit.to_string(),
        points: pts.iter().map(|p| p.0).collect(),
        links: lks.iter().map(|l| l.0).collect(),
        values,
        range: if lo <= hi { [lo, hi] } else { [0.0, 0.0] },
    })
}
