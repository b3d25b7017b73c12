//! A point carried by a chain of joints: its position is a product of constant placements and
//! elementary motions (a turn about a frame axis, a slide along one, a quaternion's turn), each
//! on one or four coordinates, applied to a point fixed in the last frame. Evaluated in
//! `O(depth)` on any number type — where the same point written as an expression of the
//! coordinates grows about 2.6× per joint (each frame's axes are products of the frame's
//! before) — so elements (springs, forces, particles) and expressions may use points of bodies
//! deep in a tree of joints (docs/maths.md §20).
//!
//! A chain is a list of [`ChainLink`]s, each holding its own factors and its parent: the links
//! of a tree are built once and shared by every point on them, so the points of all `n` bodies
//! of a chain take `O(n)` memory, not `O(n²)`. A point is evaluated from its own frame outwards
//! (`x ← F x`, a vector per factor, not a matrix product).
//!
//! The rotation primitives [`rot_axis`] and [`quat_rotation`] are the ones the joint-coordinate
//! trees of [`crate::multibody`] use.

use num_dual::DualNum;
use std::collections::BTreeSet;
use std::sync::Arc;

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

impl Factor {
    /// The same factor on renamed coordinates.
    fn remap(&self, f: &dyn Fn(usize) -> usize) -> Factor {
        match self {
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
        }
    }
}

/// One link of a chain: its factors, applied after its parent's.
#[derive(Debug)]
pub struct ChainLink {
    parent: Option<Arc<ChainLink>>,
    factors: Vec<Factor>,
    /// Factors from the root to this link's last.
    depth: usize,
}

impl ChainLink {
    /// A link after `parent` (consecutive placements merged).
    pub fn new(parent: Option<Arc<ChainLink>>, factors: Vec<Factor>) -> Arc<ChainLink> {
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
        let depth = parent.as_ref().map_or(0, |p| p.depth) + out.len();
        Arc::new(ChainLink {
            parent,
            factors: out,
            depth,
        })
    }
    /// The links from this one to the root.
    fn outwards(&self) -> impl Iterator<Item = &ChainLink> {
        std::iter::successors(Some(self), |l| l.parent.as_deref())
    }
    /// The factors from this link's last to the root's first (the order a point is carried).
    pub(crate) fn factors_outwards(&self) -> impl Iterator<Item = &Factor> {
        self.outwards().flat_map(|l| l.factors.iter().rev())
    }
}

/// A point fixed in the last frame of a chain of factors, `x(q) = F₁(q) F₂(q) ⋯ F_k(q) ℓ`, or
/// a direction fixed there (`R₁(q) ⋯ R_k(q) ℓ`: the factors' rotations alone).
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
/// // the last link's x axis
/// let i = arm.direction([1.0, 0.0, 0.0]).eval(&[q0, q1]);
/// assert!((i[0] - (q0 + q1).cos()).abs() < 1e-15 && (i[1] - (q0 + q1).sin()).abs() < 1e-15);
/// ```
#[derive(Clone, Debug)]
pub struct ChainPoint {
    link: Arc<ChainLink>,
    local: [f64; 3],
    direction: bool,
}

/// `a b` for constant matrices.
fn mul_c(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| {
        std::array::from_fn(|k| a[i][0] * b[0][k] + a[i][1] * b[1][k] + a[i][2] * b[2][k])
    })
}

/// `a x` for a constant `a` and `x` on `D`.
fn apply_c<D: DualNum<Primitive = f64> + Copy>(a: &[[f64; 3]; 3], x: &[D; 3]) -> [D; 3] {
    std::array::from_fn(|i| x[0] * a[i][0] + x[1] * a[i][1] + x[2] * a[i][2])
}

/// `a x` on `D`.
fn apply<D: DualNum<Primitive = f64> + Copy>(a: &M3<D>, x: &[D; 3]) -> [D; 3] {
    std::array::from_fn(|i| a[i][0] * x[0] + a[i][1] * x[1] + a[i][2] * x[2])
}

/// `a + b`.
fn add<D: DualNum<Primitive = f64> + Copy>(a: [D; 3], b: [D; 3]) -> [D; 3] {
    std::array::from_fn(|i| a[i] + b[i])
}

/// `x` turned by `(sin, cos)` about axis `k` (`rot_axis(k, θ) x`).
fn turn<D: DualNum<Primitive = f64> + Copy>(k: usize, s: D, c: D, x: &mut [D; 3]) {
    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
    let (a, b) = (x[i], x[j]);
    x[i] = c * a - s * b;
    x[j] = s * a + c * b;
}

