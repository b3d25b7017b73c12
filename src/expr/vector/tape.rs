//! Flat evaluation: an expression graph compiled once into a postfix program and run on a small
//! value stack, without recursion — so evaluation costs the same little stack however deep
//! the graph is (a chain of a thousand `Define`s, a product of 40,000 factors).
//!
//! Operands are ordered as Sethi and Ullman's register allocation orders them: of two children
//! the one that needs more stack is evaluated first, so the stack never holds more than the
//! graph's *need* `n` (a leaf needs 1; a binary node `max(n_a, n_b)`, or `n_a + 1` when both are
//! equal; `[a, b, c]` needs `max(n_a, n_b + 1, n_c + 2)`). A balanced tree of `k` leaves needs
//! `log₂ k + 1`, a chain 2, and since an expression is at most [`MAX_SIZE`](super::MAX_SIZE)
//! operations, `n` stays below [`MAX_NEED`] for every expression the parser accepts.
//!
//! A subexpression the graph shares (a `Define` read by several later ones) is computed once and
//! kept in a register (`Store`/`Load`: a load is a leaf, so the bound above still holds); a
//! linear scan over the program gives each register back after its last load. An operation
//! with a constant operand (`c·x`, `x/c`, `x ± c`, `dot(x, c)`, `x × c`) is one instruction that
//! multiplies by `f64`s. Values are updated in place: on the nested duals of an element's
//! Jacobian pass a vector value is kilobytes, and copies would cost more than the arithmetic.

use super::sizes::{
    BF, BIG, BM, CB, CHAIN_SLOTS, CS, FEW, MAX_NEED, MAX_SHARED, SF, SM, SMALL, TEMPS,
};
use super::slots::{Scratch, Slots};
use super::{Func, Node, VExpr, Val, chain_leaf};
use crate::expr::chain::ChainPoint;
use num_dual::DualNum;
use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// One instruction: an operation on the top of the stack.
#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
    Coord(usize),
    Time,
    Const(f64),
    ConstVec([f64; 3]),
    Pack,
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    /// `a ** b` with the exponent's value when it is a constant.
    Pow(Option<f64>),
    Atan2,
    F(Func),
    Dot,
    Cross,
    Perp,
    Norm,
    Comp(usize),
    /// `x · c` with a constant scalar `c` (x scalar or vector).
    Scale(f64),
    /// `x / c` with a constant scalar `c`.
    DivBy(f64),
    /// `x + c` with a constant scalar `c`.
    Shift(f64),
    /// `x + c` with a constant vector `c`.
    ShiftVec([f64; 3]),
    /// `x · c` with a constant vector `c`.
    DotWith([f64; 3]),
    /// `x × c` with a constant vector `c`.
    CrossWith([f64; 3]),
    /// `c × x` with a constant vector `c`.
    CrossFrom([f64; 3]),
    /// Keep a copy of the top of the stack in register `r` (a shared subexpression).
    Store(usize),
    /// Push the value kept in register `r`.
    Load(usize),
    /// Push chain point `c` of the program's list (with `true` its velocity).
    Chain(u32, bool),
}

/// A compiled expression: postfix instructions, each with whether its two operands were
/// evaluated in swapped order (the second first).
#[derive(Debug)]
pub(super) struct Program {
    pub(super) ops: Vec<(Op, bool)>,
    pub(super) need: u32,
    pub(super) registers: usize,
    /// The chain points its `Chain` instructions read.
    pub(super) chains: Vec<Arc<ChainPoint>>,
}

/// The stack a node needs, from its children's needs.
pub(super) fn need_of(node: &Node) -> u32 {
    let kids = VExpr::node_children(node);
    match kids.as_slice() {
        [] => 1,
        [a] => a.need,
        [a, b] if a.need == b.need => a.need + 1,
        [a, b] => a.need.max(b.need),
        [a, b, c] => a.need.max(b.need + 1).max(c.need + 2),
        _ => u32::MAX,
    }
}

