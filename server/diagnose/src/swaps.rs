//! Variable swaps: a concrete witness that a statement reading the wrong
//! variable explains the failing tests, found by running them.
//!
//! Reading one variable for another of the same type (`text[count]` for
//! `text[i]`) is among the commonest slips, and the values its fix
//! changes follow no rule of the run's own values: it is neither a
//! condition flipped where its operands say ([`crate::consistent`]) nor a
//! value one off ([`crate::deltas`]), and it changes the path wherever the
//! value feeds a condition, which the SAT check meets one exploration at a
//! time. Here each read of a local in the statement's value is made to
//! read each other local of its type in turn; a swap under which every
//! failing test passes is a witness. Its values are the statement's
//! values in the swapped runs, at the instances where they differ from the
//! failing run's (every instance, where the paths part so that those alone
//! do not replay), verified as every angelic value is.

use crate::angelic;
use crate::bridge::ModelTest;
use crate::deltas;
use faultlens_csem::encode::{Slot, SlotRole};
use faultlens_csem::ir::{Expr, ExprKind, Function, LocalId, Program, StmtId};
use faultlens_csem::{run, subexpr, Outcome, Overrides, Swap, TraceEvent};
use faultlens_maxsat::Budget;
use std::collections::BTreeMap;

/// Swaps tried per statement at most (reads times other locals).
const MAX_SWAPS: usize = 24;
/// Instances of the statement a test's run may have (each is a value to
/// show).
const MAX_INSTANCES: usize = 64;

/// Per test (index into `tests`), the instances of `stmt` a swap changed,
/// one swap under which every test passes; `None` when no swap mends them
/// all, `stmt` stores or returns no integer computed from a local, or the
/// budget ran out.
pub fn witness(
    prog: &Program,
    tests: &[&ModelTest],
    stmt: StmtId,
    budget: &Budget,
) -> Option<BTreeMap<usize, Vec<Slot>>> {
    let role = deltas::role_of(prog, stmt)?;
    let swaps = swaps_of(prog, stmt);
    if swaps.is_empty() || tests.is_empty() {
        return None;
    }
    let mut own = Vec::new();
    for t in tests {
        budget.exhausted().is_none().then_some(())?;
        own.push(events_of(prog, t, stmt, None, Overrides::new()).1);
    }
    'swaps: for swap in swaps {
        let mut out = BTreeMap::new();
        for (i, t) in tests.iter().enumerate() {
            budget.exhausted().is_none().then_some(())?;
            let (passes, events) = events_of(prog, t, stmt, Some(swap), Overrides::new());
            if !passes || events.len() > MAX_INSTANCES {
                continue 'swaps;
            }
            match replayed(prog, t, stmt, role, &own[i], &events) {
                Some(slots) => out.insert(i, slots),
                None => continue 'swaps,
            };
        }
        return Some(out);
    }
    None
}

/// The swaps of `stmt`'s value: each integer read of a local, each other
/// local of its type in the same function, up to [`MAX_SWAPS`] taken in
/// turn from each read (a function with many locals of one type leaves
/// the later reads their tries).
fn swaps_of(prog: &Program, stmt: StmtId) -> Vec<Swap> {
    let Some((func, root)) = prog.funcs.iter().find_map(|f| {
        f.body
            .iter()
            .find(|i| i.stmt == stmt)
            .and_then(|i| subexpr::value_root(&i.kind))
            .map(|root| (f, root))
    }) else {
        return Vec::new();
    };
    let mut reads = Vec::new();
    local_reads(root, &mut reads);
    let per_read: Vec<Vec<Swap>> = reads
        .into_iter()
        .map(|(read, var)| {
            others_of_type(func, var)
                .map(|local| Swap { read, local })
                .collect()
        })
        .collect();
    let longest = per_read.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|k| {
            per_read
                .iter()
                .filter_map(move |swaps| swaps.get(k).copied())
        })
        .take(MAX_SWAPS)
        .collect()
}

fn others_of_type(func: &Function, var: LocalId) -> impl Iterator<Item = LocalId> + '_ {
    let ty = &func.locals[var].ty;
    (0..func.locals.len()).filter(move |&l| l != var && func.locals[l].ty == *ty)
}

/// The reads of integer locals in `e` (their node keys), in pre-order.
fn local_reads(e: &Expr, out: &mut Vec<(usize, LocalId)>) {
    if let ExprKind::Load(var) = &e.kind {
        if let (ExprKind::Local(l), Some(_)) = (&var.kind, e.ty.as_int()) {
            out.push((subexpr::node_key(e), *l));
        }
    }
    for c in e.children() {
        local_reads(c, out);
    }
}

