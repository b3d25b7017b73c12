//! A user's crate: three networks written in the shortest form the tutorial teaches — point
//! masses by their mass matrix and potential, springs as `Interaction`s (their potential and
//! Rayleigh function in the difference of their ends), rods as constraints, nothing declared —
//! against the library's hand kernels and its own AD elements on the same networks, in one
//! process, all with the options of the library's benchmark scenes.
//!
//! `bash benches/user_crate/run.sh [--repeat 3]` builds it outside the workspace (cargo's default
//! release profile) and runs each case on one thread; one JSON line per case.

use lagrangian::ad::Derivatives;
use lagrangian::library::mass_spring::scenes::{benchmark_chain, cloth, BENCHMARK_NEWTON_TOL};
use lagrangian::library::mass_spring::MassSpringSystem;
use lagrangian::prelude::*;

/// A point mass `m` under gravity `g`.
struct Mass {
    m: f64,
    g: [f64; 3],
}
impl Term<3> for Mass {
    fn mass(&self) -> SMatrix<f64, 3, 3> {
        SMatrix::identity() * self.m
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 3>) -> D {
        -(q[0] * self.g[0] + q[1] * self.g[1] + q[2] * self.g[2]) * self.m
    }
}

/// A spring of stiffness `k` and rest length `l`, written in the difference `d` of its ends.
struct Spring {
    k: f64,
    l: f64,
}
impl Interaction<3> for Spring {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, d: &SVector<D, 3>) -> D {
        let s = d.dot(d).sqrt() - self.l;
        s * s * (0.5 * self.k)
    }
}

/// A spring with axial damping `c`: `R = ½ c (d·ḋ)² / |d|²`.
struct DampedSpring {
    k: f64,
    l: f64,
    c: f64,
}
impl Interaction<3> for DampedSpring {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, d: &SVector<D, 3>) -> D {
        let s = d.dot(d).sqrt() - self.l;
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

/// The point mass as a physicist writes it first: `T = ½ m v·v` (`--form physicist`).
struct KineticMass {
    m: f64,
    g: [f64; 3],
}
impl Term<3> for KineticMass {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 3>,
        v: &SVector<D, 3>,
    ) -> D {
        v.dot(v) * (0.5 * self.m)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 3>) -> D {
        -(q[0] * self.g[0] + q[1] * self.g[1] + q[2] * self.g[2]) * self.m
    }
}

/// `d = x₂ − x₁` of a term's two points.
fn ends<D: DualNum<Primitive = f64> + Copy>(q: &SVector<D, 6>) -> SVector<D, 3> {
    q.fixed_rows::<3>(3) - q.fixed_rows::<3>(0)
}

/// A spring as a term on both ends' six coordinates (`--form physicist`).
struct PairSpring {
    k: f64,
    l: f64,
}
impl Term<6> for PairSpring {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 6>) -> D {
        let d = ends(q);
        let s = d.dot(&d).sqrt() - self.l;
        s * s * (0.5 * self.k)
    }
}

/// A spring with axial damping `c` on both ends' six coordinates (`--form physicist`).
struct PairDampedSpring {
    k: f64,
    l: f64,
    c: f64,
}
impl Term<6> for PairDampedSpring {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 6>) -> D {
        let d = ends(q);
        let s = d.dot(&d).sqrt() - self.l;
        s * s * (0.5 * self.k)
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 6>,
        v: &SVector<D, 6>,
    ) -> D {
        let (d, dd) = (ends(q), ends(v));
        let p = d.dot(&dd);
        p * p / d.dot(&d) * (0.5 * self.c)
    }
}

/// A spring (with axial damping `c`; none when 0) from a fixed anchor to a point, on the
/// point's coordinates (`--form physicist`).
struct AnchoredSpring {
    a: [f64; 3],
    k: f64,
    l: f64,
    c: f64,
}
impl Term<3> for AnchoredSpring {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 3>) -> D {
        let d = q - SVector::<f64, 3>::from(self.a).map(D::from);
        let s = d.dot(&d).sqrt() - self.l;
        s * s * (0.5 * self.k)
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 3>,
        v: &SVector<D, 3>,
    ) -> D {
        let d = q - SVector::<f64, 3>::from(self.a).map(D::from);
        let p = d.dot(v);
        p * p / d.dot(&d) * (0.5 * self.c)
    }
}

/// A rod of length `l` between two points.
struct Rod(f64);
impl Constraint<6, 1> for Rod {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 6>,
    ) -> SVector<D, 1> {
        let d = q.fixed_rows::<3>(3) - q.fixed_rows::<3>(0);
        SVector::from([(d.dot(&d) - self.0 * self.0) * 0.5])
    }
}

/// A rod of length `l` from the origin to a point.
struct AnchoredRod(f64);
impl Constraint<3, 1> for AnchoredRod {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 3>,
    ) -> SVector<D, 1> {
        SVector::from([(q.dot(q) - self.0 * self.0) * 0.5])
    }
}

