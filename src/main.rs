//! The `lagrangian` command line: `run` a mechanism file, `check` it, or — without arguments —
//! run the bundled default mechanism (DAETS' Mechanism0).

use clap::Parser;
use lagrangian::analysis::EquilibriumOptions;
use lagrangian::output::Interrupt;
use lagrangian::prelude::*;
use lagrangian::run::{RunOptions, describe, run_to_folder};
use lagrangian::solve::Overrides;
use lagrangian::spec;
use lagrangian::view::animation::AnimationOptions;
use lagrangian::view::plot;
use std::io::IsTerminal;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// `println!` that ignores a closed stdout (e.g. `lagrangian run … | head`): never panics.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

mod cli;
mod commands;
use cli::{Cli, Cmd, RunArgs};
use commands::{
    NEXT, check, default_out, equilibrium, fit, linearize, modes, refuse_input, sweep,
    write_animation, wrote,
};

const DEFAULT_NAME: &str = "mechanisms/mechanism0.yaml";
const DEFAULT_TEXT: &str = include_str!("../mechanisms/mechanism0.yaml");

/// `lagrangian run`: the problem through [`run_to_folder`], the summary on the terminal.
fn run(
    (mut problem, mut plan): (Problem, RunPlan),
    ov: &Overrides,
    quiet: bool,
    base: RunOptions,
    animate: Option<(AnimationOptions, bool)>,
) -> Result<(), String> {
    // Ctrl-C / SIGTERM end the run after the current step; its results go to OUT/interrupted
    let interrupt = Interrupt::new();
    let flag = interrupt.flag();
    let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    plan.apply(&mut problem, ov).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        progress: !quiet && std::io::stderr().is_terminal(),
        interrupt,
        ..base
    };
    let report = run_to_folder(problem, &plan, &opts).map_err(|e| describe(&e, ov.spelling))?;
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
        Some((opts, gif)) => write_animation(&report.dir, &opts, gif),
        None => Ok(()),
    }
}

/// `lagrangian run FILE`: the file with its `--set`s, the flags over its settings, into `--out`.
fn run_file(a: &RunArgs, start: Instant) -> Result<(), String> {
    let out = a.out.clone().unwrap_or_else(|| default_out(&a.file));
    refuse_input(&out, &a.file)?;
    let base = RunOptions {
        source: Some(a.file.display().to_string()),
        started: Some(start),
        sensitivity: a.sensitivity.clone(),
        ..RunOptions::new(&out)
    };
    let animate = match a.animate || a.anim.gif {
        true => Some(a.anim.options().map(|o| (o, a.anim.gif))).transpose()?,
        false => None,
    };
    let problem = spec::load_with(&a.file, &a.set.sets).map_err(|e| e.to_string())?;
    run(problem, &a.overrides(), a.quiet, base, animate)
}

/// A roomy stack for the worker (reserved, not used: expression evaluation is flat, the parser
/// nests at most 100 levels).
const STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    // `lagrangian help --help` (clap's help subcommand takes no options): the command's help
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 3 && args[1] == "help" && (args[2] == "--help" || args[2] == "-h") {
        args.truncate(2);
    }
    let cli = Cli::parse_from(args);
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

/// `lagrangian` without arguments: the bundled Mechanism0 into `out/mechanism0`.
fn run_default(start: Instant) -> Result<(), String> {
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

fn execute(cli: Cli) -> ExitCode {
    let start = Instant::now();
    let result = match cli.cmd {
        None => run_default(start),
        Some(Cmd::Run(args)) => run_file(&args, start),
        Some(Cmd::Modes {
            file,
            out,
            set,
            at,
            animate,
            amplitude,
        }) => {
            let out = out.unwrap_or_else(|| default_out(&file));
            refuse_input(&out, &file)
                .and_then(|()| spec::load_with(&file, &set.sets).map_err(|e| e.to_string()))
                .and_then(|(p, _)| modes(&p, &out, at, animate, amplitude))
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
            refuse_input(&out, &file)
                .and_then(|()| spec::load_with(&file, &set.sets).map_err(|e| e.to_string()))
                .and_then(|(p, _)| {
                    equilibrium(&p, &out, &opts, file.display().to_string(), animate)
                })
        }
        Some(Cmd::Sweep(args)) => {
            let out = (args.out.clone()).unwrap_or_else(|| default_out(&args.file).join("sweep"));
            let interrupt = Interrupt::new();
            let flag = interrupt.flag();
            let _ =
                ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
            refuse_input(&out, &args.file)
                .and_then(|()| spec::load(&args.file).map_err(|e| e.to_string()))
                .and_then(|(p, plan)| sweep(&p, &plan, &args.options(interrupt), &out, args.quiet))
        }
        Some(Cmd::Fit(args)) => fit(&args),
        Some(Cmd::Linearize(args)) => linearize(&args),
        Some(Cmd::Check { file, set, verbose }) => spec::load_with(&file, &set.sets)
            .map_err(|e| e.to_string())
            .and_then(|(p, plan)| check(&p, &plan, verbose)),
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
            .and_then(|o| write_animation(&dir, &o, anim.gif)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::FAILURE
        }
    }
}
