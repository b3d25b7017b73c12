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
//! `x.recip()`, …), so the values are the same to the bit — but for `atan2` and `powf`, which
//! are [`exact`]'s (num-dual's own derivatives are wrong near `x = 0`).

use super::sizes::MAX_SLOTS;
use super::{Func, apply};
use crate::expr::exact;
use num_dual::DualNum;
use std::mem::MaybeUninit;

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
    /// Whether the real part of `s[i]` carries a minus sign (as `abs` decides).
    fn sign_negative(&self, i: usize) -> bool;
}

/// A scratch store of numbers of type `D`, with the coordinates and time they are read from.
///
/// Its slots are never initialised as a whole — on nested duals a slot is kilobytes, and a
/// short expression (a load's `F(t)`) would spend more on clearing them than on its
/// arithmetic — so a bit per slot says which have been written. The interpreter reads only
/// slots it has written; an unwritten one would read as NaN.
pub(super) struct Scratch<'a, D> {
    s: &'a mut [MaybeUninit<D>],
    written: [u64; MAX_SLOTS / 64],
    q: &'a dyn Fn(usize) -> D,
    t: D,
}

impl<'a, D: DualNum<Primitive = f64> + Copy> Scratch<'a, D> {
    /// A store on `s` (at most [`MAX_SLOTS`] slots), nothing written.
    pub(super) fn new(s: &'a mut [MaybeUninit<D>], q: &'a dyn Fn(usize) -> D, t: D) -> Self {
        assert!(s.len() <= MAX_SLOTS, "a scratch store of {} slots", s.len());
        let written = [0; MAX_SLOTS / 64];
        Scratch { s, written, q, t }
    }

    fn is_written(&self, i: usize) -> bool {
        self.written[i / 64] >> (i % 64) & 1 == 1
    }

    /// The number in slot `i` (NaN if it was never written).
    pub(super) fn get(&self, i: usize) -> D {
        match self.is_written(i) {
            // SAFETY: the bit of slot `i` is set only by `set`, after the slot is written.
            true => unsafe { self.s[i].assume_init() },
            false => D::from(f64::NAN),
        }
    }

    fn set(&mut self, i: usize, x: D) {
        self.s[i].write(x);
        self.written[i / 64] |= 1 << (i % 64);
    }

    /// `s[i] = f(s[i])` in place (on NaN when unwritten).
    fn update(&mut self, i: usize, f: impl FnOnce(&mut D)) {
        if !self.is_written(i) {
            self.set(i, D::from(f64::NAN));
        }
        // SAFETY: slot `i` is written (just above, if it was not).
        f(unsafe { self.s[i].assume_init_mut() });
    }
}

impl<D: DualNum<Primitive = f64> + Copy> Slots for Scratch<'_, D> {
    fn coord(&mut self, i: usize, j: usize) {
        self.set(i, (self.q)(j));
    }
    fn time(&mut self, i: usize) {
        self.set(i, self.t);
    }
    fn constant(&mut self, i: usize, c: f64) {
        self.set(i, D::from(c));
    }
    fn copy(&mut self, i: usize, j: usize) {
        let x = self.get(j);
        self.set(i, x);
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
        self.set(i, self.get(j) * self.get(k));
    }
    fn div_to(&mut self, i: usize, j: usize, k: usize) {
        self.set(i, self.get(j) / self.get(k));
    }
    fn recip_to(&mut self, i: usize, j: usize) {
        self.set(i, self.get(j).recip());
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
        self.update(i, |x| *x = exact::powf(*x, p));
    }
    fn pow_to(&mut self, i: usize, j: usize, k: usize) {
        self.set(i, (self.get(j).ln() * self.get(k)).exp());
    }
    fn atan2_to(&mut self, i: usize, j: usize, k: usize) {
        self.set(i, exact::atan2(self.get(j), self.get(k)));
    }
    fn sign_negative(&self, i: usize) -> bool {
        self.is_written(i) && self.get(i).re().is_sign_negative()
    }
}
