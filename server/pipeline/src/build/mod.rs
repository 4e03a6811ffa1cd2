//! The coverage build. Everything it writes lives under `.faultlens/`.
//!
//! - `sources`: faultlens compiles each file with `--coverage` into
//!   `.faultlens/build/` and links them with the runtime.
//! - `command`: the user's command runs in the shadow copy with `CC`,
//!   `CFLAGS` and `LDFLAGS` set.
//! - CTest: CMake configures a coverage build in `.faultlens/cmake-build`.
//! - Meson: `meson setup` makes a coverage build in `.faultlens/meson-build`.
//! - `make check`: the Makefile runs in the shadow copy, its `CC` a script
//!   that records each compiler invocation (`workspace::compilations`).

mod autotools;
pub mod cmake;
pub mod diagnostics;
pub mod make_check;
mod meson;
mod origin;
mod reuse;
mod runtime;
mod sources;
mod user_command;

use crate::command::Steps;
use crate::config::{CoverageTool, Kind};
use crate::error::{PipelineError, Result};
use crate::paths::PathMap;
use crate::project::Project;
use crate::toolchain::Toolchain;
use std::path::{Path, PathBuf};

/// Compiler flags of every coverage build. `-O0` keeps lines and counts
/// faithful to the source.
pub const COVERAGE_CFLAGS: &str = "--coverage -O0 -g";

/// Compiler and linker flags of the project's coverage build.
pub fn coverage_flags(project: &Project) -> (&'static str, &'static str) {
    match project.config.build.coverage {
        CoverageTool::Gcov => (COVERAGE_CFLAGS, "--coverage"),
        CoverageTool::Clang => (crate::clang_cov::CFLAGS, crate::clang_cov::LDFLAGS),
    }
}

/// What the build produced and where.
#[derive(Debug, Clone)]
pub struct Built {
    /// The program io tests run (`sources` or `command` builds).
    pub program: Option<PathBuf>,
    /// Directory in which runner commands and io tests run.
    pub run_dir: PathBuf,
    /// Where the `.gcno` notes files are, searched recursively.
    pub notes_dir: PathBuf,
    /// The CMake build directory, for CTest projects.
    pub cmake_dir: Option<PathBuf>,
    pub paths: PathMap,
    /// Environment of the coverage build (`CC`, `CFLAGS`, `LDFLAGS`), also
    /// given to runner commands, which may build.
    pub env: Vec<(String, String)>,
    /// What the build chose or did that its user may not expect.
    pub said: Vec<crate::note::Note>,
}

pub fn build(project: &Project, tools: &Toolchain, jobs: usize, steps: &Steps) -> Result<Built> {
    let work = project.work()?;
    let clang = project.config.build.coverage == CoverageTool::Clang;
    if clang
        && (project.kind != Kind::Io
            || project.config.build.sources.is_none() && project.config.build.command.is_none())
    {
        return Err(PipelineError::Config {
            path: project.root.join(crate::config::CONFIG_FILE),
            message: "`coverage = \"clang\"` works with input/output tests and `[build] sources` or `command` (faultlens reads the coverage of the program they run); use `coverage = \"gcov\"` for CTest and runner projects".into(),
        });
    }
    let dump = if clang {
        crate::clang_cov::DUMP_FUNCTION
    } else {
        "__gcov_dump"
    };
    let healed = origin::heal(project, &tools.cc)?;
    let runtime = runtime::build_runtime(&tools.cc, &work, dump, steps)?;
    let (cflags, ldflags) = coverage_flags(project);
    let env = vec![
        ("CC".to_string(), tools.cc.clone()),
        ("CFLAGS".to_string(), cflags.to_string()),
        (
            "LDFLAGS".to_string(),
            format!("{ldflags} {}", runtime::link_flags(&runtime)),
        ),
    ];
    let built = match (project.kind, &project.config.build) {
        (Kind::Ctest, _) => cmake::build(project, tools, &runtime, jobs, env, steps)?,
        (Kind::Meson, _) => meson::build(project, &runtime, jobs, env, steps)?,
        (Kind::Make, _) => {
            let env = make_check::recording_compilations(&work, &runtime, env)?;
            let built = make_check::build(project, jobs, env, steps)?;
            faultlens_workspace::compilations::prune(&work);
            built
        }
        (_, b) if b.sources.is_some() => {
            sources::build(project, tools, &runtime, jobs, env, steps)?
        }
        (_, b) if b.command.is_some() => user_command::build(project, env, steps)?,
        (Kind::Io, _) => return Err(PipelineError::Config {
            path: project.root.join(crate::config::CONFIG_FILE),
            message:
                "[build] needs `sources` (the C files to compile) or `command` (your build command)"
                    .into(),
        }),
        // A runner without a build section builds inside its own commands.
        (Kind::Runner, _) => user_command::no_build(project, env)?,
    };
    let builds_later = project.kind == Kind::Runner && project.config.build.command.is_none();
    if clang {
        // clang keeps the coverage mapping in the program itself.
        if built.program.as_ref().is_some_and(|p| !p.is_file()) {
            return Err(PipelineError::Build {
                message: format!(
                    "the build succeeded but did not produce {}; set [build] program to the path your build command writes",
                    built.program.as_ref().map_or(String::new(), |p| p.display().to_string())
                ),
                diagnostics: Vec::new(),
            });
        }
    } else if !builds_later && find_notes(&built.notes_dir).is_empty() {
        return Err(PipelineError::Build {
            message: format!(
                "the build succeeded but produced no coverage data (no .gcno files under {}).\n\
                 faultlens passes the coverage flags in CC/CFLAGS/LDFLAGS; a Makefile that sets `CFLAGS = ...` replaces them. \
                 Use `CFLAGS += ...` (or `CFLAGS ?= ...`) in the Makefile, or let faultlens compile with `[build] sources = [...]`.",
                built.notes_dir.display()
            ),
            diagnostics: Vec::new(),
        });
    }
    let mut built = built;
    built.said.extend(healed.map(crate::note::Note::Chose));
    Ok(built)
}

/// Every `.gcno` file under `dir`.
pub fn find_notes(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk(dir, |path, kind| {
        if kind.is_file() && path.extension().is_some_and(|e| e == "gcno") {
            found.push(path)
        }
    });
    found.sort();
    found
}

/// Calls `visit` with every entry below `dir` and its type, descending into
/// real directories only (never through a link); unreadable directories
/// are passed over.
pub(crate) fn walk(dir: &Path, mut visit: impl FnMut(PathBuf, std::fs::FileType)) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) => visit(entry.path(), t),
                Err(_) => {}
            }
        }
    }
}

/// Runs one step of a build in `cwd`; when it fails, the error is headed
/// `what` and carries the compiler's messages mapped into the project (their
/// paths relative to `dir`).
fn build_step(
    command: std::process::Command,
    what: &str,
    cwd: &Path,
    env: &[(String, String)],
    dir: &Path,
    paths: &PathMap,
    steps: &crate::command::Steps,
) -> Result<()> {
    let step = crate::command::run_step(command, cwd, env, steps)?;
    if step.success {
        Ok(())
    } else {
        Err(failed(what, &step.output, dir, paths))
    }
}

/// A build error with the compiler's diagnostics mapped into the project.
fn failed(what: &str, output: &str, cwd: &Path, paths: &PathMap) -> PipelineError {
    PipelineError::Build {
        message: format!("{what}\n{}", output.trim_end()),
        diagnostics: diagnostics::parse(output, cwd, paths),
    }
}
