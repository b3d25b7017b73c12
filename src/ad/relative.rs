//! Terms that depend on their points only through differences (`Declared::TRANSLATION_INVARIANT`,
//! docs/maths.md §15): springs, dampers, any interaction of points that moving all of them by the
//! same vector does not change. With `q = [x₁, …, x_P]` (points of dimension `D`, `N = P·D`),
//! `V(q) = V(0, x₂ − x₁, …, x_P − x₁)`, so the derivatives in `x₁` follow from those in the
//! other points, and each pass is seeded on `H = N − D` coordinates instead of `N`:
//!
//! ```text
//! ∂V/∂q = E g,   ∂²V/∂q² = E G Eᵀ,   ∂Q/∂q = (∂Q/∂x₂…x_P) Eᵀ,
//! E = [−S; I]  (N × H),   S_ki = 1 if reduced coordinate i is component k of its point
//! ```
//!
//! with `g`, `G` the gradient and Hessian in `x₂ … x_P`; likewise for the velocities in `R` and
//! `Q` (which must not change when all points move with a common velocity either). For a 3D
//! spring the passes run on 3 seeds instead of 6: a second-order vector dual carries 13 numbers
//! instead of 43.

use super::dense::Untagged;
use super::{passes, sampled};
use crate::model::kernel::KernelCoefficients;
use crate::model::{Declared, Structure};
use nalgebra::{Dim, SMatrix, SVector};

/// The number of seeded coordinates `H = N − D` of a term declared translation invariant in
/// dimension `D` (0: not declared, or `D` does not divide `N`).
const fn reduced<T: Declared<N>, const N: usize>() -> usize {
    match T::TRANSLATION_INVARIANT {
        Some(d) if d > 0 && d < N && N.is_multiple_of(d) => N - d,
        _ => 0,
    }
}

/// `E g`: a gradient in `x₂ … x_P` extended to all points (`∂/∂x₁ = −Σ_p ∂/∂x_p`).
#[inline]
fn expand_vec<const N: usize, const H: usize>(g: &SVector<f64, H>) -> SVector<f64, N> {
    let d = N - H;
    let mut out = SVector::<f64, N>::zeros();
    for i in 0..H {
        out[d + i] = g[i];
        out[i % d] -= g[i];
    }
    out
}

/// `E A Eᵀ − B Eᵀ` for `A` on `x₂ … x_P` in both indices and `B` on all rows, `x₂ … x_P` in
/// the columns.
#[inline]
fn expand_mat<const N: usize, const H: usize>(
    a: &SMatrix<f64, H, H>,
    b: Option<&SMatrix<f64, N, H>>,
) -> SMatrix<f64, N, N> {
    let d = N - H;
    // rows: E A (N × H)
    let mut ea = SMatrix::<f64, N, H>::zeros();
    for j in 0..H {
        for i in 0..H {
            ea[(d + i, j)] = a[(i, j)];
            ea[(i % d, j)] -= a[(i, j)];
        }
    }
    if let Some(b) = b {
        ea -= b;
    }
    // columns: (E A − B) Eᵀ
    let mut out = SMatrix::<f64, N, N>::zeros();
    for j in 0..H {
        for i in 0..N {
            out[(i, d + j)] = ea[(i, j)];
            out[(i, j % d)] -= ea[(i, j)];
        }
    }
    out
}

/// `∇V + ∂R/∂v − Q` with passes on `H` seeds, on numbers tagged `Tag`. Always inlined: into the
/// assembly's loop over a group, where the gathered inputs stay in registers.
#[inline(always)]
fn residual_h<T: Declared<N>, const N: usize, const H: usize, Tag: Dim>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, N> {
    let mut g = passes::potential_gradient::<T, N, H, Tag>(term, t, q);
    if !term.has_dissipation_or_force() {
        return expand_vec(&g);
    }
    g += passes::dissipation_gradient::<T, N, H, Tag>(term, t, q, v);
    expand_vec(&g) - term.force(t, q, v)
}

