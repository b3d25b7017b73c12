//! The frames of a tree's bodies as expressions of its joint coordinates: forward kinematics
//! written out as [`VExpr`]s, so that markers, axes and joint frames can be named in a file's
//! springs, forces, equations, closing joints and columns like any other point or vector.
//!
//! A frame is its origin `o` and axes `e₀ e₁ e₂` in the world. A pose `(R, p)` given in the
//! frame places a new one at `o + Σ pᵢ eᵢ` with axes `e'ₖ = Σᵢ Rᵢₖ eᵢ`; a joint's pose is that of
//! its kind at its coordinates (the same formulas as [`crate::multibody::JointKind::pose`]).
//! Constants are folded, so a frame on the ground stays a constant and a revolute joint's
//! rotation costs four products. The dynamics never reads these expressions: the tree's own
//! recursions give the equations of motion.

use crate::expr::VExpr;
use crate::expr::vector::Func;
use crate::multibody::spatial::Pose;
use crate::multibody::{JointKind, Tree};

/// A scalar: a constant, or an expression.
#[derive(Clone, Debug)]
pub(super) enum Sc {
    C(f64),
    E(VExpr),
}

fn ok<T>(r: Result<T, String>) -> T {
    r.expect("kinematic expressions are well-typed by construction")
}

impl Sc {
    fn expr(&self) -> VExpr {
        match self {
            Sc::C(c) => VExpr::constant(*c),
            Sc::E(e) => e.clone(),
        }
    }
    fn mul(&self, o: &Sc) -> Sc {
        match (self, o) {
            (Sc::C(a), Sc::C(b)) => Sc::C(a * b),
            (Sc::C(z), _) | (_, Sc::C(z)) if *z == 0.0 => Sc::C(0.0),
            (Sc::C(one), x) | (x, Sc::C(one)) if *one == 1.0 => x.clone(),
            (a, b) => Sc::E(ok(VExpr::product(a.expr(), b.expr()))),
        }
    }
    fn add(&self, o: &Sc) -> Sc {
        match (self, o) {
            (Sc::C(a), Sc::C(b)) => Sc::C(a + b),
            (Sc::C(z), x) | (x, Sc::C(z)) if *z == 0.0 => x.clone(),
            (a, b) => Sc::E(ok(VExpr::sum(a.expr(), b.expr(), false))),
        }
    }
    fn sub(&self, o: &Sc) -> Sc {
        match (self, o) {
            (Sc::C(a), Sc::C(b)) => Sc::C(a - b),
            (x, Sc::C(z)) if *z == 0.0 => x.clone(),
            (a, b) => Sc::E(ok(VExpr::sum(a.expr(), b.expr(), true))),
        }
    }
    fn func(&self, f: Func) -> Sc {
        Sc::E(ok(VExpr::func(f, self.expr())))
    }
}

/// A vector: a constant, or an expression.
#[derive(Clone, Debug)]
pub(super) enum Vx {
    C([f64; 3]),
    E(VExpr),
}

impl Vx {
    /// The vector as an expression.
    pub(super) fn expr(&self) -> VExpr {
        match self {
            Vx::C(c) => VExpr::constant_vec(*c),
            Vx::E(e) => e.clone(),
        }
    }
    fn scaled(&self, s: &Sc) -> Option<Vx> {
        match (self, s) {
            (_, Sc::C(z)) if *z == 0.0 => None,
            (v, Sc::C(one)) if *one == 1.0 => Some(v.clone()),
            (Vx::C(v), Sc::C(c)) => Some(Vx::C(v.map(|x| x * c))),
            (v, s) => Some(Vx::E(ok(VExpr::product(s.expr(), v.expr())))),
        }
    }
    fn plus(&self, o: &Vx) -> Vx {
        match (self, o) {
            (Vx::C(a), Vx::C(b)) => Vx::C([a[0] + b[0], a[1] + b[1], a[2] + b[2]]),
            (a, b) => Vx::E(ok(VExpr::sum(a.expr(), b.expr(), false))),
        }
    }
}

/// `Σ cᵢ vᵢ` (`None` when every term vanishes).
fn combine(v: &[Vx; 3], c: [&Sc; 3]) -> Option<Vx> {
    let mut out: Option<Vx> = None;
    for (vi, ci) in v.iter().zip(c) {
        if let Some(t) = vi.scaled(ci) {
            out = Some(match out {
                None => t,
                Some(s) => s.plus(&t),
            });
        }
    }
    out
}

