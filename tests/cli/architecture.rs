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

/// The README's layout table names every folder and top-level file of `src/` and every
/// top-level folder of the repository a user meets, and each path it names exists.
#[test]
fn the_readme_layout_is_the_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let table = &readme[readme.find("## Layout").expect("a Layout section")..];
    let mut named = BTreeSet::new();
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let cell = line.split('|').nth(1).unwrap();
        for path in cell.split('`').skip(1).step_by(2) {
            assert!(
                root.join(path).exists(),
                "README's layout names {path}, which is not there"
            );
            named.insert(path.to_string());
        }
    }
    let mut wanted: Vec<String> = std::fs::read_dir(root.join("src"))
        .unwrap()
        .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    wanted.extend(
        [
            "python",
            "mechanisms",
            "examples",
            "tests",
            "benches",
            "docs",
        ]
        .map(String::from),
    );
    for w in wanted {
        assert!(named.contains(&w), "README's layout does not name {w}");
    }
}

/// The README shows the bundled double pendulum as it is, and the pictures it shows exist.
#[test]
fn the_readme_shows_what_is_bundled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme.find("```yaml\n").expect("a YAML block") + "```yaml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let file = std::fs::read_to_string(root.join("mechanisms/double_pendulum.yaml")).unwrap();
    assert_eq!(
        &readme[start..end],
        file,
        "README's YAML is not mechanisms/double_pendulum.yaml"
    );
    let mut pictures = 0;
    for (at, _) in readme.match_indices("](docs/images/") {
        let path = &readme[at + 2..at + 2 + readme[at + 2..].find(')').unwrap()];
        let bytes = std::fs::read(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(bytes.starts_with(b"\x89PNG"), "{path} is not a PNG");
        pictures += 1;
    }
    assert!(
        pictures >= 2,
        "the README shows a plot and a frame of an animation"
    );
}

/// A source file's module path (`src/a/b.rs`, `src/a/b/mod.rs` → `a::b`).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without comments, string literals and its test module.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    let mut out = String::new();
    let mut in_string = false;
    for line in text.lines() {
        if !in_string && line.trim_start().starts_with("//") {
            continue;
        }
        let mut escaped = false;
        for c in line.chars() {
            match (in_string, c) {
                (true, '\\') if !escaped => escaped = true,
                (true, '"') if !escaped => in_string = false,
                (true, _) => escaped = false,
                (false, '"') => in_string = true,
                (false, _) => out.push(c),
            }
        }
        out.push('\n');
    }
    out
}

/// The paths a file's code names: `crate::a::b`, `crate::a::{b, c}`, `super::x`,
/// `super::{x, y}` (relative to `module`), each as written.
fn named_paths(code: &str, module: &str) -> Vec<String> {
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut out = Vec::new();
    for (prefix, base) in [("crate::", String::new()), ("super::", parent.to_string())] {
        let join = |p: &str| match base.is_empty() {
            true => p.to_string(),
            false => format!("{base}::{p}"),
        };
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            // `crate::` inside a longer name (`lagrangian_crate::`) is not a path
            let before = rest[..i].chars().next_back();
            rest = &rest[i + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let path: String = rest.chars().take_while(|&c| word(c)).collect();
            let path = path.trim_end_matches(':').to_string();
            let after = &rest[path.len()..];
            let open = match path.is_empty() {
                true => after.strip_prefix('{'),
                false => after.strip_prefix("::{"),
            };
            if let Some(group) = open.and_then(|g| g.split_once('}')) {
                for item in group.0.split(',') {
                    let item: String = item.trim().chars().take_while(|&c| word(c)).collect();
                    if !item.is_empty() && item != "self" {
                        let full = if path.is_empty() {
                            item
                        } else {
                            format!("{path}::{item}")
                        };
                        out.push(join(&full));
                    }
                }
            } else if !path.is_empty() {
                out.push(join(&path));
            }
        }
    }
    out
}

