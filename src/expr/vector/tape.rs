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

use super::{Func, Node, VExpr, Val, apply};
use num_dual::DualNum;
use std::collections::HashMap;
use std::sync::Arc;

/// The most intermediate values an evaluation may hold at once (see the module notes).
pub const MAX_NEED: u32 = 32;

/// Stack slots for expressions of small need (most of them): a smaller frame.
const SMALL: usize = 8;

/// The most shared subexpressions a program keeps (the largest are kept; others are
/// recomputed where they are used).
pub const MAX_SHARED: usize = 16;

/// Registers for programs with few shared subexpressions: a smaller frame.
const FEW: usize = 4;

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
}

/// A compiled expression: postfix instructions, each with whether its two operands were
/// evaluated in swapped order (the second first).
#[derive(Debug)]
pub(super) struct Program {
    pub(super) ops: Vec<(Op, bool)>,
    need: u32,
    pub(super) registers: usize,
    /// The program in the form of the gradient's sweeps (built on first use).
    pub(super) sweep: std::sync::OnceLock<super::reverse::Sweep>,
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
        if x.children().is_empty() {
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

/// Postfix instructions of `e`, the nodes of `shared` kept in virtual registers (one each).
fn emit(e: &VExpr, shared: &[*const Node]) -> Vec<(Op, bool)> {
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
            let mut ops = emit(e, &shared);
            let registers = allocate(&mut ops, shared.len());
            if registers <= MAX_SHARED {
                return Program {
                    ops,
                    need: e.need,
                    registers,
                    sweep: std::sync::OnceLock::new(),
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
        const BIG: usize = MAX_NEED as usize;
        match (self.need as usize <= SMALL, self.registers <= FEW) {
            (true, true) => self.run_on::<D, SMALL, FEW>(q, t),
            (true, false) => self.run_on::<D, SMALL, MAX_SHARED>(q, t),
            (false, true) => self.run_on::<D, BIG, FEW>(q, t),
            (false, false) => self.run_on::<D, BIG, MAX_SHARED>(q, t),
        }
    }

    /// Runs the program on a stack of `N` slots. The stack is never initialised as a whole
    /// and every operation works in place on its slots: a value on nested duals is kilobytes
    /// (a 7-coordinate element's third-order dual vector is about 7 kB), so a copy per operand
    /// or a stack of default values would cost more than the arithmetic.
    fn run_on<D: DualNum<Primitive = f64> + Copy, const N: usize, const R: usize>(
        &self,
        q: &dyn Fn(usize) -> D,
        t: D,
    ) -> Val<D> {
        use Val::{S, V};
        // `None` writes only a tag; the program's stack discipline (checked by `compile`)
        // reads only slots it has written.
        let mut st: [Option<Val<D>>; N] = [None; N];
        let mut reg: [Option<Val<D>>; R] = [None; R];
        let mut sp = 0usize;
        for &(op, swap) in &self.ops {
            let leaf = match op {
                Op::Coord(j) => Some(S(q(j))),
                Op::Time => Some(S(t)),
                Op::Const(x) => Some(S(D::from(x))),
                Op::ConstVec(x) => Some(V(x.map(D::from))),
                Op::Load(r) => reg[r],
                _ => None,
            };
            if let Some(v) = leaf {
                st[sp] = Some(v);
                sp += 1;
                continue;
            }
            match op {
                Op::Store(r) => reg[r] = st[sp - 1],
                Op::Neg | Op::F(_) | Op::Perp | Op::Norm | Op::Comp(_) => {
                    unary(op, slot(&mut st[sp - 1]));
                }
                Op::Scale(_)
                | Op::DivBy(_)
                | Op::Shift(_)
                | Op::ShiftVec(_)
                | Op::DotWith(_)
                | Op::CrossWith(_)
                | Op::CrossFrom(_) => {
                    with_constant(op, slot(&mut st[sp - 1]));
                }
                Op::Pack => {
                    let (lo, hi) = st.split_at_mut(sp - 2);
                    let s = |v: &Option<Val<D>>| match v {
                        Some(S(x)) => *x,
                        _ => D::from(f64::NAN),
                    };
                    let v = V([s(&lo[sp - 3]), s(&hi[0]), s(&hi[1])]);
                    lo[sp - 3] = Some(v);
                    sp -= 2;
                }
                _ => {
                    let (lo, hi) = st.split_at_mut(sp - 1);
                    let other = hi[0].as_ref().expect("a written slot");
                    binary(op, swap, slot(&mut lo[sp - 2]), other);
                    sp -= 1;
                }
            }
        }
        st[0].expect("a program leaves one value")
    }
}

/// The value in a written slot.
fn slot<D>(s: &mut Option<Val<D>>) -> &mut Val<D> {
    s.as_mut().expect("a written slot")
}

/// A one-operand operation in place (NaN for kinds that do not fit).
fn unary<D: DualNum<Primitive = f64> + Copy>(op: Op, x: &mut Val<D>) {
    use Val::{S, V};
    let nan = || D::from(f64::NAN);
    match (op, &mut *x) {
        (Op::Neg, S(x)) => *x = -*x,
        (Op::Neg, V(x)) => x.iter_mut().for_each(|c| *c = -*c),
        (Op::F(f), S(x)) => *x = apply(f, *x),
        (Op::Perp, V(v)) => *x = V([-v[1], v[0], D::from(0.0)]),
        (Op::Norm, V(v)) => *x = S((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()),
        (Op::Comp(k), V(v)) => *x = S(v[k]),
        (Op::Perp, S(_)) => *x = V([nan(); 3]),
        _ => *x = S(nan()),
    }
}

/// An operation with a constant operand, in place (NaN for kinds that do not fit).
fn with_constant<D: DualNum<Primitive = f64> + Copy>(op: Op, x: &mut Val<D>) {
    use Val::{S, V};
    match (op, &mut *x) {
        (Op::Scale(c), S(x)) => *x *= c,
        (Op::Scale(c), V(x)) => x.iter_mut().for_each(|v| *v *= c),
        (Op::DivBy(c), S(x)) => *x /= c,
        (Op::DivBy(c), V(x)) => x.iter_mut().for_each(|v| *v /= c),
        (Op::Shift(c), S(x)) => *x += c,
        (Op::ShiftVec(c), V(x)) => (0..3).for_each(|k| x[k] += c[k]),
        (Op::DotWith(c), V(v)) => *x = S(lin(&[(v[0], c[0]), (v[1], c[1]), (v[2], c[2])])),
        (Op::CrossWith(c), V(v)) => {
            let v = *v;
            *x = V([
                lin(&[(v[1], c[2]), (v[2], -c[1])]),
                lin(&[(v[2], c[0]), (v[0], -c[2])]),
                lin(&[(v[0], c[1]), (v[1], -c[0])]),
            ])
        }
        (Op::CrossFrom(c), V(v)) => {
            let v = *v;
            *x = V([
                lin(&[(v[2], c[1]), (v[1], -c[2])]),
                lin(&[(v[0], c[2]), (v[2], -c[0])]),
                lin(&[(v[1], c[0]), (v[0], -c[1])]),
            ])
        }
        (Op::ShiftVec(_) | Op::CrossWith(_) | Op::CrossFrom(_), S(_)) => {
            *x = V([D::from(f64::NAN); 3])
        }
        _ => *x = S(D::from(f64::NAN)),
    }
}

/// `Σ x_k c_k` over the nonzero constants `c_k` (a constant vector's zeros cost nothing).
fn lin<D: DualNum<Primitive = f64> + Copy>(terms: &[(D, f64)]) -> D {
    let mut sum: Option<D> = None;
    for &(x, c) in terms {
        if c != 0.0 {
            let term = x * c;
            sum = Some(match sum {
                Some(s) => s + term,
                None => term,
            });
        }
    }
    sum.unwrap_or(D::from(0.0))
}

/// A binary operation in place: `a ← a ∘ b`, or `a ← b ∘ a` when the operands were evaluated
/// in swapped order (NaN for kinds that do not fit).
fn binary<D: DualNum<Primitive = f64> + Copy>(op: Op, swap: bool, a: &mut Val<D>, b: &Val<D>) {
    use Val::{S, V};
    let nan = || D::from(f64::NAN);
    match (op, &mut *a, b) {
        // commutative (exactly, in floating point): the order of evaluation does not matter
        (Op::Add, S(x), S(y)) => *x += *y,
        (Op::Add, V(x), V(y)) => (0..3).for_each(|k| x[k] += y[k]),
        (Op::Mul, S(x), S(y)) => *x *= *y,
        (Op::Mul, V(x), S(y)) => x.iter_mut().for_each(|c| *c *= *y),
        (Op::Mul, S(x), V(y)) => *a = V(y.map(|c| c * *x)),
        (Op::Dot, V(x), V(y)) => *a = S(x[0] * y[0] + x[1] * y[1] + x[2] * y[2]),
        // x − y, or y − x = −(x − y) exactly
        (Op::Sub, S(x), S(y)) => {
            *x -= *y;
            if swap {
                *x = -*x;
            }
        }
        (Op::Sub, V(x), V(y)) => (0..3).for_each(|k| {
            x[k] -= y[k];
            if swap {
                x[k] = -x[k];
            }
        }),
        (Op::Cross, V(x), V(y)) => {
            let (u, w) = if swap { (y, &*x) } else { (&*x, y) };
            *a = V([
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ])
        }
        // ordered operations: `l ∘ r`
        _ => {
            let (l, r) = if swap { (*b, *a) } else { (*a, *b) };
            *a = ordered(op, &l, &r).unwrap_or(S(nan()));
            if matches!(op, Op::Cross) && matches!(*a, S(_)) {
                *a = V([nan(); 3]);
            }
        }
    }
}

/// Division, powers and `atan2` (`None` for kinds that do not fit).
fn ordered<D: DualNum<Primitive = f64> + Copy>(op: Op, l: &Val<D>, r: &Val<D>) -> Option<Val<D>> {
    use Val::{S, V};
    Some(match (op, l, r) {
        (Op::Div, S(x), S(y)) => S(*x / *y),
        (Op::Div, V(x), S(y)) => {
            let r = y.recip();
            V(x.map(|c| c * r))
        }
        (Op::Pow(Some(p)), S(x), _) if p == p.round() && p.abs() <= 16.0 => S(x.powi(p as i32)),
        (Op::Pow(Some(p)), S(x), _) => S(x.powf(p)),
        (Op::Pow(None), S(x), S(y)) => S((x.ln() * *y).exp()),
        (Op::Atan2, S(x), S(y)) => S(x.atan2(*y)),
        _ => return None,
    })
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
