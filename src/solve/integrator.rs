//! The toolkit's methods built from their options (`Method::integrator`), and what their step
//! controls share: the landing on an end time, a fixed step's clock, the checks of an
//! error-controlled method's options and its error floor. The interface every integrator
//! implements, [`Integrator`], is `problem`'s (a user's own method implements it too).

use crate::error::{Error, OptionError};
use crate::model::{Model, State};
use crate::problem::Method;
pub use crate::problem::{Integrator, StepOutcome};
use crate::solve::{Dop853, GenAlpha, Radau, Rk4, TaylorSeries};
use std::sync::Arc;

/// A change of method during a run: at time `t` the run went on from `from` with `to`
/// (the methods' [`Method::name`]s), for `reason`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MethodSwitch {
    /// The time of the switch.
    pub t: f64,
    /// The method before it.
    pub from: String,
    /// The method after it.
    pub to: String,
    /// Why (`"stiff"`: DOP853's steps were held down by stability).
    pub reason: String,
}

/// The end time a method's next step is to land on exactly (see [`Integrator::land_on`]):
/// the time and the step size that reaches it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Landing(Option<(f64, f64)>);

impl Landing {
    /// Aim the next step, of size `h`, at `t`.
    pub(crate) fn aim(&mut self, t: f64, h: f64) {
        self.0 = Some((t, h));
    }
    /// The time after an accepted step of size `h` from `t_old`: the aimed time if the step is
    /// the aimed one, else `t_old + h`. Either way the aim is spent.
    pub(crate) fn after(&mut self, t_old: f64, h: f64) -> f64 {
        match self.0.take() {
            Some((t, aimed)) if aimed == h => t,
            _ => t_old + h,
        }
    }
}

/// A fixed-step method's clock: `t = t_k + (step − k)·h` from the last step whose time was
/// set exactly — the start, a change of step size, a step landed on an end time — so that
/// neither a shortened step nor pieces of a run leave the time a rounding off its ends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    t_k: f64,
    k: usize,
}

impl Clock {
    /// Time `t0` at step 0.
    pub(crate) fn new(t0: f64) -> Self {
        Clock { t_k: t0, k: 0 }
    }
    /// The time of step `step` with steps of `h`.
    pub(crate) fn at(&self, step: usize, h: f64) -> f64 {
        self.t_k + (step as f64 - self.k as f64) * h
    }
    /// Before the step size changes from `h`: count from step `step` on.
    pub(crate) fn rebase(&mut self, step: usize, h: f64) {
        self.t_k = self.at(step, h);
        self.k = step;
    }
    /// The step after `step` ends at `t` exactly.
    pub(crate) fn land(&mut self, step: usize, t: f64) {
        self.t_k = t;
        self.k = step + 1;
    }
}

/// The run loop's margin, as a fraction of a step: a run has arrived when less than this is
/// left to its end time, and a step this much longer than what is left is its last; a
/// fixed-step method keeps its step (and factorization) for a last step within it.
pub(crate) const END_MARGIN: f64 = 1e-9;

/// The smallest relative tolerance an error-controlled method takes: a few units of rounding
/// of double precision (DOP853 and RADAU5 of Hairer & Wanner likewise refuse or raise lower
/// ones).
pub const MIN_RTOL: f64 = 1e-15;

/// What the weight `atol + rtol·|x|` of an error norm becomes where it is 0 — a relative
/// tolerance alone (`atol = 0`) at a component that is 0, where no step could meet it: `rtol`
/// times the largest of `sizes`, or the smallest normal number when they are all 0 too (an
/// error that is not 0 is then refused, none accepted). Not looked at (0) when `atol > 0`.
pub(crate) fn zero_weight(atol: f64, rtol: f64, sizes: impl IntoIterator<Item = f64>) -> f64 {
    if atol > 0.0 {
        return 0.0;
    }
    let largest = sizes.into_iter().fold(0.0f64, |m, x| m.max(x.abs()));
    (rtol * largest).max(f64::MIN_POSITIVE)
}

