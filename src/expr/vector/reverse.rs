//! Gradients of scalar expressions by reverse accumulation on the compiled program.
//!
//! A forward sweep runs the postfix program on `f64`, keeping every instruction's value and the
//! instructions its operands came from; a backward sweep carries the adjoint `x̄ = ∂f/∂x` from
//! the result to the leaves (`∂f/∂q_j` at `Coord(j)`). The gradient of an expression of `n`
//! coordinates costs a few evaluations on `f64`, where forward duals carry `n` derivatives
//! through every operation — what the residual of a potential `V(t, q)` of a mechanism file
//! needs (`∂V/∂q`), once per state.
//!
//! A shared subexpression (`Store`/`Load`) is one node of the sweep: its loads read the value
//! the store kept, and their adjoints gather at the store before it passes them on. The
//! scratch arrays live in a thread-local buffer that keeps its capacity: no allocation once
//! warm.

use super::Func;
use super::tape::{Op, Program};
use std::cell::RefCell;

/// No operand.
const NONE: u32 = u32::MAX;

/// What the sweeps need of a program, fixed by its stack discipline: each instruction's
/// operands (instruction indices, left to right) and whether its value is a vector.
#[derive(Debug)]
pub(super) struct Schedule {
    args: Vec<[u32; 3]>,
    vector: Vec<bool>,
    /// Whether the program's value is a scalar and every operation has operands of kinds that
    /// fit (else gradients are NaN, as values are).
    valid: bool,
}

