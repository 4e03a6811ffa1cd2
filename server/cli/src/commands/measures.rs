//! `faultlens measures`: the measures and their formulas.

use crate::output::outln;
use faultlens_core::measures::{Ranker, ALL};
use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    // BlockRank and fusion are not formulas (`ALL`), so they are named
    // here: every ranker `--measure` accepts is listed.
    let all = ALL
        .iter()
        .map(|&f| Ranker::Formula(f))
        .chain([Ranker::BlockRank, Ranker::FUSION]);
    for m in all {
        let info = m.info();
        outln!(
            "{:<14} {}\n{:<14} {}\n",
            m.name(),
            info.formula,
            "",
            info.summary
        );
    }
    outln!("Also: dstarN (N = 1..10) and opt-<w> for w in ochiai, tarantula, jaccard, kulczynski2, barinel, sbi, sorensen-dice.");
    outln!("Conventions: 0/0 = 0; x/0 = +inf for x > 0 (DStar, Kulczynski1).");
    Ok(ExitCode::SUCCESS)
}
