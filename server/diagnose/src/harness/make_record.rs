//! The compilations of a `make check` coverage build, from faultlens's own
//! record of its compiler invocations (`workspace::compilations`): the
//! build runs in the shadow copy, so each source and include directory is
//! taken back to the project's own where the project has it (the copy
//! mirrors it; a file the build generated is only in the copy), while the
//! object keeps the path its `.gcda` name matches.

use faultlens_confine::WorkDir;
use faultlens_csem::compile_db::{self, Entry};
use faultlens_workspace::compilations;
use std::path::{Path, PathBuf};

/// The entries of the recorded compilations, the latest of each object.
/// Only compilations that ran in the shadow copy count: a record from
/// anywhere else is not one of faultlens's builds.
pub fn entries(root: &Path, work: &WorkDir, shadow: &Path) -> Vec<Entry> {
    // The record holds the directories as the compiler saw them.
    let shadow = shadow
        .canonicalize()
        .unwrap_or_else(|_| shadow.to_path_buf());
    // The project's own path of a path in the copy, if the project has it.
    let in_project = |p: &Path| -> Option<PathBuf> {
        let rest = p.strip_prefix(&shadow).ok()?;
        let rest = faultlens_confine::relative::lexical(&rest.to_string_lossy()).ok()?;
        let own = root.join(rest);
        own.exists().then_some(own)
    };
    let mut out: Vec<Entry> = Vec::new();
    for invocation in compilations::read(work).into_iter().rev() {
        if !invocation.dir.starts_with(&shadow) {
            continue;
        }
        for mut e in compile_db::invocation_entries(&invocation.dir, &invocation.args) {
            if out.iter().any(|o| o.output == e.output) {
                continue;
            }
            if let Some(file) = in_project(&e.file) {
                e.file = file;
            }
            e.flags = project_flags(&e.flags, &in_project);
            out.push(e);
        }
    }
    out
}

/// `flags` (an entry's preprocessor flags) with the copy's paths taken
/// back to the project's: an include directory of the project is searched
/// first and the copy's after it (for the headers the build generated); a
/// file included by `-include` is the project's if it has it.
fn project_flags(flags: &[String], in_project: &dyn Fn(&Path) -> Option<PathBuf>) -> Vec<String> {
    let mut out = Vec::with_capacity(flags.len());
    let mut k = 0;
    while k < flags.len() {
        let flag = &flags[k];
        let value = flags
            .get(k + 1)
            .filter(|_| compile_db::WITH_VALUE.contains(&flag.as_str()));
        let Some(value) = value else {
            out.push(flag.clone());
            k += 1;
            continue;
        };
        k += 2;
        let own = in_project(Path::new(value.as_str())).map(|p| p.to_string_lossy().into_owned());
        match (flag.as_str(), own) {
            ("-I" | "-isystem" | "-iquote", Some(own)) => {
                out.extend([flag.clone(), own, flag.clone(), value.clone()])
            }
            ("-include", Some(own)) => out.extend([flag.clone(), own]),
            _ => out.extend([flag.clone(), value.clone()]),
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
        for d in ["src", "include", "tests"] {
            std::fs::create_dir(root.join(d)).unwrap();
        }
        for f in ["src/a.c", "tests/t.c"] {
            std::fs::write(root.join(f), "").unwrap();
        }
        let work = WorkDir::open(&root).unwrap();
        let shadow = work.dir("shadow").unwrap();
        let record = work.dir(compilations::DIR).unwrap();
        let write = |name: &str, dir: &Path, words: &[&str]| {
            let mut bytes = Vec::new();
            for w in std::iter::once(dir.to_str().unwrap()).chain(words.iter().copied()) {
                bytes.extend(w.as_bytes());
                bytes.push(0);
            }
            std::fs::write(record.join(name), bytes).unwrap();
            // Distinct modification times order the records.
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        write(
            "cc.1",
            &shadow,
            &["gcc", "-Iold", "-c", "-o", "src/a.o", "src/a.c"],
        );
        write(
            "cc.2",
            &shadow,
            &["gcc", "-Iinclude", "-c", "-o", "src/a.o", "src/a.c"],
        );
        write(
            "cc.3",
            &shadow,
            &["gcc", "-o", "tests/t", "tests/t.c", "liba.a"],
        );
        // A source the build generated is only in the copy.
        write("cc.4", &shadow, &["gcc", "-c", "-o", "gen.o", "gen.c"]);
        // A compilation that did not run in the copy is none of faultlens's.
        write("cc.5", &root, &["gcc", "-c", "-o", "src/b.o", "src/b.c"]);
        let entries = entries(&root, &work, &shadow);
        let files: Vec<&Path> = entries.iter().map(|e| e.file.as_path()).collect();
        assert_eq!(
            files,
            [
                shadow.join("gen.c"),
                root.join("tests/t.c"),
                root.join("src/a.c")
            ]
        );
        let a = &entries[2];
        assert_eq!(a.output.as_deref(), Some(shadow.join("src/a.o").as_path()));
        let (own, copy) = (root.join("include"), shadow.join("include"));
        assert_eq!(
            a.flags,
            ["-I", own.to_str().unwrap(), "-I", copy.to_str().unwrap()]
        );
        assert_eq!(
            entries[1].output.as_deref(),
            Some(shadow.join("tests/t-t.o").as_path())
        );
    }
}
