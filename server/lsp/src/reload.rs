//! Reading the results and diagnosis files from disk (blocking; call it
//! from `spawn_blocking`): notices whether they changed since the last read,
//! ranks the results and indexes the diagnosis.

use crate::diagnoses::Diagnoses;
use crate::localization::Localization;
use crate::session::FileSignature;
use faultlens_core::measures::Ranker;
use faultlens_core::results::RunResults;
use faultlens_core::sources::digest;
use faultlens_workspace::store;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

#[derive(Debug)]
pub enum Loaded {
    /// Same file as last time.
    Unchanged,
    /// No results file.
    Missing,
    Ranked(Box<Localization>, FileSignature),
    /// The file cannot be used; the message says why and what to do. With
    /// the signature of the file read, if it was (a reading that failed
    /// has none).
    Broken(String, Option<FileSignature>),
}

/// Files of the results that changed since the run: their content differs
/// from the digest the run recorded, or (results without digests) they were
/// modified after the run finished. The lines the results name may no
/// longer be where they were.
pub fn changed_since(loc: &Localization, root: &Path) -> HashSet<u32> {
    let finished = UNIX_EPOCH + Duration::from_millis(loc.results.created_unix_ms);
    loc.files_with_results()
        .into_iter()
        .filter(|&f| {
            let file = &loc.results.files[f as usize];
            let path = root.join(&file.path);
            match &file.digest {
                Some(recorded) => store::read_source(root, &file.path)
                    .is_ok_and(|bytes| digest(&bytes) != *recorded),
                None => std::fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .is_ok_and(|modified| modified > finished),
            }
        })
        .collect()
}

/// The saved text of `path`, a file inside the project at `root` (bounded,
/// regular files only: the results name files of a possibly hostile
/// repository). `None` when it cannot be read.
pub fn read_text(root: &Path, path: &Path) -> Option<String> {
    let bytes =
        faultlens_workspace::files::read_in_project(root, path, faultlens_confine::limits::SOURCE)
            .ok()?;
    String::from_utf8(bytes).ok()
}

pub fn signature(path: &Path) -> Option<FileSignature> {
    let meta = std::fs::metadata(path).ok()?;
    Some(FileSignature {
        modified: meta.modified().ok()?,
        len: meta.len(),
    })
}

/// Ranks results under any ranker, as the CLI does (`faultlens_ops::rank`),
/// reading the files' text only when the ranker needs it (BlockRank builds
/// control-flow graphs; the editor shows the text it has open).
pub fn rank(
    results: impl Into<Arc<RunResults>>,
    measure: Ranker,
    root: &Path,
) -> Result<Localization, String> {
    let results = results.into();
    let sources = match measure {
        Ranker::BlockRank => store::read_sources(root, &results),
        _ => faultlens_core::sources::SourceTexts::default(),
    };
    let analysis = faultlens_ops::rank::analyse(root, results, measure, false, &sources)
        .map_err(|e| e.to_string())?;
    Ok(Localization::from_analysis(analysis, root))
}

/// Reads and ranks `<root>/.faultlens/results.json` unless its signature
/// equals `known`.
pub fn load(root: &Path, measure: Ranker, known: Option<FileSignature>) -> Loaded {
    let path = store::results_path(root);
    let Some(sig) = signature(&path) else {
        return Loaded::Missing;
    };
    if Some(sig) == known {
        return Loaded::Unchanged;
    }
    match store::read_results(root) {
        Ok(Some(results)) => match rank(results, measure, root) {
            Ok(mut loc) => {
                loc.changed_on_disk = changed_since(&loc, root);
                Loaded::Ranked(Box::new(loc), sig)
            }
            Err(e) => Loaded::Broken(e, Some(sig)),
        },
        Ok(None) => Loaded::Missing,
        Err(e) => Loaded::Broken(e.to_string(), Some(sig)),
    }
}

/// What reading `.faultlens/diagnosis.json` found.
#[derive(Debug)]
pub enum LoadedDiagnosis {
    Unchanged,
    Missing,
    Read(Box<Diagnoses>, FileSignature),
    Broken(String, FileSignature),
}

/// Reads `<root>/.faultlens/diagnosis.json` unless its signature equals
/// `known`. Diagnosed files modified after the document was written are
/// marked changed (the document records no digests).
pub fn load_diagnosis(root: &Path, known: Option<FileSignature>) -> LoadedDiagnosis {
    let path = faultlens_workspace::store::diagnosis_path(root);
    let Some(sig) = signature(&path) else {
        return LoadedDiagnosis::Missing;
    };
    if Some(sig) == known {
        return LoadedDiagnosis::Unchanged;
    }
    match faultlens_workspace::store::read_diagnosis(root) {
        Ok(Some(report)) => {
            let mut diag = Diagnoses::new(report, root);
            diag.changed_on_disk = diag
                .files()
                .filter(|f| {
                    std::fs::metadata(root.join(f))
                        .and_then(|m| m.modified())
                        .is_ok_and(|modified| modified > sig.modified)
                })
                .map(String::from)
                .collect();
            LoadedDiagnosis::Read(Box::new(diag), sig)
        }
        Ok(None) => LoadedDiagnosis::Missing,
        Err(e) => LoadedDiagnosis::Broken(e.to_string(), sig),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localization::fixtures::{results, SOURCE};
    use faultlens_core::measures::Formula;

    #[test]
    fn content_digests_decide_what_changed_since_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        let path = root.join("src/sum.c");
        std::fs::write(&path, SOURCE).unwrap();
        let mut results = results();
        results.files[0].digest = Some(digest(SOURCE.as_bytes()));
        // Written long after the run, but the same content: unchanged.
        results.created_unix_ms = 1;
        let loc = Localization::new(results.clone(), Formula::Ochiai, root);
        assert!(changed_since(&loc, root).is_empty());
        std::fs::write(&path, format!("// edited\n{SOURCE}")).unwrap();
        assert_eq!(changed_since(&loc, root), HashSet::from([0]));
        // Without a digest, the modification time decides.
        results.files[0].digest = None;
        let loc = Localization::new(results, Formula::Ochiai, root);
        assert_eq!(changed_since(&loc, root), HashSet::from([0]));
    }

    #[test]
    fn a_diagnosis_is_read_and_files_edited_after_it_are_changed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(matches!(
            load_diagnosis(root, None),
            LoadedDiagnosis::Missing
        ));
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/sum.c"), SOURCE).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        faultlens_workspace::store::write_diagnosis(root, &crate::diagnoses::fixtures::report())
            .unwrap();
        let LoadedDiagnosis::Read(diag, sig) = load_diagnosis(root, None) else {
            panic!("not read")
        };
        assert_eq!(diag.lines_of("src/sum.c"), vec![4, 6]);
        assert!(diag.changed_on_disk.is_empty());
        assert!(matches!(
            load_diagnosis(root, Some(sig)),
            LoadedDiagnosis::Unchanged
        ));
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(root.join("src/sum.c"), format!("// x\n{SOURCE}")).unwrap();
        let LoadedDiagnosis::Read(diag, _) = load_diagnosis(root, None) else {
            panic!("not read")
        };
        assert!(diag.changed_on_disk.contains("src/sum.c"));
        std::fs::write(faultlens_workspace::store::diagnosis_path(root), "{").unwrap();
        let LoadedDiagnosis::Broken(message, _) = load_diagnosis(root, None) else {
            panic!("not broken")
        };
        assert!(message.contains("not a diagnosis document"), "{message}");
    }
}
