//! A rigid body in 3D on natural coordinates: three basic items (a point and two points or
//! vectors) whose world positions are coordinates, held rigid by three constraints.

use super::points::{cross, three};
use super::{Frame, Points};
use crate::error::ModelError;
use crate::expr::VExpr;
use crate::model::{Constraint, Declared, KineticForm, Structure};
use nalgebra::{Matrix3, SVector};
use num_dual::DualNum;

/// A rigid body in 3D tracked by the world positions of three basic items `[A, B, C]`
/// ([`Frame`]; natural coordinates as in DAETS, Nedialkov & Pryce). With the rotation
/// `Q = [i, j, k]` of the frame and the centroid `c` in the body frame, `G = A + Q c` and
///
/// ```text
/// T = ½ m |Ġ|² + ½ Σ_ab J_ab q̇_a·q̇_b,   V = −m g·G,
/// ```
///
/// with `q_a` the columns of `Q` and `J = ½ tr(I_G) 𝟙 − I_G` the second moment of the mass
/// about the centroid in the body frame (`Σ_ab J_ab q̇_a·q̇_b = ωᵀ I_G ω`). Hold the body rigid
/// with [`rigidity`](Self::rigidity).
///
/// ```
/// use lagrangian::model::elements::{Frame, Points, RigidBody3};
/// use lagrangian::ad::term_energy;
/// // a body with principal inertia (1, 2, 3) about its centroid at A, spinning at ω = 2
/// // about z: B = (1, 0, 0) moves at (0, 2, 0), C = (0, 1, 0) at (−2, 0, 0).
/// let body = RigidBody3::new(
///     Points::plain(3, 3), Frame::points(1.0, [0.0, 1.0]), 5.0, [0.0; 3],
///     [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]], [0.0, 0.0, -9.81],
/// ).unwrap();
/// let q = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
/// let v = [0.0, 0.0, 0.0, 0.0, 2.0, 0.0, -2.0, 0.0, 0.0];
/// let [t, _, _] = term_energy::<_, 9>(&body, 0.0, &q, &v);
/// assert!((t - 0.5 * 3.0 * 4.0).abs() < 1e-12); // ½ I_zz ω²
/// ```
#[derive(Clone, Debug)]
pub struct RigidBody3 {
    /// The basic items `A`, `B`, `C` (as points: a vector item is the point at its tip).
    pub items: Points,
    /// The body frame.
    pub frame: Frame,
    /// Mass `m`.
    pub mass: f64,
    /// The centroid `c` in the body frame.
    pub centroid: [f64; 3],
    /// Second moment `J = ½ tr(I_G) 𝟙 − I_G` about the centroid, body frame.
    pub second_moment: [[f64; 3]; 3],
    /// Gravity vector (acceleration).
    pub gravity: [f64; 3],
}

impl RigidBody3 {
    /// A body of mass `m > 0` with the inertia tensor `I_G` about its centroid `c` (both in the
    /// body frame). `I_G` must be symmetric with principal moments `≥ 0`, each at most the sum
    /// of the other two (`J` positive semidefinite).
    pub fn new(
        items: Points,
        frame: Frame,
        mass: f64,
        centroid: [f64; 3],
        inertia: [[f64; 3]; 3],
        gravity: [f64; 3],
    ) -> Result<Self, ModelError> {
        frame.check()?;
        ModelError::positive("3D body", "mass", mass)?;
        if items.list.len() != 3 || items.dim != 3 {
            return Err(ModelError::BadGeometry {
                element: "3D body".into(),
                detail: "a 3D body has three basic items in three dimensions".into(),
            });
        }
        let second_moment = second_moment(inertia)?;
        Ok(RigidBody3 {
            items,
            frame,
            mass,
            centroid,
            second_moment,
            gravity,
        })
    }

    /// The three rigidity constraints of the basic items ([`Rigidity3`]).
    pub fn rigidity(&self) -> Rigidity3 {
        Rigidity3 {
            items: self.items.clone(),
            frame: self.frame,
        }
    }
}

fn inertia_error(detail: &str) -> ModelError {
    ModelError::BadGeometry {
        element: "3D body".into(),
        detail: detail.into(),
    }
}