impl ChainPoint {
    /// The point `local` in the last frame of `factors` (consecutive placements merged).
    pub fn new(factors: Vec<Factor>, local: [f64; 3]) -> ChainPoint {
        ChainPoint::on(ChainLink::new(None, factors), local)
    }
    /// The point `local` in the last frame of `link`.
    pub fn on(link: Arc<ChainLink>, local: [f64; 3]) -> ChainPoint {
        ChainPoint {
            link,
            local,
            direction: false,
        }
    }
    /// The direction `d` fixed in the same last frame (the frame's rotation applied to `d`).
    pub fn direction(&self, d: [f64; 3]) -> ChainPoint {
        ChainPoint {
            link: self.link.clone(),
            local: d,
            direction: true,
        }
    }
    /// Whether this is a direction (translations left out).
    pub fn is_direction(&self) -> bool {
        self.direction
    }
    /// The point (or direction) in the last frame.
    pub fn local(&self) -> [f64; 3] {
        self.local
    }
    /// The last link.
    pub fn link(&self) -> &Arc<ChainLink> {
        &self.link
    }
    /// The factors from the root to the last frame.
    pub fn factors(&self) -> Vec<&Factor> {
        let mut all: Vec<&Factor> = self.link.factors_outwards().collect();
        all.reverse();
        all
    }
    /// How many factors carry the point (its evaluation's length).
    pub fn depth(&self) -> usize {
        self.link.depth
    }
    /// The coordinates it depends on.
    pub fn coords(&self) -> BTreeSet<usize> {
        let mut s = BTreeSet::new();
        for f in self.link.factors_outwards() {
            match f {
                Factor::Place { .. } => {}
                Factor::Slide { .. } if self.direction => {}
                Factor::Turn { coord, .. } | Factor::Slide { coord, .. } => {
                    s.insert(*coord);
                }
                Factor::Quaternion { coords } => s.extend(coords),
            }
        }
        s
    }
    /// The same chain on renamed coordinates (`j → f(j)`), as one link of its own.
    pub fn remap(&self, f: &dyn Fn(usize) -> usize) -> ChainPoint {
        let factors = self.factors().into_iter().map(|x| x.remap(f)).collect();
        ChainPoint {
            link: ChainLink::new(None, factors),
            local: self.local,
            direction: self.direction,
        }
    }
    /// The position at coordinates `q` (global, as the chain is written).
    pub fn eval(&self, q: &[f64]) -> [f64; 3] {
        self.pos(&|j| q[j])
    }
    /// The position at coordinates `q(j)`.
    pub fn pos<D: DualNum<Primitive = f64> + Copy>(&self, q: &dyn Fn(usize) -> D) -> [D; 3] {
        let mut x = self.local.map(D::from);
        for f in self.link.factors_outwards() {
            match f {
                Factor::Place { r, p } => {
                    x = apply_c(r, &x);
                    if !self.direction {
                        x = std::array::from_fn(|i| x[i] + p[i]);
                    }
                }
                Factor::Turn { axis, coord } => {
                    let (s, c) = q(*coord).sin_cos();
                    turn(*axis, s, c, &mut x);
                }
                Factor::Slide { .. } if self.direction => {}
                Factor::Slide { axis, coord, scale } => x[*axis] += q(*coord) * *scale,
                Factor::Quaternion { coords } => x = apply(&quat_rotation(&coords.map(q)), &x),
            }
        }
        x
    }
    /// The position and its derivative along `dq`: `(x(q), ∂x/∂q · dq)`.
    ///
    /// Carried outwards with `d(F x) = F dx + (dF) x`: a turn adds `dθ e_k × (F x)`, a slide
    /// `ds e_a`, a quaternion `(dQ) x`.
    pub fn pos_tangent<D: DualNum<Primitive = f64> + Copy>(
        &self,
        q: &dyn Fn(usize) -> D,
        dq: &dyn Fn(usize) -> D,
    ) -> ([D; 3], [D; 3]) {
        let mut x = self.local.map(D::from);
        let mut dx = [D::from(0.0); 3];
        for f in self.link.factors_outwards() {
            match f {
                Factor::Place { r, p } => {
                    x = apply_c(r, &x);
                    dx = apply_c(r, &dx);
                    if !self.direction {
                        x = std::array::from_fn(|i| x[i] + p[i]);
                    }
                }
                Factor::Turn { axis, coord } => {
                    let (s, c) = q(*coord).sin_cos();
                    turn(*axis, s, c, &mut x);
                    turn(*axis, s, c, &mut dx);
                    // dθ e_k × x
                    let (i, j) = ((axis + 1) % 3, (axis + 2) % 3);
                    let rate = dq(*coord);
                    dx[i] -= rate * x[j];
                    dx[j] += rate * x[i];
                }
                Factor::Slide { .. } if self.direction => {}
                Factor::Slide { axis, coord, scale } => {
                    x[*axis] += q(*coord) * *scale;
                    dx[*axis] += dq(*coord) * *scale;
                }
                Factor::Quaternion { coords } => {
                    let (a, da) = (coords.map(q), coords.map(dq));
                    let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]).recip();
                    let dn = (a[0] * da[0] + a[1] * da[1] + a[2] * da[2] + a[3] * da[3]) * n;
                    let turned = apply(&quat(&a, &a), &x).map(|y| y * n);
                    let (b1, b2) = (apply(&quat(&a, &da), &x), apply(&quat(&da, &a), &x));
                    let dturned = apply(&quat(&a, &a), &dx);
                    dx = std::array::from_fn(|i| {
                        (b1[i] + b2[i] + dturned[i]) * n - turned[i] * (dn + dn)
                    });
                    x = turned;
                }
            }
        }
        (x, dx)
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
        assert_eq!(c.depth(), 9);
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
