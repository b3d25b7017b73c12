//! Linearization about a steady motion (issue 38 item 7): a heavy symmetric top precessing
//! steadily, written in its Euler angles, against the closed form of its nutation frequency and
//! against a simulation of a slightly disturbed precession; the state-space model about the
//! motion; how unsteady and unfit states are reported.

use lagrangian::analysis::{Linearization, ModesReport};
use lagrangian::run::memory::{MemoryOptions, run_in_memory};
use lagrangian::run::modes::ModesAt;
use lagrangian::spec;

/// The heavy symmetric top about its fixed tip, Euler angles `φ` (precession), `θ` (tilt from
/// the vertical), `ψ` (spin): `L = ½ I₁ (θ̇² + φ̇² sin²θ) + ½ I₃ (ψ̇ + φ̇ cos θ)² − m g l cos θ`,
/// started in the steady precession at tilt `θ₀`, precession rate `Ω` and spin `ω₃` — which
/// needs `m g l = I₃ ω₃ Ω − I₁ Ω² cos θ₀`. `dtheta` tilts it off the steady state; the run
/// ends at `tend` in steps of `step`.
fn top(dtheta: f64, tend: f64, step: f64) -> String {
    format!(
        "Title: heavy top in Euler angles\nDimension: 3\n\
         PhysicalParams: {{ I1: 0.8, I3: 0.3, th0: 0.6, W: 1.5, w3: 20, \
         mgl: I3*w3*W - I1*W**2*cos(th0) }}\n\
         PartData: {{ Scalars: [phi, th, psi] }}\n\
         Lagrangian:\n  T: I1/2*(th'**2 + phi'**2*sin(th)**2) + I3/2*(psi' + phi'*cos(th))**2\n  \
         V: mgl*cos(th)\n\
         ProblemData: {{ tend: {tend}, positions: {{ phi: 0, th: th0 + {dtheta}, psi: 0 }}, \
         velocities: {{ phi: W, psi: w3 - W*cos(th0) }} }}\n\
         SolverParams: {{ step: {step} }}\nOutput: {{ columns: [positions] }}\n"
    )
}

/// `ω_n² = (I₃ω₃/I₁ − 2Ω cos θ₀)² + Ω² sin²θ₀`: the tilt's small oscillation with both
/// momenta `p_φ`, `p_ψ` held (Routh's reduction of the cyclic `φ`, `ψ`).
fn nutation() -> f64 {
    let (i1, i3, th0, w, w3) = (0.8f64, 0.3, 0.6f64, 1.5, 20.0);
    ((i3 * w3 / i1 - 2.0 * w * th0.cos()).powi(2) + (w * th0.sin()).powi(2)).sqrt()
}

#[test]
fn a_precessing_top_nutates_at_the_closed_form_frequency() {
    let (problem, _) = spec::parse(&top(0.0, 1.0, 1e-3), "top.yaml").unwrap();
    let report = ModesReport::motion(&problem).unwrap();
    assert_eq!(report.at, "motion");
    assert!(report.modes.is_empty());
    // steady: no acceleration, and φ, ψ cyclic
    assert!(
        report.max_acceleration < 1e-12,
        "{}",
        report.max_acceleration
    );
    assert!(report.varies_along_motion < 1e-14);
    let wn = nutation();
    // six roots: the nutation pair ±iω_n (one entry) and four zeros (the cyclic angles and
    // their momenta)
    let oscillating: Vec<_> = (report.damped.iter())
        .filter(|s| s.omega_n > 1e-6)
        .collect();
    assert_eq!(oscillating.len(), 1, "{:?}", report.damped);
    let s = oscillating[0];
    assert!((s.im - wn).abs() < 1e-10 * wn, "{} vs {wn}", s.im);
    assert!(s.re.abs() < 1e-10 * wn, "undamped: {}", s.re);
    let text = report.to_string();
    assert!(
        text.contains("initial motion") && text.contains("gyroscopic"),
        "{text}"
    );
    assert!(!text.contains("not a steady motion"), "{text}");
    // at rest (the initial configuration) the same top has no nutation: it falls
    let rest = ModesReport::initial(&problem).unwrap();
    assert!(rest.modes.iter().all(|m| (m.omega - wn).abs() > 1.0));
}

