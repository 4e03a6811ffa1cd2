//! The three kinds of test suite, end to end: real gcc builds, real test
//! processes, per-test gcov coverage, the ranking.

mod common;
use common::*;

#[test]
fn io_tests_rank_the_faulty_line_first() {
    let dir = fixture("mid-args");
    let doc = localize_json(dir.path(), &[]);
    assert_eq!(doc["measure"], "ochiai");
    assert_eq!(doc["tests"]["total"], 15);
    assert_eq!(doc["tests"]["failed"], 3);
    let first = &doc["ranking"][0];
    assert_eq!(
        (first["file"].as_str(), first["line"].as_u64()),
        (Some("mid.c"), Some(22))
    );
    assert_eq!(first["rank"]["best"], 1);
    assert_eq!(first["ef"], 3);
    assert_eq!(first["text"], "return c;");
    // ef + nf = failing tests and ep + np = passing tests on every line.
    for e in doc["ranking"].as_array().unwrap() {
        assert_eq!(e["ef"].as_u64().unwrap() + e["nf"].as_u64().unwrap(), 3);
        assert_eq!(e["ep"].as_u64().unwrap() + e["np"].as_u64().unwrap(), 12);
    }
    // The results document is on disk for the language server and others.
    let results = results(dir.path());
    assert_eq!(results["suite"], "io");
    assert_eq!(results["tests"].as_array().unwrap().len(), 15);
}

