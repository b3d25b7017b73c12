//! A point carried by a chain of joints: its position is a product of constant placements and
//! elementary motions (a turn about a frame axis, a slide along one, a quaternion's turn), each
//! on one or four coordinates, applied to a point fixed in the last frame. Evaluated in
//! `O(depth)` on any number type — where the same point written as an expression of the
//! coordinates grows about 2.6× per joint (each frame's axes are products of the frame's
//! before) — so elements (springs, forces, particles) may sit on points of bodies deep in a
//! tree of joints (docs/maths.md §20).
//!
//! The rotation primitives [`rot_axis`] and [`quat_rotation`] are the ones the joint-coordinate
//! trees of [`crate::multibody`] use.

use num_dual::DualNum;
use std::collections::BTreeSet;

/// A 3×3 matrix, row-major.
type M3<D> = [[D; 3]; 3];

/// The rotation by `angle` about axis `k` (0: x, 1: y, 2: z): maps the turned frame's
/// coordinates into the first's.
pub fn rot_axis<D: DualNum<Primitive = f64> + Copy>(k: usize, angle: D) -> M3<D> {
    let (s, c) = angle.sin_cos();
    let (o, z) = (D::from(1.0), D::from(0.0));
    match k {
        0 => [[o, z, z], [z, c, -s], [z, s, c]],
        1 => [[c, z, s], [z, o, z], [-s, z, c]],
        _ => [[c, -s, z], [s, c, z], [z, z, o]],
    }
}

/// `Σ` of the products `a_i b_j` that make the rotation of a quaternion `q` as `quat(q, q)`
/// (times `|q|²`): the matrix of `q/|q|`'s rotation is `quat(q, q)/|q|²`, and its derivative
/// along `dq` is `(quat(q, dq) + quat(dq, q) − R · 2 q·dq)/|q|²`.
fn quat<D: DualNum<Primitive = f64> + Copy>(a: &[D; 4], b: &[D; 4]) -> M3<D> {
    let ([w, x, y, z], [bw, bx, by, bz]) = (*a, *b);
    let two = |s: D| s + s;
    [
        [
            w * bw + x * bx - y * by - z * bz,
            two(x * by - w * bz),
            two(x * bz + w * by),
        ],
        [
            two(x * by + w * bz),
            w * bw - x * bx + y * by - z * bz,
            two(y * bz - w * bx),
        ],
        [
            two(x * bz - w * by),
            two(y * bz + w * bx),
            w * bw - x * bx - y * by + z * bz,
        ],
    ]
}

/// The rotation of `q/|q|` (`q = (w, x, y, z)` of any non-zero length: the child's coordinates
/// into the parent's).
#[inline(always)]
pub fn quat_rotation<D: DualNum<Primitive = f64> + Copy>(q: &[D]) -> M3<D> {
    let q = [q[0], q[1], q[2], q[3]];
    let s = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).recip();
    quat(&q, &q).map(|r| r.map(|x| x * s))
}

/// One factor of a chain.
#[derive(Clone, Debug, PartialEq)]
pub enum Factor {
    /// A constant placement: rotation (columns: the new frame's axes) and origin.
    Place {
        /// Rotation.
        r: [[f64; 3]; 3],
        /// Origin.
        p: [f64; 3],
    },
    /// A turn by coordinate `coord` about the frame's axis `axis` (0, 1, 2).
    Turn {
        /// The axis.
        axis: usize,
        /// The coordinate (local or global, as the chain is written).
        coord: usize,
    },
    /// A slide by `scale` times coordinate `coord` along the frame's axis `axis`.
    Slide {
        /// The axis.
        axis: usize,
        /// The coordinate.
        coord: usize,
        /// The slide per unit of the coordinate (1; a screw's pitch).
        scale: f64,
    },
    /// The turn of the quaternion on four coordinates (`w, x, y, z`; any non-zero length).
    Quaternion {
        /// The coordinates.
        coords: [usize; 4],
    },
}

