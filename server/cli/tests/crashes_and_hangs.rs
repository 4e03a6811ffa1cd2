//! Tests that crash, hang or flood their output: they fail, keep the
//! coverage they gathered, and never stall the run.

mod common;
use common::*;
use std::time::Instant;

fn covered_lines(record: &serde_json::Value) -> Vec<u64> {
    record["coverage"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_u64().unwrap())
        })
        .collect()
}

#[test]
fn a_crashing_test_fails_and_keeps_its_coverage_up_to_the_crash() {
    let dir = fixture("crash-segv");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["failed"], 3);
    let results = results(dir.path());
    let segv = test_record(&results, "one-past-the-end");
    assert_eq!(segv["outcome"], "crashed");
    assert_eq!(segv["signal"], 11);
    assert!(segv["reason"].as_str().unwrap().contains("SIGSEGV"));
    assert!(
        covered_lines(segv).contains(&56),
        "the crashing test ran the faulty line before crashing"
    );
    let abort = test_record(&results, "length-one-past-the-end");
    assert_eq!(abort["outcome"], "crashed");
    assert_eq!(abort["signal"], 6);
    assert!(covered_lines(abort).contains(&56));
    assert_eq!(entry(&doc, "fieldcut.c", 56)["ef"], 3);
}

#[test]
fn a_hanging_test_is_stopped_at_the_timeout_counted_failing_and_keeps_coverage() {
    let dir = fixture("hang-loop");
    let started = Instant::now();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    let elapsed = started.elapsed().as_secs_f64();
    // timeout = 2 s in the fixture, plus at most the 2 s grace period and the build.
    assert!(
        elapsed < 30.0,
        "the hang did not stall the run ({elapsed:.1} s)"
    );
    let results = results(dir.path());
    let hung = test_record(&results, "nine-in-base-one");
    assert_eq!(hung["verdict"], "fail");
    assert_eq!(hung["outcome"], "timed_out");
    assert!(hung["duration_ms"].as_u64().unwrap() >= 2000);
    let lines = covered_lines(hung);
    assert!(
        lines.contains(&45),
        "the hung test's coverage includes the faulty check"
    );
    assert!(lines.contains(&24), "and the loop it hung in");
    assert_eq!(entry(&doc, "tobase.c", 45)["ef"], 2);
}

#[test]
fn a_timeout_given_on_the_command_line_wins() {
    let dir = fixture("hang-loop");
    let started = Instant::now();
    let out = faultlens(&[
        "localize",
        dir.path().to_str().unwrap(),
        "--timeout",
        "0.5",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let hung = test_record(&results(dir.path()), "nine-in-base-one").clone();
    let ms = hung["duration_ms"].as_u64().unwrap();
    assert!((500..2000).contains(&ms), "stopped after {ms} ms");
    assert!(started.elapsed().as_secs() < 30);
}

/// A project written on the spot: one C file and a faultlens.toml.
fn project(c: &str, toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.c"), c).unwrap();
    std::fs::write(dir.path().join("faultlens.toml"), toml).unwrap();
    dir
}

#[test]
fn a_test_that_floods_its_output_is_capped_and_does_not_stall() {
    let dir = project(
        "#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {\n  long n = atol(argv[1]);\n  for (long i = 0; i < n; i++)\n    fputs(\"flood flood flood flood flood flood flood flood\\n\", stdout);\n  return 0;\n}\n",
        "[build]\nsources = [\"p.c\"]\n[run]\noutput_limit = 65536\n[[test]]\nname = \"quiet\"\nargs = [\"0\"]\nexpected_stdout = \"\"\n[[test]]\nname = \"flood\"\nargs = [\"2000000\"]\nexpected_stdout = \"\"\n",
    );
    let doc = localize_json(dir.path(), &[]);
    assert_eq!(doc["tests"]["failed"], 1);
    let results = results(dir.path());
    let flood = test_record(&results, "flood");
    assert_eq!(flood["output_truncated"], true);
    assert!(
        flood["stdout"].as_str().unwrap().len() <= 4096,
        "the results keep an excerpt only"
    );
    assert!(
        std::fs::metadata(dir.path().join(".faultlens/results.json"))
            .unwrap()
            .len()
            < 200_000
    );
}

#[test]
fn a_test_whose_program_cannot_start_fails_with_the_reason() {
    let dir = project(
        "int main(void) { return 0; }\n",
        "[project]\nkind = \"runner\"\n[build]\ncommand = \"gcc $CFLAGS p.c $LDFLAGS -o p\"\n[runner]\nlist = \"printf 'ok\\nmissing\\n'\"\nrun = \"if [ {name} = ok ]; then ./p; else ./no-such-program; fi\"\n",
    );
    let doc = localize_json(dir.path(), &[]);
    assert_eq!(doc["tests"]["total"], 2);
    assert_eq!(doc["tests"]["failed"], 1);
    let results = results(dir.path());
    assert_eq!(test_record(&results, "ok")["verdict"], "pass");
    let missing = test_record(&results, "missing");
    assert_eq!(
        missing["exit_code"], 127,
        "sh reports a missing program as 127"
    );
    assert!(missing["stderr"]
        .as_str()
        .unwrap()
        .contains("no-such-program"));
}

#[test]
fn an_io_program_the_build_did_not_produce_is_a_clear_error() {
    let dir = project(
        "int main(void) { return 0; }\n",
        "[build]\ncommand = \"gcc $CFLAGS p.c $LDFLAGS -o p\"\nprogram = \"prog\"\n[[test]]\nname = \"t\"\n",
    );
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("did not produce [build] program = \"prog\""),
        "{err}"
    );
}

#[test]
fn a_build_that_ignores_the_coverage_flags_is_explained() {
    let dir = project(
        "int main(void) { return 0; }\n",
        "[build]\ncommand = \"true\"\n[[test]]\nname = \"t\"\n",
    );
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("produced no coverage data") && err.contains("CFLAGS"),
        "{err}"
    );
}

