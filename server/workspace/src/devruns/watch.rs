//! Noticing that a developer's test run finished: the reports of the
//! project's build directories (found by a bounded walk of the project,
//! redone every [`RESCAN`] or when a file watcher says something changed)
//! are checked for a new version at every [`Watch::poll`]; a new version
//! is read once it has stayed the same for [`QUIET`] (a tool writing a
//! report in bursts is one event, not many) and the tool has finished it.
//! Reports present when the watch starts are history, not news.
//! [`on_changes`] wakes a watch on the OS's file events.

use super::{read_report, DevRun, ReportError, ReportKind};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How long a report must stay unchanged before it is read.
pub const QUIET: Duration = Duration::from_millis(300);
/// How often the project is walked for reports in new build directories.
pub const RESCAN: Duration = Duration::from_secs(5);
/// How deep below the root build directories are looked for.
const MAX_DEPTH: usize = 6;
/// The most directories one walk visits (a hostile or huge tree costs this much at most).
const MAX_DIRS: usize = 20_000;

/// Where each tool leaves its report, relative to its build directory.
const REPORTS: [(&str, ReportKind); 3] = [
    ("Testing/Temporary/LastTest.log", ReportKind::CTest),
    ("meson-logs/testlog.json", ReportKind::Meson),
    ("test-suite.log", ReportKind::Automake),
];

/// Directories no build directory hides in (and that can be large).
const SKIPPED_DIRS: [&str; 4] = ["node_modules", "CMakeFiles", "Testing", "meson-logs"];

/// A version of a file: when it was last written and how long it is.
type Stamp = (SystemTime, u64);

pub struct Watch {
    root: PathBuf,
    junit: Vec<String>,
    known: BTreeMap<PathBuf, ReportKind>,
    seen: HashMap<PathBuf, Stamp>,
    pending: HashMap<PathBuf, (Stamp, Instant)>,
    last_scan: Option<Instant>,
}

impl Watch {
    /// Starts watching `root`; `junit` are globs (relative to the root) of
    /// JUnit reports to watch besides the ones found in build directories.
    pub fn new(root: &Path, junit: &[String], now: Instant) -> Watch {
        let mut watch = Watch {
            root: root.to_path_buf(),
            junit: junit.to_vec(),
            known: BTreeMap::new(),
            seen: HashMap::new(),
            pending: HashMap::new(),
            last_scan: None,
        };
        watch.scan(now);
        for path in watch.known.keys() {
            if let Some(stamp) = stamp(&watch.root.join(path)) {
                watch.seen.insert(path.clone(), stamp);
            }
        }
        watch
    }

    /// Walk the project again at the next poll (a file watcher saw a change).
    pub fn rescan_soon(&mut self) {
        self.last_scan = None;
    }

    /// The reports being watched, relative to the root.
    pub fn reports(&self) -> impl Iterator<Item = (&Path, ReportKind)> {
        self.known.iter().map(|(p, k)| (p.as_path(), *k))
    }

    /// Runs that finished since the last poll (and reports that could not
    /// be read, once per version).
    pub fn poll(&mut self, now: Instant) -> Vec<Result<DevRun, ReportError>> {
        if self
            .last_scan
            .is_none_or(|at| now.duration_since(at) >= RESCAN)
        {
            self.scan(now);
        }
        let mut news = Vec::new();
        let known: Vec<(PathBuf, ReportKind)> =
            self.known.iter().map(|(p, k)| (p.clone(), *k)).collect();
        for (path, kind) in known {
            let Some(now_stamp) = stamp(&self.root.join(&path)) else {
                self.seen.remove(&path);
                self.pending.remove(&path);
                continue;
            };
            if self.seen.get(&path) == Some(&now_stamp) {
                continue;
            }
            match self.pending.get(&path) {
                Some(&(pending, since)) if pending == now_stamp => {
                    if now.duration_since(since) < QUIET {
                        continue;
                    }
                }
                _ => {
                    self.pending.insert(path, (now_stamp, now));
                    continue;
                }
            }
            match read_report(&self.root, &path, kind) {
                // Still being written: wait for its end.
                Ok(None) => {}
                Ok(Some(run)) => {
                    self.done(&path, now_stamp);
                    news.push(Ok(run));
                }
                Err(e) => {
                    self.done(&path, now_stamp);
                    news.push(Err(e));
                }
            }
        }
        news
    }

    fn done(&mut self, path: &Path, stamp: Stamp) {
        self.pending.remove(path);
        self.seen.insert(path.to_path_buf(), stamp);
    }

