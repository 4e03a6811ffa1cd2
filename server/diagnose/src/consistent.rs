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
use faultlens_csem::{run, subexpr, Functional, Observation};
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
/// most tests, and it must make every test pass at once. When a test fails
/// under it, the flips its run made that it did not need itself are banned
/// and the mends found again without them (a test of CRLF lines is mended
/// by flipping a blank-line check at the carriage returns, which breaks a
/// test with a line of spaces; without that flip, at the first digits).
pub fn witness(
    prog: &Program,
    tests: &[&ModelTest],
    stmt: StmtId,
    budget: &Budget,
) -> Option<BTreeMap<usize, Vec<Slot>>> {
    if tests.is_empty() || budget.exhausted().is_some() {
        return None;
    }
    // Keyed by the compared values first (a relational operator wrong for
    // a digit is wrong for it at every position the run compares it at),
    // then by every operand (a condition right at some positions only).
    let compared = subexpr::compared_operands(prog, stmt);
    let mut keyings = vec![Keying::Whole(None)];
    // (An empty key would flip every instance at once.)
    if !compared.is_empty() && compared.len() < subexpr::of_statement(prog, stmt).len() {
        keyings.insert(0, Keying::Whole(Some(compared)));
    }
    // Then each comparison a connective joins, keyed by its own operands: in
    // `j <= 0 && before(key, a[j])` the fix `j >= 0` is a function of `j`,
    // while the condition's right value also needs the call the mutant
    // short-circuits, so no table of the condition's operands is one.
    keyings.extend(
        subexpr::joined_comparisons(prog, stmt)
            .into_iter()
            .map(Keying::Comparison),
    );
    keyings.iter().find_map(|keying| {
        let observer = Observer { prog, stmt, keying };
        witness_keyed(&observer, tests, budget)
    })
}

/// Which value a table replaces, and what keys it.
enum Keying {
    /// The statement's own value, keyed by these candidate sub-expressions
    /// (`None`: all of them).
    Whole(Option<BTreeSet<u32>>),
    /// The value of this candidate sub-expression (a comparison), keyed by
    /// the candidates below it.
    Comparison(u32),
}

/// [`witness`] with one way of keying.
fn witness_keyed(
    observer: &Observer,
    tests: &[&ModelTest],
    budget: &Budget,
) -> Option<BTreeMap<usize, Vec<Slot>>> {
    let (values, per_test) = flippable(observer, tests, budget)?;
    // Flips that broke a test they were not needed for: each test's mends
    // are found again without them, a few times at most.
    let mut banned: BTreeSet<Vec<u64>> = BTreeSet::new();
    let mut mends: Vec<Option<Vec<Table>>> = vec![None; tests.len()];
    for _ in 0..MAX_COVERS {
        for ((t, keys), m) in tests.iter().zip(&per_test).zip(mends.iter_mut()) {
            if m.as_ref().is_some_and(|m| flips_none_of(m, &banned)) {
                continue;
            }
            let keys: Vec<Vec<u64>> = keys
                .iter()
                .filter(|k| !banned.contains(*k))
                .take(MAX_KEYS)
                .cloned()
                .collect();
            let mut test = Flipping {
                observer,
                test: t,
                values: values.clone(),
            };
            *m = Some(mends_of(&mut test, &keys, budget)?);
        }
        let mends: Vec<Vec<Table>> = mends.iter().flatten().cloned().collect();
        match all_pass(observer, tests, &cover(&mends), &mends) {
            Ok(slots) => return Some(slots),
            Err(broken) => {
                let fresh: Vec<_> = broken.difference(&banned).cloned().collect();
                if fresh.is_empty() {
                    return None;
                }
                banned.extend(fresh);
            }
        }
    }
    None
}

/// How a statement's instances are observed and keyed.
struct Observer<'a> {
    prog: &'a Program,
    stmt: StmtId,
    keying: &'a Keying,
}

/// One test run with some of the operand combinations it met flipped.
struct Flipping<'a> {
    observer: &'a Observer<'a>,
    test: &'a ModelTest,
    /// The value computed at each key met so far.
    values: Table,
}

