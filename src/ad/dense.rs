//! Dual numbers whose parts are always present: the second-order `Dense2` (num-dual's
//! `Dual2Vec` with each derivative part a plain matrix instead of an `Option` of one), the
//! hyper-dual `DenseHyper` (`HyperDualVec`'s) and the first-order `Dense1` (`DualVec`'s).
//!
//! num-dual skips a part that is structurally zero (`None`), which pays when many inputs are
//! constants; but LLVM does not fold the `Option` tests once a term's values no longer fit in
//! registers, and a potential's Hessian on a few seeds then spends much of its time on them
//! (benches/README.md, "Dense second-order numbers for the potential's Hessian"). `Dense2`
//! computes every part, branch-free:
//!
//! ```text
//! x = x₀ + ε xᵢ' + ½ ε² xᵢⱼ'',   (xy)'' = x₀ y'' + x'ᵀ y' + y'ᵀ x' + x'' y₀,
//! f(x)'' = f'(x₀) x'' + f''(x₀) x'ᵀ x'
//! ```
//!
//! The arithmetic, the elementary functions and the `DualNum` implementation come from
//! num-dual's own macros (`impl_dual!`, `impl_second_derivatives!`), instantiated on the
//! local [`Derivative`], a dense stand-in for num-dual's.

use nalgebra::allocator::Allocator;
use nalgebra::{Const, DefaultAllocator, Dim, OMatrix, Scalar, U1};
use num_dual::{
    DualNum, DualNumFloat, DualStruct, chain_rule, first, forward_binop, impl_add_sub_rem,
    impl_assign_ops, impl_comparisons, impl_derivatives, impl_dual, impl_dual_struct,
    impl_first_derivatives, impl_float_const, impl_from_f, impl_from_primitive, impl_inv,
    impl_iterator, impl_neg, impl_num, impl_scalar_op, impl_second_derivatives, impl_signed,
    impl_zero_one, second, third, zeroth,
};
use num_traits::{FloatConst, FromPrimitive, Inv, Num, One, Signed, Zero};
use std::fmt;
use std::iter::{Product, Sum};
use std::marker::PhantomData;
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

/// A derivative part that is always present (a zero matrix where num-dual has `None`).
#[derive(Clone, Debug, PartialEq)]
pub struct Derivative<T: Scalar, R: Dim, C: Dim>(OMatrix<T, R, C>)
where
    DefaultAllocator: Allocator<R, C>;

impl<T: Scalar + Copy, const R: usize, const C: usize> Copy for Derivative<T, Const<R>, Const<C>> {}

impl<T: DualNum, R: Dim, C: Dim> Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    /// The zero part (num-dual's `None`). Only static sizes occur here.
    #[inline]
    pub fn none() -> Self {
        let n = |d: Option<usize>| d.expect("dense dual numbers have static sizes");
        let (r, c) = (
            R::from_usize(n(R::try_to_usize())),
            C::from_usize(n(C::try_to_usize())),
        );
        Self(OMatrix::from_element_generic(r, c, T::zero()))
    }

    /// The unit part of variable `i`.
    #[inline]
    pub fn derivative_generic(r: R, c: C, i: usize) -> Self {
        let mut m = OMatrix::from_element_generic(r, c, T::zero());
        m[i] = T::one();
        Self(m)
    }

    /// The matrix.
    #[inline]
    pub fn unwrap_generic(self, _r: R, _c: C) -> OMatrix<T, R, C> {
        self.0
    }

    /// `selfᵀ other`.
    #[inline]
    pub fn tr_mul<C2: Dim>(&self, other: &Derivative<T, R, C2>) -> Derivative<T, C, C2>
    where
        DefaultAllocator: Allocator<R, C2> + Allocator<C, C2>,
    {
        let (r, c) = self.0.shape_generic();
        let c2 = other.0.shape_generic().1;
        Derivative(OMatrix::from_fn_generic(c, c2, |i, j| {
            let mut s = T::zero();
            for k in 0..r.value() {
                s += self.0[(k, i)].clone() * other.0[(k, j)].clone();
            }
            s
        }))
    }

    /// Writes ` + part·symbol`.
    pub fn fmt(&self, f: &mut fmt::Formatter, symbol: &str) -> fmt::Result {
        write!(f, " + {}{symbol}", self.0)
    }
}

