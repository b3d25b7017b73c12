//! Fuzzing the mechanism loader: no input — random bytes, random edits of valid files, random
//! expressions — makes it panic; it returns a mechanism or an error with a place.

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
    fn random_expressions_never_panic(expr in "[0-9a-z+*/()., \\-]{0,30}") {
        let text = format!("Title: e\nDimension: 2\nPhysicalParams: {{ a: 1, b: {expr:?} }}\nPartData:\n  Particles: {{ B: b }}\nProblemData:\n  tend: 1\n  positions: {{ B: [a, b] }}\n");
        check(&text);
    }

    #[test]
    fn random_vector_expressions_never_panic(
        expr in prop::collection::vec(prop::sample::select(TOKENS.to_vec()), 0..16),
        eq in prop::collection::vec(prop::sample::select(TOKENS.to_vec()), 0..12),
    ) {
        let (expr, eq) = (expr.concat(), eq.concat());
        let text = format!(
            "Title: e\nDimension: 3\nPhysicalParams: {{ L: 1 }}\nPartData:\n  Fixed: {{ O: [0, 0, 0] }}\n  FixedVectors: {{ w: [0, 0, 1] }}\n  Points: [P]\n  Scalars: [s]\n  Define:\n    v: {expr:?}\n    Q: P + s*w\n  Particles: {{ Q: 1 }}\n  Equations:\n    e: {eq:?}\nProblemData:\n  tend: 1\n  positions: {{ P: [1, 0, 0], s: 0 }}\n"
        );
        check(&text);
    }
}

/// Tokens of vector expressions, for random formulas that are often well-formed.
const TOKENS: [&str; 26] = [
    "P", "s", "w", "O", "L", "t", "v", "dot(", "cross(", "norm(", "unit(", "sqrt(", "perp(", ",",
    ")", "[", "]", "+", "-", "*", "/", "**", ".x", ".z", "1", "0",
];
