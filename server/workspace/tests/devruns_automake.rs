//! A real Automake project's `make check` leaves a `test-suite.log` that
//! `devruns` reads: which test failed, how many ran.

use faultlens_workspace::devruns::{read_report, DevVerdict, ReportKind};
use std::path::Path;
use std::process::Command;

fn run(dir: &Path, program: &str, args: &[&str]) -> bool {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} (from .ci/deps): {e}"));
    out.status.success()
}

#[test]
fn automakes_test_suite_log_names_the_failing_test() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |name: &str, text: &str| std::fs::write(root.join(name), text).unwrap();
    write(
        "configure.ac",
        "AC_INIT([counts], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n",
    );
    write(
        "Makefile.am",
        "check_PROGRAMS = t_sum t_max t_min\nTESTS = $(check_PROGRAMS)\n",
    );
    write("t_sum.c", "int main(void) { return 1 + 1 == 2 ? 0 : 1; }\n");
    write(
        "t_max.c",
        "#include <stdio.h>\nint main(void) { puts(\"max: expected 3, got 2\"); return 1; }\n",
    );
    write("t_min.c", "int main(void) { return 77; }\n");
    assert!(run(root, "autoreconf", &["-i"]), "autoreconf -i failed");
    assert!(run(root, "./configure", &[]), "./configure failed");
    assert!(!run(root, "make", &["check"]), "make check should fail");

    let run = read_report(root, Path::new("test-suite.log"), ReportKind::Automake)
        .unwrap()
        .expect("a finished run");
    assert_eq!(run.total, 3);
    assert_eq!(run.failed(), ["t_max"]);
    assert_eq!(run.verdict_of("t_min"), Some(DevVerdict::Skipped));
    assert_eq!(run.verdict_of("t_sum"), Some(DevVerdict::Passed));
    assert_eq!(run.describe(), "make check in ./ failed 1 of 3 tests");
}
