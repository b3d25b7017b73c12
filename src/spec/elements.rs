//! Elements of mechanism files, on points that are affine functions of the coordinates,
//! `P(q) = c + A q` (free points, fixed points, and points of planar rigid bodies in natural
//! coordinates with the constant body length `ℓ`). Every element is a [`Term`] or [`Constraint`]
//! differentiated by AD.

use super::expr::{Expr, Scope};
use crate::model::{Constraint, Term};
use nalgebra::SVector;
use num_dual::DualNum;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `P(q) = c + Σ_j a_j q_j` over global coordinates `j`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Affine {
    /// Constant part.
    pub c: [f64; 3],
    /// Coefficient vectors by global coordinate.
    pub a: BTreeMap<usize, [f64; 3]>,
}

impl Affine {
    /// A fixed point.
    pub fn fixed(c: [f64; 3]) -> Self {
        Affine {
            c,
            a: BTreeMap::new(),
        }
    }
    /// A free point with coordinates `idx` (`dim` of them).
    pub fn free(idx: &[usize]) -> Self {
        let mut a = BTreeMap::new();
        for (k, &i) in idx.iter().enumerate() {
            let mut e = [0.0; 3];
            e[k] = 1.0;
            a.insert(i, e);
        }
        Affine { c: [0.0; 3], a }
    }
    fn axpy(&mut self, s: f64, o: &Affine, rot: bool) {
        let f = |v: [f64; 3]| if rot { [-v[1], v[0], 0.0] } else { v };
        let oc = f(o.c);
        for k in 0..3 {
            self.c[k] += s * oc[k];
        }
        for (&j, v) in &o.a {
            let v = f(*v);
            let e = self.a.entry(j).or_insert([0.0; 3]);
            for k in 0..3 {
                e[k] += s * v[k];
            }
        }
    }
    /// Point `(ξ, η)` of a planar body with basic points `p0` at local `(0,0)` and `p1` at
    /// `(ℓ, 0)`: `P = P₀ + ξ u + η u⊥`, `u = (P₁ − P₀)/ℓ`.
    pub fn body_point(p0: &Affine, p1: &Affine, len: f64, xi: f64, eta: f64) -> Affine {
        let (a, b) = (xi / len, eta / len);
        let mut out = Affine::default();
        out.axpy(1.0 - a, p0, false);
        out.axpy(a, p1, false);
        out.axpy(b, p1, true);
        out.axpy(-b, p0, true);
        out
    }
    /// Position at coordinates `q` (global).
    pub fn eval(&self, q: &[f64]) -> [f64; 3] {
        let mut x = self.c;
        for (&j, v) in &self.a {
            for k in 0..3 {
                x[k] += v[k] * q[j];
            }
        }
        x
    }
}

/// An affine point on an element's local coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalPoint {
    c: [f64; 3],
    a: Vec<(usize, [f64; 3])>,
}

/// Local coordinate list of a set of points, and the points on it.
pub fn localize(points: &[&Affine]) -> (Vec<usize>, Vec<LocalPoint>) {
    let mut idx: Vec<usize> = points.iter().flat_map(|p| p.a.keys().copied()).collect();
    idx.sort_unstable();
    idx.dedup();
    let local = points
        .iter()
        .map(|p| LocalPoint {
            c: p.c,
            a: p.a
                .iter()
                .map(|(j, v)| (idx.binary_search(j).expect("present"), *v))
                .collect(),
        })
        .collect();
    (idx, local)
}

