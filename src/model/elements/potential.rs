//! Energies written out as expressions: a potential, a kinetic energy, a Rayleigh function.

use crate::expr::VExpr;
use crate::expr::vector::VELOCITY;
use crate::model::{Declared, KineticForm, Structure};
use nalgebra::SVector;
use num_dual::DualNum;

/// Energies written as scalar expressions of the local coordinates `q`, their velocities `v`
/// (the leaves `coord(VELOCITY + j)`, see [`VExpr::velocity`]) and time: a kinetic energy
/// `T(t, q, v)`, a potential energy `V(t, q)` and a Rayleigh dissipation function `R(t, q, v)`
/// — the `Lagrangian: { T, V, R }`, `AppliedForces.Potentials` and `AppliedForces.Dissipation`
/// of a mechanism file. The Euler–Lagrange residual `d/dt ∂T/∂v − ∂(T − V)/∂q + ∂R/∂v` and its
/// Jacobians come from forward AD of the expressions; `T` and `V` count in the energies of the
/// output, `R` in the dissipated power.
///
/// ```
/// use lagrangian::model::elements::ExprEnergy;
/// use lagrangian::expr::vector::Sym;
/// use lagrangian::expr::VExpr;
/// use lagrangian::ad::term_residual;
/// // a unit mass on a spring of stiffness 4 with damping 0.5: T = ½v², V = 2q², R = ¼v²
/// let sym = |n: &str| match n {
///     "x" => Some(Sym::Item(VExpr::coord(0))),
///     "x'" => Some(Sym::Item(VExpr::velocity(0))),
///     _ => None,
/// };
/// let e = |s: &str| Some(VExpr::parse(s, 3, &sym).unwrap());
/// let osc = ExprEnergy { kinetic: e("x'**2/2"), potential: e("2*x**2"), dissipation: e("x'**2/4") };
/// // r = a + 0.5 v + 4 q at q = 1, v = 2, a = 3
/// let r = term_residual::<_, 1>(&osc, 0.0, &[1.0], &[2.0], &[3.0]);
/// assert!((r[0] - 8.0).abs() < 1e-14);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ExprEnergy {
    /// `T(t, q, v)`.
    pub kinetic: Option<VExpr>,
    /// `V(t, q)`.
    pub potential: Option<VExpr>,
    /// `R(t, q, v)`.
    pub dissipation: Option<VExpr>,
}

/// `e` at `(t, q, v)`, or zero.
fn at<D: DualNum<Primitive = f64> + Copy, const N: usize>(
    e: &Option<VExpr>,
    t: D,
    q: &SVector<D, N>,
    v: &SVector<D, N>,
) -> D {
    match e {
        Some(e) => e.eval_scalar(
            &|j| match j >= VELOCITY {
                true => v[j - VELOCITY],
                false => q[j],
            },
            t,
        ),
        None => D::from(0.0),
    }
}

impl<const N: usize> Declared<N> for ExprEnergy {
    const KINETIC: KineticForm = KineticForm::Function;
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        at(&self.kinetic, t, q, v)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, N>) -> D {
        at(&self.potential, t, q, q)
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        at(&self.dissipation, t, q, v)
    }
    fn has_dissipation_or_force(&self) -> bool {
        self.dissipation.is_some()
    }
    fn structure(&self) -> Structure {
        match self.kinetic {
            None => Structure::NoKinetic,
            Some(_) => Structure::General,
        }
    }
}
