//! Build, run every test and store the results.

use faultlens_core::results::RunResults;
use faultlens_pipeline::{CancelToken, PipelineError, Progress, RunOptions};
use faultlens_workspace::{store, Project};

/// Where the pipeline keeps each test's output and coverage while it runs.
const RUNS_DIR: &str = "runs";

/// Localizes `project` and writes `.faultlens/results.json`. A cancelled
/// run writes nothing and leaves no per-test files behind (the pipeline
/// empties that directory at the start of every run, so nothing else
/// lives there): "nothing was written" stays true.
pub fn localize_and_store(
    project: &Project,
    options: &RunOptions,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: &CancelToken,
) -> Result<RunResults, PipelineError> {
    let outcome =
        faultlens_pipeline::localize(project, options, progress, cancel).and_then(|results| {
            match cancel.is_cancelled() {
                true => Err(PipelineError::Cancelled),
                false => Ok(results),
            }
        });
    let results = outcome.inspect_err(|e| {
        if matches!(e, PipelineError::Cancelled) {
            let _ = std::fs::remove_dir_all(project.work_dir().join(RUNS_DIR));
        }
    })?;
    store::write_results(&project.root, &results)?;
    Ok(results)
}
