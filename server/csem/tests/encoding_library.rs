//! The C library is written once for the interpreter and the encoding: a
//! program that allocates, fills and joins strings on the heap runs in the
//! interpreter as gcc runs it, and its failing test is encoded along the
//! same calls, so a diagnosis can blame the faulty line and the blamed
//! value replays.

mod common;
use common::{assert_agrees, program};
use faultlens_csem::encode::{apply_slots, EncodeOptions, Expected, Formula, TestEncoding};
use faultlens_csem::ir::{InstrKind, Program};
use faultlens_csem::{run, Outcome, RunOptions, TestInput};
use rustsat::types::Lit;

/// Joins two words on the heap and prints the result with a score; the
/// score's line (`n * 2`) is the fault: the specification is `n * 3`.
const SRC: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    char *buf = calloc(4, 8);
    char *tmp = malloc(32);
    memset(tmp, 'x', 31);
    tmp[31] = '\0';
    strncpy(buf, argc > 1 ? argv[1] : "ab", 8);
    strcat(buf, "cd");
    char *big = realloc(buf, 64);
    int n = (int)strlen(big);
    int score = n * 2;
    if (strncmp(big, "abx", 2) == 0)
        score = score + 1;
    printf("%s %d %c\n", big, score, tmp[3]);
    free(big);
    free(tmp);
    return 0;
}
"#;

const FAULT_LINE: u32 = 15;

fn statement_on_line(prog: &Program, line: u32) -> usize {
    prog.funcs
        .iter()
        .flat_map(|f| &f.body)
        .find(|i| i.range.start.line == line && !matches!(i.kind, InstrKind::Jump(_)))
        .map(|i| i.stmt)
        .expect("a statement on the line")
}

#[test]
fn the_interpreter_agrees_with_gcc_on_the_heap_program() {
    assert_agrees(
        SRC,
        &[(&[], ""), (&["ab"], ""), (&["zz"], ""), (&["abcdef"], "")],
    );
}

#[test]
fn the_failing_test_is_explained_by_the_faulty_line_alone_and_its_value_replays() {
    let (_dir, prog, _) = program(SRC);
    let test = TestInput::default();
    let ran = run(&prog, &test, &RunOptions::default());
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "abcd 9 x\n");
    let want = b"abcd 13 x\n".to_vec();
    let expected = Expected {
        stdout: Some(want.clone()),
        exit: 0,
    };
    let opts = EncodeOptions {
        max_steps: 100_000,
        ..EncodeOptions::default()
    };
    let mut f = Formula::new();
    let te = TestEncoding::new(&mut f, &prog, &test, &expected, &opts)
        .unwrap_or_else(|e| panic!("the heap program is encoded: {e}"));
    let fault = f.health[&statement_on_line(&prog, FAULT_LINE)];

    let mut all_healthy = f.all_health(true);
    all_healthy.push(te.pass());
    assert!(
        f.cnf.solve(&all_healthy).unwrap().is_none(),
        "the program as written cannot print the expected line"
    );

    let mut only_fault: Vec<Lit> = f
        .health
        .values()
        .map(|&h| if h == fault { !h } else { h })
        .collect();
    only_fault.push(te.pass());
    let model = f
        .cnf
        .solve(&only_fault)
        .unwrap()
        .expect("the faulty line alone explains the failure");
    let mut replay = RunOptions::default();
    apply_slots(&mut replay, &te.slots(&|l: Lit| model.lit(l)));
    let r = run(&prog, &test, &replay);
    assert!(matches!(r.outcome, Outcome::Exited(0)), "{:?}", r.outcome);
    assert_eq!(String::from_utf8_lossy(&r.stdout), "abcd 13 x\n");
}
