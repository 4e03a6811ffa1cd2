//! Spectrum-based suspiciousness measures: one table, one function each.
//!
//! Conventions, applied everywhere: a ratio whose numerator and denominator
//! are both 0 is 0 (a line no test ran is not suspicious); a positive
//! numerator over a zero denominator is +inf (DStar and Kulczynski1 on a line
//! that only failing tests ran). Scores are never NaN.

use crate::spectra::Counts;

/// A measure as the user names it. Parameterised measures carry their
/// parameter: `dstar` is DStar with exponent 2, `dstar3` with 3; `opt` is the
/// single-fault-optimal transform of Ochiai, `opt-jaccard` of Jaccard.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Measure {
    Tarantula,
    Ochiai,
    Jaccard,
    DStar(u32),
    Naish1,
    Op2,
    Kulczynski1,
    Kulczynski2,
    Barinel,
    Sbi,
    Opt(BoundedBase),
    Wong1,
    Wong2,
    Wong3,
    Zoltar,
    Gp13,
    Ample,
    RussellRao,
    SorensenDice,
    Anderberg,
    M2,
    /// Not a spectrum formula: BlockRank scores come from edge profiles and
    /// are computed elsewhere; listed here so every front end names it the
    /// same way.
    BlockRank,
    /// Not a spectrum formula either: Ochiai plus the formula evidence of
    /// the stored diagnosis (see `fusion.rs`).
    Fusion,
}

/// Measures whose scores lie in [0, 1], usable as the `w` of `Opt_w`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundedBase {
    Ochiai,
    Tarantula,
    Jaccard,
    Kulczynski2,
    Barinel,
    Sbi,
    SorensenDice,
}

pub struct MeasureInfo {
    pub name: &'static str,
    pub formula: &'static str,
    pub summary: &'static str,
}

/// Every measure with a fixed name, in the order documentation lists them.
pub const ALL: &[Measure] = &[
    Measure::Ochiai,
    Measure::Tarantula,
    Measure::Jaccard,
    Measure::DStar(2),
    Measure::Naish1,
    Measure::Op2,
    Measure::Kulczynski1,
    Measure::Kulczynski2,
    Measure::Barinel,
    Measure::Sbi,
    Measure::Opt(BoundedBase::Ochiai),
    Measure::Wong1,
    Measure::Wong2,
    Measure::Wong3,
    Measure::Zoltar,
    Measure::Gp13,
    Measure::Ample,
    Measure::RussellRao,
    Measure::SorensenDice,
    Measure::Anderberg,
    Measure::M2,
];

/// Spectrum measures plus BlockRank and fusion: what `--measure` accepts by fixed name.
pub fn all_names() -> Vec<String> {
    ALL.iter()
        .map(|m| m.name())
        .chain([Measure::BlockRank.name(), Measure::Fusion.name()])
        .collect()
}

impl BoundedBase {
    const NAMES: &'static [(&'static str, BoundedBase)] = &[
        ("ochiai", BoundedBase::Ochiai),
        ("tarantula", BoundedBase::Tarantula),
        ("jaccard", BoundedBase::Jaccard),
        ("kulczynski2", BoundedBase::Kulczynski2),
        ("barinel", BoundedBase::Barinel),
        ("sbi", BoundedBase::Sbi),
        ("sorensen-dice", BoundedBase::SorensenDice),
    ];

    fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, b)| *b == self).unwrap().0
    }

    fn measure(self) -> Measure {
        match self {
            BoundedBase::Ochiai => Measure::Ochiai,
            BoundedBase::Tarantula => Measure::Tarantula,
            BoundedBase::Jaccard => Measure::Jaccard,
            BoundedBase::Kulczynski2 => Measure::Kulczynski2,
            BoundedBase::Barinel => Measure::Barinel,
            BoundedBase::Sbi => Measure::Sbi,
            BoundedBase::SorensenDice => Measure::SorensenDice,
        }
    }
}

