//! Structure-aware derivation: a term declared `NoKinetic`, `ConstantMass` or `PointMasses`
//! gets the same residual and Jacobian blocks as the general third-order path of the same
//! physics, at random states, for every library element that declares a structure and for user terms with
//! time-dependent potentials, dissipation and forces of `q` and `v`; a term that writes its
//! kinetic energy as a mass matrix (`Term::mass`, `Term::mass_matrix`) against the same kinetic
//! energy written out; and the energies the physics check watches on each path.

use crate::common;
use common::Lcg;
use lagrangian::ad::{TermAd, compare_term_kernels, term_blocks, term_energy, term_residual};
use lagrangian::expr::VExpr;
use lagrangian::expr::vector::Sym;
use lagrangian::model::elements::{
    AnchoredSpring, ExprEnergy, Frame, LocalPoint, Particle, ParticleAt, PlanarBody, PointForce,
    Points, RigidBody3, Spring, SpringBetween,
};
use lagrangian::model::{Declared, KernelCoefficients, Structure, TermKernel};
use lagrangian::prelude::*;

/// The same term with the general derivation forced (its Lagrangian written).
#[derive(Clone)]
pub(crate) struct General<T>(pub(crate) T);

impl<T: Declared<N>, const N: usize> Declared<N> for General<T> {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        self.0.kinetic(t, q, v)
    }
    // written: a term whose `kinetic` is found a constant quadratic form would take the
    // structured path (ad::sampled)
    fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        self.0.kinetic(t, q, v) - self.0.potential(t, q)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, N>) -> D {
        self.0.potential(t, q)
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        self.0.dissipation(t, q, v)
    }
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> SVector<D, N> {
        self.0.force(t, q, v)
    }
    fn has_dissipation_or_force(&self) -> bool {
        self.0.has_dissipation_or_force()
    }
}

/// The largest relative difference of `(r, M, ∂r/∂v, ∂r/∂q)` between the declared structure
/// and the general path over ten random states; the structure must be `expected`.
fn worst<T: Declared<N> + Clone + 'static, const N: usize>(term: T, expected: Structure) -> f64 {
    // a structure found from what the term writes is declared by nobody: the raw term says
    // `General`
    if !matches!(expected, Structure::MassMatrix) {
        assert_eq!(term.structure(), expected);
    }
    let fast = TermAd::<T, N>::new(term.clone());
    let general = TermAd::<General<T>, N>::new(General(term.clone()));
    let mut rng = Lcg(17);
    let mut w = 0.0f64;
    for k in 0..10 {
        let (q, v, a) = (rng.vec(N), rng.vec(N), rng.vec(N));
        let t = 0.3 * k as f64;
        w = w.max(compare_term_kernels(&fast, &general, t, &q, &v, &a));
        // the free functions take the same derivation
        let b = term_blocks::<T, N>(&term, t, &q, &v, &a);
        let r = term_residual::<T, N>(&term, t, &q, &v, &a);
        let f = fast.dense_blocks(t, &q, &v, &a);
        for i in 0..N {
            assert!((b.r[i] - f[0][i]).abs() <= 1e-12 * (1.0 + f[0][i].abs()));
            assert!((r[i] - f[0][i]).abs() <= 1e-12 * (1.0 + f[0][i].abs()));
        }
        // weights in one pass (the Newton direction), declared and general paths alike: the
        // weighted sum of the general path's blocks, and the same residual
        let g = general.dense_blocks(t, &q, &v, &a);
        let sv = |x: &[f64]| SVector::<f64, N>::from_column_slice(x);
        let (qs, vs, as_) = (sv(&q), sv(&v), sv(&a));
        // the energies the physics check watches, [T, V, p·v − L]: without a derivative pass
        // where T is a quadratic form in v, against the one through the Lagrangian
        let (ef, eg) = (
            fast.energy(t, &qs, &vs),
            term_energy::<T, N>(&term, t, &q, &v),
        );
        for k in 0..3 {
            let e = (ef[k] - eg[k]).abs();
            assert!(
                e <= 1e-12 * (1.0 + eg[k].abs()),
                "energy {k}: {ef:?} vs {eg:?}"
            );
        }
        // the assembly's loop evaluates the energies on numbers of the kernel's own (so that
        // it is their one caller): the same arithmetic, to the bit
        let (rl, rr) = (
            fast.__loop_residual(t, &qs, &vs, &as_),
            fast.residual(t, &qs, &vs, &as_),
        );
        assert_eq!(rl.as_slice(), rr.as_slice(), "the loop's residual");
        for (mass, damping, stiffness) in [
            (0.7, -0.3, 1.9),
            (0.0, 0.0, 1.0),
            (0.0, 1.0, 0.0),
            (1.0, 0.0, 0.0),
            (0.4, 2.0, 0.0),
        ] {
            let c = KernelCoefficients {
                mass,
                damping,
                stiffness,
            };
            let want = &g[1] * mass + &g[2] * damping + &g[3] * stiffness;
            let scale = 1.0 + want.abs().max();
            for (rc, j) in [
                fast.jacobian(t, &qs, &vs, &as_, &c),
                general.jacobian(t, &qs, &vs, &as_, &c),
            ] {
                for i in 0..N {
                    let e = (rc[i] - g[0][i]).abs();
                    assert!(
                        e <= 1e-12 * (1.0 + g[0][i].abs()),
                        "{c:?}: r[{i}] off by {e:e}"
                    );
                    for k in 0..N {
                        let e = (j[(i, k)] - want[(i, k)]).abs();
                        assert!(e <= 1e-12 * scale, "{c:?}: J[{i},{k}] off by {e:e}");
                    }
                }
            }
        }
    }
    w
}

