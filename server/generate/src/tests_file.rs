//! Edge: the generated tests as `[[test]]` entries in
//! `.faultlens/generated-tests.toml`, which the pipeline's io discovery runs.
//!
//! Every entry expects exit status 0 (the harness's asserts hold): a run the
//! generator predicts to fail is a failing test because its assert fires, as
//! the real binary then shows. The prediction is a comment beside the entry.

use crate::run::{Run, Verdict};
use faultlens_workspace::generated;
use faultlens_workspace::Project;

/// A run with the name it is kept under.
#[derive(Clone, Debug)]
pub struct GeneratedTest {
    pub name: String,
    pub run: Run,
    /// Which strategy and round produced it (for the comment).
    pub origin: String,
}

const HEADER: &str = "# Tests written by `faultlens generate`. The pipeline runs them with the\n\
# project's own tests; copy an entry into faultlens.toml to keep it for good.\n\
# Each gives the harness its free inputs on stdin and expects exit status 0\n\
# (every assert holds); the comment says what the C model predicted.\n";

fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// One `[[test]]` entry.
pub fn render(t: &GeneratedTest) -> String {
    let predicted = match &t.run.verdict {
        Verdict::Pass => "passes".to_string(),
        Verdict::Fail { violation } => format!("fails ({violation})"),
    };
    format!(
        "\n[[test]]\nname = {}\nstdin = {}\n# predicted: {predicted}; {}\n",
        quote(&t.name),
        quote(&t.run.stdin()),
        t.origin
    )
}

/// The first free number `k` for names `gen-{strategy}-{k}`, given the names in use.
pub fn next_number<'a>(strategy: &str, taken: impl IntoIterator<Item = &'a str>) -> usize {
    let prefix = format!("gen-{strategy}-");
    taken
        .into_iter()
        .filter_map(|n| n.strip_prefix(&prefix)?.parse::<usize>().ok())
        .max()
        .map_or(1, |k| k + 1)
}

/// Appends `tests` to the project's generated-tests file (creating it).
/// The file is rewritten atomically rather than opened for appending: a
/// link a repository placed there is replaced, never written through.
pub fn append(
    project: &Project,
    tests: &[GeneratedTest],
) -> Result<std::path::PathBuf, faultlens_workspace::WorkspaceError> {
    let path = generated::path(project);
    let mut text = generated::read_text(&path)?.unwrap_or_else(|| HEADER.to_string());
    for t in tests {
        text.push_str(&render(t));
    }
    Ok(project
        .work()?
        .write_atomic(generated::FILE, text.as_bytes())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_continue_after_the_names_in_use() {
        assert_eq!(next_number("sfo", ["a", "gen-sfo_p-4"]), 1);
        assert_eq!(
            next_number("sfo", ["gen-sfo-2", "gen-sfo-x", "gen-sfo-7"]),
            8
        );
    }

    #[test]
    fn entry_is_valid_toml_with_the_inputs_as_stdin() {
        let t = GeneratedTest {
            name: "gen-sfo-1".into(),
            run: Run {
                inputs: vec![2, -1, 3],
                coverage: Default::default(),
                verdict: Verdict::Fail {
                    violation: "assertion at m.c:3".into(),
                },
            },
            origin: "sfo round 1".into(),
        };
        let text = render(&t);
        let v: toml::Value = toml::from_str(&text).unwrap();
        let entry = &v["test"][0];
        assert_eq!(entry["name"].as_str(), Some("gen-sfo-1"));
        assert_eq!(entry["stdin"].as_str(), Some("2 -1 3"));
        assert!(text.contains("# predicted: fails (assertion at m.c:3)"));
    }
}
