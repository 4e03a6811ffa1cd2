//! `faultlens diagnose` on CTest, Meson and `make check` projects end to
//! end: real CMake, Meson and make coverage builds, real unit-test
//! frameworks (Check, Criterion
//! from Debian's packages; a project's own runner with Unity's names) and
//! plain test programs, each failing case run by the C model
//! with the framework's model in place of the framework. The diagnosis
//! names the library's faulty line with values verified by replay, never a
//! line of the test code.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

fn diagnose_json(root: &Path) -> Value {
    diagnose_json_within(root, "30")
}

fn diagnose_json_within(root: &Path, effort: &str) -> Value {
    let mut args = vec!["diagnose", root.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(&budget(effort));
    let out = faultlens(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON document")
}

/// Every diagnosis' statements, `(file, line)`, in order.
fn diagnosed(doc: &Value) -> Vec<Vec<(String, u64)>> {
    doc["diagnoses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            d["statements"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    (
                        s["file"].as_str().unwrap().to_string(),
                        s["line"].as_u64().unwrap(),
                    )
                })
                .collect()
        })
        .collect()
}

/// The diagnoses name the fault at `file:line`, with verified values for
/// it, and no statement of the tests.
fn assert_names_the_fault(doc: &Value, file: &str, line: u64) {
    let all = diagnosed(doc);
    assert!(
        all.iter().any(|d| d.contains(&(file.to_string(), line))),
        "{file}:{line} not among {all:?}"
    );
    for d in &all {
        for (f, l) in d {
            assert!(
                !f.starts_with("tests/") && !f.starts_with(".faultlens/"),
                "test code blamed: {f}:{l}"
            );
        }
    }
    let values: Vec<&Value> = doc["diagnoses"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["angelic"].as_array().unwrap())
        .filter(|a| a["file"] == file && a["line"] == line)
        .collect();
    assert!(
        !values.is_empty(),
        "no angelic value at {file}:{line}: {doc}"
    );
    assert!(values.iter().all(|a| a["verified"] == true), "{values:?}");
}

#[test]
fn a_check_test_case_is_diagnosed_in_the_library() {
    let dir = fixture("stack-check");
    let doc = diagnose_json(dir.path());
    assert_eq!(doc["failing_tests"], serde_json::json!(["stack::Max"]));
    assert_names_the_fault(&doc, "src/stack.c", 38);
}

#[test]
fn criterion_tests_are_diagnosed_with_their_suites_fixtures() {
    // The suite's .init allocates the buffer each test appends to.
    let dir = fixture("strbuf-criterion");
    let doc = diagnose_json(dir.path());
    let first = &diagnosed(&doc)[0];
    assert_eq!(first, &[("src/strbuf.c".to_string(), 95)], "{doc}");
    assert_names_the_fault(&doc, "src/strbuf.c", 95);
}

#[test]
fn unity_tests_run_alone_and_a_hanging_one_says_why_it_is_left_out() {
    // The project's runner has Unity's names; the model replaces it.
    let dir = fixture("bitset-unity");
    let doc = diagnose_json(dir.path());
    assert_names_the_fault(&doc, "src/bitset.c", 41);
    let skipped = doc["skipped_tests"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["name"] == "bitset::test_fill_everything"
                && s["reason"].as_str().unwrap().contains("does not end")),
        "{skipped:?}"
    );
}

#[test]
fn plain_ctest_programs_are_diagnosed_with_their_arguments() {
    // Three executables fail; the one most failing tests run is diagnosed,
    // and the others' tests say why they are not.
    let dir = fixture("ringbuf-ctest");
    let doc = diagnose_json(dir.path());
    assert_names_the_fault(&doc, "src/ringbuf.c", 80);
    let skipped = doc["skipped_tests"].as_array().unwrap();
    assert!(
        skipped.iter().any(|s| s["reason"]
            .as_str()
            .unwrap()
            .contains("one diagnosis models one executable")),
        "{skipped:?}"
    );
}

