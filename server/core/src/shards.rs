//! One localization split over machines: `localize --shard K/N` runs a
//! deterministic share of the suite and records which, and [`merge`] puts
//! the shares back together into the results a single run would have
//! written (the same tests in the same order, the same coverage).
//!
//! The share is by position in discovery order: test `i` (from 0) belongs
//! to shard `i mod N + 1`. Discovery is deterministic for a given build, so
//! every machine agrees on the split without talking to the others, and the
//! merge restores the order by interleaving.

use crate::results::{FileCoverage, RunResults, SourceFile};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which share of the suite to run: shard `index` (from 1) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    pub index: u32,
    pub count: u32,
}

impl ShardSpec {
    /// `K/N` with 1 ≤ K ≤ N, as `--shard` takes it (GitHub Actions' and
    /// GitLab's matrix indices are written the same way).
    pub fn parse(text: &str) -> Result<ShardSpec, String> {
        let bad = || format!("{text:?} is not a shard: write K/N with 1 ≤ K ≤ N, such as 2/4");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(ShardSpec { index, count })
    }

    /// Whether the test at `position` (from 0, in discovery order) is this shard's.
    pub fn holds(&self, position: usize) -> bool {
        position % self.count as usize == (self.index - 1) as usize
    }

    /// How many of `suite_tests` tests this shard runs.
    pub fn share_of(&self, suite_tests: usize) -> usize {
        let (k, n) = (self.index as usize, self.count as usize);
        (suite_tests + n - k) / n
    }

    /// The file name a shard's results are stored under in `.faultlens/`.
    pub fn file_name(&self) -> String {
        format!("shard-{}-of-{}.json", self.index, self.count)
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What a shard's results record about their share (absent in a whole run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// From 1.
    pub index: u32,
    pub count: u32,
    /// Tests the whole suite has, every shard's together.
    pub suite_tests: u32,
}

impl Shard {
    pub fn spec(&self) -> ShardSpec {
        ShardSpec {
            index: self.index,
            count: self.count,
        }
    }

    /// Why a document's shard record cannot be true of its tests, if it cannot.
    pub fn check(&self, tests: usize) -> Result<(), String> {
        if self.index == 0 || self.count == 0 || self.index > self.count {
            return Err(format!(
                "shard {}/{} does not exist",
                self.index, self.count
            ));
        }
        let share = self.spec().share_of(self.suite_tests as usize);
        if tests != share {
            return Err(format!(
                "shard {}/{} of {} tests should hold {share} tests, not {tests}",
                self.index, self.count, self.suite_tests
            ));
        }
        Ok(())
    }
}

/// Why shards cannot be merged; each message names the shards concerned
/// and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("no shard to merge: name the shard files that `faultlens localize --shard K/N` wrote")]
    Nothing,
    #[error("{name} is not a valid results document: {message}")]
    Invalid { name: String, message: String },
    #[error("{0} is not a shard (it holds a whole run); merge only what `faultlens localize --shard K/N` wrote")]
    NotAShard(String),
    #[error("{first} is shard {a} but {other} is shard {b}: every shard must come from the same split (the same N and the same suite)")]
    DifferentSplits {
        first: String,
        a: String,
        other: String,
        b: String,
    },
    #[error("shard {index}/{count} is given twice ({first} and {other})")]
    Twice {
        index: u32,
        count: u32,
        first: String,
        other: String,
    },
    #[error("{} missing: merge every shard of the run", missing_phrase(.missing, *.total, *.count))]
    Missing {
        /// The first [`MISSING_SHOWN`] missing indices.
        missing: Vec<u32>,
        total: u32,
        count: u32,
    },
    #[error("{first} and {other} differ in {what}: the shards must come from the same sources, build and faultlens; run them again from one commit")]
    Differ {
        first: String,
        other: String,
        what: String,
    },
}

