//! Elementwise loops over the long vectors of a step (predictor, update, diagonal solve, error
//! norm) on rayon's threads, when the vectors are long enough to pay for the synchronization.
//!
//! Each entry is computed by the same expression whichever thread computes it, and a maximum
//! does not depend on the order it is taken in: the results are the same bits on any number
//! of threads. Below [`MIN_PARALLEL`] entries, on one thread, or when the caller says no (the
//! integrator says yes only when the model's assembly is parallel too: between serial
//! assemblies, waking rayon's threads for a loop and moving the vectors to their cores costs
//! more than the loop), the loop runs on the calling thread over the whole slices, with no call
//! into rayon.

use rayon::prelude::*;

/// Vectors shorter than this are updated on the calling thread (a parallel loop costs a few
/// microseconds of synchronization). With 8,192 the 90 × 90 cloth (24,300 coordinates) with AD
/// kernels took 1.04–1.10 s on two threads against 1.35–1.43 s with 32,768 (benches/README.md).
pub(crate) const MIN_PARALLEL: usize = 8_192;

/// Entries per parallel task.
const CHUNK: usize = 4_096;

/// Whether a loop over `n` entries, allowed to go parallel (`on`), runs on rayon's threads.
#[inline]
pub(crate) fn parallel(on: bool, n: usize) -> bool {
    on && n >= MIN_PARALLEL && rayon::current_num_threads() > 1
}

/// A slice cut into the chunks of the parallel loop.
pub(crate) trait Chunks: Sized {
    /// The chunks as a parallel iterator.
    type Iter: IndexedParallelIterator<Item = Self>;
    /// Cut into chunks of [`CHUNK`] entries.
    fn chunks(self) -> Self::Iter;
}

impl<'a> Chunks for &'a mut [f64] {
    type Iter = rayon::slice::ChunksMut<'a, f64>;
    fn chunks(self) -> Self::Iter {
        self.par_chunks_mut(CHUNK)
    }
}

impl<'a> Chunks for &'a [f64] {
    type Iter = rayon::slice::Chunks<'a, f64>;
    fn chunks(self) -> Self::Iter {
        self.par_chunks(CHUNK)
    }
}

/// The larger of two maxima, NaN if either is (a NaN entry must reach the caller).
#[inline]
pub(crate) fn max_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// `par_each!(on; x = slice, y = slice, … ; { body })`: run `body` with `x`, `y`, … bound to
/// the whole slices (`&mut [f64]` or `&[f64]`, all of the first one's length), or, when `on`
/// and for long slices on several threads, to matching chunks of them on rayon's threads.
macro_rules! par_each {
    ($on:expr; $($x:ident = $s:expr),+ ; $body:block) => {
        $crate::solve::par::par_chunks!($on; $($x = $s),+; $body; |it| it.for_each(|()| ()))
    };
}

/// `par_max!(on; x = slice, … ; { body })`: as [`par_each!`] for a `body` that returns the
/// maximum of something over its entries (≥ 0, NaN if any entry is NaN); the maximum over all
/// entries.
macro_rules! par_max {
    ($on:expr; $($x:ident = $s:expr),+ ; $body:block) => {
        $crate::solve::par::par_chunks!(
            $on; $($x = $s),+; $body;
            |it| it.reduce(|| 0.0, $crate::solve::par::max_nan)
        )
    };
}

/// The two macros' common part: `body` on the whole slices, or on matching chunks of them as
/// a parallel iterator `it` of its results, finished by `finish`.
macro_rules! par_chunks {
    ($on:expr; $($x:ident = $s:expr),+ ; $body:block; |$it:ident| $finish:expr) => {{
        let ($($x,)+) = ($($s,)+);
        let n = $crate::solve::par::par_chunks!(@first $($x),+).len();
        if $crate::solve::par::parallel($on, n) {
            use rayon::prelude::*;
            let $it = ($($crate::solve::par::Chunks::chunks($x),)+)
                .into_par_iter()
                .map(|($($x,)+)| $body);
            $finish
        } else $body
    }};
    (@first $x:ident $(, $rest:ident)*) => { $x };
}

pub(crate) use {par_chunks, par_each, par_max};

#[cfg(test)]
mod tests {
    use super::*;

    /// The loops give the same bits on one thread and on two, above and below the threshold,
    /// and a NaN anywhere reaches the maximum.
    #[test]
    fn same_bits_on_any_number_of_threads() {
        for n in [1000, MIN_PARALLEL + 12_345] {
            let x: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % 1013) as f64 / 97.0 - 5.0)
                .collect();
            let run = |threads: usize, nan_at: Option<usize>| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("pool");
                pool.install(|| {
                    let mut y = vec![1.0; n];
                    let mut x = x.clone();
                    if let Some(i) = nan_at {
                        x[i] = f64::NAN;
                    }
                    par_each!(true; y = &mut y[..], x = &x[..]; {
                        for (y, x) in y.iter_mut().zip(x) {
                            *y = 0.5 * *y + x * x / 3.0;
                        }
                    });
                    let m = par_max!(true; y = &y[..]; {
                        y.iter().fold(0.0f64, |m, y| max_nan(m, y.abs()))
                    });
                    (y, m)
                })
            };
            let (y1, m1) = run(1, None);
            let (y2, m2) = run(2, None);
            assert!(y1 == y2 && m1 == m2, "n = {n}");
            let expect = x.iter().map(|x| 0.5 + x * x / 3.0).fold(0.0, f64::max);
            assert_eq!(m1, expect);
            for threads in [1, 2] {
                let (_, m) = run(threads, Some(n - 3));
                assert!(m.is_nan(), "n = {n}, {threads} threads: {m}");
            }
        }
    }
}
