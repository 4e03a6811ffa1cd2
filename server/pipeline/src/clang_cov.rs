//! clang's source-based coverage (`[build] coverage = "clang"`).
//!
//! The build compiles with `-fprofile-instr-generate -fcoverage-mapping -O0`;
//! each test's processes merge their counters into one raw profile per
//! program in the worker's reused directory (`LLVM_PROFILE_FILE=<dir>/t<test>-%m.profraw`),
//! read as the test ends and removed before the next. `llvm_native` reads them with the program's coverage mapping into what
//! `llvm-cov export` would print (`llvm-profdata merge` and `llvm-cov
//! export` read what it cannot, and both are compared in check mode);
//! `faultlens_cfg::clang` turns that into the per-line counts gcov
//! would give, each condition's true/false counts written as its line's
//! branch counts in gcc's order, so the edge derivation and BlockRank read
//! them unchanged.
//!
//! What clang cannot show: where a run stopped. Its counters count regions
//! when they are entered, and code after a call is in the call's region,
//! so a crash inside a call reads as if the caller went on (gcc ends its
//! blocks after calls and its counts show the stop). BlockRank's transition
//! rate then sees only the stops at calls that never return (`exit`).

use crate::config::Config;
use crate::counters::{first_difference, Reader};
use crate::error::{PipelineError, Result};
use crate::gcov::{Coverage, FileCounts};
use crate::llvm_native::{self, Mapping};
use crate::paths::normalize;
use faultlens_cfg::clang::{file_counts, Export};
use faultlens_cfg::{build_cfgs, FunctionCfg};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

/// Compiler flags of a clang coverage build.
pub const CFLAGS: &str = "-fprofile-instr-generate -fcoverage-mapping -O0 -g";
/// Linker flag of a clang coverage build.
pub const LDFLAGS: &str = "-fprofile-instr-generate";
/// What the runtime calls to write the counters of a dying process.
pub const DUMP_FUNCTION: &str = "__llvm_profile_write_file";

const INSTALL_HINT: &str =
    "clang's coverage needs clang, llvm-profdata and llvm-cov (Debian/Ubuntu: `sudo apt-get install clang llvm`); or use gcc's with `coverage = \"gcov\"` in faultlens.toml";

/// The clang compiler and the LLVM tools of the same version.
#[derive(Debug, Clone)]
pub struct ClangTools {
    pub clang: String,
    /// The compiler's major version (Debian names its tools after it).
    version: Option<String>,
    /// `llvm-profdata` and `llvm-cov`, or which names were tried: looked
    /// for only when needed (check mode, or a profile the native reader
    /// cannot read): each lookup starts processes.
    llvm: OnceLock<std::result::Result<(String, String), String>>,
    pub reader: Reader,
}

impl ClangTools {
    /// `[build] cc` when it names a clang, else `clang`; `llvm-profdata` and
    /// `llvm-cov`, or Debian's versioned names (`llvm-cov-14`) matching the
    /// compiler's major version, found when first needed.
    pub fn find(config: &Config) -> Result<ClangTools> {
        let clang = config
            .build
            .cc
            .clone()
            .filter(|cc| cc.rsplit('/').next().unwrap_or(cc).starts_with("clang"))
            .unwrap_or_else(|| "clang".into());
        let version = major_version(&clang)?;
        let tools = ClangTools {
            clang,
            version,
            llvm: OnceLock::new(),
            reader: Reader::from_env()?,
        };
        if tools.reader != Reader::Native {
            tools.llvm()?;
        }
        Ok(tools)
    }

    /// `llvm-profdata` and `llvm-cov`.
    fn llvm(&self) -> Result<(&str, &str)> {
        let found = self.llvm.get_or_init(|| {
            let tool = |name: &str| -> std::result::Result<String, String> {
                let mut candidates = vec![name.to_string()];
                if let Some(v) = &self.version {
                    candidates.push(format!("{name}-{v}"));
                }
                candidates
                    .iter()
                    .find(|c| runs(c))
                    .cloned()
                    .ok_or_else(|| format!("{name} (tried {})", candidates.join(", ")))
            };
            tool("llvm-profdata").and_then(|p| Ok((p, tool("llvm-cov")?)))
        });
        match found {
            Ok((profdata, cov)) => Ok((profdata, cov)),
            Err(tried) => Err(PipelineError::MissingTool {
                tool: tried.clone(),
                why: "not found on PATH".into(),
                hint: INSTALL_HINT.into(),
            }),
        }
    }
}

fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// `clang version 14.0.6` → `14`; an error when `clang` cannot be run.
fn major_version(clang: &str) -> Result<Option<String>> {
    let program = clang.split_whitespace().next().unwrap_or(clang);
    let out = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| PipelineError::MissingTool {
            tool: format!("clang, for `coverage = \"clang\"` (`{program}`)"),
            why: e.to_string(),
            hint: INSTALL_HINT.into(),
        })?;
    Ok(parse_major(&String::from_utf8_lossy(&out.stdout)))
}

fn parse_major(text: &str) -> Option<String> {
    let after = text.split("version ").nth(1)?;
    let major: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
    (!major.is_empty()).then_some(major)
}

/// The environment variable that sends test `test`'s profiles into the
/// worker's directory `dir`, reused test after test (a fresh directory per
/// test cost more than the tests: ext4 avoids recently freed inodes).
pub fn profile_env(dir: &Path, test: usize) -> (String, String) {
    (
        "LLVM_PROFILE_FILE".into(),
        llvm_native::profile_pattern(dir, test)
            .to_string_lossy()
            .into_owned(),
    )
}

/// What every test's conversion needs, read once: the program's coverage
/// mapping and each source file's graphs.
#[derive(Default)]
pub struct SourceCache {
    files: Mutex<HashMap<PathBuf, Option<std::sync::Arc<SourceModel>>>>,
    mapping: OnceLock<std::result::Result<Arc<Mapping>, String>>,
}

struct SourceModel {
    text: String,
    cfgs: Vec<FunctionCfg>,
}

impl SourceCache {
    /// The program's coverage mapping, read on first use (call it before
    /// the tests run: a test could replace the program).
    pub fn mapping(&self, program: &Path) -> std::result::Result<Arc<Mapping>, String> {
        self.mapping
            .get_or_init(|| llvm_native::read_mapping(program).map(Arc::new))
            .clone()
    }

    fn get(&self, path: &Path) -> Option<std::sync::Arc<SourceModel>> {
        let mut files = self.files.lock().unwrap();
        files
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let bytes = std::fs::read(path).ok()?;
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let cfgs = build_cfgs(&text).ok()?;
                Some(std::sync::Arc::new(SourceModel { text, cfgs }))
            })
            .clone()
    }
}

/// The counts of test `test` from the raw profiles its processes wrote
/// into the worker's directory `prefix`, as `tools.reader` says: natively
/// (LLVM's tools for what that cannot read), with LLVM's tools, or both
/// compared. A test that wrote none (it could not start) has no coverage.
pub fn read_test(
    tools: &ClangTools,
    program: &Path,
    (prefix, test): (&Path, usize),
    cache: &SourceCache,
) -> Result<Coverage> {
    let native = || -> std::result::Result<Coverage, String> {
        let mapping = cache.mapping(program)?;
        Ok(match llvm_native::read_test(&mapping, prefix, test)? {
            Some(export) => coverage_of(&export, cache),
            None => Coverage::new(),
        })
    };
    let by_tools = || by_llvm_tools(tools, program, (prefix, test), cache);
    match tools.reader {
        Reader::Gcov => by_tools(),
        Reader::Native => match native() {
            Ok(coverage) => Ok(coverage),
            Err(why) => by_tools().map_err(|e| {
                PipelineError::Coverage(format!(
                    "faultlens's own reader cannot read the profiles in {} ({why}), and LLVM's tools could not either: {e}",
                    prefix.display()
                ))
            }),
        },
        Reader::Check => {
            let ours = native().map_err(|e| {
                PipelineError::Coverage(format!(
                    "{}=check: the native reader cannot read {}: {e}",
                    Reader::VARIABLE,
                    prefix.display()
                ))
            })?;
            let theirs = by_tools()?;
            match first_difference(&ours, &theirs, "llvm-cov") {
                None => Ok(ours),
                Some(difference) => Err(PipelineError::Coverage(format!(
                    "{}=check: the native reader and llvm-cov differ on the profiles in {}: {difference}",
                    Reader::VARIABLE,
                    prefix.display()
                ))),
            }
        }
    }
}

