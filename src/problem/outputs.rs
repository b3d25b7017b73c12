//! What a run writes: the column groups of its trajectory and the file formats.

use serde::{Deserialize, Serialize};

/// The column groups of a trajectory, in the order they appear in a row. `t` always comes
/// first.
pub const GROUPS: [&str; 8] = [
    "positions",
    "velocities",
    "accelerations",
    "multipliers",
    "reactions",
    "momenta",
    "energies",
    "ledger",
];

/// Which column groups a run writes, and in which formats (docs/yaml.md, `Output`).
///
/// The default writes everything but the accelerations, as CSV.
///
/// ```
/// use lagrangian::problem::Outputs;
/// let o = Outputs::from_names(&["positions", "multipliers"]).unwrap();
/// assert!(o.positions && o.multipliers && !o.velocities && !o.ledger);
/// assert_eq!(o.names(), ["positions", "multipliers"]);
/// assert!(Outputs::from_names(&["speed"]).unwrap_err().contains("velocities"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outputs {
    /// Moving points (`A.x …`) and the coordinates that are not point components (by name).
    pub positions: bool,
    /// Velocities of the moving points (`A.vx …`) and of those coordinates (`mu.v`, `u.vx`).
    pub velocities: bool,
    /// Accelerations of every coordinate (`A.ax …`, `mu.a`).
    pub accelerations: bool,
    /// The Lagrange multiplier of every constraint row (`lambda:<constraint>`).
    pub multipliers: bool,
    /// For every constraint the generalized force `−C_qᵀλ` on each coordinate it acts on
    /// (`reaction:<constraint>:<coordinate>`); for bars also the force on each end point
    /// (`force:<bar>:<point>.x …`) and the tension (`tension:<bar>`); for a drive the force or
    /// torque it delivers (`drive:<name>`).
    pub reactions: bool,
    /// Total linear and angular momentum (when the geometry defines them).
    pub momenta: bool,
    /// `kinetic`, `potential`, `total` (the energy function) and `max_constraint_residual`.
    pub energies: bool,
    /// The energy ledger: `work_forces`, `work_drives`, `work_time`, `dissipated`,
    /// `balance_error`.
    pub ledger: bool,
    /// Write `trajectory.csv`.
    pub csv: bool,
    /// Write NumPy files (`npy/<group>.npy`, one array per column group).
    pub npy: bool,
}

impl Default for Outputs {
    fn default() -> Self {
        Outputs {
            positions: true,
            velocities: true,
            accelerations: false,
            multipliers: true,
            reactions: true,
            momenta: true,
            energies: true,
            ledger: true,
            csv: true,
            npy: false,
        }
    }
}

impl Outputs {
    /// Only the groups named (any of [`GROUPS`]); formats as by default.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Self, String> {
        let mut o = Outputs {
            positions: false,
            velocities: false,
            accelerations: false,
            multipliers: false,
            reactions: false,
            momenta: false,
            energies: false,
            ledger: false,
            ..Outputs::default()
        };
        for n in names {
            let n = n.as_ref().trim();
            *o.flag_mut(n).ok_or_else(|| {
                format!(
                    "unknown column group '{n}': expected any of {}",
                    GROUPS.join(", ")
                )
            })? = true;
        }
        Ok(o)
    }

    /// Set the formats from names (`csv`, `npy`).
    pub fn formats<S: AsRef<str>>(mut self, names: &[S]) -> Result<Self, String> {
        self.csv = false;
        self.npy = false;
        for n in names {
            match n.as_ref().trim() {
                "csv" => self.csv = true,
                "npy" => self.npy = true,
                other => return Err(format!("unknown format '{other}': expected csv or npy")),
            }
        }
        if !self.csv && !self.npy {
            return Err("no output format: expected csv, npy or both".into());
        }
        Ok(self)
    }

    /// The names of the formats that are on (`csv`, `npy`).
    pub fn formats_names(&self) -> Vec<&'static str> {
        [("csv", self.csv), ("npy", self.npy)]
            .into_iter()
            .filter_map(|(n, on)| on.then_some(n))
            .collect()
    }

    /// The names of the groups that are on, in [`GROUPS`] order.
    pub fn names(&self) -> Vec<&'static str> {
        GROUPS
            .into_iter()
            .filter(|g| self.flag(g).unwrap_or(false))
            .collect()
    }

    /// Whether group `name` is on (`None` for an unknown name).
    pub fn flag(&self, name: &str) -> Option<bool> {
        let mut o = self.clone();
        o.flag_mut(name).map(|f| *f)
    }

    fn flag_mut(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "positions" => &mut self.positions,
            "velocities" => &mut self.velocities,
            "accelerations" => &mut self.accelerations,
            "multipliers" => &mut self.multipliers,
            "reactions" => &mut self.reactions,
            "momenta" => &mut self.momenta,
            "energies" => &mut self.energies,
            "ledger" => &mut self.ledger,
            _ => return None,
        })
    }
}
