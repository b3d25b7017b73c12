//! The time derivative of an expression along the motion, as an expression: `ė = Σ_j ∂e/∂q_j
//! v_j + ∂e/∂t`, with the velocities `v_j` as leaves ([`VExpr::velocity`]). It gives the
//! velocity of anything a mechanism file defines by an expression — a `Define`d point, a
//! body's marker or axis, a joint angle written with `atan2` — where velocities are allowed
//! (kinetic energies, Rayleigh functions, forces).

use super::{Func, Node, VELOCITY, VExpr};

impl VExpr {
    /// The rate `ė = ∂e/∂q · v + ∂e/∂t` (a scalar for a scalar, a vector for a vector), built
    /// by the chain rule node by node; shared parts are differentiated once and stay shared.
    /// An expression that already contains velocities has no rate here (that would need
    /// accelerations): `Err` names it.
    ///
    /// ```
    /// use lagrangian::expr::vector::{Sym, VExpr, VELOCITY};
    /// // θ = atan2(q1, q0): θ̇ = (q0 v1 − q1 v0)/(q0² + q1²)
    /// let x = VExpr::pack([VExpr::coord(0), VExpr::coord(1), VExpr::constant(0.0)]);
    /// let look = |n: &str| (n == "X").then(|| Sym::Item(x.clone()));
    /// let th = VExpr::parse("atan2(X.y, X.x)", 2, &look).unwrap();
    /// let rate = th.rate().unwrap();
    /// let (q, v) = ([3.0, 4.0], [-1.0, 2.0]);
    /// let at = |j: usize| if j >= VELOCITY { v[j - VELOCITY] } else { q[j] };
    /// let want = (q[0] * v[1] - q[1] * v[0]) / (q[0] * q[0] + q[1] * q[1]);
    /// assert!((rate.eval_scalar::<f64>(&at, 0.0) - want).abs() < 1e-15);
    /// ```
    pub fn rate(&self) -> Result<VExpr, String> {
        if self.has_velocity() {
            return Err("an expression with velocities has no rate here".into());
        }
        self.map_post_order(&mut |e, d| node_rate(e, d))
    }
}

fn zero(vector: bool) -> VExpr {
    if vector {
        VExpr::constant_vec([0.0; 3])
    } else {
        VExpr::constant(0.0)
    }
}

fn is_zero(e: &VExpr) -> bool {
    e.as_const() == Some(0.0) || e.as_const_vec() == Some([0.0; 3])
}

/// `a + b` without the zero terms.
fn add(a: VExpr, b: VExpr) -> Result<VExpr, String> {
    match (is_zero(&a), is_zero(&b)) {
        (true, _) => Ok(b),
        (_, true) => Ok(a),
        _ => VExpr::sum(a, b, false),
    }
}

/// `a · b` (scalar times anything) without zero and unit factors.
fn mul(a: VExpr, b: VExpr) -> Result<VExpr, String> {
    if is_zero(&a) || is_zero(&b) {
        return Ok(zero(a.vector || b.vector));
    }
    match (a.as_const(), b.as_const()) {
        (Some(1.0), _) => Ok(b),
        (_, Some(1.0)) => Ok(a),
        _ => VExpr::product(a, b),
    }
}

fn c(x: f64) -> VExpr {
    VExpr::constant(x)
}

