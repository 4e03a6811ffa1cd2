//! Files a test reads, in the interpreter against gcc: `fopen`, `fgets`,
//! `fgetc`, `fscanf`, `fread`, `feof`, `fclose` on files of the test's
//! working directory, whose contents the caller gives the model; a file the
//! run opens that the caller did not give is asked for by name; what the
//! program writes to a file is kept.

mod common;
use common::{compare_test, program, Verdict};
use faultlens_csem::{run, Outcome, RunOptions, TestInput};
use std::collections::BTreeMap;

/// Sums the numbers of a file named on the command line, line by line and
/// number by number, reports its first line and byte count, and writes a
/// summary file.
const SUMMER: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "numbers.txt";
    FILE *in = fopen(name, "r");
    if (!in) { printf("cannot open %s\n", name); return 2; }
    char line[64];
    if (fgets(line, sizeof line, in)) printf("first: %s", line);
    long sum = 0; int x, count = 0;
    while (fscanf(in, "%d", &x) == 1) { sum += x; count++; }
    printf("eof %d count %d sum %ld\n", feof(in) != 0, count, sum);
    fclose(in);
    FILE *again = fopen(name, "rb");
    char bytes[8]; size_t got, total = 0; int c0 = fgetc(again);
    while ((got = fread(bytes, 1, sizeof bytes, again)) > 0) total += got;
    printf("first byte %d, %lu more bytes, eof %d\n", c0, (unsigned long)total, feof(again) != 0);
    fclose(again);
    FILE *out = fopen("summary.txt", "w");
    fprintf(out, "%d numbers, sum %ld\n", count, sum);
    fputs("done\n", out);
    fclose(out);
    return count == 0;
}"#;

fn write_files(dir: &std::path::Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let files = [
        ("numbers.txt", "header line\n1 2 3\n-4\n  10 20\n"),
        ("empty.txt", ""),
        ("bad.txt", "# numbers\n5 6 seven 8\n"),
    ];
    let mut given = BTreeMap::new();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
        given.insert(name.to_string(), Some(text.as_bytes().to_vec()));
    }
    given.insert("missing.txt".to_string(), None);
    given
}

#[test]
fn reading_files_agrees_with_gcc() {
    let (dir, prog, bin) = program(SUMMER);
    let given = write_files(dir.path());
    for args in [
        vec![],
        vec!["empty.txt"],
        vec!["bad.txt"],
        vec!["missing.txt"],
    ] {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let test = TestInput {
            args: args.clone(),
            files: given.clone(),
            ..TestInput::default()
        };
        match compare_test(&prog, &bin, dir.path(), &test) {
            Verdict::Agree => {}
            v => panic!("args {args:?}: {v:?}"),
        }
    }
}

#[test]
fn a_file_not_given_is_asked_for_by_name_and_writes_are_kept() {
    let (dir, prog, _) = program(SUMMER);
    let mut given = write_files(dir.path());
    let numbers = given.remove("numbers.txt").unwrap();
    let mut test = TestInput {
        files: given,
        ..TestInput::default()
    };
    let r = run(&prog, &test, &RunOptions::default());
    assert_eq!(r.needs_file.as_deref(), Some("numbers.txt"));
    match &r.outcome {
        Outcome::RuntimeError { message, .. } => {
            assert!(message.contains("`numbers.txt` was not given"), "{message}")
        }
        o => panic!("expected the run to stop, got {o:?}"),
    }
    test.files.insert("numbers.txt".into(), numbers);
    let r = run(&prog, &test, &RunOptions::default());
    assert_eq!(r.needs_file, None);
    assert_eq!(r.exit_code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&r.written_files["summary.txt"]),
        "6 numbers, sum 32\ndone\n"
    );
}

