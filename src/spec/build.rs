//! From the YAML document to a [`Model`] with initial guesses, pins and solver settings.

use super::elements::{
    localize, Affine, BarConstraint, Element, EquationConstraint, Frame, Kind, LocalPoint, PointMap,
};
use super::{kind, kind as kind_of, path, sub, Ctx, Path_, SpecError};
use crate::ad::{ConstraintAd, TermAd};
use crate::expr::{Sym, VExpr};
use crate::model::elements::{PointMassKernel, SpringKernel};
use crate::model::geometry::{
    Body as GeoBody, CoordKind, Geometry, Link, LinkKind, Momenta, NamedPoint, PointKind,
};
use crate::model::{ConstraintKernel, Model, ModelBuilder, TermKernel};
use crate::solve::{GenAlphaOptions, Method, Problem, Rk4Options};
use serde_yaml::{Mapping, Value};
use std::collections::HashMap;

/// Solver settings of a mechanism file (`SolverParams`).
#[derive(Clone, Debug, PartialEq)]
struct SolverSettings {
    steps: usize,
    rho_inf: f64,
    newton_tol: f64,
    output_every: usize,
    reuse_factorization: bool,
    rk4: bool,
}

/// A point, vector or scalar of the mechanism and how it depends on the coordinates.
#[derive(Clone, Debug)]
enum Point {
    Fixed([f64; 3]),
    Free(Vec<usize>),
    Derived(Affine),
    General(VExpr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ItemKind {
    Point,
    Vector,
    Scalar,
}

struct Builder<'a> {
    ctx: Ctx<'a>,
    dim: usize,
    gravity: [f64; 3],
    points: HashMap<String, Point>,
    vectors: HashMap<String, Point>,
    scalars: HashMap<String, Point>,
    order: Vec<String>,
    coord_names: Vec<String>,
    coord_kinds: Vec<CoordKind>,
    guess: Vec<Option<f64>>,
    terms: Vec<(Vec<usize>, Box<dyn TermKernel>)>,
    cons: Vec<(String, Vec<usize>, Box<dyn ConstraintKernel>)>,
    bodies: HashMap<String, Body>,
    /// Links and bodies for pictures.
    links: Vec<Link>,
    body_items: Vec<GeoBody>,
    notes: Vec<String>,
}

/// A rigid body, for torques: planar (two basic points, length) or 3D (three basic items).
#[derive(Clone, Debug)]
enum Body {
    Planar(String, String, f64),
    Spatial([PointMap; 3], Frame),
}

/// `f::<N>(args)` for the runtime size `n` among the listed static sizes (`None` otherwise).
macro_rules! by_size {
    ($n:expr, $f:ident $args:tt, [$($k:literal)*]) => {
        match $n {
            $($k => Some($f::<$k> $args),)*
            _ => None,
        }
    };
}

/// A point map of a mechanism file as an expression (files build no Rust-code maps).
fn file_vexpr(p: &PointMap) -> VExpr {
    p.to_vexpr()
        .expect("mechanism files build affine and expression points only")
}

fn to_map(p: &Point) -> PointMap {
    match p {
        Point::Fixed(c) => PointMap::Affine(Affine::fixed(*c)),
        Point::Free(idx) => PointMap::Affine(Affine::free(idx)),
        Point::Derived(a) => PointMap::Affine(a.clone()),
        Point::General(e) => PointMap::Expr(e.clone()),
    }
}

impl<'a> Builder<'a> {
    /// The map of a known point.
    /// Record a link between the two points named by `key` (already checked).
    fn link(&mut self, key: &str, kind: LinkKind) {
        if let Some([a, c]) = split_points(key).and_then(|v| <[String; 2]>::try_from(v).ok()) {
            self.links.push(Link {
                name: key.to_string(),
                kind,
                ends: [a, c],
            });
        }
    }

    fn pmap(&self, name: &str) -> PointMap {
        to_map(&self.points[name])
    }

    /// Whether `name` is taken by a parameter, point, vector or scalar.
    fn taken(&self, name: &str) -> Option<&'static str> {
        if self.points.contains_key(name) {
            Some("a point")
        } else if self.vectors.contains_key(name) {
            Some("a vector")
        } else if self.scalars.contains_key(name) {
            Some("a scalar")
        } else if self.ctx.names.iter().any(|n| n == name) {
            Some("a parameter")
        } else {
            None
        }
    }

