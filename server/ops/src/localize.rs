//! Build, run every test and store the results.

use crate::first_ranking::{merge, FirstRanking};
use faultlens_core::results::RunResults;
use faultlens_pipeline::{CancelToken, FirstTests, PipelineError, Progress, RunOptions};
use faultlens_workspace::{store, Project};

/// Where the pipeline keeps each test's output and coverage while it runs.
const RUNS_DIR: &str = "runs";

/// Localizes `project` and writes `.faultlens/results.json` (a shard's
/// results, with `options.shard`, go to `.faultlens/shard-K-of-N.json`
/// instead: only `faultlens merge` of every shard makes a run). A cancelled
/// run writes nothing and leaves no per-test files behind (the pipeline
/// empties that directory at the start of every run, so nothing else
/// lives there): "nothing was written" stays true.
pub fn localize_and_store(
    project: &Project,
    options: &RunOptions,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: &CancelToken,
) -> Result<RunResults, PipelineError> {
    localize_and_store_in_stages(project, options, &[], &|_| {}, progress, cancel)
}

/// [`localize_and_store`], running the tests named `first` (the developer's
/// failing tests) before the others and handing `on_first` a ranking of
/// them with the previous results that still hold (see
/// [`crate::first_ranking`]) while the rest runs. Nothing is stored
/// before the whole run is in.
pub fn localize_and_store_in_stages(
    project: &Project,
    options: &RunOptions,
    first: &[String],
    on_first: &(dyn Fn(FirstRanking) + Sync),
    progress: &(dyn Fn(Progress) + Sync),
    cancel: &CancelToken,
) -> Result<RunResults, PipelineError> {
    let previous = match first {
        [] => None,
        _ => store::read_results(&project.root).ok().flatten(),
    };
    let ready = |fresh: RunResults| {
        let digests = store::digest_sources(&project.root);
        on_first(merge(previous.as_ref(), fresh, &digests));
    };
    let stages = FirstTests {
        names: first,
        ready: &ready,
    };
    let stages = (!first.is_empty()).then_some(&stages);
    let outcome =
        faultlens_pipeline::localize_in_stages(project, options, stages, progress, cancel)
            .and_then(|results| match cancel.is_cancelled() {
                true => Err(PipelineError::Cancelled),
                false => Ok(results),
            });
    let results = outcome.inspect_err(|e| {
        if matches!(e, PipelineError::Cancelled) {
            let _ = std::fs::remove_dir_all(project.work_dir().join(RUNS_DIR));
        }
    })?;
    match results.shard {
        Some(_) => store::write_shard(&project.root, &results)?,
        None => store::write_results(&project.root, &results)?,
    };
    Ok(results)
}
