//! What the command line's subcommands print and write, each a thin layer over one library
//! call (`main.rs` parses and dispatches).

use crate::cli;
use lagrangian::analysis::EquilibriumOptions;
use lagrangian::prelude::*;
use lagrangian::run::RunOptions;
use lagrangian::run::equilibrium::equilibrium_to_folder;
use lagrangian::run::modes::{mode_to_folder, modes_to_folder};
use lagrangian::run::sweep::{self as sweeps, SweepOptions};
use lagrangian::solve::Overrides;
use lagrangian::spec;
use lagrangian::view::animation::{self, AnimationOptions};
use std::path::{Path, PathBuf};

/// `lagrangian check`: the file's plan against its problem, then coordinates, constraints,
/// degrees of freedom, consistent initial point.
pub fn check(p: &Problem, plan: &RunPlan, verbose: bool) -> Result<(), String> {
    plan.validate(p).map_err(|e| e.to_string())?;
    let init =
        (p.initial_values()).map_err(|e| lagrangian::run::describe(&e, Default::default()))?;
    say!(
        "{}",
        lagrangian::output::check::check_report(p, &init, verbose).trim_end()
    );
    Ok(())
}

/// `Err` when the mechanism file `file` is one of the files a command writes into `out`
/// (`lagrangian run DIR/summary.json --out DIR`): it would be replaced by a result.
pub fn refuse_input(out: &Path, file: &Path) -> Result<(), String> {
    lagrangian::output::folder::refuse_inputs_among_results(out, &[file]).map_err(|e| e.to_string())
}

/// `out/<file stem>`.
pub fn default_out(file: &Path) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or("run".into(), |s| s.to_string_lossy().to_string());
    PathBuf::from("out").join(stem)
}

/// `lagrangian modes`: the modes about the initial configuration or the equilibrium, printed
/// and in modes.json; with `animate`, one mode's motion drawn into `out/mode-K`.
pub fn modes(
    p: &Problem,
    out: &Path,
    at: cli::At,
    animate: Option<usize>,
    amplitude: Option<f64>,
) -> Result<(), String> {
    let report = modes_to_folder(p, at.into(), out).map_err(|e| e.to_string())?;
    say!("{}", report.to_string().trim_end());
    wrote(Ok(vec![out.join("modes.json")]))?;
    let Some(k) = animate else {
        return Ok(());
    };
    let dir = out.join(format!("mode-{k}"));
    let motion = mode_to_folder(p, &report, k, amplitude, &dir).map_err(|e| e.to_string())?;
    say!("{motion}");
    write_animation(&dir, &AnimationOptions::default(), false)
}

/// `lagrangian equilibrium`: the equilibrium printed and written into `out`.
pub fn equilibrium(
    p: &Problem,
    out: &Path,
    opts: &EquilibriumOptions,
    source: String,
    animate: bool,
) -> Result<(), String> {
    let report = equilibrium_to_folder(p, opts, out, Some(source)).map_err(|e| e.to_string())?;
    say!("{}", report.to_string().trim_end());
    let files = ["equilibrium.json", "scene.json", "trajectory.csv"].map(|f| out.join(f));
    wrote(Ok(files.to_vec()))?;
    match animate {
        true => write_animation(out, &AnimationOptions::default(), false),
        false => Ok(()),
    }
}

/// Print the files a picture command wrote.
/// Write the animation of the run in `dir` (as `animation::write`), say what was written and,
/// when the rows are too coarse for a smooth animation, why and what to do.
pub fn write_animation(dir: &Path, opts: &AnimationOptions, gif: bool) -> Result<(), String> {
    let (files, note) = animation::write_noting(dir, opts, gif).map_err(|e| e.to_string())?;
    if let Some(n) = note {
        eprintln!("note: {n}");
    }
    wrote(Ok(files))
}

pub fn wrote(files: Result<Vec<PathBuf>, lagrangian::error::PlotError>) -> Result<(), String> {
    for f in files.map_err(|e| e.to_string())? {
        say!("wrote {}", f.display());
    }
    Ok(())
}

pub const NEXT: &str = "
  cargo run --release -- check mechanisms/double_pendulum.yaml
  cargo run --release -- run mechanisms/cloth.yaml --t-end 0.5
  cargo run --release -- plot out/mechanism0    (energies, momenta, constraint residual)
  cargo run --release -- animate out/mechanism0 (out/mechanism0/animation.html)
  cargo run --release -- run mechanisms/spherical_pendulums.yaml   (angle coordinates)
  cargo run --release -- run YOUR_FILE.yaml --out DIR   (format: docs/yaml.md)";

/// `lagrangian sweep`: every case run in parallel, the table written to `out/sweep.csv` and
/// printed (unless `quiet`).
pub fn sweep(
    p: &Problem,
    plan: &RunPlan,
    opts: &SweepOptions,
    out: &Path,
    quiet: bool,
) -> Result<(), String> {
    let start = std::time::Instant::now();
    let rows = sweeps::sweep(p, plan, opts).map_err(|e| e.to_string())?;
    let csv = sweeps::to_csv(&rows, &opts.end);
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let file = out.join("sweep.csv");
    let part = out.join("sweep.csv.partial");
    std::fs::write(&part, &csv)
        .and_then(|_| std::fs::rename(&part, &file))
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let failed = rows.iter().filter(|r| r.error.is_some()).count();
    if !quiet {
        say!("{}", csv.trim_end());
    }
    say!(
        "{} cases ({failed} failed) in {:.2} s; wrote {}",
        rows.len(),
        start.elapsed().as_secs_f64(),
        file.display()
    );
    match failed {
        0 => Ok(()),
        n => Err(format!(
            "{n} of {} cases failed (see the error column)",
            rows.len()
        )),
    }
}

