//! Elements stored by kernel type.
//!
//! A model keeps its kernels in **groups**: all elements of one kernel type `K` on `N` local
//! coordinates sit in one [`TermGroup<K, N>`] (or [`ConstraintGroup<K, N, M>`]), with their global
//! coordinate indices as fixed-size arrays. The assembly then visits each group through one
//! dynamic call and runs a loop monomorphized for `K`: gather the local inputs, call the kernel
//! for its local blocks, scatter them into the global arrays. The erased interfaces
//! [`Terms`] and [`Constraints`] are that loop's entry points; their implementations are the
//! assembly's ([`crate::assembly`]), the model only stores.

use super::kernel::KernelCoefficients;
use crate::expr::taylor::TaylorVar;
use nalgebra::DMatrix;
use std::any::Any;

/// All elements of one term kernel type on `N` local coordinates.
pub struct TermGroup<K, const N: usize> {
    /// The kernels.
    pub(crate) kernels: Vec<K>,
    /// Their global coordinates.
    pub(crate) indices: Vec<[usize; N]>,
    /// For a large group: its elements in blocks, the blocks by color, no two blocks of one
    /// color sharing a coordinate, so the blocks of a color are assembled in parallel
    /// ([`Schedule`]).
    pub(crate) schedule: Option<Schedule>,
}

/// Groups with at least this many elements are assembled block by block in parallel.
pub const PARALLEL_MIN_ELEMENTS: usize = 4096;

/// The parallel order of a group's elements: sorted by their first coordinate (so a block of
/// consecutive elements touches a narrow band of coordinates), cut into blocks, and the blocks
/// colored greedily so that no two blocks of a color share a coordinate (nor, hence, an entry
/// of the iteration matrix).
///
/// Each block is assembled by one thread in its order, the colors one after the other: every
/// coordinate receives its contributions in the same order on any number of threads, and a
/// color costs one synchronization, not one per element. For a banded structure (a chain, a
/// cloth numbered row by row) blocks longer than the band need two colors.
pub(crate) struct Schedule {
    /// Element ids, block after block.
    pub(crate) order: Vec<u32>,
    /// For each color, the ranges of `order` that are its blocks.
    pub(crate) colors: Vec<Vec<std::ops::Range<usize>>>,
    /// The number of coordinates, above every index of the group: the assembly checks its
    /// arrays' lengths against it once per pass instead of at every read and write.
    pub(crate) bound: usize,
    /// One block in the elements' own order ([`Schedule::plain`]), not a parallel schedule.
    pub(crate) plain: bool,
}

impl Schedule {
    /// The schedule of elements on `indices` among `n` coordinates: blocks of
    /// `len / 32` elements (at least 256, at most 4,096). `None` past 64 colors.
    pub(crate) fn new<const N: usize>(indices: &[[usize; N]], n: usize) -> Option<Schedule> {
        let len = indices.len();
        let block = (len / 32).clamp(256, 4096);
        let first = |e: u32| indices[e as usize].iter().copied().min().unwrap_or(0);
        let mut order: Vec<u32> = (0..len as u32).collect();
        order.sort_by_key(|&e| first(e));
        let mut used = vec![0u64; n];
        let mut colors: Vec<Vec<std::ops::Range<usize>>> = Vec::new();
        for start in (0..len).step_by(block) {
            let range = start..(start + block).min(len);
            let elements = &order[range.clone()];
            let coords = || elements.iter().flat_map(|&e| indices[e as usize]);
            let taken = coords().fold(0u64, |m, i| m | used[i]);
            let c = (!taken).trailing_zeros() as usize;
            if c >= 64 {
                return None;
            }
            coords().for_each(|i| used[i] |= 1 << c);
            if colors.len() <= c {
                colors.resize_with(c + 1, Vec::new);
            }
            colors[c].push(range);
        }
        // every index is below `n`: `used` above is indexed by them
        Some(Schedule {
            order,
            colors,
            bound: n,
            plain: false,
        })
    }

    /// All elements in one block, in their own order: the element-by-element order as one
    /// schedule (one color, one thread), bounded by the largest index.
    pub(crate) fn plain<const N: usize>(indices: &[[usize; N]]) -> Schedule {
        let len = indices.len();
        let bound = indices.iter().flatten().map(|&i| i + 1).max().unwrap_or(0);
        Schedule {
            order: (0..len as u32).collect(),
            colors: match len {
                0 => Vec::new(),
                _ => vec![vec![0..len]],
            },
            bound,
            plain: true,
        }
    }
}

