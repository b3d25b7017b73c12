//! Spatial vectors (Featherstone, *Rigid Body Dynamics Algorithms*, ch. 2) on any number type.
//!
//! A motion `m = (ω, v)` is an angular velocity and the velocity of the point at the frame's
//! origin; a force `f = (n, f)` a moment about the origin and a force; both in the frame's
//! axes. A [`Pose`] places a frame `F` in a frame `G` (`x_G = R x_F + p`) and moves spatial
//! vectors between them: motions `G → F` ([`Pose::motion_in`]) and forces `F → G`
//! ([`Pose::force_out`]), the two maps of the recursive algorithms. Every function is generic
//! over `D: DualNum<Primitive = f64> + Copy`, so the recursions run on dual numbers (their
//! Jacobians) and on Taylor series as they run on `f64`. Arrays, not nalgebra's matrices: the
//! products are written out, with no `α = 1`, `β = 0` multiplications on dual numbers.

use num_dual::DualNum;

/// A number the recursions run on.
pub trait Real: DualNum<Primitive = f64> + Copy {}
impl<D: DualNum<Primitive = f64> + Copy> Real for D {}

/// A 3-vector.
pub type V3<D> = [D; 3];
/// A 3×3 matrix, row-major.
pub type M3<D> = [[D; 3]; 3];

/// `a + b`.
#[inline(always)]
pub fn add<D: Real>(a: V3<D>, b: V3<D>) -> V3<D> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
/// `a − b`.
#[inline(always)]
pub fn sub<D: Real>(a: V3<D>, b: V3<D>) -> V3<D> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
/// `s a`.
#[inline(always)]
pub fn scale<D: Real>(s: D, a: V3<D>) -> V3<D> {
    [a[0] * s, a[1] * s, a[2] * s]
}
/// `a · b`.
#[inline(always)]
pub fn dot<D: Real>(a: V3<D>, b: V3<D>) -> D {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
/// `a × b`.
#[inline(always)]
pub fn cross<D: Real>(a: V3<D>, b: V3<D>) -> V3<D> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
/// `R x`.
#[inline(always)]
pub fn mul<D: Real>(r: &M3<D>, x: V3<D>) -> V3<D> {
    [dot(r[0], x), dot(r[1], x), dot(r[2], x)]
}
/// `Rᵀ x`.
#[inline(always)]
pub fn mul_t<D: Real>(r: &M3<D>, x: V3<D>) -> V3<D> {
    [
        r[0][0] * x[0] + r[1][0] * x[1] + r[2][0] * x[2],
        r[0][1] * x[0] + r[1][1] * x[1] + r[2][1] * x[2],
        r[0][2] * x[0] + r[1][2] * x[1] + r[2][2] * x[2],
    ]
}
/// `A B`.
#[inline(always)]
pub fn mat_mul<D: Real>(a: &M3<D>, b: &M3<D>) -> M3<D> {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j])
    })
}
/// A constant vector on `D`.
#[inline(always)]
pub fn lift<D: Real>(x: [f64; 3]) -> V3<D> {
    x.map(D::from)
}
/// A constant matrix on `D`.
#[inline(always)]
pub fn lift_m<D: Real>(x: &[[f64; 3]; 3]) -> M3<D> {
    x.map(|r| r.map(D::from))
}
/// The zero vector.
#[inline(always)]
pub fn zero<D: Real>() -> V3<D> {
    [D::from(0.0); 3]
}
/// The unit vector along `x`, `x/|x|`, or `None` when `x` is zero or not finite. Scaled by
/// its largest component first, so a direction written as `[0, 1e200, 0]` or `[0, 1e-200, 0]`
/// is `[0, 1, 0]` (the plain `|x|` overflows or underflows there).
///
/// ```
/// use lagrangian::multibody::spatial::direction;
/// assert_eq!(direction([0.0, 1e200, 0.0]), Some([0.0, 1.0, 0.0]));
/// assert_eq!(direction([3e-200, 4e-200, 0.0]).map(|u| u[1]), Some(0.8));
/// assert_eq!(direction([0.0; 3]), None);
/// assert_eq!(direction([f64::INFINITY, 0.0, 0.0]), None);
/// ```
pub fn direction(x: [f64; 3]) -> Option<[f64; 3]> {
    let s = x.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    if !(s > 0.0 && s.is_finite()) {
        return None;
    }
    let w = x.map(|c| c / s);
    let n = dot(w, w).sqrt();
    Some(w.map(|c| c / n))
}
/// The identity.
pub fn identity<D: Real>() -> M3<D> {
    let (o, z) = (D::from(1.0), D::from(0.0));
    [[o, z, z], [z, o, z], [z, z, o]]
}
/// The rotation by `angle` about axis `k` (0: x, 1: y, 2: z): maps the turned frame's
/// coordinates into the first's (the one the model's chain points use).
pub use crate::model::elements::rot_axis;

