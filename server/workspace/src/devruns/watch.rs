//! Noticing that a developer's test run finished: the reports of the
//! project's build directories (found by a bounded walk of the project,
//! redone every [`RESCAN`], or at the next poll when a file event asks)
//! are checked for a new version at every [`Watch::poll`]; a new version
//! is read once it has stayed the same for [`QUIET`] (a tool writing a
//! report in bursts is one event, not many), and it is news once its tool
//! has finished it. A version is read once, finished or not. Reports
//! present when the watch starts are history, not news. [`FileEvents`]
//! follows the OS's file events on the walked directories.

use super::{read_report, DevRun, ReportError, ReportKind};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// How long a report must stay unchanged before it is read.
pub const QUIET: Duration = Duration::from_millis(300);
/// How often the project is walked for reports in new build directories.
pub const RESCAN: Duration = Duration::from_secs(5);
/// How deep below the root build directories (and JUnit reports) are looked for.
pub const MAX_DEPTH: usize = 6;
/// The most directories one walk visits (a hostile or huge tree costs this much at most).
pub const MAX_DIRS: usize = 20_000;

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

/// A version of a report: its file's, and for Meson its summary's too
/// (Meson writes the summary last, into `testlog.txt`).
type Version = (Stamp, Option<Stamp>);

pub struct Watch {
    root: PathBuf,
    junit: Vec<glob::Pattern>,
    known: BTreeMap<PathBuf, ReportKind>,
    /// The version of each report read last (finished, broken, or still
    /// being written): read again only when it changes.
    seen: HashMap<PathBuf, Version>,
    pending: HashMap<PathBuf, (Version, Instant)>,
    last_scan: Option<Instant>,
    /// Set from any thread (a file event): walk again at the next poll.
    rescan: Arc<AtomicBool>,
    /// The directories the last walk visited, relative to the root.
    dirs: Vec<PathBuf>,
    /// The last walk stopped at [`MAX_DIRS`].
    cut: bool,
}

impl Watch {
    /// Starts watching `root`; `junit` are globs (relative to the root) of
    /// JUnit reports to watch besides the ones found in build directories.
    pub fn new(root: &Path, junit: &[String], now: Instant) -> Watch {
        let mut watch = Watch {
            root: root.to_path_buf(),
            // The configuration validated them; one that is not valid matches nothing.
            junit: junit
                .iter()
                .filter(|g| faultlens_confine::lexical(g).is_ok())
                .filter_map(|g| glob::Pattern::new(g).ok())
                .collect(),
            known: BTreeMap::new(),
            seen: HashMap::new(),
            pending: HashMap::new(),
            last_scan: None,
            rescan: Arc::default(),
            dirs: Vec::new(),
            cut: false,
        };
        watch.scan(now);
        let known: Vec<(PathBuf, ReportKind)> =
            watch.known.iter().map(|(p, k)| (p.clone(), *k)).collect();
        for (path, kind) in known {
            if let Some(version) = watch.version(&path, kind) {
                watch.seen.insert(path, version);
            }
        }
        watch
    }

    /// Walk the project again at the next poll.
    pub fn rescan_soon(&self) {
        self.rescan.store(true, Ordering::SeqCst);
    }

    /// A flag any thread may set to have the next poll walk the project
    /// again (a file event), without waiting for the watch itself.
    pub fn rescan_flag(&self) -> Arc<AtomicBool> {
        self.rescan.clone()
    }

    /// The reports being watched, relative to the root.
    pub fn reports(&self) -> impl Iterator<Item = (&Path, ReportKind)> {
        self.known.iter().map(|(p, k)| (p.as_path(), *k))
    }

    /// The directories the last walk visited, relative to the root.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Whether the last walk stopped at [`MAX_DIRS`] before seeing the whole project.
    pub fn walk_was_cut(&self) -> bool {
        self.cut
    }

    /// Runs that finished since the last poll (and reports that could not
    /// be read, once per version).
    pub fn poll(&mut self, now: Instant) -> Vec<Result<DevRun, ReportError>> {
        let asked = self.rescan.swap(false, Ordering::SeqCst);
        if asked
            || self
                .last_scan
                .is_none_or(|at| now.duration_since(at) >= RESCAN)
        {
            self.scan(now);
        }
        let mut news = Vec::new();
        let known: Vec<(PathBuf, ReportKind)> =
            self.known.iter().map(|(p, k)| (p.clone(), *k)).collect();
        for (path, kind) in known {
            let Some(version) = self.version(&path, kind) else {
                self.seen.remove(&path);
                self.pending.remove(&path);
                continue;
            };
            if self.seen.get(&path) == Some(&version) {
                continue;
            }
            match self.pending.get(&path) {
                Some(&(pending, since)) if pending == version => {
                    if now.duration_since(since) < QUIET {
                        continue;
                    }
                }
                _ => {
                    self.pending.insert(path, (version, now));
                    continue;
                }
            }
            self.pending.remove(&path);
            self.seen.insert(path.clone(), version);
            match read_report(&self.root, &path, kind) {
                // Still being written: read again when it changes.
                Ok(None) => {}
                Ok(Some(run)) => news.push(Ok(run)),
                Err(e) => news.push(Err(e)),
            }
        }
        news
    }

    fn version(&self, path: &Path, kind: ReportKind) -> Option<Version> {
        let file = stamp(&self.root.join(path))?;
        let summary = match kind {
            ReportKind::Meson => stamp(&self.root.join(path.with_file_name("testlog.txt"))),
            _ => None,
        };
        Some((file, summary))
    }

