//! The operator and `num-traits` implementations [`DualNum`](num_dual::DualNum) asks of
//! [`Taylor`]. Comparisons look at the value (coefficient 0) alone, as num-dual's do, so code
//! branches on a series as it would on its value.

use super::Taylor;
use num_dual::{DualStruct, Mappable};
use num_traits::{FromPrimitive, Inv, Num, One, Signed, Zero};
use std::cmp::Ordering;
use std::iter::{Product, Sum};
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

impl Taylor {
    /// `a − b·trunc(a₀/b₀)`: the remainder's series where it is smooth.
    fn rem_series(a: &Taylor, b: &Taylor) -> Taylor {
        let q = (a.c[0] / b.c[0]).trunc();
        Taylor::add_scaled(a, &b.scaled(q), -1.0)
    }
}

macro_rules! binary {
    ($tr:ident, $m:ident, $atr:ident, $am:ident, $f:expr) => {
        impl $tr<&Taylor> for &Taylor {
            type Output = Taylor;
            #[inline]
            fn $m(self, b: &Taylor) -> Taylor {
                $f(self, b)
            }
        }
        impl $tr<&Taylor> for Taylor {
            type Output = Taylor;
            #[inline]
            fn $m(self, b: &Taylor) -> Taylor {
                $f(&self, b)
            }
        }
        impl $tr<Taylor> for &Taylor {
            type Output = Taylor;
            #[inline]
            fn $m(self, b: Taylor) -> Taylor {
                $f(self, &b)
            }
        }
        impl $tr for Taylor {
            type Output = Taylor;
            #[inline]
            fn $m(self, b: Taylor) -> Taylor {
                $f(&self, &b)
            }
        }
        impl $tr<f64> for Taylor {
            type Output = Taylor;
            #[inline]
            fn $m(self, b: f64) -> Taylor {
                $f(&self, &Taylor::constant(b))
            }
        }
        impl $tr<f64> for &Taylor {
            type Output = Taylor;
            #[inline]
            fn $m(self, b: f64) -> Taylor {
                $f(self, &Taylor::constant(b))
            }
        }
        impl $atr for Taylor {
            #[inline]
            fn $am(&mut self, b: Taylor) {
                *self = $f(self, &b);
            }
        }
        impl $atr<&Taylor> for Taylor {
            #[inline]
            fn $am(&mut self, b: &Taylor) {
                *self = $f(self, b);
            }
        }
        impl $atr<f64> for Taylor {
            #[inline]
            fn $am(&mut self, b: f64) {
                *self = $f(self, &Taylor::constant(b));
            }
        }
    };
}

binary!(Add, add, AddAssign, add_assign, |a, b| Taylor::add_scaled(
    a, b, 1.0
));
binary!(Sub, sub, SubAssign, sub_assign, |a, b| Taylor::add_scaled(
    a, b, -1.0
));
binary!(Mul, mul, MulAssign, mul_assign, Taylor::mul_series);
binary!(Div, div, DivAssign, div_assign, Taylor::div_series);
binary!(Rem, rem, RemAssign, rem_assign, Taylor::rem_series);

impl Neg for Taylor {
    type Output = Taylor;
    #[inline]
    fn neg(self) -> Taylor {
        self.scaled(-1.0)
    }
}

impl Neg for &Taylor {
    type Output = Taylor;
    #[inline]
    fn neg(self) -> Taylor {
        self.scaled(-1.0)
    }
}

impl PartialEq for Taylor {
    fn eq(&self, other: &Taylor) -> bool {
        self.c[0] == other.c[0]
    }
}

impl PartialOrd for Taylor {
    fn partial_cmp(&self, other: &Taylor) -> Option<Ordering> {
        self.c[0].partial_cmp(&other.c[0])
    }
}

impl PartialEq<f64> for Taylor {
    fn eq(&self, other: &f64) -> bool {
        self.c[0] == *other
    }
}

impl PartialOrd<f64> for Taylor {
    fn partial_cmp(&self, other: &f64) -> Option<Ordering> {
        self.c[0].partial_cmp(other)
    }
}

impl Zero for Taylor {
    fn zero() -> Self {
        Taylor::constant(0.0)
    }
    fn is_zero(&self) -> bool {
        self.c[0] == 0.0
    }
}

impl One for Taylor {
    fn one() -> Self {
        Taylor::constant(1.0)
    }
    fn is_one(&self) -> bool {
        self.c[0] == 1.0
    }
}

impl Num for Taylor {
    type FromStrRadixErr = <f64 as Num>::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        f64::from_str_radix(s, radix).map(Taylor::constant)
    }
}

impl Signed for Taylor {
    fn abs(&self) -> Self {
        if self.c[0] < 0.0 { -self } else { *self }
    }
    fn abs_sub(&self, other: &Self) -> Self {
        if self.c[0] > other.c[0] {
            self - other
        } else {
            Taylor::zero()
        }
    }
    fn signum(&self) -> Self {
        Taylor::constant(if self.c[0] == 0.0 {
            0.0
        } else {
            self.c[0].signum()
        })
    }
    fn is_positive(&self) -> bool {
        self.c[0] > 0.0
    }
    fn is_negative(&self) -> bool {
        self.c[0] < 0.0
    }
}

impl Inv for Taylor {
    type Output = Taylor;
    fn inv(self) -> Taylor {
        Taylor::div_series(&Taylor::one(), &self)
    }
}

impl Sum for Taylor {
    fn sum<I: Iterator<Item = Taylor>>(iter: I) -> Taylor {
        iter.fold(Taylor::zero(), |s, x| s + x)
    }
}

impl<'a> Sum<&'a Taylor> for Taylor {
    fn sum<I: Iterator<Item = &'a Taylor>>(iter: I) -> Taylor {
        iter.fold(Taylor::zero(), |s, x| s + x)
    }
}

impl Product for Taylor {
    fn product<I: Iterator<Item = Taylor>>(iter: I) -> Taylor {
        iter.fold(Taylor::one(), |s, x| s * x)
    }
}

impl<'a> Product<&'a Taylor> for Taylor {
    fn product<I: Iterator<Item = &'a Taylor>>(iter: I) -> Taylor {
        iter.fold(Taylor::one(), |s, x| s * x)
    }
}

impl From<f64> for Taylor {
    fn from(x: f64) -> Self {
        Taylor::constant(x)
    }
}

impl FromPrimitive for Taylor {
    fn from_i64(n: i64) -> Option<Self> {
        Some(Taylor::constant(n as f64))
    }
    fn from_u64(n: u64) -> Option<Self> {
        Some(Taylor::constant(n as f64))
    }
    fn from_f64(x: f64) -> Option<Self> {
        Some(Taylor::constant(x))
    }
}

impl DualStruct for Taylor {
    type Real = f64;
    type Inner = f64;
    fn re(&self) -> f64 {
        self.c[0]
    }
    fn from_inner(inner: &f64) -> Self {
        Taylor::constant(*inner)
    }
}

impl Mappable<Taylor> for Taylor {
    type Output<O> = O;
    fn map_dual<M: Fn(Taylor) -> O, O>(self, f: M) -> O {
        f(self)
    }
}
