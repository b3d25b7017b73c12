//! The recursive algorithms on a [`Tree`] (Featherstone, ch. 5–7): forward kinematics, the
//! recursive Newton–Euler algorithm (RNEA: `τ = M(q) q̈ + b(q, q̇)` in `O(n)`), the composite
//! rigid bodies (CRBA: `M(q)`), the articulated bodies (ABA: `q̈` in `O(n)`) and the energies.
//! Each a forward pass from the root and, where forces are summed, a backward pass; every one
//! generic over the number type, so their derivatives come from running them on dual numbers.

use super::joint::{MAX_COORDS, Subspace};
use super::spatial::{Force, Inertia, Motion, Pose, Real, dot, lift};
use super::tree::Tree;

/// Scratch of one evaluation, sized for a tree once (nothing allocates in the recursions).
#[derive(Clone, Debug)]
pub struct Workspace<D> {
    /// Each link's frame in its parent's.
    pub(crate) pose: Vec<Pose<D>>,
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
            let joint = l.kind.pose(qi);
            let (vj, cj) = l.kind.velocity_bias(qi, qdi, &joint);
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
            let joint = l.kind.pose(&q[r.clone()]);
            let (vj, _) = l.kind.velocity_bias(&q[r.clone()], &qd[r], &joint);
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
