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
}