/// How the user wrote the terms: the tutorial's short form (`mass`, `Interaction`s) or as a
/// physicist writes them first (`kinetic`, springs as terms on both ends' coordinates).
#[derive(Clone, Copy)]
enum Form {
    Short,
    Physicist,
}

/// A point mass `m` under gravity `g` in the form `form`.
fn add_mass(b: &mut ModelBuilder, form: Form, at: [usize; 3], m: f64, g: [f64; 3]) {
    match form {
        Form::Short => b.add_term(at, Mass { m, g }),
        Form::Physicist => b.add_term(at, KineticMass { m, g }),
    };
}

fn idx(i: usize) -> [usize; 3] {
    [3 * i, 3 * i + 1, 3 * i + 2]
}

fn pair(i: usize, j: usize) -> [usize; 6] {
    [3 * i, 3 * i + 1, 3 * i + 2, 3 * j, 3 * j + 1, 3 * j + 2]
}

/// The 1000-mass chain of `benchmark_chain`: masses of 1 kg 1 m apart along x on springs
/// k = 1000 from a fixed point at the origin, gravity −9.81 along y.
fn user_chain(n: usize, form: Form) -> Result<Problem, Error> {
    let mut b = Model::builder(3 * n);
    let g = [0.0, -9.81, 0.0];
    let (k, l) = (1000.0, 1.0);
    match form {
        Form::Short => b.add_anchored([0.0; 3], idx(0), Spring { k, l }),
        Form::Physicist => {
            let a = [0.0; 3];
            b.add_term(idx(0), AnchoredSpring { a, k, l, c: 0.0 })
        }
    };
    for i in 0..n {
        add_mass(&mut b, form, idx(i), 1.0, g);
        if i > 0 {
            match form {
                Form::Short => b.add_between(idx(i - 1), idx(i), Spring { k, l }),
                Form::Physicist => b.add_term(pair(i - 1, i), PairSpring { k, l }),
            };
        }
    }
    let q0: Vec<f64> = (0..n).flat_map(|i| [(i + 1) as f64, 0.0, 0.0]).collect();
    Ok(Problem::new(b.build()?).guess(&q0, &vec![0.0; 3 * n]))
}

/// The cloth of `scenes::cloth(m)`, node for node in the same order.
fn user_cloth(m: usize, form: Form) -> Result<Problem, Error> {
    let mid = m.div_ceil(2).max(1);
    let pos = |i: usize, j: usize| [0.1 * i as f64, 0.1 * j as f64, 0.0];
    // masses numbered as the scene numbers them: interior nodes, row by row
    let mut number = vec![vec![None; m + 2]; m + 2];
    let (mut q0, mut v0) = (Vec::new(), Vec::new());
    for i in 1..=m {
        for j in 1..=m {
            number[i][j] = Some(q0.len() / 3);
            q0.extend(pos(i, j));
            v0.extend(if i == mid && j == mid {
                [0.0, 0.0, 1.0]
            } else {
                [0.0; 3]
            });
        }
    }
    let mut b = Model::builder(q0.len());
    let g = [0.0, 0.0, -9.81];
    let (k, l, c) = (100.0, 0.1, 0.01);
    for i in 0..m + 2 {
        for j in 0..m + 2 {
            if let Some(a) = number[i][j] {
                add_mass(&mut b, form, idx(a), 0.01, g);
            }
            for (i2, j2) in [(i + 1, j), (i, j + 1)] {
                if i2 > m + 1 || j2 > m + 1 {
                    continue;
                }
                let ends = (number[i][j], number[i2][j2]);
                match (form, ends) {
                    (Form::Short, (Some(a), Some(b2))) => {
                        b.add_between(idx(a), idx(b2), DampedSpring { k, l, c });
                    }
                    (Form::Short, (Some(a), None)) => {
                        b.add_anchored(pos(i2, j2), idx(a), DampedSpring { k, l, c });
                    }
                    (Form::Short, (None, Some(b2))) => {
                        b.add_anchored(pos(i, j), idx(b2), DampedSpring { k, l, c });
                    }
                    (Form::Physicist, (Some(a), Some(b2))) => {
                        b.add_term(pair(a, b2), PairDampedSpring { k, l, c });
                    }
                    (Form::Physicist, (Some(a), None)) => {
                        b.add_term(idx(a), AnchoredSpring { a: pos(i2, j2), k, l, c });
                    }
                    (Form::Physicist, (None, Some(b2))) => {
                        b.add_term(idx(b2), AnchoredSpring { a: pos(i, j), k, l, c });
                    }
                    (_, (None, None)) => {}
                }
            }
        }
    }
    Ok(Problem::new(b.build()?).guess(&q0, &v0))
}

