//! Failing runs that read outside an object. The C standard leaves the
//! value undefined; the compiled program read whatever lay next to the
//! object (the next argument's bytes, the environment) and carried on, so
//! the test failed for a reason a diagnosis can still name. The model
//! cannot know that byte, but the recorded run constrains it: the model's
//! run with it must end, print and cover the lines as the recorded run
//! did. The first byte that does is the test's
//! [`faultlens_csem::TestInput::free_reads`], and every later run of the
//! test (the encoding, replays, checks) reads it there.

use crate::bridge::ModelTest;
use faultlens_core::diagnosis::FreeReadNote;
use faultlens_csem::ir::Program;
use faultlens_csem::{FreeRead, Outcome, Overrides, RunResult};
use faultlens_maxsat::Budget;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The signal of `abort()` and failed assertions, which the model raises.
const SIGABRT: i32 = 6;

/// The lines of one source file as a test's recorded run covered them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileLines {
    /// Lines gcov counts (those with code).
    pub instrumented: BTreeSet<u32>,
    /// Lines the run executed.
    pub executed: BTreeSet<u32>,
}

/// A recorded run's coverage, by the source file's path relative to the
/// project's root (as the results name it).
pub type RecordedLines = BTreeMap<String, FileLines>;

/// Tests whose reads outside an object no byte answers after which no
/// other is tried: each costs up to 256 runs of the budget, and runs of
/// one program that crash or read past far tend to do so alike.
const MAX_UNANSWERED: usize = 4;

/// Answers the failing tests of one diagnosis in turn: the previous
/// test's byte is tried first, and after [`MAX_UNANSWERED`] tests no byte
/// answered, no more are tried.
pub(crate) struct Answerer<'a> {
    prog: &'a Program,
    budget: &'a Budget,
    /// The program's files by the results' names.
    files: Vec<String>,
    last_byte: u8,
    unanswered: usize,
}

impl<'a> Answerer<'a> {
    pub fn new(prog: &'a Program, root: &'a Path, budget: &'a Budget) -> Self {
        Answerer {
            prog,
            budget,
            files: crate::locate::program_files(prog, root),
            last_byte: 0,
            unanswered: 0,
        }
    }

    /// Gives `t` (whose model run stops at undefined behaviour) the byte
    /// that answers its reads outside objects, noting them in `notes`;
    /// whether it did. A test no byte answers carries why
    /// ([`ModelTest::unanswered_reads`]).
    pub fn answer(&mut self, t: &mut ModelTest, notes: &mut Vec<FreeReadNote>) -> bool {
        if self.unanswered >= MAX_UNANSWERED {
            return false;
        }
        match answer(self.prog, &self.files, t, self.last_byte, self.budget) {
            Ok(Some((byte, reads))) => {
                self.last_byte = byte;
                t.input.free_reads = Some(byte);
                notes.extend(reads.into_iter().map(|read| {
                    FreeReadNote {
                        test: t.name.clone(),
                        file: self
                            .files
                            .get(read.range.file as usize)
                            .cloned()
                            .unwrap_or_default(),
                        line: read.range.start.line,
                        what: read.message,
                        reads: read.count,
                        byte,
                    }
                }));
                true
            }
            Ok(None) => false,
            Err(why) => {
                self.unanswered += 1;
                t.unanswered_reads = Some(format!("it reads outside an object, and {why}"));
                false
            }
        }
    }
}

/// The byte that answers `t`'s reads outside their objects and the reads
/// it answered, when its run stops at one: the first byte (`first`, then
/// from 0) whose run reproduces the recorded one (see [`reproduces`];
/// `files`: the program's files by the results' names). `Ok(None)`: the
/// run reads nothing outside an object. `Err`: no byte reproduces it, or
/// `budget` ran out first.
fn answer(
    prog: &Program,
    files: &[String],
    t: &ModelTest,
    first: u8,
    budget: &Budget,
) -> Result<Option<(u8, Vec<FreeRead>)>, String> {
    let statement_lines = statement_lines(prog, files);
    // `first` (the byte that answered the test before) first: runs of one
    // program tend to read the same neighbour.
    let order = std::iter::once(first).chain((0..=u8::MAX).filter(|b| *b != first));
    for (tried, fill) in order.enumerate() {
        if budget.exhausted().is_some() {
            return Err(format!(
                "no byte read there was found to reproduce the recorded run before the time budget ran out ({tried} of 256 tried)"
            ));
        }
        let mut input = t.input.clone();
        input.free_reads = Some(fill);
        let r = faultlens_csem::run(prog, &input, &t.traced(Overrides::default()));
        if r.free_reads.is_empty() {
            // The undefined behaviour is of another kind.
            return Ok(None);
        }
        if let Some(signal) = t.observed_signal.filter(|s| *s != SIGABRT) {
            // A read far enough outside to crash the program: the model,
            // which answers it with a byte, cannot crash there.
            return Err(format!(
                "the recorded run was killed by signal {signal}, which a read answered with a byte does not reproduce"
            ));
        }
        if reproduces(files, &statement_lines, &r, t) {
            return Ok(Some((fill, r.free_reads)));
        }
    }
    Err("no byte read there makes the model's run end, print and cover the lines as the recorded run did".into())
}

