//! Joints: what one body may do relative to its parent, in the joint's own coordinates.
//!
//! A joint ties a frame `P` on the parent to a frame `C` on the child; its coordinates `q`
//! place `C` in `P` ([`JointKind::pose`]). Its velocity `v_J = S(q) q̇` — the motion of `C`
//! relative to `P`, in `C`'s axes — spans the motion subspace `S` (one column per
//! coordinate, [`JointKind::subspace`]); its acceleration is `S q̈ + c_J` with
//! `c_J = S̊ q̇`, the apparent derivative of `S` in `C` ([`JointKind::bias`]). The velocities of
//! the toolkit are the coordinates' rates (`v = q̇`), so the rotations of spherical and free
//! joints are quaternions `(w, x, y, z)` of any length: the rotation is that of `q/|q|`, the
//! angular velocity `ω = 2 G(q) q̇ / |q|²`, and the length is held at 1 by a constraint of the
//! tree ([`crate::multibody::Tree`]) — no configuration is singular, and the Lagrangian's
//! residual along `q` vanishes identically (docs/maths.md §20).

use super::spatial::*;
use crate::model::elements::Factor;

/// What a joint allows, and its coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum JointKind {
    /// Turns about `z`: the angle.
    Revolute,
    /// Slides along `z`: the slide.
    Prismatic,
    /// Turns about and slides along `z`: angle, slide.
    Cylindrical,
    /// A screw: turns about `z` and advances `pitch` (length per radian) along it: the angle.
    Screw {
        /// Advance along `z` per radian.
        pitch: f64,
    },
    /// Turns about the parent's `x`, then the child's `y`: two angles.
    Universal,
    /// Slides in the parent's `xy` plane and turns about `z`: `x`, `y`, angle.
    Planar,
    /// Turns about the common origin: a quaternion `(w, x, y, z)`.
    Spherical,
    /// Moves freely: the position of `C` in `P`, then a quaternion `(w, x, y, z)`.
    Free,
    /// Welds the child to the parent: no coordinates.
    Fixed,
}

/// The joint kinds by the names files give them.
pub const KINDS: [(&str, JointKind); 9] = [
    ("revolute", JointKind::Revolute),
    ("prismatic", JointKind::Prismatic),
    ("cylindrical", JointKind::Cylindrical),
    ("screw", JointKind::Screw { pitch: 0.0 }),
    ("universal", JointKind::Universal),
    ("planar", JointKind::Planar),
    ("spherical", JointKind::Spherical),
    ("free", JointKind::Free),
    ("fixed", JointKind::Fixed),
];

/// The largest number of coordinates of a joint (a free joint's seven).
pub const MAX_COORDS: usize = 7;

/// A joint's motion subspace: one motion per coordinate (the first [`JointKind::n_coords`]).
pub type Subspace<D> = [Motion<D>; MAX_COORDS];

/// `ω = 2 G(q) q̇ / |q|²` and `G`'s rows, for a quaternion `q = (w, x, y, z)`.
#[inline(always)]
fn quat_g<D: Real>(q: &[D]) -> [[D; 4]; 3] {
    let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
    [[-x, w, z, -y], [-y, -z, w, x], [-z, y, -x, w]]
}

/// The rotation of `q/|q|` (the child's coordinates into the parent's; the one the model's
/// chain points use).
pub use crate::model::elements::quat_rotation;

/// The angular velocity (child's axes) of a quaternion's rate, and `2/|q|²`.
#[inline(always)]
fn quat_omega<D: Real>(q: &[D], qd: &[D]) -> (V3<D>, D) {
    let g = quat_g(q);
    let s = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).recip() * 2.0;
    let w = std::array::from_fn(|k| {
        (g[k][0] * qd[0] + g[k][1] * qd[1] + g[k][2] * qd[2] + g[k][3] * qd[3]) * s
    });
    (w, s)
}

