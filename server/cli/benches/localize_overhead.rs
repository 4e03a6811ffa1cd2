//! What coverage costs: wall time of `faultlens localize` (coverage build,
//! one process per test, coverage read as each test ends, ranking, the
//! results written) against building the same program without coverage and
//! running the same tests, checking their output, with the same
//! parallelism (also against the tests alone, without their build). All
//! measured in this one run: medians of interleaved repetitions, then ten
//! `localize` runs back to back (a run must not make the next one slower),
//! then ten plain runs for the machine's own spread. The suite is `compact-suite`'s program with its
//! table of cases repeated to 1,740 quick tests.

// The end-to-end tests' helpers (a fixture copy that leaves `.faultlens/` out).
#[path = "../tests/common/mod.rs"]
mod common;
use common::copy_tree;

use faultlens_workspace::declared::{discover_declared, DEFAULT_TIMEOUT};
use faultlens_workspace::testspec::Invocation;
use faultlens_workspace::Project;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const FIXTURE: &str = "compact-suite";
const REPEATS: usize = 5;
const BACK_TO_BACK: usize = 10;
/// The fixture's 250 table cases, this many times over (plus its 25 stdin
/// tests).
const TABLE_COPIES: usize = 7;

/// Builds without coverage and runs every test, checking stdout as a plain
/// test runner would.
/// Builds without coverage, runs every test; the whole time and the time
/// of the tests alone.
fn plain_run(project: &Project, jobs: usize) -> (Duration, Duration) {
    let start = Instant::now();
    let program = project.root.join("plain-prog");
    let sources = project.config.build.sources.clone().unwrap();
    let status = Command::new("gcc")
        .arg("-O0")
        .args(&project.config.build.cflags)
        .args(sources.iter().map(|s| project.root.join(s)))
        .args(&project.config.build.ldflags)
        .arg("-o")
        .arg(&program)
        .status()
        .unwrap();
    assert!(status.success());
    let tests_start = Instant::now();
    let specs = discover_declared(project, DEFAULT_TIMEOUT)
        .unwrap()
        .unwrap();
    let next = AtomicUsize::new(0);
    let passed = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(spec) = specs.get(i) else { break };
                let Invocation::Argv(argv) = &spec.invocation else {
                    unreachable!()
                };
                let mut child = Command::new(&program)
                    .args(&argv[1..])
                    .current_dir(&spec.cwd)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                let mut stdin = child.stdin.take().unwrap();
                let _ = stdin.write_all(&spec.stdin);
                drop(stdin);
                let out = child.wait_with_output().unwrap();
                if Some(out.stdout) == spec.expect.stdout {
                    passed.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    std::hint::black_box(passed.load(Ordering::Relaxed));
    (start.elapsed(), tests_start.elapsed())
}

fn faultlens_run(root: &Path) -> Duration {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args(["localize", root.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Repeats the table's cases: the same quick tests, many more of them.
fn grow_suite(root: &Path) {
    let table = root.join("tests/cases.txt");
    let text = std::fs::read_to_string(&table).unwrap();
    let cases: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    let grown: Vec<&str> = (0..TABLE_COPIES)
        .flat_map(|_| cases.iter().copied())
        .collect();
    std::fs::write(&table, grown.join("\n") + "\n").unwrap();
}

fn seconds(d: &Duration) -> f64 {
    d.as_secs_f64()
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&repo.join("fixtures").join(FIXTURE), dir.path());
    grow_suite(dir.path());
    let project = Project::load(dir.path()).unwrap();
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let tests = discover_declared(&project, DEFAULT_TIMEOUT)
        .unwrap()
        .unwrap()
        .len();

    let (mut plain, mut tests_alone, mut lens) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..REPEATS {
        let (whole, alone) = plain_run(&project, jobs);
        plain.push(whole);
        tests_alone.push(alone);
        lens.push(faultlens_run(dir.path()));
    }
    let (p, a, l) = (median(plain), median(tests_alone), median(lens));
    println!(
        "suite: {FIXTURE}'s program, {tests} tests, {jobs} jobs, {REPEATS} interleaved repetitions"
    );
    println!(
        "plain build + tests:      median {:>7.1} ms",
        seconds(&p) * 1e3
    );
    println!(
        "plain tests alone:        median {:>7.1} ms",
        seconds(&a) * 1e3
    );
    println!(
        "faultlens localize:       median {:>7.1} ms",
        seconds(&l) * 1e3
    );
    println!(
        "ratio localize / plain:   {:.2}× (build + tests), {:.2}× (tests alone)",
        seconds(&l) / seconds(&p),
        seconds(&l) / seconds(&a)
    );
    println!(
        "per test, localize:       {:.3} ms",
        seconds(&l) * 1e3 / tests as f64
    );

    let runs: Vec<Duration> = (0..BACK_TO_BACK)
        .map(|_| faultlens_run(dir.path()))
        .collect();
    let plains: Vec<Duration> = (0..BACK_TO_BACK)
        .map(|_| plain_run(&project, jobs).0)
        .collect();
    let spread = |v: &[Duration]| {
        let (least, most) = (v.iter().min().unwrap(), v.iter().max().unwrap());
        seconds(most) / seconds(least)
    };
    let listed: Vec<String> = runs
        .iter()
        .map(|d| format!("{:.0}", seconds(d) * 1e3))
        .collect();
    println!(
        "{BACK_TO_BACK} back-to-back localize runs (ms): {}",
        listed.join(", ")
    );
    println!(
        "back to back: median {:.1} ms, slowest / fastest {:.2}×, last / first {:.2}×; \
         {BACK_TO_BACK} plain runs after them: slowest / fastest {:.2}× (the machine's own spread)",
        seconds(&median(runs.clone())) * 1e3,
        spread(&runs),
        seconds(&runs[BACK_TO_BACK - 1]) / seconds(&runs[0]),
        spread(&plains)
    );
}