/// Whether the model's run `r` ends as the recorded run did (exits, or is
/// killed by the same signal), fails, prints as the recorded run did and
/// executes no line the recorded run did not: a line holding a statement
/// of the model and counted by gcov that the model's run executes was
/// executed by the recorded run. (Not the converse: a run that ends in
/// `exit` or `abort` leaves the statements in progress untraced, which
/// gcov counts.) A byte that sends the run down another branch executes
/// the other arm's lines.
fn reproduces(
    files: &[String],
    statement_lines: &BTreeSet<(&str, u32)>,
    r: &RunResult,
    t: &ModelTest,
) -> bool {
    let ends_alike = match (&r.outcome, t.observed_signal) {
        (Outcome::Exited(_), None) => true,
        (Outcome::Signaled(s), Some(recorded)) => *s == recorded,
        _ => false,
    };
    if !ends_alike
        || crate::angelic::passes(r, t)
        || crate::recorded::unlike_recorded(r, t).is_some()
    {
        return false;
    }
    let Some(recorded) = &t.recorded_lines else {
        return true;
    };
    let executed: BTreeSet<(&str, u32)> = r
        .trace
        .iter()
        .filter_map(|e| {
            Some((
                files.get(e.range.file as usize)?.as_str(),
                e.range.start.line,
            ))
        })
        .collect();
    statement_lines.iter().all(|&(file, line)| {
        let Some(lines) = recorded.get(file) else {
            return true;
        };
        !lines.instrumented.contains(&line)
            || !executed.contains(&(file, line))
            || lines.executed.contains(&line)
    })
}

