//! The recursive algorithms on a [`Tree`] (Featherstone, ch. 5–7): forward kinematics, the
//! recursive Newton–Euler algorithm (RNEA: `τ = M(q) q̈ + b(q, q̇)` in `O(n)`), the composite
//! rigid bodies (CRBA: `M(q)`), the articulated bodies (ABA: `q̈` in `O(n)`) and the energies.
//! Each a forward pass from the root and, where forces are summed, a backward pass; every one
//! generic over the number type, so their derivatives come from running them on dual numbers.

use super::joint::{MAX_COORDS, Subspace};
use super::spatial::{Force, Inertia, Motion, Pose, Real, cross, dot, lift, mul, mul_t};
use super::tree::Tree;

/// Scratch of one evaluation, sized for a tree once (nothing allocates in the recursions).
#[derive(Clone, Debug)]
pub struct Workspace<D> {
    /// Each link's frame in its parent's.
    pub(crate) pose: Vec<Pose<D>>,
    /// Each joint's child frame in its parent frame (`C` in `P`).
    pub(crate) joint: Vec<Pose<D>>,
    /// Each link's frame in the world (forward kinematics).
    pub(crate) world: Vec<Pose<D>>,
    pub(crate) vel: Vec<Motion<D>>,
    pub(crate) acc: Vec<Motion<D>>,
    pub(crate) force: Vec<Force<D>>,
    pub(crate) sub: Vec<Subspace<D>>,
    pub(crate) composite: Vec<Inertia<D>>,
}

impl<D: Real> Workspace<D> {
    /// The scratch for `tree`.
    pub fn new(tree: &Tree) -> Self {
        let n = tree.links.len();
        Workspace {
            pose: vec![Pose::identity(); n],
            joint: vec![Pose::identity(); n],
            world: vec![Pose::identity(); n],
            vel: vec![Motion::zero(); n],
            acc: vec![Motion::zero(); n],
            force: vec![Force::zero(); n],
            sub: vec![[Motion::zero(); MAX_COORDS]; n],
            composite: vec![Inertia::zero(); n],
        }
    }
}

impl Tree {
    /// Each link's pose in its parent's and its motion subspace at `q` (into `ws`).
    fn place<D: Real>(&self, ws: &mut Workspace<D>, q: &[D]) {
        for (i, l) in self.links.iter().enumerate() {
            let qi = &q[l.coordinates()];
            let joint = l.kind.pose(qi);
            ws.sub[i] = l.kind.subspace(qi, &joint);
            ws.pose[i] = Pose::after_const(&l.tree_pose, &joint);
            ws.joint[i] = joint;
        }
    }

    /// Forward kinematics: each link frame in the world at `q` (into `ws`; read with
    /// [`Tree::body_pose`]).
    pub fn kinematics<D: Real>(&self, ws: &mut Workspace<D>, q: &[D]) {
        self.place(ws, q);
        for (i, l) in self.links.iter().enumerate() {
            ws.world[i] = match l.parent {
                None => ws.pose[i],
                Some(p) => ws.world[p].then(&ws.pose[i]),
            };
        }
    }

