//! The public API a user's crate compiles against. Two guards: the prelude's names against the
//! list below, and the signatures of the prelude's functions and of the methods the tutorial
//! teaches, as function pointers that a changed signature no longer coerces to (a compile
//! error here); the user-facing traits implemented as the tutorial writes them. A change here
//! is a change for every user: record it in CHANGELOG.md with its migration, then update this
//! file.

use lagrangian::error::ModelError;
use lagrangian::prelude::*;
use lagrangian::solve::Initial;

/// `lagrangian::prelude`, sorted.
const PRELUDE: &[&str] = &[
    "Anchored",
    "Arc",
    "Between",
    "Constraint",
    "Control",
    "Dop853",
    "Dop853Options",
    "DualNum",
    "Error",
    "Event",
    "GenAlpha",
    "GenAlphaOptions",
    "InitOptions",
    "Integrator",
    "Interaction",
    "LinearSolverKind",
    "Method",
    "Model",
    "ModelBuilder",
    "Observer",
    "Problem",
    "Radau",
    "RadauOptions",
    "Record",
    "Rk4Options",
    "RunEnd",
    "RunPlan",
    "SMatrix",
    "SVector",
    "Simulation",
    "Solution",
    "State",
    "Stats",
    "Structure",
    "TaylorOptions",
    "TaylorSeries",
    "Term",
    "Vector2",
    "Vector3",
    "consistent_initial_values",
    "reaction_forces",
    "simulate",
    "simulate_from",
];

/// The names `pub use`d in `pub mod prelude { … }` of src/lib.rs.
fn prelude_names() -> Vec<String> {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    let start = lib
        .find("pub mod prelude {")
        .expect("src/lib.rs has no prelude");
    let body = &lib[start..];
    let body = &body[..body.find("\n}").expect("the prelude module ends")];
    let mut names: Vec<String> = body
        .split(';')
        .filter_map(|item| item.split("pub use ").nth(1))
        .flat_map(|path| {
            // `a::b::{C, D}` or `a::b::C`: the last segments
            let list = path.rsplit_once("::{").map_or(path, |(_, l)| l);
            list.trim_end_matches('}')
                .split(',')
                .map(|n| n.rsplit("::").next().unwrap().trim().to_string())
                .filter(|n| !n.is_empty())
                .collect::<Vec<_>>()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn the_prelude_exports_what_the_changelog_records() {
    let now = prelude_names();
    let added: Vec<_> = now
        .iter()
        .filter(|n| !PRELUDE.contains(&n.as_str()))
        .collect();
    let removed: Vec<_> = PRELUDE
        .iter()
        .filter(|n| !now.iter().any(|m| m == *n))
        .collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "the prelude changed (added {added:?}, removed {removed:?}): record it in CHANGELOG.md \
         (with the migration for what a user's code must change), then update PRELUDE in \
         tests/cli/api.rs"
    );
    let mut sorted = PRELUDE.to_vec();
    sorted.sort();
    assert_eq!(sorted, PRELUDE, "keep PRELUDE sorted");
}

/// A term, a constraint and an interaction as the tutorial writes them: the traits' method
/// signatures, as a user's impl must match them.
#[derive(Clone, Copy)]
struct Bob {
    m: f64,
}

impl Term<2> for Bob {
    fn mass(&self) -> SMatrix<f64, 2, 2> {
        SMatrix::identity() * self.m
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        q[1] * self.m
    }
}

impl Constraint<2, 1> for Bob {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 2>,
    ) -> SVector<D, 1> {
        SVector::from([(q.dot(q) - 1.0) * 0.5])
    }
}

#[derive(Clone, Copy)]
struct Spring;

impl Interaction<2> for Spring {
    fn potential<S: DualNum<Primitive = f64> + Copy>(&self, _t: S, d: &SVector<S, 2>) -> S {
        d.dot(d) * 0.5
    }
    fn dissipation<S: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: S,
        _d: &SVector<S, 2>,
        dd: &SVector<S, 2>,
    ) -> S {
        dd.dot(dd) * 0.05
    }
}

struct Count(usize);

impl Observer for Count {
    fn observe(&mut self, _event: &Event<'_>) -> Result<Control, Error> {
        self.0 += 1;
        Ok(Control::Continue)
    }
}

