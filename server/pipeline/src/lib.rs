//! faultlens-pipeline: the edge that touches the world. It reads the
//! project's configuration, builds it for coverage under `.faultlens/`, runs
//! each test in its own process, reads the coverage with gcov and produces a
//! [`RunResults`] document. All analysis happens elsewhere, on that document.

pub mod build;

pub mod clang_cov;
mod command;
pub mod config;
pub mod detect;
pub mod discover;
pub mod error;
mod execute;
pub mod files;
pub mod gcov;
mod localize;
pub mod lock;
pub mod paths;
pub mod process;
pub mod project;
pub mod shadow;
pub mod store;
pub mod testspec;
pub mod toolchain;
pub mod verdict;

pub use error::{CompilerDiagnostic, PipelineError};
pub use faultlens_cancel::CancelToken;
pub use faultlens_core::results::RunResults;
pub use localize::{discover_tests, localize, Progress, RunOptions};
pub use project::Project;
