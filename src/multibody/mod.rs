//! Rigid bodies on joints in joint coordinates: typed elements and the recursive algorithms.
//!
//! A [`Tree`] holds [`RigidBody`]s, each carried by a [`Joint`] of a [`JointKind`] on its
//! parent (or on the ground); its generalized coordinates are the joints' coordinates. The
//! equations of motion come from the recursions on spatial vectors ([`spatial`]; Featherstone,
//! *Rigid Body Dynamics Algorithms*, 2008): the recursive Newton–Euler algorithm for the
//! residual and inverse dynamics ([`Tree::rnea`]), composite rigid bodies for `M(q)`
//! ([`Tree::crba`]) and articulated bodies for `q̈` ([`Tree::aba`]). Every recursion is generic
//! over the number type: their Jacobians are the same recursion on dual numbers, and the tests
//! check each against forward AD of the same tree's Lagrangian `T − V` (docs/maths.md §20).
//!
//! ```
//! use lagrangian::multibody::{Joint, RigidBody, Tree, Workspace};
//! // a pendulum: a point-like bob of 2 kg 1.5 m below a revolute joint about y
//! let mut tree = Tree::new([0.0, 0.0, -9.81]);
//! let hinge = lagrangian::multibody::frame("hinge", [0.0; 3], [0.0, 1.0, 0.0], Some([0.0, 0.0, -1.0])).unwrap();
//! let bob = RigidBody::new(2.0, [1e-9; 3]).com([1.5, 0.0, 0.0]);
//! tree.add("Bob", None, "theta", Joint::revolute().parent_frame(hinge), bob).unwrap();
//! // held at θ = 0.3 (from straight down) at rest: τ = m g l sin θ
//! let mut ws = Workspace::new(&tree);
//! let mut tau = [0.0];
//! tree.rnea(&mut ws, &[0.3], &[0.0], &[0.0], &mut tau);
//! assert!((tau[0] - 2.0 * 9.81 * 1.5 * 0.3f64.sin()).abs() < 1e-12);
//! ```

mod algorithms;
mod joint;
mod model;
pub mod spatial;
mod tree;

pub use algorithms::{Articulated, Workspace};
pub use joint::{JointKind, KINDS, MAX_COORDS, quat_rotation};
pub use model::{Coupling, TreePoints};
pub use tree::{Joint, Link, RigidBody, Tree, frame};
