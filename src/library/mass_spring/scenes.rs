//! Ready-made networks: the mass–spring course's examples and the benchmark systems. Each function returns a
//! [`MassSpringSystem`] ready to `simulate`; the examples in `examples/` run them.

use super::{MassSpringSystem, Node};
use crate::error::ModelError;
use crate::mechanisms::lattice::Lattice;

/// The Newton tolerance of the benchmark networks: their configuration in the comparison with
/// Exudyn (benches/README.md). At `h = 1e-3` their discretization error is about 1e-6, far above
/// it; the toolkit's default, 1e-12, costs the 90×90 cloth 61 % more Newton iterations on the
/// Jacobi path (2526 instead of 1570) for no visible change.
pub const BENCHMARK_NEWTON_TOL: f64 = 1e-10;

/// Benchmark chain: a fixed point at the origin, `n` masses of 1 kg at `(i, 0, 0)`, springs
/// `k = 1000`, rest length 1 between consecutive nodes (the first to the fixed point), no damping,
/// gravity `(0, −9.81, 0)`; Newton tolerance [`BENCHMARK_NEWTON_TOL`].
pub fn benchmark_chain(n: usize) -> MassSpringSystem<3> {
    let mut s = MassSpringSystem::<3>::new([0.0, -9.81, 0.0]);
    s.options.method.newton_tol = BENCHMARK_NEWTON_TOL;
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
/// `(0, 0, 1)`; Newton tolerance [`BENCHMARK_NEWTON_TOL`]. Returns the system and the middle
/// particle; an error for `m = 0` (no particle).
pub fn cloth(m: usize) -> Result<(MassSpringSystem<3>, Node), ModelError> {
    if m == 0 {
        return Err(ModelError::Empty {
            what: "a cloth".into(),
            need: "it needs at least one particle per side (m ≥ 1)".into(),
        });
    }
    let mut s = MassSpringSystem::<3>::new([0.0, 0.0, -9.81]);
    s.options.method.newton_tol = BENCHMARK_NEWTON_TOL;
    let mid = m.div_ceil(2).max(1); // (m + 1) div 2
    let lattice = Lattice::grid([m, m], [0.1, 0.1], [0.0; 3], true);
    let mut centre = None;
    let nodes: Vec<Node> = (lattice.sites.iter())
        .map(|site| match site.fixed {
            true => s.add_fix(site.position),
            false if site.index == (mid, mid) => {
                let node = s.add_mass_with_velocity(0.01, site.position, [0.0, 0.0, 1.0]);
                centre = Some(node);
                node
            }
            false => s.add_mass(0.01, site.position),
        })
        .collect();
    for bond in &lattice.bonds {
        s.add_damped_spring(
            nodes[bond.ends[0]],
            nodes[bond.ends[1]],
            bond.length,
            100.0,
            0.01,
        );
    }
    match centre {
        Some(centre) => Ok((s, centre)),
        None => Err(ModelError::Empty {
            what: "a cloth".into(),
            need: "it has no middle particle".into(),
        }),
    }
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

/// The mass–spring course examples, §6.2: a chain of `n` unit masses on springs (rest length 1, `k = 20`) hanging
/// straight down from a fixed point, gravity `(0, −9.81, 0)`.
pub fn hanging_chain(n: usize) -> MassSpringSystem<3> {
    let mut s = MassSpringSystem::<3>::new([0.0, -9.81, 0.0]);
    let mut prev = s.add_fix([0.0, 0.0, 0.0]);
    for i in 0..n {
        let m = s.add_mass(1.0, [0.0, -(i as f64) - 1.0, 0.0]);
        s.add_spring(prev, m, 1.0, 20.0);
        prev = m;
    }
    s
}

/// The mass–spring course examples, §6.3: a bridge girder of `2 × (nx + 1)` nodes in the vertical `x–z` plane (panels
/// 1 m × 1 m), anchored at both ends (`i = 0` and `i = nx` are fixed), springs (`k = 10⁵`,
/// damping 10) along the chords, on the verticals and on both diagonals of every panel
/// (cross-bracing), gravity `(0, 0, −9.81)` and a periodic load `F_z = amplitude · sin(ω t)` on
/// every mass (1 kg).
pub fn bridge(nx: usize, amplitude: f64, omega: f64) -> MassSpringSystem<3> {
    let mut s = MassSpringSystem::<3>::new([0.0, 0.0, -9.81]);
    let (k, c, m) = (1e5, 10.0, 1.0);
    let mut nodes = Vec::new();
    for i in 0..=nx {
        let row: Vec<Node> = (0..2)
            .map(|j| {
                let p = [i as f64, 0.0, j as f64];
                if i == 0 || i == nx {
                    s.add_fix(p)
                } else {
                    s.add_mass(m, p)
                }
            })
            .collect();
        nodes.push(row);
    }
    let diag = 2f64.sqrt();
    for i in 0..=nx {
        if i > 0 && i < nx {
            s.add_damped_spring(nodes[i][0], nodes[i][1], 1.0, k, c);
        }
        if i < nx {
            for j in 0..2 {
                s.add_damped_spring(nodes[i][j], nodes[i + 1][j], 1.0, k, c);
            }
            s.add_damped_spring(nodes[i][0], nodes[i + 1][1], diag, k, c);
            s.add_damped_spring(nodes[i][1], nodes[i + 1][0], diag, k, c);
        }
    }
    for row in &nodes[1..nx] {
        for &n in row {
            s.add_load(n, move |t| [0.0, 0.0, amplitude * (omega * t).sin()]);
        }
    }
    s
}

/// The mass–spring course examples, §6.1: a rigid-rod pendulum — a fixed point and a mass kept at distance `length` by a
/// distance constraint, released from the horizontal, gravity `(0, −g, 0)`.
pub fn rod_pendulum(mass: f64, length: f64, g: f64) -> (MassSpringSystem<3>, Node) {
    let mut s = MassSpringSystem::<3>::new([0.0, -g, 0.0]);
    let f = s.add_fix([0.0, 0.0, 0.0]);
    let m = s.add_mass(mass, [length, 0.0, 0.0]);
    s.add_distance_constraint(f, m, length);
    (s, m)
}

/// The mass–spring course, exercise 3: a double pendulum (two rigid rods of length 0.5, masses 1) hanging from
/// the end of a spring chain of `n` masses (0.2 kg, `k = 500`, spacing 0.25) from a fixed point;
/// the pendulum starts horizontal. Gravity `(0, −9.81, 0)`. Returns the system and the two bobs.
pub fn double_pendulum_on_chain(n: usize) -> (MassSpringSystem<3>, [Node; 2]) {
    let mut s = MassSpringSystem::<3>::new([0.0, -9.81, 0.0]);
    let f = s.add_fix([0.0, 0.0, 0.0]);
    let chain = s.add_chain(f, [0.0, -0.25 * n as f64, 0.0], n, 0.2, 500.0, 0.5);
    let end = *chain.last().unwrap_or(&f);
    let p = s.node_position(end);
    let b1 = s.add_mass(1.0, [p[0] + 0.5, p[1], 0.0]);
    let b2 = s.add_mass(1.0, [p[0] + 1.0, p[1], 0.0]);
    s.add_distance_constraint(end, b1, 0.5);
    s.add_distance_constraint(b1, b2, 0.5);
    (s, [b1, b2])
}

/// The mass–spring course, exercise 3: a double pendulum whose rods are stiff springs (`k`, rest length = rod
/// length) instead of constraints; as `k → ∞` it approaches the rigid double pendulum.
/// Pivot at the origin, bobs at angles `θ₁, θ₂` from the downward vertical, gravity `(0, −g, 0)`.
pub fn double_pendulum_springs(
    m: [f64; 2],
    l: [f64; 2],
    g: f64,
    theta: [f64; 2],
    k: f64,
) -> (MassSpringSystem<3>, [Node; 2]) {
    let mut s = MassSpringSystem::<3>::new([0.0, -g, 0.0]);
    let f = s.add_fix([0.0, 0.0, 0.0]);
    let p1 = [l[0] * theta[0].sin(), -l[0] * theta[0].cos(), 0.0];
    let p2 = [
        p1[0] + l[1] * theta[1].sin(),
        p1[1] - l[1] * theta[1].cos(),
        0.0,
    ];
    let b1 = s.add_mass(m[0], p1);
    let b2 = s.add_mass(m[1], p2);
    s.add_spring(f, b1, l[0], k);
    s.add_spring(b1, b2, l[1], k);
    (s, [b1, b2])
}

/// The mass–spring course examples, §6.4: a spinning "kreisel" (top) — `n` masses (0.1 kg) on a horizontal circle of
/// radius `r` at height `height` above a fixed tip at the origin, joined to their neighbours and
/// to the tip by springs (`k = 100`, at rest length), given the circular velocity `ω × x` about
/// the vertical axis. Gravity `(0, 0, −9.81)`.
pub fn kreisel(n: usize, r: f64, height: f64, omega: f64) -> MassSpringSystem<3> {
    let mut s = MassSpringSystem::<3>::new([0.0, 0.0, -9.81]);
    let tip = s.add_fix([0.0, 0.0, 0.0]);
    let ring: Vec<Node> = (0..n)
        .map(|i| {
            let a = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
            let (x, y) = (r * a.cos(), r * a.sin());
            s.add_mass_with_velocity(0.1, [x, y, height], [-omega * y, omega * x, 0.0])
        })
        .collect();
    let chord = 2.0 * r * (std::f64::consts::PI / n as f64).sin();
    let spoke = (r * r + height * height).sqrt();
    for i in 0..n {
        s.add_spring(ring[i], ring[(i + 1) % n], chord, 100.0);
        s.add_spring(tip, ring[i], spoke, 100.0);
    }
    s
}

/// Angular momentum about the `z` axis through the origin, `Σ m (x v_y − y v_x)`.
pub fn angular_momentum_z(s: &MassSpringSystem<3>) -> f64 {
    s.masses
        .iter()
        .map(|m| m.mass * (m.pos[0] * m.vel[1] - m.pos[1] * m.vel[0]))
        .sum()
}

/// Simulate `s` over `t_end` in `steps` steps and print one JSON line: run figures
/// (`steps`, `newton_iterations`, `factorizations`, `build_seconds`, `solve_seconds`), energies
/// at the start and end, the largest constraint residual, and the fields `extra` adds. Errors go
/// to stderr with a non-zero exit code. Used by the examples.
pub fn run_and_report<const D: usize>(
    s: &mut MassSpringSystem<D>,
    t_end: f64,
    steps: usize,
    extra: impl FnOnce(&MassSpringSystem<D>) -> serde_json::Value,
) -> std::process::ExitCode {
    match s.simulate(t_end, steps) {
        Ok(sol) => {
            let (first, last) = (&sol.records[0], sol.last());
            let mut out = serde_json::json!({
                "t": last.state.t,
                "steps": sol.stats.steps,
                "newton_iterations": sol.stats.newton_iterations,
                "factorizations": sol.stats.factorizations,
                "build_seconds": s.info().build_seconds,
                "solve_seconds": sol.stats.solve_seconds,
                "energy_start": first.energy,
                "energy_end": last.energy,
                "max_constraint_residual": sol.max_constraint(),
            });
            if let (Some(o), serde_json::Value::Object(e)) = (out.as_object_mut(), extra(s)) {
                o.extend(e);
            }
            println!("{out}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// A stiff system: a slow oscillator (mass 1 on a spring of stiffness 1 and rest length 1 to a
/// fixed point, `ω = 1`, starting at 0.5 m/s) dragging a light mass (1e-3) on a damped spring
/// (stiffness 1, damping 1): the light mass follows within 1/1000 s, a mode at −1000/s that
/// holds an explicit method's steps down by stability, not accuracy.
pub fn stiff_oscillator() -> MassSpringSystem<2> {
    let mut sys = MassSpringSystem::<2>::new([0.0, 0.0]);
    let a = sys.add_fix([0.0, 0.0]);
    let b = sys.add_mass_with_velocity(1.0, [1.0, 0.0], [0.5, 0.0]);
    let c = sys.add_mass(1e-3, [2.0, 0.0]);
    sys.add_spring(a, b, 1.0, 1.0);
    sys.add_damped_spring(b, c, 1.0, 1.0, 1.0);
    sys
}
