//! Build directories that heal. faultlens's coverage builds in
//! `.faultlens/` were made for one project root and one compiler: CMake's
//! cache names its source directory, the Makefiles `configure` writes hold
//! absolute paths, and gcc's notes carry its version. A `.faultlens/`
//! copied or moved with its project, or left by another compiler, would
//! fail the next build (`CMakeCache.txt directory … is different`) or mix
//! versions; instead every build directory is made afresh, once, and the
//! user never needs `rm -rf .faultlens`.

use crate::error::{PipelineError, Result};
use crate::project::Project;
use faultlens_workspace::build_dirs;

/// Beside the build directories: the root and compiler they were made for.
const ORIGIN: &str = "builds.origin";

/// The directories (and the shadow copy's manifest) that belong to one
/// origin.
const BUILT_FOR_ORIGIN: [&str; 5] = [
    build_dirs::CMAKE,
    build_dirs::MESON,
    build_dirs::SHADOW,
    "build",
    "rt",
];

/// Empties the build directories when they were made for another root or
/// compiler than `project`'s and `cc`; says so in the returned note.
pub fn heal(project: &Project, cc: &str) -> Result<Option<String>> {
    let work = project.work()?;
    let root = project
        .root
        .canonicalize()
        .unwrap_or_else(|_| project.root.clone());
    let origin = format!(
        "root: {}\ncompiler: {}\n",
        root.display(),
        crate::toolchain::compiler_identity(cc)
    );
    let recorded = work.read(ORIGIN, 64 << 10).ok().flatten();
    if recorded.as_deref() == Some(origin.as_bytes()) {
        return Ok(None);
    }
    let mut emptied = Vec::new();
    for name in BUILT_FOR_ORIGIN {
        if work.join(name).exists() {
            work.fresh_dir(name)?;
            emptied.push(name);
        }
    }
    // The shadow copy's manifest says which files it holds: none now.
    let manifest = work.join(&format!("{}.manifest", build_dirs::SHADOW));
    if std::fs::symlink_metadata(&manifest).is_ok() {
        std::fs::remove_file(&manifest)
            .map_err(|e| PipelineError::io(format!("removing {}", manifest.display()), e))?;
    }
    work.write_atomic(ORIGIN, origin.as_bytes())?;
    // Builds without a record come from a faultlens before this one: made
    // afresh without a word.
    Ok((recorded.is_some() && !emptied.is_empty()).then(|| {
        format!(
            "the coverage builds in .faultlens/ ({}) were made for another project directory or compiler (copied or moved with the project?): building them afresh",
            emptied.join(", ")
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(root: &std::path::Path) -> Project {
        Project {
            root: root.to_path_buf(),
            config: Default::default(),
            kind: crate::config::Kind::Ctest,
            detected: true,
        }
    }

    #[test]
    fn a_build_copied_with_its_project_is_made_afresh_once() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("first");
        let cache = first.join(".faultlens/cmake-build/CMakeCache.txt");
        std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
        assert_eq!(
            heal(&project(&first), "gcc").unwrap(),
            None,
            "no record yet"
        );
        std::fs::write(&cache, "CMAKE_HOME_DIRECTORY=first").unwrap();
        assert_eq!(heal(&project(&first), "gcc").unwrap(), None);
        assert!(cache.exists(), "the same origin keeps the build");
        // `cp -r first second`: the copy's cache names the first.
        let second = dir.path().join("second");
        std::fs::create_dir_all(second.join(".faultlens/cmake-build")).unwrap();
        std::fs::copy(
            first.join(".faultlens/builds.origin"),
            second.join(".faultlens/builds.origin"),
        )
        .unwrap();
        std::fs::copy(&cache, second.join(".faultlens/cmake-build/CMakeCache.txt")).unwrap();
        std::fs::write(second.join(".faultlens/shadow.manifest"), "{}").unwrap();
        let said = heal(&project(&second), "gcc").unwrap().unwrap();
        assert!(
            said.contains("another project directory or compiler"),
            "{said}"
        );
        assert!(second.join(".faultlens/cmake-build").is_dir());
        assert!(!second
            .join(".faultlens/cmake-build/CMakeCache.txt")
            .exists());
        assert!(!second.join(".faultlens/shadow.manifest").exists());
        assert_eq!(heal(&project(&second), "gcc").unwrap(), None, "healed once");
    }
}
