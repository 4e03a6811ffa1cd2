//! BlockRank scores of source lines, from a results document and the text of
//! its files: the convenience the CLI, the reports and the language server
//! call.
//!
//! A line takes the calibrated score `BR'` of its block (paper, Section
//! III.C, S3). Where several blocks have code on one line (`if (x) y++;`, a
//! `for` header), the line takes the most suspicious of them and its hover
//! details show that block. Executable lines in no block (code the graph
//! does not model, files whose text is missing) form the paper's "additional
//! block" ranked below every other: they score one less than the lowest
//! block score.

use faultlens_cfg::{
    build_file, evidence_lines, parse::ParseError, plan, profile_file, CfgError, CoverageView,
    FunctionCfg, ENTRY, EXIT,
};
use faultlens_core::results::{RunResults, Verdict};
use serde::Serialize;
use thiserror::Error;

use crate::algorithm::{rank_sums, BlockRankError, Graph, ProfileSums};

#[derive(Debug, Clone, PartialEq, Error)]
pub enum LineScoresError {
    #[error("the results document is inconsistent: {0}")]
    Results(String),
    #[error("{got} source texts were given for the {expected} files of the results document; pass one entry (or None) per file, in the same order")]
    SourceCount { expected: usize, got: usize },
    #[error("{file}: {source}")]
    Cfg { file: String, source: CfgError },
    #[error("{file}, function {function}: {source}")]
    Rank {
        file: String,
        function: String,
        source: BlockRankError,
    },
}

/// One edge as the hover shows it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct EdgeDetail {
    /// `line 12 true → line 13`.
    pub description: String,
    /// Mean count over failing tests.
    pub pf: f64,
    /// Mean count over passing tests.
    pub pp: f64,
    /// Suspicious edge profile `Pf - Pp`.
    pub d: f64,
}

/// One block of one function, with everything its score came from.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct BlockDetail {
    pub function: String,
    /// First and last line of the block's code (1-based).
    pub first_line: u32,
    pub last_line: u32,
    /// The ranking score: `BR'` plus the crash calibration's credit.
    pub score: f64,
    /// `BR` before the calibration.
    pub br: f64,
    /// `I`, the sum of `D` over incoming edges.
    pub i: f64,
    /// Transition rate `T`: share of entries that left the block.
    pub t: f64,
    /// Share of failing runs that stopped inside the block (crashed, exited,
    /// or called a function that never returned) less that of passing runs.
    #[serde(default)]
    pub stop: f64,
    /// What the crash calibration added to `score`: `stop` times the
    /// largest score magnitude of the program.
    #[serde(default)]
    pub crash_credit: f64,
    pub incoming: Vec<EdgeDetail>,
    pub outgoing: Vec<EdgeDetail>,
}

/// How well the coverage data fitted the graphs (summed over tests and
/// functions), for a warning when the derivation had to guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct DerivationStats {
    pub unresolved_edges: usize,
    pub inconsistent_equations: usize,
    pub unmatched_branch_clusters: usize,
    /// Functions whose fixed point did not settle within the cap.
    pub unconverged_functions: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileScores {
    /// `(line, score, index into blocks or None)` for every executable line
    /// of the file (`results.files[i].lines`), ascending.
    pub lines: Vec<(u32, f64, Option<usize>)>,
    pub blocks: Vec<BlockDetail>,
    /// False when the file's text was not available.
    pub analysed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineScores {
    /// One entry per `results.files[i]`.
    pub files: Vec<FileScores>,
    /// Score of lines in no block (below every block).
    pub unmapped_score: f64,
    pub stats: DerivationStats,
    /// Functions without a graph: their lines are in no block.
    pub skipped: Vec<SkippedFunction>,
}

/// A function BlockRank has no graph for (it nests deeper than the graph
/// builder allows): its lines rank with the lines in no block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedFunction {
    /// The file as the results document names it.
    pub file: String,
    /// Empty when no function of the file has a graph (it did not parse).
    pub function: String,
    /// The function's first line (1-based).
    pub line: u32,
    /// ``an expression nested 4999 deep (…) at line 6``.
    pub reason: String,
}

impl SkippedFunction {
    /// What the user reads under a BlockRank ranking.
    pub fn message(&self) -> String {
        if self.function.is_empty() {
            return format!(
                "BlockRank has no graph for any function of {}: {}; its lines rank below every block",
                self.file, self.reason
            );
        }
        format!(
            "BlockRank has no graph for `{}` ({}:{}): {}; its lines rank below every block",
            self.function, self.file, self.line, self.reason
        )
    }
}