#[test]
fn a_disturbed_precession_nutates_as_the_linearization_says() {
    // tilted by 1e-4 rad off the steady state, θ oscillates about it at ω_n: count the
    // zero crossings of θ − mean over ten periods
    let wn = nutation();
    let t_end = 10.0 * 2.0 * std::f64::consts::PI / wn;
    let (problem, plan) = spec::parse(&top(1e-4, t_end, t_end / 20_000.0), "top.yaml").unwrap();
    let run = run_in_memory(problem, &plan, &MemoryOptions::default()).unwrap();
    let (t, th) = (run.column("t").unwrap(), run.column("th").unwrap());
    let mean = th.iter().sum::<f64>() / th.len() as f64;
    let crossings: Vec<f64> = (1..th.len())
        .filter(|&k| (th[k - 1] - mean) * (th[k] - mean) < 0.0)
        .map(|k| {
            let (a, b) = (th[k - 1] - mean, th[k] - mean);
            t[k - 1] + (t[k] - t[k - 1]) * a / (a - b)
        })
        .collect();
    assert!(crossings.len() >= 19, "{} crossings", crossings.len());
    let (first, last) = (crossings[0], crossings[crossings.len() - 1]);
    let period = 2.0 * (last - first) / (crossings.len() - 1) as f64;
    let w = 2.0 * std::f64::consts::PI / period;
    assert!(
        (w - wn).abs() < 1e-3 * wn,
        "simulated {w} vs linearized {wn}"
    );
}

#[test]
fn the_state_space_model_about_the_motion_has_the_nutation_roots() {
    let (problem, _) = spec::parse(&top(0.0, 1.0, 1e-3), "top.yaml").unwrap();
    let ss = lagrangian::run::linear::state_space(&problem, ModesAt::Motion, &[], &["th"]).unwrap();
    assert_eq!(ss.v.len(), 3);
    assert!((ss.v[0] - 1.5).abs() < 1e-15);
    let wn = nutation();
    let eig = ss.a.complex_eigenvalues();
    let top = eig.iter().fold(0.0f64, |m, z| m.max(z.im));
    assert!((top - wn).abs() < 1e-10 * wn, "{top} vs {wn}");
    // A's columns against central differences of the accelerations in the state: perturb θ
    // and θ̇ (the basis of an unconstrained model is the identity up to signs and order)
    let lin = Linearization::in_motion(&problem, &ss.q, &ss.v).unwrap();
    let acc = |q: &[f64], v: &[f64]| {
        Linearization::in_motion(&problem, q, v)
            .unwrap()
            .acceleration
    };
    let eps = 1e-6;
    for (k, velocity) in [(1usize, false), (1, true)] {
        let shift = |s: f64| {
            let (mut q, mut v) = (lin.q.clone(), lin.velocity.clone());
            match velocity {
                true => v[k] += s * eps,
                false => q[k] += s * eps,
            }
            acc(&q, &v)
        };
        let (plus, minus) = (shift(1.0), shift(-1.0));
        let fd: Vec<f64> = (0..3).map(|i| (plus[i] - minus[i]) / (2.0 * eps)).collect();
        // the same column of A in coordinates: N · A[f.., col] with col = N⁻¹ e_k
        let n = &ss.basis;
        let col = n.transpose().column(k).into_owned();
        let f = n.ncols();
        let from = match velocity {
            true => f,
            false => 0,
        };
        let lower = ss.a.view((f, from), (f, f)) * &col;
        let exact = n * lower;
        for i in 0..3 {
            assert!(
                (exact[i] - fd[i]).abs() < 1e-6 * (1.0 + fd[i].abs()),
                "∂q̈_{i}/∂{}{k}: {} vs {}",
                if velocity { "v" } else { "q" },
                exact[i],
                fd[i]
            );
        }
    }
}

