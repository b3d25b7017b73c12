//! Inverse dynamics from a mechanism file: a `Drives` entry prescribes a quantity's motion and
//! reports the force or torque the drive must deliver (`drive:<name>`), checked against a
//! closed form and against the Euler–Lagrange equations of the same arm in angle coordinates.

use lagrangian::ad::term_residual;
use lagrangian::output::sink::ColumnRecorder;
use lagrangian::prelude::*;
use lagrangian::spec;

fn table(text: &str, h: f64, every: usize) -> ColumnRecorder {
    let (p, p_plan) = spec::parse(text, "drive.yaml").unwrap();
    let method = p_plan.method.clone().with_h(h);
    let t_end = p.t_end;
    let mut sim = Simulation::new(p, method).unwrap();
    let mut rec = ColumnRecorder::every(every);
    sim.run_until(t_end, &mut [&mut rec]).unwrap();
    rec
}

fn col(t: &ColumnRecorder, name: &str) -> Vec<f64> {
    t.column(name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", t.names()))
}

/// A uniform crank (mass m, length L) turned at constant ω about a fixed pivot against
/// gravity for ten turns: the motor torque is `τ = m g (L/2) cos ωt` (θ̈ = 0, so only the
/// weight's moment), and the drive's work is the gain of potential energy. The quantity
/// `atan2(A.y, A.x)` jumps from π to −π every turn; the drive holds it modulo 2π.
#[test]
fn crank_at_constant_speed_needs_the_weights_moment() {
    let text = "
Title: driven crank
Dimension: 2
PhysicalParams: { m: 2, L: 0.8, w: 2 }
PartData:
  Fixed: { O: [0, 0] }
  Rigids:
    OA: { Geom: [[L, 0]], Dyna: [[L/2, 0], m, m*L**2/12] }
  Drives:
    motor:
      quantity: atan2(A.y, A.x)
      motion: w*t
AppliedForces:
  Gravity: 9.81
ProblemData:
  tend: 31.5
  positions: { A: [L, 0] }

";
    let t = table(text, 1e-3, 1);
    let (m, l, w, g) = (2.0, 0.8, 2.0, 9.81);
    let times = col(&t, "t");
    let torque = col(&t, "drive:motor");
    let mut worst: f64 = 0.0;
    for (s, tau) in times.iter().zip(&torque) {
        let exact = m * g * l / 2.0 * (w * s).cos();
        worst = worst.max((tau - exact).abs());
    }
    // every step, the first ones included: the written multipliers are those of the state
    // (q, v), free of the index-3 start-up oscillation and of its 1/(βh²) roundoff
    assert!(worst < 1e-6, "motor torque off by {worst:.3e} N·m");
    assert!((times[times.len() - 1] - 31.5).abs() < 1e-9);
    // the crank is where ten turns and a bit put it
    let (ax, ay) = (col(&t, "A.x"), col(&t, "A.y"));
    let last = ax.len() - 1;
    let angle = ay[last].atan2(ax[last]);
    let expected = (w * 31.5f64).sin().atan2((w * 31.5f64).cos());
    assert!((angle - expected).abs() < 1e-9, "{angle} vs {expected}");
    // all the drive's work goes into potential energy: m g (L/2) sin(ω t_end)
    let ledger = t.ledger().unwrap();
    let gain = m * g * l / 2.0 * (w * 31.5f64).sin();
    assert!(
        (ledger.work_drives - gain).abs() < 1e-6,
        "{ledger:?} vs {gain}"
    );
    assert!(ledger.balance_error.abs() < 1e-6, "{ledger:?}");
}

/// The uniform crank of the tests above (m = 2, L = 0.8) started at angle `start`, its angle
/// `atan2(A.y, A.x)` driven along `motion` (w = 2) to `tend`.
fn crank(motion: &str, start: &str, tend: f64) -> String {
    format!(
        "
Dimension: 2
PhysicalParams: {{ m: 2, L: 0.8, w: 2 }}
PartData:
  Fixed: {{ O: [0, 0] }}
  Rigids:
    OA: {{ Geom: [[L, 0]], Dyna: [[L/2, 0], m, m*L**2/12] }}
  Drives:
    motor:
      quantity: atan2(A.y, A.x)
      motion: {motion}
AppliedForces:
  Gravity: 9.81
ProblemData:
  tend: {tend}
  positions: {{ A: [L*cos({start}), L*sin({start})] }}
"
    )
}

/// The same crank through the vertical at a small step, and started straight down: the
/// drive's quantity `atan2(A.y, A.x)` has `A.x = 0` there, where num-dual's own `atan2`
/// derivatives cancel (off by up to 1,310 N·m at h = 1e-4) or are NaN (the start refused as not
/// differentiable). Torques equal `m g (L/2) cos θ` wherever the crank is.
#[test]
fn crank_through_and_from_the_vertical() {
    let (m, l, w, g) = (2.0, 0.8, 2.0, 9.81);
    for (start, h) in [("", 1e-4), (" - pi/2", 1e-3), (" + pi/2", 1e-4)] {
        let t = table(
            &crank(&format!("w*t{start}"), &format!("0{start}"), 1.0),
            h,
            1,
        );
        let th0 = match start {
            "" => 0.0,
            " - pi/2" => -std::f64::consts::FRAC_PI_2,
            _ => std::f64::consts::FRAC_PI_2,
        };
        let (times, torque) = (col(&t, "t"), col(&t, "drive:motor"));
        let mut worst: f64 = 0.0;
        for (s, tau) in times.iter().zip(&torque) {
            worst = worst.max((tau - m * g * l / 2.0 * (w * s + th0).cos()).abs());
        }
        assert!(
            worst < 1e-6,
            "start{start}, h = {h}: torque off by {worst:.3e} N·m"
        );
    }
}

/// The two-link arm of the file below, in angle coordinates (θ₁ absolute, θ₂ relative): the
/// uniform links have mass `m_i`, length `l_i` and inertia `m_i l_i²/12` about their centres.
struct Arm {
    m: [f64; 2],
    l: [f64; 2],
    g: f64,
}

impl Term<2> for Arm {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> D {
        let ([m1, m2], [l1, l2]) = (self.m, self.l);
        let (p2, w2) = (q[0] + q[1], v[0] + v[1]);
        // centre of link 2: l1 (cos θ1, sin θ1) + l2/2 (cos φ2, sin φ2)
        let vx = -q[0].sin() * v[0] * l1 - p2.sin() * w2 * (l2 / 2.0);
        let vy = q[0].cos() * v[0] * l1 + p2.cos() * w2 * (l2 / 2.0);
        let link1 = v[0] * v[0] * (0.5 * m1 * l1 * l1 / 3.0);
        let link2 = (vx * vx + vy * vy) * (0.5 * m2) + w2 * w2 * (0.5 * m2 * l2 * l2 / 12.0);
        link1 + link2
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        let ([m1, m2], [l1, l2]) = (self.m, self.l);
        let y1 = q[0].sin() * (l1 / 2.0);
        let y2 = q[0].sin() * l1 + (q[0] + q[1]).sin() * (l2 / 2.0);
        (y1 * m1 + y2 * m2) * self.g
    }
}

/// A two-link arm driven along `θ₁ = 0.3 + 0.5 sin 2t`, `θ₂ = 0.4 cos 3t` against gravity: the
/// shoulder and elbow torques equal the Euler–Lagrange residual of the angle-coordinate arm
/// evaluated on that motion (`τ = M(θ)θ̈ + c(θ, θ̇) + g(θ)`).
#[test]
fn two_link_arm_torques_match_its_angle_equations() {
    let text = "
Title: two-link arm
Dimension: 2
PhysicalParams: { l1: 1, l2: 0.7, m1: 2, m2: 1 }
PartData:
  Fixed: { O: [0, 0] }
  Rigids:
    OA: { Geom: [[l1, 0]], Dyna: [[l1/2, 0], m1, m1*l1**2/12] }
    AB: { Geom: [[l2, 0]], Dyna: [[l2/2, 0], m2, m2*l2**2/12] }
  Drives:
    shoulder:
      quantity: atan2(A.y, A.x)
      motion: 0.3 + 0.5*sin(2*t)
    elbow:
      quantity: atan2(B.y - A.y, B.x - A.x) - atan2(A.y, A.x)
      motion: 0.4*cos(3*t)
AppliedForces:
  Gravity: 9.81
ProblemData:
  tend: 1
  positions:
    A: [l1*cos(0.3), l1*sin(0.3)]
    B: [l1*cos(0.3) + l2*cos(0.7), l1*sin(0.3) + l2*sin(0.7)]
";
    let t = table(text, 1e-4, 10);
    let arm = Arm {
        m: [2.0, 1.0],
        l: [1.0, 0.7],
        g: 9.81,
    };
    let (shoulder, elbow) = (col(&t, "drive:shoulder"), col(&t, "drive:elbow"));
    let mut worst: f64 = 0.0;
    for (k, s) in col(&t, "t").into_iter().enumerate() {
        let q = [0.3 + 0.5 * (2.0 * s).sin(), 0.4 * (3.0 * s).cos()];
        let v = [(2.0 * s).cos(), -1.2 * (3.0 * s).sin()];
        let a = [-2.0 * (2.0 * s).sin(), -3.6 * (3.0 * s).cos()];
        let tau = term_residual::<_, 2>(&arm, s, &q, &v, &a);
        worst = worst.max((shoulder[k] - tau[0]).abs().max((elbow[k] - tau[1]).abs()));
    }
    let peak = shoulder.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(peak > 5.0, "the shoulder carries the arm");
    assert!(
        worst < 1e-6 * peak,
        "joint torques off by {worst:.3e} N·m (peak {peak:.2})"
    );
}

/// A drive's motion undefined from some time on (`sqrt(1 − t)` past t = 1) stops the run at that
/// time naming the drive, not only "the residual".
#[test]
fn a_drive_motion_undefined_at_a_time_is_named() {
    let text = crank("sqrt(1 - t)", "1", 2.0);
    let (p, plan) = spec::parse(&text, "drive.yaml").unwrap();
    let e = match simulate(&p, plan) {
        Ok(s) => panic!("ran to t = {}", s.last().state.t),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("drive motor") && e.contains("t = 1"), "{e}");
}
