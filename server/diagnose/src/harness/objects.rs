//! Which compilations make up a test executable. A `--coverage` object
//! carries the path of its `.gcda` file (where it writes its counters at
//! exit) as a string, so the executable names every object linked into it;
//! the compilation database says which source and flags made each object.

use faultlens_csem::compile_db::Entry;
use std::path::{Path, PathBuf};

/// The longest path read back from a `.gcda` suffix (Linux's PATH_MAX).
const MAX_PATH: usize = 4096;
/// Objects one executable is taken to link at most.
const MAX_OBJECTS: usize = 10_000;

/// The `.gcda` paths named in an executable's bytes, in order, each once.
pub fn gcda_paths(executable: &[u8]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let suffix = b".gcda";
    let mut from = 0;
    while let Some(at) = find(&executable[from..], suffix) {
        let end = from + at + suffix.len();
        from = end;
        // The string runs back to the NUL (or other non-path byte) before
        // it, at most a path's length.
        let window = end.saturating_sub(MAX_PATH)..end;
        let start = executable[window.clone()]
            .iter()
            .rposition(|c| *c == 0 || !(c.is_ascii_graphic() || *c == b' '))
            .map_or(window.start, |p| window.start + p + 1);
        let path = PathBuf::from(String::from_utf8_lossy(&executable[start..end]).into_owned());
        if path.is_absolute() && seen.insert(path.clone()) {
            out.push(path);
            if out.len() == MAX_OBJECTS {
                break;
            }
        }
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The entries whose object is one of `gcda` (gcc names a `.gcda` after
/// the object, its extension replaced), in the executable's order.
pub fn entries_of<'e>(entries: &'e [Entry], gcda: &[PathBuf]) -> Vec<&'e Entry> {
    gcda.iter()
        .filter_map(|g| {
            let stem = g.with_extension("");
            entries.iter().find(|e| {
                e.output
                    .as_deref()
                    .is_some_and(|o| without_extension(o) == stem)
            })
        })
        .collect()
}

fn without_extension(p: &Path) -> PathBuf {
    p.with_extension("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_files_an_executable_names_are_found() {
        let mut bytes = b"\x7fELF\0\0junk\0/b/CMakeFiles/t.dir/tests/t.c.gcda\0xx\0".to_vec();
        bytes.extend(b"/b/CMakeFiles/lib.dir/src/lib.c.gcda\0relative.gcda\0");
        bytes.extend(b"/b/CMakeFiles/t.dir/tests/t.c.gcda\0");
        assert_eq!(
            gcda_paths(&bytes),
            [
                PathBuf::from("/b/CMakeFiles/t.dir/tests/t.c.gcda"),
                PathBuf::from("/b/CMakeFiles/lib.dir/src/lib.c.gcda")
            ]
        );
    }

    #[test]
    fn an_object_is_matched_to_its_compilation() {
        let entry = |file: &str, output: &str| Entry {
            file: file.into(),
            output: Some(output.into()),
            cc: "gcc".into(),
            flags: vec![],
        };
        let entries = [
            entry("/s/src/lib.c", "/b/CMakeFiles/lib.dir/src/lib.c.o"),
            entry("/s/tests/t.c", "/b/CMakeFiles/t.dir/tests/t.c.o"),
            entry("/s/tests/u.c", "/b/CMakeFiles/u.dir/tests/u.c.o"),
        ];
        let found = entries_of(
            &entries,
            &[
                "/b/CMakeFiles/t.dir/tests/t.c.gcda".into(),
                "/b/CMakeFiles/lib.dir/src/lib.c.gcda".into(),
            ],
        );
        let files: Vec<&Path> = found.iter().map(|e| e.file.as_path()).collect();
        assert_eq!(
            files,
            [Path::new("/s/tests/t.c"), Path::new("/s/src/lib.c")]
        );
    }
}