#[test]
fn character_and_number_reads_at_the_end_agree_with_gcc() {
    // A partial `%5c` at the end is assigned, `%c` past it sets end-of-file,
    // `fgets` with room for the NUL only stores it, and scanf reads a
    // floating number as far as glibc's look-ahead goes.
    let src = r#"#include <stdio.h>
int main(void) {
    FILE *f = fopen("ab.txt", "r");
    char c[6] = "zzzzz", d = 'q', line[4] = "xyz";
    int r = fscanf(f, "%5c", c);
    printf("%d [%s] eof=%d\n", r, c, feof(f) != 0);
    r = fscanf(f, "%c", &d);
    printf("%d %c eof=%d\n", r, d, feof(f) != 0);
    char *g = fgets(line, 1, f);
    printf("%d [%s]\n", g == line, line);
    fclose(f);
    FILE *n = fopen("numbers.txt", "r");
    double x = 0; char rest[8] = "";
    for (int i = 0; i < 4; i++) {
        r = fscanf(n, "%lf", &x);
        int got = fscanf(n, "%7s", rest);
        printf("%d %g %d [%s]\n", r, x, got, rest);
    }
    fclose(n);
    return 0;
}"#;
    let (dir, prog, bin) = program(src);
    let data = [("ab.txt", "ab"), ("numbers.txt", "1ex -y 2.5e+ .x")];
    let mut files = faultlens_csem::Files::new();
    for (name, text) in data {
        std::fs::write(dir.path().join(name), text).unwrap();
        files.insert(name.to_string(), Some(text.as_bytes().to_vec()));
    }
    let test = TestInput {
        files,
        ..TestInput::default()
    };
    match compare_test(&prog, &bin, dir.path(), &test) {
        Verdict::Agree => {}
        v => panic!("{v:?}"),
    }
}

#[test]
fn misuse_of_streams_is_named() {
    let src = r#"#include <stdio.h>
int main(int argc, char **argv) {
    FILE *f = fopen("numbers.txt", argc > 1 ? "w" : "r");
    fclose(f);
    if (argc > 2) return fgetc(f);
    if (argc > 1) return fgetc(stdout);
    return fputs("x", fopen("numbers.txt", "r"));
}"#;
    let (dir, prog, _) = program(src);
    let given = write_files(dir.path());
    for (args, want) in [
        (vec![], "output to `numbers.txt`, which is open for reading"),
        (
            vec!["w"],
            "input from `stdout`, which is not open for reading",
        ),
        (vec!["w", "x"], "after `fclose`"),
    ] {
        let test = TestInput {
            args: args.iter().map(|s| s.to_string()).collect(),
            files: given.clone(),
            ..TestInput::default()
        };
        match run(&prog, &test, &RunOptions::default()).outcome {
            Outcome::RuntimeError { message, .. } => {
                assert!(message.contains(want), "{args:?}: {message}")
            }
            o => panic!("{args:?}: expected a runtime error, got {o:?}"),
        }
    }
}

/// Totals "quantity price" lines of an order file; the line pricing each
/// item is the fault (the specification is `qty * price`).
const FAULTY_ORDER: &str = r#"#include <stdio.h>
int main(int argc, char **argv) {
    FILE *in = fopen(argc > 1 ? argv[1] : "order.txt", "r");
    if (!in) return 2;
    int qty, price;
    long total = 0;
    while (fscanf(in, "%d %d", &qty, &price) == 2) {
        long line = qty + price;
        total += line;
    }
    fclose(in);
    printf("total %ld\n", total);
    return 0;
}"#;

#[test]
fn a_fault_on_data_read_from_a_file_alone_explains_the_failing_test_and_replays() {
    let (dir, prog, bin) = program(FAULTY_ORDER);
    std::fs::write(dir.path().join("order.txt"), "2 10\n1 7\n").unwrap();
    let test = TestInput {
        files: [("order.txt".to_string(), Some(b"2 10\n1 7\n".to_vec()))].into(),
        ..TestInput::default()
    };
    assert!(matches!(
        compare_test(&prog, &bin, dir.path(), &test),
        Verdict::Agree
    ));
    common::assert_line_alone_explains(&prog, &test, "total 27\n", 8);
}