/// The rate of one node from its children's rates `d`.
fn node_rate(e: &VExpr, d: &dyn Fn(&VExpr) -> VExpr) -> Result<VExpr, String> {
    let f = |g: Func, a: &VExpr| VExpr::func(g, a.clone());
    Ok(match &*e.node {
        Node::Coord(j) if *j >= VELOCITY => {
            return Err("an expression with velocities has no rate here".into());
        }
        Node::Coord(j) => VExpr::velocity(*j),
        Node::Chain(_, true) => {
            return Err("an expression with velocities has no rate here".into());
        }
        Node::Chain(p, false) => VExpr::new(Node::Chain(p.clone(), true), true),
        Node::Time => c(1.0),
        Node::Const(_) => c(0.0),
        Node::ConstVec(_) => zero(true),
        Node::Pack(p) => VExpr::pack([d(&p[0]), d(&p[1]), d(&p[2])]),
        Node::Neg(a) => {
            let da = d(a);
            if is_zero(&da) {
                da
            } else {
                VExpr::negative(da)
            }
        }
        Node::Add(a, b) => add(d(a), d(b))?,
        Node::Sub(a, b) => {
            let (da, db) = (d(a), d(b));
            if is_zero(&db) {
                da
            } else if is_zero(&da) {
                VExpr::negative(db)
            } else {
                VExpr::sum(da, db, true)?
            }
        }
        // ȧ b + a ḃ (one of them a scalar)
        Node::Mul(a, b) => add(mul(d(a), b.clone())?, mul(a.clone(), d(b))?)?,
        // (ȧ b − a ḃ)/b² = ȧ/b − (a/b)(ḃ/b)
        Node::Div(a, b) => {
            let (da, db) = (d(a), d(b));
            let first = if is_zero(&da) {
                zero(a.vector)
            } else {
                VExpr::quotient(da, b.clone())?
            };
            if is_zero(&db) {
                first
            } else {
                let ratio = VExpr::quotient(db, b.clone())?;
                VExpr::sum(first, mul(ratio, e.clone())?, true)?
            }
        }
        // a^b: b a^(b−1) ȧ + a^b ln(a) ḃ
        Node::Pow(a, b) => {
            let (da, db) = (d(a), d(b));
            let mut out = zero(false);
            if !is_zero(&da) {
                let lower = match b.as_const() {
                    Some(x) => VExpr::new(Node::Pow(a.clone(), c(x - 1.0)), false).fold(),
                    None => VExpr::new(
                        Node::Pow(a.clone(), VExpr::sum(b.clone(), c(1.0), true)?),
                        false,
                    ),
                };
                out = mul(mul(b.clone(), lower)?, da)?;
            }
            if !is_zero(&db) {
                out = add(out, mul(mul(e.clone(), f(Func::Ln, a)?)?, db)?)?;
            }
            out
        }
        // atan2(y, x): (x ẏ − y ẋ)/(x² + y²)
        Node::Atan2(y, x) => {
            let (dy, dx) = (d(y), d(x));
            if is_zero(&dy) && is_zero(&dx) {
                return Ok(c(0.0));
            }
            let num = VExpr::sum(mul(x.clone(), dy)?, mul(y.clone(), dx)?, true)?;
            let den = VExpr::sum(
                mul(x.clone(), x.clone())?,
                mul(y.clone(), y.clone())?,
                false,
            )?;
            VExpr::quotient(num, den)?
        }
        Node::F(g, a) => func_rate(*g, a, e, d(a))?,
        Node::Dot(a, b) => bilinear_rate(a, b, d, VExpr::dot, false)?,
        Node::Cross(a, b) => bilinear_rate(a, b, d, VExpr::cross, true)?,
        Node::Perp(a) => {
            let da = d(a);
            if is_zero(&da) {
                da
            } else {
                VExpr::new(Node::Perp(da), true).fold()
            }
        }
        // |a|' = a·ȧ/|a|
        Node::Norm(a) => {
            let da = d(a);
            if is_zero(&da) {
                return Ok(c(0.0));
            }
            VExpr::quotient(VExpr::dot(a.clone(), da)?, e.clone())?
        }
        Node::Comp(a, k) => {
            let da = d(a);
            if is_zero(&da) {
                c(0.0)
            } else {
                VExpr::comp(da, *k)?
            }
        }
    })
}

/// `(f(a))˙ = f'(a) ȧ` for the scalar functions (`e = f(a)` reused where `f'` is built from it).
fn func_rate(g: Func, a: &VExpr, e: &VExpr, da: VExpr) -> Result<VExpr, String> {
    if is_zero(&da) {
        return Ok(c(0.0));
    }
    let f = |g: Func, a: &VExpr| VExpr::func(g, a.clone());
    let outer = match g {
        Func::Sqrt => VExpr::quotient(c(0.5), e.clone())?,
        Func::Sin => f(Func::Cos, a)?,
        Func::Cos => VExpr::negative(f(Func::Sin, a)?),
        Func::Tan => add(c(1.0), mul(e.clone(), e.clone())?)?,
        Func::Asin | Func::Acos => {
            let s = f(
                Func::Sqrt,
                &VExpr::sum(c(1.0), mul(a.clone(), a.clone())?, true)?,
            )?;
            let inv = VExpr::quotient(c(1.0), s)?;
            if g == Func::Acos {
                VExpr::negative(inv)
            } else {
                inv
            }
        }
        Func::Atan => VExpr::quotient(c(1.0), add(c(1.0), mul(a.clone(), a.clone())?)?)?,
        Func::Exp => e.clone(),
        Func::Ln => VExpr::quotient(c(1.0), a.clone())?,
        // |a|' = a ȧ/|a|
        Func::Abs => VExpr::quotient(a.clone(), e.clone())?,
        Func::Wrap => c(1.0),
    };
    mul(outer, da)
}

