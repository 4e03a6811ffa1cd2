//! `make check` discovery: the Makefile's `TESTS`, each run by faultlens
//! from its Makefile's directory with automake's exit-status protocol (0
//! passes, 77 skipped, anything else fails; a test in `XFAIL_TESTS` passes
//! by failing). An autotools project's tests are in the Makefiles of its
//! directories (`tests/Makefile`), each run as automake's harness would:
//! through its `LOG_COMPILER` (or `EXT_LOG_COMPILER` for a test with a
//! registered extension) and with the variables `AM_TESTS_ENVIRONMENT` and
//! `TESTS_ENVIRONMENT` set; a valgrind `LOG_COMPILER` is left out (the
//! coverage is the same, the run many times slower). A Makefile with no
//! `TESTS` anywhere gives the targets its `check` runs (`make_targets`).

use crate::build::{make_check, Built};
use crate::command::Steps;
use crate::error::{PipelineError, Result};
use crate::project::Project;
use crate::testspec::{Expectation, Invocation, TestSpec};
use faultlens_core::results::Location;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How deep automake directories are looked for below the root.
const MAX_DEPTH: usize = 4;
/// How many directories' Makefiles are asked for their tests at most.
const MAX_DIRS: usize = 200;

pub fn discover(
    project: &Project,
    built: &Built,
    timeout: Duration,
    steps: &Steps,
) -> Result<Vec<TestSpec>> {
    let root = &built.run_dir;
    let autotools = faultlens_workspace::detect::autotools(&project.root).is_some()
        && faultlens_workspace::detect::automake(&project.root);
    let dirs = if autotools {
        automake_dirs(root)
    } else {
        vec![PathBuf::new()]
    };
    let mut specs = Vec::new();
    for dir in dirs {
        let harness = Harness::of(project, built, &dir, steps)?;
        for test in &harness.tests {
            match harness.spec(root, &dir, test, timeout) {
                Ok(spec) => specs.push(spec),
                // An automake directory may list a test this platform does
                // not build: left out, the others still run.
                Err(_) if autotools => continue,
                Err(e) => return Err(e),
            }
        }
    }
    if specs.is_empty() {
        // No TESTS anywhere: the targets the Makefile's check runs.
        return crate::discover::make_targets::discover(
            built,
            &make_check::make_args(project),
            timeout,
            steps,
        );
    }
    if !autotools {
        let location = tests_defined_at(project);
        for spec in &mut specs {
            spec.location = location.clone();
        }
    }
    Ok(specs)
}

/// The directories below `root` (relative; the root itself is `""`) whose
/// `Makefile.am` speaks of `TESTS` and that `configure` gave a Makefile.
fn automake_dirs(root: &Path) -> Vec<PathBuf> {
    faultlens_workspace::files::directories(root, MAX_DEPTH, MAX_DIRS)
        .into_iter()
        .filter(|dir| {
            let here = root.join(dir);
            here.join("Makefile").is_file()
                && faultlens_confine::read_regular_no_link(
                    &here.join("Makefile.am"),
                    faultlens_confine::limits::BUILD_DESCRIPTION,
                )
                .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains("TESTS"))
        })
        .collect()
}

/// What one Makefile says about running its tests.
struct Harness {
    tests: Vec<String>,
    expected_failures: Vec<String>,
    /// `LOG_COMPILER` and `LOG_FLAGS` (with `AM_LOG_FLAGS`), by extension
    /// (`""`: tests without a registered one).
    compilers: BTreeMap<String, Vec<String>>,
    /// `AM_TESTS_ENVIRONMENT` then `TESTS_ENVIRONMENT`, as make expands them.
    environment: String,
}

impl Harness {
    fn of(project: &Project, built: &Built, dir: &Path, steps: &Steps) -> Result<Harness> {
        let at = built.run_dir.join(dir);
        let base = [
            "TESTS",
            "XFAIL_TESTS",
            "TEST_EXTENSIONS",
            "LOG_COMPILER",
            "AM_LOG_FLAGS",
            "LOG_FLAGS",
            "AM_TESTS_ENVIRONMENT",
            "TESTS_ENVIRONMENT",
        ];
        let values = make_check::variables(project, &at, &base, &built.env, steps)?;
        let words = |name: &str| -> Vec<String> {
            values
                .get(name)
                .map(|v| v.split_whitespace().map(String::from).collect())
                .unwrap_or_default()
        };
        let mut compilers = BTreeMap::new();
        let mut plain = words("LOG_COMPILER");
        plain.extend(words("AM_LOG_FLAGS"));
        plain.extend(words("LOG_FLAGS"));
        compilers.insert(String::new(), plain);
        let extensions: Vec<String> = words("TEST_EXTENSIONS")
            .into_iter()
            .filter(|e| e.len() > 1 && e.starts_with('.'))
            .collect();
        if !extensions.is_empty() {
            let upper: Vec<String> = extensions
                .iter()
                .map(|e| e[1..].to_ascii_uppercase())
                .collect();
            let names: Vec<String> = upper
                .iter()
                .flat_map(|u| {
                    [
                        format!("{u}_LOG_COMPILER"),
                        format!("AM_{u}_LOG_FLAGS"),
                        format!("{u}_LOG_FLAGS"),
                    ]
                })
                .collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let more = make_check::variables(project, &at, &names, &built.env, steps)?;
            for (ext, u) in extensions.iter().zip(&upper) {
                let mut words = Vec::new();
                for name in [
                    format!("{u}_LOG_COMPILER"),
                    format!("AM_{u}_LOG_FLAGS"),
                    format!("{u}_LOG_FLAGS"),
                ] {
                    if let Some(v) = more.get(&name) {
                        words.extend(v.split_whitespace().map(String::from));
                    }
                }
                compilers.insert(ext.clone(), words);
            }
        }
        Ok(Harness {
            tests: words("TESTS"),
            expected_failures: words("XFAIL_TESTS"),
            compilers,
            environment: format!(
                "{} {}",
                values
                    .get("AM_TESTS_ENVIRONMENT")
                    .map_or("", String::as_str),
                values.get("TESTS_ENVIRONMENT").map_or("", String::as_str)
            )
            .trim()
            .to_string(),
        })
    }

