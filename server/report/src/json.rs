//! The JSON ranking document (`faultlens localize --format json` and the
//! language server's `faultlens/ranking` request), as types. Its schema is
//! documented in the README ("JSON output") and `editors/lsp-extensions.md`;
//! the language server's protocol test checks the latter's example against
//! these types.

use crate::analysis::Analysis;
use faultlens_blockrank::BlockDetail;
use faultlens_core::ranking::Rank;
use faultlens_core::results::{Outcome, Verdict};
use faultlens_core::sources::SourceTexts;
use serde::{Deserialize, Serialize};

/// JSON has no infinity: +inf is written as the largest double, so the
/// field stays a number and still sorts first.
pub fn finite(value: f64) -> f64 {
    if value == f64::INFINITY {
        f64::MAX
    } else if value == f64::NEG_INFINITY {
        f64::MIN
    } else {
        value
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankingDocument {
    pub faultlens_version: String,
    pub measure: String,
    pub project_root: String,
    pub tests: Tests,
    pub lines: Lines,
    /// In rank order; every ranked line unless `--top N`.
    pub ranking: Vec<RankedLine>,
    /// What the run did that its user may not expect (a unit-test
    /// executable that stays one test), once per kind, with the tests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<faultlens_core::results::RunNote>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tests {
    pub total: usize,
    pub failed: usize,
    pub passed: usize,
    pub list: Vec<TestEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestEntry {
    pub name: String,
    pub verdict: Verdict,
    pub outcome: Outcome,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<faultlens_core::results::Location>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lines {
    /// Executable lines ranked.
    pub ranked: usize,
    /// Those some failing test ran.
    pub suspicious: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankedLine {
    pub file: String,
    /// 1-based.
    pub line: u32,
    /// The line's text, trimmed; `null` when the file could not be read.
    pub text: Option<String>,
    pub score: f64,
    pub rank: Rank,
    pub ef: u32,
    pub ep: u32,
    pub nf: u32,
    pub np: u32,
    /// Tarantula's tie-breaking confidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Under BlockRank: the block the line takes its score from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<BlockDetail>,
}

/// The whole document; `top` limits the ranking to its first entries.
/// What `--format json` prints when there is no ranking to print: the
/// error, with its exit code, where the ranking would be.
pub fn error_document(project_root: &str, code: u8, message: &str) -> String {
    let doc = serde_json::json!({
        "faultlens_version": env!("CARGO_PKG_VERSION"),
        "project_root": project_root,
        "ranking": [],
        "error": {"code": code, "message": message},
    });
    serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "null".into())
}

pub fn ranking_document(
    analysis: &Analysis,
    sources: &SourceTexts,
    top: Option<usize>,
) -> RankingDocument {
    let results = &analysis.results;
    let list = results
        .tests
        .iter()
        .map(|t| TestEntry {
            name: t.name.clone(),
            verdict: t.verdict,
            outcome: t.outcome,
            duration_ms: t.duration_ms,
            reason: t.reason.clone(),
            location: t.location.clone(),
        })
        .collect();
    let ranking = analysis
        .entries()
        .take(top.unwrap_or(usize::MAX))
        .map(|e| RankedLine {
            file: e.file.to_string(),
            line: e.line,
            text: sources.line(e.file, e.line).map(|t| t.trim().to_string()),
            score: finite(e.ranked.score),
            rank: e.ranked.rank,
            ef: e.counts.ef,
            ep: e.counts.ep,
            nf: e.counts.nf,
            np: e.counts.np,
            confidence: e.ranked.confidence,
            block: analysis.block_of(&e).cloned(),
        })
        .collect();
    RankingDocument {
        faultlens_version: env!("CARGO_PKG_VERSION").to_string(),
        measure: analysis.measure.name(),
        project_root: results.project_root.clone(),
        tests: Tests {
            total: results.tests.len(),
            failed: results.failed_count(),
            passed: results.tests.len() - results.failed_count(),
            list,
        },
        lines: Lines {
            ranked: analysis.ranking.len(),
            suspicious: analysis.suspicious(),
        },
        ranking,
        notes: results.notes.clone(),
    }
}

/// [`ranking_document`] as a JSON value.
pub fn ranking_json(
    analysis: &Analysis,
    sources: &SourceTexts,
    top: Option<usize>,
) -> serde_json::Value {
    serde_json::to_value(ranking_document(analysis, sources, top))
        .expect("the ranking document is always serializable")
}