    /// The world position and velocity of the point `local` of link `i`'s body (in the
    /// body's frame) at `(q, q̇)` — for pictures and columns (allocates).
    pub fn body_point(
        &self,
        i: usize,
        local: [f64; 3],
        q: &[f64],
        qd: &[f64],
    ) -> ([f64; 3], [f64; 3]) {
        use num_dual::Dual64;
        let mut ws = Workspace::<Dual64>::new(self);
        let qq: Vec<Dual64> = q.iter().zip(qd).map(|(&x, &v)| Dual64::new(x, v)).collect();
        self.kinematics(&mut ws, &qq);
        let x = self.body_pose(&ws, i).point(local.map(Dual64::from));
        (x.map(|d| d.re), x.map(|d| d.eps))
    }
    /// The world velocity of link `i`'s body-frame origin and the body's world angular
    /// velocity at `(q, q̇)` (`ω× = Ṙ Rᵀ`) — for starting values (allocates).
    pub fn body_velocity(&self, i: usize, q: &[f64], qd: &[f64]) -> ([f64; 3], [f64; 3]) {
        use num_dual::Dual64;
        let mut ws = Workspace::<Dual64>::new(self);
        let qq: Vec<Dual64> = q.iter().zip(qd).map(|(&x, &v)| Dual64::new(x, v)).collect();
        self.kinematics(&mut ws, &qq);
        let x = self.body_pose(&ws, i);
        let (r, rd) = (
            x.r.map(|row| row.map(|d| d.re)),
            x.r.map(|row| row.map(|d| d.eps)),
        );
        // (Ṙ Rᵀ)_ab = Σ_c Ṙ_ac R_bc
        let w = |a: usize, b: usize| (0..3).map(|c| rd[a][c] * r[b][c]).sum::<f64>();
        (x.p.map(|d| d.eps), [w(2, 1), w(0, 2), w(1, 0)])
    }
    /// The tree's total linear momentum `P = Σ m v_c` and angular momentum about the world
    /// origin `L = Σ (c × m v_c + R I_c Rᵀ ω)` at `(q, q̇)` (allocates).
    pub fn momenta(&self, q: &[f64], qd: &[f64]) -> ([f64; 3], [f64; 3]) {
        use num_dual::Dual64;
        let mut ws = Workspace::<Dual64>::new(self);
        let qq: Vec<Dual64> = q.iter().zip(qd).map(|(&x, &v)| Dual64::new(x, v)).collect();
        self.kinematics(&mut ws, &qq);
        let (mut lin, mut ang) = ([0.0; 3], [0.0; 3]);
        for (i, l) in self.links.iter().enumerate() {
            let x = self.body_pose(&ws, i);
            let c = x.point_const(l.body.com);
            let (cw, vc) = (c.map(|d| d.re), c.map(|d| d.eps));
            let (r, rd) = (
                x.r.map(|row| row.map(|d| d.re)),
                x.r.map(|row| row.map(|d| d.eps)),
            );
            let w = |a: usize, b: usize| (0..3).map(|k| rd[a][k] * r[b][k]).sum::<f64>();
            let omega = [w(2, 1), w(0, 2), w(1, 0)];
            // R I Rᵀ ω
            let body_w = mul_t(&r, omega);
            let spin = mul(&r, mul(&l.body.inertia, body_w));
            let m = l.body.mass;
            let own = cross(cw, vc.map(|v| m * v));
            for k in 0..3 {
                lin[k] += m * vc[k];
                ang[k] += own[k] + spin[k];
            }
        }
        (lin, ang)
    }
    /// The pose of link `i`'s body frame in the world after [`Tree::kinematics`].
    pub fn body_pose<D: Real>(&self, ws: &Workspace<D>, i: usize) -> Pose<D> {
        ws.world[i].then(&Pose::lift(&self.links[i].body_in_link))
    }

    /// The joint forces `τ = M(q) q̈ + b(q, q̇)` — the recursive Newton–Euler algorithm:
    /// velocities and accelerations from the root (`a₀ = −g`, gravity as the base's
    /// acceleration), `f_i = I_i a_i + v_i ×* I_i v_i`, summed to the root, `τ_i = S_iᵀ f_i`.
    /// `τ` is the Euler–Lagrange residual `d/dt ∂L/∂q̇ − ∂L/∂q` of the tree's Lagrangian
    /// `L = Σ ½ v_iᵀ I_i v_i + Σ m_i g·c_i`, exactly, quaternion coordinates included.
    pub fn rnea<D: Real>(
        &self,
        ws: &mut Workspace<D>,
        q: &[D],
        qd: &[D],
        qdd: &[D],
        tau: &mut [D],
    ) {
        self.place(ws, q);
        let base = Motion {
            w: [D::from(0.0); 3],
            v: lift(self.gravity.map(|g| -g)),
        };
        for (i, l) in self.links.iter().enumerate() {
            let r = l.coordinates();
            let (qi, qdi, qddi) = (&q[r.clone()], &qd[r.clone()], &qdd[r.clone()]);
            let (vj, cj) = l.kind.velocity_bias(qi, qdi, &ws.joint[i]);
            let x = &ws.pose[i];
            let (vp, ap) = match l.parent {
                None => (Motion::zero(), base),
                Some(p) => (ws.vel[p], ws.acc[p]),
            };
            let v = x.motion_in(vp) + vj;
            let mut a = x.motion_in(ap) + cj + v.cross(vj);
            for (k, s) in ws.sub[i][..r.len()].iter().enumerate() {
                a = a + s.scale(qddi[k]);
            }
            let inertia = Inertia::lift(&l.inertia);
            ws.force[i] = inertia.apply(a) + v.cross_force(inertia.apply(v));
            ws.vel[i] = v;
            ws.acc[i] = a;
        }
        for (i, l) in self.links.iter().enumerate().rev() {
            let f = ws.force[i];
            for (k, s) in ws.sub[i][..l.kind.n_coords()].iter().enumerate() {
                tau[l.offset + k] = s.dot(f);
            }
            if let Some(p) = l.parent {
                let fp = ws.pose[i].force_out(f);
                ws.force[p] = ws.force[p] + fp;
            }
        }
    }

