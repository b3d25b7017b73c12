//! Coordinate-level elements in mechanism files — `Masses`, `CoordinateSprings`, forces along
//! coordinates — and `Dimension: 1`: Exudyn's system-assembly example (two 1D masses sharing a
//! coordinate, a coordinate spring between them) gives the mass matrix diag(m0 + m2, m1) and
//! moves as the same system written in Rust; a mass on a spring on a line against its closed
//! form; mistakes with their place.

use crate::common;
use lagrangian::analysis::Linearization;
use lagrangian::model::elements::Particle;
use lagrangian::prelude::*;

/// Exudyn's example: masses m0 and m2 on c0, m1 on c1, a spring k between them, loads f0, f1.
const ASSEMBLY: &str = "Title: Exudyn's system assembly example\nDimension: 1\n\
    PhysicalParams: { m0: 1, m1: 2, m2: 0.5, k: 100, d: 0.3, f0: 1, f1: -0.25 }\n\
    PartData:\n  Scalars: [c0, c1]\n  \
    Masses:\n    o0: { coordinate: c0, mass: m0 }\n    o1: { coordinate: c1, mass: m1 }\n    \
    o2: { coordinate: c0, mass: m2 }\n  \
    CoordinateSprings:\n    spring: { coordinates: [c0, c1], stiffness: k, damping: d, offset: 0.5 }\n\
    AppliedForces:\n  Forces: { c0: f0, c1: f1 }\n\
    ProblemData: { tend: 2, positions: { c0: 0, c1: 0.2 }, velocities: { c0: 1, c1: 0 } }\n\
    SolverParams: { step: 1e-3 }\n";

/// The coordinate spring–damper and the loads written as a Rust term.
struct SpringAndLoads {
    k: f64,
    d: f64,
    offset: f64,
    f: [f64; 2],
}

impl Term<2> for SpringAndLoads {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        let s = q[1] - q[0] - self.offset;
        s * s * (0.5 * self.k)
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> D {
        let s = v[1] - v[0];
        s * s * (0.5 * self.d)
    }
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 2>,
        _v: &SVector<D, 2>,
    ) -> SVector<D, 2> {
        SVector::from([D::from(self.f[0]), D::from(self.f[1])])
    }
}

#[test]
fn exudyn_assembly_example_sums_masses_on_a_shared_coordinate() {
    let (problem, plan) = lagrangian::spec::parse(ASSEMBLY, "assembly.yaml").unwrap();
    let lin = Linearization::at_rest(&problem, &[0.0, 0.5]).unwrap();
    let (m0, m1, m2, k) = (1.0, 2.0, 0.5, 100.0);
    assert_eq!(lin.mass.as_slice(), &[m0 + m2, 0.0, 0.0, m1]);
    assert_eq!(lin.stiffness.as_slice(), &[k, -k, -k, k]);
    assert!((lin.damping[(0, 0)] - 0.3).abs() < 1e-15 && (lin.damping[(0, 1)] + 0.3).abs() < 1e-15);
    // the bundled file writes the same example with points on a line (Dimension 1)
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/mechanisms/exudyn_assembly.yaml"
    );
    let (bundled, _) = lagrangian::spec::load(std::path::Path::new(path)).unwrap();
    let lin = Linearization::at_rest(&bundled, &[0.0, 0.5]).unwrap();
    assert_eq!(lin.mass.as_slice(), &[m0 + m2, 0.0, 0.0, m1]);
    assert_eq!(lin.stiffness.as_slice(), &[k, -k, -k, k]);

    // the same system in Rust, element by element as Exudyn assembles it
    let gravity = [0.0];
    let model = Model::builder(2)
        .term([0], Particle::<1> { mass: m0, gravity })
        .term([1], Particle::<1> { mass: m1, gravity })
        .term([0], Particle::<1> { mass: m2, gravity })
        .term(
            [0, 1],
            SpringAndLoads {
                k,
                d: 0.3,
                offset: 0.5,
                f: [1.0, -0.25],
            },
        )
        .build()
        .unwrap();
    let rust = Problem::new(model)
        .guess(&[0.0, 0.2], &[1.0, 0.0])
        .pin_q([0, 1])
        .pin_v([0, 1])
        .t_end(2.0);
    let by_hand = simulate(&rust, GenAlphaOptions::new(1e-3)).unwrap();
    let from_file = simulate(&problem, plan.method.clone()).unwrap();
    let worst = common::max_state_difference(&from_file, &by_hand);
    for a in &from_file.records {
        // Newton's second law for the whole: the momentum grows by (f0 + f1) t
        let p = (m0 + m2) * a.state.v[0] + m1 * a.state.v[1];
        assert!((p - (m0 + m2) - 0.75 * a.state.t).abs() < 1e-10, "{p}");
    }
    eprintln!("Exudyn's assembly example, file vs Rust over 2,000 steps: {worst:.1e}");
    assert!(worst < 1e-12, "{worst:e}");
}

