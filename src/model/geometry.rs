//! What a picture and the output need to know about a mechanism beyond its equations: named
//! points (fixed, free, derived) and how to compute them from the coordinates, the links drawn
//! between them, rigid bodies with their basic items, what each coordinate is (for Noether
//! momenta), and a file's `Animation` settings.
//!
//! ```
//! use lagrangian::model::geometry::{Affine, Geometry, NamedPoint, PointKind, PointMap};
//! // a free 2D point B on coordinates (0, 1) and a fixed pivot O
//! let mut g = Geometry::new(2);
//! g.points.push(NamedPoint::new("O", PointKind::Fixed, PointMap::Affine(Affine::fixed([0.0; 3]))));
//! g.points.push(NamedPoint::new("B", PointKind::Free, PointMap::Affine(Affine::free(&[0, 1]))));
//! let (x, v) = g.points[1].map.position_velocity(&[0.6, -0.8], &[2.0, 1.5], 0.0);
//! assert_eq!((x, v), ([0.6, -0.8, 0.0], [2.0, 1.5, 0.0]));
//! ```

use super::columns::{UserColumn, Vocabulary};
use super::elements::ChainPoint;
use crate::expr::{VExpr, Val};
use num_dual::Dual64;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

/// `P(q) = c + Σ_j a_j q_j` over global coordinates `j`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Affine {
    /// Constant part.
    pub c: [f64; 3],
    /// Coefficient vectors by global coordinate.
    pub a: BTreeMap<usize, [f64; 3]>,
}

impl Affine {
    /// A fixed point.
    pub fn fixed(c: [f64; 3]) -> Self {
        Affine {
            c,
            a: BTreeMap::new(),
        }
    }
    /// A free point with coordinates `idx` (`dim` of them).
    pub fn free(idx: &[usize]) -> Self {
        let mut a = BTreeMap::new();
        for (k, &i) in idx.iter().enumerate() {
            let mut e = [0.0; 3];
            e[k] = 1.0;
            a.insert(i, e);
        }
        Affine { c: [0.0; 3], a }
    }
    fn axpy(&mut self, s: f64, o: &Affine, rot: bool) {
        let f = |v: [f64; 3]| if rot { [-v[1], v[0], 0.0] } else { v };
        let oc = f(o.c);
        for k in 0..3 {
            self.c[k] += s * oc[k];
        }
        for (&j, v) in &o.a {
            let v = f(*v);
            let e = self.a.entry(j).or_insert([0.0; 3]);
            for k in 0..3 {
                e[k] += s * v[k];
            }
        }
    }
    /// Point `(ξ, η)` of a planar body with basic points `p0` at local `(0,0)` and `p1` at
    /// `(ℓ, 0)`: `P = P₀ + ξ u + η u⊥`, `u = (P₁ − P₀)/ℓ`.
    pub fn body_point(p0: &Affine, p1: &Affine, len: f64, xi: f64, eta: f64) -> Affine {
        let (a, b) = (xi / len, eta / len);
        let mut out = Affine::default();
        out.axpy(1.0 - a, p0, false);
        out.axpy(a, p1, false);
        out.axpy(b, p1, true);
        out.axpy(-b, p0, true);
        out
    }
    /// Position at coordinates `q` (global).
    pub fn eval(&self, q: &[f64]) -> [f64; 3] {
        let mut x = self.c;
        for (&j, v) in &self.a {
            for k in 0..3 {
                x[k] += v[k] * q[j];
            }
        }
        x
    }
}

/// How a point (or vector, or scalar) depends on the global coordinates.
#[derive(Clone, Debug)]
pub enum PointMap {
    /// `c + A q`: free and fixed points, points of planar bodies.
    Affine(Affine),
    /// Any expression (derived points of `Define`, points of 3D bodies).
    Expr(VExpr),
    /// Rust code (e.g. the bobs of a pendulum chain in angle coordinates).
    Custom(CustomPoint),
    /// A point carried by a chain of joints (a body's point in a tree in joint coordinates),
    /// evaluated in `O(depth)`; with the same point as an expression where files use it in
    /// their own expressions.
    Chain(Arc<ChainPoint>, Option<VExpr>),
}

