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
//! test. When a test ends its `.gcda` files are read ([`gather`]) and
//! emptied, so the next test in that tree starts from no counters (libgcov
//! adds to a `.gcda` it finds, and writes an empty one afresh); files the
//! native reader cannot read are moved out to one flat directory for gcov.
//! The trees' directories are listed again only when their time changes.

use crate::error::{PipelineError, Result};
use crate::gcov::Coverage;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

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

/// One reusable prefix tree and what its directories held when last read.
pub struct Tree {
    pub path: PathBuf,
    listings: HashMap<PathBuf, Listing>,
}

/// A directory's entries as of its modification time.
struct Listing {
    changed: Changed,
    /// Whether the listing may stand while the times are unchanged: not if
    /// the directory changed so recently that a change within the same
    /// clock tick would leave its times as they are.
    settled: bool,
    dirs: Vec<PathBuf>,
    data: Vec<PathBuf>,
}

/// A directory's modification and change times (s, ns). The change time
/// also moves when a program sets the modification time back, which it
/// cannot set itself.
type Changed = (i64, i64, i64, i64);

fn changed(meta: &std::fs::Metadata) -> Changed {
    use std::os::unix::fs::MetadataExt;
    (
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    )
}

/// How long after its last change a directory's times can be trusted on a
/// file system that keeps them to the nanosecond (its clock ticks every few
/// milliseconds); where they are whole seconds (times with no nanoseconds),
/// [`SETTLED_COARSE`].
const SETTLED: Duration = Duration::from_millis(50);
const SETTLED_COARSE: Duration = Duration::from_secs(2);

/// The reusable prefix trees of a run.
pub struct Prefixes {
    free: Mutex<Vec<Tree>>,
}

impl Prefixes {
    /// `count` empty prefix directories `w0`, `w1`, … under `dir`.
    pub fn create(dir: &Path, count: usize) -> Result<Prefixes> {
        let mut free = Vec::with_capacity(count);
        for w in 0..count.max(1) {
            let prefix = dir.join(format!("w{w}"));
            std::fs::create_dir_all(&prefix)
                .map_err(|e| PipelineError::io(format!("creating {}", prefix.display()), e))?;
            free.push(Tree {
                path: prefix,
                listings: HashMap::new(),
            });
        }
        Ok(Prefixes {
            free: Mutex::new(free),
        })
    }

    /// Runs `work` with a prefix tree no other test is using now.
    pub fn with_one<T>(&self, work: impl FnOnce(&mut Tree) -> T) -> T {
        let mut tree = self
            .free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .expect("one prefix per test running at once");
        let value = work(&mut tree);
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(tree);
        value
    }
}

impl Tree {
    /// The `.gcda` files below the prefix, sorted, each with the path its
    /// object asked for. Only real directories are followed, and links are
    /// removed: a test cannot make faultlens read or move anything of the
    /// project's through a link, nor leave one that sends the next test's
    /// counters elsewhere. A directory whose time is unchanged (and was
    /// settled) is not read again: the tree is the same from test to test.
    fn data_files(&mut self) -> Vec<(PathBuf, PathBuf)> {
        let mut found = Vec::new();
        let mut stack = vec![self.path.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(meta) = std::fs::symlink_metadata(&dir) else {
                self.listings.remove(&dir);
                continue;
            };
            if !meta.is_dir() {
                continue;
            }
            let times = changed(&meta);
            let current = self
                .listings
                .get(&dir)
                .is_some_and(|l| l.settled && l.changed == times);
            if !current {
                self.listings.insert(dir.clone(), list(&dir, times));
            }
            let listing = &self.listings[&dir];
            stack.extend(listing.dirs.iter().cloned());
            found.extend(listing.data.iter().cloned());
        }
        found.sort();
        found
            .into_iter()
            .filter_map(|path| {
                let below = path.strip_prefix(&self.path).ok()?;
                let written_for = Path::new("/").join(below);
                Some((path, written_for))
            })
            .collect()
    }
}

