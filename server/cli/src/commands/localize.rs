//! `faultlens localize` and `faultlens rank`.

use super::root_or_cwd;
use crate::output::outln;
use crate::progress::Reporter;
use crate::{Format, RankArgs};
use anyhow::{anyhow, Context};
use faultlens_core::measures::Ranker;
use faultlens_core::results::RunResults;
use faultlens_pipeline::{CancelToken, RunOptions};
use faultlens_report::{json, sarif, table};
use faultlens_workspace::{store, Project};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Exit status when every test passed: there is nothing to localize.
const NOTHING_TO_LOCALIZE: u8 = 3;

pub fn run(
    path: Option<PathBuf>,
    args: &RankArgs,
    options: &RunOptions,
) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(path)?;
    let measure = args.measure;
    let project = Project::load(&root)?;
    let results = localize_and_store(&project, options)?;
    render(&project.root, results, measure, args)
}

/// Builds, runs every test with progress on stderr, and writes
/// `.faultlens/results.json`. Ctrl-C stops the tests and writes nothing.
pub fn localize_and_store(project: &Project, options: &RunOptions) -> anyhow::Result<RunResults> {
    let reporter = Reporter::new();
    let cancel = cancel_on_interrupt();
    let outcome = faultlens_ops::localize::localize_and_store(
        project,
        options,
        &|p| reporter.update(p),
        &cancel,
    );
    reporter.finish();
    let results = outcome?;
    eprintln!(
        "faultlens: results written to {}",
        store::written_path(&project.root, &results).display()
    );
    Ok(results)
}

/// A token that Ctrl-C (SIGINT) or SIGTERM cancels, so running tests are
/// stopped rather than orphaned (see `interrupt`).
pub fn cancel_on_interrupt() -> CancelToken {
    crate::interrupt::token()
}

/// With `--format json`, a failure also prints a JSON document that says
/// so on stdout (`"error": {"code": 1, "message": …}` and an empty
/// ranking), as `diagnose` does, so a CI job never parses an empty file;
/// the message still goes to stderr.
pub fn json_error_on_failure(
    args: &RankArgs,
    path: Option<PathBuf>,
    outcome: anyhow::Result<ExitCode>,
) -> anyhow::Result<ExitCode> {
    if let (Err(e), Format::Json) = (&outcome, args.format) {
        let root = super::root_for_error(path);
        outln!("{}", json::error_document(&root, 1, &format!("{e:#}")));
    }
    outcome
}

pub fn rank_only(path: Option<PathBuf>, args: &RankArgs) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(path)?;
    let measure = args.measure;
    if !root.is_dir() {
        return Err(anyhow!(
            "{} is not a directory; give the project's root directory",
            root.display()
        ));
    }
    let results = store::read_results(&root)?.ok_or_else(|| {
        anyhow!(
            "{} does not exist yet: run `faultlens localize` first",
            store::results_path(&root).display()
        )
    })?;
    let mut results = results;
    let here = root.canonicalize().unwrap_or_else(|_| root.clone());
    if Path::new(&results.project_root) != here {
        eprintln!(
            "note: these results were recorded in {}; ranking them for {}",
            results.project_root,
            here.display()
        );
        results.project_root = here.to_string_lossy().into_owned();
    }
    let changed = store::changed_since_run(&root, &results);
    if !changed.is_empty() {
        eprintln!(
            "warning: {} changed since these results were recorded; line numbers and texts may no longer match. Run `faultlens localize` for fresh results.",
            changed.join(", ")
        );
    }
    render(&root, results, measure, args)
}

fn render(
    root: &Path,
    results: RunResults,
    measure: Ranker,
    args: &RankArgs,
) -> anyhow::Result<ExitCode> {
    let failed = results.failed_count();
    let total = results.tests.len();
    if failed == 0 && args.format == Format::Table {
        eprintln!("All {total} tests passed: there is no failure to localize.");
        return Ok(ExitCode::from(NOTHING_TO_LOCALIZE));
    }
    let text = ranking_text(root, results, measure, args)?;
    outln!("{}", text.trim_end());
    if failed == 0 {
        eprintln!("All {total} tests passed: there is no failure to localize.");
        return Ok(ExitCode::from(NOTHING_TO_LOCALIZE));
    }
    Ok(ExitCode::SUCCESS)
}

/// The ranking of `results` in the format `args` asks for.
pub fn ranking_text(
    root: &Path,
    results: RunResults,
    measure: Ranker,
    args: &RankArgs,
) -> anyhow::Result<String> {
    let sources = store::read_sources(root, &results);
    let analysis = faultlens_ops::rank::analyse_fused(
        root,
        Arc::new(results),
        measure,
        !args.no_fusion,
        args.include_test_code,
        &sources,
    )?;
    let top = |default: Option<usize>| match args.top {
        Some(0) => None,
        Some(n) => Some(n),
        None => default,
    };
    Ok(match args.format {
        Format::Table => table::table(&analysis, &sources, top(Some(10)).unwrap_or(usize::MAX)),
        Format::Json => {
            serde_json::to_string_pretty(&json::ranking_json(&analysis, &sources, top(None)))
                .context("serializing the ranking")?
        }
        Format::Sarif => serde_json::to_string_pretty(&sarif::sarif(&analysis, top(Some(10))))
            .context("serializing SARIF")?,
    })
}