impl LineScores {
    /// The score of an executable line, or `None` when `line` is not one.
    pub fn score(&self, file: usize, line: u32) -> Option<f64> {
        let lines = &self.files.get(file)?.lines;
        let i = lines.binary_search_by_key(&line, |&(l, _, _)| l).ok()?;
        Some(lines[i].1)
    }

    /// The block a line takes its score from, for the hover.
    pub fn detail(&self, file: usize, line: u32) -> Option<&BlockDetail> {
        let f = self.files.get(file)?;
        let i = f.lines.binary_search_by_key(&line, |&(l, _, _)| l).ok()?;
        f.lines[i].2.map(|b| &f.blocks[b])
    }
}

/// BlockRank over every file of `results`. `sources[i]` is the text of
/// `results.files[i]` (None when it could not be read: its lines then rank
/// last).
pub fn line_scores(
    results: &RunResults,
    sources: &[Option<String>],
) -> Result<LineScores, LineScoresError> {
    results.validate().map_err(LineScoresError::Results)?;
    if sources.len() != results.files.len() {
        return Err(LineScoresError::SourceCount {
            expected: results.files.len(),
            got: sources.len(),
        });
    }
    let passed = results
        .tests
        .iter()
        .filter(|t| t.verdict == Verdict::Pass)
        .count();
    let failed = results.tests.len() - passed;
    let mut stats = DerivationStats::default();
    let mut skipped = Vec::new();
    let mut files = Vec::with_capacity(results.files.len());
    // Per analysed file: (line, block) pairs for every line of every block.
    let mut pending: Vec<(usize, Vec<(u32, usize)>)> = Vec::new();
    for (index, file) in results.files.iter().enumerate() {
        let Some(source) = &sources[index] else {
            files.push(FileScores {
                lines: file.lines.iter().map(|&l| (l, f64::NAN, None)).collect(),
                blocks: Vec::new(),
                analysed: false,
            });
            continue;
        };
        let built = match build_file(source) {
            Ok(built) => built,
            // A file too slow to parse (hostile input) is left out, not the
            // whole ranking.
            Err(CfgError::Parse(e @ ParseError::TooSlow(_))) => {
                skipped.push(SkippedFunction {
                    file: file.path.clone(),
                    function: String::new(),
                    line: 1,
                    reason: e.to_string(),
                });
                files.push(FileScores {
                    lines: file.lines.iter().map(|&l| (l, f64::NAN, None)).collect(),
                    blocks: Vec::new(),
                    analysed: false,
                });
                continue;
            }
            Err(source) => {
                return Err(LineScoresError::Cfg {
                    file: file.path.clone(),
                    source,
                })
            }
        };
        skipped.extend(built.too_deep.iter().map(|f| SkippedFunction {
            file: file.path.clone(),
            function: f.name.clone(),
            line: f.line,
            reason: f.reason(),
        }));
        let cfgs = built.functions;
        let coverage = results
            .tests
            .iter()
            .flat_map(|t| t.coverage.iter())
            .filter(|c| c.file as usize == index);
        let plans = plan(&cfgs, &evidence_lines(&file.lines, coverage));
        let mut sums: Vec<ProfileSums> = cfgs
            .iter()
            .map(|c| {
                let mut s = ProfileSums::new(c.edges.len());
                s.passed_tests = passed;
                s.failed_tests = failed;
                s
            })
            .collect();
        for test in &results.tests {
            let Some(coverage) = test.coverage.iter().find(|c| c.file as usize == index) else {
                continue; // all counts 0
            };
            let view = CoverageView::new(Some(coverage));
            let is_failed = test.verdict == Verdict::Fail;
            let profiles = profile_file(&cfgs, &plans, &view);
            for (f, profile) in profiles.iter().enumerate() {
                stats.unresolved_edges += profile.unresolved;
                stats.inconsistent_equations += profile.inconsistent;
                stats.unmatched_branch_clusters += profile.unmatched_branches;
                let target = if is_failed {
                    &mut sums[f].failed_sum
                } else {
                    &mut sums[f].passed_sum
                };
                for (s, &c) in target.iter_mut().zip(&profile.counts) {
                    *s += c as f64;
                }
            }
        }
        let mut blocks = Vec::new();
        let mut candidates: Vec<(u32, usize)> = Vec::new();
        for (cfg, sums) in cfgs.iter().zip(&sums) {
            let graph = Graph {
                blocks: cfg.blocks.len(),
                edges: cfg.edges.iter().map(|e| (e.from, e.to)).collect(),
            };
            let scores = rank_sums(&graph, sums).map_err(|source| LineScoresError::Rank {
                file: file.path.clone(),
                function: cfg.name.clone(),
                source,
            })?;
            if !scores.converged {
                stats.unconverged_functions += 1;
            }
            for b in 0..cfg.blocks.len() {
                if b == ENTRY || b == EXIT {
                    continue;
                }
                let Some((first_line, last_line)) = cfg.line_span(b) else {
                    continue;
                };
                let id = blocks.len();
                for p in cfg.code(b) {
                    candidates.extend((p.line..=p.end_line).map(|l| (l, id)));
                }
                blocks.push(block_detail(cfg, b, &scores, first_line, last_line));
            }
        }
        pending.push((index, candidates));
        files.push(FileScores {
            lines: Vec::new(),
            blocks,
            analysed: true,
        });
    }
    calibrate_stops(&mut files);
    for (index, candidates) in pending {
        let f = &mut files[index];
        f.lines = most_suspicious_block(&results.files[index].lines, &candidates, &f.blocks);
    }
    // Lines in no block rank below every block.
    let lowest = files
        .iter()
        .flat_map(|f| f.lines.iter())
        .filter(|x| x.2.is_some())
        .map(|x| x.1)
        .fold(f64::INFINITY, f64::min);
    let unmapped_score = if lowest.is_finite() {
        lowest - 1.0
    } else {
        -1.0
    };
    for f in &mut files {
        for x in &mut f.lines {
            if x.2.is_none() {
                x.1 = unmapped_score;
            }
        }
    }
    Ok(LineScores {
        files,
        unmapped_score,
        stats,
        skipped,
    })
}

