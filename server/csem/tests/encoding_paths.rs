//! Several tests in one formula, paths explored on demand: a failing test
//! whose fix needs another path becomes satisfiable once the divergence the
//! model takes is explored, and the model's values replay in the interpreter.

mod common;
use common::{program, solve_exploring};
use faultlens_csem::encode::{
    apply_slots, EncodeOptions, Expected, Formula, Slot, SlotRole, TestEncoding,
};
use faultlens_csem::ir::{InstrKind, Program, StmtId};
use faultlens_csem::{run, RunOptions, TestInput};
use rustsat::types::Lit;

fn stmt_at(prog: &Program, line: u32, pick: fn(&InstrKind) -> bool) -> StmtId {
    prog.funcs
        .iter()
        .flat_map(|f| f.body.iter())
        .find(|i| i.range.start.line == line && pick(&i.kind))
        .unwrap_or_else(|| panic!("no such instruction on line {line}"))
        .stmt
}

fn input(args: &[&str]) -> TestInput {
    TestInput {
        args: args.iter().map(|s| s.to_string()).collect(),
        ..TestInput::default()
    }
}

fn expect(out: &str) -> Expected {
    Expected {
        stdout: Some(out.as_bytes().to_vec()),
        exit: 0,
    }
}

fn replay(prog: &Program, test: &TestInput, slots: &[Slot]) -> String {
    let mut opts = RunOptions::default();
    apply_slots(&mut opts, slots);
    let r = run(prog, test, &opts);
    assert!(
        r.unapplied_overrides.is_empty(),
        "{:?}",
        r.unapplied_overrides
    );
    String::from_utf8_lossy(&r.stdout).to_string()
}

const THRESHOLD: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int x = atoi(argv[1]);
    if (x > 5)
        puts("big");
    else
        puts("small");
    return 0;
}
"#;

#[test]
fn an_angelic_branch_is_explored_and_replays() {
    let (_d, prog, _b) = program(THRESHOLD);
    let cond = stmt_at(&prog, 5, |k| matches!(k, InstrKind::Branch { .. }));
    let test = input(&["4"]);
    let mut f = Formula::new();
    let mut te = TestEncoding::new(
        &mut f,
        &prog,
        &test,
        &expect("big\n"),
        &EncodeOptions::default(),
    )
    .unwrap();
    assert_eq!(te.paths(), 1);
    // All healthy: the test fails, whatever is explored.
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|_| false);
    assert!(m.is_none());
    // The condition unhealthy: the model leaves the path at the branch.
    let (m, calls) = solve_exploring(&mut f, &mut te, &prog, &|s| s == cond);
    let m = m.expect("SAT once the other direction is explored");
    assert!(
        calls >= 2 && te.paths() == 2,
        "calls {calls}, paths {}",
        te.paths()
    );
    assert!(te.complete());
    let slots = te.slots(&|l| m.lit(l));
    assert_eq!(slots.len(), 1, "{slots:?}");
    assert_eq!(
        (slots[0].stmt, slots[0].role, slots[0].bits),
        (cond, SlotRole::Condition, 1)
    );
    assert_eq!(replay(&prog, &test, &slots), "big\n");
}

const SUM: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    int s = 0;
    for (int i = 0; i < n; i++)
        s += 10;
    printf("%d\n", s);
    return 0;
}
"#;

