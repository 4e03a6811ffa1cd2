//! Diagnostics: the top suspicious lines of a file, and compiler errors of a
//! failed build.

use crate::localization::{format_rank, format_score, Entry, Localization};
use crate::placement::{FileView, Placed};
use faultlens_core::results::TestRecord;
use serde_json::json;
use tower_lsp_server::ls_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Position, Range, Uri,
};

/// The README, whose "Measures" section has an anchor per measure
/// (`#ochiai`, `#dstar`, ...).
pub const README_URL: &str = "https://github.com/faultlens/faultlens/blob/main/README.md";

/// Where the README explains a measure.
pub fn measure_doc(measure: &faultlens_core::measures::Ranker) -> Option<Uri> {
    format!("{README_URL}#{}", measure.info().name).parse().ok()
}

pub const SOURCE: &str = "faultlens";

/// Severity by rank band: best rank 1–3 warn, 4–10 inform, the rest hint;
/// a stale line only hints.
pub fn severity(best_rank: u32, stale: bool) -> DiagnosticSeverity {
    match best_rank {
        _ if stale => DiagnosticSeverity::HINT,
        1..=3 => DiagnosticSeverity::WARNING,
        4..=10 => DiagnosticSeverity::INFORMATION,
        _ => DiagnosticSeverity::HINT,
    }
}

/// "#1 of 57 suspicious lines: Ochiai 0.94, run by 3 of 3 failing and 1 of
/// 120 passing tests".
pub fn message(loc: &Localization, entry: &Entry, stale: bool) -> String {
    let c = entry.counts;
    let text = format!(
        "{} of {} suspicious lines: {} {}, run by {} of {} failing and {} of {} passing tests",
        format_rank(entry),
        loc.suspicious,
        loc.measure.title(),
        format_score(entry.ranked.score),
        c.ef,
        c.failed(),
        c.ep,
        c.passed(),
    );
    if stale {
        format!("{text} (stale: this line changed since the run; re-run to update)")
    } else {
        text
    }
}

/// The diagnostics of one file: its lines in the top `top_n`, where they
/// are now.
pub fn for_file(loc: &Localization, view: &FileView, top_n: usize) -> Vec<Diagnostic> {
    loc.top(top_n)
        .filter(|e| e.file == view.file)
        .filter_map(|entry| {
            let placed = view.place(&entry)?;
            Some(diagnostic(loc, view, &entry, placed))
        })
        .collect()
}

fn diagnostic(loc: &Localization, view: &FileView, entry: &Entry, placed: Placed) -> Diagnostic {
    let range = view.line_range(placed.line);
    let related = loc
        .failing_tests(entry)
        .into_iter()
        .map(|test| DiagnosticRelatedInformation {
            location: test_location(loc, test).unwrap_or(Location {
                uri: view.uri.clone(),
                range,
            }),
            message: failing_test_text(test),
        })
        .collect();
    Diagnostic {
        range,
        severity: Some(severity(entry.ranked.rank.best, placed.stale)),
        code: Some(NumberOrString::String(loc.measure.name())),
        code_description: measure_doc(&loc.measure).map(|href| CodeDescription { href }),
        source: Some(SOURCE.into()),
        message: message(loc, entry, placed.stale),
        related_information: Some(related),
        tags: None,
        data: Some(json!({
            "rank": {
                "best": entry.ranked.rank.best,
                "worst": entry.ranked.rank.worst,
                "average": entry.ranked.rank.average,
            },
            "line": entry.line,
            "stale": placed.stale,
        })),
    }
}

/// "failing test sum_negative: expected 3, got 5".
pub fn failing_test_text(test: &TestRecord) -> String {
    match &test.reason {
        Some(reason) => format!("failing test {} ran this line: {reason}", test.name),
        None => format!("failing test {} ran this line", test.name),
    }
}

/// Where a test is defined, when the results know.
pub fn test_location(loc: &Localization, test: &TestRecord) -> Option<Location> {
    let at = test.location.as_ref()?;
    let line = at.line.saturating_sub(1);
    Some(Location {
        uri: loc.uri_of(&at.file)?,
        range: Range::new(Position::new(line, 0), Position::new(line, 0)),
    })
}

/// A compiler message of a failed build, in pipeline-independent terms.
#[derive(Debug, Clone, PartialEq)]
pub struct CompilerMessage {
    /// Path relative to the root when inside it, else absolute.
    pub file: String,
    /// 1-based; 0 when unknown.
    pub line: u32,
    /// 1-based; 0 when unknown.
    pub column: u32,
    /// "error", "warning", "note".
    pub severity: String,
    pub message: String,
}

