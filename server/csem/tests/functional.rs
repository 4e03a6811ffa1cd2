//! A statement's value through a table keyed by its operands: what the
//! interpreter observes per instance, and what a table changes (the same
//! operands get the same value, however the path moves).

mod common;
use common::program;
use faultlens_csem::ir::{InstrKind, Program, StmtId};
use faultlens_csem::{run, Functional, Outcome, RunOptions, TestInput};
use std::collections::BTreeMap;

/// Counts words; the fault: a tab is no separator.
const WORDS: &str = r#"#include <stdio.h>
static int is_sep(int c) {
    return c == ' ' || c == '\n';
}
int main(void) {
    int c, words = 0, in_word = 0;
    while ((c = getchar()) != EOF) {
        if (is_sep(c))
            in_word = 0;
        else if (!in_word) {
            in_word = 1;
            words++;
        }
    }
    printf("%d\n", words);
    return 0;
}
"#;

fn return_on(prog: &Program, line: u32) -> StmtId {
    statement_on(prog, line, |k| matches!(k, InstrKind::Return(Some(_))))
}

fn branch_on(prog: &Program, line: u32) -> StmtId {
    statement_on(prog, line, |k| matches!(k, InstrKind::Branch { .. }))
}

/// The statement of the first instruction on `line` that `pick` accepts.
fn statement_on(prog: &Program, line: u32, pick: fn(&InstrKind) -> bool) -> StmtId {
    prog.funcs
        .iter()
        .flat_map(|f| &f.body)
        .find(|i| i.range.start.line == line && pick(&i.kind))
        .unwrap_or_else(|| panic!("no such instruction on line {line}"))
        .stmt
}

fn stdin(text: &str) -> TestInput {
    TestInput {
        stdin: text.as_bytes().to_vec(),
        ..TestInput::default()
    }
}

fn observing(stmt: StmtId, table: BTreeMap<Vec<u64>, u64>) -> RunOptions {
    RunOptions {
        functional: Some(Functional {
            stmt,
            table,
            operands: None,
            target: None,
        }),
        ..RunOptions::default()
    }
}

#[test]
fn each_instance_is_observed_with_its_operands_and_value() {
    let (_dir, prog, _) = program(WORDS);
    let ret = return_on(&prog, 3);
    let r = run(&prog, &stdin("a\tb a\n"), &observing(ret, BTreeMap::new()));
    assert_eq!(r.stdout, b"2\n");
    assert_eq!(r.observed.len(), 6, "one instance per character");
    let values: Vec<u64> = r.observed.iter().map(|o| o.computed).collect();
    assert_eq!(values, [0, 0, 0, 1, 0, 1]);
    assert!(r.observed.iter().all(|o| o.produced == o.computed));
    assert!(r.observed.iter().all(|o| !o.branch && o.width == 32));
    // The two `a`s read the same operands, the tab and the space others.
    let keys: Vec<&Vec<u64>> = r.observed.iter().map(|o| &o.key).collect();
    assert_eq!(keys[0], keys[4]);
    assert_ne!(keys[1], keys[3]);
    assert_ne!(keys[0], keys[1]);
    // The key holds the character read (candidate `c` of `c == ' '`).
    assert!(keys[1].contains(&u64::from(b'\t')));
}

#[test]
fn a_table_flips_every_instance_with_the_same_operands() {
    let (_dir, prog, _) = program(WORDS);
    let ret = return_on(&prog, 3);
    let input = stdin("x\ty\tz\n");
    let plain = run(&prog, &input, &observing(ret, BTreeMap::new()));
    assert_eq!(plain.stdout, b"1\n");
    let tab = plain.observed[1].key.clone();
    let flipped = run(&prog, &input, &observing(ret, BTreeMap::from([(tab, 1)])));
    assert_eq!(flipped.outcome, Outcome::Exited(0));
    assert_eq!(flipped.stdout, b"3\n", "both tabs separate words");
    let changed: Vec<u32> = flipped
        .observed
        .iter()
        .filter(|o| o.produced != o.computed)
        .map(|o| o.instance)
        .collect();
    assert_eq!(changed, [1, 3]);
}

#[test]
fn a_branch_is_observed_as_its_direction() {
    let (_dir, prog, _) = program(WORDS);
    let branch = branch_on(&prog, 8);
    let r = run(&prog, &stdin("a b"), &observing(branch, BTreeMap::new()));
    let dirs: Vec<(u64, bool, u32)> = r
        .observed
        .iter()
        .map(|o| (o.computed, o.branch, o.width))
        .collect();
    assert_eq!(dirs, [(0, true, 1), (1, true, 1), (0, true, 1)]);
}

/// Counts the positive digits among the arguments; the fault: `i <= 1`
/// short-circuits the check of every argument but the first.
const FIRST_ONLY: &str = r#"#include <stdio.h>
static int calls;
static int positive(int v) { calls++; return v > 0; }
int main(int argc, char **argv) {
    int n = 0;
    for (int i = 1; i < argc; i++)
        if (i <= 1 && positive(argv[i][0] - '0'))
            n++;
    printf("%d %d\n", n, calls);
    return 0;
}
"#;

#[test]
fn a_table_can_replace_one_comparison_a_condition_joins() {
    let (_dir, prog, _) = program(FIRST_ONLY);
    let branch = branch_on(&prog, 7);
    let joined = faultlens_csem::subexpr::joined_comparisons(&prog, branch);
    assert_eq!(joined.len(), 1, "`i <= 1`: the other operand is a call");
    let observing_first = |table| RunOptions {
        functional: Some(Functional {
            stmt: branch,
            table,
            operands: None,
            target: Some(joined[0]),
        }),
        ..RunOptions::default()
    };
    let input = TestInput {
        args: vec!["1".into(), "2".into(), "3".into()],
        ..TestInput::default()
    };
    let plain = run(&prog, &input, &observing_first(BTreeMap::new()));
    assert_eq!(plain.stdout, b"1 1\n");
    // The comparison is observed, an int keyed by `i` alone (not by the
    // call it short-circuits).
    let values: Vec<u64> = plain.observed.iter().map(|o| o.computed).collect();
    assert_eq!(values, [1, 0, 0]);
    assert!(plain.observed.iter().all(|o| !o.branch && o.width == 32));
    assert!(plain.observed[1].key.contains(&2));
    let at_two = plain.observed[1].key.clone();
    let flipped = run(
        &prog,
        &input,
        &observing_first(BTreeMap::from([(at_two, 1)])),
    );
    assert_eq!(flipped.stdout, b"2 2\n", "the second digit is checked");
    let produced: Vec<u64> = flipped.observed.iter().map(|o| o.produced).collect();
    assert_eq!(produced, [1, 1, 0]);
}
