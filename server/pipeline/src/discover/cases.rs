//! One test per unit-test case. Spectrum-based localization lives on the
//! number of distinct tests, and C projects keep most of theirs as cases
//! inside unit-test executables: a CTest or runner test that runs such an
//! executable is replaced by one test per case, each run alone in its own
//! process through the framework's own filter. Each case so gets exactly
//! its own verdict, output and coverage, and a case that crashes or hangs
//! fails alone.
//!
//! Supported: Criterion (`--list`, `--filter suite/test`), Check (its
//! test cases, `TCase`s, listed from the log of one run, `CK_LOG_FILE_NAME`,
//! and selected with `CK_RUN_CASE`; Check cannot select a single test
//! function, so the tests of one `TCase` share a row) and CMocka (listed
//! from one run's `[ RUN      ]` lines, selected through faultlens's
//! runtime, which calls `cmocka_set_test_filter`; checked once per
//! executable, since a build without the runtime would run every case), and
//! Unity-style runners built with their command-line options (`-l`, `-n`). A test that cannot be split keeps its one row, and a
//! note says why.

use super::Note;
use crate::command::Steps;
use crate::error::{PipelineError, Result};
use crate::process::{self, Job};
use crate::testspec::{Invocation, TestSpec};
use regex::Regex;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

/// How much of an executable is searched for a framework's marks (a test
/// executable with its coverage counters is a few MiB at most).
const EXECUTABLE_READ_LIMIT: u64 = 64 << 20;

pub use faultlens_workspace::frameworks::Framework;

/// The framework `executable` is built with (see
/// [`faultlens_workspace::frameworks::built_with`]).
pub fn detect(executable: &Path) -> Option<Framework> {
    let mut bytes = Vec::new();
    std::fs::File::open(executable)
        .ok()?
        .take(EXECUTABLE_READ_LIMIT)
        .read_to_end(&mut bytes)
        .ok()?;
    faultlens_workspace::frameworks::built_with(&bytes)
}

/// Replaces every test that runs a unit-test executable by its cases;
/// only the tests `chosen` keeps are split (`[run] split_cases`), and
/// `notes` gets a line for each one that stays whole, and why. Listing
/// runs write their coverage counters under `scratch` (in `.faultlens/`),
/// never beside the objects of an executable built elsewhere.
pub fn expand(
    specs: Vec<TestSpec>,
    chosen: impl Fn(&str) -> bool,
    steps: &Steps,
    scratch: &Path,
    notes: &mut Vec<Note>,
) -> Result<Vec<TestSpec>> {
    let mut frameworks: HashMap<PathBuf, Option<Framework>> = HashMap::new();
    let mut framework_of = |path: &Path| {
        *frameworks
            .entry(path.to_path_buf())
            .or_insert_with(|| detect(path))
    };
    let mut out = Vec::with_capacity(specs.len());
    for mut spec in specs {
        if !chosen(&spec.name) {
            out.push(spec);
            continue;
        }
        if let Some(argv) = plain_words(&spec.invocation) {
            // `[runner] run = "./{name}"`: the shell would only run a program.
            if executable_of_argv(&argv, &spec.cwd).is_some_and(|e| framework_of(&e).is_some()) {
                spec.invocation = Invocation::Argv(argv);
            }
        }
        let Some(framework) = executable_of(&spec).and_then(|e| framework_of(&e)) else {
            out.push(spec);
            continue;
        };
        let cases = match why_not_split(&spec, framework) {
            Some(why) => Err(why),
            None => list_cases(&spec, framework, steps, scratch)?.and_then(|cases| {
                if cases.is_empty() {
                    Err("listing its cases found none".to_string())
                } else {
                    Ok(cases)
                }
            }),
        };
        match cases {
            Ok(cases) => out.extend(cases.iter().map(|case| case_spec(&spec, framework, case))),
            Err(why) => {
                notes.push(Note::NotSplit {
                    test: spec.name.clone(),
                    framework: framework.name(),
                    why,
                });
                out.push(spec);
            }
        }
    }
    Ok(out)
}

/// The executable a test runs directly (`None` for a shell command line).
fn executable_of(spec: &TestSpec) -> Option<PathBuf> {
    let Invocation::Argv(argv) = &spec.invocation else {
        return None;
    };
    executable_of_argv(argv, &spec.cwd)
}

