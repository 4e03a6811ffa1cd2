//! Meson's own record of its tests, as faultlens reads it: the JSON that
//! `meson introspect --tests` prints and the build keeps in
//! `meson-info/intro-tests.json`. The discovery that runs the tests and the
//! diagnosis that reads them back both read it here.
//!
//! And what faultlens names a Meson test: Meson names a test within its
//! suite, and two suites may reuse a name, while a results row needs a name
//! of its own. The first test of a name keeps it; a later one is
//! `suite+suite:name`.

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// Where a Meson build records its tests, in the build directory.
pub const TESTS_FILE: &str = "meson-info/intro-tests.json";

/// One test of Meson's list.
#[derive(Debug, Deserialize)]
pub struct MesonTest {
    /// Meson's name, within its suites.
    pub name: String,
    /// faultlens's name of it: the results row ([`MesonNames`]).
    #[serde(skip)]
    pub row: String,
    #[serde(default)]
    pub cmd: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub workdir: Option<String>,
    /// Seconds; 0 for none.
    #[serde(default)]
    pub timeout: f64,
    /// Not in Meson 1.0's introspection (the discovery reads `meson.build`).
    #[serde(default)]
    pub should_fail: bool,
    #[serde(default)]
    pub suite: Vec<String>,
}

/// The tests of `text`, Meson's list, in its order, each with its row name.
pub fn test_list(text: &str) -> Result<Vec<MesonTest>, String> {
    let listed: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let listed = listed.as_array().ok_or("expected an array of tests")?;
    let mut names = MesonNames::default();
    listed
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if !t["name"].is_string() {
                return Err(format!("test {i} has no name"));
            }
            let mut test = MesonTest::deserialize(t).map_err(|e| format!("test {i}: {e}"))?;
            test.row = names.name(&test.name, &test.suite);
            Ok(test)
        })
        .collect()
}

/// Names tests in the order Meson lists them.
#[derive(Default)]
struct MesonNames {
    seen: HashMap<String, usize>,
}

impl MesonNames {
    /// The name of the next test Meson lists, `name` in `suites`.
    fn name(&mut self, name: &str, suites: &[String]) -> String {
        let seen = self.seen.entry(name.to_string()).or_default();
        *seen += 1;
        match *seen {
            1 => name.to_string(),
            _ => format!("{}:{name}", suites.join("+")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_a_second_suite_reuses_is_given_its_suites() {
        let mut names = MesonNames::default();
        let suites = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(names.name("short", &suites(&["wrap"])), "short");
        assert_eq!(names.name("long", &suites(&["wrap"])), "long");
        assert_eq!(
            names.name("short", &suites(&["more", "slow"])),
            "more+slow:short"
        );
    }

    #[test]
    fn a_list_that_is_not_meson_s_is_refused_by_what_is_wrong() {
        assert!(test_list("{").unwrap_err().starts_with("not JSON"));
        assert_eq!(test_list("{}").unwrap_err(), "expected an array of tests");
        assert_eq!(test_list("[{}]").unwrap_err(), "test 0 has no name");
        assert!(test_list(r#"[{"name": "a", "cmd": 3}]"#)
            .unwrap_err()
            .starts_with("test 0: "));
    }
}
