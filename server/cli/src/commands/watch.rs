//! `faultlens watch`: waits for the developer's own test runs (the reports
//! CTest, Meson and Automake leave in build directories, JUnit files
//! `[watch] reports` names) and, after a failing one, localizes and
//! redraws the ranking, in the spirit of `cargo watch`. A run that fails
//! while a localization is going cancels it: the newest run wins.

use super::localize::ranking_text;
use super::root_or_cwd;
use crate::progress::Reporter;
use crate::RankArgs;
use faultlens_core::results::RunResults;
use faultlens_ops::first_ranking::FirstRanking;
use faultlens_pipeline::{CancelToken, PipelineError, RunOptions};
use faultlens_report::table::one_line;
use faultlens_workspace::devruns::watch::{FileEvents, Watch, MAX_DIRS};
use faultlens_workspace::devruns::DevRun;
use faultlens_workspace::{store, Project};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// How often the reports are checked when no file event wakes the watch.
const POLL: Duration = Duration::from_millis(500);

/// A localization in progress, and the runs that started it.
struct Running {
    cancel: CancelToken,
    /// The first ranking (the failing tests with the previous results).
    first: Receiver<FirstRanking>,
    done: Receiver<Result<RunResults, PipelineError>>,
    runs: Vec<DevRun>,
}

pub fn run(
    path: Option<PathBuf>,
    args: &RankArgs,
    options: &RunOptions,
) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(path)?;
    let project = Project::load(&root)?;
    let root = project.root.clone();
    let interrupt = crate::interrupt::token();
    let (wake, woken) = channel();
    let mut watch = Watch::new(&root, &project.config.watch.reports, Instant::now());
    let mut events = file_events(&watch, wake);
    let screen = Screen::new();
    if watch.walk_was_cut() {
        screen.note(&format!(
            "note: the project has more than {MAX_DIRS} directories: test reports are looked for in the first {MAX_DIRS} (breadth first)"
        ));
    }
    screen.waiting(&root, &watch);
    if let Ok(Some(results)) = store::read_results(&root) {
        if results.failed_count() > 0 {
            screen.ranking(&root, results, args, "the last results");
        }
    }
    let mut running: Option<Running> = None;
    while !interrupt.is_cancelled() {
        match woken.recv_timeout(POLL) {
            Ok(()) => while woken.try_recv().is_ok() {},
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(POLL),
        }
        let news = watch.poll(Instant::now());
        if let Some(files) = events.as_mut() {
            if let Err(e) = files.follow(&root, &watch) {
                screen.note(&format!(
                    "note: no more file events ({e}); checking every {} ms",
                    POLL.as_millis()
                ));
                events = None;
            }
        }
        let mut failing = Vec::new();
        for news in news {
            match news {
                Ok(run) if run.failed().is_empty() => {
                    screen.note(&format!("✓ {}", describe(std::slice::from_ref(&run))))
                }
                Ok(run) => failing.push(run),
                Err(e) => screen.note(&format!(
                    "cannot read a test report: {}",
                    one_line(&e.to_string())
                )),
            }
        }
        if !failing.is_empty() {
            if let Some(old) = running.take() {
                old.cancel.cancel();
                let _ = old.done.recv();
            }
            let reason = describe(&failing);
            screen.note(&format!("✗ {reason}: localizing"));
            running = Some(start(&root, options, failing));
        }
        if let Some(job) = &running {
            if let Ok(first) = job.first.try_recv() {
                let title = format!("after {}: {}", describe(&job.runs), first.describe());
                screen.ranking(&root, first.results, args, &title);
            }
            match job.done.try_recv() {
                Ok(outcome) => {
                    let job = running.take().expect("a running job");
                    finish(&screen, &root, args, job, outcome);
                    screen.waiting(&root, &watch);
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    screen.note("the localization stopped unexpectedly");
                    running = None;
                }
            }
        }
    }
    if let Some(job) = running {
        job.cancel.cancel();
        let _ = job.done.recv();
    }
    Ok(ExitCode::SUCCESS)
}