    /// Check a new item's name: unused, and upper-case first for points, lower-case otherwise.
    fn check_name(&self, name: &str, kind: ItemKind, p: &Path_) -> Result<(), SpecError> {
        if let Some(what) = self.taken(name) {
            return Err(self.ctx.err(
                p,
                format!("'{name}' is defined twice (it is already {what})"),
            ));
        }
        let first = name.chars().next();
        let ok_rest = name
            .chars()
            .skip(1)
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\'');
        let ok = match kind {
            ItemKind::Point => first.is_some_and(|c| c.is_ascii_uppercase()),
            _ => first.is_some_and(|c| c.is_ascii_lowercase()),
        } && ok_rest
            && !["t", "pi"].contains(&name);
        if !ok {
            let rule = match kind {
                ItemKind::Point => "a point name starts with an upper-case letter",
                _ => "a vector or scalar name starts with a lower-case letter",
            };
            return Err(self.ctx.err(
                p,
                format!("'{name}' is not a valid name here ({rule}, then letters, digits, _ or ')"),
            ));
        }
        Ok(())
    }

    fn new_coords(&mut self, name: &str, n: usize, kind: ItemKind) -> Vec<usize> {
        let start = self.coord_names.len();
        let axes = ["x", "y", "z"];
        for k in 0..n {
            if kind == ItemKind::Scalar {
                self.coord_names.push(name.to_string());
                self.coord_kinds.push(CoordKind::Scalar);
            } else {
                self.coord_names.push(format!("{name}.{}", axes[k]));
                self.coord_kinds.push(if kind == ItemKind::Point {
                    CoordKind::Point(k)
                } else {
                    CoordKind::Vector(k)
                });
            }
            self.guess.push(None);
        }
        (start..start + n).collect()
    }

    fn new_free(&mut self, name: &str, p: &Path_) -> Result<(), SpecError> {
        if self.points.contains_key(name) {
            return Err(self.ctx.err(p, format!("point '{name}' is defined twice")));
        }
        let idx = self.new_coords(name, self.dim, ItemKind::Point);
        self.points.insert(name.to_string(), Point::Free(idx));
        self.order.push(name.to_string());
        Ok(())
    }

    fn point(&self, name: &str, p: &Path_) -> Result<PointMap, SpecError> {
        if self.points.contains_key(name) {
            Ok(self.pmap(name))
        } else {
            Err(self.ctx.err(
                p,
                format!("unknown point '{name}' (points are defined by Fixed, Points, Define, Particles, Rigids, Chains and Grids)"),
            ))
        }
    }

    /// A point or vector by name (basic items of 3D bodies).
    fn item(&self, name: &str, p: &Path_) -> Result<(PointMap, bool), SpecError> {
        if let Some(pt) = self.points.get(name) {
            Ok((to_map(pt), true))
        } else if let Some(v) = self.vectors.get(name) {
            Ok((to_map(v), false))
        } else {
            Err(self.ctx.err(
                p,
                format!("unknown point or vector '{name}' (vectors are defined by FixedVectors, Vectors and Define)"),
            ))
        }
    }

    /// What a name in a `Define`/`Equations` expression stands for.
    fn symbol(&self, name: &str) -> Option<Sym> {
        if let Some(x) = self.ctx.scope.get(name) {
            return Some(Sym::Param(x));
        }
        let e = |p: &Point| file_vexpr(&to_map(p));
        if let Some(pt) = self.points.get(name) {
            return Some(Sym::Item(e(pt)));
        }
        if let Some(v) = self.vectors.get(name) {
            return Some(Sym::Item(e(v)));
        }
        // scalars are free (one coordinate) or assigned
        self.scalars.get(name).map(|s| {
            Sym::Item(match s {
                Point::General(x) => x.clone(),
                Point::Free(idx) => VExpr::coord(idx[0]),
                Point::Fixed(_) | Point::Derived(_) => VExpr::constant(f64::NAN), // never built
            })
        })
    }

    /// Parse a `Define`/`Equations` expression; it is evaluated at the guesses later.
    fn vexpr(&self, v: &Value, p: &Path_) -> Result<VExpr, SpecError> {
        let text = match v {
            Value::Number(n) => return Ok(VExpr::constant(n.as_f64().unwrap_or(f64::NAN))),
            Value::String(s) => s.clone(),
            other => {
                return Err(self
                    .ctx
                    .err(p, format!("expected an expression, found {}", kind(other))))
            }
        };
        VExpr::parse(&text, self.dim, &|n| self.symbol(n))
            .map_err(|e| self.ctx.err(p, format!("in '{text}': {e}")))
    }

    /// Add an element on the given points; free-point particles and springs use the hand kernels.
    fn element(&mut self, pts: &[&PointMap], kind: Kind, p: &Path_) -> Result<(), SpecError> {
        let (idx, local) = localize(pts);
        if idx.is_empty() {
            return Ok(()); // only fixed points: no effect on the motion
        }
        let dim = self.dim;
        let plain = |a: &PointMap| {
            a.as_affine()
                .is_some_and(|a| a.c == [0.0; 3] && a.a.len() == dim)
        };
        let fixed = |a: &PointMap| a.as_affine().is_some_and(|a| a.a.is_empty());
        // fast paths with hand-derived kernels
        match (&kind, pts.len()) {
            (Kind::Particle { m }, 1) if plain(pts[0]) => {
                let g = self.gravity;
                let kern: Box<dyn TermKernel> = if self.dim == 2 {
                    Box::new(PointMassKernel::<2> {
                        mass: *m,
                        gravity: [g[0], g[1]],
                    })
                } else {
                    Box::new(PointMassKernel::<3> {
                        mass: *m,
                        gravity: g,
                    })
                };
                self.terms.push((idx, kern));
                return Ok(());
            }
            (Kind::Spring { k, l0, m, c }, 2) if *m == 0.0 && *k != 0.0 => {
                let (a, b) = (pts[0], pts[1]);
                let anchored = if plain(a) && plain(b) {
                    Some(None)
                } else if fixed(a) && plain(b) {
                    Some(Some(a.eval(&[], 0.0)))
                } else {
                    None
                };
                if let Some(anchor) = anchored {
                    // order the coordinates as (first end, second end)
                    let keys = |x: &PointMap| {
                        x.as_affine()
                            .map(|x| x.a.keys().copied().collect::<Vec<_>>())
                            .unwrap_or_default()
                    };
                    let order: Vec<usize> = if anchor.is_some() {
                        keys(b)
                    } else {
                        keys(a).into_iter().chain(keys(b)).collect()
                    };
                    let kern: Box<dyn TermKernel> = match (self.dim, anchor) {
                        (2, None) => Box::new(SpringKernel::<2>::new(*k, *l0, *c)),
                        (2, Some(p)) => {
                            Box::new(SpringKernel::<2>::anchored([p[0], p[1]], *k, *l0, *c))
                        }
                        (_, None) => Box::new(SpringKernel::<3>::new(*k, *l0, *c)),
                        (_, Some(p)) => Box::new(SpringKernel::<3>::anchored(p, *k, *l0, *c)),
                    };
                    self.terms.push((order, kern));
                    return Ok(());
                }
            }
            _ => {}
        }
        let gravity = self.gravity;
        fn mk<const N: usize>(
            dim: usize,
            pts: Vec<LocalPoint>,
            kind: Kind,
            gravity: [f64; 3],
        ) -> Box<dyn TermKernel> {
            Box::new(TermAd::new(Element::<N> {
                dim,
                pts,
                kind,
                gravity,
            }))
        }
        let n = idx.len();
        let kern = by_size!(n, mk(dim, local, kind, gravity), [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18])
            .ok_or_else(|| {
                self.ctx.err(
                    p,
                    format!("element on {n} coordinates: at most 18 are supported"),
                )
            })?;
        self.terms.push((idx, kern));
        Ok(())
    }

    fn bar(
        &mut self,
        name: &str,
        a: &PointMap,
        b: &PointMap,
        len: f64,
        p: &Path_,
    ) -> Result<(), SpecError> {
        let (idx, local) = localize(&[a, b]);
        if idx.is_empty() {
            return Err(self.ctx.err(p, "a bar between two fixed points"));
        }
        let (dim, gravity) = (self.dim, self.gravity);
        fn mk<const N: usize>(
            dim: usize,
            pts: Vec<LocalPoint>,
            gravity: [f64; 3],
            len: f64,
        ) -> Box<dyn ConstraintKernel> {
            Box::new(ConstraintAd::new(BarConstraint::<N> {
                el: Element {
                    dim,
                    pts,
                    kind: Kind::Particle { m: 0.0 },
                    gravity,
                },
                len,
            }))
        }
        let n = idx.len();
        let kern = by_size!(n, mk(dim, local, gravity, len), [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18])
            .ok_or_else(|| {
                self.ctx.err(
                    p,
                    format!("bar on {n} coordinates: at most 18 are supported"),
                )
            })?;
        self.cons.push((name.to_string(), idx, kern));
        Ok(())
    }

    /// A constraint `expr(t, q) = 0`.
    fn equation(&mut self, name: &str, expr: &VExpr, p: &Path_) -> Result<(), SpecError> {
        let mut set = std::collections::BTreeSet::new();
        expr.coords(&mut set);
        let idx: Vec<usize> = set.into_iter().collect();
        if idx.is_empty() {
            return Err(self
                .ctx
                .err(p, "the equation does not involve any coordinate"));
        }
        let local = expr.remap(&|j| idx.binary_search(&j).expect("present"));
        fn mk<const N: usize>(expr: VExpr) -> Box<dyn ConstraintKernel> {
            Box::new(ConstraintAd::new(EquationConstraint::<N> { expr }))
        }
        let n = idx.len();
        let kern = by_size!(n, mk(local), [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18])
            .ok_or_else(|| {
                self.ctx.err(
                    p,
                    format!("equation on {n} coordinates: at most 18 are supported"),
                )
            })?;
        self.cons.push((name.to_string(), idx, kern));
        Ok(())
    }
}

