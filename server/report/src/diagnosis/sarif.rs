//! SARIF 2.1.0 for diagnoses: one result per diagnosed statement (a
//! statement in two diagnoses gives two results), validated against the
//! official schema in the CLI's tests.

use super::phrases::{angelic_line, capitalize, diagnosis_title, explains, verified};
use crate::sarif::{log, INFORMATION_URI};
use faultlens_core::diagnosis::{DiagnosedStatement, DiagnosisKind, DiagnosisReport};
use serde_json::{json, Value};

pub const RULE_ID: &str = "diagnosis";

/// `project_root` is the absolute directory the files are relative to.
pub fn sarif(report: &DiagnosisReport, project_root: &str, max: Option<usize>) -> Value {
    let best_cost = report.diagnoses.first().map_or(1, |d| d.cost.max(1));
    let mut results = Vec::new();
    for (i, d) in report
        .diagnoses
        .iter()
        .take(max.unwrap_or(usize::MAX))
        .enumerate()
    {
        let level = match d.kind {
            DiagnosisKind::Optimal => "warning",
            DiagnosisKind::Minimal => "note",
        };
        // SARIF's rank is a priority in [0, 100]: cheaper diagnoses first.
        let rank = (best_cost as f64 / d.cost.max(1) as f64 * 100.0).clamp(0.0, 100.0);
        let rank = (rank * 100.0).round() / 100.0;
        for (k, s) in d.statements.iter().enumerate() {
            let values: Vec<_> = verified(d)
                .filter(|a| a.file == s.file && a.line == s.line)
                .collect();
            let mut message = format!(
                "{}: changing this statement{} {}",
                capitalize(&diagnosis_title(i, d, report.complete)),
                if d.statements.len() > 1 {
                    format!(" together with {} other", d.statements.len() - 1)
                } else {
                    String::new()
                },
                explains(report)
            );
            for a in &values {
                message.push_str(&format!("; {}", angelic_line(a)));
            }
            let related: Vec<Value> = d
                .statements
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != k)
                .map(|(j, other)| {
                    json!({
                        "id": j,
                        "physicalLocation": physical(other, false),
                        "message": {"text": format!("changed together: {}", other.text)},
                    })
                })
                .collect();
            let mut result = json!({
                "ruleId": RULE_ID,
                "ruleIndex": 0,
                "level": level,
                "rank": rank,
                "message": {"text": message},
                "locations": [{"physicalLocation": physical(s, true)}],
                "properties": {
                    "diagnosis": i + 1,
                    "cost": d.cost,
                    "kind": d.kind,
                    "text": s.text,
                    "angelic": values,
                    "failingTests": report.failing_tests,
                },
            });
            if !d.not_explaining.is_empty() {
                result["properties"]["notExplaining"] = json!(d.not_explaining);
            }
            if !related.is_empty() {
                result["relatedLocations"] = Value::Array(related);
            }
            results.push(result);
        }
    }
    let rule = json!({
        "id": RULE_ID,
        "name": "Diagnosis",
        "shortDescription": {"text": "A statement that, changed together with the others of its diagnosis, explains every failing test"},
        "fullDescription": {"text": "Formula-based diagnosis: a set of statements of least cost (logic is cheaper than input and output) whose values, if they were different, let every failing test pass in faultlens's model of C. Angelic values are the values that do it, each verified by replaying the test."},
        "helpUri": format!("{INFORMATION_URI}#diagnosis"),
    });
    log(
        project_root,
        Some(vec![rule]),
        json!({
            "executionSuccessful": true,
            "properties": {
                "complete": report.complete,
                "stopped": report.stopped,
                "failingTests": report.failing_tests,
                "skippedTests": report.skipped_tests,
                "freeReads": report.free_reads,
            },
        }),
        results,
    )
}

/// A SARIF log with no results when there is no diagnosis: the reason is a
/// tool execution notification. `code` 3 (no failing test) is a successful
/// run with nothing to report; any other (4: outside the C model, 1: an
/// error) is not.
pub fn sarif_not_diagnosed(project_root: &str, code: u8, message: &str) -> Value {
    let successful = code == 3;
    log(
        project_root,
        None,
        json!({
            "executionSuccessful": successful,
            "exitCode": code,
            "toolExecutionNotifications": [{
                "level": if successful { "note" } else { "error" },
                "message": {"text": message},
            }],
        }),
        Vec::new(),
    )
}

/// The statement's place; with `narrow`, its sub-expression's range when
/// refinement found one.
fn physical(s: &DiagnosedStatement, narrow: bool) -> Value {
    let region = match (&s.subexpression, narrow) {
        (Some(sub), true) if sub.start_column >= 1 && sub.end_column >= 1 => json!({
            "startLine": sub.line.max(1),
            "startColumn": sub.start_column,
            "endLine": sub.end_line.max(sub.line).max(1),
            "endColumn": sub.end_column,
            "snippet": {"text": sub.text},
        }),
        _ => match s.column {
            Some(c) if c >= 1 => json!({"startLine": s.line.max(1), "startColumn": c}),
            _ => json!({"startLine": s.line.max(1)}),
        },
    };
    json!({
        "artifactLocation": {"uri": s.file, "uriBaseId": "%SRCROOT%"},
        "region": region,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::example::report;

    #[test]
    fn one_result_per_diagnosed_statement() {
        let doc = sarif(&report(), "/p", None);
        let results = doc["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 3);
        let first = &results[0];
        assert_eq!(first["ruleId"], "diagnosis");
        assert_eq!(first["level"], "warning");
        assert_eq!(first["rank"], 100.0);
        let region = &first["locations"][0]["physicalLocation"]["region"];
        assert_eq!(region["startLine"], 22);
        assert_eq!(region["startColumn"], 16);
        let text = first["message"]["text"].as_str().unwrap();
        assert!(
            text.starts_with("Diagnosis #1 (cost 1, optimal): changing this statement explains all 2 failing tests at once; mid.c:22 (1st run) = 5 makes wide-first-middle pass"),
            "{text}"
        );
        assert_eq!(first["properties"]["angelic"].as_array().unwrap().len(), 2);
        // The second diagnosis: two statements that point at each other.
        assert_eq!(results[1]["level"], "note");
        assert_eq!(results[1]["rank"], 50.0);
        assert_eq!(
            results[1]["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
            18
        );
        assert_eq!(
            sarif(&report(), "/p", Some(1))["runs"][0]["results"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn the_run_properties_say_which_tests_were_left_out_and_which_reads_were_answered() {
        let mut r = report();
        r.free_reads = vec![faultlens_core::diagnosis::FreeReadNote {
            test: "t1".into(),
            file: "mid.c".into(),
            line: 9,
            what: "out-of-bounds access to `argv[1]`".into(),
            reads: 2,
            byte: 0,
        }];
        let doc = sarif(&r, "/p", None);
        let properties = &doc["runs"][0]["invocations"][0]["properties"];
        assert_eq!(
            properties["skippedTests"][0]["name"], "float-input",
            "{doc:#}"
        );
        assert_eq!(properties["freeReads"][0]["line"], 9);
        assert_eq!(properties["freeReads"][0]["byte"], 0);
        let doc = sarif(&report(), "/p", None);
        assert_eq!(
            doc["runs"][0]["invocations"][0]["properties"]["freeReads"],
            serde_json::json!([])
        );
    }
}
