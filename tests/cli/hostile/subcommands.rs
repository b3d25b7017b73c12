//! Every subcommand on every bundled mechanism with its documented options: each ends with
//! its result (exit 0) or a message (exit 1, `error: …`) — never a panic or an abort (the
//! PUMA 560, without degrees of freedom, once panicked in `linearize`'s eigenvalues).

use crate::common::{run, tmp};
use std::path::Path;

fn bundled() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("mechanisms");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "urdf"))
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{files:?}");
    files
}

#[test]
fn every_subcommand_on_every_bundled_mechanism_ends_cleanly() {
    let dir = tmp("subcommands");
    let mut said_nothing = Vec::new();
    for file in bundled() {
        let name = Path::new(&file)
            .file_stem()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let out = |c: &str| {
            dir.join(format!("{name}-{c}"))
                .to_str()
                .unwrap()
                .to_string()
        };
        let (run_out, lin, modes) = (out("run"), out("linear"), out("modes"));
        let cases: Vec<Vec<&str>> = vec![
            vec!["check", &file],
            vec!["modes", &file, "--out", &modes],
            vec!["linearize", &file, "--out", &lin],
            vec!["linearize", &file, "--at", "equilibrium", "--out", &lin],
            vec!["equilibrium", &file, "--out", &modes],
            vec![
                "run", &file, "--t-end", "0.01", "--quiet", "--out", &run_out,
            ],
            vec!["plot", &run_out],
        ];
        for args in cases {
            let o = run(&args, None);
            let (stdout, stderr) = (
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr),
            );
            let code = o.status.code();
            assert!(
                !stderr.contains("panicked") && matches!(code, Some(0 | 1)),
                "{args:?}: exit {code:?}\n{stderr}"
            );
            if code == Some(1) && !stderr.starts_with("error:") {
                said_nothing.push(format!("{args:?}: {stderr}"));
            }
            if code == Some(0) && args[0] != "run" && stdout.trim().is_empty() {
                said_nothing.push(format!("{args:?}: printed nothing"));
            }
        }
    }
    assert!(said_nothing.is_empty(), "{said_nothing:#?}");
}

/// Help in every spelling a user tries: `help`, `help --help`, `help run`, `--help`.
#[test]
fn help_in_every_spelling() {
    for args in [
        &["help"][..],
        &["help", "--help"],
        &["help", "-h"],
        &["help", "run"],
        &["--help"],
    ] {
        let o = run(args, None);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && out.contains("Usage: lagrangian"),
            "{args:?}: {out}"
        );
    }
}
