//! Typed errors, one enum per layer, lifted into [`Error`](enum@Error).

use thiserror::Error;

/// Problems in how a model was put together.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ModelError {
    /// A term or constraint refers to a coordinate that does not exist.
    #[error("{what} refers to coordinate {index}, but the model has only {n} coordinates")]
    IndexOutOfRange {
        /// Which element.
        what: String,
        /// The offending index.
        index: usize,
        /// Number of coordinates.
        n: usize,
    },
    /// The same coordinate appears twice in one element.
    #[error("{what} lists the same coordinate twice")]
    RepeatedIndex {
        /// Which element.
        what: String,
    },
    /// A term declares a structure (or translation invariance) that its energies do not have:
    /// the declared derivation differs from the general one.
    #[error(
        "term {term} on coordinates {indices:?} declares {declared}, which does not hold: \
         {detail}; remove the declaration (the default derivation is always right) or make the \
         energies match it"
    )]
    WrongDeclaration {
        /// The term's type.
        term: String,
        /// Its global coordinates.
        indices: Vec<usize>,
        /// What it declares.
        declared: String,
        /// What differs, by how much, where.
        detail: String,
    },
    /// A physical value outside its range (a mass, a length, a stiffness, gravity), named
    /// with the element that has it.
    #[error("{element}: the {quantity} {need}, got {value}")]
    BadValue {
        /// The element (`pendulum chain bob 2`, `3D body`, `mass 0`).
        element: String,
        /// The quantity (`mass`, `length`).
        quantity: String,
        /// The value given.
        value: f64,
        /// What it must be (`must be positive and finite`).
        need: String,
    },
    /// A list of the wrong length (indices of an element, coordinate names, lengths per bob).
    #[error("{what}: {given} given for {expected}")]
    WrongCount {
        /// What the list is, and for what.
        what: String,
        /// How many it needs.
        expected: usize,
        /// How many it has.
        given: usize,
    },
    /// A coordinate no Lagrangian term and no constraint uses: its equation of motion would be
    /// empty.
    #[error(
        "coordinate {index} ({name}) appears in no Lagrangian term and no constraint: its \
         equation of motion would be empty"
    )]
    CoordinateUnused {
        /// The coordinate's index.
        index: usize,
        /// Its name.
        name: String,
    },
    /// Nothing to build: a model without coordinates, a chain without bobs, a cloth without
    /// particles.
    #[error("{what}: {need}")]
    Empty {
        /// What is empty.
        what: String,
        /// What it needs.
        need: String,
    },
    /// An element on more coordinates than the toolkit's static sizes take.
    #[error("an element on {n} coordinates: at most {max} are supported")]
    TooManyCoordinates {
        /// The element's coordinates.
        n: usize,
        /// The most an element may have.
        max: usize,
    },
    /// A geometry or inertia that is not physical or not consistent (an inertia tensor
    /// breaking the triangle inequality, a body frame without extent, points in four
    /// dimensions).
    #[error("{element}: {detail}")]
    BadGeometry {
        /// The element (`3D body`, `body frame`, `points`).
        element: String,
        /// What is wrong, with the values.
        detail: String,
    },
    /// An element that joins nodes that do not exist, a node to itself, or two fixed points.
    #[error("{element} {detail}")]
    BadConnection {
        /// The element (`spring 3`, `distance constraint 0`).
        element: String,
        /// What is wrong (`joins unknown or identical nodes`).
        detail: String,
    },
    /// A point computed by Rust code was given an element to carry: it has no derivatives.
    #[error("a point computed by Rust code cannot carry an element (it has no derivatives)")]
    NotDifferentiable,
}

impl ModelError {
    /// A [`BadValue`](ModelError::BadValue) that must be positive and finite, or `Ok`.
    ///
    /// ```
    /// use lagrangian::error::ModelError;
    /// assert!(ModelError::positive("bob 1", "mass", 2.0).is_ok());
    /// let e = ModelError::positive("bob 1", "mass", -2.0).unwrap_err();
    /// assert_eq!(e.to_string(), "bob 1: the mass must be positive and finite, got -2");
    /// assert!(matches!(e, ModelError::BadValue { value: -2.0, .. }));
    /// ```
    pub fn positive(element: &str, quantity: &str, value: f64) -> Result<(), ModelError> {
        match value > 0.0 && value.is_finite() {
            true => Ok(()),
            false => Err(ModelError::BadValue {
                element: element.to_string(),
                quantity: quantity.to_string(),
                value,
                need: "must be positive and finite".into(),
            }),
        }
    }
}

