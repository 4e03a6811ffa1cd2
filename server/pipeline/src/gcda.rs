//! Where the tests' `.gcda` files land, and how they are gathered.
//!
//! libgcov writes a test's counters to `$GCOV_PREFIX/<absolute object path
//! with .gcda>`, creating every directory of that path first. A prefix per
//! test therefore made each test create the whole tree (eight directories
//! for a project two levels deep, 12,583 for a suite of 1,608 tests) and the
//! run delete it again; ext4 avoids recently freed inodes, so each run made
//! the next slower. Stripping the prefix (`GCOV_PREFIX_STRIP`)
//! is not safe: gcc records the object path as the build named it, `..`
//! included, and a stripped `../obj/a.gcda` lands outside the prefix, where
//! every test's counters would meet.
//!
//! Instead a few prefix trees are reused, one per test running at once
//! ([`Prefixes`]): libgcov finds the directories there after the first
//! test, and when a test ends its `.gcda` files are moved out
//! ([`collect`]) to one flat directory, so the next test in that tree starts
//! from no counters (libgcov adds to a `.gcda` it finds).

use crate::error::{PipelineError, Result};
use crate::gcov::Coverage;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One `.gcda` file a test wrote, kept for `gcov` to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFile {
    /// The path the object file asked for (absolute, below the prefix).
    pub written_for: PathBuf,
    /// Where it was moved when the test ended.
    pub kept_at: PathBuf,
}

/// Reads one data file (its path as the object asked for it, and its
/// bytes) into coverage, or says why it cannot.
pub type ReadData<'a> = dyn Fn(&Path, &[u8]) -> std::result::Result<Coverage, String> + Sync + 'a;

/// A test's counters once it ended: what was read at once, and the files
/// kept for later (notes not there yet, another gcc's layout, or kept for
/// the cross-check as well).
#[derive(Debug, Default)]
pub struct Gathered {
    /// The coverage of the files read as the test ended.
    pub read: Coverage,
    pub kept: Vec<DataFile>,
    /// Files that could not be read at once (a subset of `kept`), and why.
    pub unread: Vec<(PathBuf, String)>,
}

/// The reusable prefix trees of a run.
pub struct Prefixes {
    free: Mutex<Vec<PathBuf>>,
}

impl Prefixes {
    /// `count` empty prefix directories `w0`, `w1`, … under `dir`.
    pub fn create(dir: &Path, count: usize) -> Result<Prefixes> {
        let mut free = Vec::with_capacity(count);
        for w in 0..count.max(1) {
            let prefix = dir.join(format!("w{w}"));
            std::fs::create_dir_all(&prefix)
                .map_err(|e| PipelineError::io(format!("creating {}", prefix.display()), e))?;
            free.push(prefix);
        }
        Ok(Prefixes {
            free: Mutex::new(free),
        })
    }

    /// Runs `work` with a prefix no other test is using now.
    pub fn with_one<T>(&self, work: impl FnOnce(&Path) -> T) -> T {
        let prefix = self
            .free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .expect("one prefix per test running at once");
        let value = work(&prefix);
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(prefix);
        value
    }
}

/// Reads every `.gcda` file below `prefix` with `read` (its path as the
/// object asked for it, and its bytes) and removes it; a file `read` cannot
/// use, or every file when `keep_all`, is moved to `into/<tag>.<k>.gcda`
/// instead (see [`collect`]).
pub fn gather(
    prefix: &Path,
    into: &Path,
    tag: usize,
    read: &ReadData<'_>,
    keep_all: bool,
) -> Result<Gathered> {
    let mut gathered = Gathered::default();
    let mut left = Vec::new();
    for (path, written_for) in data_files(prefix) {
        let bytes = faultlens_confine::read_regular_no_link(&path, crate::gcov_native::FILE_LIMIT)
            .map_err(|e| e.to_string());
        if bytes.as_ref().is_ok_and(|b| b.is_empty()) {
            // Emptied after an earlier test; this one did not write it.
            continue;
        }
        match bytes.and_then(|bytes| read(&written_for, &bytes)) {
            Ok(coverage) => {
                crate::gcov::merge_into(&mut gathered.read, coverage);
                if !keep_all {
                    empty(&path)?;
                    continue;
                }
            }
            Err(why) => gathered.unread.push((written_for.clone(), why)),
        }
        left.push((path, written_for));
    }
    gathered.kept = keep(left, into, tag)?;
    Ok(gathered)
}

