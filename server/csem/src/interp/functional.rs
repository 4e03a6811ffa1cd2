//! A statement's value as a function of what it reads: the interpreter
//! records, per instance of one statement, the values of its candidate
//! sub-expressions ([`crate::subexpr`]: the operands it computes from) and
//! the value it produced, and can replace that value by a table lookup on
//! those operands.
//!
//! A wrong condition or predicate is usually wrong for some operand values
//! and right for others; changing it alone means changing its value at
//! every instance that reads such values, and at no other. Replacing the
//! value through a table keyed by the operands keeps that consistency,
//! whatever paths the changed values send the run down (instance numbers
//! shift when the path changes; operand values do not).

use crate::ir::{SrcRange, StmtId};
use std::collections::BTreeMap;

/// Which statement to observe, and its replacement table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Functional {
    pub stmt: StmtId,
    /// Operand key ([`Observation::key`]) → the value to produce instead.
    pub table: BTreeMap<Vec<u64>, u64>,
    /// The candidate sub-expressions (their [`crate::subexpr`] indices)
    /// whose values make up the key; `None`: all of them. A coarser key
    /// (the compared values of a condition, not the index that fetched
    /// them) makes one entry stand for every instance that compares the
    /// same values.
    pub operands: Option<std::collections::BTreeSet<u32>>,
    /// The candidate sub-expression whose value the table replaces (its
    /// [`crate::subexpr`] index); `None`: the statement's own value. A
    /// comparison inside `a && b` can be wrong for its own operands where
    /// the statement's value also depends on an operand it short-circuits.
    pub target: Option<u32>,
}

/// One instance of the observed statement (a branch, or a `return` of an
/// integer: the values a key can replace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    pub instance: u32,
    pub range: SrcRange,
    /// Whether it is a branch (its value the direction, 1 or 0).
    pub branch: bool,
    /// `(candidate, bits)` for each candidate sub-expression evaluated, in
    /// evaluation order, flattened.
    pub key: Vec<u64>,
    /// The value computed from the operands.
    pub computed: u64,
    /// The value produced: the table's when it had the key.
    pub produced: u64,
    /// The width and signedness of the value's type (a branch: 1, unsigned).
    pub width: u32,
    pub signed: bool,
}
