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
pub fn root_or_cwd(path: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match path {
        Some(p) => Ok(p),
        None => Ok(std::env::current_dir()?),
    }
}