impl Measure {
    /// Parses a user-supplied name, case-insensitively, accepting common aliases.
    pub fn parse(name: &str) -> Result<Measure, String> {
        let n = name.trim().to_ascii_lowercase().replace('_', "-");
        let simple = match n.as_str() {
            "tarantula" => Some(Measure::Tarantula),
            "ochiai" => Some(Measure::Ochiai),
            "jaccard" => Some(Measure::Jaccard),
            "dstar" | "d*" => Some(Measure::DStar(2)),
            "naish1" | "naish-1" => Some(Measure::Naish1),
            "op2" | "naish2" | "naish-2" | "naish-i" => Some(Measure::Op2),
            "kulczynski1" => Some(Measure::Kulczynski1),
            "kulczynski2" => Some(Measure::Kulczynski2),
            "barinel" => Some(Measure::Barinel),
            "sbi" => Some(Measure::Sbi),
            "opt" => Some(Measure::Opt(BoundedBase::Ochiai)),
            "wong1" => Some(Measure::Wong1),
            "wong2" => Some(Measure::Wong2),
            "wong3" => Some(Measure::Wong3),
            "zoltar" => Some(Measure::Zoltar),
            "gp13" => Some(Measure::Gp13),
            "ample" => Some(Measure::Ample),
            "russell-rao" | "russellrao" => Some(Measure::RussellRao),
            "sorensen-dice" | "sorensendice" | "dice" => Some(Measure::SorensenDice),
            "anderberg" => Some(Measure::Anderberg),
            "m2" => Some(Measure::M2),
            "blockrank" => Some(Measure::BlockRank),
            "fusion" => Some(Measure::Fusion),
            _ => None,
        };
        if let Some(m) = simple {
            return Ok(m);
        }
        if let Some(exp) = n.strip_prefix("dstar") {
            if let Ok(e) = exp.parse::<u32>() {
                if (1..=10).contains(&e) {
                    return Ok(Measure::DStar(e));
                }
            }
        }
        if let Some(base) = n.strip_prefix("opt-") {
            if let Some((_, b)) = BoundedBase::NAMES.iter().find(|(bn, _)| *bn == base) {
                return Ok(Measure::Opt(*b));
            }
        }
        Err(format!(
            "unknown measure {name:?}; known measures: {} (also dstarN for N in 1..=10, opt-<ochiai|tarantula|jaccard|kulczynski2|barinel|sbi|sorensen-dice>)",
            all_names().join(", ")
        ))
    }

    /// The canonical name, which `parse` accepts.
    pub fn name(&self) -> String {
        match self {
            Measure::DStar(2) => "dstar".into(),
            Measure::DStar(e) => format!("dstar{e}"),
            Measure::Opt(BoundedBase::Ochiai) => "opt".into(),
            Measure::Opt(b) => format!("opt-{}", b.name()),
            other => other.info().name.into(),
        }
    }

    /// A display name for messages ("Ochiai", "DStar").
    pub fn title(&self) -> String {
        match self {
            Measure::DStar(2) => "DStar".into(),
            Measure::DStar(e) => format!("DStar{e}"),
            Measure::Opt(BoundedBase::Ochiai) => "Opt".into(),
            Measure::Opt(b) => format!("Opt({})", b.measure().title()),
            Measure::Tarantula => "Tarantula".into(),
            Measure::Ochiai => "Ochiai".into(),
            Measure::Jaccard => "Jaccard".into(),
            Measure::Naish1 => "Naish1".into(),
            Measure::Op2 => "Op2".into(),
            Measure::Kulczynski1 => "Kulczynski1".into(),
            Measure::Kulczynski2 => "Kulczynski2".into(),
            Measure::Barinel => "Barinel".into(),
            Measure::Sbi => "SBI".into(),
            Measure::Wong1 => "Wong1".into(),
            Measure::Wong2 => "Wong2".into(),
            Measure::Wong3 => "Wong3".into(),
            Measure::Zoltar => "Zoltar".into(),
            Measure::Gp13 => "GP13".into(),
            Measure::Ample => "Ample".into(),
            Measure::RussellRao => "Russell-Rao".into(),
            Measure::SorensenDice => "Sørensen-Dice".into(),
            Measure::Anderberg => "Anderberg".into(),
            Measure::M2 => "M2".into(),
            Measure::BlockRank => "BlockRank".into(),
            Measure::Fusion => "Fusion".into(),
        }
    }

