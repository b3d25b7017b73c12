//! Coordinate-level elements (after Exudyn's `Mass1D`, `CoordinateSpringDamper` and
//! `LoadCoordinate`): masses and spring–dampers on scalar quantities — a scalar coordinate, a
//! component of a point (`A.x`), a `Define`d scalar — and the quantities themselves, which
//! `AppliedForces.Forces` also uses.

use super::*;
use crate::model::elements::ExprEnergy;

/// A scalar quantity `s(q)` of the mechanism.
pub(super) struct Quantity {
    /// `s` as an expression of the global coordinates.
    pub s: VExpr,
    /// Its rate `ṡ` (velocities `VELOCITY + j`), when it is affine in the coordinates.
    pub rate: Option<VExpr>,
    /// The coordinate it is, if it is one.
    pub coord: Option<usize>,
    /// `s` as the point `(s, 0, 0)` (where a force along `s` acts).
    pub map: PointMap,
}

/// The scalar quantity `name`: a scalar, or a component `X.x` of a point or vector; `None` if
/// the name is neither.
pub(super) fn quantity(b: &Builder, name: &str) -> Option<Quantity> {
    let (item, k) = match b.scalars.get(name) {
        Some(s) => (s, 0),
        None => {
            let (base, c) = name.split_once('.')?;
            let k = ["x", "y", "z"][..b.dim].iter().position(|x| *x == c)?;
            (b.points.get(base).or_else(|| b.vectors.get(base))?, k)
        }
    };
    let zero = || VExpr::constant(0.0);
    Some(match to_map(item) {
        PointMap::Affine(a) => {
            let terms: Vec<(usize, f64)> =
                a.a.iter()
                    .filter(|(_, v)| v[k] != 0.0)
                    .map(|(j, v)| (*j, v[k]))
                    .collect();
            let along = |shift: usize| {
                let coef: Vec<(usize, [f64; 3])> = terms
                    .iter()
                    .map(|(j, c)| (shift + j, [*c, 0.0, 0.0]))
                    .collect();
                coef
            };
            let scalar = |c: f64, coef: &[(usize, [f64; 3])]| {
                VExpr::comp(VExpr::affine([c, 0.0, 0.0], coef), 0)
                    .unwrap_or_else(|_| VExpr::constant(f64::NAN))
            };
            let coord = match (terms.as_slice(), a.c[k]) {
                ([(j, c)], x0) if *c == 1.0 && x0 == 0.0 => Some(*j),
                _ => None,
            };
            Quantity {
                s: scalar(a.c[k], &along(0)),
                rate: Some(scalar(0.0, &along(VELOCITY))),
                coord,
                map: PointMap::Affine(Affine {
                    c: [a.c[k], 0.0, 0.0],
                    a: terms.iter().map(|(j, c)| (*j, [*c, 0.0, 0.0])).collect(),
                }),
            }
        }
        other => {
            let e = file_vexpr(&other);
            let s = match e.is_vector() {
                true => VExpr::comp(e, k).unwrap_or_else(|_| VExpr::constant(f64::NAN)),
                false => e,
            };
            Quantity {
                map: PointMap::Expr(VExpr::pack([s.clone(), zero(), zero()])),
                s,
                rate: None,
                coord: None,
            }
        }
    })
}

/// The quantity `name`, or an error that says what may stand there.
fn known(b: &Builder, name: &str, q: &KeyPath) -> Result<Quantity, SpecError> {
    quantity(b, name).ok_or_else(|| {
        b.ctx.err(
            q,
            format!(
                "unknown scalar quantity '{name}' (a scalar of Scalars or Define, or a component \
                 such as A.x of a point or vector)"
            ),
        )
    })
}

/// The rate of a quantity, or an error naming it.
fn rate(
    b: &Builder,
    x: &Quantity,
    name: &str,
    q: &KeyPath,
    what: &str,
) -> Result<VExpr, SpecError> {
    x.rate.clone().ok_or_else(|| {
        b.ctx.err(
            q,
            format!(
                "{what} needs the rate of '{name}', which is defined by an expression (put it on \
                 a coordinate, or write the energy under Lagrangian)"
            ),
        )
    })
}

