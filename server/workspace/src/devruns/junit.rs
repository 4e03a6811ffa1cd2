//! JUnit XML (`ctest --output-junit`, Meson's `testlog.junit.xml`, most
//! runners' `--junit` option): each `<testcase>` passed unless it holds a
//! `<failure>` or `<error>` (or CTest's `status="fail"`), and was skipped
//! when it holds `<skipped>`. A document cut short is a run still being
//! written.

use super::{DevTest, DevVerdict, Parsed};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

pub fn parse(text: &str) -> Result<Parsed, String> {
    let mut reader = Reader::from_str(text);
    let mut tests: Vec<DevTest> = Vec::new();
    let mut depth = 0usize;
    let mut seen_root = false;
    // The test case whose children are being read.
    let mut open: Option<DevTest> = None;
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
                    mark(test, e.name().into_inner());
                }
            }
            Event::Empty(e) => {
                seen_root = true;
                if e.name().into_inner() == "testcase" {
                    tests.push(test_case(&e)?);
                } else if let Some(test) = open.as_mut() {
                    mark(test, e.name().into_inner());
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
        return Ok(Parsed::InProgress);
    }
    let total = tests.len();
    Ok(Parsed::Finished { tests, total })
}

fn test_case(e: &BytesStart) -> Result<DevTest, String> {
    let mut name = None;
    let mut verdict = DevVerdict::Passed;
    for attribute in e.attributes() {
        let attribute = attribute.map_err(|e| format!("a malformed attribute: {e}"))?;
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("a malformed attribute value: {e}"))?;
        match attribute.key.into_inner() {
            "name" => name = Some(value.into_owned()),
            "status" if value == "fail" => verdict = DevVerdict::Failed,
            "status" if value == "notrun" || value == "disabled" => verdict = DevVerdict::Skipped,
            _ => {}
        }
    }
    let name = name.ok_or("a <testcase> without a name")?;
    Ok(DevTest { name, verdict })
}

fn mark(test: &mut DevTest, child: &str) {
    match child {
        "failure" | "error" => test.verdict = DevVerdict::Failed,
        "skipped" if test.verdict != DevVerdict::Failed => test.verdict = DevVerdict::Skipped,
        _ => {}
    }
}

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
