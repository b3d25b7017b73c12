//! The assembly loop of one kernel type: gather the local inputs of each element, let the kernel
//! compute its local blocks, scatter them into the global residual and the values of the fixed
//! pattern. One loop per group, monomorphized for the kernel, so the kernel inlines into it.

use crate::expr::taylor::TaylorVar;
use crate::model::group::{
    ConstraintGroup, ConstraintSlots, Constraints, PARALLEL_MIN_ELEMENTS, Point, Schedule,
    TaylorPoint, TermGroup, Terms,
};
use crate::model::kernel::{ConstraintKernel, KernelCoefficients, TermKernel};
use nalgebra::{DMatrix, SMatrix, SVector};
use rayon::prelude::*;
use std::any::Any;

/// A global array written by the blocks of one color from several threads: each entry by at
/// most one block.
struct Shared {
    ptr: *mut f64,
    len: usize,
}

// SAFETY: the writes through `Shared` go to disjoint entries (one block per entry per color).
unsafe impl Sync for Shared {}

impl Shared {
    fn new(x: &mut [f64]) -> Self {
        Shared {
            ptr: x.as_mut_ptr(),
            len: x.len(),
        }
    }
    /// `x[i] += d`.
    ///
    /// # Safety
    /// No other thread touches `x[i]` while the color is assembled.
    #[inline(always)]
    unsafe fn add(&self, i: usize, d: f64) {
        assert!(i < self.len, "index {i} outside an array of {}", self.len);
        // SAFETY: in bounds (checked) and not shared (the caller's promise).
        unsafe { *self.ptr.add(i) += d };
    }
    /// `x[i] += d` for an index the caller has checked (`i < len`).
    ///
    /// # Safety
    /// `i < len`, and no other thread touches `x[i]` while the color is assembled.
    #[inline(always)]
    unsafe fn add_checked_before(&self, i: usize, d: f64) {
        debug_assert!(i < self.len);
        // SAFETY: the caller's promises.
        unsafe { *self.ptr.add(i) += d };
    }
}

/// `x[idx]` as a local vector, or zeros when the kernel does not read it.
#[inline(always)]
fn gather<const N: usize>(uses: bool, idx: &[usize; N], x: &[f64]) -> SVector<f64, N> {
    if uses {
        SVector::from_fn(|i, _| x[idx[i]])
    } else {
        SVector::zeros()
    }
}

/// [`gather`] for indices the caller has checked against `x.len()`.
///
/// # Safety
/// Every `idx[i] < x.len()` when `uses`.
#[inline(always)]
unsafe fn gather_checked_before<const N: usize>(
    uses: bool,
    idx: &[usize; N],
    x: &[f64],
) -> SVector<f64, N> {
    if uses {
        // SAFETY: the caller's promise.
        SVector::from_fn(|i, _| unsafe { *x.get_unchecked(idx[i]) })
    } else {
        SVector::zeros()
    }
}

/// Add a block's `C_q` (`M × N`) into rows `row…row + M` of the dense row-major `jac` (rows of
/// `n` entries), its columns at the global coordinates `idx`.
#[inline(always)]
fn add_dense_rows<const N: usize, const M: usize>(
    jac: &mut [f64],
    n: usize,
    idx: &[usize; N],
    row: usize,
    j: &SMatrix<f64, M, N>,
) {
    for m in 0..M {
        let r = &mut jac[(row + m) * n..(row + m + 1) * n];
        for c in 0..N {
            r[idx[c]] += j[(m, c)];
        }
    }
}

/// `x[idx]` as a local vector of series.
fn series<const N: usize>(idx: &[usize; N], x: &[TaylorVar]) -> SVector<TaylorVar, N> {
    SVector::from_fn(|i, _| x[idx[i]])
}

/// Whether every array a scheduled pass reads (those the kernel uses) and writes holds the
/// coordinates below `bound`: checked once per pass, then no check per element.
fn arrays_hold<K: TermKernel<N>, const N: usize>(bound: usize, p: &Point, out: &[f64]) -> bool {
    let holds = |uses: bool, x: &[f64]| !uses || bound <= x.len();
    bound <= out.len() && holds(K::USES_Q, p.q) && holds(K::USES_V, p.v) && holds(K::USES_A, p.a)
}

