//! clang's coverage read without LLVM's tools: the program's coverage
//! mapping decoded once per build, each test's raw profiles read as
//! `llvm-profdata merge -sparse` would merge them, and the export
//! `llvm-cov export` would print built from both. Two processes per test
//! (about 20 ms) become microseconds.
//!
//! Read: the files as clang 14 (Debian 12's) writes them: mapping version
//! 6, raw profile version 8, 64-bit little-endian ELF programs. Anything
//! else is an error, and the caller reads that test with LLVM's tools
//! instead.

mod cursor;
mod elf;
mod mapping;
mod profraw;
mod segments;

pub use mapping::Mapping;
pub use profraw::Profile;

use faultlens_cfg::clang::Export;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
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

/// The export of one test: every `.profraw` its processes wrote under
/// `prefix`, merged; `None` when it wrote none (it could not start).
pub fn read_test(mapping: &Mapping, prefix: &Path) -> Result<Option<Export>, String> {
    let mut profile = Profile::default();
    let mut any = false;
    for path in profiles(prefix) {
        let Some(bytes) = read_profile(&path)? else {
            continue;
        };
        any = true;
        profile
            .add(&bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(any.then(|| segments::export(mapping, &profile)))
}

/// The raw profiles under `dir`, sorted: regular files only (the runtime
/// writes nothing else; a link a test left there is not followed).
pub fn profiles(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
        .collect();
    files.sort();
    files
}

/// A raw profile's bytes; `None` for an empty one (emptied after the last
/// test, and not written since). Opened without following a link and
/// without waiting (a test may have put a link or a pipe there).
fn read_profile(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let what = |e: std::io::Error| format!("{}: {e}", path.display());
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(what)?;
    if !file.metadata().map_err(what)?.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_PROFILE + 1)
        .read_to_end(&mut bytes)
        .map_err(what)?;
    if bytes.len() as u64 > MAX_PROFILE {
        return Err(format!(
            "{} is larger than {MAX_PROFILE} bytes",
            path.display()
        ));
    }
    Ok((!bytes.is_empty()).then_some(bytes))
}

/// Empties the raw profiles under `dir` for the next test (which merges
/// into them: `%m`), and removes anything else: a file with other links
/// or that is not a regular file is removed, never followed.
pub fn empty_profiles(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let profile = path.extension().is_some_and(|e| e == "profraw");
        let emptied = profile
            && std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                .open(&path)
                .and_then(|f| {
                    let meta = f.metadata()?;
                    if !meta.is_file() || meta.nlink() != 1 {
                        return Err(std::io::ErrorKind::InvalidInput.into());
                    }
                    f.set_len(0)
                })
                .is_ok();
        if !emptied {
            let _ = std::fs::remove_file(&path).or_else(|_| std::fs::remove_dir_all(&path));
        }
    }
}
