//! Ready-made networks: the seeds' examples and the benchmark systems. Each function returns a
//! [`MassSpringSystem`] ready to `simulate`; the examples in `examples/` run them.

use super::{MassSpringSystem, Node};

/// Benchmark chain: a fixed point at the origin, `n` masses of 1 kg at `(i, 0, 0)`, springs
/// `k = 1000`, rest length 1 between consecutive nodes (the first to the fixed point), no damping,
/// gravity `(0, −9.81, 0)`.
pub fn benchmark_chain(n: usize) -> MassSpringSystem<3> {
    let mut s = MassSpringSystem::<3>::new([0.0, -9.81, 0.0]);
    let mut prev = s.add_fix([0.0, 0.0, 0.0]);
    for i in 1..=n {
        let m = s.add_mass(1.0, [i as f64, 0.0, 0.0]);
        s.add_spring(prev, m, 1.0, 1000.0);
        prev = m;
    }
    s
}

/// Cloth / drum membrane: `m × m` particles of 0.01 kg at `(0.1 i, 0.1 j, 0)`, `i, j = 1..m`, a ring
/// of fixed points at `i` or `j ∈ {0, m+1}`, 4-neighbour springs `k = 100`, rest length 0.1, axial
/// damping 0.01, gravity `(0, 0, −9.81)`; particle `i = j = (m+1) div 2` starts with velocity
/// `(0, 0, 1)`. Returns the system and the middle particle.
pub fn cloth(m: usize) -> (MassSpringSystem<3>, Node) {
    let mut s = MassSpringSystem::<3>::new([0.0, 0.0, -9.81]);
    let mid = m.div_ceil(2).max(1); // (m + 1) div 2
    let mut grid = vec![vec![None; m + 2]; m + 2];
    for i in 0..m + 2 {
        for j in 0..m + 2 {
            let pos = [0.1 * i as f64, 0.1 * j as f64, 0.0];
            let interior = (1..=m).contains(&i) && (1..=m).contains(&j);
            let corner = (i == 0 || i == m + 1) && (j == 0 || j == m + 1);
            grid[i][j] = if interior {
                let vel = if i == mid && j == mid {
                    [0.0, 0.0, 1.0]
                } else {
                    [0.0; 3]
                };
                Some(s.add_mass_with_velocity(0.01, pos, vel))
            } else if !corner {
                Some(s.add_fix(pos))
            } else {
                None
            };
        }
    }
    for i in 0..m + 2 {
        for j in 0..m + 2 {
            for (di, dj) in [(1, 0), (0, 1)] {
                let (i2, j2) = (i + di, j + dj);
                if i2 > m + 1 || j2 > m + 1 {
                    continue;
                }
                if let (Some(a), Some(b)) = (grid[i][j], grid[i2][j2]) {
                    if matches!(a, Node::Mass(_)) || matches!(b, Node::Mass(_)) {
                        s.add_damped_spring(a, b, 0.1, 100.0, 0.01);
                    }
                }
            }
        }
    }
    let centre = grid[mid][mid].expect("interior particle");
    (s, centre)
}

/// RMS of all displacement coordinates from `initial` positions.
pub fn rms_displacement<const D: usize>(s: &MassSpringSystem<D>, initial: &[f64]) -> f64 {
    let (q, _) = s.state_vectors();
    let n = q.len().max(1);
    (q.iter()
        .zip(initial)
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        / n as f64)
        .sqrt()
}
