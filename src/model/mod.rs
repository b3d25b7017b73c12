//! What a mechanism *is*: generalized coordinates, Lagrangian terms, holonomic constraints.
//!
//! A model is a sum of [`Term`]s, each acting on a few of the `n` generalized coordinates, plus a
//! list of [`Constraint`]s `C(t, q_I) = 0`, each over a few coordinates and with its own Lagrange
//! multipliers (Exudyn's assembly principle: contributions are summed per coordinate index).
//! Every user function is generic over `D: DualNum<Primitive = f64> + Copy`, so the toolkit can
//! evaluate it on nested dual numbers and obtain exact derivatives.
//!
//! A small system is one term over all its coordinates:
//!
//! ```
//! use lagrangian::prelude::*;
//!
//! /// Planar pendulum in Cartesian coordinates (x, y), y up.
//! struct Pendulum { m: f64, l: f64, g: f64 }
//!
//! impl Term<2> for Pendulum {
//!     fn kinetic<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, 2>, v: &SVector<D, 2>) -> D {
//!         v.dot(v) * (0.5 * self.m)
//!     }
//!     fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> D {
//!         q[1] * (self.m * self.g)
//!     }
//! }
//! impl Constraint<2, 1> for Pendulum {
//!     fn constraint<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, q: &SVector<D, 2>) -> SVector<D, 1> {
//!         SVector::from([(q.dot(q) - self.l * self.l) * 0.5])
//!     }
//! }
//!
//! let p = Pendulum { m: 1.0, l: 1.0, g: 9.81 };
//! let model = Model::builder(2)
//!     .term([0, 1], Pendulum { ..p })
//!     .constraint("rod", [0, 1], p)
//!     .build()
//!     .unwrap();
//! assert_eq!((model.n_coords(), model.n_constraints()), (2, 1));
//! ```

pub mod elements;
pub mod geometry;
pub mod kernel;
mod state;

use crate::error::ModelError;
pub use kernel::{ConstraintKernel, ConstraintSlots, KernelCoefficients, TermKernel};
use nalgebra::SVector;
use num_dual::DualNum;
pub use state::{State, StateView};

/// A contribution to the Lagrangian over `N` local coordinates.
///
/// Implement [`kinetic`](Term::kinetic) `T(t,q,v)` and [`potential`](Term::potential) `V(t,q)`,
/// or override [`lagrangian`](Term::lagrangian) `L = T − V` directly. Optional: Rayleigh
/// dissipation `R(t,q,v)` (adds `∂R/∂v` to the residual) and generalized forces `Q(t,q,v)`
/// (non-conservative, subtracted from the residual). Every method has a zero default.
///
/// The Euler–Lagrange residual contributed by the term is
/// `r = d/dt ∂L/∂v − ∂L/∂q + ∂R/∂v − Q`.
pub trait Term<const N: usize>: Send + Sync {
    /// Kinetic energy `T(t, q, v)`.
    fn kinetic<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
        _v: &SVector<D, N>,
    ) -> D {
        D::from(0.0)
    }
    /// Potential energy `V(t, q)`.
    fn potential<D: DualNum<Primitive = f64> + Copy>(&self, _t: D, _q: &SVector<D, N>) -> D {
        D::from(0.0)
    }
    /// Lagrangian `L(t, q, v)`; defaults to `T − V`.
    fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        self.kinetic(t, q, v) - self.potential(t, q)
    }
    /// Rayleigh dissipation function `R(t, q, v)`.
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
        _v: &SVector<D, N>,
    ) -> D {
        D::from(0.0)
    }
    /// Generalized (non-conservative) forces `Q(t, q, v)`.
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        _q: &SVector<D, N>,
        _v: &SVector<D, N>,
    ) -> SVector<D, N> {
        SVector::from_element(D::from(0.0))
    }
    /// Whether [`dissipation`](Term::dissipation) or [`force`](Term::force) is implemented.
    /// Returning `false` (the default is `true`) lets the toolkit skip their derivatives.
    fn has_dissipation_or_force(&self) -> bool {
        true
    }
}

/// `M` holonomic (possibly rheonomic) constraint equations `C(t, q_I) = 0` over `N` local
/// coordinates. Each row gets its own Lagrange multiplier `λ`; the residual gains `C_qᵀ λ`.
pub trait Constraint<const N: usize, const M: usize>: Send + Sync {
    /// The constraint values `C(t, q)`.
    fn constraint<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
    ) -> SVector<D, M>;
}

/// A term or constraint placed on global coordinates.
pub(crate) struct Placed<T: ?Sized> {
    pub indices: Vec<usize>,
    pub item: Box<T>,
}

/// A named block of constraint rows.
pub(crate) struct PlacedConstraint {
    pub name: String,
    pub indices: Vec<usize>,
    /// First multiplier (global constraint row) of this block.
    pub row: usize,
    pub item: Box<dyn ConstraintKernel>,
}

/// A mechanism: `n` generalized coordinates, a sum of Lagrangian terms and constraint blocks.
pub struct Model {
    pub(crate) n: usize,
    pub(crate) m: usize,
    pub(crate) names: Vec<String>,
    pub(crate) terms: Vec<Placed<dyn TermKernel>>,
    pub(crate) constraints: Vec<PlacedConstraint>,
}

