//! What `lagrangian check` shows: a problem's coordinates, constraints, degrees of freedom and
//! consistent initial point, as text.

use crate::model::geometry::PointKind;
use crate::solve::{Initial, Problem};
use std::fmt::Write as _;

/// How many entries of each list a report shows unless asked for everything.
pub const BRIEF: usize = 24;

/// The first [`BRIEF`] items of `v` (all of them when `all`), and how many were left out.
fn head<T>(v: &[T], all: bool) -> (&[T], usize) {
    match all || v.len() <= BRIEF {
        true => (v, 0),
        false => (&v[..BRIEF], v.len() - BRIEF),
    }
}

/// `a, b, c` or `a, b, c, … and 9,997 more`.
fn list(v: &[String], all: bool) -> String {
    if v.is_empty() {
        return "none".to_string();
    }
    let (shown, more) = head(v, all);
    let mut s = shown.join(", ");
    if more > 0 {
        let _ = write!(s, ", … and {more} more");
    }
    s
}

/// The check report of `problem` at its consistent initial values `init`. Unless `verbose`,
/// each list (coordinates, constraints, values) shows its first [`BRIEF`] entries and says how
/// many it left out, so a model of 24,300 coordinates prints a page, not megabytes.
///
/// ```
/// use lagrangian::prelude::*;
/// use lagrangian::library::pendulum::planar_pendulum;
/// use lagrangian::output::check::check_report;
/// let p = Problem::new(planar_pendulum(1.0, 1.0, 9.81)).guess(&[1.0, 0.0], &[0.0, 0.0]);
/// let report = check_report(&p, &p.initial_values()?, false);
/// assert!(report.contains("degrees of freedom: 1 (rank C_q = 1)"), "{report}");
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub fn check_report(p: &Problem, init: &Initial, verbose: bool) -> String {
    let (m, names) = (&p.model, p.model.coordinate_names());
    let mut out = String::new();
    let _ = writeln!(out, "{} — Dimension {}", p.title, p.geometry.dimension);
    let _ = writeln!(
        out,
        "coordinates ({}): {}",
        m.n_coords(),
        list(names, verbose)
    );
    let shown_rows = if verbose {
        m.n_constraints()
    } else {
        m.n_constraints().min(BRIEF)
    };
    let mut rows: Vec<String> = (0..shown_rows).map(|k| m.constraint_row_name(k)).collect();
    if shown_rows < m.n_constraints() {
        rows.push(format!("… and {} more", m.n_constraints() - shown_rows));
    }
    let _ = writeln!(
        out,
        "constraints ({}): {}",
        m.n_constraints(),
        list(&rows, true)
    );
    let named = |idx: &[usize]| idx.iter().map(|&i| names[i].clone()).collect::<Vec<_>>();
    let _ = writeln!(
        out,
        "pinned positions: {}",
        list(&named(&p.pinned_q), verbose)
    );
    let _ = writeln!(
        out,
        "pinned velocities: {}",
        list(&named(&p.pinned_v), verbose)
    );
    let r = &init.report;
    let _ = writeln!(out, "degrees of freedom: {} (rank C_q = {})", r.dof, r.rank);
    let _ = writeln!(
        out,
        "redundant constraints: {}",
        list(&r.redundant, verbose)
    );
    let _ = writeln!(
        out,
        "consistent initial point at t = {} ({} iterations, moved the guess by {:.3e}, max |C| = {:.2e}):",
        p.t0, r.position_iterations, r.position_change, r.max_constraint
    );
    let s = &init.state;
    let (shown, more) = head(names, verbose);
    for (i, n) in shown.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {n:>12} = {:>14.8}   velocity {:>14.8}   acceleration {:>14.6}",
            s.q[i], s.v[i], s.qdd[i]
        );
    }
    if more > 0 {
        let _ = writeln!(out, "  … and {more} more coordinates (--verbose shows all)");
    }
    // derived points (rigid-body points, assignments, pendulum bobs): no coordinates of their own
    let dim = p.geometry.dimension.clamp(1, 3);
    let derived: Vec<_> = (p.geometry.points.iter())
        .filter(|x| x.kind == PointKind::Derived)
        .collect();
    let (shown, more) = head(&derived, verbose);
    for pt in shown {
        let (x, _) = pt.map.position_velocity(&s.q, &s.v, s.t);
        let shown: Vec<String> = x[..dim].iter().map(|c| format!("{c:.8}")).collect();
        let _ = writeln!(out, "  {:>12} = ({})   derived", pt.name, shown.join(", "));
    }
    if more > 0 {
        let _ = writeln!(out, "  … and {more} more derived points");
    }
    let (shown, more) = head(&s.lambda, verbose);
    for (k, l) in shown.iter().enumerate() {
        let _ = writeln!(out, "  λ[{}] = {l:.8}", m.constraint_row_name(k));
    }
    if more > 0 {
        let _ = writeln!(out, "  … and {more} more multipliers");
    }
    for n in &p.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}
