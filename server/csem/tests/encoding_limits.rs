//! What bounds an encoding: a path whose formula grows past the clause
//! limit is given up (its clauses dropped, the formula as before), and
//! `a / b` beside `a % b` costs one divider, not two, and small operands and
//! unsigned values are computed narrow, with values that
//! still agree with the interpreter.

mod common;
use common::program;
use faultlens_csem::encode::{EncodeError, EncodeOptions, Expected, Formula, TestEncoding};
use faultlens_csem::{run, RunOptions, TestInput};
use rustsat::types::Lit;

/// Digits of argv[1] in base argv[2]: a 64-bit division and remainder per digit.
const DIGITS: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    unsigned long n = strtoul(argv[1], 0, 10), base = strtoul(argv[2], 0, 10);
    int digits = 0;
    do {
        unsigned long d = n % base;
        n = n / base;
        digits += d > 0;
        digits++;
    } while (n > 0);
    printf("%d\n", digits);
    return 0;
}
"#;

/// The same with only the division: what one divider per digit costs.
fn quotient_only() -> String {
    DIGITS.replace("unsigned long d = n % base;", "unsigned long d = n;")
}

fn args(a: &[&str]) -> TestInput {
    TestInput {
        args: a.iter().map(|s| s.to_string()).collect(),
        ..TestInput::default()
    }
}

fn expected(prog: &faultlens_csem::Program, input: &TestInput) -> Expected {
    let r = run(prog, input, &RunOptions::default());
    Expected {
        stdout: Some(r.stdout),
        exit: 0,
    }
}

fn options(max_clauses_per_path: usize) -> EncodeOptions {
    EncodeOptions {
        max_steps: 100_000,
        max_paths: 1,
        max_clauses_per_path,
    }
}

/// Clauses the test's own path adds.
fn clauses_of(src: &str, input: &TestInput) -> usize {
    let (_dir, prog, _) = program(src);
    let mut f = Formula::new();
    let before = f.cnf.clauses.len();
    TestEncoding::new(
        &mut f,
        &prog,
        input,
        &expected(&prog, input),
        &options(usize::MAX),
    )
    .expect("encodes");
    f.cnf.clauses.len() - before
}

#[test]
fn a_path_past_the_clause_limit_is_given_up_and_its_clauses_dropped() {
    let (_dir, prog, _) = program(DIGITS);
    let input = args(&["123456789", "7"]);
    let want = expected(&prog, &input);
    let mut f = Formula::new();
    // A first test, within the limit, stays encoded and solvable.
    let small = args(&["5", "7"]);
    let kept = TestEncoding::new(
        &mut f,
        &prog,
        &small,
        &expected(&prog, &small),
        &options(1_000_000),
    )
    .expect("one digit fits");
    let before = f.cnf.clauses.len();
    match TestEncoding::new(&mut f, &prog, &input, &want, &options(50_000)) {
        Err(EncodeError::Unsupported(m)) => assert!(m.contains("clause limit"), "{m}"),
        Ok(_) => panic!("ten 64-bit divisions fit in 50,000 clauses"),
    }
    assert_eq!(f.cnf.clauses.len(), before, "clauses left behind");
    let mut assumptions = f.all_health(true);
    assumptions.push(kept.pass());
    assert!(
        f.cnf.solve(&assumptions).unwrap().is_some(),
        "the first test still passes"
    );
}

#[test]
fn a_quotient_beside_its_remainder_costs_one_divider() {
    let input = args(&["123456789", "7"]);
    assert_ne!(quotient_only(), DIGITS);
    let both = clauses_of(DIGITS, &input);
    let quotient = clauses_of(&quotient_only(), &input);
    // Without sharing, the remainder would add a second divider per digit
    // (about as much again); shared, it adds a little bookkeeping.
    assert!(
        both < quotient + quotient / 4,
        "with the remainder {both} clauses, without {quotient}"
    );
}

#[test]
fn a_shared_divider_gives_the_interpreters_values() {
    let (_dir, prog, _) = program(DIGITS);
    for (n, base, want) in [
        ("123456789", "7", "19\n"),
        ("100", "10", "4\n"),
        ("0", "3", "1\n"),
    ] {
        let input = args(&[n, base]);
        let r = run(&prog, &input, &RunOptions::default());
        assert_eq!(String::from_utf8_lossy(&r.stdout), want);
        let mut f = Formula::new();
        let te = TestEncoding::new(
            &mut f,
            &prog,
            &input,
            &expected(&prog, &input),
            &options(usize::MAX),
        )
        .expect("encodes");
        let mut assumptions = f.all_health(true);
        assumptions.push(te.pass());
        assert!(
            f.cnf.solve(&assumptions).unwrap().is_some(),
            "{n} {base}: the run's own output"
        );
        // Any other output is impossible with every statement correct.
        let mut f = Formula::new();
        let wrong = Expected {
            stdout: Some(b"99\n".to_vec()),
            exit: 0,
        };
        let mut te = TestEncoding::new(&mut f, &prog, &input, &wrong, &options(usize::MAX))
            .expect("encodes");
        let mut assumptions: Vec<Lit> = f.all_health(true);
        assumptions.push(te.pass());
        assumptions.push(!te.leaves(&mut f));
        assert!(
            f.cnf.solve(&assumptions).unwrap().is_none(),
            "{n} {base}: 99 printed"
        );
    }
}

