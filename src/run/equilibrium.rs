//! A static equilibrium into a folder: `equilibrium.json`, the `scene.json` of the mechanism and
//! `trajectory.csv` whose rows are the iterates from the starting point to the equilibrium
//! (the `t` column counts the iterations), so `lagrangian animate DIR` shows the search and its
//! last frame is the equilibrium — what `lagrangian equilibrium` does.
//!
//! ```
//! use lagrangian::analysis::{EquilibriumOptions, Stability};
//! use lagrangian::run::equilibrium::equilibrium_to_folder;
//! let dir = std::env::temp_dir().join(format!("lagrangian-doc-eq-{}", std::process::id()));
//! let text = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 2 }, Bars: { OA: 1 } }\n\
//!             AppliedForces: { Gravity: }\nProblemData: { tend: 1, positions: { A: [1, 0] } }\n";
//! let (problem, _plan) = lagrangian::spec::parse(text, "pendulum.yaml")?;
//! let report = equilibrium_to_folder(&problem, &EquilibriumOptions::default(), &dir, None)?;
//! assert_eq!(report.stability, Stability::Stable);
//! // the rod holds the weight: 2 × 9.81 N upwards on A
//! let oa = &report.constraints[0];
//! assert!((oa.reaction[1].1 - 2.0 * 9.81).abs() < 1e-10);
//! assert!(dir.join("equilibrium.json").exists() && dir.join("trajectory.csv").exists());
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::analysis::{Equilibrium, EquilibriumOptions, Stability};
use crate::assembly;
use crate::error::Error;
use crate::model::StateView;
use crate::output::columns::Columns;
use crate::output::csv::CsvSink;
use crate::output::folder::RunFolder;
use crate::output::scene::Scene;
use crate::output::sink::{Schema, TableSink};
use crate::problem::Outputs;
use crate::solve::Problem;
use std::path::Path;

/// The forces of one constraint at the equilibrium.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ConstraintForce {
    /// The constraint's name.
    pub name: String,
    /// Its multipliers.
    pub lambda: Vec<f64>,
    /// The generalized force `−C_qᵀλ` it exerts, on each coordinate it acts on.
    pub reaction: Vec<(String, f64)>,
}

/// What `lagrangian equilibrium` writes to `equilibrium.json` and prints.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EquilibriumReport {
    /// The tool and its version.
    pub tool: String,
    /// The problem's title.
    pub title: String,
    /// The mechanism file, when there is one.
    pub source: Option<String>,
    /// Time the loads were taken at.
    pub t: f64,
    /// Stable, unstable or neutral.
    pub stability: Stability,
    /// Iterations of the search.
    pub iterations: u64,
    /// Unbalanced force left, `max |r_F + C_qᵀλ|`.
    pub residual: f64,
    /// The force scale it is measured against.
    pub force_scale: f64,
    /// `max |C|`.
    pub constraint_residual: f64,
    /// The potential energy there.
    pub potential_energy: f64,
    /// Coordinate names.
    pub coordinates: Vec<String>,
    /// The configuration.
    pub q: Vec<f64>,
    /// Eigenvalues of the Hessian of the potential on the constraint manifold.
    pub hessian_eigenvalues: Vec<f64>,
    /// Coordinates held in place, with the force holding each.
    pub held: Vec<(String, f64)>,
    /// Every constraint's multipliers and reaction.
    pub constraints: Vec<ConstraintForce>,
}

impl EquilibriumReport {
    /// The report of `eq`, an equilibrium of `problem`.
    pub fn new(problem: &Problem, eq: &Equilibrium, source: Option<String>) -> Self {
        let model = &problem.model;
        let names = model.coordinate_names();
        let cq = assembly::constraint_jacobian_dense(model, eq.t, &eq.q);
        let constraints = model
            .constraint_blocks()
            .map(|(name, rows)| {
                let mut reaction = Vec::new();
                for i in 0..model.n_coords() {
                    let f: f64 = rows.clone().map(|k| -cq[(k, i)] * eq.lambda[k]).sum();
                    if rows.clone().any(|k| cq[(k, i)] != 0.0) {
                        reaction.push((names[i].clone(), f));
                    }
                }
                ConstraintForce {
                    name: name.to_string(),
                    lambda: eq.lambda[rows].to_vec(),
                    reaction,
                }
            })
            .collect();
        let zeros = vec![0.0; eq.q.len()];
        EquilibriumReport {
            tool: format!("lagrangian {}", env!("CARGO_PKG_VERSION")),
            title: problem.title.clone(),
            source,
            t: eq.t,
            stability: eq.stability,
            iterations: eq.iterations,
            residual: eq.residual,
            force_scale: eq.force_scale,
            constraint_residual: eq.constraint_residual,
            potential_energy: assembly::energies(model, eq.t, &eq.q, &zeros)[1],
            coordinates: names.to_vec(),
            q: eq.q.clone(),
            hessian_eigenvalues: eq.hessian_eigenvalues.clone(),
            held: (eq.held.iter().zip(&eq.holding_forces))
                .map(|(&i, &f)| (names[i].clone(), f))
                .collect(),
            constraints,
        }
    }
}

