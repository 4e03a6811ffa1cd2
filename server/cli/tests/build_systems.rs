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

#[test]
fn a_test_that_exits_77_is_skipped_and_counts_as_passing() {
    let dir = fixture("csv-make-check");
    std::fs::write(
        dir.path().join("tests/test_skip.c"),
        "int main(void) { return 77; }\n",
    )
    .unwrap();
    let makefile = dir.path().join("Makefile");
    let text = std::fs::read_to_string(&makefile).unwrap();
    std::fs::write(
        &makefile,
        text.replace("tests/test_empty\n", "tests/test_empty tests/test_skip\n"),
    )
    .unwrap();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 6);
    assert_eq!(doc["tests"]["failed"], 1);
    let skip = doc["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "tests/test_skip")
        .unwrap();
    assert_eq!(skip["verdict"], "pass", "{skip}");
}

#[test]
fn a_makefile_whose_first_rule_is_check_is_not_run_as_its_default_goal() {
    let dir = fixture("csv-make-check");
    let makefile = dir.path().join("Makefile");
    let text = std::fs::read_to_string(&makefile).unwrap();
    // `check` first: `make` alone would run the tests, and test_fit fails.
    let check_rule = text
        .split("\n\n")
        .find(|block| block.starts_with("check:"))
        .unwrap()
        .to_string();
    let reordered = text
        .replace(&format!("{check_rule}\n\n"), "")
        .replace("all: libcsv.a", &format!("{check_rule}\n\nall: libcsv.a"));
    assert!(reordered.find("check:") < reordered.find("all:"));
    std::fs::write(&makefile, reordered).unwrap();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 5);
}

#[test]
fn changed_meson_setup_arguments_set_the_build_up_again() {
    let dir = fixture("wrap-meson");
    localize_json(dir.path(), &[]);
    std::fs::write(
        dir.path().join("faultlens.toml"),
        "[meson]\nsetup_args = [\"-Dwarning_level=3\"]\n",
    )
    .unwrap();
    assert_eq!(localize_json(dir.path(), &[])["tests"]["total"], 8);
    let options = std::process::Command::new("meson")
        .args(["introspect", "--buildoptions"])
        .arg(dir.path().join(".faultlens/meson-build"))
        .output()
        .unwrap();
    let options: serde_json::Value = serde_json::from_slice(&options.stdout).unwrap();
    let level = options
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "warning_level")
        .unwrap();
    assert_eq!(level["value"], "3");
}

/// `[build] sources`: an unchanged build is reused, as make would; an
/// edited source or header builds again.
#[test]
fn an_unchanged_sources_build_is_reused_and_an_edit_builds_again() {
    let dir = fixture("multi-file-helper");
    let program = dir.path().join(".faultlens/build/roman");
    let failed = |doc: &serde_json::Value| doc["tests"]["failed"].as_u64().unwrap();
    let first = localize_json(dir.path(), &["--top", "0"]);
    assert!(failed(&first) > 0);
    let built = std::fs::metadata(&program).unwrap().modified().unwrap();
    // Inputs must be older than the build for its stamp to be kept.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = localize_json(dir.path(), &["--top", "0"]);
    let stamp = dir.path().join(".faultlens/build/stamp.json");
    assert!(stamp.exists(), "settled inputs: the build is recorded");
    let reused = std::fs::metadata(&program).unwrap().modified().unwrap();
    let again = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(failed(&again), failed(&first));
    assert_eq!(
        std::fs::metadata(&program).unwrap().modified().unwrap(),
        reused,
        "nothing changed: not built again"
    );
    // The fix, in the source: every test passes, so it was compiled.
    let source = dir.path().join("roman.c");
    let text = std::fs::read_to_string(&source).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[18] = "        while (n >= numerals[i].value) {";
    std::fs::write(&source, lines.join("\n") + "\n").unwrap();
    let fixed = faultlens(&["localize", dir.path().to_str().unwrap()]);
    assert!(
        stderr(&fixed).contains("tests passed"),
        "{}",
        stderr(&fixed)
    );
    assert_ne!(
        std::fs::metadata(&program).unwrap().modified().unwrap(),
        built
    );
    // A header edit (a declaration that breaks the build) is seen too.
    let header = dir.path().join("roman.h");
    let mut text = std::fs::read_to_string(&header).unwrap();
    text.push_str("\n#error the header changed\n");
    std::fs::write(&header, text).unwrap();
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("the header changed"),
        "{}",
        stderr(&out)
    );
}
