//! Autotools projects as they ship: `./configure` run in the shadow copy
//! with the coverage environment (after `autoreconf -fi` when only
//! `configure.ac` ships), then `make` as for any `make check` project.
//! Configure runs again only when its script, its arguments or the
//! environment changed, or the copy has no `config.status`.

use super::build_step;
use crate::command::Steps;
use crate::error::{PipelineError, Result};
use crate::paths::PathMap;
use crate::project::Project;
use crate::toolchain::require;
use faultlens_workspace::detect::Autotools;
use std::path::Path;
use std::process::Command;

/// Beside the shadow copy: what its `config.status` was made from.
const STAMP: &str = "configure.stamp";
/// Lines of `config.log` quoted when `configure` fails.
const CONFIG_LOG_LINES: usize = 30;

/// Sets `shadow` up with `configure` (and `autoreconf` first if needed);
/// says what ran, when something did.
pub fn configure(
    project: &Project,
    how: Autotools,
    shadow: &Path,
    env: &[(String, String)],
    steps: &Steps,
) -> Result<Option<String>> {
    let paths = PathMap::new(project.root.clone(), Some(shadow.to_path_buf()));
    let args = &project.config.build.configure;
    let stamp = stamp_of(shadow, args, env);
    let work = project.work()?;
    let recorded = work.read(STAMP, 1 << 16).ok().flatten();
    if recorded.as_deref() == Some(stamp.as_bytes()) && shadow.join("config.status").is_file() {
        return Ok(None);
    }
    let _ = std::fs::remove_file(work.join(STAMP));
    if how == Autotools::Reconfigure {
        reconfigure_tools(shadow)?;
        let mut autoreconf = Command::new("autoreconf");
        autoreconf.arg("-fi");
        build_step(
            autoreconf,
            "`autoreconf -fi` (the project ships configure.ac but no configure) failed:",
            shadow,
            env,
            shadow,
            &paths,
            steps,
        )?;
    }
    let mut configure = Command::new("sh");
    configure.arg("./configure").args(args);
    let described = match args.is_empty() {
        true => "`./configure`".to_string(),
        false => format!("`./configure {}`", shell_words::join(args)),
    };
    let outcome = build_step(
        configure,
        &format!("{described} failed:"),
        shadow,
        env,
        shadow,
        &paths,
        steps,
    );
    if let Err(PipelineError::Build {
        message,
        diagnostics,
    }) = outcome
    {
        return Err(PipelineError::Build {
            message: format!(
                "{message}{}\n(extra arguments for configure go in [build] configure = [...] of faultlens.toml)",
                config_log_tail(shadow)
            ),
            diagnostics,
        });
    }
    outcome?;
    work.write_atomic(STAMP, stamp.as_bytes())?;
    Ok(Some(match how {
        Autotools::Configure => format!(
            "an autotools project: ran its {described} in .faultlens/shadow, then make"
        ),
        Autotools::Reconfigure => format!(
            "an autotools project without configure (configure.ac only): ran `autoreconf -fi` and {described} in .faultlens/shadow, then make"
        ),
    }))
}

/// The script, its arguments and the build environment, as one digest.
fn stamp_of(shadow: &Path, args: &[String], env: &[(String, String)]) -> String {
    let script = std::fs::read(shadow.join("configure")).unwrap_or_default();
    let mut text = faultlens_core::sources::digest(&script);
    for arg in args {
        text.push('\0');
        text.push_str(arg);
    }
    for (k, v) in env {
        text.push_str(&format!("\0{k}={v}"));
    }
    faultlens_core::sources::digest(text.as_bytes())
}

/// The tools `autoreconf -fi` needs for this `configure.ac`, each named
/// with the package that has it when it is missing.
fn reconfigure_tools(shadow: &Path) -> Result<()> {
    require(
        "autoreconf",
        "autoreconf, which makes configure from configure.ac",
        "install autoconf and automake (Debian/Ubuntu: `sudo apt-get install autoconf automake`)",
    )?;
    require(
        "automake",
        "automake, which makes Makefile.in from Makefile.am",
        "install it (Debian/Ubuntu: `sudo apt-get install automake`)",
    )?;
    let script = ["configure.ac", "configure.in"]
        .iter()
        .find_map(|name| std::fs::read_to_string(shadow.join(name)).ok())
        .unwrap_or_default();
    if script.contains("LT_INIT") || script.contains("AC_PROG_LIBTOOL") {
        require(
            "libtoolize",
            "libtoolize, which configure.ac asks for (LT_INIT)",
            "install libtool (Debian/Ubuntu: `sudo apt-get install libtool`)",
        )?;
    }
    if script.contains("AM_GNU_GETTEXT") {
        require(
            "autopoint",
            "autopoint, which configure.ac asks for (AM_GNU_GETTEXT)",
            "install it (Debian/Ubuntu: `sudo apt-get install autopoint gettext`)",
        )?;
    }
    Ok(())
}

/// The last lines of `config.log`, where configure says what it tried.
fn config_log_tail(shadow: &Path) -> String {
    let Ok(bytes) = faultlens_confine::read_regular_no_link(&shadow.join("config.log"), 8 << 20)
    else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let tail = &lines[lines.len().saturating_sub(CONFIG_LOG_LINES)..];
    format!(
        "\nthe last lines of config.log ({}):\n{}",
        shadow.join("config.log").display(),
        tail.join("\n")
    )
}
