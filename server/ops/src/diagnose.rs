//! Diagnose from fresh results and store the diagnosis.

use faultlens_core::diagnosis::{DiagnosisRefusal, DiagnosisReport};
use faultlens_core::results::RunResults;
use faultlens_diagnose::{
    diagnose_project, CancelToken, DiagnoseError, DiagnoseOptions, DiagnoseProgress,
};
use faultlens_workspace::store::{self, stored_results, StoredResults};
use faultlens_workspace::{Project, WorkspaceError};
use std::path::Path;

/// Where a diagnosis starts.
#[derive(Debug)]
pub enum Start {
    /// The stored results still describe the project.
    Fresh(RunResults),
    /// Localize again first: the project changed since the run (how, as a
    /// clause: "mid.c changed since the last run").
    Stale(String),
    /// Localize first: nothing was localized yet.
    Missing,
}

/// The one freshness check both front doors start a diagnosis from.
pub fn start(root: &Path) -> Result<Start, WorkspaceError> {
    Ok(match stored_results(root)? {
        StoredResults::Fresh(results) => Start::Fresh(results),
        StoredResults::Stale { reason, .. } => Start::Stale(reason),
        StoredResults::Missing => Start::Missing,
    })
}

/// Diagnoses `results` and writes `.faultlens/diagnosis.json`; a cancelled
/// search writes nothing.
pub fn diagnose_and_store(
    project: &Project,
    results: &RunResults,
    options: &DiagnoseOptions,
    progress: &dyn Fn(DiagnoseProgress),
    cancel: &CancelToken,
) -> Result<DiagnosisReport, DiagnoseError> {
    let mut report = match diagnose_project(project, results, options, progress, cancel) {
        Ok(report) => report,
        Err(DiagnoseError::NotModelled(reason)) => {
            // Kept so that a later ranking does not advise diagnosing again
            // (a failure to record it only loses that advice).
            let refusal = DiagnosisRefusal {
                results_created_unix_ms: results.created_unix_ms,
                reason: reason
                    .chars()
                    .take(DiagnosisRefusal::MAX_REASON / 4)
                    .collect(),
            };
            let _ = store::write_diagnosis_refusal(&project.root, &refusal);
            return Err(DiagnoseError::NotModelled(reason));
        }
        Err(e) => return Err(e),
    };
    report.results_created_unix_ms = Some(results.created_unix_ms);
    if cancel.is_cancelled() {
        return Err(DiagnoseError::Cancelled);
    }
    store::write_diagnosis(&project.root, &report)?;
    Ok(report)
}
