//! The terminal table: what a person reads first after a failing test.

use crate::analysis::Analysis;
use crate::message;
use faultlens_core::results::Verdict;
use faultlens_core::sources::SourceTexts;
use std::fmt::Write;

const TEXT_WIDTH: usize = 60;
/// Failing tests listed under the table before "and N more".
const FAILING_SHOWN: usize = 8;

pub fn table(analysis: &Analysis, sources: &SourceTexts, top: usize) -> String {
    let results = &analysis.results;
    let mut out = String::new();
    let failed = results.failed_count();
    let _ = writeln!(
        out,
        "{failed} of {} tests failed · {} · {} suspicious of {} executable lines",
        results.tests.len(),
        analysis.measure.title(),
        analysis.suspicious(),
        analysis.ranking.len()
    );
    let _ = writeln!(out);

    let rows: Vec<[String; 5]> = analysis
        .entries()
        .take(top)
        .map(|e| {
            let rank = e.ranked.rank;
            let rank_text = if rank.best == rank.worst {
                rank.best.to_string()
            } else {
                format!("{}-{}", rank.best, rank.worst)
            };
            let text = sources.line(e.file, e.line).map(str::trim).unwrap_or("");
            [
                rank_text,
                format!("{}:{}", e.file, e.line),
                message::score(e.ranked.score),
                format!("{}/{}", e.counts.ef, e.counts.ep),
                clip(text, TEXT_WIDTH),
            ]
        })
        .collect();
    let header = ["rank", "location", "score", "ef/ep", "line"];
    let widths: Vec<usize> = (0..4)
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 5]| {
        format!(
            "{:>w0$}  {:<w1$}  {:>w2$}  {:>w3$}  {}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3]
        )
        .trim_end()
        .to_string()
    };
    let _ = writeln!(out, "{}", line(header));
    for r in &rows {
        let _ = writeln!(out, "{}", line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
    if analysis.ranking.len() > top {
        let _ = writeln!(
            out,
            "… {} more lines (--top N to see more)",
            analysis.ranking.len() - top
        );
    }

    let failing: Vec<_> = results
        .tests
        .iter()
        .filter(|t| t.verdict == Verdict::Fail)
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "\nfailing tests:");
        for t in failing.iter().take(FAILING_SHOWN) {
            let reason = t.reason.as_deref().unwrap_or("failed");
            let _ = writeln!(out, "  {}: {}", one_line(&t.name), one_line(reason));
        }
        if failing.len() > FAILING_SHOWN {
            let _ = writeln!(out, "  … and {} more", failing.len() - FAILING_SHOWN);
        }
    }
    if let Some(scores) = &analysis.blockrank {
        if !scores.skipped.is_empty() {
            let _ = writeln!(out);
        }
        for skipped in &scores.skipped {
            let _ = writeln!(out, "note: {}", one_line(&skipped.message()));
        }
    }
    let _ = writeln!(
        out,
        "\nef/ep: failing/passing tests that ran the line; tied lines share a rank range."
    );
    if let faultlens_core::measures::Ranker::Fusion(base) = analysis.measure {
        let base = base.ranker();
        let _ = writeln!(
            out,
            "Fusion: lines in the stored diagnosis's minimum-cost diagnoses first, then in its other diagnoses, then by {} (`--measure {} --no-fusion` ranks by it alone).",
            base.title(),
            base.name()
        );
    }
    out
}

/// `text` on one line of a table: control characters (a newline in a test
/// name from a CTest listing) are written as escapes.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(width - 1).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_stay_on_one_line() {
        assert_eq!(super::one_line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(super::one_line("plain"), "plain");
    }
}
