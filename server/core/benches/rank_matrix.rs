//! Time to turn a synthetic 10,000-test × 20,000-line coverage matrix into
//! spectra, and to rank it under every measure. Prints medians.

use faultlens_core::bitset::BitSet;
use faultlens_core::measures::ALL;
use faultlens_core::ranking::rank_counts;
use faultlens_core::results::Verdict;
use faultlens_core::spectra::CoverageMatrix;
use std::time::{Duration, Instant};

const TESTS: usize = 10_000;
const LINES: usize = 20_000;
const REPEATS: usize = 5;

/// A deterministic pseudo-random generator (xorshift), so every run
/// measures the same matrix.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn matrix() -> CoverageMatrix {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut m = CoverageMatrix::new(LINES);
    for t in 0..TESTS {
        let mut covered = BitSet::new(LINES);
        // Each test runs about 30% of the lines, in runs like real code.
        let mut line = 0;
        while line < LINES {
            let run = (rng.next() % 40) as usize + 1;
            if rng.next() % 10 < 3 {
                for l in line..(line + run).min(LINES) {
                    covered.insert(l);
                }
            }
            line += run;
        }
        let verdict = if t % 50 == 0 {
            Verdict::Fail
        } else {
            Verdict::Pass
        };
        m.push(verdict, covered);
    }
    m
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let m = matrix();
    let ones: usize = m.rows.iter().map(|(_, r)| r.count()).sum();
    println!(
        "matrix: {TESTS} tests × {LINES} lines, {:.1}% covered",
        100.0 * ones as f64 / (TESTS * LINES) as f64
    );

    let mut counts = Vec::new();
    let spectra_time = median(
        (0..REPEATS)
            .map(|_| {
                let start = Instant::now();
                counts = m.counts();
                start.elapsed()
            })
            .collect(),
    );
    println!(
        "spectra (ef/ep/nf/np of every line): median {:.1} ms",
        spectra_time.as_secs_f64() * 1e3
    );

    let mut total = Duration::ZERO;
    for measure in ALL {
        let t = median(
            (0..REPEATS)
                .map(|_| {
                    let start = Instant::now();
                    let ranking = rank_counts(*measure, &counts);
                    std::hint::black_box(&ranking);
                    start.elapsed()
                })
                .collect(),
        );
        total += t;
        println!(
            "rank under {:<14} median {:>6.2} ms",
            measure.name(),
            t.as_secs_f64() * 1e3
        );
    }
    println!(
        "all {} measures: {:.1} ms (sum of medians)",
        ALL.len(),
        total.as_secs_f64() * 1e3
    );
}
