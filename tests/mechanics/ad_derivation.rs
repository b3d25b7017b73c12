//! The Euler–Lagrange equations derived by forward AD equal hand-derived closed forms, and every
//! Jacobian block (M = ∂r/∂a, ∂r/∂v, ∂r/∂q, C_q, ∂(C_qᵀλ)/∂q, C_t, γ) equals central finite
//! differences.

use crate::common;
use common::Lcg;
use lagrangian::assembly::{
    constraint_gamma, constraint_jacobian_dense, constraint_time_derivative, constraint_values,
    dense_constraint_hessian, dense_term_blocks,
};
use lagrangian::library::andrews::{Andrews, andrews_model};
use lagrangian::library::elements::{Particle, Spring};
use lagrangian::library::pendulum::{
    angle_pendulum, double_pendulum_angles, driven_pendulum, pendulum_chain_3d,
};
use lagrangian::model::{Model, Term};
use nalgebra::{DMatrix, DVector};

fn residual(model: &Model, t: f64, q: &[f64], v: &[f64], a: &[f64]) -> DVector<f64> {
    let b = dense_term_blocks(model, t, q, v, a);
    DVector::from_column_slice(b[0].as_slice())
}

fn rel_close(a: &DMatrix<f64>, b: &DMatrix<f64>, tol: f64, what: &str) {
    let scale = 1.0 + a.amax().max(b.amax());
    let err = (a - b).amax();
    assert!(
        err <= tol * scale,
        "{what}: AD and FD differ by {err:.3e} (scale {scale:.3e})\nAD {a}\nFD {b}"
    );
}

/// Central-difference Jacobian of `f` at `x`.
fn fd_jac(f: &dyn Fn(&[f64]) -> DVector<f64>, x: &[f64], h: f64) -> DMatrix<f64> {
    let f0 = f(x);
    let mut j = DMatrix::zeros(f0.len(), x.len());
    for k in 0..x.len() {
        let mut xp = x.to_vec();
        let mut xm = x.to_vec();
        let hk = h * (1.0 + x[k].abs());
        xp[k] += hk;
        xm[k] -= hk;
        j.set_column(k, &((f(&xp) - f(&xm)) / (2.0 * hk)));
    }
    j
}

/// Check all term blocks and constraint blocks of `model` at a random point.
fn check_model(model: &Model, rng: &mut Lcg, qscale: f64, tol: f64) {
    let n = model.n_coords();
    let m = model.n_constraints();
    let t = 0.3 + 0.1 * rng.next();
    let q = rng.scaled(n, qscale);
    let v = rng.scaled(n, 1.0);
    let a = rng.scaled(n, 1.0);
    let lam = rng.scaled(m, 1.0);
    let b = dense_term_blocks(model, t, &q, &v, &a);
    let h = 1e-6;
    let jq = fd_jac(&|x| residual(model, t, x, &v, &a), &q, h);
    let jv = fd_jac(&|x| residual(model, t, &q, x, &a), &v, h);
    let ja = fd_jac(&|x| residual(model, t, &q, &v, x), &a, h);
    rel_close(&b[1], &ja, tol, "M = dr/da");
    rel_close(&b[2], &jv, tol, "dr/dv");
    rel_close(&b[3], &jq, tol, "dr/dq");
    // M is symmetric
    rel_close(&b[1], &b[1].transpose(), 1e-14, "M symmetric");
    if m > 0 {
        let cval = |x: &[f64]| {
            let mut c = vec![0.0; m];
            constraint_values(model, t, x, &mut c);
            DVector::from_vec(c)
        };
        rel_close(
            &constraint_jacobian_dense(model, t, &q),
            &fd_jac(&cval, &q, h),
            tol,
            "C_q",
        );
        let hess = dense_constraint_hessian(model, t, &q, &lam);
        let cqtl = |x: &[f64]| {
            constraint_jacobian_dense(model, t, x).transpose() * DVector::from_column_slice(&lam)
        };
        rel_close(&hess, &fd_jac(&cqtl, &q, h), tol, "d(C_q^T lambda)/dq");
        // C_t
        let mut ct = vec![0.0; m];
        constraint_time_derivative(model, t, &q, &mut ct);
        let ct_fd = {
            let mut cp = vec![0.0; m];
            let mut cm = vec![0.0; m];
            constraint_values(model, t + h, &q, &mut cp);
            constraint_values(model, t - h, &q, &mut cm);
            DVector::from_iterator(m, cp.iter().zip(&cm).map(|(p, mm)| (p - mm) / (2.0 * h)))
        };
        rel_close(
            &DMatrix::from_column_slice(m, 1, &ct),
            &DMatrix::from_column_slice(m, 1, ct_fd.as_slice()),
            tol,
            "C_t",
        );
        // γ = d²/ds² C(t+s, q+s v) at s = 0
        let mut g = vec![0.0; m];
        constraint_gamma(model, t, &q, &v, &mut g);
        let hs = 1e-4;
        let at = |s: f64| {
            let qs: Vec<f64> = q.iter().zip(&v).map(|(x, y)| x + s * y).collect();
            cval_t(model, t + s, &qs)
        };
        let g_fd = (at(hs) - at(0.0) * 2.0 + at(-hs)) / (hs * hs);
        rel_close(
            &DMatrix::from_column_slice(m, 1, &g),
            &DMatrix::from_column_slice(m, 1, g_fd.as_slice()),
            1e-5,
            "gamma",
        );
    }
}