#[test]
fn unsteady_and_unfit_states_are_said_so() {
    // the top tilted off its steady state: accelerations, reported
    let (problem, _) = spec::parse(&top(0.05, 1.0, 1e-3), "top.yaml").unwrap();
    let report = ModesReport::motion(&problem).unwrap();
    assert!(report.max_acceleration > 1e-3);
    assert!(report.to_string().contains("not a steady motion"));
    // a pendulum in its angle swinging through the bottom: no acceleration there, but the
    // linearization changes along the swing (K v ≠ 0)
    let text = "Dimension: 2\nPartData: { Scalars: [th] }\n\
                Lagrangian: { T: th'**2/2, V: -9.81*cos(th) }\n\
                ProblemData: { tend: 1, positions: { th: 0 }, velocities: { th: 1 } }\n";
    let (problem, _) = spec::parse(text, "swing.yaml").unwrap();
    let report = ModesReport::motion(&problem).unwrap();
    assert!(report.max_acceleration < 1e-14);
    assert!((report.varies_along_motion - 1.0).abs() < 1e-12);
    assert!(report.to_string().contains("changes along the motion"));
    // a pendulum in Cartesian coordinates moving: its rod changes along the motion
    let text = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, \
                Bars: { OA: 1 } }\nAppliedForces: { Gravity: }\n\
                ProblemData: { tend: 1, positions: { A: [0, -1] }, velocities: { A: [1, 0] } }\n";
    let (problem, _) = spec::parse(text, "pendulum.yaml").unwrap();
    let e = ModesReport::motion(&problem).unwrap_err().to_string();
    assert!(
        e.contains("constraint 'bar OA' changes along the motion"),
        "{e}"
    );
    // undamped modes are about rest
    let state = problem.initial_values().unwrap().state;
    let lin = Linearization::at_rest(&problem, &state.q).unwrap();
    assert!(lin.modes().is_ok());
    let text = "Dimension: 2\nPartData: { Scalars: [th] }\n\
                Lagrangian: { T: th'**2/2, V: -9.81*cos(th) }\n\
                ProblemData: { tend: 1, positions: { th: 0 }, velocities: { th: 1 } }\n";
    let (problem, _) = spec::parse(text, "swing.yaml").unwrap();
    let state = problem.initial_values().unwrap().state;
    let lin = Linearization::in_motion(&problem, &state.q, &state.v).unwrap();
    assert!(
        lin.modes()
            .unwrap_err()
            .to_string()
            .contains("damped_modes")
    );
    assert!(Linearization::in_motion(&problem, &state.q, &[]).is_err());
}

/// A conical pendulum in Cartesian coordinates: a unit mass on a rod of length `l` from the
/// origin, going round the vertical at the cone angle `alpha` from the downward vertical, at
/// the rate `Ω² = g / (l cos α)` that keeps it there. Its coordinates are not cyclic: the
/// motion is steady in the frame turning with it about `z`.
fn conical(alpha: f64, dalpha: f64) -> String {
    let (g, l) = (9.81f64, 1.5f64);
    let w = (g / (l * alpha.cos())).sqrt();
    let a = alpha + dalpha;
    format!(
        "Title: conical pendulum\nDimension: 3\n\
         PartData: {{ Fixed: {{ O: [0, 0, 0] }}, Particles: {{ A: 1 }}, Bars: {{ OA: {l} }} }}\n\
         AppliedForces: {{ Gravity: }}\n\
         ProblemData: {{ tend: 1, positions: {{ A: [{x}, 0, {z}] }}, \
         velocities: {{ A: [0, {vy}, 0] }} }}\n",
        x = l * a.sin(),
        z = -l * a.cos(),
        vy = w * l * alpha.sin(),
    )
}

