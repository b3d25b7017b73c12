//! The modes report: the modes of a problem about its initial configuration, its equilibrium or
//! its initial steady motion, with the damped roots and each mode's shape as displacements of
//! the mechanism's points.

use super::{DampedMode, Linearization, Mode, ModeKind};
use crate::analysis::{Equilibrium, EquilibriumOptions};
use crate::error::Error;
use crate::problem::Problem;

/// What `lagrangian modes` writes to `modes.json`: the configuration, whether it is an
/// equilibrium (`max |q̈|` at rest), the multipliers and every mode.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ModesReport {
    /// The problem's title.
    pub title: String,
    /// Coordinate names.
    pub coordinates: Vec<String>,
    /// The configuration linearized about.
    pub q: Vec<f64>,
    /// The velocities linearized about (zero but in motion).
    pub velocities: Vec<f64>,
    /// `max |q̈|` there (0 at an equilibrium or in a steady motion; otherwise the modes
    /// describe the linearization of a state that is about to change).
    pub max_acceleration: f64,
    /// In motion, `|K v| / (|K| |v|)`: how much the linearization changes along the motion (0
    /// when the moving coordinates are cyclic, as a steady motion's are); in a moving frame,
    /// how far its generator is from a symmetry (~1e-9 for a true one: difference error).
    pub varies_along_motion: f64,
    /// In motion, when the motion is steady only in a moving frame: the frame's motion as the
    /// parts of the symmetry that carries the state along, with rates
    /// (`("rotation about z", 1.5)` rad/s) — the roots are then in that frame
    /// ([`Symmetry`](super::Symmetry)). Empty at rest and when the moving coordinates are cyclic.
    pub moving_frame: Vec<(String, f64)>,
    /// Multipliers at rest.
    pub lambda: Vec<f64>,
    /// Degrees of freedom (columns of the null-space basis).
    pub dof: usize,
    /// The modes, by increasing `ω²` (empty in motion: the roots are the modes there).
    pub modes: Vec<Mode>,
    /// Where it was linearized: `initial`, `equilibrium` or `motion`.
    pub at: String,
    /// The roots with damping (in motion, with the gyroscopic forces; empty at rest when the
    /// mechanism has no damping).
    pub damped: Vec<DampedMode>,
    /// The moving points of the mechanism's geometry.
    pub points: Vec<String>,
    /// Each mode's shape as displacements of those points, `δx = (∂x/∂q) δq` (central
    /// differences of the point maps; exact for points affine in `q`).
    pub point_shapes: Vec<Vec<[f64; 3]>>,
}

impl ModesReport {
    /// The modes of `problem` about its consistent initial configuration, at rest.
    pub fn initial(problem: &Problem) -> Result<ModesReport, Error> {
        let q = problem.initial_values()?.state.q;
        ModesReport::at(problem, &q, "initial")
    }

    /// The modes of `problem` about its static equilibrium ([`Equilibrium::find`]).
    pub fn equilibrium(problem: &Problem) -> Result<ModesReport, Error> {
        let eq = Equilibrium::find(problem, &EquilibriumOptions::default())?;
        ModesReport::at(problem, &eq.q, "equilibrium")
    }

    /// The roots of `problem` about its consistent initial state with its velocities, a steady
    /// motion ([`Linearization::in_motion`]): a spinning top's nutation.
    pub fn motion(problem: &Problem) -> Result<ModesReport, Error> {
        let state = problem.initial_values()?.state;
        let lin = Linearization::in_motion(problem, &state.q, &state.v)?;
        ModesReport::of(problem, lin, "motion")
    }

    /// The modes of `problem` about the configuration `q` at rest; `at` names it.
    pub fn at(problem: &Problem, q: &[f64], at: &str) -> Result<ModesReport, Error> {
        ModesReport::of(problem, Linearization::at_rest(problem, q)?, at)
    }

    fn of(problem: &Problem, lin: Linearization, at: &str) -> Result<ModesReport, Error> {
        let in_motion = lin.is_moving();
        let modes = match in_motion {
            true => Vec::new(),
            false => lin.modes()?,
        };
        let damped = match in_motion || lin.damping.amax() > 0.0 {
            true => lin.damped_modes()?,
            false => Vec::new(),
        };
        let q = &lin.q;
        let moving: Vec<_> = problem.geometry.moving_points().collect();
        let point_shapes = (modes.iter())
            .map(|m| {
                let size = m.shape.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                let scale = q.iter().fold(1.0f64, |a, x| a.max(x.abs()));
                let eps = 1e-6 * scale / size.max(f64::MIN_POSITIVE);
                let shifted = |s: f64| -> Vec<f64> {
                    q.iter()
                        .zip(&m.shape)
                        .map(|(a, b)| a + s * eps * b)
                        .collect()
                };
                let (plus, minus) = (shifted(1.0), shifted(-1.0));
                (moving.iter())
                    .map(|p| {
                        let (a, b) = (p.position(&plus, lin.t), p.position(&minus, lin.t));
                        [0, 1, 2].map(|k| (a[k] - b[k]) / (2.0 * eps))
                    })
                    .collect()
            })
            .collect();
        let (max_acceleration, varies_along_motion) = lin.steadiness();
        Ok(ModesReport {
            title: problem.title.clone(),
            coordinates: problem.model.coordinate_names().to_vec(),
            max_acceleration,
            varies_along_motion,
            moving_frame: lin
                .moving_frame()
                .map_or_else(Vec::new, |s| s.parts.clone()),
            velocities: lin.velocity.clone(),
            q: q.to_vec(),
            lambda: lin.lambda.clone(),
            dof: lin.basis.ncols(),
            modes,
            at: at.to_string(),
            damped,
            points: moving.iter().map(|p| p.name.clone()).collect(),
            point_shapes,
        })
    }
}

