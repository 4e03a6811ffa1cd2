//! Coverage read natively from gcc's files equals gcov's on every fixture:
//! `FAULTLENS_GCOV_READER=check` reads every test's counters both ways and
//! fails the run at the first line where they differ (crashing, hanging,
//! multi-directory and framework fixtures included). The default reader
//! gives the same results document as gcov alone.

mod common;
use common::*;
use std::process::Command;

fn localize_with(dir: &std::path::Path, reader: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args(["localize", dir.to_str().unwrap(), "--format", "json"])
        .env("FAULTLENS_GCOV_READER", reader)
        .output()
        .unwrap()
}

#[test]
fn every_fixture_reads_the_same_natively_as_with_gcov() {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join("fixtures"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("ground-truth.json").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 25, "{names:?}");
    for name in &names {
        let dir = fixture(name);
        let out = localize_with(dir.path(), "check");
        assert!(out.status.success(), "{name}: {}", stderr(&out));
    }
}

#[test]
fn the_native_reader_and_gcov_write_the_same_results() {
    let coverage_of = |reader: &str| {
        let dir = fixture("crash-segv");
        let out = localize_with(dir.path(), reader);
        assert!(out.status.success(), "{}", stderr(&out));
        let doc = results(dir.path());
        (
            doc["files"].clone(),
            doc["tests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    (
                        t["name"].clone(),
                        t["outcome"].clone(),
                        t["coverage"].clone(),
                    )
                })
                .collect::<Vec<_>>(),
        )
    };
    let native = coverage_of("native");
    assert!(!native.1.is_empty());
    assert_eq!(native, coverage_of("gcov"));
}

#[test]
fn an_unknown_reader_is_refused_by_name() {
    let dir = fixture("leap-year");
    let out = localize_with(dir.path(), "fast");
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("FAULTLENS_GCOV_READER") && err.contains("native"),
        "{err}"
    );
}