/// A point fixed in the last frame of a chain of factors: `x(q) = F₁(q) F₂(q) ⋯ F_k(q) ℓ`.
///
/// ```
/// use lagrangian::model::elements::{ChainPoint, Factor};
/// // a two-link planar arm: turn q0, reach 1 along x, turn q1, the tip at 0.5 along x
/// let arm = ChainPoint::new(
///     vec![
///         Factor::Turn { axis: 2, coord: 0 },
///         Factor::Place { r: [[1., 0., 0.], [0., 1., 0.], [0., 0., 1.]], p: [1., 0., 0.] },
///         Factor::Turn { axis: 2, coord: 1 },
///     ],
///     [0.5, 0.0, 0.0],
/// );
/// let (q0, q1) = (0.3f64, 0.4f64);
/// let x = arm.eval(&[q0, q1]);
/// assert!((x[0] - (q0.cos() + 0.5 * (q0 + q1).cos())).abs() < 1e-15);
/// assert!((x[1] - (q0.sin() + 0.5 * (q0 + q1).sin())).abs() < 1e-15);
/// // the velocity at rates (1, 0): ω × x about the origin
/// let (_, v) = arm.pos_tangent(&|j| [q0, q1][j], &|j| [1.0, 0.0][j]);
/// assert!((v[0] + x[1]).abs() < 1e-15 && (v[1] - x[0]).abs() < 1e-15);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ChainPoint {
    factors: Vec<Factor>,
    local: [f64; 3],
}

/// `a b` for a matrix on `D` and a constant one.
fn mul_c<D: DualNum<Primitive = f64> + Copy>(a: &M3<D>, b: &[[f64; 3]; 3]) -> M3<D> {
    std::array::from_fn(|i| {
        std::array::from_fn(|k| a[i][0] * b[0][k] + a[i][1] * b[1][k] + a[i][2] * b[2][k])
    })
}

/// `a b` on `D`.
fn mul<D: DualNum<Primitive = f64> + Copy>(a: &M3<D>, b: &M3<D>) -> M3<D> {
    std::array::from_fn(|i| {
        std::array::from_fn(|k| a[i][0] * b[0][k] + a[i][1] * b[1][k] + a[i][2] * b[2][k])
    })
}

/// `a x` for a constant `x`.
fn apply_c<D: DualNum<Primitive = f64> + Copy>(a: &M3<D>, x: &[f64; 3]) -> [D; 3] {
    std::array::from_fn(|i| a[i][0] * x[0] + a[i][1] * x[1] + a[i][2] * x[2])
}

/// `a + b`.
fn add<D: DualNum<Primitive = f64> + Copy>(a: [D; 3], b: [D; 3]) -> [D; 3] {
    std::array::from_fn(|i| a[i] + b[i])
}

/// `a [e_k]×` (the derivative of `a · rot_axis(k, θ)` in `θ`, given `a · rot_axis(k, θ)`).
fn times_skew<D: DualNum<Primitive = f64> + Copy>(a: &M3<D>, k: usize) -> M3<D> {
    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
    let z = D::from(0.0);
    // [e_k]× maps e_i to e_j and e_j to −e_i: column i of a[e_k]× is a's column j, column j is
    // −a's column i
    std::array::from_fn(|r| {
        let mut row = [z; 3];
        row[i] = a[r][j];
        row[j] = -a[r][i];
        row
    })
}