impl<T: DualNum, R: Dim, C: Dim> Mul<T> for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Output = Self;
    #[inline]
    fn mul(self, rhs: T) -> Self {
        Self(self.0.map(|x| x * rhs.clone()))
    }
}

impl<T: DualNum, R: Dim, C: Dim> Mul<T> for &Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Output = Derivative<T, R, C>;
    #[inline]
    fn mul(self, rhs: T) -> Derivative<T, R, C> {
        Derivative(self.0.map(|x| x * rhs.clone()))
    }
}

impl<T: DualNum, R: Dim, C: Dim> Mul<&T> for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Output = Self;
    #[inline]
    fn mul(self, rhs: &T) -> Self {
        Self(self.0.map(|x| x * rhs.clone()))
    }
}

/// The matrix product of two parts (`ε₁ ε₂` of a hyper-dual number: an outer product).
impl<T: DualNum, R: Dim, K: Dim, C: Dim> Mul<&Derivative<T, K, C>> for &Derivative<T, R, K>
where
    DefaultAllocator: Allocator<R, K> + Allocator<K, C> + Allocator<R, C>,
{
    type Output = Derivative<T, R, C>;
    #[inline]
    fn mul(self, rhs: &Derivative<T, K, C>) -> Derivative<T, R, C> {
        let (r, k) = self.0.shape_generic();
        let c = rhs.0.shape_generic().1;
        Derivative(OMatrix::from_fn_generic(r, c, |i, j| {
            let mut s = T::zero();
            for l in 0..k.value() {
                s += self.0[(i, l)].clone() * rhs.0[(l, j)].clone();
            }
            s
        }))
    }
}

impl<T: DualNum, R: Dim, C: Dim> Add for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Self(self.0.zip_map(&rhs.0, |a, b| a + b))
    }
}

impl<T: DualNum, R: Dim, C: Dim> Add<&Derivative<T, R, C>> for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Output = Self;
    #[inline]
    fn add(self, rhs: &Self) -> Self {
        Self(self.0.zip_map(&rhs.0, |a, b| a + b))
    }
}

impl<T: DualNum, R: Dim, C: Dim> Sub for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Self(self.0.zip_map(&rhs.0, |a, b| a - b))
    }
}

impl<T: DualNum, R: Dim, C: Dim> Sub<&Derivative<T, R, C>> for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Output = Self;
    #[inline]
    fn sub(self, rhs: &Self) -> Self {
        Self(self.0.zip_map(&rhs.0, |a, b| a - b))
    }
}

impl<T: DualNum, R: Dim, C: Dim> Neg for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self(self.0.map(|x| -x))
    }
}

impl<T: DualNum, R: Dim, C: Dim> AddAssign for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    #[inline]
    fn add_assign(&mut self, rhs: Self) {
        self.0.zip_apply(&rhs.0, |a, b| *a += b);
    }
}

impl<T: DualNum, R: Dim, C: Dim> SubAssign for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    #[inline]
    fn sub_assign(&mut self, rhs: Self) {
        self.0.zip_apply(&rhs.0, |a, b| *a -= b);
    }
}

impl<T: DualNum, R: Dim, C: Dim> MulAssign<T> for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    #[inline]
    fn mul_assign(&mut self, rhs: T) {
        self.0.apply(|a| *a *= rhs.clone());
    }
}

impl<T: DualNum, R: Dim, C: Dim> DivAssign<T> for Derivative<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    #[inline]
    fn div_assign(&mut self, rhs: T) {
        self.0.apply(|a| *a /= rhs.clone());
    }
}

