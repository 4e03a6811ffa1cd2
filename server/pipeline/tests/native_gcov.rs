//! The native reader of gcc's coverage files against gcov itself, on small
//! programs built and run here: the same line counts, branch counts and
//! functions, for straight code, loops on one line, calls, early exits,
//! headers with inline functions, a file included inside a function,
//! functions sharing a line, and a run
//! stopped by a signal.

use faultlens_pipeline::gcda::DataFile;
use faultlens_pipeline::gcov::{self, Coverage};
use faultlens_pipeline::gcov_native;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds `files` (name, text) with `gcc --coverage` in `dir` (one object
/// per source, in `obj/`), runs the program with each argument list, and
/// returns the notes and data files.
fn build_and_run(dir: &Path, files: &[(&str, &str)], runs: &[&[&str]]) -> Vec<PathBuf> {
    let obj = dir.join("obj");
    std::fs::create_dir_all(&obj).unwrap();
    let mut objects = Vec::new();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
        if name.ends_with(".c") {
            let o = obj.join(format!("{name}.o"));
            let status = Command::new("gcc")
                .args(["--coverage", "-O0", "-c"])
                .arg(dir.join(name))
                .arg("-o")
                .arg(&o)
                .current_dir(dir)
                .status()
                .unwrap();
            assert!(status.success());
            objects.push(o);
        }
    }
    let program = dir.join("prog");
    let status = Command::new("gcc")
        .arg("--coverage")
        .args(&objects)
        .arg("-o")
        .arg(&program)
        .status()
        .unwrap();
    assert!(status.success());
    for args in runs {
        let _ = Command::new(&program)
            .args(*args)
            .current_dir(dir)
            .status()
            .unwrap();
    }
    objects.iter().map(|o| o.with_extension("gcno")).collect()
}

/// Native and gcov coverage of every data file, and of the notes alone.
fn compare(notes: &[PathBuf]) {
    let map = gcov::data_paths(notes);
    let mut native = Coverage::new();
    let mut files = Vec::new();
    for gcno in notes {
        let parsed = gcov_native::parse_notes(&std::fs::read(gcno).unwrap()).unwrap();
        let gcda = gcno.with_extension("gcda");
        if let Ok(bytes) = std::fs::read(&gcda) {
            let read = gcov_native::coverage(&parsed, &bytes).unwrap();
            gcov::merge_into(&mut native, read);
            files.push(DataFile {
                written_for: gcda.clone(),
                kept_at: gcda,
            });
        }
    }
    let by_gcov = gcov::read_coverage("gcov", &[files], &map).unwrap();
    assert_eq!(
        faultlens_pipeline::counters::first_difference(&native, &by_gcov[0], "gcov"),
        None
    );
    assert_eq!(native, by_gcov[0]);
    let scratch = tempfile::tempdir().unwrap();
    let lines = gcov::executable_lines("gcov", notes, &scratch.path().join("s")).unwrap();
    let mut ours = Coverage::new();
    for gcno in notes {
        let parsed = gcov_native::parse_notes(&std::fs::read(gcno).unwrap()).unwrap();
        gcov::merge_into(&mut ours, gcov_native::executable(&parsed));
    }
    assert_eq!(ours, lines);
}

#[test]
fn loops_calls_and_early_exits_count_as_gcov_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"#include <stdio.h>
#include <stdlib.h>
static int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
int collatz(int n) {
    int steps = 0;
    while (n != 1) { if (n % 2) n = 3 * n + 1; else n /= 2; steps++; }
    return steps;
}
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 0;
    if (n < 0) { puts("negative"); exit(2); }
    for (int k = 0; k < 3; k++)
        printf("%d %d\n", sum(n + k), n > 0 ? collatz(n) : 0);
    do { n--; } while (n > 0 && n % 7);
    switch (n) { case 0: puts("zero"); break; case 1: puts("one"); /* fall */ default: puts("many"); }
    return n == 3 && argc > 2 || n == 5 ? 1 : 0;
}
"#;
    let notes = build_and_run(
        dir.path(),
        &[("loops.c", text)],
        &[&["7"], &["-3"], &["27", "x"], &[]],
    );
    compare(&notes);
}

#[test]
fn headers_and_functions_on_one_line_count_as_gcov_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let header = "static inline int twice(int x) { return x > 100 ? x : 2 * x; }\n";
    let a = r#"#include "h.h"
#define PAIR(a, b) int a(int x) { return x + 1; } int b(int x) { return x ? x - 1 : 0; }
PAIR(up, down)
int helper(int x);
int main(int argc, char **argv) { (void)argv; return up(twice(argc)) + down(helper(argc)) > 100; }
"#;
    // A file included in the middle of a function has lines, no function.
    let b = "#include \"h.h\"\nint helper(int x) {\n  int y = twice(x);\n#include \"body.inc\"\n  return y;\n}\n";
    let body = "  if (y > 3)\n    y -= 3;\n";
    let notes = build_and_run(
        dir.path(),
        &[("h.h", header), ("body.inc", body), ("a.c", a), ("b.c", b)],
        &[&[], &["1", "2"]],
    );
    compare(&notes);
}

#[test]
fn a_run_stopped_by_a_signal_counts_as_gcov_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    // The counters are dumped from inside a loop, mid-path, by a handler.
    let text = r#"#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
void __gcov_dump(void);
static void on_alarm(int sig) { (void)sig; __gcov_dump(); _exit(3); }
int main(int argc, char **argv) {
    signal(SIGALRM, on_alarm);
    alarm(1);
    volatile unsigned long spins = 0;
    for (;;) { spins++; if (argc > 5 && spins % 3 == 0) spins += 2; }
    return (int)spins + (argv != 0);
}
"#;
    let notes = build_and_run(dir.path(), &[("spin.c", text)], &[&[]]);
    compare(&notes);
}

#[test]
fn garbage_and_stale_data_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let notes = build_and_run(
        dir.path(),
        &[("t.c", "int main(void) { return 0; }\n")],
        &[&[]],
    );
    let bytes = std::fs::read(&notes[0]).unwrap();
    let parsed = gcov_native::parse_notes(&bytes).unwrap();
    for cut in 0..bytes.len() {
        let _ = gcov_native::parse_notes(&bytes[..cut]);
    }
    let data = std::fs::read(notes[0].with_extension("gcda")).unwrap();
    for cut in 0..data.len() {
        let _ = gcov_native::coverage(&parsed, &data[..cut]);
    }
    let mut stale = data.clone();
    stale[8] ^= 0xff;
    let err = gcov_native::coverage(&parsed, &stale).unwrap_err();
    assert!(err.to_string().contains("another build"), "{err}");
    assert!(gcov_native::parse_notes(b"not a notes file at all").is_err());
}
