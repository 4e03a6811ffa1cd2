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
    /// Fusion was asked for where `faultlens diagnose` already said it
    /// cannot diagnose the run.
    #[error("fusion ranks by the evidence of a diagnosis, and `faultlens diagnose` could not diagnose {run}: {reason}. {advice}")]
    DiagnosisRefused {
        run: &'static str,
        reason: String,
        advice: &'static str,
    },
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
        Ranker::Fusion(_) => store::read_diagnosis(root)?,
        _ => None,
    };
    if matches!(ranker, Ranker::Fusion(_)) && diagnosis.is_none() {
        if let Ok(Some(refusal)) = store::read_diagnosis_refusal(root) {
            let (run, advice) = if refusal.describes(&results) {
                ("these results", "Rank by a spectrum measure (`--measure ochiai`) or by BlockRank (`--measure blockrank`) instead")
            } else {
                (
                    "an earlier run of this project",
                    "Run `faultlens diagnose` again only if the program changed since",
                )
            };
            return Err(RankError::DiagnosisRefused {
                run,
                reason: refusal.reason,
                advice,
            });
        }
    }
    Ok(Analysis::compute(
        results,
        ranker,
        include_test_code,
        sources,
        diagnosis.as_ref(),
    )?)
}

/// Ranks `results` under `requested`, fused with the stored diagnosis when
/// `fuse` is on and a diagnosis of these very results is stored: fusion is
/// the default ranking wherever a diagnosis exists. A missing, unreadable
/// or older diagnosis leaves the ranking to `requested` alone (reading it
/// is not what was asked for, so its problems are not this ranking's).
pub fn analyse_fused(
    root: &Path,
    results: Arc<RunResults>,
    requested: Ranker,
    fuse: bool,
    include_test_code: bool,
    sources: &SourceTexts,
) -> Result<Analysis, RankError> {
    if fuse && !matches!(requested, Ranker::Fusion(_)) {
        if let Ok(Some(report)) = store::read_diagnosis(root) {
            if report.describes(&results) {
                return Ok(Analysis::compute(
                    results,
                    requested.fused(),
                    include_test_code,
                    sources,
                    Some(&report),
                )?);
            }
        }
    }
    analyse(root, results, requested, include_test_code, sources)
}
