pub mod diagnose;
pub mod eval;
pub mod generate;
pub mod import;
pub mod interpret;
pub mod localize;
pub mod measures;
pub mod shards;
pub mod tests;
pub mod watch;

use std::path::PathBuf;

/// The project root a command works on: the given path or the current directory.
/// The project root a failure's JSON or SARIF document names: the path
/// given, else the working directory (empty if even that is gone).
pub fn root_for_error(path: Option<PathBuf>) -> String {
    path.or_else(|| std::env::current_dir().ok())
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub fn root_or_cwd(path: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match path {
        Some(p) => Ok(p),
        None => Ok(std::env::current_dir()?),
    }
}
