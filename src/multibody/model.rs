//! A tree as part of a [`Model`]: one group of the assembly whose residual is RNEA's
//! `τ(q, q̇, q̈)` over the tree's coordinates, and the unit-length constraints of its
//! quaternions.
//!
//! The weighted Jacobian `c_M M + c_D ∂τ/∂q̇ + c_K ∂τ/∂q` the implicit methods iterate with is
//! the same recursion on dual numbers, one column per pass: the seed `(c_K e_j, c_D e_j, c_M e_j)`
//! on `(q, q̇, q̈)` gives column `j` — `n` passes of `O(n)` each, no nested types; a matrix of
//! accelerations alone (`c_D = c_K = 0`) is CRBA's `M`. Scratch for both number types is held
//! by the group and sized once.

use super::algorithms::{Articulated, Workspace};
use super::tree::Tree;
use crate::error::ModelError;
use crate::expr::taylor::TaylorVar;
use crate::model::geometry::{CustomPoint, PointMap};
use crate::model::group::{Point, TaylorPoint, Terms};
use crate::model::{ConstraintBlocks, ConstraintKernel, KernelCoefficients, Model, ModelBuilder};
use nalgebra::{DMatrix, SMatrix, SVector};
use num_dual::Dual64;
use std::any::Any;
use std::sync::{Arc, Mutex};

/// The scratch of one evaluation of the group.
struct Scratch {
    f: Workspace<f64>,
    d: Workspace<Dual64>,
    q: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    tau: Vec<f64>,
    qd: Vec<Dual64>,
    vd: Vec<Dual64>,
    ad: Vec<Dual64>,
    taud: Vec<Dual64>,
    m: Vec<f64>,
    art: Articulated,
    qdd: Vec<f64>,
}

/// The tree's equations of motion as a group of the assembly ([`Terms`]).
pub(crate) struct TreeTerms {
    tree: Arc<Tree>,
    /// The model's coordinate of each of the tree's.
    idx: Vec<usize>,
    scratch: Mutex<Scratch>,
    /// The scratch of the residual on Taylor series, made at the Taylor method's first use.
    taylor: Mutex<Option<TaylorScratch>>,
}

/// The scratch of one residual on Taylor series: the tree's inputs and torques and its
/// workspace, kept between the orders and steps of the Taylor method.
struct TaylorScratch {
    ws: Workspace<TaylorVar>,
    q: Vec<TaylorVar>,
    v: Vec<TaylorVar>,
    a: Vec<TaylorVar>,
    tau: Vec<TaylorVar>,
}

