//! Off-by-one witnesses: a statement storing or returning an integer, whose
//! every instance one more (or one less) than the failing run computed makes
//! each failing test pass. An off-by-one value (a span that leaves out one
//! end, a count started at 0 instead of 1) is the commonest slip of all,
//! and its fix often changes the path at every instance (the bucket a value
//! falls in), which the SAT check meets one exploration at a time. The
//! values come from the test's own run; a value's change that sends the run
//! elsewhere is judged by the run all the same (the slots are what a replay
//! substitutes, verified as every angelic value is).

use crate::angelic;
use crate::bridge::ModelTest;
use faultlens_csem::encode::{Slot, SlotRole};
use faultlens_csem::ir::{ExprKind, InstrKind, Program, StmtId};
use faultlens_csem::{run, Outcome, Overrides, TraceEvent, TraceValue};
use faultlens_maxsat::Budget;
use std::collections::BTreeMap;

/// Instances shifted per test at most (a statement in a long loop is
/// rarely off by one at every instance, and each is a value to show).
const MAX_INSTANCES: usize = 64;

/// Per test (index into `tests`), the shifted instances of `stmt` under
/// which it passes, the same shift (+1, else -1) for every test; `None`
/// when neither shift mends them all, `stmt` stores or returns no integer,
/// or the budget ran out.
pub fn witness(
    prog: &Program,
    tests: &[&ModelTest],
    stmt: StmtId,
    budget: &Budget,
) -> Option<BTreeMap<usize, Vec<Slot>>> {
    let role = role_of(prog, stmt)?;
    let mut runs = Vec::new();
    for t in tests {
        budget.exhausted().is_none().then_some(())?;
        let r = run(prog, &t.input, &t.traced(Overrides::new()));
        let events: Vec<TraceEvent> = r.trace.into_iter().filter(|ev| ev.stmt == stmt).collect();
        if events.is_empty() || events.len() > MAX_INSTANCES {
            return None;
        }
        runs.push(events);
    }
    'shifts: for shift in [1i64, -1] {
        let mut out = BTreeMap::new();
        for (i, (t, events)) in tests.iter().zip(&runs).enumerate() {
            budget.exhausted().is_none().then_some(())?;
            let slots: Vec<Slot> = events
                .iter()
                .map(|ev| shifted(ev, shift, role))
                .collect::<Option<_>>()?;
            let mut overrides = Overrides::new();
            for s in &slots {
                overrides.insert(s.stmt, s.instance, s.bits);
            }
            let r = run(prog, &t.input, &t.traced(overrides));
            if matches!(r.outcome, Outcome::RuntimeError { .. }) || !angelic::passes(&r, t) {
                continue 'shifts;
            }
            out.insert(i, slots);
        }
        return Some(out);
    }
    None
}

/// What `stmt`'s value is (a stored value or a returned one), and what
/// its traced value lacks of it: a postfix `x++` traces the old value and
/// stores one more. `None` for a condition or anything else.
pub(crate) fn role_of(prog: &Program, stmt: StmtId) -> Option<(SlotRole, i64)> {
    let ins = prog
        .funcs
        .iter()
        .flat_map(|f| &f.body)
        .find(|i| i.stmt == stmt)?;
    match &ins.kind {
        InstrKind::Return(Some(_)) => Some((SlotRole::Return, 0)),
        InstrKind::Expr(e) => match e.kind {
            ExprKind::IncDec {
                prefix: false, inc, ..
            } => Some((SlotRole::Value, if inc { 1 } else { -1 })),
            _ => Some((SlotRole::Value, 0)),
        },
        InstrKind::Init(_, Some(_)) => Some((SlotRole::Value, 0)),
        _ => None,
    }
}

/// The instance's value shifted, as the slot that replays it; `None` for
/// a value that is no integer.
pub(crate) fn shifted(
    ev: &TraceEvent,
    shift: i64,
    (role, traced_lacks): (SlotRole, i64),
) -> Option<Slot> {
    let Some(TraceValue::Int { kind, bits }) = ev.value else {
        return None;
    };
    let width = kind.bits();
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    Some(Slot {
        stmt: ev.stmt,
        instance: ev.instance,
        range: ev.range,
        role,
        bits: bits.wrapping_add((traced_lacks + shift) as u64) & mask,
        width,
        signed: kind.signed(),
        float: None,
        arg: 0,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_programs::{on_lines, program, unit_test};

    /// Buckets over [min, max] whose span leaves out one end: the largest
    /// value falls outside the last bucket (the index it gets changes with
    /// the span, at every value added).
    pub(crate) const SPAN: &str = r#"#include <stdlib.h>
static int bucket(int value, int min, int max, int n)
{
    int span = max - min;
    return (value - min) * n / span;
}
int main(void)
{
    int counts[4] = {0};
    for (int v = 0; v <= 7; v++) {
        int b = bucket(v, 0, 7, 4);
        if (b >= 4)
            exit(1);
        counts[b]++;
    }
    return counts[3] == 2 ? 0 : 1;
}
"#;

    #[test]
    fn a_span_one_short_is_one_more_at_every_instance() {
        let (_dir, prog) = program(SPAN);
        let span = on_lines(&prog, &[4], |_| true)[0];
        let t = unit_test();
        let found = witness(&prog, &[&t], span, &Budget::unlimited()).expect("span + 1 mends it");
        let values: Vec<i64> = found[&0].iter().map(|s| s.value()).collect();
        assert_eq!(values, vec![8; 8]);
        assert!(found[&0].iter().all(|s| s.role == SlotRole::Value));
        assert!(angelic::replay_passes(&prog, &t, &found[&0]));
    }

    #[test]
    fn a_value_no_shift_mends_has_no_witness() {
        let (_dir, prog) = program(SPAN);
        let first_value = on_lines(&prog, &[10], |k| matches!(k, InstrKind::Init(..)))[0];
        let t = unit_test();
        assert!(witness(&prog, &[&t], first_value, &Budget::unlimited()).is_none());
    }

    #[test]
    fn a_postfix_increment_is_shifted_from_the_value_it_stores() {
        // `counted++` traces the old value; one less than it stores undoes
        // the extra count, one less than it traced would undo two.
        let (_dir, prog) = program(
            "int main(void)\n{\n    int counted = 0;\n    for (int i = 0; i < 3; i++)\n        counted++;\n    counted++;\n    return counted == 3 ? 0 : 1;\n}\n",
        );
        let extra = on_lines(&prog, &[6], |_| true)[0];
        assert_eq!(role_of(&prog, extra), Some((SlotRole::Value, 1)));
        let t = unit_test();
        let found = witness(&prog, &[&t], extra, &Budget::unlimited()).expect("one less mends it");
        assert_eq!(found[&0].len(), 1);
        assert_eq!(found[&0][0].value(), 3);
        assert!(angelic::replay_passes(&prog, &t, &found[&0]));
    }

    #[test]
    fn conditions_and_declarations_without_a_value_have_no_role() {
        let (_dir, prog) = program(SPAN);
        let guard = on_lines(&prog, &[12], |k| matches!(k, InstrKind::Branch { .. }))[0];
        assert_eq!(role_of(&prog, guard), None);
        let span = on_lines(&prog, &[4], |_| true)[0];
        assert_eq!(role_of(&prog, span), Some((SlotRole::Value, 0)));
    }
}
