//! The names a file leaves for columns of the user's own ([`Vocabulary`]): its parameters,
//! points, vectors and scalars, the members of its elements (a spring's `force` and `length`, a
//! coordinate spring's `force` and `stretch`, a body's angular velocity `omega`) and its bodies'
//! frames; and the `Output.columns` entries `name: expression` added to the problem with them.

use super::{Builder, Point, file_vexpr, to_map};
use crate::error::{Error, OptionError};
use crate::expr::VExpr;
use crate::model::columns::Vocabulary;
use crate::problem::Problem;
use crate::spec::{KeyPath, SpecError};
use std::sync::Arc;

/// `k (L − ℓ) + c L̇`: the tension of a spring–damper of length `L` (positive when it pulls);
/// with `ℓ = 0` and `L` a stretch, a coordinate spring's force `k s + c ṡ`.
pub(super) fn tension(length: &VExpr, k: f64, l0: f64, c: f64) -> Result<VExpr, String> {
    let stretch = VExpr::sum(length.clone(), VExpr::constant(l0), true)?;
    let mut f = VExpr::product(VExpr::constant(k), stretch)?;
    if c != 0.0 {
        let damping = VExpr::product(VExpr::constant(c), length.rate()?)?;
        f = VExpr::sum(f, damping, false)?;
    }
    Ok(f)
}

/// `ω = ½ (i × i̇ + j × j̇ + k × k̇)`: the angular velocity of an orthonormal frame `(i, j, k)`
/// (each `ė = ω × e`, and `Σ e × (ω × e) = 3ω − ω`).
fn angular_velocity(axes: &[VExpr; 3]) -> Result<VExpr, String> {
    let mut sum: Option<VExpr> = None;
    for e in axes {
        let term = VExpr::cross(e.clone(), e.rate()?)?;
        sum = Some(match sum {
            Some(s) => VExpr::sum(s, term, false)?,
            None => term,
        });
    }
    VExpr::product(VExpr::constant(0.5), sum.expect("three axes"))
}

/// The vocabulary of the file read into `b`.
pub(super) fn vocabulary(b: &Builder) -> Result<Vocabulary, String> {
    let mut words = Vocabulary::new(b.dim);
    for n in &b.ctx.names {
        if let Some(x) = b.ctx.scope.get(n) {
            words.param(n.clone(), x);
        }
    }
    for (name, p) in b.points.iter().chain(&b.vectors) {
        words.item(name.clone(), file_vexpr(&to_map(p)));
    }
    for (name, s) in &b.scalars {
        match s {
            Point::General(e) => words.item(name.clone(), e.clone()),
            Point::Free(idx) => words.item(name.clone(), VExpr::coord(idx[0])),
            Point::Fixed(_) | Point::Derived(_) => {}
        }
    }
    for (name, e) in &b.members {
        words.item(name.clone(), e.clone());
    }
    for (name, f) in &b.frames {
        let axes = f.axes().clone();
        // a body many joints from the ground has axes too large to differentiate for a column
        // (and building their rates for every body of a long chain would cost its square)
        if axes
            .iter()
            .all(|a| a.size() <= crate::expr::vector::MAX_SIZE)
        {
            words.item(format!("{name}.omega"), angular_velocity(&axes)?);
        }
        words.frame(name.clone(), axes);
    }
    Ok(words)
}

/// Add the file's columns (`Output.columns` entries `name: expression`) to `problem`, with the
/// vocabulary of `b` kept for columns given later.
pub(super) fn add(
    b: &Builder,
    mut problem: Problem,
    columns: &[(String, String, KeyPath)],
) -> Result<Problem, SpecError> {
    let words = vocabulary(b).map_err(|e| b.ctx.err(&b.part_path, e))?;
    problem.geometry.vocabulary = Some(Arc::new(words));
    for (name, text, p) in columns {
        problem = problem.column_expr(name, text).map_err(|e| match e {
            Error::Options(OptionError::Invalid { message, .. }) => b.ctx.err(p, message),
            other => b.ctx.err(p, other.to_string()),
        })?;
    }
    Ok(problem)
}
