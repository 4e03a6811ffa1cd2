//! Sub-expressions of a statement: which ones are candidates, the
//! interpreter's overrides of their values, and their health literals in
//! the encoding (free when false, the rest of the statement as written).

mod common;
use common::program;
use faultlens_csem::encode::{apply_slots, Expected, Formula, SlotRole, TestEncoding};
use faultlens_csem::ir::{InstrKind, Program, StmtId};
use faultlens_csem::{run, subexpr, RunOptions, TestInput};
use rustsat::types::Lit;
use std::collections::BTreeMap;

/// The fault: `y > 0` should be `y >= 0`.
const BOTH: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int x = atoi(argv[1]);
    int y = atoi(argv[2]);
    if (x > 0 && y > 0)
        puts("both");
    else
        puts("not both");
    return 0;
}
"#;

fn branch_on(prog: &Program, line: u32) -> StmtId {
    prog.funcs
        .iter()
        .flat_map(|f| &f.body)
        .find(|i| i.range.start.line == line && matches!(i.kind, InstrKind::Branch { .. }))
        .expect("a branch on the line")
        .stmt
}

fn texts(src: &str, prog: &Program, stmt: StmtId) -> Vec<(String, Option<u32>)> {
    let lines: Vec<&str> = src.lines().collect();
    subexpr::of_statement(prog, stmt)
        .iter()
        .map(|c| {
            let r = c.range();
            let line = lines[r.start.line as usize - 1];
            let text = &line[r.start.col as usize - 1..r.end.col as usize - 1];
            (text.to_string(), c.parent)
        })
        .collect()
}

fn args(a: &[&str]) -> TestInput {
    TestInput {
        args: a.iter().map(|s| s.to_string()).collect(),
        ..TestInput::default()
    }
}

#[test]
fn a_conditions_candidates_are_its_operands_in_pre_order() {
    let (_dir, prog, _) = program(BOTH);
    let cond = branch_on(&prog, 6);
    let want: Vec<(String, Option<u32>)> = [
        ("x > 0", None),
        ("x", Some(0)),
        ("0", Some(0)),
        ("y > 0", None),
        ("y", Some(3)),
        ("0", Some(3)),
    ]
    .iter()
    .map(|(t, p)| (t.to_string(), *p))
    .collect();
    assert_eq!(texts(BOTH, &prog, cond), want);
    // The statement's value itself (`atoi(argv[2])`) is not one; the
    // index inside it is.
    let init_y = prog
        .funcs
        .iter()
        .flat_map(|f| &f.body)
        .find(|i| i.range.start.line == 5)
        .unwrap()
        .stmt;
    assert_eq!(texts(BOTH, &prog, init_y), vec![("2".to_string(), None)]);
}

#[test]
fn the_interpreter_substitutes_a_sub_expressions_value() {
    let (_dir, prog, _) = program(BOTH);
    let cond = branch_on(&prog, 6);
    let plain = run(&prog, &args(&["1", "0"]), &RunOptions::default());
    assert_eq!(plain.stdout, b"not both\n");
    // `y` read as 1 at the branch's first instance: the condition holds.
    let opts = RunOptions {
        expr_overrides: BTreeMap::from([((cond, 0, 4), 1)]),
        ..RunOptions::default()
    };
    let r = run(&prog, &args(&["1", "0"]), &opts);
    assert_eq!(r.stdout, b"both\n");
    assert!(r.unapplied_expr_overrides.is_empty());
    // `y > 0` is not evaluated when `x > 0` is false: not applied.
    let r = run(&prog, &args(&["0", "0"]), &opts);
    assert_eq!(r.stdout, b"not both\n");
    assert_eq!(r.unapplied_expr_overrides, vec![(cond, 0, 4)]);
}

/// Whether the failing test passes with only candidate `n` of `stmt` free
/// (every statement healthy), exploring paths; the model's values replayed.
fn explains(prog: &Program, stmt: StmtId, n: u32, test: &TestInput, want: &str) -> bool {
    let mut f = Formula::new();
    f.refined.insert(stmt);
    let expected = Expected {
        stdout: Some(want.as_bytes().to_vec()),
        exit: 0,
    };
    let mut te = TestEncoding::new(&mut f, prog, test, &expected, &Default::default()).unwrap();
    for _ in 0..8 {
        let g = f.sub_health[&(stmt, n)];
        let mut assumptions = f.all_health(true);
        assumptions.extend(f.sub_health.values().map(|&l| if l == g { !l } else { l }));
        assumptions.push(te.pass());
        let Some(m) = f.cnf.solve(&assumptions).unwrap() else {
            return false;
        };
        let divs = te.open_divergences(&|l: Lit| m.lit(l));
        if divs.is_empty() {
            let slots = te.slots(&|l: Lit| m.lit(l));
            assert!(
                slots
                    .iter()
                    .all(|s| s.role == SlotRole::Subexpr && s.arg == n),
                "{slots:?}"
            );
            let mut opts = RunOptions::default();
            apply_slots(&mut opts, &slots);
            let r = run(prog, test, &opts);
            assert_eq!(
                String::from_utf8_lossy(&r.stdout),
                want,
                "replay of {slots:?}"
            );
            assert!(r.unapplied_expr_overrides.is_empty());
            return true;
        }
        for d in &divs {
            te.explore(&mut f, prog, d).unwrap();
        }
    }
    panic!("no model stayed on the encoded paths");
}