/// A frame in the world: origin and axes.
#[derive(Clone, Debug)]
pub(super) struct Frame {
    pub(super) origin: Vx,
    pub(super) axes: [Vx; 3],
}

/// A rotation and a translation of symbolic entries (`r[i][k]`: row `i`, column `k`).
struct SymPose {
    r: [[Sc; 3]; 3],
    p: [Sc; 3],
}

impl SymPose {
    fn constant(x: &Pose<f64>) -> SymPose {
        SymPose {
            r: x.r.map(|row| row.map(Sc::C)),
            p: x.p.map(Sc::C),
        }
    }
    fn identity() -> SymPose {
        SymPose::constant(&Pose::identity())
    }
    fn rot(axis: usize, angle: &Sc) -> SymPose {
        let (c, s) = (angle.func(Func::Cos), angle.func(Func::Sin));
        let ms = Sc::C(0.0).sub(&s);
        let (o, z) = (Sc::C(1.0), Sc::C(0.0));
        let r = match axis {
            0 => [
                [o, z.clone(), z.clone()],
                [z.clone(), c.clone(), ms],
                [z, s, c],
            ],
            1 => [
                [c.clone(), z.clone(), s],
                [z.clone(), o, z.clone()],
                [ms, z, c],
            ],
            _ => [
                [c.clone(), ms, z.clone()],
                [s, c, z.clone()],
                [z.clone(), z, o],
            ],
        };
        SymPose {
            r,
            p: [Sc::C(0.0), Sc::C(0.0), Sc::C(0.0)],
        }
    }
    fn then(&self, b: &SymPose) -> SymPose {
        let r = std::array::from_fn(|i| {
            std::array::from_fn(|k| {
                (0..3).fold(Sc::C(0.0), |acc, j| acc.add(&self.r[i][j].mul(&b.r[j][k])))
            })
        });
        let p = std::array::from_fn(|i| {
            (0..3).fold(self.p[i].clone(), |acc, j| {
                acc.add(&self.r[i][j].mul(&b.p[j]))
            })
        });
        SymPose { r, p }
    }
    /// The rotation of the quaternion `q/|q|` (as [`crate::multibody::quat_rotation`]).
    fn quaternion(q: &[Sc]) -> SymPose {
        let (w, x, y, z) = (&q[0], &q[1], &q[2], &q[3]);
        let sq = |a: &Sc| a.mul(a);
        let n2 = sq(w).add(&sq(x)).add(&sq(y)).add(&sq(z));
        let s = Sc::E(ok(VExpr::quotient(VExpr::constant(1.0), n2.expr())));
        let two = |a: Sc| a.add(&a).mul(&s);
        let diag =
            |a: &Sc, b: &Sc, c: &Sc, d: &Sc| sq(a).add(&sq(b)).sub(&sq(c)).sub(&sq(d)).mul(&s);
        let r = [
            [
                diag(w, x, y, z),
                two(x.mul(y).sub(&w.mul(z))),
                two(x.mul(z).add(&w.mul(y))),
            ],
            [
                two(x.mul(y).add(&w.mul(z))),
                diag(w, y, x, z),
                two(y.mul(z).sub(&w.mul(x))),
            ],
            [
                two(x.mul(z).sub(&w.mul(y))),
                two(y.mul(z).add(&w.mul(x))),
                diag(w, z, x, y),
            ],
        ];
        SymPose {
            r,
            p: [Sc::C(0.0), Sc::C(0.0), Sc::C(0.0)],
        }
    }
    /// A joint of `kind` at the coordinates `q`.
    fn joint(kind: JointKind, q: &[Sc]) -> SymPose {
        let shift = |p: [Sc; 3]| SymPose {
            p,
            ..SymPose::identity()
        };
        let z = || Sc::C(0.0);
        match kind {
            JointKind::Revolute => SymPose::rot(2, &q[0]),
            JointKind::Prismatic => shift([z(), z(), q[0].clone()]),
            JointKind::Cylindrical => SymPose {
                p: [z(), z(), q[1].clone()],
                ..SymPose::rot(2, &q[0])
            },
            JointKind::Screw { pitch } => SymPose {
                p: [z(), z(), q[0].mul(&Sc::C(pitch))],
                ..SymPose::rot(2, &q[0])
            },
            JointKind::Universal => SymPose::rot(0, &q[0]).then(&SymPose::rot(1, &q[1])),
            JointKind::Planar => SymPose {
                p: [q[0].clone(), q[1].clone(), z()],
                ..SymPose::rot(2, &q[2])
            },
            JointKind::Spherical => SymPose::quaternion(q),
            JointKind::Free => SymPose {
                p: [q[0].clone(), q[1].clone(), q[2].clone()],
                ..SymPose::quaternion(&q[3..7])
            },
            JointKind::Fixed => SymPose::identity(),
        }
    }
}

