//! The encoding agrees with the interpreter on generated programs: with every
//! statement healthy, a run's encoding is SAT exactly when the expected outcome
//! is the one the interpreter computed (its stdout and exit status), and UNSAT
//! when the expected exit status or one output byte is changed.

mod gen;
mod gen_float;
#[path = "common/parallel.rs"]
mod parallel;
use faultlens_csem::encode::{encode_run, Expected};
use faultlens_csem::{load_preprocessed, run, Outcome, RunOptions, TestInput};
use std::path::Path;
use std::process::Command;

fn preprocess(src: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.c"), src).unwrap();
    let out = Command::new("gcc")
        .args(["-E", "g.c"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn healthy_encoding_accepts_exactly_the_interpreters_outcome() {
    let n: u64 = std::env::var("CSEM_ENC_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let seeds: Vec<u64> = (1000..1000 + n).collect();
    let per_seed = parallel::par_map(&seeds, |&seed| check_seed(seed));
    let checked: usize = per_seed.iter().map(|(c, _)| c).sum();
    let skipped: usize = per_seed.iter().map(|(_, s)| s).sum();
    eprintln!("{checked} runs checked, {skipped} stopped by undefined behaviour");
    assert!(
        checked >= n as usize / 2,
        "too few runs free of undefined behaviour"
    );
}

/// The same on generated floating-point programs (`gen_float`): the
/// encoding computes floating values as the run did, so a healthy run's
/// outcome is SAT and a changed exit status or printed digit is UNSAT.
#[test]
fn healthy_encoding_of_floating_point_programs_accepts_exactly_the_interpreters_outcome() {
    let seeds: Vec<u64> = (0..8).collect();
    let per_seed = parallel::par_map(&seeds, |&seed| {
        let src = gen_float::FloatGen::new(seed).program();
        check_program(seed, &src, false)
    });
    let checked: usize = per_seed.iter().map(|(c, _)| c).sum();
    assert!(checked >= 12, "too few runs checked: {checked}");
}

/// The two runs of one generated program: how many were checked, and how
/// many undefined behaviour stopped.
fn check_seed(seed: u64) -> (usize, usize) {
    check_program(seed, &gen::Gen::new(seed).program(), true)
}

/// `relaxed_prints_anything`: with every statement unhealthy, the run's
/// path may print any value of the printed shape (not so where a printed
/// value is floating, which the encoding takes from the run).
fn check_program(seed: u64, src: &str, relaxed_prints_anything: bool) -> (usize, usize) {
    let (mut checked, mut skipped) = (0, 0);
    let prog = load_preprocessed(Path::new("g.c"), &preprocess(src)).unwrap();
    for args in [vec![], vec!["5".to_string(), "-3".into(), "12".into()]] {
        let input = TestInput {
            args,
            ..TestInput::default()
        };
        let r = run(&prog, &input, &RunOptions::default());
        let Outcome::Exited(code) = r.outcome else {
            skipped += 1;
            continue;
        };
        let right = Expected {
            stdout: Some(r.stdout.clone()),
            exit: code,
        };
        let enc = match encode_run(&prog, &input, &right, 1_000_000) {
            Ok(e) => e,
            Err(e) => panic!("seed {seed}: {e}\n{src}"),
        };
        let healthy = enc.all_health(true);
        assert!(
            enc.cnf.solve(&healthy).unwrap().is_some(),
            "seed {seed}: the interpreter's outcome is UNSAT\n{src}"
        );
        let wrong_exit = Expected {
            stdout: Some(r.stdout.clone()),
            exit: (code + 1) & 0xff,
        };
        let enc = encode_run(&prog, &input, &wrong_exit, 1_000_000).unwrap();
        assert!(
            enc.cnf.solve(&enc.all_health(true)).unwrap().is_none(),
            "seed {seed}: a wrong exit status is SAT\n{src}"
        );
        // The last digit printed belongs to a conversion (the last line prints values only).
        if let Some(i) = r.stdout.iter().rposition(|c| c.is_ascii_digit()) {
            let mut out = r.stdout.clone();
            out[i] = if out[i] == b'9' { b'0' } else { out[i] + 1 };
            let wrong_out = Expected {
                stdout: Some(out),
                exit: code,
            };
            let enc = encode_run(&prog, &input, &wrong_out, 1_000_000).unwrap();
            assert!(
                enc.cnf.solve(&enc.all_health(true)).unwrap().is_none(),
                "seed {seed}: a wrong output is SAT\n{src}"
            );
            // With every statement unhealthy the same path may print anything of that shape.
            assert!(
                !relaxed_prints_anything
                    || enc.cnf.solve(&enc.all_health(false)).unwrap().is_some(),
                "seed {seed}: relaxed is UNSAT\n{src}"
            );
        }
        checked += 1;
    }
    (checked, skipped)
}
