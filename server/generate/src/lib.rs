//! faultlens-generate: tests that sharpen the ranking.
//!
//! A harness draws its inputs with `__VERIFIER_nondet_*()` and states its
//! specification with `assert`. The strategies ([`strategy`]) decide which
//! runs to add: single-fault-optimal failing runs (sfo), then passing runs
//! with new coverage (sfo_p), or SAT-TAR rounds guided by an unsatisfiable
//! core. The [`explore`] module finds runs with wanted properties in the C
//! model; [`tests_file`] writes them as ordinary input/output tests that the
//! pipeline runs on the real binary.

pub mod domain;
pub mod explore;
pub mod model;
pub mod predict;
pub mod run;
pub mod session;
pub mod solver;
pub mod strategy;
pub mod tests_file;

pub use explore::{Bounds, Enumerator, Explorer, Query, Stats};
pub use run::{Coverage, Harness, Line, Run, Step, Verdict};
pub use strategy::Strategy;