/// Visit every element of `s`: color after color, the blocks of a color on rayon's threads,
/// each block in its order on one thread, placed with the kernel's type
/// ([`TermKernel::__placed`]).
#[inline(always)]
fn in_schedule<K: TermKernel<N>, const N: usize>(s: &Schedule, one: impl Fn(&u32) + Sync) {
    // `one` called directly, not through `&F`'s `FnMut` (whose instance rustc places with the
    // closure's own module, away from the kernel's type)
    let block = |b: &std::ops::Range<usize>| {
        K::__placed(|| {
            for e in &s.order[b.clone()] {
                one(e);
            }
        })
    };
    for blocks in &s.colors {
        // the block count first: `current_num_threads` starts rayon's global pool, whose
        // threads a small model (one block, `Schedule::plain`) must not spawn
        match blocks.len() == 1 || rayon::current_num_threads() == 1 {
            true => blocks.iter().for_each(block),
            false => par_blocks(blocks, &block),
        }
    }
}

/// The blocks of one color on rayon's threads. One instance for every kernel type (`block`
/// behind a pointer: one indirect call per block of at least 256 elements): rayon's job and
/// splitting code for each kernel type and size was a tenth of the library's code.
fn par_blocks(blocks: &[std::ops::Range<usize>], block: &(dyn Fn(&std::ops::Range<usize>) + Sync)) {
    blocks.par_iter().for_each(block)
}