#[test]
fn a_conical_pendulum_in_cartesian_coordinates_oscillates_about_its_cone() {
    // small oscillations of the cone angle about the steady motion: ω² = Ω² (1 + 3 cos²α)
    let (g, l, alpha): (f64, f64, f64) = (9.81, 1.5, 0.7);
    let w = (g / (l * alpha.cos())).sqrt();
    let expected = w * (1.0 + 3.0 * alpha.cos().powi(2)).sqrt();
    let (problem, _) = spec::parse(&conical(alpha, 0.0), "cone.yaml").unwrap();
    let report = ModesReport::motion(&problem).unwrap();
    assert!(
        report.max_acceleration < 1e-9,
        "{}",
        report.max_acceleration
    );
    assert!(
        report.varies_along_motion < 1e-6,
        "{}",
        report.varies_along_motion
    );
    let frame = &report.moving_frame;
    assert_eq!(frame.len(), 1, "{frame:?}");
    assert_eq!(frame[0].0, "rotation about z");
    assert!((frame[0].1 - w).abs() < 1e-10 * w, "{frame:?}");
    let oscillating: Vec<_> = (report.damped.iter())
        .filter(|s| s.omega_n > 1e-6)
        .collect();
    assert_eq!(oscillating.len(), 1, "{:?}", report.damped);
    let s = oscillating[0];
    assert!(
        (s.im - expected).abs() < 1e-9 * expected,
        "{} vs {expected}",
        s.im
    );
    assert!(s.re.abs() < 1e-9 * expected, "{}", s.re);
    let text = report.to_string();
    assert!(text.contains("rotation about z"), "{text}");
    // off the cone by 1e-4 rad, a run swings about it at that frequency (the cone angle's
    // crossings of its mean over ten periods)
    let period = 2.0 * std::f64::consts::PI / expected;
    let text = conical(alpha, 1e-4).replace("tend: 1", &format!("tend: {}", 10.0 * period))
        + "SolverParams: { tol: 1e-11 }\nOutput: { dt: 1e-3 }\n";
    let (problem, plan) = spec::parse(&text, "cone.yaml").unwrap();
    let r = run_in_memory(problem, &plan, &MemoryOptions::default()).unwrap();
    let (t, z) = (r.column("t").unwrap(), r.column("A.z").unwrap());
    let cone: Vec<f64> = z.iter().map(|z| (-z / l).acos()).collect();
    let mean = (cone.iter().fold(f64::MAX, |m, x| m.min(*x))
        + cone.iter().fold(f64::MIN, |m, x| m.max(*x)))
        / 2.0;
    let ups: Vec<f64> = (1..cone.len())
        .filter(|&k| cone[k - 1] < mean && cone[k] >= mean)
        .map(|k| {
            let s = (mean - cone[k - 1]) / (cone[k] - cone[k - 1]);
            t[k - 1] + s * (t[k] - t[k - 1])
        })
        .collect();
    assert!(ups.len() >= 9, "{ups:?}");
    let measured = (ups[ups.len() - 1] - ups[0]) / (ups.len() - 1) as f64;
    assert!(
        (measured - period).abs() < 1e-3 * period,
        "{measured} vs {period}"
    );
}

/// The heavy symmetric top of [`top`] as a rigid body given by its inertia, on a spherical
/// joint at its tip: natural coordinates (its origin and axes `i`, `j`), none of them cyclic.
/// Mass 1, centre of mass at `l` along its `k`, `m g l` and the moments about the tip as the
/// Euler-angle top's; tilted by `θ₀` about the world's `x`, turning at `ω = Ω z + ψ̇ k`.
fn top_body() -> String {
    top_body_in(true)
}

