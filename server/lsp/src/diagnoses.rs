//! The diagnosis the editor shows (`.faultlens/diagnosis.json`, see
//! `faultlens_core::diagnosis`): lookups by file and line, and what each
//! view makes of a diagnosed line — a diagnostic, a hover section, an inlay
//! hint with the angelic values (`⟵ 5 makes t7 pass`) and a lens that runs
//! the diagnosis again. The sentences come from `faultlens_report::diagnosis`,
//! so the editor says what `faultlens diagnose` prints.

use crate::diagnostics::SOURCE;
use crate::placement::{FileView, Placed};
use faultlens_core::diagnosis::{AngelicValue, Diagnosis, DiagnosisKind, DiagnosisReport};
use faultlens_report::diagnosis::phrases::{
    capitalize, diagnosis_title, does_not_explain, explains, free_reads_by_place,
    left_out_verdicts, named_tests, FREE_READS_HEADING,
};
use faultlens_report::diagnosis::{angelic_line, hint_label};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use tower_lsp_server::ls_types::{
    CodeLens, Command, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, InlayHint,
    InlayHintLabel, InlayHintTooltip, Location, MarkupContent, MarkupKind, NumberOrString,
    Position, Range, Uri,
};

/// The `code` of diagnosis diagnostics (spectrum ones carry the measure).
pub const CODE: &str = "diagnosis";
/// The command that runs the diagnosis again.
pub use crate::protocol::DIAGNOSE;

/// One diagnosis document, indexed.
#[derive(Debug)]
pub struct Diagnoses {
    pub report: DiagnosisReport,
    /// Workspace root the report's relative paths hang off.
    pub root: PathBuf,
    /// Files (relative paths) modified after the diagnosis was written:
    /// every diagnosed line in them is stale. Filled in by the edge.
    pub changed_on_disk: HashSet<String>,
    /// file → 1-based diagnosed lines.
    lines: BTreeMap<String, BTreeSet<u32>>,
}

impl Diagnoses {
    pub fn new(report: DiagnosisReport, root: &Path) -> Diagnoses {
        let mut lines: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
        for d in &report.diagnoses {
            for s in &d.statements {
                lines.entry(s.file.clone()).or_default().insert(s.line);
            }
        }
        Diagnoses {
            report,
            root: root.to_path_buf(),
            changed_on_disk: HashSet::new(),
            lines,
        }
    }

    /// Files with diagnosed statements (relative paths).
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.lines.keys().map(String::as_str)
    }

    /// The 1-based diagnosed lines of a file.
    pub fn lines_of(&self, file: &str) -> Vec<u32> {
        self.lines
            .get(file)
            .map(|l| l.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The lines of a file a hover speaks of: the diagnosed ones and those
    /// where a failing run read outside an object.
    pub fn hover_lines_of(&self, file: &str) -> Vec<u32> {
        let mut lines: BTreeSet<u32> = self.lines_of(file).into_iter().collect();
        lines.extend(
            self.report
                .free_reads
                .iter()
                .filter(|r| r.file == file)
                .map(|r| r.line),
        );
        lines.into_iter().collect()
    }

    /// The diagnoses holding a statement at `file:line`, with their 0-based
    /// index (their number in the report, minus one).
    pub fn at(&self, file: &str, line: u32) -> Vec<(usize, &Diagnosis)> {
        self.report
            .diagnoses
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                d.statements
                    .iter()
                    .any(|s| s.file == file && s.line == line)
            })
            .collect()
    }

    /// The verified angelic values at `file:line` of the cheapest diagnosis
    /// holding the line that has any there, with that diagnosis's 0-based
    /// index. Values of different diagnoses are never mixed: a diagnosis's
    /// values hold together with its other changes only.
    pub fn angelic_at(
        &self,
        file: &str,
        line: u32,
    ) -> Option<(usize, &Diagnosis, Vec<&AngelicValue>)> {
        self.at(file, line).into_iter().find_map(|(i, d)| {
            let values: Vec<&AngelicValue> = d
                .angelic
                .iter()
                .filter(|a| a.verified && a.file == file && a.line == line)
                .collect();
            (!values.is_empty()).then_some((i, d, values))
        })
    }

    pub fn path_of(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    pub fn uri_of(&self, relative: &str) -> Option<Uri> {
        Uri::from_file_path(self.path_of(relative))
    }

    /// `3 diagnoses of 2 failing tests` for the status.
    pub fn summary(&self) -> String {
        let n = self.report.diagnoses.len();
        let f = self.report.failing_tests.len();
        format!(
            "{n} diagnos{} of {f} failing test{}{}",
            if n == 1 { "is" } else { "es" },
            if f == 1 { "" } else { "s" },
            if self.report.complete {
                ""
            } else {
                " (search incomplete)"
            }
        )
    }
}

