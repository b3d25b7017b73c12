//! Andrews' squeezing mechanism (seven-body planar mechanism, index 3) in joint angles
//! `q = (β, Θ, γ, Φ, δ, Ω, ε)`, written as a Lagrangian: `T = ½ q̇ᵀ M(q) q̇`, the spring
//! potential `V = ½ c₀ (L − l₀)²` and the driving torque `mom` as a generalized force on `β`.
//! Six loop-closure constraints. Parameters and the published form `M q̈ = f − Gᵀλ`:
//! Hairer & Wanner, *Solving ODEs II*, §VII.7, and the CWI/Bari IVP test set.

#![allow(clippy::excessive_precision)] // published values, kept as printed

use crate::model::{Constraint, Model, Term};
use nalgebra::{SMatrix, SVector};
use num_dual::DualNum;

/// The mechanism's parameters (SI units).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Andrews {
    pub m1: f64,
    pub m2: f64,
    pub m3: f64,
    pub m4: f64,
    pub m5: f64,
    pub m6: f64,
    pub m7: f64,
    pub xa: f64,
    pub ya: f64,
    pub xb: f64,
    pub yb: f64,
    pub xc: f64,
    pub yc: f64,
    pub c0: f64,
    pub i1: f64,
    pub i2: f64,
    pub i3: f64,
    pub i4: f64,
    pub i5: f64,
    pub i6: f64,
    pub i7: f64,
    pub d: f64,
    pub da: f64,
    pub e: f64,
    pub ea: f64,
    pub rr: f64,
    pub ra: f64,
    pub l0: f64,
    pub ss: f64,
    pub sa: f64,
    pub sb: f64,
    pub sc: f64,
    pub sd: f64,
    pub ta: f64,
    pub tb: f64,
    pub u: f64,
    pub ua: f64,
    pub ub: f64,
    pub zf: f64,
    pub zt: f64,
    pub fa: f64,
    pub mom: f64,
}

impl Default for Andrews {
    fn default() -> Self {
        Andrews {
            m1: 0.04325,
            m2: 0.00365,
            m3: 0.02373,
            m4: 0.00706,
            m5: 0.07050,
            m6: 0.00706,
            m7: 0.05498,
            xa: -0.06934,
            ya: -0.00227,
            xb: -0.03635,
            yb: 0.03273,
            xc: 0.014,
            yc: 0.072,
            c0: 4530.0,
            i1: 2.194e-6,
            i2: 4.410e-7,
            i3: 5.255e-6,
            i4: 5.667e-7,
            i5: 1.169e-5,
            i6: 5.667e-7,
            i7: 1.912e-5,
            d: 28e-3,
            da: 115e-4,
            e: 2e-2,
            ea: 1421e-5,
            rr: 7e-3,
            ra: 92e-5,
            l0: 7785e-5,
            ss: 35e-3,
            sa: 1874e-5,
            sb: 1043e-5,
            sc: 18e-3,
            sd: 2e-2,
            ta: 2308e-5,
            tb: 916e-5,
            u: 4e-2,
            ua: 1228e-5,
            ub: 449e-5,
            zf: 2e-2,
            zt: 4e-2,
            fa: 1421e-5,
            mom: 33e-3,
        }
    }
}

/// `q(0.03)` of the CWI/Bari IVP test set (Mazzia & Magherini; computed by PSIDE with
/// tolerances 1e-14): the reference the tests and benchmarks compare against.
pub const TEST_SET_Q_END: [f64; 7] = [
    15.81077119629904,
    -15.75637105984298,
    0.04082224013073101,
    -0.5347301163226948,
    0.5244099658805304,
    0.5347301163226948,
    1.048080741042263,
];

/// Published consistent initial positions at `t = 0` (`Θ₀ = 0`).
pub const Q0: [f64; 7] = [
    -0.0617138900142764496358948458001,
    0.0,
    0.455279819163070380255912382449,
    0.222668390165885884674473185609,
    0.487364979543842550225598953530,
    -0.222668390165885884674473185609,
    1.23054744454982119249735015568,
];
/// Published consistent initial accelerations.
pub const QDD0: [f64; 7] = [
    14222.4439199541138705911625887,
    -10666.8329399655854029433719415,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
];
/// Published initial multipliers (same sign convention as here: `M q̈ = f − Gᵀλ`).
pub const LAMBDA0: [f64; 6] = [
    98.5668703962410896057654982170,
    -6.12268834425566265503114393122,
    0.0,
    0.0,
    0.0,
    0.0,
];

