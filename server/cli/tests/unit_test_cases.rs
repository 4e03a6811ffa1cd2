//! One spectrum row per unit-test case (Criterion, Check) under CTest, end
//! to end: the real frameworks from Debian's packages, real builds, each
//! case run alone with its own coverage.

mod common;
use common::*;
use std::path::Path;

/// The best rank of `file:line` in a localization's JSON.
fn best_rank(doc: &serde_json::Value, file: &str, line: u64) -> u64 {
    entry(doc, file, line)["rank"]["best"].as_u64().unwrap()
}

fn names(doc: &serde_json::Value) -> Vec<String> {
    doc["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// `faultlens localize` on a project whose one unit-test executable must
/// stay one failing test: what it said on stderr (its notes).
fn kept_whole(dir: &Path) -> String {
    let out = faultlens(&["localize", dir.to_str().unwrap()]);
    assert!(
        stdout(&out).contains("1 of 1 tests failed"),
        "{}",
        stdout(&out)
    );
    stderr(&out)
}

/// The same project with one row per executable.
fn executable_rows(dir: &Path) -> serde_json::Value {
    std::fs::write(dir.join("faultlens.toml"), "[run]\nsplit_cases = false\n").unwrap();
    let doc = localize_json(dir, &["--top", "0"]);
    std::fs::remove_file(dir.join("faultlens.toml")).unwrap();
    doc
}

#[test]
fn criterion_cases_are_rows_of_their_own_and_rank_the_fault_higher() {
    let dir = fixture("strbuf-criterion");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 11, "{:?}", names(&doc));
    assert_eq!(doc["tests"]["failed"], 2);
    let failing: Vec<&serde_json::Value> = failing_tests(&doc);
    let failing_names = names_of(&failing);
    assert_eq!(
        failing_names,
        ["strbuf::trim/both_sides", "strbuf::trim/leading_only"]
    );
    // The reason is the failed assertion and its message, not the summary,
    // and the case is where that assertion is.
    assert_eq!(
        failing[0]["location"],
        serde_json::json!({"file": "tests/test_strbuf.c", "line": 98})
    );
    let reason = failing[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("test_strbuf.c:") && reason.contains("trimmed to 5 characters"),
        "{reason}"
    );
    let by_case = best_rank(&doc, "src/strbuf.c", 95);
    let fault = entry(&doc, "src/strbuf.c", 95);
    assert_eq!(
        (fault["ef"].as_u64(), fault["ep"].as_u64()),
        (Some(2), Some(3))
    );
    // One row per executable: every line the one failing run covers ties.
    let whole = executable_rows(dir.path());
    assert_eq!(whole["tests"]["total"], 1);
    let by_executable = entry(&whole, "src/strbuf.c", 95)["rank"]["worst"]
        .as_u64()
        .unwrap();
    let by_case_worst = fault["rank"]["worst"].as_u64().unwrap();
    assert!(
        by_case_worst < by_executable / 4,
        "case rows rank the fault {by_case}..{by_case_worst}, executable rows ..{by_executable}"
    );
}

#[test]
fn check_test_cases_are_rows_of_their_own() {
    let dir = fixture("stack-check");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(names(&doc), ["stack::Core", "stack::Peek", "stack::Max"]);
    let max = &doc["tests"]["list"][2];
    assert_eq!(max["verdict"], "fail");
    assert_eq!(
        max["location"],
        serde_json::json!({"file": "tests/check_stack.c", "line": 67})
    );
    // A passing case stays where CTest declared its executable.
    assert_eq!(
        doc["tests"]["list"][0]["location"]["file"],
        "CMakeLists.txt"
    );
    let reason = max["reason"].as_str().unwrap();
    assert!(
        reason.contains("check_stack.c:") && reason.contains("Assertion 'v == 5' failed"),
        "{reason}"
    );
    let fault = entry(&doc, "src/stack.c", 38);
    assert_eq!(fault["rank"]["best"], 1);
    let whole = executable_rows(dir.path());
    assert!(
        fault["rank"]["worst"].as_u64()
            < entry(&whole, "src/stack.c", 38)["rank"]["worst"].as_u64()
    );
}

#[test]
fn a_check_case_whose_every_test_fails_keeps_its_coverage() {
    // Check ends a failing test's forked child with _exit, which skips the
    // exit handler that writes the counters; faultlens's runtime writes
    // them first, so the library lines the failing tests ran are theirs.
    let dir = fixture("settings-check");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    let percent = entry(&doc, "src/settings.c", 177);
    assert_eq!(percent["ef"], 1, "{percent}");
    let results = results(dir.path());
    let library = results["files"]
        .as_array()
        .unwrap()
        .iter()
        .position(|f| f["path"] == "src/settings.c")
        .unwrap();
    for row in ["settings::Errors", "settings::Percent"] {
        let test = test_record(&results, row);
        assert_eq!(test["verdict"], "fail");
        let covered = test["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["file"] == library)
            .map(|c| {
                c["counts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|n| n.as_u64() > Some(0))
                    .count()
            })
            .unwrap_or(0);
        assert!(covered > 20, "{row} ran {covered} library lines");
    }
}

#[test]
fn cmocka_cases_are_chosen_through_the_runtime() {
    let dir = fixture("histogram-cmocka");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 7, "{:?}", names(&doc));
    let failing: Vec<String> = doc["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "fail")
        .map(|t| format!("{} {}", t["name"], t["reason"]))
        .collect();
    assert_eq!(failing.len(), 2, "{failing:?}");
    assert!(
        failing[0].contains("histogram::the_largest_value_is_in_the_last_bucket")
            && failing[0].contains("test_histogram.c:"),
        "{failing:?}"
    );
    // Each case ran alone: a passing case that never adds a value does not
    // run `hist_add` (line 30).
    let results = results(dir.path());
    let record = test_record(&results, "histogram::init_rejects_bad_ranges");
    assert!(
        !record["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["lines"].as_array().unwrap().iter().any(|l| *l == 30)),
        "{record}"
    );
    let fault = entry(&doc, "src/histogram.c", 24);
    assert!(fault["rank"]["worst"].as_u64().unwrap() <= 7, "{fault}");
}

#[test]
fn a_unity_style_runner_runs_each_test_alone() {
    let dir = fixture("bitset-unity");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 12, "{:?}", names(&doc));
    let failing: Vec<&serde_json::Value> = failing_tests(&doc);
    assert_eq!(failing.len(), 4);
    // The fault makes one case divide by zero and one loop for ever: each
    // fails alone, with the coverage it gathered.
    assert_eq!(
        (failing[2]["name"].as_str(), failing[2]["outcome"].as_str()),
        (Some("bitset::test_mean_of_high_bits"), Some("crashed"))
    );
    assert_eq!(
        (failing[3]["name"].as_str(), failing[3]["outcome"].as_str()),
        (Some("bitset::test_fill_everything"), Some("timed_out"))
    );
    assert_eq!(failing[0]["name"], "bitset::test_count_every_word");
    let reason = failing[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("tests/test_bitset.c:48:test_count_every_word:FAIL: Expected 4 Was 3"),
        "{reason}"
    );
    let fault = entry(&doc, "src/bitset.c", 41);
    assert_eq!(
        fault["ef"], 4,
        "the crashed and the stopped case kept their coverage"
    );
    assert_eq!(fault["rank"]["best"], 1);
    assert!(fault["rank"]["worst"].as_u64().unwrap() <= 5, "{fault}");
}

#[test]
fn a_unity_name_inside_another_is_chosen_exactly_through_the_runtime() {
    let dir = fixture("bitset-unity");
    let test = dir.path().join("tests/test_bitset.c");
    let text = std::fs::read_to_string(&test).unwrap();
    // `-n test_count` would also run test_count_every_word; the runtime
    // chooses by the whole name.
    std::fs::write(&test, text.replace("test_count_low_bits", "test_count")).unwrap();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    let all = names(&doc);
    assert_eq!(all.len(), 12, "{all:?}");
    assert!(all.contains(&"bitset::test_count".to_string()), "{all:?}");
    assert!(doc.get("notes").is_none(), "{doc}");
}

#[test]
fn a_unity_runner_without_its_options_is_split_through_faultlens_s_runtime() {
    // RUN_TEST calls UnityDefaultTestRun, which the coverage build links
    // wrapped: the runtime lists the cases and runs the one it is given.
    let dir = fixture("bitset-unity");
    let cmake = dir.path().join("CMakeLists.txt");
    let text = std::fs::read_to_string(&cmake).unwrap();
    std::fs::write(
        &cmake,
        text.replace(
            "target_compile_definitions(test_bitset PRIVATE UNITY_USE_COMMAND_LINE_ARGS)",
            "",
        ),
    )
    .unwrap();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 12, "{:?}", names(&doc));
    assert_eq!(doc["tests"]["failed"], 4, "{:?}", names(&doc));
    assert!(doc.get("notes").is_none(), "{doc}");
}

#[test]
fn hand_written_unity_mains_run_one_case_per_process() {
    // units-unity: three test programs, each with its own main calling
    // RUN_TEST six times and no command-line options.
    let dir = fixture("units-unity");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    let all = names(&doc);
    assert_eq!(all.len(), 18, "{all:?}");
    assert!(all.contains(&"parse_duration::test_parse_rejects_empty_text".to_string()));
    let failing: Vec<&serde_json::Value> = failing_tests(&doc);
    let failing_names = names_of(&failing);
    assert_eq!(
        failing_names,
        [
            "format_duration::test_format_every_unit",
            "format_duration::test_format_whole_hours"
        ]
    );
    // Each case's own failed assertion, never a later case's PASS line.
    let reason = failing[1]["reason"].as_str().unwrap();
    assert!(
        reason.contains("test_format_whole_hours:FAIL: Expected '2h' Was '2h120m'")
            && !reason.contains("PASS"),
        "{reason}"
    );
    assert_eq!(failing[1]["location"]["line"], 42, "{}", failing[1]);
    assert!(failing[1]["location"]["file"]
        .as_str()
        .unwrap()
        .ends_with("tests/test_format_duration.c"));
    let fault = entry(&doc, "src/units.c", 64);
    assert_eq!(
        (fault["ef"].as_u64(), fault["ep"].as_u64()),
        (Some(2), Some(4))
    );
}

#[test]
fn unity_compiled_into_each_test_keeps_them_whole_with_one_note() {
    // Unity included into each test's own source: the calls of
    // UnityDefaultTestRun do not leave the object, so the wrap cannot reach
    // them. The three tests stay whole, and one note names them all.
    let dir = fixture("units-unity");
    for name in ["bytes", "parse_duration", "format_duration"] {
        let test = dir.path().join(format!("tests/test_{name}.c"));
        let text = std::fs::read_to_string(&test).unwrap();
        std::fs::write(&test, format!("#include \"unity.c\"\n{text}")).unwrap();
    }
    let cmake = dir.path().join("CMakeLists.txt");
    let text = std::fs::read_to_string(&cmake).unwrap();
    let own = text.replace(
        "PRIVATE units unity)",
        "PRIVATE units)\n  target_include_directories(test_${name} PRIVATE tests/unity)",
    );
    assert_ne!(own, text);
    std::fs::write(&cmake, own).unwrap();
    let out = faultlens(&["localize", dir.path().to_str().unwrap(), "--format", "json"]);
    let said = stderr(&out);
    assert_eq!(said.matches("note:").count(), 1, "{said}");
    assert!(
        said.contains("3 tests run Unity cases but stay one test each (bytes, parse_duration, format_duration): its Unity cases do not pass through UnityDefaultTestRun"),
        "{said}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["tests"]["total"], 3);
    assert_eq!(doc["notes"].as_array().unwrap().len(), 1, "{doc}");
    assert_eq!(
        doc["notes"][0]["tests"],
        serde_json::json!(["bytes", "parse_duration", "format_duration"])
    );
    // A whole executable's reason is its failed case's line.
    let failing = doc["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["verdict"] == "fail")
        .unwrap();
    let reason = failing["reason"].as_str().unwrap();
    assert!(
        reason.contains("test_format_every_unit:FAIL")
            && reason.contains("test_format_whole_hours:FAIL")
            && !reason.contains("PASS"),
        "{reason}"
    );
}

#[test]
fn a_case_that_crashes_or_hangs_fails_alone_and_the_others_keep_their_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.13)\nproject(cases C)\nenable_testing()\n\
         add_library(lib STATIC lib.c)\n\
         add_executable(t t.c)\ntarget_link_libraries(t PRIVATE lib criterion)\n\
         add_test(NAME t COMMAND t)\n",
    )
    .unwrap();
    std::fs::write(
        root.join("lib.c"),
        "int twice(int x)\n{\n    return 2 * x;\n}\n\nint thrice(int x)\n{\n    return 3 * x;\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("t.c"),
        "#include <criterion/criterion.h>\n#include <signal.h>\n\
         int twice(int x);\nint thrice(int x);\n\
         Test(s, doubles) { cr_assert_eq(twice(2), 4); }\n\
         Test(s, crashes) { twice(1); raise(SIGSEGV); }\n\
         Test(s, hangs) { thrice(1); for (;;) {} }\n\
         Test(s, triples) { cr_assert_eq(thrice(2), 6); }\n",
    )
    .unwrap();
    std::fs::write(root.join("faultlens.toml"), "[run]\ntimeout = 2\n").unwrap();
    localize_json(root, &["--top", "0"]);
    let results = results(root);
    let outcome = |name: &str| test_record(&results, name)["outcome"].clone();
    assert_eq!(outcome("t::s/doubles"), "passed");
    assert_eq!(outcome("t::s/triples"), "passed");
    // Criterion reports its crashed worker and exits 1.
    assert_eq!(outcome("t::s/crashes"), "failed");
    assert!(test_record(&results, "t::s/crashes")["reason"]
        .as_str()
        .unwrap()
        .contains("signal"));
    assert_eq!(outcome("t::s/hangs"), "timed_out");
    // Each case covers its own function only: `twice` (line 3) is run by
    // `doubles` and `crashes`, `thrice` (line 8) by `triples` and `hangs`.
    let lib = results["files"]
        .as_array()
        .unwrap()
        .iter()
        .position(|f| f["path"] == "lib.c")
        .expect("lib.c is instrumented");
    let runs_line = |name: &str, line: u64| {
        test_record(&results, name)["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| {
                c["file"] == lib as u64 && c["lines"].as_array().unwrap().iter().any(|l| *l == line)
            })
    };
    assert!(runs_line("t::s/doubles", 3) && !runs_line("t::s/doubles", 8));
    assert!(runs_line("t::s/triples", 8) && !runs_line("t::s/triples", 3));
    assert!(runs_line("t::s/crashes", 3));
}

