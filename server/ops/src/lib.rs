//! faultlens-ops: the operations faultlens offers, written once for both
//! front doors. The CLI and the language server differ in how they show
//! progress, where they run the work (the caller's thread, a blocking
//! task) and how they report the outcome; what an operation reads, checks
//! and stores is here, so the two cannot drift apart.
//!
//! - [`localize`]: build, run the tests, store the results.
//! - [`diagnose`]: start from fresh results (or say why they are not),
//!   diagnose, store the diagnosis.
//! - [`rank`]: rank stored results under any ranker, with what that ranker
//!   reads (the sources for BlockRank, the diagnosis for fusion).
//! - [`first_ranking`]: a developer's failing tests ranked with the previous
//!   results that still hold, while the full run goes on.
//! - [`agreement`]: whether faultlens's run agrees with the developer's own.
//!
//! Test generation is one call already
//! (`faultlens_generate::session::generate_project`).
//!
//! It does I/O through `faultlens-workspace` and starts processes through
//! `faultlens-pipeline`; it is never async.

pub mod agreement;
pub mod diagnose;
pub mod first_ranking;
pub mod localize;
pub mod rank;
