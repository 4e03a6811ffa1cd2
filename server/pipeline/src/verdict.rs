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
/// that failed, else its failed assertion or last line (see `last_words`).
fn with_last_output(reason: String, run: &Execution) -> String {
    // A TAP producer (any runner printing `ok N - name` / `not ok N - name`)
    // names its failed cases: the one row it stays says which.
    let tap = tap_failures(&String::from_utf8_lossy(&run.stdout));
    if let Some(failed) = tap {
        return format!("{reason}: {}", clip(&failed, 300));
    }
    let said = |bytes: &[u8]| last_words(&String::from_utf8_lossy(bytes));
    match said(&run.stderr).or_else(|| said(&run.stdout)) {
        Some(line) => format!("{reason}: {}", clip(&line, 160)),
        None => reason,
    }
}

/// Where a failing test says it failed: the source location its output
/// names last (a failed assertion), as printed (file, line).
pub fn failure_location(run: &Execution) -> Option<(String, u32)> {
    let last = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        LOCATION
            .captures_iter(&text)
            .last()
            .and_then(|m| Some((m[1].to_string(), m[3].parse().ok().filter(|l| *l > 0)?)))
    };
    last(&run.stderr).or_else(|| last(&run.stdout))
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

/// What a test said about its failure: the last line that names a source
/// location (a failed assertion of `assert`, Criterion, Check, CMocka…),
/// with the message a framework prints on the line after it; else the last
/// line. Unit-test frameworks end with a summary ("Synthesis: Tested: 1 |
/// Failing: 1") that says less than the assertion before it.
fn last_words(text: &str) -> Option<String> {
    // Framework decorations in front of a line ("[----]", "[  ERROR   ] ---").
    let bare = |l: &str| {
        let l = l.trim();
        match l.strip_prefix('[').and_then(|rest| rest.split_once(']')) {
            Some((_, said)) => said.trim_start_matches(['-', ' ']).trim().to_string(),
            None => l.to_string(),
        }
    };
    let lines: Vec<&str> = text.lines().filter(|l| !bare(l).is_empty()).collect();
    if let Some(i) = lines.iter().rposition(|l| LOCATION.is_match(l)) {
        let mut said = bare(lines[i]);
        if let Some(next) = lines
            .get(i + 1)
            .filter(|n| n.trim_start().starts_with("[----]"))
        {
            said = format!("{said} {}", bare(next));
        }
        return Some(said);
    }
    lines.last().map(|l| l.trim().to_string())
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
    fn a_failure_location_is_the_last_one_printed_and_never_line_0() {
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

    #[test]
    fn a_failed_assertion_says_more_than_the_summary_after_it() {
        let criterion = "[----] tests/t.c:98: Assertion Failed\n[----]   \n[----]   trimmed to 5 characters\n[----]   \n\
            [FAIL] trim::both_sides: (0.00s)\n[====] Synthesis: Tested: 1 | Passing: 0 | Failing: 1 | Crashing: 0\n";
        assert_eq!(
            last_words(criterion).unwrap(),
            "tests/t.c:98: Assertion Failed trimmed to 5 characters"
        );
        let check = "Running suite(s): Stack\n0%: Checks: 1, Failures: 1, Errors: 0\n\
            tests/check_stack.c:20:F:Core:test_pop:0: Assertion 'v == 2' failed: v == 3, 2 == 2\n";
        assert_eq!(
            last_words(check).unwrap(),
            "tests/check_stack.c:20:F:Core:test_pop:0: Assertion 'v == 2' failed: v == 3, 2 == 2"
        );
        assert_eq!(
            last_words("FAIL: expected 3\n\n").unwrap(),
            "FAIL: expected 3"
        );
        assert_eq!(last_words("  \n"), None);
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
