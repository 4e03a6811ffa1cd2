//! The first ranking after a developer's failing run: their failing tests
//! run first, and until the rest of the suite has run they are ranked
//! together with the previous results of the other tests, where those still
//! describe the sources (every file a test covered has the digest it had
//! then). Pure: it takes the results and the digests as values.

use faultlens_core::results::{RunResults, SourceFile};
use std::collections::{BTreeMap, HashSet};

/// A ranking to show while the full run goes on.
#[derive(Debug, Clone)]
pub struct FirstRanking {
    pub results: RunResults,
    /// Tests run again now (the developer's failing ones).
    pub rerun: usize,
    /// Tests taken from the previous results.
    pub reused: usize,
    /// Previous tests left out: a file they covered changed since.
    pub dropped: usize,
}

impl FirstRanking {
    /// "first ranking from the 3 tests that failed for you and 10 previous
    /// results (2 left out: their files changed); the full run goes on".
    pub fn describe(&self) -> String {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let mut text = format!(
            "first ranking from the {} test{} that failed for you",
            self.rerun,
            plural(self.rerun)
        );
        if self.reused > 0 {
            text += &format!(
                " and {} previous result{}",
                self.reused,
                plural(self.reused)
            );
        }
        if self.dropped > 0 {
            text += &format!(" ({} left out: their files changed since)", self.dropped);
        }
        text + "; the full run goes on"
    }
}

/// `fresh` (the tests just run) with the tests of `previous` it does not
/// hold, where every file such a test covered still has the digest
/// `previous` recorded (`digests_now`: project-relative path → digest).
pub fn merge(
    previous: Option<&RunResults>,
    fresh: RunResults,
    digests_now: &BTreeMap<String, String>,
) -> FirstRanking {
    let rerun = fresh.tests.len();
    let Some(previous) = previous else {
        return FirstRanking {
            results: fresh,
            rerun,
            reused: 0,
            dropped: 0,
        };
    };
    let mut merged = fresh;
    let mut index: BTreeMap<String, u32> = merged
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.clone(), i as u32))
        .collect();
    let fresh_names: HashSet<String> = merged.tests.iter().map(|t| t.name.clone()).collect();
    let unchanged = |file: &SourceFile| {
        file.digest
            .as_ref()
            .is_some_and(|d| digests_now.get(&file.path) == Some(d))
    };
    let (mut reused, mut dropped) = (0, 0);
    for test in previous
        .tests
        .iter()
        .filter(|t| !fresh_names.contains(&t.name))
    {
        let files: Option<Vec<&SourceFile>> = test
            .coverage
            .iter()
            .map(|c| previous.files.get(c.file as usize))
            .collect();
        let Some(files) = files.filter(|fs| fs.iter().all(|f| unchanged(f))) else {
            dropped += 1;
            continue;
        };
        let mut kept = test.clone();
        for (coverage, file) in kept.coverage.iter_mut().zip(files) {
            coverage.file = *index.entry(file.path.clone()).or_insert_with(|| {
                merged.files.push(file.clone());
                (merged.files.len() - 1) as u32
            });
        }
        merged.tests.push(kept);
        reused += 1;
    }
    FirstRanking {
        results: merged,
        rerun,
        reused,
        dropped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faultlens_core::results::{FileCoverage, Outcome, SuiteKind, TestRecord};

    fn file(path: &str, digest: &str) -> SourceFile {
        SourceFile {
            path: path.into(),
            test_code: false,
            lines: vec![1, 2, 3],
            digest: Some(digest.into()),
        }
    }

    fn test(name: &str, fail: bool, files: &[u32]) -> TestRecord {
        let outcome = if fail {
            Outcome::Failed
        } else {
            Outcome::Passed
        };
        let mut record = TestRecord::new(name, outcome);
        record.coverage = files
            .iter()
            .map(|&f| FileCoverage {
                file: f,
                lines: vec![1],
                counts: vec![1],
                branches: vec![],
            })
            .collect();
        record
    }

    fn results(files: Vec<SourceFile>, tests: Vec<TestRecord>) -> RunResults {
        RunResults {
            format_version: faultlens_core::results::FORMAT_VERSION,
            tool_version: "0".into(),
            created_unix_ms: 0,
            project_root: "/p".into(),
            suite: SuiteKind::Ctest,
            files,
            tests,
            shard: None,
            notes: Vec::new(),
        }
    }

    #[test]
    fn previous_tests_join_where_their_files_are_unchanged() {
        let previous = results(
            vec![file("a.c", "A1"), file("b.c", "B1"), file("c.c", "C1")],
            vec![
                test("t1", true, &[0]),
                test("t2", false, &[0, 1]),
                test("t3", false, &[2]),
                test("t4", false, &[1]),
            ],
        );
        // t1 ran again; c.c changed since; a.c and b.c did not.
        let fresh = results(
            vec![file("b.c", "B1"), file("a.c", "A1")],
            vec![test("t1", true, &[1])],
        );
        let now: BTreeMap<String, String> = [("a.c", "A1"), ("b.c", "B1"), ("c.c", "C2")]
            .map(|(p, d)| (p.into(), d.into()))
            .into();
        let first = merge(Some(&previous), fresh, &now);
        assert_eq!((first.rerun, first.reused, first.dropped), (1, 2, 1));
        let names: Vec<&str> = first
            .results
            .tests
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["t1", "t2", "t4"]);
        // Coverage points at the merged file table: t2 covered a.c and b.c.
        let t2 = &first.results.tests[1];
        let paths: Vec<&str> = t2
            .coverage
            .iter()
            .map(|c| first.results.files[c.file as usize].path.as_str())
            .collect();
        assert_eq!(paths, ["a.c", "b.c"]);
        assert_eq!(first.results.files.len(), 2);
        assert_eq!(
            first.describe(),
            "first ranking from the 1 test that failed for you and 2 previous results (1 left out: their files changed since); the full run goes on"
        );
    }

    #[test]
    fn without_previous_results_the_first_tests_stand_alone() {
        let fresh = results(vec![file("a.c", "A1")], vec![test("t1", true, &[0])]);
        let first = merge(None, fresh, &BTreeMap::new());
        assert_eq!((first.rerun, first.reused, first.dropped), (1, 0, 0));
        assert_eq!(
            first.describe(),
            "first ranking from the 1 test that failed for you; the full run goes on"
        );
    }

    #[test]
    fn a_previous_file_missing_from_the_fresh_table_is_carried_over() {
        let previous = results(
            vec![file("a.c", "A1"), file("lib.c", "L1")],
            vec![test("t9", false, &[1])],
        );
        let fresh = results(vec![file("a.c", "A1")], vec![test("t1", true, &[0])]);
        let now: BTreeMap<String, String> = [("a.c", "A1"), ("lib.c", "L1")]
            .map(|(p, d)| (p.into(), d.into()))
            .into();
        let first = merge(Some(&previous), fresh, &now);
        assert_eq!(first.results.files.len(), 2);
        assert_eq!(first.results.files[1].path, "lib.c");
        assert_eq!(first.results.tests[1].coverage[0].file, 1);
    }
}
