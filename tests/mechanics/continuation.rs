//! A run that goes on (`run::running::Running`, `run::memory::MemoryRun`): a run in spans
//! writes the rows of one run to the same end time — the integrator's state, the ledger's
//! integrals, an unwrapped angle and the sensitivities carried over — and refuses to go back.

use lagrangian::output::Interrupt;
use lagrangian::run::memory::{MemoryOptions, RunResult, run_in_memory, start_in_memory};
use lagrangian::solve::{Problem, RunPlan};
use lagrangian::spec;

/// A pendulum on a bar, with a damped spring to a second mass and a push along x: every
/// column group moves, the ledger integrates forces and damping, and `swing` is an atan2
/// angle that turns over (the bob is started fast enough to loop).
const FILE: &str = "\
Dimension: 2
PhysicalParams: { k: 40, c: 0.05, m: 1, F: 0.5 }
PartData:
  Fixed: { O: [0, 0] }
  Particles: { A: m, B: 0.5 }
  Bars: { OA: 1 }
  Springs: { AB: { stiffness: k, length: 0.5, damping: c } }
AppliedForces:
  Gravity:
  Forces: { B: [F, 0] }
ProblemData:
  tend: 3
  positions: { A: [0, -1], B: [0, -1.5] }
  velocities: { A: [10, 0], B: [10, 0] }
SolverParams: { step: 1e-3 }
Output:
  columns:
    - positions
    - velocities
    - accelerations
    - multipliers
    - reactions
    - energies
    - ledger
    - swing: atan2(A.x, -A.y)
";

fn problem() -> (Problem, RunPlan) {
    spec::parse(FILE, "continuation.yaml").unwrap()
}

/// The rows of `problem` by `plan`, run in spans to each of `ends` (the last its end time).
fn in_spans(
    problem: Problem,
    plan: &RunPlan,
    opts: &MemoryOptions,
    ends: &[f64],
) -> Vec<RunResult> {
    let mut run = start_in_memory(problem, plan, opts).unwrap();
    ends.iter().map(|&t| run.until(t).unwrap()).collect()
}

/// The largest difference between the rows of `a` and `b`, column by column relative to the
/// column's largest value (and 1).
fn largest_difference(names: &[String], a: &[Vec<f64>], b: &[Vec<f64>]) -> (f64, String) {
    assert_eq!(a.len(), b.len(), "row counts");
    let mut worst = (0.0, String::new());
    for (k, name) in names.iter().enumerate() {
        let scale = a.iter().fold(1.0f64, |m, r| m.max(r[k].abs()));
        for (x, y) in a.iter().zip(b) {
            let d = (x[k] - y[k]).abs() / scale;
            if d > worst.0 {
                worst = (d, name.clone());
            }
        }
    }
    worst
}

#[test]
fn generalized_alpha_in_spans_writes_the_rows_of_one_run() {
    let (p, plan) = problem();
    let opts = MemoryOptions::default();
    let whole = run_in_memory(p.clone(), &plan, &opts).unwrap();
    // span ends on steps of h = 1e-3, one of them a single step long
    let spans = in_spans(p, &plan, &opts, &[0.25, 0.251, 1.4, 3.0]);
    assert_eq!(spans[0].rows.len(), 251); // t = 0 … 0.25
    assert_eq!(spans[1].rows.len(), 1); // the one step to 0.251
    let rows: Vec<Vec<f64>> = spans.iter().flat_map(|s| s.rows.clone()).collect();
    let (d, column) = largest_difference(&whole.names, &whole.rows, &rows);
    assert!(d < 1e-12, "{column}: {d:.2e}");
    // the bob looped: the unwrapped angle passed 2π, and the ledger balances to the scheme's error
    let col = |name: &str| whole.names.iter().position(|n| n == name).unwrap();
    assert!(rows.last().unwrap()[col("swing")] > 2.0 * std::f64::consts::PI);
    assert!(rows.last().unwrap()[col("dissipated")] > 1e-3);
    // the summary is of the whole run
    let last = &spans[3].summary;
    assert_eq!(last.stats.steps, 3000);
    assert_eq!((last.t0, last.t_end), (0.0, 3.0));
    assert_eq!(last.stats.steps, whole.summary.stats.steps);
}

#[test]
fn a_span_that_ends_between_steps_leaves_the_step_as_it_was() {
    let (p, plan) = problem();
    let mut run = start_in_memory(p, &plan, &MemoryOptions::default()).unwrap();
    let first = run.until(0.2505).unwrap(); // the 251st step shortened to 0.5e-3
    assert_eq!(first.summary.stats.steps, 251);
    assert!((first.rows.last().unwrap()[0] - 0.2505).abs() < 1e-15);
    assert_eq!(run.running().simulation().integrator().h(), 1e-3);
    let second = run.until(0.5505).unwrap();
    assert_eq!(second.rows.len(), 300);
    assert_eq!(second.summary.stats.steps, 551);
}

