//! CTest projects: a CMake coverage build in `.faultlens/cmake-build`.

use super::{build_step, Built, COVERAGE_CFLAGS};
use crate::command::Steps;
use crate::error::Result;
use crate::paths::PathMap;
use crate::project::Project;
use crate::toolchain::{require, Toolchain};
use std::path::Path;
use std::process::Command;

/// How a failed CMake configure step's message begins (a run of a
/// detected project then tries the other build system it has).
pub const CONFIGURE_FAILED: &str = "configuring the CMake coverage build failed:";

pub fn build(
    project: &Project,
    tools: &Toolchain,
    runtime: &Path,
    jobs: usize,
    env: Vec<(String, String)>,
    steps: &Steps,
) -> Result<Built> {
    require(
        "cmake",
        "CMake, which builds this CTest project",
        "install it (Debian/Ubuntu: `sudo apt-get install cmake`)",
    )?;
    require(
        "ctest",
        "CTest, which lists this project's tests",
        "it comes with CMake (Debian/Ubuntu: `sudo apt-get install cmake`)",
    )?;
    let root = &project.root;
    if !root.join("CMakeLists.txt").is_file() {
        return Err(crate::error::PipelineError::Config {
            path: root.join(crate::config::CONFIG_FILE),
            message: format!(
                "this is configured as a CTest project ([project] kind = \"ctest\" or a [ctest] section) but {} has no CMakeLists.txt",
                root.display()
            ),
        });
    }
    let dir = project
        .work()?
        .dir_without_links_out(faultlens_workspace::build_dirs::CMAKE)?;
    let paths = PathMap::new(root.clone(), None);
    let section = project.config.ctest.clone().unwrap_or_default();

    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(root)
        .arg("-B")
        .arg(&dir)
        .arg("-DCMAKE_BUILD_TYPE=Debug")
        // The C model reads the sources and flags of each test executable
        // from it (`faultlens diagnose` on unit-test cases).
        .arg("-DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
        .arg(format!("-DCMAKE_C_COMPILER={}", tools.cc))
        // Tests kept behind BUILD_TESTING or an option of the project's.
        .args(faultlens_workspace::cmake_lists::test_switches(
            &faultlens_workspace::cmake_lists::texts(root),
        ))
        .arg(format!("-DCMAKE_C_FLAGS={COVERAGE_CFLAGS}"))
        .arg(format!(
            "-DCMAKE_EXE_LINKER_FLAGS=--coverage {}",
            super::runtime::link_flags(runtime)
        ))
        .args(&section.cmake_args);
    build_step(configure, CONFIGURE_FAILED, root, &[], &dir, &paths, steps)?;
    let mut build = Command::new("cmake");
    build
        .arg("--build")
        .arg(&dir)
        .arg("-j")
        .arg(jobs.max(1).to_string())
        .args(&section.build_args);
    build_step(
        build,
        "building the CMake coverage build failed:",
        root,
        &[],
        &dir,
        &paths,
        steps,
    )?;
    Ok(Built {
        program: None,
        run_dir: dir.clone(),
        notes_dir: dir.clone(),
        cmake_dir: Some(dir),
        paths,
        env,
        said: Vec::new(),
    })
}
