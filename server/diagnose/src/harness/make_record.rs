//! The compilations of a `make check` coverage build, from faultlens's own
//! record of its compiler invocations (`workspace::compilations`): the
//! build runs in the shadow copy, so each source and include directory is
//! taken back to the project's own (the copy mirrors it), while the object
//! keeps the path its `.gcda` name matches.

use faultlens_confine::WorkDir;
use faultlens_csem::compile_db::{self, Entry};
use faultlens_workspace::compilations;
use std::path::{Path, PathBuf};

/// The entries of the recorded compilations, the latest of each object.
pub fn entries(root: &Path, work: &WorkDir, shadow: &Path) -> Vec<Entry> {
    // The record holds the directories as the compiler saw them.
    let shadow = shadow
        .canonicalize()
        .unwrap_or_else(|_| shadow.to_path_buf());
    let to_project =
        |p: &Path| -> Option<PathBuf> { p.strip_prefix(&shadow).ok().map(|rest| root.join(rest)) };
    let mut out: Vec<Entry> = Vec::new();
    for invocation in compilations::read(work).into_iter().rev() {
        for mut e in compile_db::invocation_entries(&invocation.dir, &invocation.args) {
            if out.iter().any(|o| o.output == e.output) {
                continue;
            }
            if let Some(file) = to_project(&e.file) {
                e.file = file;
            }
            for flag in &mut e.flags {
                if let Some(p) = to_project(Path::new(flag.as_str())) {
                    *flag = p.to_string_lossy().into_owned();
                }
            }
            out.push(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_and_include_directories_are_the_project_s_and_the_latest_compilation_wins() {
        let project = tempfile::tempdir().unwrap();
        let root = project.path().canonicalize().unwrap();
        let work = WorkDir::open(&root).unwrap();
        let shadow = work.dir("shadow").unwrap();
        let record = work.dir(compilations::DIR).unwrap();
        let write = |name: &str, words: &[&str]| {
            let mut bytes = Vec::new();
            for w in std::iter::once(shadow.to_str().unwrap()).chain(words.iter().copied()) {
                bytes.extend(w.as_bytes());
                bytes.push(0);
            }
            std::fs::write(record.join(name), bytes).unwrap();
            // Distinct modification times order the records.
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        write("cc.1", &["gcc", "-Iold", "-c", "-o", "src/a.o", "src/a.c"]);
        write(
            "cc.2",
            &["gcc", "-Iinclude", "-c", "-o", "src/a.o", "src/a.c"],
        );
        write("cc.3", &["gcc", "-o", "tests/t", "tests/t.c", "liba.a"]);
        let entries = entries(&root, &work, &shadow);
        assert_eq!(entries.len(), 2);
        let a = entries
            .iter()
            .find(|e| e.file == root.join("src/a.c"))
            .unwrap();
        assert_eq!(a.output.as_deref(), Some(shadow.join("src/a.o").as_path()));
        assert_eq!(a.flags, ["-I", root.join("include").to_str().unwrap()]);
        let t = entries
            .iter()
            .find(|e| e.file == root.join("tests/t.c"))
            .unwrap();
        assert_eq!(
            t.output.as_deref(),
            Some(shadow.join("tests/t-t.o").as_path())
        );
    }
}