/// `J = ½ tr(I) 𝟙 − I` from the inertia tensor `I` about the centroid, checked physical.
pub fn second_moment(inertia: [[f64; 3]; 3]) -> Result<[[f64; 3]; 3], ModelError> {
    let im = Matrix3::from_fn(|r, c| inertia[r][c]);
    if !im.iter().all(|x| x.is_finite()) {
        return Err(inertia_error("the inertia must be finite"));
    }
    if (im - im.transpose()).abs().max() > 1e-12 * im.abs().max().max(1.0) {
        return Err(inertia_error("the inertia matrix must be symmetric"));
    }
    let jm = Matrix3::identity() * (0.5 * im.trace()) - im;
    let tol = 1e-12 * im.abs().max().max(f64::MIN_POSITIVE);
    if jm.symmetric_eigenvalues().min() < -tol {
        return Err(inertia_error(
            "not a physical inertia tensor: the principal moments must be ≥ 0 and each at most \
             the sum of the other two",
        ));
    }
    Ok(std::array::from_fn(|r| std::array::from_fn(|c| jm[(r, c)])))
}

impl<const N: usize> Declared<N> for RigidBody3 {
    const KINETIC: KineticForm = KineticForm::Function;
    fn kinetic<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> T {
        let p = &self.items;
        let [(x0, v0), (x1, v1), (x2, v2)] = three(|k| p.pos_vel(k, q, v, t));
        let (x, xd) = ([x0, x1, x2], [v0, v1, v2]);
        let [i, j] = self.frame.columns(&x);
        let [di, dj] = self.frame.columns(&xd);
        let (a, b) = (cross(&di, &j), cross(&i, &dj));
        let dk: [T; 3] = three(|k| a[k] + b[k]);
        let dq = [di, dj, dk];
        let c = &self.centroid;
        let vg: [T; 3] = three(|k| xd[0][k] + dq[0][k] * c[0] + dq[1][k] * c[1] + dq[2][k] * c[2]);
        let mut rot = T::from(0.0);
        for (r, row) in self.second_moment.iter().enumerate() {
            for (s, &jrs) in row.iter().enumerate() {
                if jrs != 0.0 {
                    rot += p.dot(&dq[r], &dq[s]) * jrs;
                }
            }
        }
        (p.dot(&vg, &vg) * self.mass + rot) * 0.5
    }
    fn potential<T: DualNum<Primitive = f64> + Copy>(&self, t: T, q: &SVector<T, N>) -> T {
        if self.gravity == [0.0; 3] {
            return T::from(0.0); // no field: nothing to evaluate
        }
        let p = &self.items;
        let x = three(|k| p.pos(k, q, t));
        let [i, j] = self.frame.columns(&x);
        let k = cross(&i, &j);
        let c = &self.centroid;
        let g: [T; 3] = three(|r| x[0][r] + i[r] * c[0] + j[r] * c[1] + k[r] * c[2]);
        p.grav(&g, self.mass, &self.gravity)
    }
    fn has_dissipation_or_force(&self) -> bool {
        false
    }
    fn structure(&self) -> Structure {
        Structure::PointMasses
    }
    /// `T = ½ m |Ȧ + Σ_r c_r q̇_r|² + ½ Σ_rs J_rs q̇_r·q̇_s` over `(A, i, j, k)`.
    fn point_mass_matrix(&self) -> [[f64; 4]; 4] {
        let (m, c, j) = (self.mass, &self.centroid, &self.second_moment);
        std::array::from_fn(|a| {
            std::array::from_fn(|b| match (a, b) {
                (0, 0) => m,
                (0, s) => m * c[s - 1],
                (r, 0) => m * c[r - 1],
                (r, s) => m * c[r - 1] * c[s - 1] + j[r - 1][s - 1],
            })
        })
    }
    /// The point `A` and the frame vectors `i`, `j`, `k = i × j`.
    fn mass_points<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
    ) -> [[T; 3]; 4] {
        let x = three(|k| self.items.pos(k, q, t));
        let [i, j] = self.frame.columns(&x);
        let k = cross(&i, &j);
        [x[0], i, j, k]
    }
}

