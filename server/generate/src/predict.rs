//! The ranking the data predicts: spectra over the model's coverage of each
//! run, ranked under a measure. What `faultlens generate` shows per round
//! (the final ranking comes from the real binary's coverage).

use crate::run::{Line, Run};
use faultlens_core::bitset::BitSet;
use faultlens_core::measures::Formula;
use faultlens_core::ranking::{rank_counts, Rank};
use faultlens_core::results::Verdict as CoreVerdict;
use faultlens_core::spectra::CoverageMatrix;
use std::collections::{BTreeMap, BTreeSet};

/// Rank of every line any run executed.
pub fn ranking(data: &[Run], measure: Formula) -> BTreeMap<Line, Rank> {
    let lines: Vec<Line> = data
        .iter()
        .flat_map(|r| r.coverage.iter().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let index: BTreeMap<&Line, usize> = lines.iter().enumerate().map(|(i, l)| (l, i)).collect();
    let mut matrix = CoverageMatrix::new(lines.len());
    for r in data {
        let ones: Vec<usize> = r.coverage.iter().map(|l| index[l]).collect();
        let verdict = if r.verdict.is_fail() {
            CoreVerdict::Fail
        } else {
            CoreVerdict::Pass
        };
        matrix.push(verdict, BitSet::from_indices(lines.len(), &ones));
    }
    let counts = matrix.counts();
    rank_counts(measure, &counts)
        .into_iter()
        .map(|r| (lines[r.component].clone(), r.rank))
        .collect()
}

/// The lines whose best rank is at most `n`, best first.
pub fn top(ranking: &BTreeMap<Line, Rank>, n: u32) -> Vec<(Line, Rank)> {
    let mut v: Vec<(Line, Rank)> = ranking
        .iter()
        .filter(|(_, r)| r.best <= n)
        .map(|(l, r)| (l.clone(), *r))
        .collect();
    v.sort_by(|a, b| a.1.average.total_cmp(&b.1.average).then(a.0.cmp(&b.0)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Verdict;

    fn run(lines: &[u32], fails: bool) -> Run {
        Run {
            inputs: vec![],
            coverage: lines.iter().map(|&l| ("m.c".to_string(), l)).collect(),
            verdict: if fails {
                Verdict::Fail {
                    violation: "x".into(),
                }
            } else {
                Verdict::Pass
            },
        }
    }

    #[test]
    fn a_passing_run_breaks_a_tie() {
        let before = vec![run(&[1, 2, 3], true), run(&[1], false)];
        let r = ranking(&before, Formula::Ochiai);
        assert_eq!(r[&("m.c".to_string(), 2)].average, 1.5);
        let mut after = before.clone();
        after.push(run(&[1, 2], false));
        let r = ranking(&after, Formula::Ochiai);
        assert_eq!(r[&("m.c".to_string(), 3)].average, 1.0);
        assert_eq!(top(&r, 1).len(), 1);
    }
}