/// The diagnosed lines of one file where they are now: (1-based baseline
/// line, place). Deleted lines are left out.
fn placed_lines<'a>(
    diag: &'a Diagnoses,
    file: &'a str,
    view: &'a FileView,
) -> impl Iterator<Item = (u32, Placed)> + 'a {
    diag.lines_of(file)
        .into_iter()
        .filter_map(move |line| Some((line, view.place_line(line)?)))
}

/// One diagnostic per diagnosed line of `file` (a line in several diagnoses
/// gets one, naming them all).
pub fn diagnostics(diag: &Diagnoses, file: &str, view: &FileView) -> Vec<Diagnostic> {
    placed_lines(diag, file, view)
        .filter_map(|(line, placed)| {
            let holding = diag.at(file, line);
            let (first_index, first) = *holding.first()?;
            let optimal = holding
                .iter()
                .any(|(_, d)| d.kind == DiagnosisKind::Optimal);
            let severity = match (placed.stale, optimal) {
                (true, _) => DiagnosticSeverity::HINT,
                (false, true) => DiagnosticSeverity::WARNING,
                (false, false) => DiagnosticSeverity::INFORMATION,
            };
            // On the sub-expression that must change, when the first
            // diagnosis narrowed this line down to one and it is still there.
            let sub = first
                .statements
                .iter()
                .find(|s| s.file == file && s.line == line)
                .and_then(|s| s.subexpression.as_ref())
                .filter(|_| !placed.stale);
            let range = sub
                .and_then(|sub| {
                    let at = view.place_line(sub.line).filter(|p| !p.stale)?;
                    view.span(at.line, sub.start_column, &sub.text)
                })
                .unwrap_or_else(|| view.line_range(placed.line));
            let related = first
                .statements
                .iter()
                .filter(|s| !(s.file == file && s.line == line))
                .filter_map(|s| {
                    let l = s.line.saturating_sub(1);
                    Some(DiagnosticRelatedInformation {
                        location: Location {
                            uri: diag.uri_of(&s.file)?,
                            range: Range::new(Position::new(l, 0), Position::new(l, 0)),
                        },
                        message: format!("changed together with: {}", s.text),
                    })
                })
                .collect();
            Some(Diagnostic {
                range,
                severity: Some(severity),
                code: Some(NumberOrString::String(CODE.into())),
                code_description: None,
                source: Some(SOURCE.into()),
                message: message(diag, file, line, &holding, placed.stale),
                related_information: Some(related),
                tags: None,
                data: Some(json!({
                    "diagnoses": holding.iter().map(|(i, _)| i + 1).collect::<Vec<_>>(),
                    "first": first_index + 1,
                    "line": line,
                    "stale": placed.stale,
                })),
            })
        })
        .collect()
}

