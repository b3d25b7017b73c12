//! Points on an element's local coordinates, the shared vocabulary of the elements that act on
//! points rather than directly on coordinates (a particle at a derived point, a spring between
//! points of two bodies, a rigid body on its basic items).
//!
//! A point is an affine function of the local coordinates, `x(q) = c + Σ_j a_j q_j` (free and
//! fixed points, points of planar rigid bodies), or an [expression](crate::expr::VExpr) of them
//! and of time (points of 3D bodies, `Define` items of mechanism files). [`localize`] turns
//! points written on the global coordinates ([`PointMap`]) into the local coordinate list an
//! element is placed on and the points on it.

use crate::error::ModelError;
use crate::expr::VExpr;
use crate::model::geometry::PointMap;
use nalgebra::SVector;
use num_dual::DualNum;
use std::collections::BTreeSet;

/// A point on an element's local coordinates.
#[derive(Clone, Debug)]
pub enum LocalPoint {
    /// `x = c + Σ a_j q_j`.
    Affine {
        /// Constant part.
        c: [f64; 3],
        /// Coefficients by local coordinate.
        a: Vec<(usize, [f64; 3])>,
    },
    /// An expression on the local coordinates and time.
    Expr(VExpr),
    /// A point carried by a chain of joints on the local coordinates.
    Chain(std::sync::Arc<super::ChainPoint>),
}

impl LocalPoint {
    /// The point whose `dim` components are the local coordinates `first, first+1, …`.
    pub fn coords(first: usize, dim: usize) -> Self {
        let a = (0..dim)
            .map(|k| {
                let mut e = [0.0; 3];
                e[k] = 1.0;
                (first + k, e)
            })
            .collect();
        LocalPoint::Affine { c: [0.0; 3], a }
    }
    /// A fixed point.
    pub fn fixed(x: [f64; 3]) -> Self {
        LocalPoint::Affine {
            c: x,
            a: Vec::new(),
        }
    }
}

/// The points of one element in a `dim`-dimensional space (2 or 3; in 2D the third component
/// of every point is zero).
#[derive(Clone, Debug)]
pub struct Points {
    /// Spatial dimension.
    pub dim: usize,
    /// The points.
    pub list: Vec<LocalPoint>,
}

impl Points {
    /// `count` points on consecutive local coordinates: point `p` is `q[dim p .. dim (p+1)]`.
    pub fn plain(dim: usize, count: usize) -> Self {
        Points {
            dim,
            list: (0..count)
                .map(|p| LocalPoint::coords(dim * p, dim))
                .collect(),
        }
    }
    /// Given points.
    pub fn new(dim: usize, list: Vec<LocalPoint>) -> Self {
        Points { dim, list }
    }
    /// Whether every point is affine in the coordinates (no expression, no time): velocities
    /// are then constant linear maps of `v`, and a kinetic energy of them has a constant mass
    /// matrix.
    pub fn is_affine(&self) -> bool {
        self.list
            .iter()
            .all(|p| matches!(p, LocalPoint::Affine { .. }))
    }

    /// Position of point `p`.
    pub(crate) fn pos<D: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        p: usize,
        q: &SVector<D, N>,
        t: D,
    ) -> [D; 3] {
        match &self.list[p] {
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
            LocalPoint::Chain(c) => c.pos(&|j| q[j]),
        }
    }

    /// `∂x_p/∂q · dq + ∂x_p/∂t · dt`.
    pub(crate) fn tangent<D: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        p: usize,
        q: &SVector<D, N>,
        dq: &dyn Fn(usize) -> D,
        t: D,
        dt: D,
    ) -> [D; 3] {
        match &self.list[p] {
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
            LocalPoint::Chain(c) => c.pos_tangent(&|j| q[j], dq).1,
        }
    }

    /// Velocity `ẋ_p = ∂x_p/∂q · v + ∂x_p/∂t`.
    pub(crate) fn vel<D: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        p: usize,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
        t: D,
    ) -> [D; 3] {
        self.tangent(p, q, &|j| v[j], t, D::from(1.0))
    }

    /// Position and velocity of point `p` (one evaluation for an expression point).
    pub(crate) fn pos_vel<D: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        p: usize,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
        t: D,
    ) -> ([D; 3], [D; 3]) {
        match &self.list[p] {
            LocalPoint::Affine { .. } => (self.pos(p, q, t), self.vel(p, q, v, t)),
            LocalPoint::Expr(e) => e.value_and_tangent(&|j| q[j], &|j| v[j], t, D::from(1.0)),
            LocalPoint::Chain(c) => c.pos_tangent(&|j| q[j], &|j| v[j]),
        }
    }

    /// `∂x_p/∂q_j`.
    pub(crate) fn partial<D: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        p: usize,
        q: &SVector<D, N>,
        j: usize,
        t: D,
    ) -> [D; 3] {
        let unit = |l: usize| D::from(if l == j { 1.0 } else { 0.0 });
        self.tangent(p, q, &unit, t, D::from(0.0))
    }

    /// `a·b` over the first `dim` components.
    pub(crate) fn dot<D: DualNum<Primitive = f64> + Copy>(&self, a: &[D; 3], b: &[D; 3]) -> D {
        let mut s = D::from(0.0);
        for k in 0..self.dim {
            s += a[k] * b[k];
        }
        s
    }

    /// Potential of mass `m` at `x` in uniform gravity `g`: `−m g·x`.
    pub(crate) fn grav<D: DualNum<Primitive = f64> + Copy>(
        &self,
        x: &[D; 3],
        m: f64,
        g: &[f64; 3],
    ) -> D {
        let mut s = D::from(0.0);
        for k in 0..self.dim {
            s -= x[k] * (m * g[k]);
        }
        s
    }
}

