//! Printed strings are symbolic bytes of memory, and memory knows which
//! bytes were never written: a model may print another string along the
//! run's own path (no divergence to explore), and no model prints a byte the
//! program never wrote (the interpreter calls that a runtime error).

mod common;
use common::program;
use faultlens_csem::encode::{apply_slots, EncodeOptions, Expected, Formula, TestEncoding};
use faultlens_csem::ir::Program;
use faultlens_csem::{run, Outcome, RunOptions, TestInput};
use rustsat::types::Lit;

/// Builds "ab" in a buffer one character per iteration and prints it
/// (`puts`, then `%s` and `%-4s|`).
const SRC: &str = r#"
#include <stdio.h>
int main(void)
{
    char w[8];
    int n = 2;
    for (int i = 0; i < n; i++)
        w[i] = (char)('a' + i);
    w[n] = '\0';
    puts(w);
    printf("%s %-4s|\n", w, w);
    return 0;
}
"#;

/// Every statement unhealthy, on the run's own path only (no exploration):
/// the model's values, if any, and whether they replay to `want`.
fn relaxed_on_own_path(prog: &Program, want: &str) -> Option<bool> {
    let mut f = Formula::new();
    let expected = Expected {
        stdout: Some(want.as_bytes().to_vec()),
        exit: 0,
    };
    let opts = EncodeOptions {
        max_steps: 100_000,
        max_paths: 1,
        ..EncodeOptions::default()
    };
    let mut te = TestEncoding::new(&mut f, prog, &TestInput::default(), &expected, &opts).unwrap();
    let mut assumptions = f.all_health(false);
    assumptions.push(te.pass());
    assumptions.push(!te.leaves(&mut f));
    let m = f.cnf.solve(&assumptions).unwrap()?;
    assert!(te.open_divergences(&|l: Lit| m.lit(l)).is_empty());
    let mut ro = RunOptions::default();
    apply_slots(&mut ro, &te.slots(&|l: Lit| m.lit(l)));
    let r = run(prog, &TestInput::default(), &ro);
    Some(matches!(r.outcome, Outcome::Exited(0)) && r.stdout == want.as_bytes())
}

#[test]
fn the_run_itself_prints_ab() {
    let (_dir, prog, _) = program(SRC);
    let r = run(&prog, &TestInput::default(), &RunOptions::default());
    assert_eq!(String::from_utf8_lossy(&r.stdout), "ab\nab ab  |\n");
}

#[test]
fn another_string_of_the_same_length_is_printed_along_the_own_path() {
    let (_dir, prog, _) = program(SRC);
    assert_eq!(relaxed_on_own_path(&prog, "xy\nxy xy  |\n"), Some(true));
}

#[test]
fn a_shorter_string_ends_where_the_model_writes_a_zero() {
    let (_dir, prog, _) = program(SRC);
    assert_eq!(relaxed_on_own_path(&prog, "q\nq q   |\n"), Some(true));
}

#[test]
fn a_longer_string_would_read_unwritten_bytes_so_no_model_prints_it() {
    // Three characters need w[0..3] written and w[3] == 0; along the run's
    // path only three stores exist (two iterations and the terminator), so
    // w[3] is never written: printing it is undefined, not a model.
    let (_dir, prog, _) = program(SRC);
    assert_eq!(relaxed_on_own_path(&prog, "abc\nabc abc |\n"), None);
}
