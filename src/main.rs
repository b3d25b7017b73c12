//! The `lagrangian` command line: `run` a mechanism file, `check` it, or — without arguments —
//! run the bundled default mechanism (seed 003's Mechanism0).

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use lagrangian::output::csv::RunFiles;
use lagrangian::output::Record;
use lagrangian::prelude::*;
use lagrangian::spec::{self, CoordKind, Mechanism};
use serde_json::json;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Lagrangian mechanics of multibody systems: Euler–Lagrange equations by AD, index-3
/// generalized-α.
#[derive(Parser)]
#[command(name = "lagrangian", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Integrate a mechanism file; write DIR/trajectory.csv and DIR/summary.json.
    Run {
        /// The mechanism (YAML).
        file: PathBuf,
        /// Output directory (default: out/<file name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Number of steps (overrides SolverParams).
        #[arg(long)]
        steps: Option<usize>,
        /// End time (overrides ProblemData.tend).
        #[arg(long = "t-end")]
        t_end: Option<f64>,
        /// Spectral radius at infinity (overrides SolverParams.rho_inf).
        #[arg(long = "rho-inf")]
        rho_inf: Option<f64>,
        /// Integrator: genalpha, or rk4 for unconstrained mechanisms (overrides SolverParams).
        #[arg(long)]
        integrator: Option<String>,
        /// No progress bar and no summary on the terminal.
        #[arg(long)]
        quiet: bool,
    },
    /// Parse, build and initialize a mechanism file; print its coordinates, constraints,
    /// degrees of freedom and consistent initial point.
    Check {
        /// The mechanism (YAML).
        file: PathBuf,
    },
    /// Plot a run: chosen columns of DIR/trajectory.csv against time, or (without --columns) the
    /// diagnostics sheet (energies, momenta, constraint residual, coordinates). PNG and SVG.
    Plot {
        /// A run's output directory.
        dir: PathBuf,
        /// Columns to plot, comma-separated (e.g. kinetic,potential,total).
        #[arg(long, value_delimiter = ',')]
        columns: Vec<String>,
        /// Output file stem (default DIR/plot, or DIR/diagnostics for the sheet).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Image size in pixels, WIDTHxHEIGHT.
        #[arg(long, default_value = "1200x800")]
        size: String,
    },
}

