//! What a run did differently from what the user may expect, said once
//! per kind with every test it concerns: a library whose twelve Unity
//! executables stay whole gets one note naming the twelve, not twelve; a
//! build system chosen over another, or a build directory made afresh,
//! gets one line.

use crate::discover::cases::WholeKind;
use faultlens_core::results::RunNote;

/// Something a run did differently from what the user may expect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A choice the build or discovery made, in one sentence.
    Chose(String),
    /// Unit-test executables that keep one row for all their cases, for
    /// one kind of reason: each test with what is particular to it.
    NotSplit {
        framework: &'static str,
        kind: WholeKind,
        tests: Vec<(String, Option<String>)>,
    },
}

/// Test names a note shows before it counts the rest.
const NAMES_SHOWN: usize = 5;
/// Particulars (a test's arguments, its listing's last line) a note shows.
const DETAILS_SHOWN: usize = 3;

impl Note {
    /// `notes` with the notes of one kind merged into one, in the order
    /// each kind was first noted.
    pub fn grouped(notes: Vec<Note>) -> Vec<Note> {
        let mut out: Vec<Note> = Vec::new();
        for note in notes {
            let Note::NotSplit {
                framework,
                kind,
                tests,
            } = note
            else {
                if !out.contains(&note) {
                    out.push(note);
                }
                continue;
            };
            let same = out.iter_mut().find_map(|n| match n {
                Note::NotSplit {
                    framework: f,
                    kind: k,
                    tests,
                } if *f == framework && *k == kind => Some(tests),
                _ => None,
            });
            match same {
                Some(merged) => merged.extend(tests),
                None => out.push(Note::NotSplit {
                    framework,
                    kind,
                    tests,
                }),
            }
        }
        out
    }

    /// The tests the note concerns.
    pub fn tests(&self) -> Vec<String> {
        match self {
            Note::NotSplit { tests, .. } => tests.iter().map(|(name, _)| name.clone()).collect(),
            Note::Chose(_) => Vec::new(),
        }
    }

    /// The note as the results document keeps it.
    pub fn to_run_note(&self) -> RunNote {
        RunNote {
            message: self.to_string(),
            tests: self.tests(),
        }
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (framework, kind, tests) = match self {
            Note::Chose(said) => return f.write_str(said),
            Note::NotSplit {
                framework,
                kind,
                tests,
            } => (framework, kind, tests),
        };
        match tests.as_slice() {
            [(test, _)] => write!(
                f,
                "test {test:?} runs {framework} cases but stays one test: {}",
                kind.says()
            )?,
            _ => {
                let names: Vec<&str> = tests
                    .iter()
                    .take(NAMES_SHOWN)
                    .map(|(n, _)| n.as_str())
                    .collect();
                let more = match tests.len().saturating_sub(NAMES_SHOWN) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                write!(
                    f,
                    "{} tests run {framework} cases but stay one test each ({}{more}): {}",
                    tests.len(),
                    names.join(", "),
                    kind.says()
                )?
            }
        }
        let details: Vec<String> = tests
            .iter()
            .filter_map(|(name, detail)| Some((name, detail.as_ref()?)))
            .take(DETAILS_SHOWN)
            .map(|(name, detail)| match tests.len() {
                1 => detail.clone(),
                _ => format!("{name}: {detail}"),
            })
            .collect();
        if !details.is_empty() {
            let more = tests.iter().filter(|(_, d)| d.is_some()).count() > DETAILS_SHOWN;
            write!(
                f,
                " ({}{})",
                details.join("; "),
                if more { "; …" } else { "" }
            )?;
        }
        write!(
            f,
            " (declare one test per case to split it by hand, or leave it out of [run] split_cases to silence this)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not_split(test: &str, kind: WholeKind, detail: Option<&str>) -> Note {
        Note::NotSplit {
            framework: "Unity",
            kind,
            tests: vec![(test.into(), detail.map(String::from))],
        }
    }

    #[test]
    fn a_kind_is_said_once_with_every_test_it_concerns() {
        let mut notes: Vec<Note> = (0..7)
            .map(|i| not_split(&format!("t{i}"), WholeKind::UnityOutOfReach, None))
            .collect();
        notes.insert(2, not_split("shell", WholeKind::Shell, None));
        let grouped = Note::grouped(notes);
        assert_eq!(grouped.len(), 2, "{grouped:?}");
        let text = grouped[0].to_string();
        assert!(
            text.starts_with(
                "7 tests run Unity cases but stay one test each (t0, t1, t2, t3, t4 and 2 more): its Unity cases do not pass through UnityDefaultTestRun"
            ),
            "{text}"
        );
        assert_eq!(text.matches("declare one test per case").count(), 1);
        assert_eq!(grouped[0].tests().len(), 7);
        assert_eq!(
            grouped[1].to_string(),
            "test \"shell\" runs Unity cases but stays one test: it runs through a shell (declare one test per case to split it by hand, or leave it out of [run] split_cases to silence this)"
        );
        let kept = grouped[0].to_run_note();
        assert_eq!(kept.tests[6], "t6");
        assert_eq!(kept.message, text);
    }

    #[test]
    fn particulars_are_named_by_test_and_a_few_at_most() {
        let notes: Vec<Note> = (0..5)
            .map(|i| {
                not_split(
                    &format!("t{i}"),
                    WholeKind::Arguments,
                    Some(&format!("--n {i}")),
                )
            })
            .collect();
        let text = Note::grouped(notes)[0].to_string();
        assert!(
            text.contains("(t0: --n 0; t1: --n 1; t2: --n 2; …)"),
            "{text}"
        );
        let one = not_split("t", WholeKind::Arguments, Some("-v"));
        assert!(one
            .to_string()
            .contains("may already choose the cases (-v) ("));
    }
}
