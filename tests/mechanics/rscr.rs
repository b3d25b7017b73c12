//! DAETS' RSCR mechanism (`mechanisms/rscr.yaml`): a 3D linkage with one degree of freedom
//! in John–Ned natural coordinates q = (C1, B, μ), with the cylinder axis v and the slider point
//! C = C1 + μ v *assigned* (Define) rather than carried as coordinates.
//!
//! References: the assembly configuration from an independent kinematic closure (a 1D root
//! search along the rocker circle, see `consistent_point_matches_the_kinematic_closure`), the same
//! mechanism hand-written in Rust with hand-derived velocities Ċ = Ċ1 + μ̇ v + μ v̇, and the
//! order-2 convergence of the energy error and of the trajectory.

use lagrangian::prelude::*;
use lagrangian::solve::Problem as Mechanism;
use lagrangian::spec;

const A: f64 = 1.5;
const L: [f64; 3] = [1.0, 2.0, 0.3];
const M: [f64; 3] = [1.0, 2.0, 0.5];
const G: f64 = 9.81;
const GAMMA: f64 = std::f64::consts::FRAC_PI_6;
const BETA: f64 = std::f64::consts::FRAC_PI_6;

fn file() -> Mechanism {
    spec::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/mechanisms/rscr.yaml"
    )))
    .unwrap()
    .0
}

fn init(m: &Mechanism) -> lagrangian::solve::Initial {
    m.initial_values().unwrap()
}

/// The RSCR written out by hand: q = (C1, B, μ), w = e_y (δ = 90°), u = (sin β, 0, cos β).
struct Rscr;

type V3<D> = nalgebra::Vector3<D>;

impl Rscr {
    fn w<D: DualNum<Primitive = f64> + Copy>() -> V3<D> {
        V3::new(D::from(0.0), D::from(1.0), D::from(0.0))
    }
    /// v = cos γ w + sin γ (C1/L3 × w) and v̇ = sin γ (Ċ1/L3 × w) (hand-derived).
    fn v<D: DualNum<Primitive = f64> + Copy>(c1: &V3<D>) -> V3<D> {
        Self::w::<D>() * D::from(GAMMA.cos()) + c1.cross(&Self::w()) * D::from(GAMMA.sin() / L[2])
    }
}

impl Term<7> for Rscr {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 7>,
        v: &SVector<D, 7>,
    ) -> D {
        let c1 = V3::new(q[0], q[1], q[2]);
        let (dc1, db, dmu) = (V3::new(v[0], v[1], v[2]), V3::new(v[3], v[4], v[5]), v[6]);
        let vv = Self::v(&c1);
        let dv = dc1.cross(&Self::w()) * D::from(GAMMA.sin() / L[2]);
        let dc = dc1 + vv * dmu + dv * q[6];
        db.dot(&db) * D::from(M[0] / 6.0)
            + (db.dot(&db) + db.dot(&dc) + dc.dot(&dc)) * D::from(M[1] / 6.0)
            + dc1.dot(&dc1) * D::from(M[2] / 6.0)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 7>) -> D {
        let c1 = V3::new(q[0], q[1], q[2]);
        let c = c1 + Self::v(&c1) * q[6];
        // rod midpoints: (A + B)/2, (B + C)/2, (D + C1)/2 with A_z = D_z = 0
        (q[5] * D::from(M[0]) + (q[5] + c[2]) * D::from(M[1]) + q[2] * D::from(M[2]))
            * D::from(0.5 * G)
    }
}

