//! The `lagrangian` command line's arguments (clap definitions); `main.rs` acts on them.

use clap::{Parser, Subcommand};
use lagrangian::problem::Overrides;
use lagrangian::run::sweep::SweepOptions;
use lagrangian::spec;
use lagrangian::view::animation::AnimationOptions;
use lagrangian::view::gif::MAX_SIDE;
use std::path::PathBuf;

/// Lagrangian mechanics of multibody systems: Euler–Lagrange equations by AD, index-3
/// generalized-α.
#[derive(Parser)]
#[command(name = "lagrangian", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Option<Cmd>,
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per process
pub enum Cmd {
    /// Integrate a mechanism file; write DIR/trajectory.csv (or DIR/npy/) and DIR/summary.json.
    #[command(allow_negative_numbers = true)]
    Run(RunArgs),
    /// Run a mechanism file once per combination of parameter values, in parallel on the
    /// local cores; write DIR/sweep.csv (one row per case: the values, the summary's figures,
    /// the --end columns' last values, any error).
    #[command(allow_negative_numbers = true)]
    Sweep(SweepArgs),
    /// Fit parameters to measured (or wanted) coordinates: Levenberg–Marquardt with the exact
    /// sensitivities of the generalized-α run; prints the fitted values and writes the fitted
    /// run and DIR/fit.json.
    #[command(allow_negative_numbers = true)]
    Fit(FitArgs),
    /// A state-space model for control about the initial configuration, the equilibrium or
    /// the initial steady motion (--at):
    /// A, B, C, D in minimal coordinates on the constraint manifold, inputs named parameters,
    /// outputs named columns; prints A's eigenvalues, writes DIR/state_space.json and A.npy … D.npy.
    Linearize(LinearizeArgs),
    /// Parse, build and initialize a mechanism file; print its coordinates, constraints,
    /// degrees of freedom and consistent initial point.
    #[command(allow_negative_numbers = true)]
    Check {
        /// The mechanism (YAML).
        file: PathBuf,
        #[command(flatten)]
        set: Settings,
        /// Print every coordinate, constraint and value (default: the first 24 of each).
        #[arg(long)]
        verbose: bool,
    },
    /// Vibration modes about the file's initial configuration (or its equilibrium) at rest:
    /// frequencies, zero and unstable modes, damping ratios and damped roots; with --at motion
    /// the roots about its initial steady motion (a top's nutation); writes
    /// DIR/modes.json, and with --animate K the motion of mode K to DIR/mode-K/animation.html.
    #[command(allow_negative_numbers = true)]
    Modes {
        /// The mechanism (YAML).
        file: PathBuf,
        /// Output directory (default: out/<file name>).
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        set: Settings,
        /// Linearize about the initial configuration, the static equilibrium, or the initial
        /// state with its velocities (a steady motion: a top spinning in its Euler angles).
        #[arg(long, value_enum, default_value_t = At::Initial)]
        at: At,
        /// Show mode K (1-based): DIR/mode-K/animation.html.
        #[arg(long, value_name = "K")]
        animate: Option<usize>,
        /// Amplitude of the mass-normalized shape (default: the largest point moves a tenth
        /// of the scene).
        #[arg(allow_hyphen_values = true, long)]
        amplitude: Option<f64>,
    },
    /// Static equilibrium, downhill from the file's initial configuration: positions,
    /// stability, multipliers and reactions; writes DIR/equilibrium.json, DIR/scene.json and
    /// DIR/trajectory.csv (the iterates; `animate DIR` shows the search).
    #[command(allow_negative_numbers = true)]
    Equilibrium {
        /// The mechanism (YAML).
        file: PathBuf,
        /// Output directory (default: out/<file name>/equilibrium).
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        set: Settings,
        /// Hold the pinned guesses (ProblemData.fixedpositions) in place; by default they only
        /// shape the starting point.
        #[arg(long = "hold-pins")]
        hold_pins: bool,
        /// Most iterations of the search.
        #[arg(long = "max-iterations", default_value_t = 500)]
        max_iterations: u64,
        /// Then write DIR/animation.html.
        #[arg(long)]
        animate: bool,
    },
    /// Write DIR/animation.html: the run's motion in one offline page (2D, 3D; play, slider);
    /// with --gif also DIR/animation.gif, with --frame-at T a still, DIR/frame.png.
    #[command(allow_negative_numbers = true)]
    Animate {
        /// A run's output directory (with scene.json).
        dir: PathBuf,
        #[command(flatten)]
        anim: AnimArgs,
    },
    /// Plot a run: chosen columns of DIR/trajectory.csv against time, or (without --columns) the
    /// diagnostics sheet (energies, momenta, constraint residual, coordinates). PNG and SVG.
    #[command(allow_negative_numbers = true)]
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

/// Where `modes` linearizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum At {
    /// The consistent initial configuration.
    Initial,
    /// The static equilibrium downhill from it.
    Equilibrium,
    /// The initial state with its velocities, a steady motion (a top spinning in its Euler
    /// angles): roots with the gyroscopic forces.
    Motion,
}

