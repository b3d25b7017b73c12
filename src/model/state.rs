//! The state of a mechanism at one instant.

use serde::Serialize;

/// A consistent state of a mechanism: time, coordinates, velocities, accelerations, multipliers.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct State {
    /// Time `t`.
    pub t: f64,
    /// Generalized coordinates `q`.
    pub q: Vec<f64>,
    /// Generalized velocities `v = q̇`.
    pub v: Vec<f64>,
    /// Accelerations `q̈`.
    pub qdd: Vec<f64>,
    /// Lagrange multipliers `λ` (sign convention: the residual contains `+C_qᵀλ`).
    pub lambda: Vec<f64>,
}

impl State {
    /// A borrowed view of this state.
    pub fn view(&self) -> StateView<'_> {
        StateView {
            t: self.t,
            q: &self.q,
            v: &self.v,
            qdd: &self.qdd,
            lambda: &self.lambda,
        }
    }
}

/// A borrowed state: what an integrator exposes after each step without copying.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateView<'a> {
    /// Time `t`.
    pub t: f64,
    /// Generalized coordinates `q`.
    pub q: &'a [f64],
    /// Generalized velocities `v`.
    pub v: &'a [f64],
    /// Accelerations `q̈`.
    pub qdd: &'a [f64],
    /// Lagrange multipliers `λ`.
    pub lambda: &'a [f64],
}

impl StateView<'_> {
    /// An owned copy.
    pub fn to_state(&self) -> State {
        State {
            t: self.t,
            q: self.q.to_vec(),
            v: self.v.to_vec(),
            qdd: self.qdd.to_vec(),
            lambda: self.lambda.to_vec(),
        }
    }
}
