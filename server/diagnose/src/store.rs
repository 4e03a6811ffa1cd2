//! Edge: the diagnosis document on disk, `<project>/.faultlens/diagnosis.json`
//! (pretty JSON, written atomically: a temporary file renamed over it), as
//! the pipeline's store reads and writes it, with this crate's `String`
//! errors.

use faultlens_core::diagnosis::DiagnosisReport;
use faultlens_pipeline::store;
use std::path::{Path, PathBuf};

pub fn report_path(root: &Path) -> PathBuf {
    store::diagnosis_path(root)
}

pub fn write_report(root: &Path, report: &DiagnosisReport) -> Result<(), String> {
    store::write_diagnosis(root, report)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `Ok(None)` when no diagnosis was stored yet. The document is read as
/// hostile input (bounded, paths inside the project, its version checked).
pub fn read_report(root: &Path) -> Result<Option<DiagnosisReport>, String> {
    store::read_diagnosis(root).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_absent() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_report(dir.path()).unwrap(), None);
        let report = DiagnosisReport {
            failing_tests: vec!["t1".into()],
            complete: true,
            ..Default::default()
        };
        write_report(dir.path(), &report).unwrap();
        assert_eq!(read_report(dir.path()).unwrap(), Some(report));
        std::fs::write(report_path(dir.path()), "{").unwrap();
        assert!(read_report(dir.path())
            .unwrap_err()
            .contains("faultlens diagnose"));
    }
}