/// Split a two-point key such as `AB`, `P1P2` or `Left-Right` into point names.
fn split_points(key: &str) -> Option<Vec<String>> {
    if key.contains('-') {
        let v: Vec<String> = key.split('-').map(|s| s.trim().to_string()).collect();
        return v.iter().all(|s| !s.is_empty()).then_some(v);
    }
    let mut out: Vec<String> = Vec::new();
    for ch in key.chars() {
        if ch.is_ascii_uppercase() {
            out.push(ch.to_string());
        } else if ch.is_ascii_alphanumeric() || ch == '_' || ch == '\'' {
            out.last_mut()?.push(ch);
        } else {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

fn seq_or_single(v: &Value) -> Vec<&Value> {
    match v {
        Value::Sequence(s) => s.iter().collect(),
        other => vec![other],
    }
}

pub(crate) fn build(ctx: Ctx, v: &Value) -> Result<Problem, SpecError> {
    let root_p = path(&[]);
    let root = ctx.map(v, &root_p)?;
    let top = ctx.keys(
        root,
        &root_p,
        Some(&[
            "Title",
            "Dimension",
            "PhysicalParams",
            "PartData",
            "AppliedForces",
            "ProblemData",
            "SolverParams",
            "Animation",
        ]),
    )?;
    let get = |k: &str| top.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
    let title = match get("Title") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "untitled".into(),
        Some(other) => other
            .as_f64()
            .map(|x| x.to_string())
            .unwrap_or_else(|| "untitled".into()),
    };
    let dim_v =
        get("Dimension").ok_or_else(|| ctx.err(&root_p, "missing field 'Dimension' (2 or 3)"))?;
    let dim = match dim_v.as_u64() {
        Some(2) => 2,
        Some(3) => 3,
        _ => {
            return Err(ctx.err(
                &path(&["Dimension"]),
                format!("must be 2 or 3, found {}", short(dim_v)),
            ))
        }
    };
    let mut b = Builder {
        ctx,
        dim,
        gravity: [0.0; 3],
        points: HashMap::new(),
        vectors: HashMap::new(),
        scalars: HashMap::new(),
        order: Vec::new(),
        coord_names: Vec::new(),
        coord_kinds: Vec::new(),
        guess: Vec::new(),
        terms: Vec::new(),
        cons: Vec::new(),
        bodies: HashMap::new(),
        links: Vec::new(),
        body_items: Vec::new(),
        notes: Vec::new(),
    };

    // PhysicalParams, in order; each may use the earlier ones
    if let Some(pp) = get("PhysicalParams") {
        let p = path(&["PhysicalParams"]);
        if !pp.is_null() {
            let m = b.ctx.map(pp, &p)?;
            for (name, val) in b.ctx.keys(m, &p, None)? {
                let q = sub(&p, &name);
                if !name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    || name == "t"
                    || name == "pi"
                {
                    return Err(b
                        .ctx
                        .err(&q, format!("'{name}' cannot be a parameter name")));
                }
                let x = b.ctx.num(val, &q)?;
                b.ctx.scope.set(&name, x);
                b.ctx.names.push(name);
            }
        }
    }

    // AppliedForces.Gravity first (elements need it)
    let forces = get("AppliedForces");
    let fp = path(&["AppliedForces"]);
    let fmap = match forces {
        Some(Value::Null) | None => None,
        Some(f) => Some(b.ctx.map(f, &fp)?),
    };
    if let Some(fm) = fmap {
        b.ctx
            .keys(fm, &fp, Some(&["Gravity", "Forces", "Torques"]))?;
        if let Some(g) = fm.get("Gravity") {
            let gp = sub(&fp, "Gravity");
            let mut gv = [0.0; 3];
            let default = 9.81;
            match g {
                Value::Null => gv[dim - 1] = -default,
                Value::Sequence(_) => gv = b.ctx.vector(g, &gp, dim)?,
                other => gv[dim - 1] = -b.ctx.num(other, &gp)?,
            }
            b.gravity = gv;
        }
    }

    // PartData
    let pd_p = path(&["PartData"]);
    let pd = b.ctx.map(
        get("PartData").ok_or_else(|| b.ctx.err(&root_p, "missing field 'PartData'"))?,
        &pd_p,
    )?;
    let parts = b.ctx.keys(
        pd,
        &pd_p,
        Some(&[
            "Fixed",
            "FixedVectors",
            "Points",
            "Vectors",
            "Scalars",
            "Define",
            "Rigids",
            "Particles",
            "Chains",
            "Grids",
            "Springs",
            "Bars",
            "Equations",
        ]),
    )?;
    let part = |k: &str| {
        parts
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| *v)
            .filter(|v| !v.is_null())
    };

    if let Some(f) = part("Fixed") {
        let p = sub(&pd_p, "Fixed");
        let m = b.ctx.map(f, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let pos = b.ctx.vector(val, &q, dim)?;
            b.check_name(&name, ItemKind::Point, &q)?;
            b.order.push(name.clone());
            b.points.insert(name, Point::Fixed(pos));
        }
    }
    if let Some(f) = part("FixedVectors") {
        let p = sub(&pd_p, "FixedVectors");
        let m = b.ctx.map(f, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let v = b.ctx.vector(val, &q, dim)?;
            b.check_name(&name, ItemKind::Vector, &q)?;
            b.vectors.insert(name, Point::Fixed(v));
        }
    }
    for (section, kind) in [
        ("Points", ItemKind::Point),
        ("Vectors", ItemKind::Vector),
        ("Scalars", ItemKind::Scalar),
    ] {
        let Some(list) = part(section) else { continue };
        let p = sub(&pd_p, section);
        let names = list.as_sequence().ok_or_else(|| {
            b.ctx.err(
                &p,
                format!("expected a list of names, found {}", kind_of(list)),
            )
        })?;
        for nv in names {
            let name = nv
                .as_str()
                .ok_or_else(|| {
                    b.ctx.err(
                        &p,
                        format!("expected a list of names, found {} in it", kind_of(nv)),
                    )
                })?
                .trim()
                .to_string();
            let q = sub(&p, &name);
            b.check_name(&name, kind, &q)?;
            match kind {
                ItemKind::Point => b.new_free(&name, &q)?,
                ItemKind::Vector => {
                    let idx = b.new_coords(&name, dim, kind);
                    b.vectors.insert(name, Point::Free(idx));
                }
                ItemKind::Scalar => {
                    let idx = b.new_coords(&name, 1, kind);
                    b.scalars.insert(name, Point::Free(idx));
                }
            }
        }
    }
    // Define: assignments, in order; each may use the items before it
    let mut checks: Vec<(Path_, VExpr)> = Vec::new();
    if let Some(d) = part("Define") {
        let p = sub(&pd_p, "Define");
        let m = b.ctx.map(d, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let e = b.vexpr(val, &q)?;
            let kind = if !e.is_vector() {
                ItemKind::Scalar
            } else if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                ItemKind::Point
            } else {
                ItemKind::Vector
            };
            b.check_name(&name, kind, &q)?;
            checks.push((q, e.clone()));
            match kind {
                ItemKind::Point => {
                    b.points.insert(name.clone(), Point::General(e));
                    b.order.push(name);
                }
                ItemKind::Vector => {
                    b.vectors.insert(name, Point::General(e));
                }
                ItemKind::Scalar => {
                    b.scalars.insert(name, Point::General(e));
                }
            }
        }
    }

    if let Some(r) = part("Rigids") {
        let p = sub(&pd_p, "Rigids");
        let m = b.ctx.map(r, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            rigid(&mut b, &name, val, &sub(&p, &name))?;
        }
    }

    if let Some(pa) = part("Particles") {
        let p = sub(&pd_p, "Particles");
        let m = b.ctx.map(pa, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let mass = b.ctx.positive(val, &q, "a mass")?;
            if b.taken(&name).is_none() {
                b.check_name(&name, ItemKind::Point, &q)?;
                b.new_free(&name, &q)?;
            }
            if !b.points.contains_key(&name) {
                return Err(b.ctx.err(&q, format!("'{name}' is not a point")));
            }
            let a = b.pmap(&name);
            if a.is_fixed() {
                return Err(b.ctx.err(
                    &q,
                    format!("'{name}' is a fixed point; a particle there would not move"),
                ));
            }
            b.element(&[&a], Kind::Particle { m: mass }, &q)?;
        }
    }

    if let Some(c) = part("Chains") {
        let p = sub(&pd_p, "Chains");
        let m = b.ctx.map(c, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            chain(&mut b, &name, val, &sub(&p, &name))?;
        }
    }
    if let Some(g) = part("Grids") {
        let p = sub(&pd_p, "Grids");
        let m = b.ctx.map(g, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            grid(&mut b, &name, val, &sub(&p, &name))?;
        }
    }

    if let Some(s) = part("Springs") {
        let p = sub(&pd_p, "Springs");
        let m = b.ctx.map(s, &p)?;
        for (key, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &key);
            let (a, c) = two_points(&b, &key, &q)?;
            // [k, l] | [k, l, mass] | {stiffness, length, mass, damping}
            let (k, l, mass, damp) = match val {
                Value::Sequence(sq) if (2..=4).contains(&sq.len()) => {
                    let k = b.ctx.num(&sq[0], &q)?;
                    let l = b.ctx.num(&sq[1], &q)?;
                    let mass = sq.get(2).map(|x| b.ctx.num(x, &q)).transpose()?.unwrap_or(0.0);
                    let damp = sq.get(3).map(|x| b.ctx.num(x, &q)).transpose()?.unwrap_or(0.0);
                    (k, l, mass, damp)
                }
                Value::Mapping(mm) => {
                    b.ctx.keys(mm, &q, Some(&["stiffness", "length", "mass", "damping"]))?;
                    let k = b.ctx.num(b.ctx.required(mm, &q, "stiffness")?, &sub(&q, "stiffness"))?;
                    let l = b.ctx.num(b.ctx.required(mm, &q, "length")?, &sub(&q, "length"))?;
                    let mass = mm.get("mass").map(|x| b.ctx.num(x, &sub(&q, "mass"))).transpose()?.unwrap_or(0.0);
                    let damp = mm.get("damping").map(|x| b.ctx.num(x, &sub(&q, "damping"))).transpose()?.unwrap_or(0.0);
                    (k, l, mass, damp)
                }
                other => {
                    return Err(b.ctx.err(
                        &q,
                        format!("expected [stiffness, length] or [stiffness, length, mass(, damping)], found {}", kind(other)),
                    ))
                }
            };
            if !(k > 0.0) {
                return Err(b
                    .ctx
                    .err(&q, format!("stiffness must be positive, got {k}")));
            }
            if !(l >= 0.0) || !(mass >= 0.0) || !(damp >= 0.0) {
                return Err(b
                    .ctx
                    .err(&q, "length, mass and damping must not be negative"));
            }
            b.element(
                &[&a, &c],
                Kind::Spring {
                    k,
                    l0: l,
                    m: mass,
                    c: damp,
                },
                &q,
            )?;
            let kind = if mass > 0.0 {
                LinkKind::MassiveSpring
            } else {
                LinkKind::Spring
            };
            b.link(&key, kind);
        }
    }

    if let Some(s) = part("Bars") {
        let p = sub(&pd_p, "Bars");
        let m = b.ctx.map(s, &p)?;
        for (key, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &key);
            let (a, c) = two_points(&b, &key, &q)?;
            let items = seq_or_single(val);
            if items.is_empty() || items.len() > 2 {
                return Err(b.ctx.err(&q, "expected length or [length, mass]"));
            }
            let l = b.ctx.positive(items[0], &q, "a bar length")?;
            let mass = items
                .get(1)
                .map(|x| b.ctx.num(x, &q))
                .transpose()?
                .unwrap_or(0.0);
            if mass < 0.0 {
                return Err(b.ctx.err(&q, "a bar mass must not be negative"));
            }
            b.bar(&format!("bar {key}"), &a, &c, l, &q)?;
            b.link(
                &key,
                if mass > 0.0 {
                    LinkKind::MassiveBar
                } else {
                    LinkKind::Bar
                },
            );
            if mass > 0.0 {
                b.element(
                    &[&a, &c],
                    Kind::Spring {
                        k: 0.0,
                        l0: l,
                        m: mass,
                        c: 0.0,
                    },
                    &q,
                )?;
            }
        }
    }

    // Forces and torques
    if let Some(fm) = fmap {
        if let Some(f) = fm.get("Forces").filter(|v| !v.is_null()) {
            let p = sub(&fp, "Forces");
            let m = b.ctx.map(f, &p)?;
            for (name, val) in b.ctx.keys(m, &p, None)? {
                let q = sub(&p, &name);
                let a = b.point(&name, &q)?;
                let f = b.ctx.vector_expr(val, &q, dim)?;
                b.element(&[&a], Kind::Force { f }, &q)?;
            }
        }
        if let Some(t) = fm.get("Torques").filter(|v| !v.is_null()) {
            let p = sub(&fp, "Torques");
            let m = b.ctx.map(t, &p)?;
            for (name, val) in b.ctx.keys(m, &p, None)? {
                let q = sub(&p, &name);
                let body = b
                    .bodies
                    .get(&name)
                    .cloned()
                    .ok_or_else(|| b.ctx.err(&q, format!("unknown rigid body '{name}'")))?;
                match body {
                    Body::Planar(p0, p1, len) => {
                        let tau = b.ctx.time_expr(val, &q)?;
                        let (a0, a1) = (b.pmap(&p0), b.pmap(&p1));
                        b.element(&[&a0, &a1], Kind::Torque { tau, len }, &q)?;
                    }
                    Body::Spatial(items, frame) => {
                        let tau = b.ctx.vector_expr(val, &q, 3)?;
                        b.element(
                            &[&items[0], &items[1], &items[2]],
                            Kind::Torque3 { tau, frame },
                            &q,
                        )?;
                    }
                }
            }
        }
    }

    // Equations: constraints written out, C(t, q) = 0
    if let Some(eqs) = part("Equations") {
        let p = sub(&pd_p, "Equations");
        let m = b.ctx.map(eqs, &p)?;
        for (name, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &name);
            let e = b.vexpr(val, &q)?;
            if e.is_vector() {
                return Err(b.ctx.err(
                    &q,
                    "an equation must be a scalar (write one equation per component, or use dot)",
                ));
            }
            b.equation(&name, &e, &q)?;
            checks.push((q, e));
        }
    }

    // ProblemData
    let prob_p = path(&["ProblemData"]);
    let prob = b.ctx.map(
        get("ProblemData").ok_or_else(|| b.ctx.err(&root_p, "missing field 'ProblemData'"))?,
        &prob_p,
    )?;
    b.ctx.keys(
        prob,
        &prob_p,
        Some(&["t0", "tend", "positions", "fixedpositions", "velocities"]),
    )?;
    let t0 = prob
        .get("t0")
        .map(|x| b.ctx.num(x, &sub(&prob_p, "t0")))
        .transpose()?
        .unwrap_or(0.0);
    let t_end = b.ctx.num(
        b.ctx.required(prob, &prob_p, "tend")?,
        &sub(&prob_p, "tend"),
    )?;
    if !(t_end > t0) {
        return Err(b.ctx.err(
            &sub(&prob_p, "tend"),
            format!("tend = {t_end} must be after t0 = {t0}"),
        ));
    }
    if let Some(pos) = prob.get("positions").filter(|v| !v.is_null()) {
        let p = sub(&prob_p, "positions");
        let m = b.ctx.map(pos, &p)?;
        for (key, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &key);
            for (i, x) in components(&b, &key, val, &q, false)? {
                b.guess[i] = Some(x);
            }
        }
    }
    let n = b.coord_names.len();
    if n == 0 {
        return Err(b.ctx.err(&pd_p, "the mechanism has no moving points"));
    }
    let mut q_guess = vec![0.0; n];
    for (i, g) in b.guess.iter().enumerate() {
        match g {
            Some(x) => q_guess[i] = *x,
            None => {
                return Err(b.ctx.err(
                    &sub(&prob_p, "positions"),
                    format!(
                        "no position guess for {} (give it under ProblemData.positions)",
                        b.coord_names[i]
                    ),
                ))
            }
        }
    }
    for (q, e) in &checks {
        let ok = match e.eval::<f64>(&|j| q_guess[j], t0) {
            crate::expr::Val::S(x) => x.is_finite(),
            crate::expr::Val::V(x) => x.iter().all(|c| c.is_finite()),
        };
        if !ok {
            return Err(b.ctx.err(
                q,
                "not defined at the position guesses (a division by zero or a value outside a function's domain)",
            ));
        }
    }
    let mut pinned_q = Vec::new();
    if let Some(fx) = prob.get("fixedpositions").filter(|v| !v.is_null()) {
        let p = sub(&prob_p, "fixedpositions");
        let keys: Vec<(String, Path_)> = match fx {
            Value::Mapping(m) => b
                .ctx
                .keys(m, &p, None)?
                .into_iter()
                .map(|(k, _)| (k.clone(), sub(&p, &k)))
                .collect(),
            Value::Sequence(s) => s
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(|k| (k.to_string(), sub(&p, k)))
                        .ok_or_else(|| b.ctx.err(&p, "expected point names"))
                })
                .collect::<Result<_, _>>()?,
            other => {
                return Err(b.ctx.err(
                    &p,
                    format!("expected {{ A, Bx, … }}, found {}", kind(other)),
                ))
            }
        };
        for (key, q) in keys {
            for (i, _) in components(&b, &key, &Value::Null, &q, true)? {
                pinned_q.push(i);
            }
        }
    }
    let mut v_guess = vec![0.0; n];
    let mut pinned_v = Vec::new();
    if let Some(vel) = prob.get("velocities").filter(|v| !v.is_null()) {
        let p = sub(&prob_p, "velocities");
        let m = b.ctx.map(vel, &p)?;
        for (key, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &key);
            for (i, x) in components(&b, &key, val, &q, false)? {
                v_guess[i] = x;
                pinned_v.push(i);
            }
        }
    }

    // SolverParams
    let defaults = GenAlphaOptions::default();
    let mut solver = SolverSettings {
        steps: ((t_end - t0) / 1e-3).round().max(1.0) as usize, // default step 1 ms
        rho_inf: defaults.rho_inf,
        newton_tol: defaults.newton_tol,
        output_every: 1,
        reuse_factorization: defaults.reuse_factorization,
        rk4: false,
    };
    let mut notes = std::mem::take(&mut b.notes);
    if let Some(sp) = get("SolverParams").filter(|v| !v.is_null()) {
        let p = path(&["SolverParams"]);
        let m = b.ctx.map(sp, &p)?;
        b.ctx.keys(
            m,
            &p,
            Some(&[
                "Integration",
                "step",
                "steps",
                "rho_inf",
                "newton_tol",
                "output_every",
                "reuse_factorization",
                "integrator",
            ]),
        )?;
        if let Some(i) = m.get("Integration").filter(|v| !v.is_null()) {
            let ip = sub(&p, "Integration");
            let im = b.ctx.map(i, &ip)?;
            b.ctx.keys(im, &ip, Some(&["tol", "order"]))?;
            for k in ["tol", "order"] {
                if let Some(x) = im.get(k) {
                    b.ctx.num(x, &sub(&ip, k))?;
                    notes.push(format!(
                        "SolverParams.Integration.{k} is a DAETS (Taylor series) setting and has no effect here; \
                         generalized-α uses a fixed step (SolverParams.step or steps)"
                    ));
                }
            }
        }
        if let Some(x) = m.get("steps") {
            let q = sub(&p, "steps");
            let s = b.ctx.positive(x, &q, "steps")?;
            if s.fract() != 0.0 {
                return Err(b.ctx.err(&q, "steps must be a whole number"));
            }
            solver.steps = s as usize;
        }
        if let Some(x) = m.get("step") {
            let q = sub(&p, "step");
            if m.get("steps").is_some() {
                return Err(b.ctx.err(&q, "give either step or steps, not both"));
            }
            let h = b.ctx.positive(x, &q, "the step")?;
            solver.steps = ((t_end - t0) / h).round().max(1.0) as usize;
        }
        if let Some(x) = m.get("rho_inf") {
            let q = sub(&p, "rho_inf");
            solver.rho_inf = b.ctx.num(x, &q)?;
            if !(0.0..1.0).contains(&solver.rho_inf) {
                return Err(b.ctx.err(&q, "rho_inf must lie in [0, 1)"));
            }
        }
        if let Some(x) = m.get("newton_tol") {
            solver.newton_tol = b.ctx.positive(x, &sub(&p, "newton_tol"), "newton_tol")?;
        }
        if let Some(x) = m.get("output_every") {
            let q = sub(&p, "output_every");
            let s = b.ctx.positive(x, &q, "output_every")?;
            solver.output_every = s.round() as usize;
        }
        if let Some(x) = m.get("integrator") {
            let q = sub(&p, "integrator");
            solver.rk4 = match x.as_str() {
                Some("genalpha") => false,
                Some("rk4") => true,
                _ => return Err(b.ctx.err(&q, "expected genalpha or rk4")),
            };
        }
        if let Some(x) = m.get("reuse_factorization") {
            solver.reuse_factorization = x.as_bool().ok_or_else(|| {
                b.ctx
                    .err(&sub(&p, "reuse_factorization"), "expected true or false")
            })?;
        }
    }
    // Animation: kept for viewers (camera settings), not used by the solver
    let mut animation = None;
    if let Some(a) = get("Animation").filter(|v| !v.is_null()) {
        b.ctx.map(a, &path(&["Animation"]))?;
        animation = serde_json::to_value(a).ok();
    }

    // the model
    let mut mb: ModelBuilder = Model::builder(n).coordinate_names(b.coord_names.clone());
    for (idx, k) in b.terms.drain(..) {
        mb.add_term_kernel(&idx, k);
    }
    for (name, idx, k) in b.cons.drain(..) {
        mb.add_constraint_kernel(name, &idx, k);
    }
    let model = mb.build().map_err(|e| b.ctx.err(&pd_p, e.to_string()))?;
    pinned_q.sort_unstable();
    pinned_q.dedup();
    pinned_v.sort_unstable();
    pinned_v.dedup();
    let h = (t_end - t0) / solver.steps as f64;
    let method: Method = if solver.rk4 {
        Rk4Options::new(h).into()
    } else {
        GenAlphaOptions::new(h)
            .rho_inf(solver.rho_inf)
            .newton_tol(solver.newton_tol)
            .reuse_factorization(solver.reuse_factorization)
            .into()
    };
    let mut geometry = Geometry::new(dim);
    for name in &b.order {
        let map = b.pmap(name);
        let kind = if map.is_fixed() {
            PointKind::Fixed
        } else if matches!(b.points[name], Point::Free(_)) {
            PointKind::Free
        } else {
            PointKind::Derived
        };
        geometry
            .points
            .push(NamedPoint::new(name.clone(), kind, map));
    }
    geometry.links = std::mem::take(&mut b.links);
    geometry.bodies = std::mem::take(&mut b.body_items);
    geometry.coordinate_kinds = std::mem::take(&mut b.coord_kinds);
    geometry.momenta = Momenta::Noether;
    geometry.animation = animation;
    let mut problem = Problem::new(model)
        .title(title)
        .guess(&q_guess, &v_guess)
        .pin_q(pinned_q)
        .pin_v(pinned_v)
        .t0(t0)
        .t_end(t_end)
        .method(method)
        .output_every(solver.output_every)
        .geometry(geometry);
    problem.parameters = (b.ctx.names.iter())
        .filter_map(|n| b.ctx.scope.get(n).map(|v| (n.clone(), v)))
        .collect();
    problem.notes = notes;
    Ok(problem)
}

