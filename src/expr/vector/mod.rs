//! Scalar and vector expressions over the coordinates, for the `Define` and `Equations`
//! sections of mechanism files and for the derived points of 3D rigid bodies.
//!
//! An expression is a small graph whose leaves are coordinates `q_j`, the time `t` and
//! constants (parameters are folded in when the text is parsed). It is evaluated on any dual
//! number type, so the Euler–Lagrange machinery differentiates it like hand-written Rust: a
//! derived point `C = C₁ + μ v` of DAETS' RSCR mechanism becomes a point whose position,
//! velocity `Ċ = Ċ₁ + μ̇ v + μ v̇` and Jacobian are all exact.
//!
//! Grammar (on top of the scalar expressions of [`crate::expr`]): vector literals
//! `[a, b, c]`, components `X.x X.y X.z`, `+ −` on equal kinds, `*` of a scalar and a vector,
//! `/` by a scalar, and the functions `dot(a, b)`, `cross(a, b)` (3D), `perp(a)` (2D: a turned by
//! +90°), `norm(a)`, `unit(a) = a/|a|`, besides `sqrt sin cos tan asin acos atan atan2 exp ln abs`.
//!
//! ```
//! use lagrangian::expr::vector::{Sym, VExpr};
//! // x = (q0, q1, 0), |x|² − 4
//! let x = VExpr::pack([VExpr::coord(0), VExpr::coord(1), VExpr::constant(0.0)]);
//! let lookup = |name: &str| match name {
//!     "X" => Some(Sym::Item(x.clone())),
//!     "L" => Some(Sym::Param(2.0)),
//!     _ => None,
//! };
//! let e = VExpr::parse("dot(X, X) - L**2", 3, &lookup).unwrap();
//! assert!(!e.is_vector());
//! assert_eq!(e.eval_scalar(&|j| [3.0, 4.0][j], 0.0), 21.0);
//! let n = VExpr::parse("unit(cross(X, [0, 0, 1])).y", 3, &lookup).unwrap();
//! assert!((n.eval_scalar::<f64>(&|j| [3.0, 4.0][j], 0.0) + 0.6).abs() < 1e-15);
//! ```

mod chain_leaf;
mod distance;
mod parse;
mod rate;
mod reverse;
mod sizes;
mod slots;
mod tangent;
mod tangent_run;
mod tape;

use crate::expr::chain::ChainPoint;
pub use distance::{DistanceForm, Part};
use num_dual::DualNum;
pub use sizes::MAX_NEED;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

/// Index offset of the velocity leaves ([`VExpr::velocity`]): `q_j` is `coord(j)`, `v_j` is
/// `coord(VELOCITY + j)`.
pub const VELOCITY: usize = 1 << 40;

/// Scalar functions of one argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `sqrt`
    Sqrt,
    /// `sin`
    Sin,
    /// `cos`
    Cos,
    /// `tan`
    Tan,
    /// `asin`
    Asin,
    /// `acos`
    Acos,
    /// `atan`
    Atan,
    /// `exp`
    Exp,
    /// `ln`
    Ln,
    /// `abs`
    Abs,
    /// `wrap`: an angle brought into `(−π, π]`, `x − 2π·round(x/2π)`; its derivative is 1
    /// (a drive or an equation on an angle from `atan2` holds over any number of turns).
    Wrap,
}

const FUNCS: &[(&str, Func)] = &[
    ("sqrt", Func::Sqrt),
    ("sin", Func::Sin),
    ("cos", Func::Cos),
    ("tan", Func::Tan),
    ("asin", Func::Asin),
    ("acos", Func::Acos),
    ("atan", Func::Atan),
    ("exp", Func::Exp),
    ("ln", Func::Ln),
    ("abs", Func::Abs),
    ("wrap", Func::Wrap),
];

#[derive(Debug)]
enum Node {
    Coord(usize),
    Time,
    Const(f64),
    ConstVec([f64; 3]),
    Pack([VExpr; 3]),
    Neg(VExpr),
    Add(VExpr, VExpr),
    Sub(VExpr, VExpr),
    Mul(VExpr, VExpr),
    Div(VExpr, VExpr),
    Pow(VExpr, VExpr),
    Atan2(VExpr, VExpr),
    F(Func, VExpr),
    Dot(VExpr, VExpr),
    Cross(VExpr, VExpr),
    Perp(VExpr),
    Norm(VExpr),
    Comp(VExpr, usize),
    /// A point (or direction) carried by a chain of joints, or with `true` its velocity
    /// `∂x/∂q · v`: a leaf evaluated along the chain in `O(depth)` (`chain_leaf`).
    Chain(Arc<ChainPoint>, bool),
}

