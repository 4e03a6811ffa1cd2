//! `.faultlens/`: the one directory faultlens writes in a project.
//!
//! A repository may ship its own `.faultlens/`, with a symbolic link where
//! faultlens expects a directory (`.faultlens/build -> ~`): emptying or
//! writing through it would reach outside the project. So `.faultlens`
//! itself must be a real directory (a link there is refused: it is the
//! user's to remove), and each directory faultlens uses inside it is
//! checked component by component and made afresh when something else
//! stands in its place (everything in `.faultlens/` is faultlens's own;
//! removing a link never touches what it points to).

use crate::read::{read_regular_no_link, ReadError};
use std::path::{Component, Path, PathBuf};

/// The work directory's name, relative to the project root.
pub const WORK_DIR: &str = ".faultlens";

#[derive(Debug, thiserror::Error)]
pub enum WorkDirError {
    #[error("{} is a symbolic link (to {}); faultlens writes only into a real .faultlens directory of the project: remove the link and run again", path.display(), target.display())]
    Link { path: PathBuf, target: PathBuf },
    #[error("{} is not a directory; faultlens keeps its files in a .faultlens directory there: move the file away and run again", path.display())]
    NotDirectory { path: PathBuf },
    #[error("{name:?} is not a plain name inside .faultlens")]
    BadName { name: String },
    #[error("{context} {}: {cause}", path.display())]
    Io {
        context: &'static str,
        path: PathBuf,
        cause: std::io::Error,
    },
}

#[derive(Debug, Clone)]
pub struct WorkDir {
    path: PathBuf,
}

impl WorkDir {
    /// `<root>/.faultlens`, made when missing.
    pub fn open(root: &Path) -> Result<WorkDir, WorkDirError> {
        let path = root.join(WORK_DIR);
        match check_directory(&path)? {
            true => {}
            false => std::fs::create_dir(&path).or_else(|cause| {
                // Made by a concurrent run in the meantime.
                if cause.kind() == std::io::ErrorKind::AlreadyExists {
                    check_directory(&path).map(|_| ())
                } else {
                    Err(io("creating", &path, cause))
                }
            })?,
        }
        Ok(WorkDir { path })
    }

    /// `<root>/.faultlens` when it exists (readers make nothing).
    pub fn existing(root: &Path) -> Result<Option<WorkDir>, WorkDirError> {
        let path = root.join(WORK_DIR);
        Ok(check_directory(&path)?.then_some(WorkDir { path }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `name` (a plain relative name) inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// `<work>/<name>` as a real directory, each of its components made
    /// afresh where a link or a file stands in its place.
    pub fn dir(&self, name: &str) -> Result<PathBuf, WorkDirError> {
        let mut path = self.path.clone();
        for component in Path::new(name).components() {
            let Component::Normal(part) = component else {
                return Err(WorkDirError::BadName { name: name.into() });
            };
            path.push(part);
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_dir() => continue,
                Ok(_) => std::fs::remove_file(&path).map_err(|e| io("removing", &path, e))?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io("inspecting", &path, e)),
            }
            match std::fs::create_dir(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && path.is_dir() => {}
                Err(e) => return Err(io("creating", &path, e)),
            }
        }
        Ok(path)
    }

    /// [`WorkDir::dir`], emptied first.
    pub fn fresh_dir(&self, name: &str) -> Result<PathBuf, WorkDirError> {
        let path = self.dir(name)?;
        // remove_dir_all does not follow links inside, and `dir` made sure
        // none of `path`'s own components is one.
        std::fs::remove_dir_all(&path).map_err(|e| io("emptying", &path, e))?;
        self.dir(name)
    }

    /// [`WorkDir::dir`] with every symbolic link inside it that leads out
    /// of it (or nowhere) removed, however deep: a directory reused between
    /// runs (a build tree, the shadow copy) may have been shipped by the
    /// repository with links leading out, and a build writing through one
    /// would land outside the project. Links that stay inside (libtool's
    /// `libx.so.0 -> libx.so.0.0.1`, which `make` does not make again) are
    /// kept.
    pub fn dir_without_links_out(&self, name: &str) -> Result<PathBuf, WorkDirError> {
        let path = self.dir(name)?;
        let inside = path.canonicalize().map_err(|e| io("resolving", &path, e))?;
        let mut stack = vec![path.clone()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|e| io("listing", &dir, e))?;
            for entry in entries.flatten() {
                let entry_path = entry.path();
                match entry.file_type() {
                    Ok(t) if t.is_symlink() => {
                        let stays = entry_path
                            .canonicalize()
                            .is_ok_and(|target| target.starts_with(&inside));
                        if !stays {
                            std::fs::remove_file(&entry_path)
                                .map_err(|e| io("removing", &entry_path, e))?;
                        }
                    }
                    Ok(t) if t.is_dir() => stack.push(entry_path),
                    _ => {}
                }
            }
        }
        Ok(path)
    }

