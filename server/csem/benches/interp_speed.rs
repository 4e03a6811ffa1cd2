//! Benchmark, per io fixture: the interpreter's time per test against the
//! gcc-built binary's (process start included), medians over the fixture's
//! tests; and the CNF size and solve time (all statements healthy) of the
//! encoding of the fixture's first encodable failing test.
//! `cargo bench -p faultlens-csem --bench interp_speed`

#[path = "../tests/common/mod.rs"]
mod common;

use common::fixtures::{fixture, fixture_dirs};
use faultlens_csem::encode::{EncodeOptions, Expected, Formula, TestEncoding};
use faultlens_csem::{load, run, Outcome, RunOptions, SourceSpec};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    println!(
        "{:<20} {:>6} {:>10} {:>10} {:>7} {:>12} | {:>9} {:>10} {:>9}",
        "fixture",
        "tests",
        "native µs",
        "model µs",
        "ratio",
        "model stmt/s",
        "vars",
        "clauses",
        "solve ms"
    );
    for dir in fixture_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let Some((sources, cflags, tests)) = fixture(&dir) else {
            continue;
        };
        let spec = SourceSpec {
            root: dir.clone(),
            sources: sources.clone(),
            cc: "gcc".into(),
            cflags: cflags.clone(),
            source_flags: Vec::new(),
        };
        let prog = match load(&spec) {
            Ok(p) => p,
            Err(e) => {
                println!("{name:<20} {e}");
                continue;
            }
        };
        // A harness's free inputs come from faultlens's runtime, which plain
        // gcc does not link (faultlens-generate's benchmark covers them).
        let harness = sources.iter().any(|s| {
            std::fs::read_to_string(dir.join(s)).is_ok_and(|t| t.contains("__VERIFIER_nondet_"))
        });
        if harness {
            println!(
                "{name:<20} a harness with free inputs: see `cargo bench -p faultlens-generate`"
            );
            continue;
        }
        let out = tempfile::tempdir().unwrap();
        let bin = out.path().join(&name);
        common::gcc_build(&dir, &sources, &cflags, &bin).unwrap();
        let (mut native, mut model) = (Vec::new(), Vec::new());
        let (mut steps, mut model_total) = (0u64, 0f64);
        let mut cnf_stats = String::from("no encodable failing test");
        for t in &tests {
            let start = Instant::now();
            let n = common::run_native(&bin, &dir, &t.args, &t.stdin);
            let native_us = start.elapsed().as_secs_f64() * 1e6;
            let opts = RunOptions {
                max_steps: 5_000_000,
                ..RunOptions::default()
            };
            let input = t.input();
            let start = Instant::now();
            let r = run(&prog, &input, &opts);
            let model_us = start.elapsed().as_secs_f64() * 1e6;
            // Hangs measure the timeout, not the program.
            if n.code == 137 || r.outcome == Outcome::StepLimit {
                continue;
            }
            let code = r.exit_code().unwrap_or(-1);
            let passes = code == t.expected_exit
                && t.expected_stdout.as_ref().is_none_or(|e| *e == r.stdout);
            if !passes && cnf_stats.starts_with("no") {
                let expected = Expected {
                    stdout: t.expected_stdout.clone(),
                    exit: t.expected_exit,
                };
                let opts = EncodeOptions {
                    max_steps: 5_000_000,
                    max_paths: 32,
                    max_clauses_per_path: usize::MAX,
                };
                let mut f = Formula::new();
                if let Ok(te) = TestEncoding::new(&mut f, &prog, &input, &expected, &opts) {
                    let mut assumptions = f.all_health(true);
                    assumptions.push(te.pass());
                    let start = Instant::now();
                    let sat = f.cnf.solve(&assumptions).unwrap().is_some();
                    let ms = start.elapsed().as_secs_f64() * 1e3;
                    cnf_stats = format!(
                        "{:>9} {:>10} {:>9.1}{}",
                        f.cnf.n_vars(),
                        f.cnf.clauses.len(),
                        ms,
                        if sat { " (SAT?)" } else { "" }
                    );
                }
            }
            native.push(native_us);
            model.push(model_us);
            steps += r.steps;
            model_total += model_us;
        }
        let (nm, mm) = (median(native), median(model));
        println!(
            "{name:<20} {:>6} {nm:>10.0} {mm:>10.0} {:>7.2} {:>12.0} | {cnf_stats}",
            tests.len(),
            mm / nm,
            steps as f64 / (model_total / 1e6)
        );
    }
}
