//! Truncated Taylor series in time: the number type of the Taylor-series integrator.
//!
//! A [`Taylor`] holds the coefficients of `x(t₀ + τ) = x₀ + x₁ τ + x₂ τ² + …` known modulo
//! `τⁿ`. It implements [`DualNum`](num_dual::DualNum), so every energy a user writes (generic
//! over `D: DualNum<Primitive = f64> + Copy`) and every compiled expression program of a
//! mechanism file evaluates on it unchanged: evaluated along a trajectory's Taylor series, a
//! function gives its own Taylor series — and on num-dual's dual numbers over it
//! (`DualSVec<Taylor, N>`) its gradient's, whose derivative in time is the series' own
//! (Nedialkov & Pryce's DAETS evaluates its code list the same way).
//!
//! The arithmetic is the recurrences of automatic differentiation in Taylor mode (Griewank &
//! Walther, *Evaluating Derivatives*, ch. 13; Jorba & Zou, Experiment. Math. 14, 2005):
//!
//! ```text
//! (ab)ₖ = Σⱼ aⱼ bₖ₋ⱼ,           (a/b)ₖ = (aₖ − Σⱼ₌₁ᵏ bⱼ (a/b)ₖ₋ⱼ) / b₀,
//! c = f(a), c' = g(a) a'   ⇒   cₖ = (1/k) Σⱼ₌₁ᵏ j aⱼ gₖ₋ⱼ      (exp: g = c; sin, cos: g = ±cos, sin; …)
//! ```
//!
//! Two number types carry them. [`Taylor`] is a value: a whole series, each operation
//! computing all its coefficients at once (`O(n²)`). [`TaylorVar`] is a node of the tape being
//! recorded on this thread ([`SeriesTape`]): one evaluation records the operations, and sweeps
//! of the tape then give one more coefficient of every node at a time (`O(k)` for coefficient
//! `k`), so a quantity whose coefficients are found one by one — the motion's own series in the
//! Taylor-series integrator, each order solved from the last — costs `O(n²)` in all instead of
//! `O(n³)` (Nedialkov & Pryce's DAETS evaluates its code list the same way).
//!
//! A [`Taylor`] series carries how many coefficients are known (`n`, at most [`CAPACITY`]) and how many
//! may be nonzero (`deg ≤ n`): a constant is exact (`n` = [`CAPACITY`], one coefficient), so
//! `c·x` costs `n` products, not `n²/2`. A result knows as many coefficients as the least
//! known operand.
//!
//! ```
//! use lagrangian::expr::taylor::Taylor;
//! use num_dual::DualNum;
//! // exp(τ) = Σ τᵏ/k!, to order 10
//! let e = Taylor::variable(0.0, 11).exp();
//! assert!((e.coeff(10) - 1.0 / 3628800.0).abs() < 1e-20);
//! // sin² + cos² = 1 to every order
//! let x = Taylor::variable(0.7, 20);
//! let one = x.sin() * x.sin() + x.cos() * x.cos();
//! assert!((1..20).all(|k| one.coeff(k).abs() < 1e-15) && (one.coeff(0) - 1.0).abs() < 1e-15);
//! ```

mod functions;
mod tape;
#[cfg(test)]
mod tests;
mod traits;
mod var;

use functions::sph_j;
pub use tape::SeriesTape;
pub use var::{TaylorVar, series_of};

/// The most coefficients a series holds: Taylor series to order 23.
pub const CAPACITY: usize = 24;

/// A Taylor series in time known modulo `τⁿ` (see the module notes).
#[derive(Clone, Copy)]
pub struct Taylor {
    /// Coefficients; zero from `deg` on.
    c: [f64; CAPACITY],
    /// How many coefficients are known.
    n: u8,
    /// How many may be nonzero (`deg ≤ n`).
    deg: u8,
}

impl Taylor {
    /// The exact constant `x`.
    #[inline]
    pub fn constant(x: f64) -> Self {
        let mut c = [0.0; CAPACITY];
        c[0] = x;
        Taylor {
            c,
            n: CAPACITY as u8,
            deg: 1,
        }
    }

    /// `x₀ + τ` known to `n` coefficients (time, or the argument of a function whose series is
    /// wanted). `n` is clamped to `1..=CAPACITY`.
    pub fn variable(x0: f64, n: usize) -> Self {
        let n = n.clamp(1, CAPACITY);
        let mut s = Taylor::zeros(n);
        s.c[0] = x0;
        if n > 1 {
            s.c[1] = 1.0;
        }
        s.deg = n.min(2) as u8;
        s
    }

    /// The series with coefficients `coeffs`, known to `n` of them (those past `coeffs` are
    /// zero; those past `n` are dropped). `n` is clamped to `1..=CAPACITY`.
    pub fn new(coeffs: &[f64], n: usize) -> Self {
        let mut s = Taylor::zeros(n);
        let d = coeffs.len().min(s.n());
        s.c[..d].copy_from_slice(&coeffs[..d]);
        s.deg = d as u8;
        s
    }

    /// Zero, known to `n` coefficients (clamped to `1..=CAPACITY`).
    #[inline]
    pub fn zeros(n: usize) -> Self {
        Taylor {
            c: [0.0; CAPACITY],
            n: n.clamp(1, CAPACITY) as u8,
            deg: 0,
        }
    }

