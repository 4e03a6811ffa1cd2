//! Test discovery: every suite kind lowers its tests to [`TestSpec`]s.

mod ctest;
pub mod generated;
mod io;
mod runner;

/// The pure parsers of the compact `[tests]` forms, public for the fuzz
/// targets (`server/fuzz`); discovery itself goes through `discover`.
pub use io::{parse_args, parse_exit, parse_table, Case};

use crate::build::Built;
use crate::command::Steps;
use crate::config::Kind;
use crate::error::{PipelineError, Result};
use crate::project::Project;
use crate::testspec::TestSpec;
use std::time::Duration;

/// Per-test timeout when neither the configuration nor the caller sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

pub fn discover(
    project: &Project,
    built: &Built,
    timeout: Duration,
    steps: &Steps,
) -> Result<Vec<TestSpec>> {
    let tests = match project.kind {
        Kind::Io => io::discover(project, built, timeout)?,
        Kind::Ctest => ctest::discover(project, built, timeout, steps)?,
        Kind::Runner => runner::discover(project, built, timeout, steps)?,
    };
    if tests.is_empty() {
        return Err(PipelineError::NoTests(match project.kind {
            Kind::Io => "faultlens.toml declares no tests ([[test]] tables, [tests] inputs or table) or the globs match no files".into(),
            Kind::Ctest => "ctest lists no tests; add add_test() calls to CMakeLists.txt".into(),
            Kind::Runner => "the [runner] list command printed no test names".into(),
        }));
    }
    Ok(tests)
}

/// Discovery without building, for `faultlens tests`: io tests need no build.
pub fn discover_declared(project: &Project, timeout: Duration) -> Option<Result<Vec<TestSpec>>> {
    match project.kind {
        Kind::Io => Some(io::discover_unbuilt(project, timeout)),
        _ => None,
    }
}
