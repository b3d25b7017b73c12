//! The column schema of a run's trajectory: what each row holds, computed from a state and the
//! problem's geometry. One schema for every kind of mechanism; the problem's
//! [`Outputs`] chooses the groups, in this order:
//!
//! | group | columns |
//! | --- | --- |
//! | (always) | `t` |
//! | positions | each moving point `A.x, A.y[, A.z]`; the coordinates that are not point components, by name (`mu`, `u.x`, `theta1`); every coordinate when the geometry has no points |
//! | velocities | `A.vx …` for the same points; `mu.v`, `u.vx` for those coordinates |
//! | accelerations | every coordinate: `A.ax …`, `mu.a` |
//! | multipliers | `lambda:<constraint>` (`lambda:<constraint>:<k>` for a block of several rows) |
//! | reactions | `reaction:<constraint>:<coordinate>` = `−(C_qᵀλ)` on each coordinate the constraint acts on; for a bar also `force:<bar>:<end>.x …` (the force the bar exerts on each end, fixed ends included) and `tension:<bar>`; for a drive `s(q) = f(t)` the force or torque it delivers along `s`, `drive:<name>` = `−λ` |
//! | momenta | `Px … |P|, Lx … |L|` (2D: `Px, Py, |P|, Lz`; 1D: `Px`) when the geometry defines momenta |
//! | quantities | the geometry's own [`Quantities`](crate::model::geometry::Quantities), written with the positions (a pendulum chain: `chart1`, `p1.x … |p1|`, `L1.x … |L1|`, `KE1`, `PE1`, `ME1`, …) |
//! | user | the columns the user defines (`Geometry::columns`: expressions, a body's orientation, Rust closures), angles and quaternions continuous from row to row |
//! | energies | `kinetic`, `potential`, `total` (the energy function `v·∂L/∂v − L`), `max_constraint_residual` |
//! | ledger | `work_forces`, `work_drives`, `work_time`, `dissipated`, `balance_error` ([`Ledger`]) |

//!
//! For a constrained model, the accelerations, multipliers, reactions and drive efforts of a row
//! are those of its state `(q, v)`, from the acceleration-level equations
//! ([`StateSolver`]): exact to roundoff for the computed motion, without the start-up
//! oscillation and the `1/(βh²)` roundoff of index-3 multipliers (docs/maths.md §9).

use crate::assembly::{self, ConstraintElement};
use crate::model::columns::{self, Continuity, UserColumn};
use crate::model::geometry::{CoordKind, DistanceForm, Momenta, PointKind};
use crate::model::{Model, StateView};
use crate::output::ledger::Ledger;
use crate::problem::{ENERGY_COLUMNS, LEDGER_COLUMNS, LinearSolverKind, MOMENTA_COLUMNS, Outputs};
use crate::solve::Problem;
use crate::solve::StateSolver;
use std::ops::Range;
use std::sync::Arc;

const AXES: [&str; 3] = ["x", "y", "z"];

/// The name of the rate of coordinate `name`: `A.x` → `A.vx`, `mu` → `mu.v` (`d = "v"`), or
/// `A.ax`, `mu.a` (`d = "a"`).
fn rate_name(name: &str, d: &str) -> String {
    match name.rsplit_once('.') {
        Some((base, axis)) => format!("{base}.{d}{axis}"),
        None => format!("{name}.{d}"),
    }
}

/// A column-safe name: no commas, quotes or line breaks.
fn safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if matches!(c, ',' | '"' | '\n' | '\r') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// The reaction columns of one constraint block.
struct Reaction {
    element: ConstraintElement,
    rows: Range<usize>,
}

/// The force columns of one bar.
struct Bar {
    ends: [usize; 2],
    row: usize,
    form: DistanceForm,
}

