//! Pendulums: planar Cartesian (index 3), angle (ODE), driven (rheonomic), double pendulum in
//! angles and in Cartesian coordinates, and the 3D N-pendulum chain.

use super::elements::{AnchoredRod, Particle, Rod};
use crate::error::{Error, ModelError};
use crate::model::{Constraint, Declared, Model};
use nalgebra::SVector;
use num_dual::DualNum;

/// Planar pendulum in Cartesian coordinates `q = (x, y)`, `y` up, pivot at the origin:
/// `L = ½ m |v|² − m g y`, `C = ½(x² + y² − ℓ²)`. Then `λ = m(|v|² − g y)/ℓ²`.
pub fn planar_pendulum(m: f64, l: f64, g: f64) -> Model {
    Model::builder(2)
        .coordinate_names(["x", "y"])
        .term(
            [0, 1],
            Particle {
                mass: m,
                gravity: [0.0, -g],
            },
        )
        .constraint(
            "rod",
            [0, 1],
            AnchoredRod {
                anchor: [0.0, 0.0],
                length: l,
            },
        )
        .build()
        .expect("valid model")
}

/// Pendulum in its angle `θ` from the downward vertical: `L = ½ m ℓ² θ̇² + m g ℓ cos θ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnglePendulum {
    /// Mass.
    pub m: f64,
    /// Length.
    pub l: f64,
    /// Gravity.
    pub g: f64,
}

impl Declared<1> for AnglePendulum {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 1>,
        v: &SVector<D, 1>,
    ) -> D {
        v[0] * v[0] * (0.5 * self.m * self.l * self.l)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 1>) -> D {
        -q[0].cos() * (self.m * self.g * self.l)
    }
    fn has_dissipation_or_force(&self) -> bool {
        false
    }
}

/// The [`AnglePendulum`] as a one-coordinate model.
pub fn angle_pendulum(m: f64, l: f64, g: f64) -> Model {
    Model::builder(1)
        .coordinate_names(["theta"])
        .term([0], AnglePendulum { m, l, g })
        .build()
        .expect("valid model")
}

/// Rod to a pivot driven horizontally, `p(t) = (A sin ωt, 0)`: a rheonomic constraint
/// `C(t, q) = ½(|q − p(t)|² − ℓ²)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrivenRod {
    /// Amplitude `A`.
    pub amplitude: f64,
    /// Angular frequency `ω`.
    pub omega: f64,
    /// Length `ℓ`.
    pub length: f64,
}

impl Constraint<2, 1> for DrivenRod {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, 2>,
    ) -> SVector<D, 1> {
        let px = (t * self.omega).sin() * self.amplitude;
        let dx = q[0] - px;
        SVector::from([(dx * dx + q[1] * q[1] - self.length * self.length) * 0.5])
    }
}

/// Planar pendulum whose pivot is driven horizontally (see [`DrivenRod`]).
pub fn driven_pendulum(m: f64, l: f64, g: f64, amplitude: f64, omega: f64) -> Model {
    Model::builder(2)
        .coordinate_names(["x", "y"])
        .term(
            [0, 1],
            Particle {
                mass: m,
                gravity: [0.0, -g],
            },
        )
        .constraint(
            "driven rod",
            [0, 1],
            DrivenRod {
                amplitude,
                omega,
                length: l,
            },
        )
        .build()
        .expect("valid model")
}

/// Planar double pendulum in angles `(θ₁, θ₂)` from the downward vertical:
///
/// ```text
/// T = ½(m₁+m₂) ℓ₁² θ̇₁² + ½ m₂ ℓ₂² θ̇₂² + m₂ ℓ₁ ℓ₂ θ̇₁ θ̇₂ cos(θ₁−θ₂)
/// V = −(m₁+m₂) g ℓ₁ cos θ₁ − m₂ g ℓ₂ cos θ₂
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DoublePendulum {
    /// Masses.
    pub m: [f64; 2],
    /// Lengths.
    pub l: [f64; 2],
    /// Gravity.
    pub g: f64,
}

impl Declared<2> for DoublePendulum {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, 2>,
        v: &SVector<D, 2>,
    ) -> D {
        let ([m1, m2], [l1, l2]) = (self.m, self.l);
        v[0] * v[0] * (0.5 * (m1 + m2) * l1 * l1)
            + v[1] * v[1] * (0.5 * m2 * l2 * l2)
            + v[0] * v[1] * (q[0] - q[1]).cos() * (m2 * l1 * l2)
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
        let ([m1, m2], [l1, l2]) = (self.m, self.l);
        -(q[0].cos() * ((m1 + m2) * self.g * l1) + q[1].cos() * (m2 * self.g * l2))
    }
    fn has_dissipation_or_force(&self) -> bool {
        false
    }
}

