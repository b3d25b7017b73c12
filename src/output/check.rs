//! What `lagrangian check` shows: a problem's coordinates, constraints, degrees of freedom and
//! consistent initial point, as text.

use crate::model::geometry::PointKind;
use crate::solve::{Initial, Problem};
use std::fmt::Write as _;

/// The check report of `problem` at its consistent initial values `init`.
pub fn check_report(p: &Problem, init: &Initial) -> String {
    let (m, names) = (&p.model, p.model.coordinate_names());
    let mut out = String::new();
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let _ = writeln!(out, "{} — Dimension {}", p.title, p.geometry.dimension);
    let _ = writeln!(out, "coordinates ({}): {}", m.n_coords(), names.join(", "));
    let rows: Vec<String> = (0..m.n_constraints())
        .map(|k| m.constraint_row_name(k))
        .collect();
    let _ = writeln!(out, "constraints ({}): {}", rows.len(), list(&rows));
    let named = |idx: &[usize]| idx.iter().map(|&i| names[i].clone()).collect::<Vec<_>>();
    let _ = writeln!(out, "pinned positions: {}", named(&p.pinned_q).join(", "));
    let _ = writeln!(out, "pinned velocities: {}", named(&p.pinned_v).join(", "));
    let r = &init.report;
    let _ = writeln!(out, "degrees of freedom: {} (rank C_q = {})", r.dof, r.rank);
    let _ = writeln!(out, "redundant constraints: {}", list(&r.redundant));
    let _ = writeln!(
        out,
        "consistent initial point at t = {} ({} iterations, moved the guess by {:.3e}, max |C| = {:.2e}):",
        p.t0, r.position_iterations, r.position_change, r.max_constraint
    );
    let s = &init.state;
    for (i, n) in names.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {n:>12} = {:>14.8}   velocity {:>14.8}   acceleration {:>14.6}",
            s.q[i], s.v[i], s.qdd[i]
        );
    }
    // derived points (rigid-body points, assignments, pendulum bobs): no coordinates of their own
    let dim = p.geometry.dimension.clamp(1, 3);
    for pt in p
        .geometry
        .points
        .iter()
        .filter(|x| x.kind == PointKind::Derived)
    {
        let (x, _) = pt.map.position_velocity(&s.q, &s.v, s.t);
        let shown: Vec<String> = x[..dim].iter().map(|c| format!("{c:.8}")).collect();
        let _ = writeln!(out, "  {:>12} = ({})   derived", pt.name, shown.join(", "));
    }
    for (k, l) in s.lambda.iter().enumerate() {
        let _ = writeln!(out, "  λ[{}] = {l:.8}", m.constraint_row_name(k));
    }
    for n in &p.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}
