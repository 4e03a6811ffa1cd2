//! Builds a [`FunctionCfg`] per function definition from tree-sitter-c's
//! syntax tree.
//!
//! The graph follows what gcc emits at `-O0`, so that gcov's branch counts
//! can be matched to its decisions in order:
//! - each operand of `&&`/`||` and the condition of `?:` is its own two-way
//!   decision, in conditions and in values (`x = a && b;`); a `?:` used as a
//!   condition is computed as a value and then tested (one more decision),
//!   as gcc does;
//! - decisions list their targets in gcc's order (checked against gcc 12):
//!   the edge to the operand evaluated next (`a || b || c`: `a`'s and `b`'s
//!   false edges) first, otherwise the edge towards the true target of the
//!   whole condition first;
//! - `switch` dispatches once per distinct target block in source order
//!   (adjacent labels share a block), with the implicit `default` last;
//! - `while (1)`, `for (;;)` and `do ... while (0)` have no decision, nor
//!   do the `?:` forms gcc folds into values (`c ? 1 : 0`, minimum and
//!   maximum);
//! - `assert(e)` is a decision whose false edge enters a block that never
//!   returns; `exit`, `abort` and friends end their block without an edge.
//!
//! Preprocessor conditionals are read as if every branch were compiled
//! (their statements follow each other); macro bodies are not expanded.
//!
//! The builder recurses once per level of nesting (up to 2.6 KiB of stack
//! per level in a debug build): a function nesting deeper than
//! [`MAX_NESTING`] gets no graph, and the walk runs on a thread with a
//! stack sized for that limit ([`on_walk_stack`]).

use std::collections::HashMap;

use tree_sitter::Node;

use crate::graph::{
    Block, Decision, DecisionKind, Edge, EdgeKind, FunctionCfg, Piece, ENTRY, EXIT,
};
use crate::nesting::{self, on_walk_stack, MAX_NESTING};
use crate::syntax::{
    call_parts, end_line, folds_to_value, function_name, is_splitting, line, operator, strip_parens,
};
use crate::CfgError;

/// Calls after which control never comes back to the caller.
const NORETURN: &[&str] = &[
    "exit",
    "_exit",
    "_Exit",
    "abort",
    "quick_exit",
    "longjmp",
    "siglongjmp",
    "__assert_fail",
    "err",
    "errx",
    "verr",
    "verrx",
    "pthread_exit",
    "__builtin_trap",
    "__builtin_unreachable",
];

/// `NULL`, `(void *)0`, or `0` opposite a string: the true value of a `?:`
/// that gcc compiles with its edges swapped.
fn null_pointer_first(yes: Node, no: Node, src: &[u8]) -> bool {
    let text: String = strip_parens(yes)
        .utf8_text(src)
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    match text.as_str() {
        "NULL" | "(void*)0" => true,
        "0" => strip_parens(no).kind() == "string_literal",
        _ => false,
    }
}

/// Whether a condition is, at its top, an `&&` (after parentheses and
/// negations: `!(a || b)` is `!a && !b`).
fn top_is_and(node: Node, src: &[u8]) -> bool {
    match node.kind() {
        "binary_expression" => operator(node, src) == "&&",
        "unary_expression" if operator(node, src) == "!" => node
            .child_by_field_name("argument")
            .map(strip_parens)
            .is_some_and(|a| is_splitting(a, src) && !top_is_and(a, src)),
        _ => false,
    }
}

/// A tree-sitter point as 1-based line and 1-based byte column (clang's
/// convention in its coverage regions).
fn position(p: tree_sitter::Point) -> (u32, u32) {
    (p.row as u32 + 1, p.column as u32 + 1)
}

/// Parses `source` and builds the graph of every function definition, in
/// source order (functions nesting too deeply have none: see [`build_file`]).
pub fn build_cfgs(source: &str) -> Result<Vec<FunctionCfg>, CfgError> {
    Ok(build_file(source)?.functions)
}

/// The graphs of one file's functions, and the functions left without one.
#[derive(Debug, Clone, Default)]
pub struct FileCfgs {
    /// In source order.
    pub functions: Vec<FunctionCfg>,
    /// Functions nesting deeper than [`MAX_NESTING`]: the builder recurses
    /// per level, so they get no graph (their lines are in no block).
    pub too_deep: Vec<TooDeepFunction>,
}

