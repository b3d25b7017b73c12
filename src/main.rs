//! The `lagrangian` command line: `run` a mechanism file, `check` it, or — without arguments —
//! run the bundled default mechanism (DAETS' Mechanism0).

use clap::Parser;
use lagrangian::analysis::EquilibriumOptions;
use lagrangian::output::animation::{self, AnimationOptions};
use lagrangian::output::{plot, Interrupt};
use lagrangian::prelude::*;
use lagrangian::run::equilibrium::equilibrium_to_folder;
use lagrangian::run::modes::{mode_to_folder, modes_to_folder};
use lagrangian::run::{describe, run_to_folder, RunOptions};
use lagrangian::solve::Overrides;
use lagrangian::spec;
use std::io::IsTerminal;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod cli;
use cli::{Cli, Cmd};

/// `println!` that ignores a closed stdout (e.g. `lagrangian run … | head`): never panics.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

const DEFAULT_NAME: &str = "mechanisms/mechanism0.yaml";
const DEFAULT_TEXT: &str = include_str!("../mechanisms/mechanism0.yaml");

/// `lagrangian run`: the problem through [`run_to_folder`], the summary on the terminal.
fn run(
    mut problem: Problem,
    ov: &Overrides,
    quiet: bool,
    base: RunOptions,
    animate: Option<(AnimationOptions, bool)>,
) -> Result<(), String> {
    // Ctrl-C / SIGTERM end the run after the current step; its results go to OUT/interrupted
    let interrupt = Interrupt::new();
    let flag = interrupt.flag();
    let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    problem.apply(ov).map_err(|e| e.to_string())?;
    let h = problem.method.h();
    let opts = RunOptions {
        progress: !quiet && std::io::stderr().is_terminal(),
        interrupt,
        ..base
    };
    let report = run_to_folder(problem, &opts).map_err(|e| describe(&e, h))?;
    if report.interrupted() {
        let (t, at) = (report.summary.t_end, report.dir.display());
        return Err(format!(
            "interrupted at t = {t}: the partial results are in {at}"
        ));
    }
    if !quiet {
        say!("{}", report.summary);
        let files: Vec<_> = report
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        say!("  wrote {}", files.join(", "));
    }
    match animate {
        Some((opts, gif)) => wrote(animation::write(&report.dir, &opts, gif)),
        None => Ok(()),
    }
}

/// `lagrangian check`: coordinates, constraints, degrees of freedom, consistent initial point.
fn check(p: &Problem, verbose: bool) -> Result<(), String> {
    let init = p
        .initial_values()
        .map_err(|e| format!("initial values: {e}"))?;
    say!(
        "{}",
        lagrangian::output::check::check_report(p, &init, verbose).trim_end()
    );
    Ok(())
}

/// `out/<file stem>`.
fn default_out(file: &Path) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or("run".into(), |s| s.to_string_lossy().to_string());
    PathBuf::from("out").join(stem)
}

/// `lagrangian modes`: the modes about the initial configuration or the equilibrium, printed
/// and in modes.json; with `animate`, one mode's motion drawn into `out/mode-K`.
fn modes(
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
    wrote(animation::write(&dir, &AnimationOptions::default(), false))
}

/// `lagrangian equilibrium`: the equilibrium printed and written into `out`.
fn equilibrium(
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
        true => wrote(animation::write(out, &AnimationOptions::default(), false)),
        false => Ok(()),
    }
}

/// Print the files a picture command wrote.
fn wrote(files: Result<Vec<PathBuf>, lagrangian::error::PlotError>) -> Result<(), String> {
    for f in files.map_err(|e| e.to_string())? {
        say!("wrote {}", f.display());
    }
    Ok(())
}

const NEXT: &str = "
  cargo run --release -- check mechanisms/double_pendulum.yaml
  cargo run --release -- run mechanisms/cloth.yaml --t-end 0.5
  cargo run --release -- plot out/mechanism0    (energies, momenta, constraint residual)
  cargo run --release -- animate out/mechanism0 (out/mechanism0/animation.html)
  cargo run --release -- run mechanisms/spherical_pendulums.yaml   (angle coordinates)
  cargo run --release -- run YOUR_FILE.yaml --out DIR   (format: docs/yaml.md)";