/// The weight `atol + rtol·|x|`, or `zero` ([`zero_weight`]) where that is 0.
#[inline]
pub(crate) fn weight(atol: f64, rtol: f64, x: f64, zero: f64) -> f64 {
    match atol + rtol * x.abs() {
        0.0 => zero,
        w => w,
    }
}

/// The checks every error-controlled method's options share: tolerances in `[0, 1)`, not both
/// 0, a relative one not below [`MIN_RTOL`]; `h0`, `h_min`, `h_max` zero (automatic) or
/// positive, `h_min ≤ h_max` and `h_min` within the `span` (when known, > 0). `method` names
/// the method in the message.
pub(crate) fn check_step_options(
    method: &str,
    rtol: f64,
    atol: f64,
    [h0, h_min, h_max]: [f64; 3],
    span: f64,
) -> Result<(), Error> {
    let bad = |option: &str, m: String| Err(Error::from(OptionError::invalid(option, m)));
    let tol_ok = |x: f64| (0.0..1.0).contains(&x);
    if !(tol_ok(rtol) && tol_ok(atol) && rtol + atol > 0.0) {
        return bad(
            "tol",
            format!(
                "{method} tolerances rtol = {rtol}, atol = {atol} must lie in [0, 1) and not both be 0"
            ),
        );
    }
    if rtol > 0.0 && rtol < MIN_RTOL {
        return bad(
            "tol",
            format!(
                "{method} relative tolerance {rtol:e} is below what double precision can hold \
                 (the smallest is {MIN_RTOL:e}): the run could only fail or pretend"
            ),
        );
    }
    for (name, x) in [("h0", h0), ("h_max", h_max), ("h_min", h_min)] {
        if !(x >= 0.0 && x.is_finite()) {
            return bad(
                name,
                format!("{method} {name} = {x} must be 0 (automatic) or positive"),
            );
        }
    }
    if !span.is_finite() {
        return bad("span", span_message(method, span));
    }
    if span > 0.0 && h_min > span {
        return bad(
            "h_min",
            format!(
                "{method} h_min = {h_min} is longer than the run's span {span}: not one step \
                 could be taken"
            ),
        );
    }
    if h_max > 0.0 && h_min > h_max {
        return bad(
            "h_min",
            format!("{method} h_min = {h_min} is above h_max = {h_max}"),
        );
    }
    Ok(())
}

/// The message for a `span` that is not a number or infinite (NaN read as "negative" gave a
/// control per step silently; infinity, no step at all).
pub(crate) fn span_message(method: &str, span: f64) -> String {
    format!(
        "{method} span = {span} must be finite: 0 (the run's length), positive (the time over \
         which the local errors may add up to the tolerance) or negative (each step's error \
         below the tolerance)"
    )
}

/// Tells an error estimate that no smaller step reduces — the rounding of the forces, or a
/// jump in them — from the method's own truncation error, over one streak of rejected attempts.
///
/// A truncation error per unit step falls as `h⁷` (DOP853); an attempt shrunk below 0.8 of the
/// streak's last whose error fell less than a tenth of that is *unresponsive*: a jump in the
/// forces inside the step (`V = |x|`: `O(h)` per step, `O(1)` per unit step, whatever the step)
/// or their rounding (a stiff mode's large forces). Such an attempt is judged per step — its
/// own local error against the tolerance, as Hairer's codes judge every step — since shrinking
/// it further buys nothing per unit step; a jump is then crossed in one short step. When
/// [`FLOOR_STEPS`](Self::FLOOR_STEPS) of the attempts of one window and a
/// [`FLOOR_SHARE`](Self::FLOOR_SHARE) of its accepted steps needed it, the error is the
/// model's rounding, not an isolated jump: no step meets the tolerance per unit step there
/// ([`at_floor`](Self::at_floor)). A step shrunk `10³`-fold over at least four rejections with
/// the error still above a tenth of the streak's first is at the floor at once.
///
/// It also counts the attempts in windows of [`WINDOW`](Self::WINDOW): a window with
/// [`STRUGGLING`](Self::STRUGGLING) of them rejected is a method struggling (a fast mode
/// ringing at the edge of its accuracy or stability; smooth problems reject a few in a
/// hundred).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ErrorFloor {
    /// The streak's first rejected step and its error.
    first: Option<(f64, f64)>,
    /// The streak's last rejected step and its error.
    last: Option<(f64, f64)>,
    rejections: usize,
    /// Attempts and rejections in the current window.
    window: (usize, usize),
    /// Steps accepted per step (unresponsive error) in the current window.
    floor_steps: usize,
    /// Whether a window's accepted steps were the rounding's (see [`at_floor`](Self::at_floor)).
    at_floor: bool,
    /// Whether a whole window was struggling.
    struggled: bool,
    /// Struggling windows in a row (the last ones).
    in_a_row: usize,
}

