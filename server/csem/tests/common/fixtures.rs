//! Reading the io fixtures' tests (faultlens.toml `[[test]]`, `[tests]` inputs
//! and tables, auto-detected `tests/*.in`) as plain data, for the differential
//! tests and the benchmark.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The io fixtures under `fixtures/`, sorted.
pub fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixtures/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

pub struct FixtureTest {
    pub name: String,
    pub args: Vec<String>,
    pub stdin: Vec<u8>,
    /// Expected stdout; not checked when absent.
    pub expected_stdout: Option<Vec<u8>>,
    pub expected_exit: i32,
}

/// `\n`, `\t`, `\\` escapes of a table's expected output.
fn unescape_table(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push(b'\n'),
                Some('t') => out.push(b'\t'),
                Some('\\') => out.push(b'\\'),
                Some(o) => {
                    out.push(b'\\');
                    out.extend(o.to_string().bytes());
                }
                None => out.push(b'\\'),
            }
        } else {
            out.extend(c.to_string().bytes());
        }
    }
    out
}

/// POSIX shell words: quotes and backslashes, no expansions.
pub fn shell_words(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                in_word = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            cur.push(chars.next().unwrap())
                        }
                        d => cur.push(d),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(d) = chars.next() {
                    cur.push(d);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

fn glob_inputs(dir: &Path, pattern: &str) -> Vec<FixtureTest> {
    // Patterns in the fixtures have the form `DIR/*.in`.
    let (sub, _) = pattern.rsplit_once('/').unwrap_or((".", pattern));
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir.join(sub)) else {
        return out;
    };
    let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    for f in files {
        if f.extension().is_some_and(|e| e == "in") {
            let stem = f.file_stem().unwrap().to_string_lossy().to_string();
            let args_file = f.with_extension("args");
            let args = std::fs::read_to_string(&args_file)
                .map(|a| shell_words(&a))
                .unwrap_or_default();
            let expected_stdout = std::fs::read(f.with_extension("out")).ok();
            let expected_exit = std::fs::read_to_string(f.with_extension("exit"))
                .ok()
                .and_then(|e| e.trim().parse().ok())
                .unwrap_or(0);
            out.push(FixtureTest {
                name: stem,
                args,
                stdin: std::fs::read(&f).unwrap(),
                expected_stdout,
                expected_exit,
            });
        }
    }
    out
}

/// Sources and tests of an io fixture; None for ctest/runner fixtures.
pub fn fixture(dir: &Path) -> Option<(Vec<PathBuf>, Vec<String>, Vec<FixtureTest>)> {
    let toml_path = dir.join("faultlens.toml");
    let top_c = || -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| PathBuf::from(e.file_name()))
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        v.sort();
        v
    };
    if !toml_path.exists() {
        if dir.join("CMakeLists.txt").exists() {
            return None;
        }
        return Some((top_c(), vec![], glob_inputs(dir, "tests/*.in")));
    }
    let doc: toml::Value = toml::from_str(&std::fs::read_to_string(&toml_path).unwrap()).unwrap();
    if doc.get("runner").is_some() || doc.get("ctest").is_some() {
        return None;
    }
    let build = doc.get("build")?;
    let sources: Vec<PathBuf> = match build.get("sources").and_then(|s| s.as_array()) {
        Some(a) => a
            .iter()
            .map(|s| PathBuf::from(s.as_str().unwrap()))
            .collect(),
        // A `command` build (make): every top-level C file, with C11 like its Makefile.
        None => top_c(),
    };
    let mut cflags: Vec<String> = build
        .get("cflags")
        .and_then(|c| c.as_array())
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    if build.get("command").is_some() {
        cflags.push("-std=c11".into());
    }
    let mut tests = Vec::new();
    for t in doc
        .get("test")
        .and_then(|t| t.as_array())
        .into_iter()
        .flatten()
    {
        let args = t
            .get("args")
            .and_then(|a| a.as_array())
            .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        let stdin = match (t.get("stdin"), t.get("stdin_file")) {
            (Some(s), _) => s.as_str().unwrap().as_bytes().to_vec(),
            (None, Some(f)) => std::fs::read(dir.join(f.as_str().unwrap())).unwrap(),
            _ => vec![],
        };
        let expected_stdout = match (t.get("expected_stdout"), t.get("expected_stdout_file")) {
            (Some(s), _) => Some(s.as_str().unwrap().as_bytes().to_vec()),
            (None, Some(f)) => Some(std::fs::read(dir.join(f.as_str().unwrap())).unwrap()),
            _ => None,
        };
        let expected_exit = t
            .get("expected_exit")
            .and_then(|e| e.as_integer())
            .unwrap_or(0) as i32;
        tests.push(FixtureTest {
            name: t["name"].as_str().unwrap().to_string(),
            args,
            stdin,
            expected_stdout,
            expected_exit,
        });
    }
    if let Some(ts) = doc.get("tests") {
        if let Some(pat) = ts.get("inputs").and_then(|p| p.as_str()) {
            tests.extend(glob_inputs(dir, pat));
        }
        if let Some(table) = ts.get("table").and_then(|p| p.as_str()) {
            let text = std::fs::read_to_string(dir.join(table)).unwrap();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() || line.trim_start().starts_with('#') {
                    continue;
                }
                let parts: Vec<&str> = line.split(" => ").collect();
                let args = parts[0];
                let mut expected_stdout = unescape_table(parts.get(1).copied().unwrap_or(""));
                expected_stdout.push(b'\n');
                let expected_exit = parts
                    .get(2)
                    .and_then(|e| e.trim().parse().ok())
                    .unwrap_or(0);
                let fname = Path::new(table)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                tests.push(FixtureTest {
                    name: format!("{fname}:{}", i + 1),
                    args: shell_words(args),
                    stdin: vec![],
                    expected_stdout: Some(expected_stdout),
                    expected_exit,
                });
            }
        }
    }
    Some((sources, cflags, tests))
}