/// A ring of slots: each push stores at `(head + count) % capacity`, a
/// 64-bit remainder of small operands.
const RING: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    size_t capacity = strtoul(argv[1], 0, 10);
    size_t head = 3, count = 0;
    int slots[16] = {0};
    for (int i = 0; i < 12; i++) {
        size_t at = (head + count) % capacity;
        slots[at] = i;
        count++;
    }
    printf("%d\n", slots[(head + 8) % capacity]);
    return 0;
}
"#;

#[test]
fn a_remainder_of_small_operands_is_encoded_narrow() {
    let input = args(&["16"]);
    let clauses = clauses_of(RING, &input);
    // Thirteen 64-bit dividers would be over a million clauses; operands of
    // 5 bits (plus the margin) take a few thousand each.
    assert!(clauses < 200_000, "{clauses} clauses");
    assert!(clauses > 1_000, "{clauses} clauses: nothing encoded?");
}

/// Encodes `src` on `input` and checks that the run's own output passes
/// with every statement correct, that `wrong` cannot, and that it can with
/// the statement on `line` free: the encoding computes what the
/// interpreter does and lets that statement's value change.
fn a_change_on_line_alone_prints(src: &str, input: &TestInput, line: u32, wrong: &[u8]) {
    let (_dir, prog, _) = program(src);
    let want = expected(&prog, input);
    let mut f = Formula::new();
    let te = TestEncoding::new(&mut f, &prog, input, &want, &options(usize::MAX)).expect("encodes");
    let mut assumptions = f.all_health(true);
    assumptions.push(te.pass());
    assert!(
        f.cnf.solve(&assumptions).unwrap().is_some(),
        "the run's own output"
    );
    let wrong = Expected {
        stdout: Some(wrong.to_vec()),
        exit: 0,
    };
    let mut f = Formula::new();
    let mut te =
        TestEncoding::new(&mut f, &prog, input, &wrong, &options(usize::MAX)).expect("encodes");
    let mut assumptions: Vec<Lit> = f.all_health(true);
    assumptions.push(te.pass());
    assumptions.push(!te.leaves(&mut f));
    assert!(
        f.cnf.solve(&assumptions).unwrap().is_none(),
        "printed with every statement correct"
    );
    let free = common::statement_on_line(&prog, line);
    assert!(
        f.health.contains_key(&free),
        "line {line} has no health literal"
    );
    let assumptions: Vec<Lit> = f
        .health
        .iter()
        .map(|(s, l)| if *s == free { !*l } else { *l })
        .chain([te.pass()])
        .collect();
    assert!(
        f.cnf.solve(&assumptions).unwrap().is_some(),
        "printed with line {line} free"
    );
}

#[test]
fn a_narrow_circuit_computes_what_the_interpreter_does_and_lets_a_small_value_change() {
    let input = args(&["16"]);
    let (_dir, prog, _) = program(RING);
    assert_eq!(expected(&prog, &input).stdout.as_deref(), Some(&b"8\n"[..]));
    // With `capacity`'s statement free, a capacity of 3 (or 1) makes the
    // last push land in the printed slot: "11".
    a_change_on_line_alone_prints(RING, &input, 4, b"11\n");
}

/// A `size_t` loop over the characters of an argument, as string code is.
const UNSIGNED_LOOP: &str = r#"#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    size_t len = strlen(argv[1]), marks = 0;
    for (size_t i = 0; i < len; i++)
        if (argv[1][i] == 'x')
            marks += len - i;
    printf("%zu\n", marks);
    return 0;
}
"#;

#[test]
fn unsigned_values_are_encoded_as_narrow_as_the_run_needs() {
    let input = args(&["axbxcxdxexfxgxhx"]);
    let clauses = clauses_of(UNSIGNED_LOOP, &input);
    // Full-width 64-bit adders, subtractions and comparisons at each of
    // the 16 iterations took 91,599 clauses; 7 bits and the margin, 43,877
    // (38,028 with identical gates shared).
    assert!(clauses < 60_000, "{clauses} clauses");
    assert!(clauses > 1_000, "{clauses} clauses: nothing encoded?");
    // Narrow, the values still agree with the run, and a statement's value
    // may still change within the margin: with `marks +=` free, 1000.
    let (_dir, prog, _) = program(UNSIGNED_LOOP);
    assert_eq!(
        expected(&prog, &input).stdout.as_deref(),
        Some(&b"64\n"[..])
    );
    a_change_on_line_alone_prints(UNSIGNED_LOOP, &input, 7, b"1000\n");
}
