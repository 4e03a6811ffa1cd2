//! `faultlens eval`: every measure on every fixture that carries a
//! `ground-truth.json`, scored by EXAM and top-N under honest ties.

use crate::output::outln;
use anyhow::{anyhow, Context};
use faultlens_core::eval::{fault_position, in_top, FaultPosition};
use faultlens_core::measures::{Ranker, ALL};
use faultlens_core::results::RunResults;
use faultlens_ops::rank::{analyse, RankError};
use faultlens_pipeline::{CancelToken, RunOptions};
use faultlens_report::AnalysisError;
use faultlens_workspace::{store, Project};
use serde::Deserialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

pub const GROUND_TRUTH: &str = "ground-truth.json";

#[derive(Deserialize)]
pub struct GroundTruth {
    pub faults: Vec<Fault>,
}

#[derive(Deserialize)]
pub struct Fault {
    pub file: String,
    pub lines: Vec<u32>,
}

impl GroundTruth {
    pub fn read(dir: &Path) -> anyhow::Result<GroundTruth> {
        let path = dir.join(GROUND_TRUTH);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a ground truth ({{\"faults\": [{{\"file\", \"lines\"}}]}})",
                path.display()
            )
        })
    }

    pub fn is_faulty(&self, file: &str, line: u32) -> bool {
        self.faults
            .iter()
            .any(|f| f.file == file && f.lines.contains(&line))
    }
}

/// One fixture's outcome under one measure.
struct Score {
    fixture: String,
    measure: Ranker,
    position: Option<FaultPosition>,
    /// Why the measure could not rank this fixture (fusion without a
    /// stored diagnosis); such scores are left out of the means.
    unavailable: Option<String>,
}

