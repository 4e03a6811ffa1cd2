//! The terminal table of a diagnosis run: diagnoses in cost order with
//! their statements and verified angelic values, then cores, failure groups,
//! skipped tests and whether the search was complete.

use super::phrases::{
    angelic_left_out, angelic_line, checked_alone, completeness, diagnosis_title, explains,
    free_reads_by_place, left_out_verdicts, named_tests, suspects_checked, verified,
    FREE_READS_HEADING,
};
use faultlens_core::diagnosis::{DiagnosedStatement, DiagnosisReport};
use std::fmt::Write;

/// `max` limits the diagnoses shown (the rest are counted).
pub fn table(report: &DiagnosisReport, max: Option<usize>) -> String {
    let mut out = String::new();
    let n = report.diagnoses.len();
    // One failing test is named by `explains` already.
    let names = match report.failing_tests.as_slice() {
        [_] => String::new(),
        many => format!(" · {}", named_tests(many)),
    };
    let _ = writeln!(
        out,
        "{n} diagnos{} · each {}{names}",
        if n == 1 { "is" } else { "es" },
        explains(report),
    );
    let shown = max.unwrap_or(usize::MAX).min(n);
    for (i, d) in report.diagnoses.iter().take(shown).enumerate() {
        let _ = writeln!(out, "\n{}", diagnosis_title(i, d, report.complete));
        let width = d
            .statements
            .iter()
            .map(|s| location(s).chars().count())
            .max()
            .unwrap_or(0);
        for s in &d.statements {
            let _ = writeln!(out, "  {:<width$}  {}", location(s), s.text);
            if let Some(sub) = &s.subexpression {
                let _ = writeln!(
                    out,
                    "  {:<width$}    sub-expression `{}` at {}:{}:{}",
                    "", sub.text, s.file, sub.line, sub.start_column
                );
            }
        }
        let values: Vec<_> = verified(d).collect();
        if values.is_empty() {
            let _ = writeln!(out, "  no verified angelic value");
        }
        for a in values {
            let _ = writeln!(out, "  {}", angelic_line(a));
        }
        for verdict in left_out_verdicts(d) {
            let _ = writeln!(out, "  {verdict}");
        }
    }
    if n > shown {
        let _ = writeln!(
            out,
            "\n… {} more diagnoses (--max N to see more)",
            n - shown
        );
    }
    if !report.cores.is_empty() {
        let _ = writeln!(
            out,
            "\ncores (statements that, all correct, force the failure):"
        );
        for core in &report.cores {
            let places: Vec<String> = core.statements.iter().map(location).collect();
            let _ = writeln!(
                out,
                "  {}: {}{}",
                core.test,
                places.join(", "),
                if core.minimal { "" } else { " (not minimised)" }
            );
        }
    }
    if !report.groups.is_empty() {
        let _ = writeln!(out, "\nfailure groups:");
        for g in &report.groups {
            let _ = writeln!(out, "  {}: {}", g.violation, g.tests.join(", "));
        }
    }
    if !report.skipped_tests.is_empty() {
        let _ = writeln!(out, "\nfailing tests left out:");
        for t in &report.skipped_tests {
            let _ = writeln!(out, "  {}: {}", t.name, t.reason);
        }
    }
    free_reads(report, &mut out);
    let s = &report.stats;
    let _ = writeln!(out, "\n{}.", completeness(report));
    if let Some(checked) = suspects_checked(report) {
        let _ = writeln!(out, "{checked}.");
    }
    if let Some(checked) = checked_alone(report) {
        let _ = writeln!(out, "{checked}.");
    }
    if let Some(why) = angelic_left_out(report) {
        let _ = writeln!(out, "{why}.");
    }
    let first = if report.diagnoses.is_empty() {
        "no diagnosis found".to_string()
    } else {
        format!("first diagnosis after {:.1} s", s.first_ms / 1000.0)
    };
    let _ = writeln!(
        out,
        "{:.1} s in all, {first} · effort {:.1} · {} paths · {} variables · {} clauses · {} SAT calls",
        s.total_ms / 1000.0,
        s.effort,
        s.paths,
        s.variables,
        s.clauses,
        s.sat_calls
    );
    out
}

/// The reads outside an object the failing runs made, one line per place
/// and byte with the tests that read it.
fn free_reads(report: &DiagnosisReport, out: &mut String) {
    let places = free_reads_by_place(report);
    if places.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{FREE_READS_HEADING}:");
    for (file, line, sentence) in places {
        let _ = writeln!(out, "  {file}:{line}: {sentence}");
    }
}

