//! The tape of one evaluation on [`TaylorVar`]s and its sweeps, coefficient by coefficient.
//!
//! An evaluation on [`TaylorVar`]s records each operation once ([`Op`]); a sweep then computes
//! one more coefficient of every node from its inputs' (the recurrences of the module notes of
//! [`super`], each `O(k)` for coefficient `k`), so a series of order `K` costs `O(K²)` per
//! operation instead of the `O(K³)` of evaluating on whole series once per order — the
//! incremental evaluation of Nedialkov & Pryce's DAETS.
//!
//! **Leads.** A node feeding `d/dτ` ([`Op::Shift`]) must be one coefficient ahead of it, and an
//! output may be wanted ahead of the others (a constraint's `C`, whose coefficient `k + 2` a
//! stage needs where the residual's is `k`). Every node gets its lead once per recording, the
//! largest its consumers ask for (`prepare`), and stage `s` computes coefficient `s + lead`
//! of each.
//!
//! **Unknowns.** At stage `s` an input may not yet know its top coefficient (a coordinate's
//! `Q_{s+2}`, found by the stage's own solve): the stage is swept with it zero, the caller
//! solves, writes it, and [`redo`](SeriesTape::redo) computes again only the nodes whose top
//! coefficient reads it (the `dirty` ones, found once per recording).

use super::TaylorVar;
use std::cell::RefCell;

/// The node index of a constant (which has no node).
pub(super) const CONST: u32 = u32::MAX;

/// How a node's coefficients follow from its inputs' (`a`, `b`, `g`: node indices).
#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
    /// Written by the caller.
    Input,
    /// `m·a + c`.
    Affine {
        a: u32,
        m: f64,
        c: f64,
    },
    Add(u32, u32),
    Sub(u32, u32),
    Mul(u32, u32),
    Div(u32, u32),
    /// `s / a`.
    Recip {
        a: u32,
        s: f64,
    },
    Sqrt(u32),
    /// `aʳ` (`cbrt`: the real cube root, defined for `a₀ < 0`).
    Pow {
        a: u32,
        r: f64,
        cbrt: bool,
    },
    /// `exp(a)`, or `exp(a) − 1`.
    Exp {
        a: u32,
        minus_one: bool,
    },
    Ln(u32),
    /// `c₀ = f0`, `c' = g·a'`: `cₖ = (1/k) Σⱼ₌₁ᵏ j aⱼ gₖ₋ⱼ`.
    Lift {
        a: u32,
        g: u32,
        f0: f64,
    },
    /// `sin a` (`sinh a`); its cosine (`cosh`) is the next node, written with it.
    SinCos {
        a: u32,
        hyperbolic: bool,
    },
    /// The cosine of the node before.
    Cosine,
    /// `d/dτ a`: `cₖ = (k + 1) a_{k+1}`.
    Shift(u32),
}

thread_local! {
    /// The recording under way on this thread (a [`SeriesTape`]'s, lent by `begin`).
    static RECORDING: RefCell<Vec<Op>> = const { RefCell::new(Vec::new()) };
}

/// Record `op`; its node index.
pub(super) fn push(op: Op) -> u32 {
    RECORDING.with(|r| {
        let mut r = r.borrow_mut();
        r.push(op);
        (r.len() - 1) as u32
    })
}

/// The inputs a node reads, with how far ahead of it each must be (`Shift`: one).
fn reads(op: Op) -> ([u32; 2], [u8; 2]) {
    match op {
        Op::Input | Op::Cosine => ([CONST; 2], [0; 2]),
        Op::Affine { a, .. }
        | Op::Recip { a, .. }
        | Op::Sqrt(a)
        | Op::Pow { a, .. }
        | Op::Exp { a, .. }
        | Op::Ln(a)
        | Op::SinCos { a, .. } => ([a, CONST], [0; 2]),
        Op::Add(a, b) | Op::Sub(a, b) | Op::Mul(a, b) | Op::Div(a, b) => ([a, b], [0; 2]),
        Op::Lift { a, g, .. } => ([a, g], [0; 2]),
        Op::Shift(a) => ([a, CONST], [1, 0]),
    }
}

/// A recording and its coefficients (see the module notes).
#[derive(Default)]
pub struct SeriesTape {
    ops: Vec<Op>,
    /// Coefficients kept per node.
    width: usize,
    /// Node-major: node `i`'s coefficients at `i·width …`.
    coef: Vec<f64>,
    /// Each node's lead; −1: no output reads it.
    lead: Vec<i16>,
    dirty: Vec<bool>,
    /// The nodes a stage computes, in order (not inputs, not cosines).
    work: Vec<u32>,
    /// Those of them a stage's unknowns reach.
    redo: Vec<u32>,
    max_lead: usize,
}

impl SeriesTape {
    /// Start recording on this thread (anything recorded before is dropped).
    pub fn begin(&mut self) {
        self.ops.clear();
        RECORDING.with(|r| std::mem::swap(&mut *r.borrow_mut(), &mut self.ops));
    }