impl PointMap {
    /// Position at coordinates `q` (global) and time `t`.
    pub fn eval(&self, q: &[f64], t: f64) -> [f64; 3] {
        match self {
            PointMap::Affine(a) => a.eval(q),
            PointMap::Expr(e) => match e.eval::<f64>(&|j| q[j], t) {
                Val::V(x) => x,
                Val::S(x) => [x, 0.0, 0.0],
            },
            PointMap::Custom(f) => f.0.position_velocity(q, &vec![0.0; q.len()], t).0,
            PointMap::Chain(c, _) => c.eval(q),
        }
    }
    /// The affine map, if it is one.
    pub fn as_affine(&self) -> Option<&Affine> {
        match self {
            PointMap::Affine(a) => Some(a),
            _ => None,
        }
    }
    /// As an expression (`None` for Rust code).
    pub fn to_vexpr(&self) -> Option<VExpr> {
        Some(match self {
            PointMap::Affine(a) => {
                let coef: Vec<(usize, [f64; 3])> = a.a.iter().map(|(j, v)| (*j, *v)).collect();
                VExpr::affine(a.c, &coef)
            }
            PointMap::Expr(e) => e.clone(),
            PointMap::Chain(_, e) => return e.clone(),
            PointMap::Custom(_) => return None,
        })
    }
    /// Global coordinates it depends on (empty for Rust code, whose dependence is not known).
    pub fn coords(&self) -> BTreeSet<usize> {
        match self {
            PointMap::Affine(a) => a.a.keys().copied().collect(),
            PointMap::Expr(e) => {
                let mut s = BTreeSet::new();
                e.coords(&mut s);
                s
            }
            PointMap::Custom(_) => BTreeSet::new(),
            PointMap::Chain(c, _) => c.coords(),
        }
    }
    /// Whether it never moves (no coordinates, no time; Rust code counts as moving).
    pub fn is_fixed(&self) -> bool {
        self.coords().is_empty()
            && match self {
                PointMap::Affine(_) => true,
                PointMap::Expr(e) => !e.uses_time(),
                PointMap::Custom(_) => false,
                PointMap::Chain(..) => true,
            }
    }
}

/// A point map written as Rust code: position and velocity `(x, ẋ)` from `(q, v, t)`.
pub trait PointFn: Send + Sync {
    /// Position and velocity.
    fn position_velocity(&self, q: &[f64], v: &[f64], t: f64) -> ([f64; 3], [f64; 3]);
}

impl<F: Fn(&[f64], &[f64], f64) -> ([f64; 3], [f64; 3]) + Send + Sync> PointFn for F {
    fn position_velocity(&self, q: &[f64], v: &[f64], t: f64) -> ([f64; 3], [f64; 3]) {
        self(q, v, t)
    }
}

impl PointMap {
    /// Position `x` and velocity `ẋ = ∂x/∂q v + ∂x/∂t` at `(q, v, t)`.
    pub fn position_velocity(&self, q: &[f64], v: &[f64], t: f64) -> ([f64; 3], [f64; 3]) {
        match self {
            PointMap::Affine(a) => {
                let mut xd = [0.0; 3];
                for (&j, c) in &a.a {
                    for k in 0..3 {
                        xd[k] += c[k] * v[j];
                    }
                }
                (a.eval(q), xd)
            }
            PointMap::Expr(e) => {
                let lift = |j: usize| Dual64::new(q[j], v[j]);
                match e.eval::<Dual64>(&lift, Dual64::new(t, 1.0)) {
                    Val::V(x) => (x.map(|c| c.re), x.map(|c| c.eps)),
                    Val::S(x) => ([x.re, 0.0, 0.0], [x.eps, 0.0, 0.0]),
                }
            }
            PointMap::Custom(f) => f.0.position_velocity(q, v, t),
            PointMap::Chain(c, _) => c.pos_tangent(&|j| q[j], &|j| v[j]),
        }
    }
}

/// A [`PointFn`] in a [`PointMap`].
#[derive(Clone)]
pub struct CustomPoint(pub Arc<dyn PointFn>);

impl fmt::Debug for CustomPoint {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("CustomPoint(..)")
    }
}

/// How a named point moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PointKind {
    /// Never moves (a support, a pivot).
    Fixed,
    /// Its components are coordinates.
    Free,
    /// Computed from the coordinates (a body point, an assignment, a pendulum bob).
    Derived,
    /// A unit vector of a body's frame (`Body.i`): columns of its own, not drawn.
    Direction,
}

