//! Evaluation against ground truth: EXAM and top-N, under honest ties.

use crate::ranking::Ranked;

/// Where the first faulty component lands in a ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultPosition {
    pub best: u32,
    pub worst: u32,
    pub average: f64,
    /// Share of ranked components read (average case) before reaching the
    /// fault: `average / total`, in (0, 1].
    pub exam: f64,
}

/// Position of the best-ranked faulty component. A multi-line fault is found
/// when any of its lines is reached. `None` when no faulty component is in
/// the ranking at all (the fault is not executable or was never ranked).
pub fn fault_position(
    ranking: &[Ranked],
    is_faulty: impl Fn(usize) -> bool,
) -> Option<FaultPosition> {
    let total = ranking.len() as f64;
    ranking
        .iter()
        .filter(|r| is_faulty(r.component))
        .map(|r| r.rank)
        .min_by(|a, b| a.average.total_cmp(&b.average))
        .map(|rank| FaultPosition {
            best: rank.best,
            worst: rank.worst,
            average: rank.average,
            exam: rank.average / total,
        })
}

/// Whether the fault is within the first `n` lines, counting ties
/// pessimistically-fair: the fault's average rank must be at most `n`.
pub fn in_top(position: Option<FaultPosition>, n: u32) -> bool {
    position.is_some_and(|p| p.average <= n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::rank_scores;

    #[test]
    fn exam_uses_the_average_rank_of_the_tie_group() {
        let ranking = rank_scores(&[0.9, 0.5, 0.5, 0.5, 0.1], None, None);
        let pos = fault_position(&ranking, |c| c == 2).unwrap();
        assert_eq!((pos.best, pos.worst, pos.average), (2, 4, 3.0));
        assert!((pos.exam - 0.6).abs() < 1e-12);
        assert!(in_top(Some(pos), 3) && !in_top(Some(pos), 1));
        assert!(fault_position(&ranking, |_| false).is_none());
    }
}