fn location(s: &DiagnosedStatement) -> String {
    match s.column {
        Some(c) => format!("{}:{}:{c}", s.file, s.line),
        None => format!("{}:{}", s.file, s.line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::example::report;

    #[test]
    fn the_table_lists_diagnoses_statements_values_cores_and_completeness() {
        let text = table(&report(), None);
        let expected = "\
2 diagnoses · each explains all 2 failing tests at once · first-middle-last-largest, wide-first-middle

diagnosis #1 (cost 1, optimal)
  mid.c:22  return c;
              sub-expression `c` at mid.c:22:16
  mid.c:22 (1st run) = 5 makes wide-first-middle pass
  mid.c:22 (1st run) = 2 makes first-middle-last-largest pass

diagnosis #2 (cost 2, minimal)
  mid.c:20  if (a > c)
  mid.c:18  if (b > c)
  mid.c:18 (2nd run) = true makes wide-first-middle pass

cores (statements that, all correct, force the failure):
  wide-first-middle: mid.c:17, mid.c:22

failure groups:
  stdout line 1: first-middle-last-largest, wide-first-middle

failing tests left out:
  float-input: unsupported: double at mid.c:40

search complete: every subset-minimal diagnosis up to the size bound was found.
0.8 s in all, first diagnosis after 0.1 s · effort 0.9 · 3 paths · 1234 variables · 5678 clauses · 42 SAT calls
";
        assert_eq!(text, expected, "{text}");
        assert!(!text.contains("unverified"));
    }

    #[test]
    fn reads_outside_an_object_are_listed_by_place_with_their_byte_and_tests() {
        use faultlens_core::diagnosis::FreeReadNote;
        let mut r = report();
        let read = |test: &str, byte| FreeReadNote {
            test: test.into(),
            file: "mid.c".into(),
            line: 9,
            what:
                "out-of-bounds access to `argv[1]`: 1 byte(s) at offset 3 of an object of 3 bytes"
                    .into(),
            reads: 1,
            byte,
        };
        r.free_reads = vec![read("t1", 0), read("t2", 0), read("t3", 7)];
        let text = table(&r, None);
        assert!(
            text.contains("\nvalues read outside an object (undefined in C; each read taken as the byte with which the model's run prints and covers the lines as the recorded run did):\n  mid.c:9: out-of-bounds access to `argv[1]`: 1 byte(s) at offset 3 of an object of 3 bytes: byte 0 in t1, t2\n  mid.c:9: out-of-bounds access to `argv[1]`: 1 byte(s) at offset 3 of an object of 3 bytes: byte 7 in t3\n"),
            "{text}"
        );
        assert!(!table(&report(), None).contains("outside an object"));
    }

    #[test]
    fn a_diagnosis_names_the_left_out_tests_it_does_not_explain_and_long_lists_are_cut() {
        let mut r = report();
        r.diagnoses[1].not_explaining = vec!["t7".into(), "t9".into()];
        r.diagnoses[0].explains_left_out = 2;
        r.failing_tests = (1..=12).map(|i| format!("t{i}")).collect();
        r.stats.checked_alone = 12;
        r.stats.explained_alone = 10;
        let text = table(&r, None);
        assert!(
            text.contains("explains all 12 failing tests at once · t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, … and 2 more\n"),
            "{text}"
        );
        assert!(
            text.contains("also explains 2 more of the failing tests left out of the search (checked alone)\n\ndiagnosis #2"),
            "{text}"
        );
        assert!(
            text.contains("  mid.c:18 (2nd run) = true makes wide-first-middle pass\n  does not explain t7, t9 (checked alone after the search)\n"),
            "{text}"
        );
        assert!(text.contains("12 failing tests left out of the search checked alone against every diagnosis: 10 explained"));
    }

    #[test]
    fn a_statement_sharing_its_line_is_placed_by_its_column() {
        let mut r = report();
        r.diagnoses[1].statements[1].column = Some(9);
        let text = table(&r, None);
        assert!(
            text.contains("  mid.c:20    if (a > c)\n  mid.c:18:9  if (b > c)\n"),
            "{text}"
        );
    }

    #[test]
    fn max_limits_the_diagnoses_and_says_so() {
        let text = table(&report(), Some(1));
        assert!(text.contains("diagnosis #1"));
        assert!(!text.contains("diagnosis #2"));
        assert!(text.contains("… 1 more diagnoses (--max N to see more)"));
    }

    #[test]
    fn missing_angelic_values_are_explained() {
        let mut r = report();
        assert!(!table(&r, None).contains("angelic values left out"));
        r.stats.angelic_rejected = 2;
        r.stats.angelic_too_long = 1;
        r.stats.angelic_unchecked = 1;
        let text = table(&r, None);
        assert!(
            text.contains(
                "angelic values left out: 2 sets did not make their test pass on replay; \
                 1 set changes too many statement instances to list; \
                 1 diagnosis found after the time budget ran out was not checked \
                 (--time-limit to allow more)."
            ),
            "{text}"
        );
    }

    #[test]
    fn nothing_found_is_said_plainly() {
        let mut r = report();
        r.diagnoses.clear();
        r.complete = false;
        r.stopped = Some("cancelled".into());
        let text = table(&r, None);
        assert!(text.starts_with("0 diagnoses"), "{text}");
        assert!(text.contains("stopped early: cancelled"));
        assert!(text.contains("s in all, no diagnosis found ·"), "{text}");
    }
}
