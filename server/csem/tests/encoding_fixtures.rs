//! Encoding tests on the fixtures: with every statement healthy, the encoding
//! of a failing test is UNSAT and of a passing test SAT; with every statement
//! unhealthy (only the inputs and the expected outcome fixed), SAT whenever the
//! expected output can be printed along the path the run took.

mod common;
use common::fixtures::{fixture, fixture_dirs};
use faultlens_csem::encode::{encode_run, EncodeError, Expected};
use faultlens_csem::{load, run, Outcome, RunOptions, SourceSpec, TestInput};

#[test]
fn healthy_encodings_separate_failing_from_passing_tests() {
    let (mut failing_unsat, mut passing_sat, mut relaxed_sat, mut relaxed_unsat, mut unsupported) =
        (0, 0, 0, 0, 0);
    let mut problems = Vec::new();
    for dir in fixture_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let Some((sources, cflags, tests)) = fixture(&dir) else {
            continue;
        };
        let spec = SourceSpec {
            root: dir.clone(),
            sources,
            cc: "gcc".into(),
            cflags,
        };
        let Ok(prog) = load(&spec) else { continue };
        let (mut passing_budget, mut failing_budget) = (3, 4);
        for t in &tests {
            let input = TestInput {
                args: t.args.clone(),
                stdin: t.stdin.clone(),
            };
            let r = run(
                &prog,
                &input,
                &RunOptions {
                    max_steps: 1_000_000,
                    ..RunOptions::default()
                },
            );
            let code = match r.outcome {
                Outcome::Exited(c) => c,
                Outcome::Signaled(s) => 128 + s,
                _ => continue,
            };
            let passes = code == t.expected_exit
                && t.expected_stdout.as_ref().is_none_or(|e| *e == r.stdout);
            let budget = if passes {
                &mut passing_budget
            } else {
                &mut failing_budget
            };
            if *budget == 0 {
                continue;
            }
            *budget -= 1;
            let started = std::time::Instant::now();
            let expected = Expected {
                stdout: t.expected_stdout.clone(),
                exit: t.expected_exit,
            };
            let enc = match encode_run(&prog, &input, &expected, 1_000_000) {
                Ok(e) => e,
                Err(EncodeError::Unsupported(m)) => {
                    eprintln!("{name}/{}: {m}", t.name);
                    unsupported += 1;
                    continue;
                }
            };
            let healthy = enc.cnf.solve(&enc.all_health(true)).unwrap().is_some();
            if passes && healthy {
                passing_sat += 1;
            } else if !passes && !healthy {
                failing_unsat += 1;
            } else {
                problems.push(format!(
                    "{name}/{}: passes={passes} but the healthy encoding is {}",
                    t.name,
                    if healthy { "SAT" } else { "UNSAT" }
                ));
            }
            let relaxed = enc.cnf.solve(&enc.all_health(false)).unwrap().is_some();
            if relaxed {
                relaxed_sat += 1;
            } else if passes {
                problems.push(format!(
                    "{name}/{}: a passing test's relaxed encoding is UNSAT",
                    t.name
                ));
            } else {
                eprintln!(
                    "{name}/{}: the expected output cannot be printed along the failing path",
                    t.name
                );
                relaxed_unsat += 1;
            }
            eprintln!(
                "{name}/{}: {} vars, {} clauses, {} statement instances, {} components, {:.1?}",
                t.name,
                enc.cnf.n_vars(),
                enc.cnf.clauses.len(),
                enc.instances,
                enc.health.len(),
                started.elapsed()
            );
        }
    }
    eprintln!(
        "failing UNSAT {failing_unsat}, passing SAT {passing_sat}, relaxed SAT {relaxed_sat}, \
         relaxed UNSAT (path-incompatible) {relaxed_unsat}, unsupported {unsupported}"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        failing_unsat >= 10 && passing_sat >= 20,
        "too few fixture tests encoded"
    );
    assert!(
        relaxed_sat > relaxed_unsat,
        "most relaxed encodings should be satisfiable"
    );
}
