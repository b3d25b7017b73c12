//! Building a [`Model`]: kernels placed on global coordinates, stored in groups by kernel type.

use super::group::{ConstraintGroup, Constraints, TermGroup, Terms};
use super::kernel::{ConstraintKernel, TermKernel};
use super::{BlockInfo, Model};
use crate::error::ModelError;

type PlaceFn = dyn FnOnce(&mut ModelBuilder, &[usize]) + Send + Sync;
type PlaceNamedFn = dyn FnOnce(&mut ModelBuilder, String, &[usize]) + Send + Sync;

/// A term kernel of any type and size, not yet placed on coordinates (what
/// [`ad::place`](crate::ad::place) returns after choosing a hand kernel or AD).
pub struct TermKernelBox {
    size: usize,
    place: Box<PlaceFn>,
}

impl TermKernelBox {
    /// Box a kernel on `N` local coordinates.
    pub fn new<K: TermKernel<N>, const N: usize>(kernel: K) -> Self {
        TermKernelBox {
            size: N,
            place: Box::new(move |b, idx| b.add_term_kernel(idx, kernel)),
        }
    }
    /// Number of local coordinates.
    pub fn size(&self) -> usize {
        self.size
    }
}

/// A constraint kernel of any type and size, not yet placed on coordinates.
pub struct ConstraintKernelBox {
    size: usize,
    rows: usize,
    place: Box<PlaceNamedFn>,
}

impl ConstraintKernelBox {
    /// Box a kernel of `M` rows on `N` local coordinates.
    pub fn new<K: ConstraintKernel<N, M>, const N: usize, const M: usize>(kernel: K) -> Self {
        ConstraintKernelBox {
            size: N,
            rows: M,
            place: Box::new(move |b, name, idx| b.add_constraint_kernel(name, idx, kernel)),
        }
    }
    /// Number of local coordinates.
    pub fn size(&self) -> usize {
        self.size
    }
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
}

/// Builder for [`Model`]: add terms and constraints on coordinate indices.
///
/// Kernels are added here; [`term`](ModelBuilder::term) and
/// [`constraint`](ModelBuilder::constraint), which derive a kernel from a [`Term`](super::Term)
/// or [`Constraint`](super::Constraint) by forward AD, are defined in [`crate::ad`] (the model
/// knows no derivation).
#[must_use]
pub struct ModelBuilder {
    n: usize,
    m: usize,
    names: Vec<String>,
    terms: Vec<Box<dyn Terms>>,
    constraints: Vec<Box<dyn Constraints>>,
    blocks: Vec<BlockInfo>,
    error: Option<ModelError>,
    /// Term types whose declared structure was checked (`ad::verify`), with the structure.
    declared: Vec<(std::any::TypeId, super::Structure)>,
}

impl ModelBuilder {
    pub(super) fn new(n: usize) -> Self {
        ModelBuilder {
            n,
            m: 0,
            names: (0..n).map(|i| format!("q[{i}]")).collect(),
            terms: Vec::new(),
            constraints: Vec::new(),
            blocks: Vec::new(),
            error: None,
            declared: Vec::new(),
        }
    }

    /// Whether terms of type `id` declaring `structure` are seen for the first time (then
    /// remembered): a declaration is checked on the first term of its type.
    pub(crate) fn first_declaration(
        &mut self,
        id: std::any::TypeId,
        structure: super::Structure,
    ) -> bool {
        if self.error.is_some() || self.declared.contains(&(id, structure)) {
            return false;
        }
        self.declared.push((id, structure));
        true
    }

    /// Keep `e` as the builder's error unless one came first.
    pub(crate) fn fail(&mut self, e: ModelError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// The indices as an array of the kernel's size, if they are valid.
    fn check<const N: usize>(&mut self, what: &str, indices: &[usize]) -> Option<[usize; N]> {
        if self.error.is_some() {
            return None;
        }
        let Ok(idx) = <[usize; N]>::try_from(indices) else {
            self.error = Some(ModelError::WrongCount {
                what: format!("{what}: coordinate indices of a kernel on {N} coordinates"),
                expected: N,
                given: indices.len(),
            });
            return None;
        };
        if let Some(&bad) = idx.iter().find(|&&i| i >= self.n) {
            self.error = Some(ModelError::IndexOutOfRange {
                what: what.to_string(),
                index: bad,
                n: self.n,
            });
            return None;
        }
        let mut sorted = idx;
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            self.error = Some(ModelError::RepeatedIndex {
                what: what.to_string(),
            });
            return None;
        }
        Some(idx)
    }

