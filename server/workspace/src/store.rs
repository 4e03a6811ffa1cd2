//! The results file, `.faultlens/results.json`: written atomically so a
//! reader (the language server, another tool) never sees half a document.

use crate::error::{Result, WorkspaceError};
use crate::project::WORK_DIR;
use faultlens_confine::{limits, WorkDir};
use faultlens_core::diagnosis::{DiagnosisRefusal, DiagnosisReport};
use faultlens_core::results::RunResults;
use faultlens_core::shards::ShardSpec;
use std::path::{Path, PathBuf};

pub const RESULTS_FILE: &str = "results.json";
/// The diagnosis document's name inside `.faultlens/`.
const DIAGNOSIS_DOCUMENT: &str = "diagnosis.json";
/// Why the last diagnosis could not be made, inside `.faultlens/`.
const REFUSAL_DOCUMENT: &str = "diagnosis-refusal.json";

pub fn results_path(root: &Path) -> PathBuf {
    root.join(WORK_DIR).join(RESULTS_FILE)
}

/// Writes `.faultlens/results.json`, after checking it is a document every
/// reader accepts (results assembled from others' files, by `import` or
/// `merge`, could hold what a run never writes, such as a test twice).
pub fn write_results(root: &Path, results: &RunResults) -> Result<PathBuf> {
    results
        .validate()
        .map_err(|message| WorkspaceError::Results {
            path: results_path(root),
            message: format!("not written: {message}"),
        })?;
    Ok(WorkDir::open(root)?.write_atomic(RESULTS_FILE, results.to_json().as_bytes())?)
}

/// Where a run's results went: its shard's file, or `results.json`.
pub fn written_path(root: &Path, results: &RunResults) -> PathBuf {
    match results.shard {
        Some(shard) => shard_path(root, shard.spec()),
        None => results_path(root),
    }
}

/// Where `localize --shard` stores shard `spec`'s results.
pub fn shard_path(root: &Path, spec: ShardSpec) -> PathBuf {
    root.join(WORK_DIR).join(spec.file_name())
}

/// Writes one shard's results as `.faultlens/shard-K-of-N.json` (never
/// over `results.json`: a share of the suite is not a run to rank).
pub fn write_shard(root: &Path, results: &RunResults) -> Result<PathBuf> {
    let shard = results.shard.ok_or_else(|| WorkspaceError::Results {
        path: results_path(root),
        message: "these results hold the whole run, not a shard".into(),
    })?;
    Ok(WorkDir::open(root)?
        .write_atomic(&shard.spec().file_name(), results.to_json().as_bytes())?)
}

/// A results document the user names (a shard from another machine, for
/// `faultlens merge`): at most `limits::RESULTS` bytes of a regular file,
/// parsed and validated like `.faultlens/results.json`.
pub fn read_results_file(path: &Path) -> Result<RunResults> {
    let bad = |message: String| WorkspaceError::Results {
        path: path.to_path_buf(),
        message,
    };
    let bytes = faultlens_confine::read::read_regular(path, limits::RESULTS)
        .map_err(|e| bad(e.reason()))?;
    let text = String::from_utf8(bytes).map_err(|_| bad("is not UTF-8 text".into()))?;
    RunResults::from_json(&text).map_err(bad)
}

/// `Ok(None)` when no run has written results yet. The document may come
/// from the repository itself, so it is read like any hostile input: at
/// most `limits::RESULTS` bytes of a regular file, every path it names
/// inside the project, no duplicates (see `RunResults::validate`).
pub fn read_results(root: &Path) -> Result<Option<RunResults>> {
    read_document(
        root,
        RESULTS_FILE,
        limits::RESULTS,
        "faultlens localize",
        RunResults::from_json,
    )
}

/// `Ok(None)` when `.faultlens/<name>` does not exist. Otherwise at most
/// `limit` bytes of a regular file, UTF-8, parsed (and validated) by
/// `parse`; every error names the file and says to run `command` to
/// replace it.
fn read_document<T>(
    root: &Path,
    name: &str,
    limit: u64,
    command: &str,
    parse: impl FnOnce(&str) -> std::result::Result<T, String>,
) -> Result<Option<T>> {
    let bad = |message: String| WorkspaceError::Results {
        path: root.join(WORK_DIR).join(name),
        message,
    };
    let Some(work) = WorkDir::existing(root)? else {
        return Ok(None);
    };
    let Some(bytes) = work
        .read(name, limit)
        .map_err(|e| bad(format!("{e}; delete it or run `{command}` to replace it")))?
    else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|_| {
        bad(format!(
            "is not UTF-8 text; delete it or run `{command}` to replace it"
        ))
    })?;
    parse(&text)
        .map(Some)
        .map_err(|message| bad(format!("{message}; run `{command}` again to replace it")))
}

/// The stored results and whether they still describe the project.
#[derive(Debug)]
pub enum StoredResults {
    /// No run has written results yet.
    Missing,
    /// Every source file has the digest the run recorded and the
    /// configuration is older than the run.
    Fresh(RunResults),
    /// The project changed since the run; `reason` says how, as a clause
    /// ("mid.c changed since the last run").
    Stale { results: RunResults, reason: String },
}

/// Reads the stored results and checks them against the project: the one
/// freshness check that every front door (the CLI's `diagnose`, the
/// language server's diagnosis) starts from.
pub fn stored_results(root: &Path) -> Result<StoredResults> {
    let Some(results) = read_results(root)? else {
        return Ok(StoredResults::Missing);
    };
    let changed = changed_since_run(root, &results);
    let reason = if !changed.is_empty() {
        Some(format!("{} changed since the last run", changed.join(", ")))
    } else if results.files.iter().any(|f| f.digest.is_none()) {
        Some("the stored results record no file digests".to_string())
    } else if config_newer_than(root, &results) {
        Some("faultlens.toml changed since the last run".to_string())
    } else {
        None
    };
    Ok(match reason {
        Some(reason) => StoredResults::Stale { results, reason },
        None => StoredResults::Fresh(results),
    })
}

