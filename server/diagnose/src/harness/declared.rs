//! The tests faultlens's coverage build declares, as the harness runs
//! them. No process runs: CMake's `CTestTestfile.cmake` files and Meson's
//! `meson-info/intro-tests.json` are the build systems' own records of
//! their tests; a `make check` test is the program of its name in the
//! shadow copy, run there without arguments, as faultlens ran it.

use super::{ctest_file, meson_file};
use faultlens_confine::{limits, WorkDir};
use faultlens_core::results::RunResults;
use faultlens_workspace::build_dirs;
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
    Make,
}

impl BuildSystem {
    /// The build system of a project of `kind`, if the harness runs its tests.
    pub fn of(kind: Kind) -> Option<BuildSystem> {
        match kind {
            Kind::Ctest => Some(BuildSystem::Cmake),
            Kind::Meson => Some(BuildSystem::Meson),
            Kind::Make => Some(BuildSystem::Make),
            Kind::Io | Kind::Runner => None,
        }
    }

    /// The name of its test suite, as users call it.
    pub fn suite(self) -> &'static str {
        match self {
            BuildSystem::Cmake => "CTest",
            BuildSystem::Meson => "Meson",
            BuildSystem::Make => "make check",
        }
    }

    /// The name of the build system, as its coverage build is called.
    pub fn name(self) -> &'static str {
        match self {
            BuildSystem::Cmake => "CMake",
            BuildSystem::Meson => "Meson",
            BuildSystem::Make => "make check",
        }
    }

    /// Its coverage build's directory, in `.faultlens/`.
    pub fn build_dir(self) -> &'static str {
        match self {
            BuildSystem::Cmake => build_dirs::CMAKE,
            BuildSystem::Meson => build_dirs::MESON,
            BuildSystem::Make => build_dirs::SHADOW,
        }
    }

    /// The tests its coverage build in `work` declares (for `make check`,
    /// those of `results`, whose names are the Makefile's `TESTS`).
    pub fn tests(self, work: &WorkDir, results: &RunResults) -> Result<Vec<DeclaredTest>, String> {
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
            BuildSystem::Make => Ok(make_tests(
                &build,
                results.tests.iter().map(|t| t.name.as_str()),
            )),
        }
    }
}

/// The `make check` tests of the results' `rows`: a row's name up to its
/// case (`::`), a relative path inside the shadow copy `shadow` (`./t`
/// too, as `TESTS` may spell it).
fn make_tests<'r>(shadow: &Path, rows: impl IntoIterator<Item = &'r str>) -> Vec<DeclaredTest> {
    let mut out: Vec<DeclaredTest> = Vec::new();
    for row in rows {
        let name = row.split("::").next().unwrap_or_default();
        let inside = faultlens_confine::relative::lexical(name).is_ok();
        if inside && !out.iter().any(|t| t.name == name) {
            out.push(DeclaredTest {
                name: name.to_string(),
                argv: vec![shadow.join(name).to_string_lossy().into_owned()],
                cwd: shadow.to_path_buf(),
                env: Vec::new(),
                judged_by: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_make_check_test_is_its_program_in_the_shadow_copy() {
        let rows = [
            "tests/t1",
            "tests/t1::case",
            "./t2",
            "../out",
            "/abs",
            "a/../..",
        ];
        let tests = make_tests(Path::new("/p/.faultlens/shadow"), rows);
        let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["tests/t1", "./t2"]);
        assert_eq!(tests[0].argv, ["/p/.faultlens/shadow/tests/t1"]);
        assert_eq!(tests[0].cwd, Path::new("/p/.faultlens/shadow"));
    }
}
