//! Deciding whether a test passed, and saying why it did not.

use crate::config::Compare;
use crate::execute::Execution;
use crate::testspec::TestSpec;
use faultlens_core::results::Outcome;

pub fn judge(spec: &TestSpec, run: &Execution) -> (Outcome, Option<String>) {
    if let Some(e) = &run.spawn_error {
        return (Outcome::NotRun, Some(e.clone()));
    }
    if run.timed_out {
        let seconds = spec.timeout.as_secs_f64();
        let reason = if run.output_held {
            format!(
                "its process ended, but a process it started kept its output open past the {seconds:.1} s timeout and was stopped"
            )
        } else if run.needed_kill {
            format!(
                "timed out after {seconds:.1} s and did not stop on SIGTERM within {} s, so it was killed and the coverage it gathered is lost",
                crate::process::GRACE.as_secs()
            )
        } else {
            format!("timed out after {seconds:.1} s and was stopped")
        };
        return (Outcome::TimedOut, Some(reason));
    }
    if let Some(sig) = run.signal {
        let reason = format!("crashed: killed by {}", signal_name(sig));
        return (Outcome::Crashed, Some(with_last_output(reason, run)));
    }
    let failure = expectation_failure(spec, run).map(|reason| {
        // An exit status alone says little; the test's own last words
        // (an assertion message, "FAIL ...") usually say what went wrong.
        if spec.expect.stdout.is_none() {
            with_last_output(reason, run)
        } else {
            reason
        }
    });
    let expect = &spec.expect;
    if expect.skip_exit.is_some() && run.exit_code == expect.skip_exit {
        return (Outcome::Passed, None);
    }
    match (failure, expect.will_fail) {
        (None, false) => (Outcome::Passed, None),
        (Some(reason), false) => (Outcome::Failed, Some(reason)),
        (None, true) => (
            Outcome::Failed,
            Some("passed, but the test is marked WILL_FAIL".into()),
        ),
        (Some(_), true) => (Outcome::Passed, None),
    }
}

fn expectation_failure(spec: &TestSpec, run: &Execution) -> Option<String> {
    let expect = &spec.expect;
    let code = run.exit_code.unwrap_or(-1);
    if !expect.pass_regex.is_empty() || !expect.fail_regex.is_empty() {
        let mut output = String::from_utf8_lossy(&run.stdout).into_owned();
        output.push_str(&String::from_utf8_lossy(&run.stderr));
        if let Some(r) = expect.fail_regex.iter().find(|r| r.is_match(&output)) {
            return Some(format!(
                "output matches FAIL_REGULAR_EXPRESSION {:?}",
                r.as_str()
            ));
        }
        if !expect.pass_regex.is_empty() && !expect.pass_regex.iter().any(|r| r.is_match(&output)) {
            return Some("output matches no PASS_REGULAR_EXPRESSION".into());
        }
    }
    if let Some(expected) = expect.exit {
        if code != expected {
            return Some(format!("exited with status {code}, expected {expected}"));
        }
    }
    if let Some(expected) = &expect.stdout {
        if let Some(diff) = stdout_difference(expected, &run.stdout, expect.compare) {
            if run.stdout_cut {
                // The pipeline keeps more than the expectation's length, so
                // a cut output is longer than expected; say where it was cut.
                return Some(format!(
                    "{diff} (stdout was cut at {} bytes, the output limit; [run] output_limit sets it)",
                    run.stdout.len()
                ));
            }
            return Some(diff);
        }
        if run.stdout_cut {
            return Some(format!(
                "stdout was cut at {} bytes, the output limit, and cannot be compared with the expectation beyond it; raise [run] output_limit",
                run.stdout.len()
            ));
        }
    }
    None
}

/// `reason` followed by what the test said of its failure: the TAP cases
/// that failed, else its failed checks or last line (see [`what_failed`]).
fn with_last_output(reason: String, run: &Execution) -> String {
    // A TAP producer (any runner printing `ok N - name` / `not ok N - name`)
    // names its failed cases: the one row it stays says which.
    let tap = tap_failures(&String::from_utf8_lossy(&run.stdout));
    if let Some(failed) = tap {
        return format!("{reason}: {}", clip(&failed, 300));
    }
    match what_failed(run) {
        Some(said) => format!("{reason}: {said}"),
        None => reason,
    }
}

