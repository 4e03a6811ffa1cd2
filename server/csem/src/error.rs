//! Errors of the front end: each says what is wrong, where, and what to do.

use std::fmt;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CsemError {
    /// The preprocessor failed or could not run.
    Preprocess { file: PathBuf, message: String },
    /// tree-sitter found a syntax error.
    Syntax {
        file: PathBuf,
        line: u32,
        message: String,
    },
    /// A construct outside the modelled subset of C.
    Unsupported {
        construct: String,
        file: PathBuf,
        line: u32,
    },
    /// A type or name error the compiler would also reject.
    Invalid {
        message: String,
        file: PathBuf,
        line: u32,
    },
    /// Reading a source or setting up the parser failed.
    Io(String),
}

impl fmt::Display for CsemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CsemError::Preprocess { file, message } => {
                write!(f, "preprocessing {} failed: {message}", file.display())
            }
            CsemError::Syntax {
                file,
                line,
                message,
            } => {
                write!(f, "syntax error at {}:{line}: {message}", file.display())
            }
            CsemError::Unsupported {
                construct,
                file,
                line,
            } => {
                write!(f, "unsupported: {construct} at {}:{line}", file.display())
            }
            CsemError::Invalid {
                message,
                file,
                line,
            } => {
                write!(f, "invalid C at {}:{line}: {message}", file.display())
            }
            CsemError::Io(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for CsemError {}