/// The instruction of a node (its children come before it).
fn op_of(node: &Node) -> Op {
    match node {
        Node::Coord(j) => Op::Coord(*j),
        Node::Time => Op::Time,
        Node::Const(x) => Op::Const(*x),
        Node::ConstVec(x) => Op::ConstVec(*x),
        Node::Pack(_) => Op::Pack,
        Node::Neg(_) => Op::Neg,
        Node::Add(..) => Op::Add,
        Node::Sub(..) => Op::Sub,
        Node::Mul(..) => Op::Mul,
        Node::Div(..) => Op::Div,
        Node::Pow(_, b) => Op::Pow(b.as_const()),
        Node::Atan2(..) => Op::Atan2,
        Node::F(f, _) => Op::F(*f),
        Node::Dot(..) => Op::Dot,
        Node::Cross(..) => Op::Cross,
        Node::Perp(_) => Op::Perp,
        Node::Norm(_) => Op::Norm,
        Node::Comp(_, k) => Op::Comp(*k),
        Node::Chain(..) => unreachable!("a chain point is emitted with its index"),
    }
}

/// An operation with a constant operand as one instruction: the operand that is not constant
/// and the instruction (`c·x`, `x·c`, `x/c`, `x ± c`, `c + x`).
fn immediate(node: &Node) -> Option<(&VExpr, Op)> {
    let c = |e: &VExpr| e.as_const();
    let cv = |e: &VExpr| e.as_const_vec();
    Some(match node {
        Node::Mul(a, b) if c(b).is_some() => (a, Op::Scale(c(b)?)),
        Node::Mul(a, b) if c(a).is_some() => (b, Op::Scale(c(a)?)),
        Node::Div(a, b) if c(b).is_some() => (a, Op::DivBy(c(b)?)),
        Node::Add(a, b) if c(b).is_some() => (a, Op::Shift(c(b)?)),
        Node::Add(a, b) if c(a).is_some() => (b, Op::Shift(c(a)?)),
        Node::Sub(a, b) if c(b).is_some() => (a, Op::Shift(-c(b)?)),
        Node::Add(a, b) if cv(b).is_some() => (a, Op::ShiftVec(cv(b)?)),
        Node::Add(a, b) if cv(a).is_some() => (b, Op::ShiftVec(cv(a)?)),
        Node::Sub(a, b) if cv(b).is_some() => (a, Op::ShiftVec(cv(b)?.map(|x| -x))),
        Node::Dot(a, b) if cv(b).is_some() => (a, Op::DotWith(cv(b)?)),
        Node::Dot(a, b) if cv(a).is_some() => (b, Op::DotWith(cv(a)?)),
        Node::Cross(a, b) if cv(b).is_some() => (a, Op::CrossWith(cv(b)?)),
        Node::Cross(a, b) if cv(a).is_some() => (b, Op::CrossFrom(cv(a)?)),
        _ => return None,
    })
}

/// The subexpressions used more than once (graph nodes shared by reference), those that save
/// the most work first: operations saved = size × (uses − 1).
fn shared_nodes(e: &VExpr) -> Vec<*const Node> {
    let key = |e: &VExpr| Arc::as_ptr(&e.node);
    let mut uses: HashMap<*const Node, (u32, u64)> = HashMap::new();
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if x.children().is_empty() && !matches!(&*x.node, Node::Chain(..)) {
            continue;
        }
        let entry = uses.entry(key(x)).or_insert((0, x.size));
        entry.0 += 1;
        if entry.0 == 1 {
            todo.extend(x.children()); // a node's children are counted once
        }
    }
    let mut many: Vec<_> = uses.into_iter().filter(|(_, (n, _))| *n > 1).collect();
    // ties by address: any order is correct
    many.sort_by_key(|(p, (n, size))| {
        (
            std::cmp::Reverse(size.saturating_mul(*n as u64 - 1)),
            *p as usize,
        )
    });
    many.into_iter().map(|(p, _)| p).collect()
}