impl<K: TermKernel<N>, const N: usize> Terms for TermGroup<K, N> {
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn len(&self) -> usize {
        self.kernels.len()
    }
    fn size(&self) -> usize {
        N
    }
    fn indices(&self, e: usize) -> &[usize] {
        &self.indices[e]
    }
    fn constant_mass(&self) -> bool {
        self.kernels.iter().all(K::constant_mass)
    }
    fn add_residual(&self, p: &Point, scale: f64, r: &mut [f64]) {
        if let Some(schedule) = &self.schedule {
            assert!(
                arrays_hold::<K, N>(schedule.bound, p, r)
                    && schedule.order.len() == self.kernels.len(),
                "a group on coordinates below {} assembled on shorter arrays, or its schedule \
                 made before its last element",
                schedule.bound
            );
            let out = Shared::new(r);
            let one = |&e: &u32| {
                let (k, idx) = (&self.kernels[e as usize], &self.indices[e as usize]);
                // SAFETY (gathers and writes): every index is below `schedule.bound` (its
                // construction), which the arrays hold (checked above); no two blocks of a
                // color share a coordinate.
                let q = unsafe { gather_checked_before(K::USES_Q, idx, p.q) };
                let v = unsafe { gather_checked_before(K::USES_V, idx, p.v) };
                let a = unsafe { gather_checked_before(K::USES_A, idx, p.a) };
                // an AD kernel's groups always have a schedule (`set_parallel`): this is the
                // one loop that calls its `__loop_residual` (for other kernels `residual`)
                let rl = k.__loop_residual(p.t, &q, &v, &a);
                for i in 0..N {
                    unsafe { out.add_checked_before(idx[i], scale * rl[i]) };
                }
            };
            in_schedule::<K, N>(schedule, one);
            return;
        }
        // the loop placed with the kernel's type, so LLVM may inline its methods into it
        K::__placed(|| {
            for (k, idx) in self.kernels.iter().zip(&self.indices) {
                let q = gather(K::USES_Q, idx, p.q);
                let v = gather(K::USES_V, idx, p.v);
                let a = gather(K::USES_A, idx, p.a);
                let rl = k.residual(p.t, &q, &v, &a);
                for i in 0..N {
                    r[idx[i]] += scale * rl[i];
                }
            }
        })
    }
    fn add_jacobian(
        &self,
        p: &Point,
        scale: f64,
        c: &KernelCoefficients,
        r: &mut [f64],
        values: &mut [f64],
        slots: &[usize],
    ) {
        let w = KernelCoefficients {
            mass: scale * c.mass,
            damping: scale * c.damping,
            stiffness: scale * c.stiffness,
        };
        if let Some(schedule) = &self.schedule {
            let (out, vals) = (Shared::new(r), Shared::new(values));
            let one = |&e: &u32| {
                let e = e as usize;
                let (k, idx) = (&self.kernels[e], &self.indices[e]);
                let sl = &slots[e * N * N..(e + 1) * N * N];
                let q = gather(K::USES_Q, idx, p.q);
                let v = gather(K::USES_V, idx, p.v);
                let a = gather(K::USES_A, idx, p.a);
                let (rl, j) = k.jacobian(p.t, &q, &v, &a, &w);
                for i in 0..N {
                    // SAFETY: no two blocks of a color share a coordinate, hence
                    // neither a residual entry nor a matrix entry.
                    unsafe { out.add(idx[i], scale * rl[i]) };
                    for l in 0..N {
                        unsafe { vals.add(sl[i * N + l], j[(i, l)]) };
                    }
                }
            };
            in_schedule::<K, N>(schedule, one);
            return;
        }
        K::__placed(|| {
            let elements = self.kernels.iter().zip(&self.indices);
            for ((k, idx), sl) in elements.zip(slots.chunks_exact(N * N)) {
                let q = gather(K::USES_Q, idx, p.q);
                let v = gather(K::USES_V, idx, p.v);
                let a = gather(K::USES_A, idx, p.a);
                let (rl, j) = k.jacobian(p.t, &q, &v, &a, &w);
                for i in 0..N {
                    r[idx[i]] += scale * rl[i];
                    for l in 0..N {
                        values[sl[i * N + l]] += j[(i, l)];
                    }
                }
            }
        })
    }
    fn energy(&self, t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
        let mut e = [0.0; 3];
        for (k, idx) in self.kernels.iter().zip(&self.indices) {
            let x = k.energy(t, &gather(true, idx, q), &gather(true, idx, v));
            for (s, x) in e.iter_mut().zip(x) {
                *s += x;
            }
        }
        e
    }
    fn first_non_finite(&self, p: &Point) -> Option<usize> {
        (self.kernels.iter().zip(&self.indices)).position(|(k, idx)| {
            let (q, v, a) = (
                gather(true, idx, p.q),
                gather(true, idx, p.v),
                gather(true, idx, p.a),
            );
            k.residual(p.t, &q, &v, &a).iter().any(|x| !x.is_finite())
        })
    }
    fn add_momentum(&self, t: f64, q: &[f64], v: &[f64], p: &mut [f64]) {
        for (k, idx) in self.kernels.iter().zip(&self.indices) {
            let x = k.momentum(t, &gather(true, idx, q), &gather(true, idx, v));
            for (i, &g) in idx.iter().enumerate() {
                p[g] += x[i];
            }
        }
    }
    fn power(&self, t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
        let mut e = [0.0; 3];
        for (k, idx) in self.kernels.iter().zip(&self.indices) {
            let x = k.power(t, &gather(true, idx, q), &gather(true, idx, v));
            for (s, x) in e.iter_mut().zip(x) {
                *s += x;
            }
        }
        e
    }
    fn element_force(&self, e: usize, p: &Point) -> f64 {
        let idx = &self.indices[e];
        let (q, v, a) = (
            gather(true, idx, p.q),
            gather(true, idx, p.v),
            gather(true, idx, p.a),
        );
        let r = self.kernels[e].residual(p.t, &q, &v, &a);
        r.iter().fold(0.0f64, |m, x| m.max(x.abs()))
    }
    fn element_power(&self, e: usize, t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
        let idx = &self.indices[e];
        self.kernels[e].power(t, &gather(true, idx, q), &gather(true, idx, v))
    }
    fn element_energy(&self, e: usize, t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
        let idx = &self.indices[e];
        self.kernels[e].energy(t, &gather(true, idx, q), &gather(true, idx, v))
    }
    fn dense_blocks(&self, e: usize, p: &Point) -> [DMatrix<f64>; 4] {
        let idx = &self.indices[e];
        let q = gather(true, idx, p.q);
        let v = gather(true, idx, p.v);
        let a = gather(true, idx, p.a);
        self.kernels[e].dense_blocks(p.t, q.as_slice(), v.as_slice(), a.as_slice())
    }
    fn set_parallel(&mut self, on: bool, n: usize) {
        self.schedule = match on && K::PARALLEL && self.kernels.len() >= PARALLEL_MIN_ELEMENTS {
            true => Schedule::new(&self.indices, n),
            false => None,
        };
        if self.schedule.is_none() && K::__LOOP_RESIDUAL {
            // one block in the elements' own order: the residual's one loop
            // (`TermKernel::__loop_residual`), the plain order's sums
            self.schedule = Some(Schedule::plain(&self.indices));
        }
    }
    fn colors(&self) -> usize {
        self.schedule
            .as_ref()
            .filter(|s| !s.plain)
            .map_or(0, |s| s.colors.len())
    }
    fn reads_acceleration(&self) -> bool {
        K::USES_A && !self.kernels.is_empty()
    }
    fn constant_at_rest(&self) -> bool {
        !(K::USES_T || K::USES_Q || K::USES_V)
    }
    fn add_taylor_residual(
        &self,
        s: &TaylorPoint,
        r: &mut [TaylorVar],
    ) -> Result<(), &'static str> {
        for (k, idx) in self.kernels.iter().zip(&self.indices) {
            let rl = k
                .taylor_residual(s.t, &series(idx, s.q), &series(idx, s.v), &series(idx, s.a))
                .ok_or(std::any::type_name::<K>())?;
            for i in 0..N {
                r[idx[i]] += rl[i];
            }
        }
        Ok(())
    }
}

