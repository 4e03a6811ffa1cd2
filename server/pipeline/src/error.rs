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

    /// `faultlens import` was given files it cannot use; the message names
    /// the file and what to give instead.
    #[error("import: {0}")]
    Import(String),

    /// An environment variable faultlens reads has a value it cannot use.
    #[error("{0}")]
    Environment(String),

    #[error("the run was cancelled")]
    Cancelled,

    /// `.faultlens/` is not a directory faultlens may write in.
    #[error(transparent)]
    WorkDir(#[from] faultlens_confine::WorkDirError),

    /// The project, a document under `.faultlens/` or a file operation
    /// (faultlens-workspace).
    #[error(transparent)]
    Workspace(#[from] faultlens_workspace::WorkspaceError),
}

impl PipelineError {
    /// A failed file operation (`context` says which), worded as the
    /// workspace words every one.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> PipelineError {
        faultlens_workspace::WorkspaceError::io(context, source).into()
    }
}

pub type Result<T, E = PipelineError> = std::result::Result<T, E>;
