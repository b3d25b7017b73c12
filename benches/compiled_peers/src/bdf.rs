//! The compiled BDF anchor: diffsol's variable-order BDF (the NDF formulas of MATLAB's ode15s and
//! scipy's `BDF`) with nalgebra's dense LU, on the same hand-written right-hand sides in minimal
//! coordinates as the DOP853 anchor. The right-hand sides are written once, generic over the
//! number type: in `f64` for the function, in num-dual's `Dual64` for the Jacobian–vector
//! product `J v` (the directional derivative along `v`: exact, one pass), which is what a Rust
//! user would write instead of deriving `J` by hand.

use diffsol::{NalgebraLU, NalgebraMat, OdeBuilder, OdeSolverMethod, OdeSolverStopReason, Vector};
use num_dual::{Dual64, DualNum};
use std::cell::Cell;
use std::time::Instant;

/// A first-order system `y' = f(t, y)` of `N` components, generic over the number type.
pub trait System {
    /// The state's size.
    const N: usize;
    /// `dy = f(t, y)`.
    fn f<D: DualNum<Primitive = f64> + Copy>(&self, t: f64, y: &[D], dy: &mut [D]);
}

/// The largest state of the cases (the outer solar system's 36).
const MAX: usize = 36;

/// One run's figures: the end state, seconds, steps, rejected attempts, evaluations of `f`
/// (the Jacobian–vector products not counted) and LU factorizations.
pub struct Run {
    pub y: Vec<f64>,
    pub seconds: f64,
    pub steps: usize,
    pub rejected: usize,
    pub evaluations: usize,
    pub factorizations: usize,
}

/// The fastest of `repeat` runs of diffsol's BDF from `y0` to `t_end` at `rtol = atol = tol`.
pub fn run<S: System + Copy>(sys: S, y0: &[f64], t_end: f64, tol: f64, repeat: usize) -> Run {
    assert!(S::N <= MAX && y0.len() == S::N);
    let mut best: Option<Run> = None;
    for _ in 0..repeat.max(1) {
        let evaluations = Cell::new(0usize);
        let start = Instant::now();
        let mut problem = OdeBuilder::<NalgebraMat<f64>>::new()
            .rtol(tol)
            .atol([tol])
            .rhs_implicit(
                |x: &[f64], _p: &[f64], t: f64, y: &mut [f64]| {
                    evaluations.set(evaluations.get() + 1);
                    sys.f(t, x, y);
                },
                |x: &[f64], _p: &[f64], t: f64, v: &[f64], y: &mut [f64]| {
                    let mut xd = [Dual64::from(0.0); MAX];
                    let mut yd = [Dual64::from(0.0); MAX];
                    for i in 0..S::N {
                        xd[i] = Dual64::new(x[i], v[i]);
                    }
                    sys.f(t, &xd[..S::N], &mut yd[..S::N]);
                    for i in 0..S::N {
                        y[i] = yd[i].eps;
                    }
                },
            )
            .init(
                move |_p: &[f64], _t: f64, y: &mut [f64]| y.copy_from_slice(y0),
                S::N,
            )
            .build()
            .expect("the problem builds");
        // the steps a tight tolerance needs (the default budget is 5,000)
        problem.ode_options.max_number_timesteps = 10_000_000;
        let mut solver = problem.bdf::<NalgebraLU<f64>>().expect("a BDF solver");
        solver.set_stop_time(t_end).expect("a stop time");
        loop {
            let step = solver.step().unwrap_or_else(|e| {
                eprintln!("diffsol's BDF failed: {e}");
                std::process::exit(1)
            });
            match step {
                OdeSolverStopReason::TstopReached => break,
                OdeSolverStopReason::InternalTimestep => {}
                OdeSolverStopReason::RootFound(..) => unreachable!("no roots asked for"),
            }
        }
        let y: Vec<f64> = solver.state().y.clone_as_vec();
        let seconds = start.elapsed().as_secs_f64();
        let stats = solver.get_statistics();
        if best.as_ref().is_none_or(|b| seconds < b.seconds) {
            best = Some(Run {
                y,
                seconds,
                steps: stats.number_of_steps,
                rejected: stats.number_of_error_test_failures
                    + stats.number_of_nonlinear_solver_fails,
                evaluations: evaluations.get(),
                factorizations: stats.number_of_linear_solver_setups,
            });
        }
    }
    best.expect("one run at least")
}
