//! The sentences faultlens uses for diagnoses and angelic values, shared by
//! the table, SARIF and the language server so they all say the same thing.

use faultlens_core::diagnosis::{AngelicValue, Diagnosis, DiagnosisKind, DiagnosisReport};

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`, ...
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `mid.c:22 (1st run) = 5 makes t7 pass`; with the column when the line
/// holds several statements (`mid.c:38:29 (3rd run) = 0 ...`) and which
/// printed value an output argument is (`(1st run, 2nd value printed)`).
pub fn angelic_line(a: &AngelicValue) -> String {
    let column = a.column.map(|c| format!(":{c}")).unwrap_or_default();
    let argument = a
        .argument
        .map(|n| format!(", {} value printed", ordinal(n)))
        .unwrap_or_default();
    format!(
        "{}:{}{column} ({} run{argument}) = {} makes {} pass",
        a.file,
        a.line,
        ordinal(a.instance),
        a.text_or_value(),
        a.test
    )
}

/// The verified angelic values of a diagnosis, in the order listed.
pub fn verified(d: &Diagnosis) -> impl Iterator<Item = &AngelicValue> {
    d.angelic.iter().filter(|a| a.verified)
}

/// Text of an angelic value as C would write it (falls back to the number).
trait ValueText {
    fn text_or_value(&self) -> String;
}

impl ValueText for AngelicValue {
    fn text_or_value(&self) -> String {
        if self.text.is_empty() {
            self.value.to_string()
        } else {
            self.text.clone()
        }
    }
}

/// The text of an inlay hint at a statement: `⟵ 5 makes t7 pass`; values
/// shared by several tests are combined (`⟵ 5 makes t7, t8 pass`), other
/// values follow after `;`. A later instance than the first says which
/// (`2 (3rd run) makes t7 pass`). Unverified values are left out; `None`
/// when nothing is left.
pub fn hint_label<'a>(values: impl IntoIterator<Item = &'a AngelicValue>) -> Option<String> {
    // (value text, instance) -> tests, in first-seen order.
    let mut groups: Vec<((String, u32), Vec<&str>)> = Vec::new();
    for a in values.into_iter().filter(|a| a.verified) {
        let key = (a.text_or_value(), a.instance);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, tests)) => {
                if !tests.contains(&a.test.as_str()) {
                    tests.push(&a.test);
                }
            }
            None => groups.push((key, vec![&a.test])),
        }
    }
    if groups.is_empty() {
        return None;
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|((text, instance), tests)| {
            let run = if *instance > 1 {
                format!(" ({} run)", ordinal(*instance))
            } else {
                String::new()
            };
            format!("{text}{run} makes {} pass", tests.join(", "))
        })
        .collect();
    Some(format!("⟵ {}", parts.join("; ")))
}

/// Why some angelic values are not listed, when any are missing:
/// `angelic values left out: 2 sets did not make their test pass on replay,
/// 1 changes too many instances to list, 3 diagnoses found after the time
/// budget ran out were not checked`. `None` when nothing was left out.
pub fn angelic_left_out(report: &DiagnosisReport) -> Option<String> {
    let s = &report.stats;
    let plural = |n: u64, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut parts = Vec::new();
    if s.angelic_rejected > 0 {
        parts.push(format!(
            "{} not make their test pass on replay",
            plural(s.angelic_rejected, "set did", "sets did")
        ));
    }
    if s.angelic_too_long > 0 {
        parts.push(format!(
            "{} too many statement instances to list",
            plural(s.angelic_too_long, "set changes", "sets change")
        ));
    }
    if s.angelic_unchecked > 0 {
        parts.push(format!(
            "{} found after the time budget ran out {} not checked (--time-limit to allow more)",
            plural(s.angelic_unchecked, "diagnosis", "diagnoses"),
            if s.angelic_unchecked == 1 {
                "was"
            } else {
                "were"
            }
        ));
    }
    (!parts.is_empty()).then(|| format!("angelic values left out: {}", parts.join("; ")))
}