/// The images of a node's children while a graph is mapped (`VExpr::map_post_order`).
type Image<'a> = &'a dyn Fn(&VExpr) -> VExpr;

/// A scalar or 3-vector expression over coordinates and time (cheap to clone: shared graph).
#[derive(Clone, Debug)]
pub struct VExpr {
    node: Arc<Node>,
    vector: bool,
    /// Longest path to a leaf (a leaf has depth 1).
    depth: u32,
    /// Operations one evaluation performs (shared parts counted each time they are used).
    size: u64,
    /// Stack slots a flat evaluation needs (see `tape`).
    need: u32,
    /// The flat program, compiled on the first evaluation.
    program: OnceLock<Arc<tape::Program>>,
    /// The program in the form of the gradient's sweeps (built on the first gradient).
    sweep: OnceLock<Arc<reverse::Sweep>>,
}

/// The deepest expression graph the toolkit accepts. Evaluation is flat (a postfix program on
/// a stack of at most [`MAX_NEED`] values, see `tape`) and every other walk over the graph
/// uses a work list, so depth costs no stack: a chain of definitions or a long product may be
/// as deep as it is large. The bound only makes the limit explicit; [`MAX_SIZE`] is the one
/// that binds.
pub const MAX_DEPTH: u32 = 200_000;

/// The most operations one evaluation of an expression may perform (a `Define` reused many
/// times by later ones multiplies; this bounds the time a step can take).
pub const MAX_SIZE: u64 = 200_000;

/// A value: scalar or vector.
#[derive(Clone, Copy, Debug)]
pub enum Val<D> {
    /// A scalar.
    S(D),
    /// A vector (the third component is 0 in 2D).
    V([D; 3]),
}

/// What a name in an expression stands for.
#[derive(Clone, Debug)]
pub enum Sym {
    /// A parameter (a constant).
    Param(f64),
    /// A point, vector or scalar of the mechanism.
    Item(VExpr),
}

