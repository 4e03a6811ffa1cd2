//! Whether the model reproduces the run `faultlens localize` recorded. A
//! failing test whose model run ends or prints otherwise failed for a
//! reason the model does not see (a data file deleted since, another
//! environment, a rebuilt program), and a diagnosis of it would explain a
//! failure nobody saw.

use crate::bridge::ModelTest;
use faultlens_csem::{Outcome, RunResult};

/// How the model's run `r` of `t` ends or prints otherwise than the
/// recorded run, when they are comparable (see [`ModelTest::comparable`])
/// and the model's run ended normally (undefined behaviour has its own
/// reason, given where the run is encoded).
pub(crate) fn unlike_recorded(r: &RunResult, t: &ModelTest) -> Option<String> {
    let Outcome::Exited(status) = r.outcome else {
        return None;
    };
    if !t.comparable || t.observed_signal.is_some() {
        return None;
    }
    if let Some(recorded) = t.observed_exit.filter(|e| *e != status) {
        return Some(format!(
            "exits with status {status} where the recorded run exited with {recorded}"
        ));
    }
    // libgcov's own complaints ("profiling:", "libgcov profiling error:")
    // are the coverage build's, not the program's.
    let recorded_stderr: String = t
        .observed_stderr
        .split_inclusive('\n')
        .filter(|l| !l.contains("profiling:") && !l.contains("profiling error:"))
        .collect();
    let streams = [
        ("stdout", &r.stdout, t.observed_stdout.as_str()),
        ("stderr", &r.stderr, recorded_stderr.as_str()),
    ];
    let difference = streams.into_iter().find_map(|(stream, printed, recorded)| {
        let (line, model, real) = first_difference(&String::from_utf8_lossy(printed), recorded)?;
        Some(format!(
            "prints otherwise than the recorded run from {stream} line {line} ({model} where it printed {real})"
        ))
    });
    difference
}

/// The first line where `model` and `recorded` differ: its number and
/// each text, quoted (as Rust quotes, newline included) and shortened.
/// Paths of C files count by their names alone: `__FILE__` is the path the
/// compiler was given, which the build spells otherwise (`../src/a.c`)
/// than the model (the absolute path).
fn first_difference(model: &str, recorded: &str) -> Option<(usize, String, String)> {
    let lines = |s: &str| -> Vec<String> { s.split_inclusive('\n').map(String::from).collect() };
    let (m, r) = (lines(model), lines(recorded));
    let same = |a: Option<&String>, b: Option<&String>| match (a, b) {
        (Some(a), Some(b)) => source_names(a) == source_names(b),
        (a, b) => a == b,
    };
    let k = (0..m.len().max(r.len())).find(|&k| !same(m.get(k), r.get(k)))?;
    let shown = |l: Option<&String>| match l {
        // The newline shown: a line that lacks it differs by it alone.
        Some(l) => format!("{:?}", l.chars().take(80).collect::<String>()),
        None => "nothing".to_string(),
    };
    Some((k + 1, shown(m.get(k)), shown(r.get(k))))
}

/// `line` with each path of a C source or header (a word with a `/`,
/// ending in `.c` or `.h`) cut to its file name.
fn source_names(line: &str) -> String {
    let is_delimiter = |c: char| c.is_whitespace() || ":\"'(),;[]".contains(c);
    let mut out = String::with_capacity(line.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let source = word.contains('/') && (word.ends_with(".c") || word.ends_with(".h"));
        match word.rsplit('/').next().filter(|_| source) {
            Some(name) => out.push_str(name),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in line.chars() {
        if is_delimiter(c) {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_printed_otherwise_is_quoted_with_its_number() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(
            first_difference("a\nb\n", "a\nc\n"),
            Some((2, r#""b\n""#.into(), r#""c\n""#.into()))
        );
        assert_eq!(
            first_difference("a\n", "a\nmore\n"),
            Some((2, "nothing".into(), r#""more\n""#.into()))
        );
        // A missing final newline is a difference too.
        assert_eq!(
            first_difference("a", "a\n"),
            Some((1, r#""a""#.into(), r#""a\n""#.into()))
        );
    }

    #[test]
    fn a_source_s_path_counts_by_its_name_as_the_compiler_was_given_it() {
        assert_eq!(
            source_names("/p/tests/t.c:12: main: Assertion `x' failed."),
            "t.c:12: main: Assertion `x' failed."
        );
        assert_eq!(
            first_difference(
                "/p/tests/t.c:4: check failed (see /p/include/k.h)\n",
                "../tests/t.c:4: check failed (see include/k.h)\n"
            ),
            None
        );
        assert!(first_difference("/p/tests/t.c:4: x\n", "tests/t.c:5: x\n").is_some());
        // Other paths keep their directories.
        assert_eq!(source_names("wrote /tmp/out.txt"), "wrote /tmp/out.txt");
    }
}
