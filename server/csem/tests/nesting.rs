//! Deeply nested C is refused at load time, naming the construct and where
//! it begins; everything up to the limit loads, runs, encodes and is walked
//! from a thread with the 2 MiB stack of tokio's blocking threads (where the
//! language server loads programs), without overflowing a stack.

use faultlens_cfg::nesting::MAX_NESTING;
use faultlens_csem::encode::{encode_run, Expected};
use faultlens_csem::ir::{visit, InstrKind};
use faultlens_csem::{
    load_preprocessed, run, subexpr, CsemError, Outcome, Program, RunOptions, TestInput,
};
use std::path::Path;

/// Runs `f` on a thread with a 2 MiB stack.
fn on_small_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(s, f)
            .unwrap()
            .join()
            .unwrap()
    })
}

/// A program whose line 4 nests `construct` `n` deep; with `x` = 1 it
/// exits with the returned status.
fn program(construct: &str, n: usize) -> (String, i32) {
    let (body, status) = match construct {
        "sum" => (
            format!("y = {};", vec!["x"; n].join(" + ")),
            (n % 256) as i32,
        ),
        "or" => (
            format!("y = {} || x == 1;", vec!["x == 0"; n - 1].join(" || ")),
            1,
        ),
        "and" => (format!("y = {};", vec!["x"; n].join(" && ")), 1),
        "parentheses" => (format!("y = {}x{};", "(".repeat(n), ")".repeat(n)), 1),
        "if" => (format!("{}y = 2;", "if (x) ".repeat(n)), 2),
        "braced if" => (
            format!("{}y = 2;{}", "if (x) { ".repeat(n), " }".repeat(n)),
            2,
        ),
        "else if" => (format!("{}y = 3;", "if (x == 2) y = 5; else ".repeat(n)), 3),
        "calls" => (format!("y = {}x{};", "f(".repeat(n), ")".repeat(n)), 1),
        "conditional" => (format!("y = {}x{};", "x ? ".repeat(n), " : 0".repeat(n)), 1),
        "not" => (
            format!("y = {}x;", "!".repeat(n)),
            n.is_multiple_of(2) as i32,
        ),
        "minus" => (
            format!("y = {}x;", "- ".repeat(n)),
            if n.is_multiple_of(2) { 1 } else { 255 },
        ),
        "casts" => (format!("y = {}x;", "(long)(int)".repeat(n / 2)), 1),
        "blocks" => (format!("{}y = x;{}", "{ ".repeat(n), " }".repeat(n)), 1),
        "while" => (format!("{}y = 1;", "while (y < 1) ".repeat(n)), 1),
        "assign" => (format!("{}x;", "y = ".repeat(n)), 1),
        "comma" => (format!("y = ({});", vec!["x"; n].join(", ")), 1),
        "pointers" => (format!("int {}p = 0; y = p == 0;", "*".repeat(n)), 1),
        "arrays" => (format!("int a{}; y = sizeof a;", "[1]".repeat(n)), 4),
        "members" => {
            let mut decl = "int v;".to_string();
            for i in (0..n).rev() {
                decl = format!("struct s{i} {{ {decl} }} f{i};");
            }
            let path: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
            (
                format!(
                    "struct {{ {decl} }} r; r.{}.v = x; y = r.{}.v;",
                    path.join("."),
                    path.join(".")
                ),
                1,
            )
        }
        other => panic!("no construct {other}"),
    };
    (
        format!("int f(int a) {{ return a; }}\nint main(int argc, char **argv) {{\n  int x = argc; int y = 0;\n  {body}\n  return y;\n}}\n"),
        status,
    )
}

const CONSTRUCTS: &[&str] = &[
    "sum",
    "or",
    "and",
    "parentheses",
    "if",
    "braced if",
    "else if",
    "calls",
    "conditional",
    "not",
    "minus",
    "casts",
    "blocks",
    "while",
    "assign",
    "comma",
    "pointers",
    "arrays",
    "members",
];

