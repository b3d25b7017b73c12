//! Adding user terms and constraints to a model: each is differentiated by the AD kernels of
//! this module ([`TermAd`], [`ConstraintAd`]) and stored with the other kernels of its type.

use crate::ad::{ConstraintAd, TermAd};
use crate::model::{Constraint, ModelBuilder, Term};

impl ModelBuilder {
    /// Add a Lagrangian term acting on the global coordinates `indices` (differentiated by AD).
    pub fn term<T: Term<N> + 'static, const N: usize>(
        mut self,
        indices: [usize; N],
        term: T,
    ) -> Self {
        self.add_term(indices, term);
        self
    }

    /// Add a term in place (for loops).
    pub fn add_term<T: Term<N> + 'static, const N: usize>(&mut self, indices: [usize; N], term: T) {
        self.add_term_kernel(&indices, TermAd::<T, N>::new(term));
    }

    /// Add a named block of `M` constraint rows on the global coordinates `indices`
    /// (differentiated by AD).
    pub fn constraint<C: Constraint<N, M> + 'static, const N: usize, const M: usize>(
        mut self,
        name: impl Into<String>,
        indices: [usize; N],
        constraint: C,
    ) -> Self {
        self.add_constraint(name, indices, constraint);
        self
    }

    /// Add a constraint block in place (for loops).
    pub fn add_constraint<C: Constraint<N, M> + 'static, const N: usize, const M: usize>(
        &mut self,
        name: impl Into<String>,
        indices: [usize; N],
        constraint: C,
    ) {
        self.add_constraint_kernel(name, &indices, ConstraintAd::<C, N, M>::new(constraint));
    }
}