fn expr(text: &str, names: &[&str]) -> VExpr {
    let sym = |n: &str| {
        if let Some(j) = names.iter().position(|x| *x == n) {
            return Some(Sym::Item(VExpr::coord(j)));
        }
        let base = n.strip_suffix('\'')?;
        let j = names.iter().position(|x| *x == base)?;
        Some(Sym::Item(VExpr::velocity(j)))
    };
    VExpr::parse(text, 3, &sym).expect("expression")
}

#[test]
fn springs_equal_the_general_derivation() {
    let s3 = Spring::<3> {
        stiffness: 1000.0,
        rest_length: 1.0,
        damping: 0.7,
    };
    let w = worst::<_, 6>(s3, Structure::NoKinetic);
    assert!(w < 1e-13, "3D damped spring: {w:e}");
    let s2 = Spring::<2> {
        stiffness: 50.0,
        rest_length: 0.3,
        damping: 0.0,
    };
    let w = worst::<_, 4>(s2, Structure::NoKinetic);
    assert!(w < 1e-13, "2D spring: {w:e}");
    let anchored = AnchoredSpring::<3> {
        anchor: [0.5, -1.0, 2.0],
        stiffness: 10.0,
        rest_length: 0.5,
        damping: 2.0,
    };
    let w = worst::<_, 3>(anchored, Structure::NoKinetic);
    assert!(w < 1e-13, "anchored spring: {w:e}");
}

