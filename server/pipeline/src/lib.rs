//! faultlens-pipeline: the edge that starts processes. Given a project
//! (`faultlens-workspace`), it builds it for coverage under `.faultlens/`,
//! runs each test in its own process, reads the coverage with gcov and
//! produces a [`RunResults`] document. All analysis happens elsewhere, on
//! that document.

mod assemble;
pub mod build;
pub mod clang_cov;
mod command;
pub mod counters;
pub mod discover;
pub mod error;
mod execute;
pub mod gcda;
pub mod gcov;
pub mod gcov_native;
pub mod import;
pub mod llvm_native;
mod localize;
pub mod note;
pub mod paths;
pub mod process;
mod pump;
pub mod shadow;
mod spawn;
pub mod toolchain;
pub mod verdict;

// The project and its `.faultlens/` belong to faultlens-workspace; the
// pipeline's modules reach them by these names.
use faultlens_workspace::{config, files, lock, project, store, testspec};

pub use error::{CompilerDiagnostic, PipelineError};
pub use faultlens_cancel::CancelToken;
pub use faultlens_core::results::RunResults;
pub use localize::{
    discover_tests, localize, localize_in_stages, Discovered, FirstTests, Progress, RunOptions,
};
