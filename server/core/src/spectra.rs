//! Spectra: for every component (an executable source line), how many failing
//! and passing tests executed it.

use crate::bitset::BitSet;
use crate::results::{RunResults, Verdict};
use std::collections::HashMap;

/// One rankable unit: an executable line of a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Component {
    /// Index into `RunResults::files`.
    pub file: u32,
    pub line: u32,
}

/// The four spectrum counts of one component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Failing tests that executed the component.
    pub ef: u32,
    /// Passing tests that executed it.
    pub ep: u32,
    /// Failing tests that did not.
    pub nf: u32,
    /// Passing tests that did not.
    pub np: u32,
}

impl Counts {
    pub fn new(ef: u32, nf: u32, ep: u32, np: u32) -> Counts {
        Counts { ef, ep, nf, np }
    }
    /// Total failing tests, `F = ef + nf`.
    pub fn failed(&self) -> u32 {
        self.ef + self.nf
    }
    /// Total passing tests, `P = ep + np`.
    pub fn passed(&self) -> u32 {
        self.ep + self.np
    }
}

/// A coverage matrix: one row per test (its verdict and the set of
/// components it executed). The generic input to spectrum computation, also
/// used directly by benchmarks and by test generation.
#[derive(Debug, Clone)]
pub struct CoverageMatrix {
    pub components: usize,
    pub rows: Vec<(Verdict, BitSet)>,
}

impl CoverageMatrix {
    pub fn new(components: usize) -> CoverageMatrix {
        CoverageMatrix {
            components,
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, verdict: Verdict, covered: BitSet) {
        debug_assert_eq!(covered.len(), self.components);
        self.rows.push((verdict, covered));
    }

    /// The spectrum counts of every component.
    pub fn counts(&self) -> Vec<Counts> {
        let mut ef = vec![0u32; self.components];
        let mut ep = vec![0u32; self.components];
        let (mut failed, mut passed) = (0u32, 0u32);
        for (verdict, covered) in &self.rows {
            let target = match verdict {
                Verdict::Fail => {
                    failed += 1;
                    &mut ef
                }
                Verdict::Pass => {
                    passed += 1;
                    &mut ep
                }
            };
            for i in covered.ones() {
                target[i] += 1;
            }
        }
        (0..self.components)
            .map(|i| Counts {
                ef: ef[i],
                ep: ep[i],
                nf: failed - ef[i],
                np: passed - ep[i],
            })
            .collect()
    }
}

/// Spectra of a run: the components in a stable order and their counts.
#[derive(Debug, Clone)]
pub struct Spectra {
    pub components: Vec<Component>,
    pub counts: Vec<Counts>,
    pub matrix: CoverageMatrix,
    pub failed: u32,
    pub passed: u32,
}

impl Spectra {
    /// Builds spectra over the executable lines of `results`. Lines of test
    /// code are left out unless `include_test_code` is set.
    pub fn from_results(results: &RunResults, include_test_code: bool) -> Spectra {
        let mut components = Vec::new();
        for (file_index, file) in results.files.iter().enumerate() {
            if file.test_code && !include_test_code {
                continue;
            }
            for &line in &file.lines {
                components.push(Component {
                    file: file_index as u32,
                    line,
                });
            }
        }
        components.sort();
        components.dedup();
        let index: HashMap<Component, usize> = components
            .iter()
            .enumerate()
            .map(|(i, c)| (*c, i))
            .collect();

        let mut matrix = CoverageMatrix::new(components.len());
        for test in &results.tests {
            let mut covered = BitSet::new(components.len());
            for cov in &test.coverage {
                for (&line, &count) in cov.lines.iter().zip(&cov.counts) {
                    if count == 0 {
                        continue;
                    }
                    if let Some(&i) = index.get(&Component {
                        file: cov.file,
                        line,
                    }) {
                        covered.insert(i);
                    }
                }
            }
            matrix.push(test.verdict, covered);
        }
        Spectra::from_matrix(components, matrix)
    }

    pub fn from_matrix(components: Vec<Component>, matrix: CoverageMatrix) -> Spectra {
        let counts = matrix.counts();
        let failed = matrix
            .rows
            .iter()
            .filter(|(v, _)| *v == Verdict::Fail)
            .count() as u32;
        let passed = matrix.rows.len() as u32 - failed;
        Spectra {
            components,
            counts,
            matrix,
            failed,
            passed,
        }
    }

    /// Indices (into the results' tests) of the tests that executed component `i`.
    pub fn tests_covering(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.matrix
            .rows
            .iter()
            .enumerate()
            .filter(move |(_, (_, covered))| covered.contains(i))
            .map(|(t, _)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_matrix() {
        // Three components; two failing tests, one passing.
        let mut m = CoverageMatrix::new(3);
        m.push(Verdict::Fail, BitSet::from_indices(3, &[0, 1]));
        m.push(Verdict::Fail, BitSet::from_indices(3, &[0]));
        m.push(Verdict::Pass, BitSet::from_indices(3, &[0, 2]));
        let counts = m.counts();
        assert_eq!(counts[0], Counts::new(2, 0, 1, 0));
        assert_eq!(counts[1], Counts::new(1, 1, 0, 1));
        assert_eq!(counts[2], Counts::new(0, 2, 1, 0));
    }
}
