//! Reads outside an object, which the C standard leaves undefined and a
//! compiled program carries on from: under `TestInput::free_reads` they
//! read the given byte, in the interpreter and in the encoding alike, so a
//! failing test that makes one can be diagnosed instead of refused.

mod common;
use common::{program, solve_exploring};
use faultlens_csem::encode::{apply_slots, EncodeOptions, Expected, Formula, TestEncoding};
use faultlens_csem::ir::{InstrKind, Program, StmtId};
use faultlens_csem::{run, Outcome, RunOptions, TestInput};

/// Counts the `x`s of its argument, but looks two characters ahead (line
/// 6): at the last character that reads past the string's end.
const LOOKS_AHEAD: &str = r#"#include <stdio.h>
int main(int argc, char **argv) {
    const char *s = argv[1];
    int n = 0;
    for (int p = 0; s[p] != '\0'; p++) {
        if (s[p + 2] == 'x')
            n++;
    }
    printf("%d\n", n);
    return 0;
}
"#;

fn test_of(arg: &str, free_reads: Option<u8>) -> TestInput {
    TestInput {
        args: vec![arg.to_string()],
        free_reads,
        ..TestInput::default()
    }
}

fn condition_on_line(prog: &Program, line: u32) -> StmtId {
    prog.funcs
        .iter()
        .flat_map(|f| f.body.iter())
        .find(|i| i.range.start.line == line && matches!(i.kind, InstrKind::Branch { .. }))
        .expect("a branch on the line")
        .stmt
}

fn printed(prog: &Program, test: &TestInput, opts: &RunOptions) -> String {
    let r = run(prog, test, opts);
    assert!(matches!(r.outcome, Outcome::Exited(0)), "{:?}", r.outcome);
    String::from_utf8_lossy(&r.stdout).into_owned()
}

#[test]
fn an_out_of_bounds_read_stops_the_run_unless_the_test_answers_it() {
    let (_d, prog, _b) = program(LOOKS_AHEAD);
    let r = run(&prog, &test_of("xa", None), &RunOptions::default());
    let Outcome::RuntimeError { message, .. } = &r.outcome else {
        panic!("{:?}", r.outcome);
    };
    assert!(
        message.contains("out-of-bounds access to `argv[1]`"),
        "{message}"
    );

    let r = run(&prog, &test_of("xa", Some(0)), &RunOptions::default());
    assert_eq!(String::from_utf8_lossy(&r.stdout), "0\n");
    assert_eq!(r.free_reads.len(), 1, "{:?}", r.free_reads);
    let read = &r.free_reads[0];
    assert_eq!((read.range.start.line, read.count), (6, 1));
    assert!(
        read.message.contains("offset 3 of an object of 3 bytes"),
        "{}",
        read.message
    );
    // Another byte there, another run: an `x` is counted.
    let opts = RunOptions::default();
    assert_eq!(printed(&prog, &test_of("xa", Some(b'x')), &opts), "1\n");
    // A run that stays inside its objects lists nothing.
    let r = run(&prog, &test_of("", Some(0)), &opts);
    assert!(r.free_reads.is_empty());
}

#[test]
fn the_encoding_reads_the_same_byte_and_blames_the_condition() {
    let (_d, prog, _b) = program(LOOKS_AHEAD);
    let cond = condition_on_line(&prog, 6);
    let expected = Expected {
        stdout: Some(b"1\n".to_vec()),
        exit: 0,
    };
    let refused = TestEncoding::new(
        &mut Formula::new(),
        &prog,
        &test_of("xa", None),
        &expected,
        &EncodeOptions::default(),
    );
    let Err(e) = refused else {
        panic!("a run that stops at undefined behaviour is not encoded");
    };
    assert!(e.to_string().contains("out-of-bounds"), "{e}");

    let test = test_of("xa", Some(0));
    let mut f = Formula::new();
    let mut te =
        TestEncoding::new(&mut f, &prog, &test, &expected, &EncodeOptions::default()).unwrap();
    // All healthy, the byte past the end is the run's 0: the test fails
    // on every path (no free choice of that byte passes it).
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|_| false);
    assert!(m.is_none(), "the read is not a free choice of the solver");
    // The condition blamed, the model counts the `x`, and its value replays.
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == cond);
    let m = m.expect("the condition explains the test");
    let mut opts = RunOptions::default();
    apply_slots(&mut opts, &te.slots(&|l| m.lit(l)));
    assert_eq!(printed(&prog, &test, &opts), "1\n");

    // Had the run read an `x` there, the test would pass as it is.
    let test = test_of("xa", Some(b'x'));
    let mut f = Formula::new();
    let mut te =
        TestEncoding::new(&mut f, &prog, &test, &expected, &EncodeOptions::default()).unwrap();
    assert!(solve_exploring(&mut f, &mut te, &prog, &|_| false)
        .0
        .is_some());
}

