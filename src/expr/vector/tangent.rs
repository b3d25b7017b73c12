//! Forward tangents on the program's interpreter without a number type of their own: the
//! value `x` and the directional derivative `ẋ = ∂x/∂q · dq + ∂x/∂t · dt` of every
//! intermediate, each rule written in the arithmetic of the number type the program runs on.
//!
//! [`Tangent`] is a [`Slots`] over another store: its slot `i` is the pair of slots `2i`
//! (value) and `2i + 1` (tangent) there, and every operation applies the rule of first-order
//! forward differentiation (`(xy)˙ = ẋ y + ẏ x`, `f(x)˙ = f′(x) ẋ`, …) with the store's scalar
//! operations. So the velocity of an expression point costs the build nothing per number type
//! beyond what its position costs — a dual number over each number type (`Dual<D>`) would be a
//! second set of number types as large as the first — and the same interpreter runs both.

use super::Func;
use super::slots::Slots;

/// The index a store's coordinate reader maps to `dq(j)` (with `j` added).
pub(super) const DERIV: usize = 1 << 50;

/// The index a store's coordinate reader maps to `dt`.
pub(super) const DT: usize = usize::MAX;

/// A store of (value, tangent) pairs on `m`: pair `i` in slots `base + 2i`, `base + 2i + 1`;
/// the temporaries from slot `temps` on. Coordinate `j`'s tangent is read as coordinate
/// `deriv + j` of `m` ([`DERIV`]: the direction `dq`; [`VELOCITY`](super::VELOCITY): the
/// velocity, for the rate of a chain point).
pub(super) struct Tangent<'a> {
    pub(super) m: &'a mut dyn Slots,
    pub(super) base: usize,
    pub(super) temps: usize,
    pub(super) deriv: usize,
}

impl Tangent<'_> {
    /// The value slot of pair `i`.
    fn v(&self, i: usize) -> usize {
        self.base + 2 * i
    }

    /// The tangent slot of pair `i`.
    fn d(&self, i: usize) -> usize {
        self.base + 2 * i + 1
    }

    fn u(&self, k: usize) -> usize {
        self.temps + k
    }

    /// `ẋ_i ← ẋ_i · f′` with `f′` in temporary `k`.
    fn times(&mut self, i: usize, k: usize) {
        let u = self.u(k);
        self.m.mul(self.d(i), u);
    }

    /// Temporary `k` ← `x_i`.
    fn load(&mut self, k: usize, i: usize) {
        let u = self.u(k);
        self.m.copy(u, self.v(i));
    }

    /// Temporary `k` ← `1 / √(1 − x_i²)`.
    fn inverse_root_of_one_minus_square(&mut self, k: usize, i: usize) {
        let u = self.u(k);
        self.m.mul_to(u, self.v(i), self.v(i));
        self.m.neg(u);
        self.m.shift(u, 1.0);
        self.m.func(u, Func::Sqrt);
        self.m.recip_to(u, u);
    }
}

