//! A method with its options as one value ([`Method`]), read through what every method's options
//! answer ([`MethodOptions`], `method_options.rs`); the options types are in `options.rs`.

use super::integrator::CustomMethod;
use super::method_options::MethodOptions;
use super::options::{Dop853Options, GenAlphaOptions, RadauOptions, Rk4Options, TaylorOptions};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A time-integration method with its options: what a [`Simulation`](crate::simulation::Simulation)
/// builds its integrator from
/// ([`Method::integrator`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "kebab-case")]
pub enum Method {
    /// Generalized-α on the index-3 DAE (the default).
    #[serde(rename = "generalized-alpha")]
    GenAlpha(GenAlphaOptions),
    /// Classical explicit RK4 (unconstrained mechanisms only).
    Rk4(Rk4Options),
    /// The explicit Runge–Kutta pair DOP853 of order 8 under error control, on the index-1 form
    /// with projection onto the constraints after every step (non-stiff mechanisms).
    Dop853(Dop853Options),
    /// Radau IIA of order 5 under error control, on the index-3 equations themselves (stiff
    /// mechanisms, stiff constraints).
    Radau(RadauOptions),
    /// The Taylor-series method of any order up to 22 under error control, on the index-1
    /// form with projection onto the constraints (DAETS' method: smooth non-stiff mechanisms
    /// at tight tolerances).
    Taylor(TaylorOptions),
    /// A method written outside the toolkit ([`CustomMethod`]; [`Method::custom`]). It is
    /// written to a summary as its name and description, and cannot be read back from one.
    #[serde(serialize_with = "write_custom", deserialize_with = "read_custom")]
    Custom(Box<dyn CustomMethod>),
}

/// A custom method in a summary: its name and description (its options are the program's).
#[allow(clippy::borrowed_box)] // the signature serde calls it with
fn write_custom<S: Serializer>(m: &Box<dyn CustomMethod>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Written<'a> {
        name: &'a str,
        description: String,
    }
    Written {
        name: m.name(),
        description: m.describe(0),
    }
    .serialize(s)
}

fn read_custom<'de, D: Deserializer<'de>>(_: D) -> Result<Box<dyn CustomMethod>, D::Error> {
    Err(serde::de::Error::custom(
        "a method written outside the toolkit cannot be read back from a file: its options \
         are the program's",
    ))
}

impl Default for Method {
    fn default() -> Self {
        Method::GenAlpha(GenAlphaOptions::default())
    }
}

impl From<GenAlphaOptions> for Method {
    fn from(o: GenAlphaOptions) -> Self {
        Method::GenAlpha(o)
    }
}

impl From<Rk4Options> for Method {
    fn from(o: Rk4Options) -> Self {
        Method::Rk4(o)
    }
}

impl From<Dop853Options> for Method {
    fn from(o: Dop853Options) -> Self {
        Method::Dop853(o)
    }
}

impl From<RadauOptions> for Method {
    fn from(o: RadauOptions) -> Self {
        Method::Radau(o)
    }
}

impl From<TaylorOptions> for Method {
    fn from(o: TaylorOptions) -> Self {
        Method::Taylor(o)
    }
}

impl Method {
    /// A method written outside the toolkit, run like its own ([`CustomMethod`]).
    pub fn custom(options: impl CustomMethod) -> Method {
        Method::Custom(Box::new(options))
    }
    /// The options the method holds, as the interface every method's options share.
    pub fn options(&self) -> &dyn MethodOptions {
        match self {
            Method::GenAlpha(o) => o,
            Method::Rk4(o) => o,
            Method::Dop853(o) => o,
            Method::Radau(o) => o,
            Method::Taylor(o) => o,
            Method::Custom(o) => o.as_ref(),
        }
    }
    /// The options the method holds, to change.
    pub fn options_mut(&mut self) -> &mut dyn MethodOptions {
        match self {
            Method::GenAlpha(o) => o,
            Method::Rk4(o) => o,
            Method::Dop853(o) => o,
            Method::Radau(o) => o,
            Method::Taylor(o) => o,
            Method::Custom(o) => o.as_mut(),
        }
    }
    /// The (initial) step size (DOP853: the first step, 0 when it is chosen automatically).
    pub fn h(&self) -> f64 {
        self.options().h()
    }
    /// The same method with step size `h` (DOP853: the first step).
    pub fn with_h(mut self, h: f64) -> Self {
        self.options_mut().set_h(h);
        self
    }
    /// An error-controlled method's `(rtol, atol)` (generalized-α's under step control);
    /// `None` for a fixed step.
    pub(crate) fn tolerances(&self) -> Option<(f64, f64)> {
        self.options().tolerances()
    }
    /// Set an error-controlled method's `(rtol, atol)` (no change to a fixed step).
    pub(crate) fn set_tolerances(&mut self, (rtol, atol): (f64, f64)) {
        if let Some((r, a)) = self.options_mut().tolerances_mut() {
            (*r, *a) = (rtol, atol);
        }
    }
    /// The method's name.
    pub fn name(&self) -> &'static str {
        self.options().name()
    }
    /// Whether the method chooses its own steps (error control).
    pub fn is_adaptive(&self) -> bool {
        self.options().tolerances().is_some()
    }
}

/// A method as a user names it (`SolverParams.integrator`, `--integrator`, Python's
/// `method=`): the one place the names are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MethodName {
    GenAlpha,
    Rk4,
    Dop853,
    Radau,
    Taylor,
}

impl MethodName {
    /// What a name may be, for messages.
    pub(crate) const KNOWN: &'static str = "genalpha, rk4, dop853, radau or taylor";

    /// The method `name` names (with the aliases `generalized-alpha`, `radau5`, `radau-iia`).
    pub(crate) fn parse(name: &str) -> Option<MethodName> {
        match name {
            "genalpha" | "generalized-alpha" => Some(MethodName::GenAlpha),
            "rk4" => Some(MethodName::Rk4),
            "dop853" => Some(MethodName::Dop853),
            "radau" | "radau5" | "radau-iia" => Some(MethodName::Radau),
            "taylor" => Some(MethodName::Taylor),
            _ => None,
        }
    }
}
