//! faultlens-workspace: the one owner of a project and of its `.faultlens/`
//! directory. It reads the configuration (`faultlens.toml`) or detects the
//! project's kind, declares its input/output tests and the generated ones,
//! and reads and writes every document under `.faultlens/`: the results,
//! the diagnosis, the generated tests, the free-input runtime, the run
//! lock. It also says whether stored results still describe the sources
//! ([`store::stored_results`]), the check both front doors start from.
//!
//! It does file I/O (bounded, confined to the project, see
//! `faultlens-confine`) and never starts a process: building and running
//! the tests is `faultlens-pipeline`'s job, so the diagnosis and test
//! generation, which need the project but not the runner, depend on this
//! crate alone.

pub mod build_dirs;
pub mod cmake_lists;
pub mod compilations;
pub mod config;
pub mod declared;
pub mod detect;
pub mod devruns;
pub mod error;
pub mod files;
pub mod frameworks;
pub mod generated;
pub mod lock;
pub mod meson;
pub mod nondet;
pub mod project;
pub mod store;
pub mod testspec;

pub use error::WorkspaceError;
pub use project::Project;
