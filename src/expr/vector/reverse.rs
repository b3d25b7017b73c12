//! Gradients of scalar expressions by reverse accumulation on the compiled program.
//!
//! The postfix program is translated once into a register form for the sweeps ([`Sweep`]):
//! each instruction names the instructions its operands came from, the kinds of its operands
//! (scalar or vector) are resolved into the instruction, and a point made of three coordinate
//! reads (`Pack` of three `Coord`s, how every point of a mechanism file is read) is one
//! instruction. A forward sweep runs it on `f64`, keeping every instruction's value; a backward
//! sweep carries the adjoint `x̄ = ∂f/∂x` from the result to the leaves (`∂f/∂q_j` at a
//! coordinate). The gradient of an expression of `n` coordinates costs a few evaluations on
//! `f64`, where forward duals carry `n` derivatives through every operation — what the residual
//! of a potential `V(t, q)` of a mechanism file needs (`∂V/∂q`), once per state.
//!
//! A shared subexpression (`Store`/`Load`) is one node of the sweep: its loads read the value
//! the store kept, and their adjoints gather at the store before it passes them on. The
//! scratch arrays live in a thread-local buffer that keeps its capacity: no allocation once
//! warm.

use super::Func;
use super::VELOCITY;
use super::chain_leaf;
use super::tape::{Op, Program};
use crate::expr::chain::ChainPoint;
use std::cell::RefCell;
use std::sync::Arc;

/// No operand.
const NONE: u32 = u32::MAX;

/// The bit of a leaf's key that marks a velocity (`v_j` is `VBIT | j`).
const VBIT: u32 = 1 << 31;

/// One instruction of the sweeps; `u32` operands are the indices of earlier instructions.
#[derive(Clone, Copy, Debug)]
enum Ins {
    /// A coordinate or velocity (its key: `j`, or `VBIT | j` for `v_j`).
    Leaf(u32),
    /// A point of three leaves.
    Point([u32; 3]),
    Time,
    Const(f64),
    ConstVec([f64; 3]),
    /// The value of another instruction (a register's store or load).
    Copy(u32),
    Pack([u32; 3]),
    Neg(u32),
    F(Func, u32),
    Perp(u32),
    Norm(u32),
    Comp(usize, u32),
    Scale(f64, u32),
    DivBy(f64, u32),
    Shift(f64, u32),
    ShiftVec([f64; 3], u32),
    DotWith([f64; 3], u32),
    CrossWith([f64; 3], u32),
    CrossFrom([f64; 3], u32),
    Add(u32, u32),
    Sub(u32, u32),
    /// Two scalars.
    Mul(u32, u32),
    /// A vector (first) times a scalar.
    MulV(u32, u32),
    /// A scalar over a scalar.
    Div(u32, u32),
    /// A vector over a scalar.
    DivV(u32, u32),
    Dot(u32, u32),
    Cross(u32, u32),
    /// `x ** p` for an integer `p` with `|p| ≤ 16`.
    PowI(i32, u32),
    /// `x ** p` for another constant `p`.
    PowF(f64, u32),
    /// `x ** y`.
    Pow(u32, u32),
    Atan2(u32, u32),
    /// Chain point `c` of the sweep's list (with `true` its velocity).
    Chain(u32, bool),
}

/// A program ready for the sweeps.
#[derive(Debug)]
pub(super) struct Sweep {
    ins: Vec<Ins>,
    /// Whether the program's value is a scalar and every operation has operands of kinds that
    /// fit (else gradients are NaN, as values are).
    valid: bool,
    /// The keys of the program's leaves (an invalid program reports NaN for each).
    leaves: Vec<u32>,
    /// The chain points read, each with its coordinates.
    chains: Vec<(Arc<ChainPoint>, Vec<usize>)>,
}