/// A spatial motion vector: angular velocity `w` and the velocity `v` of the point at the
/// frame's origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion<D> {
    /// Angular part.
    pub w: V3<D>,
    /// Linear part (at the origin).
    pub v: V3<D>,
}

/// A spatial force: moment `n` about the frame's origin and force `f`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Force<D> {
    /// Moment about the origin.
    pub n: V3<D>,
    /// Force.
    pub f: V3<D>,
}

impl<D: Real> Motion<D> {
    /// The zero motion.
    pub fn zero() -> Self {
        Motion {
            w: zero(),
            v: zero(),
        }
    }
    /// `s m`.
    #[inline(always)]
    pub fn scale(self, s: D) -> Motion<D> {
        Motion {
            w: scale(s, self.w),
            v: scale(s, self.v),
        }
    }
    /// The motion cross product `m × m₂ = (ω×ω₂, ω×v₂ + v×ω₂)`.
    #[inline(always)]
    pub fn cross(self, b: Motion<D>) -> Motion<D> {
        Motion {
            w: cross(self.w, b.w),
            v: add(cross(self.w, b.v), cross(self.v, b.w)),
        }
    }
    /// The force cross product `m ×* f = (ω×n + v×f, ω×f)`.
    #[inline(always)]
    pub fn cross_force(self, f: Force<D>) -> Force<D> {
        Force {
            n: add(cross(self.w, f.n), cross(self.v, f.f)),
            f: cross(self.w, f.f),
        }
    }
    /// The power `m · f = ω·n + v·f`.
    #[inline(always)]
    pub fn dot(self, f: Force<D>) -> D {
        dot(self.w, f.n) + dot(self.v, f.f)
    }
}

impl<D: Real> Force<D> {
    /// The zero force.
    pub fn zero() -> Self {
        Force {
            n: zero(),
            f: zero(),
        }
    }
}

impl<D: Real> std::ops::Add for Motion<D> {
    type Output = Motion<D>;
    #[inline(always)]
    fn add(self, b: Motion<D>) -> Motion<D> {
        Motion {
            w: add(self.w, b.w),
            v: add(self.v, b.v),
        }
    }
}

impl<D: Real> std::ops::Add for Force<D> {
    type Output = Force<D>;
    #[inline(always)]
    fn add(self, b: Force<D>) -> Force<D> {
        Force {
            n: add(self.n, b.n),
            f: add(self.f, b.f),
        }
    }
}

/// A frame `F` placed in a frame `G`: `x_G = R x_F + p` (the columns of `R` are `F`'s axes
/// in `G`, `p` its origin).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose<D> {
    /// Rotation: `F`'s coordinates into `G`'s.
    pub r: M3<D>,
    /// `F`'s origin in `G`.
    pub p: V3<D>,
}

