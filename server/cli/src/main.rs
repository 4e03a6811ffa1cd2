//! The `faultlens` command line.

mod commands;
mod interrupt;
mod output;
mod progress;

use clap::{Parser, Subcommand, ValueEnum};
use faultlens_core::measures::Ranker;
use faultlens_core::shards::ShardSpec;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "faultlens",
    version,
    about = "Shows which lines of a C program most likely hold the bug behind a failing test.",
    after_help = TOP_EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Sarif,
}

#[derive(clap::Args)]
pub struct RankArgs {
    /// Suspiciousness measure (`faultlens measures` lists them).
    #[arg(long, short, default_value = "ochiai", value_parser = parse_measure)]
    measure: Ranker,
    /// How many ranked lines to show (0 = all). Default: 10 for the table and SARIF, all for JSON.
    #[arg(long)]
    top: Option<usize>,
    /// Output: a table for people, the JSON ranking document, or SARIF 2.1.0.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Rank test code (test files, CTest drivers) too.
    #[arg(long)]
    include_test_code: bool,
    /// Rank by the measure alone even when a diagnosis of these results is
    /// stored (by default its evidence comes first: fusion over the measure).
    #[arg(long)]
    no_fusion: bool,
}

/// How the tests run (both `localize` and `watch` run them).
#[derive(clap::Args)]
pub struct RunArgs {
    /// Per-test time limit in seconds (overrides [run] timeout).
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<f64>,
    /// Tests run at once (default: number of cores).
    #[arg(long, short, value_parser = parse_jobs)]
    jobs: Option<usize>,
}