#[test]
fn masses_and_bodies_equal_the_general_derivation() {
    let p = Particle::<3> {
        mass: 2.5,
        gravity: [0.0, 0.0, -9.81],
    };
    let w = worst::<_, 3>(p, Structure::ConstantMass);
    assert!(w < 1e-13, "particle: {w:e}");
    // a point 2 q₀ − q₁ + (1, 0, 0) on two coordinates
    let affine = LocalPoint::Affine {
        c: [1.0, 0.0, 0.0],
        a: vec![(0, [2.0, 0.0, 0.0]), (1, [-1.0, 0.5, 0.0])],
    };
    let at = ParticleAt {
        point: Points::new(2, vec![affine.clone()]),
        mass: 0.4,
        gravity: [0.0, -9.81, 0.0],
    };
    let w = worst::<_, 2>(at, Structure::ConstantMass);
    assert!(w < 1e-13, "particle at an affine point: {w:e}");
    let bar = SpringBetween {
        ends: Points::plain(2, 2),
        stiffness: 30.0,
        rest_length: 0.8,
        mass: 1.5,
        damping: 0.4,
        gravity: [0.0, -9.81, 0.0],
    };
    let w = worst::<_, 4>(bar, Structure::ConstantMass);
    assert!(w < 1e-13, "massive damped spring: {w:e}");
    let body = PlanarBody {
        basic: Points::plain(2, 2),
        mass: 3.0,
        inertia: 0.2,
        centroid: [0.4, 0.1],
        length: 1.0,
        gravity: [0.0, -9.81, 0.0],
    };
    let w = worst::<_, 4>(body, Structure::ConstantMass);
    assert!(w < 1e-13, "planar body on its basic points: {w:e}");
    // a massive damped bar in a field whose second end is an expression of four coordinates
    // and time (the cylindrical joint of DAETS' RSCR linkage, C = C1 + mu v, with a drift):
    // T is a constant quadratic form in the ends' velocities
    let names = ["y0", "y1", "y2", "cx", "cy", "cz", "mu"];
    let c = expr(
        "[cx, cy, cz] + mu*unit(cross([cx, cy, cz], [0, 0, 1])) + t*[0.1, 0, 0.02*t]",
        &names,
    );
    let bar = SpringBetween {
        ends: Points::new(3, vec![LocalPoint::coords(0, 3), LocalPoint::Expr(c)]),
        stiffness: 25.0,
        rest_length: 1.1,
        mass: 2.0,
        damping: 0.3,
        gravity: [0.0, 0.0, -9.81],
    };
    let w = worst::<_, 7>(bar, Structure::PointMasses);
    assert!(w < 1e-12, "massive bar on an expression point: {w:e}");
    // a 3D body with its centroid off the point A and a full inertia tensor, on A, a point B
    // and a vector: T is a constant quadratic form in (Ȧ, i̇, j̇, k̇), k = i × j
    let items = Points::new(
        3,
        vec![
            LocalPoint::coords(0, 3),
            LocalPoint::coords(3, 3),
            LocalPoint::coords(6, 3),
        ],
    );
    let inertia = [[0.3, 0.05, -0.02], [0.05, 0.4, 0.01], [-0.02, 0.01, 0.5]];
    let frame = Frame {
        b_point: true,
        c_point: false,
        b: 1.3,
        c: [0.2, 0.9],
    };
    let body = RigidBody3::new(
        items,
        frame,
        2.5,
        [0.3, -0.1, 0.2],
        inertia,
        [0.0, 0.0, -9.81],
    )
    .expect("body");
    let w = worst::<_, 9>(body, Structure::PointMasses);
    assert!(w < 1e-12, "3D body: {w:e}");
    // on a point that is an expression of the coordinates the mass matrix depends on q
    let on_circle = ParticleAt {
        point: Points::new(
            2,
            vec![LocalPoint::Expr(expr("[cos(a), sin(a), 0]", &["a"]))],
        ),
        mass: 1.0,
        gravity: [0.0, -9.81, 0.0],
    };
    let w = worst::<_, 1>(on_circle, Structure::PointMasses);
    assert!(w < 1e-12, "particle on a circle: {w:e}");
    // a planar body on a basic point that is an expression (a point on a crank) and one that
    // drifts in time: T is a constant quadratic form in (Ṗ₀, u̇, u̇⊥)
    let names = ["a", "x", "y"];
    let basic = Points::new(
        2,
        vec![
            LocalPoint::Expr(expr("[0.4*cos(a), 0.4*sin(a), 0] + t*[0.05, 0, 0]", &names)),
            LocalPoint::Expr(expr("[x, y, 0]", &names)),
        ],
    );
    let body = PlanarBody {
        basic,
        mass: 1.7,
        inertia: 0.09,
        centroid: [0.35, -0.12],
        length: 1.0,
        gravity: [0.0, -9.81, 0.0],
    };
    let w = worst::<_, 3>(body, Structure::PointMasses);
    assert!(w < 1e-12, "planar body on an expression point: {w:e}");
}

