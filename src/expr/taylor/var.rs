//! [`TaylorVar`]: a number that records what is computed with it on this thread's
//! [`SeriesTape`], so that one evaluation gives the series of every result to any order (the
//! tape swept coefficient by coefficient, `O(K²)` per operation).

use super::functions::powi_by_squaring;
use super::tape::{CONST, Op, push};
use super::{CAPACITY, SeriesTape, sph_j};
use num_dual::DualNum;

/// A Taylor series in time as a node of the tape being recorded on this thread (see
/// [`SeriesTape`]), with its value (coefficient 0) at hand so that code branches on it as on a
/// number; a constant is no node. It implements [`DualNum`], so every energy a user writes and
/// every expression program records on it unchanged. What the tape gives:
///
/// ```
/// use lagrangian::expr::taylor::series_of;
/// use num_dual::DualNum;
/// // x(τ) = 0.7 + τ: sin² x + cos² x = 1 to every order, and (x²)' = 2x
/// let [one, slope] = series_of([&[0.7, 1.0]], 12, |[x]| {
///     [x.sin() * x.sin() + x.cos() * x.cos(), (x * x).derivative()]
/// });
/// assert!((one[0] - 1.0).abs() < 1e-15 && one[1..].iter().all(|c| c.abs() < 1e-15));
/// assert!((slope[0] - 1.4).abs() < 1e-15 && (slope[1] - 2.0).abs() < 1e-15);
/// ```
#[derive(Clone, Copy)]
pub struct TaylorVar {
    /// The node, or `CONST`.
    pub(super) node: u32,
    /// Coefficient 0 (NaN for a time derivative, whose value the recording does not know).
    pub(super) value: f64,
}

impl TaylorVar {
    /// The exact constant `x` (no node).
    #[inline]
    pub fn constant(x: f64) -> Self {
        TaylorVar {
            node: CONST,
            value: x,
        }
    }

    /// A new input of the recording under way, of value `x`: its coefficients are the
    /// caller's to write ([`SeriesTape::set`]).
    pub fn input(x: f64) -> Self {
        TaylorVar::record(Op::Input, x)
    }

    /// Whether this is a constant (no node).
    #[inline]
    pub fn is_constant(&self) -> bool {
        self.node == CONST
    }

    /// `d/dτ`: coefficient `k` is `(k + 1) x_{k+1}` (its value is not known while recording:
    /// NaN).
    pub fn derivative(&self) -> Self {
        match self.is_constant() {
            true => TaylorVar::constant(0.0),
            false => TaylorVar::record(Op::Shift(self.node), f64::NAN),
        }
    }

    #[inline]
    fn record(op: Op, value: f64) -> Self {
        TaylorVar {
            node: push(op),
            value,
        }
    }

    #[inline]
    pub(super) fn value(&self) -> f64 {
        self.value
    }

    /// `m·x + c`.
    fn affine(&self, m: f64, c: f64) -> Self {
        match () {
            _ if self.is_constant() => TaylorVar::constant(m * self.value + c),
            _ if m == 1.0 && c == 0.0 => *self,
            _ if m == 0.0 => TaylorVar::constant(c),
            _ => TaylorVar::record(Op::Affine { a: self.node, m, c }, m * self.value + c),
        }
    }

    pub(super) fn series_add(a: &Self, b: &Self) -> Self {
        match (a.is_constant(), b.is_constant()) {
            (_, true) => a.affine(1.0, b.value),
            (true, false) => b.affine(1.0, a.value),
            _ => TaylorVar::record(Op::Add(a.node, b.node), a.value + b.value),
        }
    }

    pub(super) fn series_sub(a: &Self, b: &Self) -> Self {
        match (a.is_constant(), b.is_constant()) {
            (_, true) => a.affine(1.0, -b.value),
            (true, false) => b.affine(-1.0, a.value),
            _ => TaylorVar::record(Op::Sub(a.node, b.node), a.value - b.value),
        }
    }

    pub(super) fn series_mul(a: &Self, b: &Self) -> Self {
        match (a.is_constant(), b.is_constant()) {
            (_, true) => a.affine(b.value, 0.0),
            (true, false) => b.affine(a.value, 0.0),
            _ => TaylorVar::record(Op::Mul(a.node, b.node), a.value * b.value),
        }
    }