/// A second-order dual number on `D` variables with dense parts: value, gradient (a row) and
/// Hessian (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Dense2<T: Scalar, D: Dim>
where
    DefaultAllocator: Allocator<U1, D> + Allocator<D, D>,
{
    /// The value.
    pub re: T,
    /// The gradient (1 × D).
    pub v1: Derivative<T, U1, D>,
    /// The Hessian (D × D).
    pub v2: Derivative<T, D, D>,
}

impl<T: Scalar + Copy, const N: usize> Copy for Dense2<T, Const<N>> {}

/// [`Dense2`] on `N` variables of `f64`.
pub type Dense2S<const N: usize> = Dense2<f64, Const<N>>;

impl<T: DualNum, D: Dim> Dense2<T, D>
where
    DefaultAllocator: Allocator<U1, D> + Allocator<D, D>,
{
    /// From the three parts.
    #[inline]
    pub fn new(re: T, v1: Derivative<T, U1, D>, v2: Derivative<T, D, D>) -> Self {
        Self { re, v1, v2 }
    }

    /// A constant.
    #[inline]
    pub fn from_re(re: T) -> Self {
        Self::new(re, Derivative::none(), Derivative::none())
    }

    /// `f(self)` from `f`, `f'`, `f''` at the value.
    #[inline]
    fn chain_rule(&self, f0: T, f1: T, f2: T) -> Self {
        Self::new(
            f0,
            &self.v1 * f1.clone(),
            &self.v2 * f1 + self.v1.tr_mul(&self.v1) * f2,
        )
    }
}

impl<T: DualNum, const N: usize> Dense2<T, Const<N>> {
    /// Variable `index`: its gradient part the unit row `e_index`.
    #[inline]
    pub fn derivative(mut self, index: usize) -> Self {
        self.v1 = Derivative::derivative_generic(U1, Const::<N>, index);
        self
    }
}

impl<T: DualNum, D: Dim> Mul<&Dense2<T, D>> for &Dense2<T, D>
where
    DefaultAllocator: Allocator<U1, D> + Allocator<D, D>,
{
    type Output = Dense2<T, D>;
    #[inline]
    fn mul(self, other: &Dense2<T, D>) -> Dense2<T, D> {
        Dense2::new(
            self.re.clone() * other.re.clone(),
            &other.v1 * self.re.clone() + &self.v1 * other.re.clone(),
            &other.v2 * self.re.clone()
                + self.v1.tr_mul(&other.v1)
                + other.v1.tr_mul(&self.v1)
                + &self.v2 * other.re.clone(),
        )
    }
}

impl<T: DualNum, D: Dim> Div<&Dense2<T, D>> for &Dense2<T, D>
where
    DefaultAllocator: Allocator<U1, D> + Allocator<D, D>,
{
    type Output = Dense2<T, D>;
    #[inline]
    fn div(self, other: &Dense2<T, D>) -> Dense2<T, D> {
        let inv = other.re.recip();
        let inv2 = inv.clone() * inv.clone();
        Dense2::new(
            self.re.clone() * inv.clone(),
            (&self.v1 * other.re.clone() - &other.v1 * self.re.clone()) * inv2.clone(),
            &self.v2 * inv.clone()
                - (&other.v2 * self.re.clone()
                    + self.v1.tr_mul(&other.v1)
                    + other.v1.tr_mul(&self.v1))
                    * inv2.clone()
                + other.v1.tr_mul(&other.v1)
                    * ((T::one() + T::one()) * self.re.clone() * inv2 * inv),
        )
    }
}

impl<T: DualNum, D: Dim> fmt::Display for Dense2<T, D>
where
    DefaultAllocator: Allocator<U1, D> + Allocator<D, D>,
{
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.re)?;
        self.v1.fmt(f, "ε1")?;
        self.v2.fmt(f, "ε1²")
    }
}

impl_second_derivatives!(Dense2, [v1, v2], [D], [U1, D], [D, D]);
impl_dual!(Dense2, [v1, v2], [D], [U1, D], [D, D]);

