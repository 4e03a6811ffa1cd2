//! Input/output tests: `[[test]]` tables and the compact `[tests]` forms,
//! declared in `faultlens.toml` and lowered to [`TestSpec`]s.

use crate::config::{line_of, IoTest, Kind, CONFIG_FILE};
use crate::error::{Result, WorkspaceError};
use crate::project::Project;
use crate::testspec::{Expectation, Invocation, TestSpec};
use faultlens_confine::limits;
use faultlens_core::results::Location;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Per-test timeout when neither the configuration nor the caller sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The tests a project declares, without building it (for `faultlens
/// tests`, the diagnosis and test generation): only input/output projects
/// declare theirs; `None` for the others, whose runner lists them.
pub fn discover_declared(project: &Project, timeout: Duration) -> Option<Result<Vec<TestSpec>>> {
    match project.kind {
        Kind::Io => Some(discover_unbuilt(project, timeout)),
        _ => None,
    }
}

/// The same tests before any build, for listing (`faultlens tests`).
pub fn discover_unbuilt(project: &Project, timeout: Duration) -> Result<Vec<TestSpec>> {
    let program = project
        .config
        .build
        .program
        .clone()
        .unwrap_or_else(|| "prog".into());
    // Where the build will put the program and where the tests will run.
    let (program, cwd) = if project.config.build.command.is_some() {
        let shadow = project.work_dir().join(crate::build_dirs::SHADOW);
        (shadow.join(program), shadow)
    } else {
        (
            project.work_dir().join("build").join(program),
            project.root.clone(),
        )
    };
    declared(project, &program, &cwd, timeout)
}