/// Each instruction's operands (instruction indices, left to right) and whether its value is a
/// vector, from the program's stack discipline; `false` when an operation's operands are of
/// kinds that do not fit or the value is not one scalar.
fn operands(ops: &[(Op, bool)], registers: usize) -> (Vec<[u32; 3]>, Vec<bool>, bool) {
    let (mut args, mut vector) = (Vec::with_capacity(ops.len()), Vec::with_capacity(ops.len()));
    let (mut stack, mut reg) = (Vec::<u32>::new(), vec![NONE; registers]);
    let mut valid = true;
    for (i, &(op, swap)) in ops.iter().enumerate() {
        let mut pop = || stack.pop().unwrap_or(NONE);
        let (a, v) = match op {
            Op::Coord(_) | Op::Time | Op::Const(_) => ([NONE; 3], false),
            Op::ConstVec(_) | Op::Chain(..) => ([NONE; 3], true),
            Op::Load(r) => ([reg[r], NONE, NONE], vector[reg[r] as usize]),
            Op::Store(r) => {
                let k = *stack.last().unwrap_or(&NONE);
                reg[r] = i as u32;
                args.push([k, NONE, NONE]);
                vector.push(vector[k as usize]);
                continue;
            }
            Op::Pack => {
                let (z, y, x) = (pop(), pop(), pop());
                valid &= [x, y, z].iter().all(|&k| !vector[k as usize]);
                ([x, y, z], true)
            }
            _ if unary(op) => {
                let x = pop();
                (
                    [x, NONE, NONE],
                    kind_of(op, vector[x as usize], false, &mut valid),
                )
            }
            _ => {
                let (second, first) = (pop(), pop());
                let (l, r) = if swap {
                    (second, first)
                } else {
                    (first, second)
                };
                let (vl, vr) = (vector[l as usize], vector[r as usize]);
                ([l, r, NONE], kind_of(op, vl, vr, &mut valid))
            }
        };
        args.push(a);
        vector.push(v);
        stack.push(i as u32);
    }
    valid &= stack.len() == 1 && !vector[stack[0] as usize];
    (args, vector, valid)
}

/// The key of coordinate `j` of a program (`j ≥ VELOCITY` for a velocity).
fn leaf_key(j: usize) -> Option<u32> {
    let (index, bit) = match j >= VELOCITY {
        true => (j - VELOCITY, VBIT),
        false => (j, 0),
    };
    u32::try_from(index)
        .ok()
        .filter(|k| k & VBIT == 0)
        .map(|k| k | bit)
}

/// The coordinate of a leaf's key.
fn key_coord(key: u32) -> usize {
    match key & VBIT {
        0 => key as usize,
        _ => VELOCITY + (key & !VBIT) as usize,
    }
}