/// All constraint blocks of one kernel type with `N` local coordinates and `M` rows.
pub struct ConstraintGroup<K, const N: usize, const M: usize> {
    /// The kernels.
    pub(crate) kernels: Vec<K>,
    /// Their global coordinates.
    pub(crate) indices: Vec<[usize; N]>,
    /// First global constraint row (multiplier) of each block.
    pub(crate) rows: Vec<usize>,
}

impl<K, const N: usize> TermGroup<K, N> {
    pub(crate) fn new() -> Self {
        Self {
            kernels: Vec::new(),
            indices: Vec::new(),
            schedule: None,
        }
    }
}

impl<K, const N: usize, const M: usize> ConstraintGroup<K, N, M> {
    pub(crate) fn new() -> Self {
        Self {
            kernels: Vec::new(),
            indices: Vec::new(),
            rows: Vec::new(),
        }
    }
}

/// Inputs of one evaluation at time `t`, as global arrays.
#[derive(Clone, Copy)]
pub struct Point<'a> {
    /// Time.
    pub t: f64,
    /// Coordinates.
    pub q: &'a [f64],
    /// Velocities.
    pub v: &'a [f64],
    /// Accelerations.
    pub a: &'a [f64],
    /// Multipliers as they enter `C_qᵀλ` (possibly scaled).
    pub lambda: &'a [f64],
}

/// Positions in the global values array (CSC order) of the entries of every block of a
/// constraint group, element after element, each block row-major in local indices.
#[derive(Clone, Debug, Default)]
pub struct ConstraintSlots {
    /// `N×N` per element: `(idx[i], idx[j])`.
    pub hess: Vec<usize>,
    /// `M×N` per element: `(n + row + k, idx[j])`.
    pub jac: Vec<usize>,
    /// `M×N` per element: `(idx[j], n + row + k)`.
    pub jac_t: Vec<usize>,
}

