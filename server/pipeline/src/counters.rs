//! From the `.gcda` files a test wrote to its coverage: read natively as
//! the test ends (`gcov_native`), and with `gcov` after the run for what
//! that could not read. `FAULTLENS_GCOV_READER=gcov` reads everything with
//! gcov; `=check` reads everything both ways and fails the run where they
//! differ (the tests run every fixture so).

use crate::error::{PipelineError, Result};
use crate::gcda::{DataFile, Gathered};
use crate::gcov::{self, Coverage};
use crate::gcov_native::NotesCache;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How coverage is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// Natively, gcov for what the native reader cannot read.
    Native,
    /// gcov alone, as before the native reader.
    Gcov,
    /// Both, compared; a difference or a file only gcov reads is an error.
    Check,
}

impl Reader {
    pub const VARIABLE: &'static str = "FAULTLENS_GCOV_READER";

    pub fn from_env() -> Result<Reader> {
        match std::env::var(Self::VARIABLE).as_deref() {
            Err(_) | Ok("") | Ok("native") => Ok(Reader::Native),
            Ok("gcov") => Ok(Reader::Gcov),
            Ok("check") => Ok(Reader::Check),
            Ok(other) => Err(PipelineError::Environment(format!(
                "{}={other:?} is not a way of reading coverage; use native (the default), gcov (the compiler's own tools: gcov, or llvm-profdata and llvm-cov for clang's coverage) or check, or unset it",
                Self::VARIABLE
            ))),
        }
    }

    /// Whether the test's files are read as it ends.
    pub fn reads_natively(self) -> bool {
        self != Reader::Gcov
    }

    /// Whether every file is kept for gcov.
    pub fn keeps_all(self) -> bool {
        self != Reader::Native
    }
}

/// The coverage of each test of `tests` (one batch), reading with gcov
/// whatever is left; `notes` maps each data path to its notes file.
pub fn finish(
    reader: Reader,
    gcov_tool: &str,
    tests: Vec<Gathered>,
    notes: &BTreeMap<PathBuf, PathBuf>,
    cache: &NotesCache,
) -> Result<Vec<Coverage>> {
    let mut read = Vec::with_capacity(tests.len());
    let mut for_gcov: Vec<Vec<DataFile>> = Vec::with_capacity(tests.len());
    for test in tests {
        let mut coverage = test.read;
        let mut left = Vec::new();
        for file in test.kept {
            if reader == Reader::Native {
                // Notes a runner built while the tests ran are there now.
                if let Some(late) = read_kept(cache, &file) {
                    gcov::merge_into(&mut coverage, late);
                    let _ = std::fs::remove_file(&file.kept_at);
                    continue;
                }
            }
            left.push(file);
        }
        if reader == Reader::Check {
            if let Some((unread, why)) = test.unread.first() {
                return Err(PipelineError::Coverage(format!(
                    "{} = check: the native reader could not read {}: {why}",
                    Reader::VARIABLE,
                    unread.display()
                )));
            }
        }
        read.push(coverage);
        for_gcov.push(left);
    }
    let by_gcov = if for_gcov.iter().all(Vec::is_empty) {
        vec![Coverage::new(); read.len()]
    } else {
        gcov::read_coverage(gcov_tool, &for_gcov, notes)?
    };
    match reader {
        Reader::Native => Ok(read
            .into_iter()
            .zip(by_gcov)
            .map(|(mut native, rest)| {
                gcov::merge_into(&mut native, rest);
                native
            })
            .collect()),
        Reader::Gcov => Ok(by_gcov),
        Reader::Check => {
            for (native, by_gcov) in read.iter().zip(&by_gcov) {
                if let Some(difference) = first_difference(native, by_gcov, "gcov") {
                    return Err(PipelineError::Coverage(format!(
                        "{} = check: the native reader and gcov differ: {difference}",
                        Reader::VARIABLE
                    )));
                }
            }
            Ok(read)
        }
    }
}

fn read_kept(cache: &NotesCache, file: &DataFile) -> Option<Coverage> {
    let bytes =
        faultlens_confine::read_regular_no_link(&file.kept_at, crate::gcov_native::FILE_LIMIT)
            .ok()?;
    cache.read(&file.written_for, &bytes).ok()
}

/// Where two coverages of one test differ, in words; `None` if they agree.
/// `tool` names the reader of the second.
pub fn first_difference(native: &Coverage, by_gcov: &Coverage, tool: &str) -> Option<String> {
    let files = |c: &Coverage| c.keys().cloned().collect::<Vec<_>>();
    if files(native) != files(by_gcov) {
        return Some(format!(
            "files {:?} against {tool}'s {:?}",
            files(native),
            files(by_gcov)
        ));
    }
    for (path, ours) in native {
        let theirs = &by_gcov[path];
        let mut functions = (ours.functions.clone(), theirs.functions.clone());
        functions.0.sort_unstable();
        functions.1.sort_unstable();
        if functions.0 != functions.1 {
            return Some(format!(
                "{}: functions {:?} against {tool}'s {:?}",
                path.display(),
                functions.0,
                functions.1
            ));
        }
        if ours.lines != theirs.lines {
            let line = ours
                .lines
                .keys()
                .chain(theirs.lines.keys())
                .find(|l| ours.lines.get(l) != theirs.lines.get(l))
                .copied()
                .unwrap_or(0);
            return Some(format!(
                "{}:{line}: {:?} against {tool}'s {:?}",
                path.display(),
                ours.lines.get(&line),
                theirs.lines.get(&line)
            ));
        }
    }
    None
}

/// Every executable line of the build's notes: natively when every notes
/// file is readable so, else with gcov (and both, compared, in check mode).
pub fn executable_lines(
    reader: Reader,
    gcov_tool: &str,
    notes: &[PathBuf],
    scratch: &Path,
) -> Result<Coverage> {
    let native = match reader {
        Reader::Gcov => None,
        _ => native_executable(notes),
    };
    match (reader, native) {
        (Reader::Native, Some(native)) => Ok(native),
        (Reader::Check, None) => Err(PipelineError::Coverage(format!(
            "{} = check: the native reader could not read every notes file",
            Reader::VARIABLE
        ))),
        (Reader::Check, Some(native)) => {
            let by_gcov = gcov::executable_lines(gcov_tool, notes, scratch)?;
            match first_difference(&native, &by_gcov, "gcov") {
                Some(difference) => Err(PipelineError::Coverage(format!(
                    "{} = check: the executable lines differ: {difference}",
                    Reader::VARIABLE
                ))),
                None => Ok(native),
            }
        }
        _ => gcov::executable_lines(gcov_tool, notes, scratch),
    }
}

fn native_executable(notes: &[PathBuf]) -> Option<Coverage> {
    let mut all = Coverage::new();
    for path in notes {
        let bytes = faultlens_confine::read_regular(path, crate::gcov_native::FILE_LIMIT).ok()?;
        let parsed = crate::gcov_native::parse_notes(&bytes).ok()?;
        gcov::merge_into(&mut all, crate::gcov_native::executable(&parsed));
    }
    Some(all)
}
