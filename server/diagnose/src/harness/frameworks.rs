//! The unit-test frameworks the C model runs cases of: each one's model
//! (a header read in place of the framework's, and a runner with its
//! assertions in C), how its test code is recognized, and how a case is
//! selected.

/// A framework whose cases the model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framework {
    Cmocka,
    Check,
    Criterion,
    Unity,
}

/// How a run selects one case.
pub enum Selection {
    /// An environment variable holds the case's name.
    Variable(&'static str),
    /// A command-line option precedes the case's name, and an environment
    /// variable holds it too: the two ways one framework's runs select it.
    OptionAndVariable(&'static str, &'static str),
}

impl Framework {
    pub const ALL: [Framework; 4] = [
        Framework::Cmocka,
        Framework::Check,
        Framework::Criterion,
        Framework::Unity,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Framework::Cmocka => "CMocka",
            Framework::Check => "Check",
            Framework::Criterion => "Criterion",
            Framework::Unity => "Unity",
        }
    }

    /// The header a test file includes, as it writes it.
    pub fn header(self) -> &'static str {
        match self {
            Framework::Cmocka => "cmocka.h",
            Framework::Check => "check.h",
            Framework::Criterion => "criterion/criterion.h",
            Framework::Unity => "unity.h",
        }
    }

    /// The name of the model's files (`NAME.h`, `NAME.c`) in `.faultlens/harness/`.
    pub fn model_name(self) -> &'static str {
        match self {
            Framework::Cmocka => "cmocka",
            Framework::Check => "check",
            Framework::Criterion => "criterion",
            Framework::Unity => "unity",
        }
    }

    /// How one case is selected, as the native run selects it (faultlens's
    /// CMocka runtime, Check's own `CK_RUN_CASE`, Unity's `-n` for a runner
    /// with its options and faultlens's runtime otherwise, a case name
    /// either way; the model's Criterion runner takes the name `--filter`
    /// takes).
    pub fn selection(self) -> Selection {
        match self {
            Framework::Cmocka => Selection::Variable("FAULTLENS_CMOCKA_TEST"),
            Framework::Check => Selection::Variable("CK_RUN_CASE"),
            Framework::Criterion => Selection::Variable("FAULTLENS_CRITERION_TEST"),
            Framework::Unity => Selection::OptionAndVariable("-n", "FAULTLENS_UNITY_TEST"),
        }
    }

    /// Sources of the framework itself a project may build into its tests
    /// (Unity is vendored): the model takes their place.
    pub fn own_sources(self) -> &'static [&'static str] {
        match self {
            Framework::Unity => &["unity.c"],
            _ => &[],
        }
    }

    /// `(header, runner)`: the model's C text.
    pub fn model(self) -> (&'static str, &'static str) {
        match self {
            Framework::Cmocka => (
                include_str!("models/cmocka.h"),
                include_str!("models/cmocka.c"),
            ),
            Framework::Check => (
                include_str!("models/check.h"),
                include_str!("models/check.c"),
            ),
            Framework::Criterion => (
                include_str!("models/criterion.h"),
                include_str!("models/criterion.c"),
            ),
            Framework::Unity => (
                include_str!("models/unity.h"),
                include_str!("models/unity.c"),
            ),
        }
    }

    /// The framework an executable is built with (as the localization
    /// detects it to split its cases).
    pub fn built_into(executable: &[u8]) -> Option<Framework> {
        use faultlens_workspace::frameworks::{built_with, Framework as Detected};
        Some(match built_with(executable)? {
            Detected::Cmocka => Framework::Cmocka,
            Detected::Check => Framework::Check,
            Detected::Criterion => Framework::Criterion,
            Detected::Unity | Detected::UnityWithoutOptions => Framework::Unity,
        })
    }

    /// Whether C `text` includes this framework's header.
    pub fn included_by(self, text: &str) -> bool {
        crate::c_text::includes(text, self.header())
    }
}

