//! Solving: consistent initialization, the problem to solve, generalized-α and RK4 behind one
//! [`Integrator`] interface, Newton and linear solvers.

mod adaptive;
mod dense;
mod dop853;
mod drive_watch;
mod dynamics;
mod energy_watch;
mod genalpha;
mod init;
mod init_sparse;
mod integrator;
pub mod linear;
mod mass_check;
mod normal;
mod par;
mod radau;
mod rk4;
mod schur;
pub mod sensitivity;
mod step_work;
mod taylor;

pub use crate::problem::{
    Dop853Options, GenAlphaOptions, InitOptions, LinearSolverKind, Method, Overrides, Problem,
    RadauOptions, Restart, Rk4Options, RunPlan, Stats, StepControl, TaylorOptions,
};
pub use dense::DenseOutput;
pub use dop853::Dop853;
pub use drive_watch::{DRIVE_LAG_NOTED, DRIVE_UNRESOLVED, DriveLag, DriveWatch};
pub use dynamics::StateSolver;
pub use energy_watch::EnergyWatch;
pub use genalpha::{GENALPHA_TIGHTEST, GenAlpha, GenAlphaParams};
pub(crate) use init::pinv_solve;
pub use init::{InitReport, Initial, consistent_initial_values};
pub(crate) use integrator::END_MARGIN;
pub use integrator::{Integrator, MIN_RTOL, MethodSwitch, StepOutcome};
pub(crate) use mass_check::null_space;
pub use mass_check::{MASS_CHECK_DENSE_LIMIT, MassCheck, MassDefect};
pub use radau::Radau;
pub use rk4::Rk4;
pub use step_work::{StepWork, ledger_powers};
pub use taylor::TaylorSeries;
