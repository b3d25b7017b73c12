//! A constraint written out as an expression.

use crate::expr::VExpr;
use crate::model::Constraint;
use nalgebra::SVector;
use num_dual::DualNum;

/// A holonomic, possibly rheonomic, constraint written as a scalar expression of the local
/// coordinates and time: `C(t, q) = 0` (the `Equations` of a mechanism file). Its Jacobian,
/// `C_t` and the acceleration term come from forward AD of the expression.
///
/// ```
/// use lagrangian::model::elements::Equation;
/// use lagrangian::expr::VExpr;
/// use lagrangian::ad::constraint_blocks;
/// // x² + y² − 4 on the local coordinates (x, y) = (q₀, q₁)
/// let (x, y, c) = (VExpr::coord(0), VExpr::coord(1), VExpr::constant);
/// let e = VExpr::sum(VExpr::sum(VExpr::product(x.clone(), x)?, VExpr::product(y.clone(), y)?, false)?,
///                    c(4.0), true)?;
/// let b = constraint_blocks::<_, 2, 1>(&Equation { expr: e }, 0.0, &[1.0, 1.0], &[0.0]);
/// assert!((b.c[0] + 2.0).abs() < 1e-15 && (b.jac[(0, 0)] - 2.0).abs() < 1e-15);
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug)]
pub struct Equation {
    /// The expression on the local coordinates.
    pub expr: VExpr,
}

impl<const N: usize> Constraint<N, 1> for Equation {
    fn constraint<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
    ) -> SVector<T, 1> {
        SVector::from([self.expr.eval_scalar(&|j| q[j], t)])
    }
}
