//! The tests CTest would run, read from the `CTestTestfile.cmake` files of
//! faultlens's coverage build (no process runs: the files are CMake's own
//! record of `add_test`, `set_tests_properties` and `subdirs`).

use super::declared::DeclaredTest;
use std::path::Path;

/// Test files read at most (one per build directory with tests).
const MAX_FILES: usize = 256;

/// The tests declared under `dir`; `read` gives a file's text (`None`
/// when it does not exist).
pub fn tests_under(dir: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Vec<DeclaredTest> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    let mut files = 0;
    while let Some(d) = todo.pop() {
        files += 1;
        if files > MAX_FILES {
            break;
        }
        let Some(text) = read(&d.join("CTestTestfile.cmake")) else {
            continue;
        };
        let mut here: Vec<DeclaredTest> = Vec::new();
        let mut sub = Vec::new();
        for (command, args) in commands(&text) {
            match command.to_ascii_lowercase().as_str() {
                "add_test" if args.len() >= 2 => here.push(DeclaredTest {
                    name: args[0].clone(),
                    argv: args[1..].to_vec(),
                    cwd: d.clone(),
                    env: Vec::new(),
                    judged_by: None,
                }),
                "set_tests_properties" => {
                    let Some(props) = args.iter().position(|a| a == "PROPERTIES") else {
                        continue;
                    };
                    let names = &args[..props];
                    let mut pairs = args[props + 1..].chunks(2);
                    while let Some([key, value]) = pairs.next() {
                        for t in here.iter_mut().filter(|t| names.contains(&t.name)) {
                            set_property(t, &d, key, value);
                        }
                    }
                }
                // Inside the build directory only (CMake writes relative
                // names; a `..` or an absolute one is not its own).
                "subdirs" => sub.extend(
                    args.iter()
                        .filter(|a| {
                            let p = Path::new(a.as_str());
                            p.is_relative()
                                && p.components()
                                    .all(|c| matches!(c, std::path::Component::Normal(_)))
                        })
                        .map(|a| d.join(a)),
                ),
                _ => {}
            }
        }
        out.extend(here);
        // Depth first, in the order CMake lists the directories.
        todo.extend(sub.into_iter().rev());
    }
    out
}

fn set_property(t: &mut DeclaredTest, dir: &Path, key: &str, value: &str) {
    match key {
        "WORKING_DIRECTORY" => t.cwd = dir.join(value),
        "ENVIRONMENT" => t.env.extend(value.split(';').filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            Some((k.to_string(), v.to_string()))
        })),
        "WILL_FAIL" if is_true(value) => {
            t.judged_by.get_or_insert_with(|| "WILL_FAIL".into());
        }
        "PASS_REGULAR_EXPRESSION"
        | "FAIL_REGULAR_EXPRESSION"
        | "SKIP_REGULAR_EXPRESSION"
        | "SKIP_RETURN_CODE" => {
            t.judged_by.get_or_insert_with(|| key.to_string());
        }
        _ => {}
    }
}

/// CMake's truth: `1`, `ON`, `YES`, `TRUE`, `Y`, or a non-zero number.
fn is_true(value: &str) -> bool {
    let v = value.to_ascii_uppercase();
    matches!(v.as_str(), "1" | "ON" | "YES" | "TRUE" | "Y")
        || v.parse::<f64>().is_ok_and(|n| n != 0.0)
}

/// The commands of a CMake script with their arguments: quoted (`"..."`,
/// with backslash escapes), bracketed (`[=[...]=]`) or bare.
fn commands(text: &str) -> Vec<(String, Vec<String>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if !(b[i].is_ascii_alphabetic() || b[i] == b'_') {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let name = text[start..i].to_string();
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if i >= b.len() || b[i] != b'(' {
            continue;
        }
        i += 1;
        let mut args = Vec::new();
        loop {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= b.len() {
                break;
            }
            match b[i] {
                b')' => {
                    i += 1;
                    break;
                }
                b'"' => {
                    i += 1;
                    let mut s = Vec::new();
                    while i < b.len() && b[i] != b'"' {
                        if b[i] == b'\\' && i + 1 < b.len() {
                            i += 1;
                            s.push(match b[i] {
                                b'n' => b'\n',
                                b't' => b'\t',
                                c => c,
                            });
                        } else {
                            s.push(b[i]);
                        }
                        i += 1;
                    }
                    i += 1;
                    args.push(String::from_utf8_lossy(&s).into_owned());
                }
                b'[' if bracket_open(&b[i..]).is_some() => {
                    let level = bracket_open(&b[i..]).unwrap_or(0);
                    i += level + 2;
                    let close = format!("]{}]", "=".repeat(level));
                    let end = text[i..].find(&close).map_or(b.len(), |k| i + k);
                    args.push(text[i..end].to_string());
                    i = (end + close.len()).min(b.len());
                }
                _ => {
                    let s = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b')' {
                        i += 1;
                    }
                    args.push(text[s..i].to_string());
                }
            }
        }
        out.push((name, args));
    }
    out
}

/// The level (number of `=`) of a bracket argument opening at `b[0]`.
fn bracket_open(b: &[u8]) -> Option<usize> {
    let eq = b[1..].iter().take_while(|c| **c == b'=').count();
    (b.get(1 + eq) == Some(&b'[')).then_some(eq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::path::PathBuf;

    #[test]
    fn tests_properties_and_subdirectories_are_read() {
        let files: HashMap<PathBuf, String> = [
            (
                "/b/CTestTestfile.cmake",
                "# CMake generated Testfile\nadd_test(stack \"/b/check_stack\")\n\
                 set_tests_properties(stack PROPERTIES  _BACKTRACE_TRIPLES \"/s/CMakeLists.txt;15;add_test\")\n\
                 subdirs(\"tests\")\n",
            ),
            (
                "/b/tests/CTestTestfile.cmake",
                "add_test([=[two words]=] \"/b/tests/t\" \"--flag\" \"a \\\"quoted\\\" arg\")\n\
                 set_tests_properties([=[two words]=] PROPERTIES  WORKING_DIRECTORY \"/data\" ENVIRONMENT \"A=1;B=x=y\")\n\
                 add_test(inverted \"/b/tests/t\")\n\
                 set_tests_properties(inverted PROPERTIES  WILL_FAIL \"TRUE\")\n",
            ),
        ]
        .into_iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
        let tests = tests_under(Path::new("/b"), &|p| files.get(p).cloned());
        assert_eq!(
            tests,
            [
                DeclaredTest {
                    name: "stack".into(),
                    argv: vec!["/b/check_stack".into()],
                    cwd: "/b".into(),
                    env: vec![],
                    judged_by: None,
                },
                DeclaredTest {
                    name: "two words".into(),
                    argv: vec![
                        "/b/tests/t".into(),
                        "--flag".into(),
                        "a \"quoted\" arg".into()
                    ],
                    cwd: "/data".into(),
                    env: vec![("A".into(), "1".into()), ("B".into(), "x=y".into())],
                    judged_by: None,
                },
                DeclaredTest {
                    name: "inverted".into(),
                    argv: vec!["/b/tests/t".into()],
                    cwd: "/b/tests".into(),
                    env: vec![],
                    judged_by: Some("WILL_FAIL".into()),
                },
            ]
        );
    }
}
