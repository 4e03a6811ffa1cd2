//! A run ranked under one measure: the unit every renderer works from.

use faultlens_blockrank::LineScores;
use faultlens_core::diagnosis::DiagnosisReport;
use faultlens_core::fusion::FusionEvidence;
use faultlens_core::measures::{Formula, Ranker};
use faultlens_core::ranking::{rank_counts, rank_scores, Ranked};
use faultlens_core::results::RunResults;
use faultlens_core::sources::SourceTexts;
use faultlens_core::spectra::{Counts, Spectra};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Analysis {
    pub results: Arc<RunResults>,
    /// How the lines were ranked.
    pub measure: Ranker,
    pub spectra: Spectra,
    /// Every ranked component, best first.
    pub ranking: Vec<Ranked>,
    /// BlockRank's blocks and edges behind each line's score, when the
    /// measure is BlockRank or fusion over it.
    pub blockrank: Option<LineScores>,
}

/// One ranked line with everything a renderer needs.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub ranked: &'a Ranked,
    pub file: &'a str,
    pub line: u32,
    pub counts: Counts,
}

/// Why a run could not be ranked under the ranker asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    #[error("the fusion measure orders lines by the evidence of a diagnosis, and none is stored for this project: run `faultlens diagnose` first")]
    NoDiagnosis,
    #[error("BlockRank: {0}")]
    BlockRank(String),
}

impl Analysis {
    /// Ranks a run under any ranker: the one entry point of every front
    /// end. A formula scores each line from its counts; BlockRank builds
    /// control-flow graphs from `sources`; fusion needs the stored
    /// `diagnosis` (read by the caller, which owns the files) and ranks by
    /// its evidence, then by its base ranker.
    pub fn compute(
        results: Arc<RunResults>,
        ranker: Ranker,
        include_test_code: bool,
        sources: &SourceTexts,
        diagnosis: Option<&DiagnosisReport>,
    ) -> Result<Analysis, AnalysisError> {
        let evidence = match ranker {
            Ranker::Fusion(_) => Some(FusionEvidence::from_report(
                diagnosis.ok_or(AnalysisError::NoDiagnosis)?,
            )),
            _ => None,
        };
        let spectra = Spectra::from_results(&results, include_test_code);
        let (base_scores, blockrank) = match ranker.base() {
            Ranker::Formula(formula) if evidence.is_none() => {
                return Ok(Analysis::by_formula(results, formula, include_test_code))
            }
            Ranker::Formula(formula) => (
                spectra.counts.iter().map(|c| formula.score(c)).collect(),
                None,
            ),
            _ => {
                let (scores, blocks) = blockrank_scores(&results, sources, &spectra)?;
                (scores, Some(blocks))
            }
        };
        let ranking = match &evidence {
            None => rank_scores(&base_scores, None, Some(&spectra.counts)),
            Some(evidence) => {
                let fused: Vec<f64> = spectra
                    .components
                    .iter()
                    .map(|c| evidence.score(&results.files[c.file as usize].path, c.line))
                    .collect();
                rank_scores(&fused, Some(&base_scores), Some(&spectra.counts))
            }
        };
        Ok(Analysis {
            results,
            measure: ranker,
            spectra,
            ranking,
            blockrank,
        })
    }

    /// [`Analysis::compute`] for a formula, which cannot fail: it needs
    /// neither sources nor a diagnosis.
    pub fn by_formula(
        results: Arc<RunResults>,
        formula: Formula,
        include_test_code: bool,
    ) -> Analysis {
        let spectra = Spectra::from_results(&results, include_test_code);
        let ranking = rank_counts(formula, &spectra.counts);
        Analysis {
            results,
            measure: Ranker::Formula(formula),
            spectra,
            ranking,
            blockrank: None,
        }
    }

    pub fn entry<'a>(&'a self, ranked: &'a Ranked) -> Entry<'a> {
        let component = self.spectra.components[ranked.component];
        Entry {
            ranked,
            file: &self.results.files[component.file as usize].path,
            line: component.line,
            counts: self.spectra.counts[ranked.component],
        }
    }

    pub fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        self.ranking.iter().map(|r| self.entry(r))
    }

    /// Under BlockRank, the block a ranked line takes its score from.
    pub fn block_of(&self, entry: &Entry) -> Option<&faultlens_blockrank::BlockDetail> {
        let component = self.spectra.components[entry.ranked.component];
        self.blockrank
            .as_ref()?
            .detail(component.file as usize, component.line)
    }

    /// Ranked lines that some failing test executed: the ones worth reading.
    pub fn suspicious(&self) -> usize {
        self.spectra.counts.iter().filter(|c| c.ef > 0).count()
    }
}

/// BlockRank's score of every component, and the blocks behind them.
fn blockrank_scores(
    results: &RunResults,
    sources: &SourceTexts,
    spectra: &Spectra,
) -> Result<(Vec<f64>, LineScores), AnalysisError> {
    let texts: Vec<Option<String>> = results
        .files
        .iter()
        .map(|f| sources.text(&f.path).map(String::from))
        .collect();
    let scores = faultlens_blockrank::line_scores(results, &texts)
        .map_err(|e| AnalysisError::BlockRank(e.to_string()))?;
    let line_scores = spectra
        .components
        .iter()
        .map(|c| {
            scores
                .score(c.file as usize, c.line)
                .unwrap_or(scores.unmapped_score)
        })
        .collect();
    Ok((line_scores, scores))
}