impl Schedule {
    fn of(ops: &[(Op, bool)], registers: usize) -> Schedule {
        let (mut args, mut vector) = (Vec::with_capacity(ops.len()), Vec::with_capacity(ops.len()));
        let (mut stack, mut reg) = (Vec::<u32>::new(), vec![NONE; registers]);
        let mut valid = true;
        for (i, &(op, swap)) in ops.iter().enumerate() {
            let mut pop = || stack.pop().unwrap_or(NONE);
            let (a, v) = match op {
                Op::Coord(_) | Op::Time | Op::Const(_) => ([NONE; 3], false),
                Op::ConstVec(_) => ([NONE; 3], true),
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
            if let Op::Pack = op {
                valid &= a.iter().all(|&k| !vector[k as usize]);
            }
            args.push(a);
            vector.push(v);
            stack.push(i as u32);
        }
        valid &= stack.len() == 1 && !vector[stack[0] as usize];
        Schedule {
            args,
            vector,
            valid,
        }
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

impl Program {
    /// The value of a scalar program at `q(j)`, `t`, with `grad(j, ∂f/∂q_j)` called for every
    /// coordinate leaf (a coordinate read several times is reported several times: add them).
    /// NaN for a vector program.
    pub(super) fn gradient(
        &self,
        q: &dyn Fn(usize) -> f64,
        t: f64,
        grad: &mut dyn FnMut(usize, f64),
    ) -> f64 {
        let schedule = self
            .schedule
            .get_or_init(|| Schedule::of(&self.ops, self.registers));
        if !schedule.valid {
            // operands of kinds that do not fit (the parser refuses them): NaN, as the value
            for (op, _) in &self.ops {
                if let Op::Coord(j) = op {
                    grad(*j, f64::NAN);
                }
            }
            return f64::NAN;
        }
        SCRATCH.with(|s| match s.try_borrow_mut() {
            Ok(mut s) => self.sweeps(schedule, &mut s, q, t, grad),
            // re-entered (a gradient inside a gradient's callback): fresh arrays
            Err(_) => self.sweeps(schedule, &mut Scratch::default(), q, t, grad),
        })
    }

    fn sweeps(
        &self,
        sc: &Schedule,
        s: &mut Scratch,
        q: &dyn Fn(usize) -> f64,
        t: f64,
        grad: &mut dyn FnMut(usize, f64),
    ) -> f64 {
        let n = self.ops.len();
        s.val.resize(n, [0.0; 3]);
        s.adj.clear();
        s.adj.resize(n, [0.0; 3]);
        for i in 0..n {
            let v = forward(self.ops[i].0, sc.args[i], &sc.vector, &s.val, q, t);
            s.val[i] = v;
        }
        s.adj[n - 1] = [1.0, 0.0, 0.0];
        for i in (0..n).rev() {
            let a = s.adj[i];
            if a != [0.0; 3] {
                back(self.ops[i].0, i, a, sc, s, grad);
            }
        }
        s.val[n - 1][0]
    }
}

/// The value of one instruction from its operands' (`[x, 0, 0]` for a scalar).
#[inline(always)]
fn forward(
    op: Op,
    args: [u32; 3],
    vector: &[bool],
    val: &[[f64; 3]],
    q: &dyn Fn(usize) -> f64,
    t: f64,
) -> [f64; 3] {
    let at = |k: u32| val[k as usize];
    let x = || at(args[0]);
    let y = || at(args[1]);
    let s = |v: f64| [v, 0.0, 0.0];
    match op {
        Op::Coord(j) => s(q(j)),
        Op::Time => s(t),
        Op::Const(c) => s(c),
        Op::ConstVec(c) => c,
        Op::Load(_) | Op::Store(_) => x(),
        Op::Pack => [x()[0], y()[0], at(args[2])[0]],
        Op::Neg => x().map(|c| -c),
        Op::F(f) => s(super::apply(f, x()[0])),
        Op::Perp => [-x()[1], x()[0], 0.0],
        Op::Norm => s(dot(x(), x()).sqrt()),
        Op::Comp(k) => s(x()[k]),
        Op::Scale(c) => x().map(|v| v * c),
        Op::DivBy(c) => x().map(|v| v / c),
        Op::Shift(c) => s(x()[0] + c),
        Op::ShiftVec(c) => add3(x(), c),
        Op::DotWith(c) => s(dot(x(), c)),
        Op::CrossWith(c) => cross(x(), c),
        Op::CrossFrom(c) => cross(c, x()),
        Op::Add => add3(x(), y()),
        Op::Sub => add3(x(), y().map(|c| -c)),
        Op::Mul => match (vector[args[0] as usize], vector[args[1] as usize]) {
            (true, _) => x().map(|c| c * y()[0]),
            (false, true) => y().map(|c| c * x()[0]),
            (false, false) => s(x()[0] * y()[0]),
        },
        Op::Div => {
            let r = y()[0];
            match vector[args[0] as usize] {
                true => x().map(|c| c * r.recip()),
                false => s(x()[0] / r),
            }
        }
        Op::Dot => s(dot(x(), y())),
        Op::Cross => cross(x(), y()),
        Op::Pow(Some(p)) if p == p.round() && p.abs() <= 16.0 => s(x()[0].powi(p as i32)),
        Op::Pow(Some(p)) => s(x()[0].powf(p)),
        Op::Pow(None) => s((x()[0].ln() * y()[0]).exp()),
        Op::Atan2 => s(x()[0].atan2(y()[0])),
    }
}

/// `x̄ += a` for a scalar or vector operand.
#[inline(always)]
fn add(s: &mut Scratch, k: u32, a: [f64; 3]) {
    let x = &mut s.adj[k as usize];
    for c in 0..3 {
        x[c] += a[c];
    }
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
fn back(
    op: Op,
    i: usize,
    a: [f64; 3],
    sch: &Schedule,
    s: &mut Scratch,
    grad: &mut dyn FnMut(usize, f64),
) {
    let [x, y, z] = sch.args[i];
    let val = |s: &Scratch, k: u32| s.val[k as usize];
    let vector = |k: u32| sch.vector[k as usize];
    match op {
        Op::Coord(j) => grad(j, a[0]),
        Op::Time | Op::Const(_) | Op::ConstVec(_) => {}
        Op::Load(_) | Op::Store(_) | Op::Shift(_) | Op::ShiftVec(_) => add(s, x, a),
        Op::Pack => {
            add(s, x, sc(a[0]));
            add(s, y, sc(a[1]));
            add(s, z, sc(a[2]));
        }
        Op::Neg => add(s, x, scale(a, -1.0)),
        Op::F(f) => {
            let d = slope(f, val(s, x)[0], val(s, i as u32)[0]);
            add(s, x, sc(a[0] * d));
        }
        Op::Perp => add(s, x, [a[1], -a[0], 0.0]),
        Op::Norm => {
            let (v, n) = (val(s, x), val(s, i as u32)[0]);
            add(s, x, scale(v, a[0] / n));
        }
        Op::Comp(k) => {
            let mut e = [0.0; 3];
            e[k] = a[0];
            add(s, x, e);
        }
        Op::Scale(c) => add(s, x, scale(a, c)),
        Op::DivBy(c) => add(s, x, scale(a, 1.0 / c)),
        Op::DotWith(c) => add(s, x, scale(c, a[0])),
        // d(v × c)·ā = dv·(c × ā); d(c × v)·ā = dv·(ā × c)
        Op::CrossWith(c) => add(s, x, cross(c, a)),
        Op::CrossFrom(c) => add(s, x, cross(a, c)),
        Op::Add => {
            add(s, x, a);
            add(s, y, a);
        }
        Op::Sub => {
            add(s, x, a);
            add(s, y, scale(a, -1.0));
        }
        Op::Dot => {
            let (l, r) = (val(s, x), val(s, y));
            add(s, x, scale(r, a[0]));
            add(s, y, scale(l, a[0]));
        }
        Op::Mul => {
            let (l, r) = (val(s, x), val(s, y));
            match (vector(x), vector(y)) {
                (true, _) => {
                    add(s, x, scale(a, r[0]));
                    add(s, y, sc(dot(a, l)));
                }
                (false, true) => {
                    add(s, x, sc(dot(a, r)));
                    add(s, y, scale(a, l[0]));
                }
                (false, false) => {
                    add(s, x, sc(a[0] * r[0]));
                    add(s, y, sc(a[0] * l[0]));
                }
            }
        }
        Op::Cross => {
            let (l, r) = (val(s, x), val(s, y));
            add(s, x, cross(r, a));
            add(s, y, cross(a, l));
        }
        Op::Div => {
            let (l, r) = (val(s, x), val(s, y)[0]);
            add(s, x, scale(a, 1.0 / r));
            add(s, y, sc(-dot(a, l) / (r * r)));
        }
        Op::Pow(Some(p)) => {
            let b = val(s, x)[0];
            let d = match p == p.round() && p.abs() <= 16.0 {
                true if p == 0.0 => 0.0,
                true => p * b.powi(p as i32 - 1),
                false => p * b.powf(p - 1.0),
            };
            add(s, x, sc(a[0] * d));
        }
        Op::Pow(None) => {
            let (b, e, f) = (val(s, x)[0], val(s, y)[0], val(s, i as u32)[0]);
            add(s, x, sc(a[0] * f * e / b));
            add(s, y, sc(a[0] * f * b.ln()));
        }
        Op::Atan2 => {
            let (l, r) = (val(s, x)[0], val(s, y)[0]);
            let d = l * l + r * r;
            add(s, x, sc(a[0] * r / d));
            add(s, y, sc(-a[0] * l / d));
        }
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
