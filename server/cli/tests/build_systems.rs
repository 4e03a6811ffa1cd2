//! Projects the way they are built, end to end: Meson (a coverage build of
//! its own beside the user's) and `make check` Makefiles (in the shadow
//! copy), with real meson, ninja, GNU make and gcc.

mod common;
use common::*;

#[test]
fn meson_projects_are_detected_built_in_their_own_directory_and_ranked() {
    let dir = fixture("wrap-meson");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 8);
    assert_eq!(doc["tests"]["failed"], 2);
    let failing: Vec<&str> = doc["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "fail")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(failing, ["two-lines", "exact-fit"]);
    let fault = entry(&doc, "src/wrap.c", 24);
    assert_eq!(
        (fault["ef"].as_u64(), fault["nf"].as_u64()),
        (Some(2), Some(0))
    );
    assert!(
        doc["ranking"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["file"].as_str().unwrap().starts_with("src/")),
        "the test driver is not ranked"
    );
    assert!(dir
        .path()
        .join(".faultlens/meson-build/build.ninja")
        .is_file());
    assert!(
        !dir.path().join("build").exists(),
        "the user's tree holds no build"
    );
    assert_eq!(results(dir.path())["suite"], "meson");
    // The second run compiles incrementally in the same directory.
    let again = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(again["tests"]["failed"], 2);
}

#[test]
fn a_meson_test_that_should_fail_passes_when_it_fails() {
    let dir = fixture("wrap-meson");
    let build = dir.path().join("meson.build");
    let text = std::fs::read_to_string(&build).unwrap();
    std::fs::write(
        &build,
        format!("{text}test('unknown-check', check, args: ['no-such-check'], should_fail: true)\n"),
    )
    .unwrap();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    let test = doc["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "unknown-check")
        .expect("the new test is found");
    assert_eq!(test["verdict"], "pass", "{test}");
    // Declared with a literal name: located at its test() call.
    assert_eq!(test["location"]["file"], "meson.build");
    assert_eq!(test["location"]["line"], text.lines().count() as u64 + 1);
}

#[test]
fn make_check_projects_build_their_test_programs_and_run_tests_from_the_makefile() {
    let dir = fixture("csv-make-check");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 5);
    assert_eq!(doc["tests"]["failed"], 1);
    let fit = &doc["tests"]["list"][3];
    assert_eq!(fit["name"], "tests/test_fit");
    assert_eq!(fit["verdict"], "fail");
    assert!(
        fit["reason"]
            .as_str()
            .unwrap()
            .contains("four characters into four bytes"),
        "{fit}"
    );
    assert_eq!(
        doc["tests"]["list"][0]["location"],
        serde_json::json!({"file": "Makefile", "line": 8})
    );
    let fault = entry(&doc, "src/csv.c", 29);
    assert_eq!(fault["ef"], 1);
    assert_eq!(results(dir.path())["suite"], "make");
    assert!(
        !dir.path().join("src/csv.o").exists() && !dir.path().join("tests/test_fit").exists(),
        "the build happened in the shadow copy"
    );
}

#[test]
fn an_expected_failure_in_xfail_tests_passes() {
    let dir = fixture("csv-make-check");
    let makefile = dir.path().join("Makefile");
    let text = std::fs::read_to_string(&makefile).unwrap();
    std::fs::write(
        &makefile,
        text.replace(
            "TESTS = $(check_PROGRAMS)",
            "TESTS = $(check_PROGRAMS)\nXFAIL_TESTS = tests/test_fit",
        ),
    )
    .unwrap();
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(all.contains("All 5 tests passed"), "{all}");
}
