//! Differential test: on every test of every io fixture under `fixtures/`,
//! the interpreter's stdout and exit status equal the gcc-built program's.
//! Tests on which the model reports undefined behaviour (the native run
//! then crashes or prints garbage) are counted, printed, and not compared.

mod common;
use common::{compare_one, gcc_build, Verdict};
use faultlens_csem::{load, CsemError, SourceSpec};
use std::path::{Path, PathBuf};

struct FixtureTest {
    name: String,
    args: Vec<String>,
    stdin: Vec<u8>,
}

/// POSIX shell words: quotes and backslashes, no expansions.
fn shell_words(s: &str) -> Vec<String> {
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
            out.push(FixtureTest {
                name: stem,
                args,
                stdin: std::fs::read(&f).unwrap(),
            });
        }
    }
    out
}

/// Sources and tests of an io fixture; None for ctest/runner fixtures.
fn fixture(dir: &Path) -> Option<(Vec<PathBuf>, Vec<String>, Vec<FixtureTest>)> {
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
        tests.push(FixtureTest {
            name: t["name"].as_str().unwrap().to_string(),
            args,
            stdin,
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
                let args = line.split(" => ").next().unwrap();
                let fname = Path::new(table)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                tests.push(FixtureTest {
                    name: format!("{fname}:{}", i + 1),
                    args: shell_words(args),
                    stdin: vec![],
                });
            }
        }
    }
    Some((sources, cflags, tests))
}

#[test]
fn interpreter_agrees_with_gcc_on_every_fixture_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixtures/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let (mut agree, mut model_errors, mut disagree) = (0, 0, Vec::new());
    let mut unsupported = Vec::new();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let Some((sources, cflags, tests)) = fixture(&dir) else {
            eprintln!("{name}: not an io fixture, skipped");
            continue;
        };
        let spec = SourceSpec {
            root: dir.clone(),
            sources: sources.clone(),
            cc: "gcc".into(),
            cflags: cflags.clone(),
        };
        let prog = match load(&spec) {
            Ok(p) => p,
            Err(e @ CsemError::Unsupported { .. }) => {
                eprintln!("{name}: {e}");
                unsupported.push(name);
                continue;
            }
            Err(e) => panic!("{name}: the model cannot load a fixture gcc compiles: {e}"),
        };
        let out = tempfile::tempdir().unwrap();
        let bin = out.path().join(&name);
        gcc_build(&dir, &sources, &cflags, &bin).unwrap_or_else(|e| panic!("{name}: gcc: {e}"));
        let (mut a, mut m) = (0, 0);
        let started = std::time::Instant::now();
        for t in &tests {
            match compare_one(&prog, &bin, &dir, &t.args, &t.stdin) {
                Verdict::Agree => a += 1,
                // The model stops on undefined behaviour or a hang: natively that must be a crash or a kill.
                Verdict::ModelError {
                    message,
                    native_code,
                } if native_code >= 128 => {
                    eprintln!(
                        "{name}/{}: model reports {message}; native status {native_code}",
                        t.name
                    );
                    m += 1;
                }
                Verdict::ModelError {
                    message,
                    native_code,
                } => disagree.push(format!(
                    "{name}/{}: model reports {message} but the native program exits {native_code}",
                    t.name
                )),
                Verdict::Disagree(d) => disagree.push(format!("{name}/{}: {d}", t.name)),
            }
        }
        eprintln!(
            "{name}: {a} of {} tests agree, {m} stopped by the model ({:.1?})",
            tests.len(),
            started.elapsed()
        );
        agree += a;
        model_errors += m;
    }
    eprintln!("total: {agree} agree, {model_errors} stopped by the model, {} disagree; unsupported fixtures: {unsupported:?}", disagree.len());
    assert!(
        disagree.is_empty(),
        "the model disagrees with gcc:\n{}",
        disagree.join("\n")
    );
    assert!(
        agree >= 100,
        "too few fixture tests compared ({agree}); did fixtures/ move?"
    );
}
