//! Chain points as leaves of expressions ([`VExpr::chain`](super::VExpr::chain)): a point (or
//! direction) carried by a chain of joints, evaluated along the chain in `O(depth)` — so a
//! `Define`, an equation, a potential or a column may read the points of bodies deep in a tree
//! of joints, whose written-out expressions would grow about 2.6× per joint.
//!
//! The leaf is evaluated with the store's own scalar operations ([`Slots`]), from the point's
//! frame outwards (`x ← F x`, three numbers a factor), so it costs the build nothing per number
//! type and the interpreter's forward tangents ([`Tangent`]) differentiate it as they do every
//! other instruction. Its velocity `∂x/∂q · v` is the same evaluation on (value, tangent)
//! pairs whose tangent is read from the velocities. Gradients by reverse accumulation take the
//! chain's partial derivatives one coordinate at a time ([`adjoint`]).

use super::sizes::POS_TEMPS;
use super::slots::Slots;
use super::tangent::Tangent;
use super::{Func, VELOCITY};
use crate::expr::chain::{ChainPoint, Factor};
use num_dual::Dual64;

/// Operations one evaluation performs (for the expression's size).
pub(super) fn operations(c: &ChainPoint, rate: bool) -> u64 {
    let position = 15 * c.depth() as u64 + 3;
    match rate {
        true => 3 * position,
        false => position,
    }
}

/// Chain point `c` (with `rate`, its velocity) into slots `out .. out + 3` of `m`, with
/// [`CHAIN_SLOTS`](super::sizes::CHAIN_SLOTS) scratch slots from `tmp` on.
pub(super) fn eval(m: &mut dyn Slots, out: usize, c: &ChainPoint, rate: bool, tmp: usize) {
    if !rate {
        position(m, [out, out + 1, out + 2], c, tmp);
        return;
    }
    let mut pairs = Tangent {
        m: &mut *m,
        base: tmp,
        temps: tmp + 2 * (3 + POS_TEMPS),
        deriv: VELOCITY,
    };
    position(&mut pairs, [0, 1, 2], c, 3);
    for k in 0..3 {
        m.copy(out + k, tmp + 2 * k + 1);
    }
}

/// The position of `c` into slots `x`, with [`POS_TEMPS`] temporaries from `t` on.
fn position(m: &mut dyn Slots, x: [usize; 3], c: &ChainPoint, t: usize) {
    let local = c.local();
    for k in 0..3 {
        m.constant(x[k], local[k]);
    }
    let direction = c.is_direction();
    let u = [t + 10, t + 11, t + 12];
    let w = t + 13;
    for f in c.link().factors_outwards() {
        match f {
            Factor::Place { r, p } => {
                for i in 0..3 {
                    // u_i = Σ_k r_ik x_k, the zero entries left out
                    let mut first = true;
                    for k in (0..3).filter(|&k| r[i][k] != 0.0) {
                        let dst = if first { u[i] } else { w };
                        m.copy(dst, x[k]);
                        if r[i][k] != 1.0 {
                            m.scale(dst, r[i][k]);
                        }
                        if !first {
                            m.add(u[i], w);
                        }
                        first = false;
                    }
                    if first {
                        m.constant(u[i], 0.0);
                    }
                }
                for i in 0..3 {
                    m.copy(x[i], u[i]);
                    if !direction && p[i] != 0.0 {
                        m.shift(x[i], p[i]);
                    }
                }
            }
            Factor::Turn { axis, coord } => {
                let (s, cs) = (t, t + 1);
                m.coord(s, *coord);
                m.copy(cs, s);
                m.func(s, Func::Sin);
                m.func(cs, Func::Cos);
                let (i, j) = ((axis + 1) % 3, (axis + 2) % 3);
                // x_i ← c x_i − s x_j, x_j ← s x_i + c x_j
                m.mul_to(u[0], cs, x[i]);
                m.mul_to(u[1], s, x[j]);
                m.sub(u[0], u[1]);
                m.mul_to(u[1], s, x[i]);
                m.mul_to(u[2], cs, x[j]);
                m.add(u[1], u[2]);
                m.copy(x[i], u[0]);
                m.copy(x[j], u[1]);
            }
            Factor::Slide { .. } if direction => {}
            Factor::Slide { axis, coord, scale } => {
                m.coord(w, *coord);
                if *scale != 1.0 {
                    m.scale(w, *scale);
                }
                m.add(x[*axis], w);
            }
            Factor::Quaternion { coords } => quaternion(m, x, coords, t),
        }
    }
}

