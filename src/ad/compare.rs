//! Comparing two kernels of the same physics (a hand-derived one against the AD reference):
//! the largest relative difference of their blocks.

use crate::model::kernel::{ConstraintKernel, TermKernel};
use nalgebra::{DMatrix, SVector};

/// Largest relative difference between two term kernels' residuals and Jacobian blocks at one
/// point: `max_blocks ‖A − B‖_max / (1e-300 + max(‖A‖_max, ‖B‖_max))` over `r, M, ∂r/∂v, ∂r/∂q`.
/// Use it to check a hand-written kernel against the AD kernel of the same physics.
///
/// ```
/// use lagrangian::ad::{compare_term_kernels, TermAd};
/// use lagrangian::library::elements::Spring;
/// use lagrangian::library::mass_spring::SpringKernel;
/// let (k, l, d) = (100.0, 1.0, 0.5);
/// let hand = SpringKernel::<3>::new(k, l, d);
/// let ad = TermAd::new(Spring::<3> { stiffness: k, rest_length: l, damping: d });
/// let q = [0.0, 0.1, 0.0, 1.2, 0.3, -0.1];
/// let v = [0.1, 0.0, 0.2, -0.3, 0.1, 0.0];
/// assert!(compare_term_kernels(&hand, &ad, 0.0, &q, &v, &[0.0; 6]) < 1e-12);
/// ```
pub fn compare_term_kernels<A: TermKernel<N>, B: TermKernel<N>, const N: usize>(
    a: &A,
    b: &B,
    t: f64,
    q: &[f64],
    v: &[f64],
    acc: &[f64],
) -> f64 {
    let ba = a.dense_blocks(t, q, v, acc);
    let bb = b.dense_blocks(t, q, v, acc);
    ba.iter()
        .zip(&bb)
        .map(|(x, y)| rel_diff(x, y))
        .fold(0.0, f64::max)
}

/// As [`compare_term_kernels`] for constraint kernels: over `C`, `C_q`, `Σλ∇²C`, `C_t` and `γ`
/// (`γ` relative to its natural size `‖∇²C‖ |v|² N`).
pub fn compare_constraint_kernels<
    A: ConstraintKernel<N, M>,
    B: ConstraintKernel<N, M>,
    const N: usize,
    const M: usize,
>(
    a: &A,
    b: &B,
    t: f64,
    q: &[f64],
    v: &[f64],
    lambda: &[f64],
) -> f64 {
    let ba = a.dense_blocks(t, q, lambda);
    let bb = b.dense_blocks(t, q, lambda);
    let mut worst = ba
        .iter()
        .zip(&bb)
        .map(|(x, y)| rel_diff(x, y))
        .fold(0.0, f64::max);
    let (ql, vl) = (
        SVector::<f64, N>::from_column_slice(q),
        SVector::<f64, N>::from_column_slice(v),
    );
    let (xa, xb) = (a.time_derivative(t, &ql), b.time_derivative(t, &ql));
    worst = worst.max(rel_diff(
        &DMatrix::from_column_slice(M, 1, xa.as_slice()),
        &DMatrix::from_column_slice(M, 1, xb.as_slice()),
    ));
    // γ = C_qq(v,v) + …: relative to its natural size ‖∇²C‖ |v|² N (γ may vanish to round-off,
    // e.g. for motion along a rod)
    let (ga, gb) = (a.gamma(t, &ql, &vl), b.gamma(t, &ql, &vl));
    let hess = a.dense_blocks(t, q, &[1.0; M])[2].amax();
    let vmax = v.iter().fold(0.0f64, |acc, x| acc.max(x.abs()));
    let scale = hess * vmax * vmax * N as f64;
    for (ga, gb) in ga.iter().zip(&gb) {
        let d = (ga - gb).abs();
        if d > 0.0 {
            worst = worst.max(d / (1e-300 + scale.max(ga.abs()).max(gb.abs())));
        }
    }
    worst
}

fn rel_diff(x: &DMatrix<f64>, y: &DMatrix<f64>) -> f64 {
    if x.shape() != y.shape() {
        return f64::INFINITY;
    }
    let scale = x.amax().max(y.amax());
    let d = (x - y).amax();
    if d == 0.0 { 0.0 } else { d / (1e-300 + scale) }
}
