//! N connected spherical pendulums in angle coordinates (after the PHYS389 3D N-pendulum simulator), written as a Lagrangian and
//! differentiated by AD, with each rod switching independently between a z-polar and an x-polar
//! chart near its chart's poles.
//!
//! Rod `i` has direction `e_i(θ_i, φ_i)` in its chart,
//!
//! ```text
//! z-polar:  e = (sin θ cos φ, sin θ sin φ, −cos θ)     (θ = 0 hangs straight down)
//! x-polar:  e = (cos θ, sin θ cos φ, sin θ sin φ)
//! ```
//!
//! length `ℓ_i` (a coordinate too for elastic rods, with `V = ½ k (ℓ − L)²`), vector
//! `r_i = ℓ_i e_i`, joint `p_k = Σ_{i≤k} r_i`, and its mass `m_k` at `c_k = p_{k−1} + f_k r_k`
//! (`f = 1`: at the end, as in the PHYS389 simulator) with moment of inertia `I_k` about `c_k` perpendicular to
//! the rod. With weights `w_i^(k) = 1 (i < k), f_k (i = k), 0 (i > k)`:
//!
//! ```text
//! T = ½ Σ_{i,j} A_ij ṙ_i·ṙ_j + ½ Σ_k I_k |ė_k|²,   A_ij = Σ_k m_k w_i^(k) w_j^(k)
//! V = g Σ_i b_i z(r_i) + Σ_elastic ½ k_i (ℓ_i − L_i)²,   b_i = Σ_k m_k w_i^(k)
//! R = ½ Σ_k c_k |ω_k − ω_{k−1}|²,   ω = e × ė   (joint damping; ω_0 = 0)
//! ```
//!
//! so the model is a sum of terms on one rod or on a pair of rods (2–6 coordinates each).

mod problem;
pub use problem::ChartLog;

use crate::error::Error;
use crate::model::{Declared, Model};
use crate::problem::memory;
use nalgebra::{SVector, Vector3};
use num_dual::DualNum;
use serde::Serialize;
use std::f64::consts::TAU;

/// Which spherical chart a rod uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Chart {
    /// Pole along `z`: `e = (sin θ cos φ, sin θ sin φ, −cos θ)`.
    ZPolar,
    /// Pole along `x`: `e = (cos θ, sin θ cos φ, sin θ sin φ)`.
    XPolar,
}

/// One rod of the chain and its initial state.
#[derive(Clone, Debug, PartialEq)]
pub struct Rod {
    /// Length `L` (rest length for elastic rods).
    pub length: f64,
    /// Mass `m`.
    pub mass: f64,
    /// Position of the mass along the rod, `f ∈ [0, 1]` (1: at the end).
    pub com: f64,
    /// Moment of inertia about the centre of mass, perpendicular to the rod.
    pub inertia: f64,
    /// Joint damping `c` (Rayleigh, on the relative angular velocity).
    pub damping: f64,
    /// Axial stiffness for an elastic rod (its length becomes a coordinate).
    pub stiffness: Option<f64>,
    /// Polar angle `θ`.
    pub theta: f64,
    /// Azimuth `φ`.
    pub phi: f64,
    /// `θ̇`.
    pub theta_dot: f64,
    /// `φ̇`.
    pub phi_dot: f64,
    /// Chart of the angles.
    pub chart: Chart,
    /// Current length and its rate (elastic rods; for rigid rods `(length, 0)`).
    pub ell: (f64, f64),
}

impl Rod {
    /// A rigid massless rod with a point mass at its end, at rest.
    pub fn new(length: f64, mass: f64, theta: f64, phi: f64) -> Self {
        Rod {
            length,
            mass,
            com: 1.0,
            inertia: 0.0,
            damping: 0.0,
            stiffness: None,
            theta,
            phi,
            theta_dot: 0.0,
            phi_dot: 0.0,
            chart: Chart::ZPolar,
            ell: (length, 0.0),
        }
    }
    fn length_now(&self) -> f64 {
        if self.stiffness.is_some() {
            self.ell.0
        } else {
            self.length
        }
    }
    fn length_rate(&self) -> f64 {
        if self.stiffness.is_some() {
            self.ell.1
        } else {
            0.0
        }
    }
    fn ncoords(&self) -> usize {
        if self.stiffness.is_some() { 3 } else { 2 }
    }
}

/// Direction `e(θ, φ)` in a chart.
pub fn direction<D: DualNum<Primitive = f64> + Copy>(chart: Chart, th: D, ph: D) -> [D; 3] {
    let (st, ct) = th.sin_cos();
    let (sp, cp) = ph.sin_cos();
    match chart {
        Chart::ZPolar => [st * cp, st * sp, -ct],
        Chart::XPolar => [ct, st * cp, st * sp],
    }
}

