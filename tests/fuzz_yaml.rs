//! Fuzzing the mechanism loader: no input — random bytes, random edits of valid files, random
//! expressions — makes it panic; it returns a mechanism or an error with a place.

use proptest::prelude::*;

const FILES: [&str; 4] = [
    "mechanism0.yaml",
    "double_pendulum.yaml",
    "bridge.yaml",
    "hanging_chain.yaml",
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
    fn edited_valid_files_never_panic(file in 0usize..4, pos in 0usize..2000, len in 0usize..20, insert in "[ -~\\n]{0,12}") {
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
}
