//! Reusing the last coverage build of `[build] sources` when nothing it was
//! made from changed, as make would: the same compiler (and its
//! environment), flags, runtime and sources list, and every file the
//! compiler read (its dependency lists, system headers included) or the
//! linker flags name, with the same size and time. A file changed so
//! shortly before the build that a second change could keep its time
//! (the file system's clock is coarse) leaves no stamp: the next run
//! builds again.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const STAMP: &str = "stamp.json";
/// How long before a build a file's last change must lie to be trusted.
const SETTLED: Duration = Duration::from_millis(100);
const SETTLED_COARSE: Duration = Duration::from_secs(2);

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Stamp {
    key: String,
    /// Every file the compiler read: path, size, modification time (ns).
    inputs: Vec<(PathBuf, u64, u128)>,
}

/// Variables that change what the compiler reads or runs without a file
/// of its dependency lists changing.
const COMPILER_ENV: [&str; 5] = [
    "CPATH",
    "C_INCLUDE_PATH",
    "GCC_EXEC_PREFIX",
    "COMPILER_PATH",
    "LIBRARY_PATH",
];

/// What identifies a build besides its input files: `parts` and the
/// compiler's environment.
pub fn key(parts: &[&str]) -> String {
    let mut text = format!("faultlens {}", env!("CARGO_PKG_VERSION"));
    for part in parts {
        text.push('\0');
        text.push_str(part);
    }
    for name in COMPILER_ENV {
        text.push('\0');
        text.push_str(&std::env::var(name).unwrap_or_default());
    }
    faultlens_core::sources::digest(text.as_bytes())
}

/// Whether the build in `build_dir` was made with `key` from files that
/// are all as they were, and `outputs` are all there.
pub fn current(build_dir: &Path, key: &str, outputs: &[PathBuf]) -> bool {
    let Ok(bytes) = faultlens_confine::read_regular_no_link(&build_dir.join(STAMP), 16 << 20)
    else {
        return false;
    };
    let Ok(stamp) = serde_json::from_slice::<Stamp>(&bytes) else {
        return false;
    };
    stamp.key == key
        && !stamp.inputs.is_empty()
        && outputs.iter().all(|o| o.is_file())
        && stamp
            .inputs
            .iter()
            .all(|(path, size, time)| identity(path) == Some((*size, *time)))
}

/// Forgets the stamp: the build about to start replaces what it described.
pub fn forget(build_dir: &Path) {
    let _ = std::fs::remove_file(build_dir.join(STAMP));
}

/// Records the build just made with `key` from the files its dependency
/// lists (`.d` files) name and the `others` it read (files the linker
/// flags name), all relative to `cwd`, unless one of them changed after or
/// just before `started`.
pub fn record(
    build_dir: &Path,
    key: &str,
    dependency_lists: &[PathBuf],
    others: &[PathBuf],
    cwd: &Path,
    started: SystemTime,
) {
    let mut names: Vec<PathBuf> = others.to_vec();
    for list in dependency_lists {
        let Ok(text) = faultlens_confine::read_regular_text(list, 16 << 20) else {
            return;
        };
        names.extend(dependencies(&text).into_iter().map(PathBuf::from));
    }
    let mut inputs = Vec::new();
    for name in names {
        let path = cwd.join(name);
        let Some((size, time)) = identity(&path) else {
            return;
        };
        let changed = UNIX_EPOCH + Duration::from_nanos(time.min(u64::MAX as u128) as u64);
        // Whole-second times (no nanoseconds) tick too coarsely for the
        // short wait.
        let needed = if time % 1_000_000_000 == 0 {
            SETTLED_COARSE
        } else {
            SETTLED
        };
        if changed + needed > started {
            return;
        }
        inputs.push((path, size, time));
    }
    inputs.sort();
    inputs.dedup();
    let stamp = Stamp {
        key: key.to_string(),
        inputs,
    };
    if let Ok(text) = serde_json::to_vec(&stamp) {
        let _ = std::fs::write(build_dir.join(STAMP), text);
    }
}

fn identity(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    let time = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some((meta.len(), time.as_nanos()))
}

/// The files a make-style dependency list (`obj.o: a.c b.h \`) names.
fn dependencies(text: &str) -> Vec<String> {
    let joined = text.replace("\\\n", " ");
    let mut out = Vec::new();
    for rule in joined.lines() {
        let Some((_, inputs)) = rule.split_once(": ") else {
            continue;
        };
        let mut current = String::new();
        let mut chars = inputs.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => {
                    current.push(' ');
                    chars.next();
                }
                ' ' | '\t' => {
                    if !current.is_empty() {
                        out.push(std::mem::take(&mut current));
                    }
                }
                other => current.push(other),
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_lists_are_read_as_make_writes_them() {
        let text = "obj/a.c.o: a.c inc/b.h /usr/include/stdio.h \\\n  dir\\ with\\ space/c.h\n";
        assert_eq!(
            dependencies(text),
            [
                "a.c",
                "inc/b.h",
                "/usr/include/stdio.h",
                "dir with space/c.h"
            ]
        );
    }

    #[test]
    fn a_build_is_current_until_an_input_or_the_key_changes() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("a.c");
        std::fs::write(&source, "int main(void) { return 0; }\n").unwrap();
        let list = dir.path().join("a.d");
        std::fs::write(&list, "a.o: a.c\n").unwrap();
        let output = dir.path().join("a.o");
        std::fs::write(&output, "object").unwrap();
        let outputs = [output.clone()];

        // Just written: too recent to trust, no stamp.
        record(
            dir.path(),
            "k",
            std::slice::from_ref(&list),
            &[],
            dir.path(),
            SystemTime::now(),
        );
        assert!(!current(dir.path(), "k", &outputs));

        let later = SystemTime::now() + Duration::from_secs(1);
        record(
            dir.path(),
            "k",
            std::slice::from_ref(&list),
            &[],
            dir.path(),
            later,
        );
        assert!(current(dir.path(), "k", &outputs));
        assert!(!current(dir.path(), "another key", &outputs));
        std::fs::remove_file(&output).unwrap();
        assert!(!current(dir.path(), "k", &outputs), "an output is missing");
        std::fs::write(&output, "object").unwrap();
        std::fs::write(&source, "int main(void) { return 1; }\n").unwrap();
        assert!(!current(dir.path(), "k", &outputs), "the source changed");
        forget(dir.path());
        assert!(!current(dir.path(), "k", &outputs));
    }
}