/// A group of term kernels as the assembly drives it (implemented in [`crate::assembly`]).
#[allow(clippy::len_without_is_empty)]
pub trait Terms: Send + Sync {
    /// For adding elements of the group's own type.
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// Number of elements.
    fn len(&self) -> usize;
    /// Local coordinates per element `N`.
    fn size(&self) -> usize;
    /// Global coordinates of element `e`.
    fn indices(&self, e: usize) -> &[usize];
    /// Add `scale·r` of every element into `r`.
    fn add_residual(&self, p: &Point, scale: f64, r: &mut [f64]);
    /// Whether every kernel's `M = ∂r/∂a` is constant ([`TermKernel::constant_mass`](crate::model::kernel::TermKernel::constant_mass)).
    fn constant_mass(&self) -> bool;
    /// Add `scale·r` into `r` and the weighted blocks `J` into `values` at the group's `slots`
    /// (`N×N` per element, row-major).
    fn add_jacobian(
        &self,
        p: &Point,
        scale: f64,
        c: &KernelCoefficients,
        r: &mut [f64],
        values: &mut [f64],
        slots: &[usize],
    );
    /// Sum of `[T, V, v·∂L/∂v − L]` over the group.
    fn energy(&self, t: f64, q: &[f64], v: &[f64]) -> [f64; 3];
    /// The first element whose residual at `p` is not finite (for error messages).
    fn first_non_finite(&self, p: &Point) -> Option<usize>;
    /// Add every element's momentum `∂L/∂v` into `p` (global).
    fn add_momentum(&self, t: f64, q: &[f64], v: &[f64], p: &mut [f64]);
    /// Sum of the powers `[Q·v, v·∂R/∂v, −∂L/∂t]` over the group
    /// ([`TermKernel::power`](super::TermKernel::power)).
    fn power(&self, t: f64, q: &[f64], v: &[f64]) -> [f64; 3];
    /// `max |r_e|` of element `e`'s local residual at `p` (its largest force; for messages).
    fn element_force(&self, e: usize, p: &Point) -> f64;
    /// The powers `[Q·v, v·∂R/∂v, −∂L/∂t]` of element `e` alone.
    fn element_power(&self, e: usize, t: f64, q: &[f64], v: &[f64]) -> [f64; 3];
    /// `[T, V, v·∂L/∂v − L]` of element `e` alone.
    fn element_energy(&self, e: usize, t: f64, q: &[f64], v: &[f64]) -> [f64; 3];
    /// Local dense `(r, M, ∂r/∂v, ∂r/∂q)` of element `e` (allocates; for checks).
    fn dense_blocks(&self, e: usize, p: &Point) -> [DMatrix<f64>; 4];
    /// Assemble color by color in parallel (`true`, when the kernel asks for it, the group has
    /// at least [`PARALLEL_MIN_ELEMENTS`] and 64 colors suffice) or element by element (`false`), on a
    /// model of `n` coordinates.
    fn set_parallel(&mut self, on: bool, n: usize);
    /// The number of colors when assembled in parallel (0: element by element).
    fn colors(&self) -> usize;
    /// Add every element's residual on Taylor series in time into `r` (all global, length `n`;
    /// [`TermKernel::taylor_residual`](super::TermKernel::taylor_residual)). `Err` with the
    /// kernel's type name when it has no form on series.
    fn add_taylor_residual(&self, s: &TaylorPoint, r: &mut [TaylorVar])
    -> Result<(), &'static str>;
    /// Whether the group's residual depends on the accelerations (its `M` is not zero).
    fn reads_acceleration(&self) -> bool {
        true
    }
    /// Whether the group's residual at zero acceleration is the same in every state (it
    /// reads neither `t`, `q` nor `v`: point masses' weights).
    fn constant_at_rest(&self) -> bool {
        false
    }
    /// Whether the group solves `M x = b` with its own mass matrix in `O(n)` without a matrix
    /// ([`solve_mass`](Terms::solve_mass)) — a tree of bodies, by articulated bodies.
    fn solves_mass(&self) -> bool {
        false
    }
    /// Solve `M x = b` with the group's own mass matrix at `q` in place on its coordinates
    /// (`x` global: `b` in, `x` out, other entries untouched), for a group that
    /// [`solves_mass`](Terms::solves_mass). `Err`: `M` is singular there (what is wrong, for
    /// messages).
    fn solve_mass(&self, _q: &[f64], _x: &mut [f64]) -> Result<(), String> {
        Err("the group has no mass solve of its own".into())
    }
    /// Forward dynamics of a group that [`solves_mass`](Terms::solves_mass): `x` (global)
    /// holds the generalized forces of the *other* terms, `−r_others(t, q, v)`, on the group's
    /// coordinates; out comes `q̈ = M⁻¹(x − b(q, v))`, the group's own velocity and gravity
    /// terms `b` taken inside its recursion. A long chain's bias torques are large sums that
    /// cancel: formed apart and divided by an ill-conditioned `M` their rounding swamps `q̈`
    /// (a 700-link chain: DOP853 at 1e-8 stalled at t = 5e-4). `Err`: `M` is singular there.
    fn forward_dynamics(&self, _q: &[f64], _v: &[f64], _x: &mut [f64]) -> Result<(), String> {
        Err("the group has no forward dynamics of its own".into())
    }
    /// Where the group's own mass matrix cannot accelerate a part of it at `q` (`x` global),
    /// named for a message — a diagnosis once a solve has failed (`None`: nothing found).
    fn singular_mass(&self, _q: &[f64]) -> Option<String> {
        None
    }
}

/// The inputs of an evaluation on Taylor series in time, as global arrays of series.
#[derive(Clone, Copy)]
pub struct TaylorPoint<'a> {
    /// Time.
    pub t: TaylorVar,
    /// Coordinates.
    pub q: &'a [TaylorVar],
    /// Velocities.
    pub v: &'a [TaylorVar],
    /// Accelerations.
    pub a: &'a [TaylorVar],
    /// Multipliers.
    pub lambda: &'a [TaylorVar],
}

