//! The engine through its edge API on real localization runs: a copy of a
//! fixture is localized with the real pipeline (gcc --coverage builds, real
//! test processes), diagnosed with `diagnose_project`, stored, and ranked
//! with the fusion measure, which reads the stored diagnosis.

mod common;

use faultlens_core::measures::Ranker;
use faultlens_core::sources::SourceTexts;
use faultlens_diagnose::{diagnose_project, CancelToken, DiagnoseError, DiagnoseOptions};
use faultlens_report::analysis::Analysis;
use faultlens_workspace::store;
use faultlens_workspace::Project;
use std::sync::Arc;

fn localized(name: &str, tmp: &std::path::Path) -> (Project, faultlens_core::results::RunResults) {
    let dir = common::copy_fixture(name, tmp);
    common::localized(&dir)
}

#[test]
fn mid_args_is_diagnosed_stored_and_ranked_by_fusion() {
    let tmp = tempfile::tempdir().unwrap();
    let (project, results) = localized("mid-args", tmp.path());
    let root = project.root.clone();

    // Before any diagnosis, fusion says what to do.
    let err = Analysis::compute(
        Arc::new(results.clone()),
        Ranker::FUSION,
        false,
        &SourceTexts::default(),
        None,
    )
    .unwrap_err();
    assert!(err.to_string().contains("faultlens diagnose"), "{err}");

    let opts = DiagnoseOptions::with_effort(120.0);
    let seen = std::cell::RefCell::new(Vec::new());
    let report = diagnose_project(
        &project,
        &results,
        &opts,
        &|p| seen.borrow_mut().push(p),
        &CancelToken::new(),
    )
    .unwrap();
    assert_eq!(report.failing_tests.len(), results.failed_count());
    assert!(
        report.diagnoses.iter().any(|d| d
            .statements
            .iter()
            .any(|s| s.file == "mid.c" && s.line == 22)),
        "{:#?}",
        report.diagnoses
    );
    assert!(!seen.borrow().is_empty());
    store::write_diagnosis(&root, &report).unwrap();
    assert_eq!(
        store::read_diagnosis(&root).unwrap().as_ref(),
        Some(&report)
    );

    let analysis = Analysis::compute(
        Arc::new(results),
        Ranker::FUSION,
        false,
        &SourceTexts::default(),
        store::read_diagnosis(&root).unwrap().as_ref(),
    )
    .unwrap();
    let top = analysis.entries().next().unwrap();
    assert_eq!(
        (top.file, top.line),
        ("mid.c", 22),
        "fusion ranks the fault first"
    );
    assert!(top.ranked.score > 1.0);
}

#[test]
fn a_program_outside_the_model_is_not_modelled_with_construct_and_place() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::copy_fixture("polygon-config", tmp.path());
    // A function the model does not run: an x87 `long double` (gcc builds
    // it; nothing calls it).
    let source = dir.join("src/geometry.c");
    let mut text = std::fs::read_to_string(&source).unwrap();
    text.push_str("long double extended_one(void) { return 1.0L; }\n");
    std::fs::write(&source, text).unwrap();
    let (project, results) = common::localized(&dir);
    let err = diagnose_project(
        &project,
        &results,
        &DiagnoseOptions::with_effort(30.0),
        &|_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    let DiagnoseError::NotModelled(m) = &err else {
        panic!("{err:?}")
    };
    assert!(
        m.contains("long double") && m.contains("geometry.c:55"),
        "{m}"
    );
    assert!(err.to_string().contains("faultlens localize"), "{err}");
}