fn executable_of_argv(argv: &[String], cwd: &Path) -> Option<PathBuf> {
    let first = Path::new(argv.first()?);
    let path = if first.is_absolute() {
        first.to_path_buf()
    } else if first.components().count() > 1 {
        cwd.join(first)
    } else {
        return None;
    };
    path.is_file().then_some(path)
}

/// The words of a shell command line that only runs a program (no
/// expansion, redirection, pipe or list), so running them directly does
/// the same.
fn plain_words(invocation: &Invocation) -> Option<Vec<String>> {
    let Invocation::Shell(line) = invocation else {
        return None;
    };
    const SPECIAL: &[char] = &[
        '|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']', '{', '}', '~', '#', '=',
        '!', '\n',
    ];
    // Checked on the unquoted words: a quoted `*` is refused too, which
    // only keeps such a test whole.
    let words = shell_words::split(line).ok()?;
    let plain = !words.is_empty() && words.iter().all(|w| !w.contains(SPECIAL));
    plain.then_some(words)
}

/// Why a test of `framework` keeps its one row: its command or properties
/// already choose what it runs, or judge the whole executable's output.
fn why_not_split(spec: &TestSpec, framework: Framework) -> Option<String> {
    let Invocation::Argv(argv) = &spec.invocation else {
        return Some("it runs through a shell".into());
    };
    if argv.len() > 1 {
        return Some(format!(
            "its command passes arguments ({}), which may already choose the cases",
            shell_words::join(&argv[1..])
        ));
    }
    let e = &spec.expect;
    if e.will_fail || !e.pass_regex.is_empty() || !e.fail_regex.is_empty() {
        return Some(
            "it is expected to fail (WILL_FAIL, should_fail, XFAIL_TESTS) or a regular expression judges the whole executable's output"
                .into(),
        );
    }
    if framework == Framework::Check
        && spec
            .env
            .iter()
            .any(|(k, _)| k.starts_with("CK_RUN_") || k.ends_with("_TAGS"))
    {
        return Some("its environment already chooses the cases (CK_RUN_*, CK_*_TAGS)".into());
    }
    None
}

/// A case, as the framework's filter names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Criterion: `suite/test`; Check: the test case (`TCase`) name.
    pub filter: String,
}

/// The executable's cases: `Ok(Err(why))` when they cannot be listed, or
/// when one of them cannot be run alone.
fn list_cases(
    spec: &TestSpec,
    framework: Framework,
    steps: &Steps,
    scratch: &Path,
) -> Result<std::result::Result<Vec<Case>, String>> {
    let Invocation::Argv(argv) = &spec.invocation else {
        return Ok(Err("it runs through a shell".into()));
    };
    let mut env = spec.env.clone();
    env.push(("GCOV_PREFIX".into(), scratch.to_string_lossy().into_owned()));
    let run = |args: &[&str], extra: &[(&str, &str)]| {
        let mut command = Command::new(&argv[0]);
        command.args(args);
        let mut env = env.clone();
        env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        listing_run(command, spec, &env, steps)
    };
    let listed = match framework {
        Framework::Criterion => run(&["--list"], &[])?,
        Framework::Unity => run(&["-l"], &[])?,
        // Check has no listing: one run names every test case in its log
        // ("-": standard output), whatever the program's print mode.
        Framework::Check => run(&[], &[("CK_LOG_FILE_NAME", "-")])?,
        // Nor has CMocka: one run in its standard output format names them.
        Framework::Cmocka => run(&[], &[("CMOCKA_MESSAGE_OUTPUT", "stdout")])?,
        Framework::UnityWithoutOptions => {
            return Ok(Err("its Unity runner was built without command-line options, so one case cannot run alone (define UNITY_USE_COMMAND_LINE_ARGS and generate the runner with cmdline_args)".into()));
        }
    };
    let listed = match listed {
        Ok(listed) => listed,
        Err(why) => return Ok(Err(why)),
    };
    let cases = match framework {
        Framework::Criterion | Framework::Unity if !listed.success => {
            let option = if framework == Framework::Unity {
                "-l"
            } else {
                "--list"
            };
            return Ok(Err(format!(
                "listing its cases with `{} {option}` failed: {}",
                argv[0],
                last_line(&listed.output)
            )));
        }
        Framework::Criterion => criterion_cases(&listed.output),
        Framework::Unity => unity_cases(&listed.output),
        Framework::Check => check_cases(&listed.output),
        Framework::Cmocka => cmocka_cases(&listed.output),
        Framework::UnityWithoutOptions => Vec::new(),
    };
    // A listing that is a whole run must have reached its end: cases after
    // a crash would be lost without a word.
    let whole_run = match framework {
        Framework::Check => check_ran_all(&listed.output),
        Framework::Cmocka => cmocka_ran_all(&listed.output),
        _ => Ok(()),
    };
    if let Err(why) = whole_run {
        return Ok(Err(format!("the run that lists its cases {why}")));
    }
    if framework == Framework::Unity {
        if let Some(why) = unity_names_overlap(&cases) {
            return Ok(Err(why));
        }
    }
    // Choosing one case must run exactly that case: checked on the first.
    let chosen = match (framework, cases.first()) {
        (Framework::Cmocka, Some(first)) => Some((
            run(&[], &[("CMOCKA_MESSAGE_OUTPUT", "stdout"), ("FAULTLENS_CMOCKA_TEST", &first.filter)])?,
            first,
            "the executable was not linked with faultlens's runtime (which calls cmocka_set_test_filter), or its CMocka is older than 1.1",
        )),
        (Framework::Unity, Some(first)) => Some((
            run(&["-n", &first.filter], &[])?,
            first,
            "its runner does not select tests by name with -n as Unity does",
        )),
        _ => None,
    };
    if let Some((one, first, why)) = chosen {
        let ran = match one {
            Ok(one) if framework == Framework::Cmocka => cmocka_cases(&one.output).len(),
            Ok(one) => unity_results(&one.output),
            Err(_) => 0,
        };
        if ran != 1 {
            return Ok(Err(format!(
                "choosing the one case {:?} ran {ran} cases: {why}",
                first.filter
            )));
        }
    }
    Ok(Ok(cases))
}

