//! The `faultlens/scores` notification: every suspicious line's score and
//! heat, for clients that paint a heatmap.

use crate::localization::Localization;
use crate::placement::FileView;
use serde_json::{json, Value};

/// Heat in (0, 1]: 1 for the top rank, falling linearly with the average
/// rank over the suspicious lines. Ranks rather than scores, because scores
/// of some measures are unbounded or negative.
pub fn heat(average_rank: f64, suspicious: usize) -> f64 {
    let n = suspicious.max(1) as f64;
    (1.0 - (average_rank - 1.0) / n).clamp(0.0, 1.0)
}

/// A score as JSON: infinite scores become the largest finite number, since
/// JSON has no infinity.
pub fn score_json(score: f64) -> Value {
    if score.is_finite() {
        json!(score)
    } else if score > 0.0 {
        json!(f64::MAX)
    } else {
        json!(f64::MIN)
    }
}

/// The payload. `views` holds one view per file with suspicious lines.
pub fn payload(loc: &Localization, views: &[FileView]) -> Value {
    let files: Vec<Value> = views
        .iter()
        .map(|view| {
            let lines: Vec<Value> = loc
                .suspicious_entries()
                .filter(|e| e.file == view.file)
                .filter_map(|entry| {
                    let placed = view.place(&entry)?;
                    let rank = entry.ranked.rank;
                    Some(json!({
                        "line": placed.line,
                        "score": score_json(entry.ranked.score),
                        "heat": heat(rank.average, loc.suspicious),
                        "rank": { "best": rank.best, "worst": rank.worst, "average": rank.average },
                        "ef": entry.counts.ef,
                        "ep": entry.counts.ep,
                        "stale": placed.stale,
                    }))
                })
                .collect();
            json!({ "uri": view.uri.as_str(), "lines": lines })
        })
        .collect();
    json!({ "measure": loc.measure.name(), "files": files })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localization::fixtures::results;
    use faultlens_core::measures::Formula;
    use std::path::Path;

    #[test]
    fn every_suspicious_line_with_heat() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        let view = FileView {
            file: 0,
            uri: loc.uri_of("src/sum.c").unwrap(),
            tracker: None,
            lines: vec![],
            changed_on_disk: false,
        };
        let p = payload(&loc, &[view]);
        assert_eq!(p["measure"], "ochiai");
        let lines = p["files"][0]["lines"].as_array().unwrap();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0]["line"], 5);
        assert_eq!(lines[0]["heat"], 1.0);
        assert_eq!(lines[0]["stale"], false);
        let last = lines[4]["heat"].as_f64().unwrap();
        assert!(last > 0.0 && last < 0.5, "{last}");
        assert_eq!(p["files"][0]["uri"], "file:///project/src/sum.c");
    }

    #[test]
    fn infinite_scores_stay_valid_json() {
        assert_eq!(score_json(f64::INFINITY), json!(f64::MAX));
        assert!(heat(1.0, 0) == 1.0);
    }
}
