//! The arithmetic of one number type on numbered scratch slots: the only part of a program's
//! evaluation compiled once per number type.
//!
//! The interpreter (`tape`) is ordinary code that runs the instructions, keeps the kinds
//! (scalar or vector) of its stack and registers, and composes vector operations of these
//! scalar ones; it reaches the number type through a `&mut dyn Slots`. Each number type thus
//! costs the build one copy of a handful of scalar operations instead of a copy of the whole
//! interpreter with every operation inlined into it (the toolkit evaluates expressions on some
//! two hundred dual number types: every element's derivative passes at every local size).
//! Every method performs exactly the operator a direct evaluation would (`x *= y`, `x * y`,
//! `x.recip()`, …), so the values are the same to the bit.

use super::{Func, apply};
use num_dual::DualNum;

/// Scalar operations on slot numbers `i`, `j`, `k` of a scratch store (`s[i]` below).
pub(super) trait Slots {
    /// `s[i] = q(j)`.
    fn coord(&mut self, i: usize, j: usize);
    /// `s[i] = t`.
    fn time(&mut self, i: usize);
    /// `s[i] = c`.
    fn constant(&mut self, i: usize, c: f64);
    /// `s[i] = s[j]`.
    fn copy(&mut self, i: usize, j: usize);
    /// `s[i] = −s[i]`.
    fn neg(&mut self, i: usize);
    /// `s[i] += s[j]`.
    fn add(&mut self, i: usize, j: usize);
    /// `s[i] −= s[j]`.
    fn sub(&mut self, i: usize, j: usize);
    /// `s[i] *= s[j]`.
    fn mul(&mut self, i: usize, j: usize);
    /// `s[i] = s[j] · s[k]`.
    fn mul_to(&mut self, i: usize, j: usize, k: usize);
    /// `s[i] = s[j] / s[k]`.
    fn div_to(&mut self, i: usize, j: usize, k: usize);
    /// `s[i] = 1 / s[j]`.
    fn recip_to(&mut self, i: usize, j: usize);
    /// `s[i] *= c`.
    fn scale(&mut self, i: usize, c: f64);
    /// `s[i] /= c`.
    fn div_by(&mut self, i: usize, c: f64);
    /// `s[i] += c`.
    fn shift(&mut self, i: usize, c: f64);
    /// `s[i] = f(s[i])`.
    fn func(&mut self, i: usize, f: Func);
    /// `s[i] = s[i]ⁿ`.
    fn powi(&mut self, i: usize, n: i32);
    /// `s[i] = s[i]^p`.
    fn powf(&mut self, i: usize, p: f64);
    /// `s[i] = exp(ln(s[j]) · s[k])`.
    fn pow_to(&mut self, i: usize, j: usize, k: usize);
    /// `s[i] = atan2(s[j], s[k])`.
    fn atan2_to(&mut self, i: usize, j: usize, k: usize);
}

/// A scratch store of numbers of type `D`, with the coordinates and time they are read from.
pub(super) struct Scratch<'a, D> {
    /// The slots: `None` until written (the interpreter reads only slots it has written; an
    /// unwritten one would read as NaN).
    pub(super) s: &'a mut [Option<D>],
    pub(super) q: &'a dyn Fn(usize) -> D,
    pub(super) t: D,
}

impl<D: DualNum<Primitive = f64> + Copy> Scratch<'_, D> {
    fn get(&self, i: usize) -> D {
        self.s[i].unwrap_or_else(|| D::from(f64::NAN))
    }

    /// `s[i] = f(s[i])` in place (a NaN-valued slot when unwritten).
    fn update(&mut self, i: usize, f: impl FnOnce(&mut D)) {
        let x = self.s[i].get_or_insert_with(|| D::from(f64::NAN));
        f(x);
    }
}

impl<D: DualNum<Primitive = f64> + Copy> Slots for Scratch<'_, D> {
    fn coord(&mut self, i: usize, j: usize) {
        self.s[i] = Some((self.q)(j));
    }
    fn time(&mut self, i: usize) {
        self.s[i] = Some(self.t);
    }
    fn constant(&mut self, i: usize, c: f64) {
        self.s[i] = Some(D::from(c));
    }
    fn copy(&mut self, i: usize, j: usize) {
        self.s[i] = self.s[j];
    }
    fn neg(&mut self, i: usize) {
        self.update(i, |x| *x = -*x);
    }
    fn add(&mut self, i: usize, j: usize) {
        let y = self.get(j);
        self.update(i, |x| *x += y);
    }
    fn sub(&mut self, i: usize, j: usize) {
        let y = self.get(j);
        self.update(i, |x| *x -= y);
    }
    fn mul(&mut self, i: usize, j: usize) {
        let y = self.get(j);
        self.update(i, |x| *x *= y);
    }
    fn mul_to(&mut self, i: usize, j: usize, k: usize) {
        self.s[i] = Some(self.get(j) * self.get(k));
    }
    fn div_to(&mut self, i: usize, j: usize, k: usize) {
        self.s[i] = Some(self.get(j) / self.get(k));
    }
    fn recip_to(&mut self, i: usize, j: usize) {
        self.s[i] = Some(self.get(j).recip());
    }
    fn scale(&mut self, i: usize, c: f64) {
        self.update(i, |x| *x *= c);
    }
    fn div_by(&mut self, i: usize, c: f64) {
        self.update(i, |x| *x /= c);
    }
    fn shift(&mut self, i: usize, c: f64) {
        self.update(i, |x| *x += c);
    }
    fn func(&mut self, i: usize, f: Func) {
        self.update(i, |x| *x = apply(f, *x));
    }
    fn powi(&mut self, i: usize, n: i32) {
        self.update(i, |x| *x = x.powi(n));
    }
    fn powf(&mut self, i: usize, p: f64) {
        self.update(i, |x| *x = x.powf(p));
    }
    fn pow_to(&mut self, i: usize, j: usize, k: usize) {
        self.s[i] = Some((self.get(j).ln() * self.get(k)).exp());
    }
    fn atan2_to(&mut self, i: usize, j: usize, k: usize) {
        self.s[i] = Some(self.get(j).atan2(self.get(k)));
    }
}
