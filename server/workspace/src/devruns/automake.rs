//! Automake's parallel test harness writes `test-suite.log` once every test
//! has run: the counts (`# TOTAL: 4`, `# FAIL: 1`, …), then one section per
//! test that did not pass, headed `FAIL: name` over a line of `=`.

use super::{DevTest, DevVerdict, Parsed};

pub fn parse(text: &str) -> Result<Parsed, String> {
    let total =
        count(text, "TOTAL").ok_or("not an Automake test-suite.log (no `# TOTAL:` line)")?;
    let lines: Vec<&str> = text.lines().collect();
    let mut tests = Vec::new();
    for pair in lines.windows(2) {
        let (header, rule) = (pair[0], pair[1]);
        if rule.is_empty() || !rule.bytes().all(|b| b == b'=') {
            continue;
        }
        let Some((result, name)) = header.split_once(": ") else {
            continue;
        };
        let verdict = match result {
            "FAIL" | "ERROR" | "XPASS" => DevVerdict::Failed,
            "SKIP" | "XFAIL" => DevVerdict::Skipped,
            _ => continue,
        };
        tests.push(DevTest {
            name: name.trim().to_string(),
            verdict,
        });
    }
    Ok(Parsed::Finished { tests, total })
}

fn count(text: &str, what: &str) -> Option<usize> {
    let prefix = format!("# {what}:");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|n| n.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    // As automake 1.16's harness writes it (two tests, one failing).
    const LOG: &str = "==============================
   am 1.0: ./test-suite.log
==============================

# TOTAL: 3
# PASS:  1
# SKIP:  1
# FAIL:  1

.. contents:: :depth: 2

FAIL: tests/t_bad
=================

bad!
FAIL tests/t_bad (exit status: 1)

SKIP: t_later
=============

";

    #[test]
    fn failing_and_skipped_tests_are_named() {
        let Parsed::Finished { tests, total } = parse(LOG).unwrap() else {
            panic!("finished")
        };
        assert_eq!(total, 3);
        let named: Vec<_> = tests.iter().map(|t| (t.name.as_str(), t.verdict)).collect();
        assert_eq!(
            named,
            [
                ("tests/t_bad", DevVerdict::Failed),
                ("t_later", DevVerdict::Skipped)
            ]
        );
        assert!(parse("FAIL: x\n=======\n").is_err());
    }

    /// A real Automake project's `make check` (automake and autoconf from
    /// `.ci/deps`).
    mod real {
        use crate::devruns::{read_report, DevVerdict, ReportKind};
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
    }
}
