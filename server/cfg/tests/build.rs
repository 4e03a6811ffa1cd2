//! Graph shapes built from small C functions (no compiler needed).

use faultlens_cfg::{build_cfgs, DecisionKind};
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
