//! Hover on a ranked line: its spectrum, its score under every measure, its
//! tie group and the failing tests that ran it, as Markdown.

use crate::localization::{format_rank, format_score, format_score_precise, Entry, Localization};
use faultlens_blockrank::BlockDetail;
use faultlens_core::measures::ALL;
use std::fmt::Write;

pub fn markdown(loc: &Localization, entry: &Entry, stale: bool) -> String {
    let c = entry.counts;
    let rank = entry.ranked.rank;
    let mut md = String::new();
    if c.ef == 0 {
        // Ranked below every suspicious line; its rank among them means nothing.
        let _ = writeln!(
            md,
            "**faultlens** · not suspicious: no failing test ran this line · {} **{}**",
            loc.measure.title(),
            format_score(entry.ranked.score)
        );
    } else {
        let _ = writeln!(
            md,
            "**faultlens** · {} of {} suspicious lines · {} **{}**",
            format_rank(entry),
            loc.suspicious,
            loc.measure.title(),
            format_score(entry.ranked.score)
        );
    }
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
        let mark = if faultlens_core::measures::Ranker::Formula(*measure) == loc.measure.base() {
            " ◀"
        } else {
            ""
        };
        let _ = writeln!(
            md,
            "| {}{} | {} |",
            measure.title(),
            mark,
            format_score_precise(measure.score(&c))
        );
    }
    if loc.measure.formula().is_none() {
        let _ = writeln!(
            md,
            "| {} ◀ | {} |",
            loc.measure.title(),
            format_score_precise(entry.ranked.score)
        );
    }
    md.push('\n');
    if let Some(block) = loc.block(entry) {
        blockrank_section(&mut md, block);
    }
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

/// BlockRank's evidence for the line's block: its scores, the transition
/// rate and the suspicious edge profile of the edges around it.
fn blockrank_section(md: &mut String, block: &BlockDetail) {
    let lines = if block.first_line == block.last_line {
        format!("line {}", block.first_line)
    } else {
        format!("lines {}–{}", block.first_line, block.last_line)
    };
    let _ = writeln!(
        md,
        "**BlockRank**: block at {lines} of `{}` · score {} (BR {}, I {}) · transition rate T {:.2}\n",
        block.function,
        format_score_precise(block.score),
        format_score_precise(block.br),
        format_score_precise(block.i),
        block.t
    );
    if block.crash_credit != 0.0 {
        let _ = writeln!(
            md,
            "Crash calibration: {:+.0}% of runs stopped inside this block (failing less passing), so the score gains {} (that share of the program's top score).\n",
            block.stop * 100.0,
            format_score_precise(block.crash_credit)
        );
    } else if block.t < 1.0 {
        let _ = writeln!(
            md,
            "Runs stopped inside this block (a crash or an exit) in {:.0}% of its entries.\n",
            (1.0 - block.t) * 100.0
        );
    }
    md.push_str("| edge | Pf | Pp | D = Pf − Pp |\n|---|---:|---:|---:|\n");
    let rows = block
        .incoming
        .iter()
        .map(|e| ("in", e))
        .chain(block.outgoing.iter().map(|e| ("out", e)));
    for (way, edge) in rows {
        let _ = writeln!(
            md,
            "| {way}: {} | {:.2} | {:.2} | {:.2} |",
            edge.description, edge.pf, edge.pp, edge.d
        );
    }
    md.push_str("\nPf, Pp: mean times failing and passing tests took the edge.\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localization::fixtures::results;
    use faultlens_core::measures::{Formula, Ranker};
    use std::path::Path;

    #[test]
    fn under_blockrank_the_hover_shows_the_block_its_edges_and_the_transition_rate() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/sum.c"),
            crate::localization::fixtures::SOURCE,
        )
        .unwrap();
        let loc = crate::reload::rank(results(), Ranker::BlockRank, dir.path()).unwrap();
        let entry = loc.entry(0, 6).unwrap();
        let md = markdown(&loc, &entry, false);
        assert!(md.contains("BlockRank ◀"), "{md}");
        assert!(
            md.contains("**BlockRank**: block at line 6 of `sum`"),
            "{md}"
        );
        assert!(md.contains("transition rate T"), "{md}");
        assert!(md.contains("| edge | Pf | Pp | D = Pf − Pp |"), "{md}");
        assert!(md.contains("| in: "), "{md}");
        // Spectrum measures show no block.
        let ochiai = Localization::new(results(), Formula::Ochiai, dir.path());
        assert!(!markdown(&ochiai, &ochiai.entry(0, 6).unwrap(), false).contains("**BlockRank**"));
    }

    #[test]
    fn a_block_where_failing_runs_crashed_explains_its_crash_credit() {
        let block = BlockDetail {
            function: "pick".into(),
            first_line: 59,
            last_line: 64,
            score: 6.68,
            br: 0.8,
            i: 0.8,
            t: 0.83,
            stop: 0.8,
            crash_credit: 5.85,
            incoming: Vec::new(),
            outgoing: Vec::new(),
        };
        let mut md = String::new();
        blockrank_section(&mut md, &block);
        assert!(
            md.contains("block at lines 59–64 of `pick` · score 6.68"),
            "{md}"
        );
        assert!(
            md.contains("Crash calibration: +80% of runs stopped inside this block"),
            "{md}"
        );
        assert!(md.contains("the score gains 5.85"), "{md}");
    }

    #[test]
    fn carries_spectrum_every_measure_ties_and_tests() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
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
        assert!(
            unrun.contains("not suspicious: no failing test ran this line"),
            "{unrun}"
        );
        assert!(!unrun.contains("suspicious lines ·"), "{unrun}");
    }

    #[test]
    fn the_whole_hover_of_the_top_line() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        let md = markdown(&loc, &loc.entry(0, 6).unwrap(), false);
        expect_test::expect![[r#"
            **faultlens** · #1 of 5 suspicious lines · Ochiai **0.82**

            Run by 2 of 2 failing and 1 of 3 passing tests.

            | ef | ep | nf | np |
            |---:|---:|---:|---:|
            | 2 | 1 | 0 | 2 |

            Rank 1 (no tie).

            | measure | score |
            |---|---:|
            | Ochiai ◀ | 0.8165 |
            | Tarantula | 0.7500 |
            | Jaccard | 0.6667 |
            | DStar | 4 |
            | Naish1 | 2 |
            | Op2 | 1.7500 |
            | Kulczynski1 | 2 |
            | Kulczynski2 | 0.8333 |
            | Barinel | 0.6667 |
            | SBI | 0.6667 |
            | Opt | 4 |
            | Wong1 | 2 |
            | Wong2 | 1 |
            | Wong3 | 1 |
            | Zoltar | 0.6667 |
            | GP13 | 2.5000 |
            | Ample | 0.6667 |
            | Russell-Rao | 0.4000 |
            | Sørensen-Dice | 0.8000 |
            | Anderberg | 0.5000 |
            | M2 | 0.3333 |

            Failing tests that ran this line:

            - `sum_negative`: sum_negative printed the wrong total (tests/cases.txt:7)
            - `sum_mixed`: sum_mixed printed the wrong total
        "#]]
        .assert_eq(&md);
    }
}
