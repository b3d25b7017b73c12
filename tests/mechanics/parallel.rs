//! Parallel assembly: large groups of AD elements are assembled in blocks on rayon's threads,
//! the blocks of one color at a time. A run gives bit-for-bit the same states on one thread
//! and on two, and the same as the element-by-element assembly to round-off; hand-derived
//! kernels stay in element order.

use lagrangian::ad::Derivatives;
use lagrangian::library::mass_spring::scenes::cloth;
use lagrangian::output::Recorder;
use lagrangian::prelude::*;

/// The 105 × 105 cloth (11,025 masses, 33,075 coordinates, 22,260 springs: both groups above
/// the parallel threshold, the vectors above that of the integrator's loops) after 20 steps,
/// on a pool of `threads` threads (0: called from outside any pool, on the global one); `q`,
/// `v` of the last state.
fn run(derivatives: Derivatives, parallel: bool, threads: usize) -> Vec<f64> {
    let (s, _) = cloth(105).expect("cloth");
    let model = s
        .model(derivatives)
        .expect("model")
        .parallel_assembly(parallel);
    let colors = model.parallel_colors();
    match (parallel, derivatives) {
        // AD masses: one color; AD springs of a grid numbered row by row: two (blocks longer
        // than the band)
        (true, Derivatives::Ad) => assert!(
            colors.len() == 2 && colors.contains(&1) && colors.iter().all(|&c| c <= 2),
            "{colors:?}"
        ),
        // hand kernels are cheaper than the scheduled order's extra passes: element order
        _ => assert!(colors.is_empty(), "{colors:?}"),
    }
    let (q, v) = s.state_vectors();
    let problem = Problem::new(model).guess(&q, &v).t_end(0.02);
    let go = move || {
        let mut sim = Simulation::new(problem, GenAlphaOptions::new(1e-3)).expect("simulation");
        let mut rec = Recorder::every(usize::MAX);
        sim.run_until(0.02, &mut [&mut rec]).expect("run");
        let st = sim.state();
        st.q.iter().chain(&st.v).copied().collect()
    };
    if threads == 0 {
        // from this thread, outside any pool: each step is sent to the global pool
        return go();
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    pool.install(go)
}

fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / (1.0 + x.abs()))
        .fold(0.0, f64::max)
}

#[test]
fn one_thread_and_two_give_the_same_run() {
    for how in [Derivatives::Hand, Derivatives::Ad] {
        let one = run(how, true, 1);
        let two = run(how, true, 2);
        assert!(one == two, "{how:?}: differ by {:e}", max_rel(&one, &two));
        let serial = run(how, false, 2);
        let d = max_rel(&one, &serial);
        assert!(d < 1e-12, "{how:?}: scheduled vs element order {d:e}");
        // the cloth moved: the comparison is not of two initial states
        let (s, _) = cloth(105).expect("cloth");
        let (q0, _) = s.state_vectors();
        assert!(max_rel(&one[..q0.len()], &q0) > 1e-4);
    }
}

/// A simulation stepped from outside rayon's pools (the command line, a library user's main
/// thread) runs each step on the global pool: the same bits as on one thread.
#[test]
fn a_run_from_outside_the_pool_gives_the_same_run() {
    // two threads in the global pool if this process has not started it yet
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global();
    let one = run(Derivatives::Ad, true, 1);
    let outside = run(Derivatives::Ad, true, 0);
    assert!(one == outside, "differ by {:e}", max_rel(&one, &outside));
}
