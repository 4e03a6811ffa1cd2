//! The results document: what one localization run observed.
//!
//! `faultlens localize` writes it to `.faultlens/results.json`; the language
//! server, `faultlens eval` and other tools read it. It holds facts only
//! (which test ran which line, and how each test ended), never scores: scores
//! are derived from it by the analyses, so any measure can be applied later.
//!
//! Compatibility rule: readers ignore unknown fields, and `format_version`
//! changes only when an existing field changes meaning.

use serde::{Deserialize, Serialize};

/// Version of the on-disk shape. Bump only on incompatible changes.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    pub format_version: u32,
    /// `faultlens` version that wrote the document.
    pub tool_version: String,
    /// Milliseconds since the Unix epoch when the run finished.
    pub created_unix_ms: u64,
    /// Absolute path of the project root; file paths below are relative to it.
    pub project_root: String,
    /// Which kind of test suite produced the tests.
    pub suite: SuiteKind,
    /// Every source file the coverage build instrumented, in a stable order.
    pub files: Vec<SourceFile>,
    pub tests: Vec<TestRecord>,
    /// Set when the run holds one shard of the suite (`localize --shard`);
    /// `faultlens merge` combines the shards into a whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::shards::Shard>,
    /// What the run did that its user may not expect (a unit-test
    /// executable that stays one test), once per kind, with the tests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<RunNote>,
}

/// Something a run did differently from what its user may expect, said
/// once for every test it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunNote {
    pub message: String,
    /// The tests it concerns, by name.
    #[serde(default)]
    pub tests: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SuiteKind {
    Ctest,
    Io,
    Runner,
    Meson,
    Make,
    /// A kind a later faultlens added: read, not refused (the kind only
    /// names where the tests came from).
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Path relative to the project root, with `/` separators.
    pub path: String,
    /// True for test code (test drivers, test files): excluded from the
    /// ranking unless the user asks for it.
    #[serde(default)]
    pub test_code: bool,
    /// Executable lines as gcov reports them, ascending.
    pub lines: Vec<u32>,
    /// `sources::digest` of the file's content when the run started, to
    /// tell when line numbers no longer match the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
}

/// How a test process ended. Every outcome but `Passed` is a failing verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Passed,
    /// Ran to completion but its exit status or output was wrong.
    Failed,
    /// Killed by a signal (SIGSEGV, SIGABRT, ...).
    Crashed,
    /// Exceeded the per-test timeout and was killed.
    TimedOut,
    /// Could not be started at all (missing program, permission).
    NotRun,
}

impl Outcome {
    pub fn verdict(self) -> Verdict {
        match self {
            Outcome::Passed => Verdict::Pass,
            _ => Verdict::Fail,
        }
    }
}

/// Where a test is defined, for editors to link to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// Path relative to the project root.
    pub file: String,
    /// 1-based line.
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestRecord {
    pub name: String,
    pub verdict: Verdict,
    pub outcome: Outcome,
    /// Human-readable reason for a failing verdict ("expected exit 0, got 1").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// Captured standard output, capped (see `output_truncated`).
    #[serde(default)]
    pub stdout: String,
    #[serde(default)]
    pub stderr: String,
    #[serde(default)]
    pub output_truncated: bool,
    /// Lines this test executed, per file.
    pub coverage: Vec<FileCoverage>,
}

impl TestRecord {
    /// A record of `name` ending as `outcome`, with no output, location or
    /// coverage yet: what the tools and tests that assemble records start from.
    pub fn new(name: impl Into<String>, outcome: Outcome) -> TestRecord {
        TestRecord {
            name: name.into(),
            verdict: outcome.verdict(),
            outcome,
            reason: None,
            exit_code: None,
            signal: None,
            duration_ms: 0,
            location: None,
            stdout: String::new(),
            stderr: String::new(),
            output_truncated: false,
            coverage: Vec::new(),
        }
    }
}

/// Per-file coverage of one test. `lines[i]` ran `counts[i]` times (> 0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCoverage {
    /// Index into `RunResults::files`.
    pub file: u32,
    pub lines: Vec<u32>,
    pub counts: Vec<u64>,
    /// gcov branch counts of lines that have branches: `(line, counts in
    /// gcov's order)`. Used to derive edge profiles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<LineBranches>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineBranches {
    pub line: u32,
    pub counts: Vec<u64>,
}

impl RunResults {
    pub fn failed_count(&self) -> usize {
        self.tests
            .iter()
            .filter(|t| t.verdict == Verdict::Fail)
            .count()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results are always serializable")
    }

    pub fn from_json(text: &str) -> Result<RunResults, String> {
        // The version first: a newer document may not parse as this one.
        #[derive(Deserialize)]
        struct Versioned {
            format_version: u32,
        }
        if let Ok(v) = serde_json::from_str::<Versioned>(text) {
            if v.format_version > FORMAT_VERSION {
                return Err(format!(
                    "results format {} is newer than this faultlens understands ({FORMAT_VERSION}); upgrade faultlens",
                    v.format_version
                ));
            }
        }
        let results: RunResults = serde_json::from_str(text)
            .map_err(|e| format!("not a faultlens results document: {e}"))?;
        if results.format_version != FORMAT_VERSION {
            return Err(format!(
                "results format {} is not one this faultlens wrote (it writes {FORMAT_VERSION})",
                results.format_version
            ));
        }
        results.validate()?;
        Ok(results)
    }

