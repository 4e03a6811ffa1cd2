//! How deeply C syntax nests, measured without recursion, and the one limit
//! on it that the analyses walking C syntax enforce before they recurse: the
//! C model's front end (`faultlens-csem`, tree-sitter-c to its IR, and the
//! interpreter and encoder over that IR) and the graph builder of this
//! crate ([`crate::build`]).
//!
//! Why a limit: those walks recurse once per level of nesting, and a stack
//! overflow aborts the whole process (the language server with it) where an
//! error would do. Measured per level (debug / release builds): lowering to
//! the C model's IR up to 3.9 / 4.2 KiB (a chain of `||`), the graph builder
//! up to 2.6 / 0.7 KiB, the interpreter and the encoder about 1 KiB; the
//! IR walks that run on their caller's thread (csem's `subexpr` and
//! `ir::visit`, dropping or cloning a program) 50 to 385 bytes. gcc has no
//! limit; the C standard asks compilers for at least 63 nested
//! parenthesized expressions and 127 nested blocks (C11 5.2.4.1), and clang
//! stops at 256 nested brackets by default. [`MAX_NESTING`] is far above
//! what people write, and at it every walk fits its stack many times over:
//! the deep ones run on [`on_walk_stack`] or the interpreter's and encoder's
//! own threads, the rest need under 0.4 MiB of a 2 MiB runtime thread.

use tree_sitter::Node;

/// The deepest syntax the analyses accept, in levels of named syntax-tree
/// nodes below a top-level item (a function definition is level 1): an
/// operator of `a + b + …` or `a || b || …`, a pair of parentheses, a call
/// in an argument, a nested `if`, loop or block each add one level (a block
/// inside an `if` adds two; so does each `else if`).
pub const MAX_NESTING: usize = 1000;

/// Stack for a walk over syntax that recurses once per nesting level: 15
/// times what the deepest walk measured at [`MAX_NESTING`] levels (4.2 MiB,
/// lowering a chain of `||` in a release build). Only the pages a walk
/// touches are ever committed.
pub const WALK_STACK: usize = 64 << 20;

/// Runs `walk` on a thread of its own with [`WALK_STACK`] bytes of stack:
/// the caller's may be smaller than the walk needs (tokio's blocking
/// threads have 2 MiB). A panic in `walk` is resumed in the caller.
///
/// # Errors
///
/// When the system cannot start a thread.
pub fn on_walk_stack<T: Send>(walk: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("faultlens-syntax-walk".into())
            .stack_size(WALK_STACK)
            .spawn_scoped(s, walk)?;
        match handle.join() {
            Ok(value) => Ok(value),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// A subtree that nests deeper than allowed: what nests, how deep, where.
#[derive(Clone, Copy, Debug)]
pub struct TooDeep<'tree> {
    /// The outermost node of the construct that nests (where it begins).
    pub node: Node<'tree>,
    /// How many of the construct nest inside each other there.
    pub count: usize,
    /// Named levels of the syntax tree at the deepest point.
    pub depth: usize,
    construct: Construct,
}

impl TooDeep<'_> {
    /// What nests and how deep, with the limit: ``an expression nested 4999
    /// deep (a chain of `+`; at most 1000 levels of nesting are supported)``.
    pub fn describe(&self) -> String {
        let (what, detail) = self.construct.phrase(self.count);
        let limit = format!("at most {MAX_NESTING} levels of nesting are supported");
        match detail {
            Some(detail) => format!("{what} ({detail}; {limit})"),
            None => format!("{what} ({limit})"),
        }
    }
}

/// C's operators as tree-sitter-c spells them (the names a message shows).
const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "<", "<=", ">", ">=", "==",
    "!=", "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "!", "~", "++", "--",
    ".", "->",
];

