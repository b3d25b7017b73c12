//! The program run on (value, tangent) pairs ([`Tangent`]): an expression's value and its
//! directional derivative from one pass of the interpreter (the rules in `tangent.rs`).

use super::Val;
use super::sizes::{BF, BIG, BM, CB, CS, FEW, SF, SM, SMALL, TANGENT_TEMPS, TEMPS};
use super::slots::Scratch;
use super::tangent::{DERIV, DT, Tangent};
use super::tape::{Kind, Program};
use num_dual::DualNum;
use std::mem::MaybeUninit;

impl Program {
    /// The value at coordinates `q(j)` and time `t` and its directional derivative `∂x/∂q · dq
    /// + ∂x/∂t · dt`, from one run on (value, tangent) pairs (`tangent.rs`).
    pub(super) fn run_tangent<D: DualNum<Primitive = f64> + Copy>(
        &self,
        q: &dyn Fn(usize) -> D,
        dq: &dyn Fn(usize) -> D,
        t: D,
        dt: D,
    ) -> (Val<D>, Val<D>) {
        const T: usize = TANGENT_TEMPS;
        let read = |j: usize| match j {
            DT => dt,
            j if j >= DERIV => dq(j - DERIV),
            j => q(j),
        };
        if !self.chains.is_empty() {
            return match self.need as usize <= SMALL {
                true => self.tangent_on::<D, { 2 * CS + T }>(&read, t, SMALL, CS),
                false => self.tangent_on::<D, { 2 * CB + T }>(&read, t, BIG, CB),
            };
        }
        match (self.need as usize <= SMALL, self.registers <= FEW) {
            (true, true) => self.tangent_on::<D, { 2 * SF + T }>(&read, t, SMALL, SF),
            (true, false) => self.tangent_on::<D, { 2 * SM + T }>(&read, t, SMALL, SM),
            (false, true) => self.tangent_on::<D, { 2 * BF + T }>(&read, t, BIG, BF),
            (false, false) => self.tangent_on::<D, { 2 * BM + T }>(&read, t, BIG, BM),
        }
    }

    /// Runs the program on `pairs` (value, tangent) pairs in `K` scratch slots.
    fn tangent_on<D: DualNum<Primitive = f64> + Copy, const K: usize>(
        &self,
        read: &dyn Fn(usize) -> D,
        t: D,
        stack: usize,
        pairs: usize,
    ) -> (Val<D>, Val<D>) {
        let mut s = [const { MaybeUninit::<D>::uninit() }; K];
        let mut scratch = Scratch::new(&mut s, read, t);
        let mut m = Tangent {
            m: &mut scratch,
            base: 0,
            temps: 2 * pairs,
            deriv: DERIV,
        };
        let kind = self.interpret(&mut m, stack, pairs - TEMPS);
        let get = |i: usize| scratch.get(i);
        match kind {
            Kind::S => (Val::S(get(0)), Val::S(get(1))),
            Kind::V => (
                Val::V([get(0), get(2), get(4)]),
                Val::V([get(1), get(3), get(5)]),
            ),
        }
    }
}
