//! Whether the step resolves the motion of the driven constraints.
//!
//! A drive `s(q) − f(t) = 0` is met at every step by the index-3 methods, whatever the step; but
//! when `f` changes faster than the step follows (a drive of angular frequency `ω` at `ωh`
//! near 1 or beyond) the velocities between the steps are an alias of the motion, and the
//! forces, energies and torques of the run are wrong. The velocity-level residual of the row,
//! `C_q v + C_t`, tells: it is `O((ωh)²)` of the drive's rate `|C_t|` while the step follows
//! the drive (1.5 % at `ωh = 0.3`, 15 % at 1, 100 % at 2 for generalized-α) and 0 for the
//! methods that project velocities. [`DriveWatch`] compares it with the largest rate the row has
//! reached and stops the run when it is beyond [`DRIVE_UNRESOLVED`] at two checks in a row (a
//! drive of `ωh ≳ 1.2`; the lag after a kink in a drive's motion — a ramp switched on — decays
//! between two checks and is let through).

use crate::assembly::{self, ConstraintElement};
use crate::error::{Error, SolveError};
use crate::model::{Model, StateView};

/// The velocity-level residual of a driven row, relative to the largest rate it has reached,
/// beyond which (at two checks in a row) the run stops ([`DriveWatch`]): generalized-α's peak
/// reaches it at `ωh ≈ 0.8`, every check from `ωh ≈ 1.2`.
pub const DRIVE_UNRESOLVED: f64 = 0.1;

/// The relative velocity-level residual of a driven row from which the run's summary notes the
/// lag ([`DriveWatch::lag_note`]): `ωh ≈ 0.35` for generalized-α.
pub const DRIVE_LAG_NOTED: f64 = 0.02;

/// The largest lag of a driven row below [`DRIVE_UNRESOLVED`] seen by the checks.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveLag {
    /// The row (`drive 'motor'`, …).
    pub row: String,
    /// `|C_q v + C_t|` over the row's largest rate, in percent.
    pub percent: f64,
    /// Where, and at which step size.
    pub t: f64,
    /// The step size there.
    pub h: f64,
}

/// The driven rows' largest rates so far and the scratch of the check.
#[derive(Clone, Debug, Default)]
pub struct DriveWatch {
    elements: Vec<ConstraintElement>,
    /// `C_t` of every row at the checked state.
    ct: Vec<f64>,
    /// The largest `|C_t|` of each row so far.
    rate: Vec<f64>,
    /// A local Jacobian.
    jac: Vec<f64>,
    /// Each row was over the limit at the previous check.
    over: Vec<bool>,
    /// The largest lag from [`DRIVE_LAG_NOTED`] on, if any.
    worst: Option<DriveLag>,
}

impl DriveWatch {
    /// The watch of `model`'s constraints (empty without constraints).
    pub fn new(model: &Model) -> Self {
        let m = model.n_constraints();
        DriveWatch {
            elements: match m {
                0 => Vec::new(),
                _ => assembly::constraint_elements(model),
            },
            ct: vec![0.0; m],
            rate: vec![0.0; m],
            jac: Vec::new(),
            over: vec![false; m],
            worst: None,
        }
    }

    /// The largest lag of a driven row the checks saw from [`DRIVE_LAG_NOTED`] on (a run
    /// that goes on, but whose drive forces are off by about as much).
    pub fn worst_lag(&self) -> Option<&DriveLag> {
        self.worst.as_ref()
    }

    /// The run summary's note on [`worst_lag`](Self::worst_lag): the lag grows as `(ωh)²`, so
    /// the step that brings it to half a percent is suggested.
    pub fn lag_note(&self) -> Option<String> {
        self.worst.as_ref().map(|w| {
            format!(
                "the {} lags its motion by up to {:.1} % in velocity (t = {}, h = {:.3e}): its \
                 forces, torques and energies are off by about as much; a step of {:.1e} \
                 brings it to 0.5 % (or an error-controlled method, which follows the drive)",
                w.row,
                w.percent,
                w.t,
                w.h,
                w.h * (0.5 / w.percent).sqrt()
            )
        })
    }

    /// Check `state` (after step `step` of size `h`): `Err` with
    /// [`SolveError::DriveUnresolved`] naming the row when a driven row's `|C_q v + C_t|`
    /// exceeds [`DRIVE_UNRESOLVED`] of its largest rate so far.
    pub fn check(
        &mut self,
        model: &Model,
        state: StateView<'_>,
        step: usize,
        h: f64,
    ) -> Result<(), Error> {
        self.check_at(model, state, step, h, DRIVE_UNRESOLVED, true)
    }

    /// [`check`](Self::check) with the relative residual `limit` (a step that failed already
    /// is blamed on a drive at a tenth of [`DRIVE_UNRESOLVED`]); `twice`: only a row over the
    /// limit at this check and the one before — a drive the step does not follow stays over
    /// it, while the lag after a kink in a drive's motion (a ramp switched on) decays within a
    /// few steps of the method's damping.
    pub fn check_at(
        &mut self,
        model: &Model,
        state: StateView<'_>,
        step: usize,
        h: f64,
        limit: f64,
        twice: bool,
    ) -> Result<(), Error> {
        if self.elements.is_empty() {
            return Ok(());
        }
        let (t, q, v) = (state.t, state.q, state.v);
        assembly::constraint_time_derivative(model, t, q, &mut self.ct);
        for (r, c) in self.rate.iter_mut().zip(&self.ct) {
            if c.is_finite() {
                *r = r.max(c.abs());
            }
        }
        for el in &self.elements {
            let (row0, rows) = el.rows(model);
            if (row0..row0 + rows).all(|r| self.rate[r] == 0.0) {
                continue; // not driven (so far)
            }
            let idx = el.indices(model);
            self.jac.resize(rows * idx.len(), 0.0);
            el.jacobian(model, t, q, &mut self.jac);
            for k in 0..rows {
                let row = row0 + k;
                let cqv: f64 = (idx.iter().enumerate())
                    .map(|(j, &i)| self.jac[k * idx.len() + j] * v[i])
                    .sum();
                let residual = (cqv + self.ct[row]).abs();
                let rate = self.rate[row];
                let over = rate > 0.0 && residual > limit * rate;
                let percent = 100.0 * residual / rate;
                if twice
                    && !over
                    && residual >= DRIVE_LAG_NOTED * rate
                    && self.worst.as_ref().is_none_or(|w| percent > w.percent)
                {
                    self.worst = Some(DriveLag {
                        row: model.constraint_row_name(row),
                        percent,
                        t,
                        h,
                    });
                }
                let before = std::mem::replace(&mut self.over[row], over);
                if over && (before || !twice) {
                    return Err(SolveError::DriveUnresolved {
                        t,
                        step,
                        h,
                        row: model.constraint_row_name(row),
                        residual,
                        rate,
                        percent,
                        suggest: h / 4.0,
                    }
                    .into());
                }
            }
        }
        Ok(())
    }
}
