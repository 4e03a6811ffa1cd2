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

/// `cp -r` of a project after a run, `.faultlens/` and all.
fn copied_after_a_run(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = fixture(name);
    let first = localize_json(dir.path(), &["--top", "0"]);
    assert!(first["tests"]["total"].as_u64().unwrap() > 0);
    let copy = dir.path().with_file_name(format!(
        "{}-copy",
        dir.path().file_name().unwrap().to_string_lossy()
    ));
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(dir.path())
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    (dir, copy)
}

#[test]
fn a_cmake_project_copied_after_a_run_is_built_afresh_not_refused() {
    // The copied CMake cache names the first directory; CMake refuses it
    // ("CMakeCache.txt directory ... is different").
    let (_dir, copy) = copied_after_a_run("units-unity");
    let out = faultlens(&["localize", copy.to_str().unwrap(), "--format", "json"]);
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("were made for another project directory or compiler"),
        "{said}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["tests"]["total"], 18);
    // Said once: the next run reuses the build.
    let again = faultlens(&["localize", copy.to_str().unwrap()]);
    assert!(
        !stderr(&again).contains("another project directory"),
        "{}",
        stderr(&again)
    );
    let _ = std::fs::remove_dir_all(&copy);
}

#[test]
fn a_make_check_project_copied_after_a_run_is_built_afresh() {
    let (_dir, copy) = copied_after_a_run("csv-make-check");
    let out = faultlens(&["localize", copy.to_str().unwrap(), "--format", "json"]);
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("building them afresh"), "{said}");
    let _ = std::fs::remove_dir_all(&copy);
}

#[test]
fn an_autotools_project_shipping_configure_ac_is_reconfigured_and_its_tests_found_in_every_directory(
) {
    // tally-autotools ships configure.ac and Makefile.am files only: autoreconf
    // -fi, ./configure and make run in the shadow copy; tests/Makefile's
    // TESTS hold three programs and a script run through SH_LOG_COMPILER
    // with AM_TESTS_ENVIRONMENT's srcdir (it reads data/sample.txt).
    let dir = fixture("tally-autotools");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    let names: Vec<&str> = names_of(&listed_tests(&doc));
    assert_eq!(
        names,
        [
            "tests/test_fields",
            "tests/test_extremes",
            "tests/test_pairs",
            "tests/sample.sh"
        ]
    );
    let failing: Vec<&str> = doc["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "fail")
        .map(|t| t["reason"].as_str().unwrap())
        .collect();
    assert_eq!(failing.len(), 2, "{failing:?}");
    assert!(
        failing[1].contains("largest is 0, expected -4"),
        "the script ran with srcdir and read its data: {failing:?}"
    );
    let fault = entry(&doc, "src/tally.c", 20);
    assert_eq!(fault["ef"], 2);
    // Nothing was written into the project: autoreconf and configure ran
    // in the copy.
    assert!(!dir.path().join("configure").exists());
    assert!(!dir.path().join("Makefile").exists());
}

#[test]
fn a_shipped_configure_runs_with_its_extra_arguments_and_its_failure_quotes_config_log() {
    let dir = fixture("tally-autotools");
    let root = dir.path();
    // As a release tarball ships it: configure made already.
    let made = std::process::Command::new("autoreconf")
        .arg("-fi")
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let configure_ac = std::fs::read_to_string(root.join("configure.ac")).unwrap();
    // A configure that refuses to go on without an option of its own.
    let picky = configure_ac.replace(
        "AC_PROG_CC\n",
        "AC_PROG_CC\nAC_ARG_ENABLE([tally-checks], [AS_HELP_STRING([--enable-tally-checks], [required])])\n\
         AS_IF([test \"x$enable_tally_checks\" != xyes], [AC_MSG_ERROR([tally needs --enable-tally-checks])])\n",
    );
    std::fs::write(root.join("configure.ac"), picky).unwrap();
    let made = std::process::Command::new("autoreconf")
        .arg("-fi")
        .current_dir(root)
        .output()
        .unwrap();
    assert!(made.status.success());
    let out = faultlens(&["localize", root.to_str().unwrap()]);
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("`./configure` failed")
            && said.contains("tally needs --enable-tally-checks")
            && said.contains("the last lines of config.log")
            && said.contains("[build] configure"),
        "{said}"
    );
    std::fs::write(
        root.join("faultlens.toml"),
        "[build]\nconfigure = [\"--enable-tally-checks\"]\n",
    )
    .unwrap();
    let doc = localize_json(root, &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 4);
    assert_eq!(doc["tests"]["failed"], 2);
}

