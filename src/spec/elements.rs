//! Elements of mechanism files on points that are affine functions of the coordinates,
//! `P(q) = c + A q` (free and fixed points, points of planar rigid bodies), or expressions of
//! them ([`VExpr`]: `Define` items, points of 3D bodies). Every element is a [`Term`] or
//! [`Constraint`] differentiated by AD.

use crate::expr::VExpr;
pub use crate::model::geometry::{Affine, PointMap};
use crate::model::{Constraint, Term};
use nalgebra::SVector;
use num_dual::DualNum;
use std::collections::BTreeSet;

/// A point on an element's local coordinates.
#[derive(Clone, Debug)]
pub enum LocalPoint {
    /// `c + Σ a_j q_j`.
    Affine {
        /// Constant part.
        c: [f64; 3],
        /// Coefficients by local coordinate.
        a: Vec<(usize, [f64; 3])>,
    },
    /// An expression on the local coordinates.
    Expr(VExpr),
}

/// Local coordinate list of a set of points, and the points on it.
pub fn localize(points: &[&PointMap]) -> (Vec<usize>, Vec<LocalPoint>) {
    let mut set = BTreeSet::new();
    for p in points {
        set.extend(p.coords());
    }
    let idx: Vec<usize> = set.into_iter().collect();
    let local = points
        .iter()
        .map(|p| match p {
            PointMap::Affine(p) => LocalPoint::Affine {
                c: p.c,
                a: p.a
                    .iter()
                    .map(|(j, v)| (idx.binary_search(j).expect("present"), *v))
                    .collect(),
            },
            PointMap::Expr(e) => {
                LocalPoint::Expr(e.remap(&|j| idx.binary_search(&j).expect("present")))
            }
            PointMap::Custom(_) => {
                unreachable!("mechanism files build affine and expression points only")
            }
        })
        .collect();
    (idx, local)
}

/// The moving frame of a 3D body tracked by three basic items `[A, B, C]` (John–Ned natural
/// coordinates, seed 003): `A` is a point, `B` and `C` points or vectors, in the local frame
/// `A = 0`, `B = (b, 0, 0)`, `C = (c₁, c₂, 0)` with `b, c₂ > 0`. With `B̃ = B − A` (or `B` for a
/// vector) and `C̃` likewise, `i = B̃/b`, `j = (C̃ − c₁ i)/c₂`, `k = i × j`, `Q = [i, j, k]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Whether `B` is a point (else a vector).
    pub b_point: bool,
    /// Whether `C` is a point (else a vector).
    pub c_point: bool,
    /// Local `B = (b, 0, 0)`.
    pub b: f64,
    /// Local `C = (c₁, c₂, 0)`.
    pub c: [f64; 2],
}

impl Frame {
    /// `[i, j]` from the world positions of the basic items (`k = i × j`). The map is linear,
    /// so applied to the items' velocities or partial derivatives it gives `[i̇, j̇]` or `[∂i, ∂j]`.
    pub fn columns<D: DualNum<Primitive = f64> + Copy>(&self, x: &[[D; 3]; 3]) -> [[D; 3]; 2] {
        let [a, b, c] = x;
        let (wb, wc) = (
            if self.b_point { 1.0 } else { 0.0 },
            if self.c_point { 1.0 } else { 0.0 },
        );
        let i: [D; 3] = std::array::from_fn(|k| (b[k] - a[k] * wb) * (1.0 / self.b));
        let j: [D; 3] =
            std::array::from_fn(|k| (c[k] - a[k] * wc - i[k] * self.c[0]) * (1.0 / self.c[1]));
        [i, j]
    }
}

