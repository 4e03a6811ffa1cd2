//! Where a ranked line shows in a file now: the results' line moved through
//! the user's edits (see `tracking`), and the character range of its text.

use crate::localization::Entry;
use crate::tracking::LineTracker;
use tower_lsp_server::ls_types::{Position, Range, Uri};

/// The `file` of a view that is not about the results' files.
pub const NOT_IN_RESULTS: u32 = u32::MAX;

/// One file of the results as the editor sees it.
#[derive(Debug, Clone)]
pub struct FileView<'a> {
    /// Index into `results.files` (`NOT_IN_RESULTS` for a view of a
    /// diagnosed file, which is named by path).
    pub file: u32,
    pub uri: Uri,
    /// Present when the document is open and may have been edited.
    pub tracker: Option<&'a LineTracker>,
    /// The file's current lines, when known (open document or read from disk).
    pub lines: Vec<&'a str>,
    /// The file changed on disk after the run: every line is stale.
    pub changed_on_disk: bool,
}

/// A ranked line's current place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    /// 0-based current line.
    pub line: u32,
    pub stale: bool,
}

impl FileView<'_> {
    /// The current place of a ranked line of this file; `None` when the
    /// line was deleted.
    pub fn place(&self, entry: &Entry) -> Option<Placed> {
        self.place_line(entry.line)
    }

    /// The current place of 1-based baseline line `line1` (tracked by this
    /// view's tracker); `None` when the line was deleted.
    pub fn place_line(&self, line1: u32) -> Option<Placed> {
        let baseline = line1.saturating_sub(1);
        let tracked = match self.tracker {
            Some(t) => t.get(baseline),
            None => {
                return Some(Placed {
                    line: baseline,
                    stale: self.changed_on_disk,
                })
            }
        };
        tracked.line.map(|line| Placed {
            line,
            stale: tracked.stale,
        })
    }

    /// The 1-based baseline line now shown at 0-based `current` line.
    pub fn baseline_at(&self, current: u32, candidates: impl Iterator<Item = u32>) -> Option<u32> {
        candidates.into_iter().find(|&line1| {
            let baseline = line1.saturating_sub(1);
            match self.tracker {
                Some(t) => t.get(baseline).line == Some(current),
                None => baseline == current,
            }
        })
    }

    /// The range of `text` at 1-based byte column `col` of 0-based line
    /// `line` (UTF-16 columns); `None` unless the line holds exactly that
    /// text there (an edit, or a macro expanded on the line, moved it).
    pub fn span(&self, line: u32, col: u32, text: &str) -> Option<Range> {
        let content = self.lines.get(line as usize)?;
        let start = (col as usize).checked_sub(1)?;
        if content.get(start..start + text.len())? != text {
            return None;
        }
        let utf16 = |s: &str| s.chars().map(|c| c.len_utf16() as u32).sum::<u32>();
        let from = utf16(&content[..start]);
        Some(Range::new(
            Position::new(line, from),
            Position::new(line, from + utf16(text)),
        ))
    }

    /// The range of a line's text, from its first non-blank character to
    /// its end (UTF-16 columns); an empty range at column 0 when the text is
    /// unknown.
    pub fn line_range(&self, line: u32) -> Range {
        let Some(text) = self.lines.get(line as usize) else {
            return Range::new(Position::new(line, 0), Position::new(line, 0));
        };
        let text = text.strip_suffix('\r').unwrap_or(text);
        let indent: u32 = text
            .chars()
            .take_while(|c| c.is_whitespace())
            .map(|c| c.len_utf16() as u32)
            .sum();
        let len: u32 = text.chars().map(|c| c.len_utf16() as u32).sum();
        let start = if indent == len { 0 } else { indent };
        Range::new(Position::new(line, start), Position::new(line, len))
    }
}