#[test]
fn expressions_and_forces_equal_the_general_derivation() {
    let names = ["x", "y"];
    let e = ExprEnergy {
        kinetic: None,
        potential: Some(expr("(1 + t) * x**2 * y + exp(0.3*y) - sin(t*x)", &names)),
        dissipation: Some(expr(
            "0.5*(1 + x**2)*x'**2 + 0.2*x'*y'*y + 0.1*y'**4",
            &names,
        )),
    };
    let w = worst::<_, 2>(e, Structure::NoKinetic);
    assert!(w < 1e-12, "potential and dissipation expressions: {w:e}");
    let with_kinetic = ExprEnergy {
        kinetic: Some(expr("x'**2/2", &names)),
        potential: None,
        dissipation: None,
    };
    assert_eq!(
        <ExprEnergy as Declared<2>>::structure(&with_kinetic),
        Structure::General
    );
    let x = LocalPoint::Affine {
        c: [0.0; 3],
        a: vec![(0, [1.0, 0.0, 0.0]), (1, [0.0, 3.0, 0.0])],
    };
    let f = PointForce {
        point: Points::new(2, vec![x]),
        force: [
            expr("-4*x*y - x'*abs(y')", &names),
            expr("sin(t)*y' + x**3", &names),
            VExpr::constant(0.0),
        ],
    };
    let w = worst::<_, 2>(f, Structure::NoKinetic);
    assert!(w < 1e-12, "force of t, q and v: {w:e}");
}

/// A user's term with a time-dependent potential, dissipation and force.
#[derive(Clone)]
struct Drag;

impl Declared<3> for Drag {
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, 3>) -> D {
        (q[0] * q[1]).sin() * t + q[2].powi(4) * 0.25
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 3>,
        v: &SVector<D, 3>,
    ) -> D {
        v.dot(v) * (q[2] * q[2] + 1.0) * 0.5
    }
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, 3>,
        v: &SVector<D, 3>,
    ) -> SVector<D, 3> {
        SVector::from([-v[0] * v.dot(v).sqrt(), q[0] * t.cos(), v[2] * q[1]])
    }
    fn structure(&self) -> Structure {
        Structure::NoKinetic
    }
}

#[test]
fn a_user_term_equals_the_general_derivation() {
    let w = worst::<_, 3>(Drag, Structure::NoKinetic);
    assert!(w < 1e-13, "user term: {w:e}");
}

/// The constant mass matrix comes from the first state the kernel sees and holds at others.
#[test]
fn the_constant_mass_matrix_is_taken_once_and_holds() {
    let p = Particle::<2> {
        mass: 3.0,
        gravity: [0.0, -1.0],
    };
    let k = TermAd::<_, 2>::new(p);
    let r1 = k.residual(
        0.0,
        &[1.0, 2.0].into(),
        &[0.5, 0.0].into(),
        &[1.0, -1.0].into(),
    );
    let r2 = k.residual(
        5.0,
        &[-3.0, 0.0].into(),
        &[9.0, 1.0].into(),
        &[0.0, 2.0].into(),
    );
    assert_eq!((r1[0], r1[1]), (3.0, -3.0 + 3.0));
    assert_eq!((r2[0], r2[1]), (0.0, 6.0 + 3.0));
}

/// Three points in 3D with a bending energy, an area spring, a dissipation and internal forces
/// of the relative positions and velocities, some time-dependent: translation invariant.
#[derive(Clone)]
struct Hinge;

fn rel<D: DualNum<Primitive = f64> + Copy, const N: usize>(
    x: &SVector<D, N>,
    a: usize,
    b: usize,
) -> [D; 3] {
    [0, 1, 2].map(|k| x[3 * b + k] - x[3 * a + k])
}

