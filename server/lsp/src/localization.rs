//! The ranking the editor shows: spectra and ranks computed from one
//! `RunResults` under one measure, with lookups by file and line.

use faultlens_blockrank::{BlockDetail, LineScores};
use faultlens_core::measures::{Formula, Ranker};
use faultlens_core::ranking::Ranked;
use faultlens_core::results::{RunResults, TestRecord, Verdict};
use faultlens_core::spectra::{Counts, Spectra};
use faultlens_report::Analysis;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::ls_types::Uri;

/// Results of one run, ranked.
#[derive(Debug)]
pub struct Localization {
    pub results: Arc<RunResults>,
    pub measure: Ranker,
    /// Workspace root the results' relative paths hang off.
    pub root: PathBuf,
    pub spectra: Spectra,
    /// Every component in rank order.
    pub ranking: Vec<Ranked>,
    /// How many components failing tests ran (`ef > 0`): the lines worth reading.
    pub suspicious: usize,
    /// Files modified on disk after the run (their lines may have moved):
    /// filled in by the edge that reads the disk.
    pub changed_on_disk: HashSet<u32>,
    /// Under BlockRank: the blocks and edges behind each line's score.
    pub blockrank: Option<LineScores>,
    /// (file index, 1-based line) → index into `ranking`.
    position: HashMap<(u32, u32), usize>,
}

/// One ranked line, with what every view needs about it.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// Index into `results.files`.
    pub file: u32,
    /// 1-based line, as in the results.
    pub line: u32,
    pub ranked: &'a Ranked,
    pub counts: Counts,
}

impl Localization {
    /// Ranks under a spectrum formula (the other rankers need the files'
    /// text or the diagnosis: see `reload::rank`).
    pub fn new(results: impl Into<Arc<RunResults>>, formula: Formula, root: &Path) -> Localization {
        Localization::from_analysis(Analysis::by_formula(results.into(), formula, false), root)
    }

    /// The editor's view of an analysis computed by `faultlens_report`
    /// (the same one the CLI prints).
    pub fn from_analysis(analysis: Analysis, root: &Path) -> Localization {
        let Analysis {
            results,
            measure,
            spectra,
            ranking,
            blockrank,
        } = analysis;
        Localization::from_parts(results, measure, root, spectra, ranking, blockrank)
    }

    fn from_parts(
        results: Arc<RunResults>,
        measure: Ranker,
        root: &Path,
        spectra: Spectra,
        ranking: Vec<Ranked>,
        blockrank: Option<LineScores>,
    ) -> Localization {
        let position = ranking
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let c = spectra.components[r.component];
                ((c.file, c.line), i)
            })
            .collect();
        let suspicious = spectra.counts.iter().filter(|c| c.ef > 0).count();
        Localization {
            results,
            measure,
            root: root.to_path_buf(),
            spectra,
            ranking,
            suspicious,
            changed_on_disk: HashSet::new(),
            blockrank,
            position,
        }
    }

    /// Under BlockRank, the block a ranked line takes its score from.
    pub fn block(&self, entry: &Entry) -> Option<&BlockDetail> {
        self.blockrank
            .as_ref()?
            .detail(entry.file as usize, entry.line)
    }

    fn entry_at(&self, index: usize) -> Entry<'_> {
        let ranked = &self.ranking[index];
        let component = self.spectra.components[ranked.component];
        Entry {
            file: component.file,
            line: component.line,
            ranked,
            counts: self.spectra.counts[ranked.component],
        }
    }

    /// The ranked line at a 1-based line of a file, if it is executable.
    pub fn entry(&self, file: u32, line: u32) -> Option<Entry<'_>> {
        self.position.get(&(file, line)).map(|&i| self.entry_at(i))
    }

    /// Lines failing tests ran, in rank order.
    pub fn suspicious_entries(&self) -> impl Iterator<Item = Entry<'_>> {
        (0..self.ranking.len())
            .map(|i| self.entry_at(i))
            .filter(|e| e.counts.ef > 0)
    }

    /// The suspicious lines whose best rank is within `n`: a tie group that
    /// straddles the limit is shown whole, because its members are
    /// indistinguishable.
    pub fn top(&self, n: usize) -> impl Iterator<Item = Entry<'_>> {
        self.suspicious_entries()
            .filter(move |e| (e.ranked.rank.best as usize) <= n)
    }

    /// The failing tests that ran a ranked line, in the results' order.
    pub fn failing_tests(&self, entry: &Entry) -> Vec<&TestRecord> {
        self.spectra
            .tests_covering(entry.ranked.component)
            .map(|t| &self.results.tests[t])
            .filter(|t| t.verdict == Verdict::Fail)
            .collect()
    }

    /// How many tests failed and how many ran.
    pub fn failed_and_total(&self) -> (usize, usize) {
        (self.results.failed_count(), self.results.tests.len())
    }

    /// Index of the file with this path relative to the root.
    pub fn file_index(&self, relative: &str) -> Option<u32> {
        self.results
            .files
            .iter()
            .position(|f| f.path == relative)
            .map(|i| i as u32)
    }

    /// Absolute path of a file named relative to the root.
    pub fn path_of(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// `file://` URI of a file named relative to the root.
    pub fn uri_of(&self, relative: &str) -> Option<Uri> {
        Uri::from_file_path(self.path_of(relative))
    }

    /// Indices of files that hold at least one suspicious line.
    pub fn files_with_results(&self) -> Vec<u32> {
        let mut files: Vec<u32> = self.suspicious_entries().map(|e| e.file).collect();
        files.sort_unstable();
        files.dedup();
        files
    }
}

