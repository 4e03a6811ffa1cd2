//! The tests Meson would run, read from `meson-info/intro-tests.json` in
//! faultlens's coverage build (what `meson introspect --tests` prints).

use super::declared::DeclaredTest;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where Meson records its tests, in the build directory.
pub const TESTS_FILE: &str = "meson-info/intro-tests.json";

/// The tests of `text`, Meson's introspection of the build in `build`.
/// Named as faultlens's Meson discovery names them
/// (`workspace::meson::MesonNames`).
pub fn tests_in(text: &str, build: &Path) -> Result<Vec<DeclaredTest>, String> {
    let listed: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let listed = listed.as_array().ok_or("expected an array of tests")?;
    let mut names = faultlens_workspace::meson::MesonNames::default();
    let mut out = Vec::with_capacity(listed.len());
    for (i, t) in listed.iter().enumerate() {
        let strings = |key: &str| -> Vec<String> {
            t[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let name = t["name"]
            .as_str()
            .ok_or_else(|| format!("test {i} has no name"))?;
        let name = names.name(name, &strings("suite"));
        let env = t["env"]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        // Meson judges a TAP or GoogleTest test by its output too; a
        // failing test that exited 0 is left out for that (see the harness).
        out.push(DeclaredTest {
            name,
            argv: strings("cmd"),
            cwd: t["workdir"]
                .as_str()
                .map_or_else(|| build.to_path_buf(), PathBuf::from),
            env,
            judged_by: None,
        });
    }
    Ok(out)
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
