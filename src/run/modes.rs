//! A vibration mode's motion into a folder, for the viewer: `scene.json`, `trajectory.csv` with
//! two periods of `q(t) = q₀ + a φ sin ωt` (each frame projected back onto the constraints, so
//! rods keep their lengths at a finite amplitude) and `mode.json` — what
//! `lagrangian modes FILE --animate K` writes before drawing it.
//!
//! ```
//! use lagrangian::analysis::ModesReport;
//! use lagrangian::run::modes::mode_to_folder;
//! let dir = std::env::temp_dir().join(format!("lagrangian-doc-mode-{}", std::process::id()));
//! let text = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 2 } }\n\
//!             AppliedForces: { Gravity: }\nProblemData: { tend: 1, positions: { A: [0, -2] } }\n";
//! let (problem, _plan) = lagrangian::spec::parse(text, "pendulum.yaml")?;
//! let report = ModesReport::initial(&problem)?;
//! let mode = mode_to_folder(&problem, &report, 1, None, &dir)?;
//! // two periods of 2π/ω in 121 frames, swinging by a tenth of the scene
//! assert!((mode.period - 2.0 * std::f64::consts::PI / (9.81f64 / 2.0).sqrt()).abs() < 1e-12);
//! assert_eq!(std::fs::read_to_string(dir.join("trajectory.csv")).unwrap().lines().count(), 122);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::analysis::{ModeKind, ModesReport, project_onto_constraints};
use crate::error::{Error, OptionError};
use crate::model::StateView;
use crate::output::columns::Columns;
use crate::output::csv::CsvSink;
use crate::output::folder::RunFolder;
use crate::output::scene::Scene;
use crate::output::sink::{Schema, TableSink};
use crate::problem::Outputs;
use crate::solve::Problem;
use std::path::Path;

/// Where [`modes_to_folder`] linearizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModesAt {
    /// The consistent initial configuration.
    Initial,
    /// The static equilibrium downhill from it.
    Equilibrium,
    /// The consistent initial state with its velocities, a steady motion (a spinning top in
    /// its Euler angles): the roots with the gyroscopic forces
    /// ([`Linearization::in_motion`](crate::analysis::Linearization::in_motion)).
    Motion,
}

/// The modes of `problem` about the configuration `at`, written to `out/modes.json` (replaced
/// whole: written beside it, then renamed, under the folder's lock).
pub fn modes_to_folder(problem: &Problem, at: ModesAt, out: &Path) -> Result<ModesReport, Error> {
    let report = match at {
        ModesAt::Initial => ModesReport::initial(problem),
        ModesAt::Equilibrium => ModesReport::equilibrium(problem),
        ModesAt::Motion => ModesReport::motion(problem),
    }?;
    let text = serde_json::to_string_pretty(&report).map_err(std::io::Error::other);
    let file = out.join("modes.json");
    RunFolder::open(out)
        .and_then(|f| {
            std::fs::write(f.partial().join("modes.json"), text? + "\n")?;
            f.place_one("modes.json")
        })
        .map_err(|e| Error::io(&file, e))?;
    Ok(report)
}

/// Frames per period.
const FRAMES: usize = 60;

/// What `mode.json` records.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ModeMotion {
    /// The mode's number (1-based, by increasing `ω²`).
    pub mode: usize,
    /// What it does.
    pub kind: ModeKind,
    /// `ω` (rad/s).
    pub omega: f64,
    /// The period shown (`2π/ω`; 1 s for a zero or unstable mode, shown as a swing).
    pub period: f64,
    /// The amplitude `a` of the mass-normalized shape.
    pub amplitude: f64,
    /// The largest point displacement at that amplitude (0 without points).
    pub largest_displacement: f64,
}

impl std::fmt::Display for ModeMotion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mode {}: period {:.6e} s, amplitude {:.3e} (largest point displacement {:.3e})",
            self.mode, self.period, self.amplitude, self.largest_displacement
        )
    }
}