fn cross<D: DualNum<Primitive = f64> + Copy>(x: &[D; 3], y: &[D; 3]) -> [D; 3] {
    [
        x[1] * y[2] - x[2] * y[1],
        x[2] * y[0] - x[0] * y[2],
        x[0] * y[1] - x[1] * y[0],
    ]
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
    /// 3D rigid body on basic items 0, 1, 2 ([`Frame`]): with `G = A + Q c`,
    /// `T = ½ m |Ġ|² + ½ Σ_ab J_ab q̇_a·q̇_b` (`J = ½ tr(I_G) 𝟙 − I_G`, the second moment about
    /// the centroid in the local frame, `q_a` the columns of `Q`), `V = −m g·G`.
    Rigid3 {
        /// Mass.
        m: f64,
        /// Centroid `c` in the local frame.
        centroid: [f64; 3],
        /// Second moment `J` about the centroid, local frame.
        second_moment: [[f64; 3]; 3],
        /// The frame.
        frame: Frame,
    },
    /// Force `F(t)` applied at point 0.
    Force {
        /// Components (expressions in `t`).
        f: Vec<VExpr>,
    },
    /// Torque `τ(t)` on a planar body with basic points 0 and 1 (a couple `±τ/ℓ u⊥`).
    Torque {
        /// Torque (an expression in `t`).
        tau: VExpr,
        /// Body length.
        len: f64,
    },
    /// Torque vector `τ(t)` (world frame) on a 3D body with basic items 0, 1, 2: the
    /// generalized force `Q_j = ½ Σ_a (τ × q_a)·∂q_a/∂q_j` (virtual work `τ·δθ` with
    /// `δθ = ½ Σ_a q_a × δq_a`).
    Torque3 {
        /// Components (expressions in `t`).
        tau: Vec<VExpr>,
        /// The body's frame.
        frame: Frame,
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
    fn pos<D: DualNum<Primitive = f64> + Copy>(&self, p: usize, q: &SVector<D, N>, t: D) -> [D; 3] {
        match &self.pts[p] {
            LocalPoint::Affine { c, a } => {
                let mut x = [D::from(c[0]), D::from(c[1]), D::from(c[2])];
                for (j, v) in a {
                    for k in 0..self.dim {
                        if v[k] != 0.0 {
                            x[k] += q[*j] * v[k];
                        }
                    }
                }
                x
            }
            LocalPoint::Expr(e) => e.eval_vector(&|j| q[j], t),
        }
    }
    /// `∂x/∂q · dq + ∂x/∂t · dt`.
    fn tangent<D: DualNum<Primitive = f64> + Copy>(
        &self,
        p: usize,
        q: &SVector<D, N>,
        dq: &dyn Fn(usize) -> D,
        t: D,
        dt: D,
    ) -> [D; 3] {
        match &self.pts[p] {
            LocalPoint::Affine { a, .. } => {
                let z = D::from(0.0);
                let mut x = [z, z, z];
                for (j, c) in a {
                    let d = dq(*j);
                    for k in 0..self.dim {
                        if c[k] != 0.0 {
                            x[k] += d * c[k];
                        }
                    }
                }
                x
            }
            LocalPoint::Expr(e) => e.tangent(&|j| q[j], dq, t, dt),
        }
    }
    fn vel<D: DualNum<Primitive = f64> + Copy>(
        &self,
        p: usize,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
        t: D,
    ) -> [D; 3] {
        self.tangent(p, q, &|j| v[j], t, D::from(1.0))
    }
    /// Position and velocity of point `p` (one evaluation for an expression point).
    fn pos_vel<D: DualNum<Primitive = f64> + Copy>(
        &self,
        p: usize,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
        t: D,
    ) -> ([D; 3], [D; 3]) {
        match &self.pts[p] {
            LocalPoint::Affine { .. } => (self.pos(p, q, t), self.vel(p, q, v, t)),
            LocalPoint::Expr(e) => e.value_and_tangent(&|j| q[j], &|j| v[j], t, D::from(1.0)),
        }
    }
    /// `∂x_p/∂q_j`.
    fn partial<D: DualNum<Primitive = f64> + Copy>(
        &self,
        p: usize,
        q: &SVector<D, N>,
        j: usize,
        t: D,
    ) -> [D; 3] {
        let unit = |l: usize| D::from(if l == j { 1.0 } else { 0.0 });
        self.tangent(p, q, &unit, t, D::from(0.0))
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

/// Value of a load expression in `t` alone (no coordinates).
fn of_time(e: &VExpr, t: f64) -> f64 {
    e.eval_scalar::<f64>(&|_| f64::NAN, t)
}

fn sub<D: DualNum<Primitive = f64> + Copy>(a: &[D; 3], b: &[D; 3]) -> [D; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

impl<const N: usize> Term<N> for Element<N> {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        match &self.kind {
            Kind::Particle { m } => {
                let u = self.vel(0, q, v, t);
                self.dot(&u, &u) * (0.5 * m)
            }
            Kind::Spring { m, .. } if *m != 0.0 => {
                let (y, z) = (self.vel(0, q, v, t), self.vel(1, q, v, t));
                (self.dot(&y, &y) + self.dot(&y, &z) + self.dot(&z, &z)) * (m / 6.0)
            }
            Kind::Rigid {
                m,
                inertia,
                centroid,
                len,
            } => {
                let (v0, v1) = (self.vel(0, q, v, t), self.vel(1, q, v, t));
                let du = sub(&v1, &v0).map(|x| x * (1.0 / len));
                let perp = [-du[1], du[0], D::from(0.0)];
                let vg: [D; 3] =
                    std::array::from_fn(|k| v0[k] + du[k] * centroid[0] + perp[k] * centroid[1]);
                self.dot(&vg, &vg) * (0.5 * m) + self.dot(&du, &du) * (0.5 * inertia)
            }
            Kind::Rigid3 {
                m,
                centroid,
                second_moment,
                frame,
            } => {
                let [(x0, v0), (x1, v1), (x2, v2)] = [0, 1, 2].map(|p| self.pos_vel(p, q, v, t));
                let (x, xd) = ([x0, x1, x2], [v0, v1, v2]);
                let [i, j] = frame.columns(&x);
                let [di, dj] = frame.columns(&xd);
                let (a, b) = (cross(&di, &j), cross(&i, &dj));
                let dk: [D; 3] = std::array::from_fn(|k| a[k] + b[k]);
                let dq = [di, dj, dk];
                let vg: [D; 3] = std::array::from_fn(|k| {
                    xd[0][k]
                        + dq[0][k] * centroid[0]
                        + dq[1][k] * centroid[1]
                        + dq[2][k] * centroid[2]
                });
                let mut rot = D::from(0.0);
                for (r, row) in second_moment.iter().enumerate() {
                    for (c, &jrc) in row.iter().enumerate() {
                        if jrc != 0.0 {
                            rot += self.dot(&dq[r], &dq[c]) * jrc;
                        }
                    }
                }
                (self.dot(&vg, &vg) * *m + rot) * 0.5
            }
            _ => D::from(0.0),
        }
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, N>) -> D {
        match &self.kind {
            Kind::Particle { m } => self.grav(&self.pos(0, q, t), *m),
            Kind::Spring { k, l0, m, .. } => {
                let (y, z) = (self.pos(0, q, t), self.pos(1, q, t));
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
                let (p0, p1) = (self.pos(0, q, t), self.pos(1, q, t));
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
            Kind::Rigid3 {
                m, centroid, frame, ..
            } => {
                let x = [0, 1, 2].map(|p| self.pos(p, q, t));
                let [i, j] = frame.columns(&x);
                let k = cross(&i, &j);
                let g: [D; 3] = std::array::from_fn(|r| {
                    x[0][r] + i[r] * centroid[0] + j[r] * centroid[1] + k[r] * centroid[2]
                });
                self.grav(&g, *m)
            }
            _ => D::from(0.0),
        }
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        match &self.kind {
            Kind::Spring { c, .. } if *c != 0.0 => {
                let ((x0, v0), (x1, v1)) = (self.pos_vel(0, q, v, t), self.pos_vel(1, q, v, t));
                let (d, dv) = (sub(&x1, &x0), sub(&v1, &v0));
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
            Kind::Force { f } => {
                let mut fv = [0.0; 3];
                for (k, e) in f.iter().enumerate().take(3) {
                    fv[k] = of_time(e, t.re());
                }
                match &self.pts[0] {
                    LocalPoint::Affine { a, .. } => {
                        for (j, a) in a {
                            for k in 0..self.dim {
                                out[*j] += D::from(a[k] * fv[k]);
                            }
                        }
                    }
                    LocalPoint::Expr(_) => {
                        let fd = fv.map(D::from);
                        for j in 0..N {
                            out[j] = self.dot(&fd, &self.partial(0, q, j, t));
                        }
                    }
                }
            }
            Kind::Torque { tau, len } => {
                let tv = of_time(tau, t.re()) / (len * len);
                let d = sub(&self.pos(1, q, t), &self.pos(0, q, t));
                let rd = [-d[1], d[0]];
                for (s, p) in [(1.0, 1), (-1.0, 0)] {
                    if let LocalPoint::Affine { a, .. } = &self.pts[p] {
                        for (j, a) in a {
                            out[*j] += (rd[0] * a[0] + rd[1] * a[1]) * (s * tv);
                        }
                    }
                }
            }
            Kind::Torque3 { tau, frame } => {
                let mut tv = [D::from(0.0); 3];
                for (k, e) in tau.iter().enumerate().take(3) {
                    tv[k] = D::from(of_time(e, t.re()));
                }
                let x = [0, 1, 2].map(|p| self.pos(p, q, t));
                let [i, j] = frame.columns(&x);
                let k = cross(&i, &j);
                let arms = [cross(&tv, &i), cross(&tv, &j), cross(&tv, &k)];
                for (l, o) in out.iter_mut().enumerate() {
                    let dx = [0, 1, 2].map(|p| self.partial(p, q, l, t));
                    let [di, dj] = frame.columns(&dx);
                    let (a, b) = (cross(&di, &j), cross(&i, &dj));
                    let dk: [D; 3] = std::array::from_fn(|r| a[r] + b[r]);
                    *o = (self.dot(&arms[0], &di)
                        + self.dot(&arms[1], &dj)
                        + self.dot(&arms[2], &dk))
                        * 0.5;
                }
            }
            _ => {}
        }
        out
    }
    fn has_dissipation_or_force(&self) -> bool {
        match &self.kind {
            Kind::Force { .. } | Kind::Torque { .. } | Kind::Torque3 { .. } => true,
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
        t: D,
        q: &SVector<D, N>,
    ) -> SVector<D, 1> {
        let d = sub(&self.el.pos(1, q, t), &self.el.pos(0, q, t));
        SVector::from([(self.el.dot(&d, &d) - self.len * self.len) * 0.5])
    }
}

/// A constraint written as a scalar expression, `C(t, q) = 0` (`Equations`, 3D body rigidity).
#[derive(Clone, Debug)]
pub struct EquationConstraint<const N: usize> {
    /// The expression on the local coordinates.
    pub expr: VExpr,
}

impl<const N: usize> Constraint<N, 1> for EquationConstraint<N> {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
    ) -> SVector<D, 1> {
        SVector::from([self.expr.eval_scalar(&|j| q[j], t)])
    }
}
