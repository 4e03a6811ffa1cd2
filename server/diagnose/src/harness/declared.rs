//! The tests faultlens's coverage build declares, as the harness runs
//! them. No process runs: CMake's `CTestTestfile.cmake` files and Meson's
//! `meson-info/intro-tests.json` are the build systems' own records of
//! their tests.

use super::{ctest_file, meson_file};
use faultlens_confine::{limits, WorkDir};
use faultlens_workspace::config::Kind;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredTest {
    pub name: String,
    pub argv: Vec<String>,
    /// The working directory: the one declared, else the build directory
    /// that declares the test.
    pub cwd: PathBuf,
    /// Variables set for the run.
    pub env: Vec<(String, String)>,
    /// What judges the run otherwise than by its exit status (CTest's
    /// `WILL_FAIL` or regular expressions), which the model does not
    /// express: the first one set.
    pub judged_by: Option<String>,
}

/// A build system whose test executables the harness runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildSystem {
    Cmake,
    Meson,
}

impl BuildSystem {
    /// The build system of a project of `kind`, if the harness runs its tests.
    pub fn of(kind: Kind) -> Option<BuildSystem> {
        match kind {
            Kind::Ctest => Some(BuildSystem::Cmake),
            Kind::Meson => Some(BuildSystem::Meson),
            Kind::Io | Kind::Runner | Kind::Make => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BuildSystem::Cmake => "CMake",
            BuildSystem::Meson => "Meson",
        }
    }

    /// Its coverage build's directory, in `.faultlens/`.
    pub fn build_dir(self) -> &'static str {
        match self {
            BuildSystem::Cmake => "cmake-build",
            BuildSystem::Meson => "meson-build",
        }
    }

    /// The tests its coverage build in `work` declares.
    pub fn tests(self, work: &WorkDir) -> Result<Vec<DeclaredTest>, String> {
        let build = work.join(self.build_dir());
        let read = |p: &Path| {
            let name = p.strip_prefix(work.path()).ok()?.to_str()?.to_string();
            work.read(&name, limits::BUILD_DESCRIPTION)
                .ok()
                .flatten()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        match self {
            BuildSystem::Cmake => Ok(ctest_file::tests_under(&build, &read)),
            BuildSystem::Meson => {
                let file = build.join(meson_file::TESTS_FILE);
                match read(&file) {
                    Some(text) => meson_file::tests_in(&text, &build)
                        .map_err(|e| format!("{}: {e}", file.display())),
                    None => Ok(Vec::new()),
                }
            }
        }
    }
}