/// The 100-pendulum chain of `examples/ad_vs_hand.rs`: bobs of 0.1 kg at (0, 0, −i) on rods of
/// length 1 from the origin, the last pushed along x at 1 m/s.
fn user_pendulums(n: usize, form: Form) -> Result<Problem, Error> {
    let mut b = Model::builder(3 * n);
    let g = [0.0, 0.0, -9.81];
    b.add_constraint("rod 0", idx(0), AnchoredRod(1.0));
    for i in 0..n {
        add_mass(&mut b, form, idx(i), 0.1, g);
        if i > 0 {
            b.add_constraint(format!("rod {i}"), pair(i - 1, i), Rod(1.0));
        }
    }
    let q0: Vec<f64> = (0..n).flat_map(|i| [0.0, 0.0, -((i + 1) as f64)]).collect();
    let mut v0 = vec![0.0; 3 * n];
    v0[3 * (n - 1)] = 1.0;
    Ok(Problem::new(b.build()?).guess(&q0, &v0))
}

/// The library's pendulum chain on hand kernels.
fn hand_pendulums(n: usize) -> MassSpringSystem<3> {
    let mut s = MassSpringSystem::<3>::new([0.0, 0.0, -9.81]);
    s.options.method.newton_tol = BENCHMARK_NEWTON_TOL;
    let mut prev = s.add_fix([0.0; 3]);
    for i in 1..=n {
        let vel = if i == n { [1.0, 0.0, 0.0] } else { [0.0; 3] };
        let m = s.add_mass_with_velocity(0.1, [0.0, 0.0, -(i as f64)], vel);
        s.add_distance_constraint(prev, m, 1.0);
        prev = m;
    }
    s
}

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

fn main() -> Result<(), Error> {
    let repeat: usize = arg("--repeat").and_then(|s| s.parse().ok()).unwrap_or(3);
    let case = arg("--case").unwrap_or_else(|| "chain".into());
    let form = match arg("--form").as_deref() {
        None | Some("short") => Form::Short,
        Some("physicist") => Form::Physicist,
        Some(other) => panic!("unknown form {other}: short or physicist"),
    };
    // `--only hand|library|user` runs one side alone (for `perf record`); the ratios need all
    let only = arg("--only");
    let runs = |side: &str| match &only {
        Some(o) if o != side => 0,
        _ => repeat,
    };
    let (make_hand, make_user, t_end, steps): (
        Box<dyn Fn() -> MassSpringSystem<3>>,
        Box<dyn Fn() -> Result<Problem, Error>>,
        f64,
        usize,
    ) = match case.as_str() {
        "chain" => (
            Box::new(|| benchmark_chain(1000)),
            Box::new(move || user_chain(1000, form)),
            1.0,
            1000,
        ),
        "cloth" => (
            Box::new(|| cloth(90).expect("cloth").0),
            Box::new(move || user_cloth(90, form)),
            1.0,
            1000,
        ),
        "pendulums" => (
            Box::new(|| hand_pendulums(100)),
            Box::new(move || user_pendulums(100, form)),
            2.0,
            2000,
        ),
        other => panic!("unknown case {other}: chain, cloth or pendulums"),
    };
    // the user's run takes the hand run's step and Newton settings
    let mut options = make_hand().options.method.clone();
    options.h = t_end / steps as f64;
    let problem = make_user()?.t_end(t_end);
    let plan = RunPlan::new(options).output_every(steps);
    let (mut hand, mut user, mut library) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let (mut qh, mut qu) = (Vec::new(), Vec::new());
    // the three sides in turn, round after round: a drift of the machine's speed over the
    // process then reaches each side alike (all of one side first, then the next, measured
    // whichever came first on a faster machine)
    for _ in 0..repeat {
        if runs("hand") > 0 {
            let mut s = make_hand();
            s.options.derivatives = Derivatives::Hand;
            hand = hand.min(s.simulate(t_end, steps)?.stats.solve_seconds);
            qh = s.state_vectors().0;
        }
        if runs("library") > 0 {
            // the library's own AD elements on the same scene
            let mut s = make_hand();
            s.options.derivatives = Derivatives::Ad;
            library = library.min(s.simulate(t_end, steps)?.stats.solve_seconds);
        }
        if runs("user") > 0 {
            let sol = simulate(&problem, &plan)?;
            user = user.min(sol.stats.solve_seconds);
            qu = sol.last().state.q.clone();
        }
    }
    // a side not run is `null`
    let json = |x: f64| match x.is_finite() {
        true => format!("{x}"),
        false => "null".into(),
    };
    let diff = (!qh.is_empty() && !qu.is_empty()).then(|| {
        qh.iter()
            .zip(&qu)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
    });
    println!(
        "{{\"case\":\"{case}\",\"hand_seconds\":{},\"user_seconds\":{},\"ratio\":{},\"library_ad_seconds\":{},\
         \"library_ad_ratio\":{},\
         \"max_position_difference\":{},\"coordinates\":{},\"repeat\":{repeat}}}",
        json(hand),
        json(user),
        json(user / hand),
        json(library),
        json(library / hand),
        diff.map_or("null".into(), |d| format!("{d:e}")),
        problem.model.n_coords(),
    );
    Ok(())
}