/// A hyper-dual number on `M` and `N` variables with dense parts: num-dual's `HyperDualVec`
/// without the `Option`s around its parts,
///
/// ```text
/// x = x₀ + ε₁ x₁ + ε₂ x₂ + ε₁ε₂ x₁₂,   (xy)₁₂ = x₀ y₁₂ + x₁ y₂ + y₁ x₂ + x₁₂ y₀,
/// f(x)₁₂ = f'(x₀) x₁₂ + f''(x₀) x₁ x₂
/// ```
///
/// Each operation is a few branch-free matrix operations, so the Newton pass of a term's
/// Rayleigh function inlines under cargo's default release profile, where `HyperDualVec`'s
/// operators stayed calls that copied their operands (benches/README.md, "The Newton pass on a
/// dense hyper-dual number").
#[derive(Clone, Debug)]
pub struct DenseHyper<T: Scalar, M: Dim, N: Dim>
where
    DefaultAllocator: Allocator<M> + Allocator<M, N> + Allocator<U1, N>,
{
    /// The value.
    pub re: T,
    /// The `ε₁` part (M × 1).
    pub eps1: Derivative<T, M, U1>,
    /// The `ε₂` part (1 × N).
    pub eps2: Derivative<T, U1, N>,
    /// The `ε₁ε₂` part (M × N).
    pub eps1eps2: Derivative<T, M, N>,
}

impl<T: Scalar + Copy, const M: usize, const N: usize> Copy for DenseHyper<T, Const<M>, Const<N>> {}

/// [`DenseHyper`] on `M` and `N` variables of `f64`.
pub type DenseHyperS<const M: usize, const N: usize> = DenseHyper<f64, Const<M>, Const<N>>;

impl<T: DualNum, M: Dim, N: Dim> DenseHyper<T, M, N>
where
    DefaultAllocator: Allocator<M> + Allocator<M, N> + Allocator<U1, N>,
{
    /// From the four parts.
    #[inline]
    pub fn new(
        re: T,
        eps1: Derivative<T, M, U1>,
        eps2: Derivative<T, U1, N>,
        eps1eps2: Derivative<T, M, N>,
    ) -> Self {
        Self {
            re,
            eps1,
            eps2,
            eps1eps2,
        }
    }

    /// A constant.
    #[inline]
    pub fn from_re(re: T) -> Self {
        Self::new(
            re,
            Derivative::none(),
            Derivative::none(),
            Derivative::none(),
        )
    }

    /// `f(self)` from `f`, `f'`, `f''` at the value.
    #[inline]
    fn chain_rule(&self, f0: T, f1: T, f2: T) -> Self {
        Self::new(
            f0,
            &self.eps1 * f1.clone(),
            &self.eps2 * f1.clone(),
            &self.eps1eps2 * f1 + &self.eps1 * &self.eps2 * f2,
        )
    }
}

impl<T: DualNum, const M: usize, const N: usize> DenseHyper<T, Const<M>, Const<N>> {
    /// Variable `index` of the first set: its `ε₁` part the unit vector `e_index`.
    #[inline]
    pub fn derivative1(mut self, index: usize) -> Self {
        self.eps1 = Derivative::derivative_generic(Const::<M>, U1, index);
        self
    }
}

impl<T: DualNum, M: Dim, N: Dim> Mul<&DenseHyper<T, M, N>> for &DenseHyper<T, M, N>
where
    DefaultAllocator: Allocator<M> + Allocator<M, N> + Allocator<U1, N>,
{
    type Output = DenseHyper<T, M, N>;
    #[inline]
    fn mul(self, other: &DenseHyper<T, M, N>) -> DenseHyper<T, M, N> {
        DenseHyper::new(
            self.re.clone() * other.re.clone(),
            &other.eps1 * self.re.clone() + &self.eps1 * other.re.clone(),
            &other.eps2 * self.re.clone() + &self.eps2 * other.re.clone(),
            &other.eps1eps2 * self.re.clone()
                + &self.eps1 * &other.eps2
                + &other.eps1 * &self.eps2
                + &self.eps1eps2 * other.re.clone(),
        )
    }
}