/// The results of one whole run from its shards' results, each named for
/// messages. Every shard of one split must be there once, from the same
/// faultlens, suite and sources (the digest of every file they share);
/// the tests come back in discovery order, files in path order.
pub fn merge(shards: Vec<(String, RunResults)>) -> Result<RunResults, MergeError> {
    for (name, results) in &shards {
        results.validate().map_err(|message| MergeError::Invalid {
            name: name.clone(),
            message,
        })?;
    }
    let (first_name, first) = shards.first().ok_or(MergeError::Nothing)?;
    let split = first
        .shard
        .ok_or_else(|| MergeError::NotAShard(first_name.clone()))?;
    // By index, not a slot per shard of the split: a document may claim billions.
    let mut slots: BTreeMap<u32, &(String, RunResults)> = BTreeMap::new();
    for entry in &shards {
        let (name, results) = entry;
        let shard = results
            .shard
            .ok_or_else(|| MergeError::NotAShard(name.clone()))?;
        if (shard.count, shard.suite_tests) != (split.count, split.suite_tests) {
            return Err(MergeError::DifferentSplits {
                first: first_name.clone(),
                a: describe(&split),
                other: name.clone(),
                b: describe(&shard),
            });
        }
        let differ = |what: &str| MergeError::Differ {
            first: first_name.clone(),
            other: name.clone(),
            what: what.to_string(),
        };
        if results.tool_version != first.tool_version
            || results.format_version != first.format_version
        {
            return Err(differ("the faultlens version"));
        }
        if results.suite != first.suite {
            return Err(differ("the kind of test suite"));
        }
        if let Some((other, _)) = slots.get(&shard.index) {
            return Err(MergeError::Twice {
                index: shard.index,
                count: shard.count,
                first: other.clone(),
                other: name.clone(),
            });
        }
        slots.insert(shard.index, entry);
    }
    let absent = split.count - slots.len() as u32;
    if absent > 0 {
        let missing = (1..=split.count)
            .filter(|k| !slots.contains_key(k))
            .take(MISSING_SHOWN)
            .collect();
        return Err(MergeError::Missing {
            missing,
            total: absent,
            count: split.count,
        });
    }
    let present: Vec<&(String, RunResults)> = slots.into_values().collect();
    let (files, remaps) = merge_files(&present)?;
    let mut columns: Vec<std::vec::IntoIter<_>> = present
        .iter()
        .zip(&remaps)
        .map(|((_, results), remap)| {
            let tests: Vec<_> = results
                .tests
                .iter()
                .cloned()
                .map(|mut t| {
                    for cov in &mut t.coverage {
                        cov.file = remap[cov.file as usize];
                    }
                    t.coverage.sort_by_key(|c: &FileCoverage| c.file);
                    t
                })
                .collect();
            tests.into_iter()
        })
        .collect();
    let total = split.suite_tests as usize;
    let tests = (0..total)
        .filter_map(|i| columns[i % split.count as usize].next())
        .collect();
    let merged = RunResults {
        format_version: first.format_version,
        tool_version: first.tool_version.clone(),
        created_unix_ms: present
            .iter()
            .map(|(_, r)| r.created_unix_ms)
            .max()
            .unwrap_or(0),
        project_root: first.project_root.clone(),
        suite: first.suite,
        files,
        tests,
        shard: None,
        // Every shard discovered the whole suite, and so noted the same.
        notes: first.notes.clone(),
    };
    // Test names are unique within each shard; across shards too.
    merged.validate().map_err(|message| MergeError::Invalid {
        name: "the merged shards".into(),
        message,
    })?;
    Ok(merged)
}

/// Missing shards named in a message at most.
const MISSING_SHOWN: usize = 10;

/// "shard 2 of 2 is" or "shards 2, 3 of 4 are".
fn missing_phrase(missing: &[u32], total: u32, count: u32) -> String {
    let mut list: Vec<String> = missing
        .iter()
        .take(MISSING_SHOWN)
        .map(u32::to_string)
        .collect();
    if total as usize > list.len() {
        list.push(format!("and {} more", total as usize - list.len()));
    }
    match total {
        1 => format!("shard {} of {count} is", list[0]),
        _ => format!("shards {} of {count} are", list.join(", ")),
    }
}

fn describe(shard: &Shard) -> String {
    format!(
        "{}/{} of a {}-test suite",
        shard.index, shard.count, shard.suite_tests
    )
}

