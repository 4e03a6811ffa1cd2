//! Running some tests first (the developer's failing ones) hands their
//! results over early and changes nothing in the run's final results.

use faultlens_pipeline::{localize, localize_in_stages, CancelToken, FirstTests, RunOptions};
use faultlens_workspace::Project;
use std::path::Path;
use std::sync::Mutex;

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != ".faultlens" {
                copy_tree(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn the_first_tests_come_early_and_the_final_results_are_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mid-args");
    copy_tree(&fixture, dir.path());
    let project = Project::load(dir.path()).unwrap();
    let cancel = CancelToken::new();
    let plain = localize(&project, &RunOptions::default(), &|_| {}, &cancel).unwrap();

    let early = Mutex::new(None);
    let names = vec!["wide-first-middle".to_string(), "no-such-test".to_string()];
    let ready = |results| *early.lock().unwrap() = Some(results);
    let first = FirstTests {
        names: &names,
        ready: &ready,
    };
    let staged = localize_in_stages(
        &project,
        &RunOptions::default(),
        Some(&first),
        &|_| {},
        &cancel,
    )
    .unwrap();

    let early = early
        .into_inner()
        .unwrap()
        .expect("the first tests' results");
    let early_names: Vec<&str> = early.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(early_names, ["wide-first-middle"]);
    assert_eq!(early.failed_count(), 1);
    // Same tests, in the same order, with the same verdicts and coverage.
    assert_eq!(staged.files, plain.files);
    assert_eq!(staged.tests.len(), plain.tests.len());
    for (a, b) in staged.tests.iter().zip(&plain.tests) {
        assert_eq!(
            (&a.name, a.verdict, &a.coverage),
            (&b.name, b.verdict, &b.coverage)
        );
    }
}
