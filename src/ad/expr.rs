//! The kernel of energies written as expressions ([`ExprEnergy`]: a mechanism file's
//! `Potentials`, `Dissipation` and `Lagrangian: { T, V, R }`).
//!
//! Without a kinetic energy the residual is `r = ∂V/∂q + ∂R/∂v`: gradients of scalar
//! expressions, which reverse accumulation on the compiled program gives in a few evaluations'
//! work on `f64` ([`VExpr::gradient`]) — what an explicit method asks for at every stage. A
//! potential of the distance between two points alone, `V = g(t, |x − y|)` (gravitation, a
//! spring written out), takes `∂V/∂x = g′(r) (x − y)/r = −∂V/∂y` from one derivative of `g`
//! ([`VExpr::distance_form`]). The Jacobians, the energies and a kinetic energy's residual take
//! forward AD ([`TermAd`]).

use crate::ad::TermAd;
use crate::expr::VExpr;
use crate::expr::taylor::TaylorVar;
use crate::expr::vector::{DistanceForm, Part};
use crate::model::elements::ExprEnergy;
use crate::model::kernel::{KernelCoefficients, TermKernel};
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual, DualNum};

/// [`TermAd`] of an [`ExprEnergy`] with the residual of `V` and `R` by reverse accumulation.
pub struct ExprKernel<const N: usize> {
    ad: TermAd<ExprEnergy, N>,
    /// The potential as a function of one distance, when it is one.
    distance: Option<DistanceForm>,
    /// `V = c/|x − y|` without kinetic energy or dissipation, in straight-line form.
    inverse: Option<InversePair<N>>,
}

/// `V = c/|x − y|` (gravitation, electrostatics) as straight-line code: `d = x − y = P q + b`
/// with `P` (3 × N) holding `+1` where a component of `x` is a coordinate and `−1` where one of
/// `y` is, `b` the constants' difference, and `∂V/∂q = Pᵀ g` with `g = −c d/|d|³` — no branch on
/// which parts are coordinates and no scattered writes (the sums only add exact zeros to the
/// operations of [`distance_gradient`]: the same bits).
#[derive(Clone, Copy, Debug)]
struct InversePair<const N: usize> {
    p: [[f64; N]; 3],
    b: [f64; 3],
    c: f64,
}

impl<const N: usize> InversePair<N> {
    /// The straight-line form of `form` when it is `c/r`.
    fn new(form: &DistanceForm) -> Option<Self> {
        let c = form.inverse?;
        let mut me = InversePair {
            p: [[0.0; N]; 3],
            b: [0.0; 3],
            c,
        };
        for (sign, point) in [(1.0, form.x), (-1.0, form.y)] {
            for (k, part) in point.iter().enumerate() {
                match *part {
                    Part::Coord(j) => *me.p[k].get_mut(j)? += sign,
                    Part::Const(b) => me.b[k] += sign * b,
                }
            }
        }
        Some(me)
    }

    #[inline(always)]
    fn residual(&self, q: &SVector<f64, N>) -> SVector<f64, N> {
        let d: [f64; 3] = std::array::from_fn(|k| {
            let mut s = 0.0;
            for i in 0..N {
                s += self.p[k][i] * q[i];
            }
            s + self.b[k]
        });
        let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let slope = -self.c / (len * len * len);
        let g = d.map(|dk| slope * dk);
        SVector::from_fn(|i, _| self.p[0][i] * g[0] + self.p[1][i] * g[1] + self.p[2][i] * g[2])
    }
}

impl<const N: usize> ExprKernel<N> {
    /// The kernel of `e` on its `N` local coordinates.
    pub fn new(e: ExprEnergy) -> Self {
        let distance = (e.potential.as_ref()).and_then(VExpr::distance_form);
        let inverse = (distance.as_ref())
            .filter(|_| e.kinetic.is_none() && e.dissipation.is_none())
            .and_then(InversePair::new);
        ExprKernel {
            ad: TermAd::new(e),
            distance,
            inverse,
        }
    }

    /// The residual of any energy but an [`InversePair`].
    #[inline(never)]
    fn general_residual(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
    ) -> SVector<f64, N> {
        match self.without_kinetic() {
            Some(e) => gradient_residual(&e.potential, &self.distance, &e.dissipation, t, q, v),
            None => self.ad.residual(t, q, v, a),
        }
    }

