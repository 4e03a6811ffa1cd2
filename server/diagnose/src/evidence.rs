//! Per-line formula evidence: in how many failing tests' minimal cores and
//! in how many reported diagnoses a line appears (the `fusion` measure's input).

use faultlens_core::diagnosis::{Diagnosis, LineEvidence, TestCore};
use std::collections::{BTreeMap, BTreeSet};

pub fn line_evidence(diagnoses: &[Diagnosis], cores: &[TestCore]) -> Vec<LineEvidence> {
    let mut counts: BTreeMap<(String, u32), (u32, u32)> = BTreeMap::new();
    for core in cores {
        let lines: BTreeSet<(String, u32)> = core
            .statements
            .iter()
            .map(|s| (s.file.clone(), s.line))
            .collect();
        for key in lines {
            counts.entry(key).or_default().0 += 1;
        }
    }
    for d in diagnoses {
        let lines: BTreeSet<(String, u32)> = d
            .statements
            .iter()
            .map(|s| (s.file.clone(), s.line))
            .collect();
        for key in lines {
            counts.entry(key).or_default().1 += 1;
        }
    }
    counts
        .into_iter()
        .map(|((file, line), (in_cores, in_diagnoses))| LineEvidence {
            file,
            line,
            in_cores,
            in_diagnoses,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use faultlens_core::diagnosis::DiagnosedStatement;

    fn st(line: u32) -> DiagnosedStatement {
        DiagnosedStatement {
            file: "a.c".into(),
            line,
            ..Default::default()
        }
    }

    #[test]
    fn counts_each_core_and_diagnosis_once_per_line() {
        let cores = vec![
            TestCore {
                test: "t1".into(),
                statements: vec![st(3), st(3), st(5)],
                minimal: true,
            },
            TestCore {
                test: "t2".into(),
                statements: vec![st(5)],
                minimal: true,
            },
        ];
        let diagnoses = vec![Diagnosis {
            statements: vec![st(5)],
            ..Default::default()
        }];
        let ev = line_evidence(&diagnoses, &cores);
        assert_eq!(ev.len(), 2);
        assert_eq!((ev[0].line, ev[0].in_cores, ev[0].in_diagnoses), (3, 1, 0));
        assert_eq!((ev[1].line, ev[1].in_cores, ev[1].in_diagnoses), (5, 2, 1));
    }
}