    /// Replaces `<work>/<name>` with `bytes` atomically: a reader sees the
    /// old or the new content, and a link standing there is replaced, never
    /// written through.
    pub fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, WorkDirError> {
        let (dir, file) = match name.rsplit_once('/') {
            Some((dir, file)) => (self.dir(dir)?, file),
            None => (self.path.clone(), name),
        };
        let target = dir.join(file);
        let temp = dir.join(format!(".{file}.{}.tmp", std::process::id()));
        let _ = std::fs::remove_file(&temp);
        std::fs::write(&temp, bytes).map_err(|e| io("writing", &temp, e))?;
        std::fs::rename(&temp, &target).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            io("replacing", &target, e)
        })?;
        Ok(target)
    }

    /// The regular file `<work>/<name>`, at most `limit` bytes; `Ok(None)`
    /// when it does not exist. A link there is refused.
    pub fn read(&self, name: &str, limit: u64) -> Result<Option<Vec<u8>>, ReadError> {
        match read_regular_no_link(&self.path.join(name), limit) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// `Ok(true)` for a real directory, `Ok(false)` when nothing is there.
fn check_directory(path: &Path) -> Result<bool, WorkDirError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(WorkDirError::Link {
            path: path.to_path_buf(),
            target: std::fs::read_link(path).unwrap_or_default(),
        }),
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(_) => Err(WorkDirError::NotDirectory {
            path: path.to_path_buf(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io("inspecting", path, e)),
    }
}

fn io(context: &'static str, path: &Path, cause: std::io::Error) -> WorkDirError {
    WorkDirError::Io {
        context,
        path: path.to_path_buf(),
        cause,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linked_work_dir_is_refused_and_its_target_untouched() {
        let outside = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), project.path().join(WORK_DIR)).unwrap();
        let err = WorkDir::open(project.path()).unwrap_err().to_string();
        assert!(
            err.contains("symbolic link") && err.contains("remove the link"),
            "{err}"
        );
        assert!(WorkDir::existing(project.path()).is_err());
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn links_inside_are_replaced_by_directories_and_never_followed() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(outside.path().join("obj")).unwrap();
        std::fs::write(outside.path().join("obj/precious"), "keep").unwrap();
        std::fs::write(outside.path().join("results.json"), "keep").unwrap();
        let project = tempfile::tempdir().unwrap();
        let work = WorkDir::open(project.path()).unwrap();
        std::os::unix::fs::symlink(outside.path(), work.join("build")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("results.json"),
            work.join("results.json"),
        )
        .unwrap();

        let obj = work.fresh_dir("build/obj").unwrap();
        assert!(obj.starts_with(work.path()));
        assert!(!std::fs::symlink_metadata(work.join("build"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(
            work.read("results.json", 100).is_err(),
            "a link is not read"
        );
        work.write_atomic("results.json", b"{}").unwrap();

        assert_eq!(
            std::fs::read_to_string(outside.path().join("obj/precious")).unwrap(),
            "keep"
        );
        assert_eq!(
            std::fs::read_to_string(outside.path().join("results.json")).unwrap(),
            "keep"
        );
        assert_eq!(work.read("results.json", 100).unwrap().unwrap(), b"{}");
    }

    #[test]
    fn a_reused_directory_loses_its_links_out_but_keeps_its_files() {
        let outside = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let work = WorkDir::open(project.path()).unwrap();
        let build = work.dir("cmake-build/CMakeFiles").unwrap();
        std::fs::write(build.join("kept.txt"), "x").unwrap();
        std::fs::write(build.join("libx.so.0.0.1"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), build.join("out")).unwrap();
        std::os::unix::fs::symlink("libx.so.0.0.1", build.join("libx.so.0")).unwrap();
        // Inside, through a link that leads out and back: still out.
        std::os::unix::fs::symlink("../../../nowhere", build.join("dangling")).unwrap();
        std::os::unix::fs::symlink("out/..", build.join("via_out")).unwrap();
        work.dir_without_links_out("cmake-build").unwrap();
        assert!(build.join("kept.txt").is_file());
        assert!(std::fs::symlink_metadata(build.join("out")).is_err());
        assert!(std::fs::symlink_metadata(build.join("dangling")).is_err());
        assert!(std::fs::symlink_metadata(build.join("via_out")).is_err());
        assert_eq!(
            std::fs::read_to_string(build.join("libx.so.0")).unwrap(),
            "x"
        );
        assert!(outside.path().is_dir());
    }

    #[test]
    fn names_that_climb_are_refused() {
        let project = tempfile::tempdir().unwrap();
        let work = WorkDir::open(project.path()).unwrap();
        assert!(matches!(
            work.dir("../x"),
            Err(WorkDirError::BadName { .. })
        ));
        assert!(matches!(
            work.dir("/tmp"),
            Err(WorkDirError::BadName { .. })
        ));
    }
}
