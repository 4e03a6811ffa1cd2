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
use std::path::{Path, PathBuf};
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
    let spec = shard.spec();
    let names: Vec<String> = (1..=shard.count)
        .map(|k| {
            let other = shards::ShardSpec {
                index: k,
                count: shard.count,
            };
            other.file_name()
        })
        .collect();
    eprintln!(
        "faultlens: shard {spec} ran {} of the suite's {} tests ({} failing). When every job's .faultlens/{} is in, `faultlens merge` of all of them combines them and ranks.",
        results.tests.len(),
        shard.suite_tests,
        results.failed_count(),
        names.join(", ")
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
        read.push((display(file), store::read_results_file(file)?));
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

fn display(path: &Path) -> String {
    path.display().to_string()
}