    /// Name the coordinates (for output columns and messages).
    pub fn coordinate_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        if names.len() != self.n && self.error.is_none() {
            self.error = Some(ModelError::WrongCount {
                what: "coordinate names, one per coordinate".into(),
                expected: self.n,
                given: names.len(),
            });
        } else {
            self.names = names;
        }
        self
    }

    /// Add a term kernel (hand-written or AD) on the global coordinates `indices` (`N` of them).
    pub fn add_term_kernel<K: TermKernel<N>, const N: usize>(
        &mut self,
        indices: &[usize],
        kernel: K,
    ) {
        let Some(idx) = self.check::<N>("term", indices) else {
            return;
        };
        let group = self
            .terms
            .iter_mut()
            .find_map(|g| g.as_any_mut().downcast_mut::<TermGroup<K, N>>());
        let group = match group {
            Some(g) => g,
            None => {
                self.terms.push(Box::new(TermGroup::<K, N>::new()));
                let last = self.terms.last_mut().expect("just pushed");
                match last.as_any_mut().downcast_mut::<TermGroup<K, N>>() {
                    Some(g) => g,
                    None => unreachable!("a new group has the kernel's type"),
                }
            }
        };
        group.kernels.push(kernel);
        group.indices.push(idx);
    }

    /// Add a group of terms that assembles itself (a tree of bodies in joint coordinates,
    /// [`crate::multibody::Tree::add_to`]); its indices are checked at [`build`](Self::build).
    pub(crate) fn add_terms_group(&mut self, group: Box<dyn Terms>) {
        if self.error.is_none()
            && let Some(&bad) = (0..group.len())
                .flat_map(|e| group.indices(e).iter())
                .find(|&&i| i >= self.n)
        {
            self.error = Some(ModelError::IndexOutOfRange {
                what: "a group of terms".into(),
                index: bad,
                n: self.n,
            });
        }
        self.terms.push(group);
    }

    /// Add a boxed term kernel on the global coordinates `indices`.
    pub fn add_boxed_term(&mut self, indices: &[usize], kernel: TermKernelBox) {
        (kernel.place)(self, indices);
    }

    /// Add a named constraint kernel of `M` rows on the global coordinates `indices`.
    pub fn add_constraint_kernel<K: ConstraintKernel<N, M>, const N: usize, const M: usize>(
        &mut self,
        name: impl Into<String>,
        indices: &[usize],
        kernel: K,
    ) {
        let name = name.into();
        let Some(idx) = self.check::<N>(&format!("constraint '{name}'"), indices) else {
            return;
        };
        let row = self.m;
        self.m += M;
        self.blocks.push(BlockInfo { name, row, rows: M });
        let group = self
            .constraints
            .iter_mut()
            .find_map(|g| g.as_any_mut().downcast_mut::<ConstraintGroup<K, N, M>>());
        let group = match group {
            Some(g) => g,
            None => {
                self.constraints
                    .push(Box::new(ConstraintGroup::<K, N, M>::new()));
                let last = self.constraints.last_mut().expect("just pushed");
                match last.as_any_mut().downcast_mut::<ConstraintGroup<K, N, M>>() {
                    Some(g) => g,
                    None => unreachable!("a new group has the kernel's type"),
                }
            }
        };
        group.kernels.push(kernel);
        group.indices.push(idx);
        group.rows.push(row);
    }

    /// Add a boxed constraint kernel on the global coordinates `indices`.
    pub fn add_boxed_constraint(
        &mut self,
        name: impl Into<String>,
        indices: &[usize],
        kernel: ConstraintKernelBox,
    ) {
        (kernel.place)(self, name.into(), indices);
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
            return Err(ModelError::Empty {
                what: "a model".into(),
                need: "it needs at least one coordinate".into(),
            });
        }
        // a coordinate needs a term or a constraint: one that only constraints involve (a
        // joint's angle, tied to its bodies) has its equation of motion `C_qᵀλ = 0` and is
        // determined by them; whether the mass matrix is then regular on the constraint
        // manifold is checked before the run (`solve::MassCheck`)
        let mut touched = vec![false; self.n];
        for g in &self.terms {
            for e in 0..g.len() {
                for &i in g.indices(e) {
                    touched[i] = true;
                }
            }
        }
        for g in &self.constraints {
            for e in 0..g.len() {
                for &i in g.indices(e) {
                    touched[i] = true;
                }
            }
        }
        if let Some(i) = touched.iter().position(|&b| !b) {
            return Err(ModelError::CoordinateUnused {
                index: i,
                name: self.names[i].clone(),
            });
        }
        let mut terms = self.terms;
        for g in &mut terms {
            g.set_parallel(true, self.n);
        }
        Ok(Model {
            n: self.n,
            m: self.m,
            names: self.names,
            terms,
            constraints: self.constraints,
            blocks: self.blocks,
        })
    }
}