/// What the spectrum-guided check did after the search stopped unfinished:
/// `27 statements on the spectrum's top lines checked one at a time after
/// the search stopped: 1 alone explains every failing test (listed)`.
/// `None` when it did not run.
pub fn suspects_checked(report: &DiagnosisReport) -> Option<String> {
    let s = &report.stats;
    if s.suspects_checked == 0 {
        return None;
    }
    let found = match s.suspects_explaining {
        0 => "none alone explains every failing test".to_string(),
        1 => "1 alone explains every failing test (listed as a minimal diagnosis)".to_string(),
        n => format!("{n} alone explain every failing test (listed as minimal diagnoses)"),
    };
    Some(format!(
        "{} on the spectrum's top lines checked one at a time after the search stopped: {found}",
        plural(s.suspects_checked, "statement", "statements")
    ))
}

/// What checking the failing tests left out of the search alone found:
/// `110 failing tests left out of the search checked alone against every
/// diagnosis: all 110 explained (counted above)`. `None` when none was.
pub fn checked_alone(report: &DiagnosisReport) -> Option<String> {
    let s = &report.stats;
    if s.checked_alone == 0 {
        return None;
    }
    let found = match (s.checked_alone, s.explained_alone) {
        (1, 1) => "explained (counted above)".to_string(),
        (n, e) if n == e => format!("all {n} explained (counted above)"),
        (_, e) => format!(
            "{e} explained (counted above), {} not by every diagnosis (listed as left out)",
            s.checked_alone - e
        ),
    };
    Some(format!(
        "{} left out of the search checked alone against every diagnosis: {found}",
        plural(s.checked_alone, "failing test", "failing tests")
    ))
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Test names a line of text names at most.
const NAMED_TESTS: usize = 10;

/// `t1, t2, t3`, or of many the first few: `t1, …, t10, … and 108 more`
/// (the JSON lists them all).
pub fn named_tests(names: &[String]) -> String {
    if names.len() <= NAMED_TESTS {
        return names.join(", ");
    }
    format!(
        "{}, … and {} more",
        names[..NAMED_TESTS].join(", "),
        names.len() - NAMED_TESTS
    )
}

/// What checking the left-out tests alone said of diagnosis `d`, a phrase
/// each: `also explains 98 more of the failing tests left out of the
/// search (checked alone)`, `does not explain t7, t9 (checked alone after
/// the search)`.
pub fn left_out_verdicts(d: &Diagnosis) -> Vec<String> {
    let also = (d.explains_left_out > 0).then(|| {
        format!(
            "also explains {} more of the failing tests left out of the search (checked alone)",
            d.explains_left_out
        )
    });
    also.into_iter().chain(does_not_explain(d)).collect()
}

/// `does not explain t7, t9 (checked alone after the search)`.
pub fn does_not_explain(d: &Diagnosis) -> Option<String> {
    (!d.not_explaining.is_empty()).then(|| {
        format!(
            "does not explain {} (checked alone after the search)",
            named_tests(&d.not_explaining)
        )
    })
}

/// `text` with its first letter upper-case.
pub fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `diagnosis #1 (cost 1, optimal)`; `index` is 0-based. When the search
/// did not finish (`complete` false) optimality is only over the program
/// paths it explored, and the title says so.
pub fn diagnosis_title(index: usize, d: &Diagnosis, complete: bool) -> String {
    let kind = match d.kind {
        DiagnosisKind::Optimal if complete => "optimal",
        DiagnosisKind::Optimal => "optimal among the paths explored",
        DiagnosisKind::Minimal => "minimal",
    };
    format!("diagnosis #{} (cost {}, {kind})", index + 1, d.cost)
}

/// `explains all 3 failing tests at once` / `explains the failing test t7`.
pub fn explains(report: &DiagnosisReport) -> String {
    match report.failing_tests.as_slice() {
        [one] => format!("explains the failing test {one}"),
        many => format!("explains all {} failing tests at once", many.len()),
    }
}

/// Whether the search was complete, or why it stopped.
pub fn completeness(report: &DiagnosisReport) -> String {
    match (&report.stopped, report.complete) {
        (_, true) => {
            "search complete: every subset-minimal diagnosis up to the size bound was found".into()
        }
        (Some(why), false) => {
            format!("search incomplete, more diagnoses may exist; stopped early: {why}")
        }
        (None, false) => "search incomplete, more diagnoses may exist".into(),
    }
}

/// What `values read outside an object` introduces, in the table and hovers.
pub const FREE_READS_HEADING: &str = "values read outside an object (undefined in C; each read taken as the byte with which the model's run prints and covers the lines as the recorded run did)";

/// The report's reads outside an object by place and byte, each with its
/// sentence (`out-of-bounds access to `argv[1]`: …: byte 0 in t1, t2`), in
/// the report's order.
pub fn free_reads_by_place(report: &DiagnosisReport) -> Vec<(&str, u32, String)> {
    // (file, line, what was read past, byte) and the tests that read there.
    type Place<'r> = (&'r str, u32, &'r str, u8);
    let mut places: Vec<(Place, Vec<String>)> = Vec::new();
    for r in &report.free_reads {
        let key = (r.file.as_str(), r.line, r.what.as_str(), r.byte);
        match places.iter_mut().find(|(k, _)| *k == key) {
            Some((_, tests)) => tests.push(r.test.clone()),
            None => places.push((key, vec![r.test.clone()])),
        }
    }
    places
        .into_iter()
        .map(|((file, line, what, byte), tests)| {
            (
                file,
                line,
                format!("{what}: byte {byte} in {}", named_tests(&tests)),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::example::{angelic, report};

    #[test]
    fn the_spectrum_guided_check_is_reported_only_when_it_ran() {
        let mut r = report();
        assert_eq!(suspects_checked(&r), None);
        r.stats.suspects_checked = 27;
        assert_eq!(
            suspects_checked(&r).unwrap(),
            "27 statements on the spectrum's top lines checked one at a time after the search stopped: none alone explains every failing test"
        );
        r.stats.suspects_explaining = 1;
        assert!(suspects_checked(&r)
            .unwrap()
            .ends_with(": 1 alone explains every failing test (listed as a minimal diagnosis)"));
    }

    #[test]
    fn the_left_out_tests_checked_alone_are_counted_only_when_some_were() {
        let mut r = report();
        assert_eq!(checked_alone(&r), None);
        r.stats.checked_alone = 3;
        r.stats.explained_alone = 3;
        assert_eq!(
            checked_alone(&r).unwrap(),
            "3 failing tests left out of the search checked alone against every diagnosis: all 3 explained (counted above)"
        );
        r.stats.explained_alone = 1;
        assert!(checked_alone(&r).unwrap().ends_with(
            ": 1 explained (counted above), 2 not by every diagnosis (listed as left out)"
        ));
    }

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }

    #[test]
    fn a_value_on_a_shared_line_names_its_column_and_printed_argument() {
        let mut a = angelic("t7", 38, 3, 0);
        a.column = Some(29);
        assert_eq!(angelic_line(&a), "mid.c:38:29 (3rd run) = 0 makes t7 pass");
        a.column = None;
        a.argument = Some(2);
        assert_eq!(
            angelic_line(&a),
            "mid.c:38 (3rd run, 2nd value printed) = 0 makes t7 pass"
        );
    }

    #[test]
    fn optimality_is_claimed_only_for_a_finished_search() {
        let r = report();
        let d = &r.diagnoses[0];
        assert_eq!(
            diagnosis_title(0, d, true),
            "diagnosis #1 (cost 1, optimal)"
        );
        assert_eq!(
            diagnosis_title(0, d, false),
            "diagnosis #1 (cost 1, optimal among the paths explored)"
        );
    }

    #[test]
    fn an_angelic_value_in_one_line() {
        assert_eq!(
            angelic_line(&angelic("t7", 22, 1, 5)),
            "mid.c:22 (1st run) = 5 makes t7 pass"
        );
    }

    #[test]
    fn hints_combine_tests_sharing_a_value_and_drop_unverified_ones() {
        let a = angelic("t7", 22, 1, 5);
        assert_eq!(hint_label([&a]).as_deref(), Some("⟵ 5 makes t7 pass"));
        let b = angelic("t8", 22, 1, 5);
        let c = angelic("t9", 22, 3, -1);
        let mut unverified = angelic("t10", 22, 1, 7);
        unverified.verified = false;
        assert_eq!(
            hint_label([&a, &b, &c, &unverified, &a]).as_deref(),
            Some("⟵ 5 makes t7, t8 pass; -1 (3rd run) makes t9 pass")
        );
        assert_eq!(hint_label([&unverified]), None);
    }

    #[test]
    fn completeness_says_why_the_search_stopped() {
        let mut r = report();
        assert!(completeness(&r).starts_with("search complete"));
        r.complete = false;
        r.stopped = Some("time budget of 30 s".into());
        assert_eq!(
            completeness(&r),
            "search incomplete, more diagnoses may exist; stopped early: time budget of 30 s"
        );
        assert_eq!(explains(&r), "explains all 2 failing tests at once");
    }
}