    pub fn info(&self) -> MeasureInfo {
        let (name, formula, summary) = match self {
            Measure::Tarantula => ("tarantula", "(ef/F) / (ef/F + ep/P); confidence max(ef/F, ep/P) breaks ties", "Jones & Harrold's visual measure: share of failing runs against share of passing runs."),
            Measure::Ochiai => ("ochiai", "ef / sqrt(F · (ef + ep))", "Cosine similarity between a line's coverage and the failures; the default, strong in studies of C programs."),
            Measure::Jaccard => ("jaccard", "ef / (F + ep)", "Overlap of the line's runs with the failing runs."),
            Measure::DStar(_) => ("dstar", "ef^* / (ep + nf), * = 2 by default; x/0 = +inf", "Wong et al.'s D*: strongly rewards lines run by failing tests."),
            Measure::Naish1 => ("naish1", "-1 if nf > 0, else np", "Naish's optimal measure for single faults: only lines run by every failing test score."),
            Measure::Op2 => ("op2", "ef - ep / (P + 1)", "Naish's Op2 (the sfo paper's Naish-I): single-fault optimal, ties broken by fewer passing runs."),
            Measure::Kulczynski1 => ("kulczynski1", "ef / (nf + ep); x/0 = +inf", "Kulczynski's first coefficient."),
            Measure::Kulczynski2 => ("kulczynski2", "(ef/F + ef/(ef + ep)) / 2", "Kulczynski's second coefficient."),
            Measure::Barinel => ("barinel", "1 - ep / (ef + ep)", "Barinel's spectrum component (Abreu et al.)."),
            Measure::Sbi => ("sbi", "ef / (ef + ep)", "Liblit's statistical bug isolation failure rate."),
            Measure::Opt(_) => ("opt", "np + 2 if ef = F, else w (w = Ochiai unless opt-<w>)", "Single-fault-optimal transform (Landsberg et al.): lines run by all failing tests first, fewer passing runs first, then w."),
            Measure::Wong1 => ("wong1", "ef", "Wong's first measure: how many failing tests ran the line."),
            Measure::Wong2 => ("wong2", "ef - ep", "Wong's second measure."),
            Measure::Wong3 => ("wong3", "ef - h, h = ep (ep ≤ 2), 2 + 0.1(ep - 2) (ep ≤ 10), 2.8 + 0.001(ep - 10)", "Wong's third measure: passing runs weigh less and less."),
            Measure::Zoltar => ("zoltar", "ef / (F + ep + 10000 · nf · ep / ef)", "Zoltar (Gonzalez)."),
            Measure::Gp13 => ("gp13", "ef · (1 + 1 / (2ep + ef))", "Found by genetic programming (Yoo); single-fault optimal."),
            Measure::Ample => ("ample", "|ef/F - ep/P|", "AMPLE (Dallmeier et al.)."),
            Measure::RussellRao => ("russell-rao", "ef / (F + P)", "Russell and Rao."),
            Measure::SorensenDice => ("sorensen-dice", "2ef / (2ef + ep + nf)", "Sørensen-Dice coefficient."),
            Measure::Anderberg => ("anderberg", "ef / (ef + 2(ep + nf))", "Anderberg."),
            Measure::M2 => ("m2", "ef / (ef + np + 2(nf + ep))", "M2 (Everitt)."),
            Measure::BlockRank => ("blockrank", "propagated failure correlation of edge profiles along the control-flow graph", "BlockRank: ranks basic blocks by how failing runs' branch frequencies differ from passing runs', robust to coincidental correctness and crashes."),
            Measure::Fusion => ("fusion", "Ochiai + cores(l)/C + diagnoses(l)/D from the stored diagnosis (C failing tests with a core, D diagnoses)", "Spectrum plus formula evidence: lines in the failing tests' unsatisfiable cores and in the diagnoses of `faultlens diagnose` (SAT-TAR's idea); needs a stored diagnosis."),
        };
        MeasureInfo {
            name,
            formula,
            summary,
        }
    }

    /// True when scores come from [`Measure::score`] (all but BlockRank and fusion).
    pub fn is_spectrum(&self) -> bool {
        !matches!(self, Measure::BlockRank | Measure::Fusion)
    }

