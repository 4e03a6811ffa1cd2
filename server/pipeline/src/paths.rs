//! Mapping the paths that compilers and gcov report back to the project.
//!
//! Builds may run in a shadow copy of the project; a path inside the shadow
//! names the same file as the path inside the root.

use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone)]
pub struct PathMap {
    root: PathBuf,
    shadow: Option<PathBuf>,
}

impl PathMap {
    pub fn new(root: PathBuf, shadow: Option<PathBuf>) -> PathMap {
        PathMap { root, shadow }
    }

    /// A path a test printed (absolute, relative to the test's directory,
    /// or relative to the project) as the project-relative path of a file
    /// that exists in the project.
    pub fn printed_to_project_relative(&self, printed: &Path, cwd: &Path) -> Option<String> {
        let candidates = if printed.is_absolute() {
            vec![printed.to_path_buf()]
        } else {
            vec![cwd.join(printed), self.root.join(printed)]
        };
        candidates.iter().find_map(|c| {
            let rel = self.to_project_relative(c)?;
            self.root.join(&rel).is_file().then_some(rel)
        })
    }

    /// The project-relative path (with `/`) of `path`, or `None` when it lies
    /// outside the project (system headers) or inside faultlens's own files.
    pub fn to_project_relative(&self, path: &Path) -> Option<String> {
        let path = normalize(path);
        let relative = self
            .shadow
            .as_ref()
            .and_then(|s| path.strip_prefix(s).ok())
            .or_else(|| path.strip_prefix(&self.root).ok())?;
        if relative.starts_with(crate::project::WORK_DIR) {
            return None;
        }
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }
}

/// Removes `.` and resolves `..` lexically (no file-system access, so paths
/// of files that no longer exist still map).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadow_and_root_paths_map_to_the_same_file() {
        let map = PathMap::new("/p".into(), Some("/p/.faultlens/shadow".into()));
        assert_eq!(
            map.to_project_relative(Path::new("/p/.faultlens/shadow/src/../src/a.c"))
                .as_deref(),
            Some("src/a.c")
        );
        assert_eq!(
            map.to_project_relative(Path::new("/p/src/./a.c"))
                .as_deref(),
            Some("src/a.c")
        );
        assert_eq!(
            map.to_project_relative(Path::new("/usr/include/stdio.h")),
            None
        );
        assert_eq!(
            map.to_project_relative(Path::new("/p/.faultlens/rt/faultlens_rt.c")),
            None
        );
    }
}