/// Where a failing test says it failed: the location of its first failed
/// check (`file:line:`), else the last location printed on a line that
/// does not report a passing check; never line 0.
pub fn failure_location(run: &Execution) -> Option<(String, u32)> {
    let location = |line: &str| {
        LOCATION
            .captures(line)
            .and_then(|m| Some((m[1].to_string(), m[3].parse().ok().filter(|l| *l > 0)?)))
    };
    let (stderr, stdout) = outputs(run);
    let streams = [&stderr, &stdout];
    streams
        .iter()
        .find_map(|lines| {
            failed_checks(lines)
                .into_iter()
                .find_map(|i| location(&lines[i]))
        })
        .or_else(|| {
            streams.iter().find_map(|lines| {
                lines
                    .iter()
                    .rev()
                    .filter(|l| said_of(l) != Said::Passed)
                    .find_map(|l| location(l))
            })
        })
}

/// A source location in a test's output: `path/file.c:LINE:`.
static LOCATION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"([\w./-]+\.(c|h|cc|cpp|cxx)):(\d+):").expect("a valid pattern")
});

/// The failed cases of TAP output ("TAP: 2 of 9 cases failed: 3 parses
/// empty, 7 trims"), or `None` when it has none or is not TAP. A `# TODO`
/// case is expected to fail and a `# SKIP` one did not run.
pub fn tap_failures(stdout: &str) -> Option<String> {
    static RESULT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        // The test number is optional in TAP, but without it a program's
        // own "not ok" would read as TAP.
        regex::Regex::new(r"(?m)^(not )?ok\s+(\d+)\s*(?:-\s*)?([^#\n]*?)\s*(#\s*(\w+).*)?$")
            .expect("a valid pattern")
    });
    let (mut total, mut failed) = (0, Vec::new());
    for m in RESULT.captures_iter(stdout) {
        let directive = m.get(5).map(|d| d.as_str().to_ascii_uppercase());
        if directive.as_deref().is_some_and(|d| d.starts_with("SKIP")) {
            continue;
        }
        total += 1;
        if m.get(1).is_some() && directive.as_deref() != Some("TODO") {
            let number = m.get(2).map_or("", |n| n.as_str());
            failed.push(format!("{number} {}", &m[3]).trim().to_string());
        }
    }
    (!failed.is_empty()).then(|| {
        format!(
            "TAP: {} of {total} cases failed: {}",
            failed.len(),
            failed.join(", ")
        )
    })
}

/// What a line of a test's output reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Said {
    /// A check that failed: Unity's `file:line:case:FAIL`, Check's
    /// `file:line:F:` and `:E:`, `assert`'s "Assertion … failed", a
    /// framework's failed assertion or error at a source location.
    Failed,
    /// A check that passed: Unity's `:PASS`, Check's `:P:`, CMocka's
    /// `[       OK ]`, Criterion's `[PASS]`.
    Passed,
    Other,
}

fn said_of(line: &str) -> Said {
    static PASSED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(:\d+:[^:\n]*:PASS\b|:\d+:P:|^\s*\[\s*(OK|PASSED|PASS)\s*\])")
            .expect("a valid pattern")
    });
    static FAILED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(:\d+:[^:\n]*:FAIL\b|:\d+:[FE]:|(?i:assert\w*|fail\w*|error)\b|\bFAILED\b)",
        )
        .expect("a valid pattern")
    });
    if PASSED.is_match(line) {
        Said::Passed
    } else if LOCATION.is_match(line) && FAILED.is_match(line) {
        Said::Failed
    } else {
        Said::Other
    }
}

/// A test's standard error and output, as lines that say something.
fn outputs(run: &Execution) -> (Vec<String>, Vec<String>) {
    let lines = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes)
            .lines()
            .filter(|l| !bare(l).is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    (lines(&run.stderr), lines(&run.stdout))
}

/// The indices of the lines reporting a failed check.
fn failed_checks(lines: &[impl AsRef<str>]) -> Vec<usize> {
    (0..lines.len())
        .filter(|&i| said_of(lines[i].as_ref()) == Said::Failed)
        .collect()
}