/// `diagnosis #1 (cost 1, optimal): changing this statement explains all 3
/// failing tests at once (t1, t2, t3); 5 makes t7 pass · also in diagnosis #3`.
fn message(
    diag: &Diagnoses,
    file: &str,
    line: u32,
    holding: &[(usize, &Diagnosis)],
    stale: bool,
) -> String {
    let report = &diag.report;
    let Some(&(index, first)) = holding.first() else {
        return String::new();
    };
    let together = match first.statements.len() {
        1 => String::new(),
        n => format!(
            " together with {} other statement{}",
            n - 1,
            if n == 2 { "" } else { "s" }
        ),
    };
    let what = match first
        .statements
        .iter()
        .find(|s| s.file == file && s.line == line)
        .and_then(|s| s.subexpression.as_ref())
    {
        Some(sub) => format!("`{}` in this statement", sub.text),
        None => "this statement".to_string(),
    };
    let mut text = format!(
        "{}: changing {what}{together} {} ({})",
        diagnosis_title(index, first, report.complete),
        explains(report),
        named_tests(&report.failing_tests)
    );
    if let Some(verdict) = does_not_explain(first) {
        let _ = write!(text, "; {verdict}");
    }
    if let Some((i, _, values)) = diag.angelic_at(file, line) {
        if let Some(label) = hint_label(values) {
            text.push_str("; ");
            text.push_str(label.trim_start_matches("⟵ "));
            if i != index {
                let _ = write!(text, " (diagnosis #{})", i + 1);
            }
        }
    }
    if holding.len() > 1 {
        let others: Vec<String> = holding[1..]
            .iter()
            .map(|(i, _)| format!("#{}", i + 1))
            .collect();
        let _ = write!(
            text,
            " · also in diagnos{} {}",
            if others.len() == 1 { "is" } else { "es" },
            others.join(", ")
        );
    }
    if stale {
        text.push_str(" (stale: this line changed since the diagnosis; re-run to update)");
    }
    text
}

/// The hover section of a diagnosed line: every diagnosis it belongs to,
/// with that diagnosis's statements and its verified angelic values per
/// failing test. `None` when the line is in no diagnosis.
pub fn hover_section(diag: &Diagnoses, file: &str, line: u32, stale: bool) -> Option<String> {
    let holding = diag.at(file, line);
    let reads = free_reads_here(&diag.report, file, line);
    if holding.is_empty() {
        return reads;
    }
    let report = &diag.report;
    let mut md = String::new();
    let _ = writeln!(
        md,
        "**faultlens diagnosis** · this line is in {} of {} diagnoses · each {}\n",
        holding.len(),
        report.diagnoses.len(),
        explains(report)
    );
    if stale {
        md.push_str("_Stale: this line changed since the diagnosis; re-run to update._\n\n");
    }
    for (index, d) in &holding {
        let _ = writeln!(md, "**{}**\n", diagnosis_title(*index, d, report.complete));
        for s in &d.statements {
            let _ = write!(md, "- `{}:{}` `{}`", s.file, s.line, s.text);
            if let Some(sub) = &s.subexpression {
                let _ = write!(md, " — change `{}`", sub.text);
            }
            md.push('\n');
        }
        for verdict in left_out_verdicts(d) {
            let _ = writeln!(md, "\n{}.", capitalize(&verdict));
        }
        let values: Vec<&AngelicValue> = d.angelic.iter().filter(|a| a.verified).collect();
        if values.is_empty() {
            md.push_str("\nNo verified angelic value.\n\n");
            continue;
        }
        md.push_str("\nAngelic values (verified by replaying the test):\n\n");
        for test in &report.failing_tests {
            for a in values.iter().filter(|a| &a.test == test) {
                let _ = writeln!(md, "- {}", angelic_line(a));
            }
        }
        // Values for tests the report does not list as failing (should not
        // happen; shown rather than dropped).
        for a in values
            .iter()
            .filter(|a| !report.failing_tests.contains(&a.test))
        {
            let _ = writeln!(md, "- {}", angelic_line(a));
        }
        md.push('\n');
    }
    if !report.complete {
        let why = report.stopped.as_deref().unwrap_or("limits reached");
        let _ = writeln!(
            md,
            "_Search incomplete, more diagnoses may exist; stopped early: {why}._"
        );
    }
    if let Some(reads) = reads {
        let _ = write!(md, "\n{reads}");
    }
    Some(md)
}

