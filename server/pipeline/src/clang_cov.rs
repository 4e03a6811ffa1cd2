//! clang's source-based coverage (`[build] coverage = "clang"`).
//!
//! The build compiles with `-fprofile-instr-generate -fcoverage-mapping -O0`;
//! each test writes its raw profile under its own prefix
//! (`LLVM_PROFILE_FILE=<prefix>/%p.profraw`, one file per process);
//! `llvm-profdata merge` and `llvm-cov export -format=text` turn them into
//! JSON, which `faultlens_cfg::clang` reads into the per-line counts gcov
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
use crate::error::{PipelineError, Result};
use crate::gcov::{Coverage, FileCounts};
use crate::paths::normalize;
use crate::toolchain::require;
use faultlens_cfg::clang::{file_counts, Export};
use faultlens_cfg::{build_cfgs, FunctionCfg};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

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
    pub profdata: String,
    pub cov: String,
}

impl ClangTools {
    /// `[build] cc` when it names a clang, else `clang`; `llvm-profdata` and
    /// `llvm-cov`, or Debian's versioned names (`llvm-cov-14`) matching the
    /// compiler's major version.
    pub fn find(config: &Config) -> Result<ClangTools> {
        let clang = config
            .build
            .cc
            .clone()
            .filter(|cc| cc.rsplit('/').next().unwrap_or(cc).starts_with("clang"))
            .unwrap_or_else(|| "clang".into());
        require(&clang, "clang, for `coverage = \"clang\"`", INSTALL_HINT)?;
        let version = major_version(&clang);
        let tool = |name: &str| -> Result<String> {
            let mut candidates = vec![name.to_string()];
            if let Some(v) = &version {
                candidates.push(format!("{name}-{v}"));
            }
            for c in &candidates {
                if runs(c) {
                    return Ok(c.clone());
                }
            }
            Err(PipelineError::MissingTool {
                tool: format!("{name} (tried {})", candidates.join(", ")),
                why: "not found on PATH".into(),
                hint: INSTALL_HINT.into(),
            })
        };
        Ok(ClangTools {
            profdata: tool("llvm-profdata")?,
            cov: tool("llvm-cov")?,
            clang,
        })
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

/// `clang version 14.0.6` → `14`.
fn major_version(clang: &str) -> Option<String> {
    let out = Command::new(clang)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    parse_major(&String::from_utf8_lossy(&out.stdout))
}

fn parse_major(text: &str) -> Option<String> {
    let after = text.split("version ").nth(1)?;
    let major: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
    (!major.is_empty()).then_some(major)
}

/// The environment variable that sends a test's profiles under `prefix`.
pub fn profile_env(prefix: &Path) -> (String, String) {
    (
        "LLVM_PROFILE_FILE".into(),
        prefix.join("%p.profraw").to_string_lossy().into_owned(),
    )
}

/// What every test's conversion needs of each source file, read once.
#[derive(Default)]
pub struct SourceCache {
    files: Mutex<HashMap<PathBuf, Option<std::sync::Arc<SourceModel>>>>,
}

struct SourceModel {
    text: String,
    cfgs: Vec<FunctionCfg>,
}

impl SourceCache {
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

/// The counts of one test: merges the raw profiles its processes wrote
/// under `prefix` and exports them for `program`. A test that wrote none
/// (it could not start) has no coverage.
pub fn read_test(
    tools: &ClangTools,
    program: &Path,
    prefix: &Path,
    cache: &SourceCache,
) -> Result<Coverage> {
    let mut raw: Vec<PathBuf> = std::fs::read_dir(prefix)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
        .collect();
    if raw.is_empty() {
        return Ok(Coverage::new());
    }
    raw.sort();
    let merged = prefix.join("merged.profdata");
    let out = Command::new(&tools.profdata)
        .args(["merge", "-sparse"])
        .args(&raw)
        .arg("-o")
        .arg(&merged)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing(&tools.profdata, e))?;
    if !out.status.success() {
        return Err(PipelineError::Coverage(format!(
            "`{} merge` failed on the profiles in {}: {}",
            tools.profdata,
            prefix.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let out = Command::new(&tools.cov)
        .args(["export", "-format=text", "-instr-profile"])
        .arg(&merged)
        .arg(program)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing(&tools.cov, e))?;
    if !out.status.success() {
        return Err(PipelineError::Coverage(format!(
            "`{} export` failed for {}: {}",
            tools.cov,
            program.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    convert(&String::from_utf8_lossy(&out.stdout), cache)
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
    let mut coverage = Coverage::new();
    for name in export.files() {
        let path = normalize(Path::new(name));
        let counts = match cache.get(&path) {
            Some(model) => file_counts(&export, name, &model.text, &model.cfgs),
            // Not readable here: line counts only, as llvm-cov gives them.
            None => file_counts(&export, name, "", &[]),
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
    Ok(coverage)
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
