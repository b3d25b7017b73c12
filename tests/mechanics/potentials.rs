//! Potential energies written out in mechanism files (`AppliedForces.Potentials`): the same
//! trajectory as a hand-written Rust model, Kepler's period, the figure-eight choreography of
//! three gravitating masses returning to its start, and mistakes reported with their place.

use lagrangian::prelude::*;

use crate::common;

/// A planet (mass `m`) about a fixed sun (`GM = 1`) at the origin, released at the periapsis of
/// an orbit of semi-major axis 1 and eccentricity `e`.
fn kepler_file(e: f64, extra: &str) -> String {
    format!(
        "Dimension: 2\nPhysicalParams: {{ GM: 1, m: 0.001, e: {e}, a: 1 }}\n\
         PartData:\n  Fixed: {{ S: [0, 0] }}\n  Particles: {{ P: m }}\n\
         AppliedForces:\n  Potentials:\n    sun: -GM*m/norm(P - S)\n\
         ProblemData:\n  tend: 6.283185307179586\n  positions: {{ P: [a*(1 - e), 0] }}\n  \
         velocities: {{ P: [0, sqrt(GM*(1 + e)/(a*(1 - e)))] }}\n{extra}"
    )
}

/// The same planet in Rust: `V = −GM m/|q|`.
struct Sun {
    gm: f64,
    m: f64,
}

impl Term<2> for Sun {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> D {
        v.dot(v) * (0.5 * self.m)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        -(q.dot(q).sqrt().recip()) * (self.gm * self.m)
    }
}

#[test]
fn a_written_out_potential_moves_as_the_same_potential_in_rust() {
    let e = 0.6;
    let file = kepler_file(e, "SolverParams: { step: 1e-3 }\n");
    let (problem, _) = lagrangian::spec::parse(&file, "kepler.yaml").unwrap();
    let from_file = simulate(&problem, GenAlphaOptions::new(1e-3)).unwrap();
    let model = Model::builder(2)
        .term([0, 1], Sun { gm: 1.0, m: 0.001 })
        .build()
        .unwrap();
    let vp = (1.0f64 + e).sqrt() / (1.0f64 - e).sqrt();
    let rust = Problem::new(model)
        .guess(&[1.0 - e, 0.0], &[0.0, vp])
        .pin_v([0, 1])
        .t_end(2.0 * std::f64::consts::PI);
    let by_hand = simulate(&rust, GenAlphaOptions::new(1e-3)).unwrap();
    let worst = common::max_state_difference(&from_file, &by_hand);
    eprintln!("file vs Rust, 6,284 steps of an e = 0.6 orbit: max difference {worst:.1e}");
    assert!(worst < 1e-11, "{worst:e}");
}

#[test]
fn kepler_orbits_close_after_one_period() {
    // T = 2π √(a³/GM) = 2π for every eccentricity; energy −GM m/(2a), angular momentum conserved
    for e in [0.0, 0.3, 0.6] {
        let file = kepler_file(e, "SolverParams: { tol: 1e-9 }\n");
        let (problem, plan) = lagrangian::spec::parse(&file, "kepler.yaml").unwrap();
        let sol = simulate(&problem, plan.method.clone()).unwrap();
        let (first, last) = (&sol.records[0], sol.last());
        let back = (0..2)
            .map(|i| (last.state.q[i] - first.state.q[i]).abs())
            .fold(0.0, f64::max);
        // the period from the miss: the planet passes the periapsis at speed v_p
        let vp = ((1.0 + e) / (1.0 - e)).sqrt();
        let period_error = back / vp / (2.0 * std::f64::consts::PI);
        let energy = -0.001 / 2.0;
        eprintln!(
            "e = {e}: {} steps, back within {back:.1e} (period {period_error:.1e} relative), \
             energy {:.9e}",
            sol.stats.steps, last.energy
        );
        assert!(period_error < 1e-3, "e = {e}: {period_error:e}");
        assert!((first.energy - energy).abs() < 1e-12 * energy.abs().max(1.0));
        assert!(
            (last.energy - first.energy).abs() < 1e-6 * energy.abs(),
            "e = {e}"
        );
    }
}

