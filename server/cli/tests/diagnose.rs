//! `faultlens diagnose` end to end: real builds and test runs of fixture
//! copies, the real diagnosis engine, every output format.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `faultlens diagnose` with an effort of 5 (mid-args's search
/// completes with less than 1) unless `args` set a budget.
fn diagnose(root: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["diagnose", root.to_str().unwrap()];
    if !args.contains(&"--time-limit") && !args.contains(&"--effort") {
        all.extend_from_slice(&budget("5"));
    }
    all.extend_from_slice(args);
    faultlens(&all)
}

fn statements(doc: &Value) -> Vec<(String, u64)> {
    doc["diagnoses"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["statements"].as_array().unwrap().iter())
        .map(|s| {
            (
                s["file"].as_str().unwrap().to_string(),
                s["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn mid_args_is_diagnosed_at_line_22_and_the_document_is_stored() {
    let dir = fixture("mid-args");
    let out = diagnose(dir.path(), &["--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &doc["diagnoses"][0];
    assert_eq!(first["kind"], "optimal");
    assert!(first["cost"].is_u64());
    assert!(
        statements(&doc).contains(&("mid.c".into(), 22)),
        "no diagnosis holds mid.c:22: {doc:#}"
    );
    for d in doc["diagnoses"].as_array().unwrap() {
        for s in d["statements"].as_array().unwrap() {
            assert!(s["text"].is_string(), "{s}");
        }
        for a in d["angelic"].as_array().unwrap() {
            for key in ["test", "file", "line", "instance", "value", "verified"] {
                assert!(!a[key].is_null(), "{key} missing in {a}");
            }
            assert_eq!(a["verified"], true, "only verified values are shown: {a}");
        }
    }
    assert_eq!(doc["failing_tests"].as_array().unwrap().len(), 3);
    // The same document is on disk.
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".faultlens/diagnosis.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stored["diagnoses"], doc["diagnoses"]);

    // A diagnosis of the stored results makes fusion the default ranking.
    let root = dir.path().to_str().unwrap();
    let fused = faultlens(&["rank", root]);
    let table = stdout(&fused);
    assert!(table.contains("· Fusion (Ochiai) ·"), "{table}");
    assert!(table.contains("   1  mid.c:22"), "{table}");
    assert!(
        table.contains("Fusion: lines in the stored diagnosis's"),
        "{table}"
    );
    let json: Value =
        serde_json::from_slice(&faultlens(&["rank", root, "--format", "json"]).stdout).unwrap();
    assert_eq!(json["measure"], "fusion", "{json:#}");
    let plain = stdout(&faultlens(&["rank", root, "--no-fusion"]));
    assert!(plain.contains("· Ochiai ·"), "{plain}");
    let over_op2 = stdout(&faultlens(&["rank", root, "--measure", "op2"]));
    assert!(over_op2.contains("· Fusion (Op2) ·"), "{over_op2}");
    // A new run is not what the diagnosis describes: Ochiai alone.
    let rerun = faultlens(&["localize", root]);
    assert!(rerun.status.success(), "{}", stderr(&rerun));
    assert!(stdout(&rerun).contains("· Ochiai ·"), "{}", stdout(&rerun));
}

#[test]
fn fresh_results_are_reused_and_stale_ones_refreshed() {
    let dir = fixture("mid-args");
    let first = diagnose(dir.path(), &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(stderr(&first).contains("results written to"));
    let results = dir.path().join(".faultlens/results.json");
    let written = std::fs::metadata(&results).unwrap().modified().unwrap();

    let again = diagnose(dir.path(), &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("using the results in"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        std::fs::metadata(&results).unwrap().modified().unwrap(),
        written,
        "no new localization"
    );
    let table = stdout(&again);
    assert!(
        table.contains("diagnosis #1 (cost") && table.contains("mid.c:22  return c;"),
        "{table}"
    );
    assert!(table.contains("search complete") || table.contains("search incomplete"));
    assert!(table.contains("failure groups:"), "{table}");

    // An edited source makes the stored results stale: localize again.
    let source = dir.path().join("mid.c");
    let text = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, format!("{text}\n/* edited */\n")).unwrap();
    let edited = diagnose(dir.path(), &[]);
    assert!(edited.status.success(), "{}", stderr(&edited));
    assert!(
        stderr(&edited).contains("mid.c changed since the last run; localizing again"),
        "{}",
        stderr(&edited)
    );
}

#[test]
fn sarif_has_one_result_per_diagnosed_statement_and_validates() {
    let dir = fixture("mid-args");
    let out = diagnose(dir.path(), &["--format", "sarif"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The diagnosis this very run stored: two runs on a loaded machine
    // have listed different diagnoses (3 statements and 5), so a second
    // run in JSON is no reference for this one's SARIF.
    let stored = std::fs::read_to_string(dir.path().join(".faultlens/diagnosis.json")).unwrap();
    let doc: Value = serde_json::from_str(&stored).unwrap();
    let schema_path = repo_root().join("server/report/tests/data/sarif-2.1.0-rtm.5.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF violates the schema:\n{}",
        errors.join("\n")
    );
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), statements(&doc).len());
    assert!(results.iter().all(|r| r["ruleId"] == "diagnosis"));
    assert!(results.iter().any(|r| {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "mid.c"
            && r["locations"][0]["physicalLocation"]["region"]["startLine"] == 22
    }));
    assert_eq!(results[0]["level"], "warning");
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = serde_json::json!("severe");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn max_size_bounds_the_diagnoses_and_max_counts_them() {
    let dir = fixture("mid-args");
    let out = diagnose(dir.path(), &["--format", "json", "--max-size", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let diagnoses = doc["diagnoses"].as_array().unwrap();
    assert!(!diagnoses.is_empty());
    assert!(
        diagnoses
            .iter()
            .all(|d| d["statements"].as_array().unwrap().len() == 1),
        "{doc:#}"
    );
    let out = diagnose(dir.path(), &["--format", "json", "--max", "1"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["diagnoses"].as_array().unwrap().len(), 1);
    assert_eq!(doc["diagnoses"][0]["statements"][0]["line"], 22);
}

#[test]
fn no_failing_test_means_nothing_to_diagnose() {
    let dir = fixture("mid-args");
    let source = dir.path().join("mid.c");
    let text = std::fs::read_to_string(&source).unwrap();
    let fixed: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 21 {
                l.replace("return c;", "return a;")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&source, fixed.join("\n") + "\n").unwrap();
    let out = diagnose(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no failure to diagnose"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join(".faultlens/diagnosis.json").exists());
}

/// polygon-config with a function the model does not run: an x87 `long
/// double` (gcc builds it; nothing calls it).
fn outside_the_model() -> tempfile::TempDir {
    let dir = fixture("polygon-config");
    let source = dir.path().join("src/geometry.c");
    let mut text = std::fs::read_to_string(&source).unwrap();
    text.push_str("long double extended_one(void) { return 1.0L; }\n");
    std::fs::write(&source, text).unwrap();
    dir
}

#[test]
fn a_program_outside_the_model_is_named_with_its_construct_and_place() {
    let dir = outside_the_model();
    let out = diagnose(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("cannot diagnose")
            && err.contains("long double")
            && err.contains("geometry.c:55"),
        "{err}"
    );
    assert!(!dir.path().join(".faultlens/diagnosis.json").exists());

    // Fusion, asked for now, says what diagnose said instead of advising to
    // run it again.
    let root = dir.path().to_str().unwrap();
    let out = faultlens(&["rank", root, "--measure", "fusion", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("could not diagnose these results")
            && message.contains("long double")
            && message.contains("--measure blockrank"),
        "{message}"
    );
    assert!(!message.contains("first"), "{message}");
    // And the default ranking is the measure's.
    assert!(stdout(&faultlens(&["rank", root])).contains("· Ochiai ·"));
}

#[test]
fn data_files_gone_since_the_localization_are_said_to_need_it_again() {
    // restock-file's failing tests read their inventories from data/: with
    // them deleted after `localize`, the model's runs end otherwise than
    // the recorded ones, and diagnose says so rather than diagnosing a
    // failure nobody saw.
    let dir = fixture("restock-file");
    let root = dir.path().to_str().unwrap();
    assert_eq!(faultlens(&["localize", root]).status.code(), Some(0));
    for name in ["shop", "empty-shelves", "no-final-newline", "one-item"] {
        std::fs::remove_file(dir.path().join(format!("data/{name}.txt"))).unwrap();
    }
    let out = diagnose(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("exits with status 2 where the recorded run exited with 0")
            && err.contains("re-run `faultlens localize`"),
        "{err}"
    );
}

#[test]
fn bad_options_are_usage_errors() {
    let dir = fixture("mid-args");
    for args in [
        &["--max", "0"][..],
        &["--time-limit", "-1"][..],
        &["--max-size", "x"][..],
        &["--format", "xml"][..],
    ] {
        let out = diagnose(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn ctrl_c_stops_and_writes_no_diagnosis() {
    // hang-loop's failing tests hang until the per-test timeout: the
    // localization is still running when the interrupt arrives.
    let dir = fixture("hang-loop");
    let child = Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args(["diagnose", dir.path().to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let runs = dir.path().join(".faultlens/runs");
    let start = Instant::now();
    while !runs.exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(!dir.path().join(".faultlens/diagnosis.json").exists());
    assert!(!dir.path().join(".faultlens/results.json").exists());
    assert!(
        !runs.exists(),
        "the cancelled run's test outputs are left in {}",
        runs.display()
    );
    assert!(
        stderr(&out).contains("cancelled; the interrupted run wrote no results"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ctrl_c_during_the_search_stops_the_solver_and_writes_nothing() {
    use std::io::BufRead;
    let dir = fixture("mid-args");
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    assert!(out.status.code().is_some());
    let mut child = Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args([
            "diagnose",
            dir.path().to_str().unwrap(),
            "--time-limit",
            "600",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let searching = line.contains("searching diagnoses");
        seen.push(line);
        if searching {
            break;
        }
    }
    assert!(
        seen.iter().any(|l| l.contains("using the results")),
        "{seen:?}"
    );
    let interrupted = Instant::now();
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{seen:?} {rest:?}");
    assert!(
        interrupted.elapsed() < Duration::from_secs(10),
        "the solver took {:?} to stop",
        interrupted.elapsed()
    );
    assert!(
        rest.iter().any(|l| l.contains(
            "the diagnosis was not written (the stored test results were used as they are)"
        )),
        "{rest:?}"
    );
    assert!(!dir.path().join(".faultlens/diagnosis.json").exists());
}

#[test]
fn eval_with_fusion_carries_on_past_a_fixture_without_a_diagnosis() {
    // mid-args is diagnosed first; crash-segv is outside the C model, so it
    // never has a diagnosis: fusion is n/a there, and only there.
    let parent = tempfile::tempdir().unwrap();
    for name in ["crash-segv", "mid-args"] {
        copy_tree(
            &repo_root().join("fixtures").join(name),
            &parent.path().join(name),
        );
    }
    let out = diagnose(&parent.path().join("mid-args"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let root = parent.path().to_str().unwrap();
    let out = faultlens(&["eval", root, "--measures", "ochiai,fusion", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let score = |fixture: &str, measure: &str| {
        doc["fixtures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["fixture"] == fixture && s["measure"] == measure)
            .unwrap_or_else(|| panic!("no {fixture}/{measure} in {doc}"))
            .clone()
    };
    let missing = score("crash-segv", "fusion");
    assert_eq!(missing["available"], false, "{missing}");
    assert!(missing["exam"].is_null(), "{missing}");
    assert!(
        missing["reason"]
            .as_str()
            .unwrap()
            .contains("faultlens diagnose"),
        "{missing}"
    );
    assert_eq!(score("mid-args", "fusion")["available"], true);
    assert_eq!(score("crash-segv", "ochiai")["available"], true);
    let summary = |measure: &str| {
        doc["summary"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["measure"] == measure)
            .unwrap()
            .clone()
    };
    assert_eq!(summary("fusion")["fixtures"], 1);
    assert_eq!(summary("fusion")["not_available"], 1);
    assert_eq!(summary("ochiai")["fixtures"], 2);
    assert_eq!(
        summary("fusion")["mean_exam"],
        score("mid-args", "fusion")["exam"],
        "the mean is over the diagnosed fixture alone"
    );

    let out = faultlens(&["eval", root, "--measures", "fusion,ochiai"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.contains("crash-segv") && l.contains("fault under Fusion (Ochiai): n/a")),
        "{text}"
    );
    assert!(text.contains("fusion n/a for crash-segv"), "{text}");
    let row = text.lines().find(|l| l.starts_with("fusion ")).unwrap();
    assert!(row.trim_end().ends_with("1/2"), "{row}");
    let row = text.lines().find(|l| l.starts_with("ochiai ")).unwrap();
    assert!(row.trim_end().ends_with("2/2"), "{row}");
}

fn sarif_schema_errors(sarif: &Value) -> Vec<String> {
    let schema_path = repo_root().join("server/report/tests/data/sarif-2.1.0-rtm.5.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the schema compiles");
    validator
        .iter_errors(sarif)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect()
}

#[test]
fn machine_formats_say_so_when_the_diagnosis_fails_before_it_starts() {
    // No project at all: the error goes to stderr, and a JSON or SARIF
    // reader still gets a document with it (exit 1).
    let dir = tempfile::tempdir().unwrap();
    let out = diagnose(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no faultlens.toml"),
        "{}",
        stderr(&out)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("a JSON document");
    assert_eq!(doc["error"]["code"], 1, "{doc}");
    assert_eq!(doc["diagnoses"], serde_json::json!([]));
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no faultlens.toml"),
        "{doc}"
    );
    let out = diagnose(dir.path(), &["--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let sarif: Value = serde_json::from_slice(&out.stdout).expect("a SARIF log");
    assert!(sarif_schema_errors(&sarif).is_empty());
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
}

#[test]
fn machine_formats_say_why_there_is_no_diagnosis() {
    // Outside the model (exit 4): JSON and SARIF still carry the reason.
    // mid-args with a function the model does not run (`longjmp`).
    let dir = fixture("mid-args");
    let source = dir.path().join("mid.c");
    let text = std::fs::read_to_string(&source).unwrap();
    std::fs::write(
        &source,
        format!("#include <setjmp.h>\n{text}\nvoid unwind(jmp_buf to) {{ longjmp(to, 1); }}\n"),
    )
    .unwrap();
    let out = diagnose(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("a JSON document");
    assert_eq!(doc["diagnoses"], serde_json::json!([]));
    assert_eq!(doc["error"]["code"], 4);
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot diagnose"),
        "{doc}"
    );
    assert!(doc["faultlens_version"].is_string(), "{doc}");
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(doc["project_root"], root.to_str().unwrap());

    let out = diagnose(dir.path(), &["--format", "sarif"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let sarif: Value = serde_json::from_slice(&out.stdout).expect("a SARIF log");
    let errors = sarif_schema_errors(&sarif);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let run = &sarif["runs"][0];
    assert_eq!(run["results"], serde_json::json!([]));
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let note = &invocation["toolExecutionNotifications"][0];
    assert!(
        note["message"]["text"]
            .as_str()
            .unwrap()
            .contains("cannot diagnose"),
        "{invocation}"
    );

    // No failing test (exit 3): a successful run with nothing to report.
    let dir = fixture("mid-args");
    let source = dir.path().join("mid.c");
    let text = std::fs::read_to_string(&source).unwrap();
    let fixed: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 21 {
                l.replace("return c;", "return a;")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&source, fixed.join("\n") + "\n").unwrap();
    let out = diagnose(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("a JSON document");
    assert_eq!(doc["error"]["code"], 3, "{doc}");
    assert_eq!(doc["diagnoses"], serde_json::json!([]));
    let out = diagnose(dir.path(), &["--format", "sarif"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let sarif: Value = serde_json::from_slice(&out.stdout).expect("a SARIF log");
    assert!(sarif_schema_errors(&sarif).is_empty());
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
}

#[test]
fn the_json_output_names_the_version_and_the_project() {
    let dir = fixture("mid-args");
    let out = diagnose(dir.path(), &["--format", "json", "--max", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["faultlens_version"], env!("CARGO_PKG_VERSION"));
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(doc["project_root"], root.to_str().unwrap());
    assert_eq!(doc["diagnoses"][0]["statements"][0]["line"], 22);
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".faultlens/diagnosis.json")).unwrap(),
    )
    .unwrap();
    assert!(
        stored.get("faultlens_version").is_none(),
        "the stored document stays the core type"
    );
}

/// Makes a directory unwritable until dropped: read-only permissions and,
/// since root ignores those, the immutable attribute where `chattr` works.
struct Unwritable(std::path::PathBuf);

impl Unwritable {
    fn new(dir: &Path) -> Unwritable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(dir.join("probe"), b"").is_ok() {
            std::fs::remove_file(dir.join("probe")).unwrap();
            let ok = Command::new("chattr").arg("+i").arg(dir).status();
            assert!(
                ok.is_ok_and(|s| s.success()),
                "cannot make {} unwritable (root without chattr)",
                dir.display()
            );
        }
        assert!(std::fs::write(dir.join("probe"), b"").is_err());
        Unwritable(dir.to_path_buf())
    }
}

impl Drop for Unwritable {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        let _ = Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o755));
    }
}

#[test]
fn an_unwritable_faultlens_directory_is_reported_before_the_search() {
    let dir = fixture("mid-args");
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    assert!(out.status.code().is_some());
    let state = dir.path().join(".faultlens");
    let _guard = Unwritable::new(&state);
    let out = diagnose(dir.path(), &["--time-limit", "600"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("cannot write into {}", state.display())) && err.contains("writable"),
        "{err}"
    );
    assert!(
        !err.contains("searching diagnoses"),
        "the search ran first: {err}"
    );
}

#[test]
fn ctrl_c_after_a_fresh_localization_says_the_results_were_written() {
    use std::io::BufRead;
    let dir = fixture("mid-args");
    let mut child = Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args([
            "diagnose",
            dir.path().to_str().unwrap(),
            "--time-limit",
            "600",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let searching = line.contains("searching diagnoses");
        seen.push(line);
        if searching {
            break;
        }
    }
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert_eq!(child.wait().unwrap().code(), Some(130), "{seen:?} {rest:?}");
    let results = dir.path().join(".faultlens/results.json");
    assert!(results.exists());
    assert!(!dir.path().join(".faultlens/diagnosis.json").exists());
    assert!(
        rest.iter().any(|l| l.contains(&format!(
            "cancelled; the diagnosis was not written (the test results were: {})",
            results.display()
        ))),
        "{rest:?}"
    );
    assert!(
        !rest.iter().any(|l| l.contains("nothing was written")),
        "{rest:?}"
    );
}