/// The local coordinate list of a set of points written on the global coordinates (sorted
/// global indices) and the points rewritten on it. Points given by Rust code
/// ([`PointMap::Custom`]) cannot be differentiated and are refused.
pub fn localize(dim: usize, points: &[&PointMap]) -> Result<(Vec<usize>, Points), ModelError> {
    localize_with(dim, points, &BTreeSet::new())
}

/// [`localize`] with `extra` global coordinates on the list too (those an element's other
/// expressions involve, e.g. a force that depends on other points).
pub fn localize_with(
    dim: usize,
    points: &[&PointMap],
    extra: &BTreeSet<usize>,
) -> Result<(Vec<usize>, Points), ModelError> {
    let mut set = extra.clone();
    for p in points {
        set.extend(p.coords());
    }
    let idx: Vec<usize> = set.into_iter().collect();
    let at = |j: usize| idx.binary_search(&j).unwrap_or(usize::MAX);
    let list = points
        .iter()
        .map(|p| match p {
            PointMap::Affine(p) => Ok(LocalPoint::Affine {
                c: p.c,
                a: p.a.iter().map(|(j, v)| (at(*j), *v)).collect(),
            }),
            PointMap::Expr(e) => Ok(LocalPoint::Expr(e.remap(&at))),
            PointMap::Chain(c, _) => Ok(LocalPoint::Chain(std::sync::Arc::new(c.remap(&at)))),
            PointMap::Custom(_) => Err(ModelError::NotDifferentiable),
        })
        .collect::<Result<_, _>>()?;
    Ok((idx, Points { dim, list }))
}

/// The moving frame of a 3D body tracked by three basic items `[A, B, C]` (natural coordinates
/// after DAETS, Nedialkov & Pryce): `A` is a point, `B` and `C` points or vectors, at `A = 0`,
/// `B = (b, 0, 0)`, `C = (c₁, c₂, 0)` in the body frame with `b, c₂ > 0`. With `B̃ = B − A` (or
/// `B` for a vector) and `C̃` likewise, `i = B̃/b`, `j = (C̃ − c₁ i)/c₂`, `k = i × j`,
/// `Q = [i, j, k]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Whether `B` is a point (else a vector).
    pub b_point: bool,
    /// Whether `C` is a point (else a vector).
    pub c_point: bool,
    /// Body-frame `B = (b, 0, 0)`.
    pub b: f64,
    /// Body-frame `C = (c₁, c₂, 0)`.
    pub c: [f64; 2],
}

impl Frame {
    /// Three points `A`, `B = A + b e₁`, `C = A + c₁ e₁ + c₂ e₂` in the body frame.
    pub fn points(b: f64, c: [f64; 2]) -> Self {
        Frame {
            b_point: true,
            c_point: true,
            b,
            c,
        }
    }

    /// Whether the geometry is valid: `b > 0` and `c₂ > 0`.
    pub fn check(&self) -> Result<(), ModelError> {
        if !(self.b > 0.0) || !(self.c[1] > 0.0) || !self.c[0].is_finite() {
            return Err(ModelError::BadGeometry {
                element: "body frame".into(),
                detail: format!(
                    "need B = (b, 0, 0) with b > 0 and C = (c1, c2, 0) with c2 > 0, got b = {}, \
                     c = [{}, {}]",
                    self.b, self.c[0], self.c[1]
                ),
            });
        }
        Ok(())
    }

    /// `[i, j]` from the world positions of the basic items (`k = i × j`). The map is linear,
    /// so applied to the items' velocities or partial derivatives it gives `[i̇, j̇]` or `[∂i, ∂j]`.
    pub fn columns<D: DualNum<Primitive = f64> + Copy>(&self, x: &[[D; 3]; 3]) -> [[D; 3]; 2] {
        let [a, b, c] = x;
        let (wb, wc) = (
            if self.b_point { 1.0 } else { 0.0 },
            if self.c_point { 1.0 } else { 0.0 },
        );
        let i: [D; 3] = three(|k| (b[k] - a[k] * wb) * (1.0 / self.b));
        let j: [D; 3] = three(|k| (c[k] - a[k] * wc - i[k] * self.c[0]) * (1.0 / self.c[1]));
        [i, j]
    }

    /// `B̃ = B − A` (or `B`) and `C̃ = C − A` (or `C`).
    pub(crate) fn relative<D: DualNum<Primitive = f64> + Copy>(
        &self,
        x: &[[D; 3]; 3],
    ) -> [[D; 3]; 2] {
        let rel = |p: &[D; 3], point: bool| -> [D; 3] { if point { sub(p, &x[0]) } else { *p } };
        [rel(&x[1], self.b_point), rel(&x[2], self.c_point)]
    }
}

/// `x × y`.
pub(crate) fn cross<D: DualNum<Primitive = f64> + Copy>(x: &[D; 3], y: &[D; 3]) -> [D; 3] {
    [
        x[1] * y[2] - x[2] * y[1],
        x[2] * y[0] - x[0] * y[2],
        x[0] * y[1] - x[1] * y[0],
    ]
}

/// `[f(0), f(1), f(2)]`, written out so the closure is inlined where it is used: the standard
/// library's `array::from_fn` and `<[T; 3]>::map` call it from a loop of their own, compiled
/// as a function for every number type and local size an element's energies run on
/// (benches/README.md, "The library's elements on points as three types").
#[inline(always)]
pub(crate) fn three<T>(mut f: impl FnMut(usize) -> T) -> [T; 3] {
    [f(0), f(1), f(2)]
}

/// `a − b`.
pub(crate) fn sub<D: DualNum<Primitive = f64> + Copy>(a: &[D; 3], b: &[D; 3]) -> [D; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
