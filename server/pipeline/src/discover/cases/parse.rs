//! Reading what a unit-test executable printed: the cases a listing
//! names, whether a listing that is a whole run reached its end, and how
//! many cases a run reported.

use super::Case;
use regex::Regex;
use std::sync::LazyLock;

/// Check's summary (`NN%: Checks: N, Failures: F, Errors: E`) counts as
/// many tests as its log named.
pub(super) fn check_ran_all(output: &str) -> std::result::Result<(), String> {
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
pub(super) fn cmocka_ran_all(output: &str) -> std::result::Result<(), String> {
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
pub(super) fn unity_names_overlap(cases: &[Case]) -> Option<String> {
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
pub(super) fn unity_results(output: &str) -> usize {
    static RESULT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^[^:\n]+:\d+:[^:\n]+:(PASS|FAIL|IGNORE)").expect("a valid pattern")
    });
    RESULT.find_iter(output).count()
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
pub(super) fn criterion_cases(listing: &str) -> Vec<Case> {
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
pub(super) fn check_cases(output: &str) -> Vec<Case> {
    static RESULT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^[^:\n]+:\d+:[PFE]:([^:\n]+):[^:\n]+:\d+: ").expect("a valid pattern")
    });
    distinct(RESULT.captures_iter(output).map(|m| m[1].to_string()))
}

/// A Unity runner's `-l`: the test file's name and a dot, then each test
/// indented by two spaces.
pub(super) fn unity_cases(listing: &str) -> Vec<Case> {
    distinct(
        listing
            .lines()
            .filter_map(|line| line.strip_prefix("  "))
            .map(|name| name.trim().to_string()),
    )
}

/// CMocka's standard output: `[ RUN      ] name` as each test starts.
pub(super) fn cmocka_cases(output: &str) -> Vec<Case> {
    distinct(
        output
            .lines()
            .filter_map(|line| line.strip_prefix("[ RUN      ] "))
            .map(|name| name.trim().to_string()),
    )
}

/// The line faultlens's runtime prints for each Unity case it is asked to
/// list (`FAULTLENS_UNITY_LIST`; see `build::runtime`).
pub(super) const UNITY_CASE_MARK: &str = "faultlens-unity-case ";

/// The cases a run of a Unity executable named through faultlens's
/// runtime, each on a line of its own after [`UNITY_CASE_MARK`].
pub(super) fn unity_wrapped_cases(output: &str) -> Vec<Case> {
    distinct(
        output
            .lines()
            .filter_map(|line| line.strip_prefix(UNITY_CASE_MARK))
            .map(|name| name.trim().to_string()),
    )
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
    fn the_runtime_names_each_unity_case_on_a_marked_line() {
        let output = "faultlens-unity-case print_zero\nunrelated\nfaultlens-unity-case print_large\n\
            faultlens-unity-case print_zero\n\n-----------------------\n0 Tests 0 Failures 0 Ignored\nOK\n";
        let filters: Vec<String> = unity_wrapped_cases(output)
            .into_iter()
            .map(|c| c.filter)
            .collect();
        assert_eq!(filters, ["print_zero", "print_large"]);
        assert!(unity_wrapped_cases("3 Tests 0 Failures\n").is_empty());
    }
}