/// Postfix instructions of `e`, the nodes of `shared` kept in virtual registers (one each);
/// the chain points read are listed in `chains`.
fn emit(e: &VExpr, shared: &[*const Node], chains: &mut Vec<Arc<ChainPoint>>) -> Vec<(Op, bool)> {
    enum Task<'a> {
        Visit(&'a VExpr),
        Emit(Op, bool),
    }
    let register: HashMap<*const Node, usize> =
        shared.iter().enumerate().map(|(r, &p)| (p, r)).collect();
    let mut stored = vec![false; shared.len()];
    let mut ops = Vec::with_capacity(e.size.min(1 << 20) as usize);
    let mut tasks = vec![Task::Visit(e)];
    while let Some(task) = tasks.pop() {
        let x = match task {
            Task::Emit(op, swap) => {
                ops.push((op, swap));
                continue;
            }
            Task::Visit(x) => x,
        };
        // execution follows visiting order, so a register is filled before it is read
        if let Some(&r) = register.get(&Arc::as_ptr(&x.node)) {
            if stored[r] {
                ops.push((Op::Load(r), false));
                continue;
            }
            stored[r] = true;
            tasks.push(Task::Emit(Op::Store(r), false));
        }
        if let Some((operand, op)) = immediate(&x.node) {
            tasks.extend([Task::Emit(op, false), Task::Visit(operand)]);
            continue;
        }
        if let Node::Chain(c, rate) = &*x.node {
            let k = match chains.iter().position(|d| Arc::ptr_eq(c, d)) {
                Some(k) => k,
                None => {
                    chains.push(c.clone());
                    chains.len() - 1
                }
            };
            ops.push((Op::Chain(k as u32, *rate), false));
            continue;
        }
        let op = op_of(&x.node);
        let kids = x.children();
        let swap = kids.len() == 2 && kids[1].need > kids[0].need;
        tasks.push(Task::Emit(op, swap));
        // pushed in reverse: the first to evaluate is popped first
        match swap {
            true => tasks.extend([Task::Visit(kids[0]), Task::Visit(kids[1])]),
            false => tasks.extend(kids.iter().rev().map(|k| Task::Visit(k))),
        }
    }
    ops
}

/// Maps `n` virtual registers onto as few as their lifetimes allow (a linear scan: a
/// register is free again after its last load); returns how many.
fn allocate(ops: &mut [(Op, bool)], n: usize) -> usize {
    let mut last = vec![usize::MAX; n];
    for (i, (op, _)) in ops.iter().enumerate() {
        if let Op::Store(r) | Op::Load(r) = op {
            last[*r] = i;
        }
    }
    let (mut free, mut used, mut phys) = (Vec::new(), 0, vec![0; n]);
    for (i, (op, _)) in ops.iter_mut().enumerate() {
        let (v, store) = match *op {
            Op::Store(r) => (r, true),
            Op::Load(r) => (r, false),
            _ => continue,
        };
        if store {
            phys[v] = free.pop().unwrap_or_else(|| {
                used += 1;
                used - 1
            });
        }
        *op = if store {
            Op::Store(phys[v])
        } else {
            Op::Load(phys[v])
        };
        if last[v] == i {
            free.push(phys[v]);
        }
    }
    used
}

impl Program {
    /// The program of `e` (an explicit work list: no recursion, whatever the depth). A
    /// subexpression the graph shares is computed once and kept in a register (at most
    /// [`MAX_SHARED`] live at once: if more would be, the ones saving least are recomputed);
    /// an operation with a constant operand becomes one instruction.
    pub(super) fn compile(e: &VExpr) -> Program {
        let mut shared = shared_nodes(e);
        loop {
            let mut chains = Vec::new();
            let mut ops = emit(e, &shared, &mut chains);
            let registers = allocate(&mut ops, shared.len());
            if registers <= MAX_SHARED {
                return Program {
                    ops,
                    need: e.need,
                    registers,
                    chains,
                };
            }
            shared.truncate(shared.len() * 3 / 4);
        }
    }