fn cval_t(model: &Model, t: f64, q: &[f64]) -> DVector<f64> {
    let mut c = vec![0.0; model.n_constraints()];
    constraint_values(model, t, q, &mut c);
    DVector::from_vec(c)
}

#[test]
fn angle_pendulum_is_theta_ddot_plus_g_over_l_sin_theta() {
    // r = m ℓ² θ̈ + m g ℓ sin θ, i.e. θ̈ = −(g/ℓ) sin θ
    let (m, l, g) = (2.0, 1.5, 9.81);
    let model = angle_pendulum(m, l, g);
    let mut rng = Lcg(1);
    for _ in 0..20 {
        let (th, om, al) = (3.0 * rng.next(), 2.0 * rng.next(), 5.0 * rng.next());
        let r = residual(&model, 0.0, &[th], &[om], &[al]);
        let expect = m * l * l * al + m * g * l * th.sin();
        assert!(
            (r[0] - expect).abs() < 1e-12 * (1.0 + expect.abs()),
            "{} vs {}",
            r[0],
            expect
        );
    }
    check_model(&model, &mut rng, 3.0, 1e-7);
}

#[test]
fn double_pendulum_matches_textbook_equations() {
    let (m1, m2, l1, l2, g) = (1.3, 0.7, 1.1, 0.8, 9.81);
    let model = double_pendulum_angles([m1, m2], [l1, l2], g);
    let mut rng = Lcg(2);
    for _ in 0..20 {
        let (t1, t2) = (3.0 * rng.next(), 3.0 * rng.next());
        let (w1, w2) = (2.0 * rng.next(), 2.0 * rng.next());
        let (a1, a2) = (4.0 * rng.next(), 4.0 * rng.next());
        let r = residual(&model, 0.0, &[t1, t2], &[w1, w2], &[a1, a2]);
        let d = t1 - t2;
        // (m1+m2) l1 θ̈1 + m2 l2 θ̈2 cos Δ + m2 l2 θ̇2² sin Δ + (m1+m2) g sin θ1 = 0   (× l1)
        let e1 = l1
            * ((m1 + m2) * l1 * a1
                + m2 * l2 * a2 * d.cos()
                + m2 * l2 * w2 * w2 * d.sin()
                + (m1 + m2) * g * t1.sin());
        // l2 θ̈2 + l1 θ̈1 cos Δ − l1 θ̇1² sin Δ + g sin θ2 = 0   (× m2 l2)
        let e2 = m2 * l2 * (l2 * a2 + l1 * a1 * d.cos() - l1 * w1 * w1 * d.sin() + g * t2.sin());
        assert!(
            (r[0] - e1).abs() < 1e-12 * (1.0 + e1.abs()),
            "{} vs {e1}",
            r[0]
        );
        assert!(
            (r[1] - e2).abs() < 1e-12 * (1.0 + e2.abs()),
            "{} vs {e2}",
            r[1]
        );
    }
    check_model(&model, &mut rng, 3.0, 1e-7);
}

