//! Errors of the workspace: each says what is wrong, where, and what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// `faultlens.toml` (or a file it names) says something faultlens
    /// cannot use.
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },

    /// No configuration and nothing recognisable to detect.
    #[error("{0}")]
    Detection(String),

    // The cause is part of the message, not a `source`, so error chains do
    // not print it twice.
    #[error("{context}: {cause}{}", io_hint(cause))]
    Io {
        context: String,
        cause: std::io::Error,
    },

    /// A document under `.faultlens/` that cannot be used as it is.
    #[error("{path}: {message}")]
    Results { path: PathBuf, message: String },

    /// Another faultlens run holds the project's run lock.
    #[error("{0}")]
    Busy(String),

    /// `.faultlens/` is not a directory faultlens may write in.
    #[error(transparent)]
    WorkDir(#[from] faultlens_confine::WorkDirError),
}

impl WorkspaceError {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> WorkspaceError {
        WorkspaceError::Io {
            context: context.into(),
            cause: source,
        }
    }
}

fn io_hint(error: &std::io::Error) -> &'static str {
    match error.kind() {
        std::io::ErrorKind::PermissionDenied => {
            "\nfaultlens keeps its build and results in the project's .faultlens/ directory; make the project directory writable for you"
        }
        _ => "",
    }
}

pub type Result<T, E = WorkspaceError> = std::result::Result<T, E>;
