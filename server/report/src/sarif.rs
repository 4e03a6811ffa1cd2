//! SARIF 2.1.0: one result per ranked line, for code-scanning dashboards.
//! Validated against the official schema in the tests.

use crate::analysis::Analysis;
use crate::json::finite;
use crate::message;
use faultlens_core::measures::ALL;
use serde_json::{json, Value};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
pub(crate) const INFORMATION_URI: &str = "https://github.com/faultlens/faultlens";

/// A SARIF log of one faultlens run: the driver (with `rules`, if any), the
/// project root as `%SRCROOT%`, one invocation and the results. Shared by the
/// ranking's and the diagnosis's documents.
pub(crate) fn log(
    project_root: &str,
    rules: Option<Vec<Value>>,
    invocation: Value,
    results: Vec<Value>,
) -> Value {
    let mut driver = json!({
        "name": "faultlens",
        "version": env!("CARGO_PKG_VERSION"),
        "informationUri": INFORMATION_URI,
    });
    if let Some(rules) = rules {
        driver["rules"] = Value::Array(rules);
    }
    let root_uri = format!("file://{}/", project_root.trim_end_matches('/'));
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
            "invocations": [invocation],
            "results": results,
        }],
    })
}

/// `top` limits the results to the first ranked lines (default: all lines
/// some failing test ran).
pub fn sarif(analysis: &Analysis, top: Option<usize>) -> Value {
    let rules: Vec<Value> = ALL
        .iter()
        .map(|m| m.name())
        .chain(std::iter::once(analysis.measure.name()))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter_map(|name| faultlens_core::measures::Ranker::parse(&name).ok())
        .map(|m| {
            let info = m.info();
            json!({
                "id": m.name(),
                "name": format!("Suspicious line ({})", m.title()),
                "shortDescription": {"text": format!("A line ranked suspicious by {}", m.title())},
                "fullDescription": {"text": info.summary},
                "help": {"text": format!("{} = {}", m.title(), info.formula)},
                "helpUri": format!("{INFORMATION_URI}#{}", m.name()),
            })
        })
        .collect();
    let rule_index = rules
        .iter()
        .position(|r| r["id"] == analysis.measure.name())
        .unwrap_or(0);
    let top_score = analysis.ranking.first().map_or(0.0, |r| finite(r.score));
    let results: Vec<Value> = analysis
        .entries()
        .filter(|e| e.counts.ef > 0)
        .take(top.unwrap_or(usize::MAX))
        .map(|e| {
            let rank = e.ranked.rank;
            let level = if rank.best <= 3 { "warning" } else { "note" };
            // SARIF's rank is a priority in [0, 100].
            let priority = if top_score > 0.0 {
                (finite(e.ranked.score) / top_score * 100.0).clamp(0.0, 100.0)
            } else {
                0.0
            };
            json!({
                "ruleId": analysis.measure.name(),
                "ruleIndex": rule_index,
                "level": level,
                "rank": (priority * 100.0).round() / 100.0,
                "message": {"text": message::summary(&e, analysis)},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": e.file, "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": e.line},
                    }
                }],
                "properties": {
                    "score": finite(e.ranked.score),
                    "rankBest": rank.best,
                    "rankWorst": rank.worst,
                    "rankAverage": rank.average,
                    "ef": e.counts.ef,
                    "ep": e.counts.ep,
                    "nf": e.counts.nf,
                    "np": e.counts.np,
                },
            })
        })
        .collect();
    log(
        &analysis.results.project_root,
        Some(rules),
        json!({
            "executionSuccessful": true,
            "properties": {
                "testsTotal": analysis.results.tests.len(),
                "testsFailed": analysis.results.failed_count(),
            },
        }),
        results,
    )
}
