//! The tests Meson would run, read from `meson-info/intro-tests.json` in
//! faultlens's coverage build (what `meson introspect --tests` prints;
//! `workspace::meson` reads it and names the tests).

use super::declared::DeclaredTest;
use std::path::{Path, PathBuf};

pub use faultlens_workspace::meson::TESTS_FILE;

/// The tests of `text`, Meson's introspection of the build in `build`,
/// named as faultlens's Meson discovery names them.
pub fn tests_in(text: &str, build: &Path) -> Result<Vec<DeclaredTest>, String> {
    // Meson judges a TAP or GoogleTest test by its output too; a failing
    // test that exited 0 is left out for that (see the harness).
    Ok(faultlens_workspace::meson::test_list(text)?
        .into_iter()
        .map(|t| DeclaredTest {
            name: t.row,
            argv: t.cmd,
            cwd: t.workdir.map_or_else(|| build.to_path_buf(), PathBuf::from),
            env: t.env.into_iter().collect(),
            judged_by: None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_their_commands_environments_and_directories_are_read() {
        let text = r#"[
          {"name": "short", "cmd": ["/b/check", "short"], "env": {"LANG": "C"},
           "workdir": null, "suite": ["wrap"], "protocol": "exitcode"},
          {"name": "short", "cmd": ["/b/other"], "env": {}, "workdir": "/p/data",
           "suite": ["more", "slow"]}
        ]"#;
        let tests = tests_in(text, Path::new("/b")).unwrap();
        assert_eq!(
            tests,
            [
                DeclaredTest {
                    name: "short".into(),
                    argv: vec!["/b/check".into(), "short".into()],
                    cwd: "/b".into(),
                    env: vec![("LANG".into(), "C".into())],
                    judged_by: None,
                },
                DeclaredTest {
                    name: "more+slow:short".into(),
                    argv: vec!["/b/other".into()],
                    cwd: "/p/data".into(),
                    env: vec![],
                    judged_by: None,
                },
            ]
        );
    }

    #[test]
    fn a_file_that_is_not_meson_s_is_refused_by_what_is_wrong() {
        let build = Path::new("/b");
        assert!(tests_in("{", build).unwrap_err().starts_with("not JSON"));
        assert_eq!(
            tests_in("{}", build).unwrap_err(),
            "expected an array of tests"
        );
        assert_eq!(tests_in("[{}]", build).unwrap_err(), "test 0 has no name");
    }
}
