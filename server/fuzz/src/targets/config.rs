//! `faultlens.toml` and `.faultlens/generated-tests.toml`: `Config::parse`,
//! `Project::load` on a directory holding the input (the bounded, checked
//! read, detection, semantic checks), io test discovery without a build
//! (`[[test]]` data files, `[tests] inputs` globs, tables), and the reader
//! of generated tests. No command is ever run: discovery is only asked of
//! input/output projects, whose discovery reads files.

use super::{mutate_lines, repeat, ODD_VALUES};
use crate::{shape, Rng, Target};
use faultlens_workspace::config::{Config, Kind};
use faultlens_workspace::{declared, generated, Project};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

pub fn target() -> Target {
    Target {
        name: "config",
        about:
            "faultlens.toml (Config::parse, Project::load, io discovery) and generated-tests.toml",
        run,
        generate,
        dictionary: DICTIONARY,
        max_len: 64 * 1024,
        hang_limit: Duration::from_secs(2),
        ci_inputs: 1500,
    }
}

const DICTIONARY: &[&[u8]] = &[
    b"[project]",
    b"[build]",
    b"[run]",
    b"[[test]]",
    b"[tests]",
    b"[ctest]",
    b"[runner]",
    b"kind = \"io\"",
    b"kind = \"ctest\"",
    b"kind = \"runner\"",
    b"test_code = [\"tests/**\"]",
    b"exclude = [\"x\"]",
    b"include_test_code = true",
    b"sources = [\"prog.c\"]",
    b"command = \"make\"",
    b"program = \"prog\"",
    b"cc = \"gcc\"",
    b"cflags = [\"-Iinclude\"]",
    b"ldflags = [\"-lm\"]",
    b"coverage = \"clang\"",
    b"timeout = 10",
    b"jobs = 2",
    b"output_limit = 1048576",
    b"compare = \"trim\"",
    b"name = \"t\"",
    b"args = [\"1\", \"2\"]",
    b"stdin = \"x\"",
    b"stdin_file = \"tests/a.in\"",
    b"expected_stdout = \"2\\n\"",
    b"expected_stdout_file = \"tests/a.out\"",
    b"expected_exit = 1",
    b"inputs = \"tests/*.in\"",
    b"table = \"tests/cases.txt\"",
    b"cmake_args = []",
    b"list = \"./run --list\"",
    b"run = \"./run {name}\"",
    b"=",
    b"\"\"\"",
    b"'''",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b".",
    b"#",
];

/// Lines the generator inserts: a section, or a key of some section with
/// an ordinary or odd value.
const KEYS: &[&str] = &[
    "kind",
    "test_code",
    "exclude",
    "include_test_code",
    "sources",
    "command",
    "program",
    "cc",
    "cflags",
    "ldflags",
    "coverage",
    "timeout",
    "jobs",
    "output_limit",
    "compare",
    "name",
    "args",
    "stdin",
    "stdin_file",
    "expected_stdout",
    "expected_stdout_file",
    "expected_exit",
    "inputs",
    "table",
    "cmake_args",
    "build_args",
    "list",
    "run",
    "unknown_key",
];

const SECTIONS: &[&str] = &[
    "[project]",
    "[build]",
    "[run]",
    "[[test]]",
    "[tests]",
    "[ctest]",
    "[runner]",
    "[[tests]]",
    "[test]",
    "[build.x]",
    "[[build]]",
];

const VALUES: &[&str] = &[
    "\"io\"",
    "\"ctest\"",
    "\"runner\"",
    "\"clang\"",
    "\"gcov\"",
    "\"trim\"",
    "\"exact\"",
    "[\"prog.c\"]",
    "[\"tests/*.in\"]",
    "\"tests/*.in\"",
    "\"tests/**/*.in\"",
    "\"tests/cases.txt\"",
    "\"tests/a.in\"",
    "\"tests/missing\"",
    "\"prog\"",
    "\"./run {name}\"",
    "\"sh -c 'echo {name}'\"",
    "10",
    "0.001",
    "[\"-DX\", \"\"]",
];

fn line(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => rng.pick(SECTIONS).to_string(),
        1 => format!(
            "{} = {}",
            rng.pick(KEYS),
            if rng.one_in(2) {
                rng.pick(VALUES)
            } else {
                rng.pick(ODD_VALUES)
            }
        ),
        2 => {
            let unit = rng.pick(&["t", "é", "\\u0007", " ", "'"]);
            format!("name = \"{}\"", repeat(rng, unit))
        }
        _ => {
            let (key, unit) = (rng.pick(KEYS), rng.pick(&["../", "a/", "*", "{name}"]));
            format!("{key} = \"{}\"", repeat(rng, unit))
        }
    }
}

