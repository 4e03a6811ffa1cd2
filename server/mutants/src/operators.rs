//! The mutation operators: where each applies to a tree-sitter-c node and
//! what it writes instead.

use tree_sitter::Node;

/// The classic single-fault mutation operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operator {
    /// An arithmetic, relational or logical operator replaced by another
    /// (`+` → `-`, `==` → `!=`, `&&` → `||`).
    Replacement,
    /// An integer constant one more or one less.
    Constant,
    /// A variable read or written in place of another of the same function.
    WrongVariable,
    /// A branch or loop condition negated.
    NegatedCondition,
    /// One side of a `&&` or `||` left out.
    DroppedCondition,
    /// A relational bound moved by one (`<` → `<=`, `>=` → `>`).
    OffByOne,
}

impl Operator {
    pub const ALL: [Operator; 6] = [
        Operator::Replacement,
        Operator::Constant,
        Operator::WrongVariable,
        Operator::NegatedCondition,
        Operator::DroppedCondition,
        Operator::OffByOne,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Operator::Replacement => "operator",
            Operator::Constant => "constant",
            Operator::WrongVariable => "wrong variable",
            Operator::NegatedCondition => "negated condition",
            Operator::DroppedCondition => "dropped condition",
            Operator::OffByOne => "off-by-one",
        }
    }
}

/// Operator replacements (off-by-one bounds are their own operator).
const REPLACEMENTS: [(&str, &str); 14] = [
    ("+", "-"),
    ("-", "+"),
    ("*", "/"),
    ("/", "*"),
    ("%", "/"),
    ("==", "!="),
    ("!=", "=="),
    ("<", ">"),
    (">", "<"),
    ("<=", ">="),
    (">=", "<="),
    ("&&", "||"),
    ("||", "&&"),
    ("<<", ">>"),
];

const OFF_BY_ONE: [(&str, &str); 4] = [("<", "<="), ("<=", "<"), (">", ">="), (">=", ">")];

/// Where an identifier is a variable's use (not a declaration, a callee or a field).
const USES: [&str; 10] = [
    "binary_expression",
    "argument_list",
    "subscript_expression",
    "return_statement",
    "parenthesized_expression",
    "unary_expression",
    "update_expression",
    "assignment_expression",
    "conditional_expression",
    "cast_expression",
];

type Site = (Operator, usize, usize, String);

/// The mutants every operator makes of `node` itself (not of its children).
pub fn at(node: Node, source: &str, variables: &[String]) -> Vec<Site> {
    let text = |n: Node| &source[n.byte_range()];
    let mut out = Vec::new();
    match node.kind() {
        "binary_expression" => {
            if let Some(op) = node.child_by_field_name("operator") {
                let (start, end) = (op.start_byte(), op.end_byte());
                let symbol = text(op);
                for (from, to) in REPLACEMENTS {
                    if symbol == from {
                        out.push((Operator::Replacement, start, end, to.to_string()));
                    }
                }
                for (from, to) in OFF_BY_ONE {
                    if symbol == from {
                        out.push((Operator::OffByOne, start, end, to.to_string()));
                    }
                }
                if (symbol == "&&" || symbol == "||") && in_condition(node) {
                    for side in ["left", "right"] {
                        if let Some(kept) = node.child_by_field_name(side) {
                            out.push((
                                Operator::DroppedCondition,
                                node.start_byte(),
                                node.end_byte(),
                                text(kept).to_string(),
                            ));
                        }
                    }
                }
            }
        }
        "number_literal" => {
            if let Ok(n) = text(node).parse::<i64>() {
                let (start, end) = (node.start_byte(), node.end_byte());
                out.push((Operator::Constant, start, end, (n + 1).to_string()));
                if n > 0 {
                    out.push((Operator::Constant, start, end, (n - 1).to_string()));
                }
            }
        }
        "if_statement" | "while_statement" | "do_statement" | "for_statement" => {
            if let Some(condition) = node.child_by_field_name("condition") {
                let inner = if condition.kind() == "parenthesized_expression" {
                    condition.named_child(0)
                } else {
                    Some(condition)
                };
                if let Some(inner) = inner {
                    out.push((
                        Operator::NegatedCondition,
                        inner.start_byte(),
                        inner.end_byte(),
                        format!("!({})", text(inner)),
                    ));
                }
            }
        }
        "identifier" => {
            let is_use = node.parent().is_some_and(|p| {
                USES.contains(&p.kind()) && p.child_by_field_name("function") != Some(node)
            });
            let name = text(node);
            if is_use && variables.iter().any(|v| v == name) {
                for other in variables.iter().filter(|v| *v != name) {
                    out.push((
                        Operator::WrongVariable,
                        node.start_byte(),
                        node.end_byte(),
                        other.clone(),
                    ));
                }
            }
        }
        _ => {}
    }
    out
}

/// Whether `node` is (part of) a branch or loop condition.
fn in_condition(node: Node) -> bool {
    let mut at = node;
    while let Some(parent) = at.parent() {
        match parent.kind() {
            "if_statement" | "while_statement" | "do_statement" | "for_statement" => {
                return parent.child_by_field_name("condition").is_some_and(|c| {
                    c.start_byte() <= node.start_byte() && node.end_byte() <= c.end_byte()
                });
            }
            "compound_statement" | "function_definition" => return false,
            _ => at = parent,
        }
    }
    false
}

/// The names of the parameters and local variables of a function definition.
pub fn variables_of(def: Node, source: &str) -> Vec<String> {
    let mut names = Vec::new();
    collect(def, source, &mut names);
    names.sort();
    names.dedup();
    names
}

fn collect(node: Node, source: &str, names: &mut Vec<String>) {
    if matches!(node.kind(), "parameter_declaration" | "declaration") {
        let mut cursor = node.walk();
        for declarator in node.children_by_field_name("declarator", &mut cursor) {
            if let Some(name) = declared_name(declarator) {
                // A function's own declarator names the function, not a variable.
                if declarator.kind() != "function_declarator" {
                    names.push(source[name.byte_range()].to_string());
                }
            }
        }
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, source, names);
    }
}

fn declared_name(mut declarator: Node) -> Option<Node> {
    loop {
        if declarator.kind() == "identifier" {
            return Some(declarator);
        }
        declarator = declarator.child_by_field_name("declarator")?;
    }
}
