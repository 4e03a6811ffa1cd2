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
use std::path::Path;

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
    let mut files: Vec<_> = std::fs::read_dir(prefix)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
        .collect();
    if files.is_empty() {
        return Ok(None);
    }
    files.sort();
    let mut profile = Profile::default();
    for path in &files {
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_PROFILE + 1).read_to_end(&mut bytes))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if bytes.len() as u64 > MAX_PROFILE {
            return Err(format!(
                "{} is larger than {MAX_PROFILE} bytes",
                path.display()
            ));
        }
        profile
            .add(&bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(Some(segments::export(mapping, &profile)))
}
