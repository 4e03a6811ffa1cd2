//! From per-test line counts to the results document's files and coverage:
//! shared by a run (`localize`) and by coverage others collected (`import`),
//! so both keep the same lines (executable, not excluded, no signature
//! lines) and number files the same way.

use crate::gcov::{self, Coverage};
use crate::project::Project;
use faultlens_core::results::{FileCoverage, LineBranches, SourceFile, SuiteKind};
use std::collections::BTreeMap;
use std::path::Path;

/// The project-relative path of a source path, `None` outside the project.
pub type ToRelative<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// The files of a results document and the index of each by path.
pub struct FileTable {
    pub files: Vec<SourceFile>,
    pub index: BTreeMap<String, u32>,
}

impl FileTable {
    /// Every file `executable` maps (all its lines) or a test ran (the lines
    /// it ran), minus excluded files and the signature lines of functions
    /// with a body; test code marked; digests from `digests`.
    pub fn new<'a>(
        project: &Project,
        executable: &Coverage,
        tests: impl Iterator<Item = &'a Coverage>,
        to_relative: ToRelative,
        digests: &BTreeMap<String, String>,
    ) -> FileTable {
        let test_code = patterns(&project.test_code_globs());
        let excluded = patterns(&project.config.project.exclude);
        let mut files: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        let mut add_lines = |coverage: &Coverage, only_executed: bool| {
            for (path, counts) in coverage {
                let Some(rel) = to_relative(path) else {
                    continue;
                };
                if excluded.iter().any(|p| p.matches(&rel)) {
                    continue;
                }
                let lines = files.entry(rel).or_default();
                lines.extend(
                    counts
                        .lines
                        .iter()
                        .filter(|(_, (c, _))| !only_executed || *c > 0)
                        .map(|(l, _)| *l),
                );
            }
        };
        add_lines(executable, false);
        for coverage in tests {
            add_lines(coverage, true);
        }
        // Lines that are not statements a developer could fix.
        let mut signatures: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (path, counts) in executable {
            if let Some(rel) = to_relative(path) {
                signatures
                    .entry(rel)
                    .or_default()
                    .extend(gcov::signature_lines(counts));
            }
        }
        for (path, lines) in files.iter_mut() {
            lines.sort_unstable();
            lines.dedup();
            if let Some(drop) = signatures.get(path) {
                lines.retain(|l| !drop.contains(l));
            }
        }
        let index = files
            .keys()
            .enumerate()
            .map(|(i, p)| (p.clone(), i as u32))
            .collect();
        let files = files
            .into_iter()
            .map(|(path, lines)| SourceFile {
                test_code: test_code.iter().any(|p| p.matches(&path)),
                digest: digests.get(&path).cloned(),
                path,
                lines,
            })
            .collect();
        FileTable { files, index }
    }

    /// One test's coverage of the table's files: the lines it ran, with
    /// their counts and branch counts, by file index. Source paths that
    /// name one file (two spellings of it in imported coverage) add up.
    pub fn coverage_of(&self, coverage: &Coverage, to_relative: ToRelative) -> Vec<FileCoverage> {
        let mut by_file: BTreeMap<u32, BTreeMap<u32, (u64, Vec<u64>)>> = BTreeMap::new();
        for (path, counts) in coverage {
            let Some(file) = to_relative(path).and_then(|rel| self.index.get(&rel).copied()) else {
                continue;
            };
            let lines = by_file.entry(file).or_default();
            for (line, (count, branches)) in counts.lines.iter().filter(|(_, (c, _))| *c > 0) {
                gcov::add_counts(
                    lines.entry(*line).or_insert((0, Vec::new())),
                    *count,
                    branches,
                );
            }
        }
        by_file
            .into_iter()
            .filter(|(_, lines)| !lines.is_empty())
            .map(|(file, lines)| FileCoverage {
                file,
                lines: lines.keys().copied().collect(),
                counts: lines.values().map(|(c, _)| *c).collect(),
                branches: lines
                    .iter()
                    .filter(|(_, (_, b))| !b.is_empty())
                    .map(|(l, (_, b))| LineBranches {
                        line: *l,
                        counts: b.clone(),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// Every line any of the coverages maps, with the functions they define.
pub fn union<'a>(coverages: impl Iterator<Item = &'a Coverage>) -> Coverage {
    let mut all = Coverage::new();
    for coverage in coverages {
        for (path, counts) in coverage {
            let entry = all.entry(path.clone()).or_default();
            for line in counts.lines.keys() {
                entry.lines.entry(*line).or_insert((0, Vec::new()));
            }
            for f in &counts.functions {
                if !entry.functions.contains(f) {
                    entry.functions.push(*f);
                }
            }
        }
    }
    all
}

/// The results document's name for the project's kind of suite.
pub fn suite_kind(project: &Project) -> SuiteKind {
    match project.kind {
        crate::config::Kind::Io => SuiteKind::Io,
        crate::config::Kind::Ctest => SuiteKind::Ctest,
        crate::config::Kind::Runner => SuiteKind::Runner,
        crate::config::Kind::Meson => SuiteKind::Meson,
        crate::config::Kind::Make => SuiteKind::Make,
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn patterns(globs: &[String]) -> Vec<glob::Pattern> {
    globs
        .iter()
        .filter_map(|g| glob::Pattern::new(g).ok())
        .collect()
}
