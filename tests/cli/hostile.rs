//! Hostile and careless input: each is refused quickly with its place named, or (long sums) just
//! works — never a stack overflow, a panic, a run without end or unbounded memory.

mod culprits;
mod files;
mod memory;
mod physics;
mod subcommands;

use lagrangian::expr::vector::{MAX_DEPTH, Sym, VExpr};
use lagrangian::problem::{MAX_STEPS, Overrides};
use lagrangian::spec;

const RSCR: &str = include_str!("../../mechanisms/rscr.yaml");
const JOINT: &str = "    C: C1 + mu*v                # the cylindrical joint";

fn rscr_with(c: &str) -> String {
    assert!(RSCR.contains(JOINT));
    RSCR.replace(JOINT, &format!("    C: {c}"))
}

fn lookup(name: &str) -> Option<Sym> {
    match name {
        "x" => Some(Sym::Item(VExpr::coord(0))),
        _ => None,
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let cases = [
        format!("{}x{}", "(".repeat(10_000), ")".repeat(10_000)),
        format!("{}x", "-".repeat(90_000)),
        vec!["x"; 30_000].join("**"),
        vec!["sin(x"; 5_000].join(" + ") + &")".repeat(5_000),
    ];
    for text in &cases {
        let e = VExpr::parse(text, 3, &lookup).unwrap_err();
        assert!(e.message.contains("nested more than"), "{}", e.message);
    }
    // a product of 40,000 factors is 40,000 levels deep: evaluated flat, it just works
    let e = VExpr::parse(&vec!["x"; 40_000].join("*"), 3, &lookup).unwrap();
    assert!(
        e.depth() >= 40_000 && e.need() <= 2,
        "{} {}",
        e.depth(),
        e.need()
    );
    let v = e.eval_scalar::<f64>(&|_| 1.00001, 0.0);
    assert!((v / 1.00001f64.powi(40_000) - 1.0).abs() < 1e-12, "{v}");
    // past the size limit (200,000 operations) it is refused with the limit named
    let e = VExpr::parse(&vec!["x"; 120_000].join("*"), 3, &lookup).unwrap_err();
    assert!(e.message.contains("limit is 200000"), "{}", e.message);
}

#[test]
fn many_large_expressions_are_refused_by_their_total() {
    // twelve potentials of 190,000 operations each: each under the limit of one expression,
    // 2.28 million together, past the file's limit of 2 million
    let big = vec!["x"; 95_000].join("*");
    let potentials: String = (0..12).map(|k| format!("    V{k}: {big}\n")).collect();
    let text = format!(
        "Dimension: 1\nPartData:\n  Scalars: [x]\nLagrangian:\n  T: x'**2/2\n\
         AppliedForces:\n  Potentials:\n{potentials}\
         ProblemData: {{ tend: 1, positions: {{ x: 1 }} }}\n"
    );
    let e = lagrangian::spec::parse(&text, "many.yaml")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("many.yaml:18:"), "{}", &e[..200.min(e.len())]);
    assert!(
        e.contains("limit for a file is 2000000") && e.contains("Potentials.V10"),
        "{}",
        &e[..300.min(e.len())]
    );
}

