//! One mechanism, three sources, one run loop: a damped spring pendulum (a 1.5 kg mass on a
//! spring of stiffness 50 N/m, rest length 1 m, axial damping 0.2 N s/m, hung from a fixed
//! point under gravity) written with Rust elements (AD kernels), as a YAML mechanism file, and
//! by the mass–spring library (hand kernels). All three produce a `Problem` and run through the
//! same `Simulation`; their trajectories agree to round-off (AD against hand-derived
//! derivatives), and they carry the same geometry for output.

use lagrangian::library::elements::{AnchoredSpring, Particle};
use lagrangian::library::mass_spring::MassSpringSystem;
use lagrangian::model::geometry::{
    Affine, CoordKind, Geometry, Momenta, NamedPoint, PointKind, PointMap,
};
use lagrangian::prelude::*;
use lagrangian::spec;

const YAML: &str = "\
Title: spring pendulum
Dimension: 2
PartData:
  Fixed: { O: [0, 0] }
  Particles: { B: 1.5 }
  Springs: { OB: { stiffness: 50, length: 1, damping: 0.2 } }
AppliedForces:
  Gravity:
ProblemData:
  tend: 2
  positions: { B: [1.2, 0] }
  velocities: { B: [0, 0.5] }
SolverParams: { steps: 2000 }
";

fn rust_elements() -> Problem {
    let model = Model::builder(2)
        .coordinate_names(["B.x", "B.y"])
        .term(
            [0, 1],
            Particle {
                mass: 1.5,
                gravity: [0.0, -9.81],
            },
        )
        .term(
            [0, 1],
            AnchoredSpring {
                anchor: [0.0, 0.0],
                stiffness: 50.0,
                rest_length: 1.0,
                damping: 0.2,
            },
        )
        .build()
        .unwrap();
    let mut g = Geometry::new(2);
    g.points.push(NamedPoint::new(
        "O",
        PointKind::Fixed,
        PointMap::Affine(Affine::fixed([0.0; 3])),
    ));
    g.points.push(NamedPoint::new(
        "B",
        PointKind::Free,
        PointMap::Affine(Affine::free(&[0, 1])),
    ));
    g.coordinate_kinds = vec![CoordKind::Point(0), CoordKind::Point(1)];
    g.momenta = Momenta::Noether;
    Problem::new(model)
        .guess(&[1.2, 0.0], &[0.0, 0.5])
        .pin_v([0, 1])
        .t_end(2.0)
        .geometry(g)
}

fn library() -> Problem {
    let mut s = MassSpringSystem::<2>::new([0.0, -9.81]);
    let o = s.add_fix([0.0, 0.0]);
    let b = s.add_mass_with_velocity(1.5, [1.2, 0.0], [0.0, 0.5]);
    s.add_damped_spring(o, b, 1.0, 50.0, 0.2);
    s.problem(2.0).unwrap()
}

#[test]
fn rust_elements_yaml_and_library_give_the_same_trajectory() {
    let file = spec::parse(YAML, "spring_pendulum.yaml").unwrap().0;
    let problems = [rust_elements(), file, library()];
    let runs: Vec<Solution> = problems
        .iter()
        .map(|p| simulate(p, GenAlphaOptions::new(1e-3)).unwrap())
        .collect();
    let reference = &runs[0];
    assert_eq!(reference.records.len(), 2001);
    for (k, run) in runs.iter().enumerate().skip(1) {
        assert_eq!(run.records.len(), reference.records.len());
        let d = run
            .records
            .iter()
            .zip(&reference.records)
            .flat_map(|(a, b)| a.state.q.iter().zip(&b.state.q))
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        println!("source {k}: max |Δq| over 2000 steps = {d:.3e}");
        assert!(d < 1e-11, "source {k}: max |Δq| = {d:.3e}");
    }
    // the motion is not trivial: the spring stretched and the damping took energy out
    let (e0, e1) = (reference.records[0].energy, reference.last().energy);
    assert!(e1 < e0 - 0.1, "{e0} → {e1}");
    // the same geometry for output: one free point B (the library names it m0) and one fixed
    for p in &problems {
        let kinds: Vec<PointKind> = p.geometry.points.iter().map(|x| x.kind).collect();
        assert!(
            kinds.contains(&PointKind::Free) && kinds.contains(&PointKind::Fixed),
            "{kinds:?}"
        );
        let free = p.geometry.moving_points().next().unwrap();
        let x = free.position(&[1.2, 0.0], 0.0);
        assert_eq!(&x[..2], &[1.2, 0.0]);
    }
}

#[test]
fn a_problem_is_owned_data_that_moves_to_threads() {
    fn assert_owned<T: Clone + Send + Sync + 'static>(_: &T) {}
    let p = library();
    assert_owned(&p);
    // a sweep over spring stiffness in worker threads, each owning its problem
    let handles: Vec<_> = [20.0, 50.0, 80.0]
        .into_iter()
        .map(|k| {
            std::thread::spawn(move || {
                let mut s = MassSpringSystem::<2>::new([0.0, -9.81]);
                let o = s.add_fix([0.0, 0.0]);
                let b = s.add_mass(1.0, [1.0, 0.0]);
                s.add_spring(o, b, 1.0, k);
                let problem = s.problem(0.5).unwrap();
                simulate(&problem, s.plan(0.5, 500).unwrap())
                    .unwrap()
                    .last()
                    .state
                    .q[1]
            })
        })
        .collect();
    let ys: Vec<f64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    // a softer spring lets the mass fall further
    assert!(ys[0] < ys[1] && ys[1] < ys[2], "{ys:?}");
}