fn load(source: &str) -> Result<Program, CsemError> {
    load_preprocessed(Path::new("deep.c"), source)
}

fn too_deep(result: &Result<Program, CsemError>) -> bool {
    matches!(result, Err(CsemError::Unsupported { construct, .. }) if construct.contains("levels of nesting"))
}

/// The largest `n` whose program loads (a larger one is refused as too deep).
fn deepest_accepted(construct: &str) -> usize {
    let (mut lo, mut hi) = (2, MAX_NESTING + 1);
    let refused = |n: usize| {
        let result = on_small_stack(|| load(&program(construct, n).0));
        assert!(
            result.is_ok() || too_deep(&result),
            "{construct} × {n}: {:?}",
            result.err()
        );
        too_deep(&result)
    };
    assert!(!refused(lo) && refused(hi), "{construct}");
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if refused(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    lo
}

#[test]
fn every_walk_handles_the_deepest_programs_accepted_from_a_small_stack() {
    for construct in CONSTRUCTS {
        let n = deepest_accepted(construct);
        assert!(n >= 300, "{construct}: only {n} levels");
        let (source, status) = program(construct, n);
        on_small_stack(|| {
            let prog = load(&source).unwrap();
            let input = TestInput::default();
            let ran = run(&prog, &input, &RunOptions::default());
            assert_eq!(ran.outcome, Outcome::Exited(status), "{construct} × {n}");
            let expected = Expected {
                stdout: Some(Vec::new()),
                exit: status,
            };
            let encoded = encode_run(&prog, &input, &expected, 1_000_000);
            assert!(encoded.is_ok(), "{construct} × {n}: {:?}", encoded.err());
            // What diagnose and generate do on their caller's thread.
            let mut nodes = 0usize;
            for f in &prog.funcs {
                for ins in &f.body {
                    let root = match &ins.kind {
                        InstrKind::Expr(e) | InstrKind::Branch { cond: e, .. } => e,
                        InstrKind::Return(Some(e)) => e,
                        _ => continue,
                    };
                    visit(root, &mut |_| nodes += 1);
                    nodes += subexpr::of_statement(&prog, ins.stmt).len();
                }
            }
            assert!(nodes > 0, "{construct} × {n}");
            drop(prog.clone());
            drop(prog);
        });
    }
}

#[test]
fn deep_programs_are_refused_naming_the_construct_and_where_it_begins() {
    let cases = [
        (
            "sum",
            5000,
            "an expression nested 4999 deep (a chain of `+`; ",
        ),
        (
            "or",
            2000,
            "an expression nested 1999 deep (a chain of `||`; ",
        ),
        ("parentheses", 5000, "parentheses nested 5000 deep ("),
        ("if", 5000, "`if` statements nested 5000 deep ("),
        ("braced if", 5000, "`if` statements nested 5000 deep ("),
        ("else if", 5000, "an `else if` chain 5000 long ("),
        ("calls", 5000, "function calls nested 5000 deep ("),
        // The anonymous struct around them is one more.
        (
            "members",
            2000,
            "struct or union definitions nested 2001 deep (",
        ),
    ];
    for (construct, n, phrase) in cases {
        let error = on_small_stack(|| load(&program(construct, n).0)).unwrap_err();
        let shown = error.to_string();
        assert!(
            shown.starts_with(&format!("unsupported: {phrase}"))
                && shown.ends_with(&format!(
                    "at most {MAX_NESTING} levels of nesting are supported) at deep.c:4"
                )),
            "{construct}: {shown}"
        );
    }
}

#[test]
fn a_syntax_error_deep_in_a_function_is_found_and_located() {
    let source = format!(
        "int main(void) {{\n  int y = {}1{};\n  y = y +;\n  return y;\n}}\n",
        "(".repeat(900),
        ")".repeat(900)
    );
    let error = on_small_stack(|| load(&source)).unwrap_err();
    assert!(
        matches!(&error, CsemError::Syntax { line: 3, .. }),
        "{error}"
    );
}