impl<T: DualNum, M: Dim, N: Dim> Div<&DenseHyper<T, M, N>> for &DenseHyper<T, M, N>
where
    DefaultAllocator: Allocator<M> + Allocator<M, N> + Allocator<U1, N>,
{
    type Output = DenseHyper<T, M, N>;
    #[inline]
    fn div(self, other: &DenseHyper<T, M, N>) -> DenseHyper<T, M, N> {
        let inv = other.re.recip();
        let inv2 = inv.clone() * inv.clone();
        DenseHyper::new(
            self.re.clone() * inv.clone(),
            (&self.eps1 * other.re.clone() - &other.eps1 * self.re.clone()) * inv2.clone(),
            (&self.eps2 * other.re.clone() - &other.eps2 * self.re.clone()) * inv2.clone(),
            &self.eps1eps2 * inv.clone()
                - (&other.eps1eps2 * self.re.clone()
                    + &self.eps1 * &other.eps2
                    + &other.eps1 * &self.eps2)
                    * inv2.clone()
                + &other.eps1
                    * &other.eps2
                    * ((T::one() + T::one()) * self.re.clone() * inv2 * inv),
        )
    }
}

impl<T: DualNum, M: Dim, N: Dim> fmt::Display for DenseHyper<T, M, N>
where
    DefaultAllocator: Allocator<M> + Allocator<M, N> + Allocator<U1, N>,
{
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.re)?;
        self.eps1.fmt(f, "ε1")?;
        self.eps2.fmt(f, "ε2")?;
        self.eps1eps2.fmt(f, "ε1ε2")
    }
}

impl_second_derivatives!(
    DenseHyper,
    [eps1, eps2, eps1eps2],
    [M, N],
    [M],
    [M, N],
    [U1, N]
);
impl_dual!(
    DenseHyper,
    [eps1, eps2, eps1eps2],
    [M, N],
    [M],
    [M, N],
    [U1, N]
);

/// A first-order dual number on `D` variables with a dense gradient: num-dual's `DualVec`
/// without the `Option` around its derivative part. Each operation is a few branch-free vector
/// operations, small enough to be inlined into a user's term under any build settings (cargo's
/// default release profile: 16 code-generation units, LLVM's default inlining thresholds),
/// where `DualVec`'s `Option` matches made nalgebra's operators on it and the user's energies
/// calls (benches/README.md, "Elements between two points, dense first-order numbers").
#[derive(Clone, Debug)]
pub struct Dense1<T: Scalar, D: Dim, Tag: Dim = Untagged>
where
    DefaultAllocator: Allocator<D>,
{
    /// The value.
    pub re: T,
    /// The gradient (D × 1).
    pub eps: Derivative<T, D, U1>,
    /// Which call site the number serves ([`Site`]); no data.
    site: PhantomData<Tag>,
}

impl<T: Scalar + Copy, const N: usize, Tag: Dim> Copy for Dense1<T, Const<N>, Tag> {}

/// [`Dense1`] on `N` variables of `f64`.
pub type Dense1S<const N: usize, Tag = Untagged> = Dense1<f64, Const<N>, Tag>;

/// The tag of a number not tied to a call site.
pub type Untagged = Const<0>;

/// A tag that makes [`Dense1`] a type of its own for one call site, named by `K` (a type only
/// that site uses). A user's energy instantiated on it has that one caller, so LLVM inlines it
/// there whatever its size (a function with one call site and local linkage always is), where
/// its instance on the untagged number, shared by every pass that calls it, stays a call under
/// LLVM's default threshold (benches/README.md, "A user's energy inlined at its one call
/// site"). The tag is a `Dim` only because num-dual's macros take a number's type parameters
/// as dimensions; it sizes nothing.
pub struct Site<K>(PhantomData<fn() -> K>);

