//! From the YAML document to a [`Problem`]: the symbol table and the element wiring here, the
//! sections in [`sections`], rigid bodies in [`bodies`], the generators in [`generators`], the
//! initial-value problem and the method in [`problem`].

mod bodies;
mod generators;
mod problem;
mod sections;

use bodies::rigid;
use generators::{chain, grid};

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
    /// The `PartData` path (for errors about the mechanism as a whole).
    part_path: Path_,
    /// `Define` and `Equations` expressions, checked at the position guesses.
    checks: Vec<(Path_, VExpr)>,
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
        part_path: path(&["PartData"]),
        checks: Vec::new(),
    };

    sections::physical_params(&mut b, get("PhysicalParams"))?;
    let fp = path(&["AppliedForces"]);
    let fmap = sections::gravity(&mut b, get("AppliedForces"), &fp)?;
    // PartData
    let pd_p = b.part_path.clone();
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

    sections::items(&mut b, &part)?;
    sections::elements(&mut b, &part)?;
    sections::loads(&mut b, fmap, &fp)?;
    sections::equations(&mut b, part("Equations"))?;
    let guesses = problem::problem_data(&mut b, get("ProblemData"), &root_p)?;
    let method = problem::solver_params(&mut b, get("SolverParams"), &guesses)?;
    problem::finish(b, title, guesses, method, get("Animation"))
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
