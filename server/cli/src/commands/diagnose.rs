//! `faultlens diagnose`: formula-based diagnosis of every failing test at
//! once (`faultlens-diagnose`), printed as a table, JSON or SARIF and
//! written to `.faultlens/diagnosis.json`. It starts from the stored results
//! when they still describe the sources and configuration; otherwise it runs
//! the localization first (the same code path as `faultlens localize`).

use super::localize::localize_and_store;
use super::root_or_cwd;
use crate::output::outln;
use crate::progress::Reporter;
use crate::Format;
use anyhow::{anyhow, Context};
use faultlens_diagnose::{DiagnoseError, DiagnoseOptions};
use faultlens_ops::diagnose::{diagnose_and_store, Start};
use faultlens_pipeline::RunOptions;
use faultlens_report::diagnosis;
use faultlens_workspace::store;
use faultlens_workspace::Project;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Exit status when no test fails: there is nothing to diagnose.
pub const NOTHING_TO_DIAGNOSE: u8 = 3;
/// Exit status when the program is outside faultlens's model of C (the
/// message names the construct and where it is).
pub const NOT_MODELLED: u8 = 4;
/// Exit status after Ctrl-C (the diagnosis is not written).
pub const CANCELLED: u8 = 130;

pub struct DiagnoseArgs {
    pub path: Option<PathBuf>,
    pub format: Format,
    pub time_limit: Option<f64>,
    pub effort: Option<f64>,
    pub max_size: Option<usize>,
    pub max: Option<usize>,
}

/// Runs `diagnose`. With `--format json` or `sarif`, a failure also
/// prints a document that says so on stdout (as a program the model
/// cannot diagnose does), so a CI job never parses an empty file; the
/// message still goes to stderr.
pub fn run(args: DiagnoseArgs) -> anyhow::Result<ExitCode> {
    let format = args.format;
    let path = args.path.clone();
    let outcome = diagnose(args);
    if let Err(e) = &outcome {
        let root = super::root_for_error(path);
        let message = format!("{e:#}");
        match format {
            Format::Table => {}
            Format::Json => outln!("{}", diagnosis::json_not_diagnosed(&root, 1, &message)),
            Format::Sarif => outln!(
                "{}",
                serde_json::to_string_pretty(&diagnosis::sarif_not_diagnosed(&root, 1, &message))
                    .context("serializing SARIF")?
            ),
        }
    }
    outcome
}

fn diagnose(args: DiagnoseArgs) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(args.path.clone())?;
    let project = Project::load(&root)?;
    check_writable(&project.root)?;
    let results_path = faultlens_workspace::store::results_path(&project.root);
    let (results, localized) = match faultlens_ops::diagnose::start(&project.root)? {
        Start::Fresh(results) => {
            eprintln!(
                "faultlens: using the results in {} (the sources have not changed since)",
                results_path.display()
            );
            (results, false)
        }
        Start::Stale(reason) => {
            eprintln!("faultlens: {reason}; localizing again");
            (localize_and_store(&project, &RunOptions::default())?, true)
        }
        Start::Missing => (localize_and_store(&project, &RunOptions::default())?, true),
    };
    let shown_root = project
        .root
        .canonicalize()
        .unwrap_or_else(|_| project.root.clone())
        .to_string_lossy()
        .into_owned();
    if results.failed_count() == 0 {
        let message = format!(
            "All {} tests passed: there is no failure to diagnose.",
            results.tests.len()
        );
        return not_diagnosed(args.format, &shown_root, NOTHING_TO_DIAGNOSE, &message);
    }
    let defaults = DiagnoseOptions::default();
    let options = DiagnoseOptions {
        max_size: args.max_size.unwrap_or(defaults.max_size),
        max_diagnoses: args.max.unwrap_or(defaults.max_diagnoses),
        // An effort limit alone is the whole budget: a default time limit
        // would make the outcome depend on the machine again.
        time_limit: match (args.time_limit, args.effort) {
            (Some(t), _) => Some(Duration::from_secs_f64(t)),
            (None, Some(_)) => None,
            (None, None) => defaults.time_limit,
        },
        effort: args.effort,
        ..defaults
    };
    let reporter = Reporter::new();
    let cancel = crate::interrupt::token();
    let outcome = diagnose_and_store(
        &project,
        &results,
        &options,
        &|p| reporter.update_diagnosis(p),
        &cancel,
    );
    reporter.finish();
    let report = match outcome {
        Ok(report) if !cancel.is_cancelled() => report,
        Ok(_) | Err(DiagnoseError::Cancelled) => {
            if localized {
                eprintln!(
                    "faultlens: cancelled; the diagnosis was not written (the test results were: {})",
                    results_path.display()
                );
            } else {
                eprintln!("faultlens: cancelled; the diagnosis was not written (the stored test results were used as they are)");
            }
            return Ok(ExitCode::from(CANCELLED));
        }
        Err(e @ DiagnoseError::NoFailingTests) => {
            return not_diagnosed(
                args.format,
                &shown_root,
                NOTHING_TO_DIAGNOSE,
                &e.to_string(),
            );
        }
        Err(e @ DiagnoseError::NotModelled(_)) => {
            return not_diagnosed(args.format, &shown_root, NOT_MODELLED, &e.to_string());
        }
        Err(e) => return Err(anyhow!(e)),
    };
    eprintln!(
        "faultlens: diagnosis written to {}",
        store::diagnosis_path(&project.root).display()
    );
    let text = match args.format {
        Format::Table => diagnosis::table(&report, args.max),
        Format::Json => diagnosis::json_output(&report, &shown_root),
        Format::Sarif => {
            serde_json::to_string_pretty(&diagnosis::sarif(&report, &shown_root, args.max))
                .context("serializing SARIF")?
        }
    };
    outln!("{}", text.trim_end());
    Ok(ExitCode::SUCCESS)
}

/// Fails early, with what to do, when the diagnosis could not be written:
/// the search may take its whole budget, and finding out only afterwards
/// wastes it. Creates `.faultlens/` (ours) and a probe file that it removes.
fn check_writable(root: &Path) -> anyhow::Result<()> {
    let report = store::diagnosis_path(root);
    let dir = report.parent().expect("the report path has a directory");
    let probe = dir.join(format!(".write-probe.{}.tmp", std::process::id()));
    let outcome = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&probe, b""));
    let _ = std::fs::remove_file(&probe);
    outcome.map_err(|e| {
        anyhow!(
            "cannot write into {} ({e}), where the diagnosis is stored ({}); make that directory writable for this user (e.g. `chmod u+w {}`, or `chattr -i` if it is immutable) or remove it, then run `faultlens diagnose` again",
            dir.display(),
            report.display(),
            dir.display()
        )
    })
}

/// No diagnosis (`code` 3 or 4): the reason on stderr and, for the machine
/// formats, a document that says so on stdout, so CI never reads an empty file.
fn not_diagnosed(format: Format, root: &str, code: u8, message: &str) -> anyhow::Result<ExitCode> {
    eprintln!("faultlens: {message}");
    match format {
        Format::Table => {}
        Format::Json => outln!("{}", diagnosis::json_not_diagnosed(root, code, message)),
        Format::Sarif => outln!(
            "{}",
            serde_json::to_string_pretty(&diagnosis::sarif_not_diagnosed(root, code, message))
                .context("serializing SARIF")?
        ),
    }
    Ok(ExitCode::from(code))
}
