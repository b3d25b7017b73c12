use super::*;
use num_dual::{Dual3_64, DualNum};
use num_traits::{One, Signed};

/// The first four Taylor coefficients of `f` at `x0` by num-dual's third-order numbers
/// (`f, f', f''/2, f'''/6`) against `f` on the series `x0 + τ`.
fn check_against_dual3(
    name: &str,
    x0: f64,
    f: impl Fn(Taylor) -> Taylor,
    g: impl Fn(Dual3_64) -> Dual3_64,
) {
    let d = g(Dual3_64::new(x0, 1.0, 0.0, 0.0));
    let want = [d.re, d.v1, d.v2 / 2.0, d.v3 / 6.0];
    let s = f(Taylor::variable(x0, 8));
    for (k, w) in want.iter().enumerate() {
        let got = s.coeff(k);
        assert!(
            (got - w).abs() <= 1e-13 * (1.0 + w.abs()),
            "{name} at {x0}: coefficient {k} is {got}, num-dual says {w}"
        );
    }
}

#[test]
fn each_function_agrees_with_num_dual_to_third_order() {
    macro_rules! both {
        ($name:literal, $x0:expr, |$x:ident| $e:expr) => {
            check_against_dual3($name, $x0, |$x: Taylor| $e, |$x: Dual3_64| $e)
        };
    }
    both!("product", 0.7, |x| x * x * 3.0 - x);
    both!("quotient", 0.7, |x| (x + 2.0) / (x * x + 1.0));
    both!("recip", -1.3, |x| x.recip());
    both!("powi", 1.4, |x| x.powi(5));
    both!("powi<0", 1.4, |x| x.powi(-3));
    both!("powf", 1.4, |x| x.powf(2.5));
    both!("sqrt", 2.3, |x| x.sqrt());
    both!("cbrt", -2.3, |x| x.cbrt());
    both!("exp", 0.4, |x| x.exp());
    both!("exp2", 0.4, |x| x.exp2());
    both!("exp_m1", 0.4, |x| x.exp_m1());
    both!("ln", 2.1, |x| x.ln());
    both!("log", 2.1, |x| x.log(3.0));
    both!("log2", 2.1, |x| x.log2());
    both!("log10", 2.1, |x| x.log10());
    both!("ln_1p", 0.3, |x| x.ln_1p());
    both!("sin", 0.9, |x| x.sin());
    both!("cos", 0.9, |x| x.cos());
    both!("tan", 0.9, |x| x.tan());
    both!("asin", 0.4, |x| x.asin());
    both!("acos", 0.4, |x| x.acos());
    both!("atan", 0.4, |x| x.atan());
    both!("sinh", 0.6, |x| x.sinh());
    both!("cosh", 0.6, |x| x.cosh());
    both!("tanh", 0.6, |x| x.tanh());
    both!("asinh", 0.6, |x| x.asinh());
    both!("acosh", 1.6, |x| x.acosh());
    both!("atanh", 0.6, |x| x.atanh());
    both!("abs", -0.6, |x| x.abs());
    for x0 in [0.3, 2.5] {
        both!("sph_j0", x0, |x| x.sph_j0());
        both!("sph_j1", x0, |x| x.sph_j1());
    }
    both!("sph_j2", 2.5, |x| x.sph_j2());
    // near 0 num-dual's closed form loses digits (its j₂'''(0.3)/6 is off by 6e-13): the
    // exact value, from the power series in rational arithmetic
    let j2 = Taylor::variable(0.3, 4).sph_j2();
    assert!((j2.coeff(3) + 0.005643129364941527).abs() < 1e-17);
    both!("atan2", 0.8, |x| (x * x).atan2(x.cos() - 2.0));
    both!("composite", 0.8, |x| (x.sin() * x.exp()).sqrt()
        / (x.atan() + 2.0).ln());
}