/// A named point of the mechanism.
#[derive(Clone, Debug)]
pub struct NamedPoint {
    /// Name (unique).
    pub name: String,
    /// Fixed, free or derived.
    pub kind: PointKind,
    /// How to compute it.
    pub map: PointMap,
}

impl NamedPoint {
    /// Position at coordinates `q` and time `t`.
    pub fn position(&self, q: &[f64], t: f64) -> [f64; 3] {
        self.map.eval(q, t)
    }
    /// A named point.
    pub fn new(name: impl Into<String>, kind: PointKind, map: PointMap) -> Self {
        NamedPoint {
            name: name.into(),
            kind,
            map,
        }
    }
}

/// What a link between two points is, for pictures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    /// A rigid massless bar or distance constraint.
    Bar,
    /// A massive rigid bar.
    MassiveBar,
    /// A spring (possibly damped).
    Spring,
    /// A uniform massive spring.
    MassiveSpring,
    /// A rope or pendulum rod drawn as a line.
    Rope,
}

/// A link drawn between two named points.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Link {
    /// The element's name.
    pub name: String,
    /// What it is.
    pub kind: LinkKind,
    /// The two end points (names of [`Geometry::points`]).
    pub ends: [String; 2],
    /// For a bar: the distance constraint that holds its length, whose multiplier gives the
    /// force on the ends.
    pub constraint: Option<BarConstraint>,
}

/// A drive: its name and the constraint block `s(q) − f(t) = 0` it is made of.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Drive {
    /// The drive's name (`motor`).
    pub name: String,
    /// The constraint block's name (`drive motor`).
    pub block: String,
}

/// The distance constraint of a bar: a function `C = f(L)` of the distance `L` between its
/// ends, so the force on the end `a` is `−λ ∂C/∂x_a = λ f′(L) n` (`n` the unit vector from `a`
/// to the other end) and the tension is `λ f′(L)`.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct BarConstraint {
    /// The constraint block's name.
    pub block: String,
    /// Which `f`.
    pub form: DistanceForm,
}

/// How a distance constraint is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum DistanceForm {
    /// `C = ½(L² − ℓ²)`: `f′(L) = L`.
    HalfSquare,
    /// `C = L − ℓ`: `f′(L) = 1` (`λ` is the tension).
    Length,
}

/// A rigid body and the basic items that carry it.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Body {
    /// Name.
    pub name: String,
    /// Basic points and vectors (names), in order, then the body's derived points (a picture
    /// joins the points among them).
    pub items: Vec<String>,
    /// The body's frame as the names of its origin and of its unit vectors `i`, `j` (`k = i ×
    /// j`), whose trajectory columns are `<name>.x` …: a 3D body given by its inertia.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<[String; 3]>,
    /// Solids drawn with the body, in its frame (the picture only: the physics is the mass,
    /// centre of mass and inertia).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shapes: Vec<Shape>,
}

/// A simple solid drawn with a body, placed in the body's frame.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Shape {
    /// `box`, `cylinder` or `sphere`.
    pub kind: ShapeKind,
    /// A box's edge lengths along `i`, `j`, `k`; a cylinder's `[radius, length, 0]`; a
    /// sphere's `[radius, 0, 0]`.
    pub size: [f64; 3],
    /// The centre in the body frame.
    pub at: [f64; 3],
    /// A cylinder's axis: 0, 1 or 2 (`i`, `j`, `k`).
    pub axis: usize,
}

/// The kinds of [`Shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShapeKind {
    /// A rectangular box.
    Box,
    /// A circular cylinder.
    Cylinder,
    /// A sphere.
    Sphere,
}

/// What a coordinate is, for Noether momenta.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CoordKind {
    /// Component `axis` of a free point (moves under translations and rotations).
    Point(usize),
    /// Component `axis` of a free vector (moves under rotations only).
    Vector(usize),
    /// Any other coordinate (a scalar, an angle).
    Scalar,
}

/// Total linear and angular momentum `(P, L)` of a state, as Rust code.
pub trait MomentaFn: Send + Sync {
    /// `(P, L)` (angular momentum about the origin) at `(q, v, t)`.
    fn momenta(&self, q: &[f64], v: &[f64], t: f64) -> ([f64; 3], [f64; 3]);
}

impl<F: Fn(&[f64], &[f64], f64) -> ([f64; 3], [f64; 3]) + Send + Sync> MomentaFn for F {
    fn momenta(&self, q: &[f64], v: &[f64], t: f64) -> ([f64; 3], [f64; 3]) {
        self(q, v, t)
    }
}

