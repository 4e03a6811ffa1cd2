//! JUnit XML (`ctest --output-junit`, Meson's `testlog.junit.xml`, most
//! runners' `--junit` option): each `<testcase>` passed unless it holds a
//! `<failure>` or `<error>` (or CTest's `status="fail"`), and was skipped
//! when it holds `<skipped>`. A document cut short is a run still being
//! written.

use super::{DevTest, DevVerdict, Parsed};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

/// A test case as the report tells it: its verdict, and what `faultlens
/// import` also keeps (the failure's message, the time it took).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub test: DevTest,
    /// The `message` of its `<failure>` or `<error>`, when not empty.
    pub message: Option<String>,
    /// Its `time` attribute (seconds), in milliseconds.
    pub time_ms: Option<u64>,
}

/// The test cases of a finished report; `None` for one still being written.
pub fn parse(text: &str) -> Result<Parsed, String> {
    Ok(match cases(text)? {
        None => Parsed::InProgress,
        Some(cases) => {
            let tests: Vec<DevTest> = cases.into_iter().map(|c| c.test).collect();
            let total = tests.len();
            Parsed::Finished { tests, total }
        }
    })
}

/// Every `<testcase>` of a finished report, in document order.
pub fn cases(text: &str) -> Result<Option<Vec<Case>>, String> {
    let mut reader = Reader::from_str(text);
    let mut tests: Vec<Case> = Vec::new();
    let mut depth = 0usize;
    let mut seen_root = false;
    // The test case whose children are being read.
    let mut open: Option<Case> = None;
    loop {
        let event = reader.read_event().map_err(|e| {
            format!(
                "not well-formed XML at byte {}: {e}",
                reader.error_position()
            )
        })?;
        match event {
            Event::Start(e) => {
                depth += 1;
                seen_root = true;
                if e.name().into_inner() == "testcase" {
                    open = Some(test_case(&e)?);
                } else if let Some(test) = open.as_mut() {
                    mark(test, &e)?;
                }
            }
            Event::Empty(e) => {
                seen_root = true;
                if e.name().into_inner() == "testcase" {
                    tests.push(test_case(&e)?);
                } else if let Some(test) = open.as_mut() {
                    mark(test, &e)?;
                }
            }
            Event::End(e) => {
                depth = depth.saturating_sub(1);
                if e.name().into_inner() == "testcase" {
                    tests.extend(open.take());
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !seen_root || depth > 0 {
        return Ok(None);
    }
    Ok(Some(tests))
}

/// An attribute's value, unescaped.
fn attribute(e: &BytesStart, key: &str) -> Result<Option<String>, String> {
    for attribute in e.attributes() {
        let attribute = attribute.map_err(|e| format!("a malformed attribute: {e}"))?;
        if attribute.key.into_inner() == key {
            let value = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| format!("a malformed attribute value: {e}"))?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

fn test_case(e: &BytesStart) -> Result<Case, String> {
    let mut name = None;
    let mut verdict = DevVerdict::Passed;
    let mut time_ms = None;
    for attribute in e.attributes() {
        let attribute = attribute.map_err(|e| format!("a malformed attribute: {e}"))?;
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("a malformed attribute value: {e}"))?;
        match attribute.key.into_inner() {
            "name" => name = Some(value.into_owned()),
            "status" if value == "fail" => verdict = DevVerdict::Failed,
            "status" if value == "notrun" || value == "disabled" => verdict = DevVerdict::Skipped,
            "time" => {
                time_ms = value
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .map(|t| (t * 1000.0).min(u64::MAX as f64) as u64)
            }
            _ => {}
        }
    }
    let name = name.ok_or("a <testcase> without a name")?;
    Ok(Case {
        test: DevTest { name, verdict },
        message: None,
        time_ms,
    })
}

/// What a child of a test case says of it.
fn mark(case: &mut Case, child: &BytesStart) -> Result<(), String> {
    match child.name().into_inner() {
        "failure" | "error" => {
            case.test.verdict = DevVerdict::Failed;
            if case.message.is_none() {
                case.message = attribute(child, "message")?
                    .map(|m| m.trim().chars().take(MESSAGE_LIMIT).collect::<String>())
                    .filter(|m| !m.is_empty());
            }
        }
        "skipped" if case.test.verdict != DevVerdict::Failed => {
            case.test.verdict = DevVerdict::Skipped
        }
        _ => {}
    }
    Ok(())
}

/// Characters of a failure's message kept.
const MESSAGE_LIMIT: usize = 500;

#[cfg(test)]
mod tests {
    use super::*;

    fn verdicts(text: &str) -> Vec<(String, DevVerdict)> {
        match parse(text).unwrap() {
            Parsed::Finished { tests, .. } => {
                tests.into_iter().map(|t| (t.name, t.verdict)).collect()
            }
            Parsed::InProgress => panic!("in progress"),
        }
    }

    #[test]
    fn cases_keep_the_failure_message_and_time() {
        let text = r#"<testsuite><testcase name="a" time="0.25"><failure message="expected 2, got 3">trace</failure></testcase><testcase name="b" time="x"/></testsuite>"#;
        let cases = cases(text).unwrap().unwrap();
        assert_eq!(cases[0].message.as_deref(), Some("expected 2, got 3"));
        assert_eq!(cases[0].time_ms, Some(250));
        assert_eq!(cases[0].test.verdict, DevVerdict::Failed);
        assert_eq!(
            (cases[1].message.as_deref(), cases[1].time_ms),
            (None, None)
        );
        assert_eq!(
            super::cases("<testsuite><testcase name=\"a\">").unwrap(),
            None
        );
    }

    #[test]
    fn ctest_and_generic_reports() {
        // As `ctest --output-junit` writes it.
        let ctest = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3" failures="1">
	<testcase name="push.single" classname="push.single" time="0.002" status="run">
		<system-out></system-out>
	</testcase>
	<testcase name="pop.interleave" classname="pop.interleave" status="fail">
		<failure message=""/>
		<system-out>test_pop.c:53: check failed: a &amp;&amp; b</system-out>
	</testcase>
	<testcase name="later" status="notrun"/>
</testsuite>"#;
        assert_eq!(
            verdicts(ctest),
            [
                ("push.single".into(), DevVerdict::Passed),
                ("pop.interleave".into(), DevVerdict::Failed),
                ("later".into(), DevVerdict::Skipped)
            ]
        );
        let generic = r#"<testsuites><testsuite name="s">
<testcase classname="s" name="a &lt;b&gt;"><error type="SIGSEGV"/></testcase>
<testcase name="c"><skipped/></testcase><testcase name="d"></testcase>
</testsuite></testsuites>"#;
        assert_eq!(
            verdicts(generic),
            [
                ("a <b>".into(), DevVerdict::Failed),
                ("c".into(), DevVerdict::Skipped),
                ("d".into(), DevVerdict::Passed)
            ]
        );
    }

    #[test]
    fn a_cut_report_is_in_progress_and_garbage_is_refused() {
        assert_eq!(
            parse("<testsuite><testcase name=\"a\">").unwrap(),
            Parsed::InProgress
        );
        assert_eq!(parse("").unwrap(), Parsed::InProgress);
        assert!(parse("<testsuite><testcase name=\"a\"></testsuite>").is_err());
        assert!(parse("<testsuite><testcase/></testsuite>").is_err());
    }
}
