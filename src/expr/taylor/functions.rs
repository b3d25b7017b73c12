//! The elementary functions on [`Taylor`] series, and its [`DualNum`] implementation.
//!
//! Each is one recurrence in `O(n²)` (see the module notes of [`super`]); functions whose
//! derivative is algebraic in their argument (`atan`, `asin`, …) integrate that derivative's
//! series ([`Taylor::lift`]). A constant argument gives a constant, in one evaluation.

use super::{CAPACITY, Taylor};
use num_dual::DualNum;
use num_traits::One;

impl Taylor {
    /// `c` with `c₀ = f0` and `c' = g a'`: `cₖ = (1/k) Σⱼ₌₁ᵏ j aⱼ gₖ₋ⱼ`, known to
    /// `min(n_a, n_g + 1)` coefficients.
    fn lift(&self, f0: f64, g: &Taylor) -> Taylor {
        let n = self.n().min(g.n() + 1);
        let mut r = Taylor::zeros(n);
        r.c[0] = f0;
        let da = self.deg();
        for k in 1..n {
            let mut s = 0.0;
            for j in 1..=k.min(da.saturating_sub(1)) {
                s += j as f64 * self.c[j] * g.c[k - j];
            }
            r.c[k] = s / k as f64;
        }
        r.deg = n as u8;
        r
    }

    /// `f(a₀)` as a constant when `self` is one (`None` otherwise).
    #[inline]
    fn constant_map(&self, f: impl Fn(f64) -> f64) -> Option<Taylor> {
        (self.deg <= 1).then(|| Taylor::constant_n(f(self.c[0]), self.n()))
    }

    /// `exp` (`c₀ = f0`, so that `exp_m1` shares it).
    fn exp_with(&self, f0: f64, e0: f64) -> Taylor {
        let n = self.n();
        let mut r = Taylor::zeros(n);
        r.c[0] = e0;
        let da = self.deg();
        for k in 1..n {
            let mut s = 0.0;
            for j in 1..=k.min(da.saturating_sub(1)) {
                s += j as f64 * self.c[j] * r.c[k - j];
            }
            r.c[k] = s / k as f64;
        }
        r.c[0] = f0;
        r.deg = n as u8;
        r
    }

    /// `(sin, cos)` (`hyperbolic`: `(sinh, cosh)`).
    fn sin_cos_series(&self, hyperbolic: bool) -> (Taylor, Taylor) {
        let x = self.c[0];
        let (s0, c0) = match hyperbolic {
            false => x.sin_cos(),
            true => (x.sinh(), x.cosh()),
        };
        let n = self.n();
        let (mut s, mut c) = (Taylor::zeros(n), Taylor::zeros(n));
        (s.c[0], c.c[0]) = (s0, c0);
        let sign = if hyperbolic { 1.0 } else { -1.0 };
        let da = self.deg();
        for k in 1..n {
            let (mut ss, mut cc) = (0.0, 0.0);
            for j in 1..=k.min(da.saturating_sub(1)) {
                let ja = j as f64 * self.c[j];
                ss += ja * c.c[k - j];
                cc += ja * s.c[k - j];
            }
            s.c[k] = ss / k as f64;
            c.c[k] = sign * cc / k as f64;
        }
        (s.deg, c.deg) = (n as u8, n as u8);
        (s, c)
    }

    /// `a^r` by `k a₀ cₖ = Σⱼ₌₀ᵏ⁻¹ (r(k − j) − j) aₖ₋ⱼ cⱼ` from `c₀ = f0` (`a₀ ≠ 0`).
    fn pow_series(&self, r: f64, f0: f64) -> Taylor {
        let n = self.n();
        let mut c = Taylor::zeros(n);
        c.c[0] = f0;
        let da = self.deg();
        let inv = 1.0 / self.c[0];
        for k in 1..n {
            let mut s = 0.0;
            for j in k.saturating_sub(da.saturating_sub(1))..k {
                s += (r * (k - j) as f64 - j as f64) * self.c[k - j] * c.c[j];
            }
            c.c[k] = s * inv / k as f64;
        }
        c.deg = n as u8;
        c
    }
}

impl DualNum for Taylor {
    type Primitive = f64;
    const NDERIV: usize = CAPACITY - 1;
    type InnerDual = f64;

