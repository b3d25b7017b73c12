//! What a run writes: the column groups of its trajectory and the file formats.

use serde::{Deserialize, Serialize};

/// The column groups of a trajectory, in the order they appear in a row. `t` always comes
/// first.
pub const GROUPS: [&str; 9] = [
    "positions",
    "velocities",
    "accelerations",
    "multipliers",
    "reactions",
    "momenta",
    "user",
    "energies",
    "ledger",
];

/// The columns of the group `energies`.
pub const ENERGY_COLUMNS: [&str; 4] = ["kinetic", "potential", "total", "max_constraint_residual"];

/// The columns of the group `ledger`.
pub const LEDGER_COLUMNS: [&str; 5] = [
    "work_forces",
    "work_drives",
    "work_time",
    "dissipated",
    "balance_error",
];

/// The columns of the group `momenta` in 3D (in 2D `Px, Py, |P|, Lz`, in 1D `Px`).
pub const MOMENTA_COLUMNS: [&str; 8] = ["Px", "Py", "Pz", "|P|", "Lx", "Ly", "Lz", "|L|"];

/// A file format a run's table is written in (`--format`, `Output: format`, `formats=`).
///
/// ```
/// use lagrangian::problem::{Format, Outputs};
/// let o = Outputs::default().formats(&["parquet", "csv"]).unwrap();
/// assert_eq!(o.formats, [Format::Csv, Format::Parquet]);
/// assert_eq!(o.formats_names(), ["csv", "parquet"]);
/// assert!(Outputs::default().formats(&["hdf"]).unwrap_err().contains("csv, npy or parquet"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Format {
    /// `trajectory.csv`: a header of column names, then a row per output with 13 significant
    /// digits.
    Csv,
    /// `npy/<group>.npy`: one float64 NumPy array per column group, `npy/columns.json` naming
    /// each array's columns (`numpy.load`, memory-mapped by the Python package).
    Npy,
    /// `trajectory.parquet`: Apache Parquet, one float64 column per output column, exact
    /// (`pandas.read_parquet`, pyarrow, MATLAB's `parquetread`, R's arrow).
    Parquet,
}

impl Format {
    /// Every format, in the order a run lists them.
    pub const ALL: [Format; 3] = [Format::Csv, Format::Npy, Format::Parquet];

    /// The format's name in files, on the command line and in Python.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Npy => "npy",
            Format::Parquet => "parquet",
        }
    }

    /// The format called `name`.
    pub fn parse(name: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| format!("unknown format '{name}': expected {}", Format::expected()))
    }

    /// "csv, npy or parquet".
    fn expected() -> String {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        let (last, rest) = names.split_last().expect("formats exist");
        format!("{} or {last}", rest.join(", "))
    }
}

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
    /// The columns the user defines ([`Problem::column`](crate::problem::Problem::column),
    /// `Output.columns` entries `name: expression`), when the problem has any.
    #[serde(default = "yes")]
    pub user: bool,
    /// `kinetic`, `potential`, `total` (the energy function) and `max_constraint_residual`.
    pub energies: bool,
    /// The energy ledger: `work_forces`, `work_drives`, `work_time`, `dissipated`,
    /// `balance_error`.
    pub ledger: bool,
    /// The file formats the table is written in, each once, in [`Format::ALL`] order.
    pub formats: Vec<Format>,
    /// What `lagrangian plot` draws for the run (e.g. the N-pendulum configuration's
    /// `system.plot` toggles); empty: the diagnostics sheet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plots: Vec<PlotPanel>,
}

fn yes() -> bool {
    true
}

/// A panel for `lagrangian plot`: a title and the columns drawn against time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlotPanel {
    /// Panel title.
    pub title: String,
    /// Column names.
    pub columns: Vec<String>,
}