    /// Instructions and registers.
    #[cfg(test)]
    pub(super) fn len(&self) -> (usize, usize) {
        (self.ops.len(), self.registers)
    }

    /// The value at coordinates `q(j)` and time `t`.
    pub(super) fn run<D: DualNum<Primitive = f64> + Copy>(
        &self,
        q: &dyn Fn(usize) -> D,
        t: D,
    ) -> Val<D> {
        if !self.chains.is_empty() {
            return match self.need as usize <= SMALL {
                true => self.run_on::<D, CS>(q, t, SMALL),
                false => self.run_on::<D, CB>(q, t, BIG),
            };
        }
        match (self.need as usize <= SMALL, self.registers <= FEW) {
            (true, true) => self.run_on::<D, SF>(q, t, SMALL),
            (true, false) => self.run_on::<D, SM>(q, t, SMALL),
            (false, true) => self.run_on::<D, BF>(q, t, BIG),
            (false, false) => self.run_on::<D, BM>(q, t, BIG),
        }
    }

    /// Runs the program on `K` scratch slots, the first `3 · stack` of them the stack's. The
    /// slots are never initialised as a whole (a bit per slot says which are written) and
    /// every operation works in place: a value on nested duals is kilobytes (a 7-coordinate element's
    /// third-order dual vector is about 7 kB), so a copy per operand or a store of default
    /// values would cost more than the arithmetic.
    fn run_on<D: DualNum<Primitive = f64> + Copy, const K: usize>(
        &self,
        q: &dyn Fn(usize) -> D,
        t: D,
        stack: usize,
    ) -> Val<D> {
        let mut s = [const { MaybeUninit::<D>::uninit() }; K];
        let mut scratch = Scratch::new(&mut s, q, t);
        let kind = self.interpret(&mut scratch, stack, K - TEMPS);
        let get = |i: usize| scratch.get(i);
        match kind {
            Kind::S => Val::S(get(0)),
            Kind::V => Val::V([get(0), get(1), get(2)]),
        }
    }

    /// Runs the program on the slots of `m` — stack position `p` in slots `3p .. 3p + 3` (a
    /// scalar in the first), register `r` in `3(stack + r) ..`, temporaries from `tmp` — and
    /// returns the kind of the value it leaves in position 0. The same code for every number
    /// type: `m` does the arithmetic.
    pub(super) fn interpret(&self, m: &mut dyn Slots, stack: usize, tmp: usize) -> Kind {
        let mut kinds = [Kind::S; MAX_NEED as usize];
        let mut kept = [Kind::S; MAX_SHARED];
        let reg = |r: usize| 3 * (stack + r);
        let mut sp = 0usize;
        for &(op, swap) in &self.ops {
            let top = 3 * sp;
            let leaf = match op {
                Op::Coord(j) => {
                    m.coord(top, j);
                    Some(Kind::S)
                }
                Op::Time => {
                    m.time(top);
                    Some(Kind::S)
                }
                Op::Const(x) => {
                    m.constant(top, x);
                    Some(Kind::S)
                }
                Op::ConstVec(x) => {
                    (0..3).for_each(|k| m.constant(top + k, x[k]));
                    Some(Kind::V)
                }
                Op::Load(r) => {
                    copy_value(m, top, reg(r), kept[r]);
                    Some(kept[r])
                }
                Op::Chain(c, rate) => {
                    let chain = &self.chains[c as usize];
                    chain_leaf::eval(m, top, chain, rate, tmp - CHAIN_SLOTS);
                    Some(Kind::V)
                }
                _ => None,
            };
            if let Some(kind) = leaf {
                kinds[sp] = kind;
                sp += 1;
                continue;
            }
            let (i, kind) = (top - 3, kinds[sp - 1]);
            match op {
                Op::Store(r) => {
                    copy_value(m, reg(r), i, kind);
                    kept[r] = kind;
                }
                Op::Neg | Op::F(_) | Op::Perp | Op::Norm | Op::Comp(_) => {
                    kinds[sp - 1] = unary(m, op, i, kind, tmp);
                }
                Op::Scale(_)
                | Op::DivBy(_)
                | Op::Shift(_)
                | Op::ShiftVec(_)
                | Op::DotWith(_)
                | Op::CrossWith(_)
                | Op::CrossFrom(_) => {
                    kinds[sp - 1] = with_constant(m, op, i, kind, tmp);
                }
                Op::Pack => {
                    let a = top - 9;
                    let scalars = [kinds[sp - 3], kinds[sp - 2], kinds[sp - 1]];
                    for (k, kind) in scalars.into_iter().enumerate() {
                        match kind {
                            Kind::S if k > 0 => m.copy(a + k, a + 3 * k),
                            Kind::S => {}
                            Kind::V => m.constant(a + k, f64::NAN),
                        }
                    }
                    kinds[sp - 3] = Kind::V;
                    sp -= 2;
                }
                _ => {
                    let a = (top - 6, kinds[sp - 2]);
                    kinds[sp - 2] = binary(m, op, swap, a, (i, kind), tmp);
                    sp -= 1;
                }
            }
        }
        kinds[0]
    }
}