/// The `[[test]]` tables and compact `[tests]` forms as tests of `program`,
/// run in `cwd`.
pub fn declared(
    project: &Project,
    program: &Path,
    cwd: &Path,
    timeout: Duration,
) -> Result<Vec<TestSpec>> {
    let root = &project.root;
    let config_path = root.join(CONFIG_FILE);
    let config_text = std::fs::read_to_string(&config_path).unwrap_or_default();
    let compare = project.config.run.compare.unwrap_or_default();
    let make = |name: String,
                args: Vec<String>,
                stdin: Vec<u8>,
                stdout: Option<Vec<u8>>,
                exit: Option<i32>,
                location: Option<Location>| {
        let mut argv = vec![program.to_string_lossy().into_owned()];
        argv.extend(args);
        TestSpec {
            name,
            invocation: Invocation::Argv(argv),
            cwd: cwd.to_path_buf(),
            env: Vec::new(),
            stdin,
            expect: Expectation {
                exit: Some(exit.unwrap_or(0)),
                stdout,
                compare,
                ..Expectation::default()
            },
            timeout,
            location,
        }
    };

    let mut tests = Vec::new();
    for t in &project.config.tests {
        let location = line_of(&config_text, &format!("\"{}\"", t.name)).map(|line| Location {
            file: CONFIG_FILE.into(),
            line,
        });
        let (stdin, stdout) =
            io_test_data(t, root, &config_path).map_err(|e| match (e, &location) {
                (WorkspaceError::Config { path, message }, Some(loc)) => WorkspaceError::Config {
                    path,
                    message: format!("line {}: {message}", loc.line),
                },
                (e, _) => e,
            })?;
        tests.push(make(
            t.name.clone(),
            t.args.clone(),
            stdin,
            stdout,
            t.expected_exit,
            location,
        ));
    }
    if let Some(compact) = &project.config.compact {
        if let Some(pattern) = &compact.inputs {
            for case in crate::declared::inputs_glob(root, pattern)? {
                tests.push(make(
                    case.name,
                    case.args,
                    case.stdin,
                    Some(case.stdout),
                    case.exit,
                    Some(case.location),
                ));
            }
        }
        if let Some(table) = &compact.table {
            for case in table_file(root, table)? {
                tests.push(make(
                    case.name,
                    case.args,
                    Vec::new(),
                    Some(case.stdout),
                    case.exit,
                    Some(case.location),
                ));
            }
        }
    }
    // Tests written by `faultlens generate`; a copy kept in faultlens.toml wins.
    for g in crate::generated::read(project)? {
        if !tests.iter().any(|t| t.name == g.name) {
            tests.push(make(
                g.name,
                g.args,
                g.stdin,
                g.stdout,
                g.exit,
                Some(g.location),
            ));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for t in &tests {
        if !seen.insert(t.name.clone()) {
            return Err(WorkspaceError::Config {
                path: config_path,
                message: format!("two tests are named {:?}; rename one (names from [tests] inputs are file stems)", t.name),
            });
        }
    }
    Ok(tests)
}

fn read(root: &Path, path: &Path, what: &str, config_path: &Path) -> Result<Vec<u8>> {
    crate::files::read_in_project(root, path, limits::TEST_DATA).map_err(|e| {
        WorkspaceError::Config {
            path: config_path.to_path_buf(),
            message: format!("{what} cannot be read: {e}"),
        }
    })
}

fn io_test_data(t: &IoTest, root: &Path, config_path: &Path) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    let stdin = match (&t.stdin, &t.stdin_file) {
        (Some(s), _) => s.clone().into_bytes(),
        (None, Some(f)) => read(
            root,
            Path::new(f),
            &format!("test {:?}: stdin_file", t.name),
            config_path,
        )?,
        (None, None) => Vec::new(),
    };
    let stdout = match (&t.expected_stdout, &t.expected_stdout_file) {
        (Some(s), _) => Some(s.clone().into_bytes()),
        (None, Some(f)) => Some(read(
            root,
            Path::new(f),
            &format!("test {:?}: expected_stdout_file", t.name),
            config_path,
        )?),
        (None, None) => None,
    };
    Ok((stdin, stdout))
}

/// One test of the compact `[tests]` forms (public for the fuzz targets,
/// through [`parse_table`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub args: Vec<String>,
    pub stdin: Vec<u8>,
    pub stdout: Vec<u8>,
    pub exit: Option<i32>,
    pub location: Location,
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// `X.in` (stdin), `X.out` (expected stdout), optional `X.args` and `X.exit`.
fn inputs_glob(root: &Path, pattern: &str) -> Result<Vec<Case>> {
    let config_path = root.join(CONFIG_FILE);
    let full = root.join(pattern).to_string_lossy().into_owned();
    let paths = glob::glob(&full).map_err(|e| WorkspaceError::Config {
        path: config_path.clone(),
        message: format!("[tests] inputs = {pattern:?} is not a valid glob: {e}"),
    })?;
    let mut files: Vec<PathBuf> = paths.filter_map(|p| p.ok()).collect();
    files.sort();
    if files.is_empty() {
        return Err(WorkspaceError::Config {
            path: config_path.clone(),
            message: format!(
                "{}[tests] inputs = {pattern:?} matches no files in {}",
                line_of(
                    &std::fs::read_to_string(&config_path).unwrap_or_default(),
                    pattern
                )
                .map(|l| format!("line {l}: "))
                .unwrap_or_default(),
                root.display()
            ),
        });
    }
    let mut cases = Vec::new();
    for input in files {
        let out = input.with_extension("out");
        if !out.is_file() {
            return Err(WorkspaceError::Config {
                path: config_path.clone(),
                message: format!(
                    "{} has no expected output beside it: create {}",
                    relative(root, &input),
                    relative(root, &out)
                ),
            });
        }
        let name = input
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let small_file = |extension: &str| -> Result<Option<String>> {
            let path = input.with_extension(extension);
            crate::files::read_optional(root, &path, limits::TEST_LIST)
                .map(|bytes| bytes.map(|b| String::from_utf8_lossy(&b).into_owned()))
                .map_err(|e| WorkspaceError::Config {
                    path: path.clone(),
                    message: format!("cannot be read: {e}"),
                })
        };
        let args = match small_file("args")? {
            Some(text) => parse_args(&text, &input.with_extension("args"))?,
            None => Vec::new(),
        };
        let exit = match small_file("exit")? {
            Some(text) => Some(parse_exit(&text, &input.with_extension("exit"))?),
            None => None,
        };
        cases.push(Case {
            name,
            args,
            stdin: read(root, &input, "input", &config_path)?,
            stdout: read(root, &out, "expected output", &config_path)?,
            exit,
            location: Location {
                file: relative(root, &input),
                line: 1,
            },
        });
    }
    Ok(cases)
}

/// One test per line: `ARGS => EXPECTED_STDOUT [=> EXIT]`.
fn table_file(root: &Path, table: &str) -> Result<Vec<Case>> {
    let path = root.join(table);
    let bytes =
        crate::files::read_in_project(root, Path::new(table), limits::TEST_LIST).map_err(|e| {
            WorkspaceError::Config {
                path: root.join(CONFIG_FILE),
                message: format!("[tests] table = {table:?} cannot be read: {e}"),
            }
        })?;
    let text = faultlens_confine::utf8(&path, bytes).map_err(|e| WorkspaceError::Config {
        path: root.join(CONFIG_FILE),
        message: format!("[tests] table = {table:?}: {}", e.reason()),
    })?;
    let display = relative(root, &path);
    parse_table(&text, &path, &display)
}

/// The text of an `X.args` file as shell words; `path` is for messages.
pub fn parse_args(text: &str, path: &Path) -> Result<Vec<String>> {
    shell_words::split(text.trim()).map_err(|e| WorkspaceError::Config {
        path: path.to_path_buf(),
        message: format!("cannot split the arguments into shell words: {e}"),
    })
}

/// The text of an `X.exit` file as an exit status; `path` is for messages.
pub fn parse_exit(text: &str, path: &Path) -> Result<i32> {
    text.trim()
        .parse::<i32>()
        .map_err(|_| WorkspaceError::Config {
            path: path.to_path_buf(),
            message: format!(
                "expected an exit status (an integer), found {:?}",
                text.trim()
            ),
        })
}

/// The tests of a `[tests] table` file's text: `path` names the file in
/// messages and test names (its file name), `display` in locations. Pure
/// (no file is read), so the fuzz targets can call it.
pub fn parse_table(text: &str, path: &Path, display: &str) -> Result<Vec<Case>> {
    let file_name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let err = |message: String| WorkspaceError::Config {
            path: path.to_path_buf(),
            message: format!("line {line_no}: {message}"),
        };
        let parts = split_arrows(line);
        if parts.len() < 2 {
            return Err(err(format!(
                "expected `ARGS => EXPECTED_OUTPUT`, found {trimmed:?}"
            )));
        }
        if parts.len() > 3 {
            return Err(err(
                "more than two `=>` separators; an expected output that contains ` => ` needs the [[test]] form".into(),
            ));
        }
        let args = shell_words::split(parts[0].trim())
            .map_err(|e| err(format!("cannot split the arguments: {e}")))?;
        // An empty expectation means no output at all; otherwise a final
        // newline is implied.
        let mut stdout = unescape(parts[1]).map_err(err)?;
        if !stdout.is_empty() {
            stdout.push('\n');
        }
        let exit =
            match parts.get(2) {
                Some(e) => Some(e.trim().parse::<i32>().map_err(|_| {
                    err(format!("the exit status {:?} is not an integer", e.trim()))
                })?),
                None => None,
            };
        cases.push(Case {
            name: format!("{file_name}:{line_no}"),
            args,
            stdin: Vec::new(),
            stdout: stdout.into_bytes(),
            exit,
            location: Location {
                file: display.to_string(),
                line: line_no,
            },
        });
    }
    Ok(cases)
}

