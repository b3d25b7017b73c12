//! The architecture of docs/architecture.md, checked on the sources: imports run one way along
//! the pipeline, main.rs is a thin shell, no source file above 800 lines and no function above
//! 120 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Which top-level modules each module may name (`crate::X` outside comments).
fn allowed() -> BTreeMap<&'static str, Vec<&'static str>> {
    let below = |m: &[&'static str]| m.to_vec();
    BTreeMap::from([
        ("error", below(&[])),
        // the guides of docs/, rendered by rustdoc: no code
        ("guide", below(&[])),
        ("expr", below(&["error"])),
        ("model", below(&["error", "expr"])),
        // bodies on joints in joint coordinates: typed elements, recursions, a model group
        ("multibody", below(&["error", "expr", "model"])),
        ("ad", below(&["error", "expr", "model"])),
        ("assembly", below(&["error", "expr", "model"])),
        ("problem", below(&["error", "expr", "model"])),
        // mechanisms as data: descriptions that build a model and a problem, run nothing
        (
            "mechanisms",
            below(&["error", "expr", "model", "ad", "problem"]),
        ),
        (
            "solve",
            below(&["error", "expr", "model", "assembly", "problem"]),
        ),
        (
            "analysis",
            below(&["error", "expr", "model", "assembly", "problem", "solve"]),
        ),
        (
            "output",
            below(&["error", "expr", "model", "assembly", "problem", "solve"]),
        ),
        // pictures of what a run wrote: its table and scene, from a folder or from memory
        ("view", below(&["error", "problem", "output"])),
        (
            "simulation",
            below(&[
                "error", "expr", "model", "assembly", "problem", "solve", "output",
            ]),
        ),
        (
            "run",
            below(&[
                "error",
                "expr",
                "model",
                "assembly",
                "problem",
                "solve",
                "analysis",
                "output",
                "view",
                "simulation",
            ]),
        ),
        (
            "library",
            below(&[
                "error",
                "expr",
                "model",
                "ad",
                "assembly",
                "problem",
                "mechanisms",
                "solve",
                "output",
                "simulation",
            ]),
        ),
        // the file reader builds problems: nothing that runs a solver (no `library`)
        (
            "spec",
            below(&[
                "error",
                "expr",
                "model",
                "multibody",
                "ad",
                "problem",
                "mechanisms",
            ]),
        ),
        // the command line's arguments (clap definitions), used by main.rs only
        ("cli", below(&["output", "problem", "run", "spec", "view"])),
        // what the subcommands print and write (main.rs dispatches to it)
        (
            "commands",
            below(&[
                "analysis",
                "error",
                "problem",
                "solve",
                "output",
                "view",
                "simulation",
                "run",
                "spec",
                "prelude",
                "cli",
            ]),
        ),
        // the command line: a thin shell over spec, simulation, output and the problem types
        (
            "main",
            below(&[
                "analysis",
                "error",
                "problem",
                "solve",
                "output",
                "view",
                "simulation",
                "run",
                "spec",
                "prelude",
            ]),
        ),
    ])
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The names after `crate::` (or `lagrangian::` in main.rs) on non-comment lines.
fn named_modules(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let l = line.trim_start();
        if l.starts_with("//") {
            continue;
        }
        let mut rest = l;
        while let Some(i) = rest.find(prefix) {
            rest = &rest[i + prefix.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.insert(name);
        }
    }
    out
}

#[test]
fn imports_follow_the_pipeline() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let allowed = allowed();
    let mut bad = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" {
            continue; // the crate root re-exports the public surface
        }
        let Some(ok) = allowed.get(top.as_str()) else {
            bad.push(format!(
                "{}: module '{top}' is not in docs/architecture.md",
                rel.display()
            ));
            continue;
        };
        let text = fs::read_to_string(f).unwrap();
        let prefix = if top == "main" || top == "cli" || top == "commands" {
            "lagrangian::"
        } else {
            "crate::"
        };
        for name in named_modules(&text, prefix) {
            if name != top && !ok.contains(&name.as_str()) {
                bad.push(format!("{}: '{top}' imports '{name}'", rel.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "imports against the pipeline:\n{}",
        bad.join("\n")
    );
}

/// The mechanism-file reader builds problems and runs nothing: no module it may import, nor
/// any they may import in turn, runs a solver or holds a run loop.
#[test]
fn spec_reaches_no_solver() {
    let allowed = allowed();
    let mut reached = BTreeSet::from(["spec"]);
    let mut todo = vec!["spec"];
    while let Some(m) = todo.pop() {
        for &next in &allowed[m] {
            if reached.insert(next) {
                todo.push(next);
            }
        }
    }
    for layer in [
        "solve",
        "simulation",
        "output",
        "run",
        "analysis",
        "library",
    ] {
        assert!(
            !reached.contains(layer),
            "spec reaches '{layer}': {reached:?}"
        );
    }
}

#[test]
fn files_and_functions_stay_small() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["src", "tests", "examples", "benches"] {
        if root.join(d).is_dir() {
            sources(&root.join(d), &mut files);
        }
    }
    let mut bad = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let rel = f.strip_prefix(root).unwrap().display().to_string();
        if rel.starts_with("src") && lines.len() > 800 {
            bad.push(format!("{rel}: {} lines (limit 800)", lines.len()));
        }
        // a function ends at the first line that closes it at its own indentation
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_start();
            let is_fn = t.starts_with("fn ")
                || t.starts_with("pub fn ")
                || t.starts_with("pub(crate) fn ")
                || t.starts_with("pub(super) fn ");
            // a declaration without a body (in a trait): its signature ends with `;`
            let signature_end = lines[i..]
                .iter()
                .find(|x| x.trim_end().ends_with('{') || x.trim_end().ends_with(';'));
            if !is_fn || signature_end.is_none_or(|x| x.trim_end().ends_with(';')) {
                continue;
            }
            let indent = &l[..l.len() - t.len()];
            let close = format!("{indent}}}");
            if let Some(len) = lines[i + 1..].iter().position(|x| *x == close)
                && len + 2 > 120
            {
                bad.push(format!("{rel}:{}: a function of {} lines", i + 1, len + 2));
            }
        }
    }
    assert!(bad.is_empty(), "too large:\n{}", bad.join("\n"));
}

#[test]
fn main_is_a_thin_shell() {
    let main =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/main.rs")).unwrap();
    let n = main.lines().count();
    assert!(n <= 300, "src/main.rs has {n} lines (limit 300)");
}