/// The crash calibration: a block's score gains its stop share `S` (the
/// share of failing runs that stopped inside it, less that of passing runs)
/// times the largest score magnitude of the program. A block where every
/// failing run crashed, and no passing run stopped, thus reaches the top
/// score, whatever the loop counts elsewhere; the paper's own term
/// `(1 - T)·I` gives it nothing when every test enters it equally often.
/// Taken across functions because a crash stops the crashing block and
/// every caller's block on the stack, each in its own graph.
fn calibrate_stops(files: &mut [FileScores]) {
    let top = files
        .iter()
        .flat_map(|f| &f.blocks)
        .map(|b| b.score.abs())
        .filter(|s| s.is_finite())
        .fold(0.0f64, f64::max);
    let unit = if top > 0.0 { top } else { 1.0 };
    for block in files.iter_mut().flat_map(|f| f.blocks.iter_mut()) {
        if block.stop != 0.0 {
            block.crash_credit = block.stop * unit;
            block.score += block.crash_credit;
        }
    }
}

/// `(line, score, block)` for each executable line: the most suspicious
/// block with code on the line (ties keep the earlier block), none when no
/// block has code there.
fn most_suspicious_block(
    lines: &[u32],
    candidates: &[(u32, usize)],
    blocks: &[BlockDetail],
) -> Vec<(u32, f64, Option<usize>)> {
    let mut best: Vec<(u32, f64, usize)> = candidates
        .iter()
        .map(|&(l, id)| (l, blocks[id].score, id))
        .collect();
    best.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    best.dedup_by_key(|x| x.0);
    lines
        .iter()
        .map(|&l| match best.binary_search_by_key(&l, |x| x.0) {
            Ok(i) => (l, best[i].1, Some(best[i].2)),
            Err(_) => (l, f64::NAN, None),
        })
        .collect()
}

fn block_detail(
    cfg: &FunctionCfg,
    b: usize,
    scores: &crate::algorithm::BlockScores,
    first_line: u32,
    last_line: u32,
) -> BlockDetail {
    let edge = |e: usize| EdgeDetail {
        description: cfg.describe_edge(e),
        pf: scores.pf[e],
        pp: scores.pp[e],
        d: scores.d[e],
    };
    BlockDetail {
        function: cfg.name.clone(),
        first_line,
        last_line,
        score: scores.br_prime[b],
        br: scores.br[b],
        i: scores.i[b],
        t: scores.t[b],
        stop: scores.stop[b],
        crash_credit: 0.0,
        incoming: cfg.blocks[b].preds.iter().map(|&e| edge(e)).collect(),
        outgoing: cfg.blocks[b].succs.iter().map(|&e| edge(e)).collect(),
    }
}
