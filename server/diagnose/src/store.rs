//! Edge: the diagnosis document on disk, `<project>/.faultlens/diagnosis.json`
//! (pretty JSON, written atomically: a temporary file renamed over it).

use faultlens_core::diagnosis::{DiagnosisReport, DIAGNOSIS_FILE};
use std::path::{Path, PathBuf};

pub fn report_path(root: &Path) -> PathBuf {
    root.join(DIAGNOSIS_FILE)
}

pub fn write_report(root: &Path, report: &DiagnosisReport) -> Result<(), String> {
    let path = report_path(root);
    let dir = path.parent().expect("the path has a directory");
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| format!("serializing the diagnosis: {e}"))?;
    let tmp = dir.join(format!(".diagnosis.json.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text + "\n").map_err(|e| format!("writing {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("replacing {}: {e}", path.display())
    })
}

/// `Ok(None)` when no diagnosis was stored yet.
pub fn read_report(root: &Path) -> Result<Option<DiagnosisReport>, String> {
    let path = report_path(root);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("reading {}: {e}", path.display())),
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        format!(
            "{} is not a diagnosis document ({e}); run `faultlens diagnose` again to rewrite it",
            path.display()
        )
    })
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