/// What a level of nesting is, as a message names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Construct {
    /// An operator (`+`, `||`, `=`, unary `-`, `->`…) applied to its own kind.
    Operator(&'static str),
    Casts,
    Conditionals,
    Parentheses,
    Calls,
    OtherExpression,
    Initializers,
    If,
    /// `if` statements most of which follow an `else`.
    ElseIf,
    Statement(&'static str),
    Blocks,
    Declarators,
    Records,
    PreprocessorConditionals,
}

impl Construct {
    fn of(node: Node) -> Option<Construct> {
        let operator = || {
            let spelled = node.child_by_field_name("operator").map(|o| o.kind());
            OPERATORS
                .iter()
                .find(|&&op| Some(op) == spelled)
                .copied()
                .unwrap_or("?")
        };
        Some(match node.kind() {
            "binary_expression"
            | "assignment_expression"
            | "unary_expression"
            | "pointer_expression"
            | "update_expression"
            | "field_expression" => Construct::Operator(operator()),
            "comma_expression" => Construct::Operator(","),
            "subscript_expression" => Construct::Operator("[]"),
            "cast_expression" => Construct::Casts,
            "conditional_expression" => Construct::Conditionals,
            "parenthesized_expression" => Construct::Parentheses,
            "call_expression" => Construct::Calls,
            "initializer_list" | "compound_literal_expression" => Construct::Initializers,
            kind if kind.ends_with("_expression") => Construct::OtherExpression,
            "if_statement" => Construct::If,
            "while_statement" => Construct::Statement("`while` loops"),
            "do_statement" => Construct::Statement("`do` loops"),
            "for_statement" => Construct::Statement("`for` loops"),
            "switch_statement" => Construct::Statement("`switch` statements"),
            "case_statement" => Construct::Statement("`case` labels"),
            "labeled_statement" => Construct::Statement("labelled statements"),
            "compound_statement" => Construct::Blocks,
            "pointer_declarator"
            | "array_declarator"
            | "function_declarator"
            | "parenthesized_declarator"
            | "abstract_pointer_declarator"
            | "abstract_array_declarator"
            | "abstract_function_declarator"
            | "abstract_parenthesized_declarator" => Construct::Declarators,
            "struct_specifier" | "union_specifier" => Construct::Records,
            "preproc_if" | "preproc_ifdef" | "preproc_elif" | "preproc_else"
            | "preproc_elifdef" => Construct::PreprocessorConditionals,
            _ => return None,
        })
    }

    /// Among equally many, the construct a person wrote on purpose wins
    /// over the blocks and parentheses around it.
    fn rank(self) -> u8 {
        match self {
            Construct::Blocks => 0,
            Construct::Parentheses => 1,
            _ => 2,
        }
    }

    fn phrase(self, n: usize) -> (String, Option<String>) {
        let expression = format!("an expression nested {n} deep");
        let (what, detail) = match self {
            Construct::Operator(op) => (expression, Some(format!("a chain of `{op}`"))),
            Construct::Casts => (expression, Some("a chain of casts".into())),
            Construct::Conditionals => (expression, Some("a chain of `?:`".into())),
            Construct::OtherExpression => (expression, None),
            Construct::Parentheses => (format!("parentheses nested {n} deep"), None),
            Construct::Calls => (
                format!("function calls nested {n} deep"),
                Some("each in an argument of the next".into()),
            ),
            Construct::Initializers => (format!("initializer braces nested {n} deep"), None),
            Construct::If => (format!("`if` statements nested {n} deep"), None),
            Construct::ElseIf => (format!("an `else if` chain {n} long"), None),
            Construct::Statement(what) => (format!("{what} nested {n} deep"), None),
            Construct::Blocks => (format!("blocks `{{ }}` nested {n} deep"), None),
            Construct::Declarators => (format!("a declarator nested {n} deep"), None),
            Construct::Records => (format!("struct or union definitions nested {n} deep"), None),
            Construct::PreprocessorConditionals => (format!("`#if` blocks nested {n} deep"), None),
        };
        (what, detail)
    }
}

/// One construct on the path from the top to the node being visited.
#[derive(Clone, Copy)]
struct OnPath<'tree> {
    construct: Construct,
    count: usize,
    outermost: Option<Node<'tree>>,
}

/// The deepest point beyond the limit: its depth, the constructs on the
/// path to it, and how many `else` clauses that path goes through.
struct Deepest<'tree> {
    depth: usize,
    path: Vec<OnPath<'tree>>,
    elses: usize,
}

