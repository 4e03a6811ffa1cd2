//! The accuracy yardstick: single-fault versions (mutants) of the programs
//! in `bench/mutants/programs/` and of `fixtures/compact-suite`'s program
//! with its fault fixed (our own, each with a few hundred tests), and how
//! well each technique finds the mutated line.
//!
//! For each program: every mutant the operators offer (`faultlens-mutants`),
//! a seeded sample of them (`MUTANTS_PER_PROGRAM`, default 30;
//! `MUTANT_SEED`, default 1), each built and run with coverage (each test
//! under `MUTANT_TEST_TIMEOUT` seconds, default 1); a mutant that does not
//! build, that no test kills (equivalent, or beyond the tests), or whose
//! first `PROBE` tests all time out (a loop the mutant made endless: its
//! whole suite would cost the timeout per test) is left out and counted. Each kept version is ranked by every
//! measure and BlockRank and scored like `faultlens eval` (EXAM at the
//! average rank of the fault's tie group; top-N). With `MUTANTS_DIAGNOSE=S`
//! each is also diagnosed (`faultlens diagnose --time-limit S`): does a
//! diagnosis contain the fault, at which rank, in what time; and fusion is
//! scored from it as `faultlens rank` delivers it (the base ranker alone
//! where the diagnosis was refused), with `fusion:op2-min`, an ablation
//! that lifts only the minimum-cost diagnoses' lines.
//!
//! Each kept version's row goes to stderr (its mutant and, with the
//! diagnosis, the fault's rank in it, the time, and how many diagnoses
//! and tests, or why it was refused); `MUTANTS_WORK=DIR` keeps the
//! versions there, each written afresh, to rerun a miss by hand.

#[path = "../tests/common/mod.rs"]
mod common;
use common::copy_tree;

use faultlens_core::eval::{fault_position, in_top, FaultPosition};
use faultlens_core::measures::{Ranker, ALL};
use faultlens_core::results::Outcome;
use faultlens_mutants::{candidates, sample, Mutant};
use faultlens_pipeline::{CancelToken, RunOptions};
use faultlens_report::Analysis;
use faultlens_workspace::{store, Project};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What happened to the sampled mutants of a program.
#[derive(Default)]
struct Tally {
    sampled: usize,
    kept: usize,
    not_built: usize,
    not_killed: usize,
    hangs: usize,
}

/// Tests run first; when every one of them times out the version is left out.
const PROBE: usize = 6;

/// Why a version is left out.
enum LeftOut {
    NotBuilt,
    Hangs,
}

/// Localizes the version in `dir`, its first [`PROBE`] tests first: when
/// they all time out, the rest is not run.
fn localize(
    dir: &Path,
    options: &RunOptions,
) -> Result<faultlens_core::results::RunResults, LeftOut> {
    let project = Project::load(dir).map_err(|_| LeftOut::NotBuilt)?;
    let timeout = options.timeout.unwrap_or(Duration::from_secs(1));
    let first: Vec<String> = faultlens_workspace::declared::discover_declared(&project, timeout)
        .and_then(Result::ok)
        .unwrap_or_default()
        .into_iter()
        .take(PROBE)
        .map(|t| t.name)
        .collect();
    let cancel = CancelToken::new();
    let hangs = std::sync::atomic::AtomicBool::new(false);
    let on_first = |first: faultlens_ops::first_ranking::FirstRanking| {
        let tests = &first.results.tests;
        if !tests.is_empty() && tests.iter().all(|t| t.outcome == Outcome::TimedOut) {
            hangs.store(true, std::sync::atomic::Ordering::Relaxed);
            cancel.cancel();
        }
    };
    faultlens_ops::localize::localize_and_store_in_stages(
        &project,
        options,
        &first,
        &on_first,
        &|_| {},
        &cancel,
    )
    .map_err(|_| match hangs.load(std::sync::atomic::Ordering::Relaxed) {
        true => LeftOut::Hangs,
        false => LeftOut::NotBuilt,
    })
}

