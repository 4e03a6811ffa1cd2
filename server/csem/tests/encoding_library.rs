//! The C library is written once for the interpreter and the encoding: a
//! program that allocates, fills and joins strings on the heap runs in the
//! interpreter as gcc runs it, and its failing test is encoded along the
//! same calls, so a diagnosis can blame the faulty line and the blamed
//! value replays.

mod common;
use common::{assert_agrees, assert_line_alone_explains, program};
use faultlens_csem::{run, RunOptions, TestInput};

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
    assert_line_alone_explains(&prog, &test, "abcd 13 x\n", FAULT_LINE);
}
