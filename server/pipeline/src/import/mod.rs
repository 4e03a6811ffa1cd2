//! `faultlens import`: per-test coverage and verdicts that something else
//! collected (a CI job's artifacts) turned into the results document,
//! without building or running anything.
//!
//! Coverage: lcov tracefiles with one `TN:` per test (`lcov --capture
//! --test-name NAME` after each test), or gcov's JSON per test (`gcov -j -t`
//! on the test's `.gcda` files, one file per test, named after it).
//! Verdicts: JUnit XML. A test is imported when both name it; names match
//! exactly, or with every character other than a letter or digit read as
//! `_` (lcov allows only those in `TN:`).

mod lcov;

use crate::assemble::{now_unix_ms, suite_kind, union, FileTable};
use crate::error::{PipelineError, Result};
use crate::gcov::{self, Coverage};
use crate::project::Project;
use faultlens_core::results::{Outcome, RunResults, TestRecord, FORMAT_VERSION};
use faultlens_workspace::devruns::{self, DevVerdict};
use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

/// What to import.
#[derive(Debug, Default)]
pub struct ImportFiles {
    pub lcov: Vec<PathBuf>,
    pub gcov_json: Vec<PathBuf>,
    pub junit: Vec<PathBuf>,
}

/// The results, and what was left out and why (for the user to read).
#[derive(Debug)]
pub struct Imported {
    pub results: RunResults,
    pub notes: Vec<String>,
}

/// Files larger than this are not coverage of one test suite.
const COVERAGE_LIMIT: u64 = faultlens_confine::limits::RESULTS;

pub fn import(project: &Project, files: &ImportFiles) -> Result<Imported> {
    let bad = |path: &Path, message: String| {
        PipelineError::Import(format!("{}: {message}", path.display()))
    };
    if files.junit.is_empty() {
        return Err(PipelineError::Import(
            "no JUnit report: give the verdicts with --junit REPORT.xml".into(),
        ));
    }
    if files.lcov.is_empty() && files.gcov_json.is_empty() {
        return Err(PipelineError::Import(
            "no coverage: give --lcov FILE.info or --gcov-json FILE.json (one per test)".into(),
        ));
    }
    let mut covered: Vec<(String, Coverage)> = Vec::new();
    for path in &files.lcov {
        let text = read_text(path)?;
        for (name, coverage) in lcov::parse(&text, &stem(path)).map_err(|m| bad(path, m))? {
            add_test(&mut covered, name, coverage);
        }
    }
    for path in &files.gcov_json {
        let text = read_text(path)?;
        let mut coverage = Coverage::new();
        gcov::parse_output(&text, &mut coverage).map_err(|e| bad(path, e.to_string()))?;
        add_test(&mut covered, stem(path), coverage);
    }

    let mut verdicts: Vec<(String, DevVerdict, String)> = Vec::new();
    // A case's failure message and time, by name.
    let mut details: HashMap<String, (Option<String>, Option<u64>)> = HashMap::new();
    for path in &files.junit {
        let report = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let tests =
            devruns::read_junit_file(path).map_err(|e| PipelineError::Import(e.to_string()))?;
        for case in tests {
            details.insert(case.test.name.clone(), (case.message, case.time_ms));
            verdicts.push((case.test.name, case.test.verdict, report.clone()));
        }
    }

    let mut reported: HashMap<&str, &str> = HashMap::new();
    for (name, _, report) in &verdicts {
        if let Some(first) = reported.insert(name, report) {
            return Err(PipelineError::Import(format!(
                "test {name:?} is named twice in the JUnit reports ({first} and {report}): a test is imported once; give each report once, or name the tests apart"
            )));
        }
    }
    let mut notes = Vec::new();
    let by_name = match_names(&covered, &verdicts, &mut notes);
    let mut chosen: Vec<(TestRecord, &Coverage)> = Vec::new();
    let mut skipped = Vec::new();
    let mut uncovered = Vec::new();
    for (name, verdict, report) in &verdicts {
        let outcome = match verdict {
            DevVerdict::Passed => Outcome::Passed,
            DevVerdict::Failed => Outcome::Failed,
            DevVerdict::Skipped => {
                skipped.push(name.as_str());
                continue;
            }
        };
        let Some(&i) = by_name.get(name.as_str()) else {
            uncovered.push(name.as_str());
            continue;
        };
        let mut record = TestRecord::new(name.clone(), outcome);
        let (message, time_ms) = details.remove(name).unwrap_or_default();
        if outcome == Outcome::Failed {
            record.reason = Some(match message {
                Some(message) => format!("{message} (in {report})"),
                None => format!("failed in {report}"),
            });
        }
        record.duration_ms = time_ms.unwrap_or(0);
        chosen.push((record, &covered[i].1));
    }
    note_names(&mut notes, "skipped in the report, left out", &skipped);
    note_names(
        &mut notes,
        "in the report without coverage, left out",
        &uncovered,
    );
    if chosen.is_empty() {
        return Err(PipelineError::Import(format!(
            "no test is both in the coverage ({} tests) and in the JUnit report ({} tests) under one name: lcov's TN: (or a gcov JSON file's name) must be the test case's name, with `_` for any character other than a letter or digit",
            covered.len(),
            verdicts.len()
        )));
    }

    let root = project
        .root
        .canonicalize()
        .unwrap_or_else(|_| project.root.clone());
    let mapper = PathMapper::new(&root, chosen.iter().flat_map(|(_, c)| c.keys()));
    let to_relative = |path: &Path| mapper.relative(path);
    let executable = union(chosen.iter().map(|(_, c)| *c));
    let digests = crate::store::digest_sources(&project.root);
    let table = FileTable::new(
        project,
        &executable,
        chosen.iter().map(|(_, c)| *c),
        &to_relative,
        &digests,
    );
    if table.files.is_empty() {
        return Err(PipelineError::Import(format!(
            "none of the covered source files is in the project at {}: give the project's root as PATH, with the sources the coverage was collected from",
            root.display()
        )));
    }
    let tests = chosen
        .into_iter()
        .map(|(mut record, coverage)| {
            record.coverage = table.coverage_of(coverage, &to_relative);
            record
        })
        .collect();
    Ok(Imported {
        results: RunResults {
            format_version: FORMAT_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            created_unix_ms: now_unix_ms(),
            project_root: root.to_string_lossy().into_owned(),
            suite: suite_kind(project),
            files: table.files,
            tests,
            shard: None,
            notes: Vec::new(),
        },
        notes,
    })
}

