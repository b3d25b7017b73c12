//! The recursions of `lagrangian::multibody` against forward AD of the same tree's Lagrangian,
//! on random trees of every joint kind (the mission's "hand-derived against AD", for bodies),
//! and articulated bodies against Newton–Euler.

use lagrangian::multibody::spatial::{Pose, mat_mul, rot_axis};
use lagrangian::multibody::*;
use lagrangian::prelude::*;

/// The tree's Lagrangian `T − V` as a term over all its `N` coordinates, for the AD passes.
struct Lagrangian<'a, const N: usize>(pub &'a Tree);

impl<const N: usize> Term<N> for Lagrangian<'_, N> {
    fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
        &self,
        _t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        let mut ws = Workspace::new(self.0);
        self.0.kinetic(&mut ws, q.as_slice(), v.as_slice())
            - self.0.potential(&mut ws, q.as_slice())
    }
}

/// A small deterministic generator (no dependency for tests).
struct Lcg(pub u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64) / ((1u64 << 53) as f64)
    }
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next()
    }
    fn pose(&mut self) -> Pose<f64> {
        let r = mat_mul(
            &mat_mul(
                &rot_axis(2, self.range(-3.0, 3.0)),
                &rot_axis(0, self.range(-3.0, 3.0)),
            ),
            &rot_axis(1, self.range(-3.0, 3.0)),
        );
        Pose {
            r,
            p: [0, 1, 2].map(|_| self.range(-0.5, 0.5)),
        }
    }
    fn body(&mut self) -> RigidBody {
        // principal moments obeying the triangle inequality, turned by a random rotation
        let a = self.range(0.1, 1.0);
        let b = self.range(0.1, 1.0);
        let c = self.range((a - b).abs() + 0.01, a + b);
        let x = self.pose().r;
        let d = [a, b, c];
        let i = std::array::from_fn(|r| {
            std::array::from_fn(|s| (0..3).map(|k| x[r][k] * d[k] * x[s][k]).sum())
        });
        RigidBody::new(self.range(0.5, 3.0), [0.0; 3])
            .com([0, 1, 2].map(|_| self.range(-0.4, 0.4)))
            .inertia(i)
    }
}

/// A tree with one joint of every kind and three more revolute ones (24 coordinates), each
/// on a random earlier link or the ground, with random frames, bodies and gravity.
fn random_tree(seed: u64) -> Tree {
    random_tree_of(seed, true)
}

/// As [`random_tree`]; without quaternions the spherical and free joints are replaced by
/// universal and planar ones.
fn random_tree_of(seed: u64, quaternions: bool) -> Tree {
    let mut rng = Lcg(seed);
    let mut kinds = vec![
        JointKind::Revolute,
        JointKind::Prismatic,
        JointKind::Cylindrical,
        JointKind::Screw { pitch: 0.08 },
        JointKind::Universal,
        JointKind::Planar,
        JointKind::Spherical,
        JointKind::Free,
        JointKind::Fixed,
        JointKind::Revolute,
        JointKind::Revolute,
        JointKind::Revolute,
    ];
    if !quaternions {
        kinds[6] = JointKind::Universal;
        kinds[7] = JointKind::Planar;
    }
    for k in (1..kinds.len()).rev() {
        let j = (rng.next() * (k + 1) as f64) as usize;
        kinds.swap(k, j);
    }
    let g = [rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), -9.81];
    let mut tree = Tree::new(g);
    for (i, kind) in kinds.into_iter().enumerate() {
        let parent = match (rng.next() * (i + 1) as f64) as usize {
            0 => None,
            p => Some(p - 1),
        };
        let joint = Joint::new(kind)
            .parent_frame(rng.pose())
            .child_frame(rng.pose());
        let body = rng.body();
        tree.add(&format!("B{i}"), parent, &format!("j{i}"), joint, body)
            .unwrap();
    }
    tree
}

/// A state of the tree's coordinates (quaternions of any length).
fn random_state(tree: &Tree, rng: &mut Lcg) -> [Vec<f64>; 3] {
    let n = tree.n_coords();
    let mut q: Vec<f64> = (0..n).map(|_| rng.range(-1.5, 1.5)).collect();
    for k in tree.quaternions() {
        q[k] += 2.0;
    }
    let v = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let a = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    [q, v, a]
}