/// A function whose syntax nests deeper than [`MAX_NESTING`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooDeepFunction {
    pub name: String,
    /// The function's first line (1-based).
    pub line: u32,
    /// Where the deep construct begins (1-based).
    pub construct_line: u32,
    /// What nests and how deep, with the limit (see [`crate::nesting::TooDeep::describe`]).
    pub construct: String,
}

impl TooDeepFunction {
    /// ``an expression nested 4999 deep (a chain of `+`; …) at line 6``.
    pub fn reason(&self) -> String {
        format!("{} at line {}", self.construct, self.construct_line)
    }
}

/// Parses `source` and builds the graph of every function definition that
/// nests at most [`MAX_NESTING`] levels deep, in source order. The walk
/// runs on a thread with a stack sized for that depth (the caller's may be
/// a 2 MiB runtime thread).
pub fn build_file(source: &str) -> Result<FileCfgs, CfgError> {
    let tree = crate::parse::parse_c(source)?;
    let src = source.as_bytes();
    on_walk_stack(|| {
        let mut file = FileCfgs::default();
        for def in function_definitions(tree.root_node()) {
            match nesting::check(def, MAX_NESTING) {
                Ok(()) => file.functions.extend(build_function(def, src)),
                Err(deep) => file.too_deep.push(TooDeepFunction {
                    name: def
                        .child_by_field_name("declarator")
                        .and_then(|d| function_name(d, src))
                        .unwrap_or_else(|| "<anonymous>".into()),
                    line: line(def),
                    construct_line: line(deep.node),
                    construct: deep.describe(),
                }),
            }
        }
        file
    })
    .map_err(|e| CfgError::Thread(e.to_string()))
}

/// The function definitions under `root`, in source order, found without
/// recursion (declarations around them may nest arbitrarily deep).
fn function_definitions(root: Node) -> Vec<Node> {
    let mut found = Vec::new();
    let mut cursor = root.walk();
    let mut pending: Vec<Node> = root.named_children(&mut cursor).collect();
    pending.reverse();
    while let Some(node) = pending.pop() {
        if node.kind() == "function_definition" {
            found.push(node);
        } else if node.named_child_count() > 0 {
            let first = pending.len();
            pending.extend(node.named_children(&mut cursor));
            pending[first..].reverse();
        }
    }
    found
}

fn build_function(def: Node, src: &[u8]) -> Option<FunctionCfg> {
    let declarator = def.child_by_field_name("declarator")?;
    let body = def.child_by_field_name("body")?;
    let name = function_name(declarator, src).unwrap_or_else(|| "<anonymous>".into());
    let mut b = Builder {
        src,
        blocks: vec![Block::default(), Block::default()],
        edges: Vec::new(),
        cur: None,
        breaks: Vec::new(),
        continues: Vec::new(),
        switches: Vec::new(),
        labels: HashMap::new(),
        gotos: Vec::new(),
        decisions: 0,
        pieces_added: 0,
        span: (0, 0),
        operator_line: None,
    };
    let first = b.new_block();
    b.edge(ENTRY, first, EdgeKind::Entry);
    b.cur = Some(first);
    // The declarator's line: gcov counts the calls there.
    let header = line(declarator);
    b.add_piece(Piece {
        line: header,
        end_line: header,
        continuation: false,
        scope_open: false,
    });
    b.statement(body);
    if let Some(c) = b.cur {
        let close = end_line(body);
        b.add_piece(Piece {
            line: close,
            end_line: close,
            continuation: false,
            scope_open: false,
        });
        b.edge(c, EXIT, EdgeKind::Return);
    }
    for (from, label) in std::mem::take(&mut b.gotos) {
        if let Some(&target) = b.labels.get(&label) {
            b.edge(from, target, EdgeKind::Jump);
        }
    }
    let (blocks, edges) = compact(b.blocks, b.edges);
    Some(FunctionCfg {
        name,
        header_line: header,
        start_line: line(def),
        end_line: end_line(def),
        blocks,
        edges,
    })
}