impl<K> Clone for Site<K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K> Copy for Site<K> {}
impl<K> PartialEq for Site<K> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<K> fmt::Debug for Site<K> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("Site")
    }
}

// SAFETY: a dimension of value 0 at compile time and at run time (`try_to_usize` and `value`
// agree); no storage is ever sized by it.
unsafe impl<K: 'static> Dim for Site<K> {
    #[inline]
    fn try_to_usize() -> Option<usize> {
        Some(0)
    }
    #[inline]
    fn value(&self) -> usize {
        0
    }
    #[inline]
    fn from_usize(_: usize) -> Self {
        Site(PhantomData)
    }
}

impl<T: DualNum, D: Dim, Tag: Dim> Dense1<T, D, Tag>
where
    DefaultAllocator: Allocator<D>,
{
    /// From the two parts.
    #[inline]
    pub fn new(re: T, eps: Derivative<T, D, U1>) -> Self {
        Self {
            re,
            eps,
            site: PhantomData,
        }
    }

    /// A constant.
    #[inline]
    pub fn from_re(re: T) -> Self {
        Self::new(re, Derivative::none())
    }

    /// `f(self)` from `f`, `f'` at the value.
    #[inline]
    fn chain_rule(&self, f0: T, f1: T) -> Self {
        Self::new(f0, &self.eps * f1)
    }
}

impl<T: DualNum, const N: usize, Tag: Dim> Dense1<T, Const<N>, Tag> {
    /// Variable `index`: its gradient part the unit vector `e_index`.
    #[inline]
    pub fn derivative(mut self, index: usize) -> Self {
        self.eps = Derivative::derivative_generic(Const::<N>, U1, index);
        self
    }
}

impl<T: DualNum, D: Dim, Tag: Dim> Mul<&Dense1<T, D, Tag>> for &Dense1<T, D, Tag>
where
    DefaultAllocator: Allocator<D>,
{
    type Output = Dense1<T, D, Tag>;
    #[inline]
    fn mul(self, other: &Dense1<T, D, Tag>) -> Dense1<T, D, Tag> {
        Dense1::new(
            self.re.clone() * other.re.clone(),
            &self.eps * other.re.clone() + &other.eps * self.re.clone(),
        )
    }
}

impl<T: DualNum, D: Dim, Tag: Dim> Div<&Dense1<T, D, Tag>> for &Dense1<T, D, Tag>
where
    DefaultAllocator: Allocator<D>,
{
    type Output = Dense1<T, D, Tag>;
    #[inline]
    fn div(self, other: &Dense1<T, D, Tag>) -> Dense1<T, D, Tag> {
        let inv = other.re.recip();
        Dense1::new(
            self.re.clone() * inv.clone(),
            (&self.eps * other.re.clone() - &other.eps * self.re.clone()) * inv.clone() * inv,
        )
    }
}

impl<T: DualNum, D: Dim, Tag: Dim> fmt::Display for Dense1<T, D, Tag>
where
    DefaultAllocator: Allocator<D>,
{
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.re)?;
        self.eps.fmt(f, "ε")
    }
}