    /// How many coefficients are known.
    #[inline]
    pub fn n(&self) -> usize {
        self.n as usize
    }

    /// Coefficient `k` (`x⁽ᵏ⁾(t₀)/k!`); 0 past those that may be nonzero (also past `n`).
    #[inline]
    pub fn coeff(&self, k: usize) -> f64 {
        if k < CAPACITY { self.c[k] } else { 0.0 }
    }

    /// The known coefficients.
    pub fn coefficients(&self) -> &[f64] {
        &self.c[..self.n()]
    }

    /// Set coefficient `k < n` (raising the count of those that may be nonzero).
    pub fn set_coeff(&mut self, k: usize, x: f64) {
        if k < self.n() {
            self.c[k] = x;
            self.deg = self.deg.max(k as u8 + 1);
        }
    }

    /// The series known to `min(n, self.n)` coefficients (the rest dropped).
    pub fn truncate(mut self, n: usize) -> Self {
        let n = n.clamp(1, self.n());
        self.c[n..].iter_mut().for_each(|x| *x = 0.0);
        self.n = n as u8;
        self.deg = self.deg.min(n as u8);
        self
    }

    /// `d/dτ`: coefficient `k` is `(k + 1) x_{k+1}`, known to `n − 1` (at least 1).
    pub fn derivative(&self) -> Self {
        let mut s = Taylor::zeros(self.n().saturating_sub(1));
        let d = self.deg().saturating_sub(1).min(s.n());
        for k in 0..d {
            s.c[k] = (k + 1) as f64 * self.c[k + 1];
        }
        s.deg = d as u8;
        s
    }

    /// The sum `Σ xₖ τᵏ` at `τ` (Horner), over the known coefficients.
    pub fn eval(&self, tau: f64) -> f64 {
        self.c[..self.deg()]
            .iter()
            .rev()
            .fold(0.0, |s, &x| s * tau + x)
    }

    #[inline]
    fn deg(&self) -> usize {
        self.deg as usize
    }

    /// An empty result known to as many coefficients as the least known of `a` and `b`.
    #[inline]
    fn result2(a: &Taylor, b: &Taylor) -> Taylor {
        Taylor::zeros(a.n().min(b.n()))
    }

    /// `a + s·b` (`s` = ±1).
    #[inline]
    fn add_scaled(a: &Taylor, b: &Taylor, s: f64) -> Taylor {
        let mut r = Taylor::result2(a, b);
        let d = a.deg().max(b.deg()).min(r.n());
        for k in 0..d {
            r.c[k] = a.c[k] + s * b.c[k];
        }
        r.deg = d as u8;
        r
    }

    /// The Cauchy product.
    fn series_mul(a: &Taylor, b: &Taylor) -> Taylor {
        let mut r = Taylor::result2(a, b);
        if a.deg == 0 || b.deg == 0 {
            return r;
        }
        if a.deg == 1 {
            return b.scaled(a.c[0]).truncate(r.n());
        }
        if b.deg == 1 {
            return a.scaled(b.c[0]).truncate(r.n());
        }
        let (da, db) = (a.deg(), b.deg());
        let d = (da + db - 1).min(r.n());
        for k in 0..d {
            let lo = (k + 1).saturating_sub(db);
            let hi = k.min(da - 1);
            let mut s = 0.0;
            for i in lo..=hi {
                s += a.c[i] * b.c[k - i];
            }
            r.c[k] = s;
        }
        r.deg = d as u8;
        r
    }

    /// `a / b` by the recurrence `cₖ = (aₖ − Σⱼ₌₁ᵏ bⱼ cₖ₋ⱼ) / b₀`.
    fn series_div(a: &Taylor, b: &Taylor) -> Taylor {
        let n = a.n().min(b.n());
        if b.deg <= 1 {
            return a.scaled(1.0 / b.c[0]).truncate(n);
        }
        let mut r = Taylor::zeros(n);
        let inv = 1.0 / b.c[0];
        let db = b.deg();
        for k in 0..n {
            let mut s = a.c[k];
            for j in 1..=k.min(db - 1) {
                s -= b.c[j] * r.c[k - j];
            }
            r.c[k] = s * inv;
        }
        r.deg = n as u8;
        r
    }

    /// Every coefficient times `x`.
    #[inline]
    fn scaled(mut self, x: f64) -> Taylor {
        for k in 0..self.deg() {
            self.c[k] *= x;
        }
        self
    }

    /// A constant `x` known to `n` coefficients.
    #[inline]
    fn constant_n(x: f64, n: usize) -> Taylor {
        let mut s = Taylor::zeros(n);
        s.c[0] = x;
        s.deg = 1;
        s
    }
}

impl std::fmt::Debug for Taylor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Taylor({:?}, n = {})", &self.c[..self.deg()], self.n)
    }
}

impl std::fmt::Display for Taylor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.c[0])?;
        for k in 1..self.deg() {
            write!(f, " + {}τ^{k}", self.c[k])?;
        }
        write!(f, " + O(τ^{})", self.n)
    }
}