/// The columns of a problem's trajectory and the workspace to compute a row.
pub struct Columns {
    names: Vec<String>,
    groups: Vec<(&'static str, Range<usize>)>,
    dim: usize,
    positions: bool,
    velocities: bool,
    accelerations: bool,
    multipliers: bool,
    energies: bool,
    points: Vec<usize>,
    extra: Vec<usize>,
    reactions: Vec<Reaction>,
    bars: Vec<Bar>,
    /// The constraint row of each drive.
    drives: Vec<usize>,
    momenta: Option<MomentaWork>,
    /// Whether the geometry's quantities are written.
    quantities: bool,
    /// Whether the user's columns are written, and their values in the row before (for
    /// angles and quaternions kept continuous).
    user: bool,
    user_prev: Vec<f64>,
    /// Scratch for [`track_turns`](Self::track_turns).
    user_scratch: Vec<f64>,
    ledger: Option<Ledger>,
    /// `(q̈, λ)` of each written state from the acceleration-level equations (constrained
    /// models, when accelerations, multipliers or reactions are written), for its model.
    state_solver: Option<(Arc<Model>, StateSolver)>,
    qdd: Vec<f64>,
    lambda: Vec<f64>,
    c: Vec<f64>,
    jac: Vec<f64>,
}

impl Columns {
    /// The schema of `problem` (its geometry) with the column groups of `outputs`.
    pub fn new(problem: &Problem, outputs: &Outputs) -> Self {
        let (g, model, o) = (&problem.geometry, &problem.model, outputs);
        let dim = g.dimension.clamp(1, 3);
        let points: Vec<usize> = (0..g.points.len())
            .filter(|&i| g.points[i].kind != PointKind::Fixed)
            .collect();
        let kind = |i: usize| {
            g.coordinate_kinds
                .get(i)
                .copied()
                .unwrap_or(CoordKind::Scalar)
        };
        // coordinates that are not point components (vectors, scalars, angles), by name; a
        // geometry without points shows every coordinate
        let extra: Vec<usize> = (0..model.n_coords())
            .filter(|&i| points.is_empty() || !matches!(kind(i), CoordKind::Point(_)))
            .collect();
        let coord = |i: usize| safe(&model.coordinate_names()[i]);
        let mut s = Columns {
            names: vec!["t".to_string()],
            groups: Vec::new(),
            dim,
            positions: o.positions,
            velocities: o.velocities,
            accelerations: o.accelerations,
            multipliers: o.multipliers,
            energies: o.energies,
            points,
            extra,
            reactions: Vec::new(),
            bars: Vec::new(),
            drives: Vec::new(),
            momenta: None,
            quantities: false,
            user: false,
            user_prev: Vec::new(),
            user_scratch: Vec::new(),
            ledger: o.ledger.then(Ledger::new),
            state_solver: None,
            qdd: Vec::new(),
            lambda: Vec::new(),
            c: vec![0.0; model.n_constraints()],
            jac: Vec::new(),
        };
        let point_names = |s: &Columns, d: &str| -> Vec<String> {
            let mut out = Vec::new();
            for &i in &s.points {
                for a in &AXES[..dim] {
                    out.push(format!("{}.{d}{a}", safe(&g.points[i].name)));
                }
            }
            out
        };
        if o.positions {
            let mut names = point_names(&s, "");
            names.extend(s.extra.iter().map(|&i| coord(i)));
            s.group("positions", names);
        }
        if o.velocities {
            let mut names = point_names(&s, "v");
            names.extend(s.extra.iter().map(|&i| rate_name(&coord(i), "v")));
            s.group("velocities", names);
        }
        if o.accelerations {
            let names = (0..model.n_coords()).map(|i| rate_name(&coord(i), "a"));
            s.group("accelerations", names.collect());
        }
        if o.multipliers {
            let mut names = Vec::new();
            for (block, rows) in model.constraint_blocks() {
                let one = rows.len() == 1;
                for k in 0..rows.len() {
                    names.push(match one {
                        true => format!("lambda:{}", safe(block)),
                        false => format!("lambda:{}:{}", safe(block), k + 1),
                    });
                }
            }
            s.group("multipliers", names);
        }
        if o.reactions {
            let names = s.reaction_columns(problem);
            s.group("reactions", names);
        }
        if o.momenta && !matches!(g.momenta, Momenta::None) {
            let m = MOMENTA_COLUMNS;
            let cols: &[&str] = match dim {
                1 => &m[..1],
                2 => &[m[0], m[1], m[3], m[6]],
                _ => &m,
            };
            s.momenta = Some(MomentaWork::default());
            s.group("momenta", cols.iter().map(|c| c.to_string()).collect());
        }
        if let Some(x) = g.quantities.as_ref().filter(|_| o.positions) {
            s.quantities = true;
            s.group("quantities", x.names.iter().map(|n| safe(n)).collect());
        }
        if o.user && !g.columns.is_empty() {
            s.user = true;
            let names = g
                .columns
                .iter()
                .flat_map(|c| c.names.iter().map(|n| safe(n)));
            s.group("user", names.collect());
        }
        if o.energies {
            s.group("energies", ENERGY_COLUMNS.map(String::from).to_vec());
        }
        if o.ledger {
            s.group("ledger", LEDGER_COLUMNS.map(String::from).to_vec());
        }
        s
    }

