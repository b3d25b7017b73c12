//! The column schema of a run's trajectory: what each row holds, computed from a state and the
//! problem's geometry. One schema for every kind of mechanism.
//!
//! `t`; each moving point's position `A.x, A.y[, A.z]` (and velocity `A.vx …` when the geometry
//! asks for point velocities); the coordinates that are not point components, by name (vectors,
//! scalars, angles); total linear and angular momentum `Px … |P|, Lx … |L|` (2D: `Px, Py, |P|,
//! Lz`) when the geometry defines momenta; `kinetic`, `potential`, `total` (the energy function
//! `v·∂L/∂v − L`) and `max_constraint_residual`.

use crate::assembly::{self, Pattern};
use crate::model::geometry::{CoordKind, Momenta, PointKind};
use crate::model::{Model, StateView};
use crate::solve::Problem;
use std::sync::Arc;

const AXES: [&str; 3] = ["x", "y", "z"];

/// The columns of a problem's trajectory and the workspace to compute a row.
pub struct Columns {
    names: Vec<String>,
    dim: usize,
    points: Vec<usize>,
    velocities: bool,
    extra: Vec<usize>,
    momenta: bool,
    /// The pattern `p = M v` is assembled on (Noether momenta), built on first use for the model
    /// it belongs to (a restart may change the model).
    pattern: Option<(Arc<Model>, Pattern)>,
    p: Vec<f64>,
    c: Vec<f64>,
}

impl Columns {
    /// The schema of `problem`.
    pub fn new(problem: &Problem) -> Self {
        let g = &problem.geometry;
        let model = &problem.model;
        let dim = g.dimension.clamp(1, 3);
        let mut names = vec!["t".to_string()];
        let points: Vec<usize> = (0..g.points.len())
            .filter(|&i| g.points[i].kind != PointKind::Fixed)
            .collect();
        for &i in &points {
            let name = &g.points[i].name;
            for a in &AXES[..dim] {
                names.push(format!("{name}.{a}"));
            }
            if g.point_velocities {
                for a in &AXES[..dim] {
                    names.push(format!("{name}.v{a}"));
                }
            }
        }
        let kind = |i: usize| {
            g.coordinate_kinds
                .get(i)
                .copied()
                .unwrap_or(CoordKind::Scalar)
        };
        // coordinates that are not point components (vectors, scalars, angles), by name; a
        // geometry without points shows every coordinate
        let extra: Vec<usize> = (0..model.n_coords())
            .filter(|&i| points.is_empty() || !matches!(kind(i), CoordKind::Point(_)))
            .collect();
        names.extend(extra.iter().map(|&i| model.coordinate_names()[i].clone()));
        let momenta = !matches!(g.momenta, Momenta::None);
        if momenta {
            let cols: &[&str] = if dim == 2 {
                &["Px", "Py", "|P|", "Lz"]
            } else {
                &["Px", "Py", "Pz", "|P|", "Lx", "Ly", "Lz", "|L|"]
            };
            names.extend(cols.iter().map(|s| s.to_string()));
        }
        names
            .extend(["kinetic", "potential", "total", "max_constraint_residual"].map(String::from));
        Columns {
            names,
            dim,
            points,
            velocities: g.point_velocities,
            extra,
            momenta,
            pattern: None,
            p: vec![0.0; model.n_coords()],
            c: vec![0.0; model.n_constraints()],
        }
    }

    /// The column names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The row of state `s` into `row` (cleared first).
    pub fn row(&mut self, problem: &Problem, s: StateView<'_>, row: &mut Vec<f64>) {
        let (g, model, dim) = (&problem.geometry, &problem.model, self.dim);
        row.clear();
        row.push(s.t);
        for &i in &self.points {
            let (x, v) = g.points[i].map.position_velocity(s.q, s.v, s.t);
            row.extend_from_slice(&x[..dim]);
            if self.velocities {
                row.extend_from_slice(&v[..dim]);
            }
        }
        row.extend(self.extra.iter().map(|&i| s.q[i]));
        if self.momenta {
            let (lin, ang) = self.momenta(problem, s);
            let norm = |v: &[f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if dim == 2 {
                row.extend([lin[0], lin[1], norm(&lin), ang[2]]);
            } else {
                row.extend([lin[0], lin[1], lin[2], norm(&lin)]);
                row.extend([ang[0], ang[1], ang[2], norm(&ang)]);
            }
        }
        let [kinetic, potential, energy] = assembly::energies(model, s.t, s.q, s.v);
        assembly::constraint_values(model, s.t, s.q, &mut self.c);
        let max_c = self.c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        row.extend([kinetic, potential, energy, max_c]);
    }

    /// Total linear and angular momentum (about the origin) of state `s`.
    pub fn momenta(&mut self, problem: &Problem, s: StateView<'_>) -> ([f64; 3], [f64; 3]) {
        let (g, model) = (&problem.geometry, &problem.model);
        match &g.momenta {
            Momenta::Custom(f) => f.momenta(s.q, s.v, s.t),
            Momenta::Noether => {
                if !matches!(&self.pattern, Some((m, _)) if Arc::ptr_eq(m, model)) {
                    self.pattern = Some((model.clone(), Pattern::new(model)));
                    self.p.resize(model.n_coords(), 0.0);
                }
                if let Some((_, pattern)) = &self.pattern {
                    assembly::momenta(model, pattern, s.t, s.q, s.v, &mut self.p);
                }
                noether(&g.coordinate_kinds, g.dimension, s.q, &self.p)
            }
            Momenta::None => ([0.0; 3], [0.0; 3]),
        }
    }
}

/// Noether charges of translations and rotations: `P = Σ_points p`, `L = Σ x × p` over point and
/// vector coordinates (which come in `(x, y[, z])` runs).
fn noether(kinds: &[CoordKind], dim: usize, q: &[f64], p: &[f64]) -> ([f64; 3], [f64; 3]) {
    let (mut lin, mut ang) = ([0.0; 3], [0.0; 3]);
    for (i, kind) in kinds.iter().enumerate() {
        let (axis, point) = match kind {
            CoordKind::Point(a) => (*a, true),
            CoordKind::Vector(a) => (*a, false),
            CoordKind::Scalar => continue,
        };
        if point {
            lin[axis] += p[i];
        }
        if axis == 0 {
            let z = |v: &[f64]| if dim == 3 { v[i + 2] } else { 0.0 };
            let x = [q[i], q[i + 1], z(q)];
            let pp = [p[i], p[i + 1], z(p)];
            ang[0] += x[1] * pp[2] - x[2] * pp[1];
            ang[1] += x[2] * pp[0] - x[0] * pp[2];
            ang[2] += x[0] * pp[1] - x[1] * pp[0];
        }
    }
    (lin, ang)
}