#[test]
fn the_tests_command_lists_the_cases() {
    let dir = fixture("stack-check");
    let out = faultlens(&["tests", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("3 tests (ctest suite"), "{text}");
    assert!(text.contains("stack::Max"), "{text}");
}

#[test]
fn a_test_that_chooses_its_cases_stays_one_row_and_says_why() {
    let dir = fixture("stack-check");
    let cmake = dir.path().join("CMakeLists.txt");
    let text = std::fs::read_to_string(&cmake).unwrap();
    std::fs::write(
        &cmake,
        text.replace(
            "add_test(NAME stack COMMAND check_stack)",
            "add_test(NAME stack COMMAND check_stack)\n\
             set_tests_properties(stack PROPERTIES ENVIRONMENT CK_RUN_CASE=Core)",
        ),
    )
    .unwrap();
    // Every test passes, so there is nothing to rank (a non-zero exit).
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    let said = stderr(&out);
    assert!(
        said.contains("\"stack\" runs Check cases but stays one test") && said.contains("CK_RUN_"),
        "{said}"
    );
    let all = format!("{}{said}", stdout(&out));
    assert!(all.contains("All 1 tests passed"), "{all}");
}

#[test]
fn a_tap_producer_stays_one_row_that_names_its_failed_cases() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.13)\nproject(tap C)\nenable_testing()\n\
         add_executable(t t.c)\nadd_test(NAME t COMMAND t)\n",
    )
    .unwrap();
    std::fs::write(
        root.join("t.c"),
        "#include <stdio.h>\nstatic int half(int x) { return x / 2; }\n\
         int main(void) {\n  int bad = 0;\n  puts(\"1..3\");\n\
           printf(\"%sok 1 - halves four\\n\", half(4) == 2 ? \"\" : (bad = 1, \"not \"));\n\
           printf(\"%sok 2 - halves odd up\\n\", half(5) == 3 ? \"\" : (bad = 1, \"not \"));\n\
           puts(\"ok 3 - skipped # SKIP no reason\");\n  return bad;\n}\n",
    )
    .unwrap();
    let results = {
        localize_json(root, &["--top", "0"]);
        results(root)
    };
    let t = test_record(&results, "t");
    assert_eq!(t["verdict"], "fail");
    let reason = t["reason"].as_str().unwrap();
    assert!(
        reason.ends_with("TAP: 1 of 2 cases failed: 2 halves odd up"),
        "{reason}"
    );
}

