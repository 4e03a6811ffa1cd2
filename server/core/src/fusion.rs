//! The `fusion` measure: the spectrum score plus formula evidence.
//!
//! SAT-TAR adds 1.0 to a line's Tarantula score when the line is in the
//! failing run's unsatisfiable core. With several failing tests and several
//! diagnoses we add shares instead of a flat bonus:
//!
//! ```text
//! fusion(l) = Ochiai(l) + cores(l) / C + diagnoses(l) / D
//! ```
//!
//! where `cores(l)` is the number of failing tests whose minimal core holds
//! `l`, `C` the number of failing tests with a core, `diagnoses(l)` the
//! number of reported diagnoses holding `l` and `D` the number of reported
//! diagnoses (a share with a zero denominator is 0). Each term lies in
//! [0, 1], so fusion lies in [0, 3]: a line every core and every diagnosis
//! names outranks any line with spectrum evidence alone, and among lines the
//! formulas treat alike the spectrum decides.

use crate::diagnosis::DiagnosisReport;
use crate::measures::Formula;
use crate::spectra::Counts;
use std::collections::HashMap;

/// The formula evidence of one diagnosis run, indexed by line.
#[derive(Debug, Clone, Default)]
pub struct FusionEvidence {
    lines: HashMap<(String, u32), (u32, u32)>,
    cores: u32,
    diagnoses: u32,
}

impl FusionEvidence {
    pub fn from_report(report: &DiagnosisReport) -> FusionEvidence {
        FusionEvidence {
            lines: report
                .evidence
                .iter()
                .map(|e| ((e.file.clone(), e.line), (e.in_cores, e.in_diagnoses)))
                .collect(),
            cores: report.cores.len() as u32,
            diagnoses: report.diagnoses.len() as u32,
        }
    }

    /// The formula part of the score: `cores(l)/C + diagnoses(l)/D`.
    pub fn bonus(&self, file: &str, line: u32) -> f64 {
        let Some(&(c, d)) = self.lines.get(&(file.to_string(), line)) else {
            return 0.0;
        };
        share(c, self.cores) + share(d, self.diagnoses)
    }

    /// The fusion score of a line with spectrum `counts`.
    pub fn score(&self, file: &str, line: u32, counts: &Counts) -> f64 {
        Formula::Ochiai.score(counts) + self.bonus(file, line)
    }
}

fn share(n: u32, total: u32) -> f64 {
    if total == 0 {
        0.0
    } else {
        f64::from(n.min(total)) / f64::from(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::{Diagnosis, LineEvidence, TestCore};

    #[test]
    fn adds_core_and_diagnosis_shares_to_ochiai() {
        let report = DiagnosisReport {
            diagnoses: vec![Diagnosis::default(); 4],
            cores: vec![TestCore::default(); 2],
            evidence: vec![
                LineEvidence {
                    file: "a.c".into(),
                    line: 3,
                    in_cores: 2,
                    in_diagnoses: 1,
                },
                LineEvidence {
                    file: "a.c".into(),
                    line: 9,
                    in_cores: 1,
                    in_diagnoses: 0,
                },
            ],
            ..Default::default()
        };
        let ev = FusionEvidence::from_report(&report);
        let c = Counts::new(2, 0, 2, 6);
        let ochiai = Formula::Ochiai.score(&c);
        assert!((ev.score("a.c", 3, &c) - (ochiai + 1.0 + 0.25)).abs() < 1e-12);
        assert!((ev.score("a.c", 9, &c) - (ochiai + 0.5)).abs() < 1e-12);
        assert_eq!(ev.score("a.c", 4, &c), ochiai);
        assert_eq!(FusionEvidence::default().bonus("a.c", 3), 0.0);
    }
}
