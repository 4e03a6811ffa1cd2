//! Code lenses: one above each top-ranked line (rank, score, counts; a click
//! shows the failing tests) and one at the top of each file with results
//! (re-run and localize).

use crate::localization::{format_rank, format_score, Localization};
use crate::placement::FileView;
use serde_json::json;
use tower_lsp_server::ls_types::{CodeLens, Command, Position, Range};

pub use crate::protocol::{LOCALIZE, SET_MEASURE, SHOW_FAILING_TESTS};

/// The lenses of one file. `trusted` changes the file lens's wording: an
/// untrusted workspace cannot re-run.
pub fn for_file(loc: &Localization, view: &FileView, top_n: usize, trusted: bool) -> Vec<CodeLens> {
    let mut lenses = Vec::new();
    if !loc.suspicious_entries().any(|e| e.file == view.file) {
        return lenses;
    }
    let (failed, _) = loc.failed_and_total();
    let plural = if failed == 1 { "" } else { "s" };
    let title = if trusted {
        format!("{failed} failing test{plural} · re-run and localize")
    } else {
        format!("{failed} failing test{plural} · results from disk (workspace not trusted)")
    };
    lenses.push(CodeLens {
        range: Range::new(Position::new(0, 0), Position::new(0, 0)),
        command: Some(Command {
            title,
            command: LOCALIZE.into(),
            arguments: None,
        }),
        data: None,
    });
    for entry in loc.top(top_n).filter(|e| e.file == view.file) {
        let Some(placed) = view.place(&entry) else {
            continue;
        };
        let c = entry.counts;
        let stale = if placed.stale { "stale · " } else { "" };
        let title = format!(
            "{stale}{} · {} {} · {}/{} failing · {}/{} passing",
            format_rank(&entry),
            loc.measure.title(),
            format_score(entry.ranked.score),
            c.ef,
            c.failed(),
            c.ep,
            c.passed(),
        );
        let line = placed.line;
        lenses.push(CodeLens {
            range: Range::new(Position::new(line, 0), Position::new(line, 0)),
            command: Some(Command {
                title,
                command: SHOW_FAILING_TESTS.into(),
                arguments: Some(vec![json!({ "uri": view.uri.as_str(), "line": line })]),
            }),
            data: None,
        });
    }
    lenses
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localization::fixtures::{results, SOURCE};
    use faultlens_core::measures::Formula;
    use std::path::Path;

    #[test]
    fn a_file_lens_and_one_per_top_line() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        let view = FileView {
            file: 0,
            uri: loc.uri_of("src/sum.c").unwrap(),
            tracker: None,
            lines: SOURCE.split('\n').collect(),
            changed_on_disk: false,
        };
        let lenses = for_file(&loc, &view, 2, true);
        assert_eq!(lenses.len(), 3);
        let file_lens = lenses[0].command.as_ref().unwrap();
        assert_eq!(file_lens.title, "2 failing tests · re-run and localize");
        assert_eq!(file_lens.command, LOCALIZE);
        let top = lenses[1].command.as_ref().unwrap();
        assert_eq!(lenses[1].range.start.line, 5);
        assert_eq!(top.title, "#1 · Ochiai 0.82 · 2/2 failing · 1/3 passing");
        assert_eq!(top.command, SHOW_FAILING_TESTS);
        assert_eq!(
            top.arguments.as_ref().unwrap()[0],
            json!({"uri": "file:///project/src/sum.c", "line": 5})
        );
        let untrusted = for_file(&loc, &view, 2, false);
        assert!(untrusted[0]
            .command
            .as_ref()
            .unwrap()
            .title
            .contains("not trusted"));
    }

    #[test]
    fn files_without_results_get_no_lenses() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        let view = FileView {
            file: 1,
            uri: loc.uri_of("tests/driver.c").unwrap(),
            tracker: None,
            lines: vec![],
            changed_on_disk: false,
        };
        assert!(for_file(&loc, &view, 10, true).is_empty());
    }
}
