//! faultlens-fuzz: fuzz targets for every path by which outside bytes reach
//! faultlens, a seeded deterministic driver that CI runs for a bounded number
//! of inputs, and a campaign runner for long runs (`src/main.rs`).
//!
//! Each target (in `targets/`) is a function of the input's bytes that
//! panics on a failure (a panic anywhere in the code under test, or a broken
//! property the target checks) and otherwise returns a short *signature* of
//! what happened: features, one a line (which error, which outcome). The
//! driver keeps an input that shows a feature it has not seen before as a
//! new corpus entry: a cheap
//! stand-in for coverage feedback that works on stable Rust without
//! instrumentation. Each target also generates structured inputs of its own
//! (mutated real configuration files, JSON documents, C programs with deep
//! nesting and long expressions, LSP sessions).
//!
//! The README's "Fuzzing" section says how to run a campaign.

pub mod driver;
pub mod mutate;
pub mod rng;
pub mod targets;

use std::path::PathBuf;
use std::time::Duration;

pub use rng::Rng;

/// One fuzz target.
pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    /// Runs one input; panics on a failure; returns the outcome's
    /// signature: features, one a line (which error, which outcome).
    pub run: fn(&[u8]) -> String,
    /// A structured input, from the random stream and the corpus so far.
    pub generate: fn(&mut Rng, &[Vec<u8>]) -> Vec<u8>,
    /// Tokens the mutator inserts.
    pub dictionary: &'static [&'static [u8]],
    /// Inputs are cut to this many bytes.
    pub max_len: usize,
    /// An input that runs longer than this (in a release build) is a hang.
    pub hang_limit: Duration,
    /// Inputs of the deterministic pass `cargo test -p faultlens-fuzz` runs.
    pub ci_inputs: u64,
}

/// Every target, in the order the README lists them.
pub fn targets() -> Vec<Target> {
    vec![
        targets::config::target(),
        targets::table::target(),
        targets::results::target(),
        targets::framing::target(),
        targets::lsp::target(),
        targets::csem::target(),
    ]
}

pub fn target(name: &str) -> Option<Target> {
    targets().into_iter().find(|t| t.name == name)
}

/// The committed seed corpus of a target.
pub fn corpus_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(name)
}

/// Inputs that once failed (each with a regression test in its own crate),
/// replayed by every pass.
pub fn regressions_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("regressions")
        .join(name)
}

/// Files shared by the targets (results of a real run, a C prelude).
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// The files of a directory, sorted by name (empty when it does not exist).
pub fn read_inputs(dir: &std::path::Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|bytes| (p, bytes)))
        .collect()
}

/// A message reduced to its shape: digits and quoted parts dropped (so
/// "line 7: `x`" and "line 9: `y`" share a signature), its first line
/// only, at most 60 bytes.
pub fn shape(message: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut last_digit = false;
    for c in message.lines().next().unwrap_or("").chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '`' || c == '"' => {
                quote = Some(c);
                out.push('_');
            }
            None if c.is_ascii_digit() => {
                if !last_digit {
                    out.push('#');
                }
            }
            None => out.push(c),
        }
        last_digit = c.is_ascii_digit();
        if out.len() >= 60 {
            break;
        }
    }
    out
}

/// FNV-1a: stable names for corpus files across Rust versions.
pub fn fnv(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in data {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_drop_numbers_and_quoted_parts() {
        assert_eq!(shape("line 7: `x`"), shape("line 12: `yy`"));
        assert_eq!(shape("found \"a\\\"b\" at 3"), "found _ at #");
        assert_ne!(shape("line 7: x"), shape("line 7: y"));
        assert!(shape(&"w ".repeat(100)).len() <= 61);
    }

    #[test]
    fn the_same_seed_gives_the_same_inputs() {
        let t = target("table").unwrap();
        let inputs = |seed| {
            let mut rng = Rng::new(seed);
            (0..20)
                .map(|_| (t.generate)(&mut rng, &[b"1 => 2".to_vec()]))
                .collect::<Vec<_>>()
        };
        assert_eq!(inputs(5), inputs(5));
        assert_ne!(inputs(5), inputs(6));
    }

    #[test]
    fn mutations_stay_within_the_length_bound() {
        let mut rng = Rng::new(1);
        for _ in 0..2000 {
            let m = mutate::mutate(&mut rng, &[b'x'; 100], &[b'y'; 300], &[b"tok"], 128);
            assert!(m.len() <= 128);
        }
    }

    #[test]
    fn every_target_has_a_committed_corpus() {
        for t in targets() {
            assert!(
                !read_inputs(&corpus_dir(t.name)).is_empty(),
                "corpus/{} is empty",
                t.name
            );
        }
    }
}