impl Model {
    /// Start building a model with `n` generalized coordinates.
    pub fn builder(n: usize) -> ModelBuilder {
        ModelBuilder {
            n,
            names: (0..n).map(|i| format!("q[{i}]")).collect(),
            terms: Vec::new(),
            constraints: Vec::new(),
            m: 0,
            error: None,
        }
    }
    /// Number of generalized coordinates `n`.
    pub fn n_coords(&self) -> usize {
        self.n
    }
    /// Number of constraint equations (multipliers) `m`.
    pub fn n_constraints(&self) -> usize {
        self.m
    }
    /// Names of the coordinates (default `q[i]`).
    pub fn coordinate_names(&self) -> &[String] {
        &self.names
    }
    /// Name of constraint row `row` (`name` for a one-row block, `name[k]` otherwise).
    pub fn constraint_row_name(&self, row: usize) -> String {
        for c in &self.constraints {
            let rows = c.item.rows();
            if row >= c.row && row < c.row + rows {
                return if rows == 1 {
                    c.name.clone()
                } else {
                    format!("{}[{}]", c.name, row - c.row)
                };
            }
        }
        format!("constraint row {row}")
    }
    /// Number of Lagrangian terms.
    pub fn n_terms(&self) -> usize {
        self.terms.len()
    }
}

/// Builder for [`Model`]: add terms and constraints on coordinate indices.
///
/// Kernels are added here; [`term`](ModelBuilder::term) and
/// [`constraint`](ModelBuilder::constraint), which derive a kernel from a [`Term`] or
/// [`Constraint`] by forward AD, are defined in [`crate::ad`] (the model knows no derivation).
#[must_use]
pub struct ModelBuilder {
    n: usize,
    m: usize,
    names: Vec<String>,
    terms: Vec<Placed<dyn TermKernel>>,
    constraints: Vec<PlacedConstraint>,
    error: Option<ModelError>,
}

impl ModelBuilder {
    fn check(&mut self, what: &str, indices: &[usize]) -> bool {
        if self.error.is_some() {
            return false;
        }
        if let Some(&bad) = indices.iter().find(|&&i| i >= self.n) {
            self.error = Some(ModelError::IndexOutOfRange {
                what: what.to_string(),
                index: bad,
                n: self.n,
            });
            return false;
        }
        let mut sorted = indices.to_vec();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            self.error = Some(ModelError::RepeatedIndex {
                what: what.to_string(),
            });
            return false;
        }
        true
    }

    /// Name the coordinates (for output columns and messages).
    pub fn coordinate_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        if names.len() != self.n && self.error.is_none() {
            self.error = Some(ModelError::Invalid(format!(
                "{} coordinate names given for {} coordinates",
                names.len(),
                self.n
            )));
        } else {
            self.names = names;
        }
        self
    }

    /// Add a type-erased term kernel (hand-written or AD) on the global coordinates `indices`.
    pub fn add_term_kernel(&mut self, indices: &[usize], kernel: Box<dyn TermKernel>) {
        if kernel.size() != indices.len() && self.error.is_none() {
            self.error = Some(ModelError::Invalid(format!(
                "a term kernel of size {} was given {} indices",
                kernel.size(),
                indices.len()
            )));
            return;
        }
        if self.check("term", indices) {
            self.terms.push(Placed {
                indices: indices.to_vec(),
                item: kernel,
            });
        }
    }

    /// Add a named type-erased constraint kernel on the global coordinates `indices`.
    pub fn add_constraint_kernel(
        &mut self,
        name: impl Into<String>,
        indices: &[usize],
        kernel: Box<dyn ConstraintKernel>,
    ) {
        let name = name.into();
        if kernel.size() != indices.len() && self.error.is_none() {
            self.error = Some(ModelError::Invalid(format!(
                "constraint '{name}': a kernel of size {} was given {} indices",
                kernel.size(),
                indices.len()
            )));
            return;
        }
        if self.check(&format!("constraint '{name}'"), indices) {
            let rows = kernel.rows();
            self.constraints.push(PlacedConstraint {
                name,
                indices: indices.to_vec(),
                row: self.m,
                item: kernel,
            });
            self.m += rows;
        }
    }

    /// Number of coordinates of the model being built.
    pub fn n_coords(&self) -> usize {
        self.n
    }

    /// Finish the model; reports the first invalid index or name given to the builder.
    pub fn build(self) -> Result<Model, ModelError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.n == 0 {
            return Err(ModelError::Invalid(
                "a model needs at least one coordinate".into(),
            ));
        }
        let mut touched = vec![false; self.n];
        for t in &self.terms {
            for &i in &t.indices {
                touched[i] = true;
            }
        }
        if let Some(i) = touched.iter().position(|&b| !b) {
            return Err(ModelError::Invalid(format!(
                "coordinate {} ({}) appears in no Lagrangian term: its equation of motion would be empty",
                i, self.names[i]
            )));
        }
        Ok(Model {
            n: self.n,
            m: self.m,
            names: self.names,
            terms: self.terms,
            constraints: self.constraints,
        })
    }
}