    /// End the recording: the tape takes the operations recorded since [`begin`](Self::begin).
    pub fn end(&mut self) {
        RECORDING.with(|r| std::mem::swap(&mut *r.borrow_mut(), &mut self.ops));
    }

    /// The operations recorded.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The largest lead of a node.
    pub fn max_lead(&self) -> usize {
        self.max_lead
    }

    /// Get ready to sweep stages `s ≤ last`: the leads (`outputs`: each with its own lead),
    /// the nodes that read a stage's unknowns (`inputs`: each input with `u`, its unknown at
    /// stage `s` being coefficient `s + u`; `None`: every coefficient known), storage zeroed.
    /// `Err` names an input read past its unknown (its lead above `u`).
    pub fn prepare(
        &mut self,
        last: usize,
        outputs: &[(TaylorVar, usize)],
        inputs: &[(TaylorVar, Option<usize>)],
    ) -> Result<(), String> {
        let n = self.ops.len();
        self.lead.clear();
        self.lead.resize(n, -1);
        for &(x, l) in outputs {
            if x.node != CONST {
                let l = l.min(i16::MAX as usize) as i16;
                self.lead[x.node as usize] = self.lead[x.node as usize].max(l);
            }
        }
        for i in (0..n).rev() {
            if matches!(self.ops[i], Op::Cosine) {
                self.lead[i - 1] = self.lead[i - 1].max(self.lead[i]);
            }
            if self.lead[i] < 0 {
                continue;
            }
            let (ins, ahead) = reads(self.ops[i]);
            for (j, d) in ins.into_iter().zip(ahead) {
                if j != CONST {
                    let need = self.lead[i] + d as i16;
                    self.lead[j as usize] = self.lead[j as usize].max(need);
                }
            }
        }
        self.max_lead = self.lead.iter().copied().max().unwrap_or(0).max(0) as usize;
        self.dirty.clear();
        self.dirty.resize(n, false);
        for &(x, u) in inputs {
            let (i, l) = (x.node as usize, self.lead[x.node as usize]);
            match u {
                Some(u) if l > u as i16 => {
                    return Err(format!(
                        "an input is read {l} coefficients ahead, past its unknown at {u}"
                    ));
                }
                Some(u) => self.dirty[i] = l == u as i16,
                None => {}
            }
        }
        self.work.clear();
        self.redo.clear();
        for i in 0..n {
            let op = self.ops[i];
            if self.lead[i] < 0 || matches!(op, Op::Input) {
                continue;
            }
            if matches!(op, Op::Cosine) {
                self.dirty[i] = self.dirty[i - 1];
                continue;
            }
            let (ins, ahead) = reads(op);
            let top = |j: u32, d: u8| {
                j != CONST
                    && self.dirty[j as usize]
                    && self.lead[i] + d as i16 == self.lead[j as usize]
            };
            // a lift reads its `g` one coefficient behind: never its top
            let lift = matches!(op, Op::Lift { .. });
            self.dirty[i] = top(ins[0], ahead[0]) || (!lift && top(ins[1], ahead[1]));
            self.work.push(i as u32);
            if self.dirty[i] {
                self.redo.push(i as u32);
            }
        }
        self.width = last + 1 + self.max_lead;
        self.coef.clear();
        self.coef.resize(n * self.width, 0.0);
        Ok(())
    }

    /// Coefficient `k` of `x` (0 past those kept).
    pub fn coeff(&self, x: TaylorVar, k: usize) -> f64 {
        match x.node {
            CONST if k == 0 => x.value,
            CONST => 0.0,
            i if k < self.width => self.coef[i as usize * self.width + k],
            _ => 0.0,
        }
    }

    /// Set coefficient `k` of the input `x` (nothing past those kept).
    pub fn set(&mut self, x: TaylorVar, k: usize, value: f64) {
        if x.node != CONST && k < self.width {
            self.coef[x.node as usize * self.width + k] = value;
        }
    }

    /// Stage `s` (from `−max_lead`): coefficient `s + lead` of every node.
    pub fn stage(&mut self, s: isize) {
        let work = std::mem::take(&mut self.work);
        self.sweep(&work, s);
        self.work = work;
    }

    /// Stage `s` again for the nodes its unknowns reach (once they are written).
    pub fn redo(&mut self, s: isize) {
        let redo = std::mem::take(&mut self.redo);
        self.sweep(&redo, s);
        self.redo = redo;
    }

    /// Coefficient `s + lead` of each node of `nodes` (those within the kept coefficients).
    fn sweep(&mut self, nodes: &[u32], s: isize) {
        for &i in nodes {
            let c = s + self.lead[i as usize] as isize;
            if c >= 0 && (c as usize) < self.width {
                self.compute(i as usize, c as usize);
            }
        }
    }

