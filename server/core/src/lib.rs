//! faultlens-core: the pure analyses. No I/O, no processes, no async: every
//! function here is deterministic given its arguments, which is what lets the
//! CLI, the language server and the benchmarks share it.

pub mod bitset;
pub mod diagnosis;
pub mod eval;
pub mod fusion;
pub mod measures;
pub mod ranking;
pub mod results;
pub mod shards;
pub mod sources;
pub mod spectra;
