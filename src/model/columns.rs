//! Columns a user defines: named quantities of a state `(q, v, t)` written with a run's results
//! (the output group `user`) — an expression of a mechanism file's names, a body's angular
//! velocity or orientation, or a Rust closure — and the [`Vocabulary`] a file leaves for
//! expressions given later (`--column`, Python's `columns=`).
//!
//! ```
//! use lagrangian::expr::VExpr;
//! use lagrangian::model::columns::Vocabulary;
//! // a point A = (q0, q1) in the plane: its distance from the origin and its speed
//! let mut words = Vocabulary::new(2);
//! words.item("A", VExpr::pack([VExpr::coord(0), VExpr::coord(1), VExpr::constant(0.0)]));
//! words.param("r0", 1.0);
//! let c = words.column("r", "norm(A) - r0").unwrap();
//! let s = words.column("speed", "norm(A')").unwrap();
//! let (q, v) = ([3.0, 4.0], [1.0, 0.0]);
//! assert_eq!(c.values(&q, &v, 0.0), [4.0]);
//! assert_eq!(s.values(&q, &v, 0.0), [1.0]);
//! assert_eq!(words.column("A", "A").unwrap().names, ["A.x", "A.y"]);
//! assert!(words.column("x", "B + 1").unwrap_err().contains("'B'"));
//! ```

use super::orientation::{EulerSequence, Rotation, quaternion};
use crate::expr::vector::VELOCITY;
use crate::expr::{Sym, VExpr};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Rust code that appends a column's values at `(q, v, t)` to a row.
pub type ColumnFn = dyn Fn(&[f64], &[f64], f64, &mut Vec<f64>) + Send + Sync;

/// How a column's values are kept continuous from row to row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continuity {
    /// As computed.
    Plain,
    /// Angles: each value moved by whole turns to within π of the row before (an `atan2`
    /// goes on past ±π, Euler angles over any number of turns).
    Angles,
    /// A unit quaternion `(w, x, y, z)`: its sign flipped where it would jump to `−q`.
    Quaternion,
}

/// A column a user defines: one name, one or more values per row.
#[derive(Clone)]
pub struct UserColumn {
    /// The column's own name.
    pub name: String,
    /// The names of its values in the table (`h`; `w.x, w.y, w.z`; `q.w, q.x, q.y, q.z`).
    pub names: Vec<String>,
    /// Appends the values at `(q, v, t)`.
    pub eval: Arc<ColumnFn>,
    /// How the values are kept continuous along a run.
    pub continuity: Continuity,
    /// The expression that defined it (`None`: Rust code), so that it can be read again
    /// with other parameter values.
    pub definition: Option<String>,
}

impl fmt::Debug for UserColumn {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("UserColumn")
            .field("names", &self.names)
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}

/// How a body's orientation is written: the quaternion or the angles of a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrientationForm {
    /// `(w, x, y, z)`, columns `<name>.w … <name>.z`, sign continuous along the run.
    Quaternion,
    /// Three angles, columns `<name>.1 <name>.2 <name>.3`, continuous over any number of turns.
    Euler(EulerSequence),
}

impl UserColumn {
    /// A scalar column `f(q, v, t)`.
    pub fn scalar(
        name: impl Into<String>,
        f: impl Fn(&[f64], &[f64], f64) -> f64 + Send + Sync + 'static,
    ) -> UserColumn {
        let name = name.into();
        UserColumn {
            names: vec![name.clone()],
            name,
            eval: Arc::new(move |q: &[f64], v: &[f64], t, out: &mut Vec<f64>| out.push(f(q, v, t))),
            continuity: Continuity::Plain,
            definition: None,
        }
    }