/// The kind of a value on the interpreter's stack or in a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A scalar, in the first of its three slots.
    S,
    /// A vector, in its three slots.
    V,
}

/// `value(i) = value(j)`: one slot for a scalar, three for a vector.
fn copy_value(m: &mut dyn Slots, i: usize, j: usize, kind: Kind) {
    let n = if kind == Kind::S { 1 } else { 3 };
    (0..n).for_each(|k| m.copy(i + k, j + k));
}

/// A NaN value of `kind` in place at slot `i`; returns the kind.
fn nan(m: &mut dyn Slots, i: usize, kind: Kind) -> Kind {
    let n = if kind == Kind::S { 1 } else { 3 };
    (0..n).for_each(|k| m.constant(i + k, f64::NAN));
    kind
}

/// A one-operand operation in place on the value at slot `i` (NaN for kinds that do not fit);
/// returns the result's kind.
fn unary(m: &mut dyn Slots, op: Op, i: usize, kind: Kind, tmp: usize) -> Kind {
    use Kind::{S, V};
    match (op, kind) {
        (Op::Neg, S) => m.neg(i),
        (Op::Neg, V) => (0..3).for_each(|k| m.neg(i + k)),
        (Op::F(f), S) => m.func(i, f),
        // (−v_y, v_x, 0)
        (Op::Perp, V) => {
            m.copy(tmp, i);
            m.copy(i, i + 1);
            m.neg(i);
            m.copy(i + 1, tmp);
            m.constant(i + 2, 0.0);
        }
        // √(v_x v_x + v_y v_y + v_z v_z)
        (Op::Norm, V) => {
            m.mul_to(i, i, i);
            m.mul_to(i + 1, i + 1, i + 1);
            m.add(i, i + 1);
            m.mul_to(i + 2, i + 2, i + 2);
            m.add(i, i + 2);
            m.func(i, Func::Sqrt);
            return S;
        }
        (Op::Comp(k), V) => {
            if k > 0 {
                m.copy(i, i + k);
            }
            return S;
        }
        (Op::Perp, S) => return nan(m, i, V),
        _ => return nan(m, i, S),
    }
    kind
}

