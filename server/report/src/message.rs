//! The sentences faultlens uses for a ranked line, shared by every front end
//! so the CLI, SARIF and the editor say the same thing.

use crate::analysis::{Analysis, Entry};

/// A score for people: two decimals, `∞` for infinity.
pub fn score(value: f64) -> String {
    if value == f64::INFINITY {
        "∞".into()
    } else if value == f64::NEG_INFINITY {
        "-∞".into()
    } else {
        format!("{value:.2}")
    }
}

/// "#1 of 57 suspicious lines" or, inside a tie, "#2–4 (tied) of 57 suspicious lines".
pub fn rank_phrase(entry: &Entry, analysis: &Analysis) -> String {
    let rank = entry.ranked.rank;
    let of = analysis.suspicious();
    if rank.best == rank.worst {
        format!("#{} of {of} suspicious lines", rank.best)
    } else {
        format!(
            "#{}–{} (tied) of {of} suspicious lines",
            rank.best, rank.worst
        )
    }
}

/// "#1 of 57 suspicious lines: Ochiai 0.94, run by 3 of 3 failing and 1 of 120 passing tests"
pub fn summary(entry: &Entry, analysis: &Analysis) -> String {
    let c = entry.counts;
    format!(
        "{}: {} {}, run by {} of {} failing and {} of {} passing tests",
        rank_phrase(entry, analysis),
        analysis.measure.title(),
        score(entry.ranked.score),
        c.ef,
        c.ef + c.nf,
        c.ep,
        c.ep + c.np
    )
}