/// Measures how deeply `top` nests (iteratively, with a tree cursor) and
/// returns the deepest point when it passes `limit` named levels (`top`
/// itself is level 1), naming the construct most of those levels belong to.
pub fn check(top: Node, limit: usize) -> Result<(), TooDeep> {
    let mut cursor = top.walk();
    // Per level entered: whether it is named, and its construct's index in `on_path`.
    let mut levels: Vec<(bool, Option<usize>)> = Vec::new();
    let mut on_path: Vec<OnPath> = Vec::new();
    // `else_clause`s on the path: an `else if` chain is a nesting of `if`s.
    let mut elses = 0usize;
    let mut depth = 0usize;
    let mut deepest: Option<Deepest> = None;
    loop {
        // Enter the cursor's node.
        let node = cursor.node();
        let named = node.is_named();
        let mut index = None;
        if named {
            depth += 1;
            if node.kind() == "else_clause" {
                elses += 1;
            }
            if let Some(construct) = Construct::of(node) {
                let i = match on_path.iter().position(|c| c.construct == construct) {
                    Some(i) => i,
                    None => {
                        on_path.push(OnPath {
                            construct,
                            count: 0,
                            outermost: None,
                        });
                        on_path.len() - 1
                    }
                };
                on_path[i].count += 1;
                if on_path[i].count == 1 {
                    on_path[i].outermost = Some(node);
                }
                index = Some(i);
            }
            if depth > limit && deepest.as_ref().is_none_or(|d| depth > d.depth) {
                deepest = Some(Deepest {
                    depth,
                    path: on_path.iter().filter(|c| c.count > 0).copied().collect(),
                    elses,
                });
            }
        }
        levels.push((named, index));
        if cursor.goto_first_child() {
            continue;
        }
        // Leave nodes until one has a next sibling (or the walk is back at `top`).
        loop {
            let (named, index) = levels.pop().expect("entered above");
            if named {
                depth -= 1;
                if cursor.node().kind() == "else_clause" {
                    elses -= 1;
                }
            }
            if let Some(i) = index {
                on_path[i].count -= 1;
                if on_path[i].count == 0 {
                    on_path[i].outermost = None;
                }
            }
            if levels.is_empty() {
                return match deepest {
                    None => Ok(()),
                    Some(deepest) => Err(too_deep(top, deepest)),
                };
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
        }
    }
}

/// Names what nests at the deepest point: the construct most levels on its
/// path belong to.
fn too_deep<'tree>(top: Node<'tree>, deepest: Deepest<'tree>) -> TooDeep<'tree> {
    let Deepest { depth, path, elses } = deepest;
    // A statement's braces are a block each (`if (x) { if (x) {`): blocks
    // count as nesting of their own only beyond those.
    let statements: usize = path
        .iter()
        .filter(|c| matches!(c.construct, Construct::If | Construct::Statement(_)))
        .map(|c| c.count)
        .sum();
    let weight = |c: &OnPath| match c.construct {
        Construct::Blocks => c.count.saturating_sub(statements),
        _ => c.count,
    };
    let OnPath {
        construct,
        count,
        outermost,
    } = path
        .into_iter()
        .max_by_key(|c| (weight(c), c.construct.rank()))
        .unwrap_or(OnPath {
            construct: Construct::OtherExpression,
            count: depth,
            outermost: Some(top),
        });
    // Each `else if` nests the next `if` in the previous one's `else`.
    let construct = if construct == Construct::If && 2 * elses >= count {
        Construct::ElseIf
    } else {
        construct
    };
    TooDeep {
        node: outermost.unwrap_or(top),
        count,
        depth,
        construct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::{Parser, Tree};

    fn parse(source: &str) -> Tree {
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_c::LANGUAGE.into())
            .unwrap();
        parser.parse(source, None).unwrap()
    }

    /// The first top-level item of `source` that nests deeper than `limit`:
    /// its description and the (1-based) line where the construct begins.
    fn refusal(source: &str, limit: usize) -> Option<(String, usize)> {
        let tree = parse(source);
        let root = tree.root_node();
        let mut cursor = root.walk();
        let items: Vec<Node> = root.named_children(&mut cursor).collect();
        items.into_iter().find_map(|item| {
            check(item, limit)
                .err()
                .map(|deep| (deep.describe(), deep.node.start_position().row + 1))
        })
    }

    fn in_function(body: &str) -> String {
        format!("int f(int);\nint g(int x) {{\n  int y = 0;\n  {body}\n  return y;\n}}\n")
    }

    #[test]
    fn the_limit_counts_named_levels_from_the_item() {
        // function_definition, compound_statement, return_statement, three
        // parenthesized_expressions, identifier: 7 levels.
        let source = "int g(int x) { return (((x))); }";
        assert_eq!(refusal(source, 7), None);
        let (what, line) = refusal(source, 6).unwrap();
        assert!(what.starts_with("parentheses nested 3 deep"), "{what}");
        assert_eq!(line, 1);
    }

    #[test]
    fn deep_constructs_are_named_with_how_deep_and_where_they_begin() {
        let n = 1500;
        let cases = [
            (
                format!("y = {};", vec!["x"; n].join(" + ")),
                "an expression nested 1499 deep (a chain of `+`; ",
            ),
            (
                format!("if ({}) y = 1;", vec!["x == 0"; n].join(" || ")),
                "an expression nested 1499 deep (a chain of `||`; ",
            ),
            (
                format!("y = {}x{};", "(".repeat(n), ")".repeat(n)),
                "parentheses nested 1500 deep (",
            ),
            (
                format!("{}y = x;", "if (x) ".repeat(n)),
                "`if` statements nested 1500 deep (",
            ),
            (
                format!("{}y = x;{}", "if (x) { ".repeat(n), " }".repeat(n)),
                "`if` statements nested 1500 deep (",
            ),
            (
                format!("{}y = 1;", "if (x == 1) y = 2; else ".repeat(n)),
                "an `else if` chain 1500 long (",
            ),
            (
                format!("y = {}x{};", "f(".repeat(n), ")".repeat(n)),
                "function calls nested 1500 deep (each in an argument of the next; ",
            ),
            (
                // The function's body is the outermost block.
                format!("{}y = x;{}", "{ ".repeat(n), " }".repeat(n)),
                "blocks `{ }` nested 1501 deep (",
            ),
            (
                format!("{}y = x;", "while (x) ".repeat(n)),
                "`while` loops nested 1500 deep (",
            ),
            (
                format!("y = {}x;", "(int)".repeat(n)),
                "an expression nested 1500 deep (a chain of casts; ",
            ),
            (
                format!("y = {}x;", "- ".repeat(n)),
                "an expression nested 1500 deep (a chain of `-`; ",
            ),
            (
                format!("y = {}x{};", "x ? ".repeat(n), " : 0".repeat(n)),
                "an expression nested 1500 deep (a chain of `?:`; ",
            ),
            (
                format!("int {}p = 0;", "*".repeat(n)),
                "a declarator nested 1500 deep (",
            ),
        ];
        for (body, phrase) in cases {
            let (what, line) = refusal(&in_function(&body), MAX_NESTING)
                .unwrap_or_else(|| panic!("not refused: {phrase}"));
            assert!(
                what.starts_with(phrase)
                    && what.ends_with("at most 1000 levels of nesting are supported)"),
                "{what}"
            );
            let outermost = if phrase.starts_with("blocks") { 2 } else { 4 };
            assert_eq!(line, outermost, "{what}");
        }
    }

    #[test]
    fn long_flat_code_is_not_deep() {
        let n = 5000;
        let statements = "y = y + x;\n".repeat(n);
        let cases: Vec<String> = (0..n)
            .map(|i| format!("case {i}: y = {i}; break;"))
            .collect();
        let switch = format!("switch (x) {{ {} }}", cases.join("\n"));
        let numbers: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let table = format!("int t[] = {{ {} }};", numbers.join(", "));
        let text = format!("char *s = {};", vec!["\"ab\""; n].join(" "));
        let calls = "f(x);\n".repeat(n);
        for body in [statements, switch, table, text, calls] {
            assert_eq!(refusal(&in_function(&body), MAX_NESTING), None);
        }
    }

    #[test]
    fn the_deepest_point_is_reported() {
        // Two deep spots: the deeper one (the second) is named.
        let body = format!(
            "y = {}x{};\n  y = {}x;",
            "(".repeat(1200),
            ")".repeat(1200),
            "- ".repeat(1800)
        );
        let (what, line) = refusal(&in_function(&body), MAX_NESTING).unwrap();
        assert!(
            what.starts_with("an expression nested 1800 deep (a chain of `-`"),
            "{what}"
        );
        assert_eq!(line, 5);
    }

    #[test]
    fn a_walk_runs_on_its_own_stack_and_passes_panics_on() {
        assert_eq!(on_walk_stack(|| 6 * 7).unwrap(), 42);
        let caught = std::panic::catch_unwind(|| on_walk_stack(|| panic!("inside")));
        assert!(caught.is_err());
    }
}