/// An operation with a constant operand in place on the value at slot `i` (NaN for kinds that
/// do not fit); returns the result's kind.
fn with_constant(m: &mut dyn Slots, op: Op, i: usize, kind: Kind, tmp: usize) -> Kind {
    use Kind::{S, V};
    let n = if kind == S { 1 } else { 3 };
    match (op, kind) {
        (Op::Scale(c), _) => (0..n).for_each(|k| m.scale(i + k, c)),
        (Op::DivBy(c), _) => (0..n).for_each(|k| m.div_by(i + k, c)),
        (Op::Shift(c), S) => m.shift(i, c),
        (Op::ShiftVec(c), V) => (0..3).for_each(|k| m.shift(i + k, c[k])),
        (Op::DotWith(c), V) => {
            lin(m, tmp, &[(i, c[0]), (i + 1, c[1]), (i + 2, c[2])], tmp + 3);
            m.copy(i, tmp);
            return S;
        }
        (Op::CrossWith(c), V) => {
            let (x, y, z) = (i, i + 1, i + 2);
            lin(m, tmp, &[(y, c[2]), (z, -c[1])], tmp + 3);
            lin(m, tmp + 1, &[(z, c[0]), (x, -c[2])], tmp + 3);
            lin(m, tmp + 2, &[(x, c[1]), (y, -c[0])], tmp + 3);
            (0..3).for_each(|k| m.copy(i + k, tmp + k));
        }
        (Op::CrossFrom(c), V) => {
            let (x, y, z) = (i, i + 1, i + 2);
            lin(m, tmp, &[(z, c[1]), (y, -c[2])], tmp + 3);
            lin(m, tmp + 1, &[(x, c[2]), (z, -c[0])], tmp + 3);
            lin(m, tmp + 2, &[(y, c[0]), (x, -c[1])], tmp + 3);
            (0..3).for_each(|k| m.copy(i + k, tmp + k));
        }
        (Op::ShiftVec(_) | Op::CrossWith(_) | Op::CrossFrom(_), S) => return nan(m, i, V),
        _ => return nan(m, i, S),
    }
    kind
}

/// `value(i) = Σ value(j) c` over the nonzero constants `c` (a constant vector's zeros cost
/// nothing), using slot `scratch`.
fn lin(m: &mut dyn Slots, i: usize, terms: &[(usize, f64)], scratch: usize) {
    let mut first = true;
    for &(j, c) in terms.iter().filter(|(_, c)| *c != 0.0) {
        let at = if first { i } else { scratch };
        m.copy(at, j);
        m.scale(at, c);
        if !first {
            m.add(i, scratch);
        }
        first = false;
    }
    if first {
        m.constant(i, 0.0);
    }
}

/// A binary operation in place: `a ← a ∘ b`, or `a ← b ∘ a` when the operands were evaluated
/// in swapped order (NaN for kinds that do not fit); `a` and `b` are each a first slot and a
/// kind. Returns the result's kind.
fn binary(
    m: &mut dyn Slots,
    op: Op,
    swap: bool,
    (a, ka): (usize, Kind),
    (b, kb): (usize, Kind),
    tmp: usize,
) -> Kind {
    use Kind::{S, V};
    match (op, ka, kb) {
        // commutative (exactly, in floating point): the order of evaluation does not matter
        (Op::Add, S, S) => m.add(a, b),
        (Op::Add, V, V) => (0..3).for_each(|k| m.add(a + k, b + k)),
        (Op::Mul, S, S) => m.mul(a, b),
        (Op::Mul, V, S) => (0..3).for_each(|k| m.mul(a + k, b)),
        // y_k x for the scalar x in slot a
        (Op::Mul, S, V) => {
            m.mul_to(a + 1, b + 1, a);
            m.mul_to(a + 2, b + 2, a);
            m.mul_to(a, b, a);
            return V;
        }
        // x_x y_x + x_y y_y + x_z y_z
        (Op::Dot, V, V) => {
            m.mul(a, b);
            m.mul(a + 1, b + 1);
            m.add(a, a + 1);
            m.mul(a + 2, b + 2);
            m.add(a, a + 2);
            return S;
        }
        // x − y, or y − x = −(x − y) exactly
        (Op::Sub, S, S) | (Op::Sub, V, V) => {
            let n = if ka == S { 1 } else { 3 };
            for k in 0..n {
                m.sub(a + k, b + k);
                if swap {
                    m.neg(a + k);
                }
            }
        }
        // u × w, each component u_j w_k − u_k w_j
        (Op::Cross, V, V) => {
            let (u, w) = if swap { (b, a) } else { (a, b) };
            for (c, (j, k)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
                m.mul_to(tmp + c, u + j, w + k);
                m.mul_to(tmp + 3, u + k, w + j);
                m.sub(tmp + c, tmp + 3);
            }
            (0..3).for_each(|c| m.copy(a + c, tmp + c));
        }
        // ordered operations: `l ∘ r`
        _ => {
            let ((l, kl), (r, kr)) = if swap {
                ((b, kb), (a, ka))
            } else {
                ((a, ka), (b, kb))
            };
            return ordered(m, op, a, (l, kl), (r, kr), tmp);
        }
    }
    ka
}

