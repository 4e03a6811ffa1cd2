//! Errors of the pipeline: each says what is wrong, where, and what to do.

use std::path::PathBuf;

/// A compiler message parsed from a failed build (`file:line:col: error: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompilerDiagnostic {
    /// Relative to the project root when the file is inside it.
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// `error`, `warning` or `note`, as the compiler said.
    pub severity: String,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },

    #[error("{0}")]
    Detection(String),

    #[error("{tool} was not found ({why}). {hint}")]
    MissingTool {
        tool: String,
        why: String,
        hint: String,
    },

    #[error("the build failed:\n{message}")]
    Build {
        message: String,
        diagnostics: Vec<CompilerDiagnostic>,
    },

    #[error("no tests found: {0}")]
    NoTests(String),

    #[error("{0}")]
    Discovery(String),

    #[error("coverage data could not be read: {0}")]
    Coverage(String),

    // The cause is part of the message, not a `source`, so error chains do
    // not print it twice.
    #[error("{context}: {cause}{}", io_hint(cause))]
    Io {
        context: String,
        cause: std::io::Error,
    },

    #[error("{path}: {message}")]
    Results { path: PathBuf, message: String },

    #[error("the run was cancelled")]
    Cancelled,

    #[error("{0}")]
    Busy(String),

    /// `.faultlens/` is not a directory faultlens may write in.
    #[error(transparent)]
    WorkDir(#[from] faultlens_confine::WorkDirError),

    /// The project or a document under `.faultlens/` (faultlens-workspace).
    #[error(transparent)]
    Workspace(#[from] faultlens_workspace::WorkspaceError),
}

impl PipelineError {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> PipelineError {
        PipelineError::Io {
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

pub type Result<T, E = PipelineError> = std::result::Result<T, E>;
