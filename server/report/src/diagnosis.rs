//! Diagnoses (see `faultlens_core::diagnosis`) rendered as the terminal
//! table, JSON and SARIF, and the sentences every front end uses for them
//! (the language server's hovers and inlay hints say the same as the CLI).

pub mod phrases;
pub mod sarif;
pub mod table;

pub use phrases::{angelic_line, hint_label, ordinal};
pub use sarif::{sarif, sarif_not_diagnosed};
pub use table::table;

use faultlens_core::diagnosis::DiagnosisReport;
use serde::Serialize;
use serde_json::{json, Value};

/// What the CLI prints: the stored document preceded by who wrote it and
/// for which project, as the ranking JSON does (the stored document itself
/// stays the core type).
#[derive(Serialize)]
struct Printed<'a> {
    faultlens_version: &'a str,
    project_root: &'a str,
    #[serde(flatten)]
    report: &'a DiagnosisReport,
}

/// The CLI's `--format json`: `faultlens_version` and `project_root`, then
/// the diagnosis document's fields in declaration order.
pub fn json_output(report: &DiagnosisReport, project_root: &str) -> String {
    let printed = Printed {
        faultlens_version: env!("CARGO_PKG_VERSION"),
        project_root,
        report,
    };
    serde_json::to_string_pretty(&printed).unwrap_or_else(|_| "null".into())
}

/// `--format json` when there is no diagnosis (`code` is the exit status:
/// 3 no failing test, 4 outside the C model), so CI never gets an empty file.
pub fn json_not_diagnosed(project_root: &str, code: u8, message: &str) -> String {
    let doc = json!({
        "faultlens_version": env!("CARGO_PKG_VERSION"),
        "project_root": project_root,
        "diagnoses": [],
        "error": {"code": code, "message": message},
    });
    serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "null".into())
}

/// The JSON rendering: the diagnosis document itself, exactly as
/// `.faultlens/diagnosis.json` holds it (fields in declaration order).
pub fn json_text(report: &DiagnosisReport) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|_| "null".into())
}

/// The same document as a value (keys sorted), for callers that embed it.
pub fn json(report: &DiagnosisReport) -> Value {
    serde_json::to_value(report).unwrap_or(Value::Null)
}

#[cfg(test)]
pub(crate) mod example {
    //! A hand-built document shaped like the mid-args fixture's diagnosis.

    use faultlens_core::diagnosis::*;

    pub fn statement(file: &str, line: u32, text: &str) -> DiagnosedStatement {
        DiagnosedStatement {
            file: file.into(),
            line,
            text: text.into(),
            column: None,
            subexpression: None,
        }
    }

    pub fn angelic(test: &str, line: u32, instance: u32, value: i64) -> AngelicValue {
        AngelicValue {
            test: test.into(),
            file: "mid.c".into(),
            line,
            instance,
            value,
            text: value.to_string(),
            role: "value".into(),
            verified: true,
            column: None,
            argument: None,
        }
    }

    pub fn report() -> DiagnosisReport {
        let mut first = statement("mid.c", 22, "return c;");
        first.subexpression = Some(SubExpression {
            text: "c".into(),
            line: 22,
            start_column: 16,
            end_line: 22,
            end_column: 17,
        });
        DiagnosisReport {
            diagnoses: vec![
                Diagnosis {
                    cost: 1,
                    kind: DiagnosisKind::Optimal,
                    statements: vec![first],
                    angelic: vec![
                        angelic("wide-first-middle", 22, 1, 5),
                        angelic("first-middle-last-largest", 22, 1, 2),
                        AngelicValue {
                            verified: false,
                            ..angelic("unverified", 22, 1, 99)
                        },
                    ],
                    ..Default::default()
                },
                Diagnosis {
                    cost: 2,
                    kind: DiagnosisKind::Minimal,
                    statements: vec![
                        statement("mid.c", 20, "if (a > c)"),
                        statement("mid.c", 18, "if (b > c)"),
                    ],
                    angelic: vec![AngelicValue {
                        text: "true".into(),
                        role: "condition".into(),
                        ..angelic("wide-first-middle", 18, 2, 1)
                    }],
                    ..Default::default()
                },
            ],
            complete: true,
            stopped: None,
            failing_tests: vec![
                "first-middle-last-largest".into(),
                "wide-first-middle".into(),
            ],
            skipped_tests: vec![SkippedTest {
                name: "float-input".into(),
                reason: "unsupported: double at mid.c:40".into(),
            }],
            cores: vec![TestCore {
                test: "wide-first-middle".into(),
                statements: vec![
                    statement("mid.c", 17, "if (a > b) {"),
                    statement("mid.c", 22, "return c;"),
                ],
                minimal: true,
            }],
            groups: vec![FailureGroup {
                violation: "stdout line 1".into(),
                tests: vec![
                    "first-middle-last-largest".into(),
                    "wide-first-middle".into(),
                ],
            }],
            evidence: vec![],
            stats: DiagnosisStats {
                first_ms: 120.0,
                total_ms: 850.0,
                sat_calls: 42,
                variables: 1234,
                clauses: 5678,
                paths: 3,
                effort: 0.93,
                ..DiagnosisStats::default()
            },
            ..DiagnosisReport::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_json_leads_with_version_and_root_then_the_document() {
        let text = json_output(&example::report(), "/src/mid");
        assert!(text
            .trim_start()
            .starts_with("{\n  \"faultlens_version\": \""));
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["project_root"], "/src/mid");
        assert_eq!(doc["diagnoses"], json(&example::report())["diagnoses"]);
        assert_eq!(doc["complete"], true);
    }

    #[test]
    fn json_without_a_diagnosis_names_the_reason() {
        let doc: Value =
            serde_json::from_str(&json_not_diagnosed("/p", 4, "cannot diagnose: double")).unwrap();
        assert_eq!(doc["diagnoses"], json!([]));
        assert_eq!(doc["error"]["code"], 4);
        assert_eq!(doc["error"]["message"], "cannot diagnose: double");
        assert_eq!(doc["project_root"], "/p");
        assert!(doc["faultlens_version"].is_string());
    }

    #[test]
    fn json_holds_the_documented_fields() {
        let doc = json(&example::report());
        let d = &doc["diagnoses"][0];
        assert_eq!(d["cost"], 1);
        assert_eq!(d["statements"][0]["file"], "mid.c");
        assert_eq!(d["statements"][0]["line"], 22);
        assert_eq!(d["statements"][0]["text"], "return c;");
        let a = &d["angelic"][0];
        for key in ["test", "file", "line", "instance", "value", "verified"] {
            assert!(!a[key].is_null(), "{key} missing in {a}");
        }
        assert_eq!(a["value"], 5);
        assert_eq!(doc["complete"], true);
        let text = json_text(&example::report());
        assert!(
            text.trim_start().starts_with("{\n  \"diagnoses\""),
            "{text}"
        );
    }
}
