//! Spectrum-based suspiciousness measures: one table, one function each.
//!
//! Conventions, applied everywhere: a ratio whose numerator and denominator
//! are both 0 is 0 (a line no test ran is not suspicious); a positive
//! numerator over a zero denominator is +inf (DStar and Kulczynski1 on a line
//! that only failing tests ran). Scores are never NaN.

use crate::spectra::Counts;

/// A spectrum formula: a line's score from its counts alone.
/// Parameterised formulas carry their parameter: `dstar` is DStar with
/// exponent 2, `dstar3` with 3; `opt` is the single-fault-optimal transform
/// of Ochiai, `opt-jaccard` of Jaccard.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Formula {
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
pub const ALL: &[Formula] = &[
    Formula::Ochiai,
    Formula::Tarantula,
    Formula::Jaccard,
    Formula::DStar(2),
    Formula::Naish1,
    Formula::Op2,
    Formula::Kulczynski1,
    Formula::Kulczynski2,
    Formula::Barinel,
    Formula::Sbi,
    Formula::Opt(BoundedBase::Ochiai),
    Formula::Wong1,
    Formula::Wong2,
    Formula::Wong3,
    Formula::Zoltar,
    Formula::Gp13,
    Formula::Ample,
    Formula::RussellRao,
    Formula::SorensenDice,
    Formula::Anderberg,
    Formula::M2,
];

/// Every ranker with a fixed name: what `--measure` accepts.
pub fn all_names() -> Vec<String> {
    ALL.iter()
        .map(|m| m.name())
        .chain([Ranker::BlockRank.name(), Ranker::FUSION.name()])
        .collect()
}

/// How lines are ranked, as the user names it (`--measure`, the editor's
/// `measure` setting). Only a formula has a per-line score of its own;
/// BlockRank propagates edge profiles over control-flow graphs and fusion
/// orders lines by a diagnosis's evidence, then by a spectrum ranker (its
/// base), each an analysis of its own (`faultlens_report::Analysis::compute`
/// runs all three).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ranker {
    Formula(Formula),
    BlockRank,
    Fusion(FusionBase),
}

/// The spectrum ranker that breaks fusion's ties and ranks the lines no
/// diagnosis reaches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FusionBase {
    Formula(Formula),
    BlockRank,
}

impl FusionBase {
    pub fn ranker(self) -> Ranker {
        match self {
            FusionBase::Formula(f) => Ranker::Formula(f),
            FusionBase::BlockRank => Ranker::BlockRank,
        }
    }
}

impl Default for Ranker {
    fn default() -> Ranker {
        Ranker::Formula(Formula::Ochiai)
    }
}

impl From<Formula> for Ranker {
    fn from(formula: Formula) -> Ranker {
        Ranker::Formula(formula)
    }
}

impl Ranker {
    /// Fusion over Ochiai, what `fusion` names.
    pub const FUSION: Ranker = Ranker::Fusion(FusionBase::Formula(Formula::Ochiai));

    /// Parses a user-supplied name, case-insensitively, accepting aliases:
    /// `fusion` is fusion over Ochiai, `fusion:NAME` over any other ranker.
    pub fn parse(name: &str) -> Result<Ranker, String> {
        let lower = name.trim().to_ascii_lowercase();
        if let Some(base) = lower.strip_prefix("fusion:") {
            return match Ranker::parse(base)? {
                Ranker::Fusion(_) => Err(format!(
                    "{name:?}: fusion's base is a spectrum measure or blockrank, not fusion"
                )),
                other => Ok(other.fused()),
            };
        }
        match lower.as_str() {
            "blockrank" => Ok(Ranker::BlockRank),
            "fusion" => Ok(Ranker::FUSION),
            _ => Formula::parse(name).map(Ranker::Formula),
        }
    }

    /// Fusion over this ranker (itself when it is fusion already).
    pub fn fused(self) -> Ranker {
        match self {
            Ranker::Formula(f) => Ranker::Fusion(FusionBase::Formula(f)),
            Ranker::BlockRank => Ranker::Fusion(FusionBase::BlockRank),
            fusion => fusion,
        }
    }

    /// The spectrum ranker under fusion; itself for any other.
    pub fn base(self) -> Ranker {
        match self {
            Ranker::Fusion(base) => base.ranker(),
            other => other,
        }
    }