#[test]
fn long_sums_are_balanced_and_evaluate() {
    // 40,000 terms: depth about log₂ 40,000
    let text = vec!["x"; 40_000].join(" + ");
    let e = VExpr::parse(&text, 3, &lookup).unwrap();
    assert!(e.depth() <= 20, "depth {}", e.depth());
    assert_eq!(e.eval_scalar::<f64>(&|_| 0.5, 0.0), 20_000.0);
    // signs survive the balancing: x − x + x − x … (10,001 terms) = x
    let text = (0..10_001)
        .map(|k| {
            if k == 0 {
                "x"
            } else if k % 2 == 1 {
                "- x"
            } else {
                "+ x"
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let e = VExpr::parse(&text, 3, &lookup).unwrap();
    assert_eq!(e.eval_scalar::<f64>(&|_| 0.25, 0.0), 0.25);
    const { assert!(MAX_DEPTH as u64 >= lagrangian::expr::vector::MAX_SIZE) };
}

#[test]
fn a_define_of_two_thousand_terms_runs() {
    let c = format!("C1 + mu*v{}", " + 0*mu*v".repeat(2000));
    let (problem, _) = spec::parse(&rscr_with(&c), "rscr_long.yaml").unwrap();
    let (plain, _) = spec::parse(RSCR, "rscr.yaml").unwrap();
    let a = problem.initial_values().unwrap();
    let b = plain.initial_values().unwrap();
    for (x, y) in a.state.q.iter().zip(&b.state.q) {
        assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    }
}

#[test]
fn a_chain_of_a_thousand_definitions_runs_on_a_small_stack() {
    // x1 = x0 + 0·μv, …, x1000: about 2,000 levels deep; the joint is unchanged (C = x1000)
    let mut c = String::from("C1 + mu*v\n");
    for k in 1..=1000 {
        c += &format!("    x{k}: x{} + 0*mu*v\n", k - 1);
    }
    let text = RSCR.replace(JOINT, &format!("    x0: {c}    C: x1000"));
    // parse, build and find the consistent initial point on a thread of 2 MB (a spawned
    // thread's default): neither evaluation nor freeing the graph recurses per level
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let (problem, _) = spec::parse(&text, "deep.yaml").unwrap();
            problem.initial_values().unwrap().state.q
        })
        .unwrap();
    let q = worker.join().expect("no stack overflow");
    let (plain, _) = spec::parse(RSCR, "rscr.yaml").unwrap();
    let want = plain.initial_values().unwrap().state.q;
    for (x, y) in q.iter().zip(&want) {
        assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    }
}

#[test]
fn definitions_past_the_size_limit_are_refused_with_their_place() {
    // each definition uses the previous one twice: the expansion doubles per entry
    let mut c = String::from("C1 + mu*v\n");
    for k in 1..=20 {
        c += &format!("    x{k}: x{} + x{}\n", k - 1, k - 1);
    }
    let text = RSCR.replace(JOINT, &format!("    x0: {c}    C: x20"));
    let e = spec::parse(&text, "wide.yaml").unwrap_err().to_string();
    assert!(e.contains("wide.yaml:") && e.contains("Define.x"), "{e}");
    assert!(e.contains("limit is 200000"), "{e}");
}

#[test]
fn long_expressions_are_cut_in_messages() {
    let c = format!("C1 + mu*v{} + undefined_name", " + 0*mu*v".repeat(3000));
    let e = spec::parse(&rscr_with(&c), "long.yaml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("undefined_name"), "{e}");
    assert!(e.len() < 400, "{} characters: {e}", e.len());
}

fn with_solver(params: &str) -> String {
    let base = include_str!("../../mechanisms/double_pendulum.yaml");
    let head = &base[..base.find("SolverParams:").expect("a SolverParams section")];
    format!("{head}SolverParams: {{ {params} }}\n")
}

#[test]
fn counts_are_whole_and_bounded() {
    for (params, says) in [
        ("output_every: 0.4", "whole number"),
        ("output_every: 2.5", "whole number"),
        ("steps: 1e30", "limit"),
        ("steps: 10.5", "whole number"),
        ("step: 1e-300", "limit"),
        ("step: 100", "longer than the span"),
        (
            "newton_tol: 1e-300",
            "below the roundoff of double precision",
        ),
    ] {
        let e = spec::parse(&with_solver(params), "p.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(says) && e.contains("SolverParams"),
            "{params}: {e}"
        );
    }
    let chain = "g: 9.81\ntimedelta: 1e-3\nsteps: 10\noutput_every: 0.4\npendula:\n  - { length: 1, mass: 1, theta: 1, phi: 0 }\n";
    let e = spec::parse_chain(chain, "c.yaml").unwrap_err().to_string();
    assert!(e.contains("output_every") && e.contains("whole"), "{e}");
    let chain = chain
        .replace("output_every: 0.4", "output_every: 1")
        .replace("steps: 10", "steps: 1e19");
    let e = spec::parse_chain(&chain, "c.yaml").unwrap_err().to_string();
    assert!(e.contains("limit"), "{e}");
    // the command line's --steps and a vanishing step
    let (mut p, mut p_plan) = spec::parse(
        include_str!("../../mechanisms/double_pendulum.yaml"),
        "d.yaml",
    )
    .unwrap();
    let ov = Overrides {
        steps: Some(usize::MAX),
        ..Overrides::default()
    };
    assert!(
        p_plan
            .apply(&mut p, &ov)
            .unwrap_err()
            .to_string()
            .contains(&MAX_STEPS.to_string())
    );
    let tiny = lagrangian::solve::RunPlan::new(lagrangian::solve::GenAlphaOptions::new(1e-300));
    assert!(tiny.validate(&p).unwrap_err().to_string().contains("limit"));
}

#[test]
fn huge_generators_are_refused_before_allocating() {
    let base = "Dimension: 3\nPartData:\n  Fixed: { O: [0, 0, 0] }\n";
    for (generator, says) in [
        (
            "Grids:\n    P: { n: [1000000, 1000000], spacing: [0.1, 0.1], mass: 1, stiffness: 1 }\n",
            "limit",
        ),
        (
            "Grids:\n    P: { n: [1000000000, 1], spacing: [0.1, 0.1], mass: 1, stiffness: 1 }\n",
            "limit",
        ),
        (
            "Chains:\n    C: { from: O, to: [1, 0, 0], n: 1000000000, mass: 1, stiffness: 1 }\n",
            "limit",
        ),
        (
            "Chains:\n    C: { from: O, to: [1, 0, 0], n: 2.5, mass: 1, stiffness: 1 }\n",
            "whole",
        ),
        (
            "Chains:\n    C: { from: O, to: [1, 0, 0], n: 5, mass: 1, stiffness: 1, damping: -1 }\n",
            "negative",
        ),
        // each within its own limit, together past the limit per file
        (
            "Grids:\n    P: { n: [800, 800], spacing: [0.1, 0.1], mass: 1, stiffness: 1 }\n    \
             Q: { n: [800, 800], spacing: [0.1, 0.1], mass: 1, stiffness: 1 }\n",
            "would make 1280000 points; the limit is 1000000 per file",
        ),
    ] {
        let text = format!("{base}  {generator}");
        let e = spec::parse(&text, "g.yaml").unwrap_err().to_string();
        assert!(
            e.contains(says) && e.contains("g.yaml:"),
            "{generator}: {e}"
        );
    }
}

#[test]
fn redundant_constraints_get_the_same_verdict_in_check_and_run() {
    // the bar OA written twice (as OA and AO)
    let text = include_str!("../../mechanisms/double_pendulum.yaml").replace(
        "Bars: { OA: l1, AB: l2 }",
        "Bars: { OA: l1, AB: l2, AO: l1 }",
    );
    let (problem, plan) = spec::parse(&text, "twice.yaml").unwrap();
    // `check` initializes through Problem::initial_values, `run` through Simulation::new
    let check = problem.initial_values().unwrap_err().to_string();
    let run = lagrangian::simulation::Simulation::new(problem.clone(), plan.method.clone())
        .err()
        .expect("a run with a redundant bar must be refused")
        .to_string();
    for e in [&check, &run] {
        assert!(
            e.contains("redundant constraints") && e.contains("AO"),
            "{e}"
        );
    }
}

#[test]
fn an_undefined_output_stops_the_run_naming_the_column() {
    // P9 is defined only while C1.x > 0 (C1.x starts at 0.3 and swings to −0.3)
    let text = rscr_with("C1 + mu*v\n    P9: C1 + [0, 0, sqrt(C1.x)]");
    let (problem, plan) = spec::parse(&text, "nan.yaml").unwrap();
    let dir = std::env::temp_dir().join(format!("lagrangian-nan-{}", std::process::id()));
    let plan = plan.output_every(1);
    let opts = lagrangian::run::RunOptions::new(&dir);
    let e = lagrangian::run::run_to_folder(problem, &plan, &opts)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'P9.z'") && e.contains("not finite at t ="),
        "{e}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "files left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_title_that_is_not_a_text_is_refused() {
    let text = include_str!("../../mechanisms/double_pendulum.yaml")
        .replace("Title: double pendulum", "Title: [a, b]");
    let e = spec::parse(&text, "t.yaml").unwrap_err().to_string();
    assert!(
        e.contains("t.yaml:3:") && e.contains("Title") && e.contains("text"),
        "{e}"
    );
}