    fn scan(&mut self, now: Instant) {
        self.last_scan = Some(now);
        let mut found = BTreeMap::new();
        let mut stack = vec![(PathBuf::new(), 0usize)];
        let mut visited = 0;
        while let Some((dir, depth)) = stack.pop() {
            visited += 1;
            if visited > MAX_DIRS {
                break;
            }
            for (report, kind) in REPORTS {
                let path = dir.join(report);
                if is_regular(&self.root.join(&path)) {
                    found.insert(path, kind);
                }
            }
            if depth >= MAX_DEPTH {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(self.root.join(&dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                // `file_type` does not follow links: a linked directory is not walked.
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir && !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_ref()) {
                    stack.push((dir.join(name.as_ref()), depth + 1));
                }
            }
        }
        for pattern in &self.junit {
            for path in junit_matches(&self.root, pattern) {
                found.insert(path, ReportKind::JUnit);
            }
        }
        self.known = found;
    }
}

/// The OS's file watcher; events stop when it is dropped.
pub type FileWatcher = notify::RecommendedWatcher;

/// Calls `changed` on every file event under `root` outside `.faultlens/`
/// (the OS's watcher: inotify on Linux), from the watcher's own thread,
/// for as long as the returned watcher lives. `Err` says why there is
/// none (the watch then relies on its poll).
pub fn on_changes(root: &Path, changed: impl Fn() + Send + 'static) -> Result<FileWatcher, String> {
    use notify::Watcher;
    let own = root.join(faultlens_confine::WORK_DIR);
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            if event.paths.iter().any(|p| !p.starts_with(&own)) {
                changed();
            }
        }
    })
    .map_err(|e| e.to_string())?;
    watcher
        .watch(root, notify::RecursiveMode::Recursive)
        .map_err(|e| e.to_string())?;
    Ok(watcher)
}

/// The files `pattern` (relative to `root`) matches, relative to `root`;
/// none outside the project.
fn junit_matches(root: &Path, pattern: &str) -> Vec<PathBuf> {
    if faultlens_confine::lexical(pattern).is_err() {
        return Vec::new();
    }
    let full = root.join(pattern);
    let Ok(paths) = glob::glob(&full.to_string_lossy()) else {
        return Vec::new();
    };
    paths
        .flatten()
        .take(1000)
        .filter(|p| is_regular(p))
        .filter_map(|p| Some(p.strip_prefix(root).ok()?.to_path_buf()))
        .collect()
}

fn is_regular(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    meta.is_file()
        .then(|| Some((meta.modified().ok()?, meta.len())))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str =
        "Start testing: x\n1/2 Test: a\nTest Passed.\n2/2 Test: b\nTest Failed.\nEnd testing: y\n";

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_finished_run_is_news_once_it_settles() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "old/Testing/Temporary/LastTest.log", LOG);
        let t0 = Instant::now();
        let mut watch = Watch::new(root, &[], t0);
        // What was there before the watch is history.
        assert!(watch.poll(t0).is_empty());
        write(root, "build/Testing/Temporary/LastTest.log", &LOG[..30]);
        watch.rescan_soon();
        assert!(watch.poll(t0).is_empty(), "just written");
        assert!(watch.poll(t0 + QUIET).is_empty(), "still in progress");
        write(root, "build/Testing/Temporary/LastTest.log", LOG);
        assert!(watch.poll(t0 + QUIET * 2).is_empty(), "changed again");
        let news = watch.poll(t0 + QUIET * 3);
        assert_eq!(news.len(), 1);
        let run = news[0].as_ref().unwrap();
        assert_eq!(run.describe(), "ctest in build/ failed 1 of 2 tests");
        assert!(watch.poll(t0 + QUIET * 4).is_empty(), "told once");
    }

    #[test]
    fn junit_globs_stay_in_the_project_and_bad_reports_are_told_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let t0 = Instant::now();
        let globs = vec!["reports/*.xml".to_string(), "../*.xml".to_string()];
        let mut watch = Watch::new(root, &globs, t0);
        write(
            root,
            "reports/unit.xml",
            "<testsuite><testcase name=\"a\"/></testcase></testsuite>",
        );
        watch.rescan_soon();
        watch.poll(t0);
        let news = watch.poll(t0 + QUIET);
        assert_eq!(news.len(), 1);
        assert!(news[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("reports/unit.xml: not well-formed"));
        assert!(watch.poll(t0 + QUIET * 2).is_empty());
        assert_eq!(watch.reports().count(), 1);
    }
}