/// The rigidity of a 3D body's basic items ([`Frame`]): with `B̃ = B − A` (or `B`) and
/// `C̃ = C − A` (or `C`),
///
/// ```text
/// C₀ = ½ (|B̃|² − b²),   C₁ = ½ (|C̃|² − c₁² − c₂²),   C₂ = B̃·C̃ − b c₁.
/// ```
///
/// ```
/// use lagrangian::model::elements::{Frame, Points, Rigidity3};
/// use lagrangian::ad::constraint_blocks;
/// let r = Rigidity3 { items: Points::plain(3, 3), frame: Frame::points(2.0, [1.0, 1.0]) };
/// // A = 0, B = (2, 0, 0), C = (1, 1, 0) fit the frame; C moved to (1, 2, 0) does not
/// let ok = constraint_blocks::<_, 9, 3>(&r, 0.0, &[0., 0., 0., 2., 0., 0., 1., 1., 0.], &[0.0; 3]);
/// assert!(ok.c.norm() < 1e-15);
/// let bad = constraint_blocks::<_, 9, 3>(&r, 0.0, &[0., 0., 0., 2., 0., 0., 1., 2., 0.], &[0.0; 3]);
/// assert!((bad.c[1] - 1.5).abs() < 1e-15 && bad.c[2].abs() < 1e-15);
/// ```
#[derive(Clone, Debug)]
pub struct Rigidity3 {
    /// The basic items.
    pub items: Points,
    /// The body frame.
    pub frame: Frame,
}

impl Rigidity3 {
    /// Row `row` (0, 1 or 2) of the constraint.
    pub(crate) fn row<T: DualNum<Primitive = f64> + Copy, const N: usize>(
        &self,
        row: usize,
        t: T,
        q: &SVector<T, N>,
    ) -> T {
        let p = &self.items;
        let x = three(|k| p.pos(k, q, t));
        let [bt, ct] = self.frame.relative(&x);
        let (b, c) = (self.frame.b, self.frame.c);
        match row {
            0 => (p.dot(&bt, &bt) - b * b) * 0.5,
            1 => (p.dot(&ct, &ct) - (c[0] * c[0] + c[1] * c[1])) * 0.5,
            _ => p.dot(&bt, &ct) - b * c[0],
        }
    }
}

impl<const N: usize> Constraint<N, 3> for Rigidity3 {
    fn constraint<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
    ) -> SVector<T, 3> {
        SVector::from([self.row(0, t, q), self.row(1, t, q), self.row(2, t, q)])
    }
}

/// One row of [`Rigidity3`] as a constraint of its own (a named row; rows between fixed
/// items are left out).
#[derive(Clone, Debug)]
pub struct RigidityRow {
    /// The body's rigidity.
    pub rigidity: Rigidity3,
    /// Which row (0, 1, 2).
    pub row: usize,
}

impl<const N: usize> Constraint<N, 1> for RigidityRow {
    fn constraint<T: DualNum<Primitive = f64> + Copy>(
        &self,
        t: T,
        q: &SVector<T, N>,
    ) -> SVector<T, 1> {
        SVector::from([self.rigidity.row(self.row, t, q)])
    }
}

impl Frame {
    /// The world position of the body-frame point `x` as an expression, `A + x₀ i + x₁ j +
    /// x₂ k`, given the expressions of the basic items.
    pub fn world_point(&self, items: &[VExpr; 3], x: [f64; 3]) -> VExpr {
        let ex = |r: Result<VExpr, String>| r.expect("well-typed vector expressions");
        let cst = VExpr::constant;
        let rel = |e: &VExpr, point: bool| {
            if point {
                ex(VExpr::sum(e.clone(), items[0].clone(), true))
            } else {
                e.clone()
            }
        };
        let (bt, ct) = (rel(&items[1], self.b_point), rel(&items[2], self.c_point));
        let i = ex(VExpr::quotient(bt, cst(self.b)));
        let j = ex(VExpr::quotient(
            ex(VExpr::sum(
                ct,
                ex(VExpr::product(cst(self.c[0]), i.clone())),
                true,
            )),
            cst(self.c[1]),
        ));
        let k = ex(VExpr::cross(i.clone(), j.clone()));
        let mut pt = items[0].clone();
        for (c, axis) in [(x[0], &i), (x[1], &j), (x[2], &k)] {
            if c != 0.0 {
                pt = ex(VExpr::sum(
                    pt,
                    ex(VExpr::product(cst(c), axis.clone())),
                    false,
                ));
            }
        }
        pt
    }
}