impl VExpr {
    fn new(node: Node, vector: bool) -> VExpr {
        let (depth, size) = Self::stats(&node);
        let need = tape::need_of(&node);
        VExpr {
            node: Arc::new(node),
            vector,
            depth,
            size,
            need,
            program: OnceLock::new(),
            sweep: OnceLock::new(),
        }
    }
    /// `(depth, size)` of a node from its children's.
    fn stats(node: &Node) -> (u32, u64) {
        if let Node::Chain(c, rate) = node {
            return (1, chain_leaf::operations(c, *rate));
        }
        let kids = Self::node_children(node);
        let depth = 1 + kids.iter().map(|c| c.depth).max().unwrap_or(0);
        let size = kids.iter().fold(1u64, |s, c| s.saturating_add(c.size));
        (depth, size)
    }
    /// Longest path from this node to a leaf (a leaf has depth 1).
    pub fn depth(&self) -> u32 {
        self.depth
    }
    /// Operations one evaluation performs.
    pub fn size(&self) -> u64 {
        self.size
    }
    /// Intermediate values a (flat) evaluation holds at once.
    pub fn need(&self) -> u32 {
        self.need
    }
    /// The velocity `v_j = q̇_j`: the leaf [`coord`](VExpr::coord)`(VELOCITY + j)`, so one
    /// evaluation serves `(q, v)` (`lookup(k)` is `v[k − VELOCITY]` for `k ≥ VELOCITY`).
    pub fn velocity(j: usize) -> VExpr {
        VExpr::coord(VELOCITY + j)
    }
    /// Whether the expression involves a velocity.
    pub fn has_velocity(&self) -> bool {
        self.any(&|n| {
            matches!(n, Node::Coord(j) if *j >= VELOCITY) || matches!(n, Node::Chain(_, true))
        })
    }
    /// The coordinate `q_j`.
    pub fn coord(j: usize) -> VExpr {
        VExpr::new(Node::Coord(j), false)
    }
    /// A scalar constant.
    pub fn constant(x: f64) -> VExpr {
        VExpr::new(Node::Const(x), false)
    }
    /// A constant vector.
    pub fn constant_vec(x: [f64; 3]) -> VExpr {
        VExpr::new(Node::ConstVec(x), true)
    }
    /// The point (or direction) `c` carried by a chain of joints: a vector leaf evaluated along
    /// the chain in `O(depth)`, its velocity ([`rate`](Self::rate)) `∂x/∂q · v` likewise — where
    /// the same point written out in the coordinates grows about 2.6× per joint.
    ///
    /// ```
    /// use lagrangian::expr::VExpr;
    /// use lagrangian::model::elements::{ChainPoint, Factor};
    /// use std::sync::Arc;
    /// // a two-link planar arm's tip and its speed
    /// let reach = Factor::Place { r: [[1., 0., 0.], [0., 1., 0.], [0., 0., 1.]], p: [1., 0., 0.] };
    /// let turn = |coord| Factor::Turn { axis: 2, coord };
    /// let tip = ChainPoint::new(vec![turn(0), reach, turn(1)], [1.0, 0.0, 0.0]);
    /// let x = VExpr::chain(Arc::new(tip));
    /// let speed = VExpr::norm(x.rate().unwrap()).unwrap();
    /// // q = (0, π/2), v = (1, 0): the tip (1, 1) turns about the origin at 1 rad/s
    /// let at = |j: usize| [0.0, std::f64::consts::FRAC_PI_2][j % 2] * (j < 2) as u8 as f64
    ///     + (j == lagrangian::expr::vector::VELOCITY) as u8 as f64;
    /// let v = speed.eval_scalar::<f64>(&at, 0.0);
    /// assert!((v - 2f64.sqrt()).abs() < 1e-15);
    /// ```
    pub fn chain(c: Arc<ChainPoint>) -> VExpr {
        VExpr::new(Node::Chain(c, false), true)
    }
    /// The time `t`.
    pub fn time() -> VExpr {
        VExpr::new(Node::Time, false)
    }
    /// A vector from three scalars.
    pub fn pack(c: [VExpr; 3]) -> VExpr {
        if let [Some(a), Some(b), Some(d)] = c.clone().map(|x| x.as_const()) {
            return VExpr::constant_vec([a, b, d]);
        }
        VExpr::new(Node::Pack(c), true)
    }
    /// `c + Σ_j a_j q_j` (an affine point).
    pub fn affine(c: [f64; 3], a: &[(usize, [f64; 3])]) -> VExpr {
        let comp = |k: usize| {
            let mut e = VExpr::constant(c[k]);
            for (j, v) in a {
                if v[k] != 0.0 {
                    let term = if v[k] == 1.0 {
                        VExpr::coord(*j)
                    } else {
                        VExpr::new(Node::Mul(VExpr::constant(v[k]), VExpr::coord(*j)), false)
                    };
                    e = if e.as_const() == Some(0.0) {
                        term
                    } else {
                        VExpr::new(Node::Add(e, term), false)
                    };
                }
            }
            e
        };
        VExpr::pack([comp(0), comp(1), comp(2)])
    }
    /// Whether this is a vector.
    pub fn is_vector(&self) -> bool {
        self.vector
    }
    fn as_const(&self) -> Option<f64> {
        match &*self.node {
            Node::Const(x) => Some(*x),
            _ => None,
        }
    }
    fn as_const_vec(&self) -> Option<[f64; 3]> {
        match &*self.node {
            Node::ConstVec(x) => Some(*x),
            _ => None,
        }
    }
    fn is_const(&self) -> bool {
        matches!(&*self.node, Node::Const(_) | Node::ConstVec(_))
    }
    /// Whether the expression depends on time.
    pub fn uses_time(&self) -> bool {
        self.any(&|n| matches!(n, Node::Time))
    }
    fn any(&self, f: &dyn Fn(&Node) -> bool) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![self];
        while let Some(e) = todo.pop() {
            if !seen.insert(Arc::as_ptr(&e.node)) {
                continue;
            }
            if f(&e.node) {
                return true;
            }
            todo.extend(e.children());
        }
        false
    }
    fn children(&self) -> Vec<&VExpr> {
        Self::node_children(&self.node)
    }
    fn node_children(node: &Node) -> Vec<&VExpr> {
        match node {
            Node::Coord(_) | Node::Time | Node::Const(_) | Node::ConstVec(_) | Node::Chain(..) => {
                vec![]
            }
            Node::Pack(c) => c.iter().collect(),
            Node::Neg(a) | Node::F(_, a) | Node::Perp(a) | Node::Norm(a) | Node::Comp(a, _) => {
                vec![a]
            }
            Node::Add(a, b)
            | Node::Sub(a, b)
            | Node::Mul(a, b)
            | Node::Div(a, b)
            | Node::Pow(a, b)
            | Node::Atan2(a, b)
            | Node::Dot(a, b)
            | Node::Cross(a, b) => vec![a, b],
        }
    }
    /// The coordinates the expression depends on.
    pub fn coords(&self, out: &mut BTreeSet<usize>) {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![self];
        while let Some(e) = todo.pop() {
            if !seen.insert(Arc::as_ptr(&e.node)) {
                continue;
            }
            match &*e.node {
                Node::Coord(j) => {
                    out.insert(*j);
                }
                Node::Chain(c, rate) => {
                    let set = c.coords();
                    if *rate {
                        out.extend(set.iter().map(|j| VELOCITY + j));
                    }
                    out.extend(set);
                }
                _ => {}
            }
            todo.extend(e.children());
        }
    }
    /// A new graph built bottom-up: `f(node, image)` makes a node's image with its children's
    /// at hand (`image(child)`). Shared parts are mapped once and stay shared; a work list in
    /// post-order, so depth costs no stack. Used by [`remap`](Self::remap) and `rate`.
    fn map_post_order(
        &self,
        f: &mut dyn FnMut(&VExpr, Image<'_>) -> Result<VExpr, String>,
    ) -> Result<VExpr, String> {
        let mut memo: HashMap<*const Node, VExpr> = HashMap::new();
        let key = |e: &VExpr| Arc::as_ptr(&e.node);
        let mut todo = vec![(self, false)];
        while let Some((e, ready)) = todo.pop() {
            if memo.contains_key(&key(e)) {
                continue;
            }
            if !ready {
                todo.push((e, true));
                todo.extend(e.children().into_iter().map(|c| (c, false)));
                continue;
            }
            let image = f(e, &|c: &VExpr| memo[&key(c)].clone())?;
            memo.insert(key(e), image);
        }
        Ok(memo[&key(self)].clone())
    }
    /// The same expression with coordinate `j` renamed to `f(j)` (shared parts stay shared).
    pub fn remap(&self, f: &dyn Fn(usize) -> usize) -> VExpr {
        let mut rename = |e: &VExpr, r: Image<'_>| {
            let node = match &*e.node {
                Node::Coord(j) => Node::Coord(f(*j)),
                Node::Chain(c, rate) => Node::Chain(Arc::new(c.remap(f)), *rate),
                _ => return Ok(e.rebuilt(r)),
            };
            Ok(VExpr::new(node, e.vector))
        };
        self.map_post_order(&mut rename)
            .expect("renaming coordinates cannot fail")
    }

    /// The same node over the images `r` of its children (a leaf as it is).
    fn rebuilt(&self, r: Image<'_>) -> VExpr {
        let node = match &*self.node {
            Node::Coord(_) | Node::Chain(..) | Node::Time | Node::Const(_) | Node::ConstVec(_) => {
                return self.clone();
            }
            Node::Pack(c) => Node::Pack([r(&c[0]), r(&c[1]), r(&c[2])]),
            Node::Neg(a) => Node::Neg(r(a)),
            Node::F(g, a) => Node::F(*g, r(a)),
            Node::Perp(a) => Node::Perp(r(a)),
            Node::Norm(a) => Node::Norm(r(a)),
            Node::Comp(a, k) => Node::Comp(r(a), *k),
            Node::Add(a, b) => Node::Add(r(a), r(b)),
            Node::Sub(a, b) => Node::Sub(r(a), r(b)),
            Node::Mul(a, b) => Node::Mul(r(a), r(b)),
            Node::Div(a, b) => Node::Div(r(a), r(b)),
            Node::Pow(a, b) => Node::Pow(r(a), r(b)),
            Node::Atan2(a, b) => Node::Atan2(r(a), r(b)),
            Node::Dot(a, b) => Node::Dot(r(a), r(b)),
            Node::Cross(a, b) => Node::Cross(r(a), r(b)),
        };
        VExpr::new(node, self.vector)
    }

    // ---- construction with type checks and constant folding ----

    /// `a + b`, `a − b` (same kinds).
    pub fn sum(a: VExpr, b: VExpr, minus: bool) -> Result<VExpr, String> {
        if a.vector != b.vector {
            return Err(format!(
                "cannot {} a {} and a {}",
                if minus { "subtract" } else { "add" },
                a.kind(),
                b.kind()
            ));
        }
        let v = a.vector;
        let e = if minus {
            VExpr::new(Node::Sub(a, b), v)
        } else {
            VExpr::new(Node::Add(a, b), v)
        };
        Ok(e.fold())
    }
    /// `a * b` (at most one vector).
    pub fn product(a: VExpr, b: VExpr) -> Result<VExpr, String> {
        if a.vector && b.vector {
            return Err("cannot multiply two vectors (use dot or cross)".into());
        }
        let v = a.vector || b.vector;
        Ok(VExpr::new(Node::Mul(a, b), v).fold())
    }
    /// `a / b` (b scalar).
    pub fn quotient(a: VExpr, b: VExpr) -> Result<VExpr, String> {
        if b.vector {
            return Err("cannot divide by a vector".into());
        }
        if b.as_const() == Some(0.0) {
            return Err("division by zero".into());
        }
        let v = a.vector;
        Ok(VExpr::new(Node::Div(a, b), v).fold())
    }
    /// `f(a)` (a scalar).
    pub fn func(f: Func, a: VExpr) -> Result<VExpr, String> {
        if a.vector {
            return Err(format!("{f:?} takes a scalar").to_lowercase());
        }
        Ok(VExpr::new(Node::F(f, a), false).fold())
    }
    /// Whether the value is an angle defined up to whole turns: an `atan2`, or sums and
    /// differences of them with constants (a relative angle) — a quantity whose jumps by 2π
    /// are no motion.
    pub fn is_angle(&self) -> bool {
        fn walk(e: &VExpr) -> (bool, bool) {
            // (angle or constant, contains an angle)
            match &*e.node {
                Node::Atan2(..) => (true, true),
                Node::Const(_) => (true, false),
                Node::Neg(a) => walk(a),
                Node::Add(a, b) | Node::Sub(a, b) => {
                    let (ok_a, has_a) = walk(a);
                    let (ok_b, has_b) = walk(b);
                    (ok_a && ok_b, has_a || has_b)
                }
                _ => (false, false),
            }
        }
        !self.vector && walk(self) == (true, true)
    }
    /// `|a|` of a vector.
    pub fn norm(a: VExpr) -> Result<VExpr, String> {
        if !a.vector {
            return Err("norm takes a vector, found a scalar".into());
        }
        Ok(VExpr::new(Node::Norm(a), false).fold())
    }
    /// `-a`.
    pub fn negative(a: VExpr) -> VExpr {
        let v = a.vector;
        VExpr::new(Node::Neg(a), v).fold()
    }
    /// `dot(a, b)`.
    pub fn dot(a: VExpr, b: VExpr) -> Result<VExpr, String> {
        if !a.vector || !b.vector {
            return Err("dot takes two vectors".into());
        }
        Ok(VExpr::new(Node::Dot(a, b), false).fold())
    }
    /// `cross(a, b)`.
    pub fn cross(a: VExpr, b: VExpr) -> Result<VExpr, String> {
        if !a.vector || !b.vector {
            return Err("cross takes two vectors".into());
        }
        Ok(VExpr::new(Node::Cross(a, b), true).fold())
    }
    /// Component `k` of a vector.
    pub fn comp(a: VExpr, k: usize) -> Result<VExpr, String> {
        if !a.vector {
            return Err("components (.x .y .z) belong to vectors and points".into());
        }
        Ok(VExpr::new(Node::Comp(a, k), false).fold())
    }

    fn kind(&self) -> &'static str {
        if self.vector { "vector" } else { "scalar" }
    }

    /// Replace a constant subgraph by its value.
    fn fold(self) -> VExpr {
        if self.children().iter().all(|c| c.is_const()) && !self.children().is_empty() {
            match self.eval::<f64>(&|_| 0.0, 0.0) {
                Val::S(x) if x.is_finite() => return VExpr::constant(x),
                Val::V(x) if x.iter().all(|c| c.is_finite()) => return VExpr::constant_vec(x),
                _ => {}
            }
        }
        self
    }

    // ---- evaluation ----

    /// The compiled program (compiled on the first call).
    fn compiled(&self) -> &tape::Program {
        self.program
            .get_or_init(|| Arc::new(tape::Program::compile(self)))
    }

    /// The gradient's sweeps of the compiled program (built on the first call).
    fn sweeps(&self) -> &reverse::Sweep {
        (self.sweep).get_or_init(|| Arc::new(reverse::Sweep::of_program(self.compiled())))
    }

    /// Value at coordinates `q(j)` and time `t`, on any dual number type.
    ///
    /// The graph is compiled into a flat postfix program on the first call (see `tape`) and run
    /// on a stack of at most [`MAX_NEED`] values: no recursion, whatever the depth.
    pub fn eval<D: DualNum<Primitive = f64> + Copy>(&self, q: &dyn Fn(usize) -> D, t: D) -> Val<D> {
        let program = self.compiled();
        program.run(q, t)
    }

    /// Value and gradient of a scalar expression by reverse accumulation (NaN for a vector):
    /// `grad(j, ∂f/∂q_j)` is called for each read of coordinate `j` (sum them; `j ≥`
    /// [`VELOCITY`] for velocities). A few evaluations' work on `f64` whatever the number of
    /// coordinates, where forward duals carry one derivative per coordinate.
    ///
    /// ```
    /// use lagrangian::expr::vector::{Sym, VExpr};
    /// // f = |X|³ at X = (1, 2, 2): ∇f = 3|X| X = 9 X
    /// let x = VExpr::pack([VExpr::coord(0), VExpr::coord(1), VExpr::coord(2)]);
    /// let f = VExpr::parse("norm(X)**3", 3, &|n: &str| (n == "X").then(|| Sym::Item(x.clone()))).unwrap();
    /// let mut g = [0.0; 3];
    /// let v = f.gradient(&|j| [1.0, 2.0, 2.0][j], 0.0, &mut |j, d| g[j] += d);
    /// assert!((v - 27.0).abs() < 1e-13);
    /// assert!((g[0] - 9.0).abs() < 1e-13 && (g[1] - 18.0).abs() < 1e-13 && (g[2] - 18.0).abs() < 1e-13);
    /// ```
    pub fn gradient(
        &self,
        q: &dyn Fn(usize) -> f64,
        t: f64,
        grad: &mut dyn FnMut(usize, f64),
    ) -> f64 {
        self.sweeps().gradient(q, t, grad)
    }

    /// Value of a scalar expression `f(t, q, v)` (NaN for a vector) with `∂f/∂q_j` added to
    /// `gq[j]` and `∂f/∂v_j` to `gv[j]`: [`gradient`](VExpr::gradient) on slices, without a
    /// call per coordinate (coordinate `j` reads `q[j]`, [`VELOCITY`]` + j` reads `v[j]`).
    ///
    /// ```
    /// use lagrangian::expr::vector::{Sym, VExpr};
    /// // R = ½ c |q̇|² with c = 3 at v = (1, 2, 2): ∂R/∂v = c v
    /// let v = VExpr::pack([VExpr::velocity(0), VExpr::velocity(1), VExpr::velocity(2)]);
    /// let r = VExpr::parse("3/2*dot(V, V)", 3, &|n: &str| (n == "V").then(|| Sym::Item(v.clone()))).unwrap();
    /// let (mut gq, mut gv) = ([0.0; 3], [0.0; 3]);
    /// let value = r.gradient_into(0.0, &[0.0; 3], &[1.0, 2.0, 2.0], &mut gq, &mut gv);
    /// assert!((value - 13.5).abs() < 1e-13 && gq == [0.0; 3]);
    /// assert!((gv[0] - 3.0).abs() < 1e-13 && (gv[1] - 6.0).abs() < 1e-13 && (gv[2] - 6.0).abs() < 1e-13);
    /// ```
    pub fn gradient_into(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        gq: &mut [f64],
        gv: &mut [f64],
    ) -> f64 {
        self.sweeps().gradient_into(t, q, v, gq, gv)
    }

    /// Value of a scalar expression (NaN for a vector).
    pub fn eval_scalar<D: DualNum<Primitive = f64> + Copy>(
        &self,
        q: &dyn Fn(usize) -> D,
        t: D,
    ) -> D {
        match self.eval(q, t) {
            Val::S(x) => x,
            Val::V(_) => D::from(f64::NAN),
        }
    }

    /// Value of a vector expression (NaN for a scalar).
    pub fn eval_vector<D: DualNum<Primitive = f64> + Copy>(
        &self,
        q: &dyn Fn(usize) -> D,
        t: D,
    ) -> [D; 3] {
        match self.eval(q, t) {
            Val::V(x) => x,
            Val::S(_) => [D::from(f64::NAN); 3],
        }
    }

    /// Directional derivative of a vector expression: `∂x/∂q · dq + ∂x/∂t · dt` (with
    /// `dq = v`, `dt = 1` this is the velocity `ẋ`).
    pub fn tangent<D: DualNum<Primitive = f64> + Copy>(
        &self,
        q: &dyn Fn(usize) -> D,
        dq: &dyn Fn(usize) -> D,
        t: D,
        dt: D,
    ) -> [D; 3] {
        self.value_and_tangent(q, dq, t, dt).1
    }

    /// The value of a vector expression and its [`tangent`](Self::tangent), from one evaluation.
    pub fn value_and_tangent<D: DualNum<Primitive = f64> + Copy>(
        &self,
        q: &dyn Fn(usize) -> D,
        dq: &dyn Fn(usize) -> D,
        t: D,
        dt: D,
    ) -> ([D; 3], [D; 3]) {
        match self.compiled().run_tangent(q, dq, t, dt) {
            (Val::V(x), Val::V(dx)) => (x, dx),
            _ => ([D::from(f64::NAN); 3], [D::from(f64::NAN); 3]),
        }
    }
}