fn dot3<D: DualNum<Primitive = f64> + Copy>(a: [D; 3], b: [D; 3]) -> D {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl Declared<9> for Hinge {
    const TRANSLATION_INVARIANT: Option<usize> = Some(3);
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, 9>) -> D {
        let (a, b) = (rel(q, 1, 0), rel(q, 1, 2));
        let cos = dot3(a, b) / (dot3(a, a) * dot3(b, b)).sqrt();
        (cos + 0.8).powi(2) * (t * 0.5 + 2.0) + dot3(a, b).powi(2) * 0.3
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 9>,
        v: &SVector<D, 9>,
    ) -> D {
        let (d, w) = (rel(q, 0, 2), rel(v, 0, 2));
        let u = rel(v, 0, 1);
        dot3(d, w).powi(2) / dot3(d, d) * 0.7 + dot3(u, u) * (dot3(d, d) + 1.0) * 0.2
    }
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, 9>,
        v: &SVector<D, 9>,
    ) -> SVector<D, 9> {
        // equal and opposite forces on points 0 and 1 along their distance, growing with the
        // relative speed
        let (d, w) = (rel(q, 0, 1), rel(v, 0, 1));
        let s = t.sin() * 0.5 - dot3(w, w).sqrt() * dot3(d, d);
        let mut f = SVector::from_element(D::from(0.0));
        for k in 0..3 {
            f[k] = -d[k] * s;
            f[3 + k] = d[k] * s;
        }
        f
    }
    fn structure(&self) -> Structure {
        Structure::NoKinetic
    }
}

/// Two point masses in the plane joined by a spring: constant mass matrix, the spring
/// translation invariant.
#[derive(Clone)]
struct Dumbbell;

impl Declared<4> for Dumbbell {
    const TRANSLATION_INVARIANT: Option<usize> = Some(2);
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 4>,
        v: &SVector<D, 4>,
    ) -> D {
        (v[0] * v[0] + v[1] * v[1]) * 0.5 + (v[2] * v[2] + v[3] * v[3]) * 1.5
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 4>) -> D {
        let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
        ((dx * dx + dy * dy).sqrt() - 0.4).powi(2) * 20.0
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 4>,
        v: &SVector<D, 4>,
    ) -> D {
        let (dx, dy) = (v[2] - v[0], v[3] - v[1]);
        (dx * dx + dy * dy) * 0.25
    }
    fn structure(&self) -> Structure {
        Structure::ConstantMass
    }
}

/// Five points in the plane on a translation-invariant potential: 8 seeded coordinates, which
/// the toolkit has no reduced instance for — it takes the full passes.
#[derive(Clone)]
struct Pentagon;

impl Declared<10> for Pentagon {
    const TRANSLATION_INVARIANT: Option<usize> = Some(2);
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 10>) -> D {
        let mut s = D::from(0.0);
        for p in 0..5 {
            let n = (p + 1) % 5;
            let (dx, dy) = (q[2 * n] - q[2 * p], q[2 * n + 1] - q[2 * p + 1]);
            s += ((dx * dx + dy * dy).sqrt() - 1.0).powi(2);
        }
        s
    }
    fn has_dissipation_or_force(&self) -> bool {
        false
    }
    fn structure(&self) -> Structure {
        Structure::NoKinetic
    }
}

/// Terms declared translation invariant (`Term::TRANSLATION_INVARIANT`) get their derivatives
/// in the first point from those in the others: the same residual and Jacobian blocks as the
/// general path, with potential, dissipation and forces of relative positions and velocities,
/// with a constant mass matrix, on three points (6 seeds), and where no reduced instance exists.
#[test]
fn translation_invariant_terms_equal_the_general_derivation() {
    let w = worst::<_, 9>(Hinge, Structure::NoKinetic);
    assert!(w < 1e-12, "three points, forces between them: {w:e}");
    let w = worst::<_, 4>(Dumbbell, Structure::ConstantMass);
    assert!(w < 1e-13, "dumbbell: {w:e}");
    let w = worst::<_, 10>(Pentagon, Structure::NoKinetic);
    assert!(w < 1e-13, "pentagon: {w:e}");
}