#[test]
fn ctest_projects_are_detected_built_in_the_shadow_dir_and_test_code_is_excluded() {
    let dir = fixture("ringbuf-ctest");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 13);
    assert_eq!(doc["tests"]["failed"], 3);
    let ranking = doc["ranking"].as_array().unwrap();
    assert!(
        ranking
            .iter()
            .all(|e| e["file"].as_str().unwrap().starts_with("src/")),
        "test drivers are not ranked"
    );
    let fault = entry(&doc, "src/ringbuf.c", 80);
    assert_eq!(fault["ef"], 3, "every failing test ran the faulty line");
    assert!(dir.path().join(".faultlens/cmake-build").is_dir());
    assert!(
        !dir.path().join("build").exists() && !dir.path().join("CMakeCache.txt").exists(),
        "the user's tree holds no build"
    );
    // CTest locations point at the add_test() call.
    let results = results(dir.path());
    let test = &results["tests"][0];
    assert_eq!(test["location"]["file"], "CMakeLists.txt");
    assert!(test["location"]["line"].as_u64().unwrap() > 1);
    // With --include-test-code the drivers are ranked too.
    let all = localize_json(dir.path(), &["--top", "0", "--include-test-code"]);
    assert!(all["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["file"].as_str().unwrap().starts_with("tests/")));
}

#[test]
fn tests_command_lists_declared_tests_without_building() {
    let dir = fixture("mid-args");
    let out = faultlens(&["tests", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("15 tests (io suite, from faultlens.toml):"),
        "{text}"
    );
    assert!(
        text.contains("first-middle-last-largest  (faultlens.toml:"),
        "{text}"
    );
    assert!(
        !dir.path().join(".faultlens/build").exists(),
        "listing io tests needs no build"
    );
}

#[test]
fn ctest_tests_are_listed_by_name() {
    let dir = fixture("ringbuf-ctest");
    let out = faultlens(&["tests", dir.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "ctest");
    assert_eq!(doc["tests"].as_array().unwrap().len(), 13);
}

/// Every file under `dir` outside `.faultlens/`, with its contents.
fn snapshot(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.file_name().unwrap() == ".faultlens" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn a_make_build_runs_in_the_shadow_copy_and_leaves_the_tree_untouched() {
    let dir = fixture("make-build");
    let before = snapshot(dir.path());
    let doc = localize_json(dir.path(), &[]);
    assert!(doc["tests"]["failed"].as_u64().unwrap() > 0);
    assert_eq!(
        snapshot(dir.path()),
        before,
        "nothing outside .faultlens/ was created or changed"
    );
    assert!(dir.path().join(".faultlens/shadow/Makefile").is_file());
    // Ranked paths are the project's, not the shadow's.
    assert!(doc["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| !e["file"].as_str().unwrap().contains(".faultlens")));
}

#[test]
fn a_runner_lists_and_runs_tests_by_name() {
    let dir = fixture("runner-script");
    let before = snapshot(dir.path());
    let doc = localize_json(dir.path(), &[]);
    assert_eq!(doc["tests"]["total"], 14);
    assert_eq!(doc["tests"]["failed"], 4);
    let results = results(dir.path());
    assert_eq!(results["suite"], "runner");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn an_io_project_without_config_is_detected() {
    let dir = fixture("autodetect-io");
    assert!(!dir.path().join("faultlens.toml").exists());
    let doc = localize_json(dir.path(), &[]);
    assert_eq!(doc["tests"]["failed"], 3);
    assert_eq!(results(dir.path())["suite"], "io");
}

#[test]
fn compact_test_forms_expand_to_named_tests() {
    let dir = fixture("compact-suite");
    let out = faultlens(&["tests", dir.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.len() >= 60, "{} tests", names.len());
    assert!(
        names.iter().any(|n| n.contains(".txt:")),
        "table rows are named FILE:LINE"
    );
    assert!(
        names.iter().any(|n| !n.contains(':')),
        "inputs are named by their stem"
    );
}

/// What a ranking says of each line: where, its score, ef and ep.
fn ranked_lines(doc: &serde_json::Value) -> Vec<serde_json::Value> {
    doc["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| serde_json::json!([e["file"], e["line"], e["score"], e["ef"], e["ep"]]))
        .collect()
}

fn run_ok(cmd: &mut std::process::Command) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A CI job's artifacts, made as a CI job would make them: a `gcc
/// --coverage` build in another checkout, each declared test run and judged
/// by its expected output, `lcov --capture --test-name` after each test and
/// a JUnit report of the verdicts. `faultlens import` of them ranks every
/// line as `faultlens localize` does.
#[test]
fn imported_lcov_and_junit_rank_as_localize_does() {
    use std::process::Command;
    let dir = fixture("mid-args");
    let project = dir.path();
    let localized = localize_json(project, &["--no-fusion", "--top", "0"]);

    let ci = tempfile::tempdir().unwrap();
    let checkout = ci.path().join("checkout");
    std::fs::create_dir(&checkout).unwrap();
    std::fs::copy(project.join("mid.c"), checkout.join("mid.c")).unwrap();
    run_ok(
        Command::new("gcc")
            .args(["--coverage", "-O0", "-o", "mid", "mid.c"])
            .current_dir(&checkout),
    );
    let config: toml::Value =
        toml::from_str(&std::fs::read_to_string(project.join("faultlens.toml")).unwrap()).unwrap();
    let mut cases = String::new();
    let mut infos = Vec::new();
    for test in config["test"].as_array().unwrap() {
        let name = test["name"].as_str().unwrap();
        let args: Vec<&str> = test["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let ran = Command::new(checkout.join("mid"))
            .args(&args)
            .output()
            .unwrap();
        let exit = test
            .get("expected_exit")
            .map_or(0, |e| e.as_integer().unwrap());
        let passed = ran.status.code() == Some(exit as i32)
            && String::from_utf8_lossy(&ran.stdout) == test["expected_stdout"].as_str().unwrap();
        let info = ci.path().join(format!("{name}.info"));
        // lcov allows letters, digits and `_` in a test name.
        let tn = name.replace('-', "_");
        run_ok(
            Command::new("lcov")
                .args([
                    "--quiet",
                    "--capture",
                    "--directory",
                    ".",
                    "--test-name",
                    &tn,
                    "--output-file",
                ])
                .arg(&info)
                .current_dir(&checkout),
        );
        run_ok(
            Command::new("lcov")
                .args(["--quiet", "--zerocounters", "--directory", "."])
                .current_dir(&checkout),
        );
        infos.push(info.to_str().unwrap().to_string());
        let failure = if passed {
            ""
        } else {
            "<failure message=\"wrong output\"/>"
        };
        cases.push_str(&format!(
            "<testcase classname=\"mid\" name=\"{name}\">{failure}</testcase>\n"
        ));
    }
    let report = ci.path().join("report.xml");
    std::fs::write(
        &report,
        format!("<?xml version=\"1.0\"?>\n<testsuite name=\"mid\">\n{cases}</testsuite>\n"),
    )
    .unwrap();

    let mut args = vec![
        "import",
        project.to_str().unwrap(),
        "--junit",
        report.to_str().unwrap(),
        "--format",
        "json",
        "--no-fusion",
        "--top",
        "0",
        "--lcov",
    ];
    args.extend(infos.iter().map(String::as_str));
    let out = faultlens(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("imported 15 tests (3 failing) covering 1 file,"),
        "{}",
        stderr(&out)
    );
    let imported: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let verdicts = |doc: &serde_json::Value| -> Vec<serde_json::Value> {
        let list = doc["tests"]["list"].as_array().unwrap();
        list.iter()
            .map(|t| serde_json::json!([t["name"], t["verdict"]]))
            .collect()
    };
    assert_eq!(verdicts(&imported), verdicts(&localized));
    // A failing test's reason is its report's failure message.
    let failing: Vec<&serde_json::Value> = imported["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "fail")
        .collect();
    assert_eq!(failing[0]["reason"], "wrong output (in report.xml)");
    assert_eq!(ranked_lines(&imported), ranked_lines(&localized));
    assert_eq!(
        ranked_lines(&imported)[0],
        serde_json::json!(["mid.c", 22, localized["ranking"][0]["score"], 3, 1])
    );

    // Coverage no report names, and a report naming no covered test, are said so.
    let stray = ci.path().join("stray.xml");
    std::fs::write(
        &stray,
        "<testsuite><testcase name=\"elsewhere\"/></testsuite>",
    )
    .unwrap();
    let out = faultlens(&[
        "import",
        project.to_str().unwrap(),
        "--junit",
        stray.to_str().unwrap(),
        "--lcov",
        &infos[0],
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "no test is both in the coverage (1 tests) and in the JUnit report (1 tests)"
        ),
        "{}",
        stderr(&out)
    );
}