impl Default for Outputs {
    fn default() -> Self {
        Outputs {
            plots: Vec::new(),
            positions: true,
            velocities: true,
            accelerations: false,
            multipliers: true,
            reactions: true,
            momenta: true,
            user: true,
            energies: true,
            ledger: true,
            formats: vec![Format::Csv],
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
            user: false,
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

    /// Set the formats from names (any of [`Format::ALL`]'s names).
    pub fn formats<S: AsRef<str>>(mut self, names: &[S]) -> Result<Self, String> {
        let mut on = Vec::new();
        for n in names {
            on.push(Format::parse(n.as_ref().trim())?);
        }
        if on.is_empty() {
            return Err(format!("no output format: expected {}", Format::expected()));
        }
        on.sort_unstable();
        on.dedup();
        self.formats = on;
        Ok(self)
    }

    /// The names of the formats that are on.
    pub fn formats_names(&self) -> Vec<&'static str> {
        self.formats.iter().map(|f| f.name()).collect()
    }

    /// Whether the table is written in format `f`.
    pub fn writes(&self, f: Format) -> bool {
        self.formats.contains(&f)
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
            "user" => &mut self.user,
            "energies" => &mut self.energies,
            "ledger" => &mut self.ledger,
            _ => return None,
        })
    }
}

/// The times at which a run keeps a row, instead of every k-th step: rows between steps are
/// interpolated consistently with the scheme and projected onto the constraints
/// ([`DenseOutput`](crate::solve::DenseOutput)); the step sequence does not change.
///
/// ```
/// use lagrangian::problem::OutputTimes;
/// let every = OutputTimes::Every(0.25);
/// let t: Vec<f64> = (0..).map_while(|k| every.time(k, 0.0, 0.6)).collect();
/// assert_eq!(t, [0.0, 0.25, 0.5, 0.6]); // and the end
/// let at = OutputTimes::At(vec![0.1, 0.3]);
/// assert_eq!(at.time(1, 0.0, 1.0), Some(0.3));
/// assert!(at.check(0.0, 1.0).is_ok() && OutputTimes::At(vec![0.3, 0.1]).check(0.0, 1.0).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputTimes {
    /// `t0, t0 + Δt, t0 + 2Δt, …` below the end, and the end.
    Every(f64),
    /// These times (ascending, within the time span).
    At(Vec<f64>),
}

impl OutputTimes {
    /// The `k`-th output time of a run over `[t0, t_end]` (`None` past the last).
    pub fn time(&self, k: usize, t0: f64, t_end: f64) -> Option<f64> {
        match self {
            OutputTimes::Every(dt) => {
                let below = self.count(t0, t_end) - 1;
                match k.cmp(&below) {
                    std::cmp::Ordering::Less => Some(t0 + k as f64 * dt),
                    std::cmp::Ordering::Equal => Some(t_end),
                    std::cmp::Ordering::Greater => None,
                }
            }
            OutputTimes::At(list) => list.get(k).copied(),
        }
    }

    /// How many rows a run over `[t0, t_end]` keeps.
    pub fn count(&self, t0: f64, t_end: f64) -> usize {
        match self {
            // the grid points below t_end (by more than 10⁻⁹ Δt), then t_end
            OutputTimes::Every(dt) => {
                let k = ((t_end - t0) / dt - 1e-9).ceil().max(0.0);
                k.min(usize::MAX as f64 / 2.0) as usize + 1
            }
            OutputTimes::At(list) => list.len(),
        }
    }

    /// Check against a time span: a positive finite `Δt` giving at most `max` rows, or finite
    /// ascending times within `[t0, t_end]`.
    pub fn check(&self, t0: f64, t_end: f64) -> Result<(), String> {
        const MAX: usize = crate::problem::MAX_STEPS;
        match self {
            OutputTimes::Every(dt) => {
                if !(*dt > 0.0 && dt.is_finite()) {
                    return Err(format!("output step {dt} must be positive and finite"));
                }
                if (t_end - t0) / dt > MAX as f64 {
                    return Err(format!(
                        "output step {dt} over [{t0}, {t_end}] gives more than {MAX} rows"
                    ));
                }
            }
            OutputTimes::At(list) => {
                if list.len() > MAX {
                    return Err(format!("{} output times; the limit is {MAX}", list.len()));
                }
                let span = (t_end - t0).abs().max(1.0);
                for (i, &t) in list.iter().enumerate() {
                    if !(t >= t0 - 1e-12 * span && t <= t_end + 1e-12 * span) {
                        return Err(format!(
                            "output time {t} lies outside the time span [{t0}, {t_end}]"
                        ));
                    }
                    if i > 0 && !(t > list[i - 1]) {
                        return Err(format!(
                            "output times must increase: {} then {t}",
                            list[i - 1]
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