impl<D: Real> Pose<D> {
    /// `F = G`.
    pub fn identity() -> Self {
        Pose {
            r: identity(),
            p: zero(),
        }
    }
    /// `self ∘ b`: `b` gives a frame `H` in `F`, the result `H` in `G`.
    #[inline(always)]
    pub fn then(&self, b: &Pose<D>) -> Pose<D> {
        Pose {
            r: mat_mul(&self.r, &b.r),
            p: add(self.p, mul(&self.r, b.p)),
        }
    }
    /// `G` placed in `F`.
    pub fn inverse(&self) -> Pose<D> {
        let rt: M3<D> = std::array::from_fn(|i| std::array::from_fn(|j| self.r[j][i]));
        let p = mul(&rt, self.p);
        Pose {
            r: rt,
            p: [-p[0], -p[1], -p[2]],
        }
    }
    /// A point of `F` in `G`.
    #[inline(always)]
    pub fn point(&self, x: V3<D>) -> V3<D> {
        add(mul(&self.r, x), self.p)
    }
    /// A motion given in `G` expressed in `F`: `(Rᵀω, Rᵀ(v − p × ω))`.
    #[inline(always)]
    pub fn motion_in(&self, m: Motion<D>) -> Motion<D> {
        Motion {
            w: mul_t(&self.r, m.w),
            v: mul_t(&self.r, sub(m.v, cross(self.p, m.w))),
        }
    }
    /// A motion given in `F` expressed in `G`: `(Rω, Rv + p × Rω)`.
    #[inline(always)]
    pub fn motion_out(&self, m: Motion<D>) -> Motion<D> {
        let w = mul(&self.r, m.w);
        Motion {
            w,
            v: add(mul(&self.r, m.v), cross(self.p, w)),
        }
    }
    /// A force given in `F` expressed in `G`: `(Rn + p × Rf, Rf)`.
    #[inline(always)]
    pub fn force_out(&self, f: Force<D>) -> Force<D> {
        let ff = mul(&self.r, f.f);
        Force {
            n: add(mul(&self.r, f.n), cross(self.p, ff)),
            f: ff,
        }
    }
    /// A force given in `G` expressed in `F`: `(Rᵀ(n − p × f), Rᵀf)`.
    #[inline(always)]
    pub fn force_in(&self, f: Force<D>) -> Force<D> {
        Force {
            n: mul_t(&self.r, sub(f.n, cross(self.p, f.f))),
            f: mul_t(&self.r, f.f),
        }
    }
    /// The pose on `D` of a pose on `f64`.
    pub fn lift(c: &Pose<f64>) -> Pose<D> {
        Pose {
            r: lift_m(&c.r),
            p: lift(c.p),
        }
    }
    /// `self ∘ b` with `self` constant: the rotation products on `f64` coefficients.
    #[inline(always)]
    pub fn after_const(c: &Pose<f64>, b: &Pose<D>) -> Pose<D> {
        let r = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                b.r[0][j] * c.r[i][0] + b.r[1][j] * c.r[i][1] + b.r[2][j] * c.r[i][2]
            })
        });
        let bp = b.p;
        let p = std::array::from_fn(|i| {
            bp[0] * c.r[i][0] + bp[1] * c.r[i][1] + bp[2] * c.r[i][2] + c.p[i]
        });
        Pose { r, p }
    }
}

/// The inertia of a rigid body (or of several welded together) about a frame's origin, in its
/// axes: mass `m`, first moment `h = m c` (`c` the centre of mass) and the rotational inertia
/// `i` about the origin (symmetric).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inertia<D> {
    /// Mass.
    pub m: D,
    /// First moment `m c`.
    pub h: V3<D>,
    /// Rotational inertia about the origin.
    pub i: M3<D>,
}