    /// The orientation of a rotation matrix `f(q, v, t)` (the body's axes as its columns,
    /// [`Rotation`]) as a quaternion or Euler angles.
    pub fn orientation(
        name: impl Into<String>,
        form: OrientationForm,
        f: impl Fn(&[f64], &[f64], f64) -> Rotation + Send + Sync + 'static,
    ) -> UserColumn {
        let name = name.into();
        let (suffixes, continuity): (&[&str], _) = match form {
            OrientationForm::Quaternion => (&["w", "x", "y", "z"], Continuity::Quaternion),
            OrientationForm::Euler(_) => (&["1", "2", "3"], Continuity::Angles),
        };
        let eval = move |q: &[f64], v: &[f64], t, out: &mut Vec<f64>| {
            let r = f(q, v, t);
            match form {
                OrientationForm::Quaternion => out.extend(quaternion(&r)),
                OrientationForm::Euler(s) => out.extend(s.angles(&r)),
            }
        };
        UserColumn {
            names: suffixes.iter().map(|s| format!("{name}.{s}")).collect(),
            name,
            eval: Arc::new(eval),
            continuity,
            definition: None,
        }
    }

    /// The values at `(q, v, t)`, as computed (before any continuity along a run).
    pub fn values(&self, q: &[f64], v: &[f64], t: f64) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.names.len());
        (self.eval)(q, v, t, &mut out);
        out.resize(self.names.len(), f64::NAN);
        out
    }
}

/// `(q, v)` as the leaves of an expression with velocities.
fn state<'a>(q: &'a [f64], v: &'a [f64]) -> impl Fn(usize) -> f64 + 'a {
    move |j| {
        if j >= VELOCITY {
            v.get(j - VELOCITY).copied().unwrap_or(f64::NAN)
        } else {
            q.get(j).copied().unwrap_or(f64::NAN)
        }
    }
}

/// The names a mechanism file defines, kept with its problem so that columns can be written
/// as expressions of them after it is read: parameters, points, vectors, scalars (coordinates,
/// `Define`s, joint coordinates), members such as a spring's force (`AB.force`) and a body's
/// angular velocity (`Arm.omega`), and the bodies whose orientation can be written
/// (`quaternion(Arm)`, `euler(Arm, ZYX)`). A name with a prime (`A'`) is the rate of its
/// expression.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    dim: usize,
    params: HashMap<String, f64>,
    items: HashMap<String, VExpr>,
    frames: HashMap<String, [VExpr; 3]>,
}

impl Vocabulary {
    /// An empty vocabulary of a mechanism in `dim` dimensions.
    pub fn new(dim: usize) -> Vocabulary {
        Vocabulary {
            dim,
            ..Vocabulary::default()
        }
    }
    /// A parameter.
    pub fn param(&mut self, name: impl Into<String>, value: f64) {
        self.params.insert(name.into(), value);
    }
    /// A point, vector or scalar and its expression in the coordinates (and time).
    pub fn item(&mut self, name: impl Into<String>, e: VExpr) {
        self.items.insert(name.into(), e);
    }
    /// A body whose axes (unit vectors in the outer frame, expressions) give its orientation.
    pub fn frame(&mut self, name: impl Into<String>, axes: [VExpr; 3]) {
        self.frames.insert(name.into(), axes);
    }
    /// Whether `name` is defined (a parameter, item or body).
    pub fn defines(&self, name: &str) -> bool {
        self.params.contains_key(name)
            || self.items.contains_key(name)
            || self.frames.contains_key(name)
    }

    fn lookup(&self, name: &str) -> Option<Sym> {
        if let Some(base) = name.strip_suffix('\'') {
            return self.items.get(base)?.rate().ok().map(Sym::Item);
        }
        if let Some(&x) = self.params.get(name) {
            return Some(Sym::Param(x));
        }
        self.items.get(name).cloned().map(Sym::Item)
    }