/// Division, powers and `atan2` of `l` and `r` into slot `a` (NaN for kinds that do not fit);
/// returns the result's kind.
fn ordered(
    m: &mut dyn Slots,
    op: Op,
    a: usize,
    (l, kl): (usize, Kind),
    (r, kr): (usize, Kind),
    tmp: usize,
) -> Kind {
    use Kind::{S, V};
    match (op, kl, kr) {
        (Op::Div, S, S) => m.div_to(a, l, r),
        (Op::Div, V, S) => {
            m.recip_to(tmp, r);
            (0..3).for_each(|k| m.mul_to(a + k, l + k, tmp));
            return V;
        }
        (Op::Pow(Some(p)), S, _) => {
            if l != a {
                m.copy(a, l);
            }
            if p == p.round() && p.abs() <= 16.0 {
                m.powi(a, p as i32);
            } else {
                m.powf(a, p);
            }
        }
        (Op::Pow(None), S, S) => m.pow_to(a, l, r),
        (Op::Atan2, S, S) => m.atan2_to(a, l, r),
        (Op::Cross, _, _) => return nan(m, a, V),
        _ => return nan(m, a, S),
    }
    S
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::Sym;
    use super::*;
    use nalgebra::{U1, U4};
    use num_dual::{Dual2SVec, DualNum};

    /// The points of the tests: `X = (q0, q1, q2)`, `mu = q3`, `w = (0, 0, 1)`.
    pub(in crate::expr::vector) fn lookup(name: &str) -> Option<Sym> {
        let x = VExpr::pack([VExpr::coord(0), VExpr::coord(1), VExpr::coord(2)]);
        match name {
            "X" => Some(Sym::Item(x)),
            "mu" => Some(Sym::Item(VExpr::coord(3))),
            "w" => Some(Sym::Item(VExpr::constant_vec([0.0, 0.0, 1.0]))),
            _ => None,
        }
    }

    /// Value, gradient and Hessian of `e` and of `f` agree to `tol` (relative) at `q`.
    fn same<F>(e: &VExpr, f: F, q: [f64; 4], tol: f64)
    where
        F: Fn(&[Dual2SVec<f64, 4>; 4]) -> Dual2SVec<f64, 4>,
    {
        type D = Dual2SVec<f64, 4>;
        let qd: [D; 4] = std::array::from_fn(|i| D::from_re(q[i]).derivative(i));
        let a = e.eval_scalar::<D>(&|j| qd[j], D::from(0.0));
        let b = f(&qd);
        let close = |x: f64, y: f64| (x - y).abs() <= tol * (1.0 + y.abs());
        assert!(close(a.re, b.re), "value {} vs {}", a.re, b.re);
        let (ga, gb) = (a.v1.unwrap_generic(U1, U4), b.v1.unwrap_generic(U1, U4));
        let (ha, hb) = (a.v2.unwrap_generic(U4, U4), b.v2.unwrap_generic(U4, U4));
        for i in 0..4 {
            assert!(close(ga[i], gb[i]), "gradient {i}: {} vs {}", ga[i], gb[i]);
            for j in 0..4 {
                assert!(close(ha[(i, j)], hb[(i, j)]), "Hessian {i}{j}");
            }
        }
    }

    #[test]
    fn shared_subexpressions_are_computed_once() {
        // v = cross(X, w) + mu X = (q1 + mu q0, −q0 + mu q1, mu q2), used four times
        let v = VExpr::parse("cross(X, w) + mu*X", 3, &lookup).unwrap();
        let with_v = |name: &str| match name {
            "v" => Some(Sym::Item(v.clone())),
            _ => lookup(name),
        };
        let e = VExpr::parse("dot(v, v) + norm(v) + v.x*v.z", 3, &with_v).unwrap();
        let program = Program::compile(&e);
        let (ops, registers) = program.len();
        assert!(registers >= 1, "v is kept in a register");
        assert!(
            (ops as u64) < e.size(),
            "{ops} instructions for {} operations",
            e.size()
        );
        let hand = |q: &[Dual2SVec<f64, 4>; 4]| {
            let v = [q[1] + q[3] * q[0], -q[0] + q[3] * q[1], q[3] * q[2]];
            let s = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
            s + s.sqrt() + v[0] * v[2]
        };
        same(&e, hand, [0.3, -1.2, 0.7, 1.9], 1e-14);
    }

    #[test]
    fn more_shared_parts_than_registers() {
        // a_{k+1} = a_k² / 2 + cos(a_k): 24 shared levels, more than MAX_SHARED
        let mut a = VExpr::coord(0);
        for _ in 0..24 {
            let sq = VExpr::product(a.clone(), a.clone()).unwrap();
            let half = VExpr::product(sq, VExpr::constant(0.5)).unwrap();
            let c = VExpr::new(Node::F(Func::Cos, a.clone()), false);
            a = VExpr::sum(half, c, false).unwrap();
        }
        let program = Program::compile(&a);
        // every level is kept, each register free again once the next level has read it
        let (ops, registers) = program.len();
        assert!(registers <= 2, "{registers} registers");
        assert!(ops < 24 * 8, "{ops} instructions");
        let hand = |q: &[Dual2SVec<f64, 4>; 4]| {
            let mut x = q[0];
            for _ in 0..24 {
                x = x * x * 0.5 + x.cos();
            }
            x
        };
        same(&a, hand, [0.4, 0.0, 0.0, 0.0], 1e-12);
    }

    #[test]
    fn operations_with_a_constant_operand() {
        // immediate operands on both sides, scalar and vector, and a division by a constant
        let e = VExpr::parse(
            "dot(2*X + [1, 0, -1] - X/4, [1, 1, 1] + X*3) + (mu + 2)*(1 + mu) - mu/3 - 5 \
             + dot([1, 0, 2], X) + dot(cross(X, [0, 2, -1]), [3, 1, 1]) + cross([1, -1, 0], X).z",
            3,
            &lookup,
        )
        .unwrap();
        assert!(Program::compile(&e).len().0 < e.size() as usize);
        let hand = |q: &[Dual2SVec<f64, 4>; 4]| {
            let u = [
                q[0] * 2.0 + 1.0 - q[0] / 4.0,
                q[1] * 2.0 - q[1] / 4.0,
                q[2] * 2.0 - 1.0 - q[2] / 4.0,
            ];
            let w = [q[0] * 3.0 + 1.0, q[1] * 3.0 + 1.0, q[2] * 3.0 + 1.0];
            let mu = q[3];
            let (x, y, z) = (q[0], q[1], q[2]);
            // X × (0, 2, −1) = (−y − 2z, x, 2x); (1, −1, 0) × X has z-component y + x
            let c = [-y - z * 2.0, x, x * 2.0];
            u[0] * w[0] + u[1] * w[1] + u[2] * w[2] + (mu + 2.0) * (mu + 1.0) - mu / 3.0 - 5.0
                + x
                + z * 2.0
                + c[0] * 3.0
                + c[1]
                + c[2]
                + y
                + x
        };
        same(&e, hand, [0.5, -0.25, 2.0, 1.5], 1e-14);
    }
}
