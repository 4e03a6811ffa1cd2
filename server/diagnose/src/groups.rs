//! Failing tests grouped by the expectation they violate, so that tests
//! failing for different reasons (likely different faults) are told apart:
//! an assertion (its location, from glibc's message on stderr, or from a
//! unit-test framework's report of a failed assertion), a crash (the
//! signal), the first stdout line that differs from the expected output, or
//! the exit status.

use faultlens_core::diagnosis::FailureGroup;

/// What one failing test shows.
pub struct Observed<'a> {
    pub name: &'a str,
    pub stdout: &'a [u8],
    pub stderr: &'a str,
    pub exit: Option<i32>,
    pub signal: Option<i32>,
    pub expected_stdout: Option<&'a [u8]>,
    pub expected_exit: i32,
}

/// The violated expectation of one failing test, as a short phrase.
pub fn violation(t: &Observed) -> String {
    if let Some(at) = assertion_location(t.stderr) {
        return format!("assertion at {at}");
    }
    let stdout = String::from_utf8_lossy(t.stdout);
    if let Some(at) = framework_assertion(&stdout).or_else(|| framework_assertion(t.stderr)) {
        return format!("assertion at {at}");
    }
    if let Some(sig) = t.signal {
        return format!("killed by signal {sig}");
    }
    if let Some(want) = t.expected_stdout {
        if let Some(line) = first_differing_line(t.stdout, want) {
            return format!("stdout line {line}");
        }
    }
    match t.exit {
        Some(code) if code != t.expected_exit => {
            format!("exit status {code} (expected {})", t.expected_exit)
        }
        Some(_) => "exit status".into(),
        None => "did not finish".into(),
    }
}

/// Tests with the same violation, groups in order of first appearance.
pub fn group(tests: &[Observed]) -> Vec<FailureGroup> {
    let mut groups: Vec<FailureGroup> = Vec::new();
    for t in tests {
        let v = violation(t);
        match groups.iter_mut().find(|g| g.violation == v) {
            Some(g) => g.tests.push(t.name.to_string()),
            None => groups.push(FailureGroup {
                violation: v,
                tests: vec![t.name.to_string()],
            }),
        }
    }
    groups
}

/// `file.c:31` from glibc's `prog: file.c:31: func: Assertion `x' failed.`
fn assertion_location(stderr: &str) -> Option<String> {
    for line in stderr.lines() {
        if !line.contains("Assertion `") {
            continue;
        }
        // The message is `PROG: FILE:LINE: FUNC: Assertion ...`: find `FILE:LINE:`.
        let parts: Vec<&str> = line.split(": ").collect();
        for (i, p) in parts.iter().enumerate() {
            if let Some((file, num)) = p.rsplit_once(':') {
                if i > 0 && !file.is_empty() && num.parse::<u32>().is_ok() {
                    let file = file.rsplit('/').next().unwrap_or(file);
                    return Some(format!("{file}:{num}"));
                }
            }
        }
        return Some("an assert".into());
    }
    None
}

/// `file.c:31` from a unit-test framework's report of a failed assertion:
/// Check's `FILE:LINE:F:case:test:0: ...`, CMocka's `[   LINE   ] ---
/// FILE:LINE: error: ...`, Criterion's `[----] FILE:LINE: Assertion
/// Failed`, Unity's `FILE:LINE:test:FAIL: ...`.
fn framework_assertion(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let line = ["[   LINE   ] --- ", "[----] "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
            .unwrap_or(line);
        let parts: Vec<&str> = line.splitn(5, ':').collect();
        let [file, num, third, ..] = parts.as_slice() else {
            return None;
        };
        let third = third.trim_start();
        let failed = matches!(third, "F" | "E")
            || third.starts_with("error")
            || third.starts_with("Assertion Failed")
            || parts.get(3).is_some_and(|p| p.starts_with("FAIL"));
        let file = file.trim();
        (failed && !file.is_empty() && num.parse::<u32>().is_ok())
            .then(|| format!("{}:{num}", file.rsplit('/').next().unwrap_or(file)))
    })
}

/// A wrong stdout line: what was expected and what was printed.
type WrongLine = (String, String);

/// The first stdout line that differs: what was expected there and what
/// the test printed (`None` when stdout matched or was not checked).
fn wrong_line(t: &Observed) -> Option<WrongLine> {
    let want = t.expected_stdout?;
    let at = first_differing_line(t.stdout, want)? - 1;
    let line = |b: &[u8]| {
        let text = b.split(|&c| c == b'\n').nth(at).unwrap_or_default();
        String::from_utf8_lossy(text).into_owned()
    };
    Some((line(want), line(t.stdout)))
}

