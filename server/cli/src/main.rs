//! The `faultlens` command line.

mod commands;
mod output;
mod progress;

use clap::{Parser, Subcommand, ValueEnum};
use faultlens_core::measures::Measure;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "faultlens",
    version,
    about = "Shows which lines of a C program most likely hold the bug behind a failing test."
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
    measure: Measure,
    /// How many ranked lines to show (0 = all). Default: 10 for the table and SARIF, all for JSON.
    #[arg(long)]
    top: Option<usize>,
    /// Output: a table for people, the JSON ranking document, or SARIF 2.1.0.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Rank test code (test files, CTest drivers) too.
    #[arg(long)]
    include_test_code: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Build for coverage, run every test, rank the lines most likely to hold the fault.
    Localize {
        /// Project root (default: the current directory).
        path: Option<PathBuf>,
        #[command(flatten)]
        rank: RankArgs,
        /// Per-test time limit in seconds (overrides [run] timeout).
        #[arg(long, value_parser = parse_seconds)]
        timeout: Option<f64>,
        /// Tests run at once (default: number of cores).
        #[arg(long, short, value_parser = parse_jobs)]
        jobs: Option<usize>,
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
        measures: Vec<Measure>,
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
    /// Serve the Language Server Protocol over stdin/stdout (for editors).
    Lsp,
}

fn parse_measure(name: &str) -> Result<Measure, String> {
    Measure::parse(name)
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t > 0.0 && t <= faultlens_pipeline::config::MAX_TIMEOUT_SECONDS => Ok(t),
        _ => Err(format!(
            "{text:?} is not a number of seconds between 0 and {} (a week)",
            faultlens_pipeline::config::MAX_TIMEOUT_SECONDS
        )),
    }
}

fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text:?} is not a number of jobs (1 or more)")),
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
            timeout,
            jobs,
        } => commands::localize::run(path, &rank, timeout, jobs),
        Command::Rank { path, rank } => commands::localize::rank_only(path, &rank),
        Command::Tests { path, json } => commands::tests::run(path, json),
        Command::Eval {
            paths,
            measures,
            json,
        } => commands::eval::run(paths, &measures, json),
        Command::Measures => commands::measures::run(),
        Command::Interpret { path, test, trace } => commands::interpret::run(path, &test, trace),
        Command::Lsp => faultlens_lsp::run_stdio().map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_cancelled(&e) => {
            eprintln!("faultlens: cancelled; nothing was written");
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
