//! Hover on a ranked line: its spectrum, its score under every measure, its
//! tie group and the failing tests that ran it, as Markdown.

use crate::localization::{format_rank, format_score, format_score_precise, Entry, Localization};
use faultlens_core::measures::ALL;
use std::fmt::Write;

pub fn markdown(loc: &Localization, entry: &Entry, stale: bool) -> String {
    let c = entry.counts;
    let rank = entry.ranked.rank;
    let mut md = String::new();
    let _ = writeln!(
        md,
        "**faultlens** · {} of {} suspicious lines · {} **{}**",
        format_rank(entry),
        loc.suspicious,
        loc.measure.title(),
        format_score(entry.ranked.score)
    );
    md.push('\n');
    if stale {
        md.push_str("_Stale: this line changed since the run; re-run to update._\n\n");
    }
    let _ = writeln!(
        md,
        "Run by {} of {} failing and {} of {} passing tests.\n",
        c.ef,
        c.failed(),
        c.ep,
        c.passed()
    );
    let _ = writeln!(
        md,
        "| ef | ep | nf | np |\n|---:|---:|---:|---:|\n| {} | {} | {} | {} |\n",
        c.ef, c.ep, c.nf, c.np
    );
    if rank.best == rank.worst {
        let _ = writeln!(md, "Rank {} (no tie).\n", rank.best);
    } else {
        let others = rank.worst - rank.best;
        let _ = writeln!(
            md,
            "Tie group: ranks {}–{} (average {}), shared with {} other line{} of the same score.\n",
            rank.best,
            rank.worst,
            rank.average,
            others,
            if others == 1 { "" } else { "s" }
        );
    }
    md.push_str("| measure | score |\n|---|---:|\n");
    for measure in ALL {
        let mark = if *measure == loc.measure { " ◀" } else { "" };
        let _ = writeln!(
            md,
            "| {}{} | {} |",
            measure.title(),
            mark,
            format_score_precise(measure.score(&c))
        );
    }
    md.push('\n');
    let failing = loc.failing_tests(entry);
    if failing.is_empty() {
        md.push_str("No failing test ran this line.\n");
    } else {
        md.push_str("Failing tests that ran this line:\n\n");
        for test in failing {
            let _ = write!(md, "- `{}`", test.name);
            if let Some(reason) = &test.reason {
                let _ = write!(md, ": {reason}");
            }
            if let Some(at) = &test.location {
                let _ = write!(md, " ({}:{})", at.file, at.line);
            }
            md.push('\n');
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localization::fixtures::results;
    use faultlens_core::measures::Measure;
    use std::path::Path;

    #[test]
    fn carries_spectrum_every_measure_ties_and_tests() {
        let loc = Localization::new(results(), Measure::Ochiai, Path::new("/project"));
        let md = markdown(&loc, &loc.entry(0, 6).unwrap(), false);
        assert!(
            md.contains("#1 of 5 suspicious lines · Ochiai **0.82**"),
            "{md}"
        );
        assert!(md.contains("| 2 | 1 | 0 | 2 |"), "{md}");
        assert!(md.contains("| Ochiai ◀ | 0.8165 |"), "{md}");
        assert!(md.contains("| DStar | 4 |"), "{md}");
        assert!(
            md.contains("| Tarantula | 0.7500 |") || md.contains("| Tarantula | 0.75"),
            "{md}"
        );
        assert!(
            md.contains(
                "- `sum_negative`: sum_negative printed the wrong total (tests/cases.txt:7)"
            ),
            "{md}"
        );
        assert!(md.contains("- `sum_mixed`"));
        assert!(!md.contains("Stale"));
        let tied = markdown(&loc, &loc.entry(0, 3).unwrap(), true);
        assert!(
            tied.contains("Tie group: ranks 3–4 (average 3.5), shared with 1 other line"),
            "{tied}"
        );
        assert!(tied.contains("Stale"));
        let unrun = markdown(&loc, &loc.entry(0, 7).unwrap(), false);
        assert!(unrun.contains("No failing test ran this line."));
    }
}
