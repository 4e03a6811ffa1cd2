//! Line tracking: where a ranked line is after the user edited the document,
//! and whether its own text changed (then its results are stale until the
//! next run).
//!
//! Results name lines of the text as it was when they were computed (the
//! baseline). Each edit moves the lines after it up or down; a line whose
//! text an edit touched is kept in place but marked stale; a line an edit
//! deleted entirely disappears. Lines are 0-based here.

use std::collections::BTreeMap;

/// Where a baseline line is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tracked {
    /// Current 0-based line, or `None` when the line was deleted.
    pub line: Option<u32>,
    /// True once an edit changed the line's own text.
    pub stale: bool,
}

/// One text edit in line/column terms (columns in any unit: only "column 0"
/// matters here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edit<'a> {
    pub start_line: u32,
    pub start_col: u32,
    pub end_line: u32,
    pub end_col: u32,
    pub text: &'a str,
}

#[derive(Debug, Clone, Default)]
pub struct LineTracker {
    lines: BTreeMap<u32, Tracked>,
}

impl LineTracker {
    /// Tracks the given baseline lines, all in place and fresh.
    pub fn new(lines: impl IntoIterator<Item = u32>) -> LineTracker {
        LineTracker {
            lines: lines
                .into_iter()
                .map(|l| {
                    (
                        l,
                        Tracked {
                            line: Some(l),
                            stale: false,
                        },
                    )
                })
                .collect(),
        }
    }

    /// Marks every tracked line stale (the baseline is not the text the
    /// results describe).
    pub fn mark_all_stale(&mut self) {
        for tracked in self.lines.values_mut() {
            tracked.stale = true;
        }
    }

    /// Where baseline line `line` is now; untracked lines are reported in
    /// place and fresh (nothing is known about them).
    pub fn get(&self, line: u32) -> Tracked {
        self.lines.get(&line).copied().unwrap_or(Tracked {
            line: Some(line),
            stale: false,
        })
    }

    /// True when any tracked line is stale or gone.
    pub fn any_changed(&self) -> bool {
        self.lines.values().any(|t| t.stale || t.line.is_none())
    }

    /// Moves every tracked line through one edit.
    pub fn apply(&mut self, edit: &Edit) {
        let inserted_breaks = edit.text.matches('\n').count() as i64;
        let removed_breaks = edit.end_line.saturating_sub(edit.start_line) as i64;
        let last_segment_empty =
            edit.text.is_empty() && inserted_breaks == 0 || edit.text.ends_with('\n');
        // The line holding the text after the edit's end lands here.
        let end_target = edit.start_line as i64 + inserted_breaks;
        for tracked in self.lines.values_mut() {
            let Some(l) = tracked.line else { continue };
            if l < edit.start_line {
                continue;
            }
            if l > edit.end_line {
                tracked.line = Some((l as i64 + inserted_breaks - removed_breaks).max(0) as u32);
                continue;
            }
            // The edit touches line `l`.
            let untouched_end = l == edit.end_line
                && edit.end_col == 0
                && last_segment_empty
                && (inserted_breaks > 0 || edit.start_col == 0);
            if untouched_end {
                // The edit ended right at the start of `l`: its text is whole.
                tracked.line = Some(end_target.max(0) as u32);
            } else if l == edit.start_line && (edit.start_col > 0 || l == edit.end_line) {
                // Part of the line's text survives in place.
                tracked.line = Some(l);
                tracked.stale = true;
            } else if l == edit.end_line {
                // The line's tail was joined to the edit's last line.
                tracked.line = Some(end_target.max(0) as u32);
                tracked.stale = true;
            } else {
                tracked.line = None;
                tracked.stale = true;
            }
        }
    }

    /// Moves lines through a whole-document replacement. Lines kept
    /// unchanged (a longest common subsequence of the two texts) move to
    /// their new place; within each changed stretch, old lines pair up with
    /// new lines in order (changed: stale) and any surplus old lines are gone.
    pub fn apply_full(&mut self, old_text: &str, new_text: &str) {
        let old: Vec<&str> = old_text.split('\n').collect();
        let new: Vec<&str> = new_text.split('\n').collect();
        let map = line_map(&old, &new);
        for tracked in self.lines.values_mut() {
            let Some(l) = tracked.line else { continue };
            match map.get(l as usize).copied().flatten() {
                Some((to, changed)) => {
                    tracked.line = Some(to);
                    tracked.stale |= changed;
                }
                None => {
                    tracked.line = None;
                    tracked.stale = true;
                }
            }
        }
    }
}

/// Largest changed stretch (old lines × new lines) diffed line by line;
/// beyond it, the stretch is treated as replaced wholesale.
const MAX_DIFF_CELLS: usize = 4_000_000;

/// For every old line: its new line and whether its text changed, or
/// `None` when it was deleted.
fn line_map(old: &[&str], new: &[&str]) -> Vec<Option<(u32, bool)>> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max_tail = old.len().min(new.len()) - head;
    let tail = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_tail)
        .take_while(|(a, b)| a == b)
        .count();
    let mut map = vec![None; old.len()];
    for (i, slot) in map.iter_mut().enumerate().take(head) {
        *slot = Some((i as u32, false));
    }
    let shift = new.len() as i64 - old.len() as i64;
    for (i, slot) in map.iter_mut().enumerate().skip(old.len() - tail) {
        *slot = Some(((i as i64 + shift) as u32, false));
    }
    let (a, b) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    let matches = if a.len().saturating_mul(b.len()) <= MAX_DIFF_CELLS {
        common_lines(a, b)
    } else {
        vec![]
    };
    // Walk the changed stretches between matched lines.
    let (mut i, mut j) = (0usize, 0usize);
    for &(mi, mj) in matches.iter().chain(std::iter::once(&(a.len(), b.len()))) {
        let mut nj = j;
        for slot in &mut map[head + i..head + mi] {
            if nj < mj {
                *slot = Some(((head + nj) as u32, true));
                nj += 1;
            }
        }
        if mi < a.len() {
            map[head + mi] = Some(((head + mj) as u32, false));
        }
        i = mi + 1;
        j = mj + 1;
    }
    map
}

