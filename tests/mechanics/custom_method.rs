//! A method written outside the toolkit, in this file alone: its options (`MethodOptions`,
//! `CustomMethod`) and its integrator (`Integrator`), run through `Method::custom` by the one run
//! loop — with observers, output times, the in-memory run and its summary — like the toolkit's
//! own. The toy is symplectic Euler; its error on the exact harmonic oscillator falls at order 1.

use lagrangian::error::SolveError;
use lagrangian::model::StateView;
use lagrangian::output::summary::Summary;
use lagrangian::prelude::*;
use lagrangian::problem::{CustomMethod, MethodOptions, StepOutcome};
use lagrangian::run::memory::{MemoryOptions, run_in_memory};
use lagrangian::solve::StateSolver;

/// Symplectic Euler with step `h`: `v ← v + h q̈(q, v)`, `q ← q + h v`.
#[derive(Clone, Debug)]
struct Euler {
    h: f64,
}

impl MethodOptions for Euler {
    fn name(&self) -> &'static str {
        "symplectic-euler"
    }
    fn h(&self) -> f64 {
        self.h
    }
    fn set_h(&mut self, h: f64) {
        self.h = h;
    }
    fn describe(&self, _order_run: usize) -> String {
        "symplectic Euler (a method of the user's own)".into()
    }
    fn extends_beyond_second_order(&self) -> bool {
        false
    }
}

struct Stepper {
    model: Arc<Model>,
    solver: StateSolver,
    h: f64,
    t: f64,
    q: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    stats: Stats,
}

impl Integrator for Stepper {
    fn method(&self) -> &'static str {
        "symplectic-euler"
    }
    fn model(&self) -> &Arc<Model> {
        &self.model
    }
    fn t(&self) -> f64 {
        self.t
    }
    fn h(&self) -> f64 {
        self.h
    }
    fn set_h(&mut self, h: f64) {
        self.h = h;
    }
    fn step(&mut self) -> Result<StepOutcome, SolveError> {
        let (t, step) = (self.t, self.stats.steps);
        let (a, _) = (self.solver.solve(&self.model, t, &self.q, &self.v))
            .map_err(|e| SolveError::singular(t, step, "", e))?;
        for ((q, v), a) in self.q.iter_mut().zip(&mut self.v).zip(a) {
            *v += self.h * a;
            *q += self.h * *v;
        }
        self.a.copy_from_slice(a);
        self.t += self.h;
        self.stats.steps += 1;
        self.stats.residual_evaluations += 1;
        Ok(StepOutcome::Accepted)
    }
    fn view(&self) -> StateView<'_> {
        StateView {
            t: self.t,
            q: &self.q,
            v: &self.v,
            qdd: &self.a,
            lambda: &[],
        }
    }
    fn stats(&self) -> &Stats {
        &self.stats
    }
}

impl CustomMethod for Euler {
    fn integrator(&self, model: Arc<Model>, s: &State) -> Result<Box<dyn Integrator>, Error> {
        let solver = StateSolver::new(&model, LinearSolverKind::Auto);
        Ok(Box::new(Stepper {
            model,
            solver,
            h: self.h,
            t: s.t,
            q: s.q.clone(),
            v: s.v.clone(),
            a: s.qdd.clone(),
            stats: Stats::default(),
        }))
    }
}

/// `x″ = −x`: `x(t) = cos t` from `x = 1` at rest.
struct Oscillator;

impl Term<1> for Oscillator {
    fn mass(&self) -> SMatrix<f64, 1, 1> {
        SMatrix::identity()
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 1>) -> D {
        q[0] * q[0] * 0.5
    }
}

fn oscillator() -> Problem {
    let model = Model::builder(1).term([0], Oscillator).build().unwrap();
    Problem::new(model).guess(&[1.0], &[0.0]).t_end(2.0)
}

#[test]
fn a_method_of_the_users_own_runs_through_the_run_loop_at_its_order() {
    let errors: Vec<f64> = [4e-3, 2e-3, 1e-3]
        .iter()
        .map(|&h| {
            let sol = simulate(&oscillator(), Method::custom(Euler { h })).unwrap();
            assert_eq!(sol.stats.steps, (2.0 / h).round() as usize);
            assert_eq!(sol.records.len(), sol.stats.steps + 1);
            let last = sol.last();
            assert!((last.state.t - 2.0).abs() < 1e-12);
            (last.state.q[0] - 2f64.cos()).abs()
        })
        .collect();
    // order 1: each halving of h halves the error
    for w in errors.windows(2) {
        let order = (w[0] / w[1]).log2();
        assert!((order - 1.0).abs() < 0.05, "order {order} from {errors:?}");
    }
    assert!(errors[2] < 1e-3, "{errors:?}");
}

#[test]
fn a_method_of_the_users_own_has_output_times_and_a_summary() {
    // rows at output times between the steps: the run loop's Hermite interpolation
    let plan = RunPlan::new(Method::custom(Euler { h: 1e-3 })).output_dt(0.25);
    let run = run_in_memory(oscillator(), &plan, &MemoryOptions::default()).unwrap();
    let t = run.column("t").unwrap();
    let x = run.column("x").or_else(|| run.column("q[0]")).unwrap();
    assert_eq!(t.len(), 9);
    for (t, x) in t.iter().zip(&x) {
        assert!((t * 4.0 - (t * 4.0).round()).abs() < 1e-12, "t = {t}");
        assert!((x - t.cos()).abs() < 2e-3, "x({t}) = {x}");
    }
    let text = run.summary.to_string();
    assert!(
        text.contains("symplectic Euler (a method of the user's own)")
            && text.contains("2000 steps"),
        "{text}"
    );
    // written as its name and description; not read back
    let json = serde_json::to_string(&run.summary).unwrap();
    assert!(
        json.contains(r#""method":"custom","name":"symplectic-euler""#),
        "{json}"
    );
    let back = serde_json::from_str::<Summary>(&json)
        .unwrap_err()
        .to_string();
    assert!(back.contains("cannot be read back"), "{back}");
}

#[test]
fn a_step_size_that_is_not_a_positive_number_is_an_error_not_an_end() {
    // h = NaN made the run loop think it had arrived (Ok at t = 0); h = 0 stepped in place
    // for ever
    for h in [f64::NAN, 0.0, -1e-3] {
        let e = simulate(&oscillator(), Method::custom(Euler { h })).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(
                e,
                Error::Solve(SolveError::NonFinite {
                    what: "step size",
                    t: 0.0,
                    step: 1,
                    ..
                })
            ) && text.contains("symplectic-euler"),
            "h = {h}: {text}"
        );
    }
    // an infinite step is a step to the end (the last step lands on it), not an end at t = 0
    let sol = simulate(&oscillator(), Method::custom(Euler { h: f64::INFINITY })).unwrap();
    assert_eq!((sol.last().state.t, sol.stats.steps), (2.0, 1));
}