/// Whether `faultlens.toml` was modified after the run that made `results`.
fn config_newer_than(root: &Path, results: &RunResults) -> bool {
    let run_at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(results.created_unix_ms);
    std::fs::symlink_metadata(root.join(crate::config::CONFIG_FILE))
        .and_then(|m| m.modified())
        .is_ok_and(|modified| modified > run_at)
}

/// Where `faultlens diagnose` keeps its document.
pub fn diagnosis_path(root: &Path) -> PathBuf {
    root.join(faultlens_confine::WORK_DIR)
        .join(DIAGNOSIS_DOCUMENT)
}

pub fn write_diagnosis(root: &Path, report: &DiagnosisReport) -> Result<PathBuf> {
    let mut text =
        serde_json::to_string_pretty(report).expect("a diagnosis report is always serializable");
    text.push('\n');
    Ok(WorkDir::open(root)?.write_atomic(DIAGNOSIS_DOCUMENT, text.as_bytes())?)
}

/// `Ok(None)` when no diagnosis was stored yet. Read as hostile input, like
/// the results (see [`read_results`]).
pub fn read_diagnosis(root: &Path) -> Result<Option<DiagnosisReport>> {
    read_document(
        root,
        DIAGNOSIS_DOCUMENT,
        limits::DIAGNOSIS,
        "faultlens diagnose",
        DiagnosisReport::from_json,
    )
}

/// Records why `faultlens diagnose` could not diagnose a run. A later
/// diagnosis does not remove it: readers look at it only when no diagnosis
/// is stored, and compare the run it names.
pub fn write_diagnosis_refusal(root: &Path, refusal: &DiagnosisRefusal) -> Result<PathBuf> {
    let text = serde_json::to_string_pretty(refusal).expect("a refusal is always serializable");
    Ok(WorkDir::open(root)?.write_atomic(REFUSAL_DOCUMENT, text.as_bytes())?)
}

/// `Ok(None)` when no diagnosis was refused yet. Read as hostile input.
pub fn read_diagnosis_refusal(root: &Path) -> Result<Option<DiagnosisRefusal>> {
    read_document(
        root,
        REFUSAL_DOCUMENT,
        limits::DIAGNOSIS,
        "faultlens diagnose",
        DiagnosisRefusal::from_json,
    )
}

/// The text of every file the results mention, read from the project tree.
/// Files that cannot be read (gone, not regular, too large, outside the
/// project) are left out: their lines show no text.
pub fn read_sources(root: &Path, results: &RunResults) -> faultlens_core::sources::SourceTexts {
    let mut texts = faultlens_core::sources::SourceTexts::default();
    for file in &results.files {
        if let Ok(bytes) = read_source(root, &file.path) {
            texts.insert(file.path.clone(), &String::from_utf8_lossy(&bytes));
        }
    }
    texts
}

/// One source file the results name: inside the project, regular, at most
/// `limits::SOURCE` bytes.
pub fn read_source(root: &Path, relative: &str) -> Result<Vec<u8>, String> {
    crate::files::read_in_project(root, Path::new(relative), limits::SOURCE)
}

/// Digests of the C sources and headers under `root` (outside
/// `.faultlens/`), taken when a run starts, by project-relative path.
pub fn digest_sources(root: &Path) -> std::collections::BTreeMap<String, String> {
    let mut digests = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if name != WORK_DIR && name != ".git" {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "c" || e == "h") {
                // Regular files inside the project only (a FIFO named x.c
                // would block, a link to /dev/zero never end), bounded.
                if let (Ok(bytes), Ok(rel)) = (
                    crate::files::read_in_project(root, &path, limits::SOURCE),
                    path.strip_prefix(root),
                ) {
                    digests.insert(
                        rel.to_string_lossy().into_owned(),
                        faultlens_core::sources::digest(&bytes),
                    );
                }
            }
        }
    }
    digests
}

/// Files whose content differs from what the run recorded.
pub fn changed_since_run(root: &Path, results: &RunResults) -> Vec<String> {
    results
        .files
        .iter()
        .filter(|f| {
            let Some(recorded) = &f.digest else {
                return false;
            };
            match read_source(root, &f.path) {
                Ok(bytes) => &faultlens_core::sources::digest(&bytes) != recorded,
                Err(_) => true,
            }
        })
        .map(|f| f.path.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupt_file_is_an_error_that_says_how_to_recover() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_results(dir.path()).unwrap().is_none());
        std::fs::create_dir_all(dir.path().join(WORK_DIR)).unwrap();
        std::fs::write(
            results_path(dir.path()),
            "{\"format_version\": 1, \"tests\": [",
        )
        .unwrap();
        let err = read_results(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("results.json") && err.contains("faultlens localize"),
            "{err}"
        );
    }

    #[test]
    fn a_diagnosis_round_trips_and_a_corrupt_one_says_how_to_recover() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_diagnosis(dir.path()).unwrap().is_none());
        let report = DiagnosisReport {
            failing_tests: vec!["t1".into()],
            complete: true,
            ..Default::default()
        };
        write_diagnosis(dir.path(), &report).unwrap();
        assert_eq!(read_diagnosis(dir.path()).unwrap(), Some(report));
        std::fs::write(diagnosis_path(dir.path()), "{").unwrap();
        assert!(read_diagnosis(dir.path())
            .unwrap_err()
            .to_string()
            .contains("faultlens diagnose"));
    }
}