impl ErrorFloor {
    /// Attempts per window.
    pub(crate) const WINDOW: usize = 200;
    /// Rejections in a window that make it struggling.
    pub(crate) const STRUGGLING: usize = 80;

    /// Steps accepted per step in one window that make the window the rounding's.
    pub(crate) const FLOOR_STEPS: usize = 8;
    /// The share of a window's accepted steps that must have been accepted per step.
    pub(crate) const FLOOR_SHARE: f64 = 0.2;

    /// An accepted step ends the streak.
    pub(crate) fn accepted(&mut self) {
        self.first = None;
        self.last = None;
        self.rejections = 0;
        self.count(false);
    }
    /// Whether an attempt of size `h` whose error `err` is over the tolerance did not respond
    /// to the step: shrunk below 0.8 of the streak's last rejected attempt `(h₀, e₀)`, its
    /// error is still above `10 (h/h₀)^order e₀` (`order`: how the error per unit step falls).
    pub(crate) fn unresponsive(&self, h: f64, err: f64, order: f64) -> bool {
        self.last.is_some_and(|(h0, e0)| {
            err.is_finite() && h < 0.8 * h0 && err >= 10.0 * (h / h0).powf(order) * e0
        })
    }
    /// An unresponsive attempt accepted per step; whether the window's accepted steps are now
    /// the rounding's.
    pub(crate) fn accepted_per_step(&mut self) -> bool {
        self.floor_steps += 1;
        let accepted = self.window.0 - self.window.1 + 1;
        self.at_floor |= self.floor_steps >= Self::FLOOR_STEPS
            && self.floor_steps as f64 >= Self::FLOOR_SHARE * accepted as f64;
        self.accepted();
        self.at_floor
    }
    /// The streak's last rejected step, if any.
    pub(crate) fn last_rejected(&self) -> Option<f64> {
        self.last.map(|(h, _)| h)
    }
    /// A rejection that is not of the error (the attempt refused for another reason).
    pub(crate) fn count_rejection(&mut self) {
        self.count(true);
    }
    /// Whether a window of attempts was struggling.
    pub(crate) fn struggled(&self) -> bool {
        self.struggled
    }
    /// The attempts of the struggling windows in a row that end here.
    pub(crate) fn struggling_attempts(&self) -> usize {
        self.in_a_row * Self::WINDOW
    }
    fn count(&mut self, rejected: bool) {
        self.window.0 += 1;
        self.window.1 += usize::from(rejected);
        if self.window.0 == Self::WINDOW {
            let struggling = self.window.1 >= Self::STRUGGLING;
            self.struggled |= struggling;
            self.in_a_row = if struggling { self.in_a_row + 1 } else { 0 };
            self.window = (0, 0);
            self.floor_steps = 0;
        }
    }
    /// A rejected attempt of size `h` with error `err` (over the tolerance): the streak's
    /// first step and error when the error has shown itself to be at the floor.
    pub(crate) fn rejected(&mut self, h: f64, err: f64) -> Option<(f64, f64)> {
        self.count(true);
        if !err.is_finite() {
            return None;
        }
        let (h0, e0) = *self.first.get_or_insert((h, err));
        self.last = Some((h, err));
        self.rejections += 1;
        (self.rejections >= 4 && h <= 1e-3 * h0 && err >= 0.1 * e0).then_some((h0, e0))
    }
}

/// The smallest step an error-controlled method takes at `t`: `h_min` if given, else ten units
/// of round-off of `t` (or of the last step, at `t = 0`).
pub(crate) fn smallest_step(h_min: f64, t: f64, h_old: f64) -> f64 {
    if h_min > 0.0 {
        h_min
    } else {
        10.0 * f64::EPSILON * t.abs().max(h_old).max(1e-300)
    }
}

