//! The JSON ranking document (`faultlens localize --format json` and the
//! language server's `faultlens/ranking` request). Its schema is documented
//! in the README ("JSON output"); keep the two in step.

use crate::analysis::Analysis;
use faultlens_core::sources::SourceTexts;
use serde_json::{json, Value};

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

/// The whole document; `top` limits the ranking to its first entries.
pub fn ranking_json(analysis: &Analysis, sources: &SourceTexts, top: Option<usize>) -> Value {
    let results = &analysis.results;
    let tests: Vec<Value> = results
        .tests
        .iter()
        .map(|t| {
            let mut v = json!({
                "name": t.name,
                "verdict": t.verdict,
                "outcome": t.outcome,
                "duration_ms": t.duration_ms,
            });
            if let Some(reason) = &t.reason {
                v["reason"] = json!(reason);
            }
            if let Some(loc) = &t.location {
                v["location"] = json!({"file": loc.file, "line": loc.line});
            }
            v
        })
        .collect();
    let ranking: Vec<Value> = analysis
        .entries()
        .take(top.unwrap_or(usize::MAX))
        .map(|e| {
            let mut v = json!({
                "file": e.file,
                "line": e.line,
                "text": sources.line(e.file, e.line).map(str::trim),
                "score": finite(e.ranked.score),
                "rank": {
                    "best": e.ranked.rank.best,
                    "worst": e.ranked.rank.worst,
                    "average": e.ranked.rank.average,
                },
                "ef": e.counts.ef,
                "ep": e.counts.ep,
                "nf": e.counts.nf,
                "np": e.counts.np,
            });
            if let Some(c) = e.ranked.confidence {
                v["confidence"] = json!(c);
            }
            if let Some(block) = analysis.block_of(&e) {
                v["block"] = json!(block);
            }
            v
        })
        .collect();
    json!({
        "faultlens_version": env!("CARGO_PKG_VERSION"),
        "measure": analysis.measure.name(),
        "project_root": results.project_root,
        "tests": {
            "total": results.tests.len(),
            "failed": results.failed_count(),
            "passed": results.tests.len() - results.failed_count(),
            "list": tests,
        },
        "lines": {
            "ranked": analysis.ranking.len(),
            "suspicious": analysis.suspicious(),
        },
        "ranking": ranking,
    })
}