/// Compiler messages as diagnostics, grouped by file path (as given).
pub fn build_diagnostics(messages: &[CompilerMessage]) -> Vec<(String, Vec<Diagnostic>)> {
    let mut by_file: Vec<(String, Vec<Diagnostic>)> = Vec::new();
    for m in messages {
        let line = m.line.saturating_sub(1);
        let column = m.column.saturating_sub(1);
        let severity = match m.severity.as_str() {
            "error" | "fatal error" => DiagnosticSeverity::ERROR,
            "warning" => DiagnosticSeverity::WARNING,
            _ => DiagnosticSeverity::INFORMATION,
        };
        let diagnostic = Diagnostic {
            range: Range::new(Position::new(line, column), Position::new(line, column + 1)),
            severity: Some(severity),
            source: Some(SOURCE.into()),
            code: Some(NumberOrString::String("build".into())),
            message: format!("build failed: {}", m.message),
            ..Diagnostic::default()
        };
        match by_file.iter_mut().find(|(f, _)| *f == m.file) {
            Some((_, list)) => list.push(diagnostic),
            None => by_file.push((m.file.clone(), vec![diagnostic])),
        }
    }
    by_file
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localization::fixtures::{results, SOURCE as TEXT};
    use crate::tracking::{Edit, LineTracker};
    use faultlens_core::measures::Formula;
    use std::path::Path;

    fn view<'a>(
        loc: &Localization,
        tracker: Option<&'a LineTracker>,
        text: &'a str,
    ) -> FileView<'a> {
        FileView {
            file: 0,
            uri: loc.uri_of("src/sum.c").unwrap(),
            tracker,
            lines: text.split('\n').collect(),
            changed_on_disk: false,
        }
    }

    #[test]
    fn the_faulty_line_gets_a_warning_a_person_can_read() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        let diags = for_file(&loc, &view(&loc, None, TEXT), 10);
        assert_eq!(diags.len(), 5);
        let d = &diags[0];
        assert_eq!(
            d.range,
            Range::new(Position::new(5, 4), Position::new(5, 29))
        );
        assert_eq!(
            d.message,
            "#1 of 5 suspicious lines: Ochiai 0.82, run by 2 of 2 failing and 1 of 3 passing tests"
        );
        assert_eq!(d.severity, Some(DiagnosticSeverity::WARNING));
        assert_eq!(d.code, Some(NumberOrString::String("ochiai".into())));
        assert_eq!(d.source.as_deref(), Some("faultlens"));
        assert!(d
            .code_description
            .as_ref()
            .unwrap()
            .href
            .as_str()
            .ends_with("README.md#ochiai"));
        let related = d.related_information.as_ref().unwrap();
        assert_eq!(related.len(), 2);
        assert_eq!(
            related[0].location.uri.as_str(),
            "file:///project/tests/cases.txt"
        );
        assert_eq!(related[0].location.range.start.line, 6);
        assert!(related[0].message.contains("sum_negative"));
        // Without a known location, the test points at the line itself.
        assert_eq!(related[1].location.range.start.line, 5);
        // Line 5 (ranked #5) only informs.
        assert_eq!(diags[4].severity, Some(DiagnosticSeverity::INFORMATION));
        assert_eq!(diags[1].severity, Some(DiagnosticSeverity::WARNING));
    }

    #[test]
    fn top_n_limits_the_list() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        assert_eq!(for_file(&loc, &view(&loc, None, TEXT), 1).len(), 1);
    }

    #[test]
    fn edits_move_and_stale_the_diagnostics() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        let mut tracker = LineTracker::new(loc.results.files[0].lines.iter().map(|l| l - 1));
        // Two comment lines inserted at the top; then line 4 (baseline 3, "int s = 0;") edited.
        tracker.apply(&Edit {
            start_line: 0,
            start_col: 0,
            end_line: 0,
            end_col: 0,
            text: "// a\n// b\n",
        });
        tracker.apply(&Edit {
            start_line: 5,
            start_col: 10,
            end_line: 5,
            end_col: 11,
            text: "1",
        });
        let text = format!("// a\n// b\n{}", TEXT.replace("s = 0", "s = 1"));
        let diags = for_file(&loc, &view(&loc, Some(&tracker), &text), 10);
        let first = &diags[0];
        assert_eq!(first.range.start.line, 7);
        assert!(!first.message.contains("stale"));
        let edited = diags.iter().find(|d| d.range.start.line == 5).unwrap();
        assert!(edited.message.contains("stale"), "{}", edited.message);
        assert_eq!(edited.severity, Some(DiagnosticSeverity::HINT));
    }

    #[test]
    fn severity_bands() {
        assert_eq!(severity(3, false), DiagnosticSeverity::WARNING);
        assert_eq!(severity(4, false), DiagnosticSeverity::INFORMATION);
        assert_eq!(severity(10, false), DiagnosticSeverity::INFORMATION);
        assert_eq!(severity(11, false), DiagnosticSeverity::HINT);
        assert_eq!(severity(1, true), DiagnosticSeverity::HINT);
    }

    #[test]
    fn compiler_messages_become_errors_at_their_place() {
        let grouped = build_diagnostics(&[
            CompilerMessage {
                file: "src/a.c".into(),
                line: 3,
                column: 5,
                severity: "error".into(),
                message: "expected ';'".into(),
            },
            CompilerMessage {
                file: "src/a.c".into(),
                line: 9,
                column: 1,
                severity: "warning".into(),
                message: "unused".into(),
            },
        ]);
        assert_eq!(grouped.len(), 1);
        let d = &grouped[0].1[0];
        assert_eq!(d.range.start, Position::new(2, 4));
        assert_eq!(d.severity, Some(DiagnosticSeverity::ERROR));
        assert!(d.message.contains("expected ';'"));
    }
}
