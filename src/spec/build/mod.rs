//! From the YAML document to a [`Problem`] and its [`RunPlan`]: the symbol table and the element wiring here, the
//! sections in [`sections`], rigid bodies in [`bodies`], the generators in [`generators`], the
//! initial-value problem and the method in [`problem`].

mod bodies;
mod body_parts;
mod columns;
mod coordinates;
mod forces;
mod frames;
mod generators;
mod joint_spec;
mod joints;
mod kinematics;
mod planar;
mod problem;
mod sections;
mod shapes;
mod tree;

use bodies::rigid;
use generators::{chain, grid};

use super::{Ctx, KeyPath, SpecError, kind, kind as kind_of, path, sub};
use crate::ad::place;
use crate::error::ModelError;
use crate::expr::vector::{Func, VELOCITY};
use crate::expr::{Sym, VExpr};
use crate::model::elements::{DistanceBetween, Frame};
use crate::model::geometry::{Affine, PointMap};
use crate::model::geometry::{
    BarConstraint, Body as GeoBody, CoordKind, DistanceForm, Drive, Geometry, Link, LinkKind,
    Momenta, NamedPoint, PointKind,
};
use crate::model::{ConstraintKernelBox, Model, ModelBuilder, TermKernelBox};
use crate::problem::{GenAlphaOptions, Method, Problem, Rk4Options, RunPlan};
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
    terms: Vec<(Vec<usize>, TermKernelBox)>,
    cons: Vec<(String, Vec<usize>, ConstraintKernelBox)>,
    bodies: HashMap<String, Body>,
    /// Links and bodies for pictures.
    links: Vec<Link>,
    drives: Vec<Drive>,
    body_items: Vec<GeoBody>,
    /// Points made by `Chains` and `Grids` so far (at most `MAX_GENERATED` per file).
    generated: usize,
    notes: Vec<String>,
    /// The `PartData` path (for errors about the mechanism as a whole).
    part_path: KeyPath,
    /// `Define` and `Equations` expressions, checked at the position guesses.
    checks: Vec<(KeyPath, VExpr)>,
    /// The bodies of `Bodies`: their frames and poses (`joints`).
    frames: HashMap<String, body_parts::BodyFrame>,
    /// Joints that could not place a body yet (neither side had a pose when read).
    /// Joints waiting for one of their bodies to be placed: kind, sides, coordinates' values
    /// and, when the file gives none, the coordinates to take from the bodies' frames.
    unplaced: Vec<joints::Unplaced>,
    /// Names only columns use: the members of elements (`AB.force`, `AB.length`).
    members: Vec<(String, VExpr)>,
    /// Operations of the expressions parsed so far that the model evaluates (terms,
    /// constraints, forces; `Define`s count where they are used), at most [`MAX_TOTAL_SIZE`].
    operations: std::cell::Cell<u64>,
    /// Trees of `Bodies` in joint coordinates and their first coordinates.
    trees: Vec<(std::sync::Arc<crate::multibody::Tree>, usize)>,
    /// The trees' bodies (link index by name) and their points and directions for the
    /// pictures and columns (from the trees' forward kinematics).
    tree_bodies: HashMap<String, usize>,
    tree_points: Vec<NamedPoint>,
    /// The points of tree bodies (origins and markers) as chains of joints, for elements.
    chains: HashMap<String, std::sync::Arc<crate::model::elements::ChainPoint>>,
}

/// The most operations all expressions of a file may expand to together (each one at most
/// [`MAX_SIZE`](crate::expr::vector::MAX_SIZE)): every step evaluates them and their
/// derivatives, whose tapes and dual numbers grow with them.
pub const MAX_TOTAL_SIZE: u64 = 2_000_000;

/// A rigid body, for torques: planar (two basic points, length) or 3D (three basic items).
#[derive(Clone, Debug)]
enum Body {
    Planar(PointMap, PointMap, f64),
    Spatial([PointMap; 3], Frame),
}

