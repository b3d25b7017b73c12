//! The course's exercise "implement the exact derivative", checked: a network's Jacobians at its
//! current state from hand-derived kernels (or a matrix a user derived by hand) against the
//! exact ones of forward AD on the same energies — the largest difference and where it is.

use super::MassSpringSystem;
use crate::ad::place::Derivatives;
use crate::assembly;
use crate::error::{Error, OptionError};
use nalgebra::DMatrix;
use serde::Serialize;

/// How far a Jacobian is from the exact one: the largest difference of an entry, relative to
/// the largest exact entry of its block, and where it is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JacobianCheck {
    /// `max |hand − exact|` over the entries compared.
    pub max_difference: f64,
    /// That difference over the largest `|exact|` entry of its block (1 where the block is 0).
    pub relative: f64,
    /// The block it is in: `stiffness` (`∂r/∂q`), `damping` (`∂r/∂v`) or `mass` (`M`); for a
    /// user's matrix, `forces` (`∂F/∂x`).
    pub block: String,
    /// The row's coordinate (`m3.y`).
    pub row: String,
    /// The column's coordinate.
    pub column: String,
}

impl JacobianCheck {
    /// Compare `hand` with `exact`, block by block (named by `blocks`); the coordinates are
    /// `names`. The block with the largest relative difference is reported.
    pub fn compare(
        names: &[String],
        blocks: &[&str],
        hand: &[DMatrix<f64>],
        exact: &[DMatrix<f64>],
    ) -> JacobianCheck {
        let mut worst = JacobianCheck {
            max_difference: 0.0,
            relative: 0.0,
            block: blocks.first().unwrap_or(&"").to_string(),
            row: names.first().cloned().unwrap_or_default(),
            column: names.first().cloned().unwrap_or_default(),
        };
        for ((name, h), e) in blocks.iter().zip(hand).zip(exact) {
            let scale = e.amax();
            let scale = if scale > 0.0 { scale } else { 1.0 };
            for ((r, c), x) in e
                .iter()
                .enumerate()
                .map(|(k, x)| ((k % e.nrows(), k / e.nrows()), x))
            {
                let d = (h[(r, c)] - x).abs();
                if d / scale > worst.relative || (d.is_nan() && !worst.relative.is_nan()) {
                    worst = JacobianCheck {
                        max_difference: d,
                        relative: d / scale,
                        block: name.to_string(),
                        row: names[r].clone(),
                        column: names[c].clone(),
                    };
                }
            }
        }
        worst
    }
}

impl<const D: usize> MassSpringSystem<D> {
    /// The dense `[M, ∂r/∂v, ∂r/∂q]` of the network at its current state (positions, velocities,
    /// accelerations 0), from its hand-derived kernels or by AD; `r = M q̈ − F(q, v)`, so
    /// `∂r/∂q = −∂F/∂q` (forces on the masses: gravity, springs with their damping, loads).
    pub fn jacobians(&self, derivatives: Derivatives) -> Result<[DMatrix<f64>; 3], Error> {
        let model = self.model(derivatives)?;
        let (q, v) = self.state_vectors();
        let a = vec![0.0; q.len()];
        let [_, m, d, k] = assembly::dense_term_blocks(&model, self.time(), &q, &v, &a);
        Ok([m, d, k])
    }

    /// The hand-derived Jacobians of the network's kernels against the exact ones (AD) at the
    /// current state (see [`JacobianCheck`]): what the course's "exact derivative" must match.
    ///
    /// ```
    /// use lagrangian::library::mass_spring::scenes::hanging_chain;
    /// let check = hanging_chain(3).check_jacobian()?;
    /// assert!(check.relative < 1e-12, "{check:?}");
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn check_jacobian(&self) -> Result<JacobianCheck, Error> {
        let names = self.model(Derivatives::Ad)?.coordinate_names().to_vec();
        let hand = self.jacobians(Derivatives::Hand)?;
        let exact = self.jacobians(Derivatives::Ad)?;
        let blocks = ["mass", "damping", "stiffness"];
        Ok(JacobianCheck::compare(&names, &blocks, &hand, &exact))
    }

    /// A user's `∂F/∂x` — the Jacobian of the forces on the masses (gravity, springs with their
    /// damping at the current velocities, loads; no constraint forces) with respect to the
    /// positions, `n × n` in the coordinates' order `m0.x, m0.y, …` — against the exact one at
    /// the current state.
    ///
    /// ```
    /// use lagrangian::library::mass_spring::scenes::hanging_chain;
    /// use lagrangian::library::mass_spring::Derivatives;
    /// let chain = hanging_chain(2);
    /// let [_, _, k] = chain.jacobians(Derivatives::Ad)?;
    /// let mut mine = -k; // ∂F/∂x = −∂r/∂q
    /// mine[(1, 4)] += 0.5; // a slip in the coupling of m0.y and m1.y
    /// let check = chain.check_forces_jacobian(&mine)?;
    /// assert_eq!((check.row.as_str(), check.column.as_str()), ("m0.y", "m1.y"));
    /// assert!((check.max_difference - 0.5).abs() < 1e-12);
    /// # Ok::<(), lagrangian::Error>(())
    /// ```
    pub fn check_forces_jacobian(&self, jacobian: &DMatrix<f64>) -> Result<JacobianCheck, Error> {
        let names = self.model(Derivatives::Ad)?.coordinate_names().to_vec();
        let n = names.len();
        if jacobian.shape() != (n, n) {
            return Err(OptionError::invalid(
                "jacobian",
                format!(
                    "the Jacobian is {} × {}; the network has {n} coordinates, so it must be \
                     {n} × {n}",
                    jacobian.nrows(),
                    jacobian.ncols()
                ),
            )
            .into());
        }
        let [_, _, k] = self.jacobians(Derivatives::Ad)?;
        Ok(JacobianCheck::compare(
            &names,
            &["forces"],
            std::slice::from_ref(jacobian),
            &[-k],
        ))
    }

    /// [`check_forces_jacobian`](Self::check_forces_jacobian) of a `rows × cols` matrix given
    /// row by row (a NumPy array's order).
    pub fn check_forces_jacobian_rows(
        &self,
        rows: usize,
        cols: usize,
        values: &[f64],
    ) -> Result<JacobianCheck, Error> {
        if values.len() != rows.saturating_mul(cols) {
            return Err(OptionError::invalid(
                "jacobian",
                format!("{} values for a {rows} × {cols} matrix", values.len()),
            )
            .into());
        }
        self.check_forces_jacobian(&DMatrix::from_row_slice(rows, cols, values))
    }
}
