//! The diagnosis document: what formula-based diagnosis found, as plain data.
//!
//! The engine (`faultlens-diagnose`) produces it; the CLI renders it as a
//! table, JSON or SARIF and the language server turns it into diagnostics,
//! hovers, inlay hints and lenses. It is also what
//! `<project>/.faultlens/diagnosis.json` holds. Lines and columns are 1-based.

use serde::{Deserialize, Serialize};

/// Version of the document's shape. Bump only on incompatible changes.
pub const DIAGNOSIS_FORMAT_VERSION: u32 = 1;

fn format_version() -> u32 {
    DIAGNOSIS_FORMAT_VERSION
}

/// Everything one diagnosis run found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiagnosisReport {
    /// Diagnoses in cost order: first all optimal ones, then the other
    /// subset-minimal ones up to the size bound.
    pub diagnoses: Vec<Diagnosis>,
    /// True when every subset-minimal diagnosis up to the size bound was found.
    pub complete: bool,
    /// Why the search stopped early (time budget, cancelled, exploration limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The failing tests every diagnosis explains, all at once.
    pub failing_tests: Vec<String>,
    /// Failing tests left out, each with the reason (C the model cannot run, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_tests: Vec<SkippedTest>,
    /// Values the C standard leaves undefined that failing tests read (out
    /// of an object's bounds), each taken as the byte that reproduces the
    /// test's recorded run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub free_reads: Vec<FreeReadNote>,
    /// A minimal unsatisfiable core per failing test: statements that, all
    /// correct, force the failure.
    #[serde(default)]
    pub cores: Vec<TestCore>,
    /// Failing tests grouped by the expectation they violate (an assertion,
    /// an output line, the exit status), so different faults do not blur.
    #[serde(default)]
    pub groups: Vec<FailureGroup>,
    /// Per-line formula evidence, the input of the `fusion` measure.
    #[serde(default)]
    pub evidence: Vec<LineEvidence>,
    pub stats: DiagnosisStats,
    /// `created_unix_ms` of the results the diagnosis was computed from, so
    /// that a ranking fuses it only with those results (a later run may
    /// have moved every line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results_created_unix_ms: Option<u64>,
    /// The document's shape (last, so the document leads with what people
    /// read); documents written before the field existed are version 1.
    #[serde(default = "format_version")]
    pub format_version: u32,
}

impl Default for DiagnosisReport {
    fn default() -> DiagnosisReport {
        DiagnosisReport {
            format_version: DIAGNOSIS_FORMAT_VERSION,
            diagnoses: Vec::new(),
            complete: false,
            stopped: None,
            failing_tests: Vec::new(),
            skipped_tests: Vec::new(),
            free_reads: Vec::new(),
            cores: Vec::new(),
            groups: Vec::new(),
            evidence: Vec::new(),
            stats: DiagnosisStats::default(),
            results_created_unix_ms: None,
        }
    }
}

impl DiagnosisReport {
    /// Parses a stored document and checks it like any input from the
    /// repository: the version this faultlens writes, every file inside the
    /// project, no line listed twice where readers index by line.
    pub fn from_json(text: &str) -> Result<DiagnosisReport, String> {
        let report: DiagnosisReport =
            serde_json::from_str(text).map_err(|e| format!("not a diagnosis document: {e}"))?;
        report.validate()?;
        Ok(report)
    }

    /// True when the diagnosis was computed from `results` (documents
    /// written before the record existed describe no results).
    pub fn describes(&self, results: &crate::results::RunResults) -> bool {
        self.results_created_unix_ms == Some(results.created_unix_ms)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.format_version != DIAGNOSIS_FORMAT_VERSION {
            return Err(format!(
                "diagnosis format {} is not one this faultlens reads ({DIAGNOSIS_FORMAT_VERSION})",
                self.format_version
            ));
        }
        let check = |file: &str, line: u32| -> Result<(), String> {
            crate::results::check_relative_path(file)
                .map_err(|why| format!("file {file:?} {why}"))?;
            if line == 0 {
                return Err(format!("{file}: line 0 (lines are 1-based)"));
            }
            Ok(())
        };
        for (k, diagnosis) in self.diagnoses.iter().enumerate() {
            let mut seen = std::collections::HashSet::new();
            for s in &diagnosis.statements {
                check(&s.file, s.line)?;
                if !seen.insert((
                    &s.file,
                    s.line,
                    s.column,
                    s.subexpression.as_ref().map(|e| e.start_column),
                )) {
                    return Err(format!(
                        "diagnosis #{} lists {}:{} twice",
                        k + 1,
                        s.file,
                        s.line
                    ));
                }
            }
            for a in &diagnosis.angelic {
                check(&a.file, a.line)?;
            }
        }
        for core in &self.cores {
            for s in &core.statements {
                check(&s.file, s.line)?;
            }
        }
        let mut lines = std::collections::HashSet::new();
        for e in &self.evidence {
            check(&e.file, e.line)?;
            if !lines.insert((&e.file, e.line)) {
                return Err(format!("the evidence lists {}:{} twice", e.file, e.line));
            }
        }
        Ok(())
    }
}

