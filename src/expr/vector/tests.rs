//! Values, derivatives, wrapped angles, folding and type errors of vector expressions.

use super::*;
use num_dual::Dual64;

fn lookup(name: &str) -> Option<Sym> {
    match name {
        "X" => Some(Sym::Item(VExpr::pack([
            VExpr::coord(0),
            VExpr::coord(1),
            VExpr::coord(2),
        ]))),
        "mu" => Some(Sym::Item(VExpr::coord(3))),
        "w" => Some(Sym::Item(VExpr::constant_vec([0.0, 0.0, 1.0]))),
        "L" => Some(Sym::Param(2.0)),
        _ => None,
    }
}

#[test]
fn values_and_derivatives() {
    let q = [1.0, 2.0, 3.0, 0.5];
    let e = VExpr::parse("X + mu*cross(unit(X), w)", 3, &lookup).unwrap();
    assert!(e.is_vector());
    let x = e.eval_vector(&|j| q[j], 0.0);
    let n = 14f64.sqrt();
    let expect = [1.0 + 0.5 * 2.0 / n, 2.0 - 0.5 * 1.0 / n, 3.0];
    for k in 0..3 {
        assert!((x[k] - expect[k]).abs() < 1e-15);
    }
    // tangent against central differences
    let dq = [0.3, -0.2, 0.1, 0.7];
    let tan = e.tangent::<f64>(&|j| q[j], &|j| dq[j], 0.0, 0.0);
    let h = 1e-6;
    let xp = e.eval_vector(&|j| q[j] + h * dq[j], 0.0);
    let xm = e.eval_vector(&|j| q[j] - h * dq[j], 0.0);
    for k in 0..3 {
        assert!((tan[k] - (xp[k] - xm[k]) / (2.0 * h)).abs() < 1e-8);
    }
    // nested duals work
    let d = e.eval_scalar::<Dual64>(&|j| Dual64::from(q[j]), Dual64::from(0.0));
    assert!(d.re.is_nan()); // a vector read as a scalar
    let s = VExpr::parse("dot(X, X) - L**2 + t", 3, &lookup).unwrap();
    let d = s.eval_scalar::<Dual64>(&|j| Dual64::from(q[j]), Dual64::new(0.0, 1.0));
    assert_eq!((d.re, d.eps), (10.0, 1.0));
}

#[test]
fn wrapped_angles_and_what_counts_as_an_angle() {
    use std::f64::consts::PI;
    for (x, y) in [
        (PI, PI),
        (-PI, PI),
        (3.0 * PI, PI),
        (0.5, 0.5),
        (7.0, 7.0 - 2.0 * PI),
    ] {
        assert!((x - wrap_turns(x) - y).abs() < 1e-12, "wrap({x})");
    }
    // the value wraps, the derivative stays 1
    let e = VExpr::parse("wrap(mu*4)", 3, &lookup).unwrap();
    let d = e.eval_scalar::<Dual64>(
        &|j| Dual64::new([0.0, 0.0, 0.0, 1.0][j], 1.0),
        Dual64::from(0.0),
    );
    assert!(
        (d.re - (4.0 - 2.0 * PI)).abs() < 1e-15 && d.eps == 4.0,
        "{d:?}"
    );
    let angle = |text: &str| VExpr::parse(text, 3, &lookup).unwrap().is_angle();
    assert!(angle("atan2(X.y, X.x)"));
    assert!(angle("atan2(X.y, X.x) - atan2(X.z, X.x) + pi/2"));
    assert!(!angle("2*atan2(X.y, X.x)") && !angle("mu") && !angle("atan2(X.y, X.x) + mu"));
}

#[test]
fn folding_and_errors() {
    let e = VExpr::parse("cos(pi)*[1, 2, L]", 3, &lookup).unwrap();
    assert_eq!(constant_vector(&e), Some([-1.0, -2.0, -2.0]));
    for (text, msg) in [
        ("X + mu", "cannot add"),
        ("X * X", "dot or cross"),
        ("mu / X", "divide by a vector"),
        ("X / (L - 2)", "division by zero"),
        ("sqrt(X)", "scalar"),
        ("dot(X, mu)", "two vectors"),
        ("mu.x", "components"),
        ("[1, 2]", "3 components"),
        ("Y + 1", "undefined name 'Y'"),
        ("foo(X)", "unknown function"),
        ("X ** 2", "scalars"),
        ("ln(0)", "not defined"),
        ("X.w", "component"),
        ("perp(X)", "Dimension 2"),
    ] {
        let err = VExpr::parse(text, 3, &lookup).unwrap_err();
        assert!(err.message.contains(msg), "{text}: {}", err.message);
    }
    let err = VExpr::parse("cross(X, X)", 2, &lookup).unwrap_err();
    assert!(err.message.contains("Dimension 3"));
}