impl std::fmt::Display for EquilibriumReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.stability {
            Stability::Stable => "stable",
            Stability::Unstable => "unstable",
            Stability::Neutral => "neutral",
        };
        writeln!(
            f,
            "{}: {kind} equilibrium after {} iterations (unbalanced force {:.2e}, forces up to {:.3e}; max |C| = {:.1e})",
            self.title, self.iterations, self.residual, self.force_scale, self.constraint_residual
        )?;
        let eig = &self.hessian_eigenvalues;
        if let (Some(lo), Some(hi)) = (eig.first(), eig.last()) {
            let negative = eig.iter().filter(|&&x| x < 0.0).count();
            writeln!(
                f,
                "  Hessian on the constraint manifold: {} eigenvalues from {lo:.6e} to {hi:.6e} ({negative} negative)",
                eig.len()
            )?;
        }
        writeln!(f, "  potential energy {:.12e}", self.potential_energy)?;
        for (name, q) in self.coordinates.iter().zip(&self.q).take(24) {
            writeln!(f, "  {name:<14} {q:>22.15e}")?;
        }
        if self.q.len() > 24 {
            writeln!(f, "  … {} more in equilibrium.json", self.q.len() - 24)?;
        }
        for (name, force) in &self.held {
            writeln!(f, "  held {name}: holding force {force:.6e}")?;
        }
        for c in self.constraints.iter().take(12) {
            let lambda: Vec<String> = c.lambda.iter().map(|l| format!("{l:.6e}")).collect();
            writeln!(f, "  constraint {}: λ = {}", c.name, lambda.join(", "))?;
        }
        if self.constraints.len() > 12 {
            writeln!(
                f,
                "  … {} more constraints in equilibrium.json",
                self.constraints.len() - 12
            )?;
        }
        Ok(())
    }
}

/// Find the equilibrium of `problem` (see [`Equilibrium::find`]) and write it into `out`:
/// `equilibrium.json` ([`EquilibriumReport`]), `scene.json` and `trajectory.csv` (positions,
/// multipliers, reactions and energies of each iterate; `t` counts the iterations). An earlier
/// result in `out` is replaced only when this one is complete.
pub fn equilibrium_to_folder(
    problem: &Problem,
    opts: &EquilibriumOptions,
    out: &Path,
    source: Option<String>,
) -> Result<EquilibriumReport, Error> {
    let eq = Equilibrium::find(problem, opts)?;
    // the coordinates the equilibrium is in (a chain's chart may have changed on the way)
    let problem = eq.problem.as_ref().unwrap_or(problem);
    let report = EquilibriumReport::new(problem, &eq, source);
    let constrained = problem.model.n_constraints() > 0;

    let outputs = Outputs {
        multipliers: constrained,
        reactions: constrained,
        ..Outputs::from_names(&["positions", "energies"]).expect("known groups")
    };
    let mut columns = Columns::new(problem, &outputs);
    let io = |e: std::io::Error| Error::io(out, e);
    let mut folder = RunFolder::open(out).map_err(io)?;
    let mut csv = CsvSink::create(folder.partial(), Schema::of(&columns)).map_err(io)?;
    let scene = serde_json::to_string_pretty(&Scene::of(problem)).map_err(std::io::Error::other);
    scene
        .and_then(|s| folder.write_file("scene.json", &(s + "\n")))
        .map_err(io)?;
    let zeros = vec![0.0; problem.model.n_coords().max(problem.model.n_constraints())];
    let mut row = Vec::new();
    for (k, q) in eq.path.iter().enumerate() {
        let view = StateView {
            t: eq.t,
            q,
            v: &zeros[..q.len()],
            qdd: &zeros[..q.len()],
            lambda: &zeros[..problem.model.n_constraints()],
        };
        columns.row(problem, view, &mut row);
        row[0] = k as f64;
        csv.row(&row).map_err(io)?;
    }
    csv.finish().map_err(io)?;
    folder
        .finish(&report, out, "equilibrium.json")
        .map_err(io)?;
    Ok(report)
}