impl JointKind {
    /// The number of coordinates (and of velocities: `v = q̇`).
    pub fn n_coords(self) -> usize {
        match self {
            JointKind::Revolute | JointKind::Prismatic | JointKind::Screw { .. } => 1,
            JointKind::Cylindrical | JointKind::Universal => 2,
            JointKind::Planar => 3,
            JointKind::Spherical => 4,
            JointKind::Free => 7,
            JointKind::Fixed => 0,
        }
    }
    /// The name files give the kind.
    pub fn name(self) -> &'static str {
        match self {
            JointKind::Revolute => "revolute",
            JointKind::Prismatic => "prismatic",
            JointKind::Cylindrical => "cylindrical",
            JointKind::Screw { .. } => "screw",
            JointKind::Universal => "universal",
            JointKind::Planar => "planar",
            JointKind::Spherical => "spherical",
            JointKind::Free => "free",
            JointKind::Fixed => "fixed",
        }
    }
    /// The suffixes of the coordinates' names after the joint's (none: the joint's own name).
    pub fn coordinate_suffixes(self) -> &'static [&'static str] {
        match self {
            JointKind::Revolute | JointKind::Prismatic | JointKind::Screw { .. } => &[""],
            JointKind::Cylindrical => &["_angle", "_slide"],
            JointKind::Universal => &["_1", "_2"],
            JointKind::Planar => &["_x", "_y", "_angle"],
            JointKind::Spherical => &["_qw", "_qx", "_qy", "_qz"],
            JointKind::Free => &["_x", "_y", "_z", "_qw", "_qx", "_qy", "_qz"],
            JointKind::Fixed => &[],
        }
    }
    /// Where the joint's quaternion starts among its coordinates (spherical, free).
    pub fn quaternion(self) -> Option<usize> {
        match self {
            JointKind::Spherical => Some(0),
            JointKind::Free => Some(3),
            _ => None,
        }
    }
    /// The coordinates at the joint's zero: the frames together (quaternions `(1, 0, 0, 0)`).
    pub fn zero_coords(self) -> Vec<f64> {
        let mut q = vec![0.0; self.n_coords()];
        if let Some(k) = self.quaternion() {
            q[k] = 1.0;
        }
        q
    }
    /// `C` placed in `P` at the coordinates `q`.
    pub fn pose<D: Real>(self, q: &[D]) -> Pose<D> {
        let z = D::from(0.0);
        match self {
            JointKind::Revolute => Pose {
                r: rot_axis(2, q[0]),
                p: zero(),
            },
            JointKind::Prismatic => Pose {
                r: identity(),
                p: [z, z, q[0]],
            },
            JointKind::Cylindrical => Pose {
                r: rot_axis(2, q[0]),
                p: [z, z, q[1]],
            },
            JointKind::Screw { pitch } => Pose {
                r: rot_axis(2, q[0]),
                p: [z, z, q[0] * pitch],
            },
            JointKind::Universal => Pose {
                r: mat_mul(&rot_axis(0, q[0]), &rot_axis(1, q[1])),
                p: zero(),
            },
            JointKind::Planar => Pose {
                r: rot_axis(2, q[2]),
                p: [q[0], q[1], z],
            },
            JointKind::Spherical => Pose {
                r: quat_rotation(q),
                p: zero(),
            },
            JointKind::Free => Pose {
                r: quat_rotation(&q[3..7]),
                p: [q[0], q[1], q[2]],
            },
            JointKind::Fixed => Pose::identity(),
        }
    }
    /// The joint's motion as factors of a chain ([`Factor`]) on the coordinates `first..`:
    /// the product of the factors is [`pose`](Self::pose).
    pub fn factors(self, first: usize) -> Vec<Factor> {
        let turn = |axis: usize, k: usize| Factor::Turn {
            axis,
            coord: first + k,
        };
        let slide = |axis: usize, k: usize, scale: f64| Factor::Slide {
            axis,
            coord: first + k,
            scale,
        };
        let quaternion = |k: usize| Factor::Quaternion {
            coords: std::array::from_fn(|m| first + k + m),
        };
        match self {
            JointKind::Revolute => vec![turn(2, 0)],
            JointKind::Prismatic => vec![slide(2, 0, 1.0)],
            JointKind::Cylindrical => vec![slide(2, 1, 1.0), turn(2, 0)],
            JointKind::Screw { pitch } => vec![slide(2, 0, pitch), turn(2, 0)],
            JointKind::Universal => vec![turn(0, 0), turn(1, 1)],
            JointKind::Planar => vec![slide(0, 0, 1.0), slide(1, 1, 1.0), turn(2, 2)],
            JointKind::Spherical => vec![quaternion(0)],
            JointKind::Free => vec![
                slide(0, 0, 1.0),
                slide(1, 1, 1.0),
                slide(2, 2, 1.0),
                quaternion(3),
            ],
            JointKind::Fixed => Vec::new(),
        }
    }
    /// The motion subspace `S(q)` in `C`'s axes, given the joint's pose `x` at `q` (the free
    /// and planar joints' translations are along the parent's axes).
    pub fn subspace<D: Real>(self, q: &[D], x: &Pose<D>) -> Subspace<D> {
        let (o, z) = (D::from(1.0), D::from(0.0));
        let mut s = [Motion::zero(); MAX_COORDS];
        let ez = [z, z, o];
        match self {
            JointKind::Revolute => s[0].w = ez,
            JointKind::Prismatic => s[0].v = ez,
            JointKind::Cylindrical => {
                s[0].w = ez;
                s[1].v = ez;
            }
            JointKind::Screw { pitch } => {
                s[0].w = ez;
                s[0].v = [z, z, D::from(pitch)];
            }
            JointKind::Universal => {
                let (sn, c) = q[1].sin_cos();
                s[0].w = [c, z, sn];
                s[1].w = [z, o, z];
            }
            JointKind::Planar => {
                // the translation along the parent's x and y, in C's axes: rows of R
                s[0].v = [x.r[0][0], x.r[0][1], z];
                s[1].v = [x.r[1][0], x.r[1][1], z];
                s[2].w = ez;
            }
            JointKind::Spherical => quat_columns(q, &mut s[0..4]),
            JointKind::Free => {
                for k in 0..3 {
                    s[k].v = x.r[k];
                }
                quat_columns(&q[3..7], &mut s[3..7]);
            }
            JointKind::Fixed => {}
        }
        s
    }
    /// The joint's velocity `v_J = S q̇` and the bias `c_J = S̊ q̇` of its acceleration
    /// `S q̈ + c_J`, both in `C`'s axes.
    pub fn velocity_bias<D: Real>(self, q: &[D], qd: &[D], x: &Pose<D>) -> (Motion<D>, Motion<D>) {
        let z = D::from(0.0);
        let mut vj = Motion::zero();
        let mut cj = Motion::zero();
        match self {
            JointKind::Revolute => vj.w[2] = qd[0],
            JointKind::Prismatic => vj.v[2] = qd[0],
            JointKind::Cylindrical => {
                vj.w[2] = qd[0];
                vj.v[2] = qd[1];
            }
            JointKind::Screw { pitch } => {
                vj.w[2] = qd[0];
                vj.v[2] = qd[0] * pitch;
            }
            JointKind::Universal => {
                let (sn, c) = q[1].sin_cos();
                vj.w = [c * qd[0], qd[1], sn * qd[0]];
                let k = qd[0] * qd[1];
                cj.w = [-sn * k, z, c * k];
            }
            JointKind::Planar => {
                let v = mul_t(&x.r, [qd[0], qd[1], z]);
                vj.w[2] = qd[2];
                vj.v = v;
                // −ω × (Rᵀ ṗ)
                cj.v = [qd[2] * v[1], -qd[2] * v[0], z];
            }
            JointKind::Spherical => {
                let (w, s) = quat_omega(q, qd);
                vj.w = w;
                cj.w = scale(-(rate_of_length(q, qd) * s), w);
            }
            JointKind::Free => {
                let (w, s) = quat_omega(&q[3..7], &qd[3..7]);
                let v = mul_t(&x.r, [qd[0], qd[1], qd[2]]);
                vj = Motion { w, v };
                cj.w = scale(-(rate_of_length(&q[3..7], &qd[3..7]) * s), w);
                let wv = cross(w, v);
                cj.v = [-wv[0], -wv[1], -wv[2]];
            }
            JointKind::Fixed => {}
        }
        (vj, cj)
    }
}

