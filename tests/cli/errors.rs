//! Everything a user can cause ends in a typed error with context — never a panic.

use lagrangian::error::{InitError, ModelError, OptionError, SolveError};
use lagrangian::library::elements::Particle;
use lagrangian::library::pendulum::planar_pendulum;
use lagrangian::output::sensitivity::SensitivityRecorder;
use lagrangian::prelude::*;

/// A particle in a very stiff quartic well, V = k q⁴.
struct Quartic(f64);
impl Term<1> for Quartic {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 1>,
        v: &SVector<D, 1>,
    ) -> D {
        v[0] * v[0] * 0.5
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 1>) -> D {
        q[0].powi(4) * self.0
    }
}

#[test]
fn newton_failure_names_time_step_and_residual() {
    let model = Arc::new(Model::builder(1).term([0], Quartic(1e6)).build().unwrap());
    let init = consistent_initial_values(&model, &[1.0], &[0.0], &InitOptions::default()).unwrap();
    let opts = GenAlphaOptions::new(0.5).max_newton_iterations(3);
    let e = simulate_from(&model, &init.state, 10.0, opts).unwrap_err();
    match &e {
        Error::Solve(SolveError::NewtonDiverged {
            t,
            step,
            h,
            iterations,
            residual,
        }) => {
            assert_eq!(*step, 1);
            assert!((t - 0.5).abs() < 1e-15 && *h == 0.5);
            assert!(*iterations <= 3 && residual.is_finite() && *residual > 0.0);
        }
        other => panic!("expected NewtonDiverged, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains("t = 0.5") && msg.contains("step 1") && msg.contains("smaller step"),
        "{msg}"
    );
}

/// A coordinate with neither mass nor stiffness: V = y, T = ½ ẋ².
struct Massless;
impl Term<2> for Massless {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> D {
        v[0] * v[0] * 0.5
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        q[1]
    }
}

#[test]
fn singular_mass_matrix_is_reported_at_init_and_in_the_integrator() {
    let model = Arc::new(Model::builder(2).term([0, 1], Massless).build().unwrap());
    let e = consistent_initial_values(&model, &[0.0, 0.0], &[0.0, 0.0], &InitOptions::default())
        .unwrap_err();
    assert!(
        matches!(e, Error::Init(InitError::SingularAugmented { .. })),
        "{e:?}"
    );
    assert!(e.to_string().contains("singular"));
    // bypassing initialization, the check of the mass matrix refuses the start, naming the
    // coordinate without mass
    let state = State {
        t: 0.0,
        q: vec![0.0; 2],
        v: vec![0.0; 2],
        qdd: vec![0.0; 2],
        lambda: vec![],
    };
    for kind in [LinearSolverKind::Dense, LinearSolverKind::Sparse] {
        let r = Simulation::from_state(
            Problem::new(model.clone()),
            GenAlphaOptions::new(0.01).linear_solver(kind),
            &state,
        )
        .and_then(|mut g| g.step());
        match r {
            Err(Error::Solve(SolveError::MassNotPositive { t, step, detail })) => {
                assert_eq!((t, step), (0.0, 0));
                assert!(
                    detail.contains("along q[1] has no kinetic energy"),
                    "{detail}"
                );
            }
            other => panic!("{kind:?}: expected a mass-matrix error, got {other:?}"),
        }
    }
}

/// V = −√q: finite for q ≥ 0 only.
struct SqrtWell;
impl Term<1> for SqrtWell {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 1>,
        v: &SVector<D, 1>,
    ) -> D {
        v[0] * v[0] * 0.5
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 1>) -> D {
        -q[0].sqrt()
    }
}

#[test]
fn nan_in_the_model_is_a_typed_error() {
    let model = Arc::new(Model::builder(1).term([0], SqrtWell).build().unwrap());
    let init = consistent_initial_values(&model, &[0.5], &[-3.0], &InitOptions::default()).unwrap();
    let e = simulate_from(&model, &init.state, 2.0, GenAlphaOptions::new(0.01)).unwrap_err();
    match e {
        Error::Solve(SolveError::NonFinite { t, step, .. })
        | Error::Solve(SolveError::SingularMatrix { t, step, .. }) => {
            assert!(t > 0.0 && step > 0);
        }
        other => panic!("expected a non-finite error, got {other:?}"),
    }
}

#[test]
fn bad_options_are_rejected() {
    let model = Arc::new(planar_pendulum(1.0, 1.0, 9.81));
    let init = consistent_initial_values(&model, &[1.0, 0.0], &[0.0, 0.0], &InitOptions::default())
        .unwrap();
    let option = |r: Result<_, Error>| match r {
        Err(Error::Options(OptionError::Invalid { option, .. })) => option,
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("accepted"),
    };
    for (opts, name) in [
        (GenAlphaOptions::new(0.0), "h"),
        (GenAlphaOptions::new(-1e-3), "h"),
        (GenAlphaOptions::new(1e-3).rho_inf(1.0), "rho_inf"),
        (GenAlphaOptions::new(1e-3).newton_tol(0.0), "newton_tol"),
    ] {
        let r = GenAlpha::new(model.clone(), &init.state, opts).map(|_| ());
        assert_eq!(option(r), name);
    }
    // keeping every 0th step
    let problem = Problem::new(model.clone()).guess(&[1.0, 0.0], &[0.0, 0.0]);
    let plan = RunPlan::new(GenAlphaOptions::new(1e-3)).output_every(0);
    let r = Simulation::new(problem.clone(), plan).map(|_| ());
    assert_eq!(option(r), "output_every");
    let mut bad = init.state.clone();
    bad.lambda.clear();
    let r = GenAlpha::new(model.clone(), &bad, GenAlphaOptions::new(1e-3)).map(|_| ());
    assert_eq!(option(r), "state");
    // names that are not there: the kind and the name, for a program to match
    let sens =
        SensitivityRecorder::new(&problem, &RunPlan::new(GenAlphaOptions::new(1e-3)), &["zz"]);
    match sens.map(|_| ()) {
        Err(Error::Options(OptionError::UnknownName { kind, name, .. })) => {
            assert_eq!((kind, name.as_str()), ("parameter", "zz"))
        }
        r => panic!("{r:?}"),
    }
}