/// The `main` a Criterion executable's model runs (Criterion's own comes
/// from its library): it calls the test `cases` names (`suite/test`, as
/// `--filter` names them) that the environment selects, with the options
/// of its suite when `suites` (those with a `TestSuite`) has it. Names
/// that are not C identifiers are left out (Criterion's are).
pub fn criterion_main(cases: &[String], suites: &[String]) -> String {
    let ident = |s: &str| {
        !s.is_empty()
            && !s.starts_with(|c: char| c.is_ascii_digit())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let mut decls = Vec::new();
    let mut calls = Vec::new();
    for suite in suites.iter().filter(|s| ident(s)) {
        decls.push(format!(
            "extern const struct faultlens_criterion_options faultlens_criterion_suite_{suite};"
        ));
    }
    for case in cases {
        let Some((suite, test)) = case.split_once('/') else {
            continue;
        };
        if !ident(suite) || !ident(test) {
            continue;
        }
        let id = format!("{suite}__{test}");
        decls.push(format!("void faultlens_criterion_test_{id}(void);"));
        decls.push(format!(
            "extern const struct faultlens_criterion_options faultlens_criterion_case_{id};"
        ));
        let suite_options = if suites.iter().any(|s| s == suite) {
            format!("&faultlens_criterion_suite_{suite}")
        } else {
            "NULL".into()
        };
        calls.push(format!("    if (strcmp(only, \"{suite}/{test}\") == 0)"));
        calls.push(format!(
            "        return faultlens_criterion_run({suite_options}, &faultlens_criterion_case_{id}, faultlens_criterion_test_{id});"
        ));
    }
    let mut lines = vec![
        String::new(),
        "/* The tests of this executable, written by faultlens. */".into(),
    ];
    lines.extend(decls);
    lines.extend([
        String::new(),
        "int main(void)".into(),
        "{".into(),
        "    const char *only = getenv(\"FAULTLENS_CRITERION_TEST\");".into(),
        "    if (only == NULL)".into(),
        "        return 0;".into(),
    ]);
    lines.extend(calls);
    lines.extend([
        "    fprintf(stderr, \"no test named %s\\n\", only);".into(),
        "    return 2;".into(),
        "}".into(),
        String::new(),
    ]);
    lines.join("\n")
}

/// Unity's optional fixture functions (weak in Unity's own sources) that
/// none of `texts` defines, as empty C definitions.
pub fn unity_fixtures(texts: &[String]) -> String {
    ["setUp", "tearDown"]
        .iter()
        .filter(|f| !texts.iter().any(|t| crate::c_text::defines_function(t, f)))
        .map(|f| format!("\nvoid {f}(void)\n{{\n}}\n"))
        .collect()
}

/// The first test of Check test case `tcase` its log names as failed
/// (`FILE:LINE:F:tcase:test:0: ...`, `E` for an error).
pub fn check_failing_test(output: &str, tcase: &str) -> Option<String> {
    output.lines().find_map(|line| {
        let parts: Vec<&str> = line.splitn(6, ':').collect();
        match parts.as_slice() {
            [_, num, "F" | "E", case, test, ..]
                if num.parse::<u32>().is_ok() && *case == tcase && !test.is_empty() =>
            {
                Some(test.to_string())
            }
            _ => None,
        }
    })
}

/// The Criterion tests of `text` (`suite/name`) that expect an exit status
/// or a signal (`.exit_code = N`, `.signal = S`), which the model's
/// expectation (exit status 0) does not express.
pub fn criterion_expecting_exit(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("Test(") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "Test(".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let args = rest.split(')').next().unwrap_or("");
        let mut parts = args.split(',').map(str::trim);
        let (Some(suite), Some(name)) = (parts.next(), parts.next()) else {
            continue;
        };
        if parts.any(|o| o.starts_with(".exit_code") || o.starts_with(".signal")) {
            out.push(format!("{suite}/{name}"));
        }
    }
    out
}

/// The suites `text` declares with `TestSuite(name, ...)`.
pub fn criterion_suites(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("TestSuite(") {
        rest = &rest[at + "TestSuite(".len()..];
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_includes_the_framework_by_its_header() {
        assert!(Framework::Cmocka.included_by("#include <stdarg.h>\n#  include <cmocka.h>\n"));
        assert!(Framework::Check.included_by("#include \"check.h\"\n"));
        assert!(Framework::Criterion.included_by("#include <criterion/criterion.h>\n"));
        assert!(!Framework::Check.included_by("#include <mycheck.h>\n// check.h\n"));
        assert!(
            Framework::Check.included_by("#include <check.h> // 测试\n#include <stdio.h> // ü\n")
        );
        assert!(!Framework::Check.included_by("#include <check.h\n#include \"ü"));
    }

    #[test]
    fn unitys_fixture_functions_are_added_only_where_the_tests_lack_them() {
        let with = "void setUp(void)\n{\n    x = 0;\n}\nvoid test_a(void) { tearDown_helper(); }\n"
            .to_string();
        assert_eq!(unity_fixtures(&[with]), "\nvoid tearDown(void)\n{\n}\n");
    }

    #[test]
    fn checks_log_names_the_failed_test_of_a_case() {
        let log = "Running suite(s): S\n50%: Checks: 2\n\
            /p/t.c:20:P:Errors:a:0: Passed\n/p/t.c:65:F:Errors:names_the_first_bad_line:0: Assertion 'bad == 3' failed\n";
        assert_eq!(
            check_failing_test(log, "Errors").as_deref(),
            Some("names_the_first_bad_line")
        );
        assert_eq!(check_failing_test(log, "Other"), None);
        let tests = criterion_expecting_exit(
            "Test(io, exits, .exit_code = 2) {}\nTest(io, plain) {}\nTest(sig, dies, .init = s, .signal = SIGSEGV) {}\nTestSuite(x);",
        );
        assert_eq!(tests, ["io/exits", "sig/dies"]);
    }

    #[test]
    fn the_criterion_runner_calls_each_test_with_its_suite_options() {
        let suites = criterion_suites("TestSuite(append, .init = setup);\nTestSuite( trim);\n");
        assert_eq!(suites, ["append", "trim"]);
        let main = criterion_main(
            &[
                "append/grows".into(),
                "other/one".into(),
                "bad name/x".into(),
            ],
            &suites,
        );
        assert!(main.contains(
            "extern const struct faultlens_criterion_options faultlens_criterion_suite_append;"
        ));
        assert!(main.contains("    if (strcmp(only, \"append/grows\") == 0)\n        return faultlens_criterion_run(&faultlens_criterion_suite_append, &faultlens_criterion_case_append__grows, faultlens_criterion_test_append__grows);"));
        assert!(main.contains("faultlens_criterion_run(NULL, &faultlens_criterion_case_other__one"));
        assert!(!main.contains("bad name"));
        assert!(main.contains("fprintf(stderr, \"no test named %s\\n\", only);"));
    }
}
