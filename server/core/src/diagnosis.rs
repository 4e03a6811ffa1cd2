//! The diagnosis document: what formula-based diagnosis found, as plain data.
//!
//! The engine (`faultlens-diagnose`) produces it; the CLI renders it as a
//! table, JSON or SARIF and the language server turns it into diagnostics,
//! hovers, inlay hints and lenses. It is also what
//! `<project>/.faultlens/diagnosis.json` holds. Lines and columns are 1-based.

use serde::{Deserialize, Serialize};

/// Where the diagnosis document is stored, relative to the project root.
pub const DIAGNOSIS_FILE: &str = ".faultlens/diagnosis.json";

/// Everything one diagnosis run found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
}