impl Constraint<7, 6> for Rscr {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 7>,
    ) -> SVector<D, 6> {
        let c1 = V3::new(q[0], q[1], q[2]);
        let b = V3::new(q[3], q[4], q[5]);
        let v = Self::v(&c1);
        let c = c1 + v * q[6];
        let a = V3::new(D::from(-A), D::from(0.0), D::from(0.0));
        let u = V3::new(D::from(BETA.sin()), D::from(0.0), D::from(BETA.cos()));
        let half = D::from(0.5);
        SVector::from([
            ((b - a).dot(&(b - a)) - D::from(L[0] * L[0])) * half,
            ((b - c).dot(&(b - c)) - D::from(L[1] * L[1])) * half,
            (c1.dot(&c1) - D::from(L[2] * L[2])) * half,
            c1.dot(&Self::w()),
            (b - c).dot(&v),
            (b - a).dot(&u),
        ])
    }
}

fn hand_model() -> Model {
    Model::builder(7)
        .term([0, 1, 2, 3, 4, 5, 6], Rscr)
        .constraint("rscr", [0, 1, 2, 3, 4, 5, 6], Rscr)
        .build()
        .unwrap()
}

#[test]
fn the_file_builds_seven_coordinates_six_constraints_one_dof() {
    let m = file();
    assert_eq!(m.model.n_coords(), 7);
    assert_eq!(m.model.n_constraints(), 6);
    assert_eq!(
        m.model.coordinate_names(),
        ["C1.x", "C1.y", "C1.z", "B.x", "B.y", "B.z", "mu"]
    );
    let i = init(&m);
    assert_eq!(i.report.dof, 1);
    assert!(i.report.redundant.is_empty());
    // the output shows the derived slider point C
    assert!(m.geometry.points.iter().any(|p| p.name == "C"));
}

#[test]
fn consistent_point_matches_the_kinematic_closure() {
    // Independent closure at crank angle 0 (C1 = (L3, 0, 0)): B on the rocker circle about u
    // at the distance L2 from the line C1 + s v, found by bisection in the rocker angle
    // (computed once in double precision by a separate script, plain bisection, not this toolkit).
    let b_ref = [-1.6568254554653636, 0.9834671840097708, 0.0905432189287133];
    let mu_ref = 0.8969791746051632;
    let i = init(&file());
    let q = &i.state.q;
    assert!((q[0] - 0.3).abs() < 1e-14 && q[1].abs() < 1e-14 && q[2].abs() < 1e-14);
    for k in 0..3 {
        assert!((q[3 + k] - b_ref[k]).abs() < 1e-10, "B[{k}] = {}", q[3 + k]);
    }
    assert!((q[6] - mu_ref).abs() < 1e-10, "mu = {}", q[6]);
    // the crank speed is the pinned 2.0 along z; the velocities are tangent to the manifold
    assert_eq!(i.state.v[2], 2.0);
}

#[test]
fn the_file_and_the_hand_written_model_have_the_same_equations() {
    // the same consistent state integrated by both: the equations agree to round-off, so the
    // trajectories agree to the Newton tolerance
    let m = file();
    let i = init(&m);
    let hand = Arc::new(hand_model());
    // full Newton (a fresh Jacobian per iteration): both runs then resolve λ to the Newton
    // tolerance, not to the looser multiplier test of modified Newton
    let opts = || {
        GenAlphaOptions::new(1e-3)
            .rho_inf(0.9)
            .newton_tol(1e-12)
            .reuse_factorization(false)
    };
    let a = simulate_from(&m.model, &i.state, 1.0, opts()).unwrap();
    let mut s = i.state.clone();
    // the hand model has one constraint block with the same six rows in the same order
    s.lambda = i.state.lambda.clone();
    let b = simulate_from(&hand, &s, 1.0, opts()).unwrap();
    let (qa, qb) = (&a.last().state.q, &b.last().state.q);
    let d = qa
        .iter()
        .zip(qb.iter())
        .fold(0.0f64, |x, (p, q)| x.max((p - q).abs()));
    assert!(d < 1e-9, "max |Δq| = {d:.3e}");
    let dl = a
        .last()
        .state
        .lambda
        .iter()
        .zip(&b.last().state.lambda)
        .fold(0.0f64, |x, (p, q)| x.max((p - q).abs() / (1.0 + q.abs())));
    eprintln!("max |Δq| = {d:.3e}, max |Δλ|/(1 + |λ|) = {dl:.3e}");
    // Newton runs on λ̃ = βh²λ (β ≈ 0.3, h = 1e-3), so its tolerance 1e-12 resolves λ to about
    // 1e-12/(βh²) ≈ 3e-6; q agrees to 4e-15 here
    assert!(dl < 1e-6, "max |Δλ| = {dl:.3e}");
    // the crank has turned: the trajectory is not trivial
    assert!((qa[0] - 0.3).abs() > 0.1);
}