/// `|coefficient k of a − b| ≤ tol` for every known coefficient.
fn assert_series_eq(what: &str, a: &Taylor, b: &Taylor, tol: f64) {
    assert_eq!(a.n(), b.n(), "{what}: known coefficients");
    for k in 0..a.n() {
        let (x, y) = (a.coeff(k), b.coeff(k));
        assert!((x - y).abs() <= tol, "{what}: coefficient {k}: {x} vs {y}");
    }
}

#[test]
fn inverse_functions_undo_each_other_to_order_twenty() {
    // a series with every coefficient in play: x(τ) = 0.3 + 0.2τ − 0.1τ² + 0.05τ³
    let x = Taylor::new(&[0.3, 0.2, -0.1, 0.05], 21);
    let pos = x + 1.5;
    let tol = 1e-14;
    assert_series_eq("exp(ln x)", &pos.ln().exp(), &pos, tol);
    assert_series_eq("sqrt(x)²", &(pos.sqrt() * pos.sqrt()), &pos, tol);
    assert_series_eq("cbrt(x)³", &pos.cbrt().powi(3), &pos, tol);
    assert_series_eq(
        "powf(x, 2.5)·powf(x, −2.5)",
        &(pos.powf(2.5) * pos.powf(-2.5)),
        &Taylor::constant(1.0).truncate(21),
        tol,
    );
    assert_series_eq("sin(asin x)", &x.asin().sin(), &x, tol);
    assert_series_eq("cos(acos x)", &x.acos().cos(), &x, tol);
    assert_series_eq("tan(atan x)", &x.atan().tan(), &x, tol);
    assert_series_eq("sinh(asinh x)", &x.asinh().sinh(), &x, tol);
    assert_series_eq("cosh(acosh x)", &pos.acosh().cosh(), &pos, tol);
    assert_series_eq("tanh(atanh x)", &x.atanh().tanh(), &x, tol);
    assert_series_eq("atan2(sin x, cos x)", &x.sin().atan2(x.cos()), &x, tol);
    assert_series_eq("exp_m1(ln_1p x)", &x.ln_1p().exp_m1(), &x, tol);
    let one = x.sin() * x.sin() + x.cos() * x.cos();
    assert_series_eq(
        "sin² + cos²",
        &one,
        &Taylor::constant(1.0).truncate(21),
        tol,
    );
    let one = x.cosh() * x.cosh() - x.sinh() * x.sinh();
    assert_series_eq(
        "cosh² − sinh²",
        &one,
        &Taylor::constant(1.0).truncate(21),
        tol,
    );
    // a division and a product undo each other
    assert_series_eq("(x/y)·y", &(x / pos * pos), &x, tol);
}

#[test]
fn closed_form_coefficients_to_high_order() {
    // exp(τ) = Σ τᵏ/k!, 1/(1 − τ) = Σ τᵏ, ln(1 + τ) = Σ (−1)^{k+1} τᵏ/k, sin τ = Σ (−1)ᵐ τ²ᵐ⁺¹/(2m+1)!
    let t = Taylor::variable(0.0, CAPACITY);
    let e = t.exp();
    let g = (Taylor::one() - t).recip();
    let l = t.ln_1p();
    let s = t.sin();
    let mut fact = 1.0;
    for k in 0..CAPACITY {
        if k > 0 {
            fact *= k as f64;
        }
        assert!((e.coeff(k) * fact - 1.0).abs() < 1e-14, "exp, {k}");
        assert_eq!(g.coeff(k), 1.0, "1/(1 − τ), {k}");
        if k > 0 {
            let want = if k % 2 == 1 { 1.0 } else { -1.0 } / k as f64;
            assert!((l.coeff(k) - want).abs() < 1e-15, "ln(1 + τ), {k}");
        }
        let want = match k % 4 {
            1 => 1.0 / fact,
            3 => -1.0 / fact,
            _ => 0.0,
        };
        assert!(
            (s.coeff(k) - want).abs() < 1e-15 / fact.min(1e6),
            "sin, {k}"
        );
    }
}