#[test]
fn dop853_in_spans_follows_one_run_at_its_output_times() {
    let (mut p, plan) = problem();
    p.t_end = 3.0;
    let plan = plan
        .method(lagrangian::solve::Dop853Options::new(1e-10))
        .output_dt(0.05);
    let opts = MemoryOptions::default();
    let whole = run_in_memory(p.clone(), &plan, &opts).unwrap();
    let spans = in_spans(p, &plan, &opts, &[0.5, 1.2, 1.23, 3.0]);
    let rows: Vec<Vec<f64>> = spans.iter().flat_map(|s| s.rows.clone()).collect();
    // the rows at the same times: the grid of 0.05 from t0, and each span's end
    let on_grid = |r: &&Vec<f64>| ((r[0] / 0.05).round() * 0.05 - r[0]).abs() < 1e-12;
    let grid: Vec<Vec<f64>> = rows.iter().filter(on_grid).cloned().collect();
    assert_eq!(grid.len(), whole.rows.len());
    assert_eq!(rows.len(), whole.rows.len() + 1); // and the end at 1.23
    // the steps differ after the first span: the two runs agree to the tolerance's order,
    // but for the ledger, whose integrals over the steps (trapezoidal) differ at large steps
    let ledger = lagrangian::problem::LEDGER_COLUMNS;
    let keep: Vec<usize> = (0..whole.names.len())
        .filter(|&k| !ledger.contains(&whole.names[k].as_str()))
        .collect();
    let pick = |r: &[Vec<f64>]| -> Vec<Vec<f64>> {
        r.iter()
            .map(|r| keep.iter().map(|&k| r[k]).collect())
            .collect()
    };
    let names: Vec<String> = keep.iter().map(|&k| whole.names[k].clone()).collect();
    let (d, column) = largest_difference(&names, &pick(&whole.rows), &pick(&grid));
    assert!(d < 1e-7, "{column}: {d:.2e}");
    let c = whole
        .names
        .iter()
        .position(|n| n == "max_constraint_residual")
        .unwrap();
    assert!(rows.iter().all(|r| r[c] < 1e-10));
}

#[test]
fn sensitivities_go_on_with_the_run() {
    let (mut p, plan) = problem();
    p.t_end = 1.0;
    let opts = MemoryOptions {
        sensitivity: vec!["k".into(), "F".into()],
        ..MemoryOptions::default()
    };
    let whole = run_in_memory(p.clone(), &plan, &opts).unwrap();
    let spans = in_spans(p, &plan, &opts, &[0.3, 0.7, 1.0]);
    let rows: Vec<Vec<f64>> = spans
        .iter()
        .flat_map(|s| s.sensitivity_rows.clone())
        .collect();
    assert_eq!(spans[1].sensitivity_names, whole.sensitivity_names);
    let (d, column) = largest_difference(&whole.sensitivity_names, &whole.sensitivity_rows, &rows);
    assert!(d < 1e-10, "{column}: {d:.2e}");
}

#[test]
fn a_run_goes_forward_only_and_on_after_an_interrupt() {
    let (p, plan) = problem();
    let stop = Interrupt::new();
    let opts = MemoryOptions {
        interrupt: stop.clone(),
        ..MemoryOptions::default()
    };
    let mut run = start_in_memory(p, &plan, &opts).unwrap();
    run.until(0.5).unwrap();
    for back in [0.5, 0.2, f64::NAN] {
        let e = run.until(back).unwrap_err().to_string();
        assert!(
            e.contains("forward only") || e.contains("not finite"),
            "{e}"
        );
    }
    // stopped at once by a raised flag, it goes on with a new one from where it stopped
    stop.flag()
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let stopped = run.until(1.0).unwrap();
    assert!(stopped.summary.interrupted && stopped.rows.is_empty());
    run.set_interrupt(Interrupt::new());
    let on = run.until(1.0).unwrap();
    assert_eq!(on.rows.len(), 500);
    assert!(!on.summary.interrupted);
}

/// A sink whose disk is full.
struct Full;

impl lagrangian::output::sink::TableSink for Full {
    fn row(&mut self, _values: &[f64]) -> std::io::Result<()> {
        Err(std::io::Error::other("no space left on device"))
    }
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_run_that_failed_gives_its_error_again() {
    use lagrangian::output::sink::MemorySink;
    use lagrangian::run::{RunControl, running::Running};
    let (p, plan) = problem();
    let mut run = Running::start(p, &plan, &RunControl::default()).unwrap();
    let e = run
        .until(0.5, &mut [&mut Full])
        .err()
        .expect("a full disk fails the span");
    assert!(e.to_string().contains("no space left"), "{e}");
    let mut memory = MemorySink::default();
    let again = run
        .until(1.0, &mut [&mut memory])
        .err()
        .expect("no going on");
    assert_eq!(again, e);
}