#[test]
fn a_loop_condition_unrolls_further_when_explored() {
    let (_d, prog, _b) = program(SUM);
    let cond = stmt_at(&prog, 6, |k| matches!(k, InstrKind::Branch { .. }));
    let test = input(&["2"]);
    let mut f = Formula::new();
    let mut te = TestEncoding::new(
        &mut f,
        &prog,
        &test,
        &expect("50\n"),
        &EncodeOptions::default(),
    )
    .unwrap();
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == cond);
    let m = m.expect("five rounds are reachable by forcing the condition");
    let slots = te.slots(&|l| m.lit(l));
    // Six instances of the condition: five true, the last false.
    let dirs: Vec<u64> = slots.iter().map(|s| s.bits).collect();
    assert_eq!(dirs, vec![1, 1, 1, 1, 1, 0], "{slots:?}");
    assert_eq!(replay(&prog, &test, &slots), "50\n");
    // Fewer rounds.
    let mut f = Formula::new();
    let mut te = TestEncoding::new(
        &mut f,
        &prog,
        &test,
        &expect("10\n"),
        &EncodeOptions::default(),
    )
    .unwrap();
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == cond);
    let m = m.expect("one round");
    let slots = te.slots(&|l| m.lit(l));
    assert_eq!(replay(&prog, &test, &slots), "10\n");
}

#[test]
fn a_value_fault_before_a_branch_and_several_tests_in_one_formula() {
    let (_d, prog, _b) = program(THRESHOLD);
    let init = stmt_at(&prog, 4, |k| matches!(k, InstrKind::Init(..)));
    let mut f = Formula::new();
    let mut tes = Vec::new();
    for (arg, out) in [("4", "big\n"), ("9", "small\n")] {
        let te = TestEncoding::new(
            &mut f,
            &prog,
            &input(&[arg]),
            &expect(out),
            &EncodeOptions::default(),
        )
        .unwrap();
        f.cnf.clause(&[te.pass()]);
        tes.push((input(&[arg]), out, te));
    }
    // Only x's initial value unhealthy: both tests pass with other values of x.
    let mut rounds = 0;
    let m = loop {
        rounds += 1;
        assert!(rounds < 10);
        let assumptions: Vec<Lit> = f
            .health
            .iter()
            .map(|(s, &h)| if *s == init { !h } else { h })
            .collect();
        let m = f.cnf.solve(&assumptions).unwrap().expect("SAT");
        let mut explored = false;
        for (_, _, te) in &mut tes {
            for d in te.open_divergences(&|l| m.lit(l)) {
                te.explore(&mut f, &prog, &d).unwrap();
                explored = true;
            }
        }
        if !explored {
            break m;
        }
    };
    for (test, out, te) in &tes {
        let slots = te.slots(&|l| m.lit(l));
        assert_eq!(slots.len(), 1);
        assert_eq!(slots[0].role, SlotRole::Value);
        assert_eq!(replay(&prog, test, &slots), *out);
    }
}

#[test]
fn covers_is_implied_by_following_a_path_through_the_statement() {
    let (_d, prog, _b) = program(THRESHOLD);
    let big = stmt_at(&prog, 6, |k| matches!(k, InstrKind::Expr(_)));
    let cond = stmt_at(&prog, 5, |k| matches!(k, InstrKind::Branch { .. }));
    let test = input(&["4"]);
    let mut f = Formula::new();
    let exp = Expected {
        stdout: None,
        exit: 0,
    };
    let mut te = TestEncoding::new(&mut f, &prog, &test, &exp, &EncodeOptions::default()).unwrap();
    let c = te.covers(&mut f, big);
    // ¬c excludes every path through `puts("big")`, explored now or later.
    f.cnf.clause(&[te.pass()]);
    f.cnf.clause(&[!c]);
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == cond);
    let m = m.expect("the root path avoids puts(\"big\")");
    let slots = te.slots(&|l| m.lit(l));
    assert_eq!(replay(&prog, &test, &slots), "small\n");
}

#[test]
fn not_covering_the_only_way_to_the_expected_output_is_unsatisfiable() {
    let (_d, prog, _b) = program(THRESHOLD);
    let big = stmt_at(&prog, 6, |k| matches!(k, InstrKind::Expr(_)));
    let cond = stmt_at(&prog, 5, |k| matches!(k, InstrKind::Branch { .. }));
    let test = input(&["4"]);
    let mut f = Formula::new();
    let mut te = TestEncoding::new(
        &mut f,
        &prog,
        &test,
        &expect("big\n"),
        &EncodeOptions::default(),
    )
    .unwrap();
    let c = te.covers(&mut f, big);
    f.cnf.clause(&[!c]);
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == cond);
    assert!(m.is_none(), "printing big needs puts(\"big\")");
    assert_eq!(te.paths(), 2);
}