fn short(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("'{s}'"),
        other => kind(other).to_string(),
    }
}

fn two_points(b: &Builder, key: &str, q: &Path_) -> Result<(PointMap, PointMap), SpecError> {
    let names = split_points(key).filter(|v| v.len() == 2).ok_or_else(|| {
        b.ctx.err(
            q,
            format!("'{key}' does not name two points (write AB, P1P2 or Left-Right)"),
        )
    })?;
    if names[0] == names[1] {
        return Err(b.ctx.err(q, format!("'{key}' joins a point to itself")));
    }
    Ok((b.point(&names[0], q)?, b.point(&names[1], q)?))
}

/// Coordinates named by `key` (a point, or a point and a component as in `Ax`) with values
/// from `val` (a vector for a point, a number for a component; ignored if `pins`).
fn components(
    b: &Builder,
    key: &str,
    val: &Value,
    q: &Path_,
    pins: bool,
) -> Result<Vec<(usize, f64)>, SpecError> {
    let lookup = |name: &str| {
        b.points
            .get(name)
            .or_else(|| b.vectors.get(name))
            .or_else(|| b.scalars.get(name))
    };
    let axes = ["x", "y", "z"];
    let axis = |c: &str| axes[..b.dim].iter().position(|a| *a == c);
    // `A`, `A.x`, `Ax`, `u`, `u.x`, `mu`
    let (name, comp) = if lookup(key).is_some() {
        (key.to_string(), None)
    } else if let Some((n, c)) = key
        .rsplit_once('.')
        .filter(|(n, c)| lookup(n).is_some() && axis(c).is_some())
    {
        (n.to_string(), axis(c))
    } else {
        match key.char_indices().last() {
            Some((i, c))
                if i > 0 && axis(&c.to_string()).is_some() && b.points.contains_key(&key[..i]) =>
            {
                (key[..i].to_string(), axis(&c.to_string()))
            }
            _ => {
                return Err(b
                    .ctx
                    .err(q, format!("unknown point, vector or scalar '{key}'")))
            }
        }
    };
    let is_scalar = b.scalars.contains_key(&name);
    let idx = match lookup(&name).expect("known") {
        Point::Free(idx) => idx.clone(),
        Point::Fixed(_) => return Err(b.ctx.err(q, format!("'{name}' is fixed"))),
        Point::Derived(_) => {
            return Err(b.ctx.err(
                q,
                format!(
                    "'{name}' is a derived point of a rigid body; give its body's basic points"
                ),
            ))
        }
        Point::General(_) => {
            return Err(b.ctx.err(
                q,
                format!("'{name}' is derived (Define or a 3D body); give the coordinates it is computed from"),
            ))
        }
    };
    if is_scalar && comp.is_some() {
        return Err(b
            .ctx
            .err(q, format!("'{name}' is a scalar; it has no components")));
    }
    match comp {
        Some(k) => {
            let x = if pins && val.is_null() {
                0.0
            } else {
                b.ctx.num(val, q)?
            };
            Ok(vec![(idx[k], x)])
        }
        None => {
            if pins && val.is_null() {
                return Ok(idx.iter().map(|&i| (i, 0.0)).collect());
            }
            if is_scalar {
                return Ok(vec![(idx[0], b.ctx.num(val, q)?)]);
            }
            let v = b.ctx.vector(val, q, b.dim)?;
            Ok(idx.iter().enumerate().map(|(k, &i)| (i, v[k])).collect())
        }
    }
}

