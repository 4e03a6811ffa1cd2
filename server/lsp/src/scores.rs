//! The `faultlens/scores` notification: every suspicious line's score and
//! heat, for clients that paint a heatmap.

use crate::localization::Localization;
use crate::placement::FileView;
use crate::protocol::{ScoredFile, ScoredLine, ScoresParams};

/// Heat in (0, 1]: 1 for the top rank, falling linearly with the average
/// rank over the suspicious lines. Ranks rather than scores, because scores
/// of some measures are unbounded or negative.
pub fn heat(average_rank: f64, suspicious: usize) -> f64 {
    let n = suspicious.max(1) as f64;
    (1.0 - (average_rank - 1.0) / n).clamp(0.0, 1.0)
}

/// The payload. `views` holds one view per file with suspicious lines.
pub fn payload(loc: &Localization, views: &[FileView]) -> ScoresParams {
    let files = views
        .iter()
        .map(|view| {
            let lines = loc
                .suspicious_entries()
                .filter(|e| e.file == view.file)
                .filter_map(|entry| {
                    let placed = view.place(&entry)?;
                    let rank = entry.ranked.rank;
                    Some(ScoredLine {
                        line: placed.line,
                        // JSON has no infinity.
                        score: faultlens_report::json::finite(entry.ranked.score),
                        heat: heat(rank.average, loc.suspicious),
                        rank,
                        ef: entry.counts.ef,
                        ep: entry.counts.ep,
                        stale: placed.stale,
                    })
                })
                .collect();
            ScoredFile {
                uri: view.uri.as_str().to_string(),
                lines,
            }
        })
        .collect();
    ScoresParams {
        measure: loc.measure.name(),
        files,
    }
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
        assert_eq!(p.measure, "ochiai");
        let lines = &p.files[0].lines;
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0].line, 5);
        assert_eq!(lines[0].heat, 1.0);
        assert!(!lines[0].stale);
        let last = lines[4].heat;
        assert!(last > 0.0 && last < 0.5, "{last}");
        assert_eq!(p.files[0].uri, "file:///project/src/sum.c");
    }

    #[test]
    fn the_top_rank_is_the_hottest_even_with_no_suspicious_line() {
        assert!(heat(1.0, 0) == 1.0);
    }
}