/// `println!` that ignores a closed stdout (e.g. `lagrangian run … | head`): never panics.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// `eprintln!` that ignores a closed stderr.
macro_rules! esay {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

const DEFAULT_NAME: &str = "mechanisms/mechanism0.yaml";
const DEFAULT_TEXT: &str = include_str!("../mechanisms/mechanism0.yaml");

struct Overrides {
    steps: Option<usize>,
    t_end: Option<f64>,
    rho_inf: Option<f64>,
    integrator: Option<String>,
}

/// Generalized-α or RK4, stepped one step at a time.
enum Stepper<'m> {
    Ga(Box<GenAlpha<'m>>),
    Rk(Box<lagrangian::solve::Rk4<'m>>),
}

impl Stepper<'_> {
    fn step(&mut self) -> Result<(), lagrangian::error::SolveError> {
        match self {
            Stepper::Ga(g) => g.step(),
            Stepper::Rk(r) => r.step(),
        }
    }
    fn state(&self) -> State {
        match self {
            Stepper::Ga(g) => g.state(),
            Stepper::Rk(r) => r.state(),
        }
    }
    fn t(&self) -> f64 {
        match self {
            Stepper::Ga(g) => g.t(),
            Stepper::Rk(r) => r.t(),
        }
    }
    fn stats(&self) -> lagrangian::output::Stats {
        match self {
            Stepper::Ga(g) => g.stats().clone(),
            Stepper::Rk(r) => r.stats().clone(),
        }
    }
}

fn run(
    mut m: Mechanism,
    out: &Path,
    ov: Overrides,
    quiet: bool,
    build_start: Instant,
) -> Result<(), String> {
    if let Some(t) = ov.t_end {
        if t.is_nan() || t <= m.t0 {
            return Err(format!("--t-end {t} must be after t0 = {}", m.t0));
        }
        let h = (m.t_end - m.t0) / m.solver.steps as f64;
        m.t_end = t;
        m.solver.steps = ((t - m.t0) / h).round().max(1.0) as usize;
    }
    if let Some(s) = ov.steps {
        if s == 0 {
            return Err("--steps must be positive".into());
        }
        m.solver.steps = s;
    }
    if let Some(r) = ov.rho_inf {
        m.solver.rho_inf = r;
    }
    match ov.integrator.as_deref() {
        None => {}
        Some("rk4") => m.solver.rk4 = true,
        Some("genalpha") => m.solver.rk4 = false,
        Some(other) => return Err(format!("--integrator {other}: expected genalpha or rk4")),
    }
    let h = (m.t_end - m.t0) / m.solver.steps as f64;
    let init = m
        .initial_values()
        .map_err(|e| format!("initial values: {e}"))?;
    let mut g = if m.solver.rk4 {
        Stepper::Rk(Box::new(
            lagrangian::solve::Rk4::new(&m.model, &init.state, h).map_err(|e| e.to_string())?,
        ))
    } else {
        let opts = GenAlphaOptions::new(h)
            .rho_inf(m.solver.rho_inf)
            .newton_tol(m.solver.newton_tol)
            .reuse_factorization(m.solver.reuse_factorization);
        Stepper::Ga(Box::new(
            GenAlpha::new(&m.model, &init.state, opts).map_err(|e| e.to_string())?,
        ))
    };
    let build_seconds = build_start.elapsed().as_secs_f64();

    let axes = ["x", "y", "z"];
    let mut columns = vec!["t".to_string()];
    for p in &m.points {
        for a in &axes[..m.dimension] {
            columns.push(format!("{}.{a}", p.name));
        }
    }
    // coordinates that are not point components (vectors, scalars), by their names
    let extra: Vec<usize> = (0..m.model.n_coords())
        .filter(|&i| !matches!(m.coordinate_kinds[i], CoordKind::Point(_)))
        .collect();
    columns.extend(extra.iter().map(|&i| m.coordinate_names[i].clone()));
    // total linear and angular momentum (about the origin) from p = M v over the point coordinates
    let pattern = lagrangian::assembly::Pattern::new(&m.model);
    if m.dimension == 2 {
        columns.extend(["Px", "Py", "|P|", "Lz"].map(String::from));
    } else {
        columns.extend(["Px", "Py", "Pz", "|P|", "Lx", "Ly", "Lz", "|L|"].map(String::from));
    }
    columns.extend(["kinetic", "potential", "total", "max_constraint_residual"].map(String::from));
    let mut pbuf = vec![0.0; m.model.n_coords()];
    let mut files = RunFiles::create(out, &columns)
        .map_err(|e| format!("cannot write to {}: {e}", out.display()))?;
    let mut row = Vec::with_capacity(columns.len());
    let dim = m.dimension;
    let mut write = |files: &mut RunFiles, rec: &Record| {
        row.clear();
        row.push(rec.state.t);
        for p in &m.points {
            row.extend_from_slice(&p.position(&rec.state.q, rec.state.t)[..dim]);
        }
        for &i in &extra {
            row.push(rec.state.q[i]);
        }
        lagrangian::assembly::momenta(
            &m.model,
            &pattern,
            rec.state.t,
            &rec.state.q,
            &rec.state.v,
            &mut pbuf,
        );
        // Noether charges: translations move point coordinates, rotations move points and
        // vectors; scalars move with neither
        let (mut lin, mut ang) = ([0.0; 3], [0.0; 3]);
        for (i, kind) in m.coordinate_kinds.iter().enumerate() {
            let (axis, point) = match kind {
                CoordKind::Point(a) => (*a, true),
                CoordKind::Vector(a) => (*a, false),
                CoordKind::Scalar => continue,
            };
            if point {
                lin[axis] += pbuf[i];
            }
            if axis == 0 {
                // point and vector coordinates come in (x, y[, z]) runs
                let x = [
                    rec.state.q[i],
                    rec.state.q[i + 1],
                    if dim == 3 { rec.state.q[i + 2] } else { 0.0 },
                ];
                let pp = [
                    pbuf[i],
                    pbuf[i + 1],
                    if dim == 3 { pbuf[i + 2] } else { 0.0 },
                ];
                ang[0] += x[1] * pp[2] - x[2] * pp[1];
                ang[1] += x[2] * pp[0] - x[0] * pp[2];
                ang[2] += x[0] * pp[1] - x[1] * pp[0];
            }
        }
        let norm = |v: &[f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if dim == 2 {
            row.extend([lin[0], lin[1], norm(&lin), ang[2]]);
        } else {
            row.extend([
                lin[0],
                lin[1],
                lin[2],
                norm(&lin),
                ang[0],
                ang[1],
                ang[2],
                norm(&ang),
            ]);
        }
        row.extend([rec.kinetic, rec.potential, rec.energy, rec.max_constraint]);
        files.row(&row)
    };
    let first = Record::new(&m.model, g.state());
    write(&mut files, &first).map_err(|e| e.to_string())?;
    let bar = if !quiet && std::io::stderr().is_terminal() && m.solver.steps >= 2000 {
        let b = ProgressBar::new(m.solver.steps as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} t = {msg} [{bar:40}] {pos}/{len} steps, {eta} left",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let start = Instant::now();
    let mut max_c = first.max_constraint;
    let mut last = first.clone();
    for k in 1..=m.solver.steps {
        if let Err(e) = g.step() {
            files.abandon();
            if let Some(b) = &bar {
                b.abandon();
            }
            return Err(format!("{e} (for example --steps {})", m.solver.steps * 4));
        }
        if k % m.solver.output_every == 0 || k == m.solver.steps {
            let rec = Record::new(&m.model, g.state());
            max_c = max_c.max(rec.max_constraint);
            if let Err(e) = write(&mut files, &rec) {
                files.abandon();
                return Err(format!("cannot write the trajectory: {e}"));
            }
            last = rec;
        }
        if let Some(b) = &bar {
            if k % 100 == 0 {
                b.set_position(k as u64);
                b.set_message(format!("{:.4}", g.t()));
            }
        }
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let solve_seconds = start.elapsed().as_secs_f64();
    let stats = g.stats();
    let summary = json!({
        "title": m.title,
        "file_steps": m.solver.steps,
        "t0": m.t0, "t_end": m.t_end, "h": h, "rho_inf": m.solver.rho_inf,
        "integrator": if m.solver.rk4 { "rk4" } else { "generalized-alpha" },
        "coordinates": m.model.n_coords(), "constraints": m.model.n_constraints(),
        "dof": init.report.dof,
        "steps": stats.steps,
        "newton_iterations": stats.newton_iterations,
        "factorizations": stats.factorizations,
        "build_seconds": build_seconds,
        "solve_seconds": solve_seconds,
        "max_constraint_residual": max_c,
        "energy_start": first.energy,
        "energy_end": last.energy,
        "energy_drift": last.energy - first.energy,
    });
    let summary_obj = summary.clone();
    files
        .finish(&summary)
        .map_err(|e| format!("cannot write the results: {e}"))?;
    if !quiet {
        say!(
            "{} — {} coordinates, {} constraints, {} degrees of freedom",
            m.title,
            m.model.n_coords(),
            m.model.n_constraints(),
            init.report.dof
        );
        let method = if m.solver.rk4 {
            "RK4".to_string()
        } else {
            format!("generalized-α, ρ∞ = {}", m.solver.rho_inf)
        };
        say!(
            "  t = {} … {} s, {} steps of h = {:.3e} s, {method}",
            m.t0,
            m.t_end,
            stats.steps,
            h
        );
        say!(
            "  {} Newton iterations, {} factorizations; build {:.3} s, solve {:.3} s",
            stats.newton_iterations,
            stats.factorizations,
            build_seconds,
            solve_seconds
        );
        say!(
            "  energy {:.6} → {:.6} (drift {:.3e}); max |C| {:.2e}",
            first.energy,
            last.energy,
            summary_obj["energy_drift"].as_f64().unwrap_or(0.0),
            max_c
        );
        for n in &m.notes {
            say!("  note: {n}");
        }
        say!(
            "  wrote {} and {}",
            out.join("trajectory.csv").display(),
            out.join("summary.json").display()
        );
    }
    Ok(())
}

fn run_chain(
    mut c: spec::ChainSpec,
    out: &Path,
    ov: Overrides,
    quiet: bool,
    build_start: Instant,
) -> Result<(), String> {
    use lagrangian::library::spherical_chain::Integrator;
    if let Some(s) = ov.steps {
        if s == 0 {
            return Err("--steps must be positive".into());
        }
        c.steps = s;
    }
    if let Some(t) = ov.t_end {
        if t.is_nan() || t <= 0.0 {
            return Err(format!("--t-end {t} must be positive"));
        }
        c.steps = (t / c.h).round().max(1.0) as usize;
    }
    if let (Some(r), Integrator::GenAlpha(_)) = (ov.rho_inf, c.integrator) {
        c.integrator = Integrator::GenAlpha(r);
    }
    let n = c.chain.rods.len();
    let mut columns = vec!["t".to_string()];
    for k in 1..=n {
        for a in ["x", "y", "z", "vx", "vy", "vz"] {
            columns.push(format!("P{k}.{a}"));
        }
    }
    columns.extend(
        [
            "Px",
            "Py",
            "Pz",
            "|P|",
            "Lx",
            "Ly",
            "Lz",
            "|L|",
            "kinetic",
            "potential",
            "total",
            "max_constraint_residual",
        ]
        .map(String::from),
    );
    let dof: usize = c
        .chain
        .rods
        .iter()
        .map(|r| if r.stiffness.is_some() { 3 } else { 2 })
        .sum();
    let build_seconds = build_start.elapsed().as_secs_f64();
    let mut files = RunFiles::create(out, &columns)
        .map_err(|e| format!("cannot write to {}: {e}", out.display()))?;
    let start = Instant::now();
    let t_end = c.chain.t + c.steps as f64 * c.h;
    let run = match c.chain.simulate(t_end, c.h, c.integrator, c.output_every) {
        Ok(r) => r,
        Err(e) => {
            files.abandon();
            return Err(format!("{e} (for example --steps {})", c.steps * 4));
        }
    };
    let solve_seconds = start.elapsed().as_secs_f64();
    let norm = |v: &[f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    for d in &run.records {
        let mut row = vec![d.t];
        for (p, v) in d.positions.iter().zip(&d.velocities) {
            row.extend_from_slice(p);
            row.extend_from_slice(v);
        }
        row.extend_from_slice(&d.momentum);
        row.push(norm(&d.momentum));
        row.extend_from_slice(&d.angular_momentum);
        row.push(norm(&d.angular_momentum));
        row.extend([d.kinetic, d.potential, d.kinetic + d.potential, 0.0]);
        if let Err(e) = files.row(&row) {
            files.abandon();
            return Err(format!("cannot write the trajectory: {e}"));
        }
    }
    let (first, last) = (
        &run.records[0],
        run.records.last().unwrap_or(&run.records[0]),
    );
    let (e0, e1) = (
        first.kinetic + first.potential,
        last.kinetic + last.potential,
    );
    let summary = json!({
        "title": c.title,
        "integrator": match c.integrator { Integrator::Rk4 => "rk4".to_string(), Integrator::GenAlpha(r) => format!("generalized-alpha, rho_inf = {r}") },
        "h": c.h, "t_end": t_end,
        "coordinates": dof, "constraints": 0, "dof": dof,
        "steps": c.steps,
        "newton_iterations": run.newton_iterations,
        "chart_switches": run.switches.len(),
        "build_seconds": build_seconds,
        "solve_seconds": solve_seconds,
        "max_constraint_residual": 0.0,
        "energy_start": e0, "energy_end": e1, "energy_drift": e1 - e0,
        "lz_start": first.angular_momentum[2], "lz_end": last.angular_momentum[2],
    });
    files
        .finish(&summary)
        .map_err(|e| format!("cannot write the results: {e}"))?;
    if !quiet {
        say!(
            "{} — {n} spherical pendulums, {dof} angle (and length) coordinates",
            c.title
        );
        say!(
            "  {} steps of h = {:.3e} s, {} chart switches, solve {:.3} s",
            c.steps,
            c.h,
            run.switches.len(),
            solve_seconds
        );
        say!(
            "  energy {e0:.6} → {e1:.6} (drift {:.3e}); Lz {:.6} → {:.6}",
            e1 - e0,
            first.angular_momentum[2],
            last.angular_momentum[2]
        );
        say!(
            "  wrote {} and {}",
            out.join("trajectory.csv").display(),
            out.join("summary.json").display()
        );
    }
    Ok(())
}

fn check_chain(c: &spec::ChainSpec) -> Result<(), String> {
    say!(
        "{} — {} spherical pendulums, g = {}",
        c.title,
        c.chain.rods.len(),
        c.chain.g
    );
    for (i, r) in c.chain.rods.iter().enumerate() {
        say!(
            "  rod {}: length {}, mass {}, com {}, inertia {}, damping {}, {}; θ = {}, φ = {} ({:?})",
            i + 1,
            r.length,
            r.mass,
            r.com,
            r.inertia,
            r.damping,
            r.stiffness.map_or("rigid".to_string(), |k| format!("elastic k = {k}")),
            r.theta,
            r.phi,
            r.chart
        );
    }
    let d = c.chain.diagnostics();
    for (k, p) in d.positions.iter().enumerate() {
        say!("  bob {} at ({:.6}, {:.6}, {:.6})", k + 1, p[0], p[1], p[2]);
    }
    say!(
        "energy {:.6}, Lz {:.6}; {} steps of {} s",
        d.kinetic + d.potential,
        d.angular_momentum[2],
        c.steps,
        c.h
    );
    Ok(())
}

fn check(m: &Mechanism) -> Result<(), String> {
    say!("{} — Dimension {}", m.title, m.dimension);
    say!(
        "coordinates ({}): {}",
        m.model.n_coords(),
        m.coordinate_names.join(", ")
    );
    let rows: Vec<String> = (0..m.model.n_constraints())
        .map(|k| m.model.constraint_row_name(k))
        .collect();
    say!(
        "constraints ({}): {}",
        rows.len(),
        if rows.is_empty() {
            "none".into()
        } else {
            rows.join(", ")
        }
    );
    let name = |i: &usize| m.coordinate_names[*i].clone();
    say!(
        "pinned positions: {}",
        m.pinned_q.iter().map(name).collect::<Vec<_>>().join(", ")
    );
    say!(
        "pinned velocities: {}",
        m.pinned_v.iter().map(name).collect::<Vec<_>>().join(", ")
    );
    let init = m
        .initial_values()
        .map_err(|e| format!("initial values: {e}"))?;
    let r = &init.report;
    say!("degrees of freedom: {} (rank C_q = {})", r.dof, r.rank);
    say!(
        "redundant constraints: {}",
        if r.redundant.is_empty() {
            "none".into()
        } else {
            r.redundant.join(", ")
        }
    );
    say!(
        "consistent initial point at t = {} ({} iterations, moved the guess by {:.3e}, max |C| = {:.2e}):",
        m.t0, r.position_iterations, r.position_change, r.max_constraint
    );
    let s = &init.state;
    for (i, n) in m.coordinate_names.iter().enumerate() {
        say!(
            "  {n:>12} = {:>14.8}   velocity {:>14.8}   acceleration {:>14.6}",
            s.q[i],
            s.v[i],
            s.qdd[i]
        );
    }
    // derived points (rigid-body points, assignments): they have no coordinates of their own
    for p in &m.points {
        if !m.coordinate_names.contains(&format!("{}.x", p.name)) {
            let x = p.position(&s.q, s.t);
            let shown: Vec<String> = x[..m.dimension].iter().map(|c| format!("{c:.8}")).collect();
            say!("  {:>12} = ({})   derived", p.name, shown.join(", "));
        }
    }
    for (k, l) in s.lambda.iter().enumerate() {
        say!("  λ[{}] = {l:.8}", m.model.constraint_row_name(k));
    }
    for n in &m.notes {
        say!("note: {n}");
    }
    Ok(())
}

fn plot(dir: &Path, columns: &[String], out: Option<PathBuf>, size: &str) -> Result<(), String> {
    use lagrangian::output::plot::{diagnostics_sheet, plot_columns, Table};
    let (w, h) = size
        .split_once('x')
        .and_then(|(a, b)| Some((a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?)))
        .filter(|&(a, b)| (100..=10000).contains(&a) && (100..=10000).contains(&b))
        .ok_or_else(|| format!("--size {size}: expected WIDTHxHEIGHT, e.g. 1200x800"))?;
    let table = Table::read(&dir.join("trajectory.csv")).map_err(|e| e.to_string())?;
    let title = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["title"].as_str().map(String::from))
        .unwrap_or_else(|| dir.display().to_string());
    let files = if columns.is_empty() {
        diagnostics_sheet(
            &table,
            &title,
            &out.unwrap_or_else(|| dir.join("diagnostics")),
            (w, h),
        )
    } else {
        plot_columns(
            &table,
            columns,
            &title,
            &out.unwrap_or_else(|| dir.join("plot")),
            (w, h),
        )
    }
    .map_err(|e| e.to_string())?;
    for f in files {
        say!("wrote {}", f.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let start = Instant::now();
    let result = match cli.cmd {
        None => match spec::parse(DEFAULT_TEXT, DEFAULT_NAME) {
            Ok(m) => {
                let out = PathBuf::from("out/mechanism0");
                say!("lagrangian: no arguments, running the bundled {DEFAULT_NAME} (seed 003's Mechanism0)\n");
                let r = run(
                    m,
                    &out,
                    Overrides {
                        steps: None,
                        t_end: None,
                        rho_inf: None,
                        integrator: None,
                    },
                    false,
                    start,
                );
                if r.is_ok() {
                    say!(
                        "\nnext: plot or inspect {}, or try",
                        out.join("trajectory.csv").display()
                    );
                    say!("  cargo run --release -- check mechanisms/double_pendulum.yaml");
                    say!("  cargo run --release -- run mechanisms/cloth.yaml --t-end 0.5");
                    say!("  cargo run --release -- plot {}    (energies, momenta, constraint residual)", out.display());
                    say!("  cargo run --release -- run mechanisms/spherical_pendulums.yaml   (seed 002, angle coordinates)");
                    say!("  cargo run --release -- run YOUR_FILE.yaml --out DIR   (format: docs/yaml.md)");
                }
                r
            }
            Err(e) => Err(e.to_string()),
        },
        Some(Cmd::Run {
            file,
            out,
            steps,
            t_end,
            rho_inf,
            integrator,
            quiet,
        }) => {
            let stem = file
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_else(|| "run".into());
            let out = out.unwrap_or_else(|| PathBuf::from("out").join(stem));
            let ov = Overrides {
                steps,
                t_end,
                rho_inf,
                integrator,
            };
            match std::fs::read_to_string(&file) {
                Ok(text) if spec::is_chain(&text) => {
                    spec::parse_chain(&text, &file.display().to_string())
                        .map_err(|e| e.to_string())
                        .and_then(|c| run_chain(c, &out, ov, quiet, start))
                }
                _ => spec::load(&file)
                    .map_err(|e| e.to_string())
                    .and_then(|m| run(m, &out, ov, quiet, start)),
            }
        }
        Some(Cmd::Check { file }) => match std::fs::read_to_string(&file) {
            Ok(text) if spec::is_chain(&text) => {
                spec::parse_chain(&text, &file.display().to_string())
                    .map_err(|e| e.to_string())
                    .and_then(|c| check_chain(&c))
            }
            _ => spec::load(&file)
                .map_err(|e| e.to_string())
                .and_then(|m| check(&m)),
        },
        Some(Cmd::Plot {
            dir,
            columns,
            out,
            size,
        }) => plot(&dir, &columns, out, &size),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            esay!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