    pub(super) fn series_div(a: &Self, b: &Self) -> Self {
        match (a.is_constant(), b.is_constant()) {
            (_, true) => a.affine(1.0 / b.value, 0.0),
            (true, false) if a.value == 0.0 => TaylorVar::constant(0.0),
            (true, false) => TaylorVar::record(
                Op::Recip {
                    a: b.node,
                    s: a.value,
                },
                a.value / b.value,
            ),
            _ => TaylorVar::record(Op::Div(a.node, b.node), a.value / b.value),
        }
    }

    /// `a − b·trunc(a₀/b₀)`: the remainder's series where it is smooth.
    pub(super) fn series_rem(a: &Self, b: &Self) -> Self {
        let q = (a.value / b.value).trunc();
        TaylorVar::series_sub(a, &b.affine(q, 0.0))
    }

    #[inline]
    pub(super) fn series_neg(&self) -> Self {
        self.affine(-1.0, 0.0)
    }

    /// `f` with `f₀ = f0`, `f' = g·x'`.
    fn lift(&self, f0: f64, g: TaylorVar) -> Self {
        match (self.is_constant(), g.is_constant()) {
            (true, _) => TaylorVar::constant(f0),
            (false, true) => self.affine(g.value, f0 - g.value * self.value),
            _ => TaylorVar::record(
                Op::Lift {
                    a: self.node,
                    g: g.node,
                    f0,
                },
                f0,
            ),
        }
    }

    /// `f(x)` for a constant, else the node `op(x)` of value `f(x₀)`.
    #[inline]
    fn unary(&self, f: impl Fn(f64) -> f64, op: impl Fn(u32) -> Op) -> Self {
        match self.is_constant() {
            true => TaylorVar::constant(f(self.value)),
            false => TaylorVar::record(op(self.node), f(self.value)),
        }
    }

    /// `(sin, cos)` (`hyperbolic`: `(sinh, cosh)`).
    fn sin_cos_pair(&self, hyperbolic: bool) -> (Self, Self) {
        let x = self.value;
        let (s, c) = match hyperbolic {
            false => x.sin_cos(),
            true => (x.sinh(), x.cosh()),
        };
        if self.is_constant() {
            return (TaylorVar::constant(s), TaylorVar::constant(c));
        }
        let sin = TaylorVar::record(
            Op::SinCos {
                a: self.node,
                hyperbolic,
            },
            s,
        );
        (sin, TaylorVar::record(Op::Cosine, c))
    }
}

impl DualNum for TaylorVar {
    type Primitive = f64;
    const NDERIV: usize = CAPACITY - 1;
    type InnerDual = f64;