/// The kernels of a large group stay small: a term without kinetic energy carries no mass matrix
/// (a 6 × 6 matrix inline made every AD spring 328 bytes), and a point mass's constant mass
/// matrix, boxed, is the same after its first evaluation.
#[test]
fn ad_kernels_stay_small() {
    let spring = std::mem::size_of::<TermAd<Spring<3>, 6>>();
    let own = std::mem::size_of::<Spring<3>>();
    assert!(spring <= own + 24, "an AD spring kernel: {spring} bytes");
    let p = TermAd::<_, 3>::new(Particle::<3> {
        mass: 2.0,
        gravity: [0.0, 0.0, -9.81],
    });
    let (q, v, a) = (
        SVector::<f64, 3>::from([0.1, 0.2, -0.3]),
        SVector::<f64, 3>::from([0.3, -0.1, 0.2]),
        SVector::<f64, 3>::from([1.0, 0.5, -2.0]),
    );
    for _ in 0..2 {
        let r = p.residual(0.0, &q, &v, &a);
        let expected = [2.0, 1.0, -4.0 + 2.0 * 9.81];
        for i in 0..3 {
            assert!((r[i] - expected[i]).abs() < 1e-14, "{r:?}");
        }
    }
}

/// A kinetic energy written as a mass matrix `M + M(t, q)` (the written `M(t, q)` not even
/// symmetric: only its symmetric part is the kinetic energy), with a time-dependent potential,
/// a Rayleigh function of `q` and `v` and a force.
#[derive(Clone)]
struct Written;
impl Term<3> for Written {
    fn mass(&self) -> SMatrix<f64, 3, 3> {
        SMatrix::from([[2.0, 0.1, 0.0], [0.1, 1.0, 0.0], [0.0, 0.0, 0.5]])
    }
    fn mass_matrix<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, 3>,
    ) -> SMatrix<D, 3, 3> {
        let z = D::from(0.0);
        let c = q[0].cos() * 0.3;
        SMatrix::from([
            [q[1] * q[1] + 1.0, c, z],
            [z, (q[2] * t).sin() * 0.2 + 1.0, q[0] * 0.1],
            [c * 2.0, q[0] * 0.1, q[1].exp() * 0.1],
        ])
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, 3>) -> D {
        q[0] * q[1] * t + q[2].cos() * 3.0
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 3>,
        v: &SVector<D, 3>,
    ) -> D {
        v.dot(v) * (q[0] * q[0] + 1.0) * 0.25
    }
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, 3>,
        v: &SVector<D, 3>,
    ) -> SVector<D, 3> {
        SVector::from([t.sin(), v[0] * q[2], D::from(1.0)])
    }
}

/// A point mass written as its constant mass matrix.
#[derive(Clone)]
struct Lumped;
impl Term<3> for Lumped {
    fn mass(&self) -> SMatrix<f64, 3, 3> {
        SMatrix::identity() * 1.5
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 3>) -> D {
        q[2] * (1.5 * 9.81)
    }
}

#[test]
fn kinetic_energies_written_as_mass_matrices_equal_the_general_derivation() {
    let w = worst::<_, 3>(Written, Structure::MassMatrix);
    assert!(w < 1e-13, "M(t, q) written: {w:e}");
    let w = worst::<_, 3>(Lumped, Structure::General);
    assert!(w < 1e-13, "constant M written: {w:e}");
    // the constant one is found to be constant (its M is factorized once), the other not
    assert!(TermAd::<Lumped, 3>::new(Lumped).constant_mass());
    assert!(!TermAd::<Written, 3>::new(Written).constant_mass());
    // and the written matrix is the kinetic energy: r = M a for a point mass at rest
    let r = term_residual::<Lumped, 3>(&Lumped, 0.0, &[0.0; 3], &[0.0; 3], &[1.0, 2.0, -9.81]);
    assert!((r - SVector::from([1.5, 3.0, 0.0])).norm() < 1e-14);
}

