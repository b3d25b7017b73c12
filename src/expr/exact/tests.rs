//! The functions of `exact` against hand-derived derivatives at their awkward points, on the
//! number types the toolkit evaluates (first, second, third order; vector and nested duals;
//! the dense types of `ad::dense` are tested there).

use super::*;
use num_dual::{Dual2_64, Dual3_64, Dual64, DualSVec64, HyperDual64};

/// `(θ, θ_x, θ_y, θ_xx, θ_xy, θ_yy, θ_xxx)` of `θ = atan2(y, x)` by hand, `r² = x² + y²`.
fn atan2_by_hand(y: f64, x: f64) -> [f64; 7] {
    let r2 = x * x + y * y;
    let r4 = r2 * r2;
    [
        y.atan2(x),
        -y / r2,
        x / r2,
        2.0 * x * y / r4,
        (y * y - x * x) / r4,
        -2.0 * x * y / r4,
        2.0 * y * (y * y - 3.0 * x * x) / (r4 * r2),
    ]
}

/// Points where num-dual's quotient loses digits or is NaN, and ordinary ones.
const POINTS: [(f64, f64); 10] = [
    (1.0, 0.0),
    (1.0, 1e-9),
    (-1.0, -1e-7),
    (0.3, -1e-12),
    (2.0, 1e-3),
    (0.0, -1.0),
    (1e-12, -1.0),
    (3.0, 4.0),
    (-5.0, 5.0),
    (1e-60, -3e-60),
];

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-14 * scale.max(b.abs())
}

#[test]
fn atan2_first_second_and_third_derivatives_everywhere_but_the_origin() {
    for (y, x) in POINTS {
        let h = atan2_by_hand(y, x);
        let r2 = x * x + y * y;
        let (s1, s2, s3) = (1.0 / r2.sqrt(), 1.0 / r2, 1.0 / (r2 * r2.sqrt()));
        let at = format!("atan2({y}, {x})");
        // first order in x, and in y
        let d = atan2(Dual64::from(y), Dual64::from(x).derivative());
        assert!(
            d.re == h[0] && close(d.eps, h[1], s1),
            "{at}: {d:?} vs {h:?}"
        );
        let d = atan2(Dual64::from(y).derivative(), Dual64::from(x));
        assert!(close(d.eps, h[2], s1), "{at}: {d:?}");
        // the gradient at once
        let (xs, ys) = (
            DualSVec64::<2>::from(x).derivative(0),
            DualSVec64::<2>::from(y).derivative(1),
        );
        let g = atan2(ys, xs)
            .eps
            .unwrap_generic(nalgebra::Const::<2>, nalgebra::Const::<1>);
        assert!(close(g[0], h[1], s1) && close(g[1], h[2], s1), "{at}: {g}");
        // second order: xx by Dual2, xy by HyperDual, yy by Dual2
        let d = atan2(Dual2_64::from(y), Dual2_64::from(x).derivative());
        assert!(
            close(d.v1, h[1], s1) && close(d.v2, h[3], s2),
            "{at}: {d:?}"
        );
        let d = atan2(Dual2_64::from(y).derivative(), Dual2_64::from(x));
        assert!(close(d.v2, h[5], s2), "{at}: {d:?}");
        let hd = atan2(
            HyperDual64::from(y).derivative2(),
            HyperDual64::from(x).derivative1(),
        );
        assert!(close(hd.eps1eps2, h[4], s2), "{at}: {hd:?}");
        // third order in x
        let d = atan2(Dual3_64::from(y), Dual3_64::from(x).derivative());
        assert!(close(d.v3, h[6], s3), "{at}: {d:?} vs {}", h[6]);
        // nested: the outer derivative in x of the inner derivative in y is θ_xy
        let xn = num_dual::Dual::new(Dual64::from(x), Dual64::from(1.0));
        let yn = num_dual::Dual::new(Dual64::from(y).derivative(), Dual64::from(0.0));
        let n = atan2(yn, xn);
        assert!(
            close(n.eps.eps, h[4], s2) && close(n.re.eps, h[2], s1),
            "{at}"
        );
    }
}