#[test]
fn a_runner_that_only_runs_a_unit_test_executable_is_split_too() {
    let dir = fixture("stack-check");
    std::fs::write(
        dir.path().join("faultlens.toml"),
        "[build]\ncommand = \"cmake -S . -B b >/dev/null && cmake --build b >/dev/null\"\n\n\
         [runner]\nlist = \"echo b/check_stack\"\nrun = \"./{name}\"\n",
    )
    .unwrap();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(
        names(&doc),
        [
            "b/check_stack::Core",
            "b/check_stack::Peek",
            "b/check_stack::Max"
        ]
    );
    assert_eq!(doc["tests"]["failed"], 1);
}

#[test]
fn split_cases_can_name_the_tests_to_split() {
    let dir = fixture("stack-check");
    let config = dir.path().join("faultlens.toml");
    std::fs::write(&config, "[run]\nsplit_cases = [\"st*\"]\n").unwrap();
    assert_eq!(localize_json(dir.path(), &[])["tests"]["total"], 3);
    std::fs::write(&config, "[run]\nsplit_cases = [\"other\"]\n").unwrap();
    assert_eq!(localize_json(dir.path(), &[])["tests"]["total"], 1);
}

/// A CTest project of one CMocka executable whose second case is `body`.
fn cmocka_project(body: &str, timeout: Option<u32>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.13)\nproject(c C)\nenable_testing()\n\
         add_executable(t t.c)\ntarget_link_libraries(t PRIVATE cmocka)\nadd_test(NAME t COMMAND t)\n",
    )
    .unwrap();
    std::fs::write(
        root.join("t.c"),
        format!(
            "#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n\
             #include <stdlib.h>\n#include <cmocka.h>\n\
             static void first(void **s) {{ (void)s; assert_int_equal(1, 1); }}\n\
             static void second(void **s) {{ (void)s; {body} }}\n\
             static void third(void **s) {{ (void)s; assert_int_equal(2, 2); }}\n\
             int main(void) {{ const struct CMUnitTest t[] = {{ cmocka_unit_test(first), \
             cmocka_unit_test(second), cmocka_unit_test(third) }}; \
             return cmocka_run_group_tests(t, NULL, NULL); }}\n"
        ),
    )
    .unwrap();
    if let Some(seconds) = timeout {
        std::fs::write(
            root.join("faultlens.toml"),
            format!("[run]\ntimeout = {seconds}\n"),
        )
        .unwrap();
    }
    dir
}