/// Write mode `mode` (1-based) of `report` into `out` as a two-period motion. `amplitude` is
/// `a` in `q₀ + a φ sin ωt`; by default the largest point moves a tenth of the scene's size (a
/// tenth of `max(1, max|q₀|)` in the coordinates when there are no points).
pub fn mode_to_folder(
    problem: &Problem,
    report: &ModesReport,
    mode: usize,
    amplitude: Option<f64>,
    out: &Path,
) -> Result<ModeMotion, Error> {
    let Some(m) = mode.checked_sub(1).and_then(|k| report.modes.get(k)) else {
        return Err(OptionError::UnknownName {
            kind: "mode",
            name: mode.to_string(),
            message: match report.modes.len() {
                0 => format!("mode {mode}: there are no modes to draw (none in motion)"),
                k => format!("mode {mode}: the mechanism has modes 1 to {k}"),
            },
        }
        .into());
    };
    let q0 = &report.q;
    let largest =
        |shapes: &[[f64; 3]]| (shapes.iter().flatten()).fold(0.0f64, |a, x| a.max(x.abs()));
    let moved = largest(&report.point_shapes[mode - 1]);
    let coords = m.shape.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    // the size a mode's drawing is measured against: the scene's, or the coordinates'
    let (size, unit) = match moved > 0.0 {
        true => (scene_size(problem, q0), moved),
        false => (
            q0.iter().fold(1.0f64, |a, x| a.max(x.abs())),
            coords.max(1e-300),
        ),
    };
    let a = amplitude.unwrap_or(0.1 * size / unit);
    if !(a.is_finite() && a > 0.0) || a * unit > size {
        let most = size / unit;
        return Err(OptionError::invalid(
            "amplitude",
            format!(
                "amplitude {a:e} moves mode {mode}'s largest point by {:.3e}, beyond the \
                 mechanism's size {size:.3e}: a mode is the linear motion about the configuration, \
                 drawn small; give a positive --amplitude of at most {most:.3e} (default \
                 {:.3e})",
                a * unit,
                0.1 * most
            ),
        )
        .into());
    }
    let period = match m.kind {
        ModeKind::Oscillating => 2.0 * std::f64::consts::PI / m.omega,
        _ => 1.0,
    };

    let outputs = Outputs::from_names(&["positions"]).expect("a known group");
    let mut columns = Columns::new(problem, &outputs);
    let io = |e: std::io::Error| Error::io(out, e);
    let mut folder = RunFolder::open(out).map_err(io)?;
    let mut csv = CsvSink::create(folder.partial(), Schema::of(&columns)).map_err(io)?;
    let scene = serde_json::to_string_pretty(&Scene::of(problem)).map_err(std::io::Error::other);
    scene
        .and_then(|s| folder.write_file("scene.json", &(s + "\n")))
        .map_err(io)?;
    let (n, nc) = (q0.len(), problem.model.n_constraints());
    let zeros = vec![0.0; n.max(nc)];
    let mut row = Vec::new();
    for k in 0..=2 * FRAMES {
        let t = k as f64 * period / FRAMES as f64;
        let s = a * (2.0 * std::f64::consts::PI * t / period).sin();
        let mut q: Vec<f64> = q0.iter().zip(&m.shape).map(|(x, p)| x + s * p).collect();
        if !project_onto_constraints(&problem.model, problem.t0, &mut q) {
            return Err(OptionError::invalid(
                "amplitude",
                format!(
                    "mode {mode} at amplitude {a:.3e} leaves the constraints' reach: choose a \
                 smaller --amplitude"
                ),
            )
            .into());
        }
        let view = StateView {
            t: problem.t0,
            q: &q,
            v: &zeros[..n],
            qdd: &zeros[..n],
            lambda: &zeros[..nc],
        };
        columns.row(problem, view, &mut row);
        row[0] = t;
        csv.row(&row).map_err(io)?;
    }
    let motion = ModeMotion {
        mode,
        kind: m.kind,
        omega: m.omega,
        period,
        amplitude: a,
        largest_displacement: a * moved,
    };
    csv.finish().map_err(io)?;
    folder.finish(&motion, out, "mode.json").map_err(io)?;
    Ok(motion)
}

/// The diagonal of the box around every point of the mechanism at `q` (at least 1e-300).
fn scene_size(problem: &Problem, q: &[f64]) -> f64 {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in &problem.geometry.points {
        let x = p.position(q, problem.t0);
        for k in 0..3 {
            lo[k] = lo[k].min(x[k]);
            hi[k] = hi[k].max(x[k]);
        }
    }
    let d2: f64 = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum();
    match d2.is_finite() && d2 > 0.0 {
        true => d2.sqrt(),
        false => 1.0,
    }
}
