//! Bodies drawn in their frames: the wireframes of their shapes (boxes, cylinders, spheres
//! from the file's `shapes`) and their axes, posed in each frame of a movie by the body's
//! origin and unit vectors `i`, `j`, `k = i × j` from the trajectory.
//!
//! ```
//! use lagrangian::output::scene::{Shape, ShapeKind};
//! use lagrangian::view::shapes::{wires, Pose};
//! let cube = Shape { kind: ShapeKind::Box, size: [2.0, 2.0, 2.0], at: [0.0; 3], axis: 2 };
//! let w = wires(&cube);
//! assert_eq!(w.iter().map(|l| l.len() - 1).sum::<usize>(), 12); // twelve edges
//! // turned a quarter about z and moved up by 1: the corner (1, 1, 1) goes to (−1, 1, 2)
//! let pose = Pose { origin: [0.0, 0.0, 1.0], axes: [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]] };
//! assert_eq!(pose.place([1.0, 1.0, 1.0]), [-1.0, 1.0, 2.0]);
//! ```

use crate::output::scene::{Scene, Shape, ShapeKind};
use std::f64::consts::TAU;

/// Segments of a circle in a wireframe.
const ROUND: usize = 24;

/// A body's pose: its origin and axes `i`, `j`, `k` in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// The origin.
    pub origin: [f64; 3],
    /// The unit vectors `i`, `j`, `k`.
    pub axes: [[f64; 3]; 3],
}

impl Pose {
    /// The pose from a row of twelve numbers (origin, `i`, `j`, `k`).
    pub fn of(row: &[f64]) -> Pose {
        let v = |k: usize| [row[k], row[k + 1], row[k + 2]];
        Pose {
            origin: v(0),
            axes: [v(3), v(6), v(9)],
        }
    }

    /// Where the body's local point `p` is: `o + p₀ i + p₁ j + p₂ k`.
    pub fn place(&self, p: [f64; 3]) -> [f64; 3] {
        let [i, j, k] = self.axes;
        std::array::from_fn(|a| self.origin[a] + p[0] * i[a] + p[1] * j[a] + p[2] * k[a])
    }
}

/// A body drawn in its frame: the trajectory columns of its origin and of `i`, `j` (nine, in
/// that order) and its wireframe in the body frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Framed {
    /// The body's name.
    pub name: String,
    /// The columns of the origin, `i` and `j` (nine in space); of the origin and `i` (four in
    /// the plane, where `j` is `i` turned by +90° and `k` is out of the plane).
    pub columns: Vec<usize>,
    /// Polylines in the body frame.
    pub wires: Vec<Vec<[f64; 3]>>,
}

/// The bodies of a scene that have a frame whose columns are all in the table (`column`
/// finds a column's index by name).
pub fn framed(scene: &Scene, column: &dyn Fn(&str) -> Option<usize>) -> Vec<Framed> {
    let planar = scene.dimension == 2;
    let mut out = Vec::new();
    for b in &scene.bodies {
        let Some([o, i, j]) = &b.frame else {
            continue;
        };
        let names: Vec<String> = match planar {
            true => [&o, &i]
                .iter()
                .flat_map(|n| ["x", "y"].map(|a| format!("{n}.{a}")))
                .collect(),
            false => [&o, &i, &j]
                .iter()
                .flat_map(|n| ["x", "y", "z"].map(|a| format!("{n}.{a}")))
                .collect(),
        };
        let Some(columns) = names.iter().map(|n| column(n)).collect() else {
            continue;
        };
        out.push(Framed {
            name: b.name.clone(),
            columns,
            wires: b.shapes.iter().flat_map(wires).collect(),
        });
    }
    out
}

/// The pose of `body` in a table row (origin, `i`, `j`, `k`): `k = i × j` in space; in the
/// plane `j` is `i` turned by +90° and `k` the plane's normal.
pub fn pose_in(body: &Framed, row: &[f64]) -> [f64; 12] {
    let c = |k: usize| row[body.columns[k]];
    let (o, i, j) = match body.columns.len() {
        4 => ([c(0), c(1), 0.0], [c(2), c(3), 0.0], [-c(3), c(2), 0.0]),
        _ => ([c(0), c(1), c(2)], [c(3), c(4), c(5)], [c(6), c(7), c(8)]),
    };
    let k = [
        i[1] * j[2] - i[2] * j[1],
        i[2] * j[0] - i[0] * j[2],
        i[0] * j[1] - i[1] * j[0],
    ];
    [
        o[0], o[1], o[2], i[0], i[1], i[2], j[0], j[1], j[2], k[0], k[1], k[2],
    ]
}

/// The point at angle `a` on a circle of radius `r` about axis `axis` through `c`.
fn on_circle(c: [f64; 3], r: f64, axis: usize, a: f64) -> [f64; 3] {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut p = c;
    p[u] += r * a.cos();
    p[v] += r * a.sin();
    p
}

/// The closed circle of radius `r` about `axis` through `c`.
fn circle(c: [f64; 3], r: f64, axis: usize) -> Vec<[f64; 3]> {
    (0..=ROUND)
        .map(|s| on_circle(c, r, axis, TAU * s as f64 / ROUND as f64))
        .collect()
}

/// A shape's wireframe in the body frame: a box's twelve edges (two faces and four edges
/// between them), a cylinder's end circles and four lines along it, a sphere's three great
/// circles. A flat box (height 0: a rectangle in the plane) is its one face, a cylinder of
/// length 0 (a circle) its one circle.
pub fn wires(shape: &Shape) -> Vec<Vec<[f64; 3]>> {
    let c = shape.at;
    match shape.kind {
        ShapeKind::Box => {
            let h = shape.size.map(|x| x / 2.0);
            let corner =
                |sx: f64, sy: f64, sz: f64| [c[0] + sx * h[0], c[1] + sy * h[1], c[2] + sz * h[2]];
            let face = |sz: f64| {
                [
                    (-1.0, -1.0),
                    (1.0, -1.0),
                    (1.0, 1.0),
                    (-1.0, 1.0),
                    (-1.0, -1.0),
                ]
                .map(|(x, y)| corner(x, y, sz))
                .to_vec()
            };
            if shape.size[2] == 0.0 {
                return vec![face(0.0)];
            }
            let mut w = vec![face(-1.0), face(1.0)];
            for (x, y) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                w.push(vec![corner(x, y, -1.0), corner(x, y, 1.0)]);
            }
            w
        }
        ShapeKind::Cylinder => {
            let (r, half, a) = (shape.size[0], shape.size[1] / 2.0, shape.axis.min(2));
            let end = |s: f64| {
                let mut e = c;
                e[a] += s * half;
                e
            };
            if half == 0.0 {
                return vec![circle(c, r, a)];
            }
            let mut w = vec![circle(end(-1.0), r, a), circle(end(1.0), r, a)];
            for q in 0..4 {
                let angle = TAU * q as f64 / 4.0;
                w.push(vec![
                    on_circle(end(-1.0), r, a, angle),
                    on_circle(end(1.0), r, a, angle),
                ]);
            }
            w
        }
        ShapeKind::Sphere => (0..3).map(|a| circle(c, shape.size[0], a)).collect(),
    }
}
