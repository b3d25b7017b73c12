//! Scalars that depend on the coordinates only through the distance between two points,
//! `V = g(t, |x − y|)` — gravitation `−G m₁ m₂ / |A − B|`, a spring `k/2 (|A − B| − ℓ)²` written
//! out — recognised in the graph ([`VExpr::distance_form`]), so that their gradient is
//! `g′(r) (x − y)/r` from one scalar derivative instead of a sweep over the whole program.

use super::{Node, VELOCITY, VExpr};
use std::sync::Arc;

/// A component of a point: a coordinate or a constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Part {
    /// Coordinate `q_j`.
    Coord(usize),
    /// A constant.
    Const(f64),
}

/// `V = g(t, r)` with `r = |x − y|`: `g` an expression of the leaf `coord(0)` (standing for
/// `r`) and time, `x` and `y` points of coordinates and constants.
#[derive(Clone, Debug)]
pub struct DistanceForm {
    /// `g(t, r)`, `r` read as coordinate 0.
    pub g: VExpr,
    /// The first point.
    pub x: [Part; 3],
    /// The second point.
    pub y: [Part; 3],
    /// `c` when `g = c / r` (gravitation, electrostatics): `g′ = −c/r²` without evaluating `g`.
    pub inverse: Option<f64>,
}

/// The parts of a point written as `[a, b, c]` of coordinates and constants, or a constant.
fn point(e: &VExpr) -> Option<[Part; 3]> {
    let part = |c: &VExpr| match &*c.node {
        Node::Coord(j) if *j < VELOCITY => Some(Part::Coord(*j)),
        Node::Const(x) => Some(Part::Const(*x)),
        _ => None,
    };
    match &*e.node {
        Node::Pack(c) => Some([part(&c[0])?, part(&c[1])?, part(&c[2])?]),
        Node::ConstVec(x) => Some(x.map(Part::Const)),
        _ => None,
    }
}

impl VExpr {
    /// This scalar as `g(t, |x − y|)` when every coordinate it reads is inside a
    /// `norm(x − y)` of the same two points made of coordinates and constants; `None` otherwise
    /// (vectors, velocities, chain points, a second distance, a coordinate read elsewhere).
    ///
    /// ```
    /// use lagrangian::expr::vector::{Sym, VExpr};
    /// let p = |o: usize| VExpr::pack([0, 1, 2].map(|k| VExpr::coord(o + k)));
    /// let look = |n: &str| match n {
    ///     "A" => Some(Sym::Item(p(0))),
    ///     "B" => Some(Sym::Item(p(3))),
    ///     _ => None,
    /// };
    /// let v = VExpr::parse("-2/norm(A - B) + t", 3, &look).unwrap();
    /// let form = v.distance_form().unwrap();
    /// assert_eq!(form.g.eval_scalar::<f64>(&|_| 4.0, 1.0), 0.5);
    /// assert_eq!(form.inverse, None);
    /// let gravity = VExpr::parse("-2/norm(A - B)", 3, &look).unwrap().distance_form().unwrap();
    /// assert_eq!(gravity.inverse, Some(-2.0));
    /// let spring = VExpr::parse("3*(norm(A - B) - 1)**2 - 1/norm(A - B)", 3, &look).unwrap();
    /// assert_eq!(spring.distance_form().unwrap().g.eval_scalar::<f64>(&|_| 2.0, 0.0), 2.5);
    /// assert!(VExpr::parse("-2/norm(A - B) + A.x", 3, &look).unwrap().distance_form().is_none());
    /// assert!(VExpr::parse("norm(A - B) + norm(B - A)", 3, &look).unwrap().distance_form().is_none());
    /// ```
    pub fn distance_form(&self) -> Option<DistanceForm> {
        if self.vector {
            return None;
        }
        // the norms of the difference of one pair of points
        let mut found: Option<([Part; 3], [Part; 3])> = None;
        let mut norms: Vec<*const Node> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![self];
        while let Some(e) = todo.pop() {
            if !seen.insert(Arc::as_ptr(&e.node)) {
                continue;
            }
            if let Node::Norm(a) = &*e.node
                && let Node::Sub(x, y) = &*a.node
                && let (Some(x), Some(y)) = (point(x), point(y))
            {
                if found.is_some_and(|f| f != (x, y)) {
                    return None;
                }
                found = Some((x, y));
                norms.push(Arc::as_ptr(&e.node));
                continue;
            }
            todo.extend(e.children());
        }
        let (x, y) = found?;
        // g: the norms replaced by a leaf no coordinate of the model uses, then renamed to 0
        let fresh = VELOCITY - 1;
        let g = self
            .map_post_order(&mut |e, image| {
                if norms.contains(&Arc::as_ptr(&e.node)) {
                    return Ok(VExpr::coord(fresh));
                }
                Ok(e.rebuilt(image))
            })
            .ok()?;
        let mut coords = std::collections::BTreeSet::new();
        g.coords(&mut coords);
        if coords.iter().any(|&j| j != fresh) || g.has_velocity() {
            return None;
        }
        let g = g.remap(&|_| 0);
        let inverse = match &*g.node {
            Node::Div(c, r) if matches!(&*r.node, Node::Coord(0)) => c.as_const(),
            _ => None,
        };
        Some(DistanceForm { g, x, y, inverse })
    }
}