#[test]
fn two_faults_of_a_check_library_are_diagnosed_together() {
    // The line count starts at 0 (settings::Errors) and the percentage
    // divides by 10 (settings::Percent): each failing test's assertion is
    // forced to pass on its root path, so one diagnosis of both lines
    // comes from the first search, with a floating angelic value the
    // assertion's comparisons steer (0.125 for "12.5%").
    let dir = fixture("settings-check");
    let doc = diagnose_json(dir.path());
    assert_eq!(
        doc["failing_tests"],
        serde_json::json!(["settings::Errors", "settings::Percent"])
    );
    let first = &diagnosed(&doc)[0];
    let lines: Vec<u64> = first.iter().map(|(_, l)| *l).collect();
    assert_eq!(first.len(), 2, "{first:?}");
    assert!(
        first.iter().all(|(f, _)| f == "src/settings.c"),
        "{first:?}"
    );
    assert!([94, 103, 107].contains(&lines[0]), "{first:?}");
    assert_eq!(lines[1], 177, "{first:?}");
    assert_names_the_fault(&doc, "src/settings.c", 94);
    assert_names_the_fault(&doc, "src/settings.c", 177);
    let values: Vec<&str> = doc["diagnoses"][0]["angelic"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["text"].as_str().unwrap())
        .collect();
    assert!(values.contains(&"0.125"), "{values:?}");
}

#[test]
fn a_case_of_a_hand_written_unity_main_is_diagnosed_in_the_library() {
    // units-unity's test programs have their own main calling RUN_TEST;
    // each case ran alone through faultlens's runtime, and the model runs
    // it alone too (FAULTLENS_UNITY_TEST). Its format fault is fixed here
    // and an hour made 360 s instead.
    let dir = fixture("units-unity");
    let source = dir.path().join("src/units.c");
    let text = std::fs::read_to_string(&source).unwrap();
    let faulty = text
        .replacen(
            "long minutes = seconds / 60;",
            "long minutes = seconds % 3600 / 60;",
            1,
        )
        .replacen("total += value * 3600;", "total += value * 360;", 1);
    assert_ne!(faulty, text);
    std::fs::write(&source, faulty).unwrap();
    let doc = diagnose_json_within(dir.path(), "10");
    assert_eq!(
        doc["failing_tests"],
        serde_json::json!([
            "parse_duration::test_parse_hours_and_minutes",
            "parse_duration::test_parse_every_unit"
        ])
    );
    assert_names_the_fault(&doc, "src/units.c", 43);
}

#[test]
fn a_prefix_match_is_flipped_where_a_key_met_a_longer_one() {
    // kvconf's lookup matches "timeout" to "timeout_ms": the comparison,
    // 0 for the right key and the longer one alike, is flipped at the
    // lookups that met the longer key first (instance flips), in every
    // failing test; the fourth, judged by a regular expression, is left out.
    let dir = fixture("kvconf-ctest");
    let doc = diagnose_json(dir.path());
    assert_eq!(
        doc["failing_tests"],
        serde_json::json!([
            "kv.prefix_keys",
            "kv.missing_prefix",
            "kv.prefix_keys_strict"
        ])
    );
    assert_names_the_fault(&doc, "src/kvconf.c", 28);
}

#[test]
fn a_span_one_short_is_found_one_more_at_every_instance() {
    // histogram-cmocka's span leaves out one end of [min, max]: one more at
    // every instance (each value's bucket changes) mends both tests.
    let dir = fixture("histogram-cmocka");
    let doc = diagnose_json(dir.path());
    assert_names_the_fault(&doc, "src/histogram.c", 24);
}

