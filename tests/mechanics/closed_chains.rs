//! `Bodies` and `Joints` in joint coordinates: loops closed by constraints on a spanning tree
//! (four-bar, slider-crank) against their closed-form closures and a one-coordinate
//! Lagrangian; free bodies, their momenta and starting velocities; contradictions
//! refused.

use crate::common::column as col;
use lagrangian::output::sink::ColumnRecorder;
use lagrangian::prelude::*;
use lagrangian::spec;

fn run(text: &str) -> (Problem, ColumnRecorder) {
    let (p, plan) = spec::parse(text, "loop.yaml").unwrap_or_else(|e| panic!("{e}"));
    (p.clone(), crate::common::record(p, plan))
}

const A: f64 = 1.0;
const B: f64 = 3.5;
const C: f64 = 2.5;
const D: f64 = 4.0;

/// The four-bar's joints at crank angle `θ` (upper branch): the coupler's and rocker's angles.
fn closure(th: f64) -> (f64, f64) {
    let (ax, ay) = (A * th.cos(), A * th.sin());
    let (dx, dy) = (D - ax, -ay);
    let e = (dx * dx + dy * dy).sqrt();
    let along = (B * B - C * C + e * e) / (2.0 * e);
    let h = (B * B - along * along).sqrt();
    let (bx, by) = (
        ax + along * dx / e - h * dy / e,
        ay + along * dy / e + h * dx / e,
    );
    ((by - ay).atan2(bx - ax), by.atan2(bx - D))
}

/// Masses and moments about the centre (z) of crank, coupler, rocker.
const BODIES: [(f64, f64); 3] = [(1.0, 0.1), (2.0, 2.0), (1.5, 0.8)];

/// A four-bar in the xy plane under gravity −y: crank `OA` (a) and rocker `DB` (c) on ground
/// pivots `d` apart, coupler `AB` (b); the joint `close` between coupler and rocker closes the
/// loop. Started at rest with the crank at `th`.
fn four_bar(th: f64) -> String {
    let (phi, psi) = closure(th);
    let [(m1, i1), (m2, i2), (m3, i3)] = BODIES;
    format!(
        "
Title: four-bar
Dimension: 3
PartData:
  Bodies:
    Crank: {{ mass: {m1}, com: [{ha}, 0, 0], inertia: [0.01, {i1}, {i1}] }}
    Coupler: {{ mass: {m2}, com: [{hb}, 0, 0], inertia: [0.01, {i2}, {i2}], markers: {{ End: [{B}, 0, 0] }} }}
    Rocker: {{ mass: {m3}, com: [{hc}, 0, 0], inertia: [0.01, {i3}, {i3}] }}
  Joints:
    crank: {{ type: revolute, bodies: [ground, Crank], initial: {th} }}
    knee: {{ type: revolute, bodies: [Crank, Coupler], parent: {{ at: [{A}, 0, 0] }}, initial: {knee} }}
    rocker: {{ type: revolute, bodies: [ground, Rocker], parent: {{ at: [{D}, 0, 0] }}, initial: {psi} }}
    close: {{ type: revolute, bodies: [Coupler, Rocker], parent: {{ at: [{B}, 0, 0] }}, child: {{ at: [{C}, 0, 0] }} }}
AppliedForces:
  Gravity: [0, -9.81, 0]
ProblemData: {{ tend: 2 }}
SolverParams: {{ integrator: dop853, tol: 1e-10 }}
Output: {{ columns: [positions, accelerations, energies] }}
",
        ha = A / 2.0,
        hb = B / 2.0,
        hc = C / 2.0,
        knee = phi - th,
    )
}

/// The four-bar's crank acceleration at rest from its one-coordinate Lagrangian
/// `T = ½ M(θ) θ̇²`, `V(θ)`: `θ̈ = −V′(θ)/M(θ)`, with the kinematic coefficients of the
/// closed-form closure by central differences.
fn four_bar_acceleration(th: f64) -> f64 {
    let centres = |th: f64| {
        let (phi, psi) = closure(th);
        let (ax, ay) = (A * th.cos(), A * th.sin());
        [
            (0.5 * A * th.cos(), 0.5 * A * th.sin(), th),
            (ax + 0.5 * B * phi.cos(), ay + 0.5 * B * phi.sin(), phi),
            (D + 0.5 * C * psi.cos(), 0.5 * C * psi.sin(), psi),
        ]
    };
    let potential = |th: f64| -> f64 {
        (centres(th).iter().zip(BODIES))
            .map(|(c, (m, _))| m * 9.81 * c.1)
            .sum()
    };
    let h = 1e-5;
    let (up, down) = (centres(th + h), centres(th - h));
    let mass: f64 = (0..3)
        .map(|k| {
            let d = |f: fn(&(f64, f64, f64)) -> f64| (f(&up[k]) - f(&down[k])) / (2.0 * h);
            let (dx, dy, da) = (d(|c| c.0), d(|c| c.1), d(|c| c.2));
            BODIES[k].0 * (dx * dx + dy * dy) + BODIES[k].1 * da * da
        })
        .sum();
    -(potential(th + h) - potential(th - h)) / (2.0 * h) / mass
}

