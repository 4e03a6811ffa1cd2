//! Free inputs of verification harnesses: `__VERIFIER_nondet_*()` returns the
//! test's `nondet` values in the interpreter and fresh values in the encoding.

use faultlens_csem::encode::{EncodeOptions, Expected, Formula, TestEncoding};
use faultlens_csem::ir::Program;
use faultlens_csem::{load, run, Outcome, RunOptions, SourceSpec, TestInput};
use std::path::PathBuf;

/// Load `src` in the model (no native build: the harness declares functions
/// only a verifier, or a test runtime, defines).
fn program(src: &str) -> (tempfile::TempDir, Program, ()) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("prog.c"), src).expect("write");
    let prog = load(&SourceSpec::new(dir.path(), vec![PathBuf::from("prog.c")]))
        .unwrap_or_else(|e| panic!("model loads: {e}"));
    (dir, prog, ())
}
use rustsat::types::Lit;

const HARNESS: &str = r#"#include <assert.h>
#include <stdio.h>
extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern _Bool __VERIFIER_nondet_bool(void);
extern long __VERIFIER_nondet_long(void);

int main(void) {
    int x = __VERIFIER_nondet_int();
    int y = __VERIFIER_nondet_int();
    unsigned char c = __VERIFIER_nondet_uchar();
    _Bool b = __VERIFIER_nondet_bool();
    long l = __VERIFIER_nondet_long();
    printf("%d %d %d %d %ld\n", x, y, c, b, l);
    return 0;
}
"#;

fn nondet(values: &[i64]) -> TestInput {
    TestInput {
        nondet: values.to_vec(),
        ..TestInput::default()
    }
}

#[test]
fn the_interpreter_returns_the_tests_values_converted_to_each_type() {
    let (dir, prog, bin) = program(HARNESS);
    let _ = (dir, bin);
    let r = run(
        &prog,
        &nondet(&[3, -5, 300, 7, -9_000_000_000]),
        &RunOptions::default(),
    );
    assert_eq!(r.outcome, Outcome::Exited(0));
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        "3 -5 44 1 -9000000000\n"
    );
}

#[test]
fn running_out_of_values_is_a_clear_error() {
    let (_dir, prog, _bin) = program(HARNESS);
    let r = run(&prog, &nondet(&[1]), &RunOptions::default());
    let Outcome::RuntimeError { message, .. } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(
        message.contains("__VERIFIER_nondet_int")
            && message.contains("2nd time")
            && message.contains("1 nondet value"),
        "{message}"
    );
}

#[test]
fn a_definition_in_the_program_wins() {
    let src = r#"#include <stdio.h>
int __VERIFIER_nondet_int(void) { return 42; }
int main(void) {
    printf("%d\n", __VERIFIER_nondet_int());
    return 0;
}
"#;
    let (_dir, prog, _bin) = program(src);
    let r = run(&prog, &nondet(&[]), &RunOptions::default());
    assert_eq!(String::from_utf8_lossy(&r.stdout), "42\n");
}

/// min of two inputs with a fault (`>` for `<`), specified by an assertion.
const MIN: &str = r#"#include <assert.h>
extern int __VERIFIER_nondet_int(void);

int main(void) {
    int x = __VERIFIER_nondet_int();
    int y = __VERIFIER_nondet_int();
    int m = x;
    if (y > m)
        m = y;
    assert(m <= x && m <= y);
    return 0;
}
"#;

/// Solve with every statement healthy and `pass` asserted, exploring divergences.
fn solve_healthy(f: &mut Formula, te: &mut TestEncoding, prog: &Program) -> Option<Vec<i64>> {
    for _ in 0..20 {
        let mut assumptions = f.all_health(true);
        assumptions.push(te.pass());
        let m = f.cnf.solve(&assumptions).unwrap()?;
        let model = |l: Lit| m.lit(l);
        let divs = te.open_divergences(&model);
        if divs.is_empty() {
            return Some(te.nondet_values(&model));
        }
        for d in divs {
            te.explore(f, prog, &d).unwrap();
        }
    }
    panic!("exploration does not converge")
}

#[test]
fn the_solver_chooses_inputs_that_violate_the_assertion_and_they_replay() {
    let (_dir, prog, _bin) = program(MIN);
    let mut f = Formula::new();
    // The run on (0, 0) passes; ask for a run that aborts.
    let abort = Expected {
        stdout: None,
        exit: 134,
    };
    let mut te = TestEncoding::new(
        &mut f,
        &prog,
        &nondet(&[]),
        &abort,
        &EncodeOptions::default(),
    )
    .unwrap();
    let values = solve_healthy(&mut f, &mut te, &prog).expect("a failing input exists");
    assert_eq!(values.len(), 2, "{values:?}");
    // m is the larger of the two: the assertion fails exactly when they differ.
    assert_ne!(values[0], values[1]);
    let r = run(&prog, &nondet(&values), &RunOptions::default());
    assert_eq!(r.outcome, Outcome::Signaled(6), "{values:?}");
    // A passing run needs x == y: the run on (5, 9) fails, the solver finds one.
    let mut f = Formula::new();
    let ok = Expected {
        stdout: None,
        exit: 0,
    };
    let mut te = TestEncoding::new(
        &mut f,
        &prog,
        &nondet(&[5, 9]),
        &ok,
        &EncodeOptions::default(),
    )
    .unwrap();
    let values = solve_healthy(&mut f, &mut te, &prog).expect("a passing input exists");
    assert_eq!(values[0], values[1]);
    let r = run(&prog, &nondet(&values), &RunOptions::default());
    assert_eq!(r.outcome, Outcome::Exited(0), "{values:?}");
}