impl TreeTerms {
    pub(crate) fn new(tree: Arc<Tree>, idx: Vec<usize>) -> TreeTerms {
        let n = tree.n_coords();
        let zd = vec![Dual64::from(0.0); n];
        let scratch = Scratch {
            f: Workspace::new(&tree),
            d: Workspace::new(&tree),
            q: vec![0.0; n],
            v: vec![0.0; n],
            a: vec![0.0; n],
            tau: vec![0.0; n],
            qd: zd.clone(),
            vd: zd.clone(),
            ad: zd.clone(),
            taud: zd,
            m: vec![0.0; n * n],
            art: Articulated::new(&tree),
            qdd: vec![0.0; n],
        };
        TreeTerms {
            tree,
            idx,
            scratch: Mutex::new(scratch),
            taylor: Mutex::new(None),
        }
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, Scratch> {
        // a panic inside a recursion leaves no broken state: the scratch is rewritten whole
        self.scratch.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn gather(&self, x: &[f64], out: &mut [f64]) {
        for (o, &i) in out.iter_mut().zip(&self.idx) {
            *o = x[i];
        }
    }
    /// `τ` at the point into `s.tau`.
    fn residual(&self, s: &mut Scratch, q: &[f64], v: &[f64], a: &[f64]) {
        let s = &mut *s;
        self.gather(q, &mut s.q);
        self.gather(v, &mut s.v);
        self.gather(a, &mut s.a);
        self.tree.rnea(&mut s.f, &s.q, &s.v, &s.a, &mut s.tau);
    }
    /// Column `j` of `c_M M + c_D ∂τ/∂q̇ + c_K ∂τ/∂q` into `s.taud` (eps parts), after
    /// [`TreeTerms::residual`] filled the local inputs.
    fn column(&self, s: &mut Scratch, j: usize, c: &KernelCoefficients) {
        let s = &mut *s;
        for k in 0..s.q.len() {
            let e = |w: f64| if k == j { w } else { 0.0 };
            s.qd[k] = Dual64::new(s.q[k], e(c.stiffness));
            s.vd[k] = Dual64::new(s.v[k], e(c.damping));
            s.ad[k] = Dual64::new(s.a[k], e(c.mass));
        }
        self.tree.rnea(&mut s.d, &s.qd, &s.vd, &s.ad, &mut s.taud);
    }
    /// The weighted Jacobian, row-major, into `s.m`.
    fn jacobian(&self, s: &mut Scratch, c: &KernelCoefficients) {
        let n = s.q.len();
        if c.damping == 0.0 && c.stiffness == 0.0 {
            let q = std::mem::take(&mut s.q);
            self.tree.crba(&mut s.f, &q, &mut s.m);
            s.q = q;
            s.m.iter_mut().for_each(|x| *x *= c.mass);
            return;
        }
        for j in 0..n {
            self.column(s, j, c);
            for i in 0..n {
                s.m[i * n + j] = s.taud[i].eps;
            }
        }
    }
    fn energies(&self, q: &[f64], v: &[f64]) -> [f64; 3] {
        let mut s = self.lock();
        let s = &mut *s;
        self.gather(q, &mut s.q);
        self.gather(v, &mut s.v);
        let t = self.tree.kinetic(&mut s.f, &s.q, &s.v);
        let pot = self.tree.potential(&mut s.f, &s.q);
        [t, pot, t + pot]
    }
}

/// Trees of at most this many coordinates solve `M x = b` by CRBA and a dense Cholesky
/// factorization (fewer operations: the PUMA 560 and a 10-link chain step 2× faster), larger
/// ones by articulated bodies: `O(n)`, and accurate where `M` is ill-conditioned — a chain
/// of 56 links solved through its dense `M` drives DOP853's step to 1e-8 by the noise of the
/// factorization, articulated bodies take 0.3 s (benches/README.md, "Joint coordinates").
const DENSE_UP_TO: usize = 12;

/// `M x = b` in place (`b` in `x`) by the Cholesky factorization of the symmetric `m`
/// (row-major, overwritten); `Err(k)`: pivot `k` is not positive.
fn cholesky_solve(m: &mut [f64], n: usize, x: &mut [f64]) -> Result<(), usize> {
    let size = (0..n).fold(0.0f64, |a, k| a.max(m[k * n + k].abs()));
    for j in 0..n {
        let mut d = m[j * n + j];
        for k in 0..j {
            d -= m[j * n + k] * m[j * n + k];
        }
        if !(d > 1e-13 * size) || !d.is_finite() {
            return Err(j);
        }
        let d = d.sqrt();
        m[j * n + j] = d;
        for i in j + 1..n {
            let mut s = m[i * n + j];
            for k in 0..j {
                s -= m[i * n + k] * m[j * n + k];
            }
            m[i * n + j] = s / d;
        }
    }
    for i in 0..n {
        let mut s = x[i];
        for k in 0..i {
            s -= m[i * n + k] * x[k];
        }
        x[i] = s / m[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= m[k * n + i] * x[k];
        }
        x[i] = s / m[i * n + i];
    }
    Ok(())
}

impl TreeTerms {
    /// The message of a singular `M` at the tree's coordinate `k`.
    fn singular_at(&self, k: usize) -> String {
        let l = (self.tree.links().iter())
            .position(|l| l.coordinates().contains(&k))
            .unwrap_or(0);
        self.singular_link(l)
    }
    fn singular_link(&self, l: usize) -> String {
        let link = &self.tree.links()[l];
        format!(
            "joint '{}' cannot accelerate body '{}': the inertia it moves along its \
             coordinates is singular (no mass or inertia where the joint moves it)",
            link.joint_name, link.name
        )
    }
}

impl Terms for TreeTerms {
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn len(&self) -> usize {
        1
    }
    fn size(&self) -> usize {
        self.idx.len()
    }
    fn indices(&self, _e: usize) -> &[usize] {
        &self.idx
    }
    fn add_residual(&self, p: &Point, scale: f64, r: &mut [f64]) {
        let mut s = self.lock();
        self.residual(&mut s, p.q, p.v, p.a);
        for (k, &i) in self.idx.iter().enumerate() {
            r[i] += scale * s.tau[k];
        }
    }
    fn constant_mass(&self) -> bool {
        false
    }
    fn add_jacobian(
        &self,
        p: &Point,
        scale: f64,
        c: &KernelCoefficients,
        r: &mut [f64],
        values: &mut [f64],
        slots: &[usize],
    ) {
        let mut s = self.lock();
        let s = &mut *s;
        self.residual(s, p.q, p.v, p.a);
        for (k, &i) in self.idx.iter().enumerate() {
            r[i] += scale * s.tau[k];
        }
        let w = KernelCoefficients {
            mass: scale * c.mass,
            damping: scale * c.damping,
            stiffness: scale * c.stiffness,
        };
        self.jacobian(s, &w);
        for (slot, x) in slots.iter().zip(&s.m) {
            values[*slot] += x;
        }
    }
    fn energy(&self, _t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
        self.energies(q, v)
    }
    fn first_non_finite(&self, p: &Point) -> Option<usize> {
        let mut s = self.lock();
        self.residual(&mut s, p.q, p.v, p.a);
        s.tau.iter().any(|x| !x.is_finite()).then_some(0)
    }
    fn add_momentum(&self, _t: f64, q: &[f64], v: &[f64], p: &mut [f64]) {
        let mut s = self.lock();
        let s = &mut *s;
        self.gather(q, &mut s.q);
        self.gather(v, &mut s.v);
        self.tree.crba(&mut s.f, &s.q, &mut s.m);
        let n = s.q.len();
        for (k, &i) in self.idx.iter().enumerate() {
            p[i] += (0..n).map(|l| s.m[k * n + l] * s.v[l]).sum::<f64>();
        }
    }
    fn power(&self, _t: f64, _q: &[f64], _v: &[f64]) -> [f64; 3] {
        [0.0; 3]
    }
    fn element_force(&self, _e: usize, p: &Point) -> f64 {
        let mut s = self.lock();
        self.residual(&mut s, p.q, p.v, p.a);
        s.tau.iter().fold(0.0f64, |m, x| m.max(x.abs()))
    }
    fn element_power(&self, _e: usize, _t: f64, _q: &[f64], _v: &[f64]) -> [f64; 3] {
        [0.0; 3]
    }
    fn element_energy(&self, _e: usize, _t: f64, q: &[f64], v: &[f64]) -> [f64; 3] {
        self.energies(q, v)
    }
    fn dense_blocks(&self, _e: usize, p: &Point) -> [DMatrix<f64>; 4] {
        let mut s = self.lock();
        let s = &mut *s;
        let n = self.idx.len();
        self.residual(s, p.q, p.v, p.a);
        let r = DMatrix::from_column_slice(n, 1, &s.tau);
        let mut block = |c: KernelCoefficients| {
            self.jacobian(s, &c);
            DMatrix::from_row_slice(n, n, &s.m)
        };
        let one = |k: usize| KernelCoefficients {
            mass: (k == 0) as u8 as f64,
            damping: (k == 1) as u8 as f64,
            stiffness: (k == 2) as u8 as f64,
        };
        [r, block(one(0)), block(one(1)), block(one(2))]
    }
    fn solves_mass(&self) -> bool {
        self.tree.quaternions().is_empty()
    }
    fn singular_mass(&self, q: &[f64]) -> Option<String> {
        let mut s = self.lock();
        let s = &mut *s;
        self.gather(q, &mut s.q);
        let n = s.q.len();
        self.tree.crba(&mut s.f, &s.q, &mut s.m);
        // each joint's diagonal block `Sᵀ I^c S`: the inertia of its subtree along its own
        // coordinates; a quaternion's scale moves nothing — its constraint holds it, so the
        // block gains `c q̂ q̂ᵀ` along it before the test
        (0..self.tree.links().len()).find_map(|l| {
            let link = &self.tree.links()[l];
            let r = link.coordinates();
            let k = r.len();
            let mut d: Vec<f64> = (r.clone())
                .flat_map(|i| r.clone().map(move |j| (i, j)))
                .map(|(i, j)| s.m[i * n + j])
                .collect();
            if let Some(o) = link.kind.quaternion() {
                let qn = &s.q[r.start + o..r.start + o + 4];
                let nq = qn.iter().map(|x| x * x).sum::<f64>();
                let c = (0..k).map(|i| d[i * k + i]).fold(0.0f64, f64::max).max(1.0);
                for a in 0..4 {
                    for b in 0..4 {
                        d[(o + a) * k + o + b] += c * qn[a] * qn[b] / nq;
                    }
                }
            }
            let mut x = vec![0.0; k];
            cholesky_solve(&mut d, k, &mut x)
                .is_err()
                .then(|| self.singular_link(l))
        })
    }
    fn solve_mass(&self, q: &[f64], x: &mut [f64]) -> Result<(), String> {
        let mut s = self.lock();
        let s = &mut *s;
        self.gather(q, &mut s.q);
        self.gather(x, &mut s.a);
        let tree = &self.tree;
        let n = s.q.len();
        if n <= DENSE_UP_TO {
            // CRBA's M and its Cholesky factorization: fewer operations than articulated
            // bodies for small trees
            tree.crba(&mut s.f, &s.q, &mut s.m);
            return match cholesky_solve(&mut s.m, n, &mut s.a) {
                Ok(()) => {
                    for (k, &i) in self.idx.iter().enumerate() {
                        x[i] = s.a[k];
                    }
                    Ok(())
                }
                Err(k) => Err(self.singular_at(k)),
            };
        }
        s.v.fill(0.0);
        match tree.aba(&mut s.art, &s.q, &s.v, &s.a, false, &mut s.qdd) {
            Ok(()) => {
                for (k, &i) in self.idx.iter().enumerate() {
                    x[i] = s.qdd[k];
                }
                Ok(())
            }
            Err(l) => Err(self.singular_link(l)),
        }
    }
    fn forward_dynamics(&self, q: &[f64], v: &[f64], x: &mut [f64]) -> Result<(), String> {
        let mut s = self.lock();
        let s = &mut *s;
        self.gather(q, &mut s.q);
        self.gather(v, &mut s.v);
        self.gather(x, &mut s.a);
        let tree = &self.tree;
        let n = s.q.len();
        if n <= DENSE_UP_TO {
            // small trees: M q̈ = x − b(q, v) by CRBA and Cholesky (fewer operations)
            s.qdd.fill(0.0);
            tree.rnea(&mut s.f, &s.q, &s.v, &s.qdd, &mut s.tau);
            for (a, b) in s.a.iter_mut().zip(&s.tau) {
                *a -= b;
            }
            tree.crba(&mut s.f, &s.q, &mut s.m);
            cholesky_solve(&mut s.m, n, &mut s.a).map_err(|k| self.singular_at(k))?;
            s.qdd.copy_from_slice(&s.a);
        } else {
            tree.aba(&mut s.art, &s.q, &s.v, &s.a, true, &mut s.qdd)
                .map_err(|l| self.singular_link(l))?;
        }
        for (k, &i) in self.idx.iter().enumerate() {
            x[i] = s.qdd[k];
        }
        Ok(())
    }
    fn set_parallel(&mut self, _on: bool, _n: usize) {}
    fn colors(&self) -> usize {
        0
    }
    fn add_taylor_residual(
        &self,
        s: &TaylorPoint,
        r: &mut [TaylorVar],
    ) -> Result<(), &'static str> {
        let mut guard = self.taylor.lock().unwrap_or_else(|e| e.into_inner());
        let t = guard.get_or_insert_with(|| {
            let zero = vec![TaylorVar::from(0.0); self.idx.len()];
            TaylorScratch {
                ws: Workspace::new(&self.tree),
                q: zero.clone(),
                v: zero.clone(),
                a: zero.clone(),
                tau: zero,
            }
        });
        for (k, &i) in self.idx.iter().enumerate() {
            (t.q[k], t.v[k], t.a[k]) = (s.q[i], s.v[i], s.a[i]);
        }
        self.tree.rnea(&mut t.ws, &t.q, &t.v, &t.a, &mut t.tau);
        for (k, &i) in self.idx.iter().enumerate() {
            r[i] += t.tau[k];
        }
        Ok(())
    }
}

/// `½(|q|² − 1) = 0` on a quaternion's four coordinates.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UnitQuaternion;

impl ConstraintKernel<4, 1> for UnitQuaternion {
    fn value(&self, _t: f64, q: &SVector<f64, 4>) -> SVector<f64, 1> {
        SVector::from([0.5 * (q.dot(q) - 1.0)])
    }
    fn jacobian(&self, t: f64, q: &SVector<f64, 4>) -> (SVector<f64, 1>, SMatrix<f64, 1, 4>) {
        (self.value(t, q), q.transpose())
    }
    fn blocks(
        &self,
        t: f64,
        q: &SVector<f64, 4>,
        lambda: &SVector<f64, 1>,
    ) -> ConstraintBlocks<4, 1> {
        ConstraintBlocks {
            c: self.value(t, q),
            jac: q.transpose(),
            hess_lambda: SMatrix::identity() * lambda[0],
        }
    }
    fn time_derivative(&self, _t: f64, _q: &SVector<f64, 4>) -> SVector<f64, 1> {
        SVector::zeros()
    }
    fn gamma(&self, _t: f64, _q: &SVector<f64, 4>, v: &SVector<f64, 4>) -> SVector<f64, 1> {
        SVector::from([v.dot(v)])
    }
    fn taylor_value(
        &self,
        _t: TaylorVar,
        q: &SVector<TaylorVar, 4>,
    ) -> Option<SVector<TaylorVar, 1>> {
        let s = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        Some(SVector::from([(s - 1.0) * 0.5]))
    }
    fn taylor_force(
        &self,
        _t: TaylorVar,
        q: &SVector<TaylorVar, 4>,
        lambda: &SVector<TaylorVar, 1>,
    ) -> Option<SVector<TaylorVar, 4>> {
        Some(q.map(|x| x * lambda[0]))
    }
}

/// `q_a − (multiplier·q_b + offset) = 0`: a coordinate following another (a URDF `mimic`
/// joint, a gear between joint coordinates).
#[derive(Clone, Copy, Debug)]
pub struct Coupling {
    /// Of the followed coordinate.
    pub multiplier: f64,
    /// Added.
    pub offset: f64,
}

impl ConstraintKernel<2, 1> for Coupling {
    fn value(&self, _t: f64, q: &SVector<f64, 2>) -> SVector<f64, 1> {
        SVector::from([q[0] - self.multiplier * q[1] - self.offset])
    }
    fn jacobian(&self, t: f64, q: &SVector<f64, 2>) -> (SVector<f64, 1>, SMatrix<f64, 1, 2>) {
        (self.value(t, q), SMatrix::from([[1.0], [-self.multiplier]]))
    }
    fn blocks(
        &self,
        t: f64,
        q: &SVector<f64, 2>,
        _lambda: &SVector<f64, 1>,
    ) -> ConstraintBlocks<2, 1> {
        let (c, jac) = self.jacobian(t, q);
        ConstraintBlocks {
            c,
            jac,
            hess_lambda: SMatrix::zeros(),
        }
    }
    fn time_derivative(&self, _t: f64, _q: &SVector<f64, 2>) -> SVector<f64, 1> {
        SVector::zeros()
    }
    fn gamma(&self, _t: f64, _q: &SVector<f64, 2>, _v: &SVector<f64, 2>) -> SVector<f64, 1> {
        SVector::zeros()
    }
    fn taylor_value(
        &self,
        _t: TaylorVar,
        q: &SVector<TaylorVar, 2>,
    ) -> Option<SVector<TaylorVar, 1>> {
        Some(SVector::from([q[0] - q[1] * self.multiplier - self.offset]))
    }
    fn taylor_force(
        &self,
        _t: TaylorVar,
        _q: &SVector<TaylorVar, 2>,
        lambda: &SVector<TaylorVar, 1>,
    ) -> Option<SVector<TaylorVar, 2>> {
        Some(SVector::from([lambda[0], lambda[0] * (-self.multiplier)]))
    }
}

impl Tree {
    /// Add the tree to a model being built, on the model's coordinates `first..first + n`:
    /// its equations of motion as one group and a unit-length constraint `joint |q|` per
    /// quaternion. The coordinates are named after the joints.
    pub fn add_to(self: &Arc<Self>, b: &mut ModelBuilder, first: usize) -> Result<(), ModelError> {
        let n = self.n_coords();
        if first + n > b.n_coords() {
            return Err(ModelError::IndexOutOfRange {
                what: "a tree's coordinates".into(),
                index: first + n - 1,
                n: b.n_coords(),
            });
        }
        if n == 0 {
            return Err(ModelError::Empty {
                what: "a tree".into(),
                need: "it needs a joint with a coordinate".into(),
            });
        }
        let idx: Vec<usize> = (first..first + n).collect();
        b.add_terms_group(Box::new(TreeTerms::new(self.clone(), idx)));
        for l in self.links() {
            if let Some(k) = l.kind.quaternion() {
                let at = first + l.offset + k;
                let name = format!("joint {}: |q| = 1", l.joint_name);
                b.add_constraint_kernel(name, &[at, at + 1, at + 2, at + 3], UnitQuaternion);
            }
        }
        Ok(())
    }
    /// The model of the tree alone.
    ///
    /// ```
    /// use lagrangian::multibody::{Joint, RigidBody, Tree};
    /// use std::sync::Arc;
    /// let mut tree = Tree::new([0.0, 0.0, -9.81]);
    /// tree.add("Top", None, "ball", Joint::spherical(), RigidBody::new(1.0, [0.1, 0.1, 0.05]).com([0.0, 0.0, 0.3])).unwrap();
    /// let model = Arc::new(tree).model().unwrap();
    /// assert_eq!((model.n_coords(), model.n_constraints()), (4, 1));
    /// assert_eq!(model.coordinate_names()[0], "ball_qw");
    /// ```
    pub fn model(self: &Arc<Self>) -> Result<Model, ModelError> {
        let mut b =
            Model::builder(self.n_coords()).coordinate_names(self.coordinate_names().to_vec());
        self.add_to(&mut b, 0)?;
        b.build()
    }
}

/// Points and axes of a tree's bodies as [`PointMap`]s for pictures and columns, all reading
/// one forward-kinematics pass per state `(q, q̇)` (each point on its own would cost the whole
/// tree: a row of a long chain its square). The tree's coordinates start at `first` among the
/// model's.
pub struct TreePoints {
    tree: Arc<Tree>,
    first: usize,
    last: Mutex<LastState>,
}

/// The state last evaluated and its kinematics (positions and rates on dual numbers).
struct LastState {
    state: Vec<f64>,
    duals: Vec<Dual64>,
    ws: Workspace<Dual64>,
}

impl TreePoints {
    /// The points of `tree`, whose coordinates start at `first`.
    pub fn new(tree: Arc<Tree>, first: usize) -> Arc<TreePoints> {
        let ws = Workspace::new(&tree);
        Arc::new(TreePoints {
            tree,
            first,
            last: Mutex::new(LastState {
                state: Vec::new(),
                duals: Vec::new(),
                ws,
            }),
        })
    }
    /// The point `local` of link `i`'s body (body frame).
    pub fn point(self: &Arc<Self>, i: usize, local: [f64; 3]) -> PointMap {
        self.map(i, Err(local))
    }
    /// Axis `k` (0: `x`, 1: `y`, 2: `z`) of link `i`'s body frame.
    pub fn axis(self: &Arc<Self>, i: usize, k: usize) -> PointMap {
        self.map(i, Ok(k))
    }
    fn map(self: &Arc<Self>, i: usize, what: Result<usize, [f64; 3]>) -> PointMap {
        let me = self.clone();
        let f = move |q: &[f64], v: &[f64], _t: f64| {
            let n = me.tree.n_coords();
            let (q, v) = (&q[me.first..me.first + n], &v[me.first..me.first + n]);
            let mut guard = me.last.lock().unwrap_or_else(|p| p.into_inner());
            let c = &mut *guard;
            let fresh = c.state.len() == 2 * n && c.state[..n] == *q && c.state[n..] == *v;
            if !fresh {
                c.state.clear();
                c.state.extend_from_slice(q);
                c.state.extend_from_slice(v);
                c.duals.clear();
                c.duals
                    .extend(q.iter().zip(v).map(|(&x, &d)| Dual64::new(x, d)));
                me.tree.kinematics(&mut c.ws, &c.duals);
            }
            let x = me.tree.body_pose(&c.ws, i);
            let e = match what {
                Err(local) => x.point_const(local),
                Ok(k) => [x.r[0][k], x.r[1][k], x.r[2][k]],
            };
            (e.map(|d| d.re), e.map(|d| d.eps))
        };
        PointMap::Custom(CustomPoint(Arc::new(f)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multibody::spatial::{Pose, rot_axis};
    use crate::multibody::{Joint, JointKind, RigidBody};

    /// A tree of a revolute, a universal, a planar and a spherical joint on turned frames.
    fn tree() -> Arc<Tree> {
        let mut t = Tree::new([0.3, -0.2, -9.81]);
        let kinds = [
            JointKind::Revolute,
            JointKind::Universal,
            JointKind::Planar,
            JointKind::Spherical,
        ];
        let mut parent = None;
        for (i, kind) in kinds.into_iter().enumerate() {
            let x = i as f64;
            let at = Pose {
                r: rot_axis(0, 0.4 + x),
                p: [0.1 * x, 0.2, -0.1],
            };
            let body = RigidBody::new(1.0 + x, [0.2, 0.3, 0.4]).com([0.1, -0.05 * x, 0.2]);
            let joint = Joint::new(kind).parent_frame(at).child_frame(Pose {
                r: rot_axis(1, 0.3 * x),
                p: [0.0, 0.05, 0.0],
            });
            let name = format!("B{i}");
            parent = Some(t.add(&name, parent, &format!("j{i}"), joint, body).unwrap());
        }
        Arc::new(t)
    }

    /// A body's point as a chain of the joints from the root: at its pose and moving at its
    /// velocity (the tree's own kinematics on dual numbers, [`TreePoints`]), on a model whose
    /// tree starts at coordinate 3.
    #[test]
    fn chain_points_are_the_kinematics() {
        let tree = tree();
        let n = tree.n_coords();
        let first = 3;
        let f = |k: usize, a: f64| ((k as f64 + 1.0) * a).sin();
        let q: Vec<f64> = (0..first + n).map(|k| f(k, 1.3)).collect();
        let v: Vec<f64> = (0..first + n).map(|k| f(k, 2.1)).collect();
        let points = TreePoints::new(tree.clone(), first);
        for i in 0..tree.links().len() {
            let local = [0.2, -0.1 * i as f64, 0.3];
            let chain = tree.chain_point(i, local, first);
            let (x, xd) = points.point(i, local).position_velocity(&q, &v, 0.0);
            let (y, yd) = chain.pos_tangent(&|j| q[j], &|j| v[j]);
            for k in 0..3 {
                assert!((x[k] - y[k]).abs() < 1e-14, "link {i}: {x:?} vs {y:?}");
                assert!((xd[k] - yd[k]).abs() < 1e-13, "link {i}: {xd:?} vs {yd:?}");
            }
            assert!(chain.coords().iter().all(|&j| j >= first && j < first + n));
        }
    }

    /// The group's `M`, `∂τ/∂q̇` and `∂τ/∂q` (one dual pass per column, and CRBA) against
    /// central differences of its residual.
    #[test]
    fn jacobian_blocks_equal_finite_differences_of_the_residual() {
        let tree = tree();
        let n = tree.n_coords();
        assert_eq!(n, 10);
        let g = TreeTerms::new(tree.clone(), (0..n).collect());
        let f = |k: usize, a: f64| ((k as f64 + 1.0) * a).sin();
        let mut q: Vec<f64> = (0..n).map(|k| f(k, 1.3)).collect();
        q[6] += 1.2;
        let v: Vec<f64> = (0..n).map(|k| f(k, 2.1)).collect();
        let a: Vec<f64> = (0..n).map(|k| f(k, 0.7)).collect();
        let residual = |q: &[f64], v: &[f64], a: &[f64]| {
            let mut r = vec![0.0; n];
            let p = Point {
                t: 0.0,
                q,
                v,
                a,
                lambda: &[],
            };
            g.add_residual(&p, 1.0, &mut r);
            r
        };
        let p = Point {
            t: 0.0,
            q: &q,
            v: &v,
            a: &a,
            lambda: &[],
        };
        let [r, m, d, k] = g.dense_blocks(0, &p);
        let r0 = residual(&q, &v, &a);
        assert!((0..n).all(|i| (r[i] - r0[i]).abs() < 1e-14 * (1.0 + r0[i].abs())));
        let h = 1e-6;
        let mut worst = 0.0f64;
        for j in 0..n {
            for (block, which) in [(&m, 0), (&d, 1), (&k, 2)] {
                let shifted = |s: f64| {
                    let (mut qq, mut vv, mut aa) = (q.clone(), v.clone(), a.clone());
                    [&mut aa, &mut vv, &mut qq][which][j] += s;
                    residual(&qq, &vv, &aa)
                };
                let (up, down) = (shifted(h), shifted(-h));
                for i in 0..n {
                    let fd = (up[i] - down[i]) / (2.0 * h);
                    let scale = 1.0 + block[(i, j)].abs();
                    worst = worst.max((block[(i, j)] - fd).abs() / scale);
                }
            }
        }
        assert!(
            worst < 1e-7,
            "blocks against central differences: {worst:e}"
        );
    }
}
