//! Frames in mechanism files: rigid transformations (`Pose`), rotations, the frames of joints
//! on their bodies, and inertia tensors, read from YAML for `Bodies` and `Joints`.

use super::*;
use crate::multibody::spatial::direction;
use nalgebra::{Matrix3, Vector3};

/// A rigid transformation: the rotation (columns: the frame's axes in the outer frame) and
/// the position of its origin.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pose {
    pub(super) r: Matrix3<f64>,
    pub(super) p: Vector3<f64>,
}

impl Pose {
    pub(super) fn identity() -> Pose {
        Pose {
            r: Matrix3::identity(),
            p: Vector3::zeros(),
        }
    }
    /// `self ∘ o`: the frame `o` given in `self`, in the outer frame.
    pub(super) fn then(&self, o: &Pose) -> Pose {
        Pose {
            r: self.r * o.r,
            p: self.p + self.r * o.p,
        }
    }
    pub(super) fn inverse(&self) -> Pose {
        let rt = self.r.transpose();
        Pose {
            r: rt,
            p: -(rt * self.p),
        }
    }
    pub(super) fn rot(axis: usize, angle: f64) -> Pose {
        let (s, c) = angle.sin_cos();
        let r = match axis {
            0 => Matrix3::new(1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c),
            1 => Matrix3::new(c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c),
            _ => Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0),
        };
        Pose {
            r,
            p: Vector3::zeros(),
        }
    }
    pub(super) fn shift(axis: usize, x: f64) -> Pose {
        let mut p = Vector3::zeros();
        p[axis] = x;
        Pose {
            r: Matrix3::identity(),
            p,
        }
    }
}

/// A rotation from YAML: a 3×3 matrix (rows; orthonormal, determinant +1), `{ z: […], x: […] }`
/// (the frame's z axis and a direction in its xz half-plane, orthonormalized) or
/// `{ axis: […], angle: θ }`.
pub(super) fn rotation(b: &Builder, v: &Value, p: &KeyPath) -> Result<Matrix3<f64>, SpecError> {
    if let Some(rows) = v.as_sequence() {
        if rows.len() != 3 {
            return Err(b.ctx.err(p, "a rotation matrix has three rows"));
        }
        let mut r = Matrix3::zeros();
        for (i, row) in rows.iter().enumerate() {
            let x = b.ctx.vector(row, p, 3)?;
            for k in 0..3 {
                r[(i, k)] = x[k];
            }
        }
        let err = (r.transpose() * r - Matrix3::identity()).abs().max();
        if !(err < 1e-9) || !(r.determinant() > 0.0) {
            return Err(b.ctx.err(
                p,
                format!(
                    "not a rotation: the rows must be orthonormal (|RᵀR − 1| = {err:.1e}) with \
                     determinant +1"
                ),
            ));
        }
        return Ok(r);
    }
    let m = b.ctx.map(v, p).map_err(|_| {
        b.ctx.err(
            p,
            "a rotation is a 3×3 matrix, { z: [..], x: [..] } or { axis: [..], angle: .. }",
        )
    })?;
    b.ctx.keys(m, p, Some(&["z", "x", "axis", "angle"]))?;
    if let Some(axis) = m.get("axis") {
        let ap = sub(p, "axis");
        let a = direction(b.ctx.vector(axis, &ap, 3)?)
            .map(Vector3::from)
            .ok_or_else(|| b.ctx.err(&ap, "the axis must be finite and not zero"))?;
        let angle = b
            .ctx
            .num(b.ctx.required(m, p, "angle")?, &sub(p, "angle"))?;
        let rot = nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_unchecked(a), angle);
        return Ok(*rot.matrix());
    }
    let (z, x) = frame_axes(b, m, p)?;
    Ok(Matrix3::from_columns(&[x, z.cross(&x), z]))
}

/// The unit z axis and the orthonormalized x axis of `{ z, x }` (defaults: z = e₃; x the
/// first of e₁, e₂ not along z).
fn frame_axes(
    b: &Builder,
    m: &Mapping,
    p: &KeyPath,
) -> Result<(Vector3<f64>, Vector3<f64>), SpecError> {
    let z = match m.get("z") {
        Some(v) => {
            let zp = sub(p, "z");
            direction(b.ctx.vector(v, &zp, 3)?)
                .map(Vector3::from)
                .ok_or_else(|| b.ctx.err(&zp, "the z axis must be finite and not zero"))?
        }
        None => Vector3::z(),
    };
    let from_x = |x: Vector3<f64>| {
        let x = Vector3::from(direction(x.into())?);
        let w = x - z * z.dot(&x);
        (w.norm() > 1e-9).then(|| w.normalize())
    };
    let x = match m.get("x") {
        Some(v) => {
            let xp = sub(p, "x");
            let x = Vector3::from(b.ctx.vector(v, &xp, 3)?);
            from_x(x).ok_or_else(|| {
                b.ctx
                    .err(&xp, "the x direction must not be zero or along the z axis")
            })?
        }
        None => from_x(Vector3::x())
            .or_else(|| from_x(Vector3::y()))
            .expect("e₁ or e₂ is off any axis"),
    };
    Ok((z, x))
}

/// A frame on a body (`{ at, z, x }` or `{ at, rotation }`), in the body's frame.
pub(super) fn marker_frame(b: &Builder, v: Option<&Value>, p: &KeyPath) -> Result<Pose, SpecError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Pose::identity());
    };
    let m = b.ctx.map(v, p)?;
    b.ctx.keys(m, p, Some(&["at", "z", "x", "rotation"]))?;
    let at = match m.get("at") {
        Some(a) => Vector3::from(b.ctx.vector(a, &sub(p, "at"), 3)?),
        None => Vector3::zeros(),
    };
    let r = match m.get("rotation") {
        Some(r) => {
            if m.contains_key("z") || m.contains_key("x") {
                return Err(b
                    .ctx
                    .err(p, "give the rotation or the axes z, x — not both"));
            }
            rotation(b, r, &sub(p, "rotation"))?
        }
        None => {
            let (z, x) = frame_axes(b, m, p)?;
            Matrix3::from_columns(&[x, z.cross(&x), z])
        }
    };
    Ok(Pose { r, p: at })
}

pub(super) fn inertia(b: &Builder, v: &Value, p: &KeyPath) -> Result<[[f64; 3]; 3], SpecError> {
    match v.as_sequence() {
        Some(rows) if rows.len() == 3 && rows.iter().all(|r| r.is_sequence()) => {
            let mut t = [[0.0; 3]; 3];
            for (r, row) in rows.iter().enumerate() {
                t[r] = b.ctx.vector(row, p, 3)?;
            }
            Ok(t)
        }
        Some(_) => {
            let d = b.ctx.vector(v, p, 3)?;
            Ok([[d[0], 0.0, 0.0], [0.0, d[1], 0.0], [0.0, 0.0, d[2]]])
        }
        None => Err(b.ctx.err(
            p,
            "the inertia is [Ixx, Iyy, Izz] or a symmetric 3×3 matrix",
        )),
    }
}