/// A longest common subsequence of two line lists, as index pairs.
fn common_lines(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    // lengths[i][j]: LCS length of a[i..] and b[j..].
    let mut lengths = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lengths[at(i, j)] = if a[i] == b[j] {
                lengths[at(i + 1, j + 1)] + 1
            } else {
                lengths[at(i + 1, j)].max(lengths[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if lengths[at(i + 1, j)] >= lengths[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(sl: u32, sc: u32, el: u32, ec: u32, text: &str) -> Edit<'_> {
        Edit {
            start_line: sl,
            start_col: sc,
            end_line: el,
            end_col: ec,
            text,
        }
    }

    fn fresh(l: u32) -> Tracked {
        Tracked {
            line: Some(l),
            stale: false,
        }
    }

    #[test]
    fn inserting_lines_above_shifts_down() {
        let mut t = LineTracker::new([2, 5]);
        t.apply(&edit(0, 0, 0, 0, "a\nb\n"));
        assert_eq!(t.get(2), fresh(4));
        assert_eq!(t.get(5), fresh(7));
    }

    #[test]
    fn inserting_a_line_right_at_a_ranked_line_pushes_it_down_fresh() {
        let mut t = LineTracker::new([3]);
        t.apply(&edit(3, 0, 3, 0, "new line\n"));
        assert_eq!(t.get(3), fresh(4));
        // Pressing enter at the end of the line above: also a clean shift.
        let mut t = LineTracker::new([3]);
        t.apply(&edit(2, 7, 2, 7, "\n"));
        assert_eq!(t.get(3), fresh(4));
    }

    #[test]
    fn deleting_lines_above_shifts_up() {
        let mut t = LineTracker::new([5]);
        t.apply(&edit(1, 0, 3, 0, ""));
        assert_eq!(t.get(5), fresh(3));
    }

    #[test]
    fn typing_in_a_line_makes_it_stale_in_place() {
        let mut t = LineTracker::new([4, 6]);
        t.apply(&edit(4, 10, 4, 12, "x"));
        assert_eq!(
            t.get(4),
            Tracked {
                line: Some(4),
                stale: true
            }
        );
        assert_eq!(t.get(6), fresh(6));
        assert!(t.any_changed());
    }

    #[test]
    fn deleting_a_ranked_line_removes_it() {
        let mut t = LineTracker::new([4, 5]);
        t.apply(&edit(4, 0, 5, 0, ""));
        assert_eq!(
            t.get(4),
            Tracked {
                line: None,
                stale: true
            }
        );
        assert_eq!(t.get(5), fresh(4));
    }

    #[test]
    fn joining_a_line_onto_the_previous_one_stales_both() {
        let mut t = LineTracker::new([4, 5]);
        t.apply(&edit(4, 8, 5, 0, ""));
        assert_eq!(
            t.get(4),
            Tracked {
                line: Some(4),
                stale: true
            }
        );
        assert_eq!(
            t.get(5),
            Tracked {
                line: Some(4),
                stale: true
            }
        );
    }

    #[test]
    fn edits_after_a_line_leave_it_alone() {
        let mut t = LineTracker::new([1]);
        t.apply(&edit(2, 0, 9, 0, "zzz\n"));
        assert_eq!(t.get(1), fresh(1));
        assert!(!t.any_changed());
    }

    #[test]
    fn full_replacement_finds_the_changed_block() {
        let old = "a\nb\nc\nd\ne\n";
        let mut t = LineTracker::new([0, 2, 4]);
        // Insert two lines after "a" and change "c".
        t.apply_full(old, "a\nx\ny\nb\nC\nd\ne\n");
        assert_eq!(t.get(0), fresh(0));
        assert!(t.get(2).stale);
        assert_eq!(t.get(4), fresh(6));
        // Undoing an insertion above, with another line changed meanwhile.
        let mut t = LineTracker::new([2, 3, 5, 7]);
        let before = "x\ny\na\nb\nc\nd\ne\nf\n";
        t.apply_full(before, "a\nb\nC\nd\ne\nF2\nF3\n");
        assert_eq!(t.get(2), fresh(0));
        assert_eq!(t.get(3), fresh(1));
        assert_eq!(t.get(5), fresh(3));
        assert_eq!(
            t.get(7),
            Tracked {
                line: Some(5),
                stale: true
            }
        );
        let mut gone = LineTracker::new([1]);
        gone.apply_full("a\nb\nc\n", "a\nc\n");
        assert_eq!(
            gone.get(1),
            Tracked {
                line: None,
                stale: true
            }
        );
        let mut same = LineTracker::new([1]);
        same.apply_full(old, old);
        assert_eq!(same.get(1), fresh(1));
    }

    #[test]
    fn untracked_lines_read_as_fresh_in_place() {
        let t = LineTracker::new([]);
        assert_eq!(t.get(9), fresh(9));
    }
}