/// Failures of consistent initialization.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum InitError {
    /// Wrong vector lengths or similar misuse.
    #[error("initial values: {0}")]
    BadInput(String),
    /// No configuration satisfies the constraints near the guess with the pinned values held.
    #[error(
        "constraints cannot be satisfied from this guess with the pinned coordinates held: \
         max |C| = {residual:.3e} after {iterations} iterations (largest: {worst}){hint}"
    )]
    Unsatisfiable {
        /// Remaining max |C|.
        residual: f64,
        /// Iterations done.
        iterations: u64,
        /// Name of the constraint row with the largest residual.
        worst: String,
        /// Extra explanation (conflicting rows, pins).
        hint: String,
    },
    /// The velocity guess cannot be corrected with the pinned velocity components held.
    #[error(
        "velocities cannot satisfy C_q v + C_t = 0 with the pinned components held: max \
         residual {residual:.3e} in {rows} (conflicting drives or constraints: they ask for \
         velocities no motion has)"
    )]
    InconsistentVelocities {
        /// Remaining residual.
        residual: f64,
        /// The rows left unsatisfied, named (drives and constraints).
        rows: String,
    },
    /// The mass matrix of a model without constraints is singular where it is solved by a
    /// tree's articulated bodies.
    #[error("cannot solve for accelerations: the mass matrix is singular: {detail}")]
    SingularMass {
        /// Where (the joint and the body).
        detail: String,
    },
    /// The augmented matrix `[M C_qᵀ; C_q 0]` is singular.
    #[error(
        "cannot solve for accelerations and multipliers: [M C_qᵀ; C_q 0] is singular \
         (a singular mass matrix on the constraint manifold, or redundant constraints{redundant}){culprit}"
    )]
    SingularAugmented {
        /// Names of redundant rows, if any.
        redundant: String,
        /// What was found singular, when a diagnosis named it (`": joint 'j' cannot
        /// accelerate body 'B'…"`), else empty.
        culprit: String,
    },
    /// Constraint rows that depend on earlier ones: the index-3 system with them is singular.
    #[error(
        "redundant constraints: {rows} depend on earlier constraints (the same condition \
         written twice, or a closed loop over-constrained); the integrator needs independent \
         constraints: remove them"
    )]
    Redundant {
        /// The dependent rows, named.
        rows: String,
    },
    /// An evaluation returned NaN or infinity.
    #[error("non-finite value in {what} at the initial point")]
    NonFinite {
        /// What was evaluated.
        what: &'static str,
    },
}