    /// Walks the project breadth first (build directories are shallow),
    /// following no link, into neither hidden directories nor
    /// [`SKIPPED_DIRS`], at most [`MAX_DIRS`] directories [`MAX_DEPTH`] deep.
    fn scan(&mut self, now: Instant) {
        self.last_scan = Some(now);
        let mut found = BTreeMap::new();
        let mut queue = VecDeque::from([(PathBuf::new(), 0usize)]);
        let mut dirs = Vec::new();
        self.cut = false;
        while let Some((dir, depth)) = queue.pop_front() {
            if dirs.len() >= MAX_DIRS {
                self.cut = true;
                break;
            }
            for (report, kind) in REPORTS {
                let path = dir.join(report);
                if is_regular(&self.root.join(&path)) {
                    found.insert(path, kind);
                }
            }
            if let Ok(entries) = std::fs::read_dir(self.root.join(&dir)) {
                for entry in entries.flatten() {
                    // `file_type` does not follow links: a link is neither walked nor read.
                    let Ok(kind) = entry.file_type() else {
                        continue;
                    };
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    let path = dir.join(name.as_ref());
                    if kind.is_dir() {
                        if depth < MAX_DEPTH
                            && !name.starts_with('.')
                            && !SKIPPED_DIRS.contains(&name.as_ref())
                        {
                            queue.push_back((path, depth + 1));
                        }
                    } else if kind.is_file() && self.is_junit(&path) {
                        found.insert(path, ReportKind::JUnit);
                    }
                }
            }
            dirs.push(dir);
        }
        self.known = found;
        self.dirs = dirs;
    }

    fn is_junit(&self, path: &Path) -> bool {
        let options = glob::MatchOptions {
            require_literal_separator: true,
            ..glob::MatchOptions::new()
        };
        self.junit
            .iter()
            .any(|p| p.matches_path_with(path, options))
    }
}

/// The OS's file events (inotify on Linux) on the directories a walk
/// visited, each followed alone (no recursion, no link followed), so what
/// is followed is as bounded as the walk. Only changes count, not reads.
pub struct FileEvents {
    watcher: notify::RecommendedWatcher,
    followed: HashSet<PathBuf>,
}

impl FileEvents {
    /// `changed` runs on the watcher's thread at each change in a followed directory.
    pub fn new(changed: impl Fn() + Send + 'static) -> Result<FileEvents, String> {
        let handler = move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event {
                if event.kind.is_create() || event.kind.is_modify() || event.kind.is_remove() {
                    changed();
                }
            }
        };
        let config = notify::Config::default().with_follow_symlinks(false);
        let watcher = <notify::RecommendedWatcher as notify::Watcher>::new(handler, config)
            .map_err(|e| e.to_string())?;
        Ok(FileEvents {
            watcher,
            followed: HashSet::new(),
        })
    }

    /// Follows the directories of `watch`'s last walk not followed yet.
    pub fn follow(&mut self, root: &Path, watch: &Watch) -> Result<(), String> {
        use notify::Watcher;
        for dir in watch.dirs() {
            if self.followed.insert(dir.clone()) {
                self.watcher
                    .watch(&root.join(dir), notify::RecursiveMode::NonRecursive)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }
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
        let globs = vec![
            "reports/*.xml".to_string(),
            "../*.xml".to_string(),
            "deep/**/*.xml".to_string(),
        ];
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
        // `**` spans directories; a link is not followed.
        write(root, "deep/a/b/junit.xml", "<testsuite/>");
        std::os::unix::fs::symlink(root.join("deep"), root.join("reports/link")).unwrap();
        watch.rescan_soon();
        watch.poll(t0 + QUIET * 3);
        let reports: Vec<String> = watch
            .reports()
            .map(|(p, _)| p.display().to_string())
            .collect();
        assert_eq!(reports, ["deep/a/b/junit.xml", "reports/unit.xml"]);
    }

    #[test]
    fn a_run_in_progress_is_read_once_per_version_and_meson_waits_for_its_summary() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let t0 = Instant::now();
        let mut watch = Watch::new(root, &[], t0);
        write(
            root,
            "b/meson-logs/testlog.json",
            "{\"name\": \"t\", \"result\": \"FAIL\"}\n",
        );
        watch.rescan_soon();
        watch.poll(t0);
        assert!(watch.poll(t0 + QUIET).is_empty(), "no summary yet");
        assert!(
            watch.pending.is_empty() && watch.seen.len() == 1,
            "read once, then left alone"
        );
        write(root, "b/meson-logs/testlog.txt", "Ok: 0\nFail: 1\n");
        watch.poll(t0 + QUIET * 2);
        let news = watch.poll(t0 + QUIET * 3);
        assert_eq!(news.len(), 1, "the summary makes a new version");
        assert_eq!(
            news[0].as_ref().unwrap().describe(),
            "meson test in b/ failed 1 of 1 test"
        );
    }

    #[test]
    fn the_walk_is_bounded_and_breadth_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "build/Testing/Temporary/LastTest.log", LOG);
        // Deeper than the walk goes.
        write(root, "a/b/c/d/e/f/g/Testing/Temporary/LastTest.log", LOG);
        let watch = Watch::new(root, &[], Instant::now());
        let reports: Vec<String> = watch
            .reports()
            .map(|(p, _)| p.display().to_string())
            .collect();
        assert_eq!(reports, ["build/Testing/Temporary/LastTest.log"]);
        assert!(!watch.walk_was_cut());
        assert_eq!(watch.dirs()[0], PathBuf::new());
    }
}
