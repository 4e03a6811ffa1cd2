//! BlockRank: fault localization by propagating the difference between the
//! mean edge profiles of failing and passing tests along control-flow graphs
//! (papers/blockrank-edge-propagation.txt; design.md, "BlockRank").
//!
//! [`algorithm`] is the algorithm on an abstract graph; [`lines`] applies it
//! to a results document and the source texts, giving each executable line
//! a score and the details a hover shows.

pub mod algorithm;
pub mod lines;

pub use algorithm::{rank, rank_sums, BlockRankError, BlockScores, Graph, Method, ProfileSums};
pub use lines::{
    line_scores, BlockDetail, DerivationStats, EdgeDetail, FileScores, LineScores, LineScoresError,
    SkippedFunction,
};