#[test]
fn only_the_faulty_operand_of_a_conjunction_can_mend_the_test() {
    let (_dir, prog, _) = program(BOTH);
    let cond = branch_on(&prog, 6);
    let test = args(&["1", "0"]);
    let mending: Vec<u32> = (0..6)
        .filter(|&n| explains(&prog, cond, n, &test, "both\n"))
        .collect();
    // `y > 0`, `y` and its `0`; not `x > 0` (already true) nor its operands.
    assert_eq!(mending, vec![3, 4, 5]);
}

#[test]
fn a_path_forced_at_a_statements_later_point_does_not_reopen_it() {
    let (_dir, prog, _) = program(BOTH);
    let cond = branch_on(&prog, 6);
    let test = args(&["1", "0"]);
    let mut f = Formula::new();
    f.refined.insert(cond);
    let expected = Expected {
        stdout: Some(b"both\n".to_vec()),
        exit: 0,
    };
    let mut te = TestEncoding::new(&mut f, &prog, &test, &expected, &Default::default()).unwrap();
    // `y > 0` free: the model leaves the run where the `if` branches.
    let g = f.sub_health[&(cond, 3)];
    let mut assumptions = f.all_health(true);
    assumptions.extend(f.sub_health.values().map(|&l| if l == g { !l } else { l }));
    assumptions.push(te.pass());
    let m = f.cnf.solve(&assumptions).unwrap().expect("satisfiable");
    let divs = te.open_divergences(&|l: Lit| m.lit(l));
    let at_branch = divs
        .iter()
        .filter(|d| d.stmt == cond)
        .max_by_key(|d| d.point)
        .expect("a divergence at the condition");
    // The branch is not the statement's first point (its operands' values
    // come first): the new path must be open only after the branch, where
    // nothing branches, or the model could flip it back and forth, a copy
    // of the run each time.
    assert!(at_branch.point > 0, "{divs:?}");
    te.explore(&mut f, &prog, at_branch).unwrap();
    assert_eq!(te.paths(), 2);
    assert!(
        te.unexplored_except(0).is_empty(),
        "{:?}",
        te.unexplored_except(0)
    );
}

#[test]
fn without_refinement_the_encoding_has_no_sub_expression_literals() {
    let (_dir, prog, _) = program(BOTH);
    let mut f = Formula::new();
    let expected = Expected {
        stdout: Some(b"both\n".to_vec()),
        exit: 0,
    };
    TestEncoding::new(
        &mut f,
        &prog,
        &args(&["1", "0"]),
        &expected,
        &Default::default(),
    )
    .unwrap();
    assert!(f.sub_health.is_empty());
    assert!(!f.health.is_empty());
}

/// Reads a run of digits; the fault: `>` should be `>=`.
const DIGITS: &str = r#"#include <stdio.h>
int main(int argc, char **argv) {
    const char *text = argv[1];
    int i = 0, value = 0;
    while (text[i] > '0' && !(text[i] > '9')) {
        value = value * 10 + (text[i] - '0');
        i++;
    }
    printf("%d\n", value);
    return 0;
}
"#;

#[test]
fn a_condition_compares_the_values_its_comparisons_read_not_their_indices() {
    let (_dir, prog, _) = program(DIGITS);
    let cond = branch_on(&prog, 5);
    let texts = texts(DIGITS, &prog, cond);
    let compared: Vec<&str> = subexpr::compared_operands(&prog, cond)
        .into_iter()
        .map(|n| texts[n as usize].0.as_str())
        .collect();
    assert_eq!(compared, ["text[i]", "'0'", "text[i]", "'9'"]);
    assert!(texts.iter().any(|(t, _)| t == "i"), "{texts:?}");
    // A sum compares nothing.
    let sum = prog
        .funcs
        .iter()
        .flat_map(|f| &f.body)
        .find(|i| i.range.start.line == 6)
        .unwrap()
        .stmt;
    assert!(subexpr::compared_operands(&prog, sum).is_empty());
}
