//! Elementary functions on any [`DualNum`] with derivatives that are right at the points where
//! num-dual 0.15's own are not: `atan2` near `x = 0`, `powf` at and near `0`, `asin`/`acos` a
//! rounding past `±1`. Every expression of a mechanism file evaluates through these; a user's
//! own `Term` should call them instead of the methods of the same name.
//!
//! **`atan2`.** num-dual computes `atan2(y, x)` as `atan(y/x)` with the real part replaced, so
//! its derivative parts are those of `atan(y/x)`: as `x → 0` they are differences of huge
//! numbers (a crank's drive torque 65 % wrong a millimetre from the vertical), at `x = 0` NaN.
//! Here the quotient is always the one whose magnitude is at most 1,
//!
//! ```text
//! |x| ≥ |y|:  atan2(y, x) = atan(y/x) + c,      |x| < |y|:  atan2(y, x) = −atan(x/y) + c',
//! ```
//!
//! with the real part the `f64` `atan2` of the real parts. Both branches have the derivative
//! `d atan2 = (x dy − y dx)/(x² + y²)` to every order, and neither divides by a small number.
//! (Reported upstream as a note in docs/maths.md, "Functions taken from num-dual".)
//!
//! **`powf`.** num-dual writes `xᵖ` as `x^(p−3)·x·x·x`: for `0 < x < 10⁻¹²⁰` and small `p` the
//! first factor overflows (`1e-130^0.5` is `inf`), and at `x = 0` it is `0·∞ = NaN` even where
//! the value and every derivative are `0`. Here an integer `p` is `powi`, a positive `x` is
//! `x₀ᵖ · (x/x₀)ᵖ` (the series about 1, exact coefficients), and at `x = 0` a power above the
//! number type's derivative order is `0` with zero derivatives; below it the derivative is
//! infinite and stays NaN (the toolkit refuses the point as not differentiable).
//!
//! **`asin`, `acos`.** A cosine computed as the dot product of unit vectors can exceed 1 by a
//! rounding; within four units of rounding of `±1` the argument is taken as `±1`.
//!
//! On the Taylor series of [`Taylor`] and [`TaylorVar`] each function is that type's own,
//! which already follows these rules.
//!
//! ```
//! use lagrangian::expr::exact;
//! use num_dual::{Dual64, DualNum};
//! // θ = atan2(y, x) at x = 0, y = 1, differentiated in x: ∂θ/∂x = −y/(x² + y²) = −1
//! let x = Dual64::from_re(0.0).derivative();
//! let th = exact::atan2(Dual64::from_re(1.0), x);
//! assert_eq!((th.re, th.eps), (std::f64::consts::FRAC_PI_2, -1.0));
//! assert!(Dual64::from_re(1.0).atan2(x).eps.is_nan()); // num-dual's own
//! // x^2.5 at x = 0 on first derivatives: 0, slope 0
//! let z = exact::powf(Dual64::from_re(0.0).derivative(), 2.5);
//! assert_eq!((z.re, z.eps), (0.0, 0.0));
//! ```

use super::taylor::{Taylor, TaylorVar};
use num_dual::DualNum;
use std::any::TypeId;

/// Whether `D` is a series type, whose functions already follow these rules.
fn is_taylor<D: 'static>() -> bool {
    TypeId::of::<D>() == TypeId::of::<Taylor>() || TypeId::of::<D>() == TypeId::of::<TaylorVar>()
}

/// `atan2(y, x)`, the angle of the point `(x, y)` in `(−π, π]`, with derivatives
/// `(x dy − y dx)/(x² + y²)` accurate at every point but the origin (where they are NaN).
pub fn atan2<D: DualNum<Primitive = f64> + Copy>(y: D, x: D) -> D {
    if is_taylor::<D>() {
        return y.atan2(x);
    }
    let (yr, xr) = (y.re(), x.re());
    if xr == 0.0 && yr == 0.0 {
        return y.atan2(x); // the value atan2 gives the origin, no derivative
    }
    let angle = yr.atan2(xr);
    let r = if xr.abs() >= yr.abs() {
        (y / x).atan()
    } else {
        -(x / y).atan()
    };
    // the derivative parts of r, the real part the angle (r − r₀ has real part 0 exactly)
    r - r.re() + angle
}

/// `xᵖ` for a constant real `p`, right at `x = 0` and for tiny `x` (see the module's text).
pub fn powf<D: DualNum<Primitive = f64> + Copy>(x: D, p: f64) -> D {
    if is_taylor::<D>() {
        return x.powf(p);
    }
    if p.fract() == 0.0 && p.abs() <= f64::from(i32::MAX) {
        return x.powi(p as i32);
    }
    let x0 = x.re();
    if x0 > 0.0 && x0.is_finite() {
        // xᵖ = x₀ᵖ (1 + u)ᵖ, u = x/x₀ − 1: num-dual's coefficients at 1 are p, p(p−1), …
        let r = (x / x0).powf(p) * x0.powf(p);
        return r - r.re() + x0.powf(p);
    }
    if x0 == 0.0 && p > D::NDERIV as f64 {
        // every derivative the number type carries, p(p−1)…(p−k+1)·0^(p−k), is zero
        return D::zero();
    }
    x.powf(p)
}

/// `x` moved onto `±1` when it lies past it by at most four units of rounding.
fn onto_unit<D: DualNum<Primitive = f64> + Copy>(x: D) -> D {
    let x0 = x.re();
    let past = x0.abs() - 1.0;
    if past > 0.0 && past <= 4.0 * f64::EPSILON {
        x - (x0 - x0.signum())
    } else {
        x
    }
}

/// `asin(x)`, with `x` a rounding past `±1` taken as `±1`.
pub fn asin<D: DualNum<Primitive = f64> + Copy>(x: D) -> D {
    onto_unit(x).asin()
}

/// `acos(x)`, with `x` a rounding past `±1` taken as `±1`.
pub fn acos<D: DualNum<Primitive = f64> + Copy>(x: D) -> D {
    onto_unit(x).acos()
}

#[cfg(test)]
mod tests;