impl Frame {
    /// The world frame.
    pub(super) fn world() -> Frame {
        Frame {
            origin: Vx::C([0.0; 3]),
            axes: [
                Vx::C([1.0, 0.0, 0.0]),
                Vx::C([0.0, 1.0, 0.0]),
                Vx::C([0.0, 0.0, 1.0]),
            ],
        }
    }
    fn place(&self, x: &SymPose) -> Frame {
        let zero = || Vx::C([0.0; 3]);
        let origin = match combine(&self.axes, [&x.p[0], &x.p[1], &x.p[2]]) {
            Some(d) => self.origin.plus(&d),
            None => self.origin.clone(),
        };
        let axes = std::array::from_fn(|k| {
            combine(&self.axes, [&x.r[0][k], &x.r[1][k], &x.r[2][k]]).unwrap_or_else(zero)
        });
        Frame { origin, axes }
    }
    /// The frame placed by a constant pose given in it.
    pub(super) fn then(&self, x: &Pose<f64>) -> Frame {
        self.place(&SymPose::constant(x))
    }
    /// The frame moved by a joint of `kind` at the coordinates `q` (leaves `q_j`).
    pub(super) fn joint(&self, kind: JointKind, q: &[VExpr]) -> Frame {
        let q: Vec<Sc> = q.iter().map(|e| Sc::E(e.clone())).collect();
        self.place(&SymPose::joint(kind, &q))
    }
    /// A point given in the frame.
    pub(super) fn point(&self, x: [f64; 3]) -> Vx {
        match combine(&self.axes, [&Sc::C(x[0]), &Sc::C(x[1]), &Sc::C(x[2])]) {
            Some(d) => self.origin.plus(&d),
            None => self.origin.clone(),
        }
    }
}

/// Each link's body frame as expressions of the leaves `q`, and its pose at `q0`.
pub(super) fn frames_of(tree: &Tree, q: &[VExpr], q0: &[f64]) -> (Vec<Frame>, Vec<Pose<f64>>) {
    let mut ws = crate::multibody::Workspace::<f64>::new(tree);
    tree.kinematics(&mut ws, q0);
    let (mut links, mut frames, mut worlds): (Vec<Frame>, _, _) =
        (Vec::new(), Vec::new(), Vec::new());
    for (i, l) in tree.links().iter().enumerate() {
        let outer = match l.parent {
            None => Frame::world(),
            Some(p) => links[p].clone(),
        };
        let link = outer.then(&l.tree_pose).joint(l.kind, &q[l.coordinates()]);
        frames.push(link.then(&l.body_in_link));
        links.push(link);
        worlds.push(tree.body_pose(&ws, i));
    }
    (frames, worlds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multibody::spatial::rot_axis;

    /// Each kind's symbolic frame equals the numeric pose after a constant frame.
    #[test]
    fn frames_equal_the_numeric_poses() {
        let at = Pose {
            r: rot_axis(0, 0.3),
            p: [0.1, -0.2, 0.4],
        };
        let q = [0.3, -0.7, 0.45, 0.2, 0.9, -0.4, 0.6];
        for (_, kind) in crate::multibody::KINDS {
            let kind = match kind {
                JointKind::Screw { .. } => JointKind::Screw { pitch: 0.05 },
                k => k,
            };
            let n = kind.n_coords();
            let leaves: Vec<VExpr> = (0..n).map(VExpr::coord).collect();
            let f = Frame::world().then(&at).joint(kind, &leaves);
            let want = at.then(&kind.pose(&q[..n]));
            let val = |v: &Vx| match v {
                Vx::C(c) => *c,
                Vx::E(e) => e.eval_vector::<f64>(&|j| q[j], 0.0),
            };
            let o = val(&f.origin);
            for i in 0..3 {
                assert!((o[i] - want.p[i]).abs() < 1e-14, "{kind:?} origin");
                let axis = val(&f.axes[i]);
                for r in 0..3 {
                    assert!((axis[r] - want.r[r][i]).abs() < 1e-14, "{kind:?} axis {i}");
                }
            }
        }
    }
}