    /// The test `test` of the Makefile in `dir` (relative to `root`).
    fn spec(&self, root: &Path, dir: &Path, test: &str, timeout: Duration) -> Result<TestSpec> {
        let cwd = root.join(dir);
        let path = crate::files::checked(&cwd, Path::new(test))
            .map_err(|e| PipelineError::Discovery(format!("TESTS names {test:?}: {e}")))?;
        if !path.is_file() {
            return Err(PipelineError::Discovery(format!(
                "TESTS names {test:?}, which the build did not make ({} is missing); list it in check_PROGRAMS or give it a rule",
                path.display()
            )));
        }
        let name = dir.join(test).to_string_lossy().into_owned();
        let extension = self
            .compilers
            .keys()
            .filter(|e| !e.is_empty())
            .find(|e| test.ends_with(e.as_str()))
            .cloned()
            .unwrap_or_default();
        let compiler: Vec<String> = self.compilers.get(&extension).cloned().unwrap_or_default();
        // A run under valgrind covers the same lines, many times slower.
        let compiler = if compiler.iter().any(|w| w.contains("valgrind")) {
            Vec::new()
        } else {
            compiler
        };
        let program = path.to_string_lossy().into_owned();
        let (invocation, env) = match assignments(&self.environment) {
            Some(env) => {
                let mut argv = compiler;
                argv.push(program);
                (Invocation::Argv(argv), env)
            }
            None => {
                let mut words = compiler;
                words.push(program);
                (
                    Invocation::Shell(format!(
                        "{} {}",
                        self.environment,
                        shell_words::join(&words)
                    )),
                    Vec::new(),
                )
            }
        };
        Ok(TestSpec {
            expect: Expectation {
                exit: Some(0),
                will_fail: self.expected_failures.iter().any(|t| t == test),
                skip_exit: Some(77),
                ..Expectation::default()
            },
            name,
            invocation,
            cwd,
            env,
            stdin: Vec::new(),
            timeout,
            location: None,
        })
    }
}

/// The variables an automake test environment sets, when it only sets
/// and exports variables (`srcdir=.; export srcdir;`); `None` when it
/// does more, and needs a shell.
fn assignments(environment: &str) -> Option<Vec<(String, String)>> {
    let mut env = Vec::new();
    for statement in environment.split(';') {
        let words = shell_words::split(statement).ok()?;
        match words.first().map(String::as_str) {
            None => {}
            Some("export") => {
                // `export NAME` or `export NAME=VALUE`.
                for w in &words[1..] {
                    if let Some((k, v)) = w.split_once('=') {
                        env.push((k.to_string(), v.to_string()));
                    }
                }
            }
            Some(_) => {
                for w in &words {
                    let (k, v) = w.split_once('=')?;
                    let name_like = !k.is_empty()
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        && !k.starts_with(|c: char| c.is_ascii_digit());
                    if !name_like {
                        return None;
                    }
                    env.push((k.to_string(), v.to_string()));
                }
            }
        }
    }
    Some(env)
}

/// The line of the root Makefile that assigns `TESTS` (none when
/// `[make] args` names another file with `-f`).
fn tests_defined_at(project: &Project) -> Option<Location> {
    let (name, text) = faultlens_workspace::detect::makefile(&project.root)?;
    let line = text
        .lines()
        .position(faultlens_workspace::detect::assigns_tests)?;
    Some(Location {
        file: name.to_string(),
        line: line as u32 + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_environment_of_assignments_and_exports_needs_no_shell() {
        assert_eq!(
            assignments("srcdir=.; export srcdir; LC_ALL=C TOP=/x;"),
            Some(vec![
                ("srcdir".into(), ".".into()),
                ("LC_ALL".into(), "C".into()),
                ("TOP".into(), "/x".into())
            ])
        );
        assert_eq!(assignments(""), Some(vec![]));
        assert_eq!(assignments(". ./setup.sh; X=1"), None);
        assert_eq!(assignments("env X=1"), None);
    }

    #[test]
    fn automake_directories_are_those_whose_makefile_am_has_tests() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (d, am) in [
            ("", "SUBDIRS = lib tests\n"),
            ("lib", "lib_LTLIBRARIES = libx.la\n"),
            ("tests", "TESTS = t1 t2\ncheck_PROGRAMS = t1\n"),
            ("tests/more", "TESTS = t3\n"),
            ("doc", "TESTS = nope\n"),
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
            std::fs::write(root.join(d).join("Makefile.am"), am).unwrap();
            if d != "doc" {
                std::fs::write(root.join(d).join("Makefile"), "").unwrap();
            }
        }
        assert_eq!(
            automake_dirs(root),
            [PathBuf::from("tests"), PathBuf::from("tests/more")]
        );
    }
}