    fn from_re(re: f64) -> Self {
        Taylor::constant(re)
    }
    fn scale(self, factor: &f64) -> Self {
        self.scaled(*factor)
    }
    fn recip(&self) -> Self {
        Taylor::series_div(&Taylor::one(), self)
    }
    fn powi(&self, n: i32) -> Self {
        if n == 0 {
            return Taylor::constant_n(1.0, self.n());
        }
        if let Some(c) = self.constant_map(|x| x.powi(n)) {
            return c;
        }
        if self.c[0] != 0.0 {
            return self.pow_series(n as f64, self.c[0].powi(n));
        }
        let p = powi_by_squaring(*self, Taylor::constant_n(1.0, self.n()), n.unsigned_abs());
        if n < 0 { p.recip() } else { p }
    }
    fn powf(&self, r: f64) -> Self {
        if r == 0.0 {
            return Taylor::constant_n(1.0, self.n());
        }
        if r.fract() == 0.0 && r.abs() <= 64.0 {
            return self.powi(r as i32);
        }
        if let Some(c) = self.constant_map(|x| x.powf(r)) {
            return c;
        }
        self.pow_series(r, self.c[0].powf(r))
    }
    fn sqrt(&self) -> Self {
        if let Some(c) = self.constant_map(f64::sqrt) {
            return c;
        }
        let n = self.n();
        let mut r = Taylor::zeros(n);
        r.c[0] = self.c[0].sqrt();
        let inv = 0.5 / r.c[0];
        for k in 1..n {
            let mut s = self.c[k];
            for j in 1..k {
                s -= r.c[j] * r.c[k - j];
            }
            r.c[k] = s * inv;
        }
        r.deg = n as u8;
        r
    }
    fn cbrt(&self) -> Self {
        if let Some(c) = self.constant_map(f64::cbrt) {
            return c;
        }
        self.pow_series(1.0 / 3.0, self.c[0].cbrt())
    }
    fn exp(&self) -> Self {
        if let Some(c) = self.constant_map(f64::exp) {
            return c;
        }
        let e = self.c[0].exp();
        self.exp_with(e, e)
    }
    fn exp2(&self) -> Self {
        (self * std::f64::consts::LN_2).exp()
    }
    fn exp_m1(&self) -> Self {
        if let Some(c) = self.constant_map(f64::exp_m1) {
            return c;
        }
        self.exp_with(self.c[0].exp_m1(), self.c[0].exp())
    }
    fn ln(&self) -> Self {
        if let Some(c) = self.constant_map(f64::ln) {
            return c;
        }
        let n = self.n();
        let mut r = Taylor::zeros(n);
        r.c[0] = self.c[0].ln();
        let inv = 1.0 / self.c[0];
        for k in 1..n {
            let mut s = 0.0;
            for j in 1..k {
                s += j as f64 * r.c[j] * self.c[k - j];
            }
            r.c[k] = (self.c[k] - s / k as f64) * inv;
        }
        r.deg = n as u8;
        r
    }
    fn log(&self, base: f64) -> Self {
        self.ln() / base.ln()
    }
    fn log2(&self) -> Self {
        self.ln() / std::f64::consts::LN_2
    }
    fn log10(&self) -> Self {
        self.ln() / std::f64::consts::LN_10
    }
    fn ln_1p(&self) -> Self {
        if let Some(c) = self.constant_map(f64::ln_1p) {
            return c;
        }
        self.lift(self.c[0].ln_1p(), &(self + 1.0).recip())
    }
    fn sin(&self) -> Self {
        self.sin_cos().0
    }
    fn cos(&self) -> Self {
        self.sin_cos().1
    }
    fn tan(&self) -> Self {
        let (s, c) = self.sin_cos();
        s / c
    }
    fn sin_cos(&self) -> (Self, Self) {
        match self.deg <= 1 {
            true => {
                let (s, c) = self.c[0].sin_cos();
                (
                    Taylor::constant_n(s, self.n()),
                    Taylor::constant_n(c, self.n()),
                )
            }
            false => self.sin_cos_series(false),
        }
    }
    fn asin(&self) -> Self {
        if let Some(c) = self.constant_map(f64::asin) {
            return c;
        }
        let g = (Taylor::one() - self * self).sqrt().recip();
        self.lift(self.c[0].asin(), &g)
    }
    fn acos(&self) -> Self {
        if let Some(c) = self.constant_map(f64::acos) {
            return c;
        }
        let g = -(Taylor::one() - self * self).sqrt().recip();
        self.lift(self.c[0].acos(), &g)
    }
    fn atan(&self) -> Self {
        if let Some(c) = self.constant_map(f64::atan) {
            return c;
        }
        self.lift(self.c[0].atan(), &(self * self + 1.0).recip())
    }
    fn atan2(&self, x: Self) -> Self {
        let y = self;
        let n = y.n().min(x.n());
        if y.deg <= 1 && x.deg <= 1 {
            return Taylor::constant_n(y.c[0].atan2(x.c[0]), n);
        }
        // c' = (x y' − y x') / (x² + y²)
        let w = (x * y.derivative() - *y * x.derivative()) / (x * x + y * y);
        let mut r = Taylor::zeros(n);
        r.c[0] = y.c[0].atan2(x.c[0]);
        for k in 1..n.min(w.n() + 1) {
            r.c[k] = w.c[k - 1] / k as f64;
        }
        r.deg = n as u8;
        r
    }
    fn sinh(&self) -> Self {
        self.sinh_cosh().0
    }
    fn cosh(&self) -> Self {
        self.sinh_cosh().1
    }
    fn tanh(&self) -> Self {
        let (s, c) = self.sinh_cosh();
        s / c
    }
    fn asinh(&self) -> Self {
        if let Some(c) = self.constant_map(f64::asinh) {
            return c;
        }
        let g = (self * self + 1.0).sqrt().recip();
        self.lift(self.c[0].asinh(), &g)
    }
    fn acosh(&self) -> Self {
        if let Some(c) = self.constant_map(f64::acosh) {
            return c;
        }
        let g = (self * self - 1.0).sqrt().recip();
        self.lift(self.c[0].acosh(), &g)
    }
    fn atanh(&self) -> Self {
        if let Some(c) = self.constant_map(f64::atanh) {
            return c;
        }
        let g = (Taylor::one() - self * self).recip();
        self.lift(self.c[0].atanh(), &g)
    }
    fn sph_j0(&self) -> Self {
        sph_j(*self, 0)
    }
    fn sph_j1(&self) -> Self {
        sph_j(*self, 1)
    }
    fn sph_j2(&self) -> Self {
        sph_j(*self, 2)
    }
}