    /// The energy when it has no kinetic energy (its residual is `∂V/∂q + ∂R/∂v`); `None`
    /// when its residual is forward AD's.
    fn without_kinetic(&self) -> Option<&ExprEnergy> {
        let e = &self.ad.term.term;
        e.kinetic.is_none().then_some(e)
    }
}

/// `∂V/∂q + ∂R/∂v` at `(t, q, v)`, the potential's part from `distance` when it is one.
fn gradient_residual<const N: usize>(
    potential: &Option<VExpr>,
    distance: &Option<DistanceForm>,
    dissipation: &Option<VExpr>,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, N> {
    let mut r = SVector::<f64, N>::zeros();
    // the parts a potential's `v` and a dissipation's `q` would give, not used
    let mut unused = [0.0; N];
    match (distance, potential) {
        (Some(form), _) => distance_gradient(form, t, q, &mut r),
        (None, Some(p)) => {
            p.gradient_into(t, q.as_slice(), v.as_slice(), r.as_mut_slice(), &mut unused);
        }
        (None, None) => {}
    }
    if let Some(d) = dissipation {
        d.gradient_into(t, q.as_slice(), v.as_slice(), &mut unused, r.as_mut_slice());
    }
    r
}

/// `∂V/∂q` of `V = g(t, |x − y|)` added to `r`: `g′(r) d/r` at `x`, its opposite at `y` (on
/// `f64`, and on [`TaylorVar`]s for the Taylor method: a few operations on series instead of a
/// pass of the potential on dual numbers over every coordinate).
fn distance_gradient<D: DualNum<Primitive = f64> + Copy, const N: usize>(
    form: &DistanceForm,
    t: D,
    q: &SVector<D, N>,
    r: &mut SVector<D, N>,
) {
    let at = |p: Part| match p {
        Part::Coord(j) => q[j],
        Part::Const(c) => D::from(c),
    };
    let d: [D; 3] = std::array::from_fn(|k| at(form.x[k]) - at(form.y[k]));
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    // g′(r)/r
    let slope = match form.inverse {
        Some(c) => D::from(-c) / (len * len * len),
        None => {
            let g =
                (form.g).eval_scalar::<Dual<D>>(&|_| Dual::new(len, D::one()), Dual::from_re(t));
            g.eps / len
        }
    };
    for k in 0..3 {
        if let Part::Coord(j) = form.x[k] {
            r[j] += slope * d[k];
        }
        if let Part::Coord(j) = form.y[k] {
            r[j] -= slope * d[k];
        }
    }
}

impl<const N: usize> TermKernel<N> for ExprKernel<N> {
    const PARALLEL: bool = true;
    fn constant_mass(&self) -> bool {
        self.ad.constant_mass()
    }
    #[inline(always)]
    fn residual(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
    ) -> SVector<f64, N> {
        // the pair's few operations inlined into the group's loop (so that the loop stays short
        // and consecutive pairs' square roots and divisions overlap), the rest called
        match &self.inverse {
            Some(pair) => pair.residual(q),
            None => self.general_residual(t, q, v, a),
        }
    }
    fn jacobian(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
        c: &KernelCoefficients,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        match self.without_kinetic() {
            // M = 0: the matrix of a state's accelerations needs the residual alone
            Some(e) if c.stiffness == 0.0 && c.damping == 0.0 => (
                gradient_residual(&e.potential, &self.distance, &e.dissipation, t, q, v),
                SMatrix::zeros(),
            ),
            _ => self.ad.jacobian(t, q, v, a, c),
        }
    }
    fn energy(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> [f64; 3] {
        self.ad.energy(t, q, v)
    }
    fn momentum(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N> {
        self.ad.momentum(t, q, v)
    }
    fn power(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> [f64; 3] {
        self.ad.power(t, q, v)
    }
    fn taylor_residual(
        &self,
        t: TaylorVar,
        q: &SVector<TaylorVar, N>,
        v: &SVector<TaylorVar, N>,
        a: &SVector<TaylorVar, N>,
    ) -> Option<SVector<TaylorVar, N>> {
        match (self.without_kinetic(), &self.distance) {
            (Some(e), Some(form)) if e.dissipation.is_none() => {
                let mut r = SVector::from_element(TaylorVar::constant(0.0));
                distance_gradient(form, t, q, &mut r);
                Some(r)
            }
            _ => self.ad.taylor_residual(t, q, v, a),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::taylor::series_of;
    use crate::expr::vector::Sym;

    #[test]
    fn residual_and_jacobians_equal_forward_ad() {
        // V = −k/|x₁ − x₀| + x₀·x₁ t, R = c|v₁ − v₀|²/2 + q₀ v₀²
        let sym = |n: &str| {
            let p = |o: usize| VExpr::pack([0, 1, 2].map(|k| VExpr::coord(o + k)));
            let w = |o: usize| VExpr::pack([0, 1, 2].map(|k| VExpr::velocity(o + k)));
            Some(Sym::Item(match n {
                "A" => p(0),
                "B" => p(3),
                "vA" => w(0),
                "vB" => w(3),
                "s" => VExpr::coord(0),
                "u" => VExpr::velocity(0),
                _ => return None,
            }))
        };
        let e = |s: &str| Some(VExpr::parse(s, 3, &sym).unwrap());
        let energy = ExprEnergy {
            kinetic: None,
            potential: e("-2/norm(B - A) + dot(A, B)*t"),
            dissipation: e("0.3*dot(vB - vA, vB - vA)/2 + s*u**2"),
        };
        let fast = ExprKernel::<6>::new(energy.clone());
        let ad = TermAd::<_, 6>::new(energy);
        let q = SVector::<f64, 6>::from([0.1, -0.4, 0.3, 1.2, 0.5, -0.7]);
        let v = SVector::<f64, 6>::from([0.3, 0.2, -0.1, -0.5, 0.4, 0.6]);
        let a = SVector::<f64, 6>::from([9.0; 6]);
        let (r1, r2) = (fast.residual(0.8, &q, &v, &a), ad.residual(0.8, &q, &v, &a));
        assert!((r1 - r2).norm() < 1e-14 * r2.norm(), "{r1} vs {r2}");
        for c in [(1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.5, 0.25)] {
            let c = KernelCoefficients {
                mass: c.0,
                damping: c.1,
                stiffness: c.2,
            };
            let (x1, j1) = fast.jacobian(0.8, &q, &v, &a, &c);
            let (x2, j2) = ad.jacobian(0.8, &q, &v, &a, &c);
            assert!((x1 - x2).norm() < 1e-14 * x2.norm());
            assert!((j1 - j2).norm() <= 1e-14 * j2.norm());
        }
    }

    /// Potentials of one distance — between two points, anchored at a constant one, in the
    /// plane — take the distance's path, and equal forward AD; one that reads a coordinate
    /// beside the distance does not.
    #[test]
    fn inverse_pairs_in_straight_line_form_equal_the_distance_gradient_to_the_bit() {
        // `c/|x − y|` between two moving points, to a fixed point, with constant components,
        // and a point written from two others' coordinates: the branch-free form's residual is
        // the distance gradient's, bit for bit; `c/r` with dissipation keeps the general path
        let sym = |n: &str| {
            let p = |o: usize| VExpr::pack([0, 1, 2].map(|k| VExpr::coord(o + k)));
            let w = |o: usize| VExpr::pack([0, 1, 2].map(|k| VExpr::velocity(o + k)));
            Some(Sym::Item(match n {
                "A" => p(0),
                "B" => p(3),
                "vA" => w(0),
                "P" => VExpr::pack([VExpr::coord(1), VExpr::coord(4), VExpr::constant(0.5)]),
                _ => return None,
            }))
        };
        let q = SVector::<f64, 6>::from([0.1, -0.4, 0.3, 1.2, 0.5, -0.7]);
        let zero = SVector::<f64, 6>::zeros();
        for (text, dissipation, straight) in [
            ("-2/norm(B - A)", None, true),
            ("3.5/norm(A - [1, 2, 3])", None, true),
            ("-1/norm([0.2, 0, -1] - P)", None, true),
            ("-1/norm(P - A)", None, true),
            ("-2/norm(B - A)", Some("dot(vA, vA)"), false),
            ("(norm(B - A) - 1)**2", None, false),
        ] {
            let e = |s: &str| VExpr::parse(s, 3, &sym).unwrap();
            let energy = ExprEnergy {
                potential: Some(e(text)),
                dissipation: dissipation.map(e),
                ..Default::default()
            };
            let kernel = ExprKernel::<6>::new(energy.clone());
            assert_eq!(kernel.inverse.is_some(), straight, "{text}");
            let form = kernel.distance.as_ref().unwrap();
            for scale in [1.0, -3.0, 1e-3, 1e4] {
                let q = q * scale;
                let mut want = SVector::<f64, 6>::zeros();
                distance_gradient(form, 0.0, &q, &mut want);
                if let Some(d) = &energy.dissipation {
                    let mut unused = [0.0; 6];
                    d.gradient_into(
                        0.0,
                        q.as_slice(),
                        zero.as_slice(),
                        &mut unused,
                        want.as_mut_slice(),
                    );
                }
                let got = kernel.residual(0.0, &q, &zero, &zero);
                let bits = |x: &SVector<f64, 6>| x.map(|x| (x + 0.0).to_bits());
                assert_eq!(bits(&got), bits(&want), "{text} at scale {scale}");
            }
        }
    }

    #[test]
    fn potentials_of_one_distance_equal_forward_ad() {
        let sym = |n: &str| {
            let p = |o: usize| VExpr::pack([0, 1, 2].map(|k| VExpr::coord(o + k)));
            Some(Sym::Item(match n {
                "A" => p(0),
                "B" => p(3),
                "P" => VExpr::pack([VExpr::coord(1), VExpr::coord(4), VExpr::constant(0.0)]),
                _ => return None,
            }))
        };
        let q = SVector::<f64, 6>::from([0.1, -0.4, 0.3, 1.2, 0.5, -0.7]);
        let v = SVector::<f64, 6>::from([0.3, 0.2, -0.1, -0.5, 0.4, 0.6]);
        let a = SVector::<f64, 6>::zeros();
        for (text, distance) in [
            ("-2/norm(B - A) + t*(norm(B - A) - 1.5)**2", true),
            ("-2/norm(B - A)", true),
            ("exp(-norm(A - [1, 2, 3]))*(1 + t)", true),
            ("0.5*norm(P - [0, 1, 0])**2", true),
            ("-2/norm(B - A) + A.y", false),
        ] {
            let energy = ExprEnergy {
                potential: Some(VExpr::parse(text, 3, &sym).unwrap()),
                ..Default::default()
            };
            let fast = ExprKernel::<6>::new(energy.clone());
            assert_eq!(fast.distance.is_some(), distance, "{text}");
            let ad = TermAd::<_, 6>::new(energy);
            let (r1, r2) = (fast.residual(0.8, &q, &v, &a), ad.residual(0.8, &q, &v, &a));
            assert!((r1 - r2).norm() < 1e-14 * r2.norm(), "{text}: {r1} vs {r2}");
            // and on series, along a motion q(τ) = q + vτ + aτ²/2 … (the Taylor method's form)
            let series = |kernel: &dyn Fn(&[TaylorVar]) -> SVector<TaylorVar, 6>| {
                let c: Vec<[f64; 4]> = (0..6)
                    .map(|i| [q[i], v[i], 0.3 - 0.1 * i as f64, 0.05 * i as f64])
                    .collect();
                let args: [&[f64]; 7] = std::array::from_fn(|i| match i {
                    0 => &[0.8, 1.0][..],
                    i => &c[i - 1][..],
                });
                series_of(args, 10, |x| {
                    let r = kernel(&x);
                    std::array::from_fn::<_, 6, _>(|i| r[i])
                })
            };
            let got = series(&|x| {
                let qs = SVector::<TaylorVar, 6>::from_fn(|i, _| x[i + 1]);
                let zero = qs.map(|_| TaylorVar::constant(0.0));
                fast.taylor_residual(x[0], &qs, &zero, &zero).unwrap()
            });
            let want = series(&|x| {
                let qs = SVector::<TaylorVar, 6>::from_fn(|i, _| x[i + 1]);
                let zero = qs.map(|_| TaylorVar::constant(0.0));
                ad.taylor_residual(x[0], &qs, &zero, &zero).unwrap()
            });
            for (g, w) in got.iter().zip(&want) {
                for k in 0..10 {
                    let scale = 1.0 + w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                    assert!(
                        (g[k] - w[k]).abs() < 1e-13 * scale,
                        "{text}, coefficient {k}"
                    );
                }
            }
        }
    }
}