#[test]
fn a_four_bar_closed_by_a_joint_keeps_its_closure_energy_and_one_coordinate_dynamics() {
    let th0 = 1.0;
    let (p, t) = run(&four_bar(th0));
    // three tree joints and the closing joint's angle; of its five equations the three that
    // the plane already holds are left out (and the run says so)
    assert_eq!(p.model.n_coords(), 4, "{:?}", p.model.coordinate_names());
    assert_eq!(
        p.model.n_constraints(),
        3,
        "{:?} {:?}",
        p.model.constraint_blocks().collect::<Vec<_>>(),
        p.notes
    );
    assert!(
        p.notes.iter().any(|n| n.contains("z, axis x, axis y")),
        "{:?}",
        p.notes
    );
    let (th, psi) = (col(&t, "crank"), col(&t, "rocker"));
    let mut worst = 0.0f64;
    for (th, psi) in th.iter().zip(&psi) {
        let (ax, ay) = (A * th.cos(), A * th.sin());
        let (bx, by) = (D + C * psi.cos(), C * psi.sin());
        let closure = ((bx - ax).powi(2) + (by - ay).powi(2)).sqrt() - B;
        worst = worst.max(closure.abs());
    }
    assert!(worst < 1e-9, "|AB| − b reaches {worst:.3e}");
    let moved = th.iter().fold(0.0f64, |m, x| m.max((x - th[0]).abs()));
    assert!(moved > 0.3, "the crank turned {moved}");
    let e = col(&t, "total");
    let drift = e.iter().fold(0.0f64, |m, x| m.max((x - e[0]).abs()));
    assert!(drift < 1e-7, "energy drifts by {drift:.3e}");
    let want = four_bar_acceleration(th0);
    let got = col(&t, "crank.a")[0];
    assert!(
        (got - want).abs() < 1e-7 * want.abs(),
        "θ̈ = {got} vs {want}"
    );
}

/// The largest distance of a slider-crank's slide (column `slide`) from its closed form
/// `r cos θ + √(l² − r² sin² θ)` at the crank's angle (column `crank`): crank `r`, rod `l`.
pub(crate) fn slider_crank_miss(t: &ColumnRecorder, r: f64, l: f64) -> f64 {
    let (th, x) = (col(t, "crank"), col(t, "slide"));
    th.iter().zip(&x).fold(0.0f64, |m, (th, x)| {
        let want = r * th.cos() + (l * l - (r * th.sin()).powi(2)).sqrt();
        m.max((x - want).abs())
    })
}

/// A slider-crank driven at a constant rate: crank `r`, rod `l`, the slider on a prismatic
/// joint along x, the rod's end closed on the slider by a revolute joint. The slider sits at
/// `x = r cos θ + √(l² − r² sin² θ)`.
#[test]
fn a_driven_slider_crank_follows_its_closed_form() {
    let (r, l) = (1.0f64, 3.0f64);
    let x0 = r + l;
    let text = format!(
        "
Title: slider-crank
Dimension: 3
PartData:
  Bodies:
    Crank: {{ mass: 1, com: [0.5, 0, 0], inertia: [0.01, 0.1, 0.1] }}
    Rod: {{ mass: 2, com: [1.5, 0, 0], inertia: [0.01, 1.5, 1.5] }}
    Slider: {{ mass: 3, inertia: [0.1, 0.1, 0.1] }}
  Joints:
    crank: {{ type: revolute, bodies: [ground, Crank] }}
    wrist: {{ type: revolute, bodies: [Crank, Rod], parent: {{ at: [{r}, 0, 0] }} }}
    slide: {{ type: prismatic, bodies: [ground, Slider], parent: {{ z: [1, 0, 0], x: [0, 1, 0] }}, child: {{ z: [1, 0, 0], x: [0, 1, 0] }}, initial: {x0} }}
    pin: {{ type: revolute, bodies: [Rod, Slider], parent: {{ at: [{l}, 0, 0] }} }}
  Drives:
    motor: {{ quantity: crank, motion: 3*t }}
AppliedForces:
  Gravity: [0, -9.81, 0]
ProblemData: {{ tend: 2.5 }}
SolverParams: {{ integrator: radau, tol: 1e-10 }}
"
    );
    let (_, t) = run(&text);
    let th = col(&t, "crank");
    let worst = slider_crank_miss(&t, r, l);
    assert!(worst < 1e-8, "slider off its closed form by {worst:.3e}");
    assert!(
        th.last().unwrap() > &7.0,
        "the crank turned past a full turn"
    );
}