#[test]
fn a_ctest_project_not_built_yet_says_to_localize_first() {
    // A copy without `.faultlens/`: `faultlens eval` builds the fixtures
    // in place.
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::copy_fixture("ringbuf-ctest", tmp.path());
    let project = Project::load(&dir).unwrap();
    // The verdicts are not looked at before the project kind: any results do.
    let mut results = faultlens_core::results::RunResults {
        format_version: 1,
        tool_version: "test".into(),
        created_unix_ms: 0,
        project_root: dir.display().to_string(),
        suite: faultlens_core::results::SuiteKind::Ctest,
        files: vec![],
        tests: vec![],
        shard: None,
        notes: Vec::new(),
    };
    let err = diagnose_project(
        &project,
        &results,
        &DiagnoseOptions::with_effort(30.0),
        &|_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(matches!(err, DiagnoseError::NoFailingTests), "{err:?}");
    results.tests.push(faultlens_core::results::TestRecord {
        name: "t".into(),
        verdict: faultlens_core::results::Verdict::Fail,
        outcome: faultlens_core::results::Outcome::Failed,
        reason: None,
        exit_code: Some(1),
        signal: None,
        duration_ms: 1,
        location: None,
        stdout: String::new(),
        stderr: String::new(),
        output_truncated: false,
        coverage: vec![],
    });
    let err = diagnose_project(
        &project,
        &results,
        &DiagnoseOptions::with_effort(30.0),
        &|_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    // Its tests are read from the coverage build, which is not there.
    assert!(
        matches!(err, DiagnoseError::NotModelled(ref m)
            if m.contains("no CTest tests found") && m.contains("run `faultlens localize` first")),
        "{err}"
    );
}

/// loop-cond's fault is a loop condition, weighted as what it guards: the
/// cost-ordered search refutes many cheaper candidates first and stops on
/// its budget before it. The check of the spectrum's top lines, one
/// statement at a time, finds it alone explaining every failing test, with
/// angelic values that make their tests pass on replay, and the list stays
/// subset-minimal.
#[test]
fn a_costly_single_fault_is_found_by_checking_the_spectrum_top_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let (project, results) = localized("loop-cond", tmp.path());
    // The fault costs 6: some 20 cheaper diagnoses of several statements
    // (real ones: their angelic values replay) come first.
    let opts = DiagnoseOptions {
        max_diagnoses: 40,
        ..DiagnoseOptions::with_effort(40.0)
    };
    let seen = std::cell::RefCell::new(Vec::new());
    let report = diagnose_project(
        &project,
        &results,
        &opts,
        &|p| seen.borrow_mut().push(p),
        &CancelToken::new(),
    )
    .unwrap();
    // Statements by place: maxwin.c:47 holds a `for`'s start, test and
    // step, told apart by their columns.
    type Places = std::collections::BTreeSet<(String, u32, Option<u32>)>;
    let places = |d: &faultlens_core::diagnosis::Diagnosis| -> Places {
        d.statements
            .iter()
            .map(|s| (s.file.clone(), s.line, s.column))
            .collect()
    };
    let fault = report
        .diagnoses
        .iter()
        .find(|d| places(d) == [("maxwin.c".into(), 47, Some(26))].into())
        .unwrap_or_else(|| {
            panic!(
                "the test at maxwin.c:47:26 alone is no diagnosis: {:#?}",
                report.diagnoses
            )
        });
    if !report.complete {
        assert!(report.stats.suspects_checked > 0);
        assert!(report.stats.suspects_explaining >= 1);
        assert!(seen
            .borrow()
            .iter()
            .any(|p| matches!(p, faultlens_diagnose::DiagnoseProgress::Checking { .. })));
    }
    for (i, a) in report.diagnoses.iter().enumerate() {
        for (j, b) in report.diagnoses.iter().enumerate() {
            assert!(
                i == j || places(a) == places(b) || !places(a).is_subset(&places(b)),
                "#{} is within #{}: {:#?}",
                i + 1,
                j + 1,
                report.diagnoses
            );
        }
    }
    assert!(report.diagnoses.windows(2).all(|w| w[0].cost <= w[1].cost));
    let loaded = common::load(&project.root).unwrap();
    assert!(!fault.angelic.is_empty(), "{fault:#?}");
    for t in &loaded.failing {
        let values: Vec<_> = fault.angelic.iter().filter(|a| a.test == t.name).collect();
        if !values.is_empty() {
            assert!(
                common::replay_passes(&loaded.prog, t, &values),
                "{values:?} do not make {} pass",
                t.name
            );
        }
    }
}

/// wordstat-stdin's separator test is wrong for a tab, and making it right
/// flips its value at every tab: a new path at each, more than the check's
/// path exploration reaches. The concrete search by consistent flips finds
/// it: every tab, and nothing else, in every failing test, with values that
/// make each test pass on replay.
#[test]
fn a_predicate_wrong_at_every_tab_is_found_by_consistent_flips() {
    let tmp = tempfile::tempdir().unwrap();
    let (project, results) = localized("wordstat-stdin", tmp.path());
    let opts = DiagnoseOptions::with_effort(30.0);
    let report = diagnose_project(&project, &results, &opts, &|_| {}, &CancelToken::new()).unwrap();
    let fault = report
        .diagnoses
        .iter()
        .find(|d| d.statements.len() == 1 && d.statements[0].line == 18)
        .unwrap_or_else(|| {
            panic!(
                "no diagnosis is wordstat.c:18 alone: {:#?}",
                report.diagnoses
            )
        });
    let loaded = common::load(&project.root).unwrap();
    // The tabs of each failing test: 1-based instances of the per-character
    // return (one per character read).
    let tabs = |name: &str| -> Vec<u32> {
        let t = loaded.failing.iter().find(|t| t.name == name).unwrap();
        let input = &t.input.stdin;
        (1..=input.len() as u32)
            .filter(|&k| input[k as usize - 1] == b'\t')
            .collect()
    };
    for name in ["tab-separated", "mixed-separators", "table"] {
        let mut values: Vec<_> = fault.angelic.iter().filter(|a| a.test == name).collect();
        values.sort_by_key(|a| a.instance);
        let at: Vec<u32> = values.iter().map(|a| a.instance).collect();
        assert_eq!(at, tabs(name), "{name}: {values:#?}");
        assert!(values.iter().all(|a| a.value == 1 && a.verified));
        let t = loaded.failing.iter().find(|t| t.name == name).unwrap();
        assert!(common::replay_passes(&loaded.prog, t, &values), "{name}");
    }
}

/// A search complete within its path bound misses a statement whose
/// change needs more paths (here the predicate wrong at every tab, with 2
/// paths a test); the concrete witnesses found between the searches still
/// name it, and it is reported at the head of the list.
#[test]
fn a_witness_beyond_a_complete_searchs_path_bound_is_still_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let (project, results) = localized("wordstat-stdin", tmp.path());
    let opts = DiagnoseOptions {
        max_paths_per_test: 2,
        ..DiagnoseOptions::with_effort(30.0)
    };
    let report = diagnose_project(&project, &results, &opts, &|_| {}, &CancelToken::new()).unwrap();
    let lines: Vec<Vec<u32>> = report
        .diagnoses
        .iter()
        .map(|d| d.statements.iter().map(|s| s.line).collect())
        .collect();
    assert!(report.complete, "{:?}: {lines:?}", report.stopped);
    assert_eq!(lines.first(), Some(&vec![18]), "{lines:?}");
    assert!(report.diagnoses[0].angelic.iter().all(|a| a.verified));
}

