//! A cancelled run leaves no test outputs behind in `.faultlens/runs`, whoever
//! cancelled it (the CLI's Ctrl-C, or the language server's newer run).

use faultlens_pipeline::{localize, CancelToken, PipelineError, Progress, RunOptions};
use faultlens_workspace::Project;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A program whose one test never ends, so the cancel always lands while it
/// runs; stopped, it writes its coverage (the linked runtime dumps it on
/// SIGTERM), which creates the run directory.
const PROGRAM: &str = "int main(void) { for (;;) {} }\n";

#[test]
fn a_cancelled_run_removes_its_run_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.c"), PROGRAM).unwrap();
    std::fs::write(
        dir.path().join("faultlens.toml"),
        "[build]\nsources = [\"p.c\"]\n[run]\ntimeout = 600\n[[test]]\nname = \"spins\"\n",
    )
    .unwrap();
    let project = Project::load(dir.path()).unwrap();
    let cancel = CancelToken::new();
    let discovered = AtomicBool::new(false);
    let progress = |p: Progress| {
        if p == Progress::Discovering {
            discovered.store(true, Ordering::SeqCst);
        }
    };
    let outcome = std::thread::scope(|s| {
        let run = s.spawn(|| localize(&project, &RunOptions::default(), &progress, &cancel));
        let started = Instant::now();
        while !discovered.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(20));
        }
        // Let the test's process start, then cancel while it spins.
        std::thread::sleep(Duration::from_millis(500));
        cancel.cancel();
        run.join().unwrap()
    });
    assert!(
        matches!(outcome, Err(PipelineError::Cancelled)),
        "{outcome:?}"
    );
    let runs = project.work_dir().join("runs");
    assert!(
        !runs.exists(),
        "the cancelled run's outputs are left in {}",
        runs.display()
    );
}