fn rigid(b: &mut Builder, name: &str, val: &Value, p: &Path_) -> Result<(), SpecError> {
    if b.dim == 3 {
        return rigid3(b, name, val, p);
    }
    let names = split_points(name).filter(|v| v.len() >= 2).ok_or_else(|| {
        b.ctx.err(
            p,
            format!("'{name}' must name the body's points, e.g. OA or OAC"),
        )
    })?;
    let m = b.ctx.map(val, p)?;
    b.ctx.keys(m, p, Some(&["Geom", "Dyna"]))?;
    let gp = sub(p, "Geom");
    let geom = b
        .ctx
        .required(m, p, "Geom")?
        .as_sequence()
        .ok_or_else(|| b.ctx.err(&gp, "expected a list of local points"))?;
    if geom.len() != names.len() - 1 {
        return Err(b.ctx.err(
            &gp,
            format!(
                "{} points after the first need {} local positions, found {}",
                names.len() - 1,
                names.len() - 1,
                geom.len()
            ),
        ));
    }
    let local: Vec<[f64; 3]> = geom
        .iter()
        .map(|g| b.ctx.vector(g, &gp, 2))
        .collect::<Result<_, _>>()?;
    let len = local[0][0];
    if !(len > 0.0) || local[0][1] != 0.0 {
        return Err(b.ctx.err(
            &gp,
            "the second point must lie on the local x axis at a positive distance, [ℓ, 0]",
        ));
    }
    let dp = sub(p, "Dyna");
    let dyna = b
        .ctx
        .required(m, p, "Dyna")?
        .as_sequence()
        .ok_or_else(|| b.ctx.err(&dp, "expected [centroid, mass, inertia]"))?;
    if dyna.len() != 3 {
        return Err(b
            .ctx
            .err(&dp, "expected [centroid, mass, inertia about the centroid]"));
    }
    let centroid = b.ctx.vector(&dyna[0], &dp, 2)?;
    let mass = b.ctx.positive(&dyna[1], &dp, "a body mass")?;
    let inertia = b.ctx.num(&dyna[2], &dp)?;
    if inertia < 0.0 {
        return Err(b.ctx.err(&dp, "the moment of inertia must not be negative"));
    }
    for basic in &names[..2] {
        if b.taken(basic).is_none() {
            b.check_name(basic, ItemKind::Point, p)?;
            b.new_free(basic, p)?;
        }
        if !matches!(b.points.get(basic), Some(Point::Free(_) | Point::Fixed(_))) {
            return Err(b.ctx.err(
                p,
                format!(
                    "'{basic}' is not a free or fixed point; basic points of planar bodies must be"
                ),
            ));
        }
    }
    let (m0, m1) = (b.pmap(&names[0]), b.pmap(&names[1]));
    let (a0, a1) = (
        m0.as_affine().cloned().unwrap_or_default(),
        m1.as_affine().cloned().unwrap_or_default(),
    );
    if a0.a.is_empty() && a1.a.is_empty() {
        return Err(b
            .ctx
            .err(p, "both basic points are fixed: the body cannot move"));
    }
    for (k, dn) in names.iter().enumerate().skip(2) {
        if b.points.contains_key(dn) {
            return Err(b.ctx.err(p, format!("point '{dn}' is defined twice")));
        }
        let l = local[k - 1];
        b.points.insert(
            dn.clone(),
            Point::Derived(Affine::body_point(&a0, &a1, len, l[0], l[1])),
        );
        b.order.push(dn.clone());
    }
    b.bar(&format!("rigid {name}"), &m0, &m1, len, p)?;
    b.element(
        &[&m0, &m1],
        Kind::Rigid {
            m: mass,
            inertia,
            centroid: [centroid[0], centroid[1]],
            len,
        },
        p,
    )?;
    b.bodies.insert(
        name.to_string(),
        Body::Planar(names[0].clone(), names[1].clone(), len),
    );
    b.body_items.push(GeoBody {
        name: name.to_string(),
        items: names.clone(),
    });
    Ok(())
}