/// `(θ, φ, θ̇, φ̇)` of the unit vector `e` and its rate `ė` in a chart, `θ ∈ [0, π]`,
/// `φ ∈ [0, 2π)`.
pub fn angles(chart: Chart, e: &Vector3<f64>, ed: &Vector3<f64>) -> (f64, f64, f64, f64) {
    let (c, a, b) = match chart {
        Chart::ZPolar => (-e.z, e.x, e.y),
        Chart::XPolar => (e.x, e.y, e.z),
    };
    let th = c.clamp(-1.0, 1.0).acos();
    let mut ph = b.atan2(a);
    if ph < 0.0 {
        ph += TAU;
    }
    if ph >= TAU {
        ph = 0.0; // −0 or a rounding of −ε + 2π
    }
    // unit tangent vectors e_θ = ∂e/∂θ and e_φ = (∂e/∂φ)/sin θ
    let (st, ct) = th.sin_cos();
    let (sp, cp) = ph.sin_cos();
    let (e_th, e_ph) = match chart {
        Chart::ZPolar => (
            Vector3::new(ct * cp, ct * sp, st),
            Vector3::new(-sp, cp, 0.0),
        ),
        Chart::XPolar => (
            Vector3::new(-st, ct * cp, ct * sp),
            Vector3::new(0.0, -sp, cp),
        ),
    };
    let thd = ed.dot(&e_th);
    let phd = if st > 1e-12 { ed.dot(&e_ph) / st } else { 0.0 };
    (th, ph, thd, phd)
}

#[derive(Clone, Copy, Debug)]
struct RodTerm {
    chart: Chart,
    /// Fixed length (rigid), or `None` when the length is the third local coordinate.
    length: Option<f64>,
    /// Offset of the rod's coordinates in the term's local vector.
    off: usize,
}

impl RodTerm {
    /// `r = ℓ e` and `ṙ = ℓ̇ e + ℓ ė` on local coordinates.
    fn r_rdot<D: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> ([D; 3], [D; 3], [D; 3], [D; 3]) {
        let (th, ph) = (q[self.off], q[self.off + 1]);
        let (thd, phd) = (v[self.off], v[self.off + 1]);
        let (st, ct) = th.sin_cos();
        let (sp, cp) = ph.sin_cos();
        let (e, ed) = match self.chart {
            Chart::ZPolar => (
                [st * cp, st * sp, -ct],
                [
                    thd * ct * cp - phd * st * sp,
                    thd * ct * sp + phd * st * cp,
                    thd * st,
                ],
            ),
            Chart::XPolar => (
                [ct, st * cp, st * sp],
                [
                    -thd * st,
                    thd * ct * cp - phd * st * sp,
                    thd * ct * sp + phd * st * cp,
                ],
            ),
        };
        let (l, ld) = match self.length {
            Some(l) => (D::from(l), D::from(0.0)),
            None => (q[self.off + 2], v[self.off + 2]),
        };
        let r = [e[0] * l, e[1] * l, e[2] * l];
        let rd = [
            ld * e[0] + l * ed[0],
            ld * e[1] + l * ed[1],
            ld * e[2] + l * ed[2],
        ];
        (r, rd, e, ed)
    }
}

