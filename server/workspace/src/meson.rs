//! What faultlens names a Meson test: Meson names a test within its suite,
//! and two suites may reuse a name, while a results row needs a name of
//! its own. The first test of a name keeps it; a later one is
//! `suite+suite:name`. The discovery that runs the tests and the diagnosis
//! that reads them back both name them here.

use std::collections::HashMap;

/// Names tests in the order Meson lists them.
#[derive(Default)]
pub struct MesonNames {
    seen: HashMap<String, usize>,
}

impl MesonNames {
    /// The name of the next test Meson lists, `name` in `suites`.
    pub fn name(&mut self, name: &str, suites: &[String]) -> String {
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
}