/// What the runs were, on one line (report paths come from the project).
fn describe(runs: &[DevRun]) -> String {
    runs.iter()
        .map(|run| one_line(&run.describe()).into_owned())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Starts a localization on a thread of its own (the watch loop cancels
/// it on Ctrl-C or a newer failing run).
fn start(root: &Path, options: &RunOptions, runs: Vec<DevRun>) -> Running {
    let cancel = CancelToken::new();
    let (tx, done) = channel();
    let (first_tx, first) = channel();
    let failed: Vec<String> = runs
        .iter()
        .flat_map(|run| run.failed())
        .map(String::from)
        .collect();
    let (root, options, token) = (root.to_path_buf(), options.clone(), cancel.clone());
    std::thread::spawn(move || {
        let first_tx = std::sync::Mutex::new(first_tx);
        let outcome = Project::load(&root)
            .map_err(PipelineError::from)
            .and_then(|project| {
                let reporter = Reporter::new();
                let outcome = faultlens_ops::localize::localize_and_store_in_stages(
                    &project,
                    &options,
                    &failed,
                    &|f| {
                        if let Ok(tx) = first_tx.lock() {
                            let _ = tx.send(f);
                        }
                    },
                    &|p| reporter.update(p),
                    &token,
                );
                reporter.finish();
                outcome
            });
        let _ = tx.send(outcome);
    });
    Running {
        cancel,
        first,
        done,
        runs,
    }
}

fn finish(
    screen: &Screen,
    root: &Path,
    args: &RankArgs,
    job: Running,
    outcome: Result<RunResults, PipelineError>,
) {
    let reason = describe(&job.runs);
    match outcome {
        Ok(results) => {
            let disagreements: Vec<String> = job
                .runs
                .iter()
                .filter_map(|run| {
                    let found = faultlens_ops::agreement::disagreements(run, &results);
                    faultlens_ops::agreement::explain(run, &found)
                })
                .collect();
            if results.failed_count() == 0 {
                screen.note(&format!(
                    "after {reason}: all {} tests passed under faultlens",
                    results.tests.len()
                ));
            } else {
                screen.ranking(root, results, args, &format!("localized after {reason}"));
            }
            for d in disagreements {
                screen.note(&format!("warning: {}", one_line(&d)));
            }
        }
        Err(PipelineError::Cancelled) => {}
        Err(e) => screen.note(&format!(
            "error: the localization after {reason} did not finish: {e}"
        )),
    }
}

/// Wakes the loop and has the watch walk again on the OS's file events
/// in the walked directories; without them the watch polls.
fn file_events(watch: &Watch, wake: Sender<()>) -> Option<FileEvents> {
    let wake = std::sync::Mutex::new(wake);
    let rescan = watch.rescan_flag();
    match FileEvents::new(move || {
        rescan.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Ok(wake) = wake.lock() {
            let _ = wake.send(());
        }
    }) {
        Ok(events) => Some(events),
        Err(e) => {
            eprintln!(
                "faultlens: note: no file events ({e}); checking the reports every {} ms",
                POLL.as_millis()
            );
            None
        }
    }
}

/// The terminal: redrawn whole after each localization when it is one,
/// appended to otherwise (a log, a pipe).
struct Screen {
    redraw: bool,
}

impl Screen {
    fn new() -> Screen {
        Screen {
            redraw: std::io::stdout().is_terminal(),
        }
    }

    fn waiting(&self, root: &Path, watch: &Watch) {
        let reports: Vec<String> = watch
            .reports()
            .map(|(p, _)| p.display().to_string())
            .collect();
        let seen = if reports.is_empty() {
            "none yet".to_string()
        } else {
            reports.join(", ")
        };
        println!(
            "faultlens watch: waiting for your test runs in {} (ctest, meson test, make check, JUnit reports in [watch] reports; reports seen: {seen}). Ctrl-C stops.",
            root.display()
        );
    }

    /// Callers pass what comes from the project's reports through
    /// [`one_line`] (no terminal control sequences); faultlens's own
    /// messages keep their lines (a compiler's message, say).
    fn note(&self, text: &str) {
        println!("faultlens: {text}");
    }

    fn ranking(&self, root: &Path, results: RunResults, args: &RankArgs, title: &str) {
        let summary = format!(
            "{} failing of {} tests",
            results.failed_count(),
            results.tests.len()
        );
        let text = match ranking_text(root, results, args.measure, args) {
            Ok(text) => text,
            Err(e) => format!("cannot rank: {e}"),
        };
        if self.redraw {
            // Clear the screen and go home, as `watch(1)` does.
            print!("\x1b[2J\x1b[H");
        }
        println!(
            "faultlens watch: {title}: {summary}\n\n{}\n",
            text.trim_end()
        );
    }
}
