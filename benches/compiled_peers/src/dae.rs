//! The constrained problems of the Test Set for IVP solvers in their index-1 form, as a user of
//! a compiled language would write them for an ODE solver: the accelerations and multipliers
//! from the augmented system `[M Gᵀ; G 0][q̈; λ] = [f; −γ]` solved at every evaluation (a dense
//! elimination with partial pivoting), no projection. Andrews' squeezer (7 angles, 6
//! constraints) and the car axis (two wheels, 2 constraints, stiff: ε = 1e-2), both as
//! `benches/work_precision.py` writes them for scipy.

// index loops as the equations are written; the Test Set's constants to their printed digits
#![allow(clippy::needless_range_loop, clippy::excessive_precision)]

use crate::bdf::System;
use num_dual::DualNum;

/// `x` of `a x = b` (`a` row-major `n × n`), by elimination with partial pivoting on the real
/// parts.
fn solve<D: DualNum<Primitive = f64> + Copy, const N: usize>(
    mut a: [[D; N]; N],
    mut b: [D; N],
) -> [D; N] {
    for k in 0..N {
        let p = (k..N)
            .max_by(|&i, &j| a[i][k].re().abs().total_cmp(&a[j][k].re().abs()))
            .unwrap_or(k);
        a.swap(k, p);
        b.swap(k, p);
        let inv = a[k][k].recip();
        for i in k + 1..N {
            let f = a[i][k] * inv;
            for j in k..N {
                let akj = a[k][j];
                a[i][j] -= f * akj;
            }
            let bk = b[k];
            b[i] -= f * bk;
        }
    }
    for k in (0..N).rev() {
        let mut s = b[k];
        for j in k + 1..N {
            s -= a[k][j] * b[j];
        }
        b[k] = s / a[k][k];
    }
    b
}

/// Andrews' squeezer mechanism (Hairer & Wanner; the Test Set's `andrews`): state
/// `(β, Θ, γ, Φ, δ, Ω, ε)` and their rates.
#[derive(Clone, Copy)]
pub struct Andrews;

const M: [f64; 7] = [
    0.04325, 0.00365, 0.02373, 0.00706, 0.07050, 0.00706, 0.05498,
];
const I: [f64; 7] = [
    2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5,
];
const XB: f64 = -0.03635;
const YB: f64 = 0.03273;
const XC: f64 = 0.014;
const YC: f64 = 0.072;
const C0: f64 = 4530.0;
const D_: f64 = 28e-3;
const DA: f64 = 115e-4;
const E: f64 = 2e-2;
const EA: f64 = 1421e-5;
const RR: f64 = 7e-3;
const RA: f64 = 92e-5;
const L0: f64 = 7785e-5;
const SS: f64 = 35e-3;
const SA: f64 = 1874e-5;
const SB: f64 = 1043e-5;
const SC: f64 = 18e-3;
const SD: f64 = 2e-2;
const TA: f64 = 2308e-5;
const TB: f64 = 916e-5;
const U: f64 = 4e-2;
const UA: f64 = 1228e-5;
const UB: f64 = 449e-5;
const ZF: f64 = 2e-2;
const ZT: f64 = 4e-2;
const FA: f64 = 1421e-5;
const MOM: f64 = 33e-3;

/// The Test Set's consistent start of Andrews' squeezer (positions; at rest).
pub const ANDREWS_Q0: [f64; 7] = [
    -0.0617138900142764496358948458001,
    0.0,
    0.455279819163070380255912382449,
    0.222668390165885884674473185609,
    0.487364979543842550225598953530,
    -0.222668390165885884674473185609,
    1.23054744454982119249735015568,
];