impl_first_derivatives!(Dense1, [eps], [D, Tag], [D]);
impl_dual!(Dense1, [eps], [D, Tag], [D]);

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::Dual2SVec;

    /// A function exercising products, quotients and elementary functions.
    fn f<D: DualNum<Primitive = f64> + Copy>(x: [D; 3]) -> D {
        let s = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
        let r = s.sqrt();
        (r - 1.0).powi(2) * 3.0 + x[0] * x[1] / (x[2] + 2.0) + (x[0] * 0.5).sin() * x[2].exp()
            - (s + 1.0).ln() / x[1].cosh()
    }

    #[test]
    fn hyper_dual_parts_equal_num_dual() {
        use num_dual::HyperDualSVec64 as HyperDualSVec;
        let x = [0.3, -0.7, 0.45];
        // as the Newton pass seeds them: eps1 on x, eps2 on x scaled by w (3 × 3 mixed part)
        let w = [0.25, -1.5, 0.75];
        let seed = |i: usize| {
            let mut a = DenseHyperS::<3, 3>::from_re(x[i]).derivative1(i);
            a.eps2 = Derivative::derivative_generic(U1, Const::<3>, i) * w[i];
            let b = HyperDualSVec::<3, 3>::from_re(x[i]).derivative1(i);
            let mut b = b.derivative2(i);
            b.eps2 *= w[i];
            (a, b)
        };
        let (a, b): (Vec<_>, Vec<_>) = (0..3).map(seed).unzip();
        let a = f([a[0], a[1], a[2]]);
        let b = f([b[0], b[1], b[2]]);
        assert_eq!(a.re, b.re);
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-14 * y.abs().max(1.0);
        let g = (a.eps1.0, b.eps1.unwrap_generic(Const::<3>, U1));
        let d = (a.eps2.0, b.eps2.unwrap_generic(U1, Const::<3>));
        let h = (
            a.eps1eps2.0,
            b.eps1eps2.unwrap_generic(Const::<3>, Const::<3>),
        );
        for i in 0..3 {
            assert!(
                close(g.0[i], g.1[i]) && close(d.0[i], d.1[i]),
                "{i}: {g:?} {d:?}"
            );
        }
        for i in 0..9 {
            assert!(close(h.0[i], h.1[i]), "{i}: {h:?}");
        }
        // the mixed part holds second derivatives, not zeros
        assert!(h.0.abs().max() > 0.1);
    }

    #[test]
    fn parts_equal_num_dual() {
        let x = [0.3, -0.7, 0.45];
        let a = f([0, 1, 2].map(|i| Dense2S::<3>::from_re(x[i]).derivative(i)));
        let b = f([0, 1, 2].map(|i| Dual2SVec::<f64, 3>::from_re(x[i]).derivative(i)));
        assert_eq!(a.re, b.re);
        let (g, h) = (a.v1.0, a.v2.0);
        let (gb, hb) = (
            b.v1.unwrap_generic(U1, Const::<3>),
            b.v2.unwrap_generic(Const::<3>, Const::<3>),
        );
        assert!((g - gb).abs().max() <= 1e-14 * gb.abs().max());
        assert!((h - hb).abs().max() <= 1e-14 * hb.abs().max());
        assert!((h - h.transpose()).abs().max() <= 1e-14 * hb.abs().max());
    }

    #[test]
    fn atan2_of_the_expressions_on_dense_numbers() {
        // θ = atan2(y, x) near and at x = 0: gradient (−y, x)/r², Hessian by hand
        for (y, x) in [
            (1.0, 0.0),
            (1.0, 1e-9),
            (-2.0, 3e-4),
            (0.5, -0.5),
            (0.0, -2.0),
        ] {
            let (r2, r4) = (x * x + y * y, (x * x + y * y) * (x * x + y * y));
            let xs = Dense2S::<2>::from_re(x).derivative(0);
            let ys = Dense2S::<2>::from_re(y).derivative(1);
            let d = crate::expr::exact::atan2(ys, xs);
            let (g, h) = (d.v1.0, d.v2.0);
            let g_hand = [-y / r2, x / r2];
            let h_hand = [2.0 * x * y / r4, (y * y - x * x) / r4, -2.0 * x * y / r4];
            let close = |a: f64, b: f64, s: f64| (a - b).abs() <= 1e-14 * s.max(b.abs());
            assert!(close(g[0], g_hand[0], 1.0 / r2) && close(g[1], g_hand[1], 1.0 / r2));
            assert!(close(h[(0, 0)], h_hand[0], 1.0 / r4) && close(h[(0, 1)], h_hand[1], 1.0 / r4));
            assert!(close(h[(1, 1)], h_hand[2], 1.0 / r4), "{y} {x}: {h}");
        }
    }
}