impl From<At> for lagrangian::run::modes::ModesAt {
    fn from(a: At) -> Self {
        match a {
            At::Initial => Self::Initial,
            At::Equilibrium => Self::Equilibrium,
            At::Motion => Self::Motion,
        }
    }
}

/// Parameter overrides shared by `run` and `check`.
#[derive(clap::Args)]
pub struct Settings {
    /// Change a PhysicalParams value, e.g. --set k=200 (repeatable); what depends on it follows.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = spec::parse_set)]
    pub sets: Vec<(String, f64)>,
}

/// The flags that choose the method and the span, shared by `run` and `sweep`.
#[derive(clap::Args)]
pub struct MethodFlags {
    /// Number of steps over the span (overrides SolverParams).
    #[arg(long, conflicts_with = "step")]
    pub steps: Option<usize>,
    /// Step size; the last step is shortened to land on the end time.
    #[arg(allow_hyphen_values = true, long)]
    pub step: Option<f64>,
    /// End time (overrides ProblemData.tend).
    #[arg(allow_hyphen_values = true, long = "t-end")]
    pub t_end: Option<f64>,
    /// Spectral radius at infinity (overrides SolverParams.rho_inf).
    #[arg(allow_hyphen_values = true, long = "rho-inf")]
    pub rho_inf: Option<f64>,
    /// Error control with this tolerance (relative and absolute) instead of a fixed step:
    /// DOP853 (order 8) unless --integrator or the file names another method; overrides
    /// SolverParams.tol; --step gives the first step.
    #[arg(allow_hyphen_values = true, long)]
    pub tol: Option<f64>,
    /// Integrator: genalpha (fixed step, or --tol), dop853 (order 8, with --tol), radau
    /// (Radau IIA, order 5, implicit: stiff mechanisms, with --tol), taylor (Taylor series of
    /// the file's Integration.order, or the order chosen from the tolerance, with --tol), or rk4 (fixed step, unconstrained
    /// mechanisms); overrides SolverParams.
    #[arg(long)]
    pub integrator: Option<String>,
}

impl MethodFlags {
    /// These flags as overrides of the file's settings.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            steps: self.steps,
            step: self.step,
            t_end: self.t_end,
            rho_inf: self.rho_inf,
            integrator: self.integrator.clone(),
            tol: self.tol,
            ..Default::default()
        }
    }
}

