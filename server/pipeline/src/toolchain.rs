//! The external tools faultlens drives, found up front so a missing one is
//! reported before any work starts.

use crate::config::Config;
use crate::counters::Reader;
use crate::error::{PipelineError, Result};
use std::process::{Command, Stdio};

#[derive(Debug, Clone)]
pub struct Toolchain {
    /// The C compiler (`[build] cc`, else `$CC`, else `gcc`).
    pub cc: String,
    /// How coverage files are read (`FAULTLENS_GCOV_READER`), settled
    /// before any work so a wrong value is reported first.
    pub reader: Reader,
    /// The gcov that matches the compiler (`gcov-12` for `gcc-12`), for the
    /// coverage files the native reader does not read.
    pub gcov: String,
}

impl Toolchain {
    pub fn find(config: &Config) -> Result<Toolchain> {
        let cc = config
            .build
            .cc
            .clone()
            .or_else(|| std::env::var("CC").ok().filter(|s| !s.trim().is_empty()))
            .unwrap_or_else(|| "gcc".into());
        let hint = if config.build.cc.is_some() {
            format!("[build] cc = {cc:?} in faultlens.toml names a compiler that cannot be run; fix it, or remove it to use $CC or gcc")
        } else {
            "install gcc (Debian/Ubuntu: `sudo apt-get install gcc`), or name your compiler with [build] cc in faultlens.toml".to_string()
        };
        require(&cc, "the C compiler", &hint)?;
        // faultlens reads gcc 12's coverage files itself; gcov is needed only
        // for another gcc's, and a missing one is reported then, by name.
        let gcov = matching_gcov(&cc);
        Ok(Toolchain {
            cc,
            gcov,
            reader: Reader::from_env()?,
        })
    }
}

/// What tells one compiler from another for reusing what it made: the
/// machine, and the size and time of the program `cc` names (found on
/// `PATH` when it has no `/`), so an upgraded, replaced or foreign
/// compiler does not reuse another's output.
pub fn compiler_identity(cc: &str) -> String {
    let program = cc.split_whitespace().next().unwrap_or(cc);
    let found = if program.contains('/') {
        Some(std::path::PathBuf::from(program))
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(program))
                .find(|candidate| {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::metadata(candidate)
                        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                })
        })
    };
    let described = found.and_then(|path| {
        let real = std::fs::canonicalize(&path).ok()?;
        let meta = std::fs::metadata(&real).ok()?;
        let time = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some(format!(
            "{}:{}:{}",
            real.display(),
            meta.len(),
            time.as_nanos()
        ))
    });
    format!(
        "{cc} on {} ({})",
        std::env::consts::ARCH,
        described.unwrap_or_default()
    )
}

/// `gcc-12` → `gcov-12`; anything else → `gcov`.
fn matching_gcov(cc: &str) -> String {
    let base = cc.rsplit('/').next().unwrap_or(cc);
    match base.strip_prefix("gcc-") {
        Some(version) => format!("gcov-{version}"),
        None => "gcov".into(),
    }
}

/// Fails with a clear message when `tool --version` cannot be run.
pub fn require(tool: &str, what: &str, hint: &str) -> Result<()> {
    let program = tool.split_whitespace().next().unwrap_or(tool);
    match Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(_) => Ok(()),
        Err(e) => Err(PipelineError::MissingTool {
            tool: format!("{what} (`{program}`)"),
            why: e.to_string(),
            hint: hint.into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcov_follows_the_compiler_version() {
        assert_eq!(matching_gcov("gcc-12"), "gcov-12");
        assert_eq!(matching_gcov("/usr/bin/gcc-13"), "gcov-13");
        assert_eq!(matching_gcov("gcc"), "gcov");
        assert_eq!(matching_gcov("cc"), "gcov");
    }

    #[test]
    fn a_missing_tool_says_what_and_how_to_fix() {
        let err = require(
            "faultlens-no-such-compiler",
            "the C compiler",
            "install gcc",
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("faultlens-no-such-compiler") && text.contains("install gcc"),
            "{text}"
        );
    }
}