/// What `faultlens diagnose` said when it could not diagnose a run (the
/// program is outside the C model), kept so that nothing later advises
/// running it again on the same run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiagnosisRefusal {
    /// `created_unix_ms` of the results it was asked to diagnose.
    pub results_created_unix_ms: u64,
    pub reason: String,
}

impl DiagnosisRefusal {
    /// Longest reason kept (a hostile file gets no further).
    pub const MAX_REASON: usize = 4096;

    pub fn from_json(text: &str) -> Result<DiagnosisRefusal, String> {
        let refusal: DiagnosisRefusal = serde_json::from_str(text)
            .map_err(|e| format!("not a diagnosis refusal document: {e}"))?;
        if refusal.reason.len() > Self::MAX_REASON {
            return Err(format!(
                "its reason is {} bytes long (at most {})",
                refusal.reason.len(),
                Self::MAX_REASON
            ));
        }
        Ok(refusal)
    }

    pub fn describes(&self, results: &crate::results::RunResults) -> bool {
        self.results_created_unix_ms == results.created_unix_ms
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// Sum of the weights of the statements (logic is cheap, input/output dear).
    pub cost: u64,
    /// `optimal` (minimum cost) or `minimal` (subset-minimal, costlier).
    pub kind: DiagnosisKind,
    pub statements: Vec<DiagnosedStatement>,
    /// Verified angelic values: what a statement instance must produce for a
    /// failing test to pass. Unverified candidates are never listed.
    pub angelic: Vec<AngelicValue>,
    /// Failing tests left out of the search and checked alone afterwards
    /// that no change of these statements makes pass: this set is no
    /// diagnosis of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_explaining: Vec<String>,
    /// Failing tests left out of the search and checked alone afterwards
    /// that these statements explain, besides `failing_tests` (those some
    /// other diagnosis does not explain, or was not decided for).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub explains_left_out: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiagnosisKind {
    #[default]
    Optimal,
    Minimal,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosedStatement {
    /// Relative to the project root, as in the results document.
    pub file: String,
    pub line: u32,
    /// The statement's source text (its first line, trimmed).
    pub text: String,
    /// 1-based column where the statement starts, given when its line holds
    /// several (a `for`'s start, test and step), which the line alone does
    /// not tell apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The sub-expression that must change, when refinement narrowed it down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subexpression: Option<SubExpression>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubExpression {
    pub text: String,
    pub line: u32,
    pub start_column: u32,
    pub end_line: u32,
    /// Exclusive.
    pub end_column: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AngelicValue {
    pub test: String,
    pub file: String,
    pub line: u32,
    /// Which execution of the statement in that test (1 = first; a loop's
    /// iteration or a function's call instance).
    pub instance: u32,
    /// The value as a number (unsigned 64-bit values above `i64::MAX` wrap).
    pub value: i64,
    /// The value as C would write it (`5`, `-1`, `4294967295u`, `true` for a branch).
    pub text: String,
    /// What produces the value: `value` of an assignment or return,
    /// `condition` of a branch, `argument` of an output call, ...
    pub role: String,
    /// Replayed in the interpreter with the value substituted: the test passed.
    pub verified: bool,
    /// 1-based column of the statement the value belongs to, given when its
    /// line holds several statements (`for (i = 0; i < n; i++)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// For an `argument`: which value the output call printed (1 = first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument: Option<u32>,
}

/// A read outside an object that a failing test's run made, and the byte
/// the diagnosis took it to read: the first (from 0) with which the model's
/// run ends, prints and covers the lines as the recorded run did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreeReadNote {
    pub test: String,
    pub file: String,
    pub line: u32,
    /// What was read past (the model's words).
    pub what: String,
    /// How many times the run read there.
    pub reads: u64,
    /// The byte each read gave (repeated over a wider integer).
    pub byte: u8,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedTest {
    pub name: String,
    pub reason: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCore {
    pub test: String,
    pub statements: Vec<DiagnosedStatement>,
    /// False when the budget stopped minimisation (the core is still a core).
    pub minimal: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureGroup {
    /// What the tests violate, e.g. `assertion at minmax.c:31`, `stdout line 2`, `exit status`.
    pub violation: String,
    pub tests: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineEvidence {
    pub file: String,
    pub line: u32,
    /// Failing tests whose minimal core holds this line.
    pub in_cores: u32,
    /// Reported diagnoses that hold this line.
    pub in_diagnoses: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiagnosisStats {
    /// Wall time to the first diagnosis, in milliseconds.
    pub first_ms: f64,
    /// Wall time of the whole run, in milliseconds.
    pub total_ms: f64,
    pub sat_calls: u64,
    pub variables: u64,
    pub clauses: u64,
    /// Program paths encoded (the failing runs' own, plus those explored on demand).
    pub paths: u64,
    /// Angelic value sets read from a diagnosis' model that did not make
    /// their test pass on replay (and so are not listed).
    #[serde(default)]
    pub angelic_rejected: u64,
    /// Verified angelic value sets left out because they change more
    /// instances than are listed per test (a part of a set is not verified).
    #[serde(default)]
    pub angelic_too_long: u64,
    /// Diagnoses whose angelic values were not read because the time budget
    /// ran out before them.
    #[serde(default)]
    pub angelic_unchecked: u64,
    /// Statements on the spectrum's top lines checked one at a time after
    /// the search stopped unfinished, and how many of them alone explain
    /// every failing test (each is listed as a diagnosis).
    #[serde(default)]
    pub suspects_checked: u64,
    #[serde(default)]
    pub suspects_explaining: u64,
    /// Diagnosed statements checked for a sub-expression that must change,
    /// and how many narrowed down to one.
    #[serde(default)]
    pub subexpressions_checked: u64,
    #[serde(default)]
    pub subexpressions_found: u64,
    /// Failing tests left out of the search (beyond the tests it encodes
    /// together) checked alone against every listed diagnosis, and how
    /// many of them every diagnosis explains (those join `failing_tests`).
    #[serde(default)]
    pub checked_alone: u64,
    #[serde(default)]
    pub explained_alone: u64,
    /// The work done, in effort units (`faultlens diagnose --effort`): the
    /// same on every machine for the same project, tests and limits.
    #[serde(default)]
    pub effort: f64,
    /// The longest any SAT call ran past the deadline of its step, in
    /// milliseconds (0 when every call ended in time).
    #[serde(default)]
    pub worst_overrun_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_document_without_a_version_is_version_one() {
        let report = DiagnosisReport::from_json(
            r#"{"diagnoses": [], "complete": true, "failing_tests": [], "stats": {"first_ms": 0, "total_ms": 0, "sat_calls": 0, "variables": 0, "clauses": 0, "paths": 0}}"#,
        )
        .unwrap();
        assert_eq!(report.format_version, DIAGNOSIS_FORMAT_VERSION);
    }

    #[test]
    fn hostile_documents_are_refused() {
        let statement = |file: &str| DiagnosedStatement {
            file: file.into(),
            line: 3,
            ..DiagnosedStatement::default()
        };
        let with = |diagnosis: Diagnosis| DiagnosisReport {
            diagnoses: vec![diagnosis],
            ..DiagnosisReport::default()
        };
        let cases = [
            (
                with(Diagnosis {
                    statements: vec![statement("/etc/passwd")],
                    ..Diagnosis::default()
                }),
                "not a path relative",
            ),
            (
                with(Diagnosis {
                    statements: vec![statement("a.c"), statement("a.c")],
                    ..Diagnosis::default()
                }),
                "twice",
            ),
            (
                DiagnosisReport {
                    format_version: 7,
                    ..DiagnosisReport::default()
                },
                "format 7",
            ),
            (
                DiagnosisReport {
                    evidence: vec![LineEvidence {
                        file: "../x.c".into(),
                        line: 1,
                        ..LineEvidence::default()
                    }],
                    ..DiagnosisReport::default()
                },
                "leaves the project",
            ),
        ];
        for (report, expected) in cases {
            let text = serde_json::to_string(&report).unwrap();
            let err = DiagnosisReport::from_json(&text).unwrap_err();
            assert!(err.contains(expected), "{expected}: {err}");
        }
    }

    #[test]
    fn two_statements_of_one_line_are_told_apart_by_their_columns() {
        let at = |column| DiagnosedStatement {
            file: "a.c".into(),
            line: 47,
            column: Some(column),
            ..DiagnosedStatement::default()
        };
        let report = DiagnosisReport {
            diagnoses: vec![Diagnosis {
                statements: vec![at(10), at(26)],
                ..Diagnosis::default()
            }],
            ..DiagnosisReport::default()
        };
        let text = serde_json::to_string(&report).unwrap();
        assert!(text.contains("\"column\":26"), "{text}");
        assert_eq!(DiagnosisReport::from_json(&text).unwrap(), report);
    }
}