impl Term<7> for Andrews {
    /// The mass matrix `M(q)` (symmetric): the kinetic energy is `½ q̇ᵀ M(q) q̇`.
    fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 7>,
    ) -> SMatrix<D, 7, 7> {
        let p = self;
        let z = D::from(0.0);
        let mut m = SMatrix::<D, 7, 7>::from_element(z);
        let (cth, sphi, som) = (q[1].cos(), q[3].sin(), q[5].sin());
        let eea = p.e - p.ea;
        let zfa = p.zf - p.fa;
        m[(0, 0)] = D::from(p.m1 * p.ra * p.ra + p.m2 * (p.rr * p.rr + p.da * p.da) + p.i1 + p.i2)
            - cth * (2.0 * p.m2 * p.da * p.rr);
        m[(1, 0)] = D::from(p.m2 * p.da * p.da + p.i2) - cth * (p.m2 * p.da * p.rr);
        m[(1, 1)] = D::from(p.m2 * p.da * p.da + p.i2);
        m[(2, 2)] = D::from(p.m3 * (p.sa * p.sa + p.sb * p.sb) + p.i3);
        m[(3, 3)] = D::from(p.m4 * eea * eea + p.i4);
        m[(4, 3)] = D::from(p.m4 * eea * eea + p.i4) + sphi * (p.m4 * p.zt * eea);
        m[(4, 4)] = D::from(
            p.m4 * (p.zt * p.zt + eea * eea) + p.m5 * (p.ta * p.ta + p.tb * p.tb) + p.i4 + p.i5,
        ) + sphi * (2.0 * p.m4 * p.zt * eea);
        m[(5, 5)] = D::from(p.m6 * zfa * zfa + p.i6);
        m[(6, 5)] = D::from(p.m6 * zfa * zfa + p.i6) - som * (p.m6 * p.u * zfa);
        m[(6, 6)] = D::from(
            p.m6 * (zfa * zfa + p.u * p.u) + p.m7 * (p.ua * p.ua + p.ub * p.ub) + p.i6 + p.i7,
        ) - som * (2.0 * p.m6 * p.u * zfa);
        for i in 0..7 {
            for j in 0..i {
                m[(j, i)] = m[(i, j)];
            }
        }
        m
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 7>) -> D {
        let p = self;
        let (s, c) = q[2].sin_cos();
        let xd = c * p.sd + s * p.sc + p.xb;
        let yd = s * p.sd - c * p.sc + p.yb;
        let l = ((xd - p.xc) * (xd - p.xc) + (yd - p.yc) * (yd - p.yc)).sqrt();
        (l - p.l0) * (l - p.l0) * (0.5 * p.c0)
    }
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 7>,
        _v: &SVector<D, 7>,
    ) -> SVector<D, 7> {
        let mut f = SVector::from_element(D::from(0.0));
        f[0] = D::from(self.mom);
        f
    }
}

impl Constraint<7, 6> for Andrews {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 7>,
    ) -> SVector<D, 6> {
        let p = self;
        let (be, th, ga, ph, de, om, ep) = (q[0], q[1], q[2], q[3], q[4], q[5], q[6]);
        let x0 = be.cos() * p.rr - (be + th).cos() * p.d;
        let y0 = be.sin() * p.rr - (be + th).sin() * p.d;
        SVector::from([
            x0 - ga.sin() * p.ss - p.xb,
            y0 + ga.cos() * p.ss - p.yb,
            x0 - (ph + de).sin() * p.e - de.cos() * p.zt - p.xa,
            y0 + (ph + de).cos() * p.e - de.sin() * p.zt - p.ya,
            x0 - (om + ep).cos() * p.zf - ep.sin() * p.u - p.xa,
            y0 - (om + ep).sin() * p.zf + ep.cos() * p.u - p.ya,
        ])
    }
}

/// Andrews' mechanism as a model (7 coordinates, 6 constraint rows named `loop[k]`).
pub fn andrews_model() -> Model {
    let a = Andrews::default();
    Model::builder(7)
        .coordinate_names(["beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"])
        .term([0, 1, 2, 3, 4, 5, 6], a)
        .constraint("loop", [0, 1, 2, 3, 4, 5, 6], a)
        .build()
        .expect("valid model")
}
