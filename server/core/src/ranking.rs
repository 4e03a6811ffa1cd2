//! Ranking with honest ties.
//!
//! Components with equal keys form a tie group; every member carries the
//! best rank (the group's first position), the worst (its last) and the
//! average. A developer reading top-down may have to read the whole group, so
//! the average is the honest headline figure.
//!
//! Every ranking, whatever its scores (a formula, BlockRank, fusion), puts
//! the lines some failing test ran before the lines none ran, and breaks
//! ties of score by the spectrum: more failing tests first, then fewer
//! passing ones. So a line no failing test ran never ties with or ranks
//! above one that failing tests ran, and of two lines with the same score
//! the one more failing tests ran comes first.

use crate::measures::Formula;
use crate::spectra::Counts;
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rank {
    pub best: u32,
    pub worst: u32,
    pub average: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// Index of the component in the spectra.
    pub component: usize,
    pub score: f64,
    /// The tie-breaking key where the measure has one (Tarantula's confidence).
    pub confidence: Option<f64>,
    pub rank: Rank,
}

/// The order of two components, best first, ignoring their index.
#[derive(Clone, Copy, PartialEq)]
struct Key {
    /// Some failing test ran it.
    failing: bool,
    score: f64,
    secondary: f64,
    ef: u32,
    ep: u32,
}

impl Key {
    fn cmp(&self, other: &Key) -> Ordering {
        other
            .failing
            .cmp(&self.failing)
            .then_with(|| other.score.total_cmp(&self.score))
            .then_with(|| other.secondary.total_cmp(&self.secondary))
            .then_with(|| other.ef.cmp(&self.ef))
            .then_with(|| self.ep.cmp(&other.ep))
    }
}

/// Ranks components by `scores` (descending), breaking ties by `secondary`
/// where given, then by `spectrum` (see the module's documentation; with
/// `None`, by scores alone). Members of a tie group are listed by component
/// index, so the order is deterministic; their ranks are identical.
pub fn rank_scores(
    scores: &[f64],
    secondary: Option<&[f64]>,
    spectrum: Option<&[Counts]>,
) -> Vec<Ranked> {
    let key = |i: usize| {
        let counts = spectrum.map(|c| c[i]);
        Key {
            failing: counts.is_none_or(|c| c.ef > 0),
            score: scores[i],
            secondary: secondary.map_or(0.0, |s| s[i]),
            ef: counts.map_or(0, |c| c.ef),
            ep: counts.map_or(0, |c| c.ep),
        }
    };
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| key(a).cmp(&key(b)).then(a.cmp(&b)));
    let mut out = Vec::with_capacity(order.len());
    let mut start = 0;
    while start < order.len() {
        let group_key = key(order[start]);
        let mut end = start + 1;
        while end < order.len() && same_key(key(order[end]), group_key) {
            end += 1;
        }
        let rank = Rank {
            best: start as u32 + 1,
            worst: end as u32,
            average: (start + 1 + end) as f64 / 2.0,
        };
        for &i in &order[start..end] {
            out.push(Ranked {
                component: i,
                score: scores[i],
                confidence: secondary.map(|s| s[i]),
                rank,
            });
        }
        start = end;
    }
    out
}

fn same_key(a: Key, b: Key) -> bool {
    a.cmp(&b) == Ordering::Equal
}

/// Scores every component under a spectrum measure and ranks them.
pub fn rank_counts(measure: Formula, counts: &[Counts]) -> Vec<Ranked> {
    let scores: Vec<f64> = counts.iter().map(|c| measure.score(c)).collect();
    let confidence: Option<Vec<f64>> = match measure {
        Formula::Tarantula => Some(
            counts
                .iter()
                .map(|c| measure.confidence(c).unwrap_or(0.0))
                .collect(),
        ),
        _ => None,
    };
    rank_scores(&scores, confidence.as_deref(), Some(counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_carry_best_worst_and_average() {
        let ranked = rank_scores(&[0.5, 0.9, 0.5, 0.1, 0.5], None, None);
        let order: Vec<usize> = ranked.iter().map(|r| r.component).collect();
        assert_eq!(order, vec![1, 0, 2, 4, 3]);
        assert_eq!(
            ranked[0].rank,
            Rank {
                best: 1,
                worst: 1,
                average: 1.0
            }
        );
        for r in &ranked[1..4] {
            assert_eq!(
                r.rank,
                Rank {
                    best: 2,
                    worst: 4,
                    average: 3.0
                }
            );
        }
        assert_eq!(
            ranked[4].rank,
            Rank {
                best: 5,
                worst: 5,
                average: 5.0
            }
        );
    }

    #[test]
    fn tarantula_confidence_breaks_ties() {
        // Same Tarantula score (1.0) but different confidence.
        let counts = [Counts::new(1, 1, 0, 4), Counts::new(2, 0, 0, 4)];
        let ranked = rank_counts(Formula::Tarantula, &counts);
        assert_eq!(ranked[0].component, 1);
        assert_eq!(ranked[0].rank.worst, 1);
        assert_eq!(ranked[0].confidence, Some(1.0));
        assert_eq!(ranked[1].confidence, Some(0.5));
    }

    #[test]
    fn the_spectrum_breaks_ties_and_lines_no_failing_test_ran_come_last() {
        // Same score: more failing tests first, then fewer passing ones; a
        // line no failing test ran after every line some failing test ran,
        // even with a higher score (as BlockRank may give it).
        let counts = [
            Counts::new(1, 2, 0, 5), // ef 1
            Counts::new(3, 0, 2, 3), // ef 3, ep 2
            Counts::new(3, 0, 1, 4), // ef 3, ep 1
            Counts::new(0, 3, 1, 4), // no failing test
            Counts::new(3, 0, 1, 4), // same as 2: a tie
        ];
        let ranked = rank_scores(&[0.5, 0.5, 0.5, 0.9, 0.5], None, Some(&counts));
        let order: Vec<usize> = ranked.iter().map(|r| r.component).collect();
        assert_eq!(order, vec![2, 4, 1, 0, 3]);
        assert_eq!((ranked[0].rank.best, ranked[0].rank.worst), (1, 2));
        assert_eq!(ranked[1].rank, ranked[0].rank);
        assert_eq!(ranked[4].rank.best, 5);
    }

    #[test]
    fn infinite_scores_rank_first_and_tie_with_each_other() {
        let ranked = rank_scores(&[1.0, f64::INFINITY, f64::INFINITY], None, None);
        assert_eq!(
            ranked[0].rank,
            Rank {
                best: 1,
                worst: 2,
                average: 1.5
            }
        );
        assert_eq!(ranked[2].component, 0);
    }
}