    /// The column `name` defined by `text`: an expression of time, the file's names and their
    /// rates (a scalar: one column `name`; a vector: `name.x, name.y(, name.z)`; an angle from
    /// `atan2` continuous over turns), `quaternion(B)` or `euler(B, SEQ)` of a body `B` (SEQ as
    /// in [`EulerSequence::parse`]).
    pub fn column(&self, name: &str, text: &str) -> Result<UserColumn, String> {
        let text = text.trim();
        if let Some(args) = call(text, "quaternion") {
            let axes = self.axes(args)?;
            return Ok(self.orientation(name, text, OrientationForm::Quaternion, axes));
        }
        if let Some(args) = call(text, "euler") {
            let Some((body, seq)) = args.split_once(',') else {
                return Err(format!(
                    "in '{text}': euler takes a body and a sequence, as euler(Arm, ZYX)"
                ));
            };
            let axes = self.axes(body)?;
            let form = OrientationForm::Euler(EulerSequence::parse(seq.trim())?);
            return Ok(self.orientation(name, text, form, axes));
        }
        let e = VExpr::parse(text, self.dim.max(1), &|n| self.lookup(n)).map_err(|e| {
            let shown = crate::expr::excerpt(text, e.offset);
            let second = e.message.contains("undefined name") && e.message.contains("''");
            match second {
                true => format!(
                    "in '{shown}': {e} (a column takes positions and velocities A'; \
                     accelerations are the group accelerations)"
                ),
                false => format!("in '{shown}': {e}"),
            }
        })?;
        let names = if e.is_vector() {
            ["x", "y", "z"][..self.dim.clamp(1, 3)]
                .iter()
                .map(|a| format!("{name}.{a}"))
                .collect()
        } else {
            vec![name.to_string()]
        };
        let (dim, vector) = (self.dim.clamp(1, 3), e.is_vector());
        let continuity = match e.is_angle() {
            true => Continuity::Angles,
            false => Continuity::Plain,
        };
        let eval = move |q: &[f64], v: &[f64], t, out: &mut Vec<f64>| {
            let at = state(q, v);
            if vector {
                out.extend_from_slice(&e.eval_vector::<f64>(&at, t)[..dim]);
            } else {
                out.push(e.eval_scalar::<f64>(&at, t));
            }
        };
        Ok(UserColumn {
            name: name.to_string(),
            names,
            eval: Arc::new(eval),
            continuity,
            definition: Some(text.to_string()),
        })
    }

    fn axes(&self, body: &str) -> Result<[VExpr; 3], String> {
        let body = body.trim();
        self.frames.get(body).cloned().ok_or_else(|| {
            let mut known: Vec<&str> = self.frames.keys().map(String::as_str).collect();
            known.sort_unstable();
            match known.is_empty() {
                true => format!(
                    "'{body}' is not a body: orientations are those of bodies given by inertia \
                     (Bodies), and this mechanism has none"
                ),
                false => format!("'{body}' is not a body (Bodies: {})", known.join(", ")),
            }
        })
    }

    fn orientation(
        &self,
        name: &str,
        text: &str,
        form: OrientationForm,
        axes: [VExpr; 3],
    ) -> UserColumn {
        let mut c = UserColumn::orientation(name, form, move |q, v, t| {
            let at = state(q, v);
            let cols = axes.clone().map(|a| a.eval_vector::<f64>(&at, t));
            Rotation::from_fn(|r, c| cols[c][r])
        });
        c.definition = Some(text.to_string());
        c
    }
}

/// The arguments of `f(...)` when `text` is a call of `f`.
fn call<'a>(text: &'a str, f: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(f)?.trim_start();
    rest.strip_prefix('(')?.strip_suffix(')')
}

/// Keep `row`'s values of a column continuous with the row before (`prev`, the same values
/// as written then; empty for the first row).
pub fn continue_from(continuity: Continuity, prev: &[f64], row: &mut [f64]) {
    if prev.len() != row.len() {
        return;
    }
    match continuity {
        Continuity::Plain => {}
        Continuity::Angles => {
            let turn = std::f64::consts::TAU;
            for (x, p) in row.iter_mut().zip(prev) {
                if x.is_finite() && p.is_finite() {
                    *x += turn * ((p - *x) / turn).round();
                }
            }
        }
        Continuity::Quaternion => {
            let dot: f64 = row.iter().zip(prev).map(|(a, b)| a * b).sum();
            if dot < 0.0 {
                row.iter_mut().for_each(|x| *x = -*x);
            }
        }
    }
}