/// A 3D rigid body in John–Ned natural coordinates (seed 003): basic items `[A, B, C]`
/// (a point, then points or vectors), local frame `A = 0`, `B = (b, 0, 0)`, `C = (c₁, c₂, 0)`.
fn rigid3(b: &mut Builder, name: &str, val: &Value, p: &Path_) -> Result<(), SpecError> {
    let m = b.ctx.map(val, p)?;
    b.ctx
        .keys(m, p, Some(&["Basic", "Geom", "Dyna", "Rigidity"]))?;
    let gp = sub(p, "Geom");
    let geom_v = b.ctx.required(m, p, "Geom")?;
    // (names, local positions of the names after the first)
    let (names, local): (Vec<String>, Vec<(String, [f64; 3])>) = if let Some(basic) = m.get("Basic")
    {
        let bp = sub(p, "Basic");
        let list = basic
            .as_sequence()
            .filter(|l| l.len() == 3)
            .ok_or_else(|| {
                b.ctx.err(
                    &bp,
                    "expected three names: a point, then two points or vectors",
                )
            })?;
        let names: Vec<String> = list
            .iter()
            .map(|x| {
                x.as_str()
                    .map(|s| s.trim().to_string())
                    .ok_or_else(|| b.ctx.err(&bp, "expected names"))
            })
            .collect::<Result<_, _>>()?;
        let gm = b.ctx.map(geom_v, &gp).map_err(|_| {
            b.ctx
                .err(&gp, "expected a mapping name: [x, y, z] (local positions)")
        })?;
        let mut local = Vec::new();
        for (k, v) in b.ctx.keys(gm, &gp, None)? {
            let x = b.ctx.vector(v, &sub(&gp, &k), 3)?;
            local.push((k, x));
        }
        (names, local)
    } else {
        let names = split_points(name).filter(|v| v.len() >= 3).ok_or_else(|| {
            b.ctx.err(
                p,
                format!("'{name}' must name the body's points (three basic ones, e.g. ABC), or give Basic: [A, B, u]"),
            )
        })?;
        let geom = geom_v
            .as_sequence()
            .ok_or_else(|| b.ctx.err(&gp, "expected a list of local points"))?;
        if geom.len() != names.len() - 1 {
            return Err(b.ctx.err(
                &gp,
                format!(
                    "{} points after the first need {} local positions, found {}",
                    names.len() - 1,
                    names.len() - 1,
                    geom.len()
                ),
            ));
        }
        let local = names[1..]
            .iter()
            .zip(geom)
            .map(|(n, g)| Ok((n.clone(), b.ctx.vector(g, &gp, 3)?)))
            .collect::<Result<_, SpecError>>()?;
        (names[..3].to_vec(), local)
    };
    let find = |n: &str| local.iter().find(|(k, _)| k == n).map(|(_, x)| *x);
    let lb = find(&names[1]).ok_or_else(|| {
        b.ctx
            .err(&gp, format!("missing the local position of '{}'", names[1]))
    })?;
    let lc = find(&names[2]).ok_or_else(|| {
        b.ctx
            .err(&gp, format!("missing the local position of '{}'", names[2]))
    })?;
    if !(lb[0] > 0.0) || lb[1] != 0.0 || lb[2] != 0.0 {
        return Err(b.ctx.err(
            &gp,
            format!(
                "'{}' fixes the local x axis: its local position must be [b, 0, 0] with b > 0",
                names[1]
            ),
        ));
    }
    if !(lc[1] > 0.0) || lc[2] != 0.0 {
        return Err(b.ctx.err(
            &gp,
            format!(
                "'{}' fixes the local xy plane: its local position must be [c1, c2, 0] with c2 > 0",
                names[2]
            ),
        ));
    }
    // Dyna: [centroid, mass, inertia about the centroid (diagonal or 3×3, local axes)]
    let dp = sub(p, "Dyna");
    let dyna = b
        .ctx
        .required(m, p, "Dyna")?
        .as_sequence()
        .filter(|d| d.len() == 3)
        .ok_or_else(|| {
            b.ctx
                .err(&dp, "expected [centroid, mass, inertia about the centroid]")
        })?;
    let centroid = b.ctx.vector(&dyna[0], &dp, 3)?;
    let mass = b.ctx.positive(&dyna[1], &dp, "a body mass")?;
    let inertia: [[f64; 3]; 3] = match dyna[2].as_sequence() {
        Some(rows) if rows.len() == 3 && rows.iter().all(|r| r.is_sequence()) => {
            let mut t = [[0.0; 3]; 3];
            for (r, row) in rows.iter().enumerate() {
                t[r] = b.ctx.vector(row, &dp, 3)?;
            }
            t
        }
        Some(_) => {
            let d = b.ctx.vector(&dyna[2], &dp, 3)?;
            [[d[0], 0.0, 0.0], [0.0, d[1], 0.0], [0.0, 0.0, d[2]]]
        }
        None => {
            return Err(b
                .ctx
                .err(&dp, "the inertia is [Ixx, Iyy, Izz] or a 3×3 matrix"))
        }
    };
    let im = nalgebra::Matrix3::from_fn(|r, c| inertia[r][c]);
    if (im - im.transpose()).abs().max() > 1e-12 * im.abs().max().max(1.0) {
        return Err(b.ctx.err(&dp, "the inertia matrix must be symmetric"));
    }
    // second moment about the centroid, J = ½ tr(I) 𝟙 − I, must be positive semidefinite
    let jm = nalgebra::Matrix3::identity() * (0.5 * im.trace()) - im;
    let tol = 1e-12 * im.abs().max().max(f64::MIN_POSITIVE);
    if jm.symmetric_eigenvalues().min() < -tol {
        return Err(b.ctx.err(
            &dp,
            "not a physical inertia tensor: the principal moments must be ≥ 0 and each at most the sum of the other two",
        ));
    }
    let second_moment: [[f64; 3]; 3] = std::array::from_fn(|r| std::array::from_fn(|c| jm[(r, c)]));
    let rigidity = match m.get("Rigidity") {
        None => true,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| b.ctx.err(&sub(p, "Rigidity"), "expected true or false"))?,
    };

    // the basic items: create free ones
    let bp = if m.contains_key("Basic") {
        sub(p, "Basic")
    } else {
        p.clone()
    };
    let mut items: Vec<(PointMap, bool)> = Vec::new();
    for (k, n) in names.iter().enumerate() {
        if b.taken(n).is_none() {
            let upper = n.starts_with(|c: char| c.is_ascii_uppercase());
            if upper {
                b.check_name(n, ItemKind::Point, &bp)?;
                b.new_free(n, &bp)?;
            } else {
                b.check_name(n, ItemKind::Vector, &bp)?;
                let idx = b.new_coords(n, 3, ItemKind::Vector);
                b.vectors.insert(n.clone(), Point::Free(idx));
            }
        }
        let it = b.item(n, &bp)?;
        if k == 0 && !it.1 {
            return Err(b.ctx.err(
                &bp,
                format!("the first basic item must be a point, '{n}' is a vector"),
            ));
        }
        items.push(it);
    }
    if items.iter().all(|(x, _)| x.is_fixed()) {
        return Err(b
            .ctx
            .err(&bp, "all basic items are fixed: the body cannot move"));
    }
    let frame = Frame {
        b_point: items[1].1,
        c_point: items[2].1,
        b: lb[0],
        c: [lc[0], lc[1]],
    };
    let e: Vec<VExpr> = items.iter().map(|(x, _)| file_vexpr(x)).collect();
    let rel = |x: &VExpr, point: bool| {
        if point {
            VExpr::sum(x.clone(), e[0].clone(), true).expect("vectors")
        } else {
            x.clone()
        }
    };
    let (bt, ct) = (rel(&e[1], frame.b_point), rel(&e[2], frame.c_point));
    let cst = VExpr::constant;
    let ex = |r: Result<VExpr, String>| r.expect("well-typed");
    if rigidity {
        let half = |x: VExpr| ex(VExpr::product(cst(0.5), x));
        let c2 = lc[0] * lc[0] + lc[1] * lc[1];
        let eqs = [
            (
                format!("rigid {name}: |{}|", names[1]),
                half(ex(VExpr::sum(
                    ex(VExpr::dot(bt.clone(), bt.clone())),
                    cst(lb[0] * lb[0]),
                    true,
                ))),
            ),
            (
                format!("rigid {name}: |{}|", names[2]),
                half(ex(VExpr::sum(
                    ex(VExpr::dot(ct.clone(), ct.clone())),
                    cst(c2),
                    true,
                ))),
            ),
            (
                format!("rigid {name}: angle {}{}", names[1], names[2]),
                ex(VExpr::sum(
                    ex(VExpr::dot(bt.clone(), ct.clone())),
                    cst(lb[0] * lc[0]),
                    true,
                )),
            ),
        ];
        for (n, eq) in eqs {
            let mut set = std::collections::BTreeSet::new();
            eq.coords(&mut set);
            if set.is_empty() && !eq.uses_time() {
                // between fixed items: it must hold, and it constrains nothing
                let r = eq.eval_scalar::<f64>(&|_| 0.0, 0.0);
                let scale = lb[0] * lb[0] + lc[0] * lc[0] + lc[1] * lc[1];
                if !(r.abs() <= 1e-9 * scale) {
                    return Err(b.ctx.err(
                        &gp,
                        format!("{n}: the fixed basic items do not fit the local geometry (residual {r:.3e})"),
                    ));
                }
                continue;
            }
            b.equation(&n, &eq, p)?;
        }
    }
    // derived points X = A + x i + y j + z k
    let i = ex(VExpr::quotient(bt, cst(lb[0])));
    let j = ex(VExpr::quotient(
        ex(VExpr::sum(
            ct,
            ex(VExpr::product(cst(lc[0]), i.clone())),
            true,
        )),
        cst(lc[1]),
    ));
    let k = ex(VExpr::cross(i.clone(), j.clone()));
    for (dn, x) in &local {
        if names.contains(dn) {
            continue;
        }
        b.check_name(dn, ItemKind::Point, &gp)?;
        let mut pt = e[0].clone();
        for (c, axis) in [(x[0], &i), (x[1], &j), (x[2], &k)] {
            if c != 0.0 {
                pt = ex(VExpr::sum(
                    pt,
                    ex(VExpr::product(cst(c), axis.clone())),
                    false,
                ));
            }
        }
        b.points.insert(dn.clone(), Point::General(pt));
        b.order.push(dn.clone());
    }
    let maps: Vec<PointMap> = items.into_iter().map(|(x, _)| x).collect();
    b.element(
        &[&maps[0], &maps[1], &maps[2]],
        Kind::Rigid3 {
            m: mass,
            centroid,
            second_moment,
            frame,
        },
        p,
    )?;
    b.bodies.insert(
        name.to_string(),
        Body::Spatial([maps[0].clone(), maps[1].clone(), maps[2].clone()], frame),
    );
    b.body_items.push(GeoBody {
        name: name.to_string(),
        items: names.clone(),
    });
    Ok(())
}

