//! The native reader of clang's coverage on damaged input: a real
//! program's mapping and raw profile, cut short or with bytes changed,
//! are refused with an error or read, never a panic; a profile of another
//! format version is refused by its version.

use faultlens_pipeline::llvm_native::{mapping_sections, read_mapping, Mapping, Profile};
use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"
#include <stdio.h>
#define TWICE(x) ((x) + (x))
static int pick(int a, int b) { return a > b && b > 0 ? TWICE(a) : b; }
int main(int argc, char **argv) {
    int n = 0;
    for (int i = 1; i < argc; i++)
        n += pick(argv[i][0], i);
    printf("%d\n", n);
    return 0;
}
"#;

/// Builds the program with clang's coverage in `dir` and runs it once.
fn built(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
    std::fs::write(dir.join("p.c"), PROGRAM).unwrap();
    let program = dir.join("p");
    let status = Command::new("clang")
        .args(["-fprofile-instr-generate", "-fcoverage-mapping", "-O0"])
        .arg(dir.join("p.c"))
        .arg("-o")
        .arg(&program)
        .status()
        .expect("clang (Debian: apt-get install clang)");
    assert!(status.success());
    let raw = dir.join("p.profraw");
    let status = Command::new(&program)
        .args(["x", "y"])
        .env("LLVM_PROFILE_FILE", &raw)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    (program, std::fs::read(raw).unwrap())
}

#[test]
fn damaged_mappings_and_profiles_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let (program, raw) = built(dir.path());
    let mapping = read_mapping(&program).unwrap();
    assert!(mapping.functions.len() >= 2);
    assert!(mapping.files().iter().any(|f| f.ends_with("/p.c")));
    let mut profile = Profile::default();
    profile.add(&raw).unwrap();
    assert!(!profile.functions.is_empty());

    let (covmap, covfun) = mapping_sections(&program).unwrap();
    for cut in 0..covfun.len() {
        let _ = Mapping::decode(&covmap, &covfun[..cut]);
    }
    // A unit's header and file table (the alignment padding after them
    // may go: its length depends on the compilation directory's name).
    let files_size = u32::from_le_bytes(covmap[4..8].try_into().unwrap()) as usize;
    for cut in 0..covmap.len() {
        let read = Mapping::decode(&covmap[..cut], &covfun);
        assert!(read.is_err() || cut >= 16 + files_size, "cut at {cut}");
    }
    for i in 0..covfun.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = covfun.clone();
            bad[i] ^= flip;
            let _ = Mapping::decode(&covmap, &bad);
        }
    }
    // The file table (zlib-compressed as clang writes it): damaged, it is
    // refused or read, never a panic or an unbounded inflation.
    for i in 0..covmap.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = covmap.clone();
            bad[i] ^= flip;
            let _ = Mapping::decode(&bad, &covfun);
        }
    }
    // Header, binary ids, records, padding, counters: cut anywhere before
    // their end, the profile is refused (the names after them are not read).
    let word = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
    let counters_end = 88 + word(2) + word(3) * 48 + word(4) + word(5) * 8;
    for cut in 0..raw.len() {
        let read = Profile::default().add(&raw[..cut]);
        assert!(read.is_err() || cut as u64 >= counters_end, "cut at {cut}");
    }
    // Every record claims the first function's counters: refused, not
    // read record by record.
    let mut overlapping = raw.clone();
    let records = 88 + word(2) as usize;
    let first = overlapping[records + 16..records + 24].to_vec();
    for r in 1..word(3) as usize {
        let at = records + r * 48;
        let relative =
            u64::from_le_bytes(first.clone().try_into().unwrap()).wrapping_sub(r as u64 * 48);
        overlapping[at + 16..at + 24].copy_from_slice(&relative.to_le_bytes());
        overlapping[at + 40..at + 44].copy_from_slice(&(word(5) as u32).to_le_bytes());
    }
    let err = Profile::default().add(&overlapping).unwrap_err();
    assert!(err.contains("claim more counters"), "{err}");
    for i in 0..raw.len().min(4096) {
        let mut bad = raw.clone();
        bad[i] ^= 0xff;
        let _ = Profile::default().add(&bad);
    }
    let mut other = raw.clone();
    other[8] = 9;
    let err = Profile::default().add(&other).unwrap_err();
    assert!(err.contains("version 9"), "{err}");
}

#[test]
fn a_program_without_a_mapping_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("q.c"), "int main(void) { return 0; }\n").unwrap();
    let program = dir.path().join("q");
    let status = Command::new("clang")
        .arg(dir.path().join("q.c"))
        .arg("-o")
        .arg(&program)
        .status()
        .unwrap();
    assert!(status.success());
    let err = read_mapping(&program).unwrap_err();
    assert!(err.contains("no coverage mapping"), "{err}");
    let err = read_mapping(&dir.path().join("q.c")).unwrap_err();
    assert!(err.contains("ELF program"), "{err}");
}