/// Failures of a run's steps: of the method (Newton, error control, a singular or non-finite
/// system), and of the physics checks the run makes after its steps (`#[non_exhaustive]`: new
/// failures a run can name are added without breaking a user's `match`). A caller's options
/// refused before a run are [`OptionError`]s; an analysis' failures, [`AnalysisError`]s.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum SolveError {
    /// Newton did not converge, even with a fresh Jacobian.
    #[error(
        "Newton iteration diverged at t = {t} (step {step}) after {iterations} iterations: \
         residual {residual:.3e}; try a smaller step size"
    )]
    NewtonDiverged {
        /// Time being solved for.
        t: f64,
        /// Step number (1-based).
        step: usize,
        /// The size of the step that failed.
        h: f64,
        /// Iterations done.
        iterations: usize,
        /// Last weighted residual norm.
        residual: f64,
    },
    /// The iteration matrix is singular.
    #[error(
        "singular iteration matrix at t = {t} (step {step}){detail}; check masses and redundant constraints"
    )]
    SingularMatrix {
        /// Time.
        t: f64,
        /// Step number.
        step: usize,
        /// Extra detail.
        detail: String,
    },
    /// A NaN or infinity appeared.
    #[error("non-finite value in the {what} at t = {t} (step {step}){detail}")]
    NonFinite {
        /// Time.
        t: f64,
        /// Step number.
        step: usize,
        /// Where.
        what: &'static str,
        /// Which element, and what to do: `": …"`.
        detail: String,
    },
    /// An output value (a derived point, an expression, an energy) is NaN or infinite while the
    /// state is finite: the quantity is undefined there.
    #[error(
        "output column '{column}' is not finite at t = {t}: the quantity is undefined there \
         (e.g. the square root of a negative number, or a division by zero)"
    )]
    NonFiniteOutput {
        /// Time.
        t: f64,
        /// The column.
        column: String,
    },
    /// The method cannot go on with this model from here (the Taylor method's series of an
    /// element that has none, or of equations it cannot order); another method can. Before the
    /// first step the same is an [`OptionError::Invalid`] on `integrator`.
    #[error("at t = {t} (step {step}): the {method} method cannot go on: {detail}")]
    Unsupported {
        /// The method (`taylor`).
        method: &'static str,
        /// Time.
        t: f64,
        /// Step number.
        step: usize,
        /// Why, and what to choose instead.
        detail: String,
    },
    /// The step was rejected this many times in a row without an accepted step.
    #[error("{attempts} rejected step attempts in a row at t = {t}")]
    TooManyRejections {
        /// Time.
        t: f64,
        /// Attempts made.
        attempts: usize,
    },
    /// Error control could not meet the tolerance at the smallest step allowed.
    #[error(
        "at t = {t}: the step size fell to {h:.3e} (h_min) with the local error still {error:.2e} \
         times the tolerance; {hint}",
        hint = step_hint(method)
    )]
    StepTooSmall {
        /// The method (`generalized-alpha`, `dop853`, `radau`).
        method: &'static str,
        /// Time of the failed attempt's start.
        t: f64,
        /// The step size.
        h: f64,
        /// The error estimate over the tolerance.
        error: f64,
    },
    /// Error control met the rounding of the forces: shrinking the step no longer lowers the
    /// error estimate, so no step meets the tolerance (a stiff mechanism's fast mode, or a
    /// tolerance below what the forces' rounding allows).
    #[error(
        "at t = {t}: the {method} error estimate stays near {error:.2e} times the tolerance \
         while the step fell from {h_from:.3e} to {h:.3e}: it is the rounding of the forces, \
         not the method's error, and no step meets the tolerance here; a stiff mechanism \
         takes the method radau (--integrator radau), otherwise loosen the tolerance"
    )]
    ErrorFloor {
        /// The method (`dop853`).
        method: &'static str,
        /// Time of the attempts' start.
        t: f64,
        /// The first rejected step of the streak.
        h_from: f64,
        /// The last attempted step.
        h: f64,
        /// The error estimate over the tolerance at `h`.
        error: f64,
    },
    /// An explicit method the user chose rejected a large share of its attempts for a long
    /// stretch: a fast mode ringing at the edge of its step's accuracy and stability.
    #[error(
        "at t = {t}: {method} rejected at least 40 % of each of its last {attempts} attempts \
         (steps near {h:.3e}): a fast mode rings at the edge of the step's stability — the \
         mechanism is stiff; take the method radau (--integrator radau), or leave the method \
         to the tolerance alone (it switches), or loosen the tolerance"
    )]
    Struggling {
        /// The method (`dop853`).
        method: &'static str,
        /// Time of the last attempt's start.
        t: f64,
        /// The attempts of the struggling stretch.
        attempts: usize,
        /// The last attempted step.
        h: f64,
    },
    /// Projecting a state (an output between steps) onto the constraints failed.
    #[error("at t = {t}: the projection of the interpolated state onto the constraints {detail}")]
    Projection {
        /// Time of the state.
        t: f64,
        /// What failed.
        detail: String,
    },
    /// The mass matrix is not positive definite on the constraint manifold: some motion the
    /// constraints allow has negative or no kinetic energy ([`MassCheck`](crate::solve::MassCheck)).
    #[error(
        "at t = {t}{at}: the mass matrix is not positive definite: {detail}; the kinetic \
         energy must be positive for every motion the constraints allow (check the signs and \
         the time and position dependence of the masses and of T)",
        at = if *step == 0 { " (the start)".to_string() } else { format!(" (step {step})") }
    )]
    MassNotPositive {
        /// Time of the state.
        t: f64,
        /// Step number (0: the initial state).
        step: usize,
        /// The term and the motion ([`MassDefect::detail`](crate::solve::MassDefect)).
        detail: String,
    },
    /// A step failed where the forces of one term had grown by orders of magnitude since the
    /// start: a singularity (a pole of a potential, a collision), which a smaller step does not
    /// pass ([`assembly::grown_forces`](crate::assembly::grown_forces)).
    #[error(
        "at t = {t} (step {step}): the forces of {term} grew to {force:.3e}, {growth:.1e} times \
         their size at the start: a singularity such as a pole of a potential or a collision, \
         which a smaller step will not pass — check that term's energy near this state \
         (the step failed: {failure})"
    )]
    Singularity {
        /// Time of the last accepted state.
        t: f64,
        /// Steps accepted.
        step: usize,
        /// The term, by the coordinates it acts on.
        term: String,
        /// Its largest force now.
        force: f64,
        /// Now over at the start.
        growth: f64,
        /// The failure of the step, as reported by the integrator.
        failure: String,
    },
    /// A Rayleigh function feeds energy in: its power `v·∂R/∂v` is negative
    /// ([`assembly::negative_dissipation`](crate::assembly::negative_dissipation)).
    #[error(
        "at t = {t} (step {step}): the Rayleigh function of {term} dissipates {power:.3e} (negative: \
         it feeds energy in); a Rayleigh function must be nonnegative, with v·∂R/∂v ≥ 0 — \
         check its sign (a force that drives the motion is an applied force, not dissipation)"
    )]
    NegativeDissipation {
        /// Time of the state.
        t: f64,
        /// Step number.
        step: usize,
        /// The term, by the coordinates it acts on.
        term: String,
        /// Its power `v·∂R/∂v`.
        power: f64,
    },
    /// The accepted state is off its constraints by far more than any method leaves: the
    /// coordinates cannot resolve the motion (an angle so large that its rounding exceeds the
    /// motion: `1e17` rad moves in steps of 16), or the constraints and the method disagree.
    #[error(
        "at t = {t} (step {step}): the state is off its constraints, |C| = {residual:.3e} in \
         {row} (coordinates up to {scale:.3e}: a coordinate that large cannot resolve the \
         motion — an angle beyond ~1e6 rad, a position far from the origin — or the \
         constraints cannot hold here); the run's results would not be a motion of the \
         mechanism"
    )]
    ConstraintsLost {
        /// Time of the state.
        t: f64,
        /// Step number.
        step: usize,
        /// The constraint row with the largest residual.
        row: String,
        /// Its residual.
        residual: f64,
        /// The largest coordinate.
        scale: f64,
    },
    /// The velocities miss a driven constraint's rate by a large part of it: the drive's motion
    /// changes faster than the step follows (generalized-α at a fixed step, `ωh` near 1 or
    /// beyond), so positions meet the drive only at the steps and everything between is wrong.
    #[error(
        "at t = {t} (step {step}): the step h = {h:.3e} does not resolve the motion of {row}: \
         the velocities miss its rate C_t by {residual:.3e} where the rate reaches \
         {rate:.3e} ({percent:.0}%); its motion changes faster than the step follows — take \
         a smaller step (--step {suggest:.1e} or less) or an error-controlled method (--tol)"
    )]
    DriveUnresolved {
        /// Time of the state.
        t: f64,
        /// Step number.
        step: usize,
        /// The step size.
        h: f64,
        /// The driven constraint, named.
        row: String,
        /// `|C_q v + C_t|` of the row.
        residual: f64,
        /// The largest `|C_t|` of the row seen so far.
        rate: f64,
        /// `100 · residual / rate`.
        percent: f64,
        /// A step that would resolve it (a quarter of `h`).
        suggest: f64,
    },
    /// The energy of a mechanism without applied forces, dissipation, time dependence or
    /// driving constraints grew by more than half of the most energy it exchanged: a step jumped
    /// across a singularity of the potential (a pole), or the step is far too large for the
    /// motion.
    #[error(
        "at t = {t} (step {step}) the energy of this conservative mechanism (no applied forces, \
         dissipation, time dependence or drives) has grown from {e0:.6e} to {e:.6e} (by {gain:.3e}); \
         the potential of {term} changed most since {since} (by {change:.3e}): a step jumped \
         across a singularity of its potential (a pole), or the step is too large for the motion \
         — take smaller steps (a smaller fixed step, or error control by a tolerance) or remove \
         the singularity"
    )]
    EnergyGained {
        /// Time of the state.
        t: f64,
        /// Step number.
        step: usize,
        /// The energy function at the start.
        e0: f64,
        /// The energy function now.
        e: f64,
        /// `e − e0`.
        gain: f64,
        /// The previous check, in words (`t = 0.32 (step 16)`).
        since: String,
        /// The term whose potential changed most since the previous check, by its coordinates.
        term: String,
        /// That change.
        change: f64,
    },
}