fn dot<D: DualNum<Primitive = f64> + Copy>(a: &[D; 3], b: &[D; 3]) -> D {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross<D: DualNum<Primitive = f64> + Copy>(a: &[D; 3], b: &[D; 3]) -> [D; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The energy of one rod: `½ A_ii |ṙ|² + ½ I |ė|²`, gravity `g b z`, an elastic length, and the
/// damping of the first joint.
#[derive(Clone, Copy, Debug)]
struct SelfTerm {
    rod: RodTerm,
    a_ii: f64,
    inertia: f64,
    gb: f64,
    spring: Option<(f64, f64)>,
    damping: f64,
}

impl<const N: usize> Declared<N> for SelfTerm {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        let (_, rd, _, ed) = self.rod.r_rdot(q, v);
        dot(&rd, &rd) * (0.5 * self.a_ii) + dot(&ed, &ed) * (0.5 * self.inertia)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, N>) -> D {
        let z = SVector::<D, N>::from_element(D::from(0.0));
        let (r, ..) = self.rod.r_rdot(q, &z);
        let mut e = r[2] * self.gb;
        if let Some((k, l)) = self.spring {
            let s = q[self.rod.off + 2] - l;
            e += s * s * (0.5 * k);
        }
        e
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        if self.damping == 0.0 {
            return D::from(0.0);
        }
        let (_, _, e, ed) = self.rod.r_rdot(q, v);
        let w = cross(&e, &ed);
        dot(&w, &w) * (0.5 * self.damping)
    }
    fn has_dissipation_or_force(&self) -> bool {
        self.damping != 0.0
    }
}

/// Coupling of two rods: `A_ij ṙ_i·ṙ_j`, and the damping of the joint between neighbours.
#[derive(Clone, Copy, Debug)]
struct PairTerm {
    a: RodTerm,
    b: RodTerm,
    a_ij: f64,
    damping: f64,
}

impl<const N: usize> Declared<N> for PairTerm {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        let (_, ra, ..) = self.a.r_rdot(q, v);
        let (_, rb, ..) = self.b.r_rdot(q, v);
        dot(&ra, &rb) * self.a_ij
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        if self.damping == 0.0 {
            return D::from(0.0);
        }
        let (_, _, ea, eda) = self.a.r_rdot(q, v);
        let (_, _, eb, edb) = self.b.r_rdot(q, v);
        let (wa, wb) = (cross(&ea, &eda), cross(&eb, &edb));
        let d = [wb[0] - wa[0], wb[1] - wa[1], wb[2] - wa[2]];
        dot(&d, &d) * (0.5 * self.damping)
    }
    fn has_dissipation_or_force(&self) -> bool {
        self.damping != 0.0
    }
}

/// Cartesian diagnostics of the chain at one instant.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostics {
    /// Time.
    pub t: f64,
    /// Joint (bob) positions `p_k`.
    pub positions: Vec<[f64; 3]>,
    /// Joint velocities `ṗ_k`.
    pub velocities: Vec<[f64; 3]>,
    /// Total linear momentum `Σ m_k ċ_k`.
    pub momentum: [f64; 3],
    /// Total angular momentum about the support, `Σ (c_k × m_k ċ_k + I_k e_k × ė_k)`.
    pub angular_momentum: [f64; 3],
    /// Kinetic energy.
    pub kinetic: f64,
    /// Potential energy.
    pub potential: f64,
    /// Charts in use.
    pub charts: Vec<Chart>,
    /// Each pendulum's own figures.
    pub rods: Vec<RodFigures>,
}

/// One pendulum's momentum and energy (its mass at the centre of mass `c`, its inertia `I`
/// about it, perpendicular to the rod).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RodFigures {
    /// Linear momentum `m ċ`.
    pub momentum: [f64; 3],
    /// Angular momentum about the support, `c × m ċ + I e × ė`.
    pub angular_momentum: [f64; 3],
    /// Kinetic energy `½ m |ċ|² + ½ I |ė|²`.
    pub kinetic: f64,
    /// Potential energy: gravity `m g c_z` and, for an elastic rod, `½ k (ℓ − L)²`.
    pub potential: f64,
}

/// N connected spherical pendulums.
#[derive(Clone, Debug, PartialEq)]
pub struct SphericalChain {
    /// The rods, from the support outwards, with their current state.
    pub rods: Vec<Rod>,
    /// Gravity (along −z).
    pub g: f64,
    /// Switch a rod's chart when `sin θ` falls below this (default 0.5).
    pub switch_below: f64,
    /// Current time.
    pub t: f64,
}

impl SphericalChain {
    /// A chain under gravity `g`.
    pub fn new(rods: Vec<Rod>, g: f64) -> Self {
        SphericalChain {
            rods,
            g,
            switch_below: 0.5,
            t: 0.0,
        }
    }

    /// The weights of the chain's kinetic and potential energy: `T = ½ Σᵢⱼ aᵢⱼ ṙᵢ·ṙⱼ + …`
    /// and `V = g Σᵢ bᵢ zᵢ`, with `aᵢⱼ = Σₖ mₖ wᵢₖ wⱼₖ`, `bᵢ = Σₖ mₖ wᵢₖ`, where `wᵢₖ` is 1
    /// for `i < k`, rod `k`'s centre of mass fraction for `i = k` and 0 beyond. With the
    /// masses beyond rod `j`, `Sⱼ = Σ_{k>j} mₖ`: `aᵢⱼ = mⱼ cⱼ + Sⱼ` for `i < j`,
    /// `aᵢᵢ = mᵢ cᵢ² + Sᵢ`, `bᵢ = mᵢ cᵢ + Sᵢ` — O(n), where the sums are O(n³).
    /// Returns `(aᵢᵢ, a_{·j} for i < j, bᵢ)`.
    fn weights(&self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let n = self.rods.len();
        let mut beyond = vec![0.0; n];
        for k in (0..n.saturating_sub(1)).rev() {
            beyond[k] = beyond[k + 1] + self.rods[k + 1].mass;
        }
        let r = &self.rods;
        let diag = (0..n).map(|i| r[i].mass * r[i].com * r[i].com + beyond[i]);
        let upper = (0..n).map(|j| r[j].mass * r[j].com + beyond[j]);
        let b = (0..n).map(|i| r[i].mass * r[i].com + beyond[i]);
        (diag.collect(), upper.collect(), b.collect())
    }