/// What an element is.
#[derive(Clone, Debug)]
pub enum Kind {
    /// Point mass at point 0.
    Particle {
        /// Mass.
        m: f64,
    },
    /// Spring from point 0 to point 1: `V = ½k(|d| − ℓ₀)²`, uniform mass `m`
    /// (`T = m/6(|ẏ|² + ẏ·ż + |ż|²)`), axial damping `c`.
    Spring {
        /// Stiffness (0: a massive bar, no elastic energy).
        k: f64,
        /// Rest length.
        l0: f64,
        /// Mass.
        m: f64,
        /// Axial damping.
        c: f64,
    },
    /// Planar rigid body with basic points 0 and 1 (`ℓ` apart): `T = ½m|Ġ|² + ½I_G|u̇|²`.
    Rigid {
        /// Mass.
        m: f64,
        /// Moment of inertia about the centroid.
        inertia: f64,
        /// Centroid in the local frame.
        centroid: [f64; 2],
        /// Body length `ℓ`.
        len: f64,
    },
    /// Force `F(t)` applied at point 0.
    Force {
        /// Components.
        f: Vec<Expr>,
        /// Parameters.
        scope: Arc<Scope>,
    },
    /// Torque `τ(t)` on a planar body with basic points 0 and 1 (a couple `±τ/ℓ u⊥`).
    Torque {
        /// Torque.
        tau: Expr,
        /// Parameters.
        scope: Arc<Scope>,
        /// Body length.
        len: f64,
    },
}

/// An element on `N` local coordinates.
#[derive(Clone, Debug)]
pub struct Element<const N: usize> {
    /// Spatial dimension (2 or 3).
    pub dim: usize,
    /// Points on the local coordinates.
    pub pts: Vec<LocalPoint>,
    /// What it is.
    pub kind: Kind,
    /// Gravity vector.
    pub gravity: [f64; 3],
}

impl<const N: usize> Element<N> {
    fn pos<D: DualNum<Primitive = f64> + Copy>(&self, p: usize, q: &SVector<D, N>) -> [D; 3] {
        let lp = &self.pts[p];
        let mut x = [D::from(lp.c[0]), D::from(lp.c[1]), D::from(lp.c[2])];
        for (j, v) in &lp.a {
            for k in 0..self.dim {
                if v[k] != 0.0 {
                    x[k] += q[*j] * v[k];
                }
            }
        }
        x
    }
    fn vel<D: DualNum<Primitive = f64> + Copy>(&self, p: usize, v: &SVector<D, N>) -> [D; 3] {
        let lp = &self.pts[p];
        let z = D::from(0.0);
        let mut x = [z, z, z];
        for (j, c) in &lp.a {
            for k in 0..self.dim {
                if c[k] != 0.0 {
                    x[k] += v[*j] * c[k];
                }
            }
        }
        x
    }
    fn dot<D: DualNum<Primitive = f64> + Copy>(&self, a: &[D; 3], b: &[D; 3]) -> D {
        let mut s = D::from(0.0);
        for k in 0..self.dim {
            s += a[k] * b[k];
        }
        s
    }
    fn grav<D: DualNum<Primitive = f64> + Copy>(&self, x: &[D; 3], m: f64) -> D {
        let mut s = D::from(0.0);
        for k in 0..self.dim {
            s -= x[k] * (m * self.gravity[k]);
        }
        s
    }
}