/// A unit test's shape: trusted checks (the specification) after the code
/// under test, the first one failing on the faulty value.
const CHECKED: &str = r#"#include <stdio.h>
#include <stdlib.h>
static void check(int holds) {
    if (!holds) {
        puts("check failed");
        exit(1);
    }
}
int main(int argc, char **argv) {
    int total = atoi(argv[1]) * 2;
    check(total == 9);
    int next = total + 1;
    check(next == 10);
    puts("ok");
    return 0;
}
"#;

/// The statements of `lines`: the checks' code, trusted.
fn on_lines(prog: &Program, lines: &[u32]) -> std::collections::BTreeSet<StmtId> {
    prog.funcs
        .iter()
        .flat_map(|f| f.body.iter())
        .filter(|i| lines.contains(&i.range.start.line))
        .map(|i| i.stmt)
        .collect()
}

#[test]
fn a_failing_trusted_check_is_forced_to_pass_on_the_root_path() {
    let (_d, prog, _b) = program(CHECKED);
    let fault = stmt_at(&prog, 10, |k| matches!(k, InstrKind::Init(..)));
    let one_path = EncodeOptions {
        max_paths: 1,
        ..EncodeOptions::default()
    };
    let test = input(&["3"]);
    // Untrusted checks: the root is the run's own path, which ends in the
    // failed check; no value of `total` passes along it alone.
    let mut f = Formula::new();
    let mut te = TestEncoding::new(&mut f, &prog, &test, &expect("ok\n"), &one_path).unwrap();
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == fault);
    assert!(m.is_none(), "the own path ends in `check failed`");
    // Trusted checks: both failing checks are forced to pass on the root,
    // so the one path holds the fix: `total` = 9.
    let mut f = Formula::new();
    f.trusted = on_lines(&prog, &[4, 5, 6, 11, 13]);
    let mut te = TestEncoding::new(&mut f, &prog, &test, &expect("ok\n"), &one_path).unwrap();
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == fault);
    let m = m.expect("the root path passes with another `total`");
    let slots = te.slots(&|l| m.lit(l));
    assert_eq!(slots.len(), 1);
    assert_eq!(slots[0].value(), 9);
    assert_eq!(replay(&prog, &test, &slots), "ok\n");
}

#[test]
fn a_test_that_passes_as_it_ran_keeps_its_own_run_as_the_root() {
    let (_d, prog, _b) = program(CHECKED);
    let mut f = Formula::new();
    f.trusted = on_lines(&prog, &[4, 5, 6, 11, 13]);
    // A test expecting the check to fail: forcing the check would leave
    // the expected outcome, so the root is the own run, which meets it.
    let fails = Expected {
        stdout: Some(b"check failed\n".to_vec()),
        exit: 1,
    };
    let one_path = EncodeOptions {
        max_paths: 1,
        ..EncodeOptions::default()
    };
    let mut te = TestEncoding::new(&mut f, &prog, &input(&["3"]), &fails, &one_path).unwrap();
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|_| false);
    assert!(m.is_some(), "the own run meets the expectation unchanged");
}

const GUARDED: &str = r#"#include <stdio.h>
#include <stdlib.h>
static void check(int holds) {
    if (!holds)
        exit(1);
}
int main(int argc, char **argv) {
    int *p = argc > 5 ? &argc : NULL;
    check(p != NULL);
    check(*p == 6);
    return 0;
}
"#;

#[test]
fn a_check_guarding_undefined_behaviour_is_not_forced() {
    let (_d, prog, _b) = program(GUARDED);
    let mut f = Formula::new();
    f.trusted = on_lines(&prog, &[4, 5, 9, 10]);
    // Forced past `p != NULL`, the run would dereference null: the root
    // stays the own run, which the model can encode.
    let te = TestEncoding::new(
        &mut f,
        &prog,
        &input(&["1"]),
        &Expected {
            stdout: None,
            exit: 0,
        },
        &EncodeOptions::default(),
    );
    assert!(te.is_ok(), "{:?}", te.err());
}

