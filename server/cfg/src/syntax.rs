//! Small questions about tree-sitter-c nodes that the graph builder asks.

use tree_sitter::Node;

pub(crate) fn line(node: Node) -> u32 {
    node.start_position().row as u32 + 1
}

pub(crate) fn end_line(node: Node) -> u32 {
    // A node ending at column 0 ends on the previous line.
    let end = node.end_position();
    if end.column == 0 && end.row > node.start_position().row {
        end.row as u32
    } else {
        end.row as u32 + 1
    }
}

pub(crate) fn function_name(declarator: Node, src: &[u8]) -> Option<String> {
    let mut node = declarator;
    loop {
        if node.kind() == "identifier" {
            return node.utf8_text(src).ok().map(str::to_string);
        }
        node = node
            .child_by_field_name("declarator")
            .or_else(|| node.named_child(0))?;
    }
}

/// Whether gcc folds `c ? yes : no` into a branch-free value even at -O0:
/// `c ? 1 : 0` and `c ? 0 : 1` (a comparison), `a < b ? a : b` and the other
/// minimum and maximum forms (MIN_EXPR, MAX_EXPR).
pub(crate) fn folds_to_value(c: Node, yes: Node, no: Node, src: &[u8]) -> bool {
    let text = |n: Node| {
        strip_parens(n)
            .utf8_text(src)
            .unwrap_or("")
            .trim()
            .to_string()
    };
    let (y, n) = (text(yes), text(no));
    if matches!((y.as_str(), n.as_str()), ("1", "0") | ("0", "1")) {
        return true;
    }
    let c = strip_parens(c);
    if c.kind() != "binary_expression" || !matches!(operator(c, src), "<" | ">" | "<=" | ">=") {
        return false;
    }
    let (Some(l), Some(r)) = (
        c.child_by_field_name("left"),
        c.child_by_field_name("right"),
    ) else {
        return false;
    };
    let (l, r) = (text(l), text(r));
    (l == y && r == n) || (l == n && r == y)
}

pub(crate) fn strip_parens(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" && node.named_child_count() == 1 {
        match node.named_child(0) {
            Some(inner) if inner.kind() != "compound_statement" => node = inner,
            _ => break,
        }
    }
    node
}

pub(crate) fn operator<'a>(node: Node, src: &'a [u8]) -> &'a str {
    node.child_by_field_name("operator")
        .and_then(|o| o.utf8_text(src).ok())
        .unwrap_or("")
}

/// Whether lowering `node` as a condition creates more than one decision.
pub(crate) fn is_splitting(node: Node, src: &[u8]) -> bool {
    match node.kind() {
        "binary_expression" => matches!(operator(node, src), "&&" | "||"),
        "unary_expression" if operator(node, src) == "!" => node
            .child_by_field_name("argument")
            .map(|a| is_splitting(strip_parens(a), src))
            .unwrap_or(false),
        _ => false,
    }
}

/// `name(args)` when `expr` is a direct call.
pub(crate) fn call_parts<'t>(expr: Node<'t>, src: &[u8]) -> Option<(String, Node<'t>)> {
    if expr.kind() != "call_expression" {
        return None;
    }
    let function = expr.child_by_field_name("function")?;
    if function.kind() != "identifier" {
        return None;
    }
    let name = function.utf8_text(src).ok()?.to_string();
    Some((name, expr.child_by_field_name("arguments")?))
}