impl Method {
    /// Build the integrator from a consistent `state` of `model`.
    pub fn integrator(
        &self,
        model: Arc<Model>,
        state: &State,
    ) -> Result<Box<dyn Integrator>, Error> {
        Ok(match self {
            Method::GenAlpha(o) => Box::new(GenAlpha::new(model, state, o.clone())?),
            Method::Rk4(o) => Box::new(Rk4::new(model, state, o.clone())?),
            Method::Dop853(o) => Box::new(Dop853::new(model, state, o.clone())?),
            Method::Radau(o) => Box::new(Radau::new(model, state, o.clone())?),
            Method::Taylor(o) => Box::new(TaylorSeries::new(model, state, o.clone())?),
            Method::Custom(o) => o.integrator(model, state)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorFloor;

    #[test]
    fn an_error_that_falls_with_the_step_is_not_the_floor() {
        // a truncation error of order 8 per unit step: err ∝ h⁷
        let mut f = ErrorFloor::default();
        let mut h = 1e-2;
        for _ in 0..20 {
            assert_eq!(f.rejected(h, 1e6 * (h / 1e-2f64).powi(7) + 1.5), None);
            h /= 3.0;
        }
        // an error that stays while the step falls 1000-fold is the forces' rounding
        let mut f = ErrorFloor::default();
        let mut found = None;
        let mut h = 1e-6;
        for k in 0..12 {
            found = found.or(f.rejected(h, 50.0 + 30.0 * (k as f64).sin()));
            h /= 2.5;
        }
        assert_eq!(found.map(|x| x.0), Some(1e-6));
        // an accepted step ends the streak
        let mut f = ErrorFloor::default();
        for _ in 0..3 {
            f.rejected(1e-6, 10.0);
        }
        f.accepted();
        assert_eq!(f.rejected(1e-10, 10.0), None);
    }

    #[test]
    fn a_window_with_many_rejections_is_struggling() {
        let mut f = ErrorFloor::default();
        for k in 0..ErrorFloor::WINDOW {
            if k % 2 == 0 {
                f.accepted();
            } else {
                f.rejected(1e-3, 2.0);
            }
        }
        assert!(f.struggled());
        assert_eq!(f.struggling_attempts(), ErrorFloor::WINDOW);
        let mut g = ErrorFloor::default();
        for k in 0..ErrorFloor::WINDOW {
            if k % 10 == 0 {
                g.rejected(1e-3, 2.0);
            } else {
                g.accepted();
            }
        }
        assert!(!g.struggled() && g.struggling_attempts() == 0);
    }

    #[test]
    fn an_error_that_does_not_fall_with_the_step_is_judged_per_step() {
        // a jump in the forces: the error per unit step stays while the step falls threefold
        let mut f = ErrorFloor::default();
        f.rejected(1e-2, 3e9);
        assert!(f.unresponsive(3e-3, 2.9e9, 7.0));
        // a truncation error falls as h⁷: responsive, and nothing to compare the first with
        assert!(!f.unresponsive(3e-3, 3e9 * 0.3f64.powi(7), 7.0));
        assert!(!ErrorFloor::default().unresponsive(1e-3, 1e9, 7.0));
        // a step barely shrunk tells nothing
        assert!(!f.unresponsive(0.9e-2, 3e9, 7.0));
        // one jump crossed per twenty steps is a jump; every other step is the rounding
        let mut jumps = ErrorFloor::default();
        for k in 0..ErrorFloor::WINDOW {
            let at_floor = if k % 20 == 19 {
                jumps.accepted_per_step()
            } else {
                jumps.accepted();
                false
            };
            assert!(!at_floor, "attempt {k}");
        }
        let mut rounding = ErrorFloor::default();
        let floor = (0..40).map(|k| {
            if k % 2 == 0 {
                rounding.accepted_per_step()
            } else {
                rounding.accepted();
                false
            }
        });
        assert_eq!(
            floor.take_while(|f| !f).count(),
            2 * (ErrorFloor::FLOOR_STEPS - 1)
        );
    }
}