impl std::fmt::Display for ModesReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let moving = self.at == "motion";
        match moving {
            true => writeln!(
                f,
                "{}: {} degrees of freedom, linearized about the initial motion",
                self.title, self.dof
            )?,
            false => writeln!(
                f,
                "{}: {} degrees of freedom, linearized about the {} configuration",
                self.title, self.dof, self.at
            )?,
        }
        if !self.moving_frame.is_empty() {
            let parts: Vec<String> = (self.moving_frame.iter())
                .map(|(name, rate)| {
                    // ten significant digits, as a plain number
                    let rate: f64 = format!("{rate:.9e}").parse().unwrap_or(*rate);
                    format!("{name} at {rate} {}", rate_unit(name))
                })
                .collect();
            writeln!(
                f,
                "  steady in the frame that moves with it ({}): the roots are in that frame; a quantity the frame leaves unchanged (a top's tilt, a cone's angle) oscillates at them",
                parts.join(", ")
            )?;
        }
        if self.max_acceleration > 1e-8 {
            match moving {
                true => writeln!(
                    f,
                    "  not a steady motion: max |q̈| = {:.3e} (the roots linearize this instant of a changing motion)",
                    self.max_acceleration
                )?,
                false => writeln!(
                    f,
                    "  not an equilibrium: max |q̈| = {:.3e} at rest (the modes linearize a configuration about to move)",
                    self.max_acceleration
                )?,
            }
        }
        if self.varies_along_motion > 1e-8 && self.moving_frame.is_empty() {
            writeln!(
                f,
                "  the linearization changes along the motion (|K v| = {:.3e} |K| |v|): the roots hold for this instant; in coordinates in which the moving ones are cyclic (a top's Euler angles) they hold all along",
                self.varies_along_motion
            )?;
        }
        if !self.modes.is_empty() {
            writeln!(
                f,
                "  mode  kind         ω [rad/s]        f [Hz]           ζ"
            )?;
        }
        for (k, m) in self.modes.iter().enumerate() {
            let kind = match m.kind {
                ModeKind::Oscillating => "oscillating",
                ModeKind::Zero => "zero",
                ModeKind::Unstable => "unstable",
            };
            writeln!(
                f,
                "  {:>4}  {kind:<11}  {:<15.9e}  {:<15.9e}  {:.4e}",
                k + 1,
                m.omega,
                m.hz,
                m.damping_ratio
            )?;
        }
        if !self.damped.is_empty() {
            match moving {
                true => writeln!(
                    f,
                    "  roots s = Re s ± i ω_d of det(s²M + sD + K) = 0, D with the gyroscopic forces"
                )?,
                false => writeln!(
                    f,
                    "  with damping: roots s = Re s ± i ω_d of det(s²M + sD + K) = 0"
                )?,
            }
            writeln!(
                f,
                "  root  Re s [1/s]        ω_d [rad/s]       ω_n [rad/s]       ζ"
            )?;
            for (k, d) in self.damped.iter().enumerate() {
                if d.zero {
                    writeln!(f, "  {:>4}  0 (zero within rounding)", k + 1)?;
                    continue;
                }
                writeln!(
                    f,
                    "  {:>4}  {:<16.9e}  {:<16.9e}  {:<16.9e}  {:.6e}",
                    k + 1,
                    d.re,
                    d.im,
                    d.omega_n,
                    d.damping_ratio
                )?;
            }
        }
        Ok(())
    }
}

/// The unit of a moving frame's rate, by the kind of part `name` names (`analysis::symmetry`'s
/// names): a rotation or a body's turning in rad/s, a translation in m/s (SI, as the files),
/// a shift of coordinates in the coordinates' own unit per second.
fn rate_unit(name: &str) -> &'static str {
    if name.starts_with("rotation") || name.contains(" turning about ") {
        "rad/s"
    } else if name.starts_with("translation") {
        "m/s"
    } else {
        "/s"
    }
}

#[cfg(test)]
mod tests {
    use super::rate_unit;

    #[test]
    fn rates_carry_the_unit_of_their_kind() {
        assert_eq!(rate_unit("rotation about z"), "rad/s");
        assert_eq!(rate_unit("Top turning about its k"), "rad/s");
        assert_eq!(rate_unit("translation along x"), "m/s");
        assert_eq!(rate_unit("shift of phi"), "/s");
        assert_eq!(rate_unit("shift of the moving scalar coordinates"), "/s");
    }
}
