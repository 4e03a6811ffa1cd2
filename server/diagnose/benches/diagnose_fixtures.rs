//! Diagnosis on the fixtures as `faultlens diagnose` runs it (from a real
//! localization; the spectrum check included): per fixture, the median over
//! `FAULTLENS_BENCH_RUNS` runs (default 3) of the time to the first diagnosis and to all of them (optimal,
//! then subset-minimal up to size 3; the 30 s budget where the search does
//! not finish), whether a diagnosis holds every fault, the instance size
//! (variables / clauses after on-demand exploration), encoded paths, the
//! effort the run counted and the worst overrun of a deadline by one SAT
//! call (the most over the runs, in ms); then the final
//! MaxSAT instance alone: our OLL's median solve time beside PySAT's RC2
//! on the same instance exported as WCNF.
//!
//! `cargo bench -p faultlens-diagnose` (release). The RC2 column needs
//! `python3 -m venv /work/venv-rc2 && /work/venv-rc2/bin/pip install python-sat`
//! (or `FAULTLENS_RC2_PYTHON=/path/to/python`); without it the column says so.
//! WCNF files go to `FAULTLENS_WCNF_DIR` (default: a temporary directory).

#[path = "../tests/common/mod.rs"]
mod common;

use faultlens_diagnose::{diagnose_project, diagnosis_instance, CancelToken, DiagnoseOptions};
use faultlens_maxsat::{solve, write_wcnf, Algorithm, Budget, Status};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// Runs per fixture (`FAULTLENS_BENCH_RUNS`, default 3).
fn runs() -> usize {
    std::env::var("FAULTLENS_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n: &usize| n >= 1)
        .unwrap_or(3)
}
/// Every fixture the model runs. Where the search finishes ("complete"),
/// "all ms" is the time to every subset-minimal diagnosis; elsewhere it is
/// the budget's 30 s.
const FIXTURES: &[&str] = &[
    "mid-args",
    "invoice-two-faults",
    "grades-dispatch",
    "restock-file",
    "make-build",
    "loop-cond",
    "multi-line-fault",
    "minmax-harness",
    "queue-harness",
    "crash-segv",
    "autodetect-io",
    "leap-year",
    "minmax-assert",
    "blockrank-coincidental",
    "wordstat-stdin",
    "hang-loop",
    "compact-suite",
    "multi-file-helper",
    "two-faults",
    "blockrank-crash",
    "polygon-config",
    // CTest and Meson projects: unit-test cases and plain test programs.
    "stack-check",
    "strbuf-criterion",
    "bitset-unity",
    "histogram-cmocka",
    "ringbuf-ctest",
    "kvconf-ctest",
    "settings-check",
    "wrap-meson",
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let wcnf_dir = std::env::var_os("FAULTLENS_WCNF_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("faultlens-diagnose-wcnf"));
    std::fs::create_dir_all(&wcnf_dir).unwrap();
    let python = std::env::var("FAULTLENS_RC2_PYTHON")
        .unwrap_or_else(|_| "/work/venv-rc2/bin/python".into());
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/rc2_compare.py");
    let only: Option<String> = std::env::var("FAULTLENS_BENCH_ONLY").ok();
    let opts = DiagnoseOptions {
        time_limit: Some(Duration::from_secs(30)),
        ..DiagnoseOptions::default()
    };
    println!(
        "{:<20} {:>5} {:>9} {:>9} {:>5} {:>8} {:>5} {:>8} {:>9} {:>6} {:>7} {:>8} {:>10} {:>10} {:>6}",
        "fixture",
        "tests",
        "first ms",
        "all ms",
        "diag",
        "complete",
        "fault",
        "vars",
        "clauses",
        "paths",
        "effort",
        "overrun",
        "OLL ms",
        "RC2 ms",
        "cost"
    );
    for name in FIXTURES {
        if only
            .as_ref()
            .is_some_and(|o| !o.split(',').any(|x| x == *name))
        {
            continue;
        }
        // A copy: loading a harness writes its free-input model under `.faultlens/`.
        let tmp = tempfile::tempdir().unwrap();
        let dir = common::copy_fixture(name, tmp.path());
        // An input/output project's failing tests, loaded for the final
        // instance alone (a CTest project's come from its localization).
        let project_kind = faultlens_workspace::Project::load(&dir).map(|p| p.kind);
        let loaded = match common::load(&dir) {
            Ok(l) => Some(l),
            Err(_) if matches!(project_kind, Ok(faultlens_workspace::config::Kind::Ctest)) => None,
            Err(e) => {
                println!("{name:<20} not modelled: {e}");
                continue;
            }
        };
        let truth = common::ground_truth(&dir);
        // As `faultlens diagnose` runs: from a real localization, whose
        // spectrum's top lines the check takes when the search stops.
        let (project, results) = common::localized(&dir);
        let (mut first, mut all) = (Vec::new(), Vec::new());
        let mut overrun: f64 = 0.0;
        let mut last = None;
        for _ in 0..runs() {
            let t = Instant::now();
            let r = diagnose_project(&project, &results, &opts, &|_| {}, &CancelToken::new());
            let elapsed = t.elapsed().as_secs_f64() * 1000.0;
            match r {
                Ok(r) => {
                    first.push(r.stats.first_ms);
                    all.push(elapsed);
                    overrun = overrun.max(r.stats.worst_overrun_ms);
                    last = Some(r);
                }
                Err(e) => {
                    println!("{name:<20} {e}");
                    break;
                }
            }
        }
        let Some(r) = last else { continue };
        let found = truth.iter().all(|(file, lines)| {
            r.diagnoses.iter().any(|d| {
                d.statements
                    .iter()
                    .any(|s| s.file == *file && lines.contains(&s.line))
            })
        });
        let row = |vars: String, clauses: String, solvers: [String; 3]| {
            println!(
                "{:<20} {:>5} {:>9.0} {:>9.0} {:>5} {:>8} {:>5} {:>8} {:>9} {:>6} {:>7.1} {:>8.1} {:>10} {:>10} {:>6}",
                name,
                r.failing_tests.len(),
                median(first.clone()),
                median(all.clone()),
                r.diagnoses.len(),
                if r.complete { "yes" } else { "no" },
                if found { "yes" } else { "no" },
                vars,
                clauses,
                r.stats.paths,
                r.stats.effort,
                overrun,
                solvers[0],
                solvers[1],
                solvers[2],
            )
        };
        let Some(loaded) = loaded else {
            let none = || "-".to_string();
            row(
                r.stats.variables.to_string(),
                r.stats.clauses.to_string(),
                [none(), none(), none()],
            );
            continue;
        };
        // The final instance alone: OLL here, RC2 on its WCNF.
        let inst = diagnosis_instance(
            &loaded.prog,
            loaded.failing.clone(),
            &opts,
            &CancelToken::new(),
        )
        .unwrap();
        let path = wcnf_dir.join(format!("{name}.wcnf"));
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        write_wcnf(&inst, &mut file).unwrap();
        drop(file);
        let mut oll = Vec::new();
        let mut cost = None;
        for _ in 0..runs() {
            let budget = Budget::unlimited().with_time_limit(Duration::from_secs(120));
            let t = Instant::now();
            let out = solve(&inst, Algorithm::Oll, &budget).unwrap();
            oll.push(t.elapsed().as_secs_f64() * 1000.0);
            if out.status == Status::Optimal {
                cost = out.best.map(|b| b.cost);
            }
        }
        let rc2 = Command::new(&python)
            .arg(&script)
            .arg(&path)
            .arg(runs().to_string())
            .output();
        let rc2_text = match rc2 {
            Ok(o) if o.status.success() => {
                let text = String::from_utf8_lossy(&o.stdout).trim().to_string();
                let mut parts = text.split_whitespace();
                let ms = parts.next().unwrap_or("?").to_string();
                let rc2_cost = parts.next().unwrap_or("?").to_string();
                if cost.map(|c| c.to_string()) != Some(rc2_cost.clone()) {
                    format!("{ms} (cost {rc2_cost}!)")
                } else {
                    ms
                }
            }
            Ok(o) => format!(
                "failed: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ),
            Err(_) => "no python-sat".into(),
        };
        row(
            inst.n_vars().to_string(),
            inst.hard().len().to_string(),
            [
                format!("{:.1}", median(oll)),
                rc2_text,
                cost.map_or("?".into(), |c| c.to_string()),
            ],
        );
    }
}
