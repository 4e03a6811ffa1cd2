//! `faultlens generate`: tests that sharpen the ranking.
//!
//! Localizes with the project's tests, generates tests round by round in the
//! C model (showing how each round moves the top lines, on the model's
//! coverage), appends them to `.faultlens/generated-tests.toml`, then
//! localizes again with the real binary so the ranking includes them, and
//! checks that every generated test got the verdict the model predicted.

use super::localize::{cancel_on_interrupt, localize_and_store};
use super::root_or_cwd;
use crate::output::outln;
use anyhow::anyhow;
use faultlens_core::measures::{Formula, Ranker};
use faultlens_core::ranking::Rank;
use faultlens_core::results::{RunResults, Verdict as CoreVerdict};
use faultlens_generate::predict;
use faultlens_generate::session::{generate_project, ExplorerKind, GenerateOptions};
use faultlens_generate::{Run, Strategy, Verdict};
use faultlens_ops::rank::analyse;
use faultlens_pipeline::RunOptions;
use faultlens_workspace::{store, Project};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Exit status when a generated test did not get the predicted verdict.
const PREDICTION_MISSED: u8 = 4;

/// Lines shown per ranking: those whose best rank is at most this.
const TOP: u32 = 3;

type Line = (String, u32);

pub fn run(
    path: Option<PathBuf>,
    strategy: &str,
    max: Option<usize>,
    measure: Ranker,
    explorer: &str,
) -> anyhow::Result<ExitCode> {
    let strategy = Strategy::parse(strategy)
        .ok_or_else(|| anyhow!("unknown strategy {strategy:?}: use sfo, sfo_p or sat-tar"))?;
    let explorer = ExplorerKind::parse(explorer)
        .ok_or_else(|| anyhow!("unknown explorer {explorer:?}: use enumerate or solver"))?;
    let root = root_or_cwd(path)?;
    let project = Project::load(&root)?;
    // Refuse a project that is not a harness before running anything.
    faultlens_generate::model::harness_sources(&project).map_err(|e| anyhow!("{e}"))?;

    eprintln!("faultlens: localizing with the project's tests");
    let before = localize_and_store(&project, &RunOptions::default())?;
    let before_ranks = real_ranks(&project, before, measure)?;

    let cancel = cancel_on_interrupt();
    let mut opts = GenerateOptions::new(strategy);
    opts.max = max;
    opts.explorer = explorer;
    // The model's coverage has no edge profiles or diagnosis: its rankings
    // use the formula, Ochiai for BlockRank and fusion.
    let formula = measure.formula().unwrap_or(Formula::Ochiai);
    outln!(
        "Generating tests with {} (ranks under {} on the model's coverage):",
        strategy.name(),
        formula.name()
    );
    let mut round = 0;
    let generation = generate_project(&project, &opts, &mut |test, data: &[Run]| {
        round += 1;
        let prior = predict::ranking(&data[..data.len() - 1], formula);
        let now = predict::ranking(data, formula);
        let predicted = match &test.run.verdict {
            Verdict::Pass => "passes".to_string(),
            Verdict::Fail { violation } => format!("fails: {violation}"),
        };
        outln!(
            "  round {round}: {} stdin {:?} ({predicted})",
            test.name,
            test.run.stdin()
        );
        outln!("    {}", changes(&prior, &now));
        !cancel.is_cancelled()
    })
    .map_err(|e| anyhow!("{e}"))?;
    if cancel.is_cancelled() {
        eprintln!("faultlens: stopped by the user; keeping the tests generated so far");
    }
    for (name, why) in &generation.skipped {
        eprintln!("note: test {name:?} is not a run of the harness in the model ({why})");
    }
    if let Some(from) = &generation.suspects_from {
        eprintln!("note: SAT-TAR suspects: {from}");
    }
    let stats = generation.stats;
    outln!(
        "{} test(s) generated; {} {} over {} paths ({} interpreter runs)",
        generation.tests.len(),
        stats.queries,
        match explorer {
            ExplorerKind::Enumerate => "queries",
            ExplorerKind::Solver => "solver calls",
        },
        stats.population,
        stats.interpreter_runs
    );
    for note in &generation.notes {
        eprintln!("note: {note}");
    }
    let Some(file) = &generation.file else {
        outln!("No run with the wanted coverage remains: the ranking stays as it is.");
        return Ok(ExitCode::SUCCESS);
    };
    outln!(
        "Written to {} (copy entries into faultlens.toml to keep them).",
        file.display()
    );

    if cancel.is_cancelled() {
        outln!("Run `faultlens localize` to rank with them.");
        return Ok(ExitCode::from(130));
    }
    eprintln!("faultlens: localizing again with the generated tests");
    let after = localize_and_store(&project, &RunOptions::default())?;
    let missed = check_predictions(&after, &generation.tests);
    let after_ranks = real_ranks(&project, after, measure)?;
    outln!("Ranking with the real binary ({}):", measure.name());
    outln!("  {}", changes(&before_ranks, &after_ranks));
    if missed.is_empty() {
        outln!(
            "All {} generated tests got the verdict the model predicted.",
            generation.tests.len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        for m in &missed {
            eprintln!("warning: {m}");
        }
        Ok(ExitCode::from(PREDICTION_MISSED))
    }
}

/// Every line's rank in the real results.
fn real_ranks(
    project: &Project,
    results: RunResults,
    measure: Ranker,
) -> anyhow::Result<BTreeMap<Line, Rank>> {
    let sources = store::read_sources(&project.root, &results);
    let analysis = analyse(&project.root, Arc::new(results), measure, false, &sources)?;
    Ok(analysis
        .entries()
        .map(|e| ((e.file.to_string(), e.line), e.ranked.rank))
        .collect())
}

/// `minmax.c:33 1.5 → 1, minmax.c:32 3 → 2; left the top: minmax.c:19 1.5 → 13`: the top
/// lines after the round and the lines that dropped out of the top.
fn changes(before: &BTreeMap<Line, Rank>, after: &BTreeMap<Line, Rank>) -> String {
    const SHOWN: usize = 4;
    let show = |r: Option<&Rank>| r.map_or("-".to_string(), |r| format!("{}", r.average));
    let describe = |l: &Line| {
        format!(
            "{}:{} {} → {}",
            l.0,
            l.1,
            show(before.get(l)),
            show(after.get(l))
        )
    };
    let now: Vec<Line> = predict::top(after, TOP)
        .into_iter()
        .map(|(l, _)| l)
        .collect();
    let left: Vec<Line> = predict::top(before, TOP)
        .into_iter()
        .map(|(l, _)| l)
        .filter(|l| !now.contains(l))
        .collect();
    let list = |lines: &[Line]| {
        let mut parts: Vec<String> = lines.iter().take(SHOWN).map(describe).collect();
        if lines.len() > SHOWN {
            parts.push(format!("and {} more", lines.len() - SHOWN));
        }
        parts.join(", ")
    };
    let mut text = format!("top lines: {}", list(&now));
    if !left.is_empty() {
        text.push_str(&format!("; left the top: {}", list(&left)));
    }
    text
}

/// Generated tests whose real verdict differs from the prediction.
fn check_predictions(
    results: &RunResults,
    tests: &[faultlens_generate::tests_file::GeneratedTest],
) -> Vec<String> {
    let mut missed = Vec::new();
    for t in tests {
        let predicted = if t.run.verdict.is_fail() {
            CoreVerdict::Fail
        } else {
            CoreVerdict::Pass
        };
        match results.tests.iter().find(|r| r.name == t.name) {
            None => missed.push(format!("generated test {} did not run", t.name)),
            Some(r) if r.verdict != predicted => missed.push(format!(
                "generated test {} was predicted to {} but the binary {}",
                t.name,
                if predicted == CoreVerdict::Fail {
                    "fail"
                } else {
                    "pass"
                },
                r.reason.as_deref().unwrap_or("passed")
            )),
            Some(_) => {}
        }
    }
    missed
}