/// How total momenta are computed.
#[derive(Clone, Default)]
pub enum Momenta {
    /// Not defined (no columns).
    #[default]
    None,
    /// Noether charges from `p = ∂L/∂v` and the [`Geometry::coordinate_kinds`]:
    /// `P = Σ_points p`, `L = Σ x × p` over points and vectors.
    Noether,
    /// Computed by Rust code (e.g. from Cartesian states of a chain in angle coordinates).
    Custom(Arc<dyn MomentaFn>),
    /// The Noether charges of the point and vector coordinates plus Rust code's (a tree of
    /// bodies in joint coordinates among points of a file).
    NoetherAnd(Arc<dyn MomentaFn>),
}

impl fmt::Debug for Momenta {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Momenta::None => "None",
            Momenta::Noether => "Noether",
            Momenta::Custom(_) => "Custom(..)",
            Momenta::NoetherAnd(_) => "NoetherAnd(..)",
        })
    }
}

/// A unit quaternion `(w, x, y, z)` among a model's coordinates: the orientation of a body
/// relative to its joint's parent frame (a spherical or free joint of a tree).
#[derive(Clone, Debug)]
pub struct QuaternionCoords {
    /// The body it turns.
    pub body: String,
    /// Its first coordinate `w` (then `x`, `y`, `z`).
    pub first: usize,
    /// The first of the joint's three position coordinates (a free joint), if any.
    pub position: Option<usize>,
}

/// The geometry of a mechanism: what the output and pictures show.
#[derive(Clone, Debug, Default)]
pub struct Geometry {
    /// Spatial dimension (2 or 3; 0 if the mechanism has no spatial picture).
    pub dimension: usize,
    /// Named points, in order of definition (fixed ones included).
    pub points: Vec<NamedPoint>,
    /// Links between points.
    pub links: Vec<Link>,
    /// Drives: constraints `s(q) − f(t) = 0` that prescribe the motion of a quantity `s`; the
    /// force or torque each delivers along `s` is `−λ` of its constraint.
    pub drives: Vec<Drive>,
    /// Rigid bodies.
    pub bodies: Vec<Body>,
    /// What each coordinate is (empty: all [`CoordKind::Scalar`]).
    pub coordinate_kinds: Vec<CoordKind>,
    /// The quaternions among the coordinates (spherical and free joints of a tree in joint
    /// coordinates): the turns they admit are candidate symmetries of a steady motion.
    pub quaternions: Vec<QuaternionCoords>,
    /// How total momenta are computed.
    pub momenta: Momenta,
    /// The file's `Animation` settings, as read (JSON).
    pub animation: Option<serde_json::Value>,
    /// Further named quantities of a state computed by Rust code (the output group
    /// `quantities`), e.g. each pendulum's chart, momentum and energy.
    pub quantities: Option<Quantities>,
    /// Columns the user defines (the output group `user`), in order.
    pub columns: Vec<UserColumn>,
    /// The names a mechanism file defines, for columns given as expressions after it is read
    /// (`Problem::column_expr`; `None` for mechanisms written in Rust).
    pub vocabulary: Option<Arc<Vocabulary>>,
}

/// Rust code that appends quantities of a state `(q, v, t)` to a row.
pub type QuantitiesFn = dyn Fn(&[f64], &[f64], f64, &mut Vec<f64>) + Send + Sync;

/// Named quantities of a state `(q, v, t)`, computed together by Rust code into `out` (one
/// value per name, in order).
#[derive(Clone)]
pub struct Quantities {
    /// Column names.
    pub names: Vec<String>,
    /// Appends the values at `(q, v, t)` to `out`.
    pub eval: Arc<QuantitiesFn>,
}

impl fmt::Debug for Quantities {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Quantities")
            .field("names", &self.names)
            .finish()
    }
}

impl Geometry {
    /// An empty geometry in `dimension` dimensions.
    pub fn new(dimension: usize) -> Self {
        Geometry {
            dimension,
            ..Geometry::default()
        }
    }
    /// The point named `name`.
    pub fn point(&self, name: &str) -> Option<&NamedPoint> {
        self.points.iter().find(|p| p.name == name)
    }
    /// The points that move (free and derived), in order.
    pub fn moving_points(&self) -> impl Iterator<Item = &NamedPoint> {
        self.points.iter().filter(|p| p.kind != PointKind::Fixed)
    }
}