#[test]
fn cmake_tests_behind_an_option_that_is_off_are_switched_on() {
    let dir = fixture("units-unity");
    let cmake = dir.path().join("CMakeLists.txt");
    let text = std::fs::read_to_string(&cmake).unwrap();
    let optional = text
        .replace(
            "enable_testing()\n",
            "option(UNITS_BUILD_TESTS \"Build the tests\" OFF)\nif(UNITS_BUILD_TESTS)\nenable_testing()\n",
        )
        .replace("endforeach()\n", "endforeach()\nendif()\n");
    assert_ne!(optional, text);
    std::fs::write(&cmake, optional).unwrap();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 18);
}

#[test]
fn a_cmake_build_without_tests_gives_way_to_the_makefile_and_says_so() {
    // As utf8proc ships: a CMakeLists.txt whose tests CTest does not list
    // (here none at all), and a Makefile with check.
    let dir = fixture("csv-make-check");
    for (cmake, said) in [
        (
            "cmake_minimum_required(VERSION 3.13)\nproject(csv C)\nenable_testing()\nadd_library(csv STATIC src/csv.c)\ntarget_include_directories(csv PUBLIC include)\n",
            "CMake lists no tests",
        ),
        // As zlib's Debian tarball ships: a CMakeLists.txt naming a file
        // the repack left out.
        (
            "cmake_minimum_required(VERSION 3.13)\nproject(csv C)\nenable_testing()\nadd_library(csv STATIC src/csv.c win32/csv.rc)\nadd_test(NAME t COMMAND t)\n",
            "configuring with CMake failed (CMake Error at CMakeLists.txt:4 (add_library):",
        ),
    ] {
        std::fs::write(dir.path().join("CMakeLists.txt"), cmake).unwrap();
        let out = faultlens(&["localize", dir.path().to_str().unwrap(), "--format", "json"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(
            err.contains(said) && err.contains("using the Makefile's check target instead"),
            "{err}"
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["tests"]["total"], 5, "{doc}");
        assert!(doc["notes"][0]["message"]
            .as_str()
            .unwrap()
            .contains("using the Makefile's check target instead"));
        let tests = faultlens(&["tests", dir.path().to_str().unwrap(), "--json"]);
        let listed: serde_json::Value = serde_json::from_slice(&tests.stdout).unwrap();
        assert_eq!(listed["kind"], "make");
    }
}

#[test]
fn a_makefile_without_tests_gives_the_targets_its_check_runs() {
    // As zlib's Makefile: `check: test`, `test: all t1 t2`, each with a
    // recipe that runs a program.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("half.c"),
        "#include <stdio.h>\n#include <stdlib.h>\nint half(int x) { return x / 2; }\n\
         int main(int argc, char **argv) { printf(\"%d\\n\", half(atoi(argv[1]))); return 0; }\n",
    )
    .unwrap();
    std::fs::write(
        root.join("Makefile"),
        "CC ?= cc\nall: half\nhalf: half.c\n\t$(CC) $(CFLAGS) -o half half.c $(LDFLAGS)\n\
         check: test\ntest: all even odd\neven: half\n\ttest \"$$(./half 8)\" = 4\n\
         odd: half\n\ttest \"$$(./half 7)\" = 4\n.PHONY: all check test even odd\n",
    )
    .unwrap();
    let doc = localize_json(root, &["--top", "0"]);
    let names: Vec<&str> = names_of(&listed_tests(&doc));
    assert_eq!(names, ["make even", "make odd"]);
    assert_eq!(doc["tests"]["failed"], 1);
    let fault = entry(&doc, "half.c", 3);
    assert_eq!(fault["ef"], 1);
}
