//! Bad input gets a clear message and a non-zero exit, never a panic.

mod common;
use common::*;

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn localize_fails(dir: &std::path::Path) -> String {
    let out = faultlens(&["localize", dir.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "expected failure, got {:?}: {err}",
        out.status
    );
    assert!(!err.contains("panicked"), "{err}");
    err
}

const OK_C: &str = "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n";

#[test]
fn a_malformed_config_names_the_key_and_line() {
    let dir = project(&[
        ("p.c", OK_C),
        (
            "faultlens.toml",
            "[build]\nsources = [\"p.c\"]\n\n[[test]]\nname = \"t\"\nexpected_stdot = \"hi\\n\"\n",
        ),
    ]);
    let err = localize_fails(dir.path());
    assert!(
        err.contains("faultlens.toml") && err.contains("line 6") && err.contains("expected_stdot"),
        "{err}"
    );
}

#[test]
fn broken_toml_syntax_names_the_line() {
    let dir = project(&[
        ("p.c", OK_C),
        ("faultlens.toml", "[build]\nsources = [\"p.c\"\n"),
    ]);
    let err = localize_fails(dir.path());
    assert!(
        err.contains("faultlens.toml") && err.contains("line 3") && err.contains("expected `]`"),
        "{err}"
    );
}

#[test]
fn a_build_error_shows_the_compilers_message_and_location() {
    let dir = project(&[
        ("p.c", "int main(void) {\n  return 0\n}\n"),
        (
            "faultlens.toml",
            "[build]\nsources = [\"p.c\"]\n[[test]]\nname = \"t\"\n",
        ),
    ]);
    let err = localize_fails(dir.path());
    assert!(err.contains("the build failed"), "{err}");
    assert!(
        err.contains("p.c:2:"),
        "the compiler's location is shown: {err}"
    );
    assert!(err.contains("expected ';'"), "{err}");
}

#[test]
fn a_missing_compiler_is_named_with_the_fix() {
    let dir = project(&[
        ("p.c", OK_C),
        ("faultlens.toml", "[build]\nsources = [\"p.c\"]\ncc = \"gcc-that-does-not-exist\"\n[[test]]\nname = \"t\"\n"),
    ]);
    let err = localize_fails(dir.path());
    assert!(
        err.contains("gcc-that-does-not-exist")
            && err.contains("[build] cc = \"gcc-that-does-not-exist\""),
        "{err}"
    );
}

#[test]
fn a_missing_source_file_is_named() {
    let dir = project(&[(
        "faultlens.toml",
        "[build]\nsources = [\"nope.c\"]\n[[test]]\nname = \"t\"\n",
    )]);
    let err = localize_fails(dir.path());
    assert!(
        err.contains("nope.c") && err.contains("does not exist"),
        "{err}"
    );
}

#[test]
fn no_failing_test_means_nothing_to_localize() {
    let dir = project(&[
        ("p.c", OK_C),
        (
            "faultlens.toml",
            "[build]\nsources = [\"p.c\"]\n[[test]]\nname = \"t\"\nexpected_stdout = \"hi\\n\"\n",
        ),
    ]);
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("All 1 tests passed: there is no failure to localize."),
        "{}",
        stderr(&out)
    );
    assert!(
        dir.path().join(".faultlens/results.json").is_file(),
        "results are still written"
    );
}

#[test]
fn no_tests_found_is_explained() {
    let dir = project(&[
        ("p.c", OK_C),
        (
            "faultlens.toml",
            "[build]\nsources = [\"p.c\"]\n[tests]\ninputs = \"tests/*.in\"\n",
        ),
    ]);
    let err = localize_fails(dir.path());
    assert!(
        err.contains("line 4") && err.contains("matches no files"),
        "{err}"
    );
    let dir = project(&[
        ("p.c", OK_C),
        (
            "faultlens.toml",
            "[project]\nkind = \"runner\"\n[runner]\nlist = \"true\"\nrun = \"echo {name}\"\n",
        ),
    ]);
    let err = localize_fails(dir.path());
    assert!(
        err.contains("no tests found") && err.contains("list command printed no test names"),
        "{err}"
    );
}

