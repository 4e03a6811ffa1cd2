//! A project: its root, its configuration (read or detected), and the kind of
//! test suite it has.

use crate::config::{Config, Kind, CONFIG_FILE};
use crate::error::{Result, WorkspaceError};
use std::path::{Path, PathBuf};

/// Files that are test code unless `[project] test_code` says otherwise.
pub const DEFAULT_TEST_CODE: &[&str] = &[
    "test/**",
    "tests/**",
    "**/test_*.c",
    "**/*_test.c",
    "**/*_tests.c",
];

/// Where faultlens keeps everything it writes, relative to the project root.
pub const WORK_DIR: &str = faultlens_confine::WORK_DIR;

#[derive(Debug, Clone)]
pub struct Project {
    /// Absolute, canonical project root.
    pub root: PathBuf,
    pub config: Config,
    pub kind: Kind,
    /// True when `faultlens.toml` was absent and the setup was detected.
    pub detected: bool,
}

impl Project {
    /// Reads `faultlens.toml` at `root`, or detects the project's shape.
    pub fn load(root: &Path) -> Result<Project> {
        let root = root.canonicalize().map_err(|e| {
            WorkspaceError::Detection(format!(
                "{}: cannot open the project directory ({e})",
                root.display()
            ))
        })?;
        if !root.is_dir() {
            return Err(WorkspaceError::Detection(format!(
                "{} is not a directory; give faultlens the project's root directory",
                root.display()
            )));
        }
        let config_path = root.join(CONFIG_FILE);
        if config_path.exists() || config_path.is_symlink() {
            let text = crate::files::checked(&root, Path::new(CONFIG_FILE))
                .map_err(|message| WorkspaceError::Config {
                    path: config_path.clone(),
                    message,
                })
                .and_then(|path| {
                    faultlens_confine::read_regular_text(&path, faultlens_confine::limits::CONFIG)
                        .map_err(|e| WorkspaceError::Config {
                            path: config_path.clone(),
                            message: e.reason(),
                        })
                })?;
            let config = Config::parse(&text, &config_path)?;
            let kind = infer_kind(&config, &root).ok_or_else(|| WorkspaceError::Config {
                path: config_path.clone(),
                message: "no tests are configured: add [[test]] tables, a [tests] section, a [runner] section, or set [project] kind = \"ctest\" for a CMake project".into(),
            })?;
            return Ok(Project {
                root,
                config,
                kind,
                detected: false,
            });
        }
        crate::detect::detect(&root)
    }

    /// Where `.faultlens/` is; [`Project::work`] before writing into it.
    pub fn work_dir(&self) -> PathBuf {
        self.root.join(WORK_DIR)
    }

    /// `.faultlens/`, made when missing and checked to be a real directory
    /// of the project (a symbolic link there is refused).
    pub fn work(&self) -> Result<faultlens_confine::WorkDir> {
        Ok(faultlens_confine::WorkDir::open(&self.root)?)
    }

    /// Globs of files that are test code.
    pub fn test_code_globs(&self) -> Vec<String> {
        self.config
            .project
            .test_code
            .clone()
            .unwrap_or_else(|| DEFAULT_TEST_CODE.iter().map(|s| s.to_string()).collect())
    }
}

fn infer_kind(config: &Config, root: &Path) -> Option<Kind> {
    if let Some(kind) = config.project.kind {
        return Some(kind);
    }
    if config.runner.is_some() {
        Some(Kind::Runner)
    } else if !config.tests.is_empty() || config.compact.is_some() {
        Some(Kind::Io)
    } else if config.ctest.is_some() || crate::detect::is_ctest_project(root) {
        Some(Kind::Ctest)
    } else if config.meson.is_some() || crate::detect::is_meson_project(root) {
        Some(Kind::Meson)
    } else if config.make_check.is_some()
        || crate::detect::is_make_check_project(root)
        || crate::detect::autotools(root).is_some()
    {
        Some(Kind::Make)
    } else {
        None
    }
}