    /// Refuse a chain whose model would not fit in memory, before it is built: every rod
    /// is coupled with every other one (`n(n − 1)/2` terms, a dense iteration matrix), so
    /// memory grows with the square of the rods ([`memory::estimate_coupled`]).
    fn check_memory(&self, coordinates: usize) -> Result<(), Error> {
        let rods = self.rods.len() as f64;
        let entries = (coordinates as f64).powi(2);
        let need = memory::estimate_coupled(coordinates, entries, rods * (rods - 1.0) / 2.0);
        let what = format!(
            "a chain of {} pendulums ({coordinates} coordinates, each rod coupled with every \
             other one) needs about {:.3} GB of memory (estimated)",
            self.rods.len(),
            need / 1e9
        );
        memory::check_bytes(need, &what).map_err(Error::TooLarge)
    }

    fn offsets(&self) -> Vec<usize> {
        let mut off = Vec::new();
        let mut o = 0;
        for r in &self.rods {
            off.push(o);
            o += r.ncoords();
        }
        off
    }

    /// The model for the current charts (coordinates `θ_i, φ_i (, ℓ_i)` rod after rod).
    pub fn model(&self) -> Result<Model, Error> {
        let n: usize = self.rods.iter().map(Rod::ncoords).sum();
        self.check_memory(n)?;
        let off = self.offsets();
        let (a_ii, a_ij, b) = self.weights();
        let names: Vec<String> = self
            .rods
            .iter()
            .enumerate()
            .flat_map(|(i, r)| {
                let mut v = vec![format!("theta{}", i + 1), format!("phi{}", i + 1)];
                if r.stiffness.is_some() {
                    v.push(format!("length{}", i + 1));
                }
                v
            })
            .collect();
        let mut mb = Model::builder(n).coordinate_names(names);
        let rodterm = |i: usize, local_off: usize| RodTerm {
            chart: self.rods[i].chart,
            length: if self.rods[i].stiffness.is_some() {
                None
            } else {
                Some(self.rods[i].length)
            },
            off: local_off,
        };
        let idx = |i: usize| -> Vec<usize> { (off[i]..off[i] + self.rods[i].ncoords()).collect() };
        for (i, rod) in self.rods.iter().enumerate() {
            let t = SelfTerm {
                rod: rodterm(i, 0),
                a_ii: a_ii[i],
                inertia: rod.inertia,
                gb: self.g * b[i],
                spring: rod.stiffness.map(|k| (k, rod.length)),
                damping: if i == 0 { rod.damping } else { 0.0 },
            };
            let ix = idx(i);
            match ix.len() {
                2 => mb.add_term([ix[0], ix[1]], t),
                _ => mb.add_term([ix[0], ix[1], ix[2]], t),
            }
            for j in i + 1..self.rods.len() {
                let damping = if j == i + 1 {
                    self.rods[j].damping
                } else {
                    0.0
                };
                if a_ij[j] == 0.0 && damping == 0.0 {
                    continue;
                }
                let p = PairTerm {
                    a: rodterm(i, 0),
                    b: rodterm(j, self.rods[i].ncoords()),
                    a_ij: a_ij[j],
                    damping,
                };
                let mut ij = idx(i);
                ij.extend(idx(j));
                match ij.len() {
                    4 => mb.add_term([ij[0], ij[1], ij[2], ij[3]], p),
                    5 => mb.add_term([ij[0], ij[1], ij[2], ij[3], ij[4]], p),
                    _ => mb.add_term([ij[0], ij[1], ij[2], ij[3], ij[4], ij[5]], p),
                }
            }
        }
        Ok(mb.build()?)
    }

    fn vectors(&self) -> (Vec<f64>, Vec<f64>) {
        let mut q = Vec::new();
        let mut v = Vec::new();
        for r in &self.rods {
            q.extend([r.theta, r.phi]);
            v.extend([r.theta_dot, r.phi_dot]);
            if r.stiffness.is_some() {
                q.push(r.length_now());
                v.push(r.length_rate());
            }
        }
        (q, v)
    }