/// [`top_body`] in natural coordinates, or (`natural` false) in joint coordinates: the spherical
/// joint's unit quaternion.
fn top_body_in(natural: bool) -> String {
    use lagrangian::spec::multibody::{Body, Joint, Multibody};
    let (i1, i3, th0, w, w3) = (0.8f64, 0.3, 0.6f64, 1.5, 20.0);
    let mgl = i3 * w3 * w - i1 * w * w * th0.cos();
    let l = mgl / 9.81;
    let k = [0.0, -th0.sin(), th0.cos()];
    let spin = w3 - w * th0.cos();
    let omega: [f64; 3] = [0, 1, 2].map(|a| w * [0.0, 0.0, 1.0][a] + spin * k[a]);
    let side = i1 - l * l;
    let top = Multibody::new(3)
        .title("heavy top as a body")
        .body(
            "Top",
            Body::new(1.0)
                .com([0.0, 0.0, l])
                .inertia([side, side, i3])
                .position([0.0, 0.0, 0.0])
                .turned([1.0, 0.0, 0.0], th0)
                .velocity([0.0, 0.0, 0.0])
                .angular_velocity(omega),
        )
        .joint("tip", Joint::spherical("ground", "Top"));
    match natural {
        true => top.yaml("PartData: { Coordinates: natural }"),
        false => top,
    }
    .to_yaml()
    .unwrap()
}

#[test]
fn a_precessing_top_in_natural_coordinates_nutates_at_the_closed_form_frequency() {
    let (problem, _) = spec::parse(&top_body(), "top.yaml").unwrap();
    // the frame: precession about z at Ω and the body's spin about its k at ψ̇
    top_body_nutates(&problem, "rotation about z", "Top turning about its k");
}

/// The steady precession of [`top_body_in`]: at rest in a frame of two rates — the precession
/// `Ω = 1.5` (the frame entry `precession`) and the spin `ψ̇` about the top's axis (`spin`) —
/// with one oscillating root, the closed-form nutation, undamped.
fn top_body_nutates(problem: &lagrangian::problem::Problem, precession: &str, spin_name: &str) {
    let report = ModesReport::motion(problem).unwrap();
    assert!(
        report.max_acceleration < 1e-9,
        "{}",
        report.max_acceleration
    );
    let frame = &report.moving_frame;
    let rate = |name: &str| frame.iter().find(|(n, _)| n == name).map(|(_, r)| *r);
    assert_eq!(frame.len(), 2, "{frame:?}");
    assert!((rate(precession).unwrap() - 1.5).abs() < 1e-10, "{frame:?}");
    let spin = 20.0 - 1.5 * 0.6f64.cos();
    assert!(
        (rate(spin_name).unwrap() - spin).abs() < 1e-9 * spin,
        "{frame:?}"
    );
    let wn = nutation();
    let oscillating: Vec<_> = (report.damped.iter())
        .filter(|s| s.omega_n > 1e-6)
        .collect();
    assert_eq!(oscillating.len(), 1, "{:?}", report.damped);
    assert!(
        (oscillating[0].im - wn).abs() < 1e-9 * wn,
        "{} vs {wn}",
        oscillating[0].im
    );
    assert!(oscillating[0].re.abs() < 1e-9 * wn);
}

/// The same top in joint coordinates: the spherical joint's quaternion has no cyclic
/// coordinate either; the frame is the quaternion turned about the ground's `z` (`e_z ⊗ q`)
/// and about the top's own `k` (`q ⊗ e_z`), and the nutation is the closed form's.
#[test]
fn a_precessing_top_on_a_quaternion_nutates_at_the_closed_form_frequency() {
    let (problem, _) = spec::parse(&top_body_in(false), "top.yaml").unwrap();
    assert_eq!(problem.model.n_coords(), 4);
    top_body_nutates(
        &problem,
        "Top turning about z of its joint's parent frame",
        "Top turning about its own z",
    );
}

