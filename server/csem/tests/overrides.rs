//! Interpreter overrides: the value a statement instance produces replaced by
//! given bits (what an angelic value from a model is replayed with).

mod common;
use common::fixtures::fixture;
use common::program;
use faultlens_csem::ir::{InstrKind, Program, StmtId};
use faultlens_csem::{load, run, Outcome, Overrides, RunOptions, SourceSpec, TestInput};
use std::collections::BTreeMap;
use std::path::Path;

/// The statement of the first instruction on `line` whose kind `pick` accepts.
fn stmt_at(prog: &Program, line: u32, pick: fn(&InstrKind) -> bool) -> StmtId {
    prog.funcs
        .iter()
        .flat_map(|f| f.body.iter())
        .find(|i| i.range.start.line == line && pick(&i.kind))
        .unwrap_or_else(|| panic!("no such instruction on line {line}"))
        .stmt
}

fn with(overrides: &[((StmtId, u32), u64)]) -> RunOptions {
    RunOptions {
        overrides: Overrides(overrides.iter().copied().collect()),
        ..RunOptions::default()
    }
}

fn input(args: &[&str]) -> TestInput {
    TestInput {
        args: args.iter().map(|s| s.to_string()).collect(),
        ..TestInput::default()
    }
}

#[test]
fn overriding_the_faulty_return_makes_the_failing_tests_of_mid_args_pass() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mid-args");
    let (sources, cflags, tests) = fixture(&dir).expect("io fixture");
    let prog = load(&SourceSpec {
        root: dir.clone(),
        sources,
        cc: "gcc".into(),
        cflags,
        source_flags: Vec::new(),
    })
    .expect("loads");
    let ret22 = stmt_at(&prog, 22, |k| matches!(k, InstrKind::Return(Some(_))));
    let mut fixed = 0;
    for t in &tests {
        let test = TestInput {
            args: t.args.clone(),
            stdin: t.stdin.clone(),
            ..TestInput::default()
        };
        let plain = run(&prog, &test, &RunOptions::default());
        let want = t.expected_stdout.clone().expect("stdout expected");
        if plain.stdout == want {
            continue;
        }
        // The middle value the test expects, as the function's return value.
        let middle: i64 = String::from_utf8_lossy(&want).trim().parse().unwrap();
        let r = run(&prog, &test, &with(&[((ret22, 0), middle as u64)]));
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&want),
            "test {}",
            t.name
        );
        assert_eq!(r.outcome, Outcome::Exited(t.expected_exit));
        assert!(r.unapplied_overrides.is_empty());
        fixed += 1;
    }
    assert!(fixed >= 1, "mid-args has failing tests through line 22");
}

const LOOP: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    int count = 0;
    for (int i = 0; i < n; i++)
        count += 10;
    printf("%d\n", count);
    switch (n) {
    case 1: puts("one"); break;
    case 7: puts("seven"); break;
    default: puts("other");
    }
    return n;
}
"#;

#[test]
fn overriding_a_loop_condition_changes_the_iteration_count() {
    let (_dir, prog, _bin) = program(LOOP);
    let cond = stmt_at(&prog, 6, |k| matches!(k, InstrKind::Branch { .. }));
    let test = input(&["3"]);
    let plain = run(&prog, &test, &RunOptions::default());
    assert_eq!(plain.stdout, b"30\nother\n");
    // Instance 2 is the third test of `i < n`: false ends the loop after two rounds.
    let fewer = run(&prog, &test, &with(&[((cond, 2), 0)]));
    assert_eq!(String::from_utf8_lossy(&fewer.stdout), "20\nother\n");
    // Instance 3 (i == 3) forced true runs a fourth round; instance 4 tests i == 4 < 3.
    let more = run(&prog, &test, &with(&[((cond, 3), 1)]));
    assert_eq!(String::from_utf8_lossy(&more.stdout), "40\nother\n");
    assert!(more.unapplied_overrides.is_empty());
}

