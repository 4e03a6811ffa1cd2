//! `faultlens.toml`: the shape of the file and its parsing. Every key is
//! documented in the README; unknown keys are errors so typos are caught.

use crate::error::{Result, WorkspaceError};
use serde::Deserialize;
use std::path::Path;

pub const CONFIG_FILE: &str = "faultlens.toml";

/// The longest per-test timeout accepted: a week. (Larger values are
/// surely mistakes, and beyond what a `Duration` holds they cannot run.)
pub const MAX_TIMEOUT_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// The most output kept per test and stream: every test running at once
/// holds this much of each stream in memory.
pub const MAX_OUTPUT_LIMIT: usize = 256 << 20;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub project: ProjectSection,
    #[serde(default)]
    pub build: BuildSection,
    #[serde(default)]
    pub run: RunSection,
    #[serde(default, rename = "test")]
    pub tests: Vec<IoTest>,
    #[serde(default, rename = "tests")]
    pub compact: Option<CompactTests>,
    #[serde(default)]
    pub ctest: Option<CtestSection>,
    #[serde(default)]
    pub runner: Option<RunnerSection>,
    #[serde(default)]
    pub meson: Option<MesonSection>,
    #[serde(default, rename = "make")]
    pub make_check: Option<MakeCheckSection>,
    #[serde(default)]
    pub watch: WatchSection,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Io,
    Ctest,
    Runner,
    Meson,
    /// A Makefile whose `check` target runs `TESTS` (automake's convention).
    Make,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectSection {
    pub kind: Option<Kind>,
    pub test_code: Option<Vec<String>>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub include_test_code: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildSection {
    pub sources: Option<Vec<String>>,
    pub command: Option<String>,
    pub program: Option<String>,
    pub cc: Option<String>,
    #[serde(default)]
    pub cflags: Vec<String>,
    #[serde(default)]
    pub ldflags: Vec<String>,
    /// Which coverage the build records: gcc's (`gcov`) or clang's
    /// source-based coverage (`clang`).
    #[serde(default)]
    pub coverage: CoverageTool,
    /// Seconds one build step (a compiler run, `make`, CMake) may take.
    pub timeout: Option<f64>,
    /// More arguments for an autotools project's `./configure`.
    #[serde(default)]
    pub configure: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CoverageTool {
    #[default]
    Gcov,
    Clang,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    pub timeout: Option<f64>,
    pub jobs: Option<usize>,
    pub output_limit: Option<usize>,
    pub compare: Option<Compare>,
    /// Run each case of a unit-test executable as a test of its own: every
    /// such test (the default), none (`false`), or those whose names match
    /// one of the globs.
    pub split_cases: Option<SplitCases>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(
    untagged,
    expecting = "split_cases takes true, false, or a list of test-name globs such as [\"unit_*\"]"
)]
pub enum SplitCases {
    All(bool),
    Matching(Vec<String>),
}

impl SplitCases {
    /// Whether the test named `name` is to be split (`None`: the default, all).
    pub fn splits(setting: Option<&SplitCases>, name: &str) -> bool {
        match setting {
            None | Some(SplitCases::All(true)) => true,
            Some(SplitCases::All(false)) => false,
            Some(SplitCases::Matching(globs)) => globs
                .iter()
                .any(|g| glob::Pattern::new(g).is_ok_and(|p| p.matches(name))),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compare {
    #[default]
    Exact,
    Trim,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IoTest {
    pub name: String,
    #[serde(default)]
    pub args: Vec<String>,
    pub stdin: Option<String>,
    pub stdin_file: Option<String>,
    pub expected_stdout: Option<String>,
    pub expected_stdout_file: Option<String>,
    pub expected_exit: Option<i32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactTests {
    pub inputs: Option<String>,
    pub table: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CtestSection {
    #[serde(default)]
    pub cmake_args: Vec<String>,
    #[serde(default)]
    pub build_args: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MesonSection {
    /// Extra arguments for `meson setup` (`-Doption=value`).
    #[serde(default)]
    pub setup_args: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MakeCheckSection {
    /// Extra arguments for every `make` faultlens runs (`-f other.mk`, `V=1`).
    #[serde(default)]
    pub args: Vec<String>,
}

/// The developer's own test runs faultlens notices (see `devruns`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WatchSection {
    /// Globs (relative to the project) of JUnit XML reports the project's
    /// runner writes; CTest, Meson and Automake reports are found without.
    #[serde(default)]
    pub reports: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunnerSection {
    pub list: String,
    pub run: String,
}

impl Config {
    /// Parses the text of a `faultlens.toml`; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        let config: Config = toml::from_str(text).map_err(|e| WorkspaceError::Config {
            path: path.to_path_buf(),
            message: describe_toml_error(text, &e),
        })?;
        config.check(text, path)?;
        Ok(config)
    }

    /// Semantic checks serde cannot express, reported with the offending line.
    fn check(&self, text: &str, path: &Path) -> Result<()> {
        let fail = |needle: &str, message: String| WorkspaceError::Config {
            path: path.to_path_buf(),
            message: match line_of(text, needle) {
                Some(line) => format!("line {line}: {message}"),
                None => message,
            },
        };
        if self.build.sources.is_some() && self.build.command.is_some() {
            return Err(fail(
                "command",
                "[build] has both `sources` and `command`; keep one: `sources` compiles the files for you, `command` runs your own build".into(),
            ));
        }
        if let Some(sources) = &self.build.sources {
            if sources.is_empty() {
                return Err(fail(
                    "sources",
                    "[build] sources is empty; list the C files to compile".into(),
                ));
            }
        }
        self.check_paths(&fail)?;
        for (section, timeout) in [("[run]", self.run.timeout), ("[build]", self.build.timeout)] {
            if let Some(t) = timeout {
                if !(t > 0.0 && t <= MAX_TIMEOUT_SECONDS) {
                    return Err(fail(
                        "timeout",
                        format!("{section} timeout must be a number of seconds more than 0 and at most {MAX_TIMEOUT_SECONDS} (a week), not {t}"),
                    ));
                }
            }
        }
        if let Some(limit) = self.run.output_limit {
            if !(1..=MAX_OUTPUT_LIMIT).contains(&limit) {
                return Err(fail(
                    "output_limit",
                    format!("[run] output_limit is the number of bytes of each test's stdout and stderr kept: at least 1 and at most {MAX_OUTPUT_LIMIT} (256 MiB), not {limit}; leave it out for 1 MiB"),
                ));
            }
        }
        if let Some(runner) = &self.runner {
            check_placeholder(&runner.run)
                .map_err(|why| fail("run =", format!("[runner] run = {:?}: {why}", runner.run)))?;
        }
        if self.run.jobs == Some(0) {
            return Err(fail(
                "jobs",
                "[run] jobs must be at least 1 (leave it out to use every core)".into(),
            ));
        }
        let split_globs: &[String] = match &self.run.split_cases {
            Some(SplitCases::Matching(globs)) => globs,
            _ => &[],
        };
        let globs = self
            .project
            .test_code
            .iter()
            .flatten()
            .chain(&self.project.exclude)
            .map(|g| ("[project]", g))
            .chain(split_globs.iter().map(|g| ("[run] split_cases", g)))
            .chain(self.watch.reports.iter().map(|g| ("[watch] reports", g)));
        for g in &self.watch.reports {
            if let Err(e) = faultlens_confine::lexical(g) {
                return Err(fail(
                    &format!("\"{g}\""),
                    format!("[watch] reports {g:?} must name files inside the project: {e}"),
                ));
            }
        }
        for (section, g) in globs {
            if let Err(e) = glob::Pattern::new(g) {
                return Err(fail(
                    &format!("\"{g}\""),
                    format!("{section} {g:?} is not a valid glob: {e}"),
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for t in &self.tests {
            let key = format!("\"{}\"", t.name);
            if t.name.trim().is_empty() {
                return Err(fail("name", "a [[test]] has an empty name".into()));
            }
            if t.name.chars().any(char::is_control) {
                return Err(fail(
                    "name",
                    format!(
                        "test name {:?} holds a control character (a line break, a tab); names are shown one per line",
                        t.name
                    ),
                ));
            }
            if !seen.insert(t.name.as_str()) {
                let second =
                    nth_line_of(text, &key, 2).map_or(String::new(), |l| format!("line {l}: "));
                return Err(WorkspaceError::Config {
                    path: path.to_path_buf(),
                    message: format!(
                        "{second}a second test is named {:?}; test names must be unique",
                        t.name
                    ),
                });
            }
            if t.stdin.is_some() && t.stdin_file.is_some() {
                return Err(fail(
                    &key,
                    format!(
                        "test {:?} has both `stdin` and `stdin_file`; keep one",
                        t.name
                    ),
                ));
            }
            if let Some(code) = t.expected_exit.filter(|c| !(0..=255).contains(c)) {
                return Err(fail(
                    &key,
                    format!(
                        "test {:?}: expected_exit = {code} is not an exit status; a process exits with 0 to 255 (a test killed by a signal always fails)",
                        t.name
                    ),
                ));
            }
            if t.expected_stdout.is_some() && t.expected_stdout_file.is_some() {
                return Err(fail(
                    &key,
                    format!(
                        "test {:?} has both `expected_stdout` and `expected_stdout_file`; keep one",
                        t.name
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl Config {
    /// Every path the file names must stay inside the project: faultlens
    /// reads these files and writes its build beside some of them, so
    /// `program = "../../mid.c"` would link over the user's source.
    fn check_paths(&self, fail: &dyn Fn(&str, String) -> WorkspaceError) -> Result<()> {
        let mut named: Vec<(String, &str)> = Vec::new();
        for source in self.build.sources.iter().flatten() {
            named.push(("[build] sources".into(), source));
        }
        if let Some(program) = &self.build.program {
            named.push(("[build] program".into(), program));
        }
        if let Some(compact) = &self.compact {
            if let Some(inputs) = &compact.inputs {
                named.push(("[tests] inputs".into(), inputs));
            }
            if let Some(table) = &compact.table {
                named.push(("[tests] table".into(), table));
            }
        }
        for t in &self.tests {
            for (key, value) in [
                ("stdin_file", &t.stdin_file),
                ("expected_stdout_file", &t.expected_stdout_file),
            ] {
                if let Some(value) = value {
                    named.push((format!("test {:?}: {key}", t.name), value));
                }
            }
        }
        for (key, value) in named {
            if let Err(e) = faultlens_confine::lexical(value) {
                return Err(fail(
                    &format!("{value:?}"),
                    format!(
                        "{key} = {value:?}: {e}. Paths in faultlens.toml are relative to the project root and stay inside it{}",
                        suggestion(value)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// `{name}` must stand alone in `[runner] run`: faultlens replaces it with
/// the shell-quoted test name, so quoting it again (`'{name}'`, `"{name}"`)
/// would unquote the name and run it as shell (a test listed as
/// `$(touch x)`).
fn check_placeholder(run: &str) -> std::result::Result<(), String> {
    if !run.contains("{name}") {
        return Err("it must contain {name}, where the test's name goes".into());
    }
    let mut quote: Option<char> = None;
    let mut chars = run.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            (None, '\\') | (Some('"'), '\\') => {
                chars.next();
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (Some(q), '{') if run[i..].starts_with("{name}") => {
                return Err(format!(
                    "{{name}} is inside {q}...{q} quotes; faultlens already shell-quotes the test's name there, and quoting it again would let a test name run as shell. Write {{name}} without quotes"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `, such as "mid.c"` for a path whose last part could be meant.
fn suggestion(value: &str) -> String {
    match Path::new(value).file_name().and_then(|n| n.to_str()) {
        Some(name) if faultlens_confine::lexical(name).is_ok() => format!(", such as {name:?}"),
        _ => String::new(),
    }
}

/// The 1-based line of the first occurrence of `needle`, for messages.
pub fn line_of(text: &str, needle: &str) -> Option<u32> {
    nth_line_of(text, needle, 1)
}

/// The 1-based line of the `n`-th line containing `needle`.
pub fn nth_line_of(text: &str, needle: &str, n: usize) -> Option<u32> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(n.checked_sub(1)?)
        .map(|(i, _)| i as u32 + 1)
}

/// toml's messages already name the line and column; keep the first line of
/// them (the location and the problem) and the caret excerpt.
fn describe_toml_error(text: &str, error: &toml::de::Error) -> String {
    // serde names Rust types; say what a person would write instead.
    let message = error
        .message()
        .replace("expected f64", "expected a number")
        .replace("expected usize", "expected a whole number (0 or more)")
        .replace("expected i32", "expected an integer")
        .replace(
            "expected a sequence",
            "expected a list, like [\"a\", \"b\"]",
        )
        .replace("expected a boolean", "expected true or false");
    match error.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            let snippet = text.lines().nth(line - 1).unwrap_or("").trim();
            format!("line {line}: {message}\n    {line} | {snippet}")
        }
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(text, Path::new("faultlens.toml"))
    }

    #[test]
    fn split_cases_takes_a_switch_or_valid_globs() {
        let c = parse("[run]\nsplit_cases = [\"unit_*\"]\n").unwrap();
        assert!(SplitCases::splits(c.run.split_cases.as_ref(), "unit_a"));
        assert!(!SplitCases::splits(c.run.split_cases.as_ref(), "other"));
        let off = parse("[run]\nsplit_cases = false\n").unwrap();
        assert!(!SplitCases::splits(off.run.split_cases.as_ref(), "unit_a"));
        assert!(SplitCases::splits(None, "anything"));
        let bad = parse("[run]\nsplit_cases = [\"[unclosed\"]\n").unwrap_err();
        assert!(
            bad.to_string()
                .contains("line 2: [run] split_cases \"[unclosed\" is not a valid glob"),
            "{bad}"
        );
        let wrong = parse("[run]\nsplit_cases = 3\n").unwrap_err();
        assert!(
            wrong
                .to_string()
                .contains("split_cases takes true, false, or a list"),
            "{wrong}"
        );
    }

    #[test]
    fn the_documented_io_shape_parses() {
        let c = parse(
            r#"
[build]
sources = ["prog.c"]
program = "prog"

[[test]]
name = "t1"
args = ["3", "1", "2"]
stdin = "x"
expected_stdout = "2\n"
expected_exit = 0
"#,
        )
        .unwrap();
        assert_eq!(c.tests.len(), 1);
        assert_eq!(c.tests[0].args, vec!["3", "1", "2"]);
        assert_eq!(c.tests[0].expected_stdout.as_deref(), Some("2\n"));
        assert_eq!(
            c.build.sources.as_deref(),
            Some(&["prog.c".to_string()][..])
        );
    }

    #[test]
    fn an_unknown_key_names_the_key_and_line() {
        let err = parse("[build]\nsources = [\"a.c\"]\nprogramm = \"p\"\n").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("line 3"), "{text}");
        assert!(text.contains("programm"), "{text}");
    }

    #[test]
    fn watched_reports_stay_in_the_project() {
        let ok = parse("[watch]\nreports = [\"build/*.xml\"]\n").unwrap();
        assert_eq!(ok.watch.reports, ["build/*.xml"]);
        let err = parse("[watch]\nreports = [\"../elsewhere.xml\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 2") && err.contains("inside the project"),
            "{err}"
        );
    }

    #[test]
    fn a_wrong_type_names_the_line() {
        let err = parse("[run]\ntimeout = \"ten\"\n").unwrap_err().to_string();
        assert!(
            err.contains("line 2") && err.contains("expected a number"),
            "{err}"
        );
    }

    #[test]
    fn duplicate_test_names_are_rejected_with_their_line() {
        let err = parse("[[test]]\nname = \"a\"\n[[test]]\nname = \"a\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unique") && err.contains("line 4"), "{err}");
    }

    #[test]
    fn an_absurd_timeout_is_a_config_error_not_a_panic() {
        for t in ["1e300", "0", "-1", "nan"] {
            let err = parse(&format!("[run]\ntimeout = {t}\n"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("line 2") && err.contains("[run] timeout"),
                "{t}: {err}"
            );
        }
    }

    #[test]
    fn paths_that_leave_the_project_are_rejected_with_key_line_and_advice() {
        for (text, key, line) in [
            (
                "[build]\nsources = [\"a.c\"]\nprogram = \"../../mid.c\"\n",
                "[build] program",
                3,
            ),
            ("[build]\nprogram = \"/tmp/prog\"\n", "[build] program", 2),
            (
                "[build]\nsources = [\"a.c\", \"../other/b.c\"]\n",
                "[build] sources",
                2,
            ),
            ("[tests]\ntable = \"/etc/passwd\"\n", "[tests] table", 2),
            ("[tests]\ninputs = \"../t/*.in\"\n", "[tests] inputs", 2),
            (
                "[[test]]\nname = \"t\"\nstdin_file = \"../../secret\"\n",
                "test \"t\": stdin_file",
                3,
            ),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(
                err.contains(&format!("line {line}:"))
                    && err.contains(key)
                    && err.contains("inside"),
                "{text}: {err}"
            );
        }
        let err = parse("[build]\nsources = [\"a.c\"]\nprogram = \"../../mid.c\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("such as \"mid.c\""), "{err}");
        assert!(parse("[build]\nsources = [\"src/../a.c\"]\nprogram = \"bin/prog\"\n").is_ok());
    }

    #[test]
    fn nonsensical_limits_and_exit_statuses_are_rejected() {
        for (text, needle) in [
            ("[run]\noutput_limit = 0\n", "[run] output_limit"),
            (
                "[run]\noutput_limit = 1099511627776\n",
                "[run] output_limit",
            ),
            ("[build]\ntimeout = 0\n", "[build] timeout"),
            (
                "[[test]]\nname = \"t\"\nexpected_exit = -1\n",
                "expected_exit = -1",
            ),
            (
                "[[test]]\nname = \"t\"\nexpected_exit = 256\n",
                "expected_exit = 256",
            ),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(
                err.contains(needle) && err.contains("line "),
                "{text}: {err}"
            );
        }
        assert!(parse("[run]\noutput_limit = 1\n[build]\ntimeout = 60\n").is_ok());
    }

    #[test]
    fn a_quoted_name_placeholder_is_rejected_at_load_time() {
        for run in [
            "./run.sh '{name}'",
            "./run.sh \\\"{name}\\\"",
            "sh -c 'x {name}'",
        ] {
            let text = format!("[runner]\nlist = \"./run.sh --list\"\nrun = \"{run}\"\n");
            let err = parse(&text).unwrap_err().to_string();
            assert!(
                err.contains("line 3") && err.contains("quotes"),
                "{run}: {err}"
            );
        }
        for run in [
            "./run.sh {name}",
            "./run.sh --case={name} 'a b'",
            "echo \\\"x\\\" {name}",
        ] {
            let text = format!("[runner]\nlist = \"l\"\nrun = \"{run}\"\n");
            assert!(parse(&text).is_ok(), "{run}");
        }
    }

    #[test]
    fn sources_and_command_together_are_rejected() {
        let err = parse("[build]\nsources = [\"a.c\"]\ncommand = \"make\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 3") && err.contains("keep one"), "{err}");
    }
}
