//! A body's `shapes`: boxes, cylinders and spheres drawn with it, placed in its frame — the
//! picture only (the physics is the body's mass, centre of mass and inertia).
//!
//! ```yaml
//! shapes:
//!   - { box: [0.5, 0.1, 0.1], at: [-0.25, 0, 0] }     # edge lengths along i, j, k
//!   - { cylinder: [0.06, 0.2], axis: z }               # radius, length; axis x, y or z
//!   - { sphere: 0.05, at: [0, 0, 0.1] }                # radius
//! ```
//!
//! In the plane (Dimension 2) a shape is a rectangle, `box: [length, width]`, or a circle,
//! `circle: radius` (or `sphere`), at `[x, y]`: a box of height 0 and a cylinder of length 0
//! about the body's `k`.

use super::*;
use crate::model::geometry::{Shape, ShapeKind};

const KINDS: [&str; 4] = ["box", "cylinder", "sphere", "circle"];

/// The shapes of a body (a list of them, or one).
pub(super) fn shapes(b: &Builder, v: &Value, p: &KeyPath) -> Result<Vec<Shape>, SpecError> {
    match v.as_sequence() {
        Some(list) => (list.iter().enumerate())
            .map(|(k, x)| shape(b, x, &sub(p, &k.to_string())))
            .collect(),
        None => Ok(vec![shape(b, v, p)?]),
    }
}

fn shape(b: &Builder, v: &Value, p: &KeyPath) -> Result<Shape, SpecError> {
    let m = b.ctx.map(v, p)?;
    let keys = b.ctx.keys(
        m,
        p,
        Some(&["box", "cylinder", "sphere", "circle", "at", "axis"]),
    )?;
    let kinds: Vec<&(String, &Value)> = keys
        .iter()
        .filter(|(k, _)| KINDS.contains(&k.as_str()))
        .collect();
    let [(kind, size)] = kinds[..] else {
        return Err(b.ctx.err(
            p,
            match b.dim {
                2 => "a shape in the plane is box: [length, width] or circle: radius",
                _ => {
                    "a shape is one of box: [length, width, height], cylinder: [radius, length] \
                     or sphere: radius"
                }
            },
        ));
    };
    let q = sub(p, kind);
    if b.dim == 2 {
        return planar_shape(b, m, kind, size, p);
    }
    if kind == "circle" {
        return Err(b
            .ctx
            .err(&q, "a circle is a shape in the plane; in space, a sphere"));
    }
    let positive = |v: &Value, q: &KeyPath| b.ctx.positive(v, q, &format!("a {kind}'s size"));
    let (kind, size) = match kind.as_str() {
        "box" => {
            let e = b.ctx.vector(size, &q, 3)?;
            for (k, x) in e.iter().enumerate() {
                if !(*x > 0.0) {
                    let q = sub(&q, &k.to_string());
                    return Err(b
                        .ctx
                        .err(&q, format!("a box's edges must be positive, got {x}")));
                }
            }
            (ShapeKind::Box, e)
        }
        "cylinder" => match size.as_sequence().map(Vec::as_slice) {
            Some([r, l]) => {
                let r = positive(r, &sub(&q, "0"))?;
                let l = positive(l, &sub(&q, "1"))?;
                (ShapeKind::Cylinder, [r, l, 0.0])
            }
            _ => return Err(b.ctx.err(&q, "a cylinder is [radius, length]")),
        },
        _ => (ShapeKind::Sphere, [positive(size, &q)?, 0.0, 0.0]),
    };
    let at = match m.get("at") {
        Some(x) => b.ctx.vector(x, &sub(p, "at"), 3)?,
        None => [0.0; 3],
    };
    let axis = match (m.get("axis"), kind) {
        (None, _) => 2,
        (Some(a), ShapeKind::Cylinder) => match a.as_str().map(str::trim) {
            Some("x" | "i") => 0,
            Some("y" | "j") => 1,
            Some("z" | "k") => 2,
            _ => {
                return Err(b.ctx.err(
                    &sub(p, "axis"),
                    "a cylinder's axis is x, y or z (the body's i, j or k)",
                ));
            }
        },
        (Some(_), _) => {
            return Err(b.ctx.err(&sub(p, "axis"), "only a cylinder has an axis"));
        }
    };
    Ok(Shape {
        kind,
        size,
        at,
        axis,
    })
}

/// A shape of a body in the plane: a rectangle or a circle at `[x, y]`.
fn planar_shape(
    b: &Builder,
    m: &Mapping,
    kind: &str,
    size: &Value,
    p: &KeyPath,
) -> Result<Shape, SpecError> {
    let q = sub(p, kind);
    let (kind, size) = match kind {
        "box" => {
            let e = b.ctx.vector(size, &q, 2)?;
            for (k, x) in e[..2].iter().enumerate() {
                if !(*x > 0.0) {
                    let q = sub(&q, &k.to_string());
                    return Err(b
                        .ctx
                        .err(&q, format!("a box's edges must be positive, got {x}")));
                }
            }
            (ShapeKind::Box, [e[0], e[1], 0.0])
        }
        "circle" | "sphere" => {
            let r = b.ctx.positive(size, &q, "a circle's radius")?;
            (ShapeKind::Cylinder, [r, 0.0, 0.0])
        }
        _ => {
            return Err(b.ctx.err(
                &q,
                "a shape in the plane is box: [length, width] or circle: radius",
            ));
        }
    };
    if m.get("axis").is_some() {
        return Err(b
            .ctx
            .err(&sub(p, "axis"), "a shape in the plane has no axis"));
    }
    let at = match m.get("at") {
        Some(x) => b.ctx.vector(x, &sub(p, "at"), 2)?,
        None => [0.0; 3],
    };
    Ok(Shape {
        kind,
        size,
        at: [at[0], at[1], 0.0],
        axis: 2,
    })
}