/// Splits a table line at each `=>` that stands alone (whitespace or the
/// line's end on both sides); one space around each separator belongs to
/// it, so `a =>  => 2` has an empty middle part.
fn split_arrows(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + 1 < bytes.len() {
        let alone = bytes[i] == b'='
            && bytes[i + 1] == b'>'
            && (i == 0 || bytes[i - 1].is_ascii_whitespace())
            && (i + 2 == bytes.len() || bytes[i + 2].is_ascii_whitespace());
        if alone {
            let end = if i > start && bytes[i - 1] == b' ' {
                i - 1
            } else {
                i
            };
            parts.push(&line[start..end]);
            start = if i + 2 < bytes.len() && bytes[i + 2] == b' ' {
                i + 3
            } else {
                i + 2
            };
            i = start;
        } else {
            i += 1;
        }
    }
    parts.push(&line[start.min(line.len())..]);
    parts
}

fn unescape(s: &str) -> std::result::Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                return Err(format!("unknown escape `\\{other}` (use \\n, \\t or \\\\)"))
            }
            None => return Err("a lone `\\` ends the line".into()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lines_become_named_cases() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("cases.txt"),
            "# comment\n3 1 2 => 2\n\n'a b' => x\\ty\\n => 1\n",
        )
        .unwrap();
        let cases = table_file(dir.path(), "cases.txt").unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].name, "cases.txt:2");
        assert_eq!(cases[0].args, vec!["3", "1", "2"]);
        assert_eq!(cases[0].stdout, b"2\n");
        assert_eq!(cases[1].args, vec!["a b"]);
        assert_eq!(cases[1].stdout, b"x\ty\n\n");
        assert_eq!(cases[1].exit, Some(1));
        assert_eq!(cases[1].location.line, 4);
    }

    #[test]
    fn an_empty_expectation_means_no_output_and_stray_arrows_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.txt"), "bogus =>  => 2\nquiet =>\n").unwrap();
        let cases = table_file(dir.path(), "t.txt").unwrap();
        assert_eq!(
            (cases[0].stdout.as_slice(), cases[0].exit),
            (&b""[..], Some(2))
        );
        assert_eq!(cases[1].stdout, b"");
        std::fs::write(dir.path().join("u.txt"), "a => b => 1 => 2\n").unwrap();
        let err = table_file(dir.path(), "u.txt").err().unwrap().to_string();
        assert!(
            err.contains("line 1") && err.contains("more than two"),
            "{err}"
        );
    }

    #[test]
    fn a_malformed_table_line_is_reported_with_its_number() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.txt"), "1 2 => 3\nno arrow here\n").unwrap();
        let err = table_file(dir.path(), "t.txt").err().unwrap().to_string();
        assert!(
            err.contains("line 2") && err.contains("ARGS => EXPECTED_OUTPUT"),
            "{err}"
        );
    }

    #[test]
    fn an_input_without_output_is_an_error_naming_the_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tests")).unwrap();
        std::fs::write(dir.path().join("tests/a.in"), "x").unwrap();
        let err = inputs_glob(dir.path(), "tests/*.in")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("tests/a.out"), "{err}");
    }
}
