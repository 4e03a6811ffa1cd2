//! The unit-test frameworks faultlens knows, and how an executable shows
//! which one it is built with: the localization splits its tests into
//! cases by it, the diagnosis runs those cases with a model of it.

use regex::bytes::RegexSet;
use std::sync::LazyLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framework {
    Criterion,
    Check,
    Cmocka,
    /// A Unity-style runner with its command-line options: `-l` lists the
    /// tests, `-n NAME` runs those whose name contains NAME.
    Unity,
    /// A Unity-style runner built without them (`UNITY_USE_COMMAND_LINE_ARGS`).
    UnityWithoutOptions,
}

impl Framework {
    pub fn name(self) -> &'static str {
        match self {
            Framework::Criterion => "Criterion",
            Framework::Check => "Check",
            Framework::Cmocka => "CMocka",
            Framework::Unity | Framework::UnityWithoutOptions => "Unity",
        }
    }
}

/// The framework an executable's bytes (an ELF file) are built with, from
/// the names it links (Criterion and CMocka are shared libraries; Check and
/// Unity are linked statically, and their symbols stay in an unstripped
/// coverage build).
pub fn built_with(bytes: &[u8]) -> Option<Framework> {
    // In order of precedence: a Unity-style runner compiled without its
    // command-line options names `UnityBegin` only.
    const MARKS: [(&str, Framework); 5] = [
        (
            r"libcriterion\.so|criterion_run_all_tests",
            Framework::Criterion,
        ),
        (r"srunner_run_all|srunner_run_tagged", Framework::Check),
        (r"libcmocka\.so", Framework::Cmocka),
        (r"UnityParseOptions", Framework::Unity),
        (r"UnityBegin", Framework::UnityWithoutOptions),
    ];
    static SET: LazyLock<RegexSet> = LazyLock::new(|| {
        RegexSet::new(MARKS.iter().map(|(pattern, _)| pattern)).expect("valid patterns")
    });
    if !bytes.starts_with(b"\x7fELF") {
        return None;
    }
    let found = SET.matches(bytes);
    MARKS
        .iter()
        .enumerate()
        .find(|(i, _)| found.matched(*i))
        .map(|(_, (_, framework))| *framework)
}