impl System for Andrews {
    const N: usize = 14;
    fn f<D: DualNum<Primitive = f64> + Copy>(&self, _t: f64, y: &[D], dy: &mut [D]) {
        let k = D::from;
        let zero = k(0.0);
        let [be, th, ga, ph, de, om, ep] = [y[0], y[1], y[2], y[3], y[4], y[5], y[6]];
        let [bd, td, gd, pd, dd, od, ed] = [y[7], y[8], y[9], y[10], y[11], y[12], y[13]];
        let (sth, cth) = th.sin_cos();
        let (sph, cph) = ph.sin_cos();
        let (som, com) = om.sin_cos();
        let (sga, cga) = ga.sin_cos();
        let (e2, zfa) = (E - EA, ZF - FA);
        let mut a = [[zero; 13]; 13];
        a[0][0] = cth * (-2.0 * DA * RR * M[1])
            + (M[0] * RA * RA + M[1] * (RR * RR + DA * DA) + I[0] + I[1]);
        a[0][1] = cth * (-DA * RR * M[1]) + (M[1] * DA * DA + I[1]);
        a[1][0] = a[0][1];
        a[1][1] = k(M[1] * DA * DA + I[1]);
        a[2][2] = k(M[2] * (SA * SA + SB * SB) + I[2]);
        a[3][3] = k(M[3] * e2 * e2 + I[3]);
        a[3][4] = sph * (M[3] * ZT * e2) + (M[3] * e2 * e2 + I[3]);
        a[4][3] = a[3][4];
        a[4][4] = sph * (2.0 * M[3] * ZT * e2)
            + (M[3] * (ZT * ZT + e2 * e2) + M[4] * (TA * TA + TB * TB) + I[3] + I[4]);
        a[5][5] = k(M[5] * zfa * zfa + I[5]);
        a[5][6] = som * (-M[5] * U * zfa) + (M[5] * zfa * zfa + I[5]);
        a[6][5] = a[5][6];
        a[6][6] = som * (-2.0 * M[5] * U * zfa)
            + (M[5] * (zfa * zfa + U * U) + M[6] * (UA * UA + UB * UB) + I[5] + I[6]);
        let xd = cga * SD + sga * SC + XB;
        let yd = sga * SD - cga * SC + YB;
        let (dx, dyy) = (xd - XC, yd - YC);
        let l = (dx * dx + dyy * dyy).sqrt();
        let force = -(l - L0) * C0 / l;
        let (fx, fy) = (force * dx, force * dyy);
        let mut b = [zero; 13];
        b[0] = k(MOM) - td * (td + bd * 2.0) * sth * (M[1] * DA * RR);
        b[1] = bd * bd * sth * (M[1] * DA * RR);
        b[2] = fx * (cga * SC - sga * SD) + fy * (cga * SD + sga * SC);
        b[3] = dd * dd * cph * (M[3] * ZT * e2);
        b[4] = -pd * (pd + dd * 2.0) * cph * (M[3] * ZT * e2);
        b[5] = -ed * ed * com * (M[5] * U * zfa);
        b[6] = od * (od + ed * 2.0) * com * (M[5] * U * zfa);
        // G = ∂g/∂q and γ = (∂²g/∂q²)(v, v), by hand
        let (sbe, cbe) = be.sin_cos();
        let (sbt, cbt) = (be + th).sin_cos();
        let bt = bd + td;
        let mut g = [[zero; 7]; 6];
        let mut gam = [zero; 6];
        for (r, row) in g.iter_mut().enumerate() {
            if r % 2 == 0 {
                row[0] = -sbe * RR + sbt * D_;
                row[1] = sbt * D_;
                gam[r] = -cbe * bd * bd * RR + cbt * bt * bt * D_;
            } else {
                row[0] = cbe * RR - cbt * D_;
                row[1] = -cbt * D_;
                gam[r] = -sbe * bd * bd * RR + sbt * bt * bt * D_;
            }
        }
        g[0][2] = -cga * SS;
        gam[0] += sga * gd * gd * SS;
        g[1][2] = -sga * SS;
        gam[1] += -cga * gd * gd * SS;
        let (spd, cpd) = (ph + de).sin_cos();
        let (sde, cde) = de.sin_cos();
        g[2][3] = -cpd * E;
        g[2][4] = -cpd * E + sde * ZT;
        gam[2] += spd * (pd + dd) * (pd + dd) * E + cde * dd * dd * ZT;
        g[3][3] = -spd * E;
        g[3][4] = -spd * E - cde * ZT;
        gam[3] += -cpd * (pd + dd) * (pd + dd) * E + sde * dd * dd * ZT;
        let (soe, coe) = (om + ep).sin_cos();
        let (sep, cep) = ep.sin_cos();
        g[4][5] = soe * ZF;
        g[4][6] = soe * ZF - cep * U;
        gam[4] += coe * (od + ed) * (od + ed) * ZF + sep * ed * ed * U;
        g[5][5] = -coe * ZF;
        g[5][6] = -coe * ZF - sep * U;
        gam[5] += soe * (od + ed) * (od + ed) * ZF - cep * ed * ed * U;
        for r in 0..6 {
            for c in 0..7 {
                a[7 + r][c] = g[r][c];
                a[c][7 + r] = g[r][c];
            }
            b[7 + r] = -gam[r];
        }
        let x = solve(a, b);
        dy[..7].copy_from_slice(&y[7..]);
        dy[7..].copy_from_slice(&x[..7]);
    }
}

/// The car axis of the Test Set (index-1 form): wheels `(x_l, y_l)`, `(x_r, y_r)` of mass
/// `k = M ε²/2` on springs, the axle of length `L`, the road's bump `B(t)`. The time is a ninth
/// state component (`ṫ = 1`): `ode_solvers` 0.6.2's DOP853 evaluates its twelfth stage at `x`
/// instead of `x + h` (its `c₁₂` is 0, Hairer's 1), which is order 2 on a problem that depends
/// on time — 105,394 steps at tol 1e-8 to an error of 9e-6, where scipy's DOP853 takes 190.
#[derive(Clone, Copy)]
pub struct CarAxis;

