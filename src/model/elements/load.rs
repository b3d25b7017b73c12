//! A time-dependent external force on one point (hand kernel, no derivatives needed).

use crate::model::kernel::{KernelCoefficients, TermKernel};
use nalgebra::DMatrix;
use std::sync::Arc;

/// A time-dependent external force `f(t)` on one point: `r = −f(t)`, no Jacobian.
#[derive(Clone)]
pub struct LoadKernel<const D: usize> {
    /// The force as a function of time.
    pub force: Arc<dyn Fn(f64) -> [f64; D] + Send + Sync>,
}

impl<const D: usize> TermKernel for LoadKernel<D> {
    fn size(&self) -> usize {
        D
    }
    fn add_residual(
        &self,
        idx: &[usize],
        t: f64,
        _q: &[f64],
        _v: &[f64],
        _a: &[f64],
        scale: f64,
        r: &mut [f64],
    ) {
        let f = (self.force)(t);
        for k in 0..D {
            r[idx[k]] -= scale * f[k];
        }
    }
    fn add_jacobian(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        c: &KernelCoefficients,
        r: &mut [f64],
        _values: &mut [f64],
        _slots: &[usize],
    ) {
        self.add_residual(idx, t, q, v, a, c.scale, r);
    }
    fn energy(&self, _idx: &[usize], _t: f64, _q: &[f64], _v: &[f64]) -> [f64; 3] {
        [0.0; 3]
    }
    fn dense_blocks(
        &self,
        idx: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
    ) -> [DMatrix<f64>; 4] {
        let mut r = vec![0.0; q.len()];
        self.add_residual(idx, t, q, v, a, 1.0, &mut r);
        [
            DMatrix::from_iterator(D, 1, idx.iter().map(|&i| r[i])),
            DMatrix::zeros(D, D),
            DMatrix::zeros(D, D),
            DMatrix::zeros(D, D),
        ]
    }
}