/// A group of constraint kernels as the assembly drives it (implemented in
/// [`crate::assembly`]). Row-indexed outputs (`c`, `out`) are global (length `m`).
#[allow(clippy::len_without_is_empty)]
pub trait Constraints: Send + Sync {
    /// For adding elements of the group's own type.
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// Number of blocks.
    fn len(&self) -> usize;
    /// Local coordinates per block `N`.
    fn size(&self) -> usize;
    /// Rows per block `M`.
    fn rows(&self) -> usize;
    /// Global coordinates of block `e`.
    fn indices(&self, e: usize) -> &[usize];
    /// First global row of block `e`.
    fn row(&self, e: usize) -> usize;
    /// Write `C` into `c`.
    fn values(&self, t: f64, q: &[f64], c: &mut [f64]);
    /// Write `C` into `c` and add `C_qᵀλ` into `r`.
    fn add_residual(&self, p: &Point, r: &mut [f64], c: &mut [f64]);
    /// As `add_residual`, and add `stiffness·Σλ∇²C`, `C_q` and `C_qᵀ` into `values` at `slots`.
    #[allow(clippy::too_many_arguments)]
    fn add_jacobian(
        &self,
        p: &Point,
        stiffness: f64,
        r: &mut [f64],
        c: &mut [f64],
        values: &mut [f64],
        slots: &ConstraintSlots,
    );
    /// Add `C_q` into the dense `m × n` matrix `jac`.
    fn add_dense_jacobian(&self, t: f64, q: &[f64], jac: &mut DMatrix<f64>);
    /// Write `C_t` into `out`.
    fn time_derivative(&self, t: f64, q: &[f64], out: &mut [f64]);
    /// The first element whose value `C(t, q)` is not finite (for error messages).
    fn first_non_finite(&self, t: f64, q: &[f64]) -> Option<usize>;
    /// `C_q` of element `e` into `out` (`M×N`, row-major in its local indices).
    fn local_jacobian(&self, e: usize, t: f64, q: &[f64], out: &mut [f64]);
    /// Write `γ` into `out`.
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]);
    /// Add `C_q` into the dense row-major `m × n` matrix `jac` (rows of `n` entries) and write
    /// `C` into `c`.
    fn add_rows(&self, t: f64, q: &[f64], jac: &mut [f64], c: &mut [f64]);
    /// Add `C_q` into the dense row-major `m × n` matrix `jac` (rows of `n` entries) and write
    /// `γ` into `gamma`: what a state's accelerations need of the constraints, in one pass.
    fn add_rows_and_gamma(&self, t: f64, q: &[f64], v: &[f64], jac: &mut [f64], gamma: &mut [f64]);
    /// Local dense `(C, C_q, Σλ∇²C)` of block `e` with the global multipliers `lambda`.
    fn dense_blocks(&self, e: usize, t: f64, q: &[f64], lambda: &[f64]) -> [DMatrix<f64>; 3];
    /// Write `C` on Taylor series in time into `c`. `Err` with the kernel's type name when it
    /// has no form on series.
    fn taylor_values(&self, s: &TaylorPoint, c: &mut [TaylorVar]) -> Result<(), &'static str>;
    /// Add `C_qᵀλ` on Taylor series in time into `r`. `Err` with the kernel's type name when it
    /// has no form on series.
    fn add_taylor_force(&self, s: &TaylorPoint, r: &mut [TaylorVar]) -> Result<(), &'static str>;
}

#[cfg(test)]
mod tests {
    use super::Schedule;

    /// Every element once; no two blocks of a color share a coordinate; a chain (band one) and
    /// a grid numbered row by row (band one row) need two colors, elements in any order.
    #[test]
    fn blocks_of_a_color_share_no_coordinate() {
        let chain: Vec<[usize; 2]> = (0..20_000).rev().map(|i| [i + 1, i]).collect();
        let m = 150;
        let mut grid: Vec<[usize; 2]> = Vec::new();
        for i in 0..m {
            for j in 0..m {
                let p = i * m + j;
                if j + 1 < m {
                    grid.push([p, p + 1]);
                }
                if i + 1 < m {
                    grid.push([p + m, p]);
                }
            }
        }
        // a scrambled order: the schedule sorts
        let grid: Vec<[usize; 2]> = (0..grid.len())
            .map(|e| grid[(e * 7919) % grid.len()])
            .collect();
        for (indices, n) in [(&chain, 20_001), (&grid, m * m)] {
            let s = Schedule::new(indices, n).expect("schedule");
            assert_eq!(s.colors.len(), 2);
            let mut seen = vec![false; indices.len()];
            for blocks in &s.colors {
                let mut owner = vec![usize::MAX; n];
                for (b, range) in blocks.iter().enumerate() {
                    for &e in &s.order[range.clone()] {
                        assert!(!std::mem::replace(&mut seen[e as usize], true));
                        for &i in &indices[e as usize] {
                            assert!(owner[i] == usize::MAX || owner[i] == b, "coordinate {i}");
                            owner[i] = b;
                        }
                    }
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
}
