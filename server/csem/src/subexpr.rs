//! The sub-expressions of a statement that a diagnosis can be refined to:
//! the integer values computed inside the value the statement produces (an
//! assignment's right-hand side, a branch's condition, a switch's
//! controlling value, a returned value, a scalar's initial value), numbered
//! in pre-order. The statement's value itself is not one of them (that is
//! the statement), nor is a node with its parent's source range (an
//! implicit conversion or load stands for the operand it wraps).
//!
//! Relaxing one of them (`g → node = F(operands)`, fresh otherwise) in the
//! encoding, and substituting a value for it in the interpreter
//! ([`crate::interp::RunOptions::expr_overrides`]), asks and checks whether
//! changing that sub-expression alone suffices.

use crate::ir::{Expr, ExprKind, InstrKind, Program, SrcRange, StmtId, UnOp};
use std::collections::{BTreeSet, HashMap};

/// One candidate sub-expression of a statement.
#[derive(Clone, Debug)]
pub struct SubExpr<'p> {
    pub stmt: StmtId,
    /// Pre-order number among the statement's candidates.
    pub index: u32,
    /// The nearest enclosing candidate, if any.
    pub parent: Option<u32>,
    pub expr: &'p Expr,
}

impl SubExpr<'_> {
    pub fn range(&self) -> SrcRange {
        self.expr.range
    }
}

/// The candidates of `stmt`, in pre-order (a parent before its children).
pub fn of_statement(prog: &Program, stmt: StmtId) -> Vec<SubExpr<'_>> {
    let mut out = Vec::new();
    for ins in prog.funcs.iter().flat_map(|f| &f.body) {
        if ins.stmt != stmt {
            continue;
        }
        if let Some(root) = value_root(&ins.kind) {
            for c in root.children() {
                collect(stmt, c, root.range, None, &mut out);
            }
        }
    }
    out
}

/// The candidates of `stmt` below candidate `n` (its operands, theirs, and
/// so on).
pub fn descendants(prog: &Program, stmt: StmtId, n: u32) -> BTreeSet<u32> {
    let all = of_statement(prog, stmt);
    let parent: HashMap<u32, u32> = all
        .iter()
        .filter_map(|s| Some((s.index, s.parent?)))
        .collect();
    let below = |mut i: u32| {
        while let Some(&p) = parent.get(&i) {
            if p == n {
                return true;
            }
            i = p;
        }
        false
    };
    all.iter().map(|s| s.index).filter(|&i| below(i)).collect()
}

/// Node identity (its address in `prog`) → `(statement, index)`, for the
/// candidates of `stmts`: how the interpreter and the encoder, walking the
/// same `Program`, recognise a candidate as they evaluate it.
pub fn index_of(
    prog: &Program,
    stmts: impl IntoIterator<Item = StmtId>,
) -> HashMap<usize, (StmtId, u32)> {
    let mut map = HashMap::new();
    for stmt in stmts {
        for s in of_statement(prog, stmt) {
            map.insert(node_key(s.expr), (stmt, s.index));
        }
    }
    map
}

/// The candidates a condition compares: the operands of each comparison
/// in it (through `&&`, `||` and `!`) and each other operand of those
/// connectives, but not what computed them (an array's index, a sum's
/// terms). A wrong comparison is wrong for some compared values, wherever
/// they were fetched from; keyed by these alone, one change of its value
/// stands for every instance that compares the same values.
pub fn compared_operands(prog: &Program, stmt: StmtId) -> BTreeSet<u32> {
    let (index, roots) = indexed_roots(prog, stmt);
    let mut out = BTreeSet::new();
    for root in roots {
        connective_operands(root, &index, &mut out);
    }
    out
}

/// Node identity → candidate index for `stmt`'s candidates, and the
/// roots of its instructions' values.
fn indexed_roots(prog: &Program, stmt: StmtId) -> (HashMap<usize, u32>, Vec<&Expr>) {
    let index = of_statement(prog, stmt)
        .iter()
        .map(|s| (node_key(s.expr), s.index))
        .collect();
    let roots = prog
        .funcs
        .iter()
        .flat_map(|f| &f.body)
        .filter(|ins| ins.stmt == stmt)
        .filter_map(|ins| value_root(&ins.kind))
        .collect();
    (index, roots)
}