/// Whether the test passes, and `stmt`'s traced instances, in a run with
/// `swap` and `overrides`.
fn events_of(
    prog: &Program,
    t: &ModelTest,
    stmt: StmtId,
    swap: Option<Swap>,
    overrides: Overrides,
) -> (bool, Vec<TraceEvent>) {
    let mut opts = t.traced(overrides);
    opts.swap = swap;
    let r = run(prog, &t.input, &opts);
    let passes = !matches!(r.outcome, Outcome::RuntimeError { .. }) && angelic::passes(&r, t);
    let events = r.trace.into_iter().filter(|ev| ev.stmt == stmt).collect();
    (passes, events)
}

/// The swapped run's values as slots that replay it without the swap: the
/// instances whose value differs from the failing run's, else every
/// instance; `None` when neither replays it.
fn replayed(
    prog: &Program,
    t: &ModelTest,
    stmt: StmtId,
    role: (SlotRole, i64),
    own: &[TraceEvent],
    swapped: &[TraceEvent],
) -> Option<Vec<Slot>> {
    let as_slots = |events: Vec<&TraceEvent>| -> Option<Vec<Slot>> {
        events
            .into_iter()
            .map(|ev| deltas::shifted(ev, 0, role))
            .collect()
    };
    let differing: Vec<&TraceEvent> = swapped
        .iter()
        .enumerate()
        .filter(|(k, ev)| own.get(*k).is_none_or(|o| o.value != ev.value))
        .map(|(_, ev)| ev)
        .collect();
    let candidates = [as_slots(differing)?, as_slots(swapped.iter().collect())?];
    candidates.into_iter().find(|slots| {
        let mut overrides = Overrides::new();
        for s in slots {
            overrides.insert(s.stmt, s.instance, s.bits);
        }
        !slots.is_empty() && events_of(prog, t, stmt, None, overrides).0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_programs::{on_lines, printing, program};

    /// Reads the digits after a two-letter prefix; the fault: the digit is
    /// read at `count`, the digits counted so far, not at `i`.
    const PREFIXED: &str = r#"#include <stdio.h>
int main(int argc, char **argv) {
    const char *text = argv[1];
    int count = 0, value = 0;
    for (int i = 2; text[i] != '\0'; i++) {
        value = value * 10 + (text[count] - '0');
        count++;
    }
    printf("%d\n", value);
    return 0;
}
"#;

    fn expr_on(prog: &Program, line: u32) -> StmtId {
        on_lines(prog, &[line], |k| {
            matches!(k, faultlens_csem::ir::InstrKind::Expr(_))
        })[0]
    }

    #[test]
    fn the_wrong_variable_read_is_swapped_for_the_right_one() {
        let (_dir, prog) = program(PREFIXED);
        let tests = [printing("ab123", "123\n"), printing("xy70", "70\n")];
        let refs: Vec<&ModelTest> = tests.iter().collect();
        let sum = expr_on(&prog, 6);
        let found = witness(&prog, &refs, sum, &Budget::unlimited())
            .expect("reading text[i] mends both tests");
        // Every digit's sum differs from the failing run's.
        let values = |i: usize| found[&i].iter().map(|s| s.bits).collect::<Vec<_>>();
        assert_eq!(values(0), [1, 12, 123]);
        assert_eq!(values(1), [7, 70]);
        for (i, t) in refs.iter().enumerate() {
            assert!(angelic::replay_passes(&prog, t, &found[&i]), "{}", t.name);
        }
    }

    #[test]
    fn a_statement_no_swap_mends_has_no_witness() {
        let (_dir, prog) = program(PREFIXED);
        let tests = [printing("ab123", "123\n")];
        let refs: Vec<&ModelTest> = tests.iter().collect();
        // The sum has swaps, but none prints 999.
        let unreachable = [printing("ab123", "999\n")];
        let unreachable: Vec<&ModelTest> = unreachable.iter().collect();
        let sum = expr_on(&prog, 6);
        assert!(!swaps_of(&prog, sum).is_empty());
        assert!(witness(&prog, &unreachable, sum, &Budget::unlimited()).is_none());
        // `count++` reads no local in a value it stores from another.
        let count = expr_on(&prog, 7);
        assert!(witness(&prog, &refs, count, &Budget::unlimited()).is_none());
        // The prefix's length is no variable to swap.
        let prefix = on_lines(&prog, &[5], |k| {
            matches!(k, faultlens_csem::ir::InstrKind::Init(..))
        });
        assert!(prefix
            .iter()
            .all(|&s| witness(&prog, &refs, s, &Budget::unlimited()).is_none()));
    }
}
