//! A tree of rigid bodies on joints: the constant description (Pinocchio's `Model`), apart
//! from the scratch one evaluation writes ([`super::Workspace`]).

use super::joint::JointKind;
use super::spatial::{Inertia, Pose, Real, cross, direction, dot, identity, mat_mul, rot_axis};
use crate::error::ModelError;
use crate::model::elements::{ChainLink, ChainPoint, Factor, second_moment};
use std::sync::Arc;

/// A rigid body: mass, centre of mass and inertia tensor about the centre, in its own frame.
#[derive(Clone, Debug, PartialEq)]
pub struct RigidBody {
    /// Mass (positive).
    pub mass: f64,
    /// Centre of mass in the body's frame.
    pub com: [f64; 3],
    /// Inertia tensor about the centre of mass, in the body's axes.
    pub inertia: [[f64; 3]; 3],
}

impl RigidBody {
    /// A body of `mass` with its centre at its frame's origin and principal moments
    /// `diagonal` along its axes.
    pub fn new(mass: f64, diagonal: [f64; 3]) -> RigidBody {
        RigidBody {
            mass,
            com: [0.0; 3],
            inertia: [
                [diagonal[0], 0.0, 0.0],
                [0.0, diagonal[1], 0.0],
                [0.0, 0.0, diagonal[2]],
            ],
        }
    }
    /// A massless body (a URDF link without `inertial`: a frame for tools and sensors). A tree
    /// whose massless body is moved by a joint nothing heavier rides on has a singular mass
    /// matrix, which the run refuses naming the joint.
    pub fn massless() -> RigidBody {
        RigidBody::new(0.0, [0.0; 3])
    }
    /// The centre of mass at `c`.
    pub fn com(mut self, c: [f64; 3]) -> RigidBody {
        self.com = c;
        self
    }
    /// The full inertia tensor about the centre.
    pub fn inertia(mut self, i: [[f64; 3]; 3]) -> RigidBody {
        self.inertia = i;
        self
    }
    /// Checked physical: positive finite mass, a finite centre, a symmetric inertia whose
    /// principal moments are ≥ 0 and each at most the sum of the other two — or no mass and
    /// no inertia at all ([`RigidBody::massless`]).
    pub fn check(&self, name: &str) -> Result<(), ModelError> {
        let element = format!("body '{name}'");
        let none = self.inertia.iter().flatten().all(|&x| x == 0.0);
        if self.mass == 0.0 && none {
            return Ok(());
        }
        ModelError::positive(&element, "mass", self.mass)?;
        if !self.com.iter().all(|x| x.is_finite()) {
            return Err(ModelError::BadGeometry {
                element,
                detail: format!("the centre of mass {:?} must be finite", self.com),
            });
        }
        second_moment(self.inertia).map_err(|e| match e {
            ModelError::BadGeometry { detail, .. } => ModelError::BadGeometry { element, detail },
            e => e,
        })?;
        Ok(())
    }
}

/// A joint: its kind, the joint frame `P` on the parent (in the parent's frame; the world's
/// for a joint to the ground) and the frame `C` on the child (in the child's frame).
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// What it allows.
    pub kind: JointKind,
    /// `P` in the parent's frame.
    pub parent_frame: Pose<f64>,
    /// `C` in the child's frame.
    pub child_frame: Pose<f64>,
}