    /// The formula, for a spectrum ranker.
    pub fn formula(&self) -> Option<Formula> {
        match self {
            Ranker::Formula(f) => Some(*f),
            _ => None,
        }
    }

    /// The canonical name, which `parse` accepts.
    pub fn name(&self) -> String {
        match self {
            Ranker::Formula(f) => f.name(),
            &Ranker::FUSION => "fusion".into(),
            Ranker::Fusion(base) => format!("fusion:{}", base.ranker().name()),
            Ranker::BlockRank => self.info().name.into(),
        }
    }

    /// A display name for messages ("Ochiai", "BlockRank").
    pub fn title(&self) -> String {
        match self {
            Ranker::Formula(f) => f.title(),
            Ranker::BlockRank => "BlockRank".into(),
            Ranker::Fusion(base) => format!("Fusion ({})", base.ranker().title()),
        }
    }

    pub fn info(&self) -> MeasureInfo {
        match self {
            Ranker::Formula(f) => f.info(),
            Ranker::BlockRank => MeasureInfo {
                name: "blockrank",
                formula: "propagated failure correlation of edge profiles along the control-flow graph",
                summary: "BlockRank: ranks basic blocks by how failing runs' branch frequencies differ from passing runs', robust to coincidental correctness and crashes.",
            },
            Ranker::Fusion(_) => MeasureInfo {
                name: "fusion",
                formula: "2 + (opt(l) + cores(l)/C)/2 for lines in an optimal diagnosis, 1 + (other(l) + cores(l)/C)/2 in another, 0 else; ties and the rest by the base measure (fusion:NAME, Ochiai by default)",
                summary: "Orders lines by the evidence of the stored diagnosis (`faultlens diagnose`): lines in minimum-cost diagnoses first, then other diagnosed lines, then the spectrum; the default ranking wherever a diagnosis of the current run is stored.",
            },
        }
    }
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

    fn measure(self) -> Formula {
        match self {
            BoundedBase::Ochiai => Formula::Ochiai,
            BoundedBase::Tarantula => Formula::Tarantula,
            BoundedBase::Jaccard => Formula::Jaccard,
            BoundedBase::Kulczynski2 => Formula::Kulczynski2,
            BoundedBase::Barinel => Formula::Barinel,
            BoundedBase::Sbi => Formula::Sbi,
            BoundedBase::SorensenDice => Formula::SorensenDice,
        }
    }
}