/// The published right-hand side f(q, q̇) of Andrews' mechanism (Hairer–Wanner).
fn andrews_f(p: &Andrews, q: &[f64], v: &[f64]) -> [f64; 7] {
    let (th, ga, ph, om) = (q[1], q[2], q[3], q[5]);
    let (bep, thp, php, dep, omp, epp) = (v[0], v[1], v[3], v[4], v[5], v[6]);
    let xd = p.sd * ga.cos() + p.sc * ga.sin() + p.xb;
    let yd = p.sd * ga.sin() - p.sc * ga.cos() + p.yb;
    let l = ((xd - p.xc).powi(2) + (yd - p.yc).powi(2)).sqrt();
    let f = -p.c0 * (l - p.l0) / l;
    let (fx, fy) = (f * (xd - p.xc), f * (yd - p.yc));
    let eea = p.e - p.ea;
    let zfa = p.zf - p.fa;
    [
        p.mom - p.m2 * p.da * p.rr * thp * (thp + 2.0 * bep) * th.sin(),
        p.m2 * p.da * p.rr * bep * bep * th.sin(),
        fx * (p.sc * ga.cos() - p.sd * ga.sin()) + fy * (p.sd * ga.cos() + p.sc * ga.sin()),
        p.m4 * p.zt * eea * dep * dep * ph.cos(),
        -p.m4 * p.zt * eea * php * (php + 2.0 * dep) * ph.cos(),
        -p.m6 * p.u * zfa * epp * epp * om.cos(),
        p.m6 * p.u * zfa * omp * (omp + 2.0 * epp) * om.cos(),
    ]
}

#[test]
fn andrews_residual_reproduces_published_f_and_mass_matrix() {
    let model = andrews_model();
    let p = Andrews::default();
    let mut rng = Lcg(3);
    for _ in 0..20 {
        let q = rng.scaled(7, 2.0);
        let v = rng.scaled(7, 50.0);
        let zero = [0.0; 7];
        // r(q, q̇, 0) = −f(q, q̇)
        let r = residual(&model, 0.0, &q, &v, &zero);
        let f = andrews_f(&p, &q, &v);
        for i in 0..7 {
            assert!(
                (r[i] + f[i]).abs() < 1e-12 * (1.0 + f[i].abs()),
                "component {i}: r = {}, −f = {}",
                r[i],
                -f[i]
            );
        }
        // M from AD equals the published M(q)
        let b = dense_term_blocks(&model, 0.0, &q, &v, &zero);
        let mq =
            Term::<7>::mass_matrix(&p, 0.0, &nalgebra::SVector::<f64, 7>::from_column_slice(&q));
        for i in 0..7 {
            for j in 0..7 {
                assert!((b[1][(i, j)] - mq[(i, j)]).abs() < 1e-15, "M[{i}][{j}]");
            }
        }
    }
    check_model(&model, &mut rng, 2.0, 1e-6);
}

#[test]
fn andrews_constraint_jacobian_matches_published_g() {
    // G = ∂g/∂q for rows 1 and 2 (closed form), at random q.
    let model = andrews_model();
    let p = Andrews::default();
    let mut rng = Lcg(4);
    let q = rng.scaled(7, 2.0);
    let j = constraint_jacobian_dense(&model, 0.0, &q);
    let (be, th, ga) = (q[0], q[1], q[2]);
    let row1 = [
        -p.rr * be.sin() + p.d * (be + th).sin(),
        p.d * (be + th).sin(),
        -p.ss * ga.cos(),
        0.0,
        0.0,
        0.0,
        0.0,
    ];
    let row2 = [
        p.rr * be.cos() - p.d * (be + th).cos(),
        -p.d * (be + th).cos(),
        -p.ss * ga.sin(),
        0.0,
        0.0,
        0.0,
        0.0,
    ];
    for k in 0..7 {
        assert!((j[(0, k)] - row1[k]).abs() < 1e-15 && (j[(1, k)] - row2[k]).abs() < 1e-15);
    }
}

#[test]
fn spring_particle_chain_and_rheonomic_blocks_match_finite_differences() {
    let mut rng = Lcg(5);
    // a damped 3D spring between two particles
    let model = Model::builder(6)
        .term(
            [0, 1, 2],
            Particle {
                mass: 1.2,
                gravity: [0.0, -9.81, 0.0],
            },
        )
        .term(
            [3, 4, 5],
            Particle {
                mass: 0.8,
                gravity: [0.0, -9.81, 0.0],
            },
        )
        .term(
            [0, 1, 2, 3, 4, 5],
            Spring::<3> {
                stiffness: 300.0,
                rest_length: 0.7,
                damping: 2.5,
            },
        )
        .build()
        .unwrap();
    for _ in 0..5 {
        check_model(&model, &mut rng, 1.0, 1e-7);
    }
    check_model(
        &pendulum_chain_3d(&[1.0, 2.0, 0.5], &[1.0, 0.5, 0.7], 9.81).unwrap(),
        &mut rng,
        1.0,
        1e-7,
    );
    // rheonomic constraint: C_t and γ include the explicit time dependence
    check_model(
        &driven_pendulum(1.0, 1.0, 9.81, 0.3, 4.0),
        &mut rng,
        1.0,
        1e-7,
    );
}