/// One test's counts through `llvm-profdata merge` and `llvm-cov export`.
fn by_llvm_tools(
    tools: &ClangTools,
    program: &Path,
    (prefix, test): (&Path, usize),
    cache: &SourceCache,
) -> Result<Coverage> {
    let (profdata, cov) = tools.llvm()?;
    let raw: Vec<PathBuf> = llvm_native::profiles(prefix, test)
        .map_err(PipelineError::Coverage)?
        .into_iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.len() > 0))
        .collect();
    if raw.is_empty() {
        return Ok(Coverage::new());
    }
    let merged = MergedProfile::create(prefix)?;
    let merged = merged.path.as_path();
    let out = Command::new(profdata)
        .args(["merge", "-sparse"])
        .args(&raw)
        .arg("-o")
        .arg(merged)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing(profdata, e))?;
    if !out.status.success() {
        return Err(PipelineError::Coverage(format!(
            "`{} merge` failed on the profiles in {}: {}",
            profdata,
            prefix.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let out = Command::new(cov)
        .args(["export", "-format=text", "-instr-profile"])
        .arg(merged)
        .arg(program)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing(cov, e))?;
    if !out.status.success() {
        return Err(PipelineError::Coverage(format!(
            "`{} export` failed for {}: {}",
            cov,
            program.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    convert(&String::from_utf8_lossy(&out.stdout), cache)
}

/// `llvm-profdata`'s output, in a directory made for it beside the
/// worker's (which tests can write: a link planted there would be
/// followed), removed when dropped.
struct MergedProfile {
    dir: PathBuf,
    path: PathBuf,
}

impl MergedProfile {
    fn create(worker: &Path) -> Result<MergedProfile> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("merge-{}-{n}", std::process::id());
        let dir = worker.parent().unwrap_or(worker).join(name);
        // A fresh directory, or an error: never one a test made.
        std::fs::create_dir(&dir)
            .map_err(|e| PipelineError::io(format!("creating {}", dir.display()), e))?;
        let path = dir.join("merged.profdata");
        Ok(MergedProfile { dir, path })
    }
}

impl Drop for MergedProfile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn missing(tool: &str, e: std::io::Error) -> PipelineError {
    PipelineError::MissingTool {
        tool: format!("`{tool}`"),
        why: e.to_string(),
        hint: INSTALL_HINT.into(),
    }
}

/// Reads `llvm-cov export -format=text` output into per-line counts (see
/// `faultlens_cfg::clang` for how they follow gcov's).
pub fn convert(json: &str, cache: &SourceCache) -> Result<Coverage> {
    let export = Export::parse(json).map_err(|e| {
        PipelineError::Coverage(format!("llvm-cov printed JSON faultlens cannot read: {e}"))
    })?;
    Ok(coverage_of(&export, cache))
}

/// An export's per-line counts.
fn coverage_of(export: &Export, cache: &SourceCache) -> Coverage {
    let mut coverage = Coverage::new();
    for name in export.files() {
        let path = normalize(Path::new(name));
        let counts = match cache.get(&path) {
            Some(model) => file_counts(export, name, &model.text, &model.cfgs),
            // Not readable here: line counts only, as llvm-cov gives them.
            None => file_counts(export, name, "", &[]),
        };
        let entry: &mut FileCounts = coverage.entry(path).or_default();
        for (line, (count, branches)) in counts.lines {
            let slot = entry.lines.entry(line).or_insert((0, Vec::new()));
            slot.0 = slot.0.max(count);
            if slot.1.is_empty() {
                slot.1 = branches;
            }
        }
        for f in counts.functions {
            if !entry.functions.contains(&f) {
                entry.functions.push(f);
            }
        }
    }
    coverage
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_clang_banners() {
        assert_eq!(
            parse_major("Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\n"),
            Some("14".into())
        );
        assert_eq!(
            parse_major("clang version 18.1.3 (https://x)"),
            Some("18".into())
        );
        assert_eq!(parse_major("gcc (Debian 12.2.0-14) 12.2.0"), None);
    }

    #[test]
    fn unreadable_json_is_a_coverage_error() {
        let err = convert("{not json", &SourceCache::default()).unwrap_err();
        assert!(err.to_string().contains("llvm-cov"), "{err}");
    }
}