/// Counts the `x`s of its first argument but looks two characters ahead:
/// at the last character it reads past the string's end, into the next
/// argument, which the compiled program carries on from.
const LOOKS_AHEAD: &str = r#"#include <stdio.h>
int main(int argc, char **argv) {
    const char *s = argv[1];
    int n = 0;
    for (int p = 0; s[p] != '\0'; p++) {
        if (s[p + 2] == 'x')
            n++;
    }
    printf("%d\n", n);
    return 0;
}
"#;

/// Each failing test reads past `argv[1]`, which the C standard leaves
/// undefined: the diagnosis takes the byte with which the model's run
/// reproduces the recorded one (here 0: the next argument's `.` prints and
/// covers the same), says so, and blames the condition.
#[test]
fn a_failing_run_that_reads_past_its_argument_is_diagnosed_with_the_byte_noted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("count.c"), LOOKS_AHEAD).unwrap();
    let mut toml = String::from("[build]\nsources = [\"count.c\"]\nprogram = \"count\"\n");
    for (name, arg, out) in [
        ("empty", "", "0"),
        ("no-x", "ab", "0"),
        ("one-char", "a", "0"),
        ("x-first", "xa", "1"),
        ("two-x", "xx", "2"),
        ("x-middle", "axa", "1"),
    ] {
        toml.push_str(&format!(
            "\n[[test]]\nname = \"{name}\"\nargs = [\"{arg}\", \".\"]\nexpected_stdout = \"{out}\\n\"\n"
        ));
    }
    std::fs::write(dir.join("faultlens.toml"), toml).unwrap();
    let (project, results) = common::localized(dir);
    assert_eq!(results.failed_count(), 3);
    let opts = DiagnoseOptions::with_effort(30.0);
    let report = diagnose_project(&project, &results, &opts, &|_| {}, &CancelToken::new()).unwrap();
    assert!(
        report.skipped_tests.is_empty(),
        "{:?}",
        report.skipped_tests
    );
    assert_eq!(report.failing_tests.len(), 3);
    let noted: std::collections::BTreeSet<&str> =
        report.free_reads.iter().map(|r| r.test.as_str()).collect();
    assert_eq!(noted, ["two-x", "x-first", "x-middle"].into());
    for r in &report.free_reads {
        assert_eq!(
            (r.file.as_str(), r.line, r.byte),
            ("count.c", 6, 0),
            "{r:?}"
        );
        assert!(r.what.contains("`argv[1]`"), "{r:?}");
    }
    let condition = report
        .diagnoses
        .iter()
        .find(|d| d.statements.iter().map(|s| s.line).eq([6]))
        .unwrap_or_else(|| panic!("the condition is no diagnosis: {:#?}", report.diagnoses));
    assert!(!condition.angelic.is_empty());
    assert!(
        condition.angelic.iter().all(|a| a.verified),
        "{condition:#?}"
    );
}