/// `x ← ((w² − |v|²) x + 2 (v·x) v + 2 w v × x) / |a|²`: the turn of the quaternion
/// `a = (w, v)` of any non-zero length on coordinates `coords`.
fn quaternion(m: &mut dyn Slots, x: [usize; 3], coords: &[usize; 4], t: usize) {
    let a = [t, t + 1, t + 2, t + 3];
    let (n2, wv, vx, cr) = (t + 4, t + 5, t + 6, [t + 7, t + 8, t + 9]);
    let (u, w) = ([t + 10, t + 11, t + 12], t + 13);
    for k in 0..4 {
        m.coord(a[k], coords[k]);
    }
    // wv = |v|², n2 = w², then n2 = |a|² and wv = w² − |v|²
    m.mul_to(wv, a[1], a[1]);
    for k in [2, 3] {
        m.mul_to(w, a[k], a[k]);
        m.add(wv, w);
    }
    m.mul_to(n2, a[0], a[0]);
    m.copy(w, n2);
    m.add(n2, wv);
    m.sub(w, wv);
    m.copy(wv, w);
    // vx = 2 v·x
    m.mul_to(vx, a[1], x[0]);
    for k in [1, 2] {
        m.mul_to(w, a[1 + k], x[k]);
        m.add(vx, w);
    }
    m.scale(vx, 2.0);
    // cr = 2 w v × x
    for i in 0..3 {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        m.mul_to(cr[i], a[1 + j], x[k]);
        m.mul_to(w, a[1 + k], x[j]);
        m.sub(cr[i], w);
        m.mul(cr[i], a[0]);
        m.scale(cr[i], 2.0);
    }
    m.recip_to(n2, n2);
    for i in 0..3 {
        m.mul_to(u[i], wv, x[i]);
        m.mul_to(w, vx, a[1 + i]);
        m.add(u[i], w);
        m.add(u[i], cr[i]);
        m.mul(u[i], n2);
    }
    for i in 0..3 {
        m.copy(x[i], u[i]);
    }
}

/// The value of chain point `c` (with `rate`, its velocity) on `f64`, coordinate `j` read as
/// `get(j)` and its velocity as `get(VELOCITY + j)`.
pub(super) fn value(c: &ChainPoint, rate: bool, get: &dyn Fn(usize) -> f64) -> [f64; 3] {
    match rate {
        false => c.pos(get),
        true => c.pos_tangent(get, &|j| get(VELOCITY + j)).1,
    }
}