#[test]
fn a_framework_feature_outside_the_model_is_named_with_what_the_model_covers() {
    // CMocka's mocks are not in its model: the refusal names the call and
    // says what of CMocka is modelled (exit status 4, the ranking stands).
    let dir = fixture("histogram-cmocka");
    let test = dir.path().join("tests/test_histogram.c");
    let text = std::fs::read_to_string(&test).unwrap();
    let mocked = text.replacen(
        "    assert_int_equal(h.counts[9], 1);",
        "    assert_int_equal(h.counts[9], 1);\n    will_return(hist_total, 3);",
        1,
    );
    assert_ne!(mocked, text);
    std::fs::write(&test, mocked).unwrap();
    let out = faultlens(
        &[
            &["diagnose", dir.path().to_str().unwrap()][..],
            &budget("30"),
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(4));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("call to `will_return`")
            && said.contains("test_histogram.c:")
            && said.contains("not its other features such as mocks"),
        "{said}"
    );
}

#[test]
fn meson_test_programs_are_diagnosed_from_meson_s_own_record_of_its_tests() {
    // wrap-meson's tests are `test()` calls of one program with an
    // argument each; Meson's intro-tests.json gives their command lines
    // and its compile_commands.json names sources relative to the build.
    let dir = fixture("wrap-meson");
    let doc = diagnose_json(dir.path());
    assert_eq!(
        doc["failing_tests"],
        serde_json::json!(["two-lines", "exact-fit"])
    );
    assert_names_the_fault(&doc, "src/wrap.c", 24);
}

#[test]
fn a_unit_test_case_of_a_meson_project_is_diagnosed_in_the_library() {
    // stack-check built by Meson instead of CMake: the failing Check case
    // is a row `stack::Max` as under CTest, and runs the same way.
    let dir = fixture("stack-check");
    std::fs::remove_file(dir.path().join("CMakeLists.txt")).unwrap();
    std::fs::write(
        dir.path().join("meson.build"),
        "project('stack', 'c', default_options: ['c_std=c11'])\n\
         inc = include_directories('include')\n\
         lib = static_library('stack', 'src/stack.c', include_directories: inc)\n\
         exe = executable('check_stack', 'tests/check_stack.c', include_directories: inc,\n\
         \x20 link_with: lib, dependencies: dependency('check'))\n\
         test('stack', exe)\n",
    )
    .unwrap();
    let doc = diagnose_json_within(dir.path(), "10");
    assert_eq!(doc["failing_tests"], serde_json::json!(["stack::Max"]));
    assert_names_the_fault(&doc, "src/stack.c", 38);
}

#[test]
fn a_make_check_program_is_diagnosed_from_faultlens_s_record_of_its_compilations() {
    // csv-make-check's Makefile writes no compilation database: the
    // sources and flags of each test program come from the compiler
    // invocations faultlens recorded through CC. test_fit's small buffer is
    // made larger than the size it passes, so the fault's extra byte lands
    // inside it instead of past its end (undefined behaviour, below).
    let dir = fixture("csv-make-check");
    let test = dir.path().join("tests/test_fit.c");
    let text = std::fs::read_to_string(&test).unwrap();
    let roomy = text
        .replacen("char small[4];", "char small[8];", 1)
        .replacen(
            "csv_field(\"abcd,e\", 0, small, sizeof small)",
            "csv_field(\"abcd,e\", 0, small, 4)",
            1,
        );
    assert_ne!(roomy, text);
    std::fs::write(&test, roomy).unwrap();
    let doc = diagnose_json(dir.path());
    assert_eq!(doc["failing_tests"], serde_json::json!(["tests/test_fit"]));
    assert_names_the_fault(&doc, "src/csv.c", 29);
}

#[test]
fn a_make_check_test_whose_run_writes_past_a_buffer_is_refused_with_the_access() {
    // As shipped, the fault writes the terminator one byte past test_fit's
    // buffer: the model stops there and says so (exit status 4).
    let dir = fixture("csv-make-check");
    let out = faultlens(
        &[
            &["diagnose", dir.path().to_str().unwrap()][..],
            &budget("30"),
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(4));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("tests/test_fit") && said.contains("out-of-bounds access to `small`"),
        "{said}"
    );
}