#[test]
#[allow(clippy::type_complexity)] // the signatures are spelled out: that is the check
fn the_signatures_users_compile_against() {
    // free functions of the prelude
    let _: fn(&Problem, Method) -> Result<Solution, Error> = simulate;
    let _: fn(&Arc<Model>, &State, f64, Method) -> Result<Solution, Error> = simulate_from;
    let _: fn(&Model, &[f64], &[f64], &InitOptions) -> Result<Initial, Error> =
        consistent_initial_values;
    let _: fn(&Model, &State) -> Vec<(String, Vec<f64>)> = reaction_forces;
    // building a model
    let _: fn(usize) -> ModelBuilder = Model::builder;
    let _: fn(ModelBuilder, [usize; 2], Bob) -> ModelBuilder = ModelBuilder::term::<Bob, 2>;
    let _: fn(ModelBuilder, &'static str, [usize; 2], Bob) -> ModelBuilder =
        ModelBuilder::constraint::<Bob, 2, 1>;
    let _: fn(ModelBuilder, [usize; 2], [usize; 2], Spring) -> ModelBuilder =
        ModelBuilder::between::<Spring, 2, 4>;
    let _: fn(ModelBuilder, [f64; 2], [usize; 2], Spring) -> ModelBuilder =
        ModelBuilder::anchored::<Spring, 2>;
    let _: fn(ModelBuilder) -> Result<Model, ModelError> = ModelBuilder::build;
    // the problem and the methods
    let _: fn(Model) -> Problem = Problem::new;
    let _: fn(Problem, &[f64], &[f64]) -> Problem = Problem::guess;
    let _: fn(Problem, f64) -> Problem = Problem::t_end;
    let _: fn(f64) -> GenAlphaOptions = GenAlphaOptions::new;
    let _: fn(GenAlphaOptions, f64) -> GenAlphaOptions = GenAlphaOptions::rho_inf;
    let _: fn(GenAlphaOptions, f64) -> GenAlphaOptions = GenAlphaOptions::tolerance;
    let _: fn(f64) -> Dop853Options = Dop853Options::new;
    let _: fn(f64) -> RadauOptions = RadauOptions::new;
    // the run loop
    let _: fn(Problem, Method) -> Result<Simulation, Error> = Simulation::new;
    let _: fn(Problem, RunPlan) -> Result<Simulation, Error> = Simulation::new;
    let _: fn(Problem, Method, &State) -> Result<Simulation, Error> = Simulation::from_state;
    let _: fn(&mut Simulation, &mut [&mut dyn Observer]) -> Result<RunEnd, Error> = Simulation::run;
    let _: fn(&mut Simulation, f64, &mut [&mut dyn Observer]) -> Result<RunEnd, Error> =
        Simulation::run_until;
    let _: fn(&mut Simulation) -> Result<(), Error> = Simulation::step;
    let _: fn(&Simulation) -> State = Simulation::state;
    let _: fn(&Simulation) -> Stats = Simulation::stats;
    let _: fn(&Simulation) -> f64 = Simulation::t;

    // and they run together as the tutorial writes them: a pendulum on a rod, a damped spring
    // between its bob and a second point mass hanging from a fixed point
    let model = Model::builder(4)
        .term([0, 1], Bob { m: 1.0 })
        .constraint("rod", [0, 1], Bob { m: 1.0 })
        .term([2, 3], Bob { m: 1.0 })
        .between([0, 1], [2, 3], Spring)
        .anchored([2.0, 0.0], [2, 3], Spring)
        .build()
        .unwrap();
    let problem = Problem::new(model)
        .guess(&[1.0, 0.0, 2.0, -1.0], &[0.0; 4])
        .t_end(0.5);
    let mut sim = Simulation::new(problem, Dop853Options::new(1e-8)).unwrap();
    let mut count = Count(0);
    sim.run_until(0.5, &mut [&mut count]).unwrap();
    let s = sim.state();
    assert!((s.t - 0.5).abs() < 1e-12 && count.0 >= sim.stats().steps);
    assert!((s.q[0] * s.q[0] + s.q[1] * s.q[1] - 1.0).abs() < 1e-12);
}