/// The reads outside an object the diagnosed failing runs made on this
/// line, and the byte each was taken to read; `None` when there are none.
fn free_reads_here(report: &DiagnosisReport, file: &str, line: u32) -> Option<String> {
    let here: Vec<String> = free_reads_by_place(report)
        .into_iter()
        .filter(|(f, l, _)| *f == file && *l == line)
        .map(|(_, _, sentence)| format!("- {sentence}\n"))
        .collect();
    if here.is_empty() {
        return None;
    }
    Some(format!(
        "**faultlens diagnosis** · {}:\n\n{}",
        capitalize(FREE_READS_HEADING),
        here.concat()
    ))
}

/// The inlay hints of a document within `range`: at the end of each
/// diagnosed line that has verified angelic values and is not stale.
pub fn inlay_hints(diag: &Diagnoses, file: &str, view: &FileView, range: Range) -> Vec<InlayHint> {
    placed_lines(diag, file, view)
        .filter(|(_, placed)| {
            !placed.stale && placed.line >= range.start.line && placed.line <= range.end.line
        })
        .filter_map(|(line, placed)| {
            let (index, d, values) = diag.angelic_at(file, line)?;
            let label = hint_label(values.iter().copied())?;
            let tooltip: Vec<String> = values.iter().map(|a| angelic_line(a)).collect();
            let together = if d.statements.len() > 1 {
                ", together with the diagnosis's other changes"
            } else {
                ""
            };
            Some(InlayHint {
                position: view.line_range(placed.line).end,
                label: InlayHintLabel::String(label),
                kind: None,
                text_edits: None,
                tooltip: Some(InlayHintTooltip::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: format!(
                        "faultlens {}: angelic values, each verified by replaying its test{together}\n\n- {}",
                        diagnosis_title(index, d, diag.report.complete),
                        tooltip.join("\n- ")
                    ),
                })),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            })
        })
        .collect()
}

/// A lens on each diagnosed line: which diagnosis, and a click runs the
/// diagnosis again.
pub fn lenses(diag: &Diagnoses, file: &str, view: &FileView, trusted: bool) -> Vec<CodeLens> {
    placed_lines(diag, file, view)
        .filter_map(|(line, placed)| {
            let holding = diag.at(file, line);
            let numbers: Vec<String> = holding.iter().map(|(i, _)| format!("#{}", i + 1)).collect();
            let cost = holding.first()?.1.cost;
            let stale = if placed.stale { "stale · " } else { "" };
            let action = if trusted {
                "re-run diagnosis"
            } else {
                "diagnosis from disk (workspace not trusted)"
            };
            let title = format!(
                "{stale}diagnos{} {} (cost {cost}) · {action}",
                if numbers.len() == 1 { "is" } else { "es" },
                numbers.join(", ")
            );
            let l = placed.line;
            Some(CodeLens {
                range: Range::new(Position::new(l, 0), Position::new(l, 0)),
                command: Some(Command {
                    title,
                    command: DIAGNOSE.into(),
                    arguments: None,
                }),
                data: None,
            })
        })
        .collect()
}

#[cfg(test)]
pub mod fixtures {
    //! A diagnosis of `src/sum.c` (the localization fixture's file).

    use faultlens_core::diagnosis::*;

    fn statement(line: u32, text: &str) -> DiagnosedStatement {
        DiagnosedStatement {
            file: "src/sum.c".into(),
            line,
            text: text.into(),
            column: None,
            subexpression: None,
        }
    }

    fn angelic(test: &str, line: u32, instance: u32, value: i64) -> AngelicValue {
        AngelicValue {
            test: test.into(),
            file: "src/sum.c".into(),
            line,
            instance,
            value,
            text: value.to_string(),
            role: "value".into(),
            verified: true,
            column: None,
            argument: None,
        }
    }