    /// The score of one component. BlockRank and fusion have no spectrum
    /// formula and score 0 here; their scores come from their own analyses.
    pub fn score(&self, c: &Counts) -> f64 {
        let ef = c.ef as f64;
        let ep = c.ep as f64;
        let nf = c.nf as f64;
        let np = c.np as f64;
        let f = ef + nf;
        let p = ep + np;
        match self {
            Measure::Tarantula => {
                let fr = ratio(ef, f);
                let pr = ratio(ep, p);
                ratio(fr, fr + pr)
            }
            Measure::Ochiai => ratio(ef, (f * (ef + ep)).sqrt()),
            Measure::Jaccard => ratio(ef, f + ep),
            Measure::DStar(e) => ratio_inf(ef.powi(*e as i32), ep + nf),
            Measure::Naish1 => {
                if nf > 0.0 {
                    -1.0
                } else {
                    np
                }
            }
            Measure::Op2 => ef - ep / (p + 1.0),
            Measure::Kulczynski1 => ratio_inf(ef, nf + ep),
            Measure::Kulczynski2 => (ratio(ef, f) + ratio(ef, ef + ep)) / 2.0,
            Measure::Barinel => {
                if ef + ep == 0.0 {
                    0.0
                } else {
                    1.0 - ep / (ef + ep)
                }
            }
            Measure::Sbi => ratio(ef, ef + ep),
            Measure::Opt(base) => {
                if c.ef == c.failed() && c.ef > 0 {
                    np + 2.0
                } else {
                    base.measure().score(c)
                }
            }
            Measure::Wong1 => ef,
            Measure::Wong2 => ef - ep,
            Measure::Wong3 => {
                let h = if ep <= 2.0 {
                    ep
                } else if ep <= 10.0 {
                    2.0 + 0.1 * (ep - 2.0)
                } else {
                    2.8 + 0.001 * (ep - 10.0)
                };
                ef - h
            }
            Measure::Zoltar => {
                if ef == 0.0 {
                    0.0
                } else {
                    ef / (f + ep + 10000.0 * nf * ep / ef)
                }
            }
            Measure::Gp13 => ef * (1.0 + ratio(1.0, 2.0 * ep + ef)),
            Measure::Ample => (ratio(ef, f) - ratio(ep, p)).abs(),
            Measure::RussellRao => ratio(ef, f + p),
            Measure::SorensenDice => ratio(2.0 * ef, 2.0 * ef + ep + nf),
            Measure::Anderberg => ratio(ef, ef + 2.0 * (ep + nf)),
            Measure::M2 => ratio(ef, ef + np + 2.0 * (nf + ep)),
            Measure::BlockRank | Measure::Fusion => 0.0,
        }
    }

    /// A secondary key that breaks ties of the primary score, where the
    /// measure defines one: Tarantula's confidence `max(ef/F, ep/P)`.
    pub fn confidence(&self, c: &Counts) -> Option<f64> {
        match self {
            Measure::Tarantula => Some(
                ratio(c.ef as f64, c.failed() as f64).max(ratio(c.ep as f64, c.passed() as f64)),
            ),
            _ => None,
        }
    }
}

/// `n / d` with `0/0 = 0` (and `n/0 = 0` too, which only arises from 0/0 here).
fn ratio(n: f64, d: f64) -> f64 {
    if d == 0.0 {
        0.0
    } else {
        n / d
    }
}