/// `q · q̇` of a quaternion: `ω̇ = 2 G q̈/|q|² − 2 (q·q̇)/|q|² ω` (`Ġ q̇ = 0`).
#[inline(always)]
fn rate_of_length<D: Real>(q: &[D], qd: &[D]) -> D {
    q[0] * qd[0] + q[1] * qd[1] + q[2] * qd[2] + q[3] * qd[3]
}

/// The four columns `(2 G/|q|² e_k, 0)` of a quaternion's motion subspace.
fn quat_columns<D: Real>(q: &[D], s: &mut [Motion<D>]) {
    let g = quat_g(q);
    let f = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).recip() * 2.0;
    for (k, col) in s.iter_mut().enumerate() {
        col.w = [g[0][k] * f, g[1][k] * f, g[2][k] * f];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::elements::ChainPoint;
    use num_dual::Dual64;

    /// Each kind's chain factors place a point where its pose does.
    #[test]
    fn factors_are_the_pose() {
        for (i, kind) in KINDS_TESTED.into_iter().enumerate() {
            let (q, _, _) = sample(kind, 0.9 + 0.1 * i as f64);
            let local = [0.3, -0.7, 0.4];
            let x = kind.pose(&q).point_const(local);
            let mut padded = vec![0.5; 2];
            padded.extend(&q);
            let y = ChainPoint::new(kind.factors(2), local).eval(&padded);
            for k in 0..3 {
                assert!((x[k] - y[k]).abs() < 1e-15, "{kind:?}: {x:?} vs {y:?}");
            }
        }
    }

    const KINDS_TESTED: [JointKind; 9] = [
        JointKind::Revolute,
        JointKind::Prismatic,
        JointKind::Cylindrical,
        JointKind::Screw { pitch: 0.05 },
        JointKind::Universal,
        JointKind::Planar,
        JointKind::Spherical,
        JointKind::Free,
        JointKind::Fixed,
    ];

    fn sample(kind: JointKind, seed: f64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let n = kind.n_coords();
        let f = |k: usize, a: f64| (seed * (k as f64 + 1.3) * a).sin();
        let mut q: Vec<f64> = (0..n).map(|k| f(k, 1.7)).collect();
        let qd = (0..n).map(|k| f(k, 2.9)).collect();
        let qdd = (0..n).map(|k| f(k, 0.6)).collect();
        if let Some(k) = kind.quaternion() {
            q[k] += 1.5; // a quaternion of length ≠ 1: the rotation is q/|q|'s
        }
        (q, qd, qdd)
    }

    /// Along a path q(t) with q̇, q̈ given: the pose's derivative is the joint velocity
    /// (`Ṙ = R[ω]×`, `ṗ = R v`), the velocity's apparent derivative is `S q̈ + c_J`, and
    /// `S q̇ = v_J` — for every kind, by dual numbers in time.
    #[test]
    fn joint_velocity_and_bias_are_the_poses_derivatives() {
        for kind in KINDS_TESTED {
            for seed in [0.3, 1.1, 2.6] {
                let (q, qd, qdd) = sample(kind, seed);
                let n = q.len();
                // q(t) = q + t q̇ + ½t² q̈ at t = 0 (a dual in t)
                let qt: Vec<Dual64> = (0..n).map(|k| Dual64::new(q[k], qd[k])).collect();
                let qdt: Vec<Dual64> = (0..n).map(|k| Dual64::new(qd[k], qdd[k])).collect();
                let x = kind.pose(&qt);
                let (vj, _) = kind.velocity_bias(&qt, &qdt, &x);
                // Rᵀ Ṙ = [ω]×: ω_x = (RᵀṘ)[2][1] etc.; Rᵀ ṗ = v
                let r = x.r.map(|row| row.map(|d| d.re));
                let rd = x.r.map(|row| row.map(|d| d.eps));
                let rtrd: M3<f64> = std::array::from_fn(|i| {
                    std::array::from_fn(|j| (0..3).map(|k| r[k][i] * rd[k][j]).sum())
                });
                let w = [rtrd[2][1], rtrd[0][2], rtrd[1][0]];
                let v = mul_t(&r, x.p.map(|d| d.eps));
                for k in 0..3 {
                    assert!((w[k] - vj.w[k].re).abs() < 1e-13, "{kind:?} ω");
                    assert!((v[k] - vj.v[k].re).abs() < 1e-13, "{kind:?} v");
                }
                // S q̇ = v_J
                let xf = kind.pose(&q);
                let s = kind.subspace(&q, &xf);
                let mut sv = Motion::zero();
                for k in 0..n {
                    sv = sv + s[k].scale(qd[k]);
                }
                let (vjf, cj) = kind.velocity_bias(&q, &qd, &xf);
                for k in 0..3 {
                    assert!((sv.w[k] - vjf.w[k]).abs() < 1e-13, "{kind:?}");
                    assert!((sv.v[k] - vjf.v[k]).abs() < 1e-13, "{kind:?}");
                }
                // d/dt v_J (coordinates in C) = S q̈ + c_J
                let mut a = cj;
                for k in 0..n {
                    a = a + s[k].scale(qdd[k]);
                }
                for k in 0..3 {
                    assert!((vj.w[k].eps - a.w[k]).abs() < 1e-12, "{kind:?} ω̇");
                    assert!((vj.v[k].eps - a.v[k]).abs() < 1e-12, "{kind:?} v̇");
                }
                // the rotation is orthonormal whatever the quaternion's length
                let rrt = mat_mul(
                    &r,
                    &std::array::from_fn(|i| std::array::from_fn(|j| r[j][i])),
                );
                for i in 0..3 {
                    for j in 0..3 {
                        let e = if i == j { 1.0 } else { 0.0 };
                        assert!((rrt[i][j] - e).abs() < 1e-14);
                    }
                }
            }
        }
    }
}