/// `f::<N>(args)` for the runtime size `n` among the listed static sizes (`None` otherwise).
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
    /// An empty builder of a `dim`-dimensional mechanism.
    fn new(ctx: Ctx<'a>, dim: usize) -> Self {
        Builder {
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
            drives: Vec::new(),
            body_items: Vec::new(),
            generated: 0,
            notes: Vec::new(),
            part_path: path(&["PartData"]),
            checks: Vec::new(),
            frames: HashMap::new(),
            unplaced: Vec::new(),
            members: Vec::new(),
            operations: std::cell::Cell::new(0),
            trees: Vec::new(),
            tree_bodies: HashMap::new(),
            tree_points: Vec::new(),
            chains: HashMap::new(),
        }
    }

    /// Record a link between the two points named by `key` (already checked).
    fn link(&mut self, key: &str, kind: LinkKind) {
        if let Some([a, c]) = split_points(key).and_then(|v| <[String; 2]>::try_from(v).ok()) {
            let constraint =
                matches!(kind, LinkKind::Bar | LinkKind::MassiveBar).then(|| BarConstraint {
                    block: format!("bar {key}"),
                    form: DistanceForm::HalfSquare,
                });
            self.links.push(Link {
                name: key.to_string(),
                kind,
                ends: [a, c],
                constraint,
            });
        }
    }

    fn pmap(&self, name: &str) -> PointMap {
        match (self.chains.get(name), &self.points[name]) {
            (Some(c), Point::General(e)) => PointMap::Chain(c.clone(), Some(e.clone())),
            (_, p) => to_map(p),
        }
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
    fn check_name(&self, name: &str, kind: ItemKind, p: &KeyPath) -> Result<(), SpecError> {
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
            .all(|c| c.is_alphanumeric() || c == '_' || c == '\'');
        let ok = match kind {
            ItemKind::Point => first.is_some_and(char::is_uppercase),
            _ => first.is_some_and(char::is_lowercase),
        } && ok_rest
            && !["t", "pi"].contains(&name);
        if !ok {
            let rule = match kind {
                ItemKind::Point => "a point name starts with an upper-case letter (A, Ä, Θ, …)",
                _ => "a vector or scalar name starts with a lower-case letter (a, θ, ω, …)",
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

    fn new_free(&mut self, name: &str, p: &KeyPath) -> Result<(), SpecError> {
        if self.points.contains_key(name) {
            return Err(self.ctx.err(p, format!("point '{name}' is defined twice")));
        }
        let idx = self.new_coords(name, self.dim, ItemKind::Point);
        self.points.insert(name.to_string(), Point::Free(idx));
        self.order.push(name.to_string());
        Ok(())
    }

    fn point(&self, name: &str, p: &KeyPath) -> Result<PointMap, SpecError> {
        if self.points.contains_key(name) {
            let map = self.pmap(name);
            if let PointMap::Expr(e) = &map
                && e.size() > crate::expr::vector::MAX_SIZE
            {
                return Err(self.ctx.err(
                    p,
                    format!(
                        "point '{name}' is an expression of {} operations (a body many joints \
                         from the ground); an element on it would cost that at every step — \
                         act on the joints' coordinates, or give the body natural coordinates \
                         (PartData: {{ Coordinates: natural }})",
                        e.size()
                    ),
                ));
            }
            Ok(map)
        } else {
            Err(self.ctx.err(
                p,
                format!("unknown point '{name}' (points are defined by Fixed, Points, Define, Particles, Rigids, Chains and Grids)"),
            ))
        }
    }

    /// A point or vector by name (basic items of 3D bodies).
    fn item(&self, name: &str, p: &KeyPath) -> Result<(PointMap, bool), SpecError> {
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
        if let Some(base) = name.strip_suffix('\'') {
            return self.velocity_symbol(base);
        }
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

    /// The velocity `X'` of a point, vector or scalar: of a coordinate, of an item affine in
    /// the coordinates, or the rate of an item's expression ([`VExpr::rate`]).
    fn velocity_symbol(&self, base: &str) -> Option<Sym> {
        let of_affine = |p: &Point| match to_map(p) {
            PointMap::Affine(a) => {
                let coef: Vec<(usize, [f64; 3])> =
                    a.a.iter().map(|(j, v)| (VELOCITY + j, *v)).collect();
                Some(Sym::Item(VExpr::affine([0.0; 3], &coef)))
            }
            _ => None,
        };
        // an item defined by an expression (a `Define`, a body's marker or axis): the rate
        // of its expression, `∂e/∂q · v + ∂e/∂t`
        let of_expr = |e: &VExpr| e.rate().ok().map(Sym::Item);
        if let Some(p) = self.points.get(base).or_else(|| self.vectors.get(base)) {
            return match p {
                Point::General(e) => of_expr(e),
                _ => of_affine(p),
            };
        }
        match self.scalars.get(base)? {
            Point::Free(idx) => Some(Sym::Item(VExpr::velocity(idx[0]))),
            Point::General(e) => of_expr(e),
            _ => None,
        }
    }

    /// Parse an expression that may use velocities (`A'`, `mu'`): a kinetic energy or a
    /// Rayleigh function. A velocity the file cannot give is named in the error.
    fn vexpr_with_velocities(&self, v: &Value, p: &KeyPath) -> Result<VExpr, SpecError> {
        self.parse_vexpr(v, p).map_err(|e| {
            let quoted = |s: &str| {
                let at = s.find("undefined name '")? + "undefined name '".len();
                let rest = &s[at..];
                rest.rfind('\'').map(|end| rest[..end].to_string())
            };
            match quoted(&e.to_string()).and_then(|n| n.strip_suffix('\'').map(String::from)) {
                Some(base) if self.symbol(&base).is_some() => self.ctx.err(
                    p,
                    format!(
                        "{base}' is a second derivative: forces, energies and Rayleigh \
                         functions take positions and velocities ({}') only",
                        base.trim_end_matches('\'')
                    ),
                ),
                _ => e,
            }
        })
    }

    /// Parse a `Define`/`Equations` expression; it is evaluated at the guesses later.
    fn vexpr(&self, v: &Value, p: &KeyPath) -> Result<VExpr, SpecError> {
        let e = self.parse_vexpr(v, p)?;
        if e.has_velocity() {
            return Err(self.ctx.err(
                p,
                "velocities (A', mu') may appear in Lagrangian (T, R), Dissipation and Forces only",
            ));
        }
        Ok(e)
    }

    fn parse_vexpr(&self, v: &Value, p: &KeyPath) -> Result<VExpr, SpecError> {
        let text = match v {
            Value::Number(n) => return Ok(VExpr::constant(n.as_f64().unwrap_or(f64::NAN))),
            Value::String(s) => s.clone(),
            other => {
                return Err(self
                    .ctx
                    .err(p, format!("expected an expression, found {}", kind(other))));
            }
        };
        let e = VExpr::parse(&text, self.dim, &|n| self.symbol(n)).map_err(|e| {
            let shown = crate::expr::excerpt(&text, e.offset);
            self.ctx.err(p, format!("in '{shown}': {e}"))
        })?;
        // a `Define` is evaluated where it is used (and counted there), not on its own
        if p.iter().any(|k| k == "Define") {
            return Ok(e);
        }
        let total = self.operations.get().saturating_add(e.size());
        self.operations.set(total);
        if total > MAX_TOTAL_SIZE {
            return Err(self.ctx.err(
                p,
                format!(
                    "the file's expressions expand to {total} operations up to here \
                     (definitions used repeatedly count each time); the limit for a file is \
                     {MAX_TOTAL_SIZE}: share work through Define entries used once, or write \
                     the model in Rust"
                ),
            ));
        }
        Ok(e)
    }

    /// Add a placed term (none: it acts on fixed points only and cannot affect the motion).
    fn place(
        &mut self,
        placed: Result<Option<place::PlacedTerm>, ModelError>,
        p: &KeyPath,
    ) -> Result<(), SpecError> {
        if let Some(t) = placed.map_err(|e| self.element_error(e, p))? {
            self.terms.push(t);
        }
        Ok(())
    }

    /// An element's error at `p`; one on too many coordinates says where they come from when
    /// the element is on bodies in joint coordinates.
    pub(super) fn element_error(&self, e: ModelError, p: &KeyPath) -> SpecError {
        match e {
            ModelError::TooManyCoordinates { n, max } if !self.chains.is_empty() => self.ctx.err(
                p,
                format!(
                    "an element on {n} coordinates: at most {max} are supported, and a point of a \
                     body in joint coordinates brings every joint between it and the ground: \
                     act on the joints' coordinates, or give the bodies natural coordinates \
                     (PartData: {{ Coordinates: natural }}), where an element acts on its bodies' \
                     coordinates only"
                ),
            ),
            e => self.ctx.err(p, e.to_string()),
        }
    }

    /// Add a placed constraint named `name`; `none` is the error when it involves no coordinate.
    fn place_constraint(
        &mut self,
        name: &str,
        placed: Result<Option<place::PlacedConstraint>, ModelError>,
        none: &str,
        p: &KeyPath,
    ) -> Result<(), SpecError> {
        match placed.map_err(|e| self.element_error(e, p))? {
            Some((idx, k)) => {
                self.cons.push((name.to_string(), idx, k));
                Ok(())
            }
            None => Err(self.ctx.err(p, none)),
        }
    }

    /// A particle of mass `m` at a point.
    fn particle(&mut self, a: &PointMap, mass: f64, p: &KeyPath) -> Result<(), SpecError> {
        let placed = place::particle_at(self.dim, a, mass, self.gravity);
        self.place(placed, p)
    }

    /// A spring element (stiffness, rest length, mass, damping) between two points.
    fn spring(
        &mut self,
        ends: [&PointMap; 2],
        [k, l0, m, c]: [f64; 4],
        p: &KeyPath,
    ) -> Result<(), SpecError> {
        let placed = place::spring_between(self.dim, ends[0], ends[1], k, l0, m, c, self.gravity);
        self.place(placed, p)
    }

    /// A bar (distance constraint `½(|b − a|² − ℓ²)`).
    fn bar(
        &mut self,
        name: &str,
        a: &PointMap,
        b: &PointMap,
        length: f64,
        p: &KeyPath,
    ) -> Result<(), SpecError> {
        let placed =
            place::point_constraint_on(self.dim, &[a, b], |ends| DistanceBetween { ends, length });
        self.place_constraint(name, placed, "a bar between two fixed points", p)
    }

    /// A constraint `expr(t, q) = 0`.
    fn equation(&mut self, name: &str, expr: &VExpr, p: &KeyPath) -> Result<(), SpecError> {
        let placed = place::equation(expr);
        self.place_constraint(
            name,
            placed,
            "the equation does not involve any coordinate",
            p,
        )
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
        if ch.is_uppercase() {
            out.push(ch.to_string());
        } else if ch.is_alphanumeric() || ch == '_' || ch == '\'' {
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

pub(crate) fn build(ctx: Ctx, v: &Value) -> Result<(Problem, RunPlan), SpecError> {
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
            "Lagrangian",
            "ProblemData",
            "SolverParams",
            "Output",
            "Animation",
        ]),
    )?;
    let get = |k: &str| top.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
    let title = match get("Title") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "untitled".into(),
        Some(Value::Number(x)) => x.to_string(),
        Some(other) => {
            let p = path(&["Title"]);
            return Err(ctx.err(&p, format!("expected a text, found {}", kind(other))));
        }
    };
    let dim_v = get("Dimension")
        .ok_or_else(|| ctx.err(&root_p, "missing field 'Dimension' (1, 2 or 3)"))?;
    let dim = match dim_v.as_u64() {
        Some(d @ 1..=3) => d as usize,
        _ => {
            return Err(ctx.err(
                &path(&["Dimension"]),
                format!("must be 1, 2 or 3, found {}", short(dim_v)),
            ));
        }
    };
    let mut b = Builder::new(ctx, dim);

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
            "Bodies",
            "Joints",
            "Coordinates",
            "Particles",
            "Chains",
            "Grids",
            "Springs",
            "Bars",
            "Masses",
            "CoordinateSprings",
            "Equations",
            "Drives",
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
    if let Some(v) = part("Masses") {
        coordinates::masses(&mut b, v)?;
    }
    if let Some(v) = part("CoordinateSprings") {
        coordinates::coordinate_springs(&mut b, v)?;
    }
    sections::loads(&mut b, fmap, &fp)?;
    sections::equations(&mut b, part("Equations"))?;
    sections::lagrangian(&mut b, get("Lagrangian"))?;
    sections::drives(&mut b, part("Drives"))?;
    let guesses = problem::problem_data(&mut b, get("ProblemData"), &root_p)?;
    let (method, every) = problem::solver_params(&mut b, get("SolverParams"), &guesses)?;
    let output = problem::output(&b, get("Output"), every, get("SolverParams"), &guesses)?;
    problem::finish(b, title, guesses, (method, output), get("Animation"))
}

fn short(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("'{s}'"),
        other => kind(other).to_string(),
    }
}

fn two_points(b: &Builder, key: &str, q: &KeyPath) -> Result<(PointMap, PointMap), SpecError> {
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
    q: &KeyPath,
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
                    .err(q, format!("unknown point, vector or scalar '{key}'")));
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
