//! Consistent flips: a concrete witness that one condition or predicate
//! alone explains the failing tests, found by running them rather than by
//! exploring paths.
//!
//! A wrong condition is typically wrong for some values of its operands:
//! `c == ' ' || c == '\n'` is wrong where `c` is a tab, and right
//! elsewhere. Changing it means flipping it at every instance that reads
//! such operands, and each flip can send the run down a new path; the
//! path exploration of the SAT check meets one new path per flip, in an
//! order the solver chooses, and on a test with many such instances it
//! runs out of rounds. Here the statement's value is replaced through a
//! table keyed by its operand values ([`faultlens_csem::Functional`]):
//! the operand combinations a failing run met are flipped until the test
//! passes (see [`mends_of`]), and the flips found per test are combined
//! into one table. A table under which every test passes is a witness: the
//! instances it changed are the values, and they are the same function of
//! the operands in every test, as a fix would make them.

use crate::angelic;
use crate::bridge::ModelTest;
use faultlens_csem::encode::{Slot, SlotRole};
use faultlens_csem::ir::{Program, StmtId};
use faultlens_csem::{run, Functional, Observation};
use faultlens_maxsat::Budget;
use std::collections::{BTreeMap, BTreeSet};

/// Operand combinations of one test flipped at most (pairs: among the
/// first [`MAX_PAIRED`]).
const MAX_KEYS: usize = 64;
const MAX_PAIRED: usize = 12;

/// Per test (index into `tests`), the changed instances of a table under
/// which every test passes; `None` when none was found (or the budget ran
/// out, or there is no test), or `stmt` is no
/// condition or predicate (a value other than 0 or 1), or its value is not
/// a function of its operands.
///
/// Each test may need other operands flipped (a number with 3 digits, one
/// with 6): per test, the flips that make it pass alone are found
/// ([`mends_of`]); a table then takes, greedily, the flips that serve the
/// most tests, and it must make every test pass at once.
pub fn witness(
    prog: &Program,
    tests: &[&ModelTest],
    stmt: StmtId,
    budget: &Budget,
) -> Option<BTreeMap<usize, Vec<Slot>>> {
    if tests.is_empty() || budget.exhausted().is_some() {
        return None;
    }
    let (values, per_test) = flippable(prog, tests, stmt, budget)?;
    let mut mends: Vec<Vec<Table>> = Vec::new();
    for (t, keys) in tests.iter().zip(&per_test) {
        let keys: Vec<&Vec<u64>> = keys.iter().take(MAX_KEYS).collect();
        let test = Flipping {
            prog,
            test: t,
            stmt,
            values: &values,
        };
        let found = mends_of(&test, &keys, budget)?;
        mends.push(found);
    }
    all_pass(prog, tests, stmt, &cover(&mends))
}

/// One test run with some of the operand combinations it met flipped.
struct Flipping<'a> {
    prog: &'a Program,
    test: &'a ModelTest,
    stmt: StmtId,
    values: &'a Table,
}

impl Flipping<'_> {
    fn table(&self, keys: &[&Vec<u64>]) -> Table {
        keys.iter()
            .map(|&k| (k.clone(), 1 - self.values[k]))
            .collect()
    }

    /// Whether the test passes, and how many bytes of its expected stdout
    /// the run printed before it first differs.
    fn run(&self, keys: &[&Vec<u64>]) -> (bool, usize) {
        let r = observe(self.prog, self.test, self.stmt, &self.table(keys));
        (r.passes, r.printed)
    }
}