/// `lagrangian run`'s arguments.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The mechanism (YAML).
    pub file: PathBuf,
    /// Output directory (default: out/<file name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub set: Settings,
    #[command(flatten)]
    pub method: MethodFlags,
    /// Write every K-th step (overrides SolverParams.output_every).
    #[arg(long = "output-every")]
    pub output_every: Option<usize>,
    /// Write a row at every accepted step, also under error control (which otherwise writes
    /// 1000 even intervals and the end when no output is asked for).
    #[arg(long = "output-every-step")]
    pub output_every_step: bool,
    /// Write a row every DT seconds and at the end, interpolated between steps (Output.dt).
    #[arg(allow_hyphen_values = true, long = "output-dt")]
    pub output_dt: Option<f64>,
    /// Write rows at these times, e.g. 0.5,1,2 (interpolated between steps; Output.at).
    #[arg(long = "output-at", value_delimiter = ',')]
    pub output_at: Option<Vec<f64>>,
    /// Column groups: positions,velocities,accelerations,multipliers,reactions,momenta,user,energies,ledger.
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// A column of your own, NAME=EXPRESSION in the file's names (repeat for more), e.g.
    /// --column 'h = Arm.Tip.z' --column 'q = quaternion(Arm)' (docs/yaml.md, Output).
    #[arg(long = "column")]
    pub column: Vec<String>,
    /// Formats, comma-separated: csv, npy, parquet.
    #[arg(long, value_delimiter = ',')]
    pub format: Option<Vec<String>>,
    /// No progress bar and no summary on the terminal.
    #[arg(long)]
    pub quiet: bool,
    /// Then write DIR/animation.html (as `lagrangian animate DIR`).
    #[arg(long)]
    pub animate: bool,
    #[command(flatten)]
    pub anim: AnimArgs,
    /// Parameters (comma-separated) to differentiate the run with respect to: their exact
    /// sensitivities of q, v and λ go to DIR/sensitivity.csv.
    #[arg(long, value_delimiter = ',')]
    pub sensitivity: Vec<String>,
}

impl RunArgs {
    /// The flags that override the file's solver and output settings.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            output_every: self.output_every,
            columns: self.columns.clone(),
            user_columns: self.column.clone(),
            formats: self.format.clone(),
            output_dt: self.output_dt,
            output_at: self.output_at.clone(),
            output_every_step: self.output_every_step,
            ..self.method.overrides()
        }
    }
}

/// `lagrangian sweep`'s arguments.
#[derive(clap::Args)]
pub struct SweepArgs {
    /// The mechanism (YAML).
    pub file: PathBuf,
    /// Output directory (default: out/<file name>/sweep).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A parameter and its values, e.g. --set k=100,200,400 (repeatable: every combination).
    #[arg(long = "set", value_name = "NAME=V1,V2,…", value_parser = parse_values, required = true)]
    pub grid: Vec<(String, Vec<f64>)>,
    /// Columns whose last value each row reports, e.g. --end B.x,B.y.
    #[arg(long, value_delimiter = ',')]
    pub end: Vec<String>,
    /// Threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    #[command(flatten)]
    pub method: MethodFlags,
    /// No table on the terminal.
    #[arg(long)]
    pub quiet: bool,
}

impl SweepArgs {
    /// The sweep these arguments ask for, stopped early when `interrupt` is raised.
    pub fn options(&self, interrupt: lagrangian::output::Interrupt) -> SweepOptions {
        SweepOptions {
            grid: self.grid.clone(),
            overrides: self.method.overrides(),
            end: self.end.clone(),
            jobs: self.jobs,
            interrupt,
        }
    }
}

/// `lagrangian fit`'s arguments.
#[derive(clap::Args)]
pub struct FitArgs {
    /// The mechanism (YAML).
    pub file: PathBuf,
    /// The targets: a CSV table with a column t and columns named as coordinates (A.x,
    /// theta); an empty cell is no target.
    #[arg(long)]
    pub target: PathBuf,
    /// The parameters to adjust, comma-separated (PhysicalParams names), e.g. --vary k,c.
    #[arg(long, value_delimiter = ',', required = true)]
    pub vary: Vec<String>,
    /// Output directory (default: out/<file name>/fit).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub set: Settings,
    /// Most iterations (one run with sensitivities each).
    #[arg(long = "max-iterations", default_value_t = 50)]
    pub max_iterations: u64,
    /// Stop when a step lowers the cost by less than this fraction.
    #[arg(long, default_value_t = 1e-12)]
    pub tolerance: f64,
    /// Step size of the runs (generalized-α unless --integrator names another; the file's
    /// method otherwise).
    #[arg(allow_hyphen_values = true, long)]
    pub step: Option<f64>,
    /// Number of steps over the span.
    #[arg(long, conflicts_with = "step")]
    pub steps: Option<usize>,
    /// Error tolerance of the runs (DOP853 unless --integrator names another): the runs stop
    /// at the target times, the Jacobian is taken by differences of runs.
    #[arg(allow_hyphen_values = true, long, conflicts_with_all = ["step", "steps"])]
    pub tol: Option<f64>,
    /// The runs' method: genalpha (exact sensitivities), dop853, radau, taylor or rk4.
    #[arg(long)]
    pub integrator: Option<String>,
    /// End time (overrides ProblemData.tend).
    #[arg(allow_hyphen_values = true, long = "t-end")]
    pub t_end: Option<f64>,
}

