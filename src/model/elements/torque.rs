//! Applied torques: on a planar body (a couple on its basic points) and on a 3D body (through
//! the virtual rotation of its frame).

use super::points::{LocalPoint, cross, sub, three};
use super::{Frame, Points};
use crate::expr::VExpr;
use crate::model::{Declared, KineticForm, Structure};
use nalgebra::SVector;
use num_dual::DualNum;

/// Value of a load expression in `t` alone.
pub(super) fn of_time(e: &VExpr, t: f64) -> f64 {
    e.eval_scalar::<f64>(&|_| f64::NAN, t)
}

/// A torque `τ(t)` on a planar body with basic points `P₀`, `P₁` a distance `ℓ` apart, applied
/// as the couple `±τ/ℓ² (P₁ − P₀)⊥` on `P₁` and `P₀`: its virtual work is `τ δθ`, so the
/// generalized force is `Q_j = τ/ℓ² (P₁ − P₀)⊥ · ∂(P₁ − P₀)/∂q_j`.
///
/// ```
/// use lagrangian::model::elements::{PlanarTorque, Points};
/// use lagrangian::expr::VExpr;
/// use lagrangian::ad::term_residual;
/// let tau = PlanarTorque { basic: Points::plain(2, 2), torque: VExpr::constant(6.0), length: 2.0 };
/// // body along x: the couple pushes P₁ up and P₀ down with τ/ℓ = 3
/// let r = term_residual::<_, 4>(&tau, 0.0, &[0.0, 0.0, 2.0, 0.0], &[0.0; 4], &[0.0; 4]);
/// assert!((r[3] + 3.0).abs() < 1e-12 && (r[1] - 3.0).abs() < 1e-12);
/// ```
#[derive(Clone, Debug)]
pub struct PlanarTorque {
    /// The body's basic points.
    pub basic: Points,
    /// The torque, an expression in `t`.
    pub torque: VExpr,
    /// Distance `ℓ` between the basic points.
    pub length: f64,
}

impl<const N: usize> Declared<N> for PlanarTorque {
    const KINETIC: KineticForm = KineticForm::Zero;
    fn structure(&self) -> Structure {
        Structure::NoKinetic
    }
    fn force<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
        _v: &SVector<T, N>,
    ) -> SVector<T, N> {
        let mut out = SVector::<T, N>::from_element(T::from(0.0));
        let p = &self.basic;
        let tv = of_time(&self.torque, t.re()) / (self.length * self.length);
        let d = sub(&p.pos(1, q, t), &p.pos(0, q, t));
        let rd = [-d[1], d[0]];
        for (s, k) in [(1.0, 1), (-1.0, 0)] {
            match &p.list[k] {
                LocalPoint::Affine { a, .. } => {
                    for (j, a) in a {
                        out[*j] += (rd[0] * a[0] + rd[1] * a[1]) * (s * tv);
                    }
                }
                LocalPoint::Expr(_) | LocalPoint::Chain(_) => {
                    for (j, o) in out.iter_mut().enumerate() {
                        let dx = p.partial(k, q, j, t);
                        *o += (rd[0] * dx[0] + rd[1] * dx[1]) * (s * tv);
                    }
                }
            }
        }
        out
    }
}

/// A torque vector `τ(t)` (world frame) on a 3D body with basic items `[A, B, C]` ([`Frame`]):
/// the virtual rotation of the frame is `δθ = ½ Σ_a q_a × δq_a` (`q_a` the columns of `Q`),
/// so the generalized force is `Q_j = ½ Σ_a (τ × q_a)·∂q_a/∂q_j`.
///
/// ```
/// use lagrangian::model::elements::{BodyTorque, Frame, Points};
/// use lagrangian::expr::VExpr;
/// use lagrangian::ad::term_residual;
/// let c = VExpr::constant;
/// let tau = BodyTorque {
///     items: Points::plain(3, 3), frame: Frame::points(1.0, [0.0, 1.0]),
///     torque: [c(0.0), c(0.0), c(4.0)],
/// };
/// // τ about z turns B = (1, 0, 0) towards +y and C = (0, 1, 0) towards −x, each with τ/2
/// let q = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
/// let r = term_residual::<_, 9>(&tau, 0.0, &q, &[0.0; 9], &[0.0; 9]);
/// assert!((r[4] + 2.0).abs() < 1e-12 && (r[6] - 2.0).abs() < 1e-12);
/// assert!((r[0] + 2.0).abs() < 1e-12 && (r[1] - 2.0).abs() < 1e-12); // the reaction on A
/// ```
#[derive(Clone, Debug)]
pub struct BodyTorque {
    /// The body's basic items.
    pub items: Points,
    /// The body frame.
    pub frame: Frame,
    /// The torque's world components, expressions in `t`.
    pub torque: [VExpr; 3],
}

impl<const N: usize> Declared<N> for BodyTorque {
    const KINETIC: KineticForm = KineticForm::Zero;
    fn structure(&self) -> Structure {
        Structure::NoKinetic
    }
    fn force<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
        _v: &SVector<T, N>,
    ) -> SVector<T, N> {
        let mut out = SVector::<T, N>::from_element(T::from(0.0));
        let p = &self.items;
        let tv: [T; 3] = three(|k| T::from(of_time(&self.torque[k], t.re())));
        let x = three(|k| p.pos(k, q, t));
        let [i, j] = self.frame.columns(&x);
        let k = cross(&i, &j);
        let arms = [cross(&tv, &i), cross(&tv, &j), cross(&tv, &k)];
        for (l, o) in out.iter_mut().enumerate() {
            let dx = three(|m| p.partial(m, q, l, t));
            let [di, dj] = self.frame.columns(&dx);
            let (a, b) = (cross(&di, &j), cross(&i, &dj));
            let dk: [T; 3] = three(|r| a[r] + b[r]);
            *o = (p.dot(&arms[0], &di) + p.dot(&arms[1], &dj) + p.dot(&arms[2], &dk)) * 0.5;
        }
        out
    }
}