/// A caller's option or name refused before anything runs: an option out of its range, options
/// that do not go together, a name the mechanism does not have.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum OptionError {
    /// An option out of its range, or options that do not go together. `option` is the
    /// library's name of the option a program can match (`h`, `rho_inf`, `tol`, `t_end`,
    /// `steps`, `output_every`, `output_times`, `integrator`, `columns`, `format`, `guess`,
    /// `parameters`, `sensitivity`, …); the message names it as the caller gave it.
    #[error("invalid solver options: {message}")]
    Invalid {
        /// The option, by its field name.
        option: String,
        /// What is wrong, and what would do.
        message: String,
    },
    /// A name that is not there: a parameter, coordinate, column or mode asked for that the
    /// mechanism does not have.
    #[error("invalid solver options: {message}")]
    UnknownName {
        /// What kind of name (`parameter`, `coordinate`, `column`, `mode`).
        kind: &'static str,
        /// The name (or number) given.
        name: String,
        /// The message, with the names there are.
        message: String,
    },
}

impl OptionError {
    /// [`OptionError::Invalid`] on `option` with `message`.
    ///
    /// ```
    /// use lagrangian::error::OptionError;
    /// let e = OptionError::invalid("tol", "tol = -1 must be positive");
    /// assert_eq!(e.to_string(), "invalid solver options: tol = -1 must be positive");
    /// ```
    pub fn invalid(option: &str, message: impl Into<String>) -> Self {
        OptionError::Invalid {
            option: option.to_string(),
            message: message.into(),
        }
    }
}

