//! A time step allocates nothing once the stepper is warm: residuals, assembly, factorization
//! (dense LU, sparse LU with the symbolic analysis reused, Jacobi) and solves all work in
//! preallocated buffers. Checked with a counting global allocator.
//!
//! The count is process-wide (it sees rayon's workers too), so this test runs without libtest's
//! harness (`harness = false` in Cargo.toml): libtest's main thread records the running test in
//! a hash map after spawning it, and on a loaded machine that allocation landed inside the
//! measured window (4 allocations in one CI run; 54 failures in 600 runs with both cores
//! otherwise busy).

use lagrangian::library::mass_spring::Derivatives;
use lagrangian::library::mass_spring::scenes::benchmark_chain;
use lagrangian::library::pendulum::pendulum_chain_3d;
use lagrangian::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations during `steps` steps after `warm` warm-up steps.
/// The steps go through the shared run loop, [`Simulation::step`].
fn allocations(
    model: &Arc<Model>,
    state: &State,
    opts: impl Into<RunPlan>,
    warm: usize,
    steps: usize,
) -> usize {
    let problem = Problem::new(Arc::clone(model));
    let mut g = Simulation::from_state(problem, opts, state).unwrap();
    for _ in 0..warm {
        g.step().unwrap();
    }
    let before = ALLOCS.load(Ordering::Relaxed);
    for _ in 0..steps {
        g.step().unwrap();
    }
    ALLOCS.load(Ordering::Relaxed) - before
}

fn main() {
    // one after another: the counter is global, so the cases must not run in parallel threads
    let (model, state) = small_model();
    steps_do_not_allocate(&model, &state);
    rows_between_steps_do_not_allocate(&model, &state);
    // a small model runs on the calling thread: rayon's pool (whose threads' first
    // allocations would land in a later measured window) is not started
    #[cfg(target_os = "linux")]
    {
        let threads = std::fs::read_dir("/proc/self/task").unwrap().count();
        assert_eq!(
            threads, 1,
            "{threads} threads after the small models' steps"
        );
    }
    networks_do_not_allocate();
    mechanism_files_do_not_allocate();
    println!("no_alloc: steps, controlled steps, rows between steps, files: no allocation");
}

/// A constrained AD model: five pendulums in 3D (15 coordinates, 5 constraints).
fn small_model() -> (Arc<Model>, State) {
    let model = Arc::new(pendulum_chain_3d(&[1.0; 5], &[0.5; 5], 9.81).unwrap());
    let q: Vec<f64> = (0..5)
        .flat_map(|i| [0.5 * (i + 1) as f64, 0.1 * i as f64, 0.0])
        .collect();
    let init = consistent_initial_values(&model, &q, &[0.0; 15], &InitOptions::default()).unwrap();
    (model, init.state)
}

/// Dense (15 + 5 unknowns) and sparse LU, full and modified Newton, error control, DOP853 and
/// Radau IIA on the small model.
fn steps_do_not_allocate(model: &Arc<Model>, state: &State) {
    for kind in [LinearSolverKind::Dense, LinearSolverKind::Sparse] {
        for reuse in [false, true] {
            let opts = GenAlphaOptions::new(1e-3)
                .linear_solver(kind)
                .reuse_factorization(reuse);
            let n = allocations(model, state, opts, 3, 50);
            assert_eq!(
                n, 0,
                "{kind:?}, reuse = {reuse}: {n} allocations in 50 steps"
            );
        }
    }
    // error control: controlled steps (estimate, controller, velocity projection)
    for kind in [LinearSolverKind::Dense, LinearSolverKind::Sparse] {
        let opts = GenAlphaOptions::new(1e-3)
            .linear_solver(kind)
            .tolerance(1e-6);
        let n = allocations(model, state, opts, 3, 50);
        assert_eq!(
            n, 0,
            "{kind:?} under error control: {n} allocations in 50 steps"
        );
    }
    // DOP853: stages, error estimate, projection onto the constraints, stiffness test
    let n = allocations(model, state, Dop853Options::new(1e-8), 3, 50);
    assert_eq!(n, 0, "DOP853: {n} allocations in 50 steps");
    // Radau IIA: stages, the real and complex systems (dense 20 and 40; sparse LU), the error
    // estimate, new Jacobians and factorizations as the step changes
    for kind in [LinearSolverKind::Dense, LinearSolverKind::Sparse] {
        let opts = RadauOptions {
            linear_solver: kind,
            ..RadauOptions::new(1e-8)
        };
        let n = allocations(model, state, opts, 3, 50);
        assert_eq!(n, 0, "Radau, {kind:?}: {n} allocations in 50 steps");
    }
    // the Taylor-series method: the residual on series at every order, the solves with the
    // state's factorized matrix, the step from the series, the projections
    let n = allocations(model, state, TaylorOptions::new(1e-10, 12), 3, 50);
    assert_eq!(n, 0, "Taylor: {n} allocations in 50 steps");
}

