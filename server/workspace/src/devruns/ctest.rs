//! CTest's `Testing/Temporary/LastTest.log`: one block per test, opened by
//! `N/M Test: name` and closed by its verdict line; `End testing:` once the
//! run is over (before it, the run is still going). What a test printed
//! (between `Output:` and `<end of output>`) is not read as structure.

use super::{DevTest, DevVerdict, Parsed};

pub fn parse(text: &str) -> Result<Parsed, String> {
    let mut tests: Vec<DevTest> = Vec::new();
    let mut open: Option<String> = None;
    let mut finished = false;
    let mut in_output = false;
    for line in text.lines() {
        if in_output {
            in_output = line != "<end of output>";
            continue;
        }
        if line == "Output:" {
            in_output = true;
        } else if let Some(name) = test_header(line) {
            close(&mut tests, open.take(), None);
            open = Some(name.to_string());
        } else if let Some(verdict) = verdict_line(line) {
            close(&mut tests, open.take(), Some(verdict));
        } else if line.starts_with("End testing:") {
            finished = true;
        }
    }
    if !finished {
        return Ok(Parsed::InProgress);
    }
    // A test without a verdict did not run to its end: CTest counts it failed.
    close(&mut tests, open.take(), None);
    if tests.is_empty() && !text.contains("Start testing:") {
        return Err("not a CTest log (no `Start testing:` line)".into());
    }
    let total = tests.len();
    Ok(Parsed::Finished { tests, total })
}

fn close(tests: &mut Vec<DevTest>, name: Option<String>, verdict: Option<DevVerdict>) {
    if let Some(name) = name {
        tests.push(DevTest {
            name,
            verdict: verdict.unwrap_or(DevVerdict::Failed),
        });
    }
}

/// `3/13 Test: push.reject_full` (CTest also writes `3/13 Testing: …`
/// before it; the `Test:` line is the one it writes once per test).
fn test_header(line: &str) -> Option<&str> {
    let (counter, rest) = line.split_once(' ')?;
    let (done, total) = counter.split_once('/')?;
    if done.is_empty()
        || total.is_empty()
        || !(done.bytes().chain(total.bytes())).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    rest.strip_prefix("Test: ")
}

fn verdict_line(line: &str) -> Option<DevVerdict> {
    if line.starts_with("Test Passed") || line.starts_with("Test Pass Reason") {
        Some(DevVerdict::Passed)
    } else if line.starts_with("Test Failed") || line.starts_with("Test Fail Reason") {
        Some(DevVerdict::Failed)
    } else if line.starts_with("Test Skipped") || line.starts_with("Test Not Run") {
        Some(DevVerdict::Skipped)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "Start testing: Nov 27 08:20 UTC
----------------------------------------------------------
1/3 Testing: push.single
1/3 Test: push.single
Command: \"/b/test_push\" \"single\"
Output:
----------------------------------------------------------
<end of output>
Test time =   0.00 sec
----------------------------------------------------------
Test Passed.
\"push.single\" end time: Nov 27 08:20 UTC
2/3 Testing: pop.interleave
2/3 Test: pop.interleave
Output:
----------------------------------------------------------
test_pop.c:53: check failed
Test: not a header
<end of output>
Test Failed.
3/3 Testing: wrap.clear
3/3 Test: wrap.clear
Test Pass Reason:
Required regular expression found. Regex=[cleared]
----------------------------------------------------------

End testing: Nov 27 08:20 UTC
";

    fn verdicts(parsed: Parsed) -> Vec<(String, DevVerdict)> {
        match parsed {
            Parsed::Finished { tests, .. } => {
                tests.into_iter().map(|t| (t.name, t.verdict)).collect()
            }
            Parsed::InProgress => panic!("in progress"),
        }
    }

    #[test]
    fn every_test_gets_its_verdict() {
        assert_eq!(
            verdicts(parse(LOG).unwrap()),
            vec![
                ("push.single".into(), DevVerdict::Passed),
                ("pop.interleave".into(), DevVerdict::Failed),
                ("wrap.clear".into(), DevVerdict::Passed),
            ]
        );
    }

    #[test]
    fn what_a_test_prints_is_not_structure() {
        let log = "Start testing: x\n1/1 Test: a\nOutput:\n----\nTest Passed.\n2/9 Test: fake\nEnd testing: no\n<end of output>\nTest Failed.\nEnd testing: y\n";
        assert_eq!(
            verdicts(parse(log).unwrap()),
            vec![("a".into(), DevVerdict::Failed)]
        );
    }

    #[test]
    fn a_log_without_its_end_is_a_run_in_progress() {
        let cut = &LOG[..LOG.find("End testing").unwrap()];
        assert_eq!(parse(cut).unwrap(), Parsed::InProgress);
    }

    #[test]
    fn a_test_cut_off_before_its_verdict_failed() {
        let log = "Start testing: x\n1/1 Test: hangs\nOutput:\n*** killed\n<end of output>\nEnd testing: y\n";
        assert_eq!(
            verdicts(parse(log).unwrap()),
            vec![("hangs".into(), DevVerdict::Failed)]
        );
    }

    #[test]
    fn something_else_is_refused() {
        assert!(parse("hello\nEnd testing: now\n").is_err());
    }
}