/// The comparisons a condition joins with `&&`, `||` or `!` (candidates, in
/// pre-order), when it joins any: each can be wrong for its own operands
/// where the condition's value also depends on an operand it
/// short-circuits (`j <= 0 && before(key, a[j])`: where `j <= 0` is false
/// the call never runs, and the right value needs it).
pub fn joined_comparisons(prog: &Program, stmt: StmtId) -> Vec<u32> {
    let (index, roots) = indexed_roots(prog, stmt);
    let mut out = Vec::new();
    for root in roots.into_iter().filter(|r| is_joining(r)) {
        joined(root, &index, &mut out);
    }
    out
}

fn is_joining(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::LogAnd(..) | ExprKind::LogOr(..) | ExprKind::Unary(UnOp::LogNot, _) => true,
        ExprKind::Cast(a) => is_joining(a),
        _ => false,
    }
}

fn joined(e: &Expr, index: &HashMap<usize, u32>, out: &mut Vec<u32>) {
    match &e.kind {
        ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
            joined(a, index, out);
            joined(b, index, out);
        }
        ExprKind::Unary(UnOp::LogNot, a) | ExprKind::Cast(a) => joined(a, index, out),
        ExprKind::Binary(op, ..) | ExprKind::PtrCmp(op, ..) if op.is_comparison() => {
            out.extend(index.get(&node_key(e)));
        }
        _ => {}
    }
}

fn connective_operands(e: &Expr, index: &HashMap<usize, u32>, out: &mut BTreeSet<u32>) {
    match &e.kind {
        ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
            connective_operands(a, index, out);
            connective_operands(b, index, out);
        }
        ExprKind::Unary(UnOp::LogNot, a) => connective_operands(a, index, out),
        // A `bool` function's `return a < b;` converts the comparison.
        ExprKind::Cast(a) if is_connective(a) => connective_operands(a, index, out),
        ExprKind::Binary(op, a, b) | ExprKind::PtrCmp(op, a, b) if op.is_comparison() => {
            out.extend(nearest_candidate(a, index));
            out.extend(nearest_candidate(b, index));
        }
        _ => out.extend(nearest_candidate(e, index)),
    }
}

fn is_connective(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::LogAnd(..) | ExprKind::LogOr(..) | ExprKind::Unary(UnOp::LogNot, _) => true,
        ExprKind::Binary(op, ..) | ExprKind::PtrCmp(op, ..) => op.is_comparison(),
        _ => false,
    }
}

/// The candidate at `e` or below it through the wrappers that stand for
/// their operand (a load, a conversion).
fn nearest_candidate(mut e: &Expr, index: &HashMap<usize, u32>) -> Option<u32> {
    loop {
        if let Some(&n) = index.get(&node_key(e)) {
            return Some(n);
        }
        match &e.kind {
            ExprKind::Load(a) | ExprKind::Cast(a) => e = a,
            _ => return None,
        }
    }
}

/// The key [`index_of`] uses for a node.
pub fn node_key(e: &Expr) -> usize {
    e as *const Expr as usize
}

/// The expression whose value the statement produces (what the encoding
/// relaxes for the statement as a whole).
pub fn value_root(kind: &InstrKind) -> Option<&Expr> {
    match kind {
        InstrKind::Expr(e) => match &e.kind {
            ExprKind::Assign(_, rhs) | ExprKind::CompoundAssign { rhs, .. } => Some(rhs),
            _ => None,
        },
        InstrKind::Branch { cond, .. } => Some(cond),
        InstrKind::Switch { value, .. } => Some(value),
        InstrKind::Return(e) => e.as_ref(),
        // A scalar's initial value (an aggregate's is not the statement's value).
        InstrKind::Init(_, Some(init))
            if !init.zero && init.items.len() == 1 && init.bytes.is_none() =>
        {
            Some(&init.items[0].value)
        }
        _ => None,
    }
}

fn collect<'p>(
    stmt: StmtId,
    e: &'p Expr,
    parent_range: SrcRange,
    parent: Option<u32>,
    out: &mut Vec<SubExpr<'p>>,
) {
    // An assignment inside the value stores as a side effect; a call's value
    // comes from statements of its own. Neither is refined into.
    if matches!(
        e.kind,
        ExprKind::Assign(..)
            | ExprKind::CompoundAssign { .. }
            | ExprKind::IncDec { .. }
            | ExprKind::Call(..)
            | ExprKind::CallPtr(..)
    ) {
        return;
    }
    let candidate = !e.is_lvalue() && e.ty.as_int().is_some() && e.range != parent_range;
    let here = if candidate {
        let index = out.len() as u32;
        out.push(SubExpr {
            stmt,
            index,
            parent,
            expr: e,
        });
        Some(index)
    } else {
        parent
    };
    for c in e.children() {
        collect(stmt, c, e.range, here, out);
    }
}