#[test]
fn a_test_that_exits_without_reading_its_input_does_not_take_faultlens_down() {
    // Writing the rest of its stdin then fails with EPIPE, which must stay
    // the test's business (with SIGPIPE's default action it killed faultlens).
    let big_input = "x".repeat(4 << 20);
    let toml = format!(
        "[build]\nsources = [\"p.c\"]\n[[test]]\nname = \"early-exit\"\nstdin = \"{big_input}\"\nexpected_stdout = \"ok\\n\"\n[[test]]\nname = \"crash\"\nargs = [\"crash\"]\nstdin = \"{big_input}\"\n"
    );
    let dir = project(
        "#include <stdio.h>\n#include <string.h>\nint main(int argc, char **argv) {\n  if (argc > 1 && strcmp(argv[1], \"crash\") == 0) { int *p = 0; return *p; }\n  puts(\"ok\");\n  return 0;\n}\n",
        &toml,
    );
    for _ in 0..5 {
        let doc = localize_json(dir.path(), &[]);
        assert_eq!(doc["tests"]["total"], 2);
        assert_eq!(doc["tests"]["failed"], 1);
    }
}

/// What a run observed, without what differs from one run to the next
/// (durations, times, where the project was).
fn observed(results: &serde_json::Value) -> serde_json::Value {
    let tests: Vec<serde_json::Value> = results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            serde_json::json!([
                t["name"],
                t["verdict"],
                t["outcome"],
                t["reason"],
                t["exit_code"],
                t["signal"],
                t["stdout"],
                t["coverage"]
            ])
        })
        .collect();
    serde_json::json!({"suite": results["suite"], "files": results["files"], "tests": tests})
}

#[test]
fn shards_run_apart_and_merged_are_the_whole_run_crashes_included() {
    let dir = fixture("crash-segv");
    let root = dir.path().to_str().unwrap();
    for k in ["1/3", "2/3", "3/3"] {
        let out = faultlens(&["localize", root, "--shard", k, "--jobs", "2"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stderr(&out).contains("faultlens merge"), "{}", stderr(&out));
    }
    let work = dir.path().join(".faultlens");
    assert!(
        !work.join("results.json").exists(),
        "a shard is not a run to rank"
    );
    let shard = |k: u32| work.join(format!("shard-{k}-of-3.json"));
    let one: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shard(1)).unwrap()).unwrap();
    assert_eq!(
        one["shard"],
        serde_json::json!({"index": 1, "count": 3, "suite_tests": 12})
    );
    assert_eq!(one["tests"].as_array().unwrap().len(), 4);

    // A missing shard is named, and nothing is written.
    let out = faultlens(&[
        "merge",
        "--project",
        root,
        shard(1).to_str().unwrap(),
        shard(3).to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("shard 2 of 3 is missing"),
        "{}",
        stderr(&out)
    );
    assert!(!work.join("results.json").exists());

    // Merged (in any order), then ranked as `rank` would.
    let (s1, s2, s3) = (shard(1), shard(2), shard(3));
    let out = faultlens(&[
        "merge",
        "--project",
        root,
        "--format",
        "json",
        s3.to_str().unwrap(),
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("3 shards merged: 12 tests (3 failing)"),
        "{}",
        stderr(&out)
    );
    let ranking: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(entry(&ranking, "fieldcut.c", 56)["ef"], 3);
    let merged = results(dir.path());

    let out = faultlens(&["localize", root, "--jobs", "2", "--top", "0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let whole = results(dir.path());
    assert_eq!(observed(&merged), observed(&whole));
    let segv = test_record(&merged, "one-past-the-end");
    assert_eq!(segv["outcome"], "crashed");
    assert!(covered_lines(segv).contains(&56));
}
