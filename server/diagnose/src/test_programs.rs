//! Small C programs for unit tests: loaded by the model from a temporary
//! directory, and run as a unit test (exit status 0 passes).

use crate::bridge::ModelTest;
use faultlens_csem::encode::Expected;
use faultlens_csem::ir::{InstrKind, Program, StmtId};
use faultlens_csem::{SourceSpec, TestInput};

/// `source` as the model's program (the directory holds its file).
pub fn program(source: &str) -> (tempfile::TempDir, Program) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("program.c"), source).unwrap();
    let spec = SourceSpec {
        root: dir.path().to_path_buf(),
        sources: vec!["program.c".into()],
        cc: "gcc".into(),
        cflags: Vec::new(),
        source_flags: Vec::new(),
    };
    let prog = faultlens_csem::load(&spec).unwrap();
    (dir, prog)
}

/// The statements of the instructions on `lines` that `pick` accepts.
pub fn on_lines(prog: &Program, lines: &[u32], pick: fn(&InstrKind) -> bool) -> Vec<StmtId> {
    prog.funcs
        .iter()
        .flat_map(|f| &f.body)
        .filter(|i| lines.contains(&i.range.start.line) && pick(&i.kind))
        .map(|i| i.stmt)
        .collect()
}

/// A failing run of the program with no input, expected to exit with 0.
pub fn unit_test() -> ModelTest {
    ModelTest {
        name: "unit".into(),
        input: TestInput::default(),
        expected: Expected {
            stdout: None,
            exit: 0,
        },
        program_name: "program".into(),
        cwd: std::env::temp_dir(),
        observed_stdout: String::new(),
        observed_stderr: String::new(),
        observed_exit: Some(1),
        observed_signal: None,
        comparable: false,
        recorded_lines: None,
        unanswered_reads: None,
    }
}

/// A run of the program with the one argument `arg`, expected to print
/// `stdout` and exit with 0.
pub fn printing(arg: &str, stdout: &str) -> ModelTest {
    let mut t = unit_test();
    t.name = arg.into();
    t.input.args = vec![arg.into()];
    t.expected.stdout = Some(stdout.as_bytes().to_vec());
    t
}

/// Prints the widest count's digits; the fault: the loop's condition (line
/// 8) is negated, so it never ends for a count below 10.
pub const HANGING_WIDTH: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int width = 1;
    for (int i = 1; i < argc; i++) {
        int n = atoi(argv[i]);
        int digits = 1;
        while (!(n >= 10)) {
            n = n / 10;
            digits++;
        }
        if (digits > width)
            width = digits;
    }
    printf("%d\n", width);
    return 0;
}
"#;