fn generate(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let base = if corpus.is_empty() || rng.one_in(6) {
        String::new()
    } else {
        String::from_utf8_lossy(&rng.pick(corpus)).into_owned()
    };
    if rng.one_in(20) {
        // Many tests (duplicates among them): the checks must stay fast.
        let mut text = String::from("[build]\nsources = [\"prog.c\"]\n");
        for i in 0..rng.range(100, 3000) {
            text.push_str(&format!(
                "[[test]]\nname = \"t{}\"\nargs = [\"{i}\"]\nstdin_file = \"tests/a.in\"\n",
                rng.below(5000)
            ));
        }
        return text.into_bytes();
    }
    mutate_lines(rng, &base, &mut line, VALUES).into_bytes()
}

/// A project directory the target writes its inputs into: a program, data
/// files for `[[test]]` and `[tests]` (a table, an input with `.args` and
/// `.exit`), and `.faultlens/`.
fn workspace() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("faultlens-fuzz-config-")
            .tempdir()
            .expect("a temporary directory")
            .keep();
        let files: &[(&str, &str)] = &[
            ("prog.c", "int main(void) { return 0; }\n"),
            ("tests/a.in", "1 2 3\n"),
            ("tests/a.out", "2\n"),
            ("tests/a.args", "-x 'y z'\n"),
            ("tests/a.exit", "1\n"),
            ("tests/b.in", ""),
            ("tests/b.out", ""),
            ("tests/cases.txt", "1 2 => 3\n# c\n'a b' => x\\ty => 2\n"),
        ];
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::create_dir_all(dir.join(".faultlens")).unwrap();
        dir.canonicalize().unwrap()
    })
}

/// The project that reads generated tests: a fixed, valid one.
fn generated_project() -> &'static Project {
    static PROJECT: OnceLock<Project> = OnceLock::new();
    PROJECT.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("faultlens-fuzz-generated-")
            .tempdir()
            .expect("a temporary directory")
            .keep();
        std::fs::write(
            dir.join("faultlens.toml"),
            "[build]\nsources = [\"p.c\"]\n[[test]]\nname = \"own\"\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.join(".faultlens")).unwrap();
        Project::load(&dir).expect("the fixed project loads")
    })
}

pub fn run(data: &[u8]) -> String {
    let text = String::from_utf8_lossy(data);
    let mut signature = String::new();
    match Config::parse(&text, Path::new("faultlens.toml")) {
        Ok(config) => {
            // Hold what the checks promise.
            if let Some(t) = config.run.timeout {
                assert!(
                    t.is_finite() && t > 0.0,
                    "Config::parse accepted the timeout {t}"
                );
            }
            signature.push_str("parse ok");
        }
        Err(e) => signature.push_str(&shape(&e.to_string())),
    }

    // The same bytes as a project's faultlens.toml.
    let root = workspace();
    std::fs::write(root.join("faultlens.toml"), data).unwrap();
    match Project::load(root) {
        Ok(project) => {
            signature.push_str(&format!("\nload {:?}", project.kind));
            if project.kind == Kind::Io {
                match declared::discover_declared(&project, Duration::from_secs(10)) {
                    Some(Ok(tests)) => {
                        let names: std::collections::HashSet<_> =
                            tests.iter().map(|t| &t.name).collect();
                        assert_eq!(
                            names.len(),
                            tests.len(),
                            "discovery returned two tests of one name"
                        );
                        signature.push_str(&format!("\n{} tests", tests.len().min(3)));
                    }
                    Some(Err(e)) => signature.push_str(&format!("\n{}", shape(&e.to_string()))),
                    None => panic!("io discovery needs no build"),
                }
            }
        }
        Err(e) => signature.push_str(&format!("\n{}", shape(&e.to_string()))),
    }

    // The same bytes as `.faultlens/generated-tests.toml`.
    let project = generated_project();
    let path = generated::path(project);
    std::fs::write(&path, data).unwrap();
    match generated::read(project) {
        Ok(tests) => signature.push_str(&format!("\ngenerated {}", tests.len().min(3))),
        Err(e) => signature.push_str(&format!("\n{}", shape(&e.to_string()))),
    }
    signature
}
