//! The BlockRank fixtures under clang's source-based coverage
//! (`[build] coverage = "clang"`), through the real pipeline: the edge
//! profiles must be those gcov's counts give (checked against hand-known
//! runs in fixtures.rs), except where a run stopped inside a call, which
//! clang's counters do not show.

use std::path::{Path, PathBuf};

use faultlens_blockrank::line_scores;
use faultlens_cfg::{build_cfgs, evidence_lines, plan, profile_file, CoverageView};
use faultlens_core::results::{Outcome, RunResults};
use faultlens_pipeline::{localize, CancelToken, RunOptions};
use faultlens_workspace::Project;

/// Copies the fixture (with `coverage` set as given) and localizes it.
fn run(name: &str, coverage: &str) -> (PathBuf, RunResults) {
    let dir = std::env::temp_dir().join(format!(
        "faultlens-blockrank-{coverage}-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name);
    for entry in std::fs::read_dir(fixture).unwrap().flatten() {
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    let config = dir.join("faultlens.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("[build]\n"));
    std::fs::write(
        &config,
        text.replace(
            "[build]\n",
            &format!("[build]\ncoverage = \"{coverage}\"\n"),
        ),
    )
    .unwrap();
    let project = Project::load(&dir).unwrap();
    let options = RunOptions {
        timeout: None,
        jobs: Some(2),
        shard: None,
    };
    let results = localize(&project, &options, &|_| {}, &CancelToken::new())
        .unwrap_or_else(|e| panic!("{name} with {coverage}: {e}"));
    (dir, results)
}

/// Per test, per function: the derived edge counts.
fn profiles(dir: &Path, results: &RunResults) -> Vec<Vec<(String, Vec<u64>)>> {
    assert_eq!(results.files.len(), 1);
    let source = std::fs::read_to_string(dir.join(&results.files[0].path)).unwrap();
    let cfgs = build_cfgs(&source).unwrap();
    let plans = plan(
        &cfgs,
        &evidence_lines(
            &results.files[0].lines,
            results.tests.iter().flat_map(|t| t.coverage.iter()),
        ),
    );
    results
        .tests
        .iter()
        .map(|t| {
            let view = CoverageView::new(t.coverage.first());
            profile_file(&cfgs, &plans, &view)
                .into_iter()
                .zip(&cfgs)
                .map(|(p, c)| {
                    assert_eq!(p.unresolved, 0, "{} {}", t.name, c.name);
                    assert_eq!(p.inconsistent, 0, "{} {}", t.name, c.name);
                    (c.name.clone(), p.counts)
                })
                .collect()
        })
        .collect()
}

fn sources(dir: &Path, results: &RunResults) -> Vec<Option<String>> {
    results
        .files
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(&f.path)).ok())
        .collect()
}

#[test]
fn coincidental_fixture_gives_the_same_profiles_and_scores() {
    let (gdir, gcov) = run("blockrank-coincidental", "gcov");
    let (cdir, clang) = run("blockrank-coincidental", "clang");
    let verdicts = |r: &RunResults| -> Vec<_> { r.tests.iter().map(|t| t.outcome).collect() };
    assert_eq!(verdicts(&gcov), verdicts(&clang));
    assert_eq!(
        gcov.files[0].lines, clang.files[0].lines,
        "executable lines"
    );
    assert_eq!(profiles(&gdir, &gcov), profiles(&cdir, &clang));
    let g = line_scores(&gcov, &sources(&gdir, &gcov)).unwrap();
    let c = line_scores(&clang, &sources(&cdir, &clang)).unwrap();
    assert_eq!(g.files[0].lines, c.files[0].lines, "BlockRank line scores");
    let _ = std::fs::remove_dir_all(gdir);
    let _ = std::fs::remove_dir_all(cdir);
}

#[test]
fn crash_fixture_keeps_coverage_but_not_where_runs_stopped() {
    let (gdir, gcov) = run("blockrank-crash", "gcov");
    let (cdir, clang) = run("blockrank-crash", "clang");
    // The same executable lines, except that gcc has no line for the
    // closing brace of `pick` (its epilogue is shared with an earlier
    // `return;`) where clang counts the fall-off.
    let source = sources(&cdir, &clang)[0].clone().unwrap();
    let text: Vec<&str> = source.lines().collect();
    let extra: Vec<u32> = clang.files[0]
        .lines
        .iter()
        .copied()
        .filter(|l| !gcov.files[0].lines.contains(l))
        .collect();
    assert!(
        extra.iter().all(|&l| text[l as usize - 1] == "}"),
        "{extra:?}"
    );
    assert!(gcov.files[0]
        .lines
        .iter()
        .all(|l| clang.files[0].lines.contains(l)));
    let by_gcov = profiles(&gdir, &gcov);
    let by_clang = profiles(&cdir, &clang);
    for (i, test) in clang.tests.iter().enumerate() {
        assert_eq!(test.outcome, gcov.tests[i].outcome, "{}", test.name);
        if test.outcome == Outcome::Crashed {
            // The signal handler wrote the counters.
            assert!(!test.coverage.is_empty(), "{}: no coverage", test.name);
            // Runs crash in job_name, called from pick, called from main's
            // loop: clang counts the rest of pick's block and main's loop
            // as run. Functions the run left before crashing are exact.
            for ((name, g), (_, c)) in by_gcov[i].iter().zip(&by_clang[i]) {
                if name == "pick" || name == "main" {
                    assert_ne!(g, c, "{} {name}", test.name);
                } else {
                    assert_eq!(g, c, "{} {name}", test.name);
                }
            }
        } else {
            assert_eq!(by_gcov[i], by_clang[i], "{}", test.name);
        }
    }
    // So BlockRank's transition rate sees no stop in the faulty block.
    let c = line_scores(&clang, &sources(&cdir, &clang)).unwrap();
    let g = line_scores(&gcov, &sources(&gdir, &gcov)).unwrap();
    let fault = source
        .lines()
        .position(|l| l.contains("int count = q->len + 1;"))
        .unwrap() as u32
        + 1;
    assert!((g.detail(0, fault).unwrap().t - 19.0 / 23.0).abs() < 1e-12);
    assert_eq!(c.detail(0, fault).unwrap().t, 1.0);
    let _ = std::fs::remove_dir_all(gdir);
    let _ = std::fs::remove_dir_all(cdir);
}
