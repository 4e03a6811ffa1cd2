//! Angelic values: what the unhealthy statements' instances must produce
//! for a failing test to pass, read from a diagnosis' model (its slots),
//! then checked by replaying the test in the interpreter with exactly those
//! values substituted. Only sets that make the test pass on replay are kept,
//! and each is shrunk by replay: an instance whose override is not needed
//! (the test still passes without it, e.g. because the model's value equals
//! the run's) is dropped, one at a time, so what is shown is a
//! subset-minimal set of changed instances.

use crate::bridge::ModelTest;
use faultlens_csem::encode::{apply_slots, Slot, SlotRole};
use faultlens_csem::{run, Program, RunResult};

/// Slots shrunk one at a time at most (each costs one replay).
const MAX_SHRINK: usize = 256;

pub enum Verdict {
    /// The test passes with these values (a subset of the model's).
    Verified(Vec<Slot>),
    /// The model's values do not make the test pass on replay.
    Rejected,
}

/// Whether the test passes with `slots` substituted, every one applied.
pub fn replay_passes(prog: &Program, test: &ModelTest, slots: &[Slot]) -> bool {
    let mut opts = test.run_options();
    apply_slots(&mut opts, slots);
    let r = run(prog, &test.input, &opts);
    r.unapplied_overrides.is_empty()
        && r.unapplied_output_overrides.is_empty()
        && r.unapplied_expr_overrides.is_empty()
        && passes(&r, test)
}

/// Whether a run ends as the test expects.
pub fn passes(r: &RunResult, test: &ModelTest) -> bool {
    test.expected.met_by(r)
}

/// How much of a test's expected stdout a run printed (nothing when the
/// stdout is not checked): how far the run got. Compared in this order:
/// the bytes before the first difference, then the bytes the rest has in
/// common with the expected rest, in order (their longest common
/// subsequence over the first [`LIKENESS_WINDOW`] bytes of each), so that
/// a right-aligned number that grows by a digit behind its padding counts
/// as progress too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Printed {
    pub prefix: usize,
    pub in_common: usize,
}

/// Bytes of each rest compared for [`Printed::in_common`] (the quadratic
/// comparison stays a few thousand steps per run).
const LIKENESS_WINDOW: usize = 256;

pub fn printed_as_expected(test: &ModelTest, stdout: &[u8]) -> Printed {
    let Some(want) = &test.expected.stdout else {
        return Printed::default();
    };
    let prefix = want.iter().zip(stdout).take_while(|(a, b)| a == b).count();
    let rest = |s: &[u8]| s[prefix..].iter().take(LIKENESS_WINDOW).copied().collect();
    let (want, got): (Vec<u8>, Vec<u8>) = (rest(want), rest(stdout));
    Printed {
        prefix,
        in_common: common_subsequence(&want, &got),
    }
}

/// The length of the longest common subsequence of `a` and `b`.
fn common_subsequence(a: &[u8], b: &[u8]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for &x in a {
        let mut diagonal = 0;
        for (j, &y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if x == y {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Replays the model's values; on success shrinks them.
pub fn verify(prog: &Program, test: &ModelTest, slots: Vec<Slot>) -> Verdict {
    if slots.is_empty() || !replay_passes(prog, test, &slots) {
        return Verdict::Rejected;
    }
    let mut kept = slots;
    if kept.len() <= MAX_SHRINK {
        let mut i = 0;
        while i < kept.len() {
            let mut without = kept.clone();
            without.remove(i);
            if !without.is_empty() && replay_passes(prog, test, &without) {
                kept = without;
            } else {
                i += 1;
            }
        }
    }
    Verdict::Verified(kept)
}

pub fn role_name(role: SlotRole) -> &'static str {
    match role {
        SlotRole::Value => "value",
        SlotRole::Condition => "condition",
        SlotRole::SwitchValue => "switch value",
        SlotRole::Return => "return",
        SlotRole::OutputArg => "argument",
        SlotRole::Subexpr => "sub-expression",
    }
}

/// The value as C would write it.
pub fn text(slot: &Slot) -> String {
    match slot.role {
        SlotRole::Condition => (if slot.bits != 0 { "true" } else { "false" }).into(),
        _ if slot.float.is_some() => {
            let k = slot
                .float
                .unwrap_or(faultlens_csem::types::FloatKind::Double);
            faultlens_csem::float::show(k.value(slot.bits))
        }
        _ if slot.signed => slot.value().to_string(),
        _ if slot.width >= 32 && slot.bits > i32::MAX as u64 => format!("{}u", slot.bits),
        _ => slot.bits.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faultlens_csem::types::FloatKind;

    #[test]
    fn the_common_subsequence_counts_bytes_in_order() {
        assert_eq!(common_subsequence(b"  4096", b"     4"), 3);
        assert_eq!(common_subsequence(b"  4096", b"    40"), 4);
        assert_eq!(common_subsequence(b"abc", b""), 0);
        assert_eq!(common_subsequence(b"abcbdab", b"bdcaba"), 4);
    }

    #[test]
    fn a_longer_prefix_outweighs_more_in_common() {
        let mut t = crate::test_programs::unit_test();
        t.expected.stdout = Some(b"    4096\n".to_vec());
        let padded_digit = printed_as_expected(&t, b"       4\n");
        let two_digits = printed_as_expected(&t, b"      40\n");
        assert_eq!(padded_digit.prefix, two_digits.prefix);
        assert!(two_digits > padded_digit);
        assert!(printed_as_expected(&t, b"    40\n") > two_digits);
        t.expected.stdout = None;
        assert_eq!(printed_as_expected(&t, b"x"), Printed::default());
    }

    fn slot(bits: u64, width: u32, signed: bool, float: Option<FloatKind>) -> Slot {
        Slot {
            stmt: 0,
            instance: 0,
            range: Default::default(),
            role: SlotRole::Value,
            bits,
            width,
            signed,
            float,
            arg: 0,
        }
    }

    #[test]
    fn values_read_as_c_writes_them() {
        assert_eq!(text(&slot(u64::from(u32::MAX), 32, true, None)), "-1");
        assert_eq!(text(&slot(3_000_000_000, 32, false, None)), "3000000000u");
        assert_eq!(
            text(&slot(2.5f64.to_bits(), 64, false, Some(FloatKind::Double))),
            "2.5"
        );
        assert_eq!(
            text(&slot(
                u64::from(0.1f32.to_bits()),
                32,
                false,
                Some(FloatKind::Float)
            )),
            "0.1"
        );
    }
}