#[test]
fn energy_error_and_trajectory_converge_at_order_two() {
    let m = file();
    let i = init(&m);
    let mut drift = Vec::new();
    let mut ends = Vec::new();
    for h in [2e-3, 1e-3, 5e-4] {
        let opts = GenAlphaOptions::new(h).rho_inf(0.9).newton_tol(1e-12);
        let sol = simulate_from(&m.model, &i.state, 1.5, opts).unwrap();
        assert!(sol.max_constraint() < 1e-11);
        let e0 = sol.records[0].energy;
        drift.push(
            sol.records
                .iter()
                .fold(0.0f64, |x, r| x.max((r.energy - e0).abs())),
        );
        ends.push(sol.last().state.q.clone());
    }
    let r1 = drift[0] / drift[1];
    let r2 = drift[1] / drift[2];
    assert!(
        (3.6..4.4).contains(&r1) && (3.6..4.4).contains(&r2),
        "{drift:?}"
    );
    let d = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .fold(0.0f64, |x, (p, q)| x.max((p - q).abs()))
    };
    let ratio = d(&ends[0], &ends[1]) / d(&ends[1], &ends[2]);
    assert!(
        (3.5..4.5).contains(&ratio),
        "self-convergence ratio {ratio}"
    );
}

#[test]
fn part_two_as_a_john_ned_body_on_assigned_items_gives_the_same_motion() {
    // Part 2 as a 3D rigid body whose basic items are the assigned point C, the free point B and
    // the assigned vector v (shared with part 3: the cylindrical joint), with the inertia of a
    // thin rod. Its rigidity is already in the Bars/Equations (|v| = 1 holds identically), so
    // `Rigidity: false`. A thin rod's T = ½m|Ġ|² + ½(mL²/12)|i̇|² equals m/6(|Ḃ|² + Ḃ·Ċ + |Ċ|²).
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/mechanisms/rscr.yaml"))
            .unwrap();
    let body = text.replace("    BC: [L2, m2]\n", "    BC: L2\n").replace(
        "  Equations:",
        "  Rigids:\n    rod2:\n      Basic: [C, B, v]\n      Geom: { B: [L2, 0, 0], v: [0, 1, 0] }\n      Dyna: [[L2/2, 0, 0], m2, [0, m2*L2**2/12, m2*L2**2/12]]\n      Rigidity: false\n  Equations:",
    );
    assert_ne!(body, text);
    let (a, b) = (file(), spec::parse(&body, "rscr_body.yaml").unwrap().0);
    assert_eq!(b.model.n_constraints(), 6);
    let (ia, ib) = (init(&a), init(&b));
    let opts = || GenAlphaOptions::new(1e-3).rho_inf(0.9).newton_tol(1e-12);
    let sa = simulate_from(&a.model, &ia.state, 1.0, opts()).unwrap();
    let sb = simulate_from(&b.model, &ib.state, 1.0, opts()).unwrap();
    let d = sa
        .last()
        .state
        .q
        .iter()
        .zip(&sb.last().state.q)
        .fold(0.0f64, |x, (p, q)| x.max((p - q).abs()));
    assert!(d < 1e-9, "max |Δq| = {d:.3e}");
    let de = (sa.last().energy - sb.last().energy).abs();
    assert!(de < 1e-9, "ΔE = {de:.3e}");
}