/// Drops blocks that nothing enters, that hold no code and lead nowhere
/// (joins after branches that all jump away), renumbering the rest.
fn compact(blocks: Vec<Block>, edges: Vec<Edge>) -> (Vec<Block>, Vec<Edge>) {
    let keep: Vec<bool> = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            i <= EXIT || !(b.pieces.is_empty() && b.preds.is_empty() && b.succs.is_empty())
        })
        .collect();
    let mut new_index = vec![usize::MAX; blocks.len()];
    let mut out = Vec::new();
    for (i, block) in blocks.into_iter().enumerate() {
        if keep[i] {
            new_index[i] = out.len();
            out.push(block);
        }
    }
    let edges: Vec<Edge> = edges
        .into_iter()
        .map(|e| Edge {
            from: new_index[e.from],
            to: new_index[e.to],
            kind: e.kind,
        })
        .collect();
    (out, edges)
}

struct SwitchCtx {
    dispatch: usize,
    targets: Vec<usize>,
    has_default: bool,
    /// The block the latest case label started, and the piece counter right
    /// after its label: if nothing was added since, the next label shares it.
    open_label: Option<(usize, usize)>,
}

struct Builder<'s> {
    src: &'s [u8],
    blocks: Vec<Block>,
    edges: Vec<Edge>,
    /// The block code is being added to; `None` right after a jump.
    cur: Option<usize>,
    breaks: Vec<usize>,
    continues: Vec<usize>,
    switches: Vec<SwitchCtx>,
    labels: HashMap<String, usize>,
    gotos: Vec<(usize, String)>,
    decisions: usize,
    pieces_added: usize,
    /// Lines of the statement or condition being lowered (where gcov may
    /// report the branches of the decisions it contains).
    span: (u32, u32),
    /// Line of the `&&`/`||` whose right operand is lowered next.
    operator_line: Option<u32>,
}

