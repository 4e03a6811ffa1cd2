//! faultlens's own protocol, beyond the LSP standard: every custom message,
//! command argument and answer as a type. `editors/lsp-extensions.md`
//! documents each with an example; `tests/protocol_doc.rs` checks that
//! every example is one of these types exactly, and that the document names
//! this file's current hash, so a change here is a change there. The VS
//! Code extension's `protocol.ts` parses the same examples in its tests.

use faultlens_core::ranking::Rank;
use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::request::Request;

pub use faultlens_report::json::RankingDocument;

// ---- Notifications (server → client) ------------------------------------

/// Every suspicious line's score, for heatmaps: after every ranking and
/// every change of a line's place or staleness.
pub enum Scores {}

impl Notification for Scores {
    type Params = ScoresParams;
    const METHOD: &'static str = "faultlens/scores";
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoresParams {
    /// The ranker's name (`ochiai`, `blockrank`, ...).
    pub measure: String,
    pub files: Vec<ScoredFile>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoredFile {
    pub uri: String,
    /// Every line of the file some failing test ran.
    pub lines: Vec<ScoredLine>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoredLine {
    /// 0-based, where the line is now (after the user's edits).
    pub line: u32,
    /// Infinite scores are written as the largest finite numbers.
    pub score: f64,
    /// In (0, 1], 1 for the top rank, falling linearly with the average rank.
    pub heat: f64,
    pub rank: Rank,
    pub ef: u32,
    pub ep: u32,
    /// The line's own text changed since the run.
    pub stale: bool,
}

/// What the server is doing: after every change of state.
pub enum Status {}

impl Notification for Status {
    type Params = StatusParams;
    const METHOD: &'static str = "faultlens/status";
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusParams {
    pub state: ServerState,
    pub message: String,
    pub failing: usize,
    pub total: usize,
    pub diagnosis: DiagnosisStatus,
    pub generation: GenerationStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ServerState {
    Idle,
    /// A localization is building and running the tests.
    Running,
    /// Results are shown.
    Done,
    /// The last run or the results file failed; the message says why.
    Error,
    /// Nothing runs here; stored results are still shown.
    Untrusted,
    /// Results are shown, but some ranked lines changed since the run.
    Stale,
    /// Trusted, and no results yet.
    NoResults,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiagnosisStatus {
    pub state: DiagnosisState,
    /// What it found, or why it produced nothing.
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DiagnosisState {
    Running,
    Done,
    Error,
    None,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerationStatus {
    pub state: GenerationState,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GenerationState {
    Running,
    Idle,
}

// ---- Notifications (client → server) -----------------------------------

/// A command the developer ran finished: a command line in the editor's
/// terminal, or a task. The server decides whether it ran tests (the
/// `testCommands` setting) and, when it failed, re-localizes.
pub enum TestRunEnded {}

impl Notification for TestRunEnded {
    type Params = TestRunEndedParams;
    const METHOD: &'static str = "faultlens/testRunEnded";
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TestRunEndedParams {
    /// The command line as the developer typed it (or the task's command).
    pub command_line: String,
    /// Where it ran, when the editor knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Its exit code; absent when the editor could not tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    pub source: RunSource,
    /// A task of the editor's `test` group: a test run whatever its command.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub test_group: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RunSource {
    /// A command line in the integrated terminal (shell integration).
    Terminal,
    /// A task (of the `test` group, or any task whose command is a test command).
    Task,
}

// ---- Requests (client → server) -----------------------------------------

/// The whole ranking: the document `faultlens rank --format json` prints.
pub enum Ranking {}

impl Request for Ranking {
    /// `null` (as eglot sends for no params) is the current measure too.
    type Params = Option<RankingParams>;
    type Result = RankingDocument;
    const METHOD: &'static str = "faultlens/ranking";
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankingParams {
    /// Another ranker than the current one, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<String>,
}

// ---- Commands (`workspace/executeCommand`) ------------------------------

pub const LOCALIZE: &str = "faultlens.localize";
pub const SHOW_FAILING_TESTS: &str = "faultlens.showFailingTests";
pub const SET_MEASURE: &str = "faultlens.setMeasure";
pub const DIAGNOSE: &str = "faultlens.diagnose";
pub const GENERATE_TESTS: &str = "faultlens.generateTests";

/// The answer of the commands that start background work (`localize`,
/// `diagnose`, `generateTests`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Started {
    pub started: bool,
    /// The job's number, when it started (its progress token ends in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<u64>,
    /// Why it did not start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Started {
    pub fn from(outcome: Result<u64, String>) -> Started {
        match outcome {
            Ok(run) => Started {
                started: true,
                run: Some(run),
                reason: None,
            },
            Err(reason) => Started {
                started: false,
                run: None,
                reason: Some(reason),
            },
        }
    }
}

/// The argument of `faultlens.showFailingTests` (none: every failing test).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShowFailingTestsArgs {
    pub uri: String,
    /// 0-based.
    pub line: u32,
}

/// One entry of `faultlens.showFailingTests`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailingTest {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Where the test is defined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<tower_lsp_server::ls_types::Location>,
}

/// The answer of `faultlens.setMeasure` (its argument: `["dstar"]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureSet {
    pub measure: String,
}

/// The argument of `faultlens.generateTests`; every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateTestsArgs {
    /// `sfo_p` (default), `sfo` or `sat-tar`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// At most this many tests (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
    /// `enumerate` (default) or `solver`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explorer: Option<String>,
}

// ---- Progress -----------------------------------------------------------

/// The background jobs that report `$/progress`. Their tokens are
/// `faultlens/<kind>/<n>`, `n` the number `Started::run` answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    Run,
    Diagnose,
    Generate,
}

impl JobKind {
    pub fn name(self) -> &'static str {
        match self {
            JobKind::Run => "run",
            JobKind::Diagnose => "diagnose",
            JobKind::Generate => "generate",
        }
    }

    pub fn token(self, n: u64) -> String {
        format!("faultlens/{}/{n}", self.name())
    }
}
