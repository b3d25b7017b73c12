//! The car axis (Test Set for IVP solvers, Mazzia & Magherini; Hairer & Wanner, *Solving ODEs
//! II*, §VII.1): a stiff index-3 mechanism of four coordinates and two constraints.
//!
//! Two wheels at `(x_l, y_l)` and `(x_r, y_r)` carry an axle of length `L`; each wheel hangs
//! from a spring of stiffness 1 and rest length `L₀` — the left one from the origin, the right
//! one from the point `B(t) = (x_b, y_b)` that a bumpy road moves, `y_b = r sin ωt`,
//! `x_b = √(L² − y_b²)`. The left wheel stays on the line through the origin normal to `B`.
//! With `k = M ε²/2` the mass of each wheel and `g` gravity,
//!
//! ```text
//! T = ½ k (ẋ_l² + ẏ_l² + ẋ_r² + ẏ_r²)
//! V = ½ (L_l − L₀)² + ½ (L_r − L₀)² + k g (y_l + y_r),  L_l = |(x_l, y_l)|, L_r = |(x_r, y_r) − B|
//! C = ( x_b x_l + y_b y_l,  (x_l − x_r)² + (y_l − y_r)² − L² )
//! ```
//!
//! The small `ε` makes the springs stiff against the wheels' masses (frequencies of order
//! `1/ε`): the Test Set's stiff index-3 case. Its multipliers are the negatives of this
//! toolkit's (`M q̈ = f + Gᵀλ` there, `M q̈ = f − Gᵀλ` here).

#![allow(clippy::excessive_precision)] // published values, kept as printed

use crate::model::{Constraint, Declared, Model, Structure};
use nalgebra::SVector;
use num_dual::DualNum;

/// The car axis's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CarAxis {
    /// The stiffness parameter `ε` (default 1e-2).
    pub eps: f64,
    /// The axle's mass parameter `M` (default 10): each wheel's mass is `k = M ε²/2`.
    pub mass: f64,
    /// The axle's length `L` (default 1).
    pub length: f64,
    /// The springs' rest length `L₀` (default 1/2).
    pub rest: f64,
    /// The road's amplitude `r` (default 0.1).
    pub amplitude: f64,
    /// The road's angular frequency `ω` (default 10).
    pub omega: f64,
    /// Gravity `g` (default 1).
    pub g: f64,
}

impl Default for CarAxis {
    fn default() -> Self {
        CarAxis {
            eps: 1e-2,
            mass: 10.0,
            length: 1.0,
            rest: 0.5,
            amplitude: 0.1,
            omega: 10.0,
            g: 1.0,
        }
    }
}

/// `y(3)` of the Test Set (computed there by RADAU5 with tight tolerances): positions
/// `(x_l, y_l, x_r, y_r)`.
pub const TEST_SET_Q_END: [f64; 4] = [
    0.4934557842755629e-1,
    0.4969894602303324,
    0.1041742524885400e1,
    0.3739110272652214,
];
/// `y(3)` of the Test Set: velocities.
pub const TEST_SET_V_END: [f64; 4] = [
    -0.7705836840321485e-1,
    0.7446866596327776e-2,
    0.1755681574942899e-1,
    0.7703410437794031,
];
/// `y(3)` of the Test Set: its multipliers, the negatives of this toolkit's `λ`.
pub const TEST_SET_LAMBDA_END: [f64; 2] = [-0.4736886750784630e-2, -0.1104680411345730e-2];

impl CarAxis {
    /// Each wheel's mass `k = M ε²/2`.
    pub fn wheel_mass(&self) -> f64 {
        self.mass * self.eps * self.eps / 2.0
    }
    /// The road point `B(t) = (√(L² − y_b²), r sin ωt)`.
    pub fn road<D: DualNum<Primitive = f64> + Copy>(&self, t: D) -> (D, D) {
        let yb = (t * self.omega).sin() * self.amplitude;
        ((yb * yb * -1.0 + self.length * self.length).sqrt(), yb)
    }
    /// The Test Set's consistent start: `q = (0, L₀, L, L₀)`, `v = (−L₀/L, 0, −L₀/L, 0)`.
    pub fn start(&self) -> ([f64; 4], [f64; 4]) {
        let (l, l0) = (self.length, self.rest);
        ([0.0, l0, l, l0], [-l0 / l, 0.0, -l0 / l, 0.0])
    }
}

impl Declared<4> for CarAxis {
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, 4>,
        v: &SVector<D, 4>,
    ) -> D {
        v.dot(v) * (0.5 * self.wheel_mass())
    }
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, t: D, q: &SVector<D, 4>) -> D {
        let (xb, yb) = self.road(t);
        let ll = (q[0] * q[0] + q[1] * q[1]).sqrt() - self.rest;
        let dx = q[2] - xb;
        let dy = q[3] - yb;
        let lr = (dx * dx + dy * dy).sqrt() - self.rest;
        (ll * ll + lr * lr) * 0.5 + (q[1] + q[3]) * (self.wheel_mass() * self.g)
    }
    fn has_dissipation_or_force(&self) -> bool {
        false
    }
    fn structure(&self) -> Structure {
        Structure::ConstantMass
    }
}

impl Constraint<4, 2> for CarAxis {
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, 4>,
    ) -> SVector<D, 2> {
        let (xb, yb) = self.road(t);
        let (dx, dy) = (q[0] - q[2], q[1] - q[3]);
        SVector::from([
            xb * q[0] + yb * q[1],
            dx * dx + dy * dy - self.length * self.length,
        ])
    }
}

/// The car axis as a model: coordinates `xl, yl, xr, yr`, constraint rows `axle[0]` (the left
/// wheel on its line) and `axle[1]` (the axle's length).
///
/// ```
/// use lagrangian::library::car_axis::{car_axis_model, CarAxis};
/// use lagrangian::solve::StateSolver;
/// use lagrangian::problem::LinearSolverKind;
/// // at the start the springs are at rest length, so only gravity and the axle act:
/// // the wheels fall freely, ÿ = −g, with the multipliers zero
/// let model = car_axis_model(CarAxis::default());
/// let (q, v) = CarAxis::default().start();
/// let mut s = StateSolver::new(&model, LinearSolverKind::Auto);
/// let (qdd, lambda) = s.solve(&model, 0.0, &q, &v)?;
/// assert!((qdd[1] + 1.0).abs() < 1e-10 && (qdd[3] + 1.0).abs() < 1e-10);
/// assert!(lambda.iter().all(|l| l.abs() < 1e-12));
/// # Ok::<(), lagrangian::Error>(())
/// ```
pub fn car_axis_model(p: CarAxis) -> Model {
    Model::builder(4)
        .coordinate_names(["xl", "yl", "xr", "yr"])
        .term([0, 1, 2, 3], p)
        .constraint("axle", [0, 1, 2, 3], p)
        .build()
        .expect("valid model")
}