fn read_text(path: &Path) -> Result<String> {
    let bytes = faultlens_confine::read_regular(path, COVERAGE_LIMIT)
        .map_err(|e| PipelineError::Import(format!("{}: {}", path.display(), e.reason())))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A file's name without `.info`, `.json` or `.gcov.json`: the test it holds.
fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    for suffix in [".gcov.json", ".json", ".info"] {
        if let Some(stem) = name.strip_suffix(suffix) {
            return stem.to_string();
        }
    }
    name
}

fn add_test(covered: &mut Vec<(String, Coverage)>, name: String, coverage: Coverage) {
    match covered.iter_mut().find(|(n, _)| *n == name) {
        Some((_, into)) => {
            for (path, counts) in coverage {
                lcov::add(into, path, counts);
            }
        }
        None => covered.push((name, coverage)),
    }
}

/// A name as lcov would write it in `TN:`.
fn loose(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The report's names → the index of their coverage; coverage no report
/// names is noted.
fn match_names<'a>(
    covered: &[(String, Coverage)],
    verdicts: &'a [(String, DevVerdict, String)],
    notes: &mut Vec<String>,
) -> HashMap<&'a str, usize> {
    let exact: HashMap<&str, usize> = covered
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i))
        .collect();
    let mut loosely: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, (n, _)) in covered.iter().enumerate() {
        loosely.entry(loose(n)).or_default().push(i);
    }
    let mut matched = HashMap::new();
    for (name, _, _) in verdicts {
        let found = exact.get(name.as_str()).copied().or_else(|| {
            match loosely.get(&loose(name)).map(Vec::as_slice) {
                Some([one]) => Some(*one),
                _ => None,
            }
        });
        if let Some(i) = found {
            matched.insert(name.as_str(), i);
        }
    }
    let used: std::collections::HashSet<usize> = matched.values().copied().collect();
    let unnamed: Vec<&str> = covered
        .iter()
        .enumerate()
        .filter(|(i, _)| !used.contains(i))
        .map(|(_, (n, _))| n.as_str())
        .collect();
    note_names(
        notes,
        "covered but not in the JUnit report, left out",
        &unnamed,
    );
    matched
}

fn note_names(notes: &mut Vec<String>, what: &str, names: &[&str]) {
    if names.is_empty() {
        return;
    }
    let shown: Vec<&str> = names.iter().take(5).copied().collect();
    let more = match names.len() - shown.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    notes.push(format!(
        "{} test{} {what}: {}{more}",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        shown.join(", ")
    ));
}

/// Source paths as another machine wrote them, mapped into the project:
/// under the project's root as they are; else under the one checkout
/// directory the others share. That directory is the prefix left when the
/// longest tail of a path that names a project file is taken off, the
/// prefix most paths agree on (then the one with the longer tails), so a
/// system header that happens to share a project file's name
/// (`/usr/include/assert.h`) does not map to it.
struct PathMapper {
    root: PathBuf,
    checkout: Option<PathBuf>,
}

/// Tails longer than this many components are not tried: source trees are
/// not deeper, and a hostile path of thousands of parts costs nothing.
const MAX_TAIL: usize = 32;