/// `lagrangian linearize`'s arguments.
#[derive(clap::Args)]
pub struct LinearizeArgs {
    /// The mechanism (YAML).
    pub file: PathBuf,
    /// Input parameters (PhysicalParams that enter forces), comma-separated, e.g. --inputs u.
    #[arg(long, value_delimiter = ',')]
    pub inputs: Vec<String>,
    /// Output columns, comma-separated, e.g. --outputs A.x,angle (any column but the ledger).
    #[arg(long, value_delimiter = ',')]
    pub outputs: Vec<String>,
    /// About the initial configuration, the equilibrium, or the initial steady motion.
    #[arg(long, value_enum, default_value = "initial")]
    pub at: At,
    /// Output directory (default: out/<file name>/linear).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub set: Settings,
}

/// `NAME=V1,V2,…` (finite numbers).
///
/// ```ignore
/// assert_eq!(parse_values("k=1,2.5"), Ok(("k".into(), vec![1.0, 2.5])));
/// ```
fn parse_values(s: &str) -> Result<(String, Vec<f64>), String> {
    let (name, list) = s
        .split_once('=')
        .ok_or("expected NAME=V1,V2,…, e.g. k=100,200,400")?;
    let values = list
        .split(',')
        .map(|v| match v.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(format!("'{v}' is not a finite number")),
        })
        .collect::<Result<Vec<f64>, String>>()?;
    Ok((name.trim().to_string(), values))
}

/// What `animate` (and `run --animate`) draws.
#[derive(clap::Args)]
pub struct AnimArgs {
    /// Frames per second of simulated time.
    #[arg(allow_hyphen_values = true, long, default_value_t = 30.0)]
    fps: f64,
    /// At most this many frames.
    #[arg(long = "max-frames", default_value_t = 1000)]
    max_frames: usize,
    /// Draw the paths of these points, e.g. --trail A,B (default: the file's Animation: trails).
    #[arg(long = "trail", value_delimiter = ',')]
    trails: Option<Vec<String>>,
    /// Colour by speed, tension or a column's name (default: the file's Animation: colour).
    #[arg(long, visible_alias = "color")]
    colour: Option<String>,
    /// Also write DIR/animation.gif.
    #[arg(long)]
    pub gif: bool,
    /// GIF size in pixels, WIDTHxHEIGHT (each side 16 to 4096); also the size of --frame-at's
    /// still.
    #[arg(long = "gif-size", default_value = "640x480")]
    gif_size: String,
    /// Also write DIR/frame.png: the GIF's frame nearest this time, as a still.
    #[arg(long = "frame-at", value_name = "T")]
    frame_at: Option<f64>,
    /// Draw each body's axes (i red, j green, k blue), in the GIF and at first on the page
    /// (default: the file's Animation: frames).
    #[arg(long)]
    frames: bool,
}

impl AnimArgs {
    /// The options these arguments ask for.
    pub fn options(&self) -> Result<AnimationOptions, String> {
        let side = |x: &str| x.trim().parse::<u32>().ok();
        let size = (self.gif_size.split_once('x'))
            .and_then(|(w, h)| Some((side(w)?, side(h)?)))
            .filter(|&(w, h)| [w, h].iter().all(|s| (16..=MAX_SIDE).contains(s)))
            .ok_or_else(|| {
                format!(
                    "--gif-size {}: expected WIDTHxHEIGHT with each side 16 to {MAX_SIDE} \
                     pixels, e.g. 640x480",
                    self.gif_size
                )
            })?;
        if !(self.fps > 0.0 && self.fps.is_finite()) {
            return Err(format!("--fps {}: must be a positive number", self.fps));
        }
        Ok(AnimationOptions {
            fps: self.fps,
            max_frames: self.max_frames,
            trails: self.trails.clone(),
            colour: self.colour.clone(),
            size,
            frames: self.frames.then_some(true),
            frame_at: self.frame_at,
        })
    }
}