/// Empties a counter file that was read: left as it was it would be added
/// to the next test's, and libgcov writes an empty one afresh. Emptied
/// rather than removed: ext4 avoids reusing a freed inode for a while, so
/// a new file per test made every test (and every run) slower.
fn empty(path: &Path) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .and_then(|f| f.set_len(0))
        .map_err(|e| PipelineError::io(format!("emptying {}", path.display()), e))
}

/// Moves every `.gcda` file below `prefix` to `into/<tag>.<k>.gcda`. Only
/// regular files and real directories are followed, and links are removed:
/// a test cannot make this move anything of the project's through a link,
/// nor leave one that sends the next test's counters elsewhere.
pub fn collect(prefix: &Path, into: &Path, tag: usize) -> Result<Vec<DataFile>> {
    keep(data_files(prefix), into, tag)
}

/// The `.gcda` files below `prefix`, sorted, each with the path its object
/// asked for; links found on the way are removed.
fn data_files(prefix: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut found = Vec::new();
    crate::build::walk(prefix, |path, kind| {
        if kind.is_file() && path.extension().is_some_and(|e| e == "gcda") {
            found.push(path)
        } else if kind.is_symlink() {
            let _ = std::fs::remove_file(&path);
        }
    });
    found.sort();
    found
        .into_iter()
        .filter_map(|path| {
            let below = path.strip_prefix(prefix).ok()?;
            let written_for = Path::new("/").join(below);
            Some((path, written_for))
        })
        .collect()
}

fn keep(files: Vec<(PathBuf, PathBuf)>, into: &Path, tag: usize) -> Result<Vec<DataFile>> {
    let mut kept = Vec::with_capacity(files.len());
    for (k, (path, written_for)) in files.into_iter().enumerate() {
        let kept_at = into.join(format!("{tag}.{k}.gcda"));
        // A counter file left behind would be added to the next test's.
        std::fs::rename(&path, &kept_at).map_err(|e| {
            PipelineError::io(
                format!("moving {} to {}", path.display(), kept_at.display()),
                e,
            )
        })?;
        kept.push(DataFile {
            written_for,
            kept_at,
        });
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_moved_out_and_the_tree_stays_for_the_next_test() {
        let dir = tempfile::tempdir().unwrap();
        let prefixes = Prefixes::create(&dir.path().join("runs"), 1).unwrap();
        let into = dir.path().join("kept");
        std::fs::create_dir_all(&into).unwrap();
        let collected = prefixes.with_one(|prefix| {
            let deep = prefix.join("p/build/src");
            std::fs::create_dir_all(&deep).unwrap();
            std::fs::write(deep.join("a.gcda"), b"counts").unwrap();
            std::fs::write(deep.join("a.gcno"), b"not data").unwrap();
            std::os::unix::fs::symlink(dir.path(), prefix.join("link")).unwrap();
            collect(prefix, &into, 7).unwrap()
        });
        assert_eq!(
            collected,
            [DataFile {
                written_for: PathBuf::from("/p/build/src/a.gcda"),
                kept_at: into.join("7.0.gcda"),
            }]
        );
        assert_eq!(std::fs::read(into.join("7.0.gcda")).unwrap(), b"counts");
        prefixes.with_one(|prefix| {
            assert!(prefix.join("p/build/src").is_dir(), "the tree is reused");
            assert!(!prefix.join("p/build/src/a.gcda").exists());
            assert!(
                std::fs::symlink_metadata(prefix.join("link")).is_err(),
                "the link a test left is gone"
            );
            assert!(collect(prefix, &into, 8).unwrap().is_empty());
        });
    }
}