    fn group(&mut self, name: &'static str, names: Vec<String>) {
        let start = self.names.len();
        self.names.extend(names);
        self.groups.push((name, start..self.names.len()));
    }

    /// The reaction columns; fills `self.reactions` and `self.bars`.
    fn reaction_columns(&mut self, problem: &Problem) -> Vec<String> {
        let (g, model) = (&problem.geometry, &problem.model);
        let mut names = Vec::new();
        let elements = assembly::constraint_elements(model);
        let mut width = 0;
        for ((block, rows), element) in model.constraint_blocks().zip(elements) {
            let idx = element.indices(model);
            width = width.max(idx.len() * rows.len());
            for &i in idx {
                let c = &model.coordinate_names()[i];
                names.push(format!("reaction:{}:{}", safe(block), safe(c)));
            }
            self.reactions.push(Reaction { element, rows });
        }
        self.jac = vec![0.0; width];
        for link in &g.links {
            let Some(bc) = &link.constraint else { continue };
            let row = model.constraint_blocks().find(|(b, _)| *b == bc.block);
            let ends = link
                .ends
                .clone()
                .map(|e| g.points.iter().position(|p| p.name == e));
            let (Some((_, rows)), [Some(a), Some(b)]) = (row, ends) else {
                continue;
            };
            for &e in &[a, b] {
                for ax in &AXES[..self.dim] {
                    let (bar, p) = (safe(&link.name), safe(&g.points[e].name));
                    names.push(format!("force:{bar}:{p}.{ax}"));
                }
            }
            names.push(format!("tension:{}", safe(&link.name)));
            self.bars.push(Bar {
                ends: [a, b],
                row: rows.start,
                form: bc.form,
            });
        }
        for d in &g.drives {
            if let Some((_, rows)) = model.constraint_blocks().find(|(b, _)| *b == d.block) {
                names.push(format!("drive:{}", safe(&d.name)));
                self.drives.push(rows.start);
            }
        }
        names
    }