/// Check's summary (`NN%: Checks: N, Failures: F, Errors: E`) counts as
/// many tests as its log named.
fn check_ran_all(output: &str) -> std::result::Result<(), String> {
    static SUMMARY: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)^\d+%: Checks: (\d+),").expect("a valid pattern"));
    static RESULT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^[^:\n]+:\d+:[PFE]:[^:\n]+:[^:\n]+:\d+: ").expect("a valid pattern")
    });
    let Some(total) = SUMMARY
        .captures(output)
        .and_then(|m| m[1].parse::<usize>().ok())
    else {
        return Err("ended before Check printed its summary".into());
    };
    // The log repeats the failures after the summary: count the lines
    // before it.
    let before = SUMMARY
        .find(output)
        .map_or(output, |m| &output[..m.start()]);
    let logged = RESULT.find_iter(before).count();
    if logged < total {
        return Err(format!("logged {logged} of the {total} tests Check ran"));
    }
    Ok(())
}

/// CMocka's closing line (`[==========] N test(s) run.`) after as many
/// starts as it announced.
fn cmocka_ran_all(output: &str) -> std::result::Result<(), String> {
    static RUNNING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^\[==========\] Running (\d+) test\(s\)\.").expect("a valid pattern")
    });
    static RAN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^\[==========\] (\d+) test\(s\) run\.").expect("a valid pattern")
    });
    let sum = |re: &Regex| -> usize {
        re.captures_iter(output)
            .filter_map(|m| m[1].parse::<usize>().ok())
            .sum()
    };
    if !RAN.is_match(output) {
        return Err(
            "ended before CMocka printed its closing line (a case that aborts the process takes the rest with it)"
                .into(),
        );
    }
    let (announced, ran) = (sum(&RUNNING), sum(&RAN));
    let started = output
        .lines()
        .filter(|l| l.starts_with("[ RUN      ] "))
        .count();
    if ran < announced || started < announced {
        return Err(format!(
            "ended after {started} of the {announced} tests CMocka announced (a case that aborts the process takes the rest with it)"
        ));
    }
    Ok(())
}

/// Unity's `-n` runs every test whose name contains the given one.
fn unity_names_overlap(cases: &[Case]) -> Option<String> {
    cases.iter().find_map(|a| {
        cases
            .iter()
            .find(|b| a != *b && b.filter.contains(&a.filter))
            .map(|b| {
                format!(
                    "Unity's -n {:?} would also run {:?} (it selects by part of a name)",
                    a.filter, b.filter
                )
            })
    })
}

/// How many tests a Unity run reported (`FILE:LINE:TEST:PASS|FAIL|IGNORE`).
fn unity_results(output: &str) -> usize {
    static RESULT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^[^:\n]+:\d+:[^:\n]+:(PASS|FAIL|IGNORE)").expect("a valid pattern")
    });
    RESULT.find_iter(output).count()
}

