//! Coverage read straight from gcc's `.gcno` and `.gcda` files, without a
//! `gcov` process: the notes are parsed once per build and each test's
//! counters in microseconds, as soon as the test ends. The numbers are
//! gcov's own (its flow-graph solution, line counts with loops on a line,
//! branches): the tests compare the two on every fixture. Files of a gcc
//! whose layout this reader does not know are left to `gcov` (`gcov.rs`).

mod data;
mod format;
mod lines;
mod notes;
mod solve;

pub use format::FormatError;
pub use notes::Notes;

use crate::gcov::{self, Coverage};
use crate::paths::normalize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The most a notes or data file may take; real ones take kilobytes.
pub const FILE_LIMIT: u64 = 256 << 20;

/// A notes file, parsed and planned: what every data file of its object
/// is read against.
pub struct Parsed {
    pub notes: Notes,
    plan: lines::Plan,
    /// Each source's absolute path, as gcov resolves it.
    paths: Vec<PathBuf>,
}

pub fn parse_notes(bytes: &[u8]) -> Result<Parsed, FormatError> {
    let notes = notes::parse(bytes)?;
    let plan = lines::Plan::new(&notes);
    let cwd = Path::new(&notes.cwd);
    let paths = notes
        .sources
        .iter()
        .map(|s| normalize(&cwd.join(s)))
        .collect();
    Ok(Parsed { notes, plan, paths })
}

/// The coverage one data file of `parsed`'s object records.
pub fn coverage(parsed: &Parsed, data: &[u8]) -> Result<Coverage, FormatError> {
    let counts = data::parse(data, &parsed.notes)?;
    let solved: Vec<_> = parsed
        .notes
        .functions
        .iter()
        .map(|f| (!f.artificial).then(|| solve::solve(f, counts.get(&f.ident).map(Vec::as_slice))))
        .collect();
    Ok(to_coverage(parsed, &solved))
}

/// Every line the object has code on, with count 0, as gcov reports a
/// notes file without data.
pub fn executable(parsed: &Parsed) -> Coverage {
    let solved: Vec<_> = parsed.notes.functions.iter().map(|_| None).collect();
    to_coverage(parsed, &solved)
}

fn to_coverage(parsed: &Parsed, solved: &[Option<solve::Solved>]) -> Coverage {
    let mut coverage = Coverage::new();
    for file in &parsed.plan.files {
        let entry = coverage
            .entry(parsed.paths[file.source].clone())
            .or_default();
        for f in &file.functions {
            if !entry.functions.contains(f) {
                entry.functions.push(*f);
            }
        }
        for line in parsed.plan.lines(&parsed.notes, file, solved) {
            let slot = entry.lines.entry(line.line).or_insert((0, Vec::new()));
            gcov::add_counts(slot, line.count, &line.branches);
        }
    }
    coverage
}

/// The notes files of a build, each parsed once, looked up by the data
/// file path a test writes (the object's path with `.gcda`). Notes that
/// appear while the tests run (a runner that builds) are found then.
pub struct NotesCache {
    /// Notes files must lie below it.
    root: PathBuf,
    parsed: Mutex<HashMap<PathBuf, Result<Arc<Parsed>, String>>>,
}

impl NotesCache {
    pub fn new(root: &Path) -> NotesCache {
        NotesCache {
            root: normalize(root),
            parsed: Mutex::new(HashMap::new()),
        }
    }

    /// The notes for `data_path`, or why there are none this reader can use
    /// (not yet built, outside the build, another gcc's).
    pub fn for_data(&self, data_path: &Path) -> Result<Arc<Parsed>, String> {
        let gcno = normalize(&data_path.with_extension("gcno"));
        if !gcno.starts_with(&self.root) {
            return Err(format!("{} is outside the build", gcno.display()));
        }
        if let Some(known) = self.lock().get(&gcno) {
            return known.clone();
        }
        // Parsed without the lock: the other workers go on reading theirs.
        let notes = match faultlens_confine::read::read_regular(&gcno, FILE_LIMIT) {
            Ok(bytes) => parse_notes(&bytes)
                .map(Arc::new)
                .map_err(|e| format!("{}: {e}", gcno.display())),
            // Not there yet: a runner may build it while its tests run.
            Err(e) if e.is_not_found() => return Err(e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        self.lock().insert(gcno, notes.clone());
        notes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Result<Arc<Parsed>, String>>> {
        self.parsed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The coverage of one data file a test wrote, or why this reader
    /// cannot read it (the caller keeps the file for gcov).
    pub fn read(&self, data_path: &Path, bytes: &[u8]) -> Result<Coverage, String> {
        let notes = self.for_data(data_path)?;
        coverage(&notes, bytes).map_err(|e| format!("{}: {e}", data_path.display()))
    }
}
