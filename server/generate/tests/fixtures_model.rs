//! The harness fixtures in the C model: runs, verdicts and coverage.

use faultlens_generate::model;
use faultlens_generate::{Step, Verdict};
use faultlens_workspace::Project;
mod common;
use common::fixture;

#[test]
fn minmax_runs_in_the_model_as_natively() {
    let (_d, root) = fixture("minmax-harness");
    let project = Project::load(&root).unwrap();
    let h = model::load(&project).unwrap();
    match h.execute(&[], &[1, 2, 3]) {
        Step::Done(r) => {
            assert_eq!(
                r.verdict,
                Verdict::Fail {
                    violation: "assertion at minmax.c:35".into()
                }
            );
            assert!(r.coverage.contains(&("minmax.c".to_string(), 33)));
        }
        other => panic!("{other:?}"),
    }
    match h.execute(&[], &[3, 2, 1]) {
        Step::Done(r) => {
            assert_eq!(r.verdict, Verdict::Pass);
            assert!(!r.coverage.contains(&("minmax.c".to_string(), 33)));
            assert!(r.coverage.iter().all(|(f, _)| f == "minmax.c"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        h.execute(&[], &[1, 2]),
        Step::NeedsInput("__VERIFIER_nondet_int".into())
    );
}

#[test]
fn queue_draws_bools() {
    let (_d, root) = fixture("queue-harness");
    let project = Project::load(&root).unwrap();
    let h = model::load(&project).unwrap();
    assert_eq!(
        h.execute(&[], &[2]),
        Step::NeedsInput("__VERIFIER_nondet_bool".into())
    );
    match h.execute(&[], &[6, 1, 1, 1, 0, 1, 0]) {
        Step::Done(r) => assert!(r.verdict.is_fail(), "{r:?}"),
        other => panic!("{other:?}"),
    }
}
