//! `faultlens localize --shard K/N` and `faultlens merge`: one suite run
//! as the jobs of a CI matrix, and put back together (see
//! `faultlens_core::shards`).

use super::localize::{localize_and_store, rank_only};
use super::root_or_cwd;
use crate::RankArgs;
use anyhow::anyhow;
use faultlens_core::shards;
use faultlens_pipeline::RunOptions;
use faultlens_workspace::{store, Project};
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs one shard's tests and stores their results beside the others'
/// (never as `results.json`); ranking waits for `merge`.
pub fn localize_shard(path: Option<PathBuf>, options: &RunOptions) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(path)?;
    let project = Project::load(&root)?;
    let results = localize_and_store(&project, options)?;
    let Some(shard) = results.shard else {
        return Err(anyhow!("the run was not sharded"));
    };
    eprintln!(
        "faultlens: shard {} ran {} of the suite's {} tests ({} failing). When every job's .faultlens/shard-K-of-{}.json is in, `faultlens merge` of them all combines them and ranks.",
        shard.spec(),
        results.tests.len(),
        shard.suite_tests,
        results.failed_count(),
        shard.count
    );
    Ok(ExitCode::SUCCESS)
}

/// Merges the shard files into `.faultlens/results.json` of the project
/// (`project` or the current directory) and ranks the merged run.
pub fn merge(
    files: &[PathBuf],
    project: Option<PathBuf>,
    args: &RankArgs,
) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(project)?;
    if !root.is_dir() {
        return Err(anyhow!(
            "{} is not a directory; give the project's root directory with --project",
            root.display()
        ));
    }
    let mut read = Vec::with_capacity(files.len());
    for file in files {
        read.push((file.display().to_string(), store::read_results_file(file)?));
    }
    let mut merged = shards::merge(read)?;
    let here = root.canonicalize().unwrap_or_else(|_| root.clone());
    merged.project_root = here.to_string_lossy().into_owned();
    let written = store::write_results(&root, &merged)?;
    eprintln!(
        "faultlens: {} shards merged: {} tests ({} failing), written to {}",
        files.len(),
        merged.tests.len(),
        merged.failed_count(),
        written.display()
    );
    rank_only(Some(root), args)
}
