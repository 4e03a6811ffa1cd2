//! The deterministic pass CI runs: every target on its committed corpus
//! and regressions, then on a fixed number of mutated and generated inputs
//! from a fixed seed. Any panic, broken property or input over the bound
//! fails the test with the input. (A long campaign: see the README.)

use faultlens_fuzz::driver::{fuzz, preview, Options};
use faultlens_fuzz::target;

fn pass(name: &str) {
    let t = target(name).expect("a target");
    let report = fuzz(
        &t,
        &Options {
            seed: 20_260_101,
            inputs: Some(t.ci_inputs),
            ..Options::default()
        },
    );
    eprintln!("{}", report.line(name));
    if let Some(f) = report.failures.first() {
        panic!(
            "fuzz target {name}: {} failure(s); the first, a {}:\n{}\ninput: {}",
            report.failures.len(),
            f.kind,
            f.message,
            preview(&f.input)
        );
    }
    assert_eq!(report.inputs, t.ci_inputs);
    assert!(report.seeds > 0, "{name} has no committed corpus");
}

#[test]
fn config() {
    pass("config");
}

#[test]
fn table() {
    pass("table");
}

#[test]
fn results() {
    pass("results");
}

#[test]
fn framing() {
    pass("framing");
}

#[test]
fn lsp() {
    pass("lsp");
}

#[test]
fn csem() {
    pass("csem");
}