impl Sweep {
    pub(super) fn of(ops: &[(Op, bool)], registers: usize, chains: &[Arc<ChainPoint>]) -> Sweep {
        let (args, vector, mut valid) = operands(ops, registers);
        let chains: Vec<_> = (chains.iter())
            .map(|c| (c.clone(), c.coords().into_iter().collect::<Vec<_>>()))
            .collect();
        let key = |k: u32| match ops[k as usize].0 {
            Op::Coord(j) => leaf_key(j),
            _ => None,
        };
        let mut leaves = Vec::new();
        for (op, _) in ops {
            let read: Vec<usize> = match op {
                Op::Coord(j) => vec![*j],
                Op::Chain(c, rate) => {
                    let coords = &chains[*c as usize].1;
                    let v = coords.iter().map(|j| VELOCITY + j).filter(|_| *rate);
                    coords.iter().copied().chain(v).collect()
                }
                _ => continue,
            };
            for j in read {
                match leaf_key(j) {
                    Some(k) => leaves.push(k),
                    None => valid = false,
                }
            }
        }
        if !valid {
            return Sweep {
                ins: Vec::new(),
                valid,
                leaves,
                chains,
            };
        }
        let mut uses = vec![0u32; ops.len()];
        for &k in args.iter().flatten().filter(|&&k| k != NONE) {
            uses[k as usize] += 1;
        }
        // a point: a pack of three coordinates read for it alone
        let point = |i: usize| match ops[i].0 {
            Op::Pack => match args[i].map(|k| key(k).filter(|_| uses[k as usize] == 1)) {
                [Some(x), Some(y), Some(z)] => Some([x, y, z]),
                _ => None,
            },
            _ => None,
        };
        let mut dead = vec![false; ops.len()];
        for i in 0..ops.len() {
            if point(i).is_some() {
                args[i].iter().for_each(|&k| dead[k as usize] = true);
            }
        }
        let mut slot = vec![NONE; ops.len()];
        let mut ins = Vec::with_capacity(ops.len());
        for (i, &(op, _)) in ops.iter().enumerate() {
            if dead[i] {
                continue;
            }
            let [x, y, z] = args[i].map(|k| if k == NONE { NONE } else { slot[k as usize] });
            let vx = args[i][0] != NONE && vector[args[i][0] as usize];
            let vy = args[i][1] != NONE && vector[args[i][1] as usize];
            slot[i] = ins.len() as u32;
            ins.push(match op {
                Op::Coord(j) => Ins::Leaf(leaf_key(j).unwrap_or(0)),
                Op::Time => Ins::Time,
                Op::Const(c) => Ins::Const(c),
                Op::ConstVec(c) => Ins::ConstVec(c),
                Op::Load(_) | Op::Store(_) => Ins::Copy(x),
                Op::Pack => match point(i) {
                    Some(keys) => Ins::Point(keys),
                    None => Ins::Pack([x, y, z]),
                },
                Op::Neg => Ins::Neg(x),
                Op::F(f) => Ins::F(f, x),
                Op::Perp => Ins::Perp(x),
                Op::Norm => Ins::Norm(x),
                Op::Comp(k) => Ins::Comp(k, x),
                Op::Scale(c) => Ins::Scale(c, x),
                Op::DivBy(c) => Ins::DivBy(c, x),
                Op::Shift(c) => Ins::Shift(c, x),
                Op::ShiftVec(c) => Ins::ShiftVec(c, x),
                Op::DotWith(c) => Ins::DotWith(c, x),
                Op::CrossWith(c) => Ins::CrossWith(c, x),
                Op::CrossFrom(c) => Ins::CrossFrom(c, x),
                Op::Add => Ins::Add(x, y),
                Op::Sub => Ins::Sub(x, y),
                Op::Mul if vx => Ins::MulV(x, y),
                Op::Mul if vy => Ins::MulV(y, x),
                Op::Mul => Ins::Mul(x, y),
                Op::Div if vx => Ins::DivV(x, y),
                Op::Div => Ins::Div(x, y),
                Op::Dot => Ins::Dot(x, y),
                Op::Cross => Ins::Cross(x, y),
                Op::Pow(Some(p)) if p == p.round() && p.abs() <= 16.0 => Ins::PowI(p as i32, x),
                Op::Pow(Some(p)) => Ins::PowF(p, x),
                Op::Pow(None) => Ins::Pow(x, y),
                Op::Atan2 => Ins::Atan2(x, y),
                Op::Chain(c, rate) => Ins::Chain(c, rate),
            });
        }
        Sweep {
            ins,
            valid,
            leaves,
            chains,
        }
    }

    /// The sweeps on `s`'s arrays: the value, with every leaf's adjoint given to `leaves`.
    fn run<L: Leaves>(&self, s: &mut Scratch, leaves: &mut L, t: f64) -> f64 {
        let n = self.ins.len();
        if s.val.len() < n {
            s.val.resize(n, [0.0; 3]);
            s.adj.resize(n, [0.0; 3]);
        }
        let (val, adj) = (&mut s.val[..n], &mut s.adj[..n]);
        for i in 0..n {
            let x = match self.ins[i] {
                Ins::Chain(c, rate) => {
                    let get = |j: usize| leaves.get(leaf_key(j).unwrap_or(0));
                    chain_leaf::value(&self.chains[c as usize].0, rate, &get)
                }
                ins => forward(ins, val, leaves, t),
            };
            val[i] = x;
        }
        adj.fill([0.0; 3]);
        adj[n - 1] = [1.0, 0.0, 0.0];
        for i in (0..n).rev() {
            let a = adj[i];
            match self.ins[i] {
                _ if a == [0.0; 3] => {}
                Ins::Chain(c, rate) => self.chain_adjoint(c, rate, a, leaves),
                ins => back(ins, i, a, val, adj, leaves),
            }
        }
        val[n - 1][0]
    }

    /// A chain point's adjoint `a` carried to its coordinates (and velocities).
    fn chain_adjoint<L: Leaves>(&self, c: u32, rate: bool, a: [f64; 3], leaves: &mut L) {
        let (chain, coords) = &self.chains[c as usize];
        leaves.split(&mut |get, add| {
            let get = |j: usize| get(leaf_key(j).unwrap_or(0));
            let mut give = |j: usize, d: f64| add(leaf_key(j).unwrap_or(0), d);
            chain_leaf::adjoint(chain, coords, rate, a, &get, &mut give);
        });
    }
}