#[test]
fn the_state_space_model_in_a_moving_frame_predicts_a_disturbed_cone() {
    // the conical pendulum's model with outputs the turning frame leaves unchanged — the
    // height A.z and the angular momentum about z (a velocity output): started 1e-4 rad off
    // the cone at the steady velocity, C e^{At} x₀ follows the simulated ones over two periods
    let (l, alpha, da): (f64, f64, f64) = (1.5, 0.7, 1e-4);
    let columns = "Output: { dt: 1e-3, columns: [positions, { hz: \"cross(A, A').z\" }] }\n";
    let (problem, _) = spec::parse(&(conical(alpha, 0.0) + columns), "cone.yaml").unwrap();
    assert_eq!(problem.model.coordinate_names()[..3], ["A.x", "A.y", "A.z"]);
    let outputs = ["A.z", "hz"];
    let ss =
        lagrangian::run::linear::state_space(&problem, ModesAt::Motion, &[], &outputs).unwrap();
    let lin = Linearization::in_motion(&problem, &ss.q, &ss.v).unwrap();
    let xi = lin.symmetry.as_ref().unwrap().xi.clone();
    // the co-moving start: δq on the cone's generator, δv = 0 = N ẏ + Ξ N y
    let dq = nalgebra::DVector::from_fn(ss.q.len(), |i, _| match i {
        0 => l * alpha.cos() * da,
        2 => l * alpha.sin() * da,
        _ => 0.0,
    });
    let n = &ss.basis;
    let f = n.ncols();
    let mut x = nalgebra::DVector::zeros(2 * f);
    x.rows_mut(0, f).copy_from(&(n.transpose() * &dq));
    x.rows_mut(f, f).copy_from(&(-(n.transpose() * &xi * &dq)));
    let top =
        ss.a.complex_eigenvalues()
            .iter()
            .fold(0.0f64, |m, z| m.max(z.im));
    let t_end = 2.0 * 2.0 * std::f64::consts::PI / top;
    let text = conical(alpha, da).replace("tend: 1", &format!("tend: {t_end}"))
        + "SolverParams: { tol: 1e-12 }\n"
        + columns;
    let (disturbed, plan) = spec::parse(&text, "cone.yaml").unwrap();
    let r = run_in_memory(disturbed, &plan, &MemoryOptions::default()).unwrap();
    let t = r.column("t").unwrap();
    let (z, lz) = (r.column("A.z").unwrap(), r.column("hz").unwrap());
    let z0 = [ss.q[2], ss.q[0] * ss.v[1] - ss.q[1] * ss.v[0]];
    // RK4 on ẋ = A x, in steps of at most 1e-4 to each output time
    let rhs = |x: &nalgebra::DVector<f64>| &ss.a * x;
    let mut now = 0.0;
    let (mut worst, mut size) = ([0.0f64; 2], [0.0f64; 2]);
    for (k, &tk) in t.iter().enumerate() {
        crate::common::rk4_until(&mut x, &mut now, tk, 1e-4, rhs);
        let predicted = &ss.c * &x;
        for (o, sim) in [z[k], lz[k]].into_iter().enumerate() {
            worst[o] = worst[o].max((predicted[o] - (sim - z0[o])).abs());
            size[o] = size[o].max((sim - z0[o]).abs());
        }
    }
    assert!(size[0] > 0.5 * l * alpha.sin() * da, "{size:?}");
    for o in 0..2 {
        assert!(
            worst[o] < 1e-3 * size[o],
            "{}: {} against {}",
            outputs[o],
            worst[o],
            size[o]
        );
    }
}

#[test]
fn many_moving_coordinates_are_shifted_together() {
    // sixty free rotors spinning (pendulums without gravity, in their angles): past the
    // candidates' limit the moving scalars are shifted together, which is a symmetry here; the
    // roots are zeros
    use lagrangian::library::pendulum::AnglePendulum;
    use lagrangian::prelude::*;
    let n = 60;
    let mut builder = Model::builder(n);
    for k in 0..n {
        builder = builder.term(
            [k],
            AnglePendulum {
                m: 1.0,
                l: 1.0,
                g: 0.0,
            },
        );
    }
    let problem = Problem::new(builder.build().unwrap());
    let (q, v) = (vec![0.0; n], vec![1.0; n]);
    let lin = Linearization::in_motion(&problem, &q, &v).unwrap();
    let sym = lin.symmetry.as_ref().expect("the common shift");
    assert!(!sym.moves_frame());
    assert_eq!(sym.parts.len(), 1, "{:?}", sym.parts);
    assert_eq!(sym.parts[0].0, "shift of the moving scalar coordinates");
    assert!(lin.damped_modes().unwrap().iter().all(|s| s.omega_n < 1e-9));
}
