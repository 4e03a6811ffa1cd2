//! Parsing C with tree-sitter-c under a time budget: the one parse of the
//! control-flow graphs and of the C model's front end.
//!
//! tree-sitter's error recovery slows down sharply on deeply nested code
//! with a syntax error in it (a 1.3 KB file of 200 nested calls after a
//! broken `typedef` took 0.9 s; at 800 levels, 18–26 s), and the nesting
//! check runs on the tree, after the parse. A source may come from a
//! hostile repository, so the parse stops at a budget that grows with the
//! file's size and far exceeds what real code needs.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use tree_sitter::{ParseOptions, Parser, Tree};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("tree-sitter-c could not be loaded ({0}); the tree-sitter and tree-sitter-c versions do not match")]
    Language(String),
    #[error("parsing it took longer than {} s, and faultlens gave up (tree-sitter's error recovery slows down on deeply nested code with a syntax error; fix the syntax error or the nesting)", .0.as_secs())]
    TooSlow(Duration),
    #[error("tree-sitter could not parse the source")]
    NoTree,
}

/// The budget of a parse of `bytes` bytes: 2 s, and 10 s more per MiB
/// (tree-sitter parses real C at several MiB a second).
pub fn budget_for(bytes: usize) -> Duration {
    Duration::from_secs(2) + Duration::from_secs_f64(10.0 * bytes as f64 / (1 << 20) as f64)
}

/// Parses `source` as C within [`budget_for`] its size.
pub fn parse_c(source: &str) -> Result<Tree, ParseError> {
    parse_c_within(source, budget_for(source.len()))
}

/// Parses `source` as C, giving up after `budget`.
pub fn parse_c_within(source: &str, budget: Duration) -> Result<Tree, ParseError> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_c::LANGUAGE.into())
        .map_err(|e| ParseError::Language(e.to_string()))?;
    let bytes = source.as_bytes();
    let deadline = Instant::now() + budget;
    let mut out_of_time = false;
    let mut progress = |_: &tree_sitter::ParseState| {
        if Instant::now() > deadline {
            out_of_time = true;
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(
        &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
        None,
        Some(options),
    );
    match tree {
        Some(tree) => Ok(tree),
        None if out_of_time => Err(ParseError::TooSlow(budget)),
        None => Err(ParseError::NoTree),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A broken declaration before calls nested `depth` deep: the shape
    /// fuzzing found to slow error recovery down.
    fn slow(depth: usize) -> String {
        format!(
            "typedef long unsi#ned int size f({}x{});\n",
            "f(".repeat(depth),
            ")".repeat(depth)
        )
    }

    #[test]
    fn ordinary_code_parses() {
        let tree = parse_c("int main(void) { return 0; }\n").unwrap();
        assert_eq!(tree.root_node().kind(), "translation_unit");
        assert!(budget_for(1 << 20) >= Duration::from_secs(12));
    }

    #[test]
    fn a_parse_past_its_budget_stops_there() {
        let started = Instant::now();
        let err = parse_c_within(&slow(800), Duration::from_millis(300)).unwrap_err();
        assert_eq!(err, ParseError::TooSlow(Duration::from_millis(300)));
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert!(err.to_string().contains("syntax error"));
    }
}
