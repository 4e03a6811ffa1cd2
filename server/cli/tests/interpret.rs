//! `faultlens interpret`: a configured test run in the C model prints and
//! exits exactly as the gcc-built program does.

mod common;
use common::*;

#[test]
fn the_model_prints_and_exits_as_the_real_program_on_every_test() {
    for fixture_name in ["mid-args", "crash-segv"] {
        let dir = fixture(fixture_name);
        localize_json(dir.path(), &[]);
        let listed = faultlens(&["tests", dir.path().to_str().unwrap(), "--json"]);
        let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
        let results = results(dir.path());
        for test in listed["tests"].as_array().unwrap() {
            let name = test["name"].as_str().unwrap();
            let model = faultlens(&["interpret", dir.path().to_str().unwrap(), "--test", name]);
            let record = test_record(&results, name);
            // The real program's stdout as the run captured it (an excerpt,
            // but these outputs are short), and its exit status.
            if model.status.code() == Some(125) {
                // Undefined behaviour is reported at its location rather
                // than imitated: only where the real program crashed.
                assert!(
                    record["signal"].is_i64(),
                    "{fixture_name}/{name}: the model refused a run that did not crash: {}",
                    stderr(&model)
                );
                assert!(
                    stderr(&model).contains("runtime error at fieldcut.c:"),
                    "{}",
                    stderr(&model)
                );
                continue;
            }
            assert_eq!(
                stdout(&model),
                record["stdout"].as_str().unwrap(),
                "{fixture_name}/{name}: stdout"
            );
            let real_status = match (record["exit_code"].as_i64(), record["signal"].as_i64()) {
                (Some(code), _) => code,
                (None, Some(signal)) => 128 + signal,
                _ => panic!("{name}: no status"),
            };
            assert_eq!(
                model.status.code().map(i64::from),
                Some(real_status),
                "{fixture_name}/{name}: status; stderr {}",
                stderr(&model)
            );
        }
    }
}

#[test]
fn trace_lists_statement_instances_and_unknown_tests_are_named() {
    let dir = fixture("mid-args");
    let out = faultlens(&[
        "interpret",
        dir.path().to_str().unwrap(),
        "--test",
        "first-middle-last-largest",
        "--trace",
    ]);
    let err = stderr(&out);
    assert!(
        err.contains("--- trace (") && err.contains("mid.c:22:"),
        "{err}"
    );
    let out = faultlens(&["interpret", dir.path().to_str().unwrap(), "--test", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no test named \"nope\""));
    // A CTest project has no declared io tests to interpret.
    let ctest = fixture("ringbuf-ctest");
    let out = faultlens(&["interpret", ctest.path().to_str().unwrap(), "--test", "x"]);
    assert_eq!(out.status.code(), Some(1));
}
