//! clang's coverage read without LLVM's tools: the program's coverage
//! mapping decoded once per build, each test's raw profiles read as
//! `llvm-profdata merge -sparse` would merge them, and the export
//! `llvm-cov export` would print built from both. Two processes per test
//! (about 20 ms) become microseconds.
//!
//! Read: the files as clang 14 (Debian 12's) writes them: mapping version
//! 6, raw profile version 8, 64-bit little-endian ELF programs (clang 13's
//! and 15 to 17's share these version numbers and are read by clang 14's
//! rules). Other versions and damaged files are errors, and the caller
//! reads that test with LLVM's tools instead. Every read is bounded: 64 MiB
//! per profile, 256 MiB per section, 64 MiB per inflated file table.

mod cursor;
mod elf;
mod mapping;
mod profraw;
mod segments;

pub use mapping::Mapping;
pub use profraw::Profile;

use faultlens_cfg::clang::Export;
use std::path::{Path, PathBuf};

/// A raw profile larger than this is refused (it holds counters of one
/// program's functions: kilobytes).
const MAX_PROFILE: u64 = 64 << 20;

/// The contents of `program`'s `__llvm_covmap` and `__llvm_covfun`
/// sections (empty when it has none).
pub fn mapping_sections(program: &Path) -> Result<(Vec<u8>, Vec<u8>), String> {
    let [covmap, covfun]: [Vec<u8>; 2] =
        elf::sections(program, &["__llvm_covmap", "__llvm_covfun"])?
            .try_into()
            .map_err(|_| "sections missing")?;
    Ok((covmap, covfun))
}

/// The coverage mapping of `program`.
pub fn read_mapping(program: &Path) -> Result<Mapping, String> {
    let (covmap, covfun) = mapping_sections(program)?;
    if covmap.is_empty() {
        return Err(format!(
            "{} has no coverage mapping (built without -fcoverage-mapping?)",
            program.display()
        ));
    }
    Mapping::decode(&covmap, &covfun).map_err(|e| format!("{}: {e}", program.display()))
}

/// Where test `test`'s processes write their raw profiles under the
/// worker's directory `dir`: one file per program (`%m`), into which the
/// test's processes merge as they exit (one after another, under a lock).
/// The test's number in the name keeps what a process it left behind
/// writes later out of the next test's coverage.
pub fn profile_pattern(dir: &Path, test: usize) -> PathBuf {
    dir.join(format!("t{test}-%m.profraw"))
}

/// The export of test `test`: every raw profile its processes wrote
/// under `dir`, merged; `None` when it wrote none (it could not start).
pub fn read_test(mapping: &Mapping, dir: &Path, test: usize) -> Result<Option<Export>, String> {
    let mut profile = Profile::default();
    let mut any = false;
    for path in profiles(dir, test)? {
        let bytes = faultlens_confine::read::read_regular_no_link(&path, MAX_PROFILE)
            .map_err(|e| e.to_string())?;
        if bytes.is_empty() {
            continue;
        }
        any = true;
        profile
            .add(&bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(any.then(|| segments::export(mapping, &profile)))
}

/// Test `test`'s raw profiles under `dir`, sorted: regular files only (the
/// runtime writes nothing else; a link a test left there is not followed).
pub fn profiles(dir: &Path, test: usize) -> Result<Vec<PathBuf>, String> {
    real_directory(dir)?;
    let prefix = format!("t{test}-");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
        .collect();
    files.sort();
    Ok(files)
}

/// Empties the worker's directory `dir` for its next test. A test can
/// reach it (it is in `LLVM_PROFILE_FILE`): a link put in its place is an
/// error, never followed, and whatever a test left inside (links
/// included) is removed, not followed.
pub fn clear_profiles(dir: &Path) -> Result<(), String> {
    real_directory(dir)?;
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let removed = if is_dir {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| {
            format!(
                "cannot remove {} before the next test ({e}); a test changed the permissions of faultlens's directory",
                path.display()
            )
        })?;
    }
    Ok(())
}

fn real_directory(dir: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(format!(
            "{} is no longer a directory (a test replaced it); faultlens does not follow it",
            dir.display()
        )),
        Err(e) => Err(format!("{}: {e}", dir.display())),
    }
}