impl Slots for Tangent<'_> {
    fn coord(&mut self, i: usize, j: usize) {
        self.m.coord(self.v(i), j);
        self.m.coord(self.d(i), self.deriv + j);
    }
    fn time(&mut self, i: usize) {
        self.m.time(self.v(i));
        self.m.coord(self.d(i), DT);
    }
    fn constant(&mut self, i: usize, c: f64) {
        self.m.constant(self.v(i), c);
        self.m.constant(self.d(i), 0.0);
    }
    fn copy(&mut self, i: usize, j: usize) {
        self.m.copy(self.v(i), self.v(j));
        self.m.copy(self.d(i), self.d(j));
    }
    fn neg(&mut self, i: usize) {
        self.m.neg(self.v(i));
        self.m.neg(self.d(i));
    }
    fn add(&mut self, i: usize, j: usize) {
        self.m.add(self.v(i), self.v(j));
        self.m.add(self.d(i), self.d(j));
    }
    fn sub(&mut self, i: usize, j: usize) {
        self.m.sub(self.v(i), self.v(j));
        self.m.sub(self.d(i), self.d(j));
    }
    fn mul(&mut self, i: usize, j: usize) {
        self.mul_to(i, i, j);
    }
    // (x y)˙ = ẋ y + ẏ x
    fn mul_to(&mut self, i: usize, j: usize, k: usize) {
        let (u0, u1) = (self.u(0), self.u(1));
        self.m.mul_to(u0, self.d(j), self.v(k));
        self.m.mul_to(u1, self.d(k), self.v(j));
        self.m.add(u0, u1);
        self.m.mul_to(self.v(i), self.v(j), self.v(k));
        self.m.copy(self.d(i), u0);
    }
    // (x / y)˙ = (ẋ y − ẏ x) / y²
    fn div_to(&mut self, i: usize, j: usize, k: usize) {
        let (u0, u1, u2) = (self.u(0), self.u(1), self.u(2));
        self.m.recip_to(u2, self.v(k));
        self.m.mul_to(u0, self.d(j), self.v(k));
        self.m.mul_to(u1, self.d(k), self.v(j));
        self.m.sub(u0, u1);
        self.m.mul(u0, u2);
        self.m.mul(u0, u2);
        self.m.mul_to(self.v(i), self.v(j), u2);
        self.m.copy(self.d(i), u0);
    }
    // (1 / x)˙ = −ẋ / x²
    fn recip_to(&mut self, i: usize, j: usize) {
        let (u0, u1) = (self.u(0), self.u(1));
        self.m.recip_to(u0, self.v(j));
        self.m.mul_to(u1, u0, u0);
        self.m.neg(u1);
        self.m.mul_to(self.d(i), self.d(j), u1);
        self.m.copy(self.v(i), u0);
    }
    fn scale(&mut self, i: usize, c: f64) {
        self.m.scale(self.v(i), c);
        self.m.scale(self.d(i), c);
    }
    fn div_by(&mut self, i: usize, c: f64) {
        self.m.div_by(self.v(i), c);
        self.m.div_by(self.d(i), c);
    }
    fn shift(&mut self, i: usize, c: f64) {
        self.m.shift(self.v(i), c);
    }
    fn func(&mut self, i: usize, f: Func) {
        let u0 = self.u(0);
        match f {
            // ½ / √x
            Func::Sqrt => {
                self.m.func(self.v(i), Func::Sqrt);
                self.m.recip_to(u0, self.v(i));
                self.m.scale(u0, 0.5);
                self.times(i, 0);
            }
            Func::Sin => {
                self.load(0, i);
                self.m.func(u0, Func::Cos);
                self.times(i, 0);
                self.m.func(self.v(i), Func::Sin);
            }
            Func::Cos => {
                self.load(0, i);
                self.m.func(u0, Func::Sin);
                self.m.neg(u0);
                self.times(i, 0);
                self.m.func(self.v(i), Func::Cos);
            }
            // 1 + tan²x
            Func::Tan => {
                self.m.func(self.v(i), Func::Tan);
                self.m.mul_to(u0, self.v(i), self.v(i));
                self.m.shift(u0, 1.0);
                self.times(i, 0);
            }
            Func::Asin | Func::Acos => {
                self.inverse_root_of_one_minus_square(0, i);
                if f == Func::Acos {
                    self.m.neg(u0);
                }
                self.times(i, 0);
                self.m.func(self.v(i), f);
            }
            // 1 / (1 + x²)
            Func::Atan => {
                self.m.mul_to(u0, self.v(i), self.v(i));
                self.m.shift(u0, 1.0);
                self.m.recip_to(u0, u0);
                self.times(i, 0);
                self.m.func(self.v(i), Func::Atan);
            }
            Func::Exp => {
                self.m.func(self.v(i), Func::Exp);
                self.m.mul(self.d(i), self.v(i));
            }
            Func::Ln => {
                self.m.recip_to(u0, self.v(i));
                self.times(i, 0);
                self.m.func(self.v(i), Func::Ln);
            }
            // the sign of the value, as `abs` takes it
            Func::Abs => {
                if self.m.sign_negative(self.v(i)) {
                    self.m.neg(self.d(i));
                }
                self.m.func(self.v(i), Func::Abs);
            }
            // whole turns taken off: the derivative is 1
            Func::Wrap => self.m.func(self.v(i), Func::Wrap),
        }
    }
    // (xⁿ)˙ = n xⁿ⁻¹ ẋ
    fn powi(&mut self, i: usize, n: i32) {
        match n {
            0 => self.m.constant(self.d(i), 0.0),
            1 => {}
            _ => {
                let u0 = self.u(0);
                self.load(0, i);
                self.m.powi(u0, n - 1);
                self.m.scale(u0, n as f64);
                self.times(i, 0);
            }
        }
        self.m.powi(self.v(i), n);
    }
    // (xᵖ)˙ = p xᵖ⁻¹ ẋ
    fn powf(&mut self, i: usize, p: f64) {
        if p == 0.0 {
            self.m.constant(self.d(i), 0.0);
        } else {
            let u0 = self.u(0);
            self.load(0, i);
            self.m.powf(u0, p - 1.0);
            self.m.scale(u0, p);
            self.times(i, 0);
        }
        self.m.powf(self.v(i), p);
    }
    // z = exp(y ln x): ż = z (ẏ ln x + y ẋ / x)
    fn pow_to(&mut self, i: usize, j: usize, k: usize) {
        let (u0, u1, u2, u3) = (self.u(0), self.u(1), self.u(2), self.u(3));
        self.m.copy(u0, self.v(j));
        self.m.func(u0, Func::Ln);
        self.m.mul_to(u1, u0, self.v(k));
        self.m.func(u1, Func::Exp);
        self.m.mul_to(u2, self.d(k), u0);
        self.m.recip_to(u3, self.v(j));
        self.m.mul(u3, self.d(j));
        self.m.mul(u3, self.v(k));
        self.m.add(u2, u3);
        self.m.mul(u2, u1);
        self.m.copy(self.v(i), u1);
        self.m.copy(self.d(i), u2);
    }
    // atan2(y, x)˙ = (x ẏ − y ẋ) / (x² + y²)
    fn atan2_to(&mut self, i: usize, j: usize, k: usize) {
        let (u0, u1, u2) = (self.u(0), self.u(1), self.u(2));
        self.m.mul_to(u0, self.v(k), self.v(k));
        self.m.mul_to(u1, self.v(j), self.v(j));
        self.m.add(u0, u1);
        self.m.recip_to(u0, u0);
        self.m.mul_to(u1, self.v(k), self.d(j));
        self.m.mul_to(u2, self.v(j), self.d(k));
        self.m.sub(u1, u2);
        self.m.mul(u1, u0);
        self.m.atan2_to(u2, self.v(j), self.v(k));
        self.m.copy(self.v(i), u2);
        self.m.copy(self.d(i), u1);
    }
    fn sign_negative(&self, i: usize) -> bool {
        self.m.sign_negative(self.v(i))
    }
}