impl Joint {
    /// A joint of `kind` with both frames the bodies' own.
    pub fn new(kind: JointKind) -> Joint {
        Joint {
            kind,
            parent_frame: Pose::identity(),
            child_frame: Pose::identity(),
        }
    }
    /// A revolute joint about the frames' `z`.
    pub fn revolute() -> Joint {
        Joint::new(JointKind::Revolute)
    }
    /// A prismatic joint along the frames' `z`.
    pub fn prismatic() -> Joint {
        Joint::new(JointKind::Prismatic)
    }
    /// A spherical joint at the frames' origin.
    pub fn spherical() -> Joint {
        Joint::new(JointKind::Spherical)
    }
    /// A free joint (a floating base on the ground).
    pub fn free() -> Joint {
        Joint::new(JointKind::Free)
    }
    /// A weld.
    pub fn fixed() -> Joint {
        Joint::new(JointKind::Fixed)
    }
    /// The frame on the parent.
    pub fn parent_frame(mut self, frame: Pose<f64>) -> Joint {
        self.parent_frame = frame;
        self
    }
    /// The frame on the child.
    pub fn child_frame(mut self, frame: Pose<f64>) -> Joint {
        self.child_frame = frame;
        self
    }
    /// Standard Denavit–Hartenberg `[d, a, α]` of a revolute joint (`[θ, a, α]` of a
    /// prismatic one): the child's frame is the parent's · `Rz(θ) Tz(d) Tx(a) Rx(α)`, the
    /// joint frame at the parent's frame.
    pub fn dh(mut self, dh: [f64; 3]) -> Joint {
        let (fixed_rz, d) = match self.kind {
            JointKind::Prismatic => (dh[0], 0.0),
            _ => (0.0, dh[0]),
        };
        // the child frame = C · Rz(θ₀) Tz(d) Tx(a) Rx(α): C in the child's frame is its inverse
        let link = Pose {
            r: rot_axis(2, fixed_rz),
            p: [0.0, 0.0, d],
        }
        .then(&Pose {
            r: rot_axis(0, dh[2]),
            p: [dh[1], 0.0, 0.0],
        });
        self.parent_frame = Pose::identity();
        self.child_frame = link.inverse();
        self
    }
    /// Modified (Craig's) Denavit–Hartenberg `[α, a, d]` of a revolute joint (`[α, a, θ]` of
    /// a prismatic one): the child's frame is the parent's · `Rx(α) Tx(a) Rz(θ) Tz(d)`.
    pub fn modified_dh(mut self, mdh: [f64; 3]) -> Joint {
        let (rz, d) = match self.kind {
            JointKind::Prismatic => (mdh[2], 0.0),
            _ => (0.0, mdh[2]),
        };
        self.parent_frame = Pose {
            r: rot_axis(0, mdh[0]),
            p: [mdh[1], 0.0, 0.0],
        }
        .then(&Pose {
            r: rot_axis(2, rz),
            p: [0.0, 0.0, d],
        });
        self.child_frame = Pose::identity();
        self
    }
}

/// A frame at `at` whose `z` is along `z` and whose `x` is `x` made orthogonal to it (any
/// direction orthogonal to `z` when `x` is `None` or parallel to `z`). `Err` names `what`
/// when `z` has no direction.
pub fn frame(
    what: &str,
    at: [f64; 3],
    z: [f64; 3],
    x: Option<[f64; 3]>,
) -> Result<Pose<f64>, ModelError> {
    let Some(ez) = direction(z) else {
        return Err(ModelError::BadGeometry {
            element: what.to_string(),
            detail: format!("the joint axis {z:?} has no direction (zero or not finite)"),
        });
    };
    let trial = x.unwrap_or(if ez[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    });
    let ex = match direction(trial) {
        Some(t) => {
            let along = dot(t, ez);
            let w = [0, 1, 2].map(|k| t[k] - along * ez[k]);
            direction(w).filter(|_| dot(w, w).sqrt() > 1e-9)
        }
        None => None,
    };
    let Some(ex) = ex else {
        return frame(what, at, z, None);
    };
    let ey = cross(ez, ex);
    Ok(Pose {
        r: std::array::from_fn(|i| [ex[i], ey[i], ez[i]]),
        p: at,
    })
}