impl RunArgs {
    fn options(&self) -> faultlens_pipeline::RunOptions {
        faultlens_pipeline::RunOptions {
            timeout: self.timeout.map(std::time::Duration::from_secs_f64),
            jobs: self.jobs,
            shard: None,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Build for coverage, run every test, rank the lines most likely to hold the fault.
    Localize {
        /// Project root (default: the current directory).
        path: Option<PathBuf>,
        #[command(flatten)]
        rank: RankArgs,
        #[command(flatten)]
        run: RunArgs,
        /// Run only shard K of N of the tests (one job of a CI matrix); writes .faultlens/shard-K-of-N.json for `faultlens merge` instead of ranking.
        #[arg(long, value_name = "K/N", value_parser = ShardSpec::parse)]
        shard: Option<ShardSpec>,
    },
    /// Localize from coverage and verdicts collected elsewhere (a CI job's artifacts), without building or running: lcov tracefiles or gcov JSON per test, with a JUnit report.
    Import {
        /// Project root the sources are in (default: the current directory).
        path: Option<PathBuf>,
        /// JUnit XML reports with the verdicts (repeatable).
        #[arg(long, value_name = "REPORT", required = true)]
        junit: Vec<PathBuf>,
        /// lcov tracefiles: one TN: per test (lcov --capture --test-name NAME after each test).
        #[arg(long, value_name = "FILE", num_args = 1..)]
        lcov: Vec<PathBuf>,
        /// gcov JSON (gcov -j -t), one file per test, named after the test.
        #[arg(long, value_name = "FILE", num_args = 1..)]
        gcov_json: Vec<PathBuf>,
        #[command(flatten)]
        rank: RankArgs,
    },
    /// Combine the shards that `localize --shard K/N` wrote (on several machines) into one run's results, then rank them as `rank` does.
    Merge {
        /// Every shard's file (.faultlens/shard-K-of-N.json of each job).
        #[arg(required = true, value_name = "SHARD")]
        shards: Vec<PathBuf>,
        /// Project the merged results are written to (.faultlens/results.json; default: the current directory).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        #[command(flatten)]
        rank: RankArgs,
    },
    /// Wait for your own test runs (ctest, meson test, make check, JUnit reports) and localize after each failing one.
    Watch {
        /// Project root (default: the current directory).
        path: Option<PathBuf>,
        #[command(flatten)]
        rank: RankArgs,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Rank again from the last run's results (.faultlens/results.json), without building or running.
    Rank {
        path: Option<PathBuf>,
        #[command(flatten)]
        rank: RankArgs,
    },
    /// List the tests faultlens discovers.
    Tests {
        path: Option<PathBuf>,
        /// Print the list as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Evaluate every measure on fixtures with a ground-truth.json: EXAM and top-N.
    Eval {
        /// Fixture directories, or directories containing fixtures (default: ./fixtures).
        paths: Vec<PathBuf>,
        /// Only these measures (comma-separated; default: all).
        #[arg(long, value_delimiter = ',', value_parser = parse_measure)]
        measures: Vec<Ranker>,
        #[arg(long)]
        json: bool,
    },
    /// List the measures with their formulas.
    Measures,
    /// Run one configured test in faultlens's model of C and print what the program would.
    Interpret {
        path: Option<PathBuf>,
        /// The test to run (`faultlens tests` lists them).
        #[arg(long)]
        test: String,
        /// Also print every statement instance and its value (to stderr).
        #[arg(long)]
        trace: bool,
    },
    /// Diagnose every failing test at once: the statements whose change explains them all, with verified angelic values.
    #[command(after_help = DIAGNOSE_EXIT_CODES)]
    Diagnose {
        /// Project root (default: the current directory).
        path: Option<PathBuf>,
        /// Output: a table for people, the diagnosis document as JSON, or SARIF 2.1.0.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
        /// Time budget of the search in seconds (default: 30, none with --effort alone); what was found by then is reported.
        #[arg(long, value_parser = parse_seconds)]
        time_limit: Option<f64>,
        /// Deterministic budget of the search: N units of work (each about a second on a 2-core machine), counted the same on every machine, so the same project gives the same diagnosis anywhere (CI, tests). With --time-limit too, the first reached ends it.
        #[arg(long, value_name = "N", value_parser = parse_effort)]
        effort: Option<f64>,
        /// Largest diagnosis (statements) enumerated (default: 3).
        #[arg(long, value_parser = parse_count)]
        max_size: Option<usize>,
        /// Diagnoses reported at most (default: 20).
        #[arg(long, value_parser = parse_count)]
        max: Option<usize>,
    },
    /// Generate tests that sharpen the ranking of a harness (free inputs from __VERIFIER_nondet_*, asserts as the specification), then localize with them.
    #[command(after_help = GENERATE_EXIT_CODES)]
    Generate {
        /// Project root (default: the current directory).
        path: Option<PathBuf>,
        /// sfo: failing runs until the lines all failures share are known; sfo_p: then passing runs with new coverage; sat-tar: runs closest to the failing run on its suspects.
        #[arg(long, default_value = "sfo_p", value_parser = parse_strategy)]
        strategy: String,
        /// Tests to add at most (sfo_p: passing runs, default 20; sat-tar: rounds, default 20; sfo: no limit).
        #[arg(long, value_parser = parse_count)]
        max: Option<usize>,
        /// Ranker the rank changes are shown under.
        #[arg(long, short, default_value = "ochiai", value_parser = parse_measure)]
        measure: Ranker,
        /// How runs are found: enumerate (every path over a small input domain, in the interpreter) or solver (SAT on the C model's encoding).
        #[arg(long, default_value = "enumerate", value_parser = parse_explorer)]
        explorer: String,
    },
    /// Serve the Language Server Protocol over stdin/stdout (for editors).
    Lsp,
}

/// Exit statuses, stated in `--help` so scripts and CI can rely on them.
const TOP_EXIT_CODES: &str = "\
Exit status:
  0    success
  1    error (the message says what is wrong and what to do)
  2    usage error (unknown option or value)
  3    no test fails: nothing to localize or diagnose
  4    diagnose: the program is outside faultlens's model of C; generate: a generated test missed its predicted verdict
  130  interrupted (Ctrl-C or SIGTERM)";

const DIAGNOSE_EXIT_CODES: &str = "\
Exit status:
  0    diagnosed (written to .faultlens/diagnosis.json)
  1    error (the message says what is wrong and what to do)
  2    usage error
  3    no test fails: nothing to diagnose
  4    the program is outside faultlens's model of C (the message names the construct and where it is)
  130  interrupted (Ctrl-C or SIGTERM); the diagnosis was not written";

const GENERATE_EXIT_CODES: &str = "\
Exit status:
  0    tests generated and every one got the verdict the model predicted
  1    error (the message says what is wrong and what to do)
  2    usage error (e.g. an unknown --strategy or --explorer)
  4    a generated test did not get the verdict the model predicted
  130  interrupted (Ctrl-C or SIGTERM)";

/// Checked at parse time so a wrong name is a usage error (exit 2) before any work.
fn parse_strategy(name: &str) -> Result<String, String> {
    faultlens_generate::Strategy::parse(name)
        .map(|_| name.to_string())
        .ok_or_else(|| format!("unknown strategy {name:?}: use sfo, sfo_p or sat-tar"))
}

fn parse_explorer(name: &str) -> Result<String, String> {
    faultlens_generate::session::ExplorerKind::parse(name)
        .map(|_| name.to_string())
        .ok_or_else(|| format!("unknown explorer {name:?}: use enumerate or solver"))
}

fn parse_measure(name: &str) -> Result<Ranker, String> {
    Ranker::parse(name)
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t > 0.0 && t <= faultlens_workspace::config::MAX_TIMEOUT_SECONDS => Ok(t),
        _ => Err(format!(
            "{text:?} is not a number of seconds more than 0 and at most {} (a week)",
            faultlens_workspace::config::MAX_TIMEOUT_SECONDS
        )),
    }
}

/// The largest `--effort` (a week of work).
const MAX_EFFORT: f64 = 604_800.0;

fn parse_effort(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(e) if e > 0.0 && e <= MAX_EFFORT => Ok(e),
        _ => Err(format!(
            "{text:?} is not an effort more than 0 and at most {MAX_EFFORT} (units of about a second of work)"
        )),
    }
}

fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text:?} is not a number of jobs (1 or more)")),
    }
}