pub fn run(paths: Vec<PathBuf>, chosen: &[Ranker], as_json: bool) -> anyhow::Result<ExitCode> {
    let measures: Vec<Ranker> = if chosen.is_empty() {
        ALL.iter()
            .map(|&f| Ranker::Formula(f))
            .chain([Ranker::BlockRank])
            .collect()
    } else {
        chosen.to_vec()
    };
    let roots = if paths.is_empty() {
        vec![PathBuf::from("fixtures")]
    } else {
        paths
    };
    let fixtures = find_fixtures(&roots)?;
    if fixtures.is_empty() {
        return Err(anyhow!(
            "no fixture with a {GROUND_TRUTH} under {}",
            roots
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }

    let cancel = super::localize::cancel_on_interrupt();
    let mut scores = Vec::new();
    let mut summaries = Vec::new();
    for dir in &fixtures {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        eprintln!("faultlens eval: {name}");
        let truth = GroundTruth::read(dir)?;
        let results =
            Arc::new(run_fixture(dir, &cancel).with_context(|| format!("fixture {name}"))?);
        let sources = store::read_sources(dir, &results);
        summaries.push((name.clone(), results.tests.len(), results.failed_count()));
        warn_unranked_faults(&name, &truth, &results);
        for &measure in &measures {
            // Fusion without a diagnosis is n/a for this fixture, not an
            // error: programs outside the C model never have one, and the
            // other measures are still worth evaluating. The ranking's own
            // error says why (and whether `diagnose` already refused it).
            let analysis = match analyse(dir, results.clone(), measure, false, &sources) {
                Ok(analysis) => analysis,
                Err(
                    e @ (RankError::Analysis(AnalysisError::NoDiagnosis)
                    | RankError::DiagnosisRefused { .. }),
                ) => {
                    let reason = e.to_string();
                    eprintln!("faultlens eval: {name}: fusion n/a: {reason}");
                    scores.push(Score {
                        fixture: name.clone(),
                        measure,
                        position: None,
                        unavailable: Some(reason),
                    });
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            let position = fault_position(&analysis.ranking, |i| {
                let c = analysis.spectra.components[i];
                truth.is_faulty(&results.files[c.file as usize].path, c.line)
            });
            scores.push(Score {
                fixture: name.clone(),
                measure,
                position,
                unavailable: None,
            });
        }
    }

    if as_json {
        let per_fixture: Vec<_> = scores
            .iter()
            .map(|s| json!({
                "fixture": s.fixture,
                "measure": s.measure.name(),
                "available": s.unavailable.is_none(),
                "reason": s.unavailable,
                "found": s.position.is_some(),
                "rank": s.position.map(|p| json!({"best": p.best, "worst": p.worst, "average": p.average})),
                "exam": if s.unavailable.is_some() { json!(null) } else { json!(s.position.map_or(1.0, |p| p.exam)) },
            }))
            .collect();
        let summary: Vec<_> = measures.iter().map(|m| summary_json(*m, &scores)).collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({"fixtures": per_fixture, "summary": summary}))?
        );
    } else {
        print_text(&measures, &scores, &summaries);
    }
    Ok(ExitCode::SUCCESS)
}

fn run_fixture(dir: &Path, cancel: &CancelToken) -> anyhow::Result<RunResults> {
    let project = Project::load(dir)?;
    let results = faultlens_ops::localize::localize_and_store(
        &project,
        &RunOptions::default(),
        &|_| {},
        cancel,
    )?;
    if results.failed_count() == 0 {
        return Err(anyhow!(
            "no test fails, so there is nothing to localize; check the fixture"
        ));
    }
    Ok(results)
}

fn find_fixtures(roots: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for root in roots {
        if root.join(GROUND_TRUTH).is_file() {
            found.push(root.clone());
            continue;
        }
        if !root.is_dir() {
            if root == Path::new("fixtures") {
                return Err(anyhow!(
                    "there is no ./fixtures directory here; name the fixture directories (each with a {GROUND_TRUTH}): faultlens eval DIR..."
                ));
            }
            eprintln!(
                "faultlens eval: skipping {} (not a directory)",
                root.display()
            );
            continue;
        }
        let entries =
            std::fs::read_dir(root).with_context(|| format!("listing {}", root.display()))?;
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join(GROUND_TRUTH).is_file())
            .collect();
        if dirs.is_empty() {
            eprintln!("faultlens eval: {} has no {GROUND_TRUTH} and no fixture directories with one; skipping it", root.display());
        }
        dirs.sort();
        found.extend(dirs);
    }
    Ok(found)
}

/// A ground truth whose lines are not executable can never be found: say
/// so, or the fixture silently counts as a miss.
fn warn_unranked_faults(fixture: &str, truth: &GroundTruth, results: &RunResults) {
    for fault in &truth.faults {
        let file = results.files.iter().find(|f| f.path == fault.file);
        let executable = fault
            .lines
            .iter()
            .any(|l| file.is_some_and(|f| f.lines.contains(l)));
        if !executable {
            let lines: Vec<String> = fault.lines.iter().map(u32::to_string).collect();
            eprintln!(
                "warning: {fixture}: the ground truth names {}:{}, which is not an executable line of the coverage build; it can never be found",
                fault.file,
                lines.join(",")
            );
        }
    }
}

struct Summary {
    /// Over the fixtures the measure could rank (`total`); `None` when none.
    mean_exam: Option<f64>,
    top: [usize; 4],
    found: usize,
    total: usize,
    unavailable: usize,
}

const TOPS: [u32; 4] = [1, 3, 5, 10];

fn summarize(measure: Ranker, scores: &[Score]) -> Summary {
    let all = scores.iter().filter(|s| s.measure == measure);
    let unavailable = all.clone().filter(|s| s.unavailable.is_some()).count();
    let mine: Vec<&Score> = all.filter(|s| s.unavailable.is_none()).collect();
    let exams: Vec<f64> = mine
        .iter()
        .map(|s| s.position.map_or(1.0, |p| p.exam))
        .collect();
    Summary {
        mean_exam: (!exams.is_empty()).then(|| exams.iter().sum::<f64>() / exams.len() as f64),
        top: TOPS.map(|n| mine.iter().filter(|s| in_top(s.position, n)).count()),
        found: mine.iter().filter(|s| s.position.is_some()).count(),
        total: mine.len(),
        unavailable,
    }
}

fn summary_json(measure: Ranker, scores: &[Score]) -> serde_json::Value {
    let s = summarize(measure, scores);
    json!({
        "measure": measure.name(),
        "mean_exam": s.mean_exam,
        "top1": s.top[0], "top3": s.top[1], "top5": s.top[2], "top10": s.top[3],
        "found": s.found, "fixtures": s.total, "not_available": s.unavailable,
    })
}

fn print_text(measures: &[Ranker], scores: &[Score], fixtures: &[(String, usize, usize)]) {
    outln!(
        "{} fixture{}:",
        fixtures.len(),
        if fixtures.len() == 1 { "" } else { "s" }
    );
    for (name, total, failed) in fixtures {
        let first = scores
            .iter()
            .find(|s| &s.fixture == name && s.measure == measures[0]);
        let at = match first {
            Some(Score {
                unavailable: Some(_),
                ..
            }) => "n/a".to_string(),
            _ => first
                .and_then(|s| s.position)
                .map_or("not ranked".to_string(), |p| {
                    format!("rank {}-{} (avg {:.1})", p.best, p.worst, p.average)
                }),
        };
        outln!(
            "  {name:<28} {failed:>3} of {total:>3} tests fail   fault under {}: {at}",
            measures[0].title()
        );
    }
    let missing: Vec<&Score> = scores.iter().filter(|s| s.unavailable.is_some()).collect();
    if !missing.is_empty() {
        outln!();
        for s in missing {
            outln!(
                "  {} n/a for {}: {}",
                s.measure.name(),
                s.fixture,
                s.unavailable.as_deref().unwrap_or_default()
            );
        }
    }
    outln!();
    outln!(
        "{:<16} {:>9} {:>6} {:>6} {:>6} {:>6} {:>9}",
        "measure",
        "mean EXAM",
        "top-1",
        "top-3",
        "top-5",
        "top-10",
        "over"
    );
    let mut rows: Vec<(Ranker, Summary)> = measures
        .iter()
        .map(|m| (*m, summarize(*m, scores)))
        .collect();
    rows.sort_by(|a, b| {
        let key = |s: &Summary| s.mean_exam.unwrap_or(f64::INFINITY);
        key(&a.1).total_cmp(&key(&b.1))
    });
    for (m, s) in rows {
        let mean = s
            .mean_exam
            .map_or("n/a".to_string(), |e| format!("{:.1}%", e * 100.0));
        outln!(
            "{:<16} {:>9} {:>6} {:>6} {:>6} {:>6} {:>9}",
            m.name(),
            mean,
            s.top[0],
            s.top[1],
            s.top[2],
            s.top[3],
            format!("{}/{}", s.total, s.total + s.unavailable)
        );
    }
    outln!("\nEXAM: share of executable lines read, top-down, before the fault (average rank within ties); lower is better.");
    outln!("top-N: fixtures whose fault's average rank is at most N.");
    outln!("over: fixtures the measure could rank / fixtures evaluated; the mean and top-N are over the former (n/a: fusion without a stored diagnosis).");
}