/// A score for people: two decimals, whole numbers without them, infinity
/// spelled out.
pub fn format_score(score: f64) -> String {
    if score.is_infinite() {
        if score > 0.0 {
            "∞".into()
        } else {
            "-∞".into()
        }
    } else if score.fract() == 0.0 && score.abs() < 1e15 {
        format!("{score:.0}")
    } else {
        format!("{score:.2}")
    }
}

/// A score with more digits, for the hover's table.
pub fn format_score_precise(score: f64) -> String {
    if score.is_infinite() {
        format_score(score)
    } else if score.fract() == 0.0 && score.abs() < 1e15 {
        format!("{score:.0}")
    } else {
        format!("{score:.4}")
    }
}

/// "#1", or "#2–4 (tied)" for a tie group.
pub fn format_rank(entry: &Entry) -> String {
    let rank = entry.ranked.rank;
    if rank.best == rank.worst {
        format!("#{}", rank.best)
    } else {
        format!("#{}–{} (tied)", rank.best, rank.worst)
    }
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Results documents written by hand for the unit tests.
    use faultlens_core::results::*;

    fn test(name: &str, outcome: Outcome, lines: &[u32]) -> TestRecord {
        TestRecord {
            name: name.into(),
            verdict: outcome.verdict(),
            outcome,
            reason: (outcome != Outcome::Passed).then(|| format!("{name} printed the wrong total")),
            exit_code: Some(if outcome == Outcome::Passed { 0 } else { 1 }),
            signal: None,
            duration_ms: 3,
            location: (name == "sum_negative").then(|| Location {
                file: "tests/cases.txt".into(),
                line: 7,
            }),
            stdout: String::new(),
            stderr: String::new(),
            output_truncated: false,
            coverage: vec![FileCoverage {
                file: 0,
                lines: lines.to_vec(),
                counts: vec![1; lines.len()],
                branches: vec![],
            }],
        }
    }

    /// `src/sum.c` with executable lines 3..=8; line 6 is the bug: both
    /// failing tests run it, one of three passing tests does.
    pub fn results() -> RunResults {
        RunResults {
            format_version: FORMAT_VERSION,
            tool_version: "test".into(),
            created_unix_ms: 0,
            project_root: "/project".into(),
            suite: SuiteKind::Io,
            files: vec![
                SourceFile {
                    path: "src/sum.c".into(),
                    test_code: false,
                    lines: vec![3, 4, 5, 6, 7, 8],
                    digest: None,
                },
                SourceFile {
                    path: "tests/driver.c".into(),
                    test_code: true,
                    lines: vec![1],
                    digest: None,
                },
            ],
            tests: vec![
                test("sum_negative", Outcome::Failed, &[3, 4, 5, 6, 8]),
                test("sum_mixed", Outcome::Crashed, &[3, 4, 6, 8]),
                test("sum_empty", Outcome::Passed, &[3, 8]),
                test("sum_one", Outcome::Passed, &[3, 4, 5, 7, 8]),
                test("sum_many", Outcome::Passed, &[3, 4, 6, 7, 8]),
            ],
            shard: None,
            notes: Vec::new(),
        }
    }

    pub const SOURCE: &str = "#include <stdio.h>\n\nint sum(int *a, int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++)\n    s += a[i] > 0 ? a[i] : 0;\n  return s;\n}\n";
}

#[cfg(test)]
mod tests {
    use super::fixtures::results;
    use super::*;

    #[test]
    fn ranks_the_line_every_failing_test_ran_first() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        let first = loc.suspicious_entries().next().unwrap();
        assert_eq!((first.file, first.line), (0, 6));
        assert_eq!(first.counts, Counts::new(2, 0, 1, 2));
        assert_eq!(format_rank(&first), "#1");
        // Test code is not ranked; every executable line of sum.c is.
        assert_eq!(loc.ranking.len(), 6);
        assert_eq!(loc.suspicious, 5);
        let names: Vec<&str> = loc
            .failing_tests(&first)
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["sum_negative", "sum_mixed"]);
        assert_eq!(loc.failed_and_total(), (2, 5));
        assert!(loc.entry(0, 7).unwrap().counts.ef == 0);
        assert!(loc.entry(0, 1).is_none());
    }

    #[test]
    fn top_keeps_whole_tie_groups() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        // Ochiai: line 6 (0.82), line 4 (0.71), lines 3 and 8 tied (0.63,
        // ranks 3–4), line 5 (0.5). The top 3 includes the whole tie group.
        let top: Vec<u32> = loc.top(3).map(|e| e.line).collect();
        assert_eq!(top, [6, 4, 3, 8]);
        assert_eq!(loc.top(2).count(), 2);
        let tied = loc.entry(0, 8).unwrap();
        assert_eq!(format_rank(&tied), "#3–4 (tied)");
    }

    #[test]
    fn scores_read_well() {
        assert_eq!(format_score(0.94281), "0.94");
        assert_eq!(format_score(3.0), "3");
        assert_eq!(format_score(f64::INFINITY), "∞");
        assert_eq!(format_score_precise(0.942809), "0.9428");
    }

    #[test]
    fn uris_hang_off_the_root() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        assert_eq!(
            loc.uri_of("src/sum.c").unwrap().as_str(),
            "file:///project/src/sum.c"
        );
        assert_eq!(loc.file_index("src/sum.c"), Some(0));
        assert_eq!(loc.files_with_results(), vec![0]);
    }
}