    /// The mass matrix `M(q)` by composite rigid bodies, into `m` (`n × n`, row-major): each
    /// link's subtree inertia `I^c_i`, then `M_ij = S_iᵀ X I^c_j S_j` along the path to the root.
    pub fn crba<D: Real>(&self, ws: &mut Workspace<D>, q: &[D], m: &mut [D]) {
        let n = self.n;
        self.place(ws, q);
        m.iter_mut().for_each(|x| *x = D::from(0.0));
        for (i, l) in self.links.iter().enumerate() {
            ws.composite[i] = Inertia::lift(&l.inertia);
        }
        for (i, l) in self.links.iter().enumerate().rev() {
            if let Some(p) = l.parent {
                let moved = ws.composite[i].out(&ws.pose[i]);
                ws.composite[p] = ws.composite[p].add(&moved);
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            for k in 0..l.kind.n_coords() {
                let col = l.offset + k;
                let mut f = ws.composite[i].apply(ws.sub[i][k]);
                for (j, s) in ws.sub[i][..l.kind.n_coords()].iter().enumerate() {
                    m[(l.offset + j) * n + col] = s.dot(f);
                }
                let mut at = i;
                while let Some(p) = self.links[at].parent {
                    f = ws.pose[at].force_out(f);
                    at = p;
                    let lp = &self.links[p];
                    for (j, s) in ws.sub[p][..lp.kind.n_coords()].iter().enumerate() {
                        let row = lp.offset + j;
                        let x = s.dot(f);
                        m[row * n + col] = x;
                        m[col * n + row] = x;
                    }
                }
            }
        }
    }

    /// The kinetic energy `T = Σ ½ v_iᵀ I_i v_i` (each link's velocity from the root).
    pub fn kinetic<D: Real>(&self, ws: &mut Workspace<D>, q: &[D], qd: &[D]) -> D {
        self.place(ws, q);
        let mut t = D::from(0.0);
        for (i, l) in self.links.iter().enumerate() {
            let r = l.coordinates();
            let (vj, _) = l.kind.velocity_bias(&q[r.clone()], &qd[r], &ws.joint[i]);
            let v = match l.parent {
                None => vj,
                Some(p) => ws.pose[i].motion_in(ws.vel[p]) + vj,
            };
            ws.vel[i] = v;
            t += Inertia::lift(&l.inertia).energy(v);
        }
        t
    }

    /// The potential energy of gravity `V = −Σ m_i g·c_i` (`c_i` the centre of mass in the
    /// world).
    pub fn potential<D: Real>(&self, ws: &mut Workspace<D>, q: &[D]) -> D {
        self.kinematics(ws, q);
        let g = lift(self.gravity);
        let mut v = D::from(0.0);
        for (i, l) in self.links.iter().enumerate() {
            let w = &ws.world[i];
            // m c in the world: R h + m p
            let h = l.inertia.h.map(D::from);
            let mc: [D; 3] = std::array::from_fn(|k| dot(w.r[k], h) + w.p[k] * l.inertia.m);
            v -= dot(g, mc);
        }
        v
    }
}

/// A 6×6 matrix acting on motions `(ω, v)` and giving forces `(n, f)`: an articulated-body
/// inertia.
type M6 = [[f64; 6]; 6];

fn m6_apply(i: &M6, m: Motion<f64>) -> Force<f64> {
    let x = [m.w[0], m.w[1], m.w[2], m.v[0], m.v[1], m.v[2]];
    let r = |k: usize| (0..6).map(|l| i[k][l] * x[l]).sum::<f64>();
    Force {
        n: [r(0), r(1), r(2)],
        f: [r(3), r(4), r(5)],
    }
}

/// A rigid body's inertia as a 6×6 matrix `[[I_O, [h]×], [[h]×ᵀ, m𝟙]]`.
fn m6_from(b: &Inertia<f64>) -> M6 {
    let mut i = [[0.0; 6]; 6];
    let h = b.h;
    let hx = [[0.0, -h[2], h[1]], [h[2], 0.0, -h[0]], [-h[1], h[0], 0.0]];
    for r in 0..3 {
        for c in 0..3 {
            i[r][c] = b.i[r][c];
            i[r][c + 3] = hx[r][c];
            i[r + 3][c] = hx[c][r];
        }
        i[r + 3][r + 3] = b.m;
    }
    i
}

/// `Xᵀ I X`: an inertia given in a link's frame expressed in its parent's (`pose`: the link
/// in the parent), column by column.
fn m6_out(i: &M6, pose: &Pose<f64>) -> M6 {
    let mut out = [[0.0; 6]; 6];
    for k in 0..6 {
        let mut e = Motion::zero();
        match k {
            0..3 => e.w[k] = 1.0,
            _ => e.v[k - 3] = 1.0,
        }
        let f = pose.force_out(m6_apply(i, pose.motion_in(e)));
        let col = [f.n[0], f.n[1], f.n[2], f.f[0], f.f[1], f.f[2]];
        for r in 0..6 {
            out[r][k] = col[r];
        }
    }
    out
}

fn force_vec(f: Force<f64>) -> [f64; 6] {
    [f.n[0], f.n[1], f.n[2], f.f[0], f.f[1], f.f[2]]
}

/// Scratch of the articulated-body algorithm, sized for a tree once.
#[derive(Clone, Debug)]
pub struct Articulated {
    ws: Workspace<f64>,
    /// Articulated inertias `I^A`.
    ia: Vec<M6>,
    /// Articulated bias forces `p^A`.
    pa: Vec<Force<f64>>,
    /// `U = I^A S`, a force per coordinate.
    u_cols: Vec<[Force<f64>; MAX_COORDS]>,
    /// `D⁻¹ = (Sᵀ U)⁻¹`.
    dinv: Vec<[[f64; MAX_COORDS]; MAX_COORDS]>,
    /// `u = τ − Sᵀ p^A`.
    u: Vec<[f64; MAX_COORDS]>,
    /// The velocity-product accelerations `c_i = c_J + v_i × v_J`.
    c: Vec<Motion<f64>>,
}

impl Articulated {
    /// The scratch for `tree`.
    pub fn new(tree: &Tree) -> Self {
        let n = tree.links.len();
        Articulated {
            ws: Workspace::new(tree),
            ia: vec![[[0.0; 6]; 6]; n],
            pa: vec![Force::zero(); n],
            u_cols: vec![[Force::zero(); MAX_COORDS]; n],
            dinv: vec![[[0.0; MAX_COORDS]; MAX_COORDS]; n],
            u: vec![[0.0; MAX_COORDS]; n],
            c: vec![Motion::zero(); n],
        }
    }
}

/// `D⁻¹` of a small symmetric positive definite `D` (the first `k` rows) by Gauss–Jordan
/// elimination; `None` when a pivot is not positive (relative to `D`'s size).
fn spd_inverse(
    d: &[[f64; MAX_COORDS]; MAX_COORDS],
    k: usize,
) -> Option<[[f64; MAX_COORDS]; MAX_COORDS]> {
    let mut a = *d;
    let mut inv = [[0.0; MAX_COORDS]; MAX_COORDS];
    for (r, row) in inv.iter_mut().enumerate().take(k) {
        row[r] = 1.0;
    }
    let size = (0..k).fold(0.0f64, |m, r| m.max(d[r][r].abs()));
    for p in 0..k {
        let piv = a[p][p];
        if !(piv > 1e-13 * size) || !piv.is_finite() {
            return None;
        }
        for c in 0..k {
            a[p][c] /= piv;
            inv[p][c] /= piv;
        }
        for r in 0..k {
            if r != p {
                let f = a[r][p];
                for c in 0..k {
                    a[r][c] -= f * a[p][c];
                    inv[r][c] -= f * inv[p][c];
                }
            }
        }
    }
    Some(inv)
}

impl Tree {
    /// Forward dynamics by articulated bodies: `q̈ = M(q)⁻¹ (τ − b(q, q̇))` in `O(n)` — the
    /// joint forces `τ` given, gravity included when `gravity` (without it and with `q̇ = 0`,
    /// `q̈ = M⁻¹ τ`). `Err(i)`: link `i`'s joint has a singular articulated inertia (a body
    /// that cannot be accelerated along a coordinate: no mass or inertia where the joint moves
    /// it). Trees with quaternion coordinates (spherical, free joints) are for the constrained
    /// path (`Err` with the first such link): `M` is singular along each quaternion.
    pub fn aba(
        &self,
        s: &mut Articulated,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
        gravity: bool,
        qdd: &mut [f64],
    ) -> Result<(), usize> {
        if let Some(i) = self
            .links
            .iter()
            .position(|l| l.kind.quaternion().is_some())
        {
            return Err(i);
        }
        self.place(&mut s.ws, q);
        let ws = &mut s.ws;
        for (i, l) in self.links.iter().enumerate() {
            let r = l.coordinates();
            let (vj, cj) = l.kind.velocity_bias(&q[r.clone()], &qd[r], &ws.joint[i]);
            let v = match l.parent {
                None => vj,
                Some(p) => ws.pose[i].motion_in(ws.vel[p]) + vj,
            };
            ws.vel[i] = v;
            s.c[i] = cj + v.cross(vj);
            s.ia[i] = m6_from(&l.inertia);
            s.pa[i] = v.cross_force(l.inertia.apply(v));
        }
        for (i, l) in self.links.iter().enumerate().rev() {
            let k = l.kind.n_coords();
            let sub = &ws.sub[i];
            let mut d = [[0.0; MAX_COORDS]; MAX_COORDS];
            for a in 0..k {
                s.u_cols[i][a] = m6_apply(&s.ia[i], sub[a]);
                for b in 0..k {
                    d[b][a] = sub[b].dot(s.u_cols[i][a]);
                }
                s.u[i][a] = tau[l.offset + a] - sub[a].dot(s.pa[i]);
            }
            s.dinv[i] = spd_inverse(&d, k).ok_or(i)?;
            let Some(p) = l.parent else { continue };
            // I^a = I^A − U D⁻¹ Uᵀ, p^a = p^A + I^a c + U D⁻¹ u
            let mut ia = s.ia[i];
            let mut pa = s.pa[i];
            for a in 0..k {
                let ua = force_vec(s.u_cols[i][a]);
                let mut w = 0.0;
                for b in 0..k {
                    let ub = force_vec(s.u_cols[i][b]);
                    let dab = s.dinv[i][a][b];
                    w += dab * s.u[i][b];
                    for r in 0..6 {
                        for c in 0..6 {
                            ia[r][c] -= ua[r] * dab * ub[c];
                        }
                    }
                }
                pa = pa
                    + Force {
                        n: [ua[0] * w, ua[1] * w, ua[2] * w],
                        f: [ua[3] * w, ua[4] * w, ua[5] * w],
                    };
            }
            pa = pa + m6_apply(&ia, s.c[i]);
            let moved = m6_out(&ia, &ws.pose[i]);
            for r in 0..6 {
                for c in 0..6 {
                    s.ia[p][r][c] += moved[r][c];
                }
            }
            s.pa[p] = s.pa[p] + ws.pose[i].force_out(pa);
        }
        let base = Motion {
            w: [0.0; 3],
            v: match gravity {
                true => self.gravity.map(|g| -g),
                false => [0.0; 3],
            },
        };
        for (i, l) in self.links.iter().enumerate() {
            let k = l.kind.n_coords();
            let ap = match l.parent {
                None => base,
                Some(p) => ws.acc[p],
            };
            let mut a = ws.pose[i].motion_in(ap) + s.c[i];
            let mut rhs = [0.0; MAX_COORDS];
            for b in 0..k {
                rhs[b] = s.u[i][b] - a.dot(s.u_cols[i][b]);
            }
            for b in 0..k {
                let x = (0..k).map(|c| s.dinv[i][b][c] * rhs[c]).sum::<f64>();
                qdd[l.offset + b] = x;
                a = a + ws.sub[i][b].scale(x);
            }
            ws.acc[i] = a;
        }
        Ok(())
    }
}