/// The [`DoublePendulum`] as a model.
pub fn double_pendulum_angles(m: [f64; 2], l: [f64; 2], g: f64) -> Model {
    Model::builder(2)
        .coordinate_names(["theta1", "theta2"])
        .term([0, 1], DoublePendulum { m, l, g })
        .build()
        .expect("valid model")
}

/// Planar double pendulum in Cartesian coordinates `(x₁, y₁, x₂, y₂)`, `y` up, with two rods.
pub fn double_pendulum_cartesian(m: [f64; 2], l: [f64; 2], g: f64) -> Model {
    Model::builder(4)
        .coordinate_names(["x1", "y1", "x2", "y2"])
        .term(
            [0, 1],
            Particle {
                mass: m[0],
                gravity: [0.0, -g],
            },
        )
        .term(
            [2, 3],
            Particle {
                mass: m[1],
                gravity: [0.0, -g],
            },
        )
        .constraint(
            "rod1",
            [0, 1],
            AnchoredRod {
                anchor: [0.0, 0.0],
                length: l[0],
            },
        )
        .constraint("rod2", [0, 1, 2, 3], Rod::<2> { length: l[1] })
        .build()
        .expect("valid model")
}

/// Cartesian positions `(x₁, y₁, x₂, y₂)` of the double pendulum at angles `θ`.
pub fn double_pendulum_positions(l: [f64; 2], theta: [f64; 2]) -> [f64; 4] {
    let (x1, y1) = (l[0] * theta[0].sin(), -l[0] * theta[0].cos());
    [
        x1,
        y1,
        x1 + l[1] * theta[1].sin(),
        y1 - l[1] * theta[1].cos(),
    ]
}

/// 3D chain of `N` pendulums in Cartesian coordinates (DAETS): bob `i` at `q[3i..3i+3]`,
/// rods of length `l` between consecutive bobs, the first to the origin, gravity `(0, 0, −g)`.
/// `3N` coordinates, `N` constraints. Errors: no bob, a length list of another size, a mass or
/// length that is not positive and finite, a non-finite `g`.
///
/// ```
/// use lagrangian::library::pendulum::pendulum_chain_3d;
/// let m = pendulum_chain_3d(&[1.0, 2.0], &[0.5, 0.5], 9.81)?;
/// assert_eq!((m.n_coords(), m.n_constraints()), (6, 2));
/// assert!(pendulum_chain_3d(&[1.0, 2.0], &[0.5], 9.81).is_err());
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub fn pendulum_chain_3d(masses: &[f64], lengths: &[f64], g: f64) -> Result<Model, Error> {
    let n = masses.len();
    if n == 0 {
        return Err(ModelError::Empty {
            what: "pendulum chain".into(),
            need: "no bobs (give one mass and one length per bob)".into(),
        }
        .into());
    }
    if n != lengths.len() {
        return Err(ModelError::WrongCount {
            what: "pendulum chain: lengths, one per bob".into(),
            expected: n,
            given: lengths.len(),
        }
        .into());
    }
    for i in 0..n {
        let bob = format!("pendulum chain bob {}", i + 1);
        ModelError::positive(&bob, "mass", masses[i])?;
        ModelError::positive(&bob, "length", lengths[i])?;
    }
    if !g.is_finite() {
        return Err(ModelError::BadValue {
            element: "pendulum chain".into(),
            quantity: "gravity g".into(),
            value: g,
            need: "must be finite".into(),
        }
        .into());
    }
    let mut b = Model::builder(3 * n).coordinate_names(
        (0..n).flat_map(|i| ["x", "y", "z"].map(move |c| format!("{c}{}", i + 1))),
    );
    for i in 0..n {
        let idx = [3 * i, 3 * i + 1, 3 * i + 2];
        b.add_term(
            idx,
            Particle {
                mass: masses[i],
                gravity: [0.0, 0.0, -g],
            },
        );
        if i == 0 {
            b.add_constraint(
                "rod1",
                idx,
                AnchoredRod {
                    anchor: [0.0; 3],
                    length: lengths[0],
                },
            );
        } else {
            let j = 3 * (i - 1);
            b.add_constraint(
                format!("rod{}", i + 1),
                [j, j + 1, j + 2, idx[0], idx[1], idx[2]],
                Rod::<3> { length: lengths[i] },
            );
        }
    }
    Ok(b.build()?)
}
