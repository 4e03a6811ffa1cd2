//! `faultlens localize` and `faultlens rank`.

use super::root_or_cwd;
use crate::output::outln;
use crate::progress::Reporter;
use crate::{Format, RankArgs};
use anyhow::{anyhow, Context};
use faultlens_core::measures::Measure;
use faultlens_core::results::RunResults;
use faultlens_core::sources::SourceTexts;
use faultlens_pipeline::{store, CancelToken, Project, RunOptions};
use faultlens_report::{json, sarif, table, Analysis};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Exit status when every test passed: there is nothing to localize.
const NOTHING_TO_LOCALIZE: u8 = 3;

pub fn run(
    path: Option<PathBuf>,
    args: &RankArgs,
    timeout: Option<f64>,
    jobs: Option<usize>,
) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(path)?;
    let measure = args.measure;
    let project = Project::load(&root)?;
    let options = RunOptions {
        timeout: timeout.map(Duration::from_secs_f64),
        jobs,
    };
    let reporter = Reporter::new();
    let cancel = cancel_on_interrupt();
    let outcome =
        faultlens_pipeline::localize(&project, &options, &|p| reporter.update(p), &cancel);
    reporter.finish();
    let results = outcome?;
    let path = store::write_results(&project.root, &results)?;
    eprintln!("faultlens: results written to {}", path.display());
    render(&project.root, results, measure, args)
}

/// A token that Ctrl-C (SIGINT) or SIGTERM cancels, so running tests are
/// stopped rather than orphaned. A second interrupt exits at once.
pub fn cancel_on_interrupt() -> CancelToken {
    let token = CancelToken::new();
    let handler_token = token.clone();
    let installed = ctrlc::set_handler(move || {
        if handler_token.is_cancelled() {
            std::process::exit(130);
        }
        eprintln!("\nfaultlens: stopping the running tests (press Ctrl-C again to quit at once)");
        handler_token.cancel();
    });
    if let Err(e) = installed {
        eprintln!("faultlens: Ctrl-C will not stop running tests cleanly: {e}");
    }
    token
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

/// Ranks the run under `measure`.
pub fn analyse(
    results: Arc<RunResults>,
    measure: Measure,
    include_test_code: bool,
    sources: &SourceTexts,
) -> anyhow::Result<Analysis> {
    Analysis::compute(results, measure, include_test_code, sources).map_err(|e| anyhow!(e))
}

fn render(
    root: &Path,
    results: RunResults,
    measure: Measure,
    args: &RankArgs,
) -> anyhow::Result<ExitCode> {
    let failed = results.failed_count();
    let total = results.tests.len();
    let sources = store::read_sources(root, &results);
    let analysis = analyse(Arc::new(results), measure, args.include_test_code, &sources)?;
    let top = |default: Option<usize>| match args.top {
        Some(0) => None,
        Some(n) => Some(n),
        None => default,
    };
    if failed == 0 && args.format == Format::Table {
        eprintln!("All {total} tests passed: there is no failure to localize.");
        return Ok(ExitCode::from(NOTHING_TO_LOCALIZE));
    }
    let text = match args.format {
        Format::Table => table::table(&analysis, &sources, top(Some(10)).unwrap_or(usize::MAX)),
        Format::Json => {
            serde_json::to_string_pretty(&json::ranking_json(&analysis, &sources, top(None)))
                .context("serializing the ranking")?
        }
        Format::Sarif => serde_json::to_string_pretty(&sarif::sarif(&analysis, top(Some(10))))
            .context("serializing SARIF")?,
    };
    outln!("{}", text.trim_end());
    if failed == 0 {
        eprintln!("All {total} tests passed: there is no failure to localize.");
        return Ok(ExitCode::from(NOTHING_TO_LOCALIZE));
    }
    Ok(ExitCode::SUCCESS)
}