/// Reads a directory: its subdirectories and `.gcda` files; links in it
/// are removed.
fn list(dir: &Path, times: Changed) -> Listing {
    let (m, m_ns, c, c_ns) = times;
    let at = |s: i64, ns: i64| {
        SystemTime::UNIX_EPOCH + Duration::new(s.max(0) as u64, ns.clamp(0, 999_999_999) as u32)
    };
    let last = at(m, m_ns).max(at(c, c_ns));
    let needed = if m_ns == 0 && c_ns == 0 {
        SETTLED_COARSE
    } else {
        SETTLED
    };
    let mut listing = Listing {
        changed: times,
        settled: SystemTime::now()
            .duration_since(last)
            .is_ok_and(|age| age > needed),
        dirs: Vec::new(),
        data: Vec::new(),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        listing.settled = false;
        return listing;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            listing.dirs.push(path);
        } else if kind.is_symlink() {
            let _ = std::fs::remove_file(&path);
            // Removing it changed the directory's time.
            listing.settled = false;
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "gcda") {
            listing.data.push(path);
        }
    }
    listing
}

/// Reads every `.gcda` file below the tree's prefix with `read` (its path as the
/// object asked for it, and its bytes) and removes it; a file `read` cannot
/// use, or every file when `keep_all`, is moved to `into/<tag>.<k>.gcda`
/// instead.
pub fn gather(
    tree: &mut Tree,
    into: &Path,
    tag: usize,
    read: &ReadData<'_>,
    keep_all: bool,
) -> Result<Gathered> {
    let mut gathered = Gathered::default();
    let mut left = Vec::new();
    for (path, written_for) in tree.data_files() {
        // Emptied after an earlier test, this test did not write it: one
        // look at its size, not an open, since a tree keeps every object's
        // file that any earlier test wrote.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() == 0) {
            continue;
        }
        let mut file = match open_data(&path) {
            Ok(file) => file,
            // Gone since the directory was listed: not this test's.
            Err(why) if why.ends_with(NOT_FOUND) => continue,
            Err(why) => {
                gathered.unread.push((written_for.clone(), why));
                left.push((path, written_for));
                continue;
            }
        };
        if file.bytes.is_empty() {
            // Emptied after an earlier test; this one did not write it.
            continue;
        }
        match read(&written_for, &file.bytes) {
            Ok(coverage) => {
                if gathered.read.is_empty() {
                    gathered.read = coverage;
                } else {
                    crate::gcov::merge_into(&mut gathered.read, coverage);
                }
                if !keep_all {
                    file.empty()?;
                    continue;
                }
            }
            Err(why) => gathered.unread.push((written_for.clone(), why)),
        }
        left.push((path, written_for));
    }
    if !left.is_empty() {
        // Moving files out changes their directories.
        tree.listings.clear();
    }
    gathered.kept = keep(left, into, tag)?;
    Ok(gathered)
}

const NOT_FOUND: &str = "it is not there";

/// A counter file, open and read.
struct OpenData {
    path: PathBuf,
    handle: std::fs::File,
    bytes: Vec<u8>,
}