#[test]
fn overrides_of_stored_values_switches_returns_and_printed_values() {
    let (_dir, prog, _bin) = program(LOOP);
    let test = input(&["3"]);
    let add = stmt_at(&prog, 7, |k| matches!(k, InstrKind::Expr(_)));
    let init = stmt_at(&prog, 5, |k| matches!(k, InstrKind::Init(..)));
    let sw = stmt_at(&prog, 9, |k| matches!(k, InstrKind::Switch { .. }));
    let ret = stmt_at(&prog, 14, |k| matches!(k, InstrKind::Return(_)));
    let print = stmt_at(&prog, 8, |k| matches!(k, InstrKind::Expr(_)));
    // `count += 10` stores 5 at its second instance; `count = 0` starts at 100.
    let r = run(&prog, &test, &with(&[((init, 0), 100), ((add, 1), 5)]));
    assert_eq!(String::from_utf8_lossy(&r.stdout), "15\nother\n");
    let r = run(&prog, &test, &with(&[((sw, 0), 7), ((ret, 0), 0xfff)]));
    assert_eq!(String::from_utf8_lossy(&r.stdout), "30\nseven\n");
    assert_eq!(r.outcome, Outcome::Exited(0xff));
    // A negative value as raw bits of int.
    let r = run(&prog, &test, &with(&[((init, 0), (-40i64) as u64)]));
    assert_eq!(String::from_utf8_lossy(&r.stdout), "-10\nother\n");
    // The printed integer of printf's first conversion.
    let opts = RunOptions {
        output_overrides: BTreeMap::from([((print, 0, 0), 77)]),
        ..RunOptions::default()
    };
    let r = run(&prog, &test, &opts);
    assert_eq!(String::from_utf8_lossy(&r.stdout), "77\nother\n");
    assert!(r.unapplied_output_overrides.is_empty());
}

#[test]
fn overrides_that_never_apply_are_reported_and_change_nothing() {
    let (_dir, prog, _bin) = program(LOOP);
    let test = input(&["3"]);
    let cond = stmt_at(&prog, 6, |k| matches!(k, InstrKind::Branch { .. }));
    let print = stmt_at(&prog, 8, |k| matches!(k, InstrKind::Expr(_)));
    // The condition runs 4 times (instances 0..=3); a printf stores nothing.
    let r = run(&prog, &test, &with(&[((cond, 4), 1), ((print, 0), 9)]));
    assert_eq!(String::from_utf8_lossy(&r.stdout), "30\nother\n");
    let mut unapplied = r.unapplied_overrides.clone();
    unapplied.sort();
    let mut want = vec![(cond, 4), (print, 0)];
    want.sort();
    assert_eq!(unapplied, want);
}

#[test]
fn recursion_numbers_instances_in_the_order_they_start() {
    let src = r#"#include <stdio.h>
#include <stdlib.h>
static int fact(int n) {
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}
int main(int argc, char **argv) {
    printf("%d\n", fact(atoi(argv[1])));
    return 0;
}
"#;
    let (_dir, prog, _bin) = program(src);
    let ret = stmt_at(&prog, 6, |k| matches!(k, InstrKind::Return(_)));
    // fact(4): the return on line 6 starts for n = 4 (instance 0), 3 (1), 2 (2).
    // Overriding instance 1 (fact(3)) with 10 gives 4 * 10.
    let r = run(&prog, &input(&["4"]), &with(&[((ret, 1), 10)]));
    assert_eq!(String::from_utf8_lossy(&r.stdout), "40\n");
}

/// A number parsed with the wrong index: `text[value]` for `text[i]`.
const WRONG_INDEX: &str = r#"#include <stdio.h>
int main(int argc, char **argv) {
    const char *text = argv[1];
    int value = 0;
    for (int i = 0; text[i] != '\0'; i++)
        value = value * 10 + (text[value] - '0');
    printf("%d\n", value);
    return 0;
}
"#;

#[test]
fn an_overridden_number_is_stored_without_computing_an_expression_that_changes_nothing() {
    let (_dir, prog, _bin) = program(WRONG_INDEX);
    let test = input(&["320"]);
    let add = stmt_at(&prog, 6, |k| matches!(k, InstrKind::Expr(_)));
    // The right values, 3 then 32 then 320: with 32 stored at the second
    // instance, the third would read `text[32]`, out of bounds, if its
    // expression were computed; the override stands for a fixed statement.
    let r = run(
        &prog,
        &test,
        &with(&[((add, 0), 3), ((add, 1), 32), ((add, 2), 320)]),
    );
    assert_eq!(r.outcome, Outcome::Exited(0), "{:?}", r.outcome);
    assert_eq!(String::from_utf8_lossy(&r.stdout), "320\n");
    assert!(r.unapplied_overrides.is_empty());
    // Not overridden, the same read stops the run.
    let r = run(&prog, &test, &with(&[((add, 0), 3), ((add, 1), 32)]));
    assert!(
        matches!(r.outcome, Outcome::RuntimeError { .. }),
        "{:?}",
        r.outcome
    );
}