#[test]
fn bad_models_are_rejected() {
    let p = Particle {
        mass: 1.0,
        gravity: [0.0, -9.81],
    };
    let e = Model::builder(2).term([1, 2], p).build().err().unwrap();
    assert!(
        matches!(e, ModelError::IndexOutOfRange { index: 2, n: 2, .. }),
        "{e:?}"
    );
    let e = Model::builder(2).term([1, 1], p).build().err().unwrap();
    assert!(matches!(e, ModelError::RepeatedIndex { .. }));
    let e = Model::builder(3).term([0, 1], p).build().err().unwrap();
    assert!(e.to_string().contains("coordinate 2"), "{e}");
    assert!(
        matches!(e, ModelError::CoordinateUnused { index: 2, .. }),
        "{e:?}"
    );
    let e = Model::builder(2)
        .coordinate_names(["x"])
        .term([0, 1], p)
        .build()
        .err()
        .unwrap();
    assert!(
        matches!(
            e,
            ModelError::WrongCount {
                expected: 2,
                given: 1,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "coordinate names, one per coordinate: 1 given for 2"
    );
}

#[test]
fn a_constraint_not_differentiable_at_the_solution_is_an_error_not_a_hang() {
    // Found by fuzzing: C = sqrt(x)² vanishes where sqrt has an infinite slope, so C_q is NaN
    // there. nalgebra's SVD (used for least-norm steps) never returns on a NaN entry; the
    // initialization must stop with a typed error instead.
    let text = r#"
Title: e
Dimension: 3
PhysicalParams: { L: 1 }
PartData:
  Fixed: { O: [0, 0, 0] }
  FixedVectors: { w: [0, 0, 1] }
  Points: [P]
  Scalars: [s]
  Define:
    Q: P + s*w
  Particles: { Q: 1 }
  Equations:
    e: "sqrt((norm([s, 1, t]) * (2.5 + Q.z)))**2"
ProblemData:
  tend: 1
  positions: { P: [1, 0, 0], s: 0 }
"#;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (m, _) = lagrangian::spec::parse(text, "nondiff.yaml").unwrap();
        tx.send(m.initial_values().map(|_| ()).map_err(|e| e.to_string()))
            .unwrap();
    });
    let r = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("initialization did not return within 30 s");
    let e = r.unwrap_err();
    assert!(e.contains("not differentiable"), "{e}");
}

#[test]
fn library_constructors_refuse_bad_input_instead_of_panicking() {
    use lagrangian::library::pendulum::pendulum_chain_3d;
    for (m, l, g) in [
        (vec![1.0, 2.0], vec![0.5], 9.81),
        (vec![], vec![], 9.81),
        (vec![1.0], vec![-0.5], 9.81),
        (vec![0.0], vec![0.5], 9.81),
        (vec![1.0], vec![f64::NAN], 9.81),
        (vec![1.0], vec![0.5], f64::INFINITY),
    ] {
        let Err(e) = pendulum_chain_3d(&m, &l, g) else {
            panic!("accepted masses {m:?}, lengths {l:?}, g = {g}")
        };
        assert!(matches!(e, Error::Model(_)), "{e}");
        assert!(e.to_string().contains("pendulum chain"), "{e}");
    }
    // a bad value is named with its bob and quantity, for a program to match
    let Err(e) = pendulum_chain_3d(&[1.0, 2.0], &[0.5, -1.0], 9.81) else {
        panic!("accepted a negative length")
    };
    match e {
        Error::Model(ModelError::BadValue {
            element,
            quantity,
            value,
            ..
        }) => {
            assert_eq!(
                (element.as_str(), quantity.as_str(), value),
                ("pendulum chain bob 2", "length", -1.0)
            );
        }
        e => panic!("{e:?}"),
    }
    // a cloth without particles
    use lagrangian::library::mass_spring::scenes::cloth;
    let Err(e) = cloth(0) else {
        panic!("cloth(0) accepted")
    };
    assert!(e.to_string().contains("at least one particle"), "{e}");
    assert!(cloth(1).is_ok());
}

#[test]
fn file_expression_and_plot_errors_are_lagrangian_errors() {
    // a mechanism file error keeps its place through the `?` into `lagrangian::Error`
    fn load() -> Result<Problem, Error> {
        Ok(lagrangian::spec::parse(
            "Title: t\nDimension: 2\nPhysicalParams: { a: 1/(1-1) }\n",
            "bad.yaml",
        )?
        .0)
    }
    let e = load().unwrap_err();
    assert!(matches!(e, Error::Spec(_)));
    let text = e.to_string();
    assert!(
        text.starts_with("bad.yaml:3:") && text.contains("division by zero"),
        "{text}"
    );
    // an expression error
    fn number() -> Result<f64, Error> {
        Ok(lagrangian::expr::Scope::default().number("2 * q")?)
    }
    let e = number().unwrap_err();
    assert!(
        matches!(e, Error::Expr(_)) && e.to_string().contains("'q'"),
        "{e}"
    );
    // a plot of a missing table
    fn plot() -> Result<(), Error> {
        lagrangian::view::plot::Table::read(std::path::Path::new("/nonexistent/trajectory.csv"))?;
        Ok(())
    }
    assert!(matches!(plot().unwrap_err(), Error::Plot(_)));
}