/// What a listing printed, and whether it exited 0.
struct Listed {
    output: String,
    success: bool,
}

/// Output kept of a listing, per stream.
const LISTING_OUTPUT_LIMIT: usize = 8 << 20;

/// Runs a listing (for Check and CMocka, the whole executable once) under
/// the test's own timeout: a case that hangs makes the listing time out
/// as the test itself would, and the test then stays whole.
fn listing_run(
    mut command: Command,
    spec: &TestSpec,
    env: &[(String, String)],
    steps: &Steps,
) -> Result<std::result::Result<Listed, String>> {
    command.current_dir(&spec.cwd).env("LC_ALL", "C");
    for (k, v) in env {
        command.env(k, v);
    }
    let ended = process::run(Job {
        command,
        stdin: Vec::new(),
        output_limit: LISTING_OUTPUT_LIMIT,
        timeout: spec.timeout,
        cancel: steps.cancel,
        scope: steps.scope,
    });
    if ended.cancelled {
        return Err(PipelineError::Cancelled);
    }
    if let Some(why) = ended.spawn_error {
        return Ok(Err(format!("listing its cases could not start it: {why}")));
    }
    if ended.timed_out {
        return Ok(Err(format!(
            "listing its cases did not end within the test's timeout of {:.1} s",
            spec.timeout.as_secs_f64()
        )));
    }
    let mut output = String::from_utf8_lossy(&ended.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&ended.stderr));
    Ok(Ok(Listed {
        output,
        success: ended.exit_code == Some(0),
    }))
}

fn last_line(text: &str) -> &str {
    text.trim_end().lines().last().unwrap_or("(no output)")
}

/// Cases named by `names`, each once, in the order first named (two rows
/// of one name would make the results file invalid).
fn distinct(names: impl Iterator<Item = String>) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for filter in names {
        if !filter.is_empty() && !cases.iter().any(|c| c.filter == filter) {
            cases.push(Case { filter });
        }
    }
    cases
}

/// Criterion's `--list`: `suite: N tests` lines, then the tests drawn as a
/// tree (`├── name`, `└── name`; `|-- name`, `` `-- name`` in the C locale).
pub fn criterion_cases(listing: &str) -> Vec<Case> {
    static SUITE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^(\S+): \d+ tests?$").expect("a valid pattern"));
    let mut suite = None;
    distinct(listing.lines().filter_map(|line| {
        if let Some(m) = SUITE.captures(line) {
            suite = Some(m[1].to_string());
            return None;
        }
        let name = ["├── ", "└── ", "|-- ", "`-- "]
            .iter()
            .find_map(|branch| line.strip_prefix(branch))?;
        Some(format!("{}/{}", suite.as_ref()?, name.trim()))
    }))
}

/// Check's log, one line per test:
/// `file:line:P|F|E:tcase:test:iteration: message`; each test case once,
/// in the order it ran.
pub fn check_cases(output: &str) -> Vec<Case> {
    static RESULT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^[^:\n]+:\d+:[PFE]:([^:\n]+):[^:\n]+:\d+: ").expect("a valid pattern")
    });
    distinct(RESULT.captures_iter(output).map(|m| m[1].to_string()))
}

/// A Unity runner's `-l`: the test file's name and a dot, then each test
/// indented by two spaces.
pub fn unity_cases(listing: &str) -> Vec<Case> {
    distinct(
        listing
            .lines()
            .filter_map(|line| line.strip_prefix("  "))
            .map(|name| name.trim().to_string()),
    )
}

/// CMocka's standard output: `[ RUN      ] name` as each test starts.
pub fn cmocka_cases(output: &str) -> Vec<Case> {
    distinct(
        output
            .lines()
            .filter_map(|line| line.strip_prefix("[ RUN      ] "))
            .map(|name| name.trim().to_string()),
    )
}

