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
        return (
            Outcome::TimedOut,
            Some(format!(
                "timed out after {:.1} s and was stopped",
                spec.timeout.as_secs_f64()
            )),
        );
    }
    if let Some(sig) = run.signal {
        return (
            Outcome::Crashed,
            Some(format!("crashed: killed by {}", signal_name(sig))),
        );
    }
    let failure = expectation_failure(spec, run);
    let expect = &spec.expect;
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
            return Some(diff);
        }
    }
    None
}

/// `None` when equal under `compare`; else where they first differ.
pub fn stdout_difference(expected: &[u8], actual: &[u8], compare: Compare) -> Option<String> {
    let normalize = |bytes: &[u8]| -> Vec<String> {
        let text = String::from_utf8_lossy(bytes).into_owned();
        match compare {
            Compare::Exact => text.split('\n').map(String::from).collect(),
            Compare::Trim => {
                let mut lines: Vec<String> =
                    text.lines().map(|l| l.trim_end().to_string()).collect();
                while lines.last().is_some_and(|l| l.is_empty()) {
                    lines.pop();
                }
                lines
            }
        }
    };
    if compare == Compare::Exact && expected == actual {
        return None;
    }
    let (e, a) = (normalize(expected), normalize(actual));
    if e == a {
        return None;
    }
    let i = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    let show = |lines: &[String]| {
        lines
            .get(i)
            .map_or("end of output".to_string(), |l| format!("{:?}", clip(l)))
    };
    Some(format!(
        "stdout differs at line {}: expected {}, got {}",
        i + 1,
        show(&e),
        show(&a)
    ))
}

fn clip(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
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
    fn the_first_differing_line_is_named() {
        let d = stdout_difference(b"1\n2\n3\n", b"1\n5\n3\n", Compare::Exact).unwrap();
        assert_eq!(d, "stdout differs at line 2: expected \"2\", got \"5\"");
        let d = stdout_difference(b"1\n2\n", b"1\n", Compare::Exact).unwrap();
        assert!(d.contains("line 2"), "{d}");
    }

    #[test]
    fn trim_ignores_trailing_whitespace_and_blank_lines() {
        assert!(stdout_difference(b"a\nb\n", b"a  \nb\n\n\n", Compare::Trim).is_none());
        assert!(stdout_difference(b"a\nb\n", b"a  \nb\n", Compare::Exact).is_some());
        assert!(stdout_difference(b"a\n", b"a\n", Compare::Exact).is_none());
    }
}
