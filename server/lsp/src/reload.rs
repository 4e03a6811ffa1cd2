//! Reading the results file from disk (blocking; call it from
//! `spawn_blocking`): notices whether it changed since the last read and
//! ranks it.

use crate::localization::Localization;
use crate::state::FileSignature;
use faultlens_core::measures::Measure;
use faultlens_pipeline::store;
use std::path::Path;

#[derive(Debug)]
pub enum Loaded {
    /// Same file as last time.
    Unchanged,
    /// No results file.
    Missing,
    Ranked(Box<Localization>, FileSignature),
    /// The file exists but cannot be used; the message says why and what to do.
    Broken(String, FileSignature),
}

pub fn signature(path: &Path) -> Option<FileSignature> {
    let meta = std::fs::metadata(path).ok()?;
    Some(FileSignature {
        modified: meta.modified().ok()?,
        len: meta.len(),
    })
}

/// Reads and ranks `<root>/.faultlens/results.json` unless its signature
/// equals `known`.
pub fn load(root: &Path, measure: Measure, known: Option<FileSignature>) -> Loaded {
    let path = store::results_path(root);
    let Some(sig) = signature(&path) else {
        return Loaded::Missing;
    };
    if Some(sig) == known {
        return Loaded::Unchanged;
    }
    match store::read_results(root) {
        Ok(Some(results)) => {
            Loaded::Ranked(Box::new(Localization::new(results, measure, root)), sig)
        }
        Ok(None) => Loaded::Missing,
        Err(e) => Loaded::Broken(e.to_string(), sig),
    }
}