/// The test that runs one case of `spec`'s executable.
fn case_spec(spec: &TestSpec, framework: Framework, case: &Case) -> TestSpec {
    let mut one = spec.clone();
    one.name = format!("{}::{}", spec.name, case.filter);
    match framework {
        Framework::Criterion => {
            if let Invocation::Argv(argv) = &mut one.invocation {
                argv.extend(["--filter".into(), case.filter.clone()]);
            }
        }
        Framework::Check => {
            one.env.push(("CK_RUN_CASE".into(), case.filter.clone()));
        }
        Framework::Cmocka => {
            one.env
                .push(("FAULTLENS_CMOCKA_TEST".into(), case.filter.clone()));
        }
        Framework::Unity | Framework::UnityWithoutOptions => {
            if let Invocation::Argv(argv) = &mut one.invocation {
                argv.extend(["-n".into(), case.filter.clone()]);
            }
        }
    }
    one
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criterion_listing_names_suite_and_test() {
        let listing = "math: 2 tests\n├── adds\n└── fails\nother: 1 test\n`-- crashes\n";
        let filters: Vec<String> = criterion_cases(listing)
            .into_iter()
            .map(|c| c.filter)
            .collect();
        assert_eq!(filters, ["math/adds", "math/fails", "other/crashes"]);
    }

    #[test]
    fn check_report_names_each_test_case_once_in_order() {
        let output = "Running suite(s): Money\n\
            50%: Checks: 4, Failures: 1, Errors: 0\n\
            t.c:10:P:Core:test_a:0: Passed\n\
            t.c:14:F:Core:test_b:0: Assertion 'x == 2' failed\n\
            t.c:20:P:Limits:test_c:0: Passed\n\
            t.c:25:E:Limits:test_d:0: (after this point) Received signal 11 (Segmentation fault)\n";
        let filters: Vec<String> = check_cases(output).into_iter().map(|c| c.filter).collect();
        assert_eq!(filters, ["Core", "Limits"]);
    }

    #[test]
    fn cmocka_output_names_each_test_as_it_starts() {
        let output = "[==========] Running 2 test(s).\n[ RUN      ] push_pop\n[       OK ] push_pop\n\
            [ RUN      ] overflow\n[  ERROR   ] --- 0x1 != 0x2\n[   LINE   ] --- t.c:20: error: Failure!\n\
            [  FAILED  ] overflow\n[==========] 2 test(s) run.\n";
        let filters: Vec<String> = cmocka_cases(output).into_iter().map(|c| c.filter).collect();
        assert_eq!(filters, ["push_pop", "overflow"]);
    }

    #[test]
    fn a_name_listed_twice_is_one_case() {
        let filters: Vec<String> = unity_cases("t.\n  test_a\n  test_b\n  test_a\n")
            .into_iter()
            .map(|c| c.filter)
            .collect();
        assert_eq!(filters, ["test_a", "test_b"]);
    }

    #[test]
    fn a_whole_run_that_ended_early_is_not_a_listing() {
        let cmocka =
            "[==========] Running 3 test(s).\n[ RUN      ] a\n[       OK ] a\n[ RUN      ] b\n";
        assert!(cmocka_ran_all(cmocka).is_err());
        let whole = format!(
            "{cmocka}[       OK ] b\n[ RUN      ] c\n[       OK ] c\n[==========] 3 test(s) run.\n"
        );
        assert_eq!(cmocka_ran_all(&whole), Ok(()));
        assert!(check_ran_all("Running suite(s): S\nt.c:1:P:Core:a:0: Passed\n").is_err());
        let check = "Running suite(s): S\nt.c:1:P:Core:a:0: Passed\nt.c:2:F:Core:b:0: no\n\
            50%: Checks: 2, Failures: 1, Errors: 0\nt.c:2:F:Core:b:0: no\n";
        assert_eq!(check_ran_all(check), Ok(()));
        let short = check.replace("Checks: 2", "Checks: 3");
        assert!(check_ran_all(&short)
            .unwrap_err()
            .contains("logged 2 of the 3"));
    }

    #[test]
    fn unity_listing_is_indented_under_the_file_name() {
        let filters: Vec<String> = unity_cases("test_bits.\n  test_set\n  test_clear\n")
            .into_iter()
            .map(|c| c.filter)
            .collect();
        assert_eq!(filters, ["test_set", "test_clear"]);
    }

    #[test]
    fn only_a_command_line_that_just_runs_a_program_is_run_directly() {
        let words = |line: &str| plain_words(&Invocation::Shell(line.into()));
        assert_eq!(words("./b/t 'two words'").unwrap(), ["./b/t", "two words"]);
        for line in [
            "./t | tee log",
            "./t > out",
            "X=1 ./t",
            "./t *",
            "./t $HOME",
            "a; b",
            "",
        ] {
            assert_eq!(words(line), None, "{line}");
        }
        assert_eq!(plain_words(&Invocation::Argv(vec!["t".into()])), None);
    }

    #[test]
    fn a_text_file_is_no_unit_test_executable() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("fake");
        std::fs::write(&fake, "libcriterion.so srunner_run_all").unwrap();
        assert_eq!(detect(&fake), None);
    }
}