/// `lagrangian fit`: the parameters fitted to the target table, printed; the fitted run and
/// `fit.json` written into the output folder. Ctrl-C stops it after the current step.
pub fn fit(a: &cli::FitArgs) -> Result<(), String> {
    use lagrangian::run::fit::{FitOptions, Target, fit_to_folder};
    let (mut p, mut plan) = spec::load_with(&a.file, &a.set.sets).map_err(|e| e.to_string())?;
    let ov = Overrides {
        step: a.step,
        steps: a.steps,
        t_end: a.t_end,
        tol: a.tol,
        integrator: (a.integrator.clone())
            .or_else(|| (a.step.is_some() || a.steps.is_some()).then(|| "genalpha".into())),
        ..Default::default()
    };
    plan.apply(&mut p, &ov).map_err(|e| e.to_string())?;
    let exact = plan.method.options().has_sensitivities();
    let source = a.target.display().to_string();
    let out = (a.out.clone()).unwrap_or_else(|| default_out(&a.file).join("fit"));
    lagrangian::output::folder::refuse_inputs_among_results(&out, &[&a.target, &a.file])
        .map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&a.target)
        .map_err(|e| format!("cannot read the targets {source}: {e}"))?;
    let targets = Target::from_csv(&text, &source).map_err(|e| e.to_string())?;
    let names: Vec<&str> = a.vary.iter().map(|s| s.trim()).collect();
    let run = RunOptions {
        source: Some(a.file.display().to_string()),
        ..RunOptions::new(&out)
    };
    let flag = run.interrupt.flag();
    let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    let opts = FitOptions {
        max_iterations: a.max_iterations,
        tolerance: a.tolerance,
        ..FitOptions::default()
    };
    let (report, ran) =
        fit_to_folder(&p, &plan, &names, &targets, &opts, &run).map_err(|e| e.to_string())?;
    say!(
        "fit of {} to {} targets of {source}: Levenberg–Marquardt, {} by {}",
        a.file.display(),
        report.targets,
        match exact {
            true => "exact sensitivities",
            false => "Jacobian from differences of runs",
        },
        plan.method.name()
    );
    say!("{:<16} {:>22} {:>22}", "parameter", "start", "fitted");
    for ((name, s), (_, f)) in report.start.iter().zip(&report.parameters) {
        say!("{name:<16} {s:>22} {f:>22}");
    }
    say!(
        "cost {:.3e} -> {:.3e} in {} iterations",
        report.initial_cost,
        report.cost,
        report.iterations
    );
    let sets: Vec<String> = (report.parameters.iter())
        .map(|(n, v)| format!("--set {n}={v}"))
        .collect();
    say!(
        "wrote {} and the fitted run ({})",
        out.join("fit.json").display(),
        ran.dir.display()
    );
    say!(
        "next: lagrangian run {} {}",
        a.file.display(),
        sets.join(" ")
    );
    Ok(())
}

/// `lagrangian linearize`: the state-space model printed (A's eigenvalues, the matrices) and
/// written into the output folder.
pub fn linearize(a: &cli::LinearizeArgs) -> Result<(), String> {
    use lagrangian::run::linear::state_space_to_folder;
    let out = (a.out.clone()).unwrap_or_else(|| default_out(&a.file).join("linear"));
    refuse_input(&out, &a.file)?;
    let (p, _) = spec::load_with(&a.file, &a.set.sets).map_err(|e| e.to_string())?;
    let inputs: Vec<&str> = a.inputs.iter().map(|s| s.trim()).collect();
    let outputs: Vec<&str> = a.outputs.iter().map(|s| s.trim()).collect();
    let ss = state_space_to_folder(&p, a.at.into(), &inputs, &outputs, &out)
        .map_err(|e| e.to_string())?;
    let f = ss.basis.ncols();
    say!(
        "state space of {} about its {}: {} states (y, y') on {f} degrees of freedom, inputs \
         [{}], outputs [{}]",
        a.file.display(),
        match a.at {
            cli::At::Initial => "initial configuration",
            cli::At::Equilibrium => "equilibrium configuration",
            cli::At::Motion => "initial motion",
        },
        2 * f,
        ss.inputs.join(", "),
        ss.outputs.join(", ")
    );
    if ss.drift() > 0.0 {
        say!(
            "not an equilibrium: max |ÿ| = {:.3e} at rest — the model is affine, ẋ = A x + B u + e \
             (e in state_space.json): the motion leaves this configuration at once",
            ss.drift()
        );
    }
    let roots = ss.eigenvalues().map_err(|e| e.to_string())?;
    match roots.is_empty() {
        true => {
            say!("no degrees of freedom: A is empty (the constraints and drives fix the motion)")
        }
        false => say!("eigenvalues of A (1/s), one of each conjugate pair:"),
    }
    let bound = lagrangian::analysis::zero_root_bound(ss.a.nrows(), ss.a.amax());
    for s in roots {
        match s.zero {
            true => say!("  {:>14} (zero within rounding: |s| < {bound:.1e})", 0),
            false => say!("  {:>14.6e} + {:.6e}i", s.re, s.im),
        }
    }
    for (name, m) in [("A", &ss.a), ("B", &ss.b), ("C", &ss.c), ("D", &ss.d)] {
        say!("{name} ({} x {}):", m.nrows(), m.ncols());
        for i in 0..m.nrows() {
            let row: Vec<String> = m.row(i).iter().map(|x| format!("{x:>12.5e}")).collect();
            say!("  {}", row.join(" "));
        }
    }
    say!("wrote {}", out.join("state_space.json").display());
    Ok(())
}