impl PathMapper {
    fn new<'a>(root: &Path, paths: impl Iterator<Item = &'a PathBuf>) -> PathMapper {
        let mut mapper = PathMapper {
            root: root.to_path_buf(),
            checkout: None,
        };
        // prefix → (paths it maps, their tails' components)
        let mut votes: BTreeMap<PathBuf, (usize, usize)> = BTreeMap::new();
        for path in paths {
            let path = crate::paths::normalize(path);
            if path.starts_with(&mapper.root) {
                continue;
            }
            if let Some((prefix, parts)) = mapper.longest_tail(&path) {
                let vote = votes.entry(prefix).or_default();
                vote.0 += 1;
                vote.1 += parts;
            }
        }
        mapper.checkout = votes
            .into_iter()
            .max_by_key(|(_, vote)| *vote)
            .map(|(prefix, _)| prefix);
        mapper
    }

    /// The prefix and length of the longest tail of `path` (at most
    /// [`MAX_TAIL`] parts) that names a file in the project.
    fn longest_tail(&self, path: &Path) -> Option<(PathBuf, usize)> {
        let names = normal_parts(path)?;
        let first = names.len().saturating_sub(MAX_TAIL);
        (first..names.len()).find_map(|i| {
            let rel = names[i..].join("/");
            self.in_project(&rel).then(|| {
                let prefix: PathBuf = std::iter::once("/".to_string())
                    .chain(names[..i].iter().cloned())
                    .collect();
                (prefix, names.len() - i)
            })
        })
    }

    fn in_project(&self, rel: &str) -> bool {
        rel.split('/').next() != Some(faultlens_confine::WORK_DIR)
            && faultlens_confine::confined(&self.root, rel).is_ok_and(|p| p.is_file())
    }

    fn relative(&self, path: &Path) -> Option<String> {
        let path = crate::paths::normalize(path);
        let inside = path
            .strip_prefix(&self.root)
            .ok()
            .or_else(|| path.strip_prefix(self.checkout.as_ref()?).ok())?;
        let parts = normal_parts(inside)?;
        let rel = parts.join("/");
        (!parts.is_empty() && parts.len() <= MAX_TAIL && self.in_project(&rel)).then_some(rel)
    }
}

/// The names of a path's parts; `None` for a path that is not plain names
/// under the root (after normalizing) or is too long to be a source path.
fn normal_parts(path: &Path) -> Option<Vec<String>> {
    if path.as_os_str().len() > 4096 {
        return None;
    }
    path.components()
        .filter(|c| !matches!(c, Component::RootDir))
        .map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_from_another_checkout_map_under_the_checkout_most_paths_share() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/calc.c"), "int main(void){}\n").unwrap();
        std::fs::write(root.join("assert.h"), "/* the project's own */\n").unwrap();
        let paths: Vec<PathBuf> = [
            "/builds/ci/project/src/calc.c",
            "/builds/ci/project/assert.h",
            "/usr/include/assert.h",
            "/usr/include/stdio.h",
        ]
        .iter()
        .map(PathBuf::from)
        .chain([root.join("src/calc.c")])
        .collect();
        let mapper = PathMapper::new(&root, paths.iter());
        let map = |p: &Path| mapper.relative(p);
        assert_eq!(map(&root.join("src/calc.c")).as_deref(), Some("src/calc.c"));
        assert_eq!(map(&paths[0]).as_deref(), Some("src/calc.c"));
        assert_eq!(map(&paths[1]).as_deref(), Some("assert.h"));
        // A system header named like a project file stays out.
        assert_eq!(map(&paths[2]), None);
        assert_eq!(map(&paths[3]), None);
        assert_eq!(map(Path::new("/builds/ci/project/.faultlens/x.c")), None);
        let deep = format!("/{}/calc.c", vec!["a"; 5000].join("/"));
        assert_eq!(map(Path::new(&deep)), None);
    }

    #[test]
    fn names_match_exactly_or_as_lcov_writes_them() {
        let covered = vec![
            ("first_middle".to_string(), Coverage::new()),
            ("stray".to_string(), Coverage::new()),
        ];
        let verdicts = vec![
            (
                "first-middle".to_string(),
                DevVerdict::Failed,
                "r.xml".to_string(),
            ),
            (
                "absent".to_string(),
                DevVerdict::Passed,
                "r.xml".to_string(),
            ),
        ];
        let mut notes = Vec::new();
        let matched = match_names(&covered, &verdicts, &mut notes);
        assert_eq!(matched.get("first-middle"), Some(&0));
        assert_eq!(matched.get("absent"), None);
        assert_eq!(
            notes,
            ["1 test covered but not in the JUnit report, left out: stray"]
        );
        assert_eq!(stem(Path::new("a/t-1.gcov.json")), "t-1");
        assert_eq!(stem(Path::new("t_2.info")), "t_2");
    }
}
