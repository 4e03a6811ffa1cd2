//! Tests written by `faultlens generate`: `.faultlens/generated-tests.toml`.
//!
//! The file holds `[[test]]` tables of the same form as `faultlens.toml`'s
//! (`name`, `args`, `stdin`, `expected_stdout`, `expected_exit`), so the user
//! can copy an entry into `faultlens.toml` to keep it. Io discovery reads the
//! file when it exists and runs its tests like any other; an entry whose name
//! `faultlens.toml` already declares (a copied one) is skipped there.

use crate::config::{line_of, IoTest};
use crate::error::{Result, WorkspaceError};
use crate::project::Project;
use faultlens_core::results::Location;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Name of the file under the project's `.faultlens/`.
pub const FILE: &str = "generated-tests.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratedFile {
    #[serde(default)]
    test: Vec<IoTest>,
}

/// One generated test, ready to become a [`crate::testspec::TestSpec`].
#[derive(Debug, Clone)]
pub struct GeneratedTest {
    pub name: String,
    pub args: Vec<String>,
    pub stdin: Vec<u8>,
    pub stdout: Option<Vec<u8>>,
    pub exit: Option<i32>,
    pub location: Location,
}

/// Where the generated tests of `project` are kept.
pub fn path(project: &Project) -> PathBuf {
    project.work_dir().join(FILE)
}

/// The generated tests, or none when the file does not exist.
pub fn read(project: &Project) -> Result<Vec<GeneratedTest>> {
    read_file(&path(project), &project.root)
}

/// What to do about a broken file: every later run reads it, `generate`
/// included, so the way out is deleting it.
pub const BROKEN_FILE_ADVICE: &str = "delete the file (it holds only tests `faultlens generate` wrote; copy any you want to keep into faultlens.toml first), then run again";

/// The file's text, bounded; `None` when it does not exist. It lies in
/// `.faultlens/`, which a repository can ship: a link there is refused.
pub fn read_text(path: &Path) -> Result<Option<String>> {
    let bad = |message: String| WorkspaceError::Config {
        path: path.to_path_buf(),
        message: format!("{message}; {BROKEN_FILE_ADVICE}"),
    };
    match faultlens_confine::read::read_regular_no_link(
        path,
        faultlens_confine::limits::GENERATED_TESTS,
    ) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| bad("it is not UTF-8 text".into())),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(bad(e.to_string())),
    }
}

fn read_file(path: &Path, root: &Path) -> Result<Vec<GeneratedTest>> {
    let Some(text) = read_text(path)? else {
        return Ok(Vec::new());
    };
    let bad = |message: String| WorkspaceError::Config {
        path: path.to_path_buf(),
        message: format!("{message}; {BROKEN_FILE_ADVICE}"),
    };
    let file: GeneratedFile = toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let relative = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    let mut tests = Vec::new();
    for t in file.test {
        if t.stdin_file.is_some() || t.expected_stdout_file.is_some() {
            return Err(bad(format!(
                "test {:?}: generated tests hold their data inline (stdin, expected_stdout), not in files",
                t.name
            )));
        }
        let line = line_of(&text, &format!("\"{}\"", t.name)).unwrap_or(1);
        tests.push(GeneratedTest {
            location: Location {
                file: relative.clone(),
                line,
            },
            stdin: t.stdin.unwrap_or_default().into_bytes(),
            stdout: t.expected_stdout.map(String::into_bytes),
            exit: t.expected_exit,
            args: t.args,
            name: t.name,
        });
    }
    Ok(tests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_is_no_tests() {
        let dir = tempfile::tempdir().unwrap();
        let tests = read_file(&dir.path().join(FILE), dir.path()).unwrap();
        assert!(tests.is_empty());
    }

    #[test]
    fn reads_entries_with_their_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".faultlens").join(FILE);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            "# generated\n[[test]]\nname = \"gen-sfo-1\"\nstdin = \"2 1 3\"\n\n[[test]]\nname = \"gen-sfo-2\"\nstdin = \"0\"\nexpected_exit = 0\n",
        )
        .unwrap();
        let tests = read_file(&path, dir.path()).unwrap();
        assert_eq!(tests.len(), 2);
        assert_eq!(tests[0].name, "gen-sfo-1");
        assert_eq!(tests[0].stdin, b"2 1 3");
        assert_eq!(tests[0].location.line, 3);
        assert_eq!(tests[0].location.file, ".faultlens/generated-tests.toml");
        assert_eq!(tests[1].exit, Some(0));
    }

    #[test]
    fn bad_file_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        std::fs::write(&path, "[[test]]\nname = 3\n").unwrap();
        let err = read_file(&path, dir.path()).unwrap_err().to_string();
        assert!(err.contains("faultlens generate"), "{err}");
    }
}