/// `names` reordered so that tests with different wrong lines alternate:
/// the first of each kind (in `names`' order), then the second of each,
/// and so on. A program printing one verdict makes all its failures one
/// group; its shortest runs may all be one wrong decision, whose statement
/// then explains every test encoded but few of the others.
pub fn alternate_by_wrong_line(names: &[String], tests: &[Observed]) -> Vec<String> {
    let mut kinds: Vec<(Option<WrongLine>, Vec<&String>)> = Vec::new();
    for name in names {
        let key = tests.iter().find(|t| t.name == name).and_then(wrong_line);
        match kinds.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(name),
            None => kinds.push((key, vec![name])),
        }
    }
    let kinds: Vec<Vec<&String>> = kinds.into_iter().map(|(_, v)| v).collect();
    round_robin(&kinds).into_iter().cloned().collect()
}

/// The first of each list, then the second of each, and so on.
pub fn round_robin<T: Clone>(lists: &[Vec<T>]) -> Vec<T> {
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|round| lists.iter().filter_map(move |l| l.get(round).cloned()))
        .collect()
}

/// 1-based number of the first line where the outputs differ (a missing
/// line counts as different).
fn first_differing_line(got: &[u8], want: &[u8]) -> Option<usize> {
    if got == want {
        return None;
    }
    let split =
        |b: &[u8]| -> Vec<Vec<u8>> { b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect() };
    let (g, w) = (split(got), split(want));
    let n = g.len().max(w.len());
    (0..n).find(|&i| g.get(i) != w.get(i)).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_with_different_wrong_lines_alternate() {
        let named = |name: &'static str, got: &'static [u8], want: &'static [u8]| Observed {
            name,
            ..obs(got, "", want)
        };
        let tests = [
            named("h1", b"HEAT 2\n", b"HEAT 3\n"),
            named("h2", b"HEAT 2\n", b"HEAT 3\n"),
            named("h3", b"HEAT 2\n", b"HEAT 3\n"),
            named("v1", b"VENT 3\n", b"VENT 2\n"),
            named("h4", b"HOLD 0\n", b"HEAT 1\n"),
            named("v2", b"VENT 3\n", b"VENT 2\n"),
        ];
        let names: Vec<String> = tests.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(
            alternate_by_wrong_line(&names, &tests),
            ["h1", "v1", "h4", "h2", "v2", "h3"]
        );
        assert_eq!(
            wrong_line(&tests[4]),
            Some(("HEAT 1".to_string(), "HOLD 0".to_string()))
        );
    }

    fn obs<'a>(stdout: &'a [u8], stderr: &'a str, want: &'a [u8]) -> Observed<'a> {
        Observed {
            name: "t",
            stdout,
            stderr,
            exit: Some(0),
            signal: None,
            expected_stdout: Some(want),
            expected_exit: 0,
        }
    }

    #[test]
    fn names_the_violated_expectation() {
        let a = obs(
            b"",
            "./bounds: bounds.c:31: main: Assertion `b.low <= b.high' failed.\n",
            b"",
        );
        assert_eq!(violation(&a), "assertion at bounds.c:31");
        assert_eq!(violation(&obs(b"a\nX\n", "", b"a\nb\n")), "stdout line 2");
        assert_eq!(violation(&obs(b"a\n", "", b"a\nb\n")), "stdout line 2");
        let mut e = obs(b"a\n", "", b"a\n");
        e.exit = Some(1);
        assert_eq!(violation(&e), "exit status 1 (expected 0)");
    }

    #[test]
    fn groups_keep_first_appearance_order() {
        let t = [
            obs(b"x\n", "", b"y\n"),
            obs(b"a\nX\n", "", b"a\nb\n"),
            obs(b"z\n", "", b"y\n"),
        ];
        let g = group(&t);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].violation, "stdout line 1");
        assert_eq!(g[0].tests.len(), 2);
    }

    #[test]
    fn a_unit_test_frameworks_failed_assertion_is_the_violation() {
        let reports = [
            (
                "Running suite(s): S\n/p/tests/check_stack.c:67:F:Max:max_on_top:0: Assertion 'v == 5' failed\n",
                "check_stack.c:67",
            ),
            (
                "[ RUN      ] x\n[  ERROR   ] --- 0x1 != 0x2\n[   LINE   ] --- /p/tests/test_h.c:48: error: Failure!\n",
                "test_h.c:48",
            ),
            (
                "[----] ../../tests/test_strbuf.c:98: Assertion Failed\n",
                "test_strbuf.c:98",
            ),
            (
                "tests/test_bitset.c:48:test_count_every_word:FAIL: Expected 4 Was 3\n",
                "test_bitset.c:48",
            ),
        ];
        for (out, at) in reports {
            let mut t = obs(out.as_bytes(), "", b"");
            t.expected_stdout = None;
            t.exit = Some(1);
            assert_eq!(violation(&t), format!("assertion at {at}"), "{out}");
        }
        // A line that merely has numbers between colons is not one.
        let mut t = obs(b"time 12:30:45 done\n", "", b"");
        t.expected_stdout = None;
        t.exit = Some(1);
        assert_eq!(violation(&t), "exit status 1 (expected 0)");
    }
}
