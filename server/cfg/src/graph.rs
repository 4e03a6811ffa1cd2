//! The control-flow graph of one C function.
//!
//! Blocks are basic blocks in the paper's sense: straight-line code that ends
//! in a decision, a jump, or falls into a block that other edges also enter.
//! Calls do not end a block; calls that never return (`exit`, `abort`, a
//! failed `assert`) do, and such a block has no outgoing edge (as in the
//! paper: "we do not construct edges to connect such statements to the
//! standalone exit block").
//!
//! Every function has a virtual entry block (index [`ENTRY`]) with one edge
//! into the first real block, counted once per call, and a virtual exit block
//! (index [`EXIT`]) that every `return` and the fall-off-the-end edge enter.

use serde::Serialize;

pub const ENTRY: usize = 0;
pub const EXIT: usize = 1;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionCfg {
    pub name: String,
    /// 1-based line of the function's declarator (gcov counts calls there).
    pub header_line: u32,
    /// 1-based lines of the whole definition.
    pub start_line: u32,
    pub end_line: u32,
    pub blocks: Vec<Block>,
    pub edges: Vec<Edge>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Block {
    /// What the block evaluates, in execution order.
    pub pieces: Vec<Piece>,
    /// How the block ends when it ends in a decision.
    pub decision: Option<Decision>,
    /// Outgoing edges, in the order the decision lists them (true before
    /// false; switch arms in gcov's order).
    pub succs: Vec<usize>,
    /// Incoming edges.
    pub preds: Vec<usize>,
    /// Last line of the block's last call, if it calls anything. Only a
    /// call can stop a run inside a block in a way gcov's counts show (gcc
    /// ends its own blocks after calls), so call-free blocks conserve flow
    /// exactly, and a line after the last call counts the block's exits.
    pub last_call_line: Option<u32>,
    /// Name of the function the block's last call calls (direct calls).
    pub last_callee: Option<String>,
}

/// One statement, label or condition evaluated in a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Piece {
    /// 1-based first line.
    pub line: u32,
    /// 1-based last line (multi-line statements).
    pub end_line: u32,
    /// The rest of a statement split by `&&`, `||` or `?:` (the assignment
    /// after `x = c ? a : b`). gcc may place that code on either of the
    /// statement's lines, so its line counts are not used as evidence.
    pub continuation: bool,
    /// The `{` of a scope that declares variables: no code of its own, but
    /// gcc may count the scope's entries on that line, so the line's count
    /// is not used as evidence. Not part of the block's line span.
    pub scope_open: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub kind: DecisionKind,
    /// Lines of the controlling expression (where gcov may put its branches).
    pub line: u32,
    pub end_line: u32,
    /// Position of this decision among the function's decisions, in source
    /// evaluation order (the order gcov lists branches in).
    pub order: usize,
    /// Lines of the decision's own operand (`b` in `a && b`).
    pub expr_line: u32,
    pub expr_end_line: u32,
    /// Where the tested expression starts and ends (exclusive): 1-based
    /// line and byte column, as clang's coverage regions give them. For a
    /// switch, its controlling expression.
    pub start: (u32, u32),
    pub end: (u32, u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DecisionKind {
    /// Two-way: `if`, loop conditions, each operand of `&&`/`||`, `?:`.
    Condition,
    /// Multi-way `switch` dispatch.
    Switch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum EdgeKind {
    /// Virtual entry into the first block: once per call.
    Entry,
    /// Straight-line continuation into a block that starts a new block.
    Fallthrough,
    /// `goto`, `break`, `continue`, a loop's back edge.
    Jump,
    True,
    False,
    /// Switch dispatch to its `n`-th distinct target (gcov's order).
    Case(usize),
    /// `return` or falling off the end of the function.
    Return,
}

impl FunctionCfg {
    /// First line of a block's code, if it has any.
    pub fn first_line(&self, block: usize) -> Option<u32> {
        self.code(block).next().map(|p| p.line)
    }

    /// A block's pieces that are code (not scope braces).
    pub fn code(&self, block: usize) -> impl Iterator<Item = &Piece> {
        self.blocks[block].pieces.iter().filter(|p| !p.scope_open)
    }

    /// Lowest and highest line of a block's code.
    pub fn line_span(&self, block: usize) -> Option<(u32, u32)> {
        let lo = self.code(block).map(|p| p.line).min()?;
        let hi = self.code(block).map(|p| p.end_line).max()?;
        Some((lo, hi))
    }

    /// A short human name of an edge: `line 12 true → line 13`.
    pub fn describe_edge(&self, edge: usize) -> String {
        let e = self.edges[edge];
        let place = |b: usize| match b {
            ENTRY => "entry".to_string(),
            EXIT => "exit".to_string(),
            _ => match self.line_span(b) {
                Some((lo, _)) => format!("line {lo}"),
                None => format!("block {b}"),
            },
        };
        let kind = match e.kind {
            EdgeKind::Entry => "call".to_string(),
            EdgeKind::Fallthrough => "next".to_string(),
            EdgeKind::Jump => "jump".to_string(),
            EdgeKind::True => "true".to_string(),
            EdgeKind::False => "false".to_string(),
            EdgeKind::Case(n) => format!("case #{n}"),
            EdgeKind::Return => "return".to_string(),
        };
        format!("{} {kind} → {}", place(e.from), place(e.to))
    }
}