    pub fn report() -> DiagnosisReport {
        DiagnosisReport {
            diagnoses: vec![
                Diagnosis {
                    cost: 1,
                    kind: DiagnosisKind::Optimal,
                    statements: vec![statement(6, "s += a[i] > 0 ? a[i] : 0;")],
                    angelic: vec![
                        angelic("sum_negative", 6, 3, 5),
                        angelic("sum_mixed", 6, 3, 5),
                        AngelicValue {
                            verified: false,
                            ..angelic("sum_mixed", 6, 1, 42)
                        },
                    ],
                    ..Default::default()
                },
                Diagnosis {
                    cost: 2,
                    kind: DiagnosisKind::Minimal,
                    statements: vec![
                        statement(4, "int s = 0;"),
                        statement(6, "s += a[i] > 0 ? a[i] : 0;"),
                    ],
                    angelic: vec![angelic("sum_negative", 4, 1, -3)],
                    ..Default::default()
                },
            ],
            complete: false,
            stopped: Some("time budget of 30 s".into()),
            failing_tests: vec!["sum_negative".into(), "sum_mixed".into()],
            ..DiagnosisReport::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localization::fixtures::SOURCE;
    use crate::placement::NOT_IN_RESULTS;
    use crate::tracking::{Edit, LineTracker};

    fn diag() -> Diagnoses {
        Diagnoses::new(fixtures::report(), Path::new("/project"))
    }

    fn view<'a>(tracker: Option<&'a LineTracker>, text: &'a str) -> FileView<'a> {
        FileView {
            file: NOT_IN_RESULTS,
            uri: "file:///project/src/sum.c".parse().unwrap(),
            tracker,
            lines: text.split('\n').collect(),
            changed_on_disk: false,
        }
    }

    fn everything() -> Range {
        Range::new(Position::new(0, 0), Position::new(u32::MAX, 0))
    }

    #[test]
    fn a_refined_statement_is_marked_at_its_sub_expression_while_it_is_there() {
        let mut report = fixtures::report();
        report.diagnoses[0].statements[0].subexpression =
            Some(faultlens_core::diagnosis::SubExpression {
                text: "a[i] > 0".into(),
                line: 6,
                start_column: 10,
                end_line: 6,
                end_column: 18,
            });
        let d = Diagnoses::new(report, Path::new("/project"));
        let list = diagnostics(&d, "src/sum.c", &view(None, SOURCE));
        let line6 = list.iter().find(|x| x.range.start.line == 5).unwrap();
        assert_eq!(
            line6.range,
            Range::new(Position::new(5, 9), Position::new(5, 17))
        );
        assert!(
            line6
                .message
                .contains("changing `a[i] > 0` in this statement"),
            "{}",
            line6.message
        );
        // The text moved within the line (saved elsewhere): the whole line.
        let moved = SOURCE.replace("s += a[i]", "s +=  a[i]");
        let list = diagnostics(&d, "src/sum.c", &view(None, &moved));
        let line6 = list.iter().find(|x| x.range.start.line == 5).unwrap();
        assert_eq!(line6.range, view(None, &moved).line_range(5));
    }

    #[test]
    fn a_line_in_two_diagnoses_gets_one_diagnostic_naming_both() {
        let d = diag();
        let list = diagnostics(&d, "src/sum.c", &view(None, SOURCE));
        assert_eq!(list.len(), 2);
        let line6 = list.iter().find(|x| x.range.start.line == 5).unwrap();
        assert_eq!(line6.code, Some(NumberOrString::String("diagnosis".into())));
        assert_eq!(line6.severity, Some(DiagnosticSeverity::WARNING));
        assert_eq!(
            line6.message,
            "diagnosis #1 (cost 1, optimal among the paths explored): changing this statement explains all 2 failing tests at once (sum_negative, sum_mixed); 5 (3rd run) makes sum_negative, sum_mixed pass · also in diagnosis #2"
        );
        let line4 = list.iter().find(|x| x.range.start.line == 3).unwrap();
        assert_eq!(line4.severity, Some(DiagnosticSeverity::INFORMATION));
        assert!(line4.message.contains("together with 1 other statement"));
        let related = line4.related_information.as_ref().unwrap();
        assert_eq!(related[0].location.range.start.line, 5);
    }

    /// The message of the diagnostic on line 6 (0-based 5) of `report`.
    fn line6_message(report: DiagnosisReport) -> String {
        let d = Diagnoses::new(report, Path::new("/project"));
        let list = diagnostics(&d, "src/sum.c", &view(None, SOURCE));
        let line6 = list.iter().find(|x| x.range.start.line == 5).unwrap();
        line6.message.clone()
    }

    #[test]
    fn a_diagnosis_says_which_left_out_tests_it_does_not_explain() {
        let mut report = fixtures::report();
        report.diagnoses[0].not_explaining = vec!["sum_big".into()];
        report.diagnoses[1].explains_left_out = 3;
        let message = line6_message(report.clone());
        assert!(
            message.contains("(sum_negative, sum_mixed); does not explain sum_big (checked alone after the search); 5 (3rd run)"),
            "{message}"
        );
        let d = Diagnoses::new(report, Path::new("/project"));
        let md = hover_section(&d, "src/sum.c", 6, false).unwrap();
        assert!(
            md.contains("Does not explain sum_big (checked alone after the search)."),
            "{md}"
        );
        assert!(
            md.contains("Also explains 3 more of the failing tests left out of the search"),
            "{md}"
        );
    }

    #[test]
    fn hover_lists_each_diagnosis_and_its_verified_values_per_test() {
        let md = hover_section(&diag(), "src/sum.c", 6, false).unwrap();
        assert!(md.contains("in 2 of 2 diagnoses"), "{md}");
        assert!(md.contains("**diagnosis #1 (cost 1, optimal among the paths explored)**"));
        assert!(md.contains("- src/sum.c:6 (3rd run) = 5 makes sum_negative pass"));
        assert!(md.contains("- src/sum.c:4 (1st run) = -3 makes sum_negative pass"));
        assert!(!md.contains("42"), "unverified values are never shown");
        assert!(md.contains("stopped early: time budget of 30 s"));
        assert!(hover_section(&diag(), "src/sum.c", 5, false).is_none());
    }

    #[test]
    fn hover_says_which_reads_outside_an_object_a_line_made_and_their_byte() {
        let mut report = fixtures::report();
        let read = |test: &str, line| faultlens_core::diagnosis::FreeReadNote {
            test: test.into(),
            file: "src/sum.c".into(),
            line,
            what: "out-of-bounds access to `v`: 4 byte(s) at offset 12 of an object of 12 bytes"
                .into(),
            reads: 1,
            byte: 0,
        };
        report.free_reads = vec![
            read("sum_negative", 6),
            read("sum_empty", 6),
            read("sum_negative", 5),
        ];
        let d = Diagnoses::new(report, Path::new("/project"));
        let expected = "- out-of-bounds access to `v`: 4 byte(s) at offset 12 of an object of 12 bytes: byte 0 in sum_negative, sum_empty\n";
        // A diagnosed line: after its diagnoses.
        let md = hover_section(&d, "src/sum.c", 6, false).unwrap();
        assert!(md.contains("in 2 of 2 diagnoses"), "{md}");
        assert!(md.ends_with(&format!("Values read outside an object (undefined in C; each read taken as the byte with which the model's run prints and covers the lines as the recorded run did):\n\n{expected}")), "{md}");
        // A line in no diagnosis: the reads alone, and the hover looks there.
        assert_eq!(d.hover_lines_of("src/sum.c"), vec![4, 5, 6]);
        let md = hover_section(&d, "src/sum.c", 5, false).unwrap();
        assert!(!md.contains("diagnoses"), "{md}");
        assert!(md.contains(": byte 0 in sum_negative\n"), "{md}");
        // A diagnosed line that read nothing outside says nothing of it.
        let md = hover_section(&d, "src/sum.c", 4, false).unwrap();
        assert!(!md.contains("outside"), "{md}");
    }

    #[test]
    fn inlay_hints_sit_at_the_end_of_the_statement_and_leave_stale_lines() {
        let d = diag();
        let hints = inlay_hints(&d, "src/sum.c", &view(None, SOURCE), everything());
        assert_eq!(hints.len(), 2);
        let h = &hints[1];
        assert_eq!(h.position, Position::new(5, 29));
        let InlayHintLabel::String(label) = &h.label else {
            panic!()
        };
        assert_eq!(label, "⟵ 5 (3rd run) makes sum_negative, sum_mixed pass");
        // Outside the requested range: nothing.
        let none = inlay_hints(
            &d,
            "src/sum.c",
            &view(None, SOURCE),
            Range::new(Position::new(0, 0), Position::new(2, 0)),
        );
        assert!(none.is_empty());
        // Edit line 6: its hint is dropped; a line inserted above moves the other.
        let mut tracker = LineTracker::new(d.lines_of("src/sum.c").iter().map(|l| l - 1));
        tracker.apply(&Edit {
            start_line: 5,
            start_col: 6,
            end_line: 5,
            end_col: 8,
            text: "-=",
        });
        tracker.apply(&Edit {
            start_line: 0,
            start_col: 0,
            end_line: 0,
            end_col: 0,
            text: "\n",
        });
        let text = format!("\n{}", SOURCE.replace("s +=", "s -="));
        let hints = inlay_hints(&d, "src/sum.c", &view(Some(&tracker), &text), everything());
        assert_eq!(hints.len(), 1);
        assert_eq!(hints[0].position.line, 4);
        let list = diagnostics(&d, "src/sum.c", &view(Some(&tracker), &text));
        let stale = list.iter().find(|x| x.range.start.line == 6).unwrap();
        assert_eq!(stale.severity, Some(DiagnosticSeverity::HINT));
        assert!(stale.message.contains("stale"));
    }

    #[test]
    fn values_of_different_diagnoses_are_never_mixed() {
        let mut report = fixtures::report();
        // Diagnosis #2 also has a value at line 6: the hint keeps #1's.
        let mut other = report.diagnoses[1].angelic[0].clone();
        other.line = 6;
        other.value = 77;
        other.text = "77".into();
        report.diagnoses[1].angelic.push(other);
        let d = Diagnoses::new(report.clone(), Path::new("/project"));
        let hints = inlay_hints(&d, "src/sum.c", &view(None, SOURCE), everything());
        let InlayHintLabel::String(label) = &hints[1].label else {
            panic!()
        };
        assert!(!label.contains("77"), "{label}");
        // Without values in #1, the line shows #2's and says whose they are.
        report.diagnoses[0].angelic.clear();
        let d = Diagnoses::new(report.clone(), Path::new("/project"));
        let message = line6_message(report);
        assert!(
            message.contains("; 77 makes sum_negative pass (diagnosis #2)"),
            "{message}"
        );
        let hints = inlay_hints(&d, "src/sum.c", &view(None, SOURCE), everything());
        let Some(InlayHintTooltip::MarkupContent(tip)) = &hints[1].tooltip else {
            panic!()
        };
        assert!(
            tip.value.contains("diagnosis #2 (cost 2, minimal)")
                && tip
                    .value
                    .contains("together with the diagnosis's other changes"),
            "{}",
            tip.value
        );
    }

    #[test]
    fn lenses_offer_to_run_the_diagnosis_again() {
        let d = diag();
        let lenses = lenses(&d, "src/sum.c", &view(None, SOURCE), true);
        assert_eq!(lenses.len(), 2);
        let c = lenses[1].command.as_ref().unwrap();
        assert_eq!(c.command, DIAGNOSE);
        assert_eq!(c.title, "diagnoses #1, #2 (cost 1) · re-run diagnosis");
        assert_eq!(
            d.summary(),
            "2 diagnoses of 2 failing tests (search incomplete)"
        );
    }
}
