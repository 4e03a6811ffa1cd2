//! `line_scores` on a hand-written results document (no compiler needed):
//! scores map to lines through their blocks, lines in no block rank last,
//! and bad input is an error, not a panic.

use faultlens_blockrank::{line_scores, LineScoresError};
use faultlens_core::results::{
    FileCoverage, LineBranches, Outcome, RunResults, SourceFile, SuiteKind, TestRecord, Verdict,
};

const SOURCE: &str = "\
int f(int x)
{
    int y = 0;
    if (x > 0)
        y = 1;
    else
        y = 2;
    return y;
}
";

fn test(name: &str, verdict: Verdict, positive: u64, negative: u64) -> TestRecord {
    // Lines 1 (calls), 3, 4 (branches: true, false), 5 (then), 7 (else), 8.
    let calls = positive + negative;
    let mut lines = vec![(1, calls), (3, calls), (4, calls), (8, calls)];
    if positive > 0 {
        lines.push((5, positive));
    }
    if negative > 0 {
        lines.push((7, negative));
    }
    lines.sort();
    TestRecord {
        name: name.into(),
        verdict,
        outcome: if verdict == Verdict::Pass {
            Outcome::Passed
        } else {
            Outcome::Failed
        },
        reason: None,
        exit_code: Some(0),
        signal: None,
        duration_ms: 1,
        location: None,
        stdout: String::new(),
        stderr: String::new(),
        output_truncated: false,
        coverage: vec![FileCoverage {
            file: 0,
            lines: lines.iter().map(|l| l.0).collect(),
            counts: lines.iter().map(|l| l.1).collect(),
            branches: vec![LineBranches {
                line: 4,
                counts: vec![positive, negative],
            }],
        }],
    }
}

fn results(tests: Vec<TestRecord>) -> RunResults {
    RunResults {
        format_version: 1,
        tool_version: "test".into(),
        created_unix_ms: 0,
        project_root: "/p".into(),
        suite: SuiteKind::Io,
        files: vec![SourceFile {
            path: "f.c".into(),
            test_code: false,
            lines: vec![1, 3, 4, 5, 7, 8],
            digest: None,
        }],
        tests,
        shard: None,
        notes: Vec::new(),
    }
}

#[test]
fn failing_runs_that_take_the_then_branch_more_rank_it_first() {
    let r = results(vec![
        test("p1", Verdict::Pass, 1, 3),
        test("p2", Verdict::Pass, 0, 2),
        test("f1", Verdict::Fail, 4, 0),
    ]);
    let s = line_scores(&r, &[Some(SOURCE.into())]).unwrap();
    assert_eq!(s.stats.unresolved_edges, 0);
    assert_eq!(s.stats.inconsistent_equations, 0);
    // Mean then-edge: passed 0.5, failed 4 → D = 3.5; else: 2.5 vs 0 → -2.5.
    let then = s.detail(0, 5).unwrap();
    assert_eq!((then.first_line, then.last_line), (5, 5));
    assert_eq!(then.function, "f");
    assert_eq!(then.incoming.len(), 1);
    assert!((then.incoming[0].pf - 4.0).abs() < 1e-12);
    assert!((then.incoming[0].pp - 0.5).abs() < 1e-12);
    assert!((then.incoming[0].d - 3.5).abs() < 1e-12);
    assert_eq!(then.t, 1.0);
    assert!((s.score(0, 5).unwrap() - 3.5).abs() < 1e-12);
    assert!((s.score(0, 7).unwrap() + 2.5).abs() < 1e-12);
    // The first block (lines 1-4) and the return: calls differ by 1.
    assert!((s.score(0, 4).unwrap() - 1.0).abs() < 1e-12);
    assert!((s.score(0, 8).unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(s.score(0, 2), None, "not an executable line");
}

#[test]
fn lines_without_a_block_or_text_rank_below_every_block() {
    let mut r = results(vec![
        test("p1", Verdict::Pass, 1, 1),
        test("f1", Verdict::Fail, 2, 0),
    ]);
    r.files[0].lines.push(42);
    r.files.push(SourceFile {
        path: "missing.c".into(),
        test_code: false,
        lines: vec![3],
        digest: None,
    });
    let s = line_scores(&r, &[Some(SOURCE.into()), None]).unwrap();
    let lowest_block = [1, 3, 4, 5, 7, 8]
        .iter()
        .map(|&l| s.score(0, l).unwrap())
        .fold(f64::INFINITY, f64::min);
    assert_eq!(s.score(0, 42), Some(s.unmapped_score));
    assert_eq!(s.score(1, 3), Some(s.unmapped_score));
    assert!(s.unmapped_score < lowest_block);
    assert!(!s.files[1].analysed);
    assert!(s.detail(1, 3).is_none());
}

#[test]
fn a_function_too_deep_for_a_graph_is_skipped_by_name_and_ranks_last() {
    // `g` (lines 10-13) nests 2,000 `+` deep: no graph; `f` is ranked.
    let source = format!(
        "{SOURCE}int g(int x)\n{{\n  return {};\n}}\n",
        vec!["x"; 2001].join(" + ")
    );
    let mut r = results(vec![
        test("p1", Verdict::Pass, 1, 3),
        test("f1", Verdict::Fail, 4, 0),
    ]);
    r.files[0].lines.push(12);
    let s = line_scores(&r, &[Some(source)]).unwrap();
    assert_eq!(s.skipped.len(), 1);
    let skipped = &s.skipped[0];
    assert_eq!((skipped.function.as_str(), skipped.line), ("g", 10));
    assert_eq!(
        skipped.message(),
        "BlockRank has no graph for `g` (f.c:10): an expression nested 2000 deep (a chain of `+`; \
         at most 1000 levels of nesting are supported) at line 12; its lines rank below every block"
    );
    assert_eq!(s.detail(0, 12), None);
    assert_eq!(s.score(0, 12), Some(s.unmapped_score));
    assert!(s.score(0, 5).unwrap() > s.unmapped_score);
}

#[test]
fn a_file_too_slow_to_parse_is_left_out_not_the_ranking() {
    // Error recovery on 1,000 nested calls after a broken typedef takes
    // tree-sitter far longer than its budget.
    let source = format!(
        "typedef long unsi#ned int size f({}x{});\n",
        "f(".repeat(1000),
        ")".repeat(1000)
    );
    let r = results(vec![
        test("p1", Verdict::Pass, 1, 3),
        test("f1", Verdict::Fail, 4, 0),
    ]);
    let started = std::time::Instant::now();
    let s = line_scores(&r, &[Some(source)]).unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
    assert!(!s.files[0].analysed);
    assert_eq!(s.skipped.len(), 1);
    let message = s.skipped[0].message();
    assert!(
        message
            .starts_with("BlockRank has no graph for any function of f.c: parsing it took longer"),
        "{message}"
    );
}

#[test]
fn wrong_number_of_sources_is_an_error() {
    let r = results(vec![test("f1", Verdict::Fail, 1, 0)]);
    let err = line_scores(&r, &[]).unwrap_err();
    assert!(matches!(
        err,
        LineScoresError::SourceCount {
            expected: 1,
            got: 0
        }
    ));
    assert!(
        err.to_string().contains("one entry (or None) per file"),
        "{err}"
    );
}

#[test]
fn corrupt_results_are_an_error() {
    let mut r = results(vec![test("f1", Verdict::Fail, 1, 0)]);
    r.tests[0].coverage[0].file = 7;
    let err = line_scores(&r, &[Some(SOURCE.into())]).unwrap_err();
    assert!(err.to_string().contains("file #7"), "{err}");
}