impl<D: Real> Inertia<D> {
    /// No mass.
    pub fn zero() -> Self {
        Inertia {
            m: D::from(0.0),
            h: zero(),
            i: [[D::from(0.0); 3]; 3],
        }
    }
    /// A body's inertia from its mass, centre of mass `c` and rotational inertia `ic` about
    /// the centre: `I_O = I_c + m(|c|²𝟙 − c cᵀ)`.
    pub fn from_body(m: D, c: V3<D>, ic: &M3<D>) -> Self {
        let cc = dot(c, c);
        let i = std::array::from_fn(|r| {
            std::array::from_fn(|s| {
                let d = if r == s { cc } else { D::from(0.0) };
                ic[r][s] + m * (d - c[r] * c[s])
            })
        });
        Inertia {
            m,
            h: scale(m, c),
            i,
        }
    }
    /// The momentum `I m = (I_O ω + h × v, m v − h × ω)`.
    #[inline(always)]
    pub fn apply(&self, m: Motion<D>) -> Force<D> {
        Force {
            n: add(mul(&self.i, m.w), cross(self.h, m.v)),
            f: sub(scale(self.m, m.v), cross(self.h, m.w)),
        }
    }
    /// `a + b`.
    pub fn add(&self, b: &Inertia<D>) -> Inertia<D> {
        Inertia {
            m: self.m + b.m,
            h: add(self.h, b.h),
            i: std::array::from_fn(|r| std::array::from_fn(|s| self.i[r][s] + b.i[r][s])),
        }
    }
    /// The inertia given in a frame `F` expressed in `G`, where `pose` places `F` in `G`:
    /// `h' = R h + m p`, `I' = R I Rᵀ − [h']×[p]× − [p]×[R h]×`.
    pub fn out(&self, pose: &Pose<D>) -> Inertia<D> {
        let (r, p) = (&pose.r, pose.p);
        let rh = mul(r, self.h);
        let ri = mat_mul(r, &self.i);
        let rirt: M3<D> = std::array::from_fn(|a| std::array::from_fn(|b| dot(ri[a], r[b])));
        let h = add(rh, scale(self.m, p));
        // −[h']×[p]× − [p]×[Rh]× = (h'·p + p·Rh)𝟙 − p h'ᵀ − Rh pᵀ, written out
        let s = dot(h, p) + dot(p, rh);
        let i = std::array::from_fn(|a| {
            std::array::from_fn(|b| {
                let d = if a == b { s } else { D::from(0.0) };
                rirt[a][b] + d - p[a] * h[b] - rh[a] * p[b]
            })
        });
        Inertia { m: self.m, h, i }
    }
    /// The kinetic energy `½ m·I m` of a motion.
    pub fn energy(&self, m: Motion<D>) -> D {
        m.dot(self.apply(m)) * 0.5
    }
    /// On `D` from `f64`.
    pub fn lift(c: &Inertia<f64>) -> Inertia<D> {
        Inertia {
            m: D::from(c.m),
            h: lift(c.h),
            i: lift_m(&c.i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pose() -> Pose<f64> {
        Pose {
            r: mat_mul(&rot_axis(2, 0.7), &rot_axis(0, -0.4)),
            p: [0.3, -1.2, 0.5],
        }
    }

    /// Power is frame-independent, the transforms invert each other, and the inertia moved
    /// between frames gives the same kinetic energy and the momentum moved as a force.
    #[test]
    fn transforms_keep_power_energy_and_momentum() {
        let x = pose();
        let m = Motion {
            w: [0.2, -0.5, 1.1],
            v: [1.0, 0.4, -0.3],
        };
        let f = Force {
            n: [0.7, 0.1, -0.2],
            f: [-0.6, 2.0, 0.9],
        };
        // m given in G, f in F: m_F·f_F = m_G·f_G
        let p1 = x.motion_in(m).dot(f);
        let p2 = m.dot(x.force_out(f));
        assert!((p1 - p2).abs() < 1e-14);
        let back = x.motion_out(x.motion_in(m));
        let fb = x.force_in(x.force_out(f));
        for k in 0..3 {
            assert!((back.w[k] - m.w[k]).abs() < 1e-14 && (back.v[k] - m.v[k]).abs() < 1e-14);
            assert!((fb.n[k] - f.n[k]).abs() < 1e-14 && (fb.f[k] - f.f[k]).abs() < 1e-14);
        }
        let inv = x.inverse();
        let m2 = inv.motion_in(x.motion_in(m));
        assert!((m2.w[0] - m.w[0]).abs() < 1e-14 && (m2.v[2] - m.v[2]).abs() < 1e-14);
        // a body in F, its motion in F; the same in G
        let ic = [[0.3, 0.01, 0.0], [0.01, 0.2, 0.02], [0.0, 0.02, 0.4]];
        let body = Inertia::from_body(2.5, [0.1, -0.2, 0.3], &ic);
        let mf = x.motion_in(m);
        let body_g = body.out(&x);
        assert!((body.energy(mf) - body_g.energy(m)).abs() < 1e-13);
        let hf = x.force_out(body.apply(mf));
        let hg = body_g.apply(m);
        for k in 0..3 {
            assert!((hf.n[k] - hg.n[k]).abs() < 1e-13 && (hf.f[k] - hg.f[k]).abs() < 1e-13);
        }
        // the kinetic energy of the body from its centre: ½ m |v_c|² + ½ ωᵀ I_c ω
        let vc = add(mf.v, cross(mf.w, [0.1, -0.2, 0.3]));
        let t = 0.5 * 2.5 * dot(vc, vc) + 0.5 * dot(mf.w, mul(&ic, mf.w));
        assert!((body.energy(mf) - t).abs() < 1e-14);
    }
}
