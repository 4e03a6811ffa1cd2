//! Inputs the fuzz targets (`server/fuzz`, target `csem`) once crashed the
//! front end with: each must give an error or a program, never a panic.
//! The inputs are kept in `server/fuzz/regressions/csem/`, which every fuzz
//! pass replays too.

use faultlens_csem::{load_preprocessed, run, CsemError, Outcome, RunOptions, TestInput};
use std::path::Path;

fn regression(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions/csem")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn gnu_conditional_without_a_middle_operand_is_unsupported_not_a_panic() {
    // `x ?: 2` parses with no `consequence`; lowering expected one.
    let err = load_preprocessed(
        Path::new("p.c"),
        &regression("gnu-elvis-without-middle-operand.c"),
    )
    .unwrap_err();
    assert!(
        matches!(err, CsemError::Unsupported { line: 3, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("`?:` without a middle operand"),
        "{err}"
    );
}

#[test]
fn a_line_marker_at_the_last_u32_line_does_not_overflow() {
    // The line after `# 4294967295 "f.c"` was numbered with `+ 1`, which
    // overflowed (a panic in debug builds).
    let prog = load_preprocessed(Path::new("p.c"), &regression("line-marker-at-u32-max.c"))
        .expect("the program loads");
    let result = run(&prog, &TestInput::default(), &RunOptions::default());
    assert_eq!(result.outcome, Outcome::Exited(0));
}

#[test]
fn a_parse_slowed_by_deep_nesting_after_a_syntax_error_is_given_up_in_time() {
    // tree-sitter's error recovery took 18–26 s on 800 nested calls after a
    // broken typedef; the parse now stops at its budget.
    let source = regression("deep-call-declarator-with-syntax-error.c");
    let deeper = source.replacen("f(", &"f(".repeat(600), 1);
    let started = std::time::Instant::now();
    let err = load_preprocessed(Path::new("p.c"), &deeper).unwrap_err();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(err, CsemError::Unsupported { .. }) && err.to_string().contains("syntax error"),
        "{err}"
    );
}