/// A reader of leaves' values and an adder of their adjoints, lent together.
type Split<'a> = &'a mut dyn FnMut(&dyn Fn(u32) -> f64, &mut dyn FnMut(u32, f64));

/// Where the sweeps read the leaves' values and give their adjoints.
trait Leaves {
    fn get(&self, key: u32) -> f64;
    fn add(&mut self, key: u32, d: f64);
    /// `f` with the reader and the adder at once.
    fn split(&mut self, f: Split<'_>);
}

/// Leaves in slices: `q`, `v` read, `∂f/∂q` added to `gq`, `∂f/∂v` to `gv`.
struct Slices<'a> {
    q: &'a [f64],
    v: &'a [f64],
    gq: &'a mut [f64],
    gv: &'a mut [f64],
}

impl Leaves for Slices<'_> {
    #[inline(always)]
    fn get(&self, key: u32) -> f64 {
        match key & VBIT {
            0 => self.q[key as usize],
            _ => self.v[(key & !VBIT) as usize],
        }
    }
    #[inline(always)]
    fn add(&mut self, key: u32, d: f64) {
        match key & VBIT {
            0 => self.gq[key as usize] += d,
            _ => self.gv[(key & !VBIT) as usize] += d,
        }
    }
    fn split(&mut self, f: Split<'_>) {
        let (q, v) = (self.q, self.v);
        let get = |key: u32| match key & VBIT {
            0 => q[key as usize],
            _ => v[(key & !VBIT) as usize],
        };
        let (gq, gv) = (&mut *self.gq, &mut *self.gv);
        f(&get, &mut |key, d| match key & VBIT {
            0 => gq[key as usize] += d,
            _ => gv[(key & !VBIT) as usize] += d,
        });
    }
}

/// Leaves through callbacks on coordinate numbers.
struct Callbacks<'a, 'b> {
    q: &'a dyn Fn(usize) -> f64,
    grad: &'b mut dyn FnMut(usize, f64),
}

impl Leaves for Callbacks<'_, '_> {
    fn get(&self, key: u32) -> f64 {
        (self.q)(key_coord(key))
    }
    fn add(&mut self, key: u32, d: f64) {
        (self.grad)(key_coord(key), d)
    }
    fn split(&mut self, f: Split<'_>) {
        let q = self.q;
        let grad = &mut *self.grad;
        f(&|key| q(key_coord(key)), &mut |key, d| {
            grad(key_coord(key), d)
        });
    }
}

/// Whether an instruction takes one operand.
fn unary(op: Op) -> bool {
    matches!(
        op,
        Op::Neg
            | Op::F(_)
            | Op::Perp
            | Op::Norm
            | Op::Comp(_)
            | Op::Scale(_)
            | Op::DivBy(_)
            | Op::Shift(_)
            | Op::ShiftVec(_)
            | Op::DotWith(_)
            | Op::CrossWith(_)
            | Op::CrossFrom(_)
    )
}

/// The kind of an operation's value (vector or not) from its operands' (`r` unused for one
/// operand); `valid` cleared for kinds that do not fit.
fn kind_of(op: Op, l: bool, r: bool, valid: &mut bool) -> bool {
    let (fits, vector) = match op {
        Op::Neg | Op::Scale(_) | Op::DivBy(_) => (true, l),
        Op::F(_) | Op::Shift(_) => (!l, false),
        Op::Perp | Op::CrossWith(_) | Op::CrossFrom(_) | Op::ShiftVec(_) => (l, true),
        Op::Norm | Op::Comp(_) | Op::DotWith(_) => (l, false),
        Op::Add | Op::Sub => (l == r, l),
        Op::Mul => (!(l && r), l || r),
        Op::Div => (!r, l),
        Op::Dot => (l && r, false),
        Op::Cross => (l && r, true),
        Op::Pow(_) | Op::Atan2 => (!l && !r, false),
        _ => (true, false),
    };
    *valid &= fits;
    vector
}

