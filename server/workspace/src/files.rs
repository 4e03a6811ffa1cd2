//! Reading the project's own files (test data, test tables, sources): each
//! path is confined to the project and each read bounded (see
//! `faultlens-confine`), since the project may be a hostile repository.

use faultlens_confine::{confined, read_regular};
use std::path::{Path, PathBuf};

/// The bytes of `path` (relative to `root`, or absolute inside it), at
/// most `limit` of them. The error says why, without the path's context,
/// which the caller adds.
pub fn read_in_project(root: &Path, path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let inside = checked(root, path)?;
    read_regular(&inside, limit).map_err(|e| e.to_string())
}

/// `path` joined to `root`, once it is known to stay inside the project
/// (lexically and through symbolic links).
pub fn checked(root: &Path, path: &Path) -> Result<PathBuf, String> {
    let relative = path.strip_prefix(root).unwrap_or(path);
    confined(root, &relative.to_string_lossy()).map_err(|e| e.to_string())
}

/// Like [`read_in_project`], `None` when the file does not exist.
pub fn read_optional(root: &Path, path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    let inside = checked(root, path)?;
    match read_regular(&inside, limit) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// The directories of the project, relative to `root` (`""` first), at
/// most `max_depth` below it and `max_dirs` in all, each before those
/// below it and siblings in name order; hidden ones (`.git`,
/// `.faultlens`) and links are left out.
pub fn directories(root: &Path, max_depth: usize, max_dirs: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![(PathBuf::new(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        if found.len() >= max_dirs {
            break;
        }
        found.push(dir.clone());
        if depth >= max_depth {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        let mut subdirs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.file_name())
            .filter(|name| !name.to_string_lossy().starts_with('.'))
            .map(|name| dir.join(name))
            .collect();
        // Visited in name order (the stack pops the last first).
        subdirs.sort();
        subdirs.reverse();
        stack.extend(subdirs.into_iter().map(|d| (d, depth + 1)));
    }
    found
}