#[test]
fn wrong_command_line_values_are_usage_errors() {
    for args in [
        &["localize", ".", "--measure", "foo"][..],
        &["localize", ".", "--measure", "ochiai,tarantula"],
        &["localize", ".", "--jobs", "0"],
        &["localize", ".", "--timeout", "0"],
        &["eval", "--measures", "ochiai,nope"],
    ] {
        let out = faultlens(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_directory_faultlens_does_not_recognise_gets_an_example_config() {
    let dir = project(&[("README", "nothing here")]);
    let err = localize_fails(dir.path());
    assert!(
        err.contains("no faultlens.toml") && err.contains("[build]") && err.contains("sources"),
        "{err}"
    );
}

#[test]
fn an_unknown_measure_is_rejected_before_any_work() {
    let dir = fixture("mid-args");
    let out = faultlens(&[
        "localize",
        dir.path().to_str().unwrap(),
        "--measure",
        "ochia",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown measure \"ochia\""),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join(".faultlens").exists(), "nothing was built");
}

#[test]
fn rank_without_results_says_to_localize_first() {
    let dir = fixture("mid-args");
    let out = faultlens(&["rank", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("run `faultlens localize` first"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_corrupt_results_file_is_reported_not_a_panic() {
    let dir = fixture("mid-args");
    std::fs::create_dir_all(dir.path().join(".faultlens")).unwrap();
    std::fs::write(
        dir.path().join(".faultlens/results.json"),
        "{\"format_version\": 1, \"files\": 7}",
    )
    .unwrap();
    let out = faultlens(&["rank", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("results.json") && err.contains("not a faultlens results document"),
        "{err}"
    );
}

#[test]
fn a_wrong_generate_strategy_or_explorer_is_a_usage_error_before_any_work() {
    let dir = fixture("mid-args");
    for args in [["--strategy", "foo"], ["--explorer", "bar"]] {
        let mut all = vec!["generate", dir.path().to_str().unwrap()];
        all.extend_from_slice(&args);
        let out = faultlens(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(args[1]), "{}", stderr(&out));
    }
    assert!(!dir.path().join(".faultlens").exists(), "nothing was built");
}

#[test]
fn help_states_the_exit_codes() {
    for (args, codes) in [
        (&["--help"][..], &["0 ", "1 ", "2 ", "3 ", "4 ", "130 "][..]),
        (
            &["diagnose", "--help"][..],
            &["0 ", "1 ", "2 ", "3 ", "4 ", "130 "][..],
        ),
        (
            &["generate", "--help"][..],
            &["0 ", "1 ", "2 ", "4 ", "130 "][..],
        ),
    ] {
        let out = faultlens(args);
        assert!(out.status.success(), "{args:?}");
        let text = stdout(&out);
        let section = text
            .split("Exit status:")
            .nth(1)
            .unwrap_or_else(|| panic!("{args:?} has no exit status section:\n{text}"));
        for code in codes {
            assert!(
                section.lines().any(|l| l.trim_start().starts_with(code)),
                "{args:?}: exit status {code} not stated:\n{section}"
            );
        }
    }
}

#[test]
fn a_zero_time_limit_says_the_range_it_must_lie_in() {
    let out = faultlens(&["diagnose", ".", "--time-limit", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("more than 0 and at most 604800"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_config_that_is_not_utf8_names_the_position() {
    let dir = project(&[("p.c", OK_C)]);
    std::fs::write(
        dir.path().join("faultlens.toml"),
        b"[build]\nsources = [\"p.c\"] # caf\xe9\n",
    )
    .unwrap();
    let err = localize_fails(dir.path());
    assert!(
        err.contains("faultlens.toml")
            && err.contains("line 2, column 24")
            && err.contains("UTF-8"),
        "{err}"
    );
}

#[test]
fn a_test_name_with_a_line_break_is_refused() {
    let dir = project(&[
        ("p.c", OK_C),
        (
            "faultlens.toml",
            "[build]\nsources = [\"p.c\"]\n[[test]]\nname = \"two\\nlines\"\n",
        ),
    ]);
    let err = localize_fails(dir.path());
    assert!(
        err.contains("line 4") && err.contains("control character"),
        "{err}"
    );
}

#[test]
fn a_generated_tests_file_that_is_broken_says_to_delete_it_not_to_regenerate() {
    let dir = project(&[
        ("p.c", OK_C),
        (
            "faultlens.toml",
            "[build]\nsources = [\"p.c\"]\n[[test]]\nname = \"t\"\nexpected_stdout = \"hi\\n\"\n",
        ),
        (".faultlens/generated-tests.toml", "[[test]]\nname = 3\n"),
    ]);
    let err = localize_fails(dir.path());
    assert!(
        err.contains("generated-tests.toml") && err.contains("delete the file"),
        "{err}"
    );
    assert!(!err.contains("run `faultlens generate`"), "{err}");
}

#[test]
fn a_detected_project_skips_a_source_that_is_a_device() {
    let dir = project(&[("p.c", OK_C), ("tests/hi.in", ""), ("tests/hi.out", "hi\n")]);
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.c")).unwrap();
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    // Every test passes: nothing to localize, but the run ends.
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
}
