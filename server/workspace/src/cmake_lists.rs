//! What a project's `CMakeLists.txt` files say about its tests: whether
//! any declares some, and which options turn them on. Libraries often keep
//! their tests behind `BUILD_TESTING` or an `option(…_TESTS … OFF)`, in the
//! root file or under `test/`; faultlens's own build turns them on.

use regex::Regex;
use std::path::Path;
use std::sync::LazyLock;

/// How deep below the root `CMakeLists.txt` files are looked for.
const MAX_DEPTH: usize = 3;
/// How many `CMakeLists.txt` files are read at most.
const MAX_FILES: usize = 64;
/// How many directories are looked into at most.
const MAX_DIRS: usize = 512;

/// The texts of the project's `CMakeLists.txt` files: the root's first,
/// then those below it (at most [`MAX_DEPTH`] directories down, hidden
/// directories and `.faultlens/` skipped), each read bounded.
pub fn texts(root: &Path) -> Vec<String> {
    crate::files::directories(root, MAX_DEPTH, MAX_DIRS)
        .into_iter()
        .filter_map(|dir| {
            crate::files::read_in_project(
                root,
                &dir.join("CMakeLists.txt"),
                faultlens_confine::limits::BUILD_DESCRIPTION,
            )
            .ok()
        })
        .take(MAX_FILES)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .collect()
}

/// Whether any of `texts` declares tests (`enable_testing()`,
/// `include(CTest)`, `add_test(`).
pub fn declares_tests(texts: &[String]) -> bool {
    texts.iter().any(|text| {
        let lower = text.to_ascii_lowercase();
        lower.contains("enable_testing")
            || lower.contains("include(ctest)")
            || lower.contains("add_test(")
    })
}

/// The `-D` settings that turn a project's tests on: `BUILD_TESTING`
/// (CTest's own switch) and every `option()` whose name speaks of tests
/// (`JSON_C_BUILD_TESTS`, `ENABLE_TESTING`, `UTF8PROC_ENABLE_TESTING`) and
/// that is off by default, but fuzzers, benchmarks and the like.
pub fn test_switches(texts: &[String]) -> Vec<String> {
    static OPTION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)\boption\s*\(\s*([A-Za-z0-9_]+)\s+(?:"[^"]*"|\[\[.*?\]\]|\S+)\s*([A-Za-z0-9_]*)\s*\)"#)
            .expect("a valid pattern")
    });
    let mut switches = vec!["-DBUILD_TESTING=ON".to_string()];
    for text in texts {
        for m in OPTION.captures_iter(text) {
            let name = &m[1];
            let default = m.get(2).map_or("", |d| d.as_str()).to_ascii_uppercase();
            let off = matches!(default.as_str(), "" | "OFF" | "FALSE" | "NO" | "0" | "N");
            let upper = name.to_ascii_uppercase();
            // Fuzzers, benchmarks and checkers need tools of their own, and
            // `…_WITHOUT_TESTS` turns the tests off.
            let about_tests = upper.contains("TEST")
                && ![
                    "FUZZ", "BENCH", "VALGRIND", "SANITIZ", "COVERAGE", "INSTALL", "WITHOUT",
                    "DISABLE", "SKIP", "NO_",
                ]
                .iter()
                .any(|w| upper.contains(w));
            let switch = format!("-D{name}=ON");
            if off && about_tests && name != "BUILD_TESTING" && !switches.contains(&switch) {
                switches.push(switch);
            }
        }
    }
    switches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_that_speak_of_tests_and_default_off_are_switched_on() {
        let text = r#"
option(UTF8PROC_INSTALL "Enable installation" On)
option(UTF8PROC_ENABLE_TESTING "Enable testing of utf8proc" Off)
OPTION(WITH_UNIT_TESTS "unit tests" )
option(ENABLE_FUZZ_TESTS "fuzzing" OFF)
option(BUILD_SHARED_LIBS "shared" ON)
option(SKIP_TESTS "skip" ON)
option(BUILD_TESTING "ctest" OFF)
option(JANSSON_WITHOUT_TESTS "Don't build tests" OFF)
"#;
        assert_eq!(
            test_switches(&[text.to_string()]),
            [
                "-DBUILD_TESTING=ON",
                "-DUTF8PROC_ENABLE_TESTING=ON",
                "-DWITH_UNIT_TESTS=ON"
            ]
        );
    }

    #[test]
    fn tests_declared_below_the_root_are_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("CMakeLists.txt"),
            "project(x C)\nif(X_TESTS)\n  add_subdirectory(test)\nendif()\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("test")).unwrap();
        std::fs::write(
            dir.path().join("test/CMakeLists.txt"),
            "add_test(NAME a COMMAND a)\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join(".faultlens/cmake-build")).unwrap();
        std::fs::write(
            dir.path().join(".faultlens/cmake-build/CMakeLists.txt"),
            "enable_testing()",
        )
        .unwrap();
        let found = texts(dir.path());
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(declares_tests(&found));
        assert!(!declares_tests(&found[..1]));
    }
}
