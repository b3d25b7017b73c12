//! Lattices of particles and springs, as data: the sites (where each particle or fixed point
//! is, and which are fixed) and the bonds between them (with their rest lengths). The one
//! layout of a chain and of a grid (membrane, cloth) that both mechanism files (`Chains`,
//! `Grids`) and the Rust library (`MassSpringSystem::add_chain`, the cloth) build from.
//!
//! ```
//! use lagrangian::mechanisms::lattice::Lattice;
//! // 2 × 2 particles inside a fixed rim (the rim's corners left out): 4 + 8 sites
//! let g = Lattice::grid([2, 2], [0.1, 0.2], [0.0; 3], true);
//! assert_eq!((g.sites.len(), g.sites.iter().filter(|s| !s.fixed).count()), (12, 4));
//! // 4-neighbour bonds, none between two fixed points: 4 inside, 8 to the rim
//! assert_eq!(g.bonds.len(), 12);
//! assert!(g.bonds.iter().all(|b| !(g.sites[b.ends[0]].fixed && g.sites[b.ends[1]].fixed)));
//! let c = Lattice::chain([0.0; 3], [3.0, 4.0, 0.0], 5);
//! assert_eq!((c.sites.len(), c.bonds.len(), c.bonds[0].length), (5, 5, 1.0));
//! ```

/// A site of a lattice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Site {
    /// Its position (unused components 0).
    pub position: [f64; 3],
    /// Whether it is a fixed point (else a particle).
    pub fixed: bool,
    /// Its lattice index: `(i, 0)` along a chain (from 1), `(i, j)` in a grid (from 0 with a
    /// rim, from 1 without) — what a generated point is named after.
    pub index: (usize, usize),
}

/// A spring between two sites (a chain's first bond starts at its anchor: `ends[0]` is then
/// [`ANCHOR`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bond {
    /// The sites it joins (indices into [`Lattice::sites`], or [`ANCHOR`]).
    pub ends: [usize; 2],
    /// Its rest length: the distance of its ends as laid out.
    pub length: f64,
}

/// The end of a chain's first bond that is its anchor (a point the chain hangs from, not one of
/// its sites).
pub const ANCHOR: usize = usize::MAX;

/// Sites and bonds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lattice {
    /// The sites, in the order they are made.
    pub sites: Vec<Site>,
    /// The bonds, in the order they are made.
    pub bonds: Vec<Bond>,
}

impl Lattice {
    /// `n` particles equally spaced from the anchor at `from` to `to` (the last one at `to`),
    /// each bonded to the one before (the first to the anchor) at the spacing's length.
    pub fn chain(from: [f64; 3], to: [f64; 3], n: usize) -> Lattice {
        let nf = n.max(1) as f64;
        let step: [f64; 3] = std::array::from_fn(|k| (to[k] - from[k]) / nf);
        let length = step.iter().map(|x| x * x).sum::<f64>().sqrt();
        let sites = (1..=n).map(|i| Site {
            position: std::array::from_fn(|k| from[k] + step[k] * i as f64),
            fixed: false,
            index: (i, 0),
        });
        let bonds = (0..n).map(|i| Bond {
            ends: [if i == 0 { ANCHOR } else { i - 1 }, i],
            length,
        });
        Lattice {
            sites: sites.collect(),
            bonds: bonds.collect(),
        }
    }

    /// `n[0] × n[1]` particles at `origin + (spacing₀ i, spacing₁ j)`, `i = 1..n[0]`,
    /// `j = 1..n[1]`, with (`rim`) a ring of fixed points at `i ∈ {0, n[0]+1}` or
    /// `j ∈ {0, n[1]+1}` (its four corners left out); a bond between each pair of neighbours
    /// along `i` and along `j` but for two fixed points, at the spacing's length.
    pub fn grid(n: [usize; 2], spacing: [f64; 2], origin: [f64; 3], rim: bool) -> Lattice {
        let [n0, n1] = n;
        let (lo, hi0, hi1) = match rim {
            true => (0, n0 + 1, n1 + 1),
            false => (1, n0, n1),
        };
        let mut at = vec![None; (hi0 + 1) * (hi1 + 1)];
        let slot = |i: usize, j: usize| i * (hi1 + 1) + j;
        let mut lattice = Lattice::default();
        for i in lo..=hi0 {
            for j in lo..=hi1 {
                let fixed = !((1..=n0).contains(&i) && (1..=n1).contains(&j));
                let corner = (i == 0 || i == n0 + 1) && (j == 0 || j == n1 + 1);
                if corner {
                    continue;
                }
                let mut position = origin;
                position[0] += spacing[0] * i as f64;
                position[1] += spacing[1] * j as f64;
                at[slot(i, j)] = Some(lattice.sites.len());
                lattice.sites.push(Site {
                    position,
                    fixed,
                    index: (i, j),
                });
            }
        }
        for i in lo..=hi0 {
            for j in lo..=hi1 {
                for (di, dj, length) in [(1, 0, spacing[0]), (0, 1, spacing[1])] {
                    let (i2, j2) = (i + di, j + dj);
                    if i2 > hi0 || j2 > hi1 {
                        continue;
                    }
                    if let (Some(a), Some(b)) = (at[slot(i, j)], at[slot(i2, j2)])
                        && !(lattice.sites[a].fixed && lattice.sites[b].fixed)
                    {
                        lattice.bonds.push(Bond {
                            ends: [a, b],
                            length,
                        });
                    }
                }
            }
        }
        lattice
    }
}