/// Opens a counter file for reading and emptying (never through a link),
/// and reads it whole, within the reader's limit.
fn open_data(path: &Path) -> std::result::Result<OpenData, String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let describe = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => format!("{}: {NOT_FOUND}", path.display()),
        _ => format!("{}: {e}", path.display()),
    };
    let handle = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(describe)?;
    let meta = handle.metadata().map_err(describe)?;
    if !meta.is_file() || meta.len() > crate::gcov_native::FILE_LIMIT {
        return Err(format!(
            "{} is not a regular file of at most {} MiB",
            path.display(),
            crate::gcov_native::FILE_LIMIT >> 20
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&handle)
        .take(crate::gcov_native::FILE_LIMIT)
        .read_to_end(&mut bytes)
        .map_err(describe)?;
    Ok(OpenData {
        path: path.to_path_buf(),
        handle,
        bytes,
    })
}

impl OpenData {
    /// Empties the file that was read: left as it was it would be added to
    /// the next test's, and libgcov writes an empty one afresh. Emptied
    /// rather than removed: ext4 avoids reusing a freed inode for a while,
    /// so a new file per test made every test (and every run) slower.
    /// A file with other names (hard links) is removed instead: emptying
    /// it would empty them too.
    fn empty(&mut self) -> Result<()> {
        use std::os::unix::fs::MetadataExt;
        let linked = self.handle.metadata().is_ok_and(|m| m.nlink() > 1);
        let outcome = if linked {
            std::fs::remove_file(&self.path)
        } else {
            self.handle.set_len(0)
        };
        outcome.map_err(|e| PipelineError::io(format!("emptying {}", self.path.display()), e))
    }
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
    fn counters_are_read_or_moved_out_and_the_tree_stays_for_the_next_test() {
        let dir = tempfile::tempdir().unwrap();
        let prefixes = Prefixes::create(&dir.path().join("runs"), 1).unwrap();
        let into = dir.path().join("kept");
        std::fs::create_dir_all(&into).unwrap();
        let unreadable = |_: &Path, _: &[u8]| Err("not read".to_string());
        let first = prefixes.with_one(|tree| {
            let deep = tree.path.join("p/build/src");
            std::fs::create_dir_all(&deep).unwrap();
            std::fs::write(deep.join("a.gcda"), b"counts").unwrap();
            std::fs::write(deep.join("a.gcno"), b"not data").unwrap();
            std::os::unix::fs::symlink(dir.path(), tree.path.join("link")).unwrap();
            gather(tree, &into, 7, &unreadable, false).unwrap()
        });
        assert_eq!(
            first.kept,
            [DataFile {
                written_for: PathBuf::from("/p/build/src/a.gcda"),
                kept_at: into.join("7.0.gcda"),
            }]
        );
        assert_eq!(first.unread.len(), 1);
        assert_eq!(std::fs::read(into.join("7.0.gcda")).unwrap(), b"counts");
        let read = |_: &Path, bytes: &[u8]| {
            assert_eq!(bytes, b"again");
            Ok(Coverage::new())
        };
        prefixes.with_one(|tree| {
            let src = tree.path.join("p/build/src");
            assert!(src.is_dir(), "the tree is reused");
            assert!(!src.join("a.gcda").exists());
            assert!(
                std::fs::symlink_metadata(tree.path.join("link")).is_err(),
                "the link a test left is gone"
            );
            assert!(gather(tree, &into, 8, &unreadable, false)
                .unwrap()
                .kept
                .is_empty());
            // A file a later test writes is found, read and emptied.
            std::fs::write(src.join("b.gcda"), b"again").unwrap();
            let second = gather(tree, &into, 9, &read, false).unwrap();
            assert!(second.kept.is_empty() && second.unread.is_empty());
            assert_eq!(std::fs::read(src.join("b.gcda")).unwrap(), b"");
            // Emptied files are not a test's: nothing to read.
            assert!(gather(tree, &into, 10, &unreadable, false)
                .unwrap()
                .unread
                .is_empty());
        });
    }

    #[test]
    fn a_settled_directory_is_not_read_again_and_a_changed_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let prefixes = Prefixes::create(dir.path(), 1).unwrap();
        prefixes.with_one(|tree| {
            let obj = tree.path.join("obj");
            std::fs::create_dir_all(&obj).unwrap();
            std::fs::write(obj.join("a.gcda"), b"1").unwrap();
            std::thread::sleep(SETTLED * 2);
            assert_eq!(tree.data_files().len(), 1);
            assert!(tree.listings[&obj].settled);
            // A new file changes the directory's time: it is read again.
            std::fs::write(obj.join("b.gcda"), b"2").unwrap();
            let names: Vec<_> = tree.data_files().into_iter().map(|(_, w)| w).collect();
            assert_eq!(
                names,
                [PathBuf::from("/obj/a.gcda"), PathBuf::from("/obj/b.gcda")]
            );
            assert!(!tree.listings[&obj].settled, "changed just now");
            std::fs::write(obj.join("c.gcda"), b"3").unwrap();
            assert_eq!(
                tree.data_files().len(),
                3,
                "an unsettled listing is read again"
            );
        });
    }
}