/// A roomy stack for the worker (reserved, not used: expression evaluation is flat, the parser
/// nests at most 100 levels).
const STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .name("lagrangian".into())
        .stack_size(STACK_BYTES)
        .spawn(move || execute(cli));
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => ExitCode::FAILURE, // a panic: its message is already printed
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "error: cannot start the worker thread: {e}"
            );
            ExitCode::FAILURE
        }
    }
}

fn execute(cli: Cli) -> ExitCode {
    let start = Instant::now();
    let result = match cli.cmd {
        None => {
            let out = PathBuf::from("out/mechanism0");
            say!("lagrangian: no arguments, running the bundled {DEFAULT_NAME} (DAETS' Mechanism0)\n");
            let r = spec::parse(DEFAULT_TEXT, DEFAULT_NAME)
                .map_err(|e| e.to_string())
                .and_then(|p| {
                    let base = RunOptions {
                        source: Some(DEFAULT_NAME.into()),
                        started: Some(start),
                        ..RunOptions::new(&out)
                    };
                    run(p, &Overrides::default(), false, base, None)
                });
            if r.is_ok() {
                let csv = out.join("trajectory.csv");
                say!("\nnext: plot or inspect {}, or try{NEXT}", csv.display());
            }
            r
        }
        Some(Cmd::Run {
            file,
            out,
            set,
            steps,
            step,
            t_end,
            rho_inf,
            integrator,
            output_every,
            columns,
            format,
            quiet,
            animate,
            anim,
            sensitivity,
        }) => {
            let out = out.unwrap_or_else(|| default_out(&file));
            let ov = Overrides {
                steps,
                step,
                t_end,
                rho_inf,
                integrator,
                output_every,
                columns,
                formats: format,
            };
            let base = RunOptions {
                source: Some(file.display().to_string()),
                started: Some(start),
                sensitivity,
                ..RunOptions::new(&out)
            };
            let animate = match animate || anim.gif {
                true => Some(anim.options().map(|o| (o, anim.gif))),
                false => None,
            };
            animate
                .transpose()
                .and_then(|a| {
                    Ok((
                        spec::load_with(&file, &set.sets).map_err(|e| e.to_string())?,
                        a,
                    ))
                })
                .and_then(|(p, a)| run(p, &ov, quiet, base, a))
        }
        Some(Cmd::Modes {
            file,
            out,
            set,
            at,
            animate,
            amplitude,
        }) => {
            let out = out.unwrap_or_else(|| default_out(&file));
            spec::load_with(&file, &set.sets)
                .map_err(|e| e.to_string())
                .and_then(|p| modes(&p, &out, at, animate, amplitude))
        }
        Some(Cmd::Equilibrium {
            file,
            out,
            set,
            hold_pins,
            max_iterations,
            animate,
        }) => {
            let out = out.unwrap_or_else(|| default_out(&file).join("equilibrium"));
            let opts = EquilibriumOptions {
                hold_pins,
                max_iterations,
                ..EquilibriumOptions::default()
            };
            spec::load_with(&file, &set.sets)
                .map_err(|e| e.to_string())
                .and_then(|p| equilibrium(&p, &out, &opts, file.display().to_string(), animate))
        }
        Some(Cmd::Check { file, set, verbose }) => spec::load_with(&file, &set.sets)
            .map_err(|e| e.to_string())
            .and_then(|p| check(&p, verbose)),
        Some(Cmd::Plot {
            dir,
            columns,
            out,
            size,
        }) => match plot::parse_size(&size) {
            Some(size) => wrote(plot::plot_run(&dir, &columns, out, size)),
            None => Err(format!(
                "--size {size}: expected WIDTHxHEIGHT, e.g. 1200x800"
            )),
        },
        Some(Cmd::Animate { dir, anim }) => anim
            .options()
            .and_then(|o| wrote(animation::write(&dir, &o, anim.gif))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::FAILURE
        }
    }
}