impl ChainPoint {
    /// The point `local` in the last frame of `factors` (consecutive placements merged).
    pub fn new(factors: Vec<Factor>, local: [f64; 3]) -> ChainPoint {
        let mut out: Vec<Factor> = Vec::with_capacity(factors.len());
        for f in factors {
            match (out.last_mut(), f) {
                (Some(Factor::Place { r, p }), Factor::Place { r: r2, p: p2 }) => {
                    let pr = apply_c(r, &p2);
                    *p = add(*p, pr);
                    *r = mul_c(r, &r2);
                }
                (_, f) => out.push(f),
            }
        }
        ChainPoint {
            factors: out,
            local,
        }
    }
    /// The factors.
    pub fn factors(&self) -> &[Factor] {
        &self.factors
    }
    /// The coordinates it depends on.
    pub fn coords(&self) -> BTreeSet<usize> {
        let mut s = BTreeSet::new();
        for f in &self.factors {
            match f {
                Factor::Place { .. } => {}
                Factor::Turn { coord, .. } | Factor::Slide { coord, .. } => {
                    s.insert(*coord);
                }
                Factor::Quaternion { coords } => s.extend(coords),
            }
        }
        s
    }
    /// The same chain on renamed coordinates (`j → f(j)`).
    pub fn remap(&self, f: &dyn Fn(usize) -> usize) -> ChainPoint {
        let factors = (self.factors.iter())
            .map(|x| match x {
                Factor::Turn { axis, coord } => Factor::Turn {
                    axis: *axis,
                    coord: f(*coord),
                },
                Factor::Slide { axis, coord, scale } => Factor::Slide {
                    axis: *axis,
                    coord: f(*coord),
                    scale: *scale,
                },
                Factor::Quaternion { coords } => Factor::Quaternion {
                    coords: coords.map(f),
                },
                place => place.clone(),
            })
            .collect();
        ChainPoint {
            factors,
            local: self.local,
        }
    }
    /// The position at coordinates `q` (global, as the chain is written).
    pub fn eval(&self, q: &[f64]) -> [f64; 3] {
        self.pos(&|j| q[j])
    }
    /// The position at coordinates `q(j)`.
    pub fn pos<D: DualNum<Primitive = f64> + Copy>(&self, q: &dyn Fn(usize) -> D) -> [D; 3] {
        let (o, z) = (D::from(1.0), D::from(0.0));
        let mut r = [[o, z, z], [z, o, z], [z, z, o]];
        let mut p = [z; 3];
        for f in &self.factors {
            match f {
                Factor::Place { r: c, p: cp } => {
                    p = add(p, apply_c(&r, cp));
                    r = mul_c(&r, c);
                }
                Factor::Turn { axis, coord } => r = mul(&r, &rot_axis(*axis, q(*coord))),
                Factor::Slide { axis, coord, scale } => {
                    let s = q(*coord) * *scale;
                    p = std::array::from_fn(|i| p[i] + r[i][*axis] * s);
                }
                Factor::Quaternion { coords } => {
                    r = mul(&r, &quat_rotation(&coords.map(q)));
                }
            }
        }
        add(p, apply_c(&r, &self.local))
    }
    /// The position and its derivative along `dq`: `(x(q), ∂x/∂q · dq)`.
    pub fn pos_tangent<D: DualNum<Primitive = f64> + Copy>(
        &self,
        q: &dyn Fn(usize) -> D,
        dq: &dyn Fn(usize) -> D,
    ) -> ([D; 3], [D; 3]) {
        let (o, z) = (D::from(1.0), D::from(0.0));
        let mut r = [[o, z, z], [z, o, z], [z, z, o]];
        let (mut p, mut dr, mut dp) = ([z; 3], [[z; 3]; 3], [z; 3]);
        for f in &self.factors {
            match f {
                Factor::Place { r: c, p: cp } => {
                    p = add(p, apply_c(&r, cp));
                    dp = add(dp, apply_c(&dr, cp));
                    r = mul_c(&r, c);
                    dr = mul_c(&dr, c);
                }
                Factor::Turn { axis, coord } => {
                    let turn = rot_axis(*axis, q(*coord));
                    r = mul(&r, &turn);
                    let spin = times_skew(&r, *axis);
                    let rate = dq(*coord);
                    let dr1 = mul(&dr, &turn);
                    dr = std::array::from_fn(|i| {
                        std::array::from_fn(|k| dr1[i][k] + spin[i][k] * rate)
                    });
                }
                Factor::Slide { axis, coord, scale } => {
                    let (s, ds) = (q(*coord) * *scale, dq(*coord) * *scale);
                    for i in 0..3 {
                        dp[i] += dr[i][*axis] * s + r[i][*axis] * ds;
                        p[i] += r[i][*axis] * s;
                    }
                }
                Factor::Quaternion { coords } => {
                    let (a, da) = (coords.map(q), coords.map(dq));
                    let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]).recip();
                    let dn = (a[0] * da[0] + a[1] * da[1] + a[2] * da[2] + a[3] * da[3]) * n;
                    let turn = quat(&a, &a).map(|row| row.map(|x| x * n));
                    let (b1, b2) = (quat(&a, &da), quat(&da, &a));
                    let dturn: M3<D> = std::array::from_fn(|i| {
                        std::array::from_fn(|k| (b1[i][k] + b2[i][k]) * n - turn[i][k] * (dn + dn))
                    });
                    let (dr1, dr2) = (mul(&dr, &turn), mul(&r, &dturn));
                    dr = std::array::from_fn(|i| std::array::from_fn(|k| dr1[i][k] + dr2[i][k]));
                    r = mul(&r, &turn);
                }
            }
        }
        (
            add(p, apply_c(&r, &self.local)),
            add(dp, apply_c(&dr, &self.local)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of every factor, turned placements between.
    fn chain() -> ChainPoint {
        let place = |a: f64, p: [f64; 3]| {
            let r = rot_axis(0, a);
            let r2 = rot_axis(1, 0.5 * a);
            Factor::Place {
                r: std::array::from_fn(|i| {
                    std::array::from_fn(|k| (0..3).map(|m| r[i][m] * r2[m][k]).sum())
                }),
                p,
            }
        };
        ChainPoint::new(
            vec![
                place(0.3, [0.1, 0.2, 0.3]),
                Factor::Turn { axis: 2, coord: 0 },
                place(-0.7, [1.0, 0.0, 0.2]),
                place(0.2, [0.0, 0.1, 0.0]),
                Factor::Slide {
                    axis: 2,
                    coord: 1,
                    scale: 1.0,
                },
                Factor::Turn { axis: 0, coord: 2 },
                Factor::Turn { axis: 1, coord: 3 },
                Factor::Slide {
                    axis: 0,
                    coord: 4,
                    scale: 0.3,
                },
                place(1.1, [0.0, 0.5, -0.1]),
                Factor::Quaternion {
                    coords: [5, 6, 7, 8],
                },
            ],
            [0.4, -0.3, 0.2],
        )
    }

    #[test]
    fn placements_merge_and_the_tangent_is_the_derivative() {
        let c = chain();
        assert_eq!(c.factors().len(), 9, "the two placements in a row are one");
        let q = [0.4, -0.2, 0.9, -1.3, 0.5, 0.8, 0.3, -0.5, 0.6];
        let dq = [0.3, 1.1, -0.4, 0.7, -0.2, 0.5, -0.9, 0.2, 0.4];
        let (x, dx) = c.pos_tangent(&|j| q[j], &|j| dq[j]);
        assert_eq!(x, c.eval(&q));
        let h = 1e-6;
        let at = |s: f64| c.eval(&std::array::from_fn::<f64, 9, _>(|j| q[j] + s * dq[j]));
        let (up, down) = (at(h), at(-h));
        for k in 0..3 {
            let fd = (up[k] - down[k]) / (2.0 * h);
            assert!((dx[k] - fd).abs() < 1e-8, "{k}: {} vs {fd}", dx[k]);
        }
        // the quaternion's length does not matter
        let mut scaled = q;
        for j in 5..9 {
            scaled[j] *= 2.5;
        }
        let y = c.eval(&scaled);
        assert!((0..3).all(|k| (x[k] - y[k]).abs() < 1e-14));
        // renamed coordinates
        let moved = c.remap(&|j| j + 2);
        assert_eq!(moved.coords(), (2..11).collect());
        let mut q2 = vec![0.0; 2];
        q2.extend(q);
        assert_eq!(moved.eval(&q2), x);
    }
}