/// Declares no kinetic energy but writes one.
struct ClaimsNoKinetic;
impl Declared<2> for ClaimsNoKinetic {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> D {
        v.dot(v) * 0.5
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        q[0] * q[1]
    }
    fn structure(&self) -> Structure {
        Structure::NoKinetic
    }
}

/// Declares a constant mass matrix, but `M = 1 + x²`.
struct ClaimsConstantMass;
impl Declared<1> for ClaimsConstantMass {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 1>,
        v: &SVector<D, 1>,
    ) -> D {
        v[0] * v[0] * (q[0] * q[0] + 1.0) * 0.5
    }
    fn structure(&self) -> Structure {
        Structure::ConstantMass
    }
}

/// Declares translation invariance, but the potential holds the first point to the origin.
struct ClaimsRelative;
impl Declared<4> for ClaimsRelative {
    const TRANSLATION_INVARIANT: Option<usize> = Some(2);
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 4>) -> D {
        let d = SVector::<D, 2>::new(q[2] - q[0], q[3] - q[1]);
        d.dot(&d) * 50.0 + q[0] * q[0]
    }
    fn structure(&self) -> Structure {
        Structure::NoKinetic
    }
}

#[test]
fn a_declaration_that_does_not_hold_is_refused_with_the_terms_name() {
    use lagrangian::error::ModelError;
    let refused = |r: Result<Model, ModelError>, name: &str, declared: &str, what: &str| {
        let Err(e) = r else {
            panic!("a wrong declaration of {name} was accepted");
        };
        let ModelError::WrongDeclaration {
            term,
            declared: d,
            detail,
            ..
        } = &e
        else {
            panic!("{e}");
        };
        assert!(term.ends_with(name), "{term}");
        assert_eq!(d, declared);
        assert!(detail.contains(what), "{detail}");
        let text = e.to_string();
        assert!(
            text.contains(name) && text.contains("remove the declaration"),
            "{text}"
        );
    };
    let b = Model::builder(4).term([0, 1], ClaimsNoKinetic);
    refused(
        b.build(),
        "ClaimsNoKinetic",
        "Structure::NoKinetic",
        "residual",
    );
    let b = Model::builder(1).term([0], ClaimsConstantMass);
    refused(
        b.build(),
        "ClaimsConstantMass",
        "Structure::ConstantMass",
        "residual",
    );
    let b = Model::builder(4).term([0, 1, 2, 3], ClaimsRelative);
    refused(
        b.build(),
        "ClaimsRelative",
        "Structure::NoKinetic and TRANSLATION_INVARIANT = Some(2)",
        "residual",
    );
    // the library's declarations hold (checked on the first term of each type)
    let s = Spring::<3> {
        stiffness: 1e6,
        rest_length: 0.2,
        damping: 3.0,
    };
    let p = || Particle {
        mass: 2.0,
        gravity: [0.0, 0.0, -9.81],
    };
    let b = Model::builder(6)
        .term([0, 1, 2], p())
        .term([3, 4, 5], p())
        .term([0, 1, 2, 3, 4, 5], s);
    assert!(b.build().is_ok());
}

/// A damped, driven spring written in the difference of its ends (`Interaction`): a rest length
/// that changes with time, axial damping and a force along `d` that grows with `|ḋ|`.
#[derive(Clone)]
struct Muscle;