#[test]
fn constants_are_exact_and_truncation_follows_the_least_known_operand() {
    let c = Taylor::constant(2.0);
    let x = Taylor::new(&[1.0, 1.0, 1.0], 5);
    let p = c * x;
    assert_eq!(p.n(), 5);
    assert_eq!(p.coefficients(), &[2.0, 2.0, 2.0, 0.0, 0.0]);
    // (1 + τ + τ²)² = 1 + 2τ + 3τ² + 2τ³ + τ⁴, known to τ⁴ here, to τ² when one factor is
    let q = x * x;
    assert_eq!(q.coefficients(), &[1.0, 2.0, 3.0, 2.0, 1.0]);
    assert_eq!((x.truncate(3) * x).coefficients(), &[1.0, 2.0, 3.0]);
    // d/dτ drops one known coefficient
    assert_eq!(q.derivative().coefficients(), &[2.0, 6.0, 6.0, 4.0]);
    assert_eq!(q.eval(0.5), 1.75f64 * 1.75);
    // a constant function of a constant is one coefficient, however many are known
    let k = Taylor::constant(0.5).sin();
    assert_eq!(
        (k.coeff(0), k.coeff(1), k.n()),
        (0.5f64.sin(), 0.0, CAPACITY)
    );
    // comparisons look at the value only
    assert!(x > 0.5 && x < c && x == Taylor::constant(1.0));
}

#[test]
fn user_energies_and_expression_programs_evaluate_on_series() {
    use crate::expr::VExpr;
    use nalgebra::SVector;
    // a pendulum's potential −cos θ along θ(τ) = 0.4 + τ: its series is −cos(0.4 + τ)
    fn potential<D: DualNum<Primitive = f64> + Copy>(q: &SVector<D, 1>) -> D {
        -q[0].cos()
    }
    let th = Taylor::variable(0.4, 12);
    let v = potential(&SVector::from([th]));
    let want = -th.cos();
    assert_series_eq("user potential", &v, &want, 0.0);
    // the same through a compiled expression of a mechanism file, with time
    let e = VExpr::parse("-cos(q0) + t**2", 3, &|n| {
        (n == "q0").then(|| crate::expr::Sym::Item(VExpr::coord(0)))
    })
    .unwrap();
    let t = Taylor::variable(1.0, 12);
    let x = e.eval_scalar::<Taylor>(&|_| th, t);
    assert_series_eq("expression", &x, &(want + t * t), 1e-15);
}

