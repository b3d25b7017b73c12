//! A progress bar on the terminal (indicatif), as an observer.

use crate::error::Error;
use crate::output::observe::{Control, Event, Observer};
use indicatif::{ProgressBar, ProgressStyle};

/// Shows `t`, steps done and the time left on stderr while a run goes on.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// A run under error control: the bar follows time over `[t0, t_end]` in thousandths.
    span: Option<(f64, f64)>,
}

impl Progress {
    /// A bar for a run of `steps` steps, shown only when `show` (e.g. stderr is a terminal and
    /// the run is long enough to be worth watching).
    pub fn new(steps: usize, show: bool) -> Self {
        let bar = show.then(|| {
            let b = ProgressBar::new(steps as u64);
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} t = {msg} [{bar:40}] {pos}/{len} steps, {eta} left",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        Progress { bar, span: None }
    }

    /// A bar for a run whose steps are not known in advance (error control): it follows `t`
    /// over `[t0, t_end]`, shown only when `show`.
    pub fn over_time(t0: f64, t_end: f64, show: bool) -> Self {
        let bar = show.then(|| {
            let b = ProgressBar::new(1000);
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} t = {msg} [{bar:40}] {percent}%, {eta} left",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        Progress {
            bar,
            span: Some((t0, t_end)),
        }
    }

    /// Remove the bar (after the run, or when it failed).
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Observer for Progress {
    fn observe(&mut self, ev: &Event<'_>) -> Result<Control, Error> {
        if let Some(b) = &self.bar
            && (ev.step.is_multiple_of(100) || ev.last)
        {
            let pos = match self.span {
                Some((t0, t1)) if t1 > t0 => {
                    (1000.0 * ((ev.state.t - t0) / (t1 - t0)).clamp(0.0, 1.0)) as u64
                }
                _ => ev.step as u64,
            };
            b.set_position(pos);
            b.set_message(format!("{:.4}", ev.state.t));
        }
        Ok(Control::Continue)
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