/// No circle of imports between the library's modules (a module naming its own ancestors
/// aside): each file's module below the ones it names, so each can be read, tested and changed
/// from the bottom up (docs/architecture.md).
#[test]
fn no_module_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let outside = ["lib", "main", "cli", "commands"];
    let modules: BTreeMap<String, &PathBuf> = (files.iter())
        .map(|f| (module_of(&root, f), f))
        .filter(|(m, _)| !outside.contains(&m.as_str()))
        .collect();
    let resolve = |path: &str| {
        let parts: Vec<&str> = path.split("::").collect();
        (1..=parts.len())
            .rev()
            .map(|k| parts[..k].join("::"))
            .find(|m| modules.contains_key(m))
    };
    let mut edges: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (m, f) in &modules {
        let code = code_of(&fs::read_to_string(f).unwrap());
        let named = named_paths(&code, m)
            .into_iter()
            .filter_map(|p| resolve(&p));
        let ancestor = |t: &String| t == m || m.starts_with(&format!("{t}::"));
        edges
            .entry(m)
            .or_default()
            .extend(named.filter(|t| !ancestor(t)));
    }
    // circles: modules that reach themselves (Tarjan's strongly connected components)
    struct Walk<'a> {
        edges: &'a BTreeMap<&'a str, BTreeSet<String>>,
        index: BTreeMap<String, (usize, usize)>,
        stack: Vec<String>,
        circles: Vec<Vec<String>>,
    }
    fn visit(w: &mut Walk, v: &str) {
        let n = w.index.len();
        w.index.insert(v.to_string(), (n, n));
        w.stack.push(v.to_string());
        for t in w.edges.get(v).into_iter().flatten() {
            if !w.index.contains_key(t) {
                visit(w, t);
                let low = w.index[v].1.min(w.index[t].1);
                w.index.get_mut(v).unwrap().1 = low;
            } else if w.stack.contains(t) {
                let low = w.index[v].1.min(w.index[t].0);
                w.index.get_mut(v).unwrap().1 = low;
            }
        }
        if w.index[v].0 == w.index[v].1 {
            let at = w.stack.iter().position(|s| s == v).unwrap();
            let component: Vec<String> = w.stack.drain(at..).collect();
            if component.len() > 1 {
                w.circles.push(component);
            }
        }
    }
    let mut w = Walk {
        edges: &edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for m in modules.keys() {
        if !w.index.contains_key(m) {
            visit(&mut w, m);
        }
    }
    let report: Vec<String> = (w.circles.iter())
        .map(|c| {
            let inside = |m: &String| -> String {
                let to: Vec<&str> = (edges[m.as_str()].iter())
                    .filter(|t| c.contains(t))
                    .map(String::as_str)
                    .collect();
                format!("  {m} → {}", to.join(", "))
            };
            c.iter().map(inside).collect::<Vec<_>>().join("\n")
        })
        .collect();
    assert!(
        report.is_empty(),
        "modules in a circle of imports:\n{}",
        report.join("\n\n")
    );
    // the reader sees the paths it must: a module naming a sibling through `super::{…}`
    assert!(edges["expr::vector::tape"].contains("expr::vector::chain_leaf"));
    assert!(edges["output::formats"].contains("output::csv"));
}

/// The names of the items (`fn`, `const`, `type`, macro calls) declared in the body of
/// `pub trait {name}` in `file`, comments left out.
fn trait_items(file: &str, name: &str) -> Vec<String> {
    let text = fs::read_to_string(file).expect(file);
    let code = code_of(&text);
    let start = code
        .find(&format!("pub trait {name}"))
        .unwrap_or_else(|| panic!("no trait {name} in {file}"));
    let open = start + code[start..].find('{').expect("the trait's body");
    let (mut depth, mut body) = (0usize, String::new());
    for c in code[open..].chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        // only what is at the trait's own level: not the default bodies
        if depth == 1 && c != '{' {
            body.push(c);
        }
        if depth == 0 {
            break;
        }
    }
    let mut items = Vec::new();
    let words: Vec<&str> = body
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
        .collect();
    for (k, w) in words.iter().enumerate() {
        let next = words[k + 1..].iter().find(|x| !x.is_empty());
        match (*w, next) {
            ("fn" | "const" | "type", Some(n)) => items.push(n.to_string()),
            (m, _) if m.ends_with('!') => items.push(m.to_string()),
            _ => {}
        }
    }
    items
}

#[test]
fn the_traits_a_user_writes_are_physics() {
    // a term is its energies: the declarations are `Declared`'s, the code-generation hooks
    // `Placed`'s (implemented for every type)
    let physics = [
        "kinetic",
        "mass",
        "mass_matrix",
        "potential",
        "lagrangian",
        "dissipation",
        "force",
    ];
    assert_eq!(trait_items("src/model/mod.rs", "Term"), physics);
    assert_eq!(
        trait_items("src/model/interaction.rs", "Interaction"),
        ["potential", "dissipation", "force"]
    );
    assert_eq!(
        trait_items("src/model/mod.rs", "Constraint"),
        ["constraint"]
    );
    // what a term may declare, beside the same energies
    let declared = trait_items("src/model/declared.rs", "Declared");
    let extra: Vec<&str> = (declared.iter().map(String::as_str))
        .filter(|x| !physics.contains(x))
        .collect();
    assert_eq!(
        extra,
        [
            "TRANSLATION_INVARIANT",
            "KINETIC",
            "has_dissipation_or_force",
            "structure",
            "point_mass_matrix",
            "mass_points",
            "placed_method!"
        ]
    );
}
