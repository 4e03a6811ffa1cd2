//! `faultlens import`: results from coverage and verdicts collected
//! elsewhere (see `faultlens_pipeline::import`), then the ranking.

use super::localize::rank_only;
use super::root_or_cwd;
use crate::RankArgs;
use faultlens_pipeline::import::{import, ImportFiles};
use faultlens_workspace::{store, Project};
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(path: Option<PathBuf>, files: ImportFiles, args: &RankArgs) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(path)?;
    let project = Project::load(&root)?;
    let imported = import(&project, &files)?;
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    let results = &imported.results;
    let written = store::write_results(&project.root, results)?;
    eprintln!(
        "faultlens: imported {} tests ({} failing) covering {} file{}, written to {}",
        results.tests.len(),
        results.failed_count(),
        results.files.len(),
        if results.files.len() == 1 { "" } else { "s" },
        written.display()
    );
    rank_only(Some(root), args)
}
