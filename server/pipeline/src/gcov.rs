//! Reading coverage counters with `gcov -j -t -b` (JSON on stdout).
//!
//! A test's counters are `.gcda` files, moved out of the prefix tree it
//! wrote them in (`gcda.rs`). gcov finds the matching notes (`.gcno`)
//! beside the `.gcda`, so the notes are symlinked there first.

use crate::error::{PipelineError, Result};
use crate::gcda::DataFile;
use crate::paths::normalize;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Line counts of one source file, summed over every object that covers it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileCounts {
    /// line → (count, branch counts in gcov's order)
    pub lines: BTreeMap<u32, (u64, Vec<u64>)>,
    /// `(start line, end line)` of each function defined in the file.
    pub functions: Vec<(u32, u32)>,
}

/// Absolute source path → its counts.
pub type Coverage = BTreeMap<PathBuf, FileCounts>;

#[derive(Deserialize)]
struct Document {
    current_working_directory: Option<String>,
    /// The `.gcda` path as gcov was given it: tells batched output apart.
    #[serde(default)]
    data_file: String,
    #[serde(default)]
    files: Vec<JsonFile>,
}

#[derive(Deserialize)]
struct JsonFile {
    file: String,
    #[serde(default)]
    lines: Vec<JsonLine>,
    #[serde(default)]
    functions: Vec<JsonFunction>,
}

#[derive(Deserialize)]
struct JsonFunction {
    start_line: u32,
    end_line: u32,
}

#[derive(Deserialize)]
struct JsonLine {
    line_number: u32,
    count: u64,
    #[serde(default)]
    branches: Vec<JsonBranch>,
}

#[derive(Deserialize)]
struct JsonBranch {
    count: u64,
}

/// Parses gcov's JSON output (one document per line) into `into`.
pub fn parse_output(text: &str, into: &mut Coverage) -> Result<()> {
    for (_, doc) in documents(text)? {
        merge(doc, into);
    }
    Ok(())
}

/// Every document of gcov's output with the data file it describes.
fn documents(text: &str) -> Result<Vec<(PathBuf, Document)>> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Document>()
        .map(|doc| {
            let doc = doc.map_err(|e| {
                PipelineError::Coverage(format!("gcov printed JSON faultlens cannot read: {e}"))
            })?;
            Ok((PathBuf::from(&doc.data_file), doc))
        })
        .collect()
}

fn merge(doc: Document, into: &mut Coverage) {
    let cwd = PathBuf::from(doc.current_working_directory.unwrap_or_default());
    for file in doc.files {
        let path = normalize(&cwd.join(&file.file));
        let entry = into.entry(path).or_default();
        for f in &file.functions {
            if !entry.functions.contains(&(f.start_line, f.end_line)) {
                entry.functions.push((f.start_line, f.end_line));
            }
        }
        for line in file.lines {
            let branches: Vec<u64> = line.branches.iter().map(|b| b.count).collect();
            let slot = entry
                .lines
                .entry(line.line_number)
                .or_insert((0, Vec::new()));
            add_counts(slot, line.count, &branches);
        }
    }
}

