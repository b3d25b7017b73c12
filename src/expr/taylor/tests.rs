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
