//! One run of a problem with `ode_solvers`' DOP853 (Hairer's code in Rust) or diffsol's BDF
//! ([`bdf`]) and a hand-written right-hand side in minimal coordinates, printed as one JSON line
//! like the toolkit's `examples/high_order.rs`: the end positions, steps, rejected attempts,
//! evaluations, factorizations and the seconds of the fastest of `--repeat` runs.
//!
//! `compiled-peers --case kepler --tol 1e-10 [--method dop853|bdf] [--repeat 5]`; cases `pendulum` (g = ℓ = 1,
//! released horizontally, t = 10, the angle), `kepler` (GM = 1, e = 0.6, three periods),
//! `solar` (the outer solar system of Hairer, Lubich & Wanner, 10,800 days), `mechanism0`
//! (DAETS' Mechanism0 to t = 5 in the rod's angle and the particle's position: the Lagrangian
//! derived by hand, as `benches/work_precision.py` writes it for scipy), `andrews` (the Test
//! Set's squeezer to t = 0.03) and `caraxis` (the Test Set's car axis to t = 3), both in their
//! index-1 form ([`dae`]).

mod bdf;
mod dae;

use bdf::System as Generic;
use num_dual::DualNum;
use ode_solvers::dop853::Dop853;
use ode_solvers::{OutputType, SVector, System};
use std::time::Instant;

#[derive(Clone, Copy)]
struct Pendulum;
impl Generic for Pendulum {
    const N: usize = 2;
    fn f<D: DualNum<Primitive = f64> + Copy>(&self, _t: f64, y: &[D], dy: &mut [D]) {
        dy[0] = y[1];
        dy[1] = -y[0].sin();
    }
}

#[derive(Clone, Copy)]
struct Kepler;
impl Generic for Kepler {
    const N: usize = 4;
    fn f<D: DualNum<Primitive = f64> + Copy>(&self, _t: f64, y: &[D], dy: &mut [D]) {
        let r2 = y[0] * y[0] + y[1] * y[1];
        let r3 = r2 * r2.sqrt();
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = -y[0] / r3;
        dy[3] = -y[1] / r3;
    }
}

const G: f64 = 2.95912208286e-4;
const MASSES: [f64; 6] = [
    1.00000597682,
    0.000954786104043,
    0.000285583733151,
    0.0000437273164546,
    0.0000517759138449,
    1.0 / 1.3e8,
];
const SOLAR_Q0: [f64; 18] = [
    0.0,
    0.0,
    0.0,
    -3.5023653,
    -3.8169847,
    -1.5507963,
    9.0755314,
    -3.0458353,
    -1.6483708,
    8.310142,
    -16.2901086,
    -7.2521278,
    11.4707666,
    -25.7294829,
    -10.8169456,
    -15.5387357,
    -25.2225594,
    -3.1902382,
];
const SOLAR_V0: [f64; 18] = [
    0.0,
    0.0,
    0.0,
    0.00565429,
    -0.0041249,
    -0.00190589,
    0.00168318,
    0.00483525,
    0.00192462,
    0.00354178,
    0.00137102,
    0.00055029,
    0.0028893,
    0.00114527,
    0.00039677,
    0.00276725,
    -0.00170702,
    -0.00136504,
];

#[derive(Clone, Copy)]
struct Solar;
impl Generic for Solar {
    const N: usize = 36;
    fn f<D: DualNum<Primitive = f64> + Copy>(&self, _t: f64, y: &[D], dy: &mut [D]) {
        for k in 0..18 {
            dy[k] = y[18 + k];
            dy[18 + k] = D::from(0.0);
        }
        for i in 0..6 {
            for j in i + 1..6 {
                let d = [0, 1, 2].map(|k| y[3 * j + k] - y[3 * i + k]);
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                let g = D::from(G) / (r2 * r2.sqrt());
                for k in 0..3 {
                    dy[18 + 3 * i + k] += g * MASSES[j] * d[k];
                    dy[18 + 3 * j + k] -= g * MASSES[i] * d[k];
                }
            }
        }
    }
}

