//! What every method's options answer ([`MethodOptions`]): the interface the plan, the run
//! loop, the summary and a fit read a method through, whichever it is. Below both the options
//! types, which implement it beside their fields, and [`Method`](super::Method), which passes
//! each call to the options it holds.

/// What a run's summary counts as a method's work ([`MethodOptions::work`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Newton iterations (the implicit methods).
    NewtonIterations,
    /// Evaluations of the accelerations `q̈(t, q, v)` (the explicit Runge–Kutta methods).
    Accelerations,
    /// Evaluations of the residual on Taylor series (the Taylor-series method).
    SeriesResiduals,
}

/// What every method's options answer: the one interface through which a plan, the run loop,
/// the summary and a fit read a method, whichever it is. Each options type implements it beside
/// its fields; [`Method`](super::Method) passes each call to the options it holds.
pub trait MethodOptions {
    /// The method's name (`"generalized-alpha"`, `"dop853"`).
    fn name(&self) -> &'static str;
    /// The (initial) step size: a fixed-step method's step, an error-controlled method's first
    /// step (0 when it is chosen automatically).
    fn h(&self) -> f64;
    /// Set [`h`](MethodOptions::h).
    fn set_h(&mut self, h: f64);
    /// An error-controlled method's `(rtol, atol)`; `None` for a fixed step.
    fn tolerances(&self) -> Option<(f64, f64)> {
        None
    }
    /// The tolerances to set, if the method is error-controlled.
    fn tolerances_mut(&mut self) -> Option<(&mut f64, &mut f64)> {
        None
    }
    /// The run's span the error control relates the first step and the smallest step to (0:
    /// not known yet), if the method has one.
    fn span_mut(&mut self) -> Option<&mut f64> {
        None
    }
    /// The method and its settings in words, for a run's summary (`order_run`: the order the
    /// run took, where the method chooses one).
    fn describe(&self, order_run: usize) -> String;
    /// What the summary counts as the method's work.
    fn work(&self) -> Work {
        Work::NewtonIterations
    }
    /// Whether an error-controlled method rejects steps (the Taylor series bounds its own
    /// error and rejects none).
    fn rejects_steps(&self) -> bool {
        self.tolerances().is_some()
    }
    /// Whether the method's own continuous extension is of higher order than the trapezoidal
    /// rule (the run's ledger then takes each step's work from it: every method but
    /// generalized-α, of order two like the rule).
    fn extends_beyond_second_order(&self) -> bool {
        true
    }
    /// Whether the forward parameter sensitivities of the method's scheme are computed
    /// alongside a run ([`Sensitivity`](crate::solve::sensitivity::Sensitivity): generalized-α), so a fit
    /// takes its Jacobian from them instead of differences of runs.
    fn has_sensitivities(&self) -> bool {
        false
    }
}