/// `PartData.Masses`: `T = ½ m ṡ²` on scalar quantities, keyed by the quantity (`c0: m0`) or by
/// an element name (`o2: { coordinate: c0, mass: m2 }`, for several masses on one quantity).
pub(super) fn masses(b: &mut Builder, value: &Value) -> Result<(), SpecError> {
    let p = sub(&b.part_path, "Masses");
    let m = b.ctx.map(value, &p)?;
    for (name, val) in b.ctx.keys(m, &p, None)? {
        let q = sub(&p, &name);
        let (on, mass) = match val {
            Value::Mapping(e) => {
                b.ctx.keys(e, &q, Some(&["coordinate", "mass"]))?;
                let c = b.ctx.required(e, &q, "coordinate")?;
                let on = c
                    .as_str()
                    .ok_or_else(|| b.ctx.err(&sub(&q, "coordinate"), "expected a name"))?;
                let mass = b.ctx.required(e, &q, "mass")?;
                (
                    on.to_string(),
                    b.ctx.positive(mass, &sub(&q, "mass"), "a mass")?,
                )
            }
            other => (name.clone(), b.ctx.positive(other, &q, "a mass")?),
        };
        let x = known(b, &on, &q)?;
        if let Some(j) = x.coord {
            b.terms.push((vec![j], place::coordinate_mass(mass)));
            continue;
        }
        let r = rate(b, &x, &on, &q, "a mass")?;
        let t = VExpr::product(r.clone(), r)
            .and_then(|r2| VExpr::product(VExpr::constant(mass / 2.0), r2))
            .map_err(|e| b.ctx.err(&q, e))?;
        let energy = ExprEnergy {
            kinetic: Some(t),
            ..Default::default()
        };
        sections::place_energy(b, energy, &q)?;
    }
    Ok(())
}

/// `PartData.CoordinateSprings`: `V = ½ k (s₂ − s₁ − offset)²`, `R = ½ d (ṡ₂ − ṡ₁)²` between
/// two quantities, or to the ground with one (`s₁ − offset`).
pub(super) fn coordinate_springs(b: &mut Builder, value: &Value) -> Result<(), SpecError> {
    let p = sub(&b.part_path, "CoordinateSprings");
    let m = b.ctx.map(value, &p)?;
    for (name, val) in b.ctx.keys(m, &p, None)? {
        let q = sub(&p, &name);
        let e = b.ctx.map(val, &q)?;
        let keys = ["coordinates", "stiffness", "damping", "offset"];
        b.ctx.keys(e, &q, Some(&keys))?;
        let cp = sub(&q, "coordinates");
        let names: Vec<String> = match b.ctx.required(e, &q, "coordinates")? {
            Value::Sequence(s) if (1..=2).contains(&s.len()) => s
                .iter()
                .map(|x| x.as_str().map(String::from))
                .collect::<Option<_>>()
                .ok_or_else(|| b.ctx.err(&cp, "expected names of scalar quantities"))?,
            Value::String(s) => vec![s.clone()],
            _ => return Err(b.ctx.err(&cp, "expected one or two scalar quantities")),
        };
        let number = |key: &str| -> Result<f64, SpecError> {
            match e.get(key) {
                Some(v) => b.ctx.num(v, &sub(&q, key)),
                None => Ok(0.0),
            }
        };
        let (k, d, offset) = (number("stiffness")?, number("damping")?, number("offset")?);
        if k < 0.0 || d < 0.0 {
            return Err(b.ctx.err(&q, "stiffness and damping must not be negative"));
        }
        let xs: Vec<Quantity> = names
            .iter()
            .map(|n| known(b, n, &cp))
            .collect::<Result<_, _>>()?;
        // s₂ − s₁ of two quantities (or rates), s₁ of one
        let difference = |mut v: Vec<VExpr>| {
            let last = v.pop().expect("one or two quantities");
            match v.pop() {
                Some(first) => VExpr::sum(last, first, true).map_err(|m| b.ctx.err(&q, m)),
                None => Ok(last),
            }
        };
        let half_square = |c: f64, x: VExpr| {
            VExpr::product(x.clone(), x)
                .and_then(|x2| VExpr::product(VExpr::constant(c / 2.0), x2))
                .map_err(|m| b.ctx.err(&q, m))
        };
        let stretch = VExpr::sum(
            difference(xs.iter().map(|x| x.s.clone()).collect())?,
            VExpr::constant(offset),
            true,
        )
        .map_err(|m| b.ctx.err(&q, m))?;
        b.members.push((format!("{name}.stretch"), stretch.clone()));
        let mut energy = ExprEnergy {
            potential: (k != 0.0)
                .then(|| half_square(k, stretch.clone()))
                .transpose()?,
            ..Default::default()
        };
        if d != 0.0 {
            let rates = (xs.iter().zip(&names))
                .map(|(x, n)| rate(b, x, n, &cp, "a damper"))
                .collect::<Result<Vec<_>, _>>()?;
            energy.dissipation = Some(half_square(d, difference(rates)?)?);
        }
        // `k s + d ṡ` (the rate exists where the damper above found it)
        let force = super::columns::tension(&stretch, k, 0.0, d).map_err(|m| b.ctx.err(&q, m))?;
        b.members.push((format!("{name}.force"), force));
        if energy.potential.is_none() && energy.dissipation.is_none() {
            return Err(b.ctx.err(&q, "give a stiffness or a damping"));
        }
        sections::place_energy(b, energy, &q)?;
    }
    Ok(())
}