/// Failures of the analyses about a state: the linearization (modes, state-space models,
/// sensitivities' symmetry checks) and the search for a static equilibrium.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum AnalysisError {
    /// The linearization about a state could not be formed (a singular reduced mass matrix,
    /// a state off the constraints).
    #[error("linearization: {0}")]
    Linearization(String),
    /// The search for a static equilibrium ended without one.
    #[error(
        "no equilibrium found after {iterations} iterations (unbalanced force {residual:.3e} \
         relative to the loads): {detail}"
    )]
    NoEquilibrium {
        /// Iterations taken.
        iterations: u64,
        /// `max |r_F + C_qᵀλ| / max |r_F|` where it stopped.
        residual: f64,
        /// Why it stopped.
        detail: String,
    },
}

/// Any error of the toolkit.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// See [`ModelError`].
    #[error(transparent)]
    Model(#[from] ModelError),
    /// See [`InitError`].
    #[error(transparent)]
    Init(#[from] InitError),
    /// See [`SolveError`].
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// See [`OptionError`].
    #[error(transparent)]
    Options(#[from] OptionError),
    /// See [`AnalysisError`].
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// The optimizer of a fit failed.
    #[error("fit: {0}")]
    Fit(String),
    /// The model or the run needs more memory than the machine has (see `problem::memory`).
    #[error("too large for this machine: {0}")]
    TooLarge(String),
    /// See [`SpecError`]: a mechanism file, with its place.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// See [`ExprError`].
    #[error("expression: {0}")]
    Expr(#[from] ExprError),
    /// See [`PlotError`].
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// Reading or writing a file failed.
    #[error("{path}: {message}")]
    Io {
        /// The file or folder.
        path: String,
        /// What went wrong.
        message: String,
    },
}

impl SolveError {
    /// [`SolveError::SingularMatrix`] at time `t` (step `step`): `what` says which matrix or
    /// solve when it is not the step's iteration matrix (`"(mass matrix)"`, `"in the velocity
    /// projection"`; `""` for the iteration matrix), `cause` what the factorization found — the
    /// one way every method reports a singular matrix.
    ///
    /// ```
    /// use lagrangian::error::SolveError;
    /// let e = SolveError::singular(0.5, 12, "(mass matrix)", "zero pivot in column 3");
    /// assert_eq!(
    ///     e.to_string(),
    ///     "singular iteration matrix at t = 0.5 (step 12) (mass matrix): zero pivot in column 3; \
    ///      check masses and redundant constraints"
    /// );
    /// ```
    pub fn singular(t: f64, step: usize, what: &str, cause: impl std::fmt::Display) -> Self {
        let detail = match what {
            "" => format!(": {cause}"),
            what => format!(" {what}: {cause}"),
        };
        SolveError::SingularMatrix { t, step, detail }
    }
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path, e: std::io::Error) -> Self {
        Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }
}

/// An error in a mechanism file, with its place.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecError {
    /// File name as given.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The field, as a dotted path (`PartData.Springs.AB`).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        } else {
            write!(
                f,
                "{}:{}:{}: {}: {}",
                self.file, self.line, self.column, self.field, self.message
            )
        }
    }
}