/// A diagnosis of one version: the rank (1-based) of the first diagnosis
/// holding the faulty line, and the time it took.
struct Diagnosed {
    rank: Option<usize>,
    time: Duration,
    complete: bool,
    /// The longest one SAT call ran past its step's deadline, in ms.
    overrun_ms: f64,
    /// How many diagnoses and failing tests, or why it was refused.
    summary: String,
}

fn main() {
    let per_program = env_number("MUTANTS_PER_PROGRAM", 30) as usize;
    let seed = env_number("MUTANT_SEED", 1);
    let diagnose = std::env::var("MUTANTS_DIAGNOSE").ok();
    let programs_dir = common::repo_root().join("bench/mutants/programs");
    let mut programs: Vec<_> = std::fs::read_dir(&programs_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", programs_dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("faultlens.toml").is_file())
        .collect();
    // `MUTANTS_WORK=DIR` keeps the versions there (to rerun a miss by hand).
    let kept_work = std::env::var_os("MUTANTS_WORK").map(std::path::PathBuf::from);
    let temp = tempfile::tempdir().unwrap();
    let work_dir = kept_work.unwrap_or_else(|| temp.path().to_path_buf());
    let work = work_dir.as_path();
    for fixture in FIXED_FIXTURES {
        programs.push(fixed_fixture(fixture, work));
    }
    programs.sort_by_key(|p| p.file_name().map(|n| n.to_os_string()));
    // The correct programs run each test in milliseconds; a mutant that
    // loops for ever costs this per test (`MUTANT_TEST_TIMEOUT` seconds).
    let options = RunOptions {
        timeout: Some(Duration::from_secs(env_number("MUTANT_TEST_TIMEOUT", 1))),
        jobs: None,
        shard: None,
    };
    let mut rankers: Vec<Ranker> = ALL.iter().map(|&f| Ranker::Formula(f)).collect();
    rankers.push(Ranker::BlockRank);
    if diagnose.is_some() {
        // Fusion over the default measure, the best single one here, and
        // BlockRank.
        rankers.push(Ranker::FUSION);
        rankers.push(Ranker::Formula(faultlens_core::measures::Formula::Op2).fused());
        rankers.push(Ranker::BlockRank.fused());
    }
    let mut positions: BTreeMap<String, Vec<Option<FaultPosition>>> = BTreeMap::new();
    let mut diagnosed: Vec<Diagnosed> = Vec::new();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_operator: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut localize_times = Vec::new();

    for (index, program) in programs.iter().enumerate() {
        let name = program.file_name().unwrap().to_string_lossy().into_owned();
        let project = Project::load(program).unwrap();
        let source_file = project
            .config
            .build
            .sources
            .clone()
            .expect("[build] sources")[0]
            .clone();
        let source = std::fs::read_to_string(program.join(&source_file)).unwrap();
        let chosen = sample(
            candidates(&source),
            per_program,
            seed.wrapping_add(index as u64),
        );
        let tally = tallies.entry(name.clone()).or_default();
        for (k, mutant) in chosen.iter().enumerate() {
            tally.sampled += 1;
            let dir = work.join(format!("{name}-{k}"));
            write_version(program, &dir, &source_file, &source, mutant);
            let started = Instant::now();
            let results = localize(&dir, &options);
            let entry = by_operator.entry(mutant.operator.name()).or_default();
            entry.0 += 1;
            let results = match results {
                Err(LeftOut::NotBuilt) => {
                    tally.not_built += 1;
                    continue;
                }
                Err(LeftOut::Hangs) => {
                    tally.hangs += 1;
                    continue;
                }
                Ok(r) if r.failed_count() == 0 => {
                    tally.not_killed += 1;
                    continue;
                }
                Ok(r) => Arc::new(r),
            };
            localize_times.push(started.elapsed());
            tally.kept += 1;
            entry.1 += 1;
            let mut outcome = String::new();
            if let Some(limit) = &diagnose {
                let d = diagnosis_of(&dir, limit, &source_file, mutant.line as u32);
                outcome = format!(
                    " · diagnosis: fault {} · {:.1} s{} · {}",
                    d.rank.map_or("missing".into(), |r| format!("#{r}")),
                    d.time.as_secs_f64(),
                    if d.complete { " (complete)" } else { "" },
                    d.summary
                );
                diagnosed.push(d);
            }
            let sources = store::read_sources(&dir, &results);
            let at_fault = |analysis: &Analysis| {
                fault_position(&analysis.ranking, |i| {
                    let c = analysis.spectra.components[i];
                    results.files[c.file as usize].path == source_file
                        && c.line == mutant.line as u32
                })
            };
            for ranker in &rankers {
                // Fusion as `faultlens rank` delivers it: over the diagnosis
                // of this run, or the base ranker alone where the diagnosis
                // was refused.
                let analysis = match ranker {
                    Ranker::Fusion(_) => faultlens_ops::rank::analyse_fused(
                        &dir,
                        results.clone(),
                        ranker.base(),
                        true,
                        false,
                        &sources,
                    ),
                    _ => faultlens_ops::rank::analyse(
                        &dir,
                        results.clone(),
                        *ranker,
                        false,
                        &sources,
                    ),
                };
                let position = analysis.ok().and_then(|a| at_fault(&a));
                positions.entry(ranker.name()).or_default().push(position);
            }
            if diagnose.is_some() {
                // Ablation: fusion over Op2 lifting only the minimum-cost
                // diagnoses' lines (the costlier ones ranked by Op2 alone).
                let cheapest = store::read_diagnosis(&dir)
                    .ok()
                    .flatten()
                    .map(|mut report| {
                        let min = report.diagnoses.iter().map(|d| d.cost).min();
                        report.diagnoses.retain(|d| Some(d.cost) == min);
                        report
                    });
                let op2 = Ranker::Formula(faultlens_core::measures::Formula::Op2);
                let ranker = if cheapest.is_some() { op2.fused() } else { op2 };
                let position =
                    Analysis::compute(results.clone(), ranker, false, &sources, cheapest.as_ref())
                        .ok()
                        .and_then(|a| at_fault(&a));
                positions
                    .entry("fusion:op2-min".into())
                    .or_default()
                    .push(position);
            }
            eprintln!(
                "mutants: {name} #{k}: {}{outcome}",
                mutant.describe(&source_file, &source)
            );
        }
    }

    println!("faultlens mutant benchmark (seed {seed}, {per_program} sampled per program)\n");
    println!(
        "{:<13} {:>8} {:>6} {:>10} {:>11} {:>6}",
        "program", "sampled", "kept", "not built", "not killed", "hangs"
    );
    for (name, t) in &tallies {
        println!(
            "{name:<13} {:>8} {:>6} {:>10} {:>11} {:>6}",
            t.sampled, t.kept, t.not_built, t.not_killed, t.hangs
        );
    }
    println!();
    for (op, (sampled, kept)) in &by_operator {
        println!("  {op:<18} {kept:>4} kept of {sampled:>4} sampled");
    }
    let kept: usize = tallies.values().map(|t| t.kept).sum();
    localize_times.sort();
    if let Some(median) = localize_times.get(localize_times.len() / 2) {
        println!(
            "\nlocalization (build, every test, coverage) per version: median {:.2} s",
            median.as_secs_f64()
        );
    }
    println!(
        "\n{:<14} {:>10} {:>6} {:>6} {:>6} {:>6}   over {kept} versions",
        "technique", "mean EXAM", "top-1", "top-3", "top-5", "top-10"
    );
    let mut rows: Vec<(String, f64, [usize; 4])> = positions
        .iter()
        .map(|(name, ps)| {
            let exam =
                ps.iter().map(|p| p.map_or(1.0, |p| p.exam)).sum::<f64>() / ps.len().max(1) as f64;
            let top = [1, 3, 5, 10].map(|n| ps.iter().filter(|p| in_top(**p, n)).count());
            (name.clone(), exam, top)
        })
        .collect();
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    for (name, exam, top) in rows {
        println!(
            "{name:<14} {:>9.1}% {:>6} {:>6} {:>6} {:>6}",
            exam * 100.0,
            top[0],
            top[1],
            top[2],
            top[3]
        );
    }
    if !diagnosed.is_empty() {
        let contains = diagnosed.iter().filter(|d| d.rank.is_some()).count();
        let complete = diagnosed.iter().filter(|d| d.complete).count();
        let mut times: Vec<Duration> = diagnosed.iter().map(|d| d.time).collect();
        times.sort();
        let mut ranks: Vec<usize> = diagnosed.iter().filter_map(|d| d.rank).collect();
        ranks.sort();
        let overrun = diagnosed.iter().map(|d| d.overrun_ms).fold(0.0, f64::max);
        println!(
            "\ndiagnosis: contains the fault in {contains} of {} versions (median rank {}), complete search in {complete}, median time {:.1} s, worst overrun of a deadline by a SAT call {overrun:.0} ms",
            diagnosed.len(),
            ranks.get(ranks.len() / 2).map_or("-".into(), |r| r.to_string()),
            times[times.len() / 2].as_secs_f64()
        );
    }
}

/// Fixtures whose program, with its ground truth's fix applied, is one of
/// the benchmark's programs (their tests' expected outputs come from the
/// fixed program).
const FIXED_FIXTURES: [&str; 1] = ["compact-suite"];

/// A copy of `fixtures/<name>` with its one fault fixed, named after its program.
fn fixed_fixture(name: &str, work: &Path) -> std::path::PathBuf {
    let from = common::repo_root().join("fixtures").join(name);
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(from.join("ground-truth.json")).unwrap())
            .unwrap();
    let fault = &truth["faults"][0];
    let file = fault["file"].as_str().unwrap();
    let lines: Vec<usize> = fault["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap() as usize)
        .collect();
    let (first, last) = (lines[0], *lines.last().unwrap());
    let program = file.trim_end_matches(".c");
    let dir = work.join("fixed").join(program);
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(&from, &dir);
    std::fs::remove_file(dir.join("ground-truth.json")).unwrap();
    let source = std::fs::read_to_string(dir.join(file)).unwrap();
    let mut text: Vec<&str> = source.split('\n').collect();
    text.splice(first - 1..last, fault["fix"].as_str().unwrap().split('\n'));
    std::fs::write(dir.join(file), text.join("\n")).unwrap();
    dir
}

/// A copy of `program` with `mutant` applied and its ground truth.
fn write_version(program: &Path, dir: &Path, file: &str, source: &str, mutant: &Mutant) {
    // A kept work directory may hold an earlier run's version here.
    let _ = std::fs::remove_dir_all(dir);
    copy_tree(program, dir);
    std::fs::write(dir.join(file), mutant.apply(source)).unwrap();
    let truth = serde_json::json!({"faults": [{"file": file, "lines": [mutant.line]}]});
    std::fs::write(dir.join("ground-truth.json"), truth.to_string()).unwrap();
}

/// Runs `faultlens diagnose` on a version and finds the fault in its diagnoses.
fn diagnosis_of(dir: &Path, limit: &str, file: &str, line: u32) -> Diagnosed {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args([
            "diagnose",
            dir.to_str().unwrap(),
            "--format",
            "json",
            "--time-limit",
            limit,
        ])
        .output()
        .unwrap();
    let time = started.elapsed();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let rank = doc["diagnoses"].as_array().and_then(|list| {
        list.iter().position(|d| {
            d["statements"]
                .as_array()
                .is_some_and(|s| s.iter().any(|s| s["file"] == file && s["line"] == line))
        })
    });
    let count = |key: &str| doc[key].as_array().map_or(0, Vec::len);
    let summary = match doc["error"]["message"].as_str() {
        Some(why) => format!("refused: {why}"),
        None if doc.is_null() => "no report (the command printed no JSON)".into(),
        None => format!(
            "{} diagnoses of {} failing tests ({} skipped)",
            count("diagnoses"),
            count("failing_tests"),
            count("skipped_tests")
        ),
    };
    Diagnosed {
        rank: rank.map(|r| r + 1),
        time,
        complete: doc["complete"] == true,
        overrun_ms: doc["stats"]["worst_overrun_ms"].as_f64().unwrap_or(0.0),
        summary,
    }
}