impl Taylor {
    /// `(sinh, cosh)`.
    fn sinh_cosh(&self) -> (Taylor, Taylor) {
        match self.deg <= 1 {
            true => (
                Taylor::constant_n(self.c[0].sinh(), self.n()),
                Taylor::constant_n(self.c[0].cosh(), self.n()),
            ),
            false => self.sin_cos_series(true),
        }
    }
}

/// The spherical Bessel function `jₗ` on any series type: its power series near 0
/// (cancellation in the closed forms), the closed forms elsewhere.
pub(super) fn sph_j<D: DualNum<Primitive = f64> + Copy>(x: D, l: u32) -> D {
    if x.re().abs() < 1.0 {
        // jₗ(x) = xˡ Σₘ (−1)ᵐ x²ᵐ / (2ᵐ m! (2m + 2l + 1)!!), 14 terms: < 1e-20 for |x| < 1
        let mut coef = [0.0; 14];
        let mut dfact = (1..=l).fold(1.0, |p, i| p * (2 * i + 1) as f64);
        let mut c = 1.0 / dfact;
        for (m, y) in coef.iter_mut().enumerate() {
            *y = c;
            let m1 = (m + 1) as f64;
            dfact = 2.0 * m1 + 2.0 * l as f64 + 1.0;
            c *= -1.0 / (2.0 * m1 * dfact);
        }
        let z = x * x;
        let p = coef[..13]
            .iter()
            .rev()
            .fold(D::from(coef[13]), |s, &y| s * z + y);
        return p * x.powi(l as i32);
    }
    let (s, c) = x.sin_cos();
    match l {
        0 => s / x,
        1 => (s / x - c) / x,
        _ => {
            let x2 = x * x;
            (D::from(3.0) / x2 - 1.0) * s / x - c * 3.0 / x2
        }
    }
}

/// `xᵉ` by repeated squaring from `one` (for `x₀ = 0`, where the power recurrence divides by
/// `x₀`), on any series type.
pub(super) fn powi_by_squaring<D: DualNum<Primitive = f64> + Copy>(x: D, one: D, mut e: u32) -> D {
    let (mut base, mut r) = (x, one);
    while e > 0 {
        if e & 1 == 1 {
            r *= base;
        }
        e >>= 1;
        if e > 0 {
            base = base * base;
        }
    }
    r
}