impl<const D: usize> Interaction<D> for Muscle {
    fn potential<S: DualNum<Primitive = f64> + Copy>(&self, t: S, d: &SVector<S, D>) -> S {
        let s = d.dot(d).sqrt() - (t * 2.0).sin() * 0.1 - 0.8;
        s * s * 30.0 + d[0] * 0.3
    }
    fn dissipation<S: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: S,
        d: &SVector<S, D>,
        dd: &SVector<S, D>,
    ) -> S {
        let p = d.dot(dd);
        p * p / d.dot(d) * 0.35 + dd.dot(dd) * 0.05
    }
    fn force<S: DualNum<Primitive = f64> + Copy>(
        &self,
        t: S,
        d: &SVector<S, D>,
        dd: &SVector<S, D>,
    ) -> SVector<S, D> {
        d * (t.cos() * 0.4 - dd.dot(dd).sqrt() * 0.2)
    }
}

/// A spring written in `d` alone: no dissipation and no force to derive.
#[derive(Clone)]
struct Plain;

impl Interaction<3> for Plain {
    fn potential<S: DualNum<Primitive = f64> + Copy>(&self, _t: S, d: &SVector<S, 3>) -> S {
        let s = d.dot(d).sqrt() - 1.0;
        s * s * 50.0
    }
}

/// Elements written in the difference of two points (`Interaction`), placed between two points
/// (translation invariant by construction: passes on `D` seeds) or from a fixed point, get the
/// residual and Jacobian blocks of the general derivation of the same energies, in 1, 2 and 3
/// dimensions; the placements put each end where the builder was told.
#[test]
fn interactions_equal_the_general_derivation() {
    let w = worst::<_, 6>(Between(Muscle), Structure::General);
    assert!(w < 1e-12, "between, 3D: {w:e}");
    let w = worst::<_, 4>(Between(Muscle), Structure::General);
    assert!(w < 1e-12, "between, 2D: {w:e}");
    let w = worst::<_, 2>(Between(Muscle), Structure::General);
    assert!(w < 1e-12, "between, 1D: {w:e}");
    let w = worst::<_, 6>(Between(Plain), Structure::General);
    assert!(w < 1e-13, "plain spring: {w:e}");
    let anchored = Anchored {
        anchor: [0.3, -1.2, 0.7],
        interaction: Muscle,
    };
    let w = worst::<_, 3>(anchored, Structure::General);
    assert!(w < 1e-12, "anchored, 3D: {w:e}");
    // an interaction has no kinetic energy by construction: its kernels read no accelerations
    // (checked when the test compiles)
    const {
        assert!(!<TermAd<Between<Muscle>, 6> as TermKernel<6>>::USES_A);
        assert!(!<TermAd<Anchored<Muscle, 3>, 3> as TermKernel<3>>::USES_A);
        assert!(<TermAd<Lumped, 3> as TermKernel<3>>::USES_A);
    }

    // placed by the builder: point 1 of a model at coordinates 3..6, point 0 at 0..3, the
    // anchor at the origin; the residual's forces are equal and opposite along d
    let model = Model::builder(6)
        .between([3, 4, 5], [0, 1, 2], Plain)
        .anchored([0.0; 3], [3, 4, 5], Plain)
        .build()
        .unwrap();
    let (q, zero) = ([2.0, 0.0, 0.0, 0.0, 0.0, 0.5], [0.0; 6]);
    let r = lagrangian::assembly::dense_term_blocks(&model, 0.0, &q, &zero, &zero)[0].clone();
    // between: d = x₀ − x₁ = (2, 0, −0.5), |d| = 2.0616, force 100 (|d| − 1) along d on each
    let (n, f) = ((4.25f64).sqrt(), 100.0 * ((4.25f64).sqrt() - 1.0));
    let want = [
        f * 2.0 / n,
        0.0,
        -f * 0.5 / n,
        -f * 2.0 / n,
        0.0,
        f * 0.5 / n - 50.0, // anchored: d = x₁ = (0, 0, 0.5), ∇V = 100 (0.5 − 1) ẑ
    ];
    for i in 0..6 {
        assert!(
            (r[i] - want[i]).abs() < 1e-12,
            "r[{i}] = {} ≠ {}",
            r[i],
            want[i]
        );
    }
}