#[test]
fn atan2_at_the_origin_has_no_derivative_and_a_taylor_series_keeps_its_own() {
    let d = atan2(Dual64::from(0.0), Dual64::from(0.0).derivative());
    assert_eq!(d.re, 0.0);
    assert!(d.eps.is_nan());
    // the Taylor type's own rule: atan2(sin t, cos t) = t through t = π/2, where cos t = 0
    let t = Taylor::variable(std::f64::consts::FRAC_PI_2, 8);
    let th = atan2(t.sin(), t.cos());
    assert!((th.coefficients()[1] - 1.0).abs() < 1e-14, "{th:?}");
    assert!((2..8).all(|k| th.coefficients()[k].abs() < 1e-14), "{th:?}");
}

#[test]
fn powf_at_zero_tiny_and_ordinary_arguments() {
    // 2.5 above the order of every first- and second-order number: 0, zero derivatives
    let z = powf(Dual64::from(0.0).derivative(), 2.5);
    assert_eq!((z.re, z.eps), (0.0, 0.0));
    let z = powf(HyperDual64::from(0.0).derivative1().derivative2(), 2.5);
    assert_eq!((z.re, z.eps1, z.eps2, z.eps1eps2), (0.0, 0.0, 0.0, 0.0));
    let z = powf(Dual2_64::from(0.0).derivative(), 1.5);
    assert!(
        !z.v2.is_finite(),
        "the second derivative of x^1.5 at 0 is infinite: {z:?}"
    );
    let z = powf(Dual64::from(0.0).derivative(), 1.5);
    assert_eq!((z.re, z.eps), (0.0, 0.0));
    // below the order at 0 (x^0.5 on first derivatives): no finite slope, refused downstream
    assert!(!powf(Dual64::from(0.0).derivative(), 0.5).eps.is_finite());
    // on plain numbers every power of 0 is its value
    assert_eq!(powf(0.0f64, 0.5), 0.0);
    // tiny arguments: num-dual's x^(p−3) overflows
    let z = powf(Dual64::from(1e-130).derivative(), 0.5);
    assert!(
        close(z.re, 1e-65, 0.0) && close(z.eps, 0.5e65, 0.0),
        "{z:?}"
    );
    // ordinary: value and three derivatives of x^p by hand
    for (x, p) in [(2.0, 2.5), (0.3, -1.5), (7.0, 1.0 / 3.0), (1e-3, 0.5)] {
        let z = powf(Dual3_64::from(x).derivative(), p);
        let by_hand = [
            x.powf(p),
            p * x.powf(p - 1.0),
            p * (p - 1.0) * x.powf(p - 2.0),
            p * (p - 1.0) * (p - 2.0) * x.powf(p - 3.0),
        ];
        assert_eq!(z.re, by_hand[0]);
        for (a, b) in [z.v1, z.v2, z.v3].into_iter().zip(&by_hand[1..]) {
            assert!(
                (a - b).abs() <= 4e-15 * b.abs(),
                "{x}^{p}: {z:?} vs {by_hand:?}"
            );
        }
    }
    // integer powers of negative numbers, and a negative base with a fractional power
    let z = powf(Dual64::from(-2.0).derivative(), 3.0);
    assert_eq!((z.re, z.eps), (-8.0, 12.0));
    assert!(powf(Dual64::from(-2.0).derivative(), 2.5).re.is_nan());
}

#[test]
fn asin_and_acos_at_and_a_rounding_past_one() {
    let one_past = 1.0 + f64::EPSILON;
    assert_eq!(acos(one_past), 0.0f64);
    assert_eq!(asin(-one_past), -std::f64::consts::FRAC_PI_2);
    assert!(acos(1.0f64 + 1e-9).is_nan(), "well past 1 stays undefined");
    // the slope at ±1 is infinite: not a finite number the toolkit could use
    assert!(!acos(Dual64::from(1.0).derivative()).eps.is_finite());
    let d = asin(Dual64::from(0.5).derivative());
    assert!(close(d.eps, 1.0 / 0.75f64.sqrt(), 0.0));
}