/// Runs gcov on `data_files` (`.gcda` or `.gcno` paths) in `cwd`, calling
/// `each` with every document and the data file it describes.
fn run_gcov(
    gcov: &str,
    data_files: &[PathBuf],
    cwd: &Path,
    mut each: impl FnMut(PathBuf, Document),
) -> Result<()> {
    // Keep each command line well below the kernel's limit.
    for chunk in data_files.chunks(200) {
        let out = Command::new(gcov)
            .args(["-j", "-t", "-b"])
            .args(chunk)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| PipelineError::MissingTool {
                tool: format!("`{gcov}`"),
                why: e.to_string(),
                hint: "gcov comes with gcc (Debian/Ubuntu: `sudo apt-get install gcc`)".into(),
            })?;
        let text = String::from_utf8_lossy(&out.stdout);
        if text.trim().is_empty() && !out.status.success() {
            return Err(PipelineError::Coverage(format!(
                "`{gcov}` failed on {}: {}",
                chunk[0].display(),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        for (data_file, doc) in documents(&text)? {
            each(data_file, doc);
        }
    }
    Ok(())
}

/// The counts each test wrote, one [`Coverage`] per test, read with as few
/// gcov processes as the command line allows. `tests[i]` are the `.gcda`
/// files test `i` wrote (see `gcda::gather`); `notes` maps each `.gcda`
/// path the build would use (object path with `.gcda`) to its `.gcno`.
/// Files no notes file asked for are not read.
pub fn read_coverage(
    gcov: &str,
    tests: &[Vec<DataFile>],
    notes: &BTreeMap<PathBuf, PathBuf>,
) -> Result<Vec<Coverage>> {
    let mut data = Vec::new();
    let mut owner = std::collections::HashMap::new();
    for (i, files) in tests.iter().enumerate() {
        for file in files {
            let Some(gcno) = notes.get(&file.written_for) else {
                continue;
            };
            // gcov finds the notes beside the data file, by its name.
            let link = file.kept_at.with_extension("gcno");
            if !link.exists() {
                std::os::unix::fs::symlink(gcno, &link).map_err(|e| {
                    PipelineError::io(
                        format!("linking {} into {}", gcno.display(), link.display()),
                        e,
                    )
                })?;
            }
            owner.insert(file.kept_at.clone(), i);
            data.push(file.kept_at.clone());
        }
    }
    let mut coverage = vec![Coverage::new(); tests.len()];
    run_gcov(gcov, &data, Path::new("/"), |data_file, doc| {
        if let Some(&i) = owner.get(&data_file) {
            merge(doc, &mut coverage[i]);
        }
    })?;
    Ok(coverage)
}

/// Every executable line of every instrumented file, from the notes alone
/// (gcov reports them with count 0 when there is no data file). The notes
/// are linked into `scratch` so no stray `.gcda` beside them is read.
pub fn executable_lines(gcov: &str, notes: &[PathBuf], scratch: &Path) -> Result<Coverage> {
    let _ = std::fs::remove_dir_all(scratch);
    std::fs::create_dir_all(scratch)
        .map_err(|e| PipelineError::io(format!("creating {}", scratch.display()), e))?;
    let mut links = Vec::new();
    for (i, gcno) in notes.iter().enumerate() {
        let link = scratch.join(format!("n{i}.gcno"));
        std::os::unix::fs::symlink(gcno, &link)
            .map_err(|e| PipelineError::io(format!("linking {}", gcno.display()), e))?;
        links.push(link);
    }
    let mut coverage = Coverage::new();
    let outcome = run_gcov(gcov, &links, scratch, |_, doc| merge(doc, &mut coverage));
    let _ = std::fs::remove_dir_all(scratch);
    outcome.map(|()| coverage)
}

/// Adds `from`'s counts to `into`'s (another object's, or another test's).
pub fn merge_into(into: &mut Coverage, from: Coverage) {
    for (path, file) in from {
        let entry = into.entry(path).or_default();
        for f in file.functions {
            if !entry.functions.contains(&f) {
                entry.functions.push(f);
            }
        }
        for (line, (count, branches)) in file.lines {
            let slot = entry.lines.entry(line).or_insert((0, Vec::new()));
            add_counts(slot, count, &branches);
        }
    }
}

/// Adds a line's count and branch counts to what `slot` holds (another
/// object's, or another record's, counts of the same line). Branch counts
/// add up position by position; a line seen without branches takes them.
pub fn add_counts(slot: &mut (u64, Vec<u64>), count: u64, branches: &[u64]) {
    slot.0 = slot.0.saturating_add(count);
    if slot.1.is_empty() {
        slot.1 = branches.to_vec();
    } else if slot.1.len() == branches.len() {
        for (sum, b) in slot.1.iter_mut().zip(branches) {
            *sum = sum.saturating_add(*b);
        }
    }
}

/// Signature lines of functions that have other executable lines. gcov
/// counts a function's entry on its signature line, so that line always
/// ties with the function's first statement and only lengthens the list a
/// developer reads; a one-line function keeps it.
pub fn signature_lines(counts: &FileCounts) -> Vec<u32> {
    counts
        .functions
        .iter()
        .filter(|(start, end)| end > start && counts.lines.range(start + 1..=*end).next().is_some())
        .map(|(start, _)| *start)
        .collect()
}

/// For every notes file, the `.gcda` path a test writes (before the prefix).
pub fn data_paths(notes: &[PathBuf]) -> BTreeMap<PathBuf, PathBuf> {
    notes
        .iter()
        .map(|n| (n.with_extension("gcda"), n.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_merged_per_file_with_paths_resolved() {
        let text = concat!(
            r#"{"current_working_directory": "/p/b", "files": [{"file": "../src/a.c", "lines": [{"line_number": 3, "count": 2, "branches": [{"count": 1}, {"count": 1}]}, {"line_number": 4, "count": 0, "branches": []}]}]}"#,
            "\n",
            r#"{"current_working_directory": "/p", "files": [{"file": "src/a.c", "lines": [{"line_number": 3, "count": 5, "branches": [{"count": 4}, {"count": 1}]}]}]}"#,
            "\n"
        );
        let mut cov = Coverage::new();
        parse_output(text, &mut cov).unwrap();
        let file = &cov[Path::new("/p/src/a.c")];
        assert_eq!(file.lines[&3], (7, vec![5, 2]));
        assert_eq!(file.lines[&4], (0, vec![]));
    }

    #[test]
    fn signature_lines_of_functions_with_a_body_are_found() {
        let mut counts = FileCounts::default();
        for line in [3, 4, 5, 9] {
            counts.lines.insert(line, (1, vec![]));
        }
        counts.functions = vec![(3, 6), (9, 9), (12, 10)];
        assert_eq!(
            signature_lines(&counts),
            vec![3],
            "the one-line function keeps its line"
        );
    }

    #[test]
    fn garbage_is_a_coverage_error_not_a_panic() {
        let mut cov = Coverage::new();
        let err = parse_output("{not json", &mut cov).unwrap_err();
        assert!(err.to_string().contains("gcov printed JSON"), "{err}");
    }
}