impl Flipping<'_> {
    fn table(&self, keys: &[Vec<u64>]) -> Table {
        keys.iter()
            .map(|k| (k.clone(), 1 - self.values[k]))
            .collect()
    }

    fn run(&self, keys: &[Vec<u64>]) -> Observed {
        self.observer.observe(self.test, &self.table(keys))
    }

    /// The keys of `r` not in `queued` yet (added to it, their values
    /// noted), in the order the run met them.
    fn newly_met(&mut self, r: &Observed, queued: &mut BTreeSet<Vec<u64>>) -> Vec<Vec<u64>> {
        let mut new = Vec::new();
        for o in r.observed.iter().filter(|o| o.computed <= 1) {
            self.values.entry(o.key.clone()).or_insert(o.computed);
            if queued.insert(o.key.clone()) {
                new.push(o.key.clone());
            }
        }
        new
    }
}

/// Flipped runs of one test one pass of the greedy growth makes at most.
const MAX_GROWN: usize = 2 * MAX_KEYS;

/// Tables tried at most, each after banning the flips that broke a test
/// under the one before.
const MAX_COVERS: usize = 3;

/// The flips that make one test pass on its own: every single combination
/// that does; else one set grown greedily ([`grown`]); else the first pair
/// that does. `None` when nothing does, or the budget ran out.
fn mends_of(test: &mut Flipping, keys: &[Vec<u64>], budget: &Budget) -> Option<Vec<Table>> {
    let mut found = Vec::new();
    for k in keys {
        budget.exhausted().is_none().then_some(())?;
        if test.run(std::slice::from_ref(k)).passes {
            found.push(test.table(std::slice::from_ref(k)));
        }
    }
    if !found.is_empty() {
        return Some(found);
    }
    // Progress by the matching prefix first: bytes in common beyond it
    // also reward flips that print a wrong line, which the growth keeps.
    for in_common in [false, true] {
        if let Some(table) = grown(test, keys, in_common, budget)? {
            return Some(vec![table]);
        }
    }
    let paired = keys.len().min(MAX_PAIRED);
    for a in 0..paired {
        for b in (a + 1)..paired {
            budget.exhausted().is_none().then_some(())?;
            let pair = [keys[a].clone(), keys[b].clone()];
            if test.run(&pair).passes {
                return Some(vec![test.table(&pair)]);
            }
        }
    }
    None
}

