//! Rigid bodies: planar bodies on two basic points, 3D bodies in John–Ned natural coordinates.

use super::*;
use crate::model::elements::{
    PlanarBody, RigidBody3, Rigidity3, RigidityRow, localize, second_moment,
};

pub(super) fn rigid(
    b: &mut Builder,
    name: &str,
    val: &Value,
    p: &KeyPath,
) -> Result<(), SpecError> {
    if b.dim == 3 {
        return rigid3(b, name, val, p);
    }
    if b.dim == 1 {
        return Err(b.ctx.err(
            p,
            "rigid bodies need Dimension 2 or 3 (on a line, use Particles, Masses and Bars)",
        ));
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
    let (centroid, mass, inertia) = planar_dynamics(b, m, p)?;
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
    let gravity = b.gravity;
    let placed = place::point_term_on(b.dim, &[&m0, &m1], |basic| PlanarBody {
        basic,
        mass,
        inertia,
        centroid: [centroid[0], centroid[1]],
        length: len,
        gravity,
    });
    b.place(placed, p)?;
    b.bodies
        .insert(name.to_string(), Body::Planar(m0.clone(), m1.clone(), len));
    b.body_items.push(GeoBody {
        name: name.to_string(),
        items: names.clone(),
        frame: None,
        shapes: Vec::new(),
    });
    Ok(())
}

/// A planar body's `Dyna: [centroid, mass, inertia about the centroid]`.
fn planar_dynamics(
    b: &Builder,
    m: &Mapping,
    p: &KeyPath,
) -> Result<([f64; 3], f64, f64), SpecError> {
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
    Ok((centroid, mass, inertia))
}

/// A 3D rigid body in John–Ned natural coordinates (DAETS): basic items `[A, B, C]`
/// (a point, then points or vectors), local frame `A = 0`, `B = (b, 0, 0)`, `C = (c₁, c₂, 0)`.
/// Basic-item names, the local positions of the named points, and those of the basic items from
/// `Basic`/`Geom`: `B = (b, 0, 0)` with `b > 0`,
/// `C = (c₁, c₂, 0)` with `c₂ > 0`.
type BasicItems = (Vec<String>, Vec<(String, [f64; 3])>, [f64; 3], [f64; 3]);

fn rigid3_geometry(
    b: &Builder,
    name: &str,
    m: &Mapping,
    p: &KeyPath,
) -> Result<BasicItems, SpecError> {
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
    Ok((names, local, lb, lc))
}

/// Mass, centroid and second moment about the centroid of a 3D body.
type MassData = (f64, [f64; 3], [[f64; 3]; 3]);

/// `Dyna: [centroid, mass, inertia about the centroid]`: the mass, the centroid and the second
/// moment about the centroid `J = ½ tr(I) 𝟙 − I` (which must be positive semidefinite).
fn rigid3_dyna(b: &Builder, m: &Mapping, p: &KeyPath) -> Result<MassData, SpecError> {
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
                .err(&dp, "the inertia is [Ixx, Iyy, Izz] or a 3×3 matrix"));
        }
    };
    let second_moment = second_moment(inertia).map_err(|e| b.ctx.err(&dp, e.to_string()))?;
    Ok((mass, centroid, second_moment))
}

pub(super) fn rigid3(
    b: &mut Builder,
    name: &str,
    val: &Value,
    p: &KeyPath,
) -> Result<(), SpecError> {
    let m = b.ctx.map(val, p)?;
    b.ctx
        .keys(m, p, Some(&["Basic", "Geom", "Dyna", "Rigidity"]))?;
    let gp = sub(p, "Geom");
    let (names, local, lb, lc) = rigid3_geometry(b, name, m, p)?;
    let (mass, centroid, second_moment) = rigid3_dyna(b, m, p)?;
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
            let upper = n.starts_with(char::is_uppercase);
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
    let maps: Vec<PointMap> = items.into_iter().map(|(x, _)| x).collect();
    if rigidity {
        rigidity3(
            b,
            name,
            &names,
            [&maps[0], &maps[1], &maps[2]],
            frame,
            &gp,
            p,
        )?;
    }
    // derived points X = A + x i + y j + z k
    let e: [VExpr; 3] = std::array::from_fn(|k| file_vexpr(&maps[k]));
    let mut drawn = names.clone();
    for (dn, x) in &local {
        if names.contains(dn) {
            continue;
        }
        b.check_name(dn, ItemKind::Point, &gp)?;
        b.points
            .insert(dn.clone(), Point::General(frame.world_point(&e, *x)));
        b.order.push(dn.clone());
        drawn.push(dn.clone());
    }
    let gravity = b.gravity;
    let placed = place::point_term_on(3, &[&maps[0], &maps[1], &maps[2]], |items| RigidBody3 {
        items,
        frame,
        mass,
        centroid,
        second_moment,
        gravity,
    });
    b.place(placed, p)?;
    b.bodies.insert(
        name.to_string(),
        Body::Spatial([maps[0].clone(), maps[1].clone(), maps[2].clone()], frame),
    );
    b.body_items.push(GeoBody {
        name: name.to_string(),
        items: drawn,
        frame: None,
        shapes: Vec::new(),
    });
    Ok(())
}

/// The three rigidity rows of a 3D body ([`Rigidity3`]), each named and placed on the items it
/// involves; a row between fixed items constrains nothing and must already hold.
pub(super) fn rigidity3(
    b: &mut Builder,
    name: &str,
    names: &[String],
    maps: [&PointMap; 3],
    frame: Frame,
    gp: &KeyPath,
    p: &KeyPath,
) -> Result<(), SpecError> {
    let origin = PointMap::Affine(Affine::fixed([0.0; 3]));
    // the items each row involves: A only where B (resp. C) is a point
    let uses = [
        [frame.b_point, true, false],
        [frame.c_point, false, true],
        [frame.b_point || frame.c_point, true, true],
    ];
    let titles = [
        format!("rigid {name}: |{}|", names[1]),
        format!("rigid {name}: |{}|", names[2]),
        // `angle BC` for point names, `angle Arm.i Arm.j` for a body's axes
        format!(
            "rigid {name}: angle {}{}{}",
            names[1],
            if names[1].contains('.') { " " } else { "" },
            names[2]
        ),
    ];
    for (row, title) in titles.iter().enumerate() {
        let m: [&PointMap; 3] =
            std::array::from_fn(|k| if uses[row][k] { maps[k] } else { &origin });
        if m.iter().all(|x| x.is_fixed()) {
            // between fixed items: it must hold, and it constrains nothing
            let (_, items) = localize(3, &m).map_err(|e| b.ctx.err(p, e.to_string()))?;
            let r = Rigidity3 { items, frame }.row::<f64, 0>(row, 0.0, &nalgebra::SVector::zeros());
            let scale = frame.b * frame.b + frame.c[0] * frame.c[0] + frame.c[1] * frame.c[1];
            if !(r.abs() <= 1e-9 * scale) {
                return Err(b.ctx.err(
                    gp,
                    format!("{title}: the fixed basic items do not fit the local geometry (residual {r:.3e})"),
                ));
            }
            continue;
        }
        let placed = place::point_constraint_on(3, &m, |items| RigidityRow {
            rigidity: Rigidity3 { items, frame },
            row,
        });
        b.place_constraint(title, placed, "a rigidity row between fixed items", p)?;
    }
    Ok(())
}