/// The flips that make one test pass on its own: every single combination
/// that does; else one set grown greedily, a flip kept when the run prints
/// more of the expected output (each number on its own line needs its own
/// flip); else the first pair that does. `None` when nothing does, or the
/// budget ran out.
fn mends_of(test: &Flipping, keys: &[&Vec<u64>], budget: &Budget) -> Option<Vec<Table>> {
    let mut found = Vec::new();
    for &k in keys {
        budget.exhausted().is_none().then_some(())?;
        if test.run(&[k]).0 {
            found.push(test.table(&[k]));
        }
    }
    if !found.is_empty() {
        return Some(found);
    }
    let mut kept: Vec<&Vec<u64>> = Vec::new();
    let mut best = test.run(&[]).1;
    for &k in keys {
        budget.exhausted().is_none().then_some(())?;
        kept.push(k);
        let (passes, printed) = test.run(&kept);
        if passes {
            return Some(vec![test.table(&kept)]);
        }
        if printed > best {
            best = printed;
        } else {
            kept.pop();
        }
    }
    let paired = keys.len().min(MAX_PAIRED);
    for a in 0..paired {
        for b in (a + 1)..paired {
            budget.exhausted().is_none().then_some(())?;
            if test.run(&[keys[a], keys[b]]).0 {
                return Some(vec![test.table(&[keys[a], keys[b]])]);
            }
        }
    }
    None
}

/// A table mending every test: repeatedly the mend serving the most tests
/// not yet served (a mend serves a test when it is one of its mends).
fn cover(mends: &[Vec<Table>]) -> Table {
    let mut table = Table::new();
    let mut served = vec![false; mends.len()];
    while let Some(next) = served.iter().position(|s| !s) {
        let serves = |m: &Table| {
            mends
                .iter()
                .zip(&served)
                .filter(|(ms, done)| !**done && ms.contains(m))
                .count()
        };
        // The first of the best (max_by_key keeps the last).
        let best = mends[next]
            .iter()
            .rev()
            .max_by_key(|m| serves(m))
            .expect("every test has a mend");
        for (ms, done) in mends.iter().zip(served.iter_mut()) {
            if ms.contains(best) {
                *done = true;
            }
        }
        table.extend(best.iter().map(|(k, v)| (k.clone(), *v)));
    }
    table
}

type Table = BTreeMap<Vec<u64>, u64>;

/// The operand keys the failing runs met, with the value computed there
/// (each 0 or 1, one value per key), and each test's keys in the order it
/// met them.
#[allow(clippy::type_complexity)]
fn flippable(
    prog: &Program,
    tests: &[&ModelTest],
    stmt: StmtId,
    budget: &Budget,
) -> Option<(Table, Vec<Vec<Vec<u64>>>)> {
    let mut values = Table::new();
    let mut per_test = Vec::new();
    for t in tests {
        budget.exhausted().is_none().then_some(())?;
        let mut keys: Vec<Vec<u64>> = Vec::new();
        let mut met = BTreeSet::new();
        for o in observe(prog, t, stmt, &Table::new()).observed {
            if o.computed > 1 {
                return None;
            }
            if *values.entry(o.key.clone()).or_insert(o.computed) != o.computed {
                return None;
            }
            if met.insert(o.key.clone()) {
                keys.push(o.key);
            }
        }
        if keys.is_empty() {
            return None;
        }
        per_test.push(keys);
    }
    Some((values, per_test))
}

/// Every test run with `table`; their changed instances if all pass.
fn all_pass(
    prog: &Program,
    tests: &[&ModelTest],
    stmt: StmtId,
    table: &Table,
) -> Option<BTreeMap<usize, Vec<Slot>>> {
    let mut out = BTreeMap::new();
    for (i, t) in tests.iter().enumerate() {
        let r = observe(prog, t, stmt, table);
        if !r.passes {
            return None;
        }
        let slots = r
            .observed
            .iter()
            .filter(|o| o.produced != o.computed)
            .map(|o| slot(stmt, o))
            .collect();
        out.insert(i, slots);
    }
    Some(out)
}

/// A test's run under a table.
struct Observed {
    passes: bool,
    observed: Vec<Observation>,
    /// Bytes of the expected stdout printed before the first difference.
    printed: usize,
}

fn observe(prog: &Program, t: &ModelTest, stmt: StmtId, table: &Table) -> Observed {
    let mut opts = t.run_options();
    opts.functional = Some(Functional {
        stmt,
        table: table.clone(),
    });
    let r = run(prog, &t.input, &opts);
    Observed {
        passes: angelic::passes(&r, t),
        printed: angelic::printed_as_expected(t, &r.stdout),
        observed: r.observed,
    }
}

