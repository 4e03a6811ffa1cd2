//! faultlens-report: what a person or a tool reads. One [`Analysis`] (a
//! ranking of a run under one measure) rendered as the terminal table, the
//! JSON ranking document (also served by the language server) or SARIF.

pub mod analysis;
pub mod diagnosis;
pub mod json;
pub mod message;
pub mod sarif;
pub mod table;

pub use analysis::{Analysis, AnalysisError};
