//! BlockRank: fault localization by propagating the difference between the
//! mean edge profiles of failing and passing tests along control-flow graphs.

pub mod algorithm;

pub use algorithm::{rank, rank_sums, BlockRankError, BlockScores, Graph, ProfileSums};