    fn from_re(re: f64) -> Self {
        TaylorVar::constant(re)
    }
    fn scale(self, factor: &f64) -> Self {
        self.affine(*factor, 0.0)
    }
    fn recip(&self) -> Self {
        TaylorVar::series_div(&TaylorVar::constant(1.0), self)
    }
    fn powi(&self, n: i32) -> Self {
        match () {
            _ if n == 0 => TaylorVar::constant(1.0),
            _ if self.is_constant() || self.value != 0.0 => self.unary(
                |x| x.powi(n),
                |a| Op::Pow {
                    a,
                    r: n as f64,
                    cbrt: false,
                },
            ),
            _ => {
                let p = powi_by_squaring(*self, TaylorVar::constant(1.0), n.unsigned_abs());
                if n < 0 { p.recip() } else { p }
            }
        }
    }
    fn powf(&self, r: f64) -> Self {
        if r == 0.0 {
            return TaylorVar::constant(1.0);
        }
        if r.fract() == 0.0 && r.abs() <= 64.0 {
            return self.powi(r as i32);
        }
        self.unary(|x| x.powf(r), |a| Op::Pow { a, r, cbrt: false })
    }
    fn sqrt(&self) -> Self {
        self.unary(f64::sqrt, Op::Sqrt)
    }
    fn cbrt(&self) -> Self {
        self.unary(f64::cbrt, |a| Op::Pow {
            a,
            r: 1.0 / 3.0,
            cbrt: true,
        })
    }
    fn exp(&self) -> Self {
        self.unary(f64::exp, |a| Op::Exp {
            a,
            minus_one: false,
        })
    }
    fn exp2(&self) -> Self {
        (*self * std::f64::consts::LN_2).exp()
    }
    fn exp_m1(&self) -> Self {
        self.unary(f64::exp_m1, |a| Op::Exp { a, minus_one: true })
    }
    fn ln(&self) -> Self {
        self.unary(f64::ln, Op::Ln)
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
        self.lift(self.value.ln_1p(), (*self + 1.0).recip())
    }
    fn sin(&self) -> Self {
        self.sin_cos_pair(false).0
    }
    fn cos(&self) -> Self {
        self.sin_cos_pair(false).1
    }
    fn tan(&self) -> Self {
        let (s, c) = self.sin_cos_pair(false);
        s / c
    }
    fn sin_cos(&self) -> (Self, Self) {
        self.sin_cos_pair(false)
    }
    fn asin(&self) -> Self {
        let g = (TaylorVar::constant(1.0) - *self * *self).sqrt().recip();
        self.lift(self.value.asin(), g)
    }
    fn acos(&self) -> Self {
        let g = -(TaylorVar::constant(1.0) - *self * *self).sqrt().recip();
        self.lift(self.value.acos(), g)
    }
    fn atan(&self) -> Self {
        self.lift(self.value.atan(), (*self * *self + 1.0).recip())
    }
    /// `c' = (x y' − y x') / (x² + y²)`: the sum of two lifts, right where `x₀ = 0`.
    fn atan2(&self, x: Self) -> Self {
        let y = *self;
        let angle = y.value.atan2(x.value);
        if y.is_constant() && x.is_constant() {
            return TaylorVar::constant(angle);
        }
        let r2 = x * x + y * y;
        y.lift(angle, x / r2) + x.lift(0.0, -y / r2)
    }
    fn sinh(&self) -> Self {
        self.sin_cos_pair(true).0
    }
    fn cosh(&self) -> Self {
        self.sin_cos_pair(true).1
    }
    fn tanh(&self) -> Self {
        let (s, c) = self.sin_cos_pair(true);
        s / c
    }
    fn asinh(&self) -> Self {
        let g = (*self * *self + 1.0).sqrt().recip();
        self.lift(self.value.asinh(), g)
    }
    fn acosh(&self) -> Self {
        let g = (*self * *self - 1.0).sqrt().recip();
        self.lift(self.value.acosh(), g)
    }
    fn atanh(&self) -> Self {
        let g = (TaylorVar::constant(1.0) - *self * *self).recip();
        self.lift(self.value.atanh(), g)
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

impl std::fmt::Debug for TaylorVar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.is_constant() {
            true => write!(f, "TaylorVar(constant {})", self.value),
            false => write!(f, "TaylorVar(node {}, value {})", self.node, self.value),
        }
    }
}

impl std::fmt::Display for TaylorVar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} + O(τ)", self.value)
    }
}

/// The Taylor series, to `n` coefficients, of `f`'s results when its arguments are the series
/// `args` (each `x₀, x₁, …`; coefficients not given are zero): `f` runs once on
/// [`TaylorVar`]s, recorded, and the tape is swept coefficient by coefficient. See
/// [`TaylorVar`] for an example.
pub fn series_of<const I: usize, const O: usize>(
    args: [&[f64]; I],
    n: usize,
    f: impl FnOnce([TaylorVar; I]) -> [TaylorVar; O],
) -> [Vec<f64>; O] {
    let mut tape = SeriesTape::default();
    tape.begin();
    let x = args.map(|a| TaylorVar::input(a.first().copied().unwrap_or(0.0)));
    let y = f(x);
    tape.end();
    let outputs = y.map(|y| (y, 0));
    let inputs = x.map(|x| (x, None));
    let last = n.max(1) - 1;
    tape.prepare(last, &outputs, &inputs)
        .expect("inputs without unknowns");
    for (x, a) in x.iter().zip(args) {
        for (k, &c) in a.iter().enumerate() {
            tape.set(*x, k, c);
        }
    }
    for s in -(tape.max_lead() as isize)..=last as isize {
        tape.stage(s);
    }
    y.map(|y| (0..n).map(|k| tape.coeff(y, k)).collect())
}
