//! Control-flow graphs of C functions (from tree-sitter-c) and per-test edge
//! profiles derived from gcov's line and branch counts (or clang's, put in
//! the same form by [`clang`]).

pub mod build;
pub mod clang;
pub mod graph;
pub mod nesting;
pub mod parse;
pub mod profile;
mod syntax;

pub use build::{build_cfgs, build_file, FileCfgs, TooDeepFunction};
pub use graph::{Block, Decision, DecisionKind, Edge, EdgeKind, FunctionCfg, Piece, ENTRY, EXIT};
pub use profile::{
    edge_profiles, evidence_lines, plan, profile_file, stopped_calls, CoverageView, EdgeProfile,
    FunctionPlan,
};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CfgError {
    #[error("{0}")]
    Parse(#[from] crate::parse::ParseError),
    #[error("could not start a thread to build the control-flow graphs ({0}); the system is out of threads or memory")]
    Thread(String),
}
