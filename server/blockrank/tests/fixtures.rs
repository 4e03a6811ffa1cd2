//! The BlockRank fixtures, run through the real pipeline (gcc build, test
//! processes, gcov): edge counts of single tests checked against counts
//! known from the inputs, including a loop and a crashing run, and the
//! BlockRank quantities the fixtures are about.

use std::path::{Path, PathBuf};

use faultlens_blockrank::line_scores;
use faultlens_cfg::{build_cfgs, evidence_lines, plan, profile_file, CoverageView, FunctionCfg};
use faultlens_core::results::RunResults;
use faultlens_pipeline::{localize, CancelToken, RunOptions};
use faultlens_workspace::Project;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

/// Copies the fixture to a scratch directory and localizes it there.
fn run(name: &str) -> (PathBuf, RunResults) {
    let dir =
        std::env::temp_dir().join(format!("faultlens-blockrank-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(fixture(name)).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    let project = Project::load(&dir).unwrap();
    let options = RunOptions {
        timeout: None,
        jobs: Some(2),
        shard: None,
    };
    let results = localize(&project, &options, &|_| {}, &CancelToken::new()).unwrap();
    (dir, results)
}

struct Edges {
    cfgs: Vec<FunctionCfg>,
    source: String,
}

impl Edges {
    fn new(dir: &Path, results: &RunResults) -> Edges {
        let source = std::fs::read_to_string(dir.join(&results.files[0].path)).unwrap();
        Edges {
            cfgs: build_cfgs(&source).unwrap(),
            source,
        }
    }

    /// `describe_edge` → count for `function` in test `test`.
    fn table(&self, results: &RunResults, test: &str, function: &str) -> Vec<(String, u64)> {
        let t = results.tests.iter().find(|t| t.name == test).unwrap();
        let coverage = results.tests.iter().flat_map(|t| t.coverage.iter());
        let plans = plan(
            &self.cfgs,
            &evidence_lines(&results.files[0].lines, coverage),
        );
        let view = CoverageView::new(t.coverage.iter().find(|c| c.file == 0));
        let f = self.cfgs.iter().position(|c| c.name == function).unwrap();
        let profile = profile_file(&self.cfgs, &plans, &view).swap_remove(f);
        assert_eq!(profile.unresolved, 0, "{test}/{function}");
        let cfg = &self.cfgs[f];
        (0..cfg.edges.len())
            .map(|e| (cfg.describe_edge(e), profile.counts[e]))
            .collect()
    }

    fn line_of(&self, needle: &str) -> u32 {
        self.source
            .lines()
            .position(|l| l.contains(needle))
            .map(|i| i as u32 + 1)
            .unwrap()
    }
}

fn expect(got: Vec<(String, u64)>, expected: &[(&str, u64)]) {
    let got: Vec<(&str, u64)> = got.iter().map(|(d, c)| (d.as_str(), *c)).collect();
    assert_eq!(got, expected);
}

#[test]
fn blockrank_crash() {
    let (dir, results) = run("blockrank-crash");
    let edges = Edges::new(&dir, &results);
    // `last`: add a, add b, add c, then pick 0.9 asks for job 3 of 3 and
    // crashes in job_name. The loop of main starts 4 iterations, 3 come
    // back from add, none from pick; unlink_nth(q, 3) walks past the 3 jobs
    // (`*at` true 3 times, then NULL; `n > 0` true 3 times) and finds none.
    expect(
        edges.table(&results, "last", "main"),
        &[
            ("entry call → line 75", 1),
            ("line 75 next → line 78", 1),
            ("line 78 true → line 79", 4),
            ("line 78 false → line 90", 0),
            ("line 78 jump → line 78", 3),
            ("line 79 true → line 79", 3),
            ("line 79 false → line 81", 1),
            ("line 79 true → line 80", 3),
            ("line 79 false → line 81", 0),
            ("line 80 jump → block 8", 3),
            ("line 81 true → line 81", 1),
            ("line 81 false → line 83", 0),
            ("line 81 true → line 82", 1),
            ("line 81 false → line 83", 0),
            ("line 82 jump → block 12", 0),
            ("line 83 true → line 84", 0),
            ("line 83 false → line 86", 0),
            ("line 84 jump → block 16", 0),
            ("line 86 return → exit", 0),
            ("block 16 next → block 12", 0),
            ("block 12 next → block 8", 0),
            ("block 8 jump → line 78", 3),
            ("line 90 return → exit", 0),
        ],
    );
    expect(
        edges.table(&results, "last", "pick"),
        &[
            ("entry call → line 53", 1),
            ("line 53 true → line 56", 0),
            ("line 53 false → line 59", 1),
            ("line 56 return → exit", 0),
            ("line 59 return → exit", 0),
        ],
    );
    expect(
        edges.table(&results, "last", "unlink_nth"),
        &[
            ("entry call → line 33", 1),
            ("line 33 next → line 36", 1),
            ("line 36 true → line 36", 3),
            ("line 36 false → line 40", 1),
            ("line 36 true → line 37", 3),
            ("line 36 false → line 40", 0),
            ("line 37 jump → line 36", 3),
            ("line 40 true → line 42", 0),
            ("line 40 false → line 45", 1),
            ("line 42 next → line 45", 0),
            ("line 45 return → exit", 1),
        ],
    );
    // add: three calls walk 0, 1 and 2 jobs.
    expect(
        edges.table(&results, "last", "add"),
        &[
            ("entry call → line 21", 3),
            ("line 21 next → line 26", 3),
            ("line 26 true → line 27", 3),
            ("line 26 false → line 28", 3),
            ("line 27 jump → line 26", 3),
            ("line 28 return → exit", 3),
        ],
    );

    let scores = line_scores(&results, &[Some(edges.source.clone())]).unwrap();
    assert_eq!(scores.stats.unresolved_edges, 0);
    assert_eq!(scores.stats.inconsistent_equations, 0);
    let fault = edges.line_of("int count = q->len + 1;");
    let block = scores.detail(0, fault).unwrap();
    assert_eq!(block.function, "pick");
    // 23 picks from a non-empty queue over the suite, 4 of them crashed.
    assert!((block.t - 19.0 / 23.0).abs() < 1e-12, "T = {}", block.t);
    assert!(
        block.score > block.br,
        "the calibration lifts the crashing block"
    );
    // Crash calibration: 4 of the 5 failing runs stopped in pick's block (a
    // SIGSEGV in the call it makes), no passing run did; the block gains 0.8
    // of the program's top score, and so does main's block that called pick.
    assert!((block.stop - 0.8).abs() < 1e-12, "S = {}", block.stop);
    let top = scores
        .files
        .iter()
        .flat_map(|f| &f.blocks)
        .map(|b| b.score - b.crash_credit)
        .fold(0.0f64, f64::max);
    assert!((block.crash_credit - 0.8 * top).abs() < 1e-9);
    let caller = scores
        .detail(0, edges.line_of("pick(&q, atof(argv[++i]));"))
        .unwrap();
    assert!(
        (caller.stop - 0.8).abs() < 1e-12,
        "caller S = {}",
        caller.stop
    );
    // The fault's block now ranks second of the program's blocks (behind
    // add's walk, which failing runs repeat more often), where it was 9th.
    let mut ranked: Vec<f64> = scores.files[0].blocks.iter().map(|b| b.score).collect();
    ranked.sort_by(|a, b| b.total_cmp(a));
    assert_eq!(ranked[1], block.score, "blocks by score: {ranked:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn blockrank_coincidental() {
    let (dir, results) = run("blockrank-coincidental");
    let edges = Edges::new(&dir, &results);
    // `all-equal`: six equal scores, so the faulty `>=` moves the leader
    // five times; `all-different` (3 8 6 2 7 5) moves it once.
    expect(
        edges.table(&results, "all-equal", "leader"),
        &[
            ("entry call → line 22", 1),
            ("line 22 next → line 25", 1),
            ("line 25 true → line 26", 5),
            ("line 25 false → line 29", 1),
            ("line 25 jump → line 25", 5),
            ("line 26 true → line 27", 5),
            ("line 26 false → block 8", 0),
            ("line 27 next → block 8", 5),
            ("block 8 jump → line 25", 5),
            ("line 29 return → exit", 1),
        ],
    );
    let moves = edges.table(&results, "all-different", "leader");
    assert_eq!(moves[5], ("line 26 true → line 27".to_string(), 1));
    assert_eq!(moves[6], ("line 26 false → block 8".to_string(), 4));

    let scores = line_scores(&results, &[Some(edges.source.clone())]).unwrap();
    let fault = edges.line_of("if (p[i].score >= p[best].score)");
    let block = scores.detail(0, fault).unwrap();
    assert_eq!(block.function, "leader");
    // Failing runs take the faulty comparison's true edge more often.
    let taken = block
        .outgoing
        .iter()
        .find(|e| e.description.starts_with(&format!("line {fault} true")))
        .unwrap();
    assert!(taken.d > 0.0, "{taken:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Fixtures whose tests are unit-test cases run by a forking runner.
const FORKING_RUNNERS: &[&str] = &["settings-check", "stack-check", "strbuf-criterion"];

/// Every fixture's coverage fits its control-flow graphs: each edge of each
/// test is determined by the evidence, and no exact evidence disagrees.
#[test]
fn every_fixture_derives_cleanly() {
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(fixture("")).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if !entry.path().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        // Known gap: the unit-test runners fork a child per test (Check) or
        // run it in a worker process (Criterion), and the counters the
        // parent and child both write do not yet derive to one flow per
        // run (15 unresolved edges on stack-check). Their line coverage,
        // and so every spectrum measure, is exact.
        if FORKING_RUNNERS.contains(&name.as_str()) {
            continue;
        }
        let dir = std::env::temp_dir().join(format!(
            "faultlens-blockrank-all-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&entry.path(), &dir);
        let project = Project::load(&dir).unwrap_or_else(|e| panic!("{name}: {e}"));
        let options = RunOptions {
            timeout: None,
            jobs: Some(2),
            shard: None,
        };
        let results = localize(&project, &options, &|_| {}, &CancelToken::new())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let sources: Vec<Option<String>> = results
            .files
            .iter()
            .map(|f| std::fs::read_to_string(dir.join(&f.path)).ok())
            .collect();
        let scores = line_scores(&results, &sources).unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = scores.stats;
        assert_eq!(
            (
                s.unresolved_edges,
                s.inconsistent_equations,
                s.unmatched_branch_clusters
            ),
            (0, 0, 0),
            "{name}: {s:?}"
        );
        checked += 1;
        let _ = std::fs::remove_dir_all(dir);
    }
    assert!(checked >= 2);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == ".faultlens") {
            continue;
        }
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}