/// The sweeps' values and adjoints (one buffer per thread, reused: no allocation once warm).
#[derive(Default)]
struct Scratch {
    val: Vec<[f64; 3]>,
    adj: Vec<[f64; 3]>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Sweep {
    /// The sweeps' form of `program`.
    pub(super) fn of_program(program: &Program) -> Sweep {
        Sweep::of(&program.ops, program.registers, &program.chains)
    }

    /// The sweeps with `leaves`, on the thread's scratch arrays.
    fn sweeps<L: Leaves>(&self, leaves: &mut L, t: f64) -> f64 {
        if !self.valid {
            // operands of kinds that do not fit (the parser refuses them): NaN, as the value
            for &k in &self.leaves {
                leaves.add(k, f64::NAN);
            }
            return f64::NAN;
        }
        SCRATCH.with(|s| match s.try_borrow_mut() {
            Ok(mut s) => self.run(&mut s, leaves, t),
            // re-entered (a gradient inside a gradient's callback): fresh arrays
            Err(_) => self.run(&mut Scratch::default(), leaves, t),
        })
    }

    /// The value of a scalar program at `q(j)`, `t`, with `grad(j, ∂f/∂q_j)` called for every
    /// coordinate leaf (a coordinate read several times is reported several times: add them).
    /// NaN for a vector program.
    pub(super) fn gradient(
        &self,
        q: &dyn Fn(usize) -> f64,
        t: f64,
        grad: &mut dyn FnMut(usize, f64),
    ) -> f64 {
        self.sweeps(&mut Callbacks { q, grad }, t)
    }

    /// The value of a scalar program at `(t, q, v)` with `∂f/∂q_j` added to `gq[j]` and
    /// `∂f/∂v_j` to `gv[j]`. NaN for a vector program.
    pub(super) fn gradient_into(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        gq: &mut [f64],
        gv: &mut [f64],
    ) -> f64 {
        self.sweeps(&mut Slices { q, v, gq, gv }, t)
    }
}

/// The value of one instruction from its operands' (`[x, 0, 0]` for a scalar).
#[inline(always)]
fn forward<L: Leaves>(ins: Ins, val: &[[f64; 3]], leaves: &L, t: f64) -> [f64; 3] {
    let at = |k: u32| val[k as usize];
    let s = |v: f64| [v, 0.0, 0.0];
    match ins {
        Ins::Leaf(k) => s(leaves.get(k)),
        Ins::Point([x, y, z]) => [leaves.get(x), leaves.get(y), leaves.get(z)],
        Ins::Time => s(t),
        Ins::Const(c) => s(c),
        Ins::ConstVec(c) => c,
        Ins::Copy(x) => at(x),
        Ins::Pack([x, y, z]) => [at(x)[0], at(y)[0], at(z)[0]],
        Ins::Neg(x) => at(x).map(|c| -c),
        Ins::F(f, x) => s(super::apply(f, at(x)[0])),
        Ins::Perp(x) => [-at(x)[1], at(x)[0], 0.0],
        Ins::Norm(x) => s(dot(at(x), at(x)).sqrt()),
        Ins::Comp(k, x) => s(at(x)[k]),
        Ins::Scale(c, x) => at(x).map(|v| v * c),
        Ins::DivBy(c, x) => at(x).map(|v| v / c),
        Ins::Shift(c, x) => s(at(x)[0] + c),
        Ins::ShiftVec(c, x) => add3(at(x), c),
        Ins::DotWith(c, x) => s(dot(at(x), c)),
        Ins::CrossWith(c, x) => cross(at(x), c),
        Ins::CrossFrom(c, x) => cross(c, at(x)),
        Ins::Add(x, y) => add3(at(x), at(y)),
        Ins::Sub(x, y) => add3(at(x), at(y).map(|c| -c)),
        Ins::Mul(x, y) => s(at(x)[0] * at(y)[0]),
        Ins::MulV(x, y) => {
            let r = at(y)[0];
            at(x).map(|c| c * r)
        }
        Ins::Div(x, y) => s(at(x)[0] / at(y)[0]),
        Ins::DivV(x, y) => {
            let r = at(y)[0].recip();
            at(x).map(|c| c * r)
        }
        Ins::Dot(x, y) => s(dot(at(x), at(y))),
        Ins::Cross(x, y) => cross(at(x), at(y)),
        Ins::PowI(p, x) => s(at(x)[0].powi(p)),
        Ins::PowF(p, x) => s(at(x)[0].powf(p)),
        Ins::Pow(x, y) => s((at(x)[0].ln() * at(y)[0]).exp()),
        Ins::Atan2(x, y) => s(at(x)[0].atan2(at(y)[0])),
        Ins::Chain(..) => unreachable!("the sweep evaluates chain points"),
    }
}

/// `x̄ += a` for a scalar or vector operand (written as a whole, as the backward sweep
/// reads it: stores of the parts read back as a whole stall the load).
#[inline(always)]
fn add(adj: &mut [[f64; 3]], k: u32, a: [f64; 3]) {
    let x = &mut adj[k as usize];
    *x = add3(*x, a);
}

/// `[a, 0, 0]`: a scalar adjoint.
fn sc(a: f64) -> [f64; 3] {
    [a, 0.0, 0.0]
}

fn scale(a: [f64; 3], c: f64) -> [f64; 3] {
    a.map(|x| x * c)
}

fn add3(u: [f64; 3], w: [f64; 3]) -> [f64; 3] {
    [u[0] + w[0], u[1] + w[1], u[2] + w[2]]
}

fn cross(u: [f64; 3], w: [f64; 3]) -> [f64; 3] {
    [
        u[1] * w[2] - u[2] * w[1],
        u[2] * w[0] - u[0] * w[2],
        u[0] * w[1] - u[1] * w[0],
    ]
}

fn dot(u: [f64; 3], w: [f64; 3]) -> f64 {
    u[0] * w[0] + u[1] * w[1] + u[2] * w[2]
}

/// `f'(x)` of a function (given `y = f(x)`).
fn slope(f: Func, x: f64, y: f64) -> f64 {
    match f {
        Func::Sqrt => 0.5 / y,
        Func::Sin => x.cos(),
        Func::Cos => -x.sin(),
        Func::Tan => 1.0 + y * y,
        Func::Asin => 1.0 / (1.0 - x * x).sqrt(),
        Func::Acos => -1.0 / (1.0 - x * x).sqrt(),
        Func::Atan => 1.0 / (1.0 + x * x),
        Func::Exp => y,
        Func::Ln => 1.0 / x,
        Func::Abs => x.signum(),
        Func::Wrap => 1.0,
    }
}

/// Carries instruction `i`'s adjoint `a` to its operands.
#[inline(always)]
fn back<L: Leaves>(
    ins: Ins,
    i: usize,
    a: [f64; 3],
    val: &[[f64; 3]],
    adj: &mut [[f64; 3]],
    leaves: &mut L,
) {
    let at = |k: u32| val[k as usize];
    match ins {
        Ins::Leaf(k) => leaves.add(k, a[0]),
        Ins::Point([x, y, z]) => {
            leaves.add(x, a[0]);
            leaves.add(y, a[1]);
            leaves.add(z, a[2]);
        }
        Ins::Time | Ins::Const(_) | Ins::ConstVec(_) => {}
        Ins::Copy(x) | Ins::Shift(_, x) | Ins::ShiftVec(_, x) => add(adj, x, a),
        Ins::Pack([x, y, z]) => {
            add(adj, x, sc(a[0]));
            add(adj, y, sc(a[1]));
            add(adj, z, sc(a[2]));
        }
        Ins::Neg(x) => add(adj, x, scale(a, -1.0)),
        Ins::F(f, x) => {
            let d = slope(f, at(x)[0], val[i][0]);
            add(adj, x, sc(a[0] * d));
        }
        Ins::Perp(x) => add(adj, x, [a[1], -a[0], 0.0]),
        Ins::Norm(x) => add(adj, x, scale(at(x), a[0] / val[i][0])),
        Ins::Comp(k, x) => {
            let mut e = [0.0; 3];
            e[k] = a[0];
            add(adj, x, e);
        }
        Ins::Scale(c, x) => add(adj, x, scale(a, c)),
        Ins::DivBy(c, x) => add(adj, x, scale(a, 1.0 / c)),
        Ins::DotWith(c, x) => add(adj, x, scale(c, a[0])),
        // d(v × c)·ā = dv·(c × ā); d(c × v)·ā = dv·(ā × c)
        Ins::CrossWith(c, x) => add(adj, x, cross(c, a)),
        Ins::CrossFrom(c, x) => add(adj, x, cross(a, c)),
        Ins::Add(x, y) => {
            add(adj, x, a);
            add(adj, y, a);
        }
        Ins::Sub(x, y) => {
            add(adj, x, a);
            add(adj, y, scale(a, -1.0));
        }
        Ins::Dot(x, y) => {
            add(adj, x, scale(at(y), a[0]));
            add(adj, y, scale(at(x), a[0]));
        }
        Ins::Mul(x, y) => {
            add(adj, x, sc(a[0] * at(y)[0]));
            add(adj, y, sc(a[0] * at(x)[0]));
        }
        Ins::MulV(x, y) => {
            add(adj, x, scale(a, at(y)[0]));
            add(adj, y, sc(dot(a, at(x))));
        }
        Ins::Cross(x, y) => {
            add(adj, x, cross(at(y), a));
            add(adj, y, cross(a, at(x)));
        }
        Ins::Div(x, y) | Ins::DivV(x, y) => {
            let (l, r) = (at(x), at(y)[0]);
            add(adj, x, scale(a, 1.0 / r));
            add(adj, y, sc(-dot(a, l) / (r * r)));
        }
        Ins::PowI(p, x) => {
            let d = match p {
                0 => 0.0,
                _ => p as f64 * at(x)[0].powi(p - 1),
            };
            add(adj, x, sc(a[0] * d));
        }
        Ins::PowF(p, x) => {
            let d = p * at(x)[0].powf(p - 1.0);
            add(adj, x, sc(a[0] * d));
        }
        Ins::Pow(x, y) => {
            let (b, e, f) = (at(x)[0], at(y)[0], val[i][0]);
            add(adj, x, sc(a[0] * f * e / b));
            add(adj, y, sc(a[0] * f * b.ln()));
        }
        Ins::Atan2(x, y) => {
            let (l, r) = (at(x)[0], at(y)[0]);
            let d = l * l + r * r;
            add(adj, x, sc(a[0] * r / d));
            add(adj, y, sc(-a[0] * l / d));
        }
        Ins::Chain(..) => unreachable!("the sweep carries chain points' adjoints"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tape::tests::lookup;
    use super::super::{Sym, VExpr};
    use num_dual::DualSVec;

    /// The reverse gradient of `text` equals forward AD's at `q` (to `tol`, relative).
    fn agrees(text: &str, dim: usize, q: [f64; 4], tol: f64) {
        agrees_on(&VExpr::parse(text, dim, &lookup).unwrap(), text, q, tol);
    }

    /// The reverse gradient of `e` equals forward AD's at `q` (to `tol`, relative).
    fn agrees_on(e: &VExpr, text: &str, q: [f64; 4], tol: f64) {
        type D = DualSVec<f64, 4>;
        let qd: [D; 4] = std::array::from_fn(|i| D::from_re(q[i]).derivative(i));
        let fwd = e.eval_scalar::<D>(&|j| qd[j], D::from(0.7));
        let g_fwd = fwd.eps.unwrap_generic(nalgebra::U4, nalgebra::U1);
        let mut g = [0.0; 4];
        let v = e.gradient(&|j| q[j], 0.7, &mut |j, d| g[j] += d);
        let close = |x: f64, y: f64| (x - y).abs() <= tol * (1.0 + y.abs());
        assert!(close(v, fwd.re), "{text}: value {v} vs {}", fwd.re);
        for i in 0..4 {
            assert!(
                close(g[i], g_fwd[i]),
                "{text}: ∂/∂q{i} {} vs {}",
                g[i],
                g_fwd[i]
            );
        }
    }

    #[test]
    fn every_operation_against_forward_duals() {
        let q = [0.3, -1.2, 0.7, 0.45];
        for text in [
            "-1/norm(X) + mu**2/2",
            "dot(2*X + [1, 0, -1] - X/4, [1, 1, 1] + X*3) + (mu + 2)*(1 + mu) - mu/3 - 5",
            "dot([1, 0, 2], X) + dot(cross(X, [0, 2, -1]), [3, 1, 1]) + cross([1, -1, 0], X).z",
            "norm(cross(X, mu*X + w)) + unit(X).y",
            "sqrt(mu) + sin(X.x) + cos(X.y) + tan(mu) + asin(mu) + acos(X.x) + atan(X.z)",
            "exp(X.x*mu) + ln(mu) + abs(X.y) + atan2(X.y, X.x) + X.x**mu + mu**2.5 + X.y**-3",
            "(X.x - X.y)/(mu*X.z) + dot(X/mu, X*mu)*t + -X.z*X.x",
            "mu*dot(X - w, X - w)**2 - (mu*X).z",
        ] {
            agrees(text, 3, q, 1e-13);
        }
        agrees("dot(perp(X), [1, 2]) + perp(mu*X).x", 2, q, 1e-13);
    }

    #[test]
    fn slices_take_velocities_and_points_of_any_make() {
        use super::super::VELOCITY;
        // X: a point of three coordinates (one instruction); V: velocities and a coordinate
        // packed (not a point); mu read alone and inside nothing
        let vp = VExpr::pack([VExpr::velocity(0), VExpr::velocity(1), VExpr::coord(2)]);
        let look = |name: &str| match name {
            "V" => Some(Sym::Item(vp.clone())),
            _ => lookup(name),
        };
        let text = "dot(V, X)*mu + norm(X - 2*V)**3 + X.z*mu/V.y";
        let e = VExpr::parse(text, 3, &look).unwrap();
        let (q, v) = ([0.3, -1.2, 0.7, 0.45], [0.2, 0.9]);
        type D = DualSVec<f64, 6>;
        let var = |j: usize| match j >= VELOCITY {
            true => D::from_re(v[j - VELOCITY]).derivative(4 + j - VELOCITY),
            false => D::from_re(q[j]).derivative(j),
        };
        let fwd = e.eval_scalar::<D>(&var, D::from(0.0));
        let g_fwd = fwd.eps.unwrap_generic(nalgebra::U6, nalgebra::U1);
        let (mut gq, mut gv) = ([0.0; 4], [0.0; 2]);
        let value = e.gradient_into(0.0, &q, &v, &mut gq, &mut gv);
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-13 * (1.0 + y.abs());
        assert!(close(value, fwd.re), "{value} vs {}", fwd.re);
        for (j, g) in gq.iter().chain(&gv).enumerate() {
            assert!(close(*g, g_fwd[j]), "∂/∂x{j}: {g} vs {}", g_fwd[j]);
        }
        // the callbacks give the same numbers to the bit
        let (mut cq, mut cv) = ([0.0; 4], [0.0; 2]);
        let at = |j: usize| match j >= VELOCITY {
            true => v[j - VELOCITY],
            false => q[j],
        };
        let same = e.gradient(&at, 0.0, &mut |j, d| match j >= VELOCITY {
            true => cv[j - VELOCITY] += d,
            false => cq[j] += d,
        });
        assert_eq!((same, cq, cv), (value, gq, gv));
    }

    #[test]
    fn shared_subexpressions_gather_their_adjoints() {
        // v is read four times (kept in a register); a chain of 24 shared levels
        let v = VExpr::parse("cross(X, w) + mu*X", 3, &lookup).unwrap();
        let with_v = |name: &str| match name {
            "v" => Some(Sym::Item(v.clone())),
            _ => lookup(name),
        };
        let e = VExpr::parse("dot(v, v) + norm(v) + v.x*v.z", 3, &with_v).unwrap();
        agrees_on(&e, "v read four times", [0.3, -1.2, 0.7, 1.9], 1e-12);
        let mut a = VExpr::coord(0);
        for _ in 0..24 {
            let sq = VExpr::product(a.clone(), a.clone()).unwrap();
            let half = VExpr::product(sq, VExpr::constant(0.5)).unwrap();
            a = VExpr::sum(half, VExpr::parse("0.1", 3, &lookup).unwrap(), false).unwrap();
        }
        // a_{k+1} = a_k²/2 + 0.1: da_{k+1} = a_k da_k
        let (mut x, mut d) = (0.4f64, 1.0f64);
        for _ in 0..24 {
            d *= x;
            x = x * x / 2.0 + 0.1;
        }
        let mut g = 0.0;
        let val = a.gradient(&|_| 0.4, 0.0, &mut |_, dj| g += dj);
        assert!((val - x).abs() < 1e-15 && (g - d).abs() < 1e-15 * d.abs().max(1e-300));
    }
}
