//! Generation time per fixture and strategy, and the work behind it.
//!
//! `cargo bench -p faultlens-generate` prints, per harness fixture: the median
//! time to load the harness into the C model (preprocessor included) and to
//! replay the project's tests; then per strategy the median generation time,
//! the tests generated, the queries answered (the paper's solver calls) and the
//! interpreter runs the path enumeration made.

use faultlens_generate::domain::Domain;
use faultlens_generate::session::project_runs;
use faultlens_generate::solver::SolverExplorer;
use faultlens_generate::strategy::{sat_tar, sfo, sfo_p};
use faultlens_generate::{model, Bounds, Enumerator, Explorer, Run, Stats};
use faultlens_workspace::Project;
use std::path::Path;
use std::time::{Duration, Instant};

const FIXTURES: &[&str] = &["minmax-harness", "queue-harness"];
const REPEAT: usize = 7;
/// Time budget of one solver-explorer generation (the CLI's default is 60 s).
const SOLVER_BUDGET: Duration = Duration::from_secs(60);

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn copy_fixture(name: &str, to: &Path) -> std::path::PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name);
    let dst = to.join(name);
    std::fs::create_dir_all(&dst).expect("create fixture copy");
    for e in std::fs::read_dir(&src).expect("read fixture") {
        let e = e.expect("entry");
        if e.file_type().expect("type").is_file() {
            std::fs::copy(e.path(), dst.join(e.file_name())).expect("copy");
        }
    }
    dst
}

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    println!(
        "{:<16} {:<8} {:<9} {:>10} {:>6} {:>8} {:>10} {:>10}",
        "fixture", "strategy", "explorer", "median", "tests", "queries", "paths", "interp"
    );
    for name in FIXTURES {
        let root = copy_fixture(name, tmp.path());
        let project = Project::load(&root).expect("project");
        let mut load_times = Vec::new();
        for _ in 0..REPEAT {
            let t = Instant::now();
            let h = model::load(&project).expect("harness");
            let _ = project_runs(&project, &h).expect("runs");
            load_times.push(t.elapsed());
        }
        println!(
            "{name:<16} {:<8} {:>10.2?} (load the harness and replay the project's tests)",
            "load",
            median(load_times)
        );
        let harness = model::load(&project).expect("harness");
        let (initial, _) = project_runs(&project, &harness).expect("runs");
        let texts: Vec<String> = model::harness_sources(&project)
            .expect("sources")
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        let symbolic = model::load_symbolic(&project).expect("symbolic harness");
        for explorer in ["enumerate", "solver"] {
            for strategy in ["sfo", "sfo_p", "sat-tar"] {
                let mut times = Vec::new();
                let mut last: (usize, Stats) = (0, Stats::default());
                let repeat = if explorer == "solver" { 1 } else { REPEAT };
                for _ in 0..repeat {
                    let mut data: Vec<Run> = initial.iter().map(|(_, r)| r.clone()).collect();
                    let domain = Domain::from_sources(texts.iter().map(String::as_str));
                    let t = Instant::now();
                    let mut ex: Box<dyn Explorer> = if explorer == "solver" {
                        let mut s =
                            SolverExplorer::new(&harness, symbolic.clone(), &data).expect("solver");
                        s.deadline = Some(Instant::now() + SOLVER_BUDGET);
                        Box::new(s)
                    } else {
                        Box::new(Enumerator::new(&harness, vec![], domain, Bounds::default()))
                    };
                    let added = match strategy {
                        "sfo" => sfo(ex.as_mut(), &mut data, usize::MAX, &mut |_, _| true),
                        "sfo_p" => sfo_p(ex.as_mut(), &mut data, 20, &mut |_, _| true),
                        _ => {
                            let failing = data
                                .iter()
                                .find(|r| r.verdict.is_fail())
                                .cloned()
                                .expect("a failing test");
                            let suspects = failing.coverage.clone();
                            sat_tar(
                                ex.as_mut(),
                                &mut data,
                                &failing,
                                &suspects,
                                20,
                                &mut |_, _| true,
                            )
                        }
                    };
                    times.push(t.elapsed());
                    last = (added, ex.stats());
                    if !ex.notes().is_empty() {
                        eprintln!("{name} {strategy} {explorer}: {}", ex.notes().join("; "));
                    }
                }
                println!(
                    "{name:<16} {strategy:<8} {explorer:<9} {:>10.2?} {:>6} {:>8} {:>10} {:>10}",
                    median(times),
                    last.0,
                    last.1.queries,
                    last.1.population,
                    last.1.interpreter_runs
                );
            }
        }
    }
}
