//! The `faultlens/ranking` answer: the CLI's JSON ranking document, built by
//! the same code (`faultlens_report`) so the two never drift apart.

use crate::localization::Localization;
use faultlens_core::measures::Ranker;
use faultlens_report::json::RankingDocument;
use faultlens_report::Analysis;
use std::sync::Arc;

/// Blocking: reads the ranked files' text from disk, as the CLI does.
pub fn ranking_document(loc: &Localization, measure: Ranker) -> Result<RankingDocument, String> {
    let sources = faultlens_pipeline::store::read_sources(&loc.root, &loc.results);
    let diagnosis = crate::reload::diagnosis_for(measure, &loc.root)?;
    let analysis = Analysis::compute(
        Arc::clone(&loc.results),
        measure,
        false,
        &sources,
        diagnosis.as_ref(),
    )?;
    Ok(faultlens_report::json::ranking_document(
        &analysis, &sources, None,
    ))
}