    /// Coefficient `c` of node `i` from its inputs' (and its own lower ones).
    #[inline(always)]
    fn compute(&mut self, i: usize, c: usize) {
        let w = self.width;
        debug_assert!(c < w && (i + 1) * w <= self.coef.len());
        let base = self.coef.as_mut_ptr();
        // SAFETY: a node's inputs are recorded before it (`j < i`), a cosine right after its
        // sine (`i + 1` a node), so every row read or written lies in `coef` (`n·w` values);
        // `c < w` (the stage loops), a derivative reads `c + 1 < w` only (checked), and each
        // recurrence reads coefficients `0 ..= c` of its rows.
        let row = |j: u32| unsafe { base.add(j as usize * w) as *const f64 };
        let at = |p: *const f64, k: usize| unsafe { *p.add(k) };
        let out = unsafe { base.add(i * w) };
        let first = c == 0;
        let value = match self.ops[i] {
            Op::Input | Op::Cosine => return,
            Op::Affine { a, m, c: k } => m * at(row(a), c) + if first { k } else { 0.0 },
            Op::Add(a, b) => at(row(a), c) + at(row(b), c),
            Op::Sub(a, b) => at(row(a), c) - at(row(b), c),
            Op::Mul(a, b) => {
                let (a, b) = (row(a), row(b));
                sum(0, c + 1, |j| at(a, j) * at(b, c - j))
            }
            Op::Div(a, b) => {
                let (a, b) = (row(a), row(b));
                let s = sum(1, c + 1, |j| at(b, j) * at(out, c - j));
                (at(a, c) - s) / at(b, 0)
            }
            Op::Recip { a, s } => {
                let a = row(a);
                let sum = sum(1, c + 1, |j| at(a, j) * at(out, c - j));
                (if first { s } else { 0.0 } - sum) / at(a, 0)
            }
            Op::Sqrt(a) => {
                let a = row(a);
                match first {
                    true => at(a, 0).sqrt(),
                    false => {
                        let s = sum(1, c, |j| at(out, j) * at(out, c - j));
                        (at(a, c) - s) / (2.0 * at(out, 0))
                    }
                }
            }
            Op::Pow { a, r, cbrt } => {
                let a = row(a);
                let a0 = at(a, 0);
                match first {
                    true if cbrt => a0.cbrt(),
                    true if r.fract() == 0.0 && r.abs() <= 64.0 => a0.powi(r as i32),
                    true => a0.powf(r),
                    false => {
                        let s = sum(0, c, |j| {
                            (r * (c - j) as f64 - j as f64) * at(a, c - j) * at(out, j)
                        });
                        s / (c as f64 * a0)
                    }
                }
            }
            Op::Exp { a, minus_one } => {
                let a = row(a);
                match first {
                    true if minus_one => at(a, 0).exp_m1(),
                    true => at(a, 0).exp(),
                    false => {
                        let e0 = at(out, 0) + if minus_one { 1.0 } else { 0.0 };
                        let s = sum(1, c, |j| j as f64 * at(a, j) * at(out, c - j));
                        (s + c as f64 * at(a, c) * e0) / c as f64
                    }
                }
            }
            Op::Ln(a) => {
                let a = row(a);
                match first {
                    true => at(a, 0).ln(),
                    false => {
                        let s = sum(1, c, |j| j as f64 * at(out, j) * at(a, c - j));
                        (at(a, c) - s / c as f64) / at(a, 0)
                    }
                }
            }
            Op::Lift { a, g, f0 } => match first {
                true => f0,
                false => {
                    let (a, g) = (row(a), row(g));
                    sum(1, c + 1, |j| j as f64 * at(a, j) * at(g, c - j)) / c as f64
                }
            },
            Op::SinCos { a, hyperbolic } => {
                let (a, co) = (row(a), unsafe { out.add(w) });
                let (s, cs) = match first {
                    true if hyperbolic => (at(a, 0).sinh(), at(a, 0).cosh()),
                    true => at(a, 0).sin_cos(),
                    false => {
                        let ss = sum(1, c + 1, |j| j as f64 * at(a, j) * at(co, c - j));
                        let cc = sum(1, c + 1, |j| j as f64 * at(a, j) * at(out, c - j));
                        let sign = if hyperbolic { 1.0 } else { -1.0 };
                        (ss / c as f64, sign * cc / c as f64)
                    }
                };
                // SAFETY: as above (the cosine's row follows the sine's)
                unsafe { *co.add(c) = cs };
                s
            }
            Op::Shift(a) => match c + 1 < w {
                true => (c + 1) as f64 * at(row(a), c + 1),
                false => 0.0,
            },
        };
        // SAFETY: as above
        unsafe { *out.add(c) = value };
    }
}

/// `Σ_{lo ≤ j < hi} f(j)` in four running sums (the recurrences' sums are chains of additions
/// otherwise, each waiting for the last).
#[inline(always)]
fn sum(lo: usize, hi: usize, f: impl Fn(usize) -> f64) -> f64 {
    let (mut s0, mut s1, mut s2, mut s3) = (0.0, 0.0, 0.0, 0.0);
    let mut j = lo;
    while j + 4 <= hi {
        s0 += f(j);
        s1 += f(j + 1);
        s2 += f(j + 2);
        s3 += f(j + 3);
        j += 4;
    }
    while j < hi {
        s0 += f(j);
        j += 1;
    }
    (s0 + s1) + (s2 + s3)
}