/// A shared leaf that dropped graphs are unlinked onto.
fn placeholder() -> Arc<Node> {
    static LEAF: OnceLock<Arc<Node>> = OnceLock::new();
    LEAF.get_or_init(|| Arc::new(Node::Time)).clone()
}

/// The children of a node, to unlink.
fn children_mut(node: &mut Node) -> Vec<&mut VExpr> {
    match node {
        Node::Coord(_) | Node::Time | Node::Const(_) | Node::ConstVec(_) | Node::Chain(..) => {
            vec![]
        }
        Node::Pack(c) => c.iter_mut().collect(),
        Node::Neg(a) | Node::F(_, a) | Node::Perp(a) | Node::Norm(a) | Node::Comp(a, _) => vec![a],
        Node::Add(a, b)
        | Node::Sub(a, b)
        | Node::Mul(a, b)
        | Node::Div(a, b)
        | Node::Pow(a, b)
        | Node::Atan2(a, b)
        | Node::Dot(a, b)
        | Node::Cross(a, b) => vec![a, b],
    }
}

impl Drop for VExpr {
    /// Frees the graph with a work list: the default drop recurses once per level, which a
    /// chain of thousands of definitions would turn into a stack overflow.
    fn drop(&mut self) {
        if Arc::strong_count(&self.node) > 1 {
            return; // shared: nothing is freed here
        }
        let mut todo = vec![std::mem::replace(&mut self.node, placeholder())];
        while let Some(arc) = todo.pop() {
            if let Ok(mut node) = Arc::try_unwrap(arc) {
                for c in children_mut(&mut node) {
                    todo.push(std::mem::replace(&mut c.node, placeholder()));
                }
            }
        }
    }
}

fn apply<D: DualNum<Primitive = f64> + Copy>(f: Func, x: D) -> D {
    match f {
        Func::Sqrt => x.sqrt(),
        Func::Sin => x.sin(),
        Func::Cos => x.cos(),
        Func::Tan => x.tan(),
        Func::Asin => crate::expr::exact::asin(x),
        Func::Acos => crate::expr::exact::acos(x),
        Func::Atan => x.atan(),
        Func::Exp => x.exp(),
        Func::Ln => x.ln(),
        Func::Abs => x.abs(),
        Func::Wrap => x - wrap_turns(x.re()),
    }
}

/// The whole turns `2π·round(x/2π)` that [`Func::Wrap`] takes off `x` (none within `(−π, π]`).
pub(crate) fn wrap_turns(x: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let k = (x / tau).round();
    // round half away from zero would send π to −π: keep π
    if x - k * tau <= -std::f64::consts::PI {
        (k - 1.0) * tau
    } else {
        k * tau
    }
}

/// `[x, y, z]` of a constant vector expression, if it is one.
pub fn constant_vector(e: &VExpr) -> Option<[f64; 3]> {
    e.as_const_vec()
}

#[cfg(test)]
mod tests;