impl Formula {
    /// Parses a user-supplied name, case-insensitively, accepting common aliases.
    pub fn parse(name: &str) -> Result<Formula, String> {
        let n = name.trim().to_ascii_lowercase().replace('_', "-");
        let simple = match n.as_str() {
            "tarantula" => Some(Formula::Tarantula),
            "ochiai" => Some(Formula::Ochiai),
            "jaccard" => Some(Formula::Jaccard),
            "dstar" | "d*" => Some(Formula::DStar(2)),
            "naish1" | "naish-1" => Some(Formula::Naish1),
            "op2" | "naish2" | "naish-2" | "naish-i" => Some(Formula::Op2),
            "kulczynski1" => Some(Formula::Kulczynski1),
            "kulczynski2" => Some(Formula::Kulczynski2),
            "barinel" => Some(Formula::Barinel),
            "sbi" => Some(Formula::Sbi),
            "opt" => Some(Formula::Opt(BoundedBase::Ochiai)),
            "wong1" => Some(Formula::Wong1),
            "wong2" => Some(Formula::Wong2),
            "wong3" => Some(Formula::Wong3),
            "zoltar" => Some(Formula::Zoltar),
            "gp13" => Some(Formula::Gp13),
            "ample" => Some(Formula::Ample),
            "russell-rao" | "russellrao" => Some(Formula::RussellRao),
            "sorensen-dice" | "sorensendice" | "dice" => Some(Formula::SorensenDice),
            "anderberg" => Some(Formula::Anderberg),
            "m2" => Some(Formula::M2),
            _ => None,
        };
        if let Some(m) = simple {
            return Ok(m);
        }
        if let Some(exp) = n.strip_prefix("dstar") {
            if let Ok(e) = exp.parse::<u32>() {
                if (1..=10).contains(&e) {
                    return Ok(Formula::DStar(e));
                }
            }
        }
        if let Some(base) = n.strip_prefix("opt-") {
            if let Some((_, b)) = BoundedBase::NAMES.iter().find(|(bn, _)| *bn == base) {
                return Ok(Formula::Opt(*b));
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
            Formula::DStar(2) => "dstar".into(),
            Formula::DStar(e) => format!("dstar{e}"),
            Formula::Opt(BoundedBase::Ochiai) => "opt".into(),
            Formula::Opt(b) => format!("opt-{}", b.name()),
            other => other.info().name.into(),
        }
    }

    /// A display name for messages ("Ochiai", "DStar").
    pub fn title(&self) -> String {
        match self {
            Formula::DStar(2) => "DStar".into(),
            Formula::DStar(e) => format!("DStar{e}"),
            Formula::Opt(BoundedBase::Ochiai) => "Opt".into(),
            Formula::Opt(b) => format!("Opt({})", b.measure().title()),
            Formula::Tarantula => "Tarantula".into(),
            Formula::Ochiai => "Ochiai".into(),
            Formula::Jaccard => "Jaccard".into(),
            Formula::Naish1 => "Naish1".into(),
            Formula::Op2 => "Op2".into(),
            Formula::Kulczynski1 => "Kulczynski1".into(),
            Formula::Kulczynski2 => "Kulczynski2".into(),
            Formula::Barinel => "Barinel".into(),
            Formula::Sbi => "SBI".into(),
            Formula::Wong1 => "Wong1".into(),
            Formula::Wong2 => "Wong2".into(),
            Formula::Wong3 => "Wong3".into(),
            Formula::Zoltar => "Zoltar".into(),
            Formula::Gp13 => "GP13".into(),
            Formula::Ample => "Ample".into(),
            Formula::RussellRao => "Russell-Rao".into(),
            Formula::SorensenDice => "Sørensen-Dice".into(),
            Formula::Anderberg => "Anderberg".into(),
            Formula::M2 => "M2".into(),
        }
    }

    pub fn info(&self) -> MeasureInfo {
        let (name, formula, summary) = match self {
            Formula::Tarantula => ("tarantula", "(ef/F) / (ef/F + ep/P); confidence max(ef/F, ep/P) breaks ties", "Jones & Harrold's visual measure: share of failing runs against share of passing runs."),
            Formula::Ochiai => ("ochiai", "ef / sqrt(F · (ef + ep))", "Cosine similarity between a line's coverage and the failures; the default, strong in studies of C programs."),
            Formula::Jaccard => ("jaccard", "ef / (F + ep)", "Overlap of the line's runs with the failing runs."),
            Formula::DStar(_) => ("dstar", "ef^* / (ep + nf), * = 2 by default; x/0 = +inf", "Wong et al.'s D*: strongly rewards lines run by failing tests."),
            Formula::Naish1 => ("naish1", "-1 if nf > 0, else np", "Naish's optimal measure for single faults: only lines run by every failing test score."),
            Formula::Op2 => ("op2", "ef - ep / (P + 1)", "Naish's Op2 (the sfo paper's Naish-I): single-fault optimal, ties broken by fewer passing runs."),
            Formula::Kulczynski1 => ("kulczynski1", "ef / (nf + ep); x/0 = +inf", "Kulczynski's first coefficient."),
            Formula::Kulczynski2 => ("kulczynski2", "(ef/F + ef/(ef + ep)) / 2", "Kulczynski's second coefficient."),
            Formula::Barinel => ("barinel", "1 - ep / (ef + ep)", "Barinel's spectrum component (Abreu et al.)."),
            Formula::Sbi => ("sbi", "ef / (ef + ep)", "Liblit's statistical bug isolation failure rate."),
            Formula::Opt(_) => ("opt", "np + 2 if ef = F, else w (w = Ochiai unless opt-<w>)", "Single-fault-optimal transform (Landsberg et al.): lines run by all failing tests first, fewer passing runs first, then w."),
            Formula::Wong1 => ("wong1", "ef", "Wong's first measure: how many failing tests ran the line."),
            Formula::Wong2 => ("wong2", "ef - ep", "Wong's second measure."),
            Formula::Wong3 => ("wong3", "ef - h, h = ep (ep ≤ 2), 2 + 0.1(ep - 2) (ep ≤ 10), 2.8 + 0.001(ep - 10)", "Wong's third measure: passing runs weigh less and less."),
            Formula::Zoltar => ("zoltar", "ef / (F + ep + 10000 · nf · ep / ef)", "Zoltar (Gonzalez)."),
            Formula::Gp13 => ("gp13", "ef · (1 + 1 / (2ep + ef))", "Found by genetic programming (Yoo); single-fault optimal."),
            Formula::Ample => ("ample", "|ef/F - ep/P|", "AMPLE (Dallmeier et al.)."),
            Formula::RussellRao => ("russell-rao", "ef / (F + P)", "Russell and Rao."),
            Formula::SorensenDice => ("sorensen-dice", "2ef / (2ef + ep + nf)", "Sørensen-Dice coefficient."),
            Formula::Anderberg => ("anderberg", "ef / (ef + 2(ep + nf))", "Anderberg."),
            Formula::M2 => ("m2", "ef / (ef + np + 2(nf + ep))", "M2 (Everitt)."),
        };
        MeasureInfo {
            name,
            formula,
            summary,
        }
    }

    /// The score of one component, from its counts alone.
    pub fn score(&self, c: &Counts) -> f64 {
        let ef = c.ef as f64;
        let ep = c.ep as f64;
        let nf = c.nf as f64;
        let np = c.np as f64;
        let f = ef + nf;
        let p = ep + np;
        match self {
            Formula::Tarantula => {
                let fr = ratio(ef, f);
                let pr = ratio(ep, p);
                ratio(fr, fr + pr)
            }
            Formula::Ochiai => ratio(ef, (f * (ef + ep)).sqrt()),
            Formula::Jaccard => ratio(ef, f + ep),
            Formula::DStar(e) => ratio_inf(ef.powi(*e as i32), ep + nf),
            Formula::Naish1 => {
                if nf > 0.0 {
                    -1.0
                } else {
                    np
                }
            }
            Formula::Op2 => ef - ep / (p + 1.0),
            Formula::Kulczynski1 => ratio_inf(ef, nf + ep),
            Formula::Kulczynski2 => (ratio(ef, f) + ratio(ef, ef + ep)) / 2.0,
            Formula::Barinel => {
                if ef + ep == 0.0 {
                    0.0
                } else {
                    1.0 - ep / (ef + ep)
                }
            }
            Formula::Sbi => ratio(ef, ef + ep),
            Formula::Opt(base) => {
                if c.ef == c.failed() && c.ef > 0 {
                    np + 2.0
                } else {
                    base.measure().score(c)
                }
            }
            Formula::Wong1 => ef,
            Formula::Wong2 => ef - ep,
            Formula::Wong3 => {
                let h = if ep <= 2.0 {
                    ep
                } else if ep <= 10.0 {
                    2.0 + 0.1 * (ep - 2.0)
                } else {
                    2.8 + 0.001 * (ep - 10.0)
                };
                ef - h
            }
            Formula::Zoltar => {
                if ef == 0.0 {
                    0.0
                } else {
                    ef / (f + ep + 10000.0 * nf * ep / ef)
                }
            }
            Formula::Gp13 => ef * (1.0 + ratio(1.0, 2.0 * ep + ef)),
            Formula::Ample => (ratio(ef, f) - ratio(ep, p)).abs(),
            Formula::RussellRao => ratio(ef, f + p),
            Formula::SorensenDice => ratio(2.0 * ef, 2.0 * ef + ep + nf),
            Formula::Anderberg => ratio(ef, ef + 2.0 * (ep + nf)),
            Formula::M2 => ratio(ef, ef + np + 2.0 * (nf + ep)),
        }
    }

    /// A secondary key that breaks ties of the primary score, where the
    /// measure defines one: Tarantula's confidence `max(ef/F, ep/P)`.
    pub fn confidence(&self, c: &Counts) -> Option<f64> {
        match self {
            Formula::Tarantula => Some(
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
        let scores: Vec<f64> = minmax().iter().map(|c| Formula::Op2.score(c)).collect();
        let expected = [2.125, -0.375, 0.75, 2.875, 0.625];
        for (s, e) in scores.iter().zip(expected) {
            assert!(close(*s, e), "{scores:?}");
        }
    }

    #[test]
    fn hand_computed_values_on_one_spectrum() {
        // ef=3, nf=1, ep=2, np=6: F=4, P=8.
        let c = Counts::new(3, 1, 2, 6);
        let cases: &[(Formula, f64)] = &[
            (Formula::Tarantula, 0.75 / (0.75 + 0.25)),
            (Formula::Ochiai, 3.0 / (4.0f64 * 5.0).sqrt()),
            (Formula::Jaccard, 3.0 / 6.0),
            (Formula::DStar(2), 9.0 / 3.0),
            (Formula::DStar(3), 27.0 / 3.0),
            (Formula::Naish1, -1.0),
            (Formula::Op2, 3.0 - 2.0 / 9.0),
            (Formula::Kulczynski1, 3.0 / 3.0),
            (Formula::Kulczynski2, (0.75 + 0.6) / 2.0),
            (Formula::Barinel, 1.0 - 2.0 / 5.0),
            (Formula::Sbi, 3.0 / 5.0),
            (Formula::Opt(BoundedBase::Ochiai), 3.0 / 20.0f64.sqrt()),
            (Formula::Wong1, 3.0),
            (Formula::Wong2, 1.0),
            (Formula::Wong3, 1.0),
            (Formula::Zoltar, 3.0 / (4.0 + 2.0 + 10000.0 * 2.0 / 3.0)),
            (Formula::Gp13, 3.0 * (1.0 + 1.0 / 7.0)),
            (Formula::Ample, 0.5),
            (Formula::RussellRao, 3.0 / 12.0),
            (Formula::SorensenDice, 6.0 / 9.0),
            (Formula::Anderberg, 3.0 / 9.0),
            (Formula::M2, 3.0 / (3.0 + 6.0 + 6.0)),
        ];
        for (m, expected) in cases {
            let got = m.score(&c);
            assert!(
                close(got, *expected),
                "{}: got {got}, expected {expected}",
                m.name()
            );
        }
        assert!(close(Formula::Tarantula.confidence(&c).unwrap(), 0.75));
    }

    #[test]
    fn zero_denominators_follow_the_stated_convention() {
        let never_run = Counts::new(0, 2, 0, 3);
        for m in ALL {
            let s = m.score(&never_run);
            assert!(!s.is_nan(), "{} is NaN on a line no test ran", m.name());
        }
        let only_failing = Counts::new(2, 0, 0, 3);
        assert_eq!(Formula::DStar(2).score(&only_failing), f64::INFINITY);
        assert_eq!(Formula::Kulczynski1.score(&only_failing), f64::INFINITY);
        assert_eq!(Formula::Opt(BoundedBase::Ochiai).score(&only_failing), 5.0);
        // No tests at all.
        let empty = Counts::default();
        for m in ALL {
            assert!(!m.score(&empty).is_nan(), "{}", m.name());
        }
    }

    #[test]
    fn every_name_parses_back_to_its_measure() {
        for m in ALL {
            assert_eq!(Formula::parse(&m.name()).unwrap(), *m);
        }
        assert_eq!(Formula::parse("DStar3").unwrap(), Formula::DStar(3));
        assert_eq!(Formula::parse("naish-i").unwrap(), Formula::Op2);
        assert_eq!(
            Formula::parse("opt-tarantula").unwrap(),
            Formula::Opt(BoundedBase::Tarantula)
        );
        assert_eq!(Ranker::parse("BlockRank").unwrap(), Ranker::BlockRank);
        assert_eq!(Ranker::parse("fusion").unwrap(), Ranker::FUSION);
        assert_eq!(
            Ranker::parse("Fusion:BlockRank").unwrap(),
            Ranker::Fusion(FusionBase::BlockRank)
        );
        assert_eq!(Ranker::parse("fusion:op2").unwrap().name(), "fusion:op2");
        assert_eq!(Ranker::parse("fusion:op2").unwrap().title(), "Fusion (Op2)");
        assert_eq!(Ranker::FUSION.name(), "fusion");
        assert!(Ranker::parse("fusion:fusion").is_err());
        assert!(Ranker::parse("fusion:nope").is_err());
        assert_eq!(
            Ranker::parse("dstar").unwrap(),
            Ranker::Formula(Formula::DStar(2))
        );
        assert!(Formula::parse("blockrank").is_err());
        let err = Formula::parse("ochia").unwrap_err();
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
            for m in [Formula::Opt(BoundedBase::Ochiai), Formula::Opt(BoundedBase::Tarantula), Formula::Op2, Formula::Naish1] {
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