fn chain(b: &mut Builder, name: &str, val: &Value, p: &Path_) -> Result<(), SpecError> {
    let m: &Mapping = b.ctx.map(val, p)?;
    b.ctx.keys(
        m,
        p,
        Some(&["from", "to", "n", "mass", "stiffness", "damping"]),
    )?;
    let from_v = b.ctx.required(m, p, "from")?;
    let from = from_v
        .as_str()
        .ok_or_else(|| b.ctx.err(&sub(p, "from"), "expected a point name"))?
        .to_string();
    let fa = b.point(&from, &sub(p, "from"))?;
    let start = fa.eval(&vec![0.0; b.coord_names.len()], 0.0);
    let start = match &b.points[&from] {
        Point::Free(idx) => std::array::from_fn(|k| {
            if k < b.dim {
                b.guess[idx[k]].unwrap_or(0.0)
            } else {
                0.0
            }
        }),
        _ => start,
    };
    let end = b
        .ctx
        .vector(b.ctx.required(m, p, "to")?, &sub(p, "to"), b.dim)?;
    let nv = b
        .ctx
        .positive(b.ctx.required(m, p, "n")?, &sub(p, "n"), "n")?;
    if nv.fract() != 0.0 {
        return Err(b.ctx.err(&sub(p, "n"), "n must be a whole number"));
    }
    let n = nv as usize;
    let mass = b
        .ctx
        .positive(b.ctx.required(m, p, "mass")?, &sub(p, "mass"), "a mass")?;
    let k = b.ctx.positive(
        b.ctx.required(m, p, "stiffness")?,
        &sub(p, "stiffness"),
        "a stiffness",
    )?;
    let c = m
        .get("damping")
        .map(|x| b.ctx.num(x, &sub(p, "damping")))
        .transpose()?
        .unwrap_or(0.0);
    let step: [f64; 3] = std::array::from_fn(|i| (end[i] - start[i]) / n as f64);
    let len = step.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut prev = fa;
    for i in 1..=n {
        let pn = format!("{name}{i}");
        b.new_free(&pn, p)?;
        let a = b.pmap(&pn);
        for (kk, ci) in a.coords().into_iter().enumerate() {
            b.guess[ci] = Some(start[kk] + step[kk] * i as f64);
        }
        b.element(&[&a], Kind::Particle { m: mass }, p)?;
        b.element(
            &[&prev, &a],
            Kind::Spring {
                k,
                l0: len,
                m: 0.0,
                c,
            },
            p,
        )?;
        prev = a;
    }
    Ok(())
}