/// `∇V + ∂R/∂v − Q` and `c_K (∇²V + ∂²R/∂v∂q − ∂Q/∂q) + c_D (∂²R/∂v² − ∂Q/∂v)` with passes on
/// `H` seeds, only those the weights need.
#[inline]
fn weighted_h<T: Declared<N>, const N: usize, const H: usize>(
    term: &T,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    c: &KernelCoefficients,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    let has_rq = term.has_dissipation_or_force();
    if c.stiffness == 0.0 && (c.damping == 0.0 || !has_rq) {
        return (
            residual_h::<T, N, H, Untagged>(term, t, q, v),
            SMatrix::zeros(),
        );
    }
    let (mut g, mut a) = if c.stiffness != 0.0 {
        let (g, k) = passes::potential_hessian::<T, N, H>(term, t, q);
        (g, k * c.stiffness)
    } else {
        (
            passes::potential_gradient::<T, N, H, Untagged>(term, t, q),
            SMatrix::zeros(),
        )
    };
    if !has_rq {
        return (expand_vec(&g), expand_mat(&a, None));
    }
    let p = passes::dissipation_force_newton::<T, N, H>(term, t, q, v, c.stiffness, c.damping);
    g += p.rv;
    a += p.a;
    (expand_vec(&g) - p.force, expand_mat(&a, Some(&p.b)))
}

/// The number of seeded coordinates of a term found translation invariant at sample states
/// (`sampled::translation_invariant`: points of dimension `sampled::point_dimension`), for a
/// term that declares nothing (0: no test for `N` coordinates).
const fn found<T: Declared<N>, const N: usize>() -> usize {
    match sampled::tested::<T, N>() {
        true => N - sampled::point_dimension::<N>(),
        false => 0,
    }
}

/// Whether a term of type `T` takes the reduced passes: declared translation invariant, or
/// found so at sample states (`is_found`), with an instance for its reduced size (the sizes of
/// [`by_reduced_size`]).
pub(super) const fn takes_reduced<T: Declared<N>, const N: usize>(is_found: bool) -> bool {
    let h = match (reduced::<T, N>(), is_found) {
        (0, true) => found::<T, N>(),
        (h, _) => h,
    };
    matches!(h, 1 | 2 | 3 | 4 | 6 | 9)
}

impl<T: Declared<N>, const N: usize> super::TermAd<T, N> {
    /// The derivation the kernel takes: the term's [`Structure`], declared or found (a
    /// `kinetic` that is `½ vᵀ M v` with a constant `M` is found `ConstantMass`), and whether
    /// its passes are seeded on all points but the first (translation invariance declared, or
    /// found for a potential and Rayleigh function of two points' difference).
    ///
    /// ```
    /// use lagrangian::ad::TermAd;
    /// use lagrangian::prelude::*;
    /// struct Bob;
    /// impl Term<3> for Bob {
    ///     fn kinetic<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, 3>, v: &SVector<D, 3>) -> D {
    ///         v.dot(v) * 0.05
    ///     }
    /// }
    /// struct Coil;
    /// impl Term<6> for Coil {
    ///     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 6>) -> D {
    ///         let d = q.fixed_rows::<3>(3) - q.fixed_rows::<3>(0);
    ///         (d.dot(&d).sqrt() - 1.0).powi(2) * 500.0
    ///     }
    /// }
    /// assert_eq!(TermAd::new(Bob).derivation(), (Structure::ConstantMass, false));
    /// assert_eq!(TermAd::new(Coil).derivation(), (Structure::NoKinetic, true));
    /// ```
    pub fn derivation(&self) -> (Structure, bool) {
        let reduced = takes_reduced::<T, N>(self.term.invariant);
        (self.term.structure, reduced)
    }
}

/// Calls `$call` with `H` the reduced size of a translation-invariant term, declared (chosen at
/// compile time: `if const`, the other branches are dead code) or found (`$found`, at run time:
/// one more instance of the reduced passes, only for sizes a test exists for); `None` for other
/// terms.
macro_rules! by_reduced_size {
    ($t:ident, $n:ident, $found:expr, $h:ident => $call:expr) => {
        by_reduced_size!(@sizes $t, $n, $found, $h => $call; 1 2 3 4 6 9)
    };
    (@sizes $t:ident, $n:ident, $found:expr, $h:ident => $call:expr; $($size:literal)*) => {{
        $(
            if const { reduced::<$t, $n>() == $size || found::<$t, $n>() == $size } {
                if const { reduced::<$t, $n>() == $size } || $found {
                    const $h: usize = $size;
                    return Some($call);
                }
            }
        )*
        None
    }};
}