#[test]
fn a_cmocka_case_that_aborts_the_listing_keeps_the_executable_whole_and_says_so() {
    let dir = cmocka_project("abort();", None);
    let said = kept_whole(dir.path());
    assert!(
        said.contains(
            "\"t\" runs CMocka cases but stays one test: the run that lists its cases did not reach its end (ended"
        ) && said.contains("aborts the process"),
        "{said}"
    );
}

#[test]
fn a_cmocka_case_that_hangs_the_listing_keeps_the_executable_whole_and_says_so() {
    let dir = cmocka_project("for (;;) {}", Some(2));
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    let said = stderr(&out);
    assert!(
        said.contains("listing its cases did not end within the test's timeout of 2.0 s"),
        "{said}"
    );
}

#[test]
fn a_unity_style_runner_whose_n_does_not_choose_is_split_through_the_runtime() {
    let dir = fixture("bitset-unity");
    let runner = dir.path().join("tests/unity.c");
    let text = std::fs::read_to_string(&runner).unwrap();
    // A runner that parses -n but runs every test anyway: its cases still
    // pass through UnityDefaultTestRun, where the runtime chooses one.
    std::fs::write(
        &runner,
        text.replace("if (only && !strstr(name, only))", "if (0 && only)"),
    )
    .unwrap();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 12, "{:?}", names(&doc));
    assert_eq!(doc["tests"]["failed"], 4, "{:?}", names(&doc));
}
