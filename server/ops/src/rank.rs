//! Rank stored results under any ranker.

use faultlens_core::measures::Ranker;
use faultlens_core::results::RunResults;
use faultlens_core::sources::SourceTexts;
use faultlens_report::{Analysis, AnalysisError};
use faultlens_workspace::{store, WorkspaceError};
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum RankError {
    /// The stored diagnosis fusion needs could not be read.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
}

/// Ranks `results` of the project at `root` under `ranker`: fusion reads
/// the stored diagnosis, BlockRank builds its graphs from `sources` (the
/// caller reads them once, with [`store::read_sources`], and shows their
/// text too).
pub fn analyse(
    root: &Path,
    results: Arc<RunResults>,
    ranker: Ranker,
    include_test_code: bool,
    sources: &SourceTexts,
) -> Result<Analysis, RankError> {
    let diagnosis = match ranker {
        Ranker::Fusion => store::read_diagnosis(root)?,
        _ => None,
    };
    Ok(Analysis::compute(
        results,
        ranker,
        include_test_code,
        sources,
        diagnosis.as_ref(),
    )?)
}