/// Mechanism0: a rod OA (length `L`, mass `M`) about O, a massive spring AB (`k`, rest `l`,
/// mass `μ`) and a particle B (mass `m`), gravity `g`. State `(θ, B, θ̇, Ḃ)`; the mass matrix
/// `[[(M + μ)L²/3, −κ sin θ, κ cos θ], [−κ sin θ, μ/3 + m, 0], [κ cos θ, 0, μ/3 + m]]`,
/// `κ = μL/6`, solved by eliminating the two particle rows (their block is diagonal).
#[derive(Clone, Copy)]
struct Mechanism0;
impl Generic for Mechanism0 {
    const N: usize = 6;
    fn f<D: DualNum<Primitive = f64> + Copy>(&self, _t: f64, y: &[D], dy: &mut [D]) {
        const L: f64 = 1.0;
        const M: f64 = 1.0;
        const K: f64 = 500.0;
        const REST: f64 = 1.0;
        const MU: f64 = 0.5;
        const MB: f64 = 2.0;
        const GRAV: f64 = 9.81;
        let c_ = D::from;
        let (th, bx, by, w) = (y[0], y[1], y[2], y[3]);
        let (s, c) = th.sin_cos();
        let (ax, ay) = (c_(L) * c, c_(L) * s);
        let (dx, dy_) = (bx - ax, by - ay);
        let dist = (dx * dx + dy_ * dy_).sqrt();
        let fs = c_(K) * (dist - REST) / dist;
        let v_th = c_((M + MU) * GRAV * L / 2.0) * c + fs * (dx * L * s - dy_ * L * c);
        let v_bx = fs * dx;
        let v_by = fs * dy_ + MU * GRAV / 2.0 + MB * GRAV;
        let kap = MU * L / 6.0;
        let (m11, m22) = ((M + MU) * L * L / 3.0, MU / 3.0 + MB);
        let (m12, m13) = (s * -kap, c * kap);
        let r = [
            -v_th,
            c_(kap) * w * w * c - v_bx,
            c_(kap) * w * w * s - v_by,
        ];
        // the Schur complement of the particle's diagonal block
        let schur = c_(m11) - (m12 * m12 + m13 * m13) / m22;
        let acc_th = (r[0] - (m12 * r[1] + m13 * r[2]) / m22) / schur;
        dy[0] = w;
        dy[1] = y[4];
        dy[2] = y[5];
        dy[3] = acc_th;
        dy[4] = (r[1] - m12 * acc_th) / m22;
        dy[5] = (r[2] - m13 * acc_th) / m22;
    }
}

/// `ode_solvers`' system of a [`Generic`] one, in `f64` on the stack.
#[derive(Clone, Copy)]
struct Ode<S>(S);
impl<const N: usize, S: Generic> System<f64, SVector<f64, N>> for Ode<S> {
    fn system(&self, t: f64, y: &SVector<f64, N>, dy: &mut SVector<f64, N>) {
        self.0.f(t, y.as_slice(), dy.as_mut_slice());
    }
}

/// The fastest of `repeat` runs of `ode_solvers`' DOP853 from `y0` to `t_end`.
fn dop853<const N: usize, S: Generic + Copy>(
    sys: S,
    y0: [f64; N],
    t_end: f64,
    tol: f64,
    repeat: usize,
) -> bdf::Run {
    let mut best: Option<bdf::Run> = None;
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        // Hairer's defaults (as `Dop853::new` sets them), the solution at every step: the
        // crate's dense output (`OutputType::Dense`) interpolates wrongly in some steps (0.6.2:
        // the pendulum's position at t = 7.5 off by 1.4)
        let mut stepper = Dop853::from_param(
            Ode(sys),
            0.0,
            t_end,
            t_end,
            SVector::<f64, N>::from(y0),
            tol,
            tol,
            0.9,
            0.0,
            0.333,
            6.0,
            t_end,
            0.0,
            // at most 10⁷ steps; no stiffness test (it only stops the run: the car axis is
            // integrated to the end, as the toolkit's DOP853 without switching)
            10_000_000,
            u32::MAX,
            OutputType::Sparse,
        );
        let stats = stepper.integrate().unwrap_or_else(|e| {
            eprintln!("ode_solvers' DOP853 failed: {e:?}");
            std::process::exit(1)
        });
        let end = *stepper.y_out().last().expect("an end state");
        let seconds = start.elapsed().as_secs_f64();
        if best.as_ref().is_none_or(|b| seconds < b.seconds) {
            best = Some(bdf::Run {
                y: end.as_slice().to_vec(),
                seconds,
                steps: stats.accepted_steps as usize,
                rejected: stats.rejected_steps as usize,
                evaluations: stats.num_eval as usize,
                factorizations: 0,
            });
        }
    }
    best.expect("one run at least")
}

