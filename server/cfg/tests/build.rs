//! Graph shapes built from small C functions (no compiler needed).

use faultlens_cfg::nesting::{self, MAX_NESTING};
use faultlens_cfg::{build_cfgs, build_file, DecisionKind};
use tree_sitter::Parser;

#[test]
fn tree_sitter_c_grammar_loads() {
    // An older tree-sitter compiles with tree-sitter-c 0.24 and fails
    // here with LanguageError { version: 15 }.
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_c::LANGUAGE.into())
        .expect("tree-sitter-c loads");
    assert!(build_cfgs("int f(void) { return 0; }").is_ok());
}

#[test]
fn if_else_diamond() {
    let src = "int f(int x)\n{\n    int y = 0;\n    if (x)\n        y = 1;\n    else\n        y = 2;\n    return y;\n}\n";
    let cfgs = build_cfgs(src).unwrap();
    assert_eq!(cfgs.len(), 1);
    let f = &cfgs[0];
    assert_eq!(f.name, "f");
    let described: Vec<String> = (0..f.edges.len()).map(|e| f.describe_edge(e)).collect();
    assert_eq!(
        described,
        vec![
            "entry call → line 1",
            "line 1 true → line 5",
            "line 1 false → line 7",
            "line 5 jump → line 8",
            "line 7 next → line 8",
            "line 8 return → exit",
        ]
    );
    // The first block runs from the header to the condition.
    assert_eq!(f.line_span(2), Some((1, 4)));
}

#[test]
fn noreturn_call_ends_its_block_without_an_edge() {
    let src = "void f(int x)\n{\n    if (x)\n        exit(1);\n    x++;\n}\n";
    let f = &build_cfgs(src).unwrap()[0];
    let exit_block = (0..f.blocks.len())
        .find(|&b| f.first_line(b) == Some(4))
        .unwrap();
    assert!(f.blocks[exit_block].succs.is_empty());
}

#[test]
fn adjacent_case_labels_share_a_block_and_default_is_last() {
    let src = "int f(int x)\n{\n    switch (x) {\n    case 1:\n    case 2: x++; break;\n    case 3: x--;\n    }\n    return x;\n}\n";
    let f = &build_cfgs(src).unwrap()[0];
    let dispatch = (0..f.blocks.len())
        .find(|&b| f.blocks[b].decision.map(|d| d.kind) == Some(DecisionKind::Switch))
        .unwrap();
    let targets: Vec<String> = f.blocks[dispatch]
        .succs
        .iter()
        .map(|&e| f.describe_edge(e))
        .collect();
    assert_eq!(
        targets,
        vec![
            "line 1 case #0 → line 4",
            "line 1 case #1 → line 6",
            "line 1 case #2 → line 8"
        ]
    );
}

#[test]
fn broken_source_still_gives_graphs() {
    let cfgs =
        build_cfgs("int f(int x) { if (x { return 1; } return 0; }\nint g(void) { return 2; }")
            .unwrap();
    assert!(cfgs.iter().any(|f| f.name == "g"));
}

/// Runs `f` on a thread with the 2 MiB stack of tokio's blocking threads,
/// where the language server builds graphs.
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

/// `int g(int x)` whose body is `construct` nested `n` deep.
fn nested(construct: &str, n: usize) -> String {
    let body = match construct {
        "sum" => format!("return {};", vec!["x"; n].join(" + ")),
        "or" => format!("return {};", vec!["x == 0"; n].join(" || ")),
        "parentheses" => format!("return {}x{};", "(".repeat(n), ")".repeat(n)),
        "if" => format!("{}return x;", "if (x) ".repeat(n)),
        "braced if" => format!("{}return x;{}", "if (x) { ".repeat(n), " }".repeat(n)),
        "else if" => format!("{}return 0;", "if (x == 1) return 1; else ".repeat(n)),
        "calls" => format!("return {}x{};", "g(".repeat(n), ")".repeat(n)),
        "conditional" => format!("return {}x{};", "x ? ".repeat(n), " : 0".repeat(n)),
        "negation" => format!("return {}x;", "!".repeat(n)),
        "blocks" => format!("{}x++;{} return x;", "{ ".repeat(n), " }".repeat(n)),
        "while" => format!("{}x--; return x;", "while (x > 3) ".repeat(n)),
        other => panic!("no construct {other}"),
    };
    format!("int g(int x)\n{{\n  {body}\n}}\n")
}

const CONSTRUCTS: &[&str] = &[
    "sum",
    "or",
    "parentheses",
    "if",
    "braced if",
    "else if",
    "calls",
    "conditional",
    "negation",
    "blocks",
    "while",
];

/// The largest `n` for which `nested(construct, n)` is within the limit.
fn deepest_accepted(construct: &str) -> usize {
    let fits = |n: usize| {
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_c::LANGUAGE.into())
            .unwrap();
        let tree = parser.parse(nested(construct, n), None).unwrap();
        let function = tree.root_node().named_child(0).unwrap();
        nesting::check(function, MAX_NESTING).is_ok()
    };
    let (mut lo, mut hi) = (1, MAX_NESTING + 1);
    assert!(fits(lo) && !fits(hi), "{construct}");
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[test]
fn functions_nesting_up_to_the_limit_get_graphs_from_a_small_stack() {
    for construct in CONSTRUCTS {
        let n = deepest_accepted(construct);
        let source = nested(construct, n);
        let file = on_small_stack(|| build_file(&source).unwrap());
        assert_eq!(file.functions.len(), 1, "{construct} × {n}");
        assert!(file.too_deep.is_empty(), "{construct} × {n}");
        // One level more is refused.
        let file = on_small_stack(|| build_file(&nested(construct, n + 1)).unwrap());
        assert!(file.functions.is_empty(), "{construct} × {}", n + 1);
        assert_eq!(file.too_deep.len(), 1, "{construct} × {}", n + 1);
    }
}

#[test]
fn a_function_nesting_too_deep_gets_no_graph_and_says_why() {
    let source = format!(
        "int before(void) {{ return 1; }}\n{}int after(void) {{ return 2; }}\n",
        nested("if", 5000)
    );
    let file = on_small_stack(|| build_file(&source).unwrap());
    let names: Vec<&str> = file.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["before", "after"]);
    let skipped = &file.too_deep[..];
    assert_eq!(skipped.len(), 1);
    assert_eq!((skipped[0].name.as_str(), skipped[0].line), ("g", 2));
    assert_eq!(
        skipped[0].reason(),
        "`if` statements nested 5000 deep (at most 1000 levels of nesting are supported) at line 4"
    );
    // `build_cfgs` leaves it out the same way.
    assert_eq!(on_small_stack(|| build_cfgs(&source).unwrap()).len(), 2);
}
