//! Fuzzing the mechanism loader: no input — random bytes, random edits of valid files, numbers
//! mutated toward fractional, huge and tiny values or wrapped in deep nesting and long sums,
//! random scalar and vector expressions (token soup and well-formed formulas) — makes it panic;
//! it returns a mechanism or an error with a place, and what builds initializes and steps.

use proptest::prelude::*;

const FILES: [&str; 6] = [
    "mechanism0.yaml",
    "double_pendulum.yaml",
    "bridge.yaml",
    "hanging_chain.yaml",
    "rscr.yaml",
    "tennis_racket.yaml",
];

fn load_text(name: &str) -> String {
    std::fs::read_to_string(format!("{}/mechanisms/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn check(text: &str) {
    match lagrangian::spec::parse(text, "fuzz.yaml") {
        Ok(_) => {}
        Err(e) => assert!(e.line >= 1 && e.column >= 1 && !e.message.is_empty()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(s in "\\PC{0,200}") {
        check(&s);
    }

    #[test]
    fn edited_valid_files_never_panic(file in 0usize..6, pos in 0usize..2000, len in 0usize..20, insert in "[ -~\\n]{0,12}") {
        let text = load_text(FILES[file]);
        let bytes = text.as_bytes();
        let p = pos.min(bytes.len());
        let e = (p + len).min(bytes.len());
        let mut edited = Vec::new();
        edited.extend_from_slice(&bytes[..p]);
        edited.extend_from_slice(insert.as_bytes());
        edited.extend_from_slice(&bytes[e..]);
        if let Ok(t) = String::from_utf8(edited) {
            check(&t);
        }
    }

    #[test]
    fn mutated_numbers_are_refused_or_run(file in 0usize..6, k in 0usize..400, kind in 0usize..14) {
        let text = load_text(FILES[file]);
        let mutated = mutate_number(&text, k, &mutation(kind, "1"));
        check(&mutated);
        // what builds must also initialize and take a few steps without a panic (errors are fine)
        if let Ok((p, plan)) = lagrangian::spec::parse(&mutated, "fuzz.yaml")
            && p.validate().is_ok()
                && let Ok(mut sim) = lagrangian::simulation::Simulation::new(p, plan) {
                    let mut n = 0;
                    let mut budget = |_: &lagrangian::output::Event| {
                        n += 1;
                        if n > 20 { lagrangian::output::Control::Stop } else { lagrangian::output::Control::Continue }
                    };
                    let _ = sim.run(&mut [&mut budget]);
                }
    }

    #[test]
    fn random_expressions_never_panic(expr in "[0-9a-z+*/()., \\-]{0,30}") {
        let text = format!("Title: e\nDimension: 2\nPhysicalParams: {{ a: 1, b: {expr:?} }}\nPartData:\n  Particles: {{ B: b }}\nProblemData:\n  tend: 1\n  positions: {{ B: [a, b] }}\n");
        check(&text);
    }

    #[test]
    fn random_vector_expressions_never_panic(
        expr in prop::collection::vec(prop::sample::select(TOKENS.to_vec()), 0..16),
        eq in prop::collection::vec(prop::sample::select(TOKENS.to_vec()), 0..12),
    ) {
        check(&slider(&expr.concat(), &eq.concat()));
    }

    #[test]
    fn random_well_typed_vector_expressions_never_panic(
        (sv, vv) in formulas(), (se, _) in formulas(), vector in any::<bool>()
    ) {
        let text = slider(if vector { &vv } else { &sv }, &se);
        check(&text);
        // what builds must also initialize and step without a panic or a hang (errors are fine)
        if let Ok((m, _)) = lagrangian::spec::parse(&text, "fuzz.yaml")
            && let Ok(i) = m.initial_values() {
                let opts = lagrangian::solve::GenAlphaOptions::new(1e-3);
                let _ = lagrangian::simulation::simulate_from(&m.model, &i.state, 0.01, opts);
            }
    }
}

/// Replace the `k`-th number of `text` (modulo their count) by `with`.
fn mutate_number(text: &str, k: usize, with: &str) -> String {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if starts {
            let j = (i..b.len())
                .find(|&j| {
                    !(b[j].is_ascii_digit()
                        || b[j] == b'.'
                        || b[j] == b'e'
                        || b[j] == b'-' && b[j - 1] == b'e')
                })
                .unwrap_or(b.len());
            spans.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    if spans.is_empty() {
        return text.to_string();
    }
    let (a, e) = spans[k % spans.len()];
    format!("{}{with}{}", &text[..a], &text[e..])
}

/// What a careless or hostile edit puts in place of a number: fractional counts, huge and tiny
/// values, YAML's special floats, deep nesting past the limit, long sums.
fn mutation(kind: usize, x: &str) -> String {
    match kind {
        0 => "0.4".into(),
        1 => "2.5".into(),
        2 => "1e30".into(),
        3 => "1e308".into(),
        4 => "18446744073709551615".into(),
        5 => "1e-300".into(),
        6 => "5e-324".into(),
        7 => "0".into(),
        8 => format!("-{x}"),
        9 => ".nan".into(),
        10 => "-.inf".into(),
        11 => format!("\"{}{x}{}\"", "(".repeat(150), ")".repeat(150)),
        12 => format!("\"{}\"", vec![x; 3000].join(" + ")),
        _ => format!("\"{}{x}\"", "-".repeat(5000)),
    }
}

/// A 3D file with a point P, a scalar s and a fixed vector w, defining `v` and an equation `e`.
fn slider(expr: &str, eq: &str) -> String {
    format!(
        "Title: e\nDimension: 3\nPhysicalParams: {{ L: 1 }}\nPartData:\n  Fixed: {{ O: [0, 0, 0] }}\n  FixedVectors: {{ w: [0, 0, 1] }}\n  Points: [P]\n  Scalars: [s]\n  Define:\n    v: {expr:?}\n    Q: P + s*w\n  Particles: {{ Q: 1 }}\n  Equations:\n    e: {eq:?}\nProblemData:\n  tend: 1\n  positions: {{ P: [1, 0, 0], s: 0 }}\n"
    )
}

/// Well-typed formulas, a scalar and a vector one, built together (their values may still be
/// undefined at the guesses, or an equation may involve no coordinate: errors, not panics).
fn formulas() -> impl Strategy<Value = (String, String)> {
    let leaf = (
        prop::sample::select(vec!["s", "L", "t", "1", "2.5", "P.x", "Q.z"]),
        prop::sample::select(vec!["P", "w", "O", "Q", "[s, 1, t]", "[0, 0, 0]"]),
    )
        .prop_map(|(a, b)| (a.to_string(), b.to_string()));
    leaf.prop_recursive(4, 32, 2, |inner| {
        (inner.clone(), inner, 0usize..8).prop_map(|((s1, v1), (s2, v2), op)| match op {
            0 => (format!("({s1} + {s2})"), format!("({v1} + {v2})")),
            1 => (format!("({s1} - {s2})"), format!("({v1} - {v2})")),
            2 => (format!("({s1} * {s2})"), format!("({s1} * {v2})")),
            3 => (format!("({s1} / {s2})"), format!("({v1} / {s2})")),
            4 => (format!("dot({v1}, {v2})"), format!("cross({v1}, {v2})")),
            5 => (format!("norm({v1})"), format!("unit({v1})")),
            6 => (format!("sqrt({s1})**2"), format!("-{v1}")),
            _ => (format!("({v1}).y"), format!("[{s1}, {s2}, 0]")),
        })
    })
}

/// Tokens of vector expressions, for random formulas that are often well-formed.
const TOKENS: [&str; 26] = [
    "P", "s", "w", "O", "L", "t", "v", "dot(", "cross(", "norm(", "unit(", "sqrt(", "perp(", ",",
    ")", "[", "]", "+", "-", "*", "/", "**", ".x", ".z", "1", "0",
];
