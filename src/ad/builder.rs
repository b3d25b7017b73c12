//! Adding user terms and constraints to a model: each is differentiated by the AD kernels of
//! this module ([`TermAd`], [`ConstraintAd`]) and stored with the other kernels of its type.

use crate::ad::{ConstraintAd, TermAd, verify};
use crate::error::ModelError;
use crate::model::{Anchored, Between, Constraint, Declared, Interaction, ModelBuilder};

impl ModelBuilder {
    /// Add a Lagrangian term acting on the global coordinates `indices` (differentiated by AD).
    pub fn term<T: Declared<N> + 'static, const N: usize>(
        mut self,
        indices: [usize; N],
        term: T,
    ) -> Self {
        self.add_term(indices, term);
        self
    }

    /// Add a term in place (for loops): a [`Term`](crate::model::Term), or a
    /// [`Declared`] (every `Term` is one that declares nothing).
    ///
    /// A term that declares a [`Structure`](crate::model::Structure),
    /// [`TRANSLATION_INVARIANT`](crate::model::Declared::TRANSLATION_INVARIANT) or
    /// [`KineticForm::Zero`](crate::model::KineticForm::Zero) has the declaration checked
    /// against the general derivation of its energies (on the first term of its type): one that
    /// does not hold makes [`build`](ModelBuilder::build) fail with
    /// [`ModelError::WrongDeclaration`](crate::error::ModelError::WrongDeclaration).
    pub fn add_term<T: Declared<N> + 'static, const N: usize>(
        &mut self,
        indices: [usize; N],
        term: T,
    ) {
        let declares = verify::declares(&term);
        let structure = term.structure();
        let kernel = TermAd::<T, N>::new(term);
        if declares
            && self.first_declaration(std::any::TypeId::of::<T>(), structure)
            && let Err(detail) = kernel.verify_declaration()
        {
            self.fail(ModelError::WrongDeclaration {
                term: std::any::type_name::<T>().to_string(),
                indices: indices.to_vec(),
                declared: verify::declaration(&kernel.term.term),
                detail,
            });
            return;
        }
        self.add_term_kernel(&indices, kernel);
    }

    /// Add the element `interaction` between the points at the global coordinates `a` (its
    /// `x₁`) and `b` (`x₂`); see [`Interaction`].
    pub fn between<I, const D: usize, const N: usize>(
        mut self,
        a: [usize; D],
        b: [usize; D],
        interaction: I,
    ) -> Self
    where
        I: Interaction<D> + 'static,
        Between<I>: Declared<N>,
    {
        self.add_between(a, b, interaction);
        self
    }

    /// Add an element between two points in place (for loops).
    pub fn add_between<I, const D: usize, const N: usize>(
        &mut self,
        a: [usize; D],
        b: [usize; D],
        interaction: I,
    ) where
        I: Interaction<D> + 'static,
        Between<I>: Declared<N>,
    {
        let mut indices = [0; N];
        for (k, (&i, &j)) in a.iter().zip(&b).enumerate() {
            indices[k] = i;
            indices[D + k] = j;
        }
        self.add_term(indices, Between(interaction));
    }

    /// Add the element `interaction` from the fixed point `anchor` (its `x₁`) to the point at
    /// the global coordinates `b` (`x₂`); see [`Interaction`].
    pub fn anchored<I: Interaction<D> + 'static, const D: usize>(
        mut self,
        anchor: [f64; D],
        b: [usize; D],
        interaction: I,
    ) -> Self {
        self.add_anchored(anchor, b, interaction);
        self
    }

    /// Add an element from a fixed point in place (for loops).
    pub fn add_anchored<I: Interaction<D> + 'static, const D: usize>(
        &mut self,
        anchor: [f64; D],
        b: [usize; D],
        interaction: I,
    ) {
        self.add_term(
            b,
            Anchored {
                anchor,
                interaction,
            },
        );
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