#[test]
fn a_mass_on_a_spring_on_a_line() {
    // Dimension 1: points have one coordinate, gravity acts along −x; the particle hangs from
    // O on a spring (k, ℓ₀) and oscillates about x* = −ℓ₀ − m g/k with ω = √(k/m)
    let file = "Dimension: 1\nPhysicalParams: { m: 2, k: 50, l0: 1 }\n\
        PartData:\n  Fixed: { O: [0] }\n  Points: [A, B]\n  Particles: { A: m }\n  \
        Springs: { OA: [k, l0] }\n  Masses: { B.x: 3 }\n  \
        CoordinateSprings: { ground: { coordinates: [B.x], stiffness: 12, offset: 1 } }\n\
        AppliedForces:\n  Gravity: 9.81\n\
        ProblemData: { tend: 3, positions: { A: [-1.5], B: [1.5] } }\nSolverParams: { step: 1e-4 }\n";
    let (problem, plan) = lagrangian::spec::parse(file, "line.yaml").unwrap();
    let sol = simulate(&problem, plan.method.clone()).unwrap();
    let (m, k, g) = (2.0f64, 50.0f64, 9.81f64);
    let rest = -1.0 - m * g / k;
    let w = (k / m).sqrt();
    // B (mass 3, no gravity: a mass on a coordinate feels only what acts on that coordinate)
    // on its ground spring: x = 1 + 0.5 cos(2t)
    let mut worst = 0.0f64;
    for r in &sol.records {
        let t = r.state.t;
        let a = rest + (-1.5 - rest) * (w * t).cos();
        let b = 1.0 + 0.5 * (2.0 * t).cos();
        worst = worst
            .max((r.state.q[0] - a).abs())
            .max((r.state.q[1] - b).abs());
    }
    eprintln!("masses on a line against the closed forms: {worst:.1e}");
    assert!(worst < 1e-5, "{worst:e}");
    // the run writes its columns (one momentum column on a line)
    let mut table = lagrangian::output::sink::ColumnRecorder::every(1000);
    let mut s = Simulation::new(problem.clone(), plan.method.clone()).unwrap();
    s.run_until(0.5, &mut [&mut table]).unwrap();
    assert!(table.column("Px").is_some() && table.column("Py").is_none());
}

#[test]
fn coordinate_element_mistakes_name_their_place() {
    let base = "Dimension: 2\nPartData:\n  Points: [P]\n  Scalars: [s]\n  \
                Define: { th: s*s }\n  Particles: { P: 1 }\n";
    let end = "ProblemData: { tend: 1, positions: { P: [1, 0], s: 1 } }\n";
    for (mid, place, part) in [
        (
            "  Masses: { q: 1 }\n",
            "Masses.q",
            "unknown scalar quantity 'q'",
        ),
        (
            "  Masses: { P.z: 1 }\n",
            "Masses.P.z",
            "unknown scalar quantity",
        ),
        ("  Masses: { s: -1 }\n", "Masses.s", "positive"),
        (
            "  Masses: { th: 1 }\n",
            "Masses.th",
            "needs the rate of 'th'",
        ),
        ("  Masses: { m: { coordinate: s } }\n", "Masses.m", "mass"),
        (
            "  CoordinateSprings: { c: { coordinates: [s, P.x, P.y], stiffness: 1 } }\n",
            "CoordinateSprings.c.coordinates",
            "one or two",
        ),
        (
            "  CoordinateSprings: { c: { coordinates: [s], stiffness: -1 } }\n",
            "CoordinateSprings.c",
            "must not be negative",
        ),
        (
            "  CoordinateSprings: { c: { coordinates: [s] } }\n",
            "CoordinateSprings.c",
            "give a stiffness or a damping",
        ),
        (
            "  CoordinateSprings: { c: { coordinates: [th], damping: 1 } }\n",
            "CoordinateSprings.c.coordinates",
            "a damper needs the rate of 'th'",
        ),
        (
            "  CoordinateSprings: { c: { coordinates: [s], stiffnes: 1 } }\n",
            "CoordinateSprings.c",
            "stiffnes",
        ),
    ] {
        let e = lagrangian::spec::parse(&format!("{base}{mid}{end}"), "c.yaml").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("c.yaml:") && msg.contains(place) && msg.contains(part),
            "{mid}: {msg}"
        );
    }
    // on a line: no rigid bodies, no y component, and Dimension 4 is refused
    let line = "Dimension: 1\nPartData:\n  Fixed: { O: [0] }\n  Points: [A]\n";
    for (mid, place, part) in [
        (
            "  Rigids: { OA: { Geom: { O: [0, 0], A: [1, 0] }, Dyna: { M: 1 } } }\n",
            "Rigids.OA",
            "Dimension 2 or 3",
        ),
        (
            "  Define: { y: A.y }\n",
            "Define.y",
            "expected a component after '.': x",
        ),
    ] {
        let text = format!("{line}{mid}ProblemData: {{ tend: 1, positions: {{ A: [1] }} }}\n");
        let msg = lagrangian::spec::parse(&text, "c.yaml")
            .unwrap_err()
            .to_string();
        assert!(msg.contains(place) && msg.contains(part), "{mid}: {msg}");
    }
    let msg = lagrangian::spec::parse("Dimension: 4\nPartData: {}\n", "c.yaml")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("must be 1, 2 or 3"), "{msg}");
}