fn max_abs(x: impl IntoIterator<Item = f64>) -> f64 {
    x.into_iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// RNEA = `d/dt ∂L/∂q̇ − ∂L/∂q` of AD's Lagrangian, and CRBA = AD's `∂²L/∂q̇²`, on random
/// trees of every joint kind (quaternions unnormalized: the Lagrangian's residual along `q`
/// vanishes, so the two agree there too).
#[test]
fn rnea_and_crba_equal_ad_of_the_lagrangian_on_trees_of_every_joint_kind() {
    // the AD passes over 24 coordinates hold nested dual numbers of 24² entries on the stack
    let big_stack = std::thread::Builder::new().stack_size(512 << 20);
    big_stack
        .spawn(rnea_and_crba_against_ad)
        .unwrap()
        .join()
        .unwrap();
}

fn rnea_and_crba_against_ad() {
    for seed in 1..=6u64 {
        let tree = random_tree(seed);
        assert_eq!(tree.n_coords(), 24);
        let mut rng = Lcg(seed * 977);
        for _ in 0..3 {
            let [q, v, a] = random_state(&tree, &mut rng);
            let b = lagrangian::ad::term_blocks(&Lagrangian::<24>(&tree), 0.0, &q, &v, &a);
            let mut ws = Workspace::new(&tree);
            let mut tau = vec![0.0; 24];
            tree.rnea(&mut ws, &q, &v, &a, &mut tau);
            let scale = max_abs(b.r.iter().copied()).max(1.0);
            let err = max_abs((0..24).map(|k| tau[k] - b.r[k]));
            assert!(
                err < 1e-12 * scale,
                "seed {seed}: RNEA − AD = {err:e} of {scale:e}"
            );
            let mut m = vec![0.0; 24 * 24];
            tree.crba(&mut ws, &q, &mut m);
            let mscale = max_abs(b.mass.iter().copied());
            let err = max_abs((0..576).map(|k| m[k] - b.mass[(k / 24, k % 24)]));
            assert!(err < 1e-12 * mscale, "seed {seed}: CRBA − AD = {err:e}");
        }
    }
}

/// ABA inverts RNEA: `τ(q, q̇, ABA(q, q̇, τ)) = τ` on random trees of every joint kind without
/// quaternions, gravity on; with `q̇ = 0` and no gravity it is `M⁻¹τ` (CRBA's `M` times it
/// gives `τ` back). A tree with a quaternion is refused (its `M` is singular along it).
#[test]
fn aba_inverts_rnea_on_trees_of_every_joint_kind() {
    for seed in 1..=8u64 {
        let tree = random_tree_of(seed, false);
        let n = tree.n_coords();
        let mut rng = Lcg(seed * 31);
        let mut ws = Workspace::new(&tree);
        let mut art = Articulated::new(&tree);
        for _ in 0..4 {
            let [q, v, tau] = random_state(&tree, &mut rng);
            let mut qdd = vec![0.0; n];
            tree.aba(&mut art, &q, &v, &tau, true, &mut qdd).unwrap();
            let mut back = vec![0.0; n];
            tree.rnea(&mut ws, &q, &v, &qdd, &mut back);
            let err = max_abs((0..n).map(|k| back[k] - tau[k]));
            let scale = max_abs(tau.iter().copied()).max(1.0);
            assert!(
                err < 1e-11 * scale,
                "seed {seed}: RNEA(ABA(τ)) − τ = {err:e}"
            );
            // no velocity, no gravity: M⁻¹τ
            tree.aba(&mut art, &q, &vec![0.0; n], &tau, false, &mut qdd)
                .unwrap();
            let mut m = vec![0.0; n * n];
            tree.crba(&mut ws, &q, &mut m);
            let err = max_abs(
                (0..n).map(|i| (0..n).map(|j| m[i * n + j] * qdd[j]).sum::<f64>() - tau[i]),
            );
            assert!(err < 1e-11 * scale, "seed {seed}: M ABA(τ) − τ = {err:e}");
        }
    }
    let tree = random_tree(1);
    let mut art = Articulated::new(&tree);
    let n = tree.n_coords();
    let z = vec![0.0; n];
    let mut qdd = vec![0.0; n];
    assert!(
        tree.aba(&mut art, &tree.zero_coords(), &z, &z, true, &mut qdd)
            .is_err()
    );
}

/// A tree's own mass solve (`Model::solve_articulated`: CRBA and Cholesky up to 12
/// coordinates, articulated bodies above) gives `M x = b` on chains of 8, 40 and 64 links.
#[test]
fn a_trees_mass_solve_inverts_crba_on_short_and_long_chains() {
    for n in [8usize, 40, 64] {
        let mut tree = Tree::new([0.0, 0.0, -9.81]);
        let mut parent = None;
        let hinge = frame("hinge", [0.0; 3], [0.0, 1.0, 0.0], Some([1.0, 0.0, 0.0])).unwrap();
        for i in 0..n {
            let mut at = hinge;
            if i > 0 {
                at = Pose::identity();
                at.p = [0.1, 0.0, 0.0];
            }
            let body = RigidBody::new(1.0, [1e-5, 1e-3, 1e-3]).com([0.05, 0.0, 0.0]);
            let joint = Joint::revolute().parent_frame(at);
            parent = Some(
                tree.add(&format!("L{i}"), parent, &format!("j{i}"), joint, body)
                    .unwrap(),
            );
        }
        let tree = Arc::new(tree);
        let model = tree.model().unwrap();
        let g = model
            .articulated()
            .expect("a tree without quaternions solves its own M");
        let mut rng = Lcg(n as u64);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-0.5, 0.5)).collect();
        let b: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let mut x = b.clone();
        model.solve_articulated(g, &q, &mut x).unwrap();
        let mut ws = Workspace::new(&tree);
        let mut m = vec![0.0; n * n];
        tree.crba(&mut ws, &q, &mut m);
        let err = max_abs((0..n).map(|i| (0..n).map(|j| m[i * n + j] * x[j]).sum::<f64>() - b[i]));
        // backward stable: the residual within rounding of |M| |x|
        let scale = max_abs(m.iter().copied()) * max_abs(x.iter().copied());
        assert!(
            err < 1e-13 * scale,
            "n = {n}: M x − b = {err:e} of {scale:e}"
        );
    }
}