impl std::error::Error for SpecError {}

/// A parse or evaluation error, with the character offset in the expression text.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprError {
    /// What went wrong.
    pub message: String,
    /// Character offset in the expression.
    pub offset: usize,
}

impl std::fmt::Display for ExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{} (at character {})", self.message, self.offset + 1)
    }
}

/// A failure of a picture (plot, animation, GIF) or of reading a run back for one, with what
/// to do about it. Each variant's message names the file or option.
#[derive(Clone, Debug, PartialEq, Error)]
#[non_exhaustive]
pub enum PlotError {
    /// A file of the run cannot be read or is not what the toolkit writes.
    #[error("{message}")]
    Read {
        /// The file or folder.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A picture cannot be written.
    #[error("cannot write {path}: {message}")]
    Write {
        /// The file.
        path: String,
        /// The cause.
        message: String,
    },
    /// The run has nothing the picture asks for: a column, a point, a velocity group, rows.
    #[error("{message}")]
    Missing {
        /// What was asked for (the column, `trail A`, `colour speed`, `rows`).
        what: String,
        /// The message, with what there is.
        message: String,
    },
    /// An option of the picture is out of range.
    #[error("{message}")]
    InvalidOption {
        /// The option (`size`, `frames`, …).
        option: String,
        /// What is wrong.
        message: String,
    },
    /// The drawing library failed.
    #[error("{0}")]
    Draw(String),
}

impl PlotError {
    /// [`PlotError::Read`] of `path` with `message` (which names the file).
    pub fn read(path: &std::path::Path, message: impl Into<String>) -> Self {
        PlotError::Read {
            path: path.display().to_string(),
            message: message.into(),
        }
    }
    /// [`PlotError::Write`] of `path`.
    pub fn write(path: &std::path::Path, e: impl std::fmt::Display) -> Self {
        PlotError::Write {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }
    /// [`PlotError::Missing`]: `what` is not in the run.
    pub fn missing(what: impl Into<String>, message: impl Into<String>) -> Self {
        PlotError::Missing {
            what: what.into(),
            message: message.into(),
        }
    }
}
impl std::error::Error for ExprError {}

/// What to do when error control of `method` met its smallest step.
fn step_hint(method: &str) -> &'static str {
    match method {
        "generalized-alpha" => {
            "generalized-α is of order 2: loosen the tolerance, or take the method dop853 \
             (order 8) or, for a stiff mechanism, radau (order 5)"
        }
        "dop853" => "loosen the tolerance or lower h_min; a stiff mechanism takes the method radau",
        _ => "loosen the tolerance or lower h_min",
    }
}