/// The lines where a statement of `prog` starts, by the file's name in `files`.
fn statement_lines<'f>(prog: &Program, files: &'f [String]) -> BTreeSet<(&'f str, u32)> {
    prog.funcs
        .iter()
        .flat_map(|f| f.body.iter())
        .filter_map(|i| {
            Some((
                files.get(i.range.file as usize)?.as_str(),
                i.range.start.line,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_programs::{printing, program};

    fn answer_in(
        prog: &Program,
        dir: &Path,
        t: &ModelTest,
        first: u8,
        budget: &Budget,
    ) -> Result<Option<(u8, Vec<FreeRead>)>, String> {
        answer(
            prog,
            &crate::locate::program_files(prog, dir),
            t,
            first,
            budget,
        )
    }

    /// Prints the byte past the end of its argument's string.
    const PRINTS_PAST_THE_END: &str = r#"#include <stdio.h>
int main(int argc, char **argv) {
    printf("%d\n", argv[1][3]);
    return 0;
}
"#;

    /// Takes either branch on the byte past the end; both print the same.
    const BRANCHES_PAST_THE_END: &str = r#"#include <stdio.h>
int main(int argc, char **argv) {
    int n;
    if (argv[1][3] < 10)
        n = 1;
    else
        n = 1;
    printf("%d\n", n);
    return 0;
}
"#;

    /// A failing test of `arg` (expected to print `expected`) whose
    /// recorded run printed `recorded` and exited with 0.
    fn recorded(arg: &str, expected: &str, recorded: &str) -> ModelTest {
        let mut t = printing(arg, expected);
        t.observed_stdout = recorded.into();
        t.observed_exit = Some(0);
        t.comparable = true;
        t
    }

    #[test]
    fn the_byte_is_the_first_with_which_the_run_prints_as_recorded() {
        let (dir, prog) = program(PRINTS_PAST_THE_END);
        let t = recorded("ab", "9\n", "7\n");
        let (byte, reads) = answer_in(&prog, dir.path(), &t, 0, &Budget::unlimited())
            .unwrap()
            .expect("a read past the end");
        assert_eq!(byte, 7);
        assert_eq!((reads.len(), reads[0].range.start.line), (1, 3));
        // Nothing prints what no byte prints.
        let t = recorded("ab", "9\n", "1000\n");
        let err = answer_in(&prog, dir.path(), &t, 0, &Budget::unlimited()).unwrap_err();
        assert!(err.contains("no byte"), "{err}");
    }

    #[test]
    fn the_byte_takes_the_branches_the_recorded_coverage_shows() {
        let (dir, prog) = program(BRANCHES_PAST_THE_END);
        let mut t = recorded("ab", "2\n", "1\n");
        // Without coverage, 0 prints as recorded.
        let budget = Budget::unlimited();
        assert_eq!(
            answer_in(&prog, dir.path(), &t, 0, &budget)
                .unwrap()
                .unwrap()
                .0,
            0
        );
        // The recorded run took the `else` (line 7): the byte is at least 10.
        let lines = FileLines {
            instrumented: [4, 5, 7, 8, 9].into(),
            executed: [4, 7, 8, 9].into(),
        };
        t.recorded_lines = Some([("program.c".to_string(), lines)].into());
        assert_eq!(
            answer_in(&prog, dir.path(), &t, 0, &budget)
                .unwrap()
                .unwrap()
                .0,
            10
        );
    }

    /// Reads past the end in a function that then calls `exit`: the lines
    /// in progress (the call on line 8, the `exit` on line 5) are in gcov's
    /// counts but never finish in the model's trace.
    const EXITS_PAST_THE_END: &str = r#"#include <stdio.h>
#include <stdlib.h>
static void check(const char *s) {
    if (s[3] == 0)
        exit(1);
}
int main(int argc, char **argv) {
    check(argv[1]);
    puts("ok");
    return 0;
}
"#;

    #[test]
    fn a_run_that_exits_from_a_call_is_answered_though_its_calls_never_finish() {
        let (dir, prog) = program(EXITS_PAST_THE_END);
        let mut t = recorded("ab", "ok\n", "");
        t.observed_exit = Some(1);
        let lines = FileLines {
            instrumented: [4, 5, 8, 9, 10].into(),
            executed: [4, 5, 8].into(),
        };
        t.recorded_lines = Some([("program.c".to_string(), lines)].into());
        let budget = Budget::unlimited();
        assert_eq!(
            answer_in(&prog, dir.path(), &t, 7, &budget)
                .unwrap()
                .unwrap()
                .0,
            0
        );
        // Had the recorded run gone on to print, the bytes that skip the
        // `exit` would be the ones: the first of them tried first.
        let mut t = recorded("ab", "ok\n", "ok\n");
        t.expected.stdout = Some(b"fine\n".to_vec());
        t.recorded_lines = Some(
            [(
                "program.c".to_string(),
                FileLines {
                    instrumented: [4, 5, 8, 9, 10].into(),
                    executed: [4, 8, 9, 10].into(),
                },
            )]
            .into(),
        );
        assert_eq!(
            answer_in(&prog, dir.path(), &t, 7, &budget)
                .unwrap()
                .unwrap()
                .0,
            7
        );
    }

    #[test]
    fn a_crashed_run_or_other_undefined_behaviour_gets_no_byte() {
        let (dir, prog) = program(PRINTS_PAST_THE_END);
        let mut t = recorded("ab", "9\n", "");
        t.observed_exit = None;
        t.observed_signal = Some(11);
        let err = answer_in(&prog, dir.path(), &t, 0, &Budget::unlimited()).unwrap_err();
        assert!(err.contains("signal 11"), "{err}");
        let (dir, prog) = program("int main(void) { int *p = 0; return *p; }\n");
        let mut t = recorded("", "", "");
        assert_eq!(
            answer_in(&prog, dir.path(), &t, 0, &Budget::unlimited()),
            Ok(None)
        );
        // Nor is a crash there a read outside an object.
        t.observed_signal = Some(11);
        assert_eq!(
            answer_in(&prog, dir.path(), &t, 0, &Budget::unlimited()),
            Ok(None)
        );
    }
}