/// `(a ∘ b)˙ = ȧ ∘ b + a ∘ ḃ` for `dot` and `cross`.
fn bilinear_rate(
    a: &VExpr,
    b: &VExpr,
    d: &dyn Fn(&VExpr) -> VExpr,
    op: fn(VExpr, VExpr) -> Result<VExpr, String>,
    vector: bool,
) -> Result<VExpr, String> {
    let (da, db) = (d(a), d(b));
    let first = if is_zero(&da) {
        zero(vector)
    } else {
        op(da, b.clone())?
    };
    let second = if is_zero(&db) {
        zero(vector)
    } else {
        op(a.clone(), db)?
    };
    add(first, second)
}

#[cfg(test)]
mod tests {
    use super::super::{Sym, VELOCITY, VExpr};

    /// Every function's rate against a central difference of the expression along `(v, 1)`.
    #[test]
    fn rates_match_differences() {
        let x = VExpr::pack([VExpr::coord(0), VExpr::coord(1), VExpr::coord(2)]);
        let y = VExpr::pack([VExpr::coord(3), VExpr::coord(4), VExpr::coord(5)]);
        let look = |n: &str| match n {
            "X" => Some(Sym::Item(x.clone())),
            "Y" => Some(Sym::Item(y.clone())),
            "mu" => Some(Sym::Item(VExpr::coord(6))),
            _ => None,
        };
        let q = [0.3, -0.4, 0.5, 0.7, 0.2, -0.1, 0.45];
        let v = [0.2, 0.1, -0.3, -0.5, 0.4, 0.6, -0.25];
        for text in [
            "atan2(X.y, X.x) + 2*sqrt(dot(X, X)) - mu**3 + X.z**mu",
            "sin(mu*t) + cos(X.x)*tan(X.y) + asin(mu) - acos(X.z) + atan(t*X.x)",
            "exp(X.x)*ln(Y.x) + abs(X.y) + wrap(3*mu) + norm(cross(X, Y))",
            "dot(unit(X - Y), cross(X, [0, 0, 1])) / (1 + t*t)",
            "(-X.x)**2 + 2**mu",
        ] {
            let e = VExpr::parse(text, 3, &look).unwrap();
            let r = e.rate().unwrap();
            let at = |j: usize| if j >= VELOCITY { v[j - VELOCITY] } else { q[j] };
            let t = 0.8;
            let got = r.eval_scalar::<f64>(&at, t);
            let h = 1e-6;
            let shifted = |s: f64| {
                let qs: Vec<f64> = q.iter().zip(&v).map(|(a, b)| a + s * b).collect();
                e.eval_scalar::<f64>(&|j| qs[j], t + s)
            };
            let fd = (shifted(h) - shifted(-h)) / (2.0 * h);
            assert!(
                (got - fd).abs() < 1e-7 * (1.0 + fd.abs()),
                "{text}: {got} vs {fd}"
            );
        }
        // vectors: the velocity of a point on a turning frame
        let e = VExpr::parse("X + mu*cross(unit(X), Y)", 3, &look).unwrap();
        let r = e.rate().unwrap();
        assert!(r.is_vector());
        let at = |j: usize| if j >= VELOCITY { v[j - VELOCITY] } else { q[j] };
        let got = r.eval_vector::<f64>(&at, 0.0);
        let h = 1e-6;
        let shifted = |s: f64| {
            let qs: Vec<f64> = q.iter().zip(&v).map(|(a, b)| a + s * b).collect();
            e.eval_vector::<f64>(&|j| qs[j], 0.0)
        };
        let (p, m) = (shifted(h), shifted(-h));
        for k in 0..3 {
            let fd = (p[k] - m[k]) / (2.0 * h);
            assert!(
                (got[k] - fd).abs() < 1e-7,
                "component {k}: {} vs {fd}",
                got[k]
            );
        }
        // no rate of a rate
        assert!(r.rate().is_err());
    }
}