/// `n / d` with `0/0 = 0` and `n/0 = +inf` for `n > 0`.
fn ratio_inf(n: f64, d: f64) -> f64 {
    if d == 0.0 {
        if n > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    } else {
        n / d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sfo paper's minmax example: spectra ⟨ef, nf, ep, np⟩ of C1..C5.
    const MINMAX: [(u32, u32, u32, u32); 5] = [
        (3, 0, 7, 0),
        (0, 3, 3, 4),
        (1, 2, 2, 5),
        (3, 0, 1, 6),
        (1, 2, 3, 4),
    ];

    fn minmax() -> Vec<Counts> {
        MINMAX
            .iter()
            .map(|&(ef, nf, ep, np)| Counts::new(ef, nf, ep, np))
            .collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn op2_reproduces_the_sfo_papers_minmax_numbers() {
        let scores: Vec<f64> = minmax().iter().map(|c| Measure::Op2.score(c)).collect();
        let expected = [2.125, -0.375, 0.75, 2.875, 0.625];
        for (s, e) in scores.iter().zip(expected) {
            assert!(close(*s, e), "{scores:?}");
        }
    }

    #[test]
    fn hand_computed_values_on_one_spectrum() {
        // ef=3, nf=1, ep=2, np=6: F=4, P=8.
        let c = Counts::new(3, 1, 2, 6);
        let cases: &[(Measure, f64)] = &[
            (Measure::Tarantula, 0.75 / (0.75 + 0.25)),
            (Measure::Ochiai, 3.0 / (4.0f64 * 5.0).sqrt()),
            (Measure::Jaccard, 3.0 / 6.0),
            (Measure::DStar(2), 9.0 / 3.0),
            (Measure::DStar(3), 27.0 / 3.0),
            (Measure::Naish1, -1.0),
            (Measure::Op2, 3.0 - 2.0 / 9.0),
            (Measure::Kulczynski1, 3.0 / 3.0),
            (Measure::Kulczynski2, (0.75 + 0.6) / 2.0),
            (Measure::Barinel, 1.0 - 2.0 / 5.0),
            (Measure::Sbi, 3.0 / 5.0),
            (Measure::Opt(BoundedBase::Ochiai), 3.0 / 20.0f64.sqrt()),
            (Measure::Wong1, 3.0),
            (Measure::Wong2, 1.0),
            (Measure::Wong3, 1.0),
            (Measure::Zoltar, 3.0 / (4.0 + 2.0 + 10000.0 * 2.0 / 3.0)),
            (Measure::Gp13, 3.0 * (1.0 + 1.0 / 7.0)),
            (Measure::Ample, 0.5),
            (Measure::RussellRao, 3.0 / 12.0),
            (Measure::SorensenDice, 6.0 / 9.0),
            (Measure::Anderberg, 3.0 / 9.0),
            (Measure::M2, 3.0 / (3.0 + 6.0 + 6.0)),
        ];
        for (m, expected) in cases {
            let got = m.score(&c);
            assert!(
                close(got, *expected),
                "{}: got {got}, expected {expected}",
                m.name()
            );
        }
        assert!(close(Measure::Tarantula.confidence(&c).unwrap(), 0.75));
    }

    #[test]
    fn zero_denominators_follow_the_stated_convention() {
        let never_run = Counts::new(0, 2, 0, 3);
        for m in ALL {
            let s = m.score(&never_run);
            assert!(!s.is_nan(), "{} is NaN on a line no test ran", m.name());
        }
        let only_failing = Counts::new(2, 0, 0, 3);
        assert_eq!(Measure::DStar(2).score(&only_failing), f64::INFINITY);
        assert_eq!(Measure::Kulczynski1.score(&only_failing), f64::INFINITY);
        assert_eq!(Measure::Opt(BoundedBase::Ochiai).score(&only_failing), 5.0);
        // No tests at all.
        let empty = Counts::default();
        for m in ALL {
            assert!(!m.score(&empty).is_nan(), "{}", m.name());
        }
    }

    #[test]
    fn every_name_parses_back_to_its_measure() {
        for m in ALL {
            assert_eq!(Measure::parse(&m.name()).unwrap(), *m);
        }
        assert_eq!(Measure::parse("DStar3").unwrap(), Measure::DStar(3));
        assert_eq!(Measure::parse("naish-i").unwrap(), Measure::Op2);
        assert_eq!(
            Measure::parse("opt-tarantula").unwrap(),
            Measure::Opt(BoundedBase::Tarantula)
        );
        let err = Measure::parse("ochia").unwrap_err();
        assert!(
            err.contains("unknown measure") && err.contains("ochiai"),
            "{err}"
        );
        assert!(ALL.len() >= 12);
    }
}

#[cfg(test)]
mod single_fault_optimality {
    use super::*;
    use proptest::prelude::*;

    /// Two spectra from the same test suite (same F and P).
    fn pair() -> impl Strategy<Value = (Counts, Counts)> {
        (1u32..20, 0u32..30).prop_flat_map(|(f, p)| {
            let one = (0..=f, 0..=p).prop_map(move |(ef, ep)| Counts::new(ef, f - ef, ep, p - ep));
            (one.clone(), one)
        })
    }

    proptest! {
        /// Naish et al.'s conditions: a line run by every failing test
        /// outranks any line that is not; among lines run by every failing
        /// test, fewer passing runs rank higher.
        #[test]
        fn opt_op2_and_naish1_are_single_fault_optimal((a, b) in pair()) {
            for m in [Measure::Opt(BoundedBase::Ochiai), Measure::Opt(BoundedBase::Tarantula), Measure::Op2, Measure::Naish1] {
                let all_failing = |c: &Counts| c.ef == c.failed();
                if all_failing(&a) && !all_failing(&b) {
                    prop_assert!(m.score(&a) > m.score(&b), "{}: {a:?} vs {b:?}", m.name());
                }
                if all_failing(&a) && all_failing(&b) && a.ep < b.ep {
                    prop_assert!(m.score(&a) > m.score(&b), "{}: {a:?} vs {b:?}", m.name());
                }
            }
        }

        #[test]
        fn no_measure_is_ever_nan((a, _) in pair()) {
            for m in ALL {
                prop_assert!(!m.score(&a).is_nan(), "{} on {a:?}", m.name());
            }
        }
    }
}