#[test]
fn the_figure_eight_returns_to_its_start() {
    let out = common::tmp("figure-eight");
    let o = common::run(
        &[
            "run",
            &common::mech("figure_eight.yaml"),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (names, rows) = common::trajectory(&out);
    let (a, b) = (&rows[0], rows.last().unwrap());
    assert!((b[0] - 6.32591398).abs() < 1e-12);
    let pos = (1..=6).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max);
    let vel = (7..=12).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max);
    eprintln!("after one period: positions within {pos:.1e}, velocities within {vel:.1e}");
    assert!(names[1..=6] == ["A.x", "A.y", "B.x", "B.y", "C.x", "C.y"]);
    // the published initial data carry 8 digits
    assert!(pos < 1e-6 && vel < 1e-6, "{pos:e} {vel:e}");
    let s = common::summary(&out);
    let drift = s["energy_end"].as_f64().unwrap() - s["energy_start"].as_f64().unwrap();
    let lz = s["angular_momentum_end"][2].as_f64().unwrap();
    eprintln!("energy drift {drift:.1e}, Lz {lz:.1e}");
    assert!(drift.abs() < 1e-9 && lz.abs() < 1e-9);
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn mistakes_in_potentials_name_their_place() {
    let base = "Dimension: 2\nPartData:\n  Fixed: { S: [0, 0] }\n  Particles: { P: 1 }\n\
                ProblemData: { tend: 1, positions: { P: [1, 0] } }\nAppliedForces:\n  Potentials:\n";
    for (line, part) in [
        ("    v: P - S\n", "must be a scalar"),
        ("    v: 3*norm(S)\n", "does not involve"),
        ("    v: -1/norm(Q)\n", "Q"),
        (
            "    v: -1/norm(P - P)\n",
            "not defined at the position guesses",
        ),
    ] {
        let e = lagrangian::spec::parse(&format!("{base}{line}"), "p.yaml").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("AppliedForces.Potentials.v") && msg.contains(part),
            "{msg}"
        );
        assert!(msg.starts_with("p.yaml:"), "{msg}");
    }
}

/// The first time the angle swept by `d(row)` about `n` (in the plane `e1`, `e2`) reaches 2π.
fn first_revolution(rows: &[Vec<f64>], d: impl Fn(&[f64]) -> [f64; 3]) -> Option<f64> {
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let unit = |a: [f64; 3]| {
        let n = dot(a, a).sqrt();
        [a[0] / n, a[1] / n, a[2] / n]
    };
    let (r0, r1) = (d(&rows[0]), d(&rows[1]));
    let e1 = unit(r0);
    let e2 = unit(cross(unit(cross(r0, r1)), e1));
    let (mut swept, mut prev, mut t_prev) = (0.0, 0.0, rows[0][0]);
    for row in rows {
        let r = d(row);
        let th = dot(r, e2).atan2(dot(r, e1));
        let step = (th - prev + 3.0 * std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI)
            - std::f64::consts::PI;
        if swept + step >= 2.0 * std::f64::consts::PI {
            let f = (2.0 * std::f64::consts::PI - swept) / step;
            return Some(t_prev + f * (row[0] - t_prev));
        }
        (swept, prev, t_prev) = (swept + step, th, row[0]);
    }
    None
}

#[test]
fn the_outer_solar_system_keeps_its_periods_energy_and_angular_momentum() {
    let out = common::tmp("outer-solar-system");
    let file = common::mech("outer_solar_system.yaml");
    let args = [
        "run",
        &file,
        "--quiet",
        "--output-dt",
        "1",
        "--columns",
        "positions",
        "--out",
    ];
    let o = common::run(&[&args[..], &[out.to_str().unwrap()]].concat(), None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (names, rows) = common::trajectory(&out);
    let col = |n: &str| names.iter().position(|x| x == n).unwrap();
    // heliocentric positions; sidereal periods 4,332.59 and 10,759.22 days
    for (planet, published) in [("Jupiter", 4332.59), ("Saturn", 10759.22)] {
        let p = [
            col(&format!("{planet}.x")),
            col(&format!("{planet}.y")),
            col(&format!("{planet}.z")),
        ];
        let s = [col("Sun.x"), col("Sun.y"), col("Sun.z")];
        let period = first_revolution(&rows, |r| [0, 1, 2].map(|k| r[p[k]] - r[s[k]])).unwrap();
        let rel = (period - published) / published;
        eprintln!("{planet}: {period:.2} days ({rel:+.1e} from {published})");
        assert!(rel.abs() < 1e-3, "{planet}: {period}");
    }
    let s = common::summary(&out);
    let (e0, e1) = (
        s["energy_start"].as_f64().unwrap(),
        s["energy_end"].as_f64().unwrap(),
    );
    assert!(((e1 - e0) / e0).abs() < 1e-7, "{e0} → {e1}");
    for k in 0..3 {
        let (a, b) = (
            s["angular_momentum_start"][k].as_f64().unwrap(),
            s["angular_momentum_end"][k].as_f64().unwrap(),
        );
        assert!((a - b).abs() < 1e-7 * 6e-5, "L[{k}]: {a} → {b}");
    }
    std::fs::remove_dir_all(&out).ok();
}
