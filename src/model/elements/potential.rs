//! A potential energy written out as an expression.

use crate::expr::VExpr;
use crate::model::Term;
use nalgebra::SVector;
use num_dual::DualNum;

/// A potential energy `V(t, q)` written as a scalar expression of the local coordinates and
/// time (the `AppliedForces.Potentials` of a mechanism file: gravitation between bodies, a
/// user's spring law, a field). Its generalized force `−∂V/∂q` and stiffness `∂²V/∂q²` come
/// from forward AD of the expression; it counts in the potential energy of the output.
///
/// ```
/// use lagrangian::model::elements::ExprPotential;
/// use lagrangian::expr::VExpr;
/// use lagrangian::ad::term_residual;
/// // V = −1/|q| on one coordinate q > 0 (a 1D Kepler potential): r = ∂V/∂q = 1/q² at q = 2
/// let v = VExpr::parse("-1/q0", 3, &|n| (n == "q0").then(|| lagrangian::expr::vector::Sym::Item(VExpr::coord(0)))).unwrap();
/// let r = term_residual::<_, 1>(&ExprPotential { expr: v }, 0.0, &[2.0], &[0.0], &[0.0]);
/// assert!((r[0] - 0.25).abs() < 1e-15);
/// ```
#[derive(Clone, Debug)]
pub struct ExprPotential {
    /// The expression on the local coordinates.
    pub expr: VExpr,
}

impl<const N: usize> Term<N> for ExprPotential {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, N>) -> D {
        self.expr.eval_scalar(&|j| q[j], t)
    }
}