/// Every function recorded on the tape and swept gives the value type's series, to order 19,
/// on arguments that are themselves series (so the products of the recurrences all count).
#[test]
fn the_tape_gives_the_value_series_of_every_function() {
    let n = 20;
    let xs = [0.7, -0.45, 0.3, 0.2, -0.11, 0.05, 0.02, -0.01];
    let ys = [1.6, 0.3, -0.2, 0.1, 0.04, -0.03];
    macro_rules! same {
        ($name:literal, |$x:ident, $y:ident| $e:expr) => {{
            let want = {
                let ($x, $y) = (Taylor::new(&xs, n), Taylor::new(&ys, n));
                $e
            };
            let [got] = series_of([&xs, &ys], n, |[$x, $y]| [$e]);
            for k in 0..n {
                let (g, w) = (got[k], want.coeff(k));
                assert!(
                    (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
                    "{}: coefficient {k} is {g} on the tape, {w} on series",
                    $name
                );
            }
        }};
    }
    same!("sum", |x, y| x + y * 2.0 - 1.0);
    same!("difference", |x, y| -x + 3.0 - y);
    same!("product", |x, y| x * y * x);
    same!("quotient", |x, y| (x + 2.0) / (y * x + 1.0));
    same!("constant over", |x, y| (x.signum() * 0.0 + 2.0) / (x + y));
    same!("recip", |x, y| (x - y).recip());
    same!("powi", |x, y| (x + y).powi(5) + x.powi(-3));
    same!("powi at 0", |x, y| (x - 0.7).powi(4) + y);
    same!("powf", |x, y| y.powf(2.5) + y.powf(-0.3) * x);
    same!("sqrt", |x, y| (y + x * x).sqrt());
    same!("cbrt", |x, y| (x - y).cbrt());
    same!("exp", |x, y| (x * y).exp() + x.exp2() + y.exp_m1());
    same!("ln", |x, y| y.ln()
        + y.log(3.0)
        + y.log2()
        + y.log10()
        + x.ln_1p());
    same!("sin cos tan", |x, y| x.sin() * y.cos() + x.tan());
    same!("sin_cos", |x, y| {
        let (s, c) = (x * y).sin_cos();
        s * s + c
    });
    same!("inverse", |x, y| x.asin() + x.acos() + (x * y).atan());
    same!("atan2", |x, y| y.atan2(x)
        + x.atan2(y)
        + x.atan2(x - 0.7 + 1e-3));
    same!("hyperbolic", |x, y| x.sinh() * y.cosh() + x.tanh());
    same!("inverse hyperbolic", |x, y| x.asinh()
        + y.acosh()
        + x.atanh());
    same!("spherical Bessel", |x, y| x.sph_j0()
        + y.sph_j1()
        + (x * 3.0).sph_j2());
    same!("abs, remainder", |x, y| (-x).abs() * y + (y % x));
    same!("scale, mul_add", |x, y| x.scale(&3.0).mul_add(y, x));
}

/// A stage's unknown written after its sweep: `L = ½(1 + q²)v² − ½q²` (`q(0) = 1`,
/// `q'(0) = 0`) as the residual `(m v)' − q v² + q` with `d/dτ` on the tape (so `v` one
/// coefficient ahead), `Q_{s+2}` solved from stage `s` and only the nodes that read it swept
/// again: every stage's residual vanishes, and the series found satisfies the equation to its
/// order on the value type.
#[test]
fn a_stage_solved_for_its_unknown_gives_the_motion() {
    let mut tape = SeriesTape::default();
    tape.begin();
    let (q, v) = (TaylorVar::input(1.0), TaylorVar::input(0.0));
    // L = ½ m(q) v² − ½ q², m = 1 + q²: r = (m v)' − q v² + q
    let m = q * q + 1.0;
    let r = (m * v).derivative() - q * v * v + q;
    tape.end();
    let last = 12;
    tape.prepare(last, &[(r, 0)], &[(q, Some(2)), (v, Some(1))])
        .unwrap();
    // Q₀ = 1, Q₁ = 0, Q₂ = −q/(2m) at the state
    let mut c = vec![0.0; last + 3];
    (c[0], c[1], c[2]) = (1.0, 0.0, -0.5 / 2.0);
    let write = |tape: &mut SeriesTape, c: &[f64], upto: usize| {
        for k in 0..=upto.min(c.len() - 1) {
            tape.set(q, k, c[k]);
            if k + 1 < c.len() {
                tape.set(v, k, (k + 1) as f64 * c[k + 1]);
            }
        }
    };
    write(&mut tape, &c, 2);
    for s in -(tape.max_lead() as isize)..=0 {
        tape.stage(s);
    }
    for s in 1..=last {
        tape.stage(s as isize);
        // r_s is affine in Q_{s+2}: r_s = r⁰ + (s+1)(s+2) m₀ Q_{s+2}, m₀ = 2
        let r0 = tape.coeff(r, s);
        c[s + 2] = -r0 / ((s + 1) as f64 * (s + 2) as f64 * 2.0);
        tape.set(q, s + 2, c[s + 2]);
        tape.set(v, s + 1, (s + 2) as f64 * c[s + 2]);
        tape.redo(s as isize);
        assert!(
            tape.coeff(r, s).abs() < 1e-15,
            "stage {s}: residual {}",
            tape.coeff(r, s)
        );
    }
    // the residual of the series found, on the value type, vanishes to the order known
    let qs = Taylor::new(&c, last + 3);
    let vs = qs.derivative();
    let res = (((qs * qs) + 1.0) * vs).derivative() - qs * vs * vs + qs;
    for k in 0..=last {
        assert!(
            res.coeff(k).abs() < 1e-14,
            "coefficient {k}: {}",
            res.coeff(k)
        );
    }
}
