//! The operator and `num-traits` implementations [`DualNum`](num_dual::DualNum) asks of the
//! series types, [`Taylor`] and [`TaylorVar`], written once (`series_number!`) over each
//! type's own arithmetic (`series_add`, `series_sub`, `series_mul`, `series_div`,
//! `series_rem`, `series_neg`, `value`, `constant`). Comparisons look at the value
//! (coefficient 0) alone, as num-dual's do, so code branches on a series as it would on its
//! value.

use super::{Taylor, TaylorVar};
use num_dual::{DualStruct, Mappable};
use num_traits::{FromPrimitive, Inv, Num, One, Signed, Zero};
use std::cmp::Ordering;
use std::iter::{Product, Sum};
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

impl Taylor {
    /// `a − b·trunc(a₀/b₀)`: the remainder's series where it is smooth.
    fn series_rem(a: &Taylor, b: &Taylor) -> Taylor {
        let q = (a.c[0] / b.c[0]).trunc();
        Taylor::add_scaled(a, &b.scaled(q), -1.0)
    }
    #[inline]
    fn series_add(a: &Taylor, b: &Taylor) -> Taylor {
        Taylor::add_scaled(a, b, 1.0)
    }
    #[inline]
    fn series_sub(a: &Taylor, b: &Taylor) -> Taylor {
        Taylor::add_scaled(a, b, -1.0)
    }
    #[inline]
    fn series_neg(&self) -> Taylor {
        self.scaled(-1.0)
    }
    #[inline]
    fn value(&self) -> f64 {
        self.c[0]
    }
}

macro_rules! binary {
    ($T:ty, $tr:ident, $m:ident, $atr:ident, $am:ident, $f:path) => {
        impl $tr<&$T> for &$T {
            type Output = $T;
            #[inline]
            fn $m(self, b: &$T) -> $T {
                $f(self, b)
            }
        }
        impl $tr<&$T> for $T {
            type Output = $T;
            #[inline]
            fn $m(self, b: &$T) -> $T {
                $f(&self, b)
            }
        }
        impl $tr<$T> for &$T {
            type Output = $T;
            #[inline]
            fn $m(self, b: $T) -> $T {
                $f(self, &b)
            }
        }
        impl $tr for $T {
            type Output = $T;
            #[inline]
            fn $m(self, b: $T) -> $T {
                $f(&self, &b)
            }
        }
        impl $tr<f64> for $T {
            type Output = $T;
            #[inline]
            fn $m(self, b: f64) -> $T {
                $f(&self, &<$T>::constant(b))
            }
        }
        impl $tr<f64> for &$T {
            type Output = $T;
            #[inline]
            fn $m(self, b: f64) -> $T {
                $f(self, &<$T>::constant(b))
            }
        }
        impl $atr for $T {
            #[inline]
            fn $am(&mut self, b: $T) {
                *self = $f(self, &b);
            }
        }
        impl $atr<&$T> for $T {
            #[inline]
            fn $am(&mut self, b: &$T) {
                *self = $f(self, b);
            }
        }
        impl $atr<f64> for $T {
            #[inline]
            fn $am(&mut self, b: f64) {
                *self = $f(self, &<$T>::constant(b));
            }
        }
    };
}

/// Every trait `DualNum` asks of a series type but the functions.
macro_rules! series_number {
    ($T:ident) => {
        binary!($T, Add, add, AddAssign, add_assign, $T::series_add);
        binary!($T, Sub, sub, SubAssign, sub_assign, $T::series_sub);
        binary!($T, Mul, mul, MulAssign, mul_assign, $T::series_mul);
        binary!($T, Div, div, DivAssign, div_assign, $T::series_div);
        binary!($T, Rem, rem, RemAssign, rem_assign, $T::series_rem);

        impl Neg for $T {
            type Output = $T;
            #[inline]
            fn neg(self) -> $T {
                self.series_neg()
            }
        }

        impl Neg for &$T {
            type Output = $T;
            #[inline]
            fn neg(self) -> $T {
                self.series_neg()
            }
        }

        impl PartialEq for $T {
            fn eq(&self, other: &$T) -> bool {
                self.value() == other.value()
            }
        }

        impl PartialOrd for $T {
            fn partial_cmp(&self, other: &$T) -> Option<Ordering> {
                self.value().partial_cmp(&other.value())
            }
        }

        impl PartialEq<f64> for $T {
            fn eq(&self, other: &f64) -> bool {
                self.value() == *other
            }
        }

        impl PartialOrd<f64> for $T {
            fn partial_cmp(&self, other: &f64) -> Option<Ordering> {
                self.value().partial_cmp(other)
            }
        }

        impl Zero for $T {
            fn zero() -> Self {
                $T::constant(0.0)
            }
            fn is_zero(&self) -> bool {
                self.value() == 0.0
            }
        }

        impl One for $T {
            fn one() -> Self {
                $T::constant(1.0)
            }
            fn is_one(&self) -> bool {
                self.value() == 1.0
            }
        }

        impl Num for $T {
            type FromStrRadixErr = <f64 as Num>::FromStrRadixErr;
            fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
                f64::from_str_radix(s, radix).map($T::constant)
            }
        }

        impl Signed for $T {
            fn abs(&self) -> Self {
                if self.value() < 0.0 { -self } else { *self }
            }
            fn abs_sub(&self, other: &Self) -> Self {
                if self.value() > other.value() {
                    self - other
                } else {
                    $T::zero()
                }
            }
            fn signum(&self) -> Self {
                let x = self.value();
                $T::constant(if x == 0.0 { 0.0 } else { x.signum() })
            }
            fn is_positive(&self) -> bool {
                self.value() > 0.0
            }
            fn is_negative(&self) -> bool {
                self.value() < 0.0
            }
        }

        impl Inv for $T {
            type Output = $T;
            fn inv(self) -> $T {
                $T::series_div(&$T::one(), &self)
            }
        }

        impl Sum for $T {
            fn sum<I: Iterator<Item = $T>>(iter: I) -> $T {
                iter.fold($T::zero(), |s, x| s + x)
            }
        }

        impl<'a> Sum<&'a $T> for $T {
            fn sum<I: Iterator<Item = &'a $T>>(iter: I) -> $T {
                iter.fold($T::zero(), |s, x| s + x)
            }
        }

        impl Product for $T {
            fn product<I: Iterator<Item = $T>>(iter: I) -> $T {
                iter.fold($T::one(), |s, x| s * x)
            }
        }

        impl<'a> Product<&'a $T> for $T {
            fn product<I: Iterator<Item = &'a $T>>(iter: I) -> $T {
                iter.fold($T::one(), |s, x| s * x)
            }
        }

        impl From<f64> for $T {
            fn from(x: f64) -> Self {
                $T::constant(x)
            }
        }

        impl FromPrimitive for $T {
            fn from_i64(n: i64) -> Option<Self> {
                Some($T::constant(n as f64))
            }
            fn from_u64(n: u64) -> Option<Self> {
                Some($T::constant(n as f64))
            }
            fn from_f64(x: f64) -> Option<Self> {
                Some($T::constant(x))
            }
        }

        impl DualStruct for $T {
            type Real = f64;
            type Inner = f64;
            fn re(&self) -> f64 {
                self.value()
            }
            fn from_inner(inner: &f64) -> Self {
                $T::constant(*inner)
            }
        }

        impl Mappable<$T> for $T {
            type Output<O> = O;
            fn map_dual<M: Fn($T) -> O, O>(self, f: M) -> O {
                f(self)
            }
        }
    };
}

series_number!(Taylor);
series_number!(TaylorVar);