/// A case's run by the method asked for.
fn solve<const N: usize, S: Generic + Copy>(
    method: &str,
    sys: S,
    y0: [f64; N],
    t_end: f64,
    tol: f64,
    repeat: usize,
) -> bdf::Run {
    assert_eq!(N, S::N);
    match method {
        "dop853" => dop853(sys, y0, t_end, tol, repeat),
        "bdf" => bdf::run(sys, &y0, t_end, tol, repeat),
        other => panic!("unknown method {other}: dop853 | bdf"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        let i = args.iter().position(|a| a == name)?;
        args.get(i + 1).cloned()
    };
    let case = arg("--case").expect("--case pendulum|kepler|solar|mechanism0|andrews|caraxis");
    let method = arg("--method").unwrap_or_else(|| "dop853".into());
    let tol: f64 = arg("--tol").expect("--tol").parse().expect("a number");
    let repeat: usize = arg("--repeat").map_or(1, |r| r.parse().expect("a count"));
    let m = method.as_str();
    let (q, run) = match case.as_str() {
        "pendulum" => {
            let y0 = [std::f64::consts::FRAC_PI_2, 0.0];
            let r = solve(m, Pendulum, y0, 10.0, tol, repeat);
            (vec![r.y[0].sin(), -r.y[0].cos()], r)
        }
        "kepler" => {
            let e = 0.6f64;
            let y0 = [1.0 - e, 0.0, 0.0, ((1.0 + e) / (1.0 - e)).sqrt()];
            let r = solve(m, Kepler, y0, 6.0 * std::f64::consts::PI, tol, repeat);
            (r.y[..2].to_vec(), r)
        }
        "solar" => {
            let y0: [f64; 36] = std::array::from_fn(|k| {
                if k < 18 {
                    SOLAR_Q0[k]
                } else {
                    SOLAR_V0[k - 18]
                }
            });
            let r = solve(m, Solar, y0, 10800.0, tol, repeat);
            (r.y[..18].to_vec(), r)
        }
        "mechanism0" => {
            let y0 = [0.0, 2.0, 0.0, 10.0, 0.0, 0.0];
            let r = solve(m, Mechanism0, y0, 5.0, tol, repeat);
            let (sin, cos) = r.y[0].sin_cos();
            (vec![cos, sin, r.y[1], r.y[2]], r)
        }
        "andrews" => {
            let mut y0 = [0.0; 14];
            y0[..7].copy_from_slice(&dae::ANDREWS_Q0);
            let r = solve(m, dae::Andrews, y0, 0.03, tol, repeat);
            (r.y[..7].to_vec(), r)
        }
        "caraxis" => {
            let r = solve(m, dae::CarAxis, dae::CARAXIS_Y0, 3.0, tol, repeat);
            (r.y[..4].to_vec(), r)
        }
        other => panic!("unknown case {other}"),
    };
    let q: Vec<String> = q.iter().map(|x| format!("{x:e}")).collect();
    println!(
        "{{\"q\": [{}], \"seconds\": {:e}, \"steps\": {}, \"rejected\": {}, \
         \"evaluations\": {}, \"factorizations\": {}}}",
        q.join(", "),
        run.seconds,
        run.steps,
        run.rejected,
        run.evaluations,
        run.factorizations
    );
}