/// Looks a threshold up by layer, but the layer of a high value is past
/// the table (line 9): the compiled program reads a global after it.
const TABLE_LOOKUP: &str = r#"#include <stdio.h>
#include <stdlib.h>
int thresh[3] = {400, 500, 640};
int other = 740;
int main(int argc, char **argv) {
    int v = atoi(argv[1]);
    int sep = atoi(argv[2]);
    int layer = v < 1000 ? 0 : v < 2000 ? 1 : 20;
    int need = thresh[layer];
    if (sep < need)
        puts("advise");
    else
        puts("clear");
    return 0;
}
"#;

#[test]
fn an_int_read_past_a_global_table_reads_the_byte_in_every_byte() {
    // Without free reads, the address past the table's end stops the run.
    let (_d, prog, _b) = program(TABLE_LOOKUP);
    let plain = TestInput {
        args: vec!["3500".into(), "700".into()],
        ..TestInput::default()
    };
    let r = run(&prog, &plain, &RunOptions::default());
    let Outcome::RuntimeError { message, .. } = &r.outcome else {
        panic!("{:?}", r.outcome);
    };
    assert!(
        message.contains("pointer arithmetic leaves `thresh`"),
        "{message}"
    );
    let test = TestInput {
        args: vec!["3500".into(), "700".into()],
        free_reads: Some(1),
        ..TestInput::default()
    };
    // 0x01010101 = 16843009: above 700, so "advise".
    let r = run(&prog, &test, &RunOptions::default());
    assert_eq!(String::from_utf8_lossy(&r.stdout), "advise\n");
    assert_eq!(r.free_reads.len(), 1);
    assert!(
        r.free_reads[0]
            .message
            .contains("4 byte(s) at offset 80 of an object of 12 bytes"),
        "{}",
        r.free_reads[0].message
    );
    // The layer (line 8) at fault: the encoding reads the same value past
    // the table at a symbolic index, so only a layer inside it mends the test.
    let expected = Expected {
        stdout: Some(b"clear\n".to_vec()),
        exit: 0,
    };
    let layer = prog
        .funcs
        .iter()
        .flat_map(|f| f.body.iter())
        .find(|i| i.range.start.line == 8 && matches!(i.kind, InstrKind::Init(..)))
        .expect("the layer's initialization")
        .stmt;
    // The run's own path, 80 bytes past the table, is no undefined
    // behaviour in the encoding either: it prints what the run printed.
    let printed_by_run = Expected {
        stdout: Some(b"advise\n".to_vec()),
        exit: 0,
    };
    let mut f = Formula::new();
    let opts = EncodeOptions::default();
    let mut te = TestEncoding::new(&mut f, &prog, &test, &printed_by_run, &opts).unwrap();
    assert!(solve_exploring(&mut f, &mut te, &prog, &|_| false)
        .0
        .is_some());
    let mut f = Formula::new();
    let mut te = TestEncoding::new(&mut f, &prog, &test, &expected, &opts).unwrap();
    assert!(solve_exploring(&mut f, &mut te, &prog, &|_| false)
        .0
        .is_none());
    let (m, _) = solve_exploring(&mut f, &mut te, &prog, &|s| s == layer);
    let m = m.expect("a layer inside the table mends the test");
    let slots = te.slots(&|l| m.lit(l));
    assert!(slots.iter().all(|s| s.bits <= 2), "{slots:?}");
    let mut opts = RunOptions::default();
    apply_slots(&mut opts, &slots);
    assert_eq!(printed(&prog, &test, &opts), "clear\n");
}