impl<K: ConstraintKernel<N, M>, const N: usize, const M: usize> Constraints
    for ConstraintGroup<K, N, M>
{
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn len(&self) -> usize {
        self.kernels.len()
    }
    fn size(&self) -> usize {
        N
    }
    fn rows(&self) -> usize {
        M
    }
    fn indices(&self, e: usize) -> &[usize] {
        &self.indices[e]
    }
    fn row(&self, e: usize) -> usize {
        self.rows[e]
    }
    fn values(&self, t: f64, q: &[f64], c: &mut [f64]) {
        K::__placed(|| {
            for ((k, idx), &row) in self.kernels.iter().zip(&self.indices).zip(&self.rows) {
                let x = k.value(t, &gather(true, idx, q));
                c[row..row + M].copy_from_slice(x.as_slice());
            }
        })
    }
    fn add_residual(&self, p: &Point, r: &mut [f64], c: &mut [f64]) {
        K::__placed(|| {
            for ((k, idx), &row) in self.kernels.iter().zip(&self.indices).zip(&self.rows) {
                let (x, jac) = k.jacobian(p.t, &gather(true, idx, p.q));
                for m in 0..M {
                    c[row + m] = x[m];
                    let l = p.lambda[row + m];
                    for j in 0..N {
                        r[idx[j]] += jac[(m, j)] * l;
                    }
                }
            }
        })
    }
    fn add_jacobian(
        &self,
        p: &Point,
        stiffness: f64,
        r: &mut [f64],
        c: &mut [f64],
        values: &mut [f64],
        slots: &ConstraintSlots,
    ) {
        let blocks = self.kernels.iter().zip(&self.indices).zip(&self.rows);
        let sl = slots
            .hess
            .chunks_exact(N * N)
            .zip(slots.jac.chunks_exact(M * N))
            .zip(slots.jac_t.chunks_exact(M * N));
        K::__placed(|| {
            for (((k, idx), &row), ((sh, sj), st)) in blocks.zip(sl) {
                let q = gather(true, idx, p.q);
                let lambda = SVector::<f64, M>::from_fn(|m, _| p.lambda[row + m]);
                // the cheapest derivative order: second derivatives only where they are weighted
                let b = if stiffness != 0.0 && lambda.iter().any(|&l| l != 0.0) {
                    let mut b = k.blocks(p.t, &q, &lambda);
                    b.hess_lambda *= stiffness;
                    for i in 0..N {
                        for j in 0..N {
                            values[sh[i * N + j]] += b.hess_lambda[(i, j)];
                        }
                    }
                    (b.c, b.jac)
                } else {
                    k.jacobian(p.t, &q)
                };
                let (x, jac) = b;
                for m in 0..M {
                    c[row + m] = x[m];
                    let l = p.lambda[row + m];
                    for j in 0..N {
                        let g = jac[(m, j)];
                        r[idx[j]] += g * l;
                        values[sj[m * N + j]] += g;
                        values[st[m * N + j]] += g;
                    }
                }
            }
        })
    }
    fn add_dense_jacobian(&self, t: f64, q: &[f64], jac: &mut DMatrix<f64>) {
        for ((k, idx), &row) in self.kernels.iter().zip(&self.indices).zip(&self.rows) {
            let (_, j) = k.jacobian(t, &gather(true, idx, q));
            for m in 0..M {
                for c in 0..N {
                    jac[(row + m, idx[c])] += j[(m, c)];
                }
            }
        }
    }
    fn time_derivative(&self, t: f64, q: &[f64], out: &mut [f64]) {
        for ((k, idx), &row) in self.kernels.iter().zip(&self.indices).zip(&self.rows) {
            let x = k.time_derivative(t, &gather(true, idx, q));
            out[row..row + M].copy_from_slice(x.as_slice());
        }
    }
    fn first_non_finite(&self, t: f64, q: &[f64]) -> Option<usize> {
        // the value, its Jacobian (C_qᵀλ in the residual) and its rate in time (a drive's
        // motion whose derivative is undefined there: sqrt(1 − t) at t = 1)
        (self.kernels.iter().zip(&self.indices)).position(|(k, idx)| {
            let q = gather(true, idx, q);
            let (value, jacobian) = k.jacobian(t, &q);
            let rate = k.time_derivative(t, &q);
            (value.iter().chain(jacobian.iter()).chain(rate.iter())).any(|x| !x.is_finite())
        })
    }
    fn local_jacobian(&self, e: usize, t: f64, q: &[f64], out: &mut [f64]) {
        let (_, j) = self.kernels[e].jacobian(t, &gather(true, &self.indices[e], q));
        for k in 0..M {
            for l in 0..N {
                out[k * N + l] = j[(k, l)];
            }
        }
    }
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        K::__placed(|| {
            for ((k, idx), &row) in self.kernels.iter().zip(&self.indices).zip(&self.rows) {
                let x = k.gamma(t, &gather(true, idx, q), &gather(true, idx, v));
                out[row..row + M].copy_from_slice(x.as_slice());
            }
        })
    }
    fn add_rows(&self, t: f64, q: &[f64], jac: &mut [f64], c: &mut [f64]) {
        K::__placed(|| {
            for ((k, idx), &row) in self.kernels.iter().zip(&self.indices).zip(&self.rows) {
                let (x, j) = k.jacobian(t, &gather(true, idx, q));
                c[row..row + M].copy_from_slice(x.as_slice());
                add_dense_rows(jac, q.len(), idx, row, &j);
            }
        })
    }
    fn add_rows_and_gamma(&self, t: f64, q: &[f64], v: &[f64], jac: &mut [f64], gamma: &mut [f64]) {
        K::__placed(|| {
            for ((k, idx), &row) in self.kernels.iter().zip(&self.indices).zip(&self.rows) {
                let ql = gather(true, idx, q);
                let (_, j) = k.jacobian(t, &ql);
                let g = k.gamma(t, &ql, &gather(true, idx, v));
                gamma[row..row + M].copy_from_slice(g.as_slice());
                add_dense_rows(jac, q.len(), idx, row, &j);
            }
        })
    }
    fn dense_blocks(&self, e: usize, t: f64, q: &[f64], lambda: &[f64]) -> [DMatrix<f64>; 3] {
        let (idx, row) = (&self.indices[e], self.rows[e]);
        let q = gather(true, idx, q);
        self.kernels[e].dense_blocks(t, q.as_slice(), &lambda[row..row + M])
    }
    fn taylor_values(&self, s: &TaylorPoint, c: &mut [TaylorVar]) -> Result<(), &'static str> {
        for ((k, idx), &row) in self.kernels.iter().zip(&self.indices).zip(&self.rows) {
            let x = k
                .taylor_value(s.t, &series(idx, s.q))
                .ok_or(std::any::type_name::<K>())?;
            c[row..row + M].copy_from_slice(x.as_slice());
        }
        Ok(())
    }
    fn add_taylor_force(&self, s: &TaylorPoint, r: &mut [TaylorVar]) -> Result<(), &'static str> {
        for ((k, idx), &row) in self.kernels.iter().zip(&self.indices).zip(&self.rows) {
            let lambda = SVector::<TaylorVar, M>::from_fn(|m, _| s.lambda[row + m]);
            let f = k
                .taylor_force(s.t, &series(idx, s.q), &lambda)
                .ok_or(std::any::type_name::<K>())?;
            for j in 0..N {
                r[idx[j]] += f[j];
            }
        }
        Ok(())
    }
}
