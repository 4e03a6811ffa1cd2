//! The C library's own objects. `getenv` reads the test's environment: a listed name gives its value
//! (one string per variable, which the program may change, as glibc's),
//! an unlisted one NULL.

mod common;
use faultlens_csem::{run, Outcome, RunOptions, TestInput};

const SRC: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    const char *mode = getenv("SORT_MODE");
    const char *other = getenv("SORT");
    if (mode == NULL) {
        puts("unset");
        return 1;
    }
    printf("%s %zu %s\n", mode, strlen(mode), other ? other : "(null)");
    if (strcmp(mode, "write") == 0) {
        char *m = getenv("SORT_MODE");
        m[0] = 'W';
        printf("%s\n", getenv("SORT_MODE"));
    }
    return 0;
}
"#;

fn run_with(env: &[(&str, &str)]) -> faultlens_csem::RunResult {
    let (_dir, prog, _bin) = common::program(SRC);
    let input = TestInput {
        env: env
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        ..TestInput::default()
    };
    run(&prog, &input, &RunOptions::default())
}

#[test]
fn a_listed_variable_reads_as_its_value_and_an_unlisted_one_as_null() {
    let r = run_with(&[("SORT_MODE", "descending")]);
    assert_eq!(r.outcome, Outcome::Exited(0));
    assert_eq!(r.stdout, b"descending 10 (null)\n");
    let r = run_with(&[]);
    assert_eq!(r.outcome, Outcome::Exited(1));
    assert_eq!(r.stdout, b"unset\n");
}

#[test]
fn a_value_written_through_getenv_is_what_the_next_call_reads() {
    let r = run_with(&[("SORT_MODE", "write"), ("SORT", "x")]);
    assert_eq!(r.outcome, Outcome::Exited(0));
    assert_eq!(r.stdout, b"write 5 x\nWrite\n");
}

/// `<ctype.h>`'s macros and inline functions read glibc's tables; the
/// model's agree with gcc's build for every `unsigned char` value and EOF.
#[test]
fn ctype_classification_and_case_mapping_agree_with_gcc() {
    let src = r#"#include <ctype.h>
#include <stdio.h>

int main(void) {
    for (int c = -1; c < 256; c++) {
        printf("%d:%d%d%d%d%d%d%d%d%d%d%d%d %d %d\n", c, !!isalpha(c), !!isdigit(c), !!isspace(c),
               !!isupper(c), !!islower(c), !!isalnum(c), !!isxdigit(c), !!ispunct(c),
               !!isprint(c), !!isgraph(c), !!iscntrl(c), !!isblank(c),
               (*__ctype_tolower_loc())[c], (*__ctype_toupper_loc())[c]);
    }
    signed char s = -40;
    printf("%d\n", (*__ctype_tolower_loc())[s]);
    return 0;
}
"#;
    common::assert_agrees(src, &[(&[], "")]);
}