    /// The column names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The column groups that are on, with their column ranges (`t` is column 0, in none).
    pub fn groups(&self) -> &[(&'static str, Range<usize>)] {
        &self.groups
    }

    /// See the state of every accepted step (the ledger integrates over all of them, not only
    /// the rows written).
    pub fn advance(&mut self, problem: &Problem, s: StateView<'_>, work: Option<[f64; 4]>) {
        if let Some(l) = &mut self.ledger {
            l.add(problem, s, work);
        }
        if self.user {
            self.track_turns(problem, s);
        }
    }

    /// Follow the user's angle and quaternion columns through state `s` (every accepted step
    /// and every interpolated instant, not only the rows written): rows far apart — an output
    /// time step longer than half a turn — still count every turn.
    fn track_turns(&mut self, problem: &Problem, s: StateView<'_>) {
        let columns = &problem.geometry.columns;
        if columns.iter().all(|c| c.continuity == Continuity::Plain) {
            return;
        }
        let mut vals = std::mem::take(&mut self.user_scratch);
        vals.clear();
        continued_values(columns, s, &self.user_prev, &mut vals, false);
        std::mem::swap(&mut self.user_prev, &mut vals);
        self.user_scratch = vals;
    }

    /// The ledger, when the columns include it.
    pub fn ledger(&self) -> Option<&Ledger> {
        self.ledger.as_ref()
    }

    /// The row of state `s` into `row` (cleared first). Call [`advance`](Self::advance) with
    /// every state first.
    pub fn row(&mut self, problem: &Problem, s: StateView<'_>, row: &mut Vec<f64>) {
        let (mut qdd, mut lambda) = (
            std::mem::take(&mut self.qdd),
            std::mem::take(&mut self.lambda),
        );
        let resolved = self.resolve(problem, s, &mut qdd, &mut lambda);
        let s = match resolved {
            true => StateView {
                qdd: &qdd,
                lambda: &lambda,
                ..s
            },
            false => s,
        };
        self.row_of(problem, s, row);
        (self.qdd, self.lambda) = (qdd, lambda);
    }

    /// `(q̈, λ)` of the state `s` from the acceleration-level equations into `qdd`, `lambda`,
    /// when the model has constraints and the columns show accelerations, multipliers or
    /// reactions; `false` (the integrator's values stand) otherwise, or where the equations are
    /// singular.
    fn resolve(
        &mut self,
        problem: &Problem,
        s: StateView<'_>,
        qdd: &mut Vec<f64>,
        lambda: &mut Vec<f64>,
    ) -> bool {
        let model = &problem.model;
        let wanted = self.accelerations
            || self.multipliers
            || !self.reactions.is_empty()
            || !self.drives.is_empty();
        if model.n_constraints() == 0 || !wanted {
            return false;
        }
        if !matches!(&self.state_solver, Some((m, _)) if Arc::ptr_eq(m, model)) {
            self.state_solver = Some((
                model.clone(),
                StateSolver::new(model, LinearSolverKind::Auto),
            ));
        }
        let Some((_, solver)) = &mut self.state_solver else {
            return false;
        };
        match solver.solve(model, s.t, s.q, s.v) {
            Ok((a, l)) => {
                qdd.clear();
                qdd.extend_from_slice(a);
                lambda.clear();
                lambda.extend_from_slice(l);
                true
            }
            Err(_) => false,
        }
    }

    fn row_of(&mut self, problem: &Problem, s: StateView<'_>, row: &mut Vec<f64>) {
        let (g, model, dim) = (&problem.geometry, &problem.model, self.dim);
        row.clear();
        row.push(s.t);
        if self.positions {
            for &i in &self.points {
                row.extend_from_slice(&g.points[i].map.eval(s.q, s.t)[..dim]);
            }
            row.extend(self.extra.iter().map(|&i| s.q[i]));
        }
        if self.velocities {
            for &i in &self.points {
                let (_, v) = g.points[i].map.position_velocity(s.q, s.v, s.t);
                row.extend_from_slice(&v[..dim]);
            }
            row.extend(self.extra.iter().map(|&i| s.v[i]));
        }
        if self.accelerations {
            row.extend_from_slice(s.qdd);
        }
        if self.multipliers {
            row.extend_from_slice(s.lambda);
        }
        self.reactions_row(problem, s, row);
        if let Some(m) = &mut self.momenta {
            let (lin, ang) = m.momenta(problem, s);
            let norm = |v: &[f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if dim == 1 {
                row.push(lin[0]);
            } else if dim == 2 {
                row.extend([lin[0], lin[1], norm(&lin), ang[2]]);
            } else {
                row.extend([lin[0], lin[1], lin[2], norm(&lin)]);
                row.extend([ang[0], ang[1], ang[2], norm(&ang)]);
            }
        }
        if let Some(x) = g.quantities.as_ref().filter(|_| self.quantities) {
            let at = row.len();
            (x.eval)(s.q, s.v, s.t, row);
            row.resize(at + x.names.len(), f64::NAN);
        }
        if self.user {
            self.user_row(problem, s, row);
        }
        if self.energies {
            let [kinetic, potential, energy] = assembly::energies(model, s.t, s.q, s.v);
            self.c.resize(model.n_constraints(), 0.0);
            assembly::constraint_values(model, s.t, s.q, &mut self.c);
            let max_c = self.c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            row.extend([kinetic, potential, energy, max_c]);
        }
        if let Some(l) = &self.ledger {
            let l = l.totals();
            row.extend([
                l.work_forces,
                l.work_drives,
                l.work_time,
                l.dissipated,
                l.balance_error,
            ]);
        }
    }

    /// The user's columns, each kept continuous with the row before (angles over turns, the
    /// quaternion's sign).
    fn user_row(&mut self, problem: &Problem, s: StateView<'_>, row: &mut Vec<f64>) {
        let start = row.len();
        continued_values(&problem.geometry.columns, s, &self.user_prev, row, true);
        self.user_prev.clear();
        self.user_prev.extend_from_slice(&row[start..]);
    }

    fn reactions_row(&mut self, problem: &Problem, s: StateView<'_>, row: &mut Vec<f64>) {
        let model = &problem.model;
        for r in &self.reactions {
            let n = r.element.indices(model).len();
            let jac = &mut self.jac[..n * r.rows.len()];
            r.element.jacobian(model, s.t, s.q, jac);
            for j in 0..n {
                let f: f64 = r
                    .rows
                    .clone()
                    .enumerate()
                    .map(|(k, row)| jac[k * n + j] * s.lambda[row])
                    .sum();
                row.push(-f);
            }
        }
        let (g, dim) = (&problem.geometry, self.dim);
        for b in &self.bars {
            let xa = g.points[b.ends[0]].map.eval(s.q, s.t);
            let xb = g.points[b.ends[1]].map.eval(s.q, s.t);
            let d: [f64; 3] = std::array::from_fn(|k| xb[k] - xa[k]);
            let d = &d[..dim];
            let len = d.iter().map(|x| x * x).sum::<f64>().sqrt();
            // tension T = λ f′(L); the force on end a is T n, on end b −T n
            let tension = s.lambda[b.row]
                * match b.form {
                    DistanceForm::HalfSquare => len,
                    DistanceForm::Length => 1.0,
                };
            row.extend(d.iter().map(|x| tension * x / len));
            row.extend(d.iter().map(|x| -tension * x / len));
            row.push(tension);
        }
        row.extend(self.drives.iter().map(|&k| -s.lambda[k]));
    }

    /// Total linear and angular momentum (about the origin) of state `s` (zeros when the
    /// geometry defines none).
    pub fn momenta(&mut self, problem: &Problem, s: StateView<'_>) -> ([f64; 3], [f64; 3]) {
        self.momenta
            .get_or_insert_with(MomentaWork::default)
            .momenta(problem, s)
    }
}

/// The workspace of total momenta (`p = ∂L/∂v`, for the Noether momenta).
#[derive(Default)]
pub struct MomentaWork {
    p: Vec<f64>,
}

impl MomentaWork {
    /// Total linear and angular momentum (about the origin) of state `s`.
    pub fn momenta(&mut self, problem: &Problem, s: StateView<'_>) -> ([f64; 3], [f64; 3]) {
        let (g, model) = (&problem.geometry, &problem.model);
        match &g.momenta {
            Momenta::Custom(f) => f.momenta(s.q, s.v, s.t),
            Momenta::Noether => {
                self.p.resize(model.n_coords(), 0.0);
                assembly::momenta(model, s.t, s.q, s.v, &mut self.p);
                noether(&g.coordinate_kinds, g.dimension, s.q, &self.p)
            }
            Momenta::NoetherAnd(f) => {
                self.p.resize(model.n_coords(), 0.0);
                assembly::momenta(model, s.t, s.q, s.v, &mut self.p);
                let (mut lin, mut ang) = noether(&g.coordinate_kinds, g.dimension, s.q, &self.p);
                let (l2, a2) = f.momenta(s.q, s.v, s.t);
                for k in 0..3 {
                    lin[k] += l2[k];
                    ang[k] += a2[k];
                }
                (lin, ang)
            }
            Momenta::None => ([0.0; 3], [0.0; 3]),
        }
    }
}

/// Noether charges of translations and rotations: `P = Σ_points p`, `L = Σ x × p` over point and
/// vector coordinates (which come in `(x, y[, z])` runs).
fn noether(kinds: &[CoordKind], dim: usize, q: &[f64], p: &[f64]) -> ([f64; 3], [f64; 3]) {
    let (mut lin, mut ang) = ([0.0; 3], [0.0; 3]);
    for (i, kind) in kinds.iter().enumerate() {
        let (axis, point) = match kind {
            CoordKind::Point(a) => (*a, true),
            CoordKind::Vector(a) => (*a, false),
            CoordKind::Scalar => continue,
        };
        if point {
            lin[axis] += p[i];
        }
        if axis == 0 && dim >= 2 {
            let z = |v: &[f64]| if dim == 3 { v[i + 2] } else { 0.0 };
            let x = [q[i], q[i + 1], z(q)];
            let pp = [p[i], p[i + 1], z(p)];
            ang[0] += x[1] * pp[2] - x[2] * pp[1];
            ang[1] += x[2] * pp[0] - x[0] * pp[2];
            ang[2] += x[0] * pp[1] - x[1] * pp[0];
        }
    }
    (lin, ang)
}

/// Append the values of the user's `columns` at `s` to `out`, each kept continuous with `prev`
/// (the same values at the state before; empty at the first): angles over turns, the
/// quaternion's sign. With `plain` false the columns kept as computed are NaN — only the
/// followed ones are wanted.
fn continued_values(
    columns: &[UserColumn],
    s: StateView<'_>,
    prev: &[f64],
    out: &mut Vec<f64>,
    plain: bool,
) {
    let start = out.len();
    for c in columns {
        let at = out.len();
        if plain || c.continuity != Continuity::Plain {
            (c.eval)(s.q, s.v, s.t, out);
        }
        out.resize(at + c.names.len(), f64::NAN);
        let before = prev.get(at - start..at - start + c.names.len());
        columns::continue_from(c.continuity, before.unwrap_or(&[]), &mut out[at..]);
    }
}
