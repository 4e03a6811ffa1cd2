//! The results file, `.faultlens/results.json`: written atomically so a
//! reader (the language server, another tool) never sees half a document.

use crate::error::{PipelineError, Result};
use crate::project::WORK_DIR;
use faultlens_core::results::RunResults;
use std::path::{Path, PathBuf};

pub const RESULTS_FILE: &str = "results.json";

pub fn results_path(root: &Path) -> PathBuf {
    root.join(WORK_DIR).join(RESULTS_FILE)
}

pub fn write_results(root: &Path, results: &RunResults) -> Result<PathBuf> {
    let path = results_path(root);
    let dir = path.parent().expect("results path has a parent");
    std::fs::create_dir_all(dir)
        .map_err(|e| PipelineError::io(format!("creating {}", dir.display()), e))?;
    let temp = dir.join(format!(".{RESULTS_FILE}.{}.tmp", std::process::id()));
    std::fs::write(&temp, results.to_json())
        .map_err(|e| PipelineError::io(format!("writing {}", temp.display()), e))?;
    std::fs::rename(&temp, &path)
        .map_err(|e| PipelineError::io(format!("replacing {}", path.display()), e))?;
    Ok(path)
}

/// `Ok(None)` when no run has written results yet.
pub fn read_results(root: &Path) -> Result<Option<RunResults>> {
    let path = results_path(root);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(PipelineError::io(format!("reading {}", path.display()), e)),
    };
    RunResults::from_json(&text)
        .map(Some)
        .map_err(|message| PipelineError::Results {
            path,
            message: format!("{message}; run `faultlens localize` again to replace it"),
        })
}

/// The text of every file the results mention, read from the project tree.
/// Files that cannot be read are left out (their lines show no text).
pub fn read_sources(root: &Path, results: &RunResults) -> faultlens_core::sources::SourceTexts {
    let mut texts = faultlens_core::sources::SourceTexts::default();
    for file in &results.files {
        if let Ok(bytes) = std::fs::read(root.join(&file.path)) {
            texts.insert(file.path.clone(), &String::from_utf8_lossy(&bytes));
        }
    }
    texts
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
                if let (Ok(bytes), Ok(rel)) = (std::fs::read(&path), path.strip_prefix(root)) {
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
            match std::fs::read(root.join(&f.path)) {
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
}
