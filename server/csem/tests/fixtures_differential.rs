//! Differential test: on every test of every io fixture under `fixtures/`,
//! the interpreter's stdout and exit status equal the gcc-built program's.
//! Tests on which the model reports undefined behaviour (the native run
//! then crashes or prints garbage) are counted, printed, and not compared.

mod common;
use common::fixtures::{fixture, fixture_dirs};
use common::{compare_test, gcc_build, Verdict};
use faultlens_csem::{load, CsemError, SourceSpec};

#[test]
fn interpreter_agrees_with_gcc_on_every_fixture_test() {
    let dirs = fixture_dirs();
    let (mut agree, mut model_errors, mut disagree) = (0, 0, Vec::new());
    let mut unsupported = Vec::new();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let Some((sources, cflags, tests)) = fixture(&dir) else {
            eprintln!("{name}: not an io fixture, skipped");
            continue;
        };
        // Harnesses take their free inputs from faultlens's runtime, which a
        // plain gcc build lacks: their model runs are checked against the
        // real binary by faultlens-generate's and faultlens-diagnose's tests.
        let harness = sources.iter().any(|s| {
            std::fs::read_to_string(dir.join(s)).is_ok_and(|t| t.contains("__VERIFIER_nondet_"))
        });
        if harness {
            eprintln!("{name}: a harness with free inputs, checked elsewhere");
            continue;
        }
        let spec = SourceSpec {
            root: dir.clone(),
            sources: sources.clone(),
            cc: "gcc".into(),
            cflags: cflags.clone(),
            source_flags: Vec::new(),
        };
        let prog = match load(&spec) {
            Ok(p) => p,
            Err(e @ CsemError::Unsupported { .. }) => {
                eprintln!("{name}: {e}");
                unsupported.push(name);
                continue;
            }
            Err(e) => panic!("{name}: the model cannot load a fixture gcc compiles: {e}"),
        };
        let out = tempfile::tempdir().unwrap();
        let bin = out.path().join(&name);
        gcc_build(&dir, &sources, &cflags, &bin).unwrap_or_else(|e| panic!("{name}: gcc: {e}"));
        let (mut a, mut m) = (0, 0);
        let started = std::time::Instant::now();
        for t in &tests {
            match compare_test(&prog, &bin, &dir, &t.input()) {
                Verdict::Agree => a += 1,
                // The model stops on undefined behaviour or a hang: natively that must be a crash or a kill.
                Verdict::ModelError {
                    message,
                    native_code,
                } if native_code >= 128 => {
                    eprintln!(
                        "{name}/{}: model reports {message}; native status {native_code}",
                        t.name
                    );
                    m += 1;
                }
                Verdict::ModelError {
                    message,
                    native_code,
                } => disagree.push(format!(
                    "{name}/{}: model reports {message} but the native program exits {native_code}",
                    t.name
                )),
                Verdict::Disagree(d) => disagree.push(format!("{name}/{}: {d}", t.name)),
            }
        }
        eprintln!(
            "{name}: {a} of {} tests agree, {m} stopped by the model ({:.1?})",
            tests.len(),
            started.elapsed()
        );
        agree += a;
        model_errors += m;
    }
    eprintln!("total: {agree} agree, {model_errors} stopped by the model, {} disagree; unsupported fixtures: {unsupported:?}", disagree.len());
    assert!(
        disagree.is_empty(),
        "the model disagrees with gcc:\n{}",
        disagree.join("\n")
    );
    assert!(
        agree >= 100,
        "too few fixture tests compared ({agree}); did fixtures/ move?"
    );
}