/// `∇V + ∂R/∂v − Q` of a term declared translation invariant or found so (`found`) (`None`:
/// neither, or a reduced size without an instance here; the caller takes the full passes), on
/// numbers tagged `Tag`. Always inlined, as [`residual_h`] (see `structured::residual`).
#[inline(always)]
pub(crate) fn residual<T: Declared<N>, const N: usize, Tag: Dim>(
    term: &T,
    found: bool,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> Option<SVector<f64, N>> {
    by_reduced_size!(T, N, found, H => residual_h::<T, N, H, Tag>(term, t, q, v))
}

/// The residual's `V`, `R`, `Q` part and its weighted Jacobian (no mass term) of a term declared
/// translation invariant; `None` as for [`residual`].
#[inline]
pub(crate) fn weighted<T: Declared<N>, const N: usize>(
    term: &T,
    found: bool,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    c: &KernelCoefficients,
) -> Option<(SVector<f64, N>, SMatrix<f64, N, N>)> {
    by_reduced_size!(T, N, found, H => weighted_h::<T, N, H>(term, t, q, v, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_is_e_a_et() {
        // N = 6, D = 3, H = 3: E = [−I; I]
        let a = SMatrix::<f64, 3, 3>::from_fn(|i, j| (1 + i + 3 * j) as f64);
        let b = SMatrix::<f64, 6, 3>::from_fn(|i, j| (i * j) as f64 - 2.0);
        let mut e = SMatrix::<f64, 6, 3>::zeros();
        for i in 0..3 {
            e[(i, i)] = -1.0;
            e[(3 + i, i)] = 1.0;
        }
        let want = e * a * e.transpose() - b * e.transpose();
        assert!((expand_mat::<6, 3>(&a, Some(&b)) - want).abs().max() < 1e-14);
        let g = SVector::<f64, 3>::new(1.0, -2.0, 0.5);
        assert!((expand_vec::<6, 3>(&g) - e * g).abs().max() < 1e-14);
        // N = 9, D = 3, H = 6 (three points): E = [−I −I; I 0; 0 I]
        let mut e = SMatrix::<f64, 9, 6>::zeros();
        for i in 0..6 {
            e[(i % 3, i)] = -1.0;
            e[(3 + i, i)] = 1.0;
        }
        let a = SMatrix::<f64, 6, 6>::from_fn(|i, j| ((i + 2) * (j + 1)) as f64 - 3.5);
        let want = e * a * e.transpose();
        assert!((expand_mat::<9, 6>(&a, None) - want).abs().max() < 1e-14);
    }

    #[test]
    fn springs_take_the_reduced_passes() {
        use crate::model::elements::{AnchoredSpring, Spring};
        let s = Spring::<3> {
            stiffness: 10.0,
            rest_length: 1.0,
            damping: 0.5,
        };
        let (q, v) = (
            SVector::<f64, 6>::repeat(0.5),
            SVector::<f64, 6>::repeat(0.1),
        );
        assert_eq!(reduced::<Spring<3>, 6>(), 3);
        assert!(residual::<_, 6, Untagged>(&s, false, 0.0, &q, &v).is_some());
        let c = KernelCoefficients {
            mass: 1.0,
            damping: 1.0,
            stiffness: 1.0,
        };
        assert!(weighted(&s, false, 0.0, &q, &v, &c).is_some());
        // a spring to a fixed anchor is not translation invariant
        let a = AnchoredSpring::<3> {
            anchor: [0.0; 3],
            stiffness: 10.0,
            rest_length: 1.0,
            damping: 0.5,
        };
        assert_eq!(reduced::<AnchoredSpring<3>, 3>(), 0);
        assert!(
            residual::<_, 3, Untagged>(
                &a,
                false,
                0.0,
                &q.fixed_rows::<3>(0).into(),
                &v.fixed_rows::<3>(0).into()
            )
            .is_none()
        );
    }
}