const CA_EPS: f64 = 1e-2;
const CA_M: f64 = 10.0;
const CA_L: f64 = 1.0;
const CA_L0: f64 = 0.5;
const CA_R: f64 = 0.1;
const CA_W: f64 = 10.0;
const CA_G: f64 = 1.0;

/// The Test Set's start of the car axis (positions, velocities).
pub const CARAXIS_Y0: [f64; 9] = [0.0, 0.5, 1.0, 0.5, -0.5, 0.0, -0.5, 0.0, 0.0];

impl System for CarAxis {
    const N: usize = 9;
    fn f<D: DualNum<Primitive = f64> + Copy>(&self, _t: f64, y: &[D], dy: &mut [D]) {
        let k = D::from;
        let zero = k(0.0);
        let [xl, yl, xr, yr, ul, vl, ur, vr] = [y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]];
        let (s, c) = (y[8] * CA_W).sin_cos();
        let mass = CA_M * CA_EPS * CA_EPS / 2.0;
        let yb = s * CA_R;
        let ybd = c * (CA_R * CA_W);
        let ybdd = s * (-CA_R * CA_W * CA_W);
        let xb = (-yb * yb + CA_L * CA_L).sqrt();
        let xbd = -yb * ybd / xb;
        let xbdd = -(ybd * ybd + yb * ybdd + xbd * xbd) / xb;
        let ll = (xl * xl + yl * yl).sqrt();
        let (rx, ry) = (xr - xb, yr - yb);
        let lr = (rx * rx + ry * ry).sqrt();
        let f = [
            -(ll - CA_L0) * xl / ll,
            -(ll - CA_L0) * yl / ll - mass * CA_G,
            -(lr - CA_L0) * rx / lr,
            -(lr - CA_L0) * ry / lr - mass * CA_G,
        ];
        let (dxl, dyl) = (xl - xr, yl - yr);
        let g = [
            [xb, yb, zero, zero],
            [dxl * 2.0, dyl * 2.0, -dxl * 2.0, -dyl * 2.0],
        ];
        let (du, dv) = (ul - ur, vl - vr);
        let gam = [
            xl * xbdd + ul * xbd * 2.0 + yl * ybdd + vl * ybd * 2.0,
            (du * du + dv * dv) * 2.0,
        ];
        let mut a = [[zero; 6]; 6];
        let mut b = [zero; 6];
        for i in 0..4 {
            a[i][i] = k(mass);
            b[i] = f[i];
        }
        for r in 0..2 {
            for c in 0..4 {
                a[4 + r][c] = g[r][c];
                a[c][4 + r] = g[r][c];
            }
            b[4 + r] = -gam[r];
        }
        let x = solve(a, b);
        dy[..4].copy_from_slice(&y[4..8]);
        dy[4..8].copy_from_slice(&x[..4]);
        dy[8] = k(1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The right-hand sides equal `benches/work_precision.py`'s (scipy's) at two states each.
    #[test]
    fn the_same_right_hand_sides_as_scipys() {
        let close = |a: &[f64], b: &[f64]| {
            for (x, y) in a.iter().zip(b) {
                assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "{a:?}\n{b:?}");
            }
        };
        let mut y = [0.0; 14];
        y[..7].copy_from_slice(&ANDREWS_Q0);
        let mut dy = [0.0; 14];
        Andrews.f(0.0, &y, &mut dy);
        close(&dy[7..9], &[14222.443919954121, -10666.83293996559]);
        for i in 0..7 {
            y[i] = ANDREWS_Q0[i] + 0.01 * (i + 1) as f64;
        }
        y[7..].copy_from_slice(&[0.5, -1.0, 2.0, 0.3, -0.2, 0.7, 0.1]);
        Andrews.f(0.0, &y, &mut dy);
        close(
            &dy[7..],
            &[
                8120.063001093114,
                -6119.39316038892,
                39.80767683058407,
                80.23874438410864,
                -7.735948167049818,
                -77.1724527889414,
                30.524046855497378,
            ],
        );
        let y = [0.01, 0.49, 1.02, 0.45, -0.4, 0.1, -0.45, 0.05, 0.1];
        let mut dy = [0.0; 9];
        CarAxis.f(0.1, &y, &mut dy);
        assert_eq!(dy[8], 1.0);
        close(
            &dy[..8],
            &[
                -0.4,
                0.1,
                -0.45,
                0.05,
                2.438719979946448,
                18.353811020792868,
                12.218732852136748,
                265.4241360435981,
            ],
        );
    }
}
