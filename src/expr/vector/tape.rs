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

use super::{add, apply, Func, Node, VExpr, Val};
use num_dual::DualNum;

/// The most intermediate values an evaluation may hold at once (see the module notes).
pub const MAX_NEED: u32 = 32;

/// Stack slots for expressions of small need (most of them): a smaller frame.
const SMALL: usize = 8;

/// One instruction: an operation on the top of the stack.
#[derive(Clone, Copy, Debug)]
enum Op {
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
}

/// A compiled expression: postfix instructions, each with whether its two operands were
/// evaluated in swapped order (the second first).
#[derive(Debug)]
pub(super) struct Program {
    ops: Vec<(Op, bool)>,
    need: u32,
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

impl Program {
    /// The program of `e` (an explicit work list: no recursion, whatever the depth).
    pub(super) fn compile(e: &VExpr) -> Program {
        enum Task<'a> {
            Visit(&'a VExpr),
            Emit(Op, bool),
        }
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
        Program { ops, need: e.need }
    }

    /// The value at coordinates `q(j)` and time `t`.
    pub(super) fn run<D: DualNum<Primitive = f64> + Copy>(
        &self,
        q: &dyn Fn(usize) -> D,
        t: D,
    ) -> Val<D> {
        if self.need as usize <= SMALL {
            self.run_on::<D, SMALL>(q, t)
        } else {
            self.run_on::<D, { MAX_NEED as usize }>(q, t)
        }
    }

    fn run_on<D: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        q: &dyn Fn(usize) -> D,
        t: D,
    ) -> Val<D> {
        use Val::{S, V};
        let nan = || D::from(f64::NAN);
        let mut st = [S(D::from(0.0)); N];
        let mut sp = 0usize;
        for &(op, swap) in &self.ops {
            match op {
                Op::Coord(j) => {
                    st[sp] = S(q(j));
                    sp += 1;
                }
                Op::Time => {
                    st[sp] = S(t);
                    sp += 1;
                }
                Op::Const(x) => {
                    st[sp] = S(D::from(x));
                    sp += 1;
                }
                Op::ConstVec(x) => {
                    st[sp] = V(x.map(D::from));
                    sp += 1;
                }
                Op::Neg | Op::F(_) | Op::Perp | Op::Norm | Op::Comp(_) => {
                    st[sp - 1] = unary(op, &st[sp - 1]);
                }
                Op::Pack => {
                    let s = |v: &Val<D>| match v {
                        S(x) => *x,
                        V(_) => nan(),
                    };
                    let v = V([s(&st[sp - 3]), s(&st[sp - 2]), s(&st[sp - 1])]);
                    sp -= 2;
                    st[sp - 1] = v;
                }
                _ => {
                    let v = match swap {
                        true => binary(op, &st[sp - 1], &st[sp - 2]),
                        false => binary(op, &st[sp - 2], &st[sp - 1]),
                    };
                    sp -= 1;
                    st[sp - 1] = v;
                }
            }
        }
        st[0]
    }
}

/// A one-operand operation (NaN for kinds that do not fit).
fn unary<D: DualNum<Primitive = f64> + Copy>(op: Op, x: &Val<D>) -> Val<D> {
    use Val::{S, V};
    let nan = || D::from(f64::NAN);
    match (op, x) {
        (Op::Neg, S(x)) => S(-*x),
        (Op::Neg, V(x)) => V(x.map(|c| -c)),
        (Op::F(f), S(x)) => S(apply(f, *x)),
        (Op::Perp, V(x)) => V([-x[1], x[0], D::from(0.0)]),
        (Op::Norm, V(x)) => S((x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt()),
        (Op::Comp(k), V(x)) => S(x[k]),
        (Op::Perp, S(_)) => V([nan(); 3]),
        _ => S(nan()),
    }
}

/// A binary operation on its two operands (NaN for kinds that do not fit).
fn binary<D: DualNum<Primitive = f64> + Copy>(op: Op, x: &Val<D>, y: &Val<D>) -> Val<D> {
    use Val::{S, V};
    let nan = || D::from(f64::NAN);
    match (op, *x, *y) {
        (Op::Add, ..) => add(*x, *y, 1.0),
        (Op::Sub, ..) => add(*x, *y, -1.0),
        (Op::Mul, S(x), S(y)) => S(x * y),
        (Op::Mul, S(x), V(y)) | (Op::Mul, V(y), S(x)) => V(y.map(|c| c * x)),
        (Op::Div, S(x), S(y)) => S(x / y),
        (Op::Div, V(x), S(y)) => {
            let r = y.recip();
            V(x.map(|c| c * r))
        }
        (Op::Pow(Some(p)), S(x), _) if p == p.round() && p.abs() <= 16.0 => S(x.powi(p as i32)),
        (Op::Pow(Some(p)), S(x), _) => S(x.powf(p)),
        (Op::Pow(None), S(x), S(y)) => S((x.ln() * y).exp()),
        (Op::Atan2, S(x), S(y)) => S(x.atan2(y)),
        (Op::Dot, V(x), V(y)) => S(x[0] * y[0] + x[1] * y[1] + x[2] * y[2]),
        (Op::Cross, V(x), V(y)) => V([
            x[1] * y[2] - x[2] * y[1],
            x[2] * y[0] - x[0] * y[2],
            x[0] * y[1] - x[1] * y[0],
        ]),
        (Op::Cross, ..) => V([nan(); 3]),
        _ => S(nan()),
    }
}
