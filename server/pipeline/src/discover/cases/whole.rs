//! Why a unit-test executable keeps one row for all its cases: a kind of
//! reason, said the same way for every test it concerns (so a note can
//! name them all once), and what is particular to each test.

/// Why one test stays whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhyWhole {
    pub kind: WholeKind,
    /// What is particular to this test (its arguments, the last line its
    /// listing printed, …).
    pub detail: Option<String>,
}

impl WhyWhole {
    pub fn new(kind: WholeKind) -> WhyWhole {
        WhyWhole { kind, detail: None }
    }

    pub fn with(kind: WholeKind, detail: impl Into<String>) -> WhyWhole {
        WhyWhole {
            kind,
            detail: Some(detail.into()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WholeKind {
    Shell,
    Arguments,
    JudgedWhole,
    EnvironmentChooses,
    /// Unity without its command-line options, whose cases faultlens's
    /// runtime does not see either.
    UnityOutOfReach,
    ListingFailed,
    ListingEndedEarly,
    NoneListed,
    NamesOverlap,
    ChoiceNotExact,
}

impl WholeKind {
    /// The reason, the same for every test of this kind.
    pub fn says(self) -> &'static str {
        match self {
            WholeKind::Shell => "it runs through a shell",
            WholeKind::Arguments => {
                "its command passes arguments, which may already choose the cases"
            }
            WholeKind::JudgedWhole => {
                "it is expected to fail (WILL_FAIL, should_fail, XFAIL_TESTS) or a regular expression judges the whole executable's output"
            }
            WholeKind::EnvironmentChooses => {
                "its environment already chooses the cases (CK_RUN_*, CK_*_TAGS)"
            }
            WholeKind::UnityOutOfReach => {
                "its Unity cases do not pass through UnityDefaultTestRun where faultlens's runtime can choose them (Unity compiled into the test's own source, or RUN_TEST redefined), and its runner has no command-line options to choose one (UNITY_USE_COMMAND_LINE_ARGS and a runner generated with cmdline_args would)"
            }
            WholeKind::ListingFailed => "listing its cases failed",
            WholeKind::ListingEndedEarly => "the run that lists its cases did not reach its end",
            WholeKind::NoneListed => "listing its cases found none",
            WholeKind::NamesOverlap => {
                "Unity's -n chooses by part of a name, and one case's name is part of another's"
            }
            WholeKind::ChoiceNotExact => "choosing one case did not run exactly that case",
        }
    }
}

impl std::fmt::Display for WhyWhole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.detail {
            Some(detail) => write!(f, "{} ({detail})", self.kind.says()),
            None => f.write_str(self.kind.says()),
        }
    }
}