#[test]
fn spring_residual_is_hookes_law_with_axial_damping() {
    // r on x₁ = −k (L − ℓ₀) n − c (n·Δv) n, n = (x₂ − x₁)/L
    let s = Spring::<3> {
        stiffness: 50.0,
        rest_length: 1.0,
        damping: 3.0,
    };
    let q = [0.1, 0.2, -0.3, 1.4, 0.5, 0.2];
    let v = [0.3, -0.1, 0.2, -0.5, 0.4, 0.1];
    let r = lagrangian::ad::term_residual(&s, 0.0, &q, &v, &[0.0; 6]);
    let d = nalgebra::Vector3::new(q[3] - q[0], q[4] - q[1], q[5] - q[2]);
    let dv = nalgebra::Vector3::new(v[3] - v[0], v[4] - v[1], v[5] - v[2]);
    let l = d.norm();
    let n = d / l;
    let f1 = n * (50.0 * (l - 1.0)) + n * (3.0 * n.dot(&dv)); // force on x₁
    for k in 0..3 {
        assert!((r[k] + f1[k]).abs() < 1e-12);
        assert!((r[3 + k] - f1[k]).abs() < 1e-12);
    }
}

/// A Lagrangian not quadratic in `v`, with gyroscopic coupling, dissipation and a force.
struct Relativistic;

impl lagrangian::model::Term<2> for Relativistic {
    fn lagrangian<D: num_dual::DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &nalgebra::SVector<D, 2>,
        v: &nalgebra::SVector<D, 2>,
    ) -> D {
        let s = v[0] * v[0] + v[1] * v[1];
        -(-s * 0.04 + 1.0).sqrt() * 25.0 + (q[0] * v[1] - q[1] * v[0]) * 0.7 * (t + 1.0)
            - q[0].cos() * q[1] * q[1]
            + v[0] * v[0] * v[1] * q[0] * 0.1
    }
    fn dissipation<D: num_dual::DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &nalgebra::SVector<D, 2>,
        v: &nalgebra::SVector<D, 2>,
    ) -> D {
        (v[0] * v[0] + v[1] * v[1]) * (q[0] * q[0] + 1.0) * 0.3
    }
    fn force<D: num_dual::DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &nalgebra::SVector<D, 2>,
        v: &nalgebra::SVector<D, 2>,
    ) -> nalgebra::SVector<D, 2> {
        nalgebra::SVector::from([t.sin() * q[1], v[0] * q[0]])
    }
}

#[test]
fn the_mass_only_matrix_is_the_mass_block_of_the_full_derivation() {
    // the state solver asks for r and M alone (one second-order pass seeded on v): both
    // equal the residual and the mass block of the full velocity and stiffness passes
    use lagrangian::ad::{TermAd, term_blocks};
    use lagrangian::model::kernel::{KernelCoefficients, TermKernel};
    let k = TermAd::<_, 2>::new(Relativistic);
    let (t, q, v, a) = (0.3, [0.4, -0.7], [1.1, 0.6], [0.5, -2.0]);
    let full = term_blocks::<_, 2>(&Relativistic, t, &q, &v, &a);
    let coef = KernelCoefficients {
        mass: 2.5,
        damping: 0.0,
        stiffness: 0.0,
    };
    let sv = |x: [f64; 2]| nalgebra::SVector::<f64, 2>::from(x);
    let (r, m) = k.jacobian(t, &sv(q), &sv(v), &sv(a), &coef);
    assert!((r - full.r).amax() < 1e-13 * full.r.amax());
    assert!((m - full.mass * 2.5).amax() < 1e-13 * full.mass.amax());
    // M is not constant here (the check is not trivial): it depends on v and q
    assert!(full.mass[(0, 1)].abs() > 1e-3 && (full.mass[(0, 0)] - full.mass[(1, 1)]).abs() > 1e-3);
}