/// One body of a tree with the joint that carries it.
#[derive(Clone, Debug)]
pub struct Link {
    /// The body's name.
    pub name: String,
    /// The joint's name (its coordinates are named after it).
    pub joint_name: String,
    /// The parent link (`None`: the ground or base).
    pub parent: Option<usize>,
    /// The joint's kind.
    pub kind: JointKind,
    /// The body.
    pub body: RigidBody,
    /// The joint frame `P` in the parent's link frame (the parent's `C`; the world for the
    /// ground).
    pub(crate) tree_pose: Pose<f64>,
    /// The body's inertia in its link frame `C`.
    pub(crate) inertia: Inertia<f64>,
    /// The body's own frame in `C`.
    pub(crate) body_in_link: Pose<f64>,
    /// The first of the joint's coordinates.
    pub(crate) offset: usize,
}

impl Link {
    /// The link's coordinates among the tree's.
    pub fn coordinates(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.kind.n_coords()
    }
}

/// Bodies on joints forming a tree, its root on the ground (a free joint to the ground is a
/// floating base). The generalized coordinates are the joints' coordinates, link after link;
/// each spherical or free joint's quaternion is held at unit length by one constraint
/// ([`Tree::quaternions`]).
#[derive(Clone, Debug)]
pub struct Tree {
    pub(crate) links: Vec<Link>,
    pub(crate) gravity: [f64; 3],
    pub(crate) n: usize,
    pub(crate) names: Vec<String>,
}