fn grid(b: &mut Builder, name: &str, val: &Value, p: &Path_) -> Result<(), SpecError> {
    let m: &Mapping = b.ctx.map(val, p)?;
    b.ctx.keys(
        m,
        p,
        Some(&[
            "n",
            "spacing",
            "origin",
            "mass",
            "stiffness",
            "damping",
            "rim",
        ]),
    )?;
    let nv = b.ctx.vector(b.ctx.required(m, p, "n")?, &sub(p, "n"), 2)?;
    if nv.iter().take(2).any(|x| !(*x >= 1.0) || x.fract() != 0.0) {
        return Err(b.ctx.err(&sub(p, "n"), "expected two whole numbers ≥ 1"));
    }
    let (n0, n1) = (nv[0] as usize, nv[1] as usize);
    let sp = b
        .ctx
        .vector(b.ctx.required(m, p, "spacing")?, &sub(p, "spacing"), 2)?;
    if sp[0] <= 0.0 || sp[1] <= 0.0 {
        return Err(b.ctx.err(&sub(p, "spacing"), "spacings must be positive"));
    }
    let origin = match m.get("origin") {
        Some(o) => b.ctx.vector(o, &sub(p, "origin"), b.dim)?,
        None => [0.0; 3],
    };
    let mass = b
        .ctx
        .positive(b.ctx.required(m, p, "mass")?, &sub(p, "mass"), "a mass")?;
    let k = b.ctx.positive(
        b.ctx.required(m, p, "stiffness")?,
        &sub(p, "stiffness"),
        "a stiffness",
    )?;
    let c = m
        .get("damping")
        .map(|x| b.ctx.num(x, &sub(p, "damping")))
        .transpose()?
        .unwrap_or(0.0);
    let rim = match m.get("rim") {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) if s == "fixed" => true,
        Some(Value::String(s)) if s == "free" => false,
        Some(_) => return Err(b.ctx.err(&sub(p, "rim"), "expected 'fixed' or 'free'")),
    };
    let (lo, hi0, hi1) = if rim {
        (0, n0 + 1, n1 + 1)
    } else {
        (1, n0, n1)
    };
    let pname = |i: usize, j: usize| format!("{name}_{i}_{j}");
    for i in lo..=hi0 {
        for j in lo..=hi1 {
            let interior = (1..=n0).contains(&i) && (1..=n1).contains(&j);
            let corner = (i == 0 || i == n0 + 1) && (j == 0 || j == n1 + 1);
            if corner {
                continue;
            }
            let mut pos = origin;
            pos[0] += sp[0] * i as f64;
            pos[1] += sp[1] * j as f64;
            let pn = pname(i, j);
            if interior {
                b.new_free(&pn, p)?;
                let a = b.pmap(&pn);
                for (kk, ci) in a.coords().into_iter().enumerate() {
                    b.guess[ci] = Some(pos[kk]);
                }
                b.element(&[&a], Kind::Particle { m: mass }, p)?;
            } else {
                if b.points.contains_key(&pn) {
                    return Err(b.ctx.err(p, format!("point '{pn}' is defined twice")));
                }
                b.points.insert(pn, Point::Fixed(pos));
            }
        }
    }
    for i in lo..=hi0 {
        for j in lo..=hi1 {
            for (di, dj, l) in [(1, 0, sp[0]), (0, 1, sp[1])] {
                let (a, c2) = (pname(i, j), pname(i + di, j + dj));
                if let (Some(pa), Some(pc)) = (b.points.get(&a), b.points.get(&c2)) {
                    if matches!(pa, Point::Fixed(_)) && matches!(pc, Point::Fixed(_)) {
                        continue;
                    }
                    let (aa, ac) = (b.pmap(&a), b.pmap(&c2));
                    b.element(
                        &[&aa, &ac],
                        Kind::Spring {
                            k,
                            l0: l,
                            m: 0.0,
                            c,
                        },
                        p,
                    )?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::split_points;

    #[test]
    fn point_keys() {
        assert_eq!(split_points("AB"), Some(vec!["A".into(), "B".into()]));
        assert_eq!(split_points("P1P12"), Some(vec!["P1".into(), "P12".into()]));
        assert_eq!(
            split_points("Left-Right"),
            Some(vec!["Left".into(), "Right".into()])
        );
        assert_eq!(split_points("ab"), None);
        assert_eq!(split_points("A B"), None);
    }
}
