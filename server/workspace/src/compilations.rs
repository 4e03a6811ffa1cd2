//! faultlens's own record of the compiler invocations of a `make check`
//! coverage build, in `.faultlens/compilations/`: which sources and flags
//! made each object, where CMake and Meson write a `compile_commands.json`
//! and a Makefile writes none. The build's `CC` is a small script
//! ([`recorder_script`]) that writes one file per invocation (its working
//! directory and arguments, each ended by a NUL byte) and then runs the
//! compiler; the diagnosis reads them back ([`read`]).

use faultlens_confine::WorkDir;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The record's directory, in `.faultlens/`.
pub const DIR: &str = "compilations";
/// Invocations read at most (a large project's build compiles thousands).
const MAX_RECORDS: usize = 20_000;
/// The longest record read: a working directory and a command line.
const MAX_RECORD: u64 = 1 << 20;

/// One recorded compiler invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The directory it ran in, as the compiler saw it.
    pub dir: PathBuf,
    /// The compiler and its arguments.
    pub args: Vec<String>,
}

/// A `/bin/sh` script that records each invocation in `record_dir` and
/// then runs `cc` (its words, as `CC` holds them) with the same arguments.
/// A record that cannot be written never fails the compilation.
pub fn recorder_script(record_dir: &Path, cc: &str) -> String {
    let quoted = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let cc: Vec<String> = cc.split_whitespace().map(quoted).collect();
    let cc = cc.join(" ");
    let template = quoted(&record_dir.join("cc.XXXXXXXX").to_string_lossy());
    format!(
        "#!/bin/sh\n\
         # Written by faultlens: records this compilation in .faultlens/{DIR}\n\
         # (which sources and flags made each object, for the diagnosis),\n\
         # then runs the compiler.\n\
         f=$(mktemp {template} 2>/dev/null) && printf '%s\\0' \"$(pwd -P)\" {cc} \"$@\" > \"$f\"\n\
         exec {cc} \"$@\"\n"
    )
}

/// The recorded invocations, oldest first, the newest [`MAX_RECORDS`] at
/// most; records that cannot be read (not a regular file, too long, not a
/// record, dated in the future as no build of faultlens's can be) are
/// passed over.
pub fn read(work: &WorkDir) -> Vec<Invocation> {
    let all = records(work);
    let newest = all.len().saturating_sub(MAX_RECORDS);
    all.into_iter()
        .skip(newest)
        .filter_map(|(name, _)| {
            let bytes = work.read(&format!("{DIR}/{name}"), MAX_RECORD).ok()??;
            parse(&bytes)
        })
        .collect()
}

/// Removes the records an identical later invocation repeats (an
/// incremental build compiles a changed source again with the same
/// flags), and all but the newest [`MAX_RECORDS`], so the record grows
/// only when the build's commands change, and never past that.
pub fn prune(work: &WorkDir) {
    let mut seen = std::collections::HashSet::new();
    let all = records(work);
    let keep_from = all.len().saturating_sub(MAX_RECORDS);
    for (k, (name, _)) in all.into_iter().enumerate().rev() {
        let path = work.join(DIR).join(&name);
        let digest = work
            .read(&format!("{DIR}/{name}"), MAX_RECORD)
            .ok()
            .flatten()
            .map(|b| faultlens_core::sources::digest(&b));
        if k < keep_from || !digest.is_some_and(|d| seen.insert(d)) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Entries of the record's directory looked at at most.
const MAX_LISTED: usize = 10 * MAX_RECORDS;

/// The record files' names, oldest first (by modification time, then
/// name), those dated in the future left out.
fn records(work: &WorkDir) -> Vec<(String, SystemTime)> {
    let dir = work.join(DIR);
    let is_dir = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir());
    let Some(listing) = is_dir.then(|| std::fs::read_dir(&dir).ok()).flatten() else {
        return Vec::new();
    };
    let now = SystemTime::now();
    let mut out: Vec<(String, SystemTime)> = listing
        .flatten()
        .take(MAX_LISTED)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let modified = e.metadata().ok()?.modified().ok()?;
            (modified <= now).then_some((name, modified))
        })
        .collect();
    out.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    out
}

fn parse(bytes: &[u8]) -> Option<Invocation> {
    let mut words = bytes
        .strip_suffix(b"\0")?
        .split(|b| *b == 0)
        .map(|w| String::from_utf8_lossy(w).into_owned());
    let dir = PathBuf::from(words.next()?);
    let args: Vec<String> = words.collect();
    (dir.is_absolute() && !args.is_empty()).then_some(Invocation { dir, args })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn the_script_records_each_invocation_and_runs_the_compiler() {
        let project = tempfile::tempdir().unwrap();
        let work = WorkDir::open(project.path()).unwrap();
        let record_dir = work.dir(DIR).unwrap();
        // `echo` stands in for the compiler: its output shows it ran.
        let script = project.path().join("cc's record");
        std::fs::write(&script, recorder_script(&record_dir, "echo compiled")).unwrap();
        let run = |args: &[&str]| {
            Command::new("sh")
                .arg(&script)
                .args(args)
                .current_dir(project.path())
                .output()
                .unwrap()
        };
        let out = run(&["-c", "a file.c", "-o", "a.o"]);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "compiled -c a file.c -o a.o\n"
        );
        run(&["-c", "b.c"]);
        run(&["-c", "a file.c", "-o", "a.o"]);
        let words = |s: &[&str]| s.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let dir = project.path().canonicalize().unwrap();
        let a = Invocation {
            dir: dir.clone(),
            args: words(&["echo", "compiled", "-c", "a file.c", "-o", "a.o"]),
        };
        let b = Invocation {
            dir,
            args: words(&["echo", "compiled", "-c", "b.c"]),
        };
        assert_eq!(read(&work).len(), 3);
        prune(&work);
        let left = read(&work);
        assert_eq!(left.len(), 2);
        assert!(left.contains(&a) && left.contains(&b), "{left:?}");
    }

    #[test]
    fn a_record_dated_in_the_future_is_no_build_s_and_is_passed_over() {
        // A repository can ship `.faultlens/compilations/` with records
        // that would otherwise outrank every real compilation.
        let project = tempfile::tempdir().unwrap();
        let work = WorkDir::open(project.path()).unwrap();
        let dir = work.dir(DIR).unwrap();
        std::fs::write(dir.join("cc.now"), b"/d\0cc\0-c\0now.c\0").unwrap();
        let planted = dir.join("cc.later");
        std::fs::write(&planted, b"/d\0cc\0-c\0later.c\0").unwrap();
        let later = SystemTime::now() + std::time::Duration::from_secs(86_400);
        std::fs::File::options()
            .write(true)
            .open(&planted)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let read = read(&work);
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].args[2], "now.c");
    }

    #[test]
    fn a_record_that_is_not_one_is_passed_over() {
        assert_eq!(parse(b"relative\0cc\0"), None);
        assert_eq!(parse(b"/d\0"), None);
        assert_eq!(parse(b"/d\0cc"), None);
        assert_eq!(
            parse(b"/d\0cc\0-c\0"),
            Some(Invocation {
                dir: "/d".into(),
                args: vec!["cc".into(), "-c".into()]
            })
        );
    }
}