/// A body that no joint carries floats: seven coordinates (position and a unit quaternion),
/// its momenta `P = m v` and `L = c × m v + R I Rᵀ ω` kept, its start the velocity and spin
/// given through its origin and axes (`i̇ = ω × i`, `j̇ = ω × j`).
#[test]
fn a_free_body_keeps_its_momenta_and_starts_with_its_spin() {
    // R: 0.4 rad about (1, 1, 0)/√2 (Rodrigues)
    let (n, a) = ([1.0 / 2f64.sqrt(), 1.0 / 2f64.sqrt(), 0.0], 0.4f64);
    let (s, c) = a.sin_cos();
    let r = |i: usize, k: usize| {
        let d = if i == k { 1.0 } else { 0.0 };
        let cross = [[0.0, -n[2], n[1]], [n[2], 0.0, -n[0]], [-n[1], n[0], 0.0]];
        c * d + s * cross[i][k] + (1.0 - c) * n[i] * n[k]
    };
    let w = [0.2, -0.5, 0.7];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let (ei, ej) = ([r(0, 0), r(1, 0), r(2, 0)], [r(0, 1), r(1, 1), r(2, 1)]);
    let (di, dj) = (cross(w, ei), cross(w, ej));
    let text = format!(
        "
Title: free box
Dimension: 3
PartData:
  Bodies:
    Box:
      mass: 2
      inertia: [0.1, 0.2, 0.3]
      position: [0, 0, 1]
      orientation: {{ axis: [1, 1, 0], angle: 0.4 }}
AppliedForces:
  Gravity: 0
ProblemData:
  tend: 3
  velocities: {{ Box: [0.5, 0, 0], Box.i: {di:?}, Box.j: {dj:?} }}
SolverParams: {{ integrator: dop853, tol: 1e-11 }}
Output: {{ columns: [positions, momenta, wx: Box.omega.x, wy: Box.omega.y, wz: Box.omega.z] }}
"
    );
    let (p, t) = run(&text);
    assert_eq!(
        p.model.coordinate_names(),
        [
            "Box_x", "Box_y", "Box_z", "Box_qw", "Box_qx", "Box_qy", "Box_qz"
        ]
    );
    for (k, name) in ["wx", "wy", "wz"].iter().enumerate() {
        assert!((col(&t, name)[0] - w[k]).abs() < 1e-12, "{name}");
    }
    // L about the origin: c × m v (c = (0, 0, 1), v = (0.5, 0, 0)) + R I Rᵀ ω
    let inertia = [0.1, 0.2, 0.3];
    let body_w: Vec<f64> = (0..3)
        .map(|k| (0..3).map(|i| r(i, k) * w[i]).sum())
        .collect();
    let spin: Vec<f64> = (0..3)
        .map(|i| (0..3).map(|k| r(i, k) * inertia[k] * body_w[k]).sum())
        .collect();
    let own = cross([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
    for (k, name) in ["Lx", "Ly", "Lz"].iter().enumerate() {
        let l = col(&t, name);
        assert!(
            (l[0] - own[k] - spin[k]).abs() < 1e-12,
            "{name} {} vs {}",
            l[0],
            own[k] + spin[k]
        );
        let drift = l.iter().fold(0.0f64, |m, x| m.max((x - l[0]).abs()));
        assert!(drift < 1e-8, "{name} drifts by {drift:.3e}");
    }
    let px = col(&t, "Px");
    assert!(px.iter().all(|x| (x - 1.0).abs() < 1e-10), "P = m v");
    let z = col(&t, "Box.z");
    assert!(
        (z.last().unwrap() - 1.0).abs() < 1e-9,
        "no gravity: the height stays"
    );
}

#[test]
fn a_position_the_joint_cannot_reach_is_refused() {
    let text = crate::joints::rod(crate::joints::REVOLUTE, "").replace(
        "      markers: { Tip: [0, 0, -L] }\n",
        "      markers: { Tip: [0, 0, -L] }\n      position: [0, 0.5, 0]\n",
    );
    let e = spec::parse(&text, "rod.yaml").unwrap_err();
    assert!(e.message.contains("cannot reach"), "{e}");
    assert!(e.field.contains("Rod"), "{e:?}");
}

/// A torque on a body in joint coordinates (world components): a wheel on a vertical axle
/// turns at `θ̈ = τ_z/(I_zz + m d²)`; the components across the axle are the bearing's.
#[test]
fn a_torque_on_a_body_turns_it_about_its_joint() {
    let (m, d, izz, tz) = (2.0, 0.3, 0.05, 0.7);
    let text = format!(
        "
Title: torqued wheel
Dimension: 3
PartData:
  Bodies:
    Wheel: {{ mass: {m}, com: [{d}, 0, 0], inertia: [0.02, 0.03, {izz}] }}
  Joints:
    axle: {{ type: revolute, bodies: [ground, Wheel] }}
AppliedForces:
  Gravity: 0
  Torques: {{ Wheel: [0.3, -0.2*t, {tz}] }}
ProblemData: {{ tend: 2 }}
SolverParams: {{ integrator: dop853, tol: 1e-11 }}
"
    );
    let (_, t) = run(&text);
    let want = 0.5 * tz / (izz + m * d * d) * 4.0;
    let got = *col(&t, "axle").last().unwrap();
    assert!((got - want).abs() < 1e-9, "θ(2) = {got} vs {want}");
}

/// A torque on a free body changes its angular momentum at that rate, `L̇ = τ`, and leaves
/// its linear momentum alone.
#[test]
fn a_torque_on_a_free_body_is_the_rate_of_its_angular_momentum() {
    let text = "
Title: torqued box
Dimension: 3
PartData:
  Bodies:
    Box: { mass: 2, inertia: [0.1, 0.2, 0.3], position: [0.5, 0, 1], orientation: { axis: [0, 1, 1], angle: 0.7 } }
AppliedForces:
  Gravity: 0
  Torques: { Box: [0.1, -0.05, 0.2] }
ProblemData: { tend: 1.5, velocities: { Box: [0, 0.2, 0] } }
SolverParams: { integrator: dop853, tol: 1e-11 }
Output: { columns: [positions, momenta] }
";
    let (_, t) = run(text);
    let time = col(&t, "t");
    for (name, tau) in [("Lx", 0.1), ("Ly", -0.05), ("Lz", 0.2)] {
        let l = col(&t, name);
        for (ti, li) in time.iter().zip(&l) {
            assert!((li - l[0] - tau * ti).abs() < 1e-9, "{name} at {ti}: {li}");
        }
    }
    assert!(col(&t, "Py").iter().all(|p| (p - 0.4).abs() < 1e-10));
}

/// A chain of 2,000 bodies on revolute joints written as a file: 2,000 coordinates, and its
/// model and consistent start built in linear memory (the bodies' frames are shared
/// expressions; no body's angular velocity is differentiated unless it is small enough to use).
#[test]
fn a_file_chain_of_two_thousand_bodies_starts() {
    let n = 2000;
    let mut text = String::from("Title: chain\nDimension: 3\nPartData:\n  Bodies:\n");
    for i in 0..n {
        text += &format!("    L{i}: {{ mass: 1, com: [0.5, 0, 0], inertia: [0.01, 0.1, 0.1] }}\n");
    }
    text += "  Joints:\n";
    for i in 0..n {
        match i {
            0 => text += "    j0: { type: revolute, bodies: [ground, L0], initial: 0.1 }\n",
            _ => {
                text += &format!(
                    "    j{i}: {{ type: revolute, bodies: [L{}, L{i}], parent: {{ at: [1, 0, 0] }} }}\n",
                    i - 1
                )
            }
        }
    }
    text += "AppliedForces: { Gravity: [0, -9.81, 0] }\nProblemData: { tend: 0.001 }\n";
    let (p, _) = spec::parse(&text, "chain.yaml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.model.n_coords(), n);
    let sim = Simulation::new(p, Dop853Options::new(1e-6)).expect("start");
    assert_eq!(sim.state().q.len(), n);
}