impl Tree {
    /// An empty tree under `gravity` (a vector: `[0, 0, −9.81]` pulls along −z).
    pub fn new(gravity: [f64; 3]) -> Tree {
        Tree {
            links: Vec::new(),
            gravity,
            n: 0,
            names: Vec::new(),
        }
    }
    /// Add `body` carried by `joint` on `parent` (a link index, `None` for the ground); its
    /// index. The body and the joint are checked; names must be new.
    pub fn add(
        &mut self,
        name: &str,
        parent: Option<usize>,
        joint_name: &str,
        joint: Joint,
        body: RigidBody,
    ) -> Result<usize, ModelError> {
        body.check(name)?;
        let element = format!("joint '{joint_name}'");
        if let Some(p) = parent.filter(|&p| p >= self.links.len()) {
            return Err(ModelError::IndexOutOfRange {
                what: format!("{element}: its parent"),
                index: p,
                n: self.links.len(),
            });
        }
        for pose in [&joint.parent_frame, &joint.child_frame] {
            check_pose(&element, pose)?;
        }
        if let JointKind::Screw { pitch } = joint.kind
            && !pitch.is_finite()
        {
            return Err(ModelError::BadValue {
                element,
                quantity: "pitch".into(),
                value: pitch,
                need: "must be finite".into(),
            });
        }
        if self.links.iter().any(|l| l.name == name) {
            return Err(ModelError::BadGeometry {
                element: format!("body '{name}'"),
                detail: "a body of this name is already in the tree".into(),
            });
        }
        let tree_pose = match parent {
            None => joint.parent_frame,
            Some(p) => self.links[p].body_in_link.then(&joint.parent_frame),
        };
        let body_in_link = joint.child_frame.inverse();
        let ic = body.inertia;
        let inertia = Inertia::from_body(body.mass, body.com, &ic).out(&body_in_link);
        let suffixes = joint.kind.coordinate_suffixes();
        let offset = self.n;
        self.n += suffixes.len();
        self.names
            .extend(suffixes.iter().map(|s| format!("{joint_name}{s}")));
        self.links.push(Link {
            name: name.to_string(),
            joint_name: joint_name.to_string(),
            parent,
            kind: joint.kind,
            body,
            tree_pose,
            inertia,
            body_in_link,
            offset,
        });
        Ok(self.links.len() - 1)
    }
    /// The number of coordinates.
    pub fn n_coords(&self) -> usize {
        self.n
    }
    /// The coordinates' names: the joint's name, or the joint's name and a suffix
    /// ([`JointKind::coordinate_suffixes`]).
    pub fn coordinate_names(&self) -> &[String] {
        &self.names
    }
    /// The links, parents before children.
    pub fn links(&self) -> &[Link] {
        &self.links
    }
    /// Gravity.
    pub fn gravity(&self) -> [f64; 3] {
        self.gravity
    }
    /// The first coordinate of every quaternion (spherical and free joints).
    pub fn quaternions(&self) -> Vec<usize> {
        (self.links.iter())
            .filter_map(|l| l.kind.quaternion().map(|k| l.offset + k))
            .collect()
    }
    /// Each spherical or free joint's quaternion as a model's coordinates when the tree's
    /// start at `first` (for the symmetries of steady motion).
    pub fn quaternion_coords(&self, first: usize) -> Vec<crate::model::geometry::QuaternionCoords> {
        (self.links.iter())
            .filter_map(|l| {
                let k = l.kind.quaternion()?;
                let at = first + l.offset;
                Some(crate::model::geometry::QuaternionCoords {
                    body: l.name.clone(),
                    first: at + k,
                    position: (k == 3).then_some(at),
                })
            })
            .collect()
    }
    /// The coordinates with every joint at its zero (quaternions `(1, 0, 0, 0)`).
    pub fn zero_coords(&self) -> Vec<f64> {
        let mut q = vec![0.0; self.n];
        for l in &self.links {
            q[l.coordinates()].copy_from_slice(&l.kind.zero_coords());
        }
        q
    }
    /// The point `local` (body frame) of link `i`'s body as a chain of the joints from the
    /// root ([`ChainPoint`]: evaluated in `O(depth)`), the tree's coordinates starting at
    /// `first` among a model's. For the points of many bodies, [`chain_links`](Self::chain_links)
    /// once and [`ChainPoint::on`] share the links.
    pub fn chain_point(&self, i: usize, local: [f64; 3], first: usize) -> ChainPoint {
        ChainPoint::on(self.chain_links(first).swap_remove(i), local)
    }
    /// Each link's body frame as the last link of a chain from the root (the chains share
    /// their links: `O(n)` memory for the whole tree).
    pub fn chain_links(&self, first: usize) -> Vec<Arc<ChainLink>> {
        let place = |x: &Pose<f64>| Factor::Place { r: x.r, p: x.p };
        let mut joints: Vec<Arc<ChainLink>> = Vec::with_capacity(self.links.len());
        let mut bodies = Vec::with_capacity(self.links.len());
        for link in &self.links {
            let parent = link.parent.map(|p| joints[p].clone());
            let mut factors = vec![place(&link.tree_pose)];
            factors.extend(link.kind.factors(first + link.offset));
            let joint = ChainLink::new(parent, factors);
            bodies.push(ChainLink::new(
                Some(joint.clone()),
                vec![place(&link.body_in_link)],
            ));
            joints.push(joint);
        }
        bodies
    }
    /// Total mass.
    pub fn mass(&self) -> f64 {
        self.links.iter().map(|l| l.body.mass).sum()
    }
}

fn check_pose(element: &str, x: &Pose<f64>) -> Result<(), ModelError> {
    let finite = x.r.iter().flatten().chain(&x.p).all(|v| v.is_finite());
    let rt: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| x.r[j][i]));
    let rrt = mat_mul(&x.r, &rt);
    let id: [[f64; 3]; 3] = identity();
    let off = (0..9).fold(0.0f64, |m, k| {
        m.max((rrt[k / 3][k % 3] - id[k / 3][k % 3]).abs())
    });
    let det = dot(x.r[0], cross(x.r[1], x.r[2]));
    match finite && off < 1e-9 && det > 0.0 {
        true => Ok(()),
        false => Err(ModelError::BadGeometry {
            element: element.to_string(),
            detail: format!(
                "a joint frame's rotation must be finite and a proper rotation, got {:?}",
                x.r
            ),
        }),
    }
}

impl<D: Real> Pose<D> {
    /// Its point `x` (f64 coordinates).
    pub fn point_const(&self, x: [f64; 3]) -> [D; 3] {
        self.point(x.map(D::from))
    }
}