#[cfg(test)]
mod tests {
    use super::super::VExpr;
    use super::super::tape::tests::lookup;
    use nalgebra::{U1, U2};
    use num_dual::{Dual, Dual2SVec, Dual64, DualNum};

    /// Every operation and function the language has, in vector expressions of `q` and `t`.
    const EXPRESSIONS: [(&str, usize); 5] = [
        (
            "[sqrt(mu + 3) * sin(X.x), cos(X.y) / (2 + tan(X.z/4)), asin(X.x/3) + acos(X.y/5) - atan(mu)]",
            3,
        ),
        (
            "[exp(X.x/2) * ln(X.z), abs(X.x - 2) + wrap(7*mu) - abs(mu), atan2(X.y, -X.x) + X.z**2.5 + mu**3 + X.z**mu + X.x**0]",
            3,
        ),
        (
            "cross(X, [1, 2, 3]) + unit(X)*norm(X) + dot(X, X)*w + cross([0, 1, 1], X) + 2/X.z*X - t*X",
            3,
        ),
        (
            "cross(X*t, w*mu) - [1, 0, 2] + dot(X, [3, 0, 1])*X/(1 + t**2) + 1/mu*[t, X.y**2, -X.z]",
            3,
        ),
        ("perp(X)/mu + X*t", 2),
    ];

    /// The value and tangent of one run on (value, tangent) pairs equal the two parts of a run
    /// on dual numbers over the same type, to round-off.
    fn agree<D: DualNum<Primitive = f64> + Copy>(
        lift: impl Fn(f64, usize) -> D,
        parts: impl Fn(D) -> Vec<f64>,
        tol: f64,
    ) {
        let (q, dq, t, dt) = ([0.7, -1.3, 2.1, 0.4], [0.3, 0.5, -0.2, 1.1], 0.6, 1.0);
        let qd: Vec<D> = (0..4).map(|j| lift(q[j], j)).collect();
        let dqd: Vec<D> = (0..4).map(|j| lift(dq[j], j + 1)).collect();
        let (td, dtd) = (lift(t, 2), lift(dt, 0));
        for (text, dim) in EXPRESSIONS {
            let e = VExpr::parse(text, dim, &lookup).unwrap();
            let (x, dx) = e.value_and_tangent(&|j| qd[j], &|j| dqd[j], td, dtd);
            let pairs = |j: usize| Dual::new(qd[j], dqd[j]);
            let y = e.eval_vector::<Dual<D>>(&pairs, Dual::new(td, dtd));
            for k in 0..3 {
                let close = |a: D, b: D| {
                    let (a, b) = (parts(a), parts(b));
                    a.iter()
                        .zip(&b)
                        .all(|(a, b)| (a - b).abs() <= tol * (1.0 + b.abs()))
                };
                assert!(close(x[k], y[k].re), "{text}: value {k}");
                assert!(close(dx[k], y[k].eps), "{text}: tangent {k}");
                assert!(dx[k].re().is_finite() && dx[k].re() != 0.0, "{text}: {k}");
            }
        }
    }

    #[test]
    fn tangents_agree_with_dual_numbers() {
        agree::<f64>(|x, _| x, |x| vec![x], 1e-14);
        let dual = |x: Dual64| vec![x.re, x.eps];
        agree(|x, j| Dual64::new(x, 0.1 * j as f64 + 0.2), dual, 1e-13);
        // a second-order number in two directions, as the AD passes use them
        type D2 = Dual2SVec<f64, 2>;
        let second = |x: D2| {
            let (g, h) = (x.v1.unwrap_generic(U1, U2), x.v2.unwrap_generic(U2, U2));
            [x.re]
                .into_iter()
                .chain(g.iter().copied())
                .chain(h.iter().copied())
                .collect()
        };
        let seed = |x: f64, j: usize| D2::from_re(x).derivative(j % 2) * (1.0 + 0.1 * j as f64);
        agree(seed, second, 1e-12);
    }
}