/// The changed instance as the override that replays it.
fn slot(stmt: StmtId, o: &Observation) -> Slot {
    Slot {
        stmt,
        instance: o.instance,
        range: o.range,
        role: if o.branch {
            SlotRole::Condition
        } else {
            SlotRole::Return
        },
        bits: o.produced,
        width: o.width,
        signed: o.signed,
        float: None,
        arg: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::declared_tests;
    use faultlens_workspace::Project;
    use std::path::Path;

    /// wordstat-stdin's program and its failing tests (those the
    /// interpreter's run fails).
    fn wordstat() -> (Program, Vec<ModelTest>) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/wordstat-stdin");
        let project = Project::load(&dir).unwrap();
        let prog = faultlens_csem::load(&crate::source_spec(&project).unwrap()).unwrap();
        let failing = declared_tests(&project)
            .unwrap()
            .into_iter()
            .filter_map(|(_, t)| t.ok())
            .filter(|t| !angelic::replay_passes(&prog, t, &[]))
            .collect();
        (prog, failing)
    }

    fn return_on(prog: &Program, line: u32) -> StmtId {
        prog.funcs
            .iter()
            .flat_map(|f| &f.body)
            .find(|i| {
                i.range.start.line == line
                    && matches!(i.kind, faultlens_csem::ir::InstrKind::Return(Some(_)))
            })
            .unwrap()
            .stmt
    }

    #[test]
    fn the_separator_is_flipped_at_exactly_the_tabs_of_every_failing_test() {
        let (prog, failing) = wordstat();
        assert_eq!(failing.len(), 3);
        let tests: Vec<&ModelTest> = failing.iter().collect();
        let separator = return_on(&prog, 18);
        let found = witness(&prog, &tests, separator, &Budget::unlimited())
            .expect("flipping the tab mends every test");
        for (i, t) in tests.iter().enumerate() {
            let tabs: Vec<u32> = (0..t.input.stdin.len() as u32)
                .filter(|&k| t.input.stdin[k as usize] == b'\t')
                .collect();
            let flipped: Vec<u32> = found[&i].iter().map(|s| s.instance).collect();
            assert_eq!(flipped, tabs, "{}", t.name);
            assert!(found[&i]
                .iter()
                .all(|s| s.bits == 1 && s.role == SlotRole::Return));
            assert!(angelic::replay_passes(&prog, t, &found[&i]), "{}", t.name);
        }
    }

    #[test]
    fn a_statement_no_flip_can_mend_has_no_witness() {
        let (prog, failing) = wordstat();
        let tests: Vec<&ModelTest> = failing.iter().collect();
        // `if (len > st->longest_len)` decides only the longest word.
        let longest = prog
            .funcs
            .iter()
            .flat_map(|f| &f.body)
            .find(|i| {
                i.range.start.line == 25
                    && matches!(i.kind, faultlens_csem::ir::InstrKind::Branch { .. })
            })
            .unwrap()
            .stmt;
        assert!(witness(&prog, &tests, longest, &Budget::unlimited()).is_none());
        assert!(witness(&prog, &[], longest, &Budget::unlimited()).is_none());
    }

    fn table(keys: &[u64]) -> Table {
        keys.iter().map(|&k| (vec![0, k], 1)).collect()
    }

    #[test]
    fn the_cover_prefers_a_flip_mending_several_tests() {
        // Test 0 is mended by flipping 7 or 9; tests 1 and 2 by 9 (or 8);
        // test 3 only by 3 and 4 together.
        let mends = vec![
            vec![table(&[7]), table(&[9])],
            vec![table(&[9])],
            vec![table(&[8]), table(&[9])],
            vec![table(&[3, 4])],
        ];
        assert_eq!(cover(&mends), table(&[9, 3, 4]));
    }

    #[test]
    fn the_cover_of_one_test_is_its_first_mend() {
        assert_eq!(cover(&[vec![table(&[5]), table(&[6])]]), table(&[5]));
    }
}