fn parse_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text:?} is not a whole number of 1 or more")),
    }
}

fn is_cancelled(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<faultlens_pipeline::PipelineError>(),
        Some(faultlens_pipeline::PipelineError::Cancelled)
    )
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Localize {
            path,
            rank,
            run,
            shard: Some(shard),
        } => commands::localize::json_error_on_failure(
            &rank,
            path.clone(),
            commands::shards::localize_shard(
                path,
                &faultlens_pipeline::RunOptions {
                    shard: Some(shard),
                    ..run.options()
                },
            ),
        ),
        Command::Localize {
            path,
            rank,
            run,
            shard: None,
        } => commands::localize::json_error_on_failure(
            &rank,
            path.clone(),
            commands::localize::run(path, &rank, &run.options()),
        ),
        Command::Import {
            path,
            junit,
            lcov,
            gcov_json,
            rank,
        } => commands::localize::json_error_on_failure(
            &rank,
            path.clone(),
            commands::import::run(
                path,
                faultlens_pipeline::import::ImportFiles {
                    lcov,
                    gcov_json,
                    junit,
                },
                &rank,
            ),
        ),
        Command::Merge {
            shards,
            project,
            rank,
        } => commands::localize::json_error_on_failure(
            &rank,
            project.clone(),
            commands::shards::merge(&shards, project, &rank),
        ),
        Command::Watch { path, rank, run } => commands::watch::run(path, &rank, &run.options()),
        Command::Rank { path, rank } => commands::localize::json_error_on_failure(
            &rank,
            path.clone(),
            commands::localize::rank_only(path, &rank),
        ),
        Command::Tests { path, json } => commands::tests::run(path, json),
        Command::Eval {
            paths,
            measures,
            json,
        } => commands::eval::run(paths, &measures, json),
        Command::Measures => commands::measures::run(),
        Command::Interpret { path, test, trace } => commands::interpret::run(path, &test, trace),
        Command::Diagnose {
            path,
            format,
            time_limit,
            effort,
            max_size,
            max,
        } => commands::diagnose::run(commands::diagnose::DiagnoseArgs {
            path,
            format,
            time_limit,
            effort,
            max_size,
            max,
        }),
        Command::Generate {
            path,
            strategy,
            max,
            measure,
            explorer,
        } => commands::generate::run(path, &strategy, max, measure, &explorer),
        Command::Lsp => {
            anyhow::Context::context(faultlens_lsp::run_stdio(), "starting the language server")
        }
    };
    match result {
        Ok(code) => code,
        Err(e) if is_cancelled(&e) => {
            eprintln!("faultlens: cancelled; the interrupted run wrote no results");
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