fn sub<D: DualNum<Primitive = f64> + Copy>(a: &[D; 3], b: &[D; 3]) -> [D; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

impl<const N: usize> Term<N> for Element<N> {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        match &self.kind {
            Kind::Particle { m } => {
                let u = self.vel(0, v);
                self.dot(&u, &u) * (0.5 * m)
            }
            Kind::Spring { m, .. } if *m != 0.0 => {
                let (y, z) = (self.vel(0, v), self.vel(1, v));
                (self.dot(&y, &y) + self.dot(&y, &z) + self.dot(&z, &z)) * (m / 6.0)
            }
            Kind::Rigid {
                m,
                inertia,
                centroid,
                len,
            } => {
                let (v0, v1) = (self.vel(0, v), self.vel(1, v));
                let du = sub(&v1, &v0).map(|x| x * (1.0 / len));
                let perp = [-du[1], du[0], D::from(0.0)];
                let vg: [D; 3] =
                    std::array::from_fn(|k| v0[k] + du[k] * centroid[0] + perp[k] * centroid[1]);
                self.dot(&vg, &vg) * (0.5 * m) + self.dot(&du, &du) * (0.5 * inertia)
            }
            _ => D::from(0.0),
        }
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, N>) -> D {
        match &self.kind {
            Kind::Particle { m } => self.grav(&self.pos(0, q), *m),
            Kind::Spring { k, l0, m, .. } => {
                let (y, z) = (self.pos(0, q), self.pos(1, q));
                let mut e = D::from(0.0);
                if *m != 0.0 {
                    let mid: [D; 3] = std::array::from_fn(|i| (y[i] + z[i]) * 0.5);
                    e += self.grav(&mid, *m);
                }
                if *k != 0.0 {
                    let d = sub(&z, &y);
                    let s = self.dot(&d, &d).sqrt() - *l0;
                    e += s * s * (0.5 * k);
                }
                e
            }
            Kind::Rigid {
                m, centroid, len, ..
            } => {
                let (p0, p1) = (self.pos(0, q), self.pos(1, q));
                let u = sub(&p1, &p0).map(|x| x * (1.0 / len));
                let g: [D; 3] = std::array::from_fn(|k| {
                    let perp = if k == 0 {
                        -u[1]
                    } else if k == 1 {
                        u[0]
                    } else {
                        D::from(0.0)
                    };
                    p0[k] + u[k] * centroid[0] + perp * centroid[1]
                });
                self.grav(&g, *m)
            }
            _ => D::from(0.0),
        }
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        match &self.kind {
            Kind::Spring { c, .. } if *c != 0.0 => {
                let d = sub(&self.pos(1, q), &self.pos(0, q));
                let dv = sub(&self.vel(1, v), &self.vel(0, v));
                let p = self.dot(&d, &dv);
                p * p / self.dot(&d, &d) * (0.5 * c)
            }
            _ => D::from(0.0),
        }
    }
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        _v: &SVector<D, N>,
    ) -> SVector<D, N> {
        let mut out = SVector::<D, N>::from_element(D::from(0.0));
        match &self.kind {
            Kind::Force { f, scope } => {
                let fv: Vec<f64> = f
                    .iter()
                    .map(|e| e.eval(scope, t.re()).unwrap_or(f64::NAN))
                    .collect();
                for (j, a) in &self.pts[0].a {
                    for k in 0..self.dim {
                        out[*j] += D::from(a[k] * fv[k]);
                    }
                }
            }
            Kind::Torque { tau, scope, len } => {
                let tv = tau.eval(scope, t.re()).unwrap_or(f64::NAN) / (len * len);
                let d = sub(&self.pos(1, q), &self.pos(0, q));
                let rd = [-d[1], d[0]];
                for (s, p) in [(1.0, 1), (-1.0, 0)] {
                    for (j, a) in &self.pts[p].a {
                        out[*j] += (rd[0] * a[0] + rd[1] * a[1]) * (s * tv);
                    }
                }
            }
            _ => {}
        }
        out
    }
    fn has_dissipation_or_force(&self) -> bool {
        match &self.kind {
            Kind::Force { .. } | Kind::Torque { .. } => true,
            Kind::Spring { c, .. } => *c != 0.0,
            _ => false,
        }
    }
}

/// Distance constraint `C = ½(|P₁ − P₀|² − ℓ²)` between points 0 and 1 (bars, body rigidity).
#[derive(Clone, Debug)]
pub struct BarConstraint<const N: usize> {
    /// The two points.
    pub el: Element<N>,
    /// Length.
    pub len: f64,
}

impl<const N: usize> Constraint<N, 1> for BarConstraint<N> {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, N>,
    ) -> SVector<D, 1> {
        let d = sub(&self.el.pos(1, q), &self.el.pos(0, q));
        SVector::from([(self.el.dot(&d, &d) - self.len * self.len) * 0.5])
    }
}