/// A read far past a table, which crashes the compiled program: no byte
/// the model could read there reproduces the crash, and the refusal says so.
#[test]
fn a_run_that_crashed_reading_far_past_a_table_is_refused_saying_why() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let source = "#include <stdio.h>\n#include <stdlib.h>\nint table[4] = {1, 2, 3, 4};\nint main(int argc, char **argv) {\n    int i = atoi(argv[1]);\n    printf(\"%d\\n\", table[i]);\n    return 0;\n}\n";
    std::fs::write(dir.join("table.c"), source).unwrap();
    let toml = "[build]\nsources = [\"table.c\"]\nprogram = \"table\"\n\n[[test]]\nname = \"first\"\nargs = [\"0\"]\nexpected_stdout = \"1\\n\"\n\n[[test]]\nname = \"far\"\nargs = [\"100000000\"]\nexpected_stdout = \"0\\n\"\n";
    std::fs::write(dir.join("faultlens.toml"), toml).unwrap();
    let (project, results) = common::localized(dir);
    let far = results.tests.iter().find(|t| t.name == "far").unwrap();
    assert_eq!(far.signal, Some(11), "{far:?}");
    let err = diagnose_project(
        &project,
        &results,
        &DiagnoseOptions::with_effort(30.0),
        &|_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    let DiagnoseError::NotModelled(why) = err else {
        panic!("{err:?}");
    };
    assert!(
        why.contains("far: ")
            && why.contains("table.c:6")
            && why.contains(
                "it reads outside an object, and the recorded run was killed by signal 11"
            ),
        "{why}"
    );
}
