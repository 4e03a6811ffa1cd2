//! The `faultlens/ranking` answer: the CLI's JSON ranking document, built by
//! the same code (`faultlens_report`) so the two never drift apart.

use crate::localization::Localization;
use faultlens_core::measures::Ranker;
use faultlens_report::json::RankingDocument;
use std::sync::Arc;

/// Blocking: reads the ranked files' text from disk, as the CLI does.
pub fn ranking_document(loc: &Localization, measure: Ranker) -> Result<RankingDocument, String> {
    let sources = faultlens_workspace::store::read_sources(&loc.root, &loc.results);
    let analysis = faultlens_ops::rank::analyse(
        &loc.root,
        Arc::clone(&loc.results),
        measure,
        false,
        &sources,
    )
    .map_err(|e| e.to_string())?;
    Ok(faultlens_report::json::ranking_document(
        &analysis, &sources, None,
    ))
}