impl Builder<'_> {
    fn new_block(&mut self) -> usize {
        self.blocks.push(Block::default());
        self.blocks.len() - 1
    }

    fn edge(&mut self, from: usize, to: usize, kind: EdgeKind) {
        let id = self.edges.len();
        self.edges.push(Edge { from, to, kind });
        self.blocks[from].succs.push(id);
        self.blocks[to].preds.push(id);
    }

    /// The current block, starting an unreachable one after a jump.
    fn current(&mut self) -> usize {
        match self.cur {
            Some(c) => c,
            None => {
                let b = self.new_block();
                self.cur = Some(b);
                b
            }
        }
    }

    fn add_piece(&mut self, piece: Piece) {
        let b = self.current();
        self.blocks[b].pieces.push(piece);
        self.pieces_added += 1;
    }

    fn piece_of(&mut self, node: Node) {
        self.add_piece(Piece {
            line: line(node),
            end_line: end_line(node),
            continuation: false,
            scope_open: false,
        });
    }

    /// Continues into `target` (falling through from the current block).
    fn enter(&mut self, target: usize) {
        if let Some(c) = self.cur {
            self.edge(c, target, EdgeKind::Fallthrough);
        }
        self.cur = Some(target);
    }

    fn jump(&mut self, target: usize) {
        if let Some(c) = self.cur {
            self.edge(c, target, EdgeKind::Jump);
        }
        self.cur = None;
    }

    /// After a construct: continue in `join` if anything reaches it.
    fn resume(&mut self, join: usize) {
        self.cur = if self.blocks[join].preds.is_empty() {
            None
        } else {
            Some(join)
        };
    }

    fn text(&self, node: Node) -> &str {
        node.utf8_text(self.src).unwrap_or("")
    }

    fn statement(&mut self, node: Node) {
        match node.kind() {
            "compound_statement" => {
                // gcc may place the start of a scope that declares
                // variables on the line of its `{` (`} else if (x) {`), so
                // that line's count is not evidence about one block alone.
                let mut cursor = node.walk();
                let declares = node
                    .named_children(&mut cursor)
                    .any(|c| c.kind() == "declaration");
                if declares && self.cur.is_some() {
                    let l = line(node);
                    self.add_piece(Piece {
                        line: l,
                        end_line: l,
                        continuation: false,
                        scope_open: true,
                    });
                }
                self.children(node)
            }
            "comment"
            | ";"
            | "type_definition"
            | "preproc_def"
            | "preproc_function_def"
            | "preproc_call"
            | "preproc_include" => {}
            "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
            | "preproc_elifdef" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let is_condition = node.child_by_field_name("condition") == Some(child)
                        || node.child_by_field_name("name") == Some(child);
                    if !is_condition {
                        self.statement(child);
                    }
                }
            }
            "attributed_statement" => {
                if let Some(inner) =
                    node.named_child((node.named_child_count() as u32).saturating_sub(1))
                {
                    self.statement(inner);
                }
            }
            "expression_statement" => {
                if let Some(expr) = node.named_child(0) {
                    self.expression_statement(node, expr);
                }
            }
            "declaration" => self.declaration(node),
            "return_statement" => {
                self.span = (line(node), end_line(node));
                let start = self.current();
                self.piece_of(node);
                if let Some(value) = node.named_child(0) {
                    self.value(value);
                }
                self.finish_statement(start, node);
                let b = self.current();
                self.edge(b, EXIT, EdgeKind::Return);
                self.cur = None;
            }
            "if_statement" => self.if_statement(node),
            "while_statement" => self.while_statement(node),
            "do_statement" => self.do_statement(node),
            "for_statement" => self.for_statement(node),
            "switch_statement" => self.switch_statement(node),
            "case_statement" => self.case_statement(node),
            "break_statement" => {
                self.piece_of(node);
                match self.breaks.last() {
                    Some(&t) => self.jump(t),
                    None => self.cur = None,
                }
            }
            "continue_statement" => {
                self.piece_of(node);
                match self.continues.last() {
                    Some(&t) => self.jump(t),
                    None => self.cur = None,
                }
            }
            "goto_statement" => {
                self.piece_of(node);
                let label = node
                    .child_by_field_name("label")
                    .map(|l| self.text(l).to_string())
                    .unwrap_or_default();
                let b = self.current();
                self.gotos.push((b, label));
                self.cur = None;
            }
            "labeled_statement" => {
                let label_node = node.child_by_field_name("label");
                let name = label_node
                    .map(|l| self.text(l).to_string())
                    .unwrap_or_default();
                let target = match self.labels.get(&name) {
                    Some(&t) => t,
                    None => {
                        let t = self.new_block();
                        self.labels.insert(name, t);
                        t
                    }
                };
                self.enter(target);
                let l = line(node);
                self.add_piece(Piece {
                    line: l,
                    end_line: l,
                    continuation: false,
                    scope_open: false,
                });
                let mut cursor = node.walk();
                let inner: Vec<Node> = node
                    .named_children(&mut cursor)
                    .filter(|c| Some(*c) != label_node)
                    .collect();
                for child in inner {
                    self.statement(child);
                }
            }
            // Anything else (inline assembly, an expression the parser could
            // not place) counts as one straight-line statement.
            _ => self.piece_of(node),
        }
    }

    fn children(&mut self, node: Node) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.statement(child);
        }
    }

    /// If lowering a value moved on to a join block, the rest of the
    /// statement (the assignment, the call) runs there too.
    fn finish_statement(&mut self, start: usize, node: Node) {
        if let Some(c) = self.cur {
            if c != start && self.blocks[c].pieces.is_empty() {
                self.add_piece(Piece {
                    line: line(node),
                    end_line: end_line(node),
                    continuation: true,
                    scope_open: false,
                });
            }
        }
    }

    fn expression_statement(&mut self, stmt: Node, expr: Node) {
        self.span = (line(stmt), end_line(stmt));
        if let Some((name, args)) = call_parts(expr, self.src) {
            if name == "assert" && args.named_child_count() == 1 {
                // glibc: `if (e) ; else __assert_fail (...)`.
                let cond = args.named_child(0).expect("one argument");
                self.piece_of(stmt);
                let ok = self.new_block();
                let fail = self.new_block();
                // For the last operand, gcc lists the passing edge first
                // when the condition is an `&&` at the top, and the failing
                // edge first when it is an `||` or a single condition
                // (checked against gcc 12: `assert(a || b)` lists b's
                // failing edge first, `assert(c && (a || b))` b's passing
                // edge).
                self.span = (line(cond), end_line(cond));
                let then = if top_is_and(strip_parens(cond), self.src) {
                    ok
                } else {
                    fail
                };
                self.condition(cond, ok, fail, Some(then), None);
                self.cur = Some(fail);
                self.piece_of(stmt);
                self.cur = Some(ok);
                return;
            }
            if NORETURN.contains(&name.as_str()) {
                let start = self.current();
                self.piece_of(stmt);
                self.value(expr);
                self.finish_statement(start, stmt);
                self.cur = None;
                return;
            }
        }
        let start = self.current();
        self.piece_of(stmt);
        self.value(expr);
        self.finish_statement(start, stmt);
    }

    fn declaration(&mut self, node: Node) {
        let mut cursor = node.walk();
        let is_static = node.named_children(&mut cursor).any(|c| {
            c.kind() == "storage_class_specifier" && matches!(self.text(c), "static" | "extern")
        });
        if is_static {
            return;
        }
        let mut cursor = node.walk();
        let values: Vec<Node> = node
            .children_by_field_name("declarator", &mut cursor)
            .filter(|d| d.kind() == "init_declarator")
            .filter_map(|d| d.child_by_field_name("value"))
            .collect();
        if values.is_empty() {
            return;
        }
        self.span = (line(node), end_line(node));
        let start = self.current();
        self.piece_of(node);
        for v in values {
            self.value(v);
        }
        self.finish_statement(start, node);
    }

    /// Lowers an expression evaluated for its value, splitting blocks where
    /// `&&`, `||` and `?:` split control.
    fn value(&mut self, node: Node) {
        match node.kind() {
            "binary_expression" if matches!(operator(node, self.src), "&&" | "||") => {
                let join = self.new_block();
                self.condition(node, join, join, None, None);
                self.cur = Some(join);
            }
            "conditional_expression" => {
                let (Some(c), Some(yes), Some(no)) = (
                    node.child_by_field_name("condition"),
                    node.child_by_field_name("consequence"),
                    node.child_by_field_name("alternative"),
                ) else {
                    // GNU `a ?: b`: no separate block for the consequence.
                    self.value_children(node);
                    return;
                };
                if folds_to_value(c, yes, no, self.src) {
                    self.value_children(node);
                    return;
                }
                let t = self.new_block();
                let f = self.new_block();
                let join = self.new_block();
                // gcc lists the false edge first when the true value is a
                // null pointer (`c ? NULL : "text"`; for `a && b ? NULL :
                // "text"`, b's; checked against gcc 12).
                let then = null_pointer_first(yes, no, self.src).then_some(f);
                self.condition(c, t, f, then, None);
                self.cur = Some(t);
                self.piece_of(yes);
                self.value(yes);
                self.enter(join);
                self.cur = Some(f);
                self.piece_of(no);
                self.value(no);
                self.enter(join);
            }
            "sizeof_expression"
            | "alignof_expression"
            | "offsetof_expression"
            | "identifier"
            | "number_literal"
            | "string_literal"
            | "char_literal"
            | "true"
            | "false"
            | "null" => {}
            "compound_statement" => self.statement(node),
            "call_expression" => {
                self.value_children(node);
                let b = self.current();
                self.blocks[b].last_call_line = Some(end_line(node));
                self.blocks[b].last_callee = node
                    .child_by_field_name("function")
                    .filter(|f| f.kind() == "identifier")
                    .map(|f| self.text(f).to_string());
            }
            _ => self.value_children(node),
        }
    }

    fn value_children(&mut self, node: Node) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.value(child);
        }
    }

    /// A statement's controlling expression.
    fn condition_top(&mut self, node: Node, t: usize, f: usize) {
        self.span = (line(node), end_line(node));
        self.condition(node, t, f, Some(t), None);
    }

    /// Lowers `node` as a condition: control goes to `t` when it holds and
    /// to `f` otherwise (`!(a && b)` is `a && b` with the targets swapped).
    /// `next` is the block of the operand evaluated right after this one
    /// (gcc lists the edge to it first); `then` is the true target of the
    /// whole condition, which gcc lists first for a last operand.
    fn condition(
        &mut self,
        node: Node,
        t: usize,
        f: usize,
        then: Option<usize>,
        next: Option<usize>,
    ) {
        let node = strip_parens(node);
        match node.kind() {
            "binary_expression" if matches!(operator(node, self.src), "&&" | "||") => {
                let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return self.atomic(node, t, f, then, next);
                };
                let mid = self.new_block();
                if operator(node, self.src) == "&&" {
                    self.condition(left, mid, f, then, Some(mid));
                } else {
                    self.condition(left, t, mid, then, Some(mid));
                }
                self.cur = Some(mid);
                // gcc puts the test of the right operand on the operator's
                // line (`a ||` on one line, `b)` on the next: line one).
                self.operator_line = node.child_by_field_name("operator").map(line);
                self.condition(right, t, f, then, next);
            }
            "unary_expression" if operator(node, self.src) == "!" => {
                let inner = node.child_by_field_name("argument").map(strip_parens);
                match inner {
                    Some(inner) if is_splitting(inner, self.src) => {
                        self.condition(inner, f, t, then, next)
                    }
                    _ => self.atomic(node, t, f, then, next),
                }
            }
            "comma_expression" => {
                if let Some(left) = node.child_by_field_name("left") {
                    self.piece_of(left);
                    self.value(left);
                }
                match node.child_by_field_name("right") {
                    Some(right) => self.condition(right, t, f, then, next),
                    None => self.atomic(node, t, f, then, next),
                }
            }
            "number_literal" | "true" | "false" => {
                // Folded by the compiler: no decision.
                let holds = !matches!(self.text(node), "0" | "false" | "0x0" | "0L" | "0U");
                self.piece_of(node);
                self.jump(if holds { t } else { f });
            }
            _ => self.atomic(node, t, f, then, next),
        }
    }

    /// One two-way decision on `node`, which may itself contain value-level
    /// splits (`f(a ? 1 : 2) > 0`).
    fn atomic(&mut self, node: Node, t: usize, f: usize, then: Option<usize>, next: Option<usize>) {
        let code_line = self
            .operator_line
            .take()
            .unwrap_or(line(node))
            .min(line(node));
        self.value(node);
        let b = self.current();
        self.add_piece(Piece {
            line: code_line,
            end_line: end_line(node),
            continuation: false,
            scope_open: false,
        });
        let first_is_false = t != f
            && match next {
                Some(n) if n == f || n == t => n == f,
                _ => then == Some(f),
            };
        let (span_lo, span_hi) = self.span;
        self.blocks[b].decision = Some(Decision {
            kind: DecisionKind::Condition,
            line: span_lo.min(line(node)),
            end_line: span_hi.max(end_line(node)),
            order: self.decisions,
            expr_line: code_line,
            expr_end_line: end_line(node),
            start: position(node.start_position()),
            end: position(node.end_position()),
        });
        self.decisions += 1;
        if first_is_false {
            self.edge(b, f, EdgeKind::False);
            self.edge(b, t, EdgeKind::True);
        } else {
            self.edge(b, t, EdgeKind::True);
            self.edge(b, f, EdgeKind::False);
        }
        self.cur = None;
    }

    fn if_statement(&mut self, node: Node) {
        let Some(cond) = node.child_by_field_name("condition") else {
            return self.piece_of(node);
        };
        let then_b = self.new_block();
        let join = self.new_block();
        let alternative = node.child_by_field_name("alternative");
        let else_b = if alternative.is_some() {
            self.new_block()
        } else {
            join
        };
        self.condition_top(cond, then_b, else_b);
        self.cur = Some(then_b);
        if let Some(consequence) = node.child_by_field_name("consequence") {
            self.statement(consequence);
        }
        if let Some(alt) = alternative {
            self.jump(join);
            self.cur = Some(else_b);
            self.children(alt);
        }
        self.enter(join);
        self.resume(join);
    }

    fn while_statement(&mut self, node: Node) {
        let head = self.new_block();
        let body = self.new_block();
        let exit = self.new_block();
        self.enter(head);
        match node.child_by_field_name("condition") {
            Some(cond) => self.condition_top(cond, body, exit),
            None => self.jump(body),
        }
        self.cur = Some(body);
        self.loop_body(node.child_by_field_name("body"), exit, head);
        self.jump(head);
        self.resume(exit);
    }

    fn do_statement(&mut self, node: Node) {
        let body = self.new_block();
        let check = self.new_block();
        let exit = self.new_block();
        self.enter(body);
        self.loop_body(node.child_by_field_name("body"), exit, check);
        self.enter(check);
        self.resume(check);
        if self.cur.is_some() {
            match node.child_by_field_name("condition") {
                Some(cond) => self.condition_top(cond, body, exit),
                None => self.jump(body),
            }
        }
        self.resume(exit);
    }

    fn for_statement(&mut self, node: Node) {
        if let Some(init) = node.child_by_field_name("initializer") {
            if init.kind() == "declaration" {
                self.declaration(init);
            } else {
                self.span = (line(init), end_line(init));
                let start = self.current();
                self.piece_of(init);
                self.value(init);
                self.finish_statement(start, init);
            }
        }
        let head = self.new_block();
        let body = self.new_block();
        let exit = self.new_block();
        self.enter(head);
        match node.child_by_field_name("condition") {
            Some(cond) => self.condition_top(cond, body, exit),
            None => self.jump(body),
        }
        // The update is built before the body so that decision numbers
        // follow the source order (gcov lists branches in that order).
        let next = match node.child_by_field_name("update") {
            Some(update) => {
                let u = self.new_block();
                self.cur = Some(u);
                self.span = (line(update), end_line(update));
                self.piece_of(update);
                self.value(update);
                self.finish_statement(u, update);
                self.jump(head);
                u
            }
            None => head,
        };
        self.cur = Some(body);
        self.loop_body(node.child_by_field_name("body"), exit, next);
        self.jump(next);
        self.resume(exit);
    }

    fn loop_body(&mut self, body: Option<Node>, brk: usize, cont: usize) {
        self.breaks.push(brk);
        self.continues.push(cont);
        if let Some(body) = body {
            self.statement(body);
        }
        self.breaks.pop();
        self.continues.pop();
    }

    fn switch_statement(&mut self, node: Node) {
        let Some(cond) = node.child_by_field_name("condition") else {
            return self.piece_of(node);
        };
        self.span = (line(cond), end_line(cond));
        let start = self.current();
        self.piece_of(cond);
        self.value(cond);
        self.finish_statement(start, cond);
        let dispatch = self.current();
        let (lo, hi) = self.span;
        self.blocks[dispatch].decision = Some(Decision {
            kind: DecisionKind::Switch,
            line: lo,
            end_line: hi,
            order: self.decisions,
            expr_line: lo,
            expr_end_line: hi,
            start: position(cond.start_position()),
            end: position(cond.end_position()),
        });
        self.decisions += 1;
        let after = self.new_block();
        self.switches.push(SwitchCtx {
            dispatch,
            targets: Vec::new(),
            has_default: false,
            open_label: None,
        });
        self.breaks.push(after);
        self.cur = None;
        if let Some(body) = node.child_by_field_name("body") {
            self.statement(body);
        }
        self.breaks.pop();
        self.enter(after);
        let ctx = self.switches.pop().expect("pushed above");
        for (k, &target) in ctx.targets.iter().enumerate() {
            self.edge(ctx.dispatch, target, EdgeKind::Case(k));
        }
        if !ctx.has_default {
            self.edge(ctx.dispatch, after, EdgeKind::Case(ctx.targets.len()));
        }
        self.resume(after);
    }

    fn case_statement(&mut self, node: Node) {
        let value = node.child_by_field_name("value");
        let is_default = value.is_none();
        let pieces_added = self.pieces_added;
        let cur = self.cur;
        let Some(ctx) = self.switches.last_mut() else {
            // A case label outside any switch: keep its statements.
            self.piece_of(node);
            return self.case_children(node, value);
        };
        let shared = match ctx.open_label {
            Some((b, count)) if cur == Some(b) && count == pieces_added => Some(b),
            _ => None,
        };
        let target = match shared {
            Some(b) => b,
            None => {
                let t = self.new_block();
                self.enter(t);
                let ctx = self.switches.last_mut().expect("checked above");
                ctx.targets.push(t);
                t
            }
        };
        let l = line(node);
        let label_end = value.map(end_line).unwrap_or(l);
        self.add_piece(Piece {
            line: l,
            end_line: label_end,
            continuation: false,
            scope_open: false,
        });
        let pieces_added = self.pieces_added;
        let ctx = self.switches.last_mut().expect("checked above");
        ctx.has_default |= is_default;
        ctx.open_label = Some((target, pieces_added));
        self.case_children(node, value);
    }

    fn case_children(&mut self, node: Node, value: Option<Node>) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node
            .named_children(&mut cursor)
            .filter(|c| Some(*c) != value)
            .collect();
        for child in children {
            self.statement(child);
        }
    }
}
