//! Generators: `Chains` of particles and springs, `Grids` (membranes, cloth).

use super::*;
use crate::mechanisms::lattice::Lattice;

/// The most points the `Chains` and `Grids` of one file may generate together (10⁶: the
/// 1000 × 1000 cloth takes 2.3 GB to build and 6.6 GB to run; more would fill a machine before
/// the memory estimate of `problem::memory` can refuse it).
pub const MAX_GENERATED: usize = 1_000_000;

/// Count `n` more generated points against [`MAX_GENERATED`] before anything is made.
fn reserve(b: &mut Builder, n: f64, p: &KeyPath) -> Result<(), SpecError> {
    let total = b.generated as f64 + n;
    if !(total <= MAX_GENERATED as f64) {
        return Err(b.ctx.err(
            p,
            format!(
                "the generators of this file would make {total:.0} points; the limit is \
                 {MAX_GENERATED} per file"
            ),
        ));
    }
    b.generated = total as usize;
    Ok(())
}

pub(super) fn chain(
    b: &mut Builder,
    name: &str,
    val: &Value,
    p: &KeyPath,
) -> Result<(), SpecError> {
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
    let n = b
        .ctx
        .count(b.ctx.required(m, p, "n")?, &sub(p, "n"), "n", MAX_GENERATED)?;
    let mass = b
        .ctx
        .positive(b.ctx.required(m, p, "mass")?, &sub(p, "mass"), "a mass")?;
    let k = b.ctx.positive(
        b.ctx.required(m, p, "stiffness")?,
        &sub(p, "stiffness"),
        "a stiffness",
    )?;
    let c = non_negative_damping(b, m, p)?;
    reserve(b, n as f64, p)?;
    let lattice = Lattice::chain(start, end, n);
    let mut prev = (fa, from);
    for (site, bond) in lattice.sites.iter().zip(&lattice.bonds) {
        let pn = format!("{name}{}", site.index.0);
        b.new_free(&pn, p)?;
        let a = b.pmap(&pn);
        for (kk, ci) in a.coords().into_iter().enumerate() {
            b.guess[ci] = Some(site.position[kk]);
        }
        b.particle(&a, mass, p)?;
        b.spring([&prev.0, &a], [k, bond.length, 0.0, c], p)?;
        b.link(&format!("{}-{pn}", prev.1), LinkKind::Spring);
        prev = (a, pn);
    }
    Ok(())
}

pub(super) fn grid(b: &mut Builder, name: &str, val: &Value, p: &KeyPath) -> Result<(), SpecError> {
    if b.dim < 2 {
        // a lattice in a line: the springs across it join points at one place (no direction)
        return Err(b.ctx.err(
            p,
            "a grid is a lattice in a plane: it needs Dimension 2 or 3 (in Dimension 1, \
             a line of masses on springs is a Chains entry)",
        ));
    }
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
    if nv[0] * nv[1] > MAX_GENERATED as f64 {
        return Err(b.ctx.err(
            &sub(p, "n"),
            format!(
                "{} × {} points is above the limit of {MAX_GENERATED} per generator",
                nv[0], nv[1]
            ),
        ));
    }
    reserve(b, nv[0] * nv[1], &sub(p, "n"))?;
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
    let c = non_negative_damping(b, m, p)?;
    let rim = match m.get("rim") {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) if s == "fixed" => true,
        Some(Value::String(s)) if s == "free" => false,
        Some(_) => return Err(b.ctx.err(&sub(p, "rim"), "expected 'fixed' or 'free'")),
    };
    let lattice = Lattice::grid([n0, n1], [sp[0], sp[1]], origin, rim);
    let names: Vec<String> = (lattice.sites.iter())
        .map(|site| format!("{name}_{}_{}", site.index.0, site.index.1))
        .collect();
    for (site, pn) in lattice.sites.iter().zip(&names) {
        if !site.fixed {
            b.new_free(pn, p)?;
            let a = b.pmap(pn);
            for (kk, ci) in a.coords().into_iter().enumerate() {
                b.guess[ci] = Some(site.position[kk]);
            }
            b.particle(&a, mass, p)?;
        } else {
            if b.points.contains_key(pn) {
                return Err(b.ctx.err(p, format!("point '{pn}' is defined twice")));
            }
            b.order.push(pn.clone());
            b.points.insert(pn.clone(), Point::Fixed(site.position));
        }
    }
    for bond in &lattice.bonds {
        let [a, c2] = bond.ends.map(|e| &names[e]);
        let (aa, ac) = (b.pmap(a), b.pmap(c2));
        b.spring([&aa, &ac], [k, bond.length, 0.0, c], p)?;
        b.link(&format!("{a}-{c2}"), LinkKind::Spring);
    }
    Ok(())
}

/// The optional `damping` of a generator: a number ≥ 0 (negative damping feeds energy in).
fn non_negative_damping(b: &Builder, m: &Mapping, p: &KeyPath) -> Result<f64, SpecError> {
    let Some(x) = m.get("damping") else {
        return Ok(0.0);
    };
    let q = sub(p, "damping");
    let c = b.ctx.num(x, &q)?;
    if !(c >= 0.0) {
        return Err(b
            .ctx
            .err(&q, format!("damping must not be negative, got {c}")));
    }
    Ok(c)
}