/// The union of the shards' files in path order, and per shard the new
/// index of each of its files. A file two shards share must have the same
/// digest (the same source); its executable lines are the union of theirs,
/// since where lines come from the runs (clang's coverage) a shard knows
/// only the lines of the programs its own tests ran.
type FileRemaps = (Vec<SourceFile>, Vec<Vec<u32>>);

fn merge_files(shards: &[&(String, RunResults)]) -> Result<FileRemaps, MergeError> {
    let mut by_path: BTreeMap<&str, (&str, SourceFile)> = BTreeMap::new();
    for (name, results) in shards {
        for file in &results.files {
            let Some((seen_in, seen)) = by_path.get_mut(file.path.as_str()) else {
                by_path.insert(&file.path, (name, file.clone()));
                continue;
            };
            let differ = |what: String| MergeError::Differ {
                first: seen_in.to_string(),
                other: name.clone(),
                what,
            };
            if seen.digest != file.digest || seen.test_code != file.test_code {
                return Err(differ(format!("the contents of {}", file.path)));
            }
            if seen.lines != file.lines {
                seen.lines.extend(&file.lines);
                seen.lines.sort_unstable();
                seen.lines.dedup();
            }
        }
    }
    let index: BTreeMap<&str, u32> = by_path
        .keys()
        .enumerate()
        .map(|(i, p)| (*p, i as u32))
        .collect();
    let remaps = shards
        .iter()
        .map(|(_, r)| r.files.iter().map(|f| index[f.path.as_str()]).collect())
        .collect();
    let files = by_path.into_values().map(|(_, f)| f).collect();
    Ok((files, remaps))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Outcome, SuiteKind, TestRecord, FORMAT_VERSION};

    fn file(path: &str, lines: &[u32]) -> SourceFile {
        SourceFile {
            path: path.into(),
            test_code: false,
            lines: lines.to_vec(),
            digest: Some(format!("d-{path}")),
        }
    }

    fn test(name: &str, outcome: Outcome, file: u32, lines: &[u32]) -> TestRecord {
        let mut t = TestRecord::new(name, outcome);
        t.coverage = vec![FileCoverage {
            file,
            lines: lines.to_vec(),
            counts: vec![1; lines.len()],
            branches: Vec::new(),
        }];
        t
    }

    fn results(files: Vec<SourceFile>, tests: Vec<TestRecord>, shard: Option<Shard>) -> RunResults {
        RunResults {
            format_version: FORMAT_VERSION,
            tool_version: "0.1.0".into(),
            created_unix_ms: 1,
            project_root: "/p".into(),
            suite: SuiteKind::Io,
            files,
            tests,
            shard,
            notes: Vec::new(),
        }
    }

    /// Five tests over two files, and its split in two.
    fn whole_and_halves() -> (RunResults, RunResults, RunResults) {
        let files = vec![file("a.c", &[1, 2, 3]), file("b.c", &[7])];
        let tests = vec![
            test("t0", Outcome::Passed, 0, &[1, 2]),
            test("t1", Outcome::Failed, 0, &[1, 3]),
            test("t2", Outcome::Passed, 1, &[7]),
            test("t3", Outcome::Crashed, 0, &[1]),
            test("t4", Outcome::Passed, 0, &[2]),
        ];
        let whole = results(files.clone(), tests.clone(), None);
        let shard = |index| Shard {
            index,
            count: 2,
            suite_tests: 5,
        };
        let pick =
            |k: usize| -> Vec<TestRecord> { tests.iter().skip(k).step_by(2).cloned().collect() };
        // Shard 2 never ran b.c, and lists only a.c: its index 0 is a.c too.
        let second = results(vec![files[0].clone()], pick(1), Some(shard(2)));
        let first = results(files, pick(0), Some(shard(1)));
        (whole, first, second)
    }

    #[test]
    fn a_spec_reads_k_of_n_and_splits_round_robin() {
        let s = ShardSpec::parse("2/3").unwrap();
        assert_eq!((s.index, s.count), (2, 3));
        assert_eq!((0..7).filter(|&i| s.holds(i)).collect::<Vec<_>>(), [1, 4]);
        assert_eq!(s.share_of(7), 2);
        assert_eq!(s.file_name(), "shard-2-of-3.json");
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(ShardSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn merged_halves_are_the_whole_run_in_its_order() {
        let (whole, first, second) = whole_and_halves();
        // Given in any order.
        let merged = merge(vec![("b".into(), second), ("a".into(), first)]).unwrap();
        assert_eq!(merged, whole);
    }

    #[test]
    fn a_missing_twice_given_or_foreign_shard_is_refused_by_name() {
        let (whole, first, second) = whole_and_halves();
        let err = merge(vec![("a.json".into(), first.clone())]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "shard 2 of 2 is missing: merge every shard of the run"
        );
        let err = merge(vec![
            ("a.json".into(), first.clone()),
            ("a2.json".into(), first.clone()),
        ])
        .unwrap_err();
        assert!(matches!(err, MergeError::Twice { index: 1, .. }), "{err}");
        let err = merge(vec![("w.json".into(), whole)]).unwrap_err();
        assert!(
            err.to_string().starts_with("w.json is not a shard"),
            "{err}"
        );
        let mut edited = second.clone();
        edited.files[0].digest = Some("other".into());
        let err = merge(vec![
            ("a.json".into(), first.clone()),
            ("b.json".into(), edited),
        ])
        .unwrap_err();
        assert!(
            err.to_string().contains("differ in the contents of a.c"),
            "{err}"
        );
        let mut other_split = second;
        other_split.shard = Some(Shard {
            index: 2,
            count: 3,
            suite_tests: 5,
        });
        let err = merge(vec![
            ("a.json".into(), first),
            ("b.json".into(), other_split),
        ])
        .unwrap_err();
        assert!(matches!(err, MergeError::DifferentSplits { .. }), "{err}");
    }

    #[test]
    fn executable_lines_are_the_union_of_the_shards_and_a_test_twice_is_refused() {
        let (_, first, mut second) = whole_and_halves();
        second.files[0].lines = vec![1, 2, 3, 4];
        let merged = merge(vec![
            ("a".into(), first.clone()),
            ("b".into(), second.clone()),
        ])
        .unwrap();
        assert_eq!(merged.files[0].lines, [1, 2, 3, 4]);
        second.tests[0].name = "t0".into();
        let err = merge(vec![("a".into(), first), ("b".into(), second)]).unwrap_err();
        assert!(err.to_string().contains("\"t0\" is listed twice"), "{err}");
    }

    #[test]
    fn a_hostile_split_is_refused_before_anything_is_allocated_for_it() {
        let huge = Shard {
            index: 1,
            count: u32::MAX,
            suite_tests: 0,
        };
        // More shards than tests is a real split (a fixed CI matrix over a
        // small suite): the shards past the tests are empty.
        assert!(huge.check(0).is_ok());
        assert!(huge.check(1).is_err());
        let (_, mut first, _) = whole_and_halves();
        first.shard = Some(Shard {
            index: 1,
            count: u32::MAX,
            suite_tests: u32::MAX,
        });
        // Its own test count gives it away.
        assert!(matches!(
            merge(vec![("a".into(), first.clone())]),
            Err(MergeError::Invalid { .. })
        ));
        // A record true of its one test: billions of shards are missing,
        // and the message names ten.
        first.tests.truncate(1);
        let err = merge(vec![("a".into(), first)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "shards 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, and 4294967284 more of 4294967295 are missing: merge every shard of the run"
        );
    }

    #[test]
    fn a_split_into_more_shards_than_tests_merges_with_its_empty_shards() {
        let (whole, ..) = whole_and_halves();
        let shards: Vec<(String, RunResults)> = (1..=7u32)
            .map(|k| {
                let mut part = whole.clone();
                part.tests = whole
                    .tests
                    .iter()
                    .skip(k as usize - 1)
                    .step_by(7)
                    .cloned()
                    .collect();
                part.shard = Some(Shard {
                    index: k,
                    count: 7,
                    suite_tests: 5,
                });
                (format!("s{k}"), part)
            })
            .collect();
        assert_eq!(merge(shards).unwrap(), whole);
    }

    #[test]
    fn a_shard_record_must_match_its_tests() {
        let s = Shard {
            index: 2,
            count: 2,
            suite_tests: 5,
        };
        assert!(s.check(2).is_ok());
        assert!(s.check(3).is_err());
        assert!(Shard { index: 3, ..s }.check(0).is_err());
    }
}