/// How many failed checks a reason quotes; more are counted.
const QUOTED_FAILURES: usize = 2;

/// What a failing test said about its failure, from standard error first:
/// the lines reporting its failed checks (at most [`QUOTED_FAILURES`],
/// each with the message a framework prints on the line after it, the
/// others counted); else the last line naming a source location that does
/// not report a passing check; else the last line. Never a passing
/// check's line: a unit-test executable prints those after a failed one,
/// and ends with a summary that says less than the failure before it.
fn what_failed(run: &Execution) -> Option<String> {
    let (stderr, stdout) = outputs(run);
    [&stderr, &stdout]
        .iter()
        .find_map(|lines| quoted_failures(lines))
        .or_else(|| {
            [&stderr, &stdout]
                .iter()
                .find_map(|lines| last_words(lines))
        })
        .map(|said| clip(&said, 160 * QUOTED_FAILURES))
}

fn quoted_failures(lines: &[String]) -> Option<String> {
    let failed = failed_checks(lines);
    let quoted: Vec<String> = failed
        .iter()
        .take(QUOTED_FAILURES)
        .map(|&i| with_message_after(lines, i))
        .collect();
    let more = failed.len().saturating_sub(QUOTED_FAILURES);
    (!quoted.is_empty()).then(|| {
        let mut said = quoted.join(" · ");
        if more > 0 {
            said.push_str(&format!(" (and {more} more failed check{})", plural(more)));
        }
        said
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The last line naming a source location that does not report a
/// passing check, else the last line that is no passing check's.
fn last_words(lines: &[String]) -> Option<String> {
    let said: Vec<usize> = (0..lines.len())
        .filter(|&i| said_of(&lines[i]) != Said::Passed)
        .collect();
    if let Some(&i) = said.iter().rev().find(|&&i| LOCATION.is_match(&lines[i])) {
        return Some(with_message_after(lines, i));
    }
    said.last().map(|&i| lines[i].trim().to_string())
}

/// Line `i` without its framework decoration, with the message Criterion
/// prints on the line after a failed assertion (`[----]   message`).
fn with_message_after(lines: &[String], i: usize) -> String {
    let mut said = bare(&lines[i]);
    if let Some(next) = lines
        .get(i + 1)
        .filter(|n| n.trim_start().starts_with("[----]"))
    {
        said = format!("{said} {}", bare(next));
    }
    clip(&said, 160)
}

/// A line without a framework's decoration in front ("[----]",
/// "[  ERROR   ] ---").
fn bare(l: &str) -> String {
    let l = l.trim();
    match l.strip_prefix('[').and_then(|rest| rest.split_once(']')) {
        Some((_, said)) => said.trim_start_matches(['-', ' ']).trim().to_string(),
        None => l.to_string(),
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() > max {
        format!("{}…", s.chars().take(max).collect::<String>())
    } else {
        s.to_string()
    }
}

/// `None` when equal under `compare`; else where they first differ.
pub fn stdout_difference(expected: &[u8], actual: &[u8], compare: Compare) -> Option<String> {
    match compare {
        Compare::Exact => (expected != actual).then(|| describe_difference(expected, actual)),
        Compare::Trim => {
            let (e, a) = (trimmed(expected), trimmed(actual));
            (e != a).then(|| describe_difference(&e, &a))
        }
    }
}

/// Trailing whitespace of each line and trailing blank lines removed.
fn trimmed(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n").into_bytes()
}

fn describe_difference(expected: &[u8], actual: &[u8]) -> String {
    let i = expected
        .iter()
        .zip(actual)
        .position(|(x, y)| x != y)
        .unwrap_or(expected.len().min(actual.len()));
    if expected.len() == actual.len() + 1 && i == actual.len() && expected.ends_with(b"\n") {
        return "stdout lacks the final newline".into();
    }
    if actual.len() == expected.len() + 1 && i == expected.len() && actual.ends_with(b"\n") {
        return "stdout has an extra newline at the end".into();
    }
    if actual.is_empty() {
        return "the program printed nothing".into();
    }
    let line_start = expected[..i]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line_no = expected[..line_start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    // The differing line, from its start (identical in both) to its end.
    let line_of = |buf: &[u8]| -> String {
        if line_start >= buf.len() {
            return "end of output".into();
        }
        let rest = &buf[line_start..];
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        quote(&rest[..end])
    };
    format!(
        "stdout differs at line {line_no}: expected {}, got {}",
        line_of(expected),
        line_of(actual)
    )
}

/// A line for a message: quoted, escaped, clipped to 60 characters.
fn quote(line: &[u8]) -> String {
    let shown = match std::str::from_utf8(line) {
        Ok(text) => format!("{text:?}"),
        Err(_) => format!("\"{}\"", line.escape_ascii()),
    };
    if shown.chars().count() > 62 {
        format!("{}…\"", shown.chars().take(61).collect::<String>())
    } else {
        shown
    }
}

pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV (segmentation fault)",
        libc::SIGABRT => "SIGABRT (abort, e.g. a failed assert)",
        libc::SIGFPE => "SIGFPE (arithmetic error, e.g. division by zero)",
        libc::SIGBUS => "SIGBUS (bus error)",
        libc::SIGILL => "SIGILL (illegal instruction)",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_location_is_the_failed_check_s_and_never_line_0() {
        let run = |stderr: &str| Execution {
            stderr: stderr.as_bytes().to_vec(),
            ..Execution::default()
        };
        assert_eq!(
            failure_location(&run("a.c:3: x\n[----] tests/t.c:98: Assertion Failed\n")),
            Some(("tests/t.c".into(), 98))
        );
        assert_eq!(failure_location(&run("t.c:0: odd\n")), None);
        assert_eq!(failure_location(&run("nothing here\n")), None);
    }

    #[test]
    fn tap_output_names_its_failed_cases() {
        let tap = "TAP version 13\n1..5\nok 1 - parses numbers\nnot ok 2 - parses empty\n  ---\n  at: t.c:9\n  ...\n\
            ok 3 # SKIP no locale\nnot ok 4 - wide chars # TODO not yet\nnot ok 5\n";
        assert_eq!(
            tap_failures(tap).unwrap(),
            "TAP: 2 of 4 cases failed: 2 parses empty, 5"
        );
        assert_eq!(tap_failures("ok 1 - fine\n"), None);
        // Without a test number it is a program's own words, not TAP.
        assert_eq!(tap_failures("not ok - the values differ\n"), None);
        assert_eq!(tap_failures("all fine\n"), None);
    }

    fn printed(stdout: &str) -> Execution {
        Execution {
            stdout: stdout.as_bytes().to_vec(),
            ..Execution::default()
        }
    }

    #[test]
    fn a_failed_assertion_says_more_than_the_summary_after_it() {
        let criterion = "[----] tests/t.c:98: Assertion Failed\n[----]   \n[----]   trimmed to 5 characters\n[----]   \n\
            [FAIL] trim::both_sides: (0.00s)\n[====] Synthesis: Tested: 1 | Passing: 0 | Failing: 1 | Crashing: 0\n";
        assert_eq!(
            what_failed(&printed(criterion)).unwrap(),
            "tests/t.c:98: Assertion Failed trimmed to 5 characters"
        );
        let check = "Running suite(s): Stack\n0%: Checks: 1, Failures: 1, Errors: 0\n\
            tests/check_stack.c:20:F:Core:test_pop:0: Assertion 'v == 2' failed: v == 3, 2 == 2\n";
        assert_eq!(
            what_failed(&printed(check)).unwrap(),
            "tests/check_stack.c:20:F:Core:test_pop:0: Assertion 'v == 2' failed: v == 3, 2 == 2"
        );
        assert_eq!(
            what_failed(&printed("FAIL: expected 3\n\n")).unwrap(),
            "FAIL: expected 3"
        );
        assert_eq!(what_failed(&printed("  \n")), None);
    }

    #[test]
    fn a_passing_case_printed_after_the_failure_is_never_the_reason() {
        // Unity prints every case's result; the failed one is not the last.
        let unity = "tests/test_print.c:10:print_zero:PASS\n\
            tests/test_print.c:24:print_negative:FAIL: Expected '-5' Was '5'\n\
            tests/test_print.c:31:print_large:PASS\n\
            \n-----------------------\n3 Tests 1 Failures 0 Ignored\nFAIL\n";
        let run = printed(unity);
        assert_eq!(
            what_failed(&run).unwrap(),
            "tests/test_print.c:24:print_negative:FAIL: Expected '-5' Was '5'"
        );
        assert_eq!(
            failure_location(&run),
            Some(("tests/test_print.c".into(), 24))
        );
        // Check's log lines of passing tests (`:P:`) and CMocka's `[ OK ]`.
        let check = "t.c:5:P:Core:a:0: Passed\nt.c:9:F:Core:b:0: Assertion 'x' failed\nt.c:14:P:Core:c:0: Passed\n";
        assert_eq!(failure_location(&printed(check)), Some(("t.c".into(), 9)));
        let cmocka =
            "[ RUN      ] a\n[  ERROR   ] --- 1 != 2\n[   LINE   ] --- t.c:42: error: Failure!\n\
            [  FAILED  ] a\n[ RUN      ] b\n[       OK ] b\n";
        assert_eq!(
            what_failed(&printed(cmocka)).unwrap(),
            "t.c:42: error: Failure!"
        );
        // Only passing lines: the summary, not a passing case.
        let passing_only = "t.c:10:a:PASS\nt.c:12:b:PASS\n2 Tests 0 Failures\nOK but exit 1\n";
        assert_eq!(
            what_failed(&printed(passing_only)).unwrap(),
            "OK but exit 1"
        );
        assert_eq!(failure_location(&printed(passing_only)), None);
    }

    #[test]
    fn several_failed_checks_are_quoted_first_and_the_rest_counted() {
        let unity = "t.c:10:a:FAIL: one\nt.c:20:b:PASS\nt.c:30:c:FAIL: two\nt.c:40:d:FAIL: three\n";
        assert_eq!(
            what_failed(&printed(unity)).unwrap(),
            "t.c:10:a:FAIL: one · t.c:30:c:FAIL: two (and 1 more failed check)"
        );
        assert_eq!(failure_location(&printed(unity)), Some(("t.c".into(), 10)));
    }

    #[test]
    fn the_first_differing_line_is_named() {
        let d = stdout_difference(b"1\n2\n3\n", b"1\n5\n3\n", Compare::Exact).unwrap();
        assert_eq!(d, "stdout differs at line 2: expected \"2\", got \"5\"");
        let d = stdout_difference(b"1\n2\n", b"1\n", Compare::Exact).unwrap();
        assert_eq!(
            d,
            "stdout differs at line 2: expected \"2\", got end of output"
        );
        let d = stdout_difference(b"a\n", b"a\nb", Compare::Exact).unwrap();
        assert_eq!(
            d,
            "stdout differs at line 2: expected end of output, got \"b\""
        );
    }

    #[test]
    fn newline_and_empty_output_cases_are_named_plainly() {
        assert_eq!(
            stdout_difference(b"a\nb\n", b"a\nb", Compare::Exact).unwrap(),
            "stdout lacks the final newline"
        );
        assert_eq!(
            stdout_difference(b"a\n", b"a\n\n", Compare::Exact).unwrap(),
            "stdout has an extra newline at the end"
        );
        assert_eq!(
            stdout_difference(b"\n", b"", Compare::Exact).unwrap(),
            "stdout lacks the final newline"
        );
        assert_eq!(
            stdout_difference(b"x\n", b"", Compare::Exact).unwrap(),
            "the program printed nothing"
        );
        let d = stdout_difference(b"ok\n", b"\0\xff\x01ok\n", Compare::Exact).unwrap();
        assert_eq!(
            d,
            "stdout differs at line 1: expected \"ok\", got \"\\x00\\xff\\x01ok\""
        );
    }

    #[test]
    fn trim_ignores_trailing_whitespace_and_blank_lines() {
        assert!(stdout_difference(b"a\nb\n", b"a  \nb\n\n\n", Compare::Trim).is_none());
        assert!(stdout_difference(b"a\nb\n", b"a  \nb\n", Compare::Exact).is_some());
        assert!(stdout_difference(b"a\n", b"a\n", Compare::Exact).is_none());
    }
}