/// One set of flips grown greedily: a flip is kept when the run prints
/// more of the expected output (each number on its own line needs its own
/// flip; more by the matching prefix alone unless `in_common`), or, while
/// the run still hangs (ends at the step limit), when it meets more keys
/// before the limit (a loop that never ends for one value is mended one
/// value at a time, and nothing is printed until it ends for them all),
/// and the keys a kept flip's run meets for the first time join
/// the queue (a loop a flip lets run on compares values the failing run
/// never reached: `i > len` flipped at `i = 0` next meets `i = 1`; at the
/// queue's head while the run still hangs, where it hangs next). A
/// flip not kept is tried again once others have made progress (the
/// second line's flip prints nothing more until the first line is whole).
/// `Some(None)` when no set is found, `None` when the budget ran out.
fn grown(
    test: &mut Flipping,
    keys: &[Vec<u64>],
    in_common: bool,
    budget: &Budget,
) -> Option<Option<Table>> {
    let progress = |r: &Observed| {
        let printed = match in_common {
            true => r.printed,
            false => angelic::Printed {
                in_common: 0,
                ..r.printed
            },
        };
        let further = match r.ended {
            true => 0,
            false => r
                .observed
                .iter()
                .map(|o| &o.key)
                .collect::<BTreeSet<_>>()
                .len(),
        };
        (r.ended, printed, further)
    };
    let mut queue: std::collections::VecDeque<Vec<u64>> = keys.iter().cloned().collect();
    let mut queued: BTreeSet<Vec<u64>> = keys.iter().cloned().collect();
    let mut deferred: Vec<Vec<u64>> = Vec::new();
    let mut progressed = false;
    let mut kept: Vec<Vec<u64>> = Vec::new();
    let mut best = progress(&test.run(&[]));
    for _ in 0..MAX_GROWN {
        budget.exhausted().is_none().then_some(())?;
        if queue.is_empty() && progressed {
            queue.extend(deferred.drain(..));
            progressed = false;
        }
        let Some(k) = queue.pop_front() else {
            break;
        };
        kept.push(k);
        let r = test.run(&kept);
        if r.passes {
            return Some(Some(test.table(&kept)));
        }
        let mut r = r;
        if progress(&r) <= best {
            // The flip led the run to values the failing run never met,
            // where the same fault strikes again (`j <= 0` flipped at
            // `j = 1` next compares `j = -1` and reads before the array):
            // they are flipped with it before it is given up.
            let met = test.newly_met(&r, &mut queued);
            if met.is_empty() {
                deferred.extend(kept.pop());
                continue;
            }
            let before = kept.len();
            kept.extend(met.iter().cloned());
            budget.exhausted().is_none().then_some(())?;
            r = test.run(&kept);
            if r.passes {
                return Some(Some(test.table(&kept)));
            }
            if progress(&r) <= best {
                kept.truncate(before);
                deferred.extend(kept.pop());
                deferred.extend(met);
                continue;
            }
        }
        best = progress(&r);
        progressed = true;
        let met = test.newly_met(&r, &mut queued);
        if r.ended {
            queue.extend(met);
        } else {
            // Still hanging: the value it now hangs at comes next.
            for k in met.into_iter().rev() {
                queue.push_front(k);
            }
        }
    }
    Some(None)
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
    observer: &Observer,
    tests: &[&ModelTest],
    budget: &Budget,
) -> Option<(Table, Vec<Vec<Vec<u64>>>)> {
    let mut values = Table::new();
    let mut per_test = Vec::new();
    for t in tests {
        budget.exhausted().is_none().then_some(())?;
        let mut keys: Vec<Vec<u64>> = Vec::new();
        let mut met = BTreeSet::new();
        for o in observer.observe(t, &Table::new()).observed {
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

/// Whether none of `mends` flips a key of `banned`.
fn flips_none_of(mends: &[Table], banned: &BTreeSet<Vec<u64>>) -> bool {
    mends.iter().all(|t| t.keys().all(|k| !banned.contains(k)))
}

/// Every test run with `table`; their changed instances if all pass, else
/// the keys the first failing test's run flipped that none of its own
/// mends flips (`mends`, per test): the flips that likely broke it.
fn all_pass(
    observer: &Observer,
    tests: &[&ModelTest],
    table: &Table,
    mends: &[Vec<Table>],
) -> Result<BTreeMap<usize, Vec<Slot>>, BTreeSet<Vec<u64>>> {
    let mut out = BTreeMap::new();
    for (i, t) in tests.iter().enumerate() {
        let r = observer.observe(t, table);
        if !r.passes {
            let own: BTreeSet<&Vec<u64>> = mends[i].iter().flat_map(|m| m.keys()).collect();
            return Err(r
                .observed
                .iter()
                .filter(|o| o.produced != o.computed && !own.contains(&o.key))
                .map(|o| o.key.clone())
                .collect());
        }
        let slots = r
            .observed
            .iter()
            .filter(|o| o.produced != o.computed)
            .map(|o| observer.slot(o))
            .collect();
        out.insert(i, slots);
    }
    Ok(out)
}

/// A test's run under a table.
struct Observed {
    passes: bool,
    observed: Vec<Observation>,
    /// How much of the expected stdout it printed.
    printed: angelic::Printed,
    /// Whether it ended before the step limit.
    ended: bool,
}

impl Observer<'_> {
    fn observe(&self, t: &ModelTest, table: &Table) -> Observed {
        let mut opts = t.run_options();
        let (operands, target) = match self.keying {
            Keying::Whole(operands) => (operands.clone(), None),
            Keying::Comparison(n) => (None, Some(*n)),
        };
        opts.functional = Some(Functional {
            stmt: self.stmt,
            table: table.clone(),
            operands,
            target,
        });
        let r = run(self.prog, &t.input, &opts);
        Observed {
            passes: angelic::passes(&r, t),
            printed: angelic::printed_as_expected(t, &r.stdout),
            ended: r.outcome != faultlens_csem::Outcome::StepLimit,
            observed: r.observed,
        }
    }

    /// The changed instance as the override that replays it.
    fn slot(&self, o: &Observation) -> Slot {
        let (role, arg) = match self.keying {
            Keying::Comparison(n) => (SlotRole::Subexpr, *n),
            Keying::Whole(_) if o.branch => (SlotRole::Condition, 0),
            Keying::Whole(_) => (SlotRole::Return, 0),
        };
        Slot {
            stmt: self.stmt,
            instance: o.instance,
            range: o.range,
            role,
            bits: o.produced,
            width: o.width,
            signed: o.signed,
            float: None,
            arg,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::declared_tests;
    use crate::test_programs::printing;
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

    fn branch_on(prog: &Program, line: u32) -> StmtId {
        crate::test_programs::on_lines(prog, &[line], |k| {
            matches!(k, faultlens_csem::ir::InstrKind::Branch { .. })
        })[0]
    }

    /// Says whether a number is all digits; the fault: `>` should be `>=`,
    /// so a `0` ends the digits.
    const ALL_DIGITS: &str = r#"#include <stdio.h>
int main(int argc, char **argv) {
    const char *text = argv[1];
    int i = 0;
    while (text[i] > '0' && text[i] <= '9')
        i++;
    puts(text[i] == '\0' ? "digits" : "not digits");
    return 0;
}
"#;

    #[test]
    fn a_comparison_is_flipped_wherever_it_compares_the_same_values() {
        let (_dir, prog) = crate::test_programs::program(ALL_DIGITS);
        let tests = [printing("10000", "digits\n"), printing("2050", "digits\n")];
        let refs: Vec<&ModelTest> = tests.iter().collect();
        let cond = branch_on(&prog, 5);
        // Keyed by the index too, each `0` would be a flip of its own: four
        // at once, with no output growing on the way to tell them apart.
        let found = witness(&prog, &refs, cond, &Budget::unlimited())
            .expect("one flip, where a `0` is compared with '0', mends both");
        let flipped = |i: usize| found[&i].iter().map(|s| s.instance).collect::<Vec<_>>();
        assert_eq!(flipped(0), [1, 2, 3, 4]);
        assert_eq!(flipped(1), [1, 3]);
        assert!(found.values().flatten().all(|s| s.bits == 1));
        for (i, t) in refs.iter().enumerate() {
            assert!(angelic::replay_passes(&prog, t, &found[&i]), "{}", t.name);
        }
    }

    /// Copies a number's digits and prints them right-aligned; the fault:
    /// the loop's `<` is `>`, so nothing is copied.
    const ALIGNED: &str = r#"#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    char out[16] = {0};
    size_t len = strlen(argv[1]);
    for (size_t i = 0; i > len && i < 15; i++)
        out[i] = argv[1][i];
    printf("%8s\n", out);
    return 0;
}
"#;

    #[test]
    fn flips_follow_the_values_a_kept_flip_lets_the_loop_meet() {
        let (_dir, prog) = crate::test_programs::program(ALIGNED);
        let tests = [printing("4096", "    4096\n"), printing("77", "      77\n")];
        let refs: Vec<&ModelTest> = tests.iter().collect();
        let cond = branch_on(&prog, 6);
        // The failing runs meet only `i = 0`; each flip meets the next `i`,
        // and the right-aligned output grows behind its padding.
        let found = witness(&prog, &refs, cond, &Budget::unlimited())
            .expect("the loop run once per digit mends both");
        assert_eq!(found[&0].len(), 4);
        assert_eq!(found[&1].len(), 2);
        for (i, t) in refs.iter().enumerate() {
            assert!(angelic::replay_passes(&prog, t, &found[&i]), "{}", t.name);
        }
    }

    /// Prints the lines of stdin that are not blank; the fault: `== '\n'`
    /// should be `!= '\n'`, so every line counts as blank.
    const NOT_BLANK: &str = r#"#include <stdio.h>
#include <string.h>
static int is_space(char c) { return c == ' ' || c == '\r' || c == '\n'; }
static int is_blank(const char *line) {
    int i = 0;
    while (line[i] != '\0') {
        if (!is_space(line[i]) && line[i] == '\n')
            return 0;
        i++;
    }
    return 1;
}
int main(void) {
    char line[32];
    while (fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] == '\n')
            line[len - 1] = '\0';
        if (is_blank(line))
            continue;
        printf("[%s]\n", line);
    }
    return 0;
}
"#;

    #[test]
    fn a_flip_that_breaks_another_test_is_left_out_of_the_next_table() {
        let (_dir, prog) = crate::test_programs::program(NOT_BLANK);
        let on_stdin = |name: &str, stdin: &str, stdout: &str| {
            let mut t = printing(name, stdout);
            t.input.args.clear();
            t.input.stdin = stdin.as_bytes().to_vec();
            t
        };
        // Each line of the first test ends in a carriage return, a space:
        // flipping the check at spaces alone mends it, and that is the
        // first mend found. It breaks the second test's line of spaces.
        let tests = [
            on_stdin("crlf", "5\r\n6\r\n", "[5\r]\n[6\r]\n"),
            on_stdin("spaces", "1\n   \n2\n", "[1]\n[2]\n"),
        ];
        let refs: Vec<&ModelTest> = tests.iter().collect();
        let cond = branch_on(&prog, 7);
        let found = witness(&prog, &refs, cond, &Budget::unlimited())
            .expect("flipping the check at the lines' digits mends both");
        for (i, t) in refs.iter().enumerate() {
            assert_eq!(found[&i].len(), 2, "{}: {:?}", t.name, found[&i]);
            assert!(angelic::replay_passes(&prog, t, &found[&i]), "{}", t.name);
        }
    }

    #[test]
    fn a_loop_that_hangs_is_mended_one_value_at_a_time() {
        let (_dir, prog) = crate::test_programs::program(crate::test_programs::HANGING_WIDTH);
        let mut t = printing("three", "1\n");
        t.input.args = vec!["3".into(), "5".into(), "7".into()];
        assert_eq!(
            faultlens_csem::run(&prog, &t.input, &t.run_options()).outcome,
            faultlens_csem::Outcome::StepLimit
        );
        let cond = branch_on(&prog, 8);
        // Nothing is printed until the loop ends for every count: each
        // flip lets the run reach the next count before the step limit.
        let found = witness(&prog, &[&t], cond, &Budget::unlimited())
            .expect("the loop left at once for 3, 5 and 7 mends it");
        assert_eq!(found[&0].len(), 3, "{:?}", found[&0]);
        assert!(angelic::replay_passes(&prog, &t, &found[&0]));
    }

    /// Sorts its arguments by insertion; the fault: `j >= 0` is `j <= 0`,
    /// so an element moves only into the first place, and one that does
    /// next compares `a[-1]`.
    const INSERTION: &str = r#"#include <stdio.h>
#include <stdlib.h>
static int a[8];
int main(int argc, char **argv) {
    int n = argc - 1;
    for (int i = 0; i < n; i++)
        a[i] = atoi(argv[i + 1]);
    for (int i = 1; i < n; i++) {
        int key = a[i];
        int j = i - 1;
        while (j <= 0 && a[j] > key) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = key;
    }
    for (int i = 0; i < n; i++)
        printf("%d ", a[i]);
    puts("");
    return 0;
}
"#;

    #[test]
    fn a_comparison_a_condition_joins_is_flipped_by_its_own_operands() {
        let (_dir, prog) = crate::test_programs::program(INSERTION);
        let sorting = |args: &[&str], stdout: &str| {
            let mut t = printing(&args.join(" "), stdout);
            t.input.args = args.iter().map(|a| a.to_string()).collect();
            t
        };
        // The condition's right value where `j <= 0` is false needs the
        // comparison it short-circuits, so only `j <= 0` has a table. In the
        // second test, moving 1 down from the third place next compares
        // `j = -1`, which no failing run met: it is flipped with it.
        let tests = [
            sorting(&["1", "3", "2"], "1 2 3 \n"),
            sorting(&["2", "3", "1"], "1 2 3 \n"),
        ];
        let refs: Vec<&ModelTest> = tests.iter().collect();
        let cond = branch_on(&prog, 11);
        let found = witness(&prog, &refs, cond, &Budget::unlimited())
            .expect("`j <= 0` made `j >= 0` at the values met mends both");
        let j_le_0 = subexpr::joined_comparisons(&prog, cond)[0];
        assert!(found
            .values()
            .flatten()
            .all(|s| s.role == SlotRole::Subexpr && s.arg == j_le_0));
        let values = |i: usize| found[&i].iter().map(|s| s.bits).collect::<Vec<_>>();
        assert_eq!(values(0), [1]);
        assert_eq!(values(1), [1, 0]);
        for (i, t) in refs.iter().enumerate() {
            assert!(angelic::replay_passes(&prog, t, &found[&i]), "{}", t.name);
        }
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
