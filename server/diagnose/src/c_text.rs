//! What the edges read off a C source's text without parsing it: whether
//! it includes a header or defines a function (the free-input functions of
//! a harness, a unit-test framework's fixtures), and the text itself,
//! read inside the project.

use faultlens_confine::limits;
use std::path::Path;

/// The text of source `path` (relative to `root`, or absolute inside it),
/// empty when it cannot be read inside the project.
pub(crate) fn read_source(root: &Path, path: &Path) -> String {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    faultlens_workspace::files::read_in_project(root, &abs, limits::SOURCE)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// Whether C `text` has an `#include` of `header` (`<h>` or `"h"`).
pub(crate) fn includes(text: &str, header: &str) -> bool {
    text.lines().any(|line| {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            return false;
        };
        let Some(name) = rest.trim_start().strip_prefix("include") else {
            return false;
        };
        // `<name>` or `"name"`, whatever follows (a comment).
        let name = name.trim_start();
        let close = match name.chars().next() {
            Some('<') => '>',
            Some('"') => '"',
            _ => return false,
        };
        name[1..].split(close).next() == Some(header) && name[1..].contains(close)
    })
}

/// Whether C `text` defines function `name` (its name, a parameter list,
/// then a body).
pub(crate) fn defines_function(text: &str, name: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find(name) {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + name.len()..];
        rest = after;
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let Some(params) = after.trim_start().strip_prefix('(') else {
            continue;
        };
        if let Some(close) = params.find(')') {
            if params[close + 1..].trim_start().starts_with('{') {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_is_a_name_a_parameter_list_and_a_body() {
        assert!(defines_function(
            "static void tearDown (void) {}",
            "tearDown"
        ));
        assert!(defines_function(
            "int __VERIFIER_nondet_int(void)\n{\n",
            "__VERIFIER_nondet_int"
        ));
        assert!(!defines_function("void tearDown(void);", "tearDown"));
        assert!(!defines_function("void my_setUp(void) {}", "setUp"));
    }
}
