//! Paths that a configuration or a stored document names, relative to the
//! project root. They must stay inside the project: faultlens reads them,
//! and a build writes beside some of them.

use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("the path is empty")]
    Empty,
    #[error("{0:?} contains a NUL byte")]
    Nul(String),
    #[error("{0:?} is absolute; write it relative to the project root")]
    Absolute(String),
    #[error("{0:?} leaves the project (its `..` climbs above the project root); name a path inside the project")]
    Escapes(String),
    #[error("{path:?} leads outside the project through a symbolic link (to {target}); name a file inside the project")]
    LinkEscapes { path: String, target: PathBuf },
}

/// Checks `path` lexically: relative, no NUL byte, and no `..` that climbs
/// above the start. Returns it normalized (`.` and resolved `..` removed).
pub fn lexical(path: &str) -> Result<PathBuf, PathError> {
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    if path.contains('\0') {
        return Err(PathError::Nul(path.to_string()));
    }
    let mut out = PathBuf::new();
    let mut depth = 0usize;
    for component in Path::new(path).components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                return Err(PathError::Absolute(path.to_string()))
            }
            Component::CurDir => {}
            Component::ParentDir => {
                if depth == 0 {
                    return Err(PathError::Escapes(path.to_string()));
                }
                depth -= 1;
                out.pop();
            }
            Component::Normal(part) => {
                depth += 1;
                out.push(part);
            }
        }
    }
    if depth == 0 {
        return Err(PathError::Empty);
    }
    Ok(out)
}

/// `root.join(path)` once `path` passes [`lexical`] and, where the path (or
/// the deepest of its directories) exists, its real location after
/// symbolic links is inside `root` too.
pub fn confined(root: &Path, path: &str) -> Result<PathBuf, PathError> {
    let relative = lexical(path)?;
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let joined = root.join(&relative);
    let mut probe = joined.as_path();
    loop {
        match probe.canonicalize() {
            Ok(real) => {
                if real.starts_with(&real_root) {
                    return Ok(joined);
                }
                return Err(PathError::LinkEscapes {
                    path: path.to_string(),
                    target: real,
                });
            }
            // A part that does not exist yet (an output): check its parent.
            Err(_) => match probe.parent() {
                Some(parent) if parent.starts_with(root) && parent != probe => probe = parent,
                _ => return Ok(joined),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_relative_paths_pass_normalized() {
        assert_eq!(lexical("src/a.c").unwrap(), PathBuf::from("src/a.c"));
        assert_eq!(
            lexical("./src/../lib/b.c").unwrap(),
            PathBuf::from("lib/b.c")
        );
    }

    #[test]
    fn absolute_climbing_empty_and_nul_paths_are_refused() {
        assert_eq!(
            lexical("/etc/passwd"),
            Err(PathError::Absolute("/etc/passwd".into()))
        );
        assert_eq!(
            lexical("../../mid.c"),
            Err(PathError::Escapes("../../mid.c".into()))
        );
        assert_eq!(
            lexical("src/../../x"),
            Err(PathError::Escapes("src/../../x".into()))
        );
        assert_eq!(lexical(""), Err(PathError::Empty));
        assert_eq!(lexical("."), Err(PathError::Empty));
        assert!(matches!(lexical("a\0b"), Err(PathError::Nul(_))));
    }

    #[test]
    fn a_symbolic_link_out_of_the_project_is_refused_even_for_a_new_file() {
        let outside = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let root = project.path().canonicalize().unwrap();
        std::fs::write(outside.path().join("secret"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.c"), "int x;").unwrap();

        assert_eq!(confined(&root, "src/a.c").unwrap(), root.join("src/a.c"));
        assert_eq!(
            confined(&root, "src/new.c").unwrap(),
            root.join("src/new.c")
        );
        assert!(matches!(
            confined(&root, "out/secret"),
            Err(PathError::LinkEscapes { .. })
        ));
        assert!(matches!(
            confined(&root, "out/not-yet/prog"),
            Err(PathError::LinkEscapes { .. })
        ));
    }
}
