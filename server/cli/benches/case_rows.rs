//! What one row per unit-test case costs, on the four framework fixtures:
//! the executables' own run (`ctest` on a plain CMake build, no coverage)
//! against `faultlens localize` with one row per executable and with one
//! row per case (each case its own process, with its own coverage). The
//! coverage build is incremental after the first run and counted in both
//! faultlens columns. Medians of interleaved repetitions in this one run.

// The end-to-end tests' helpers (a fixture copy that leaves `.faultlens/` out).
#[path = "../tests/common/mod.rs"]
mod common;
use common::copy_tree;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const FIXTURES: [&str; 4] = [
    "strbuf-criterion",
    "stack-check",
    "histogram-cmocka",
    "bitset-unity",
];
const REPEATS: usize = 5;

fn timed(command: &mut Command) -> Duration {
    let start = Instant::now();
    let out = command.output().unwrap();
    // Every fixture has failing tests: ctest and localize report them
    // with a non-zero status only when they could not run at all.
    assert!(
        out.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    start.elapsed()
}

fn localize(root: &Path) -> Duration {
    timed(Command::new(env!("CARGO_BIN_EXE_faultlens")).args([
        "localize",
        root.to_str().unwrap(),
        "--format",
        "json",
    ]))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    println!(
        "{REPEATS} interleaved repetitions; medians in ms; ratios against the executables' own run"
    );
    println!(
        "{:<18} {:>6} {:>10} {:>14} {:>14} {:>9} {:>9}",
        "fixture", "cases", "own run", "exe rows", "case rows", "exe ×", "case ×"
    );
    for name in FIXTURES {
        let temp = tempfile::tempdir().unwrap();
        let (cases, whole, plain) = (
            temp.path().join("cases"),
            temp.path().join("whole"),
            temp.path().join("plain"),
        );
        let fixture = repo.join("fixtures").join(name);
        copy_tree(&fixture, &cases);
        copy_tree(&fixture, &whole);
        std::fs::write(whole.join("faultlens.toml"), "[run]\nsplit_cases = false\n").unwrap();
        let build = plain.join("build");
        let configured = Command::new("cmake")
            .arg("-S")
            .arg(&fixture)
            .arg("-B")
            .arg(&build)
            .output()
            .unwrap();
        assert!(configured.status.success());
        assert!(Command::new("cmake")
            .arg("--build")
            .arg(&build)
            .output()
            .unwrap()
            .status
            .success());
        // Warm-up: the first localization configures and builds.
        localize(&cases);
        localize(&whole);
        let (mut own, mut exe, mut per_case) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..REPEATS {
            // bitset-unity's faulty build has a case that never ends: the
            // same 2 s limit as its faultlens.toml.
            own.push(timed(
                Command::new("ctest")
                    .args(["--timeout", "2"])
                    .current_dir(&build),
            ));
            exe.push(localize(&whole));
            per_case.push(localize(&cases));
        }
        let results: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(cases.join(".faultlens/results.json")).unwrap(),
        )
        .unwrap();
        let n = results["tests"].as_array().unwrap().len();
        let (o, e, c) = (median(own), median(exe), median(per_case));
        println!(
            "{name:<18} {n:>6} {:>10.1} {:>14.1} {:>14.1} {:>8.1}× {:>8.1}×",
            ms(o),
            ms(e),
            ms(c),
            e.as_secs_f64() / o.as_secs_f64(),
            c.as_secs_f64() / o.as_secs_f64()
        );
    }
}