/// `give(j, ā · ∂x/∂y_j)` for every coordinate `j` of `coords` (the chain's) and, for a
/// velocity, every `VELOCITY + j` (`∂(J v)/∂v_j` is the point's `∂x/∂q_j`): the adjoint `ā` of
/// the leaf carried to the coordinates, one tangent (and for a velocity one more on dual
/// numbers, `∂(J v)/∂q_j`) per coordinate.
pub(super) fn adjoint(
    c: &ChainPoint,
    coords: &[usize],
    rate: bool,
    a: [f64; 3],
    get: &dyn Fn(usize) -> f64,
    give: &mut dyn FnMut(usize, f64),
) {
    let dot = |x: [f64; 3]| a[0] * x[0] + a[1] * x[1] + a[2] * x[2];
    for &j in coords {
        let e = |k: usize| if k == j { 1.0 } else { 0.0 };
        let column = c.pos_tangent(get, &e).1;
        if !rate {
            give(j, dot(column));
            continue;
        }
        give(VELOCITY + j, dot(column));
        let q = |k: usize| Dual64::new(get(k), e(k));
        let v = |k: usize| Dual64::from(get(VELOCITY + k));
        let (_, y) = c.pos_tangent::<Dual64>(&q, &v);
        give(j, dot(y.map(|y| y.eps)));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Sym, VELOCITY, VExpr};
    use crate::expr::chain::{ChainLink, ChainPoint, Factor, rot_axis};
    use num_dual::{Dual64, DualSVec};
    use std::sync::Arc;

    /// Two links sharing a root: every factor kind, a turned placement between.
    fn point() -> ChainPoint {
        let r0 = rot_axis(0, 0.4f64);
        let r1 = rot_axis(1, -0.3f64);
        let r: [[f64; 3]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|k| (0..3).map(|m| r0[i][m] * r1[m][k]).sum())
        });
        let root = ChainLink::new(
            None,
            vec![
                Factor::Place {
                    r,
                    p: [0.1, 0.2, 0.3],
                },
                Factor::Turn { axis: 2, coord: 0 },
                Factor::Slide {
                    axis: 1,
                    coord: 1,
                    scale: 0.7,
                },
            ],
        );
        let tip = ChainLink::new(
            Some(root),
            vec![
                Factor::Place {
                    r,
                    p: [1.0, 0.0, -0.2],
                },
                Factor::Turn { axis: 0, coord: 2 },
                Factor::Quaternion {
                    coords: [3, 4, 5, 6],
                },
                Factor::Turn { axis: 1, coord: 7 },
            ],
        );
        ChainPoint::on(tip, [0.4, -0.3, 0.2])
    }

    const Q: [f64; 8] = [0.4, -0.2, 0.9, 0.8, 0.3, -0.5, 0.6, -1.1];
    const V: [f64; 8] = [0.3, 1.1, -0.4, 0.7, -0.2, 0.5, -0.9, 0.2];

    fn at(j: usize) -> f64 {
        match j >= VELOCITY {
            true => V[j - VELOCITY],
            false => Q[j],
        }
    }

    /// `P` the point, `P'` its velocity, `D` a direction in its frame (one graph node each,
    /// as a file's items are).
    fn lookup(name: &str) -> Option<Sym> {
        static ITEMS: std::sync::LazyLock<[VExpr; 3]> = std::sync::LazyLock::new(|| {
            let p = Arc::new(point());
            let x = VExpr::chain(p.clone());
            let d = VExpr::chain(Arc::new(p.direction([0.0, 0.6, 0.8])));
            [x.clone(), x.rate().unwrap(), d]
        });
        let k = ["P", "P'", "D"].iter().position(|n| *n == name)?;
        Some(Sym::Item(ITEMS[k].clone()))
    }

    /// The leaf's value, tangent and velocity equal the chain's own evaluation; the direction is
    /// the frame's rotation; the velocity's own tangent equals dual numbers'.
    #[test]
    fn values_tangents_and_velocities_are_the_chains() {
        let c = point();
        let x = VExpr::parse("P", 3, &lookup).unwrap();
        let (y, z) = (x.eval_vector::<f64>(&at, 0.0), c.pos(&at));
        assert!(
            (0..3).all(|k| (y[k] - z[k]).abs() < 1e-15),
            "{y:?} vs {z:?}"
        );
        let dq = |j: usize| [0.2, -0.4, 0.5, 0.1, 0.3, -0.2, 0.6, 0.9][j % VELOCITY % 8];
        let (y, dy) = x.value_and_tangent::<f64>(&at, &dq, 0.0, 1.0);
        let (z, dz) = c.pos_tangent(&at, &dq);
        for k in 0..3 {
            assert!((y[k] - z[k]).abs() < 1e-15 && (dy[k] - dz[k]).abs() < 1e-14);
        }
        let v = VExpr::parse("P'", 3, &lookup).unwrap();
        let w = v.eval_vector::<f64>(&at, 0.0);
        let speed = c.pos_tangent(&at, &|j| V[j]).1;
        assert!(
            (0..3).all(|k| (w[k] - speed[k]).abs() < 1e-14),
            "{w:?} {speed:?}"
        );
        // the velocity's tangent (the acceleration's q and v parts) against dual numbers
        let d = |j: usize| Dual64::new(at(j), dq(j));
        let reference = v.eval_vector::<Dual64>(&d, Dual64::from(0.0));
        let (_, dv) = v.value_and_tangent::<f64>(&at, &dq, 0.0, 1.0);
        for k in 0..3 {
            assert!(
                (dv[k] - reference[k].eps).abs() < 1e-13,
                "{k}: {dv:?} vs {reference:?}"
            );
        }
        // the direction: the point's frame turned, no translation
        let dir = VExpr::parse("D", 3, &lookup)
            .unwrap()
            .eval_vector::<f64>(&at, 0.0);
        let (o, e) = (c.pos(&at), c.direction([0.0, 0.6, 0.8]).pos(&at));
        let local = ChainPoint::on(c.link().clone(), [0.0, 0.6, 0.8]).pos(&at);
        for k in 0..3 {
            assert!((dir[k] - e[k]).abs() < 1e-15);
            let unit = ChainPoint::on(c.link().clone(), [0.0; 3]).pos(&at);
            assert!((local[k] - unit[k] - dir[k]).abs() < 1e-14, "{o:?}");
        }
        assert!((dir.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-14);
    }

    /// Gradients by reverse accumulation through chain points, their velocities and
    /// directions equal forward dual numbers'.
    #[test]
    fn reverse_gradients_equal_forward_duals() {
        let e = VExpr::parse(
            "dot(P, P') + norm(P - D)**2 + P'.x*D.y + dot(P, P)",
            3,
            &lookup,
        )
        .unwrap();
        type D16 = DualSVec<f64, 16>;
        let var = |j: usize| match j >= VELOCITY {
            true => D16::from_re(V[j - VELOCITY]).derivative(8 + j - VELOCITY),
            false => D16::from_re(Q[j]).derivative(j),
        };
        let fwd = e.eval_scalar::<D16>(&var, D16::from(0.0));
        let g = fwd.eps.unwrap_generic(nalgebra::Const::<16>, nalgebra::U1);
        let (mut gq, mut gv) = ([0.0; 8], [0.0; 8]);
        let value = e.gradient_into(0.0, &Q, &V, &mut gq, &mut gv);
        assert!((value - fwd.re).abs() < 1e-13 * (1.0 + value.abs()));
        for (j, x) in gq.iter().chain(&gv).enumerate() {
            assert!(
                (x - g[j]).abs() < 1e-12 * (1.0 + g[j].abs()),
                "{j}: {x} vs {}",
                g[j]
            );
        }
        // the callbacks agree
        let (mut cq, mut cv) = ([0.0; 8], [0.0; 8]);
        e.gradient(&at, 0.0, &mut |j, d| match j >= VELOCITY {
            true => cv[j - VELOCITY] += d,
            false => cq[j] += d,
        });
        assert_eq!((cq, cv), (gq, gv));
    }

    /// A chain point read several times is evaluated once (kept in a register), and a
    /// velocity has no rate.
    #[test]
    fn shared_reads_and_no_second_rate() {
        let e = VExpr::parse("dot(P, P) + norm(P)", 3, &lookup).unwrap();
        let p = point().pos(&at);
        let r2: f64 = p.iter().map(|x| x * x).sum();
        assert!((e.eval_scalar::<f64>(&at, 0.0) - (r2 + r2.sqrt())).abs() < 1e-14);
        let (ops, registers) = e.compiled().len();
        assert_eq!(registers, 1, "{ops} instructions");
        let v = VExpr::parse("P'", 3, &lookup).unwrap();
        assert!(v.rate().unwrap_err().contains("velocities"));
        let mut set = std::collections::BTreeSet::new();
        v.coords(&mut set);
        assert_eq!(set.len(), 16);
    }
}