    fn set_vectors(&mut self, q: &[f64], v: &[f64]) {
        let mut o = 0;
        for r in &mut self.rods {
            r.theta = q[o];
            r.phi = q[o + 1];
            r.theta_dot = v[o];
            r.phi_dot = v[o + 1];
            if r.stiffness.is_some() {
                r.ell = (q[o + 2], v[o + 2]);
            }
            o += r.ncoords();
        }
    }

    /// Unit vector, its rate, length and length rate of rod `i`.
    fn rod_state(&self, i: usize) -> (Vector3<f64>, Vector3<f64>, f64, f64) {
        let r = &self.rods[i];
        let e = Vector3::from(direction(r.chart, r.theta, r.phi));
        // ė = θ̇ ∂e/∂θ + φ̇ ∂e/∂φ
        let (st, ct) = r.theta.sin_cos();
        let (sp, cp) = r.phi.sin_cos();
        let (dth, dph) = match r.chart {
            Chart::ZPolar => (
                Vector3::new(ct * cp, ct * sp, st),
                Vector3::new(-st * sp, st * cp, 0.0),
            ),
            Chart::XPolar => (
                Vector3::new(-st, ct * cp, ct * sp),
                Vector3::new(0.0, -st * sp, st * cp),
            ),
        };
        (
            e,
            dth * r.theta_dot + dph * r.phi_dot,
            r.length_now(),
            r.length_rate(),
        )
    }

    /// Put every rod in a chart where `sin θ ≥ switch_below` and its angles in `θ ∈ [0, π]`,
    /// `φ ∈ [0, 2π)`, keeping each rod's Cartesian direction and rate. Returns the rods switched.
    pub fn normalize(&mut self) -> Vec<usize> {
        let mut switched = Vec::new();
        for i in 0..self.rods.len() {
            let (e, ed, _, _) = self.rod_state(i);
            let mut chart = self.rods[i].chart;
            let (th, ..) = angles(chart, &e, &ed);
            if th.sin() < self.switch_below {
                chart = match chart {
                    Chart::ZPolar => Chart::XPolar,
                    Chart::XPolar => Chart::ZPolar,
                };
                switched.push(i);
            }
            let (th, ph, thd, phd) = angles(chart, &e, &ed);
            let r = &mut self.rods[i];
            r.chart = chart;
            r.theta = th;
            r.phi = ph;
            r.theta_dot = thd;
            r.phi_dot = phd;
        }
        switched
    }

    /// Cartesian diagnostics of the current state.
    pub fn diagnostics(&self) -> Diagnostics {
        let mut p = Vector3::zeros();
        let mut pd = Vector3::zeros();
        let (mut positions, mut velocities) = (Vec::new(), Vec::new());
        let (mut mom, mut ang) = (Vector3::zeros(), Vector3::zeros());
        let (mut kin, mut pot) = (0.0, 0.0);
        let mut rods = Vec::with_capacity(self.rods.len());
        for (i, rod) in self.rods.iter().enumerate() {
            let (e, ed, l, ld) = self.rod_state(i);
            let (r, rd) = (e * l, e * ld + ed * l);
            let (c, cd) = (p + r * rod.com, pd + rd * rod.com);
            p += r;
            pd += rd;
            positions.push([p.x, p.y, p.z]);
            velocities.push([pd.x, pd.y, pd.z]);
            let m = cd * rod.mass;
            let a = c.cross(&m) + e.cross(&ed) * rod.inertia;
            let k = 0.5 * rod.mass * cd.norm_squared() + 0.5 * rod.inertia * ed.norm_squared();
            let mut v = rod.mass * self.g * c.z;
            if let Some(s) = rod.stiffness {
                v += 0.5 * s * (l - rod.length).powi(2);
            }
            (mom, ang, kin, pot) = (mom + m, ang + a, kin + k, pot + v);
            rods.push(RodFigures {
                momentum: [m.x, m.y, m.z],
                angular_momentum: [a.x, a.y, a.z],
                kinetic: k,
                potential: v,
            });
        }
        Diagnostics {
            rods,
            t: self.t,
            positions,
            velocities,
            momentum: [mom.x, mom.y, mom.z],
            angular_momentum: [ang.x, ang.y, ang.z],
            kinetic: kin,
            potential: pot,
            charts: self.rods.iter().map(|r| r.chart).collect(),
        }
    }
}
