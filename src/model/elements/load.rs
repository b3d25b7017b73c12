//! Applied forces: a time-dependent force on a coordinate point (hand kernel, no derivatives
//! needed) and a force at any point of the mechanism ([`PointForce`]).

use super::Points;
use super::points::{LocalPoint, three};
use crate::expr::VExpr;
use crate::expr::vector::VELOCITY;
use crate::model::kernel::{KernelCoefficients, TermKernel};
use crate::model::{Declared, KineticForm, Structure};
use nalgebra::{SMatrix, SVector};
use num_dual::DualNum;
use std::sync::Arc;

/// A time-dependent external force `f(t)` on one point: `r = −f(t)`, no Jacobian.
#[derive(Clone)]
pub struct LoadKernel<const D: usize> {
    /// The force as a function of time.
    pub force: Arc<dyn Fn(f64) -> [f64; D] + Send + Sync>,
}

impl<const D: usize> TermKernel<D> for LoadKernel<D> {
    const USES_Q: bool = false;
    const USES_V: bool = false;
    const USES_A: bool = false;
    fn residual(
        &self,
        t: f64,
        _q: &SVector<f64, D>,
        _v: &SVector<f64, D>,
        _a: &SVector<f64, D>,
    ) -> SVector<f64, D> {
        -SVector::<f64, D>::from((self.force)(t))
    }
    fn jacobian(
        &self,
        t: f64,
        q: &SVector<f64, D>,
        v: &SVector<f64, D>,
        a: &SVector<f64, D>,
        _c: &KernelCoefficients,
    ) -> (SVector<f64, D>, SMatrix<f64, D, D>) {
        (self.residual(t, q, v, a), SMatrix::zeros())
    }
    fn energy(&self, _t: f64, _q: &SVector<f64, D>, _v: &SVector<f64, D>) -> [f64; 3] {
        [0.0; 3]
    }
    fn momentum(&self, _t: f64, _q: &SVector<f64, D>, _v: &SVector<f64, D>) -> SVector<f64, D> {
        SVector::zeros()
    }
    fn power(&self, t: f64, _q: &SVector<f64, D>, v: &SVector<f64, D>) -> [f64; 3] {
        [SVector::<f64, D>::from((self.force)(t)).dot(v), 0.0, 0.0]
    }
}

/// A force `F(t, q, v)` (world components: expressions in time, the local coordinates
/// `coord(j)` and their velocities [`VExpr::velocity`]`(j)`) applied at a point `x(q, t)` of
/// the mechanism: virtual work `F·δx`, so `Q_j = F·∂x/∂q_j`. A force that depends on the state
/// (a spring written as a force, drag `−c|ẋ|ẋ`, a Lorentz force `e ẋ × b`) is differentiated
/// like every other term, so its stiffness and damping Jacobians are exact. A scalar quantity
/// `s(q)` is the point `(s, 0, 0)`: the force `(f, 0, 0)` on it is the generalized force `f`
/// along `s` (a load on a coordinate, a torque along an angle).
///
/// ```
/// use lagrangian::model::elements::{LocalPoint, PointForce, Points};
/// use lagrangian::expr::VExpr;
/// use lagrangian::ad::{term_blocks, term_residual};
/// // F = (0, 2t) at the point (q₀, 3 q₁): at t = 1 the generalized force is (0, 6)
/// let x = LocalPoint::Affine { c: [0.0; 3], a: vec![(0, [1.0, 0.0, 0.0]), (1, [0.0, 3.0, 0.0])] };
/// let f = PointForce {
///     point: Points::new(2, vec![x.clone()]),
///     force: [VExpr::constant(0.0), VExpr::product(VExpr::constant(2.0), VExpr::time())?, VExpr::constant(0.0)],
/// };
/// let r = term_residual::<_, 2>(&f, 1.0, &[0.0, 0.0], &[0.0; 2], &[0.0; 2]);
/// assert!(r[0].abs() < 1e-15 && (r[1] + 6.0).abs() < 1e-15);
/// // F = (−4 q₀, −v₁): Q = (−4 q₀, −3 v₁), stiffness 4 and damping 3 in the Jacobian
/// let f = PointForce {
///     point: Points::new(2, vec![x]),
///     force: [
///         VExpr::product(VExpr::constant(-4.0), VExpr::coord(0))?,
///         VExpr::negative(VExpr::velocity(1)),
///         VExpr::constant(0.0),
///     ],
/// };
/// let b = term_blocks::<_, 2>(&f, 0.0, &[0.5, 0.0], &[0.0, 2.0], &[0.0; 2]);
/// assert!((b.r[0] - 2.0).abs() < 1e-15 && (b.r[1] - 6.0).abs() < 1e-15);
/// assert!((b.stiffness[(0, 0)] - 4.0).abs() < 1e-15 && (b.damping[(1, 1)] - 3.0).abs() < 1e-15);
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug)]
pub struct PointForce {
    /// The point (one).
    pub point: Points,
    /// The force's world components (the third is ignored in 2D), expressions of `t`, the local
    /// coordinates and their velocities.
    pub force: [VExpr; 3],
}

impl<const N: usize> Declared<N> for PointForce {
    const KINETIC: KineticForm = KineticForm::Zero;
    fn structure(&self) -> Structure {
        Structure::NoKinetic
    }
    fn force<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> SVector<T, N> {
        let mut out = SVector::<T, N>::from_element(T::from(0.0));
        let p = &self.point;
        let state = |j: usize| match j >= VELOCITY {
            true => v[j - VELOCITY],
            false => q[j],
        };
        let fv = three(|k| match k < p.dim {
            true => self.force[k].eval_scalar(&state, t),
            false => T::from(0.0),
        });
        match &p.list[0] {
            LocalPoint::Affine { a, .. } => {
                for (j, a) in a {
                    for k in 0..p.dim {
                        if a[k] != 0.0 {
                            out[*j] += fv[k] * a[k];
                        }
                    }
                }
            }
            LocalPoint::Expr(_) | LocalPoint::Chain(_) => {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = p.dot(&fv, &p.partial(0, q, j, t));
                }
            }
        }
        out
    }
}
