//! What a term is found to be at sample states (`ad::sampled`): a point mass written as
//! `kinetic = ½ m v·v` runs as a constant mass matrix, a spring written on both ends' six
//! coordinates as a translation-invariant term — with the general derivation's residual and
//! Jacobians, and a chain written that way moving as the same chain written in the short form
//! (`mass`, `Interaction`). Terms for which the properties do not hold keep the general path.

use crate::common::Lcg;
use crate::structure::General;
use lagrangian::ad::{TermAd, compare_term_kernels};
use lagrangian::prelude::*;

/// A point mass under gravity along −y, its kinetic energy written out.
#[derive(Clone)]
struct Bob(f64);
impl Term<3> for Bob {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 3>,
        v: &SVector<D, 3>,
    ) -> D {
        v.dot(v) * (0.5 * self.0)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 3>) -> D {
        q[1] * (9.81 * self.0)
    }
}

/// The same point mass by its mass matrix.
struct Lumped(f64);
impl Term<3> for Lumped {
    fn mass(&self) -> SMatrix<f64, 3, 3> {
        SMatrix::identity() * self.0
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 3>) -> D {
        q[1] * (9.81 * self.0)
    }
}

/// A damped spring (rest length 1) on both ends' coordinates; `gravity` adds the ends' weight.
#[derive(Clone)]
struct Coil {
    k: f64,
    c: f64,
    gravity: bool,
}
impl Term<6> for Coil {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 6>) -> D {
        let d = q.fixed_rows::<3>(3) - q.fixed_rows::<3>(0);
        let s = d.dot(&d).sqrt() - 1.0;
        let weight = if self.gravity {
            (q[1] + q[4]) * 0.981
        } else {
            D::from(0.0)
        };
        s * s * (0.5 * self.k) + weight
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 6>,
        v: &SVector<D, 6>,
    ) -> D {
        let d = q.fixed_rows::<3>(3) - q.fixed_rows::<3>(0);
        let dd = v.fixed_rows::<3>(3) - v.fixed_rows::<3>(0);
        let p = d.dot(&dd);
        p * p / d.dot(&d) * (0.5 * self.c)
    }
}

/// The same spring in the difference of its ends.
struct Difference {
    k: f64,
    c: f64,
}
impl Interaction<3> for Difference {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, d: &SVector<D, 3>) -> D {
        let s = d.dot(d).sqrt() - 1.0;
        s * s * (0.5 * self.k)
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        d: &SVector<D, 3>,
        dd: &SVector<D, 3>,
    ) -> D {
        let p = d.dot(dd);
        p * p / d.dot(d) * (0.5 * self.c)
    }
}

/// A planar pendulum in polar coordinates `(r, φ)`: `T = ½ m (ṙ² + r² φ̇²)`, not constant.
#[derive(Clone)]
struct Polar;
impl Term<2> for Polar {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> D {
        (v[0] * v[0] + q[0] * q[0] * v[1] * v[1]) * 0.5
    }
}

/// The largest relative difference of the kernels' residual and Jacobian blocks from the
/// general derivation's over ten random states.
fn against_general<T: Term<N> + Clone + 'static, const N: usize>(term: T) -> f64 {
    let fast = TermAd::<T, N>::new(term.clone());
    let general = TermAd::<General<T>, N>::new(General(term));
    assert_eq!(general.derivation(), (Structure::General, false));
    let mut rng = Lcg(5);
    (0..10)
        .map(|k| {
            let (q, v, a) = (rng.vec(N), rng.vec(N), rng.vec(N));
            compare_term_kernels(&fast, &general, 0.2 * k as f64, &q, &v, &a)
        })
        .fold(0.0, f64::max)
}

#[test]
fn a_physicists_terms_take_the_structured_derivations() {
    let coil = Coil {
        k: 200.0,
        c: 0.3,
        gravity: false,
    };
    assert_eq!(
        TermAd::new(Bob(2.0)).derivation(),
        (Structure::ConstantMass, false)
    );
    assert_eq!(
        TermAd::new(coil.clone()).derivation(),
        (Structure::NoKinetic, true)
    );
    // the ends' weight acts on each point: not a function of their difference
    let heavy = Coil {
        gravity: true,
        ..coil.clone()
    };
    assert_eq!(
        TermAd::new(heavy.clone()).derivation(),
        (Structure::NoKinetic, false)
    );
    assert_eq!(TermAd::new(Polar).derivation(), (Structure::General, false));
    // the same residual and Jacobians as the general derivation of the same energies
    for (what, w) in [
        ("point mass", against_general(Bob(2.0))),
        ("spring", against_general(coil)),
        ("spring with weight", against_general(heavy)),
        ("polar", against_general(Polar)),
    ] {
        assert!(w < 1e-12, "{what}: {w:e}");
    }
}

/// A chain of `n` masses on damped springs from the origin, written as a physicist writes it
/// (`physicist`) or in the short form.
fn chain(n: usize, physicist: bool) -> Problem {
    let idx = |i: usize| [3 * i, 3 * i + 1, 3 * i + 2];
    let (k, c) = (400.0, 0.5);
    let mut b = Model::builder(3 * n);
    b.add_anchored([0.0; 3], idx(0), Difference { k, c });
    for i in 0..n {
        match physicist {
            true => b.add_term(idx(i), Bob(1.0)),
            false => b.add_term(idx(i), Lumped(1.0)),
        }
        if i > 0 {
            let (p, q) = (idx(i - 1), idx(i));
            match physicist {
                true => {
                    let both = [p[0], p[1], p[2], q[0], q[1], q[2]];
                    let gravity = false;
                    b.add_term(both, Coil { k, c, gravity });
                }
                false => b.add_between(p, q, Difference { k, c }),
            }
        }
    }
    let q0: Vec<f64> = (0..n)
        .flat_map(|i| [(i + 1) as f64, 0.0, 0.1 * i as f64])
        .collect();
    Problem::new(b.build().expect("chain")).guess(&q0, &vec![0.0; 3 * n])
}

#[test]
fn a_chain_written_by_a_physicist_moves_as_the_short_form() -> Result<(), Error> {
    let (a, b) = (chain(30, true).t_end(0.3), chain(30, false).t_end(0.3));
    let a = simulate(&a, GenAlphaOptions::new(1e-3))?;
    let b = simulate(&b, GenAlphaOptions::new(1e-3))?;
    let (qa, qb) = (&a.last().state.q, &b.last().state.q);
    let q0 = &a.records[0].state.q;
    let moved = qa
        .iter()
        .zip(q0)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    assert!(moved > 0.05, "the chain moved {moved}");
    let diff = qa
        .iter()
        .zip(qb)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    assert!(diff < 1e-12, "positions differ by {diff:e}");
    Ok(())
}