    /// Checks the cross references a reader relies on, so a corrupt file is
    /// reported instead of causing an out-of-bounds index later.
    ///
    /// The document may come from the repository rather than from a run
    /// (`.faultlens/` can be committed), so it is also checked to name only
    /// files inside the project, each once, and each test once: readers open
    /// these paths and publish their lines.
    pub fn validate(&self) -> Result<(), String> {
        let mut paths = std::collections::HashSet::new();
        for file in &self.files {
            if let Err(why) = check_relative_path(&file.path) {
                return Err(format!("file {:?} {why}", file.path));
            }
            if file.path.split('/').next() == Some(".faultlens") {
                return Err(format!(
                    "file {:?} is inside faultlens's own .faultlens directory",
                    file.path
                ));
            }
            if !paths.insert(file.path.as_str()) {
                return Err(format!("file {:?} is listed twice", file.path));
            }
            if !file.lines.windows(2).all(|w| w[0] < w[1]) {
                return Err(format!(
                    "the executable lines of {:?} are not in ascending order",
                    file.path
                ));
            }
        }
        let mut names = std::collections::HashSet::new();
        for test in &self.tests {
            if !names.insert(test.name.as_str()) {
                return Err(format!("test {:?} is listed twice", test.name));
            }
            if let Some(location) = &test.location {
                if let Err(why) = check_relative_path(&location.file) {
                    return Err(format!(
                        "test {:?}: its location {:?} {why}",
                        test.name, location.file
                    ));
                }
            }
            let mut covered = std::collections::HashSet::new();
            for cov in &test.coverage {
                if !covered.insert(cov.file) {
                    return Err(format!(
                        "test {:?} lists the coverage of file #{} twice",
                        test.name, cov.file
                    ));
                }
                if cov.file as usize >= self.files.len() {
                    return Err(format!(
                        "test {:?} refers to file #{} but only {} files are listed",
                        test.name,
                        cov.file,
                        self.files.len()
                    ));
                }
                if cov.lines.len() != cov.counts.len() {
                    return Err(format!(
                        "test {:?}: coverage of {} has {} lines but {} counts",
                        test.name,
                        self.files[cov.file as usize].path,
                        cov.lines.len(),
                        cov.counts.len()
                    ));
                }
            }
        }
        if let Some(shard) = &self.shard {
            shard.check(self.tests.len())?;
        }
        Ok(())
    }
}

/// A path a stored document may name: relative to the project root, with
/// `/` separators and no `..`.
pub fn check_relative_path(path: &str) -> Result<(), &'static str> {
    if path.is_empty() {
        return Err("is empty");
    }
    if path.starts_with('/') || path.contains('\\') || path.contains('\0') {
        return Err("is not a path relative to the project root");
    }
    if path.split('/').any(|p| p == "..") {
        return Err("leaves the project (`..`)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(files: &str, tests: &str) -> String {
        format!(
            r#"{{"format_version": {FORMAT_VERSION}, "tool_version": "0", "created_unix_ms": 0,
                "project_root": "/p", "suite": "io", "files": [{files}], "tests": [{tests}]}}"#
        )
    }

    fn test(name: &str, coverage: &str) -> String {
        format!(
            r#"{{"name": "{name}", "verdict": "fail", "outcome": "failed", "duration_ms": 1, "coverage": [{coverage}]}}"#
        )
    }

    #[test]
    fn a_well_formed_document_is_read() {
        let text = document(
            r#"{"path": "src/a.c", "lines": [1, 2]}"#,
            &test("t", r#"{"file": 0, "lines": [1], "counts": [3]}"#),
        );
        let results = RunResults::from_json(&text).unwrap();
        assert_eq!(results.files[0].path, "src/a.c");
    }

    #[test]
    fn paths_outside_the_project_duplicates_and_other_versions_are_refused() {
        let cases = [
            (
                document(r#"{"path": "/dev/zero", "lines": [1]}"#, ""),
                "not a path relative",
            ),
            (
                document(r#"{"path": "../../etc/passwd", "lines": [1]}"#, ""),
                "leaves the project",
            ),
            (
                document(r#"{"path": ".faultlens/results.json", "lines": [1]}"#, ""),
                "inside faultlens's own",
            ),
            (
                document(
                    r#"{"path": "a.c", "lines": [1]}, {"path": "a.c", "lines": [2]}"#,
                    "",
                ),
                "listed twice",
            ),
            (
                document(
                    r#"{"path": "a.c", "lines": [1]}"#,
                    &format!("{}, {}", test("t", ""), test("t", "")),
                ),
                "test \"t\" is listed twice",
            ),
            (
                document(
                    r#"{"path": "a.c", "lines": [1]}"#,
                    &test(
                        "t",
                        r#"{"file": 0, "lines": [1], "counts": [1]}, {"file": 0, "lines": [1], "counts": [1]}"#,
                    ),
                ),
                "file #0 twice",
            ),
            (
                document(r#"{"path": "a.c", "lines": [2, 1]}"#, ""),
                "ascending",
            ),
            (
                document("", "").replace(
                    &format!("\"format_version\": {FORMAT_VERSION}"),
                    "\"format_version\": 0",
                ),
                "not one this faultlens wrote",
            ),
        ];
        for (text, expected) in cases {
            let err = RunResults::from_json(&text).unwrap_err();
            assert!(err.contains(expected), "{expected}: {err}");
        }
    }
}