/// A long prefix (eight arguments parsed, then summed) before the one
/// branch a fix needs; the fault: `limit` should be 10.
const LATE_BRANCH: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int v[8];
    for (int i = 0; i < 8; i++)
        v[i] = atoi(argv[i + 1]);
    int sum = 0;
    for (int i = 0; i < 8; i++)
        sum += v[i] * v[i];
    int limit = 1000;
    if (sum > limit)
        puts("high");
    else
        puts("low");
    return 0;
}
"#;

#[test]
fn a_path_forced_late_shares_the_prefix_of_its_parent() {
    let (_d, prog, _b) = program(LATE_BRANCH);
    let limit = stmt_at(&prog, 10, |k| matches!(k, InstrKind::Init(..)));
    let test = input(&["1", "2", "3", "4", "5", "6", "7", "8"]);
    let mut f = Formula::new();
    let before = f.cnf.clauses.len();
    let mut te = TestEncoding::new(
        &mut f,
        &prog,
        &test,
        &expect("high\n"),
        &EncodeOptions::default(),
    )
    .unwrap();
    let root = f.cnf.clauses.len() - before;
    // Every statement healthy: the test cannot pass (204 is not over 1000).
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|_| false);
    assert!(m.is_none());
    let explored_from = f.cnf.clauses.len();
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == limit);
    let m = m.expect("SAT once the branch's other direction is explored");
    assert_eq!(te.paths(), 2);
    // The new path adds the clauses from where the runs part (`limit`'s
    // value on), not another copy of the parsing and the sums.
    let added = f.cnf.clauses.len() - explored_from;
    assert!(
        added * 5 < root,
        "root {root} clauses, the forced path {added}"
    );
    let slots = te.slots(&|l| m.lit(l));
    let value = slots
        .iter()
        .find(|s| s.stmt == limit)
        .expect("limit's value")
        .value();
    assert!(value < 204, "{slots:?}");
    assert_eq!(replay(&prog, &test, &slots), "high\n");
    // Shared or not, healthy statements still cannot pass.
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|_| false);
    assert!(m.is_none());
}

/// Two single-statement fixes for input 5 and expected 6: `r = 6`, or an
/// index `j` below 3 (`v[1]` is 6). The run takes the `else` branch.
const TWO_FIXES: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int v[3] = {5, 6, 7};
    int j = atoi(argv[1]);
    if (j < 3) {
        printf("%d\n", v[j]);
    } else {
        int r = 0;
        printf("%d\n", r);
    }
    return 0;
}
"#;

#[test]
fn undefined_behaviour_binds_only_where_the_model_follows_the_path() {
    let (_d, prog, _b) = program(TWO_FIXES);
    let j = stmt_at(&prog, 5, |k| matches!(k, InstrKind::Init(..)));
    let r = stmt_at(&prog, 9, |k| matches!(k, InstrKind::Init(..)));
    let test = input(&["5"]);
    let mut f = Formula::new();
    let mut te = TestEncoding::new(
        &mut f,
        &prog,
        &test,
        &expect("6\n"),
        &EncodeOptions::default(),
    )
    .unwrap();
    // `j` free: the path through `v[j]` is explored, made with the model's
    // value of `j`.
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == j);
    assert!(m.is_some());
    assert_eq!(te.paths(), 2);
    // `j` healthy again: on the explored copy `j` is 5 and `v[5]` undefined,
    // but the model does not follow that copy (5 < 3 is false), so it
    // constrains nothing: `r` alone explains the test on the run's own path.
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == r);
    let m = m.expect("r = 6 explains the test");
    let slots = te.slots(&|l| m.lit(l));
    assert_eq!(replay(&prog, &test, &slots), "6\n");
}