/// Rows between steps: DOP853's continuous extension and generalized-α's interpolation, with
/// the projections of the output.
fn rows_between_steps_do_not_allocate(model: &Arc<Model>, state: &State) {
    let problem = Problem::new(Arc::clone(model)).t_end(1.0);
    let plan = RunPlan::new(Dop853Options::new(1e-8)).output_dt(1e-3);
    let mut sim = Simulation::from_state(problem, plan, state).unwrap();
    let mut between = 0usize;
    let mut count = |ev: &Event| {
        between += usize::from(ev.interpolated);
        Control::Continue
    };
    sim.run_until(0.05, &mut [&mut count]).unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    sim.run_until(0.2, &mut [&mut count]).unwrap();
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    assert!(between > 100, "{between} DOP853 rows between steps");
    assert_eq!(n, 0, "DOP853 output between steps: {n} allocations");
    // generalized-α's interpolation
    let problem = Problem::new(Arc::clone(model)).t_end(1.0);
    let plan = RunPlan::new(GenAlphaOptions::new(1e-3)).output_dt(7e-4);
    let mut sim = Simulation::from_state(problem, plan, state).unwrap();
    let mut between = 0usize;
    let mut count = |ev: &Event| {
        between += usize::from(ev.interpolated);
        Control::Continue
    };
    sim.run_until(0.01, &mut [&mut count]).unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    sim.run_until(0.06, &mut [&mut count]).unwrap();
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    assert!(between > 70, "{between} rows between steps");
    assert_eq!(n, 0, "output between steps: {n} allocations in 50 steps");
}

/// A large unconstrained network with hand kernels: the Jacobi and sparse LU paths, DOP853 and
/// Radau IIA.
fn networks_do_not_allocate() {
    let chain = benchmark_chain(200);
    let m = Arc::new(chain.model(Derivatives::Hand).unwrap());
    let (q, v) = chain.state_vectors();
    let init = consistent_initial_values(&m, &q, &v, &InitOptions::default()).unwrap();
    for kind in [LinearSolverKind::Auto, LinearSolverKind::Sparse] {
        let opts = GenAlphaOptions::new(1e-3)
            .linear_solver(kind)
            .reuse_factorization(true);
        let n = allocations(&m, &init.state, opts, 3, 50);
        assert_eq!(n, 0, "{kind:?}: {n} allocations in 50 steps");
    }
    let n = allocations(&m, &init.state, Dop853Options::new(1e-6), 3, 50);
    assert_eq!(n, 0, "DOP853 on a network: {n} allocations in 50 steps");
    let n = allocations(&m, &init.state, RadauOptions::new(1e-6), 3, 50);
    assert_eq!(n, 0, "Radau on a network: {n} allocations in 50 steps");
}

/// Mechanism files: assignments and equations (RSCR), a 3D body with a time-dependent torque
/// and a force on a derived point (expression graphs evaluated on dual numbers).
fn mechanism_files_do_not_allocate() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/mechanisms/");
    let racket = std::fs::read_to_string(format!("{dir}tennis_racket.yaml"))
        .unwrap()
        .replace(
            "ProblemData:",
            "AppliedForces:\n  Torques: { racket: [0, 0, 0.1*sin(t)] }\n  Forces: { Tip: [0, 0, \"atan2(1, 2 + t)\"] }\nProblemData:",
        );
    let rscr = std::fs::read_to_string(format!("{dir}rscr.yaml")).unwrap();
    for (name, text) in [("rscr", rscr), ("racket", racket)] {
        let (m, _) = lagrangian::spec::parse(&text, name).unwrap();
        let o = InitOptions {
            pinned_q: m.pinned_q.clone(),
            pinned_v: m.pinned_v.clone(),
            ..InitOptions::default()
        };
        let init = consistent_initial_values(&m.model, &m.q_guess, &m.v_guess, &o).unwrap();
        for reuse in [false, true] {
            let opts = GenAlphaOptions::new(1e-3).reuse_factorization(reuse);
            let n = allocations(&m.model, &init.state, opts, 3, 50);
            assert_eq!(n, 0, "{name}, reuse = {reuse}: {n} allocations in 50 steps");
        }
        // the expression programs on Taylor series
        let n = allocations(&m.model, &init.state, TaylorOptions::new(1e-8, 10), 3, 20);
        assert_eq!(n, 0, "{name}, Taylor: {n} allocations in 20 steps");
    }
    // point masses under pair potentials c/|x − y| (the outer solar system): the small
    // unconstrained path — the weights summed once, `q̈ = −M⁻¹r` into the slope — by every
    // method
    let (m, _) = lagrangian::spec::load(std::path::Path::new(&format!(
        "{dir}outer_solar_system.yaml"
    )))
    .unwrap();
    let init = consistent_initial_values(&m.model, &m.q_guess, &m.v_guess, &InitOptions::default())
        .unwrap();
    let methods: [(&str, Method); 4] = [
        ("DOP853", Dop853Options::new(1e-10).into()),
        ("Radau", RadauOptions::new(1e-10).into()),
        ("Taylor", TaylorOptions::new(1e-10, 0).into()),
        ("generalized-α", GenAlphaOptions::new(1.0).into()),
    ];
    for (name, method) in methods {
        let n = allocations(&m.model, &init.state, method, 3, 30);
        assert_eq!(
            n, 0,
            "outer solar system, {name}: {n} allocations in 30 steps"
        );
    }
}
