//! Time to build the control-flow graphs and rank with BlockRank, for the
//! largest fixtures (most C; largest suite) and for a generated 50,000-line
//! C program, all built and run for real (gcc --coverage, the pipeline,
//! gcov) before timing.
//!
//! `cargo bench -p faultlens-blockrank` prints the median of several runs of
//! - `cfg`: `build_cfgs` over every source file;
//! - `blockrank`: `line_scores` (graphs, per-test edge profiles derived from
//!   the coverage of every test, BlockRank per function, line mapping).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use faultlens_blockrank::line_scores;
use faultlens_cfg::build_cfgs;
use faultlens_core::results::RunResults;
use faultlens_pipeline::{localize, CancelToken, RunOptions};
use faultlens_workspace::Project;

const RUNS: usize = 7;
const GENERATED_LINES: usize = 50_000;
const GENERATED_TESTS: usize = 24;

fn main() {
    let scratch =
        std::env::temp_dir().join(format!("faultlens-blockrank-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);

    // The fixture with the most C and the one with the largest suite.
    let (name, fixture) = largest_fixture();
    let mut fixtures = vec![(name, fixture)];
    let suite = fixtures_dir().join("compact-suite");
    if suite.is_dir() {
        fixtures.push(("compact-suite".to_string(), suite));
    }
    for (name, fixture) in fixtures {
        let dir = scratch.join(&name);
        copy_dir(&fixture, &dir);
        measure(&format!("fixture {name}"), &dir);
    }

    let dir = scratch.join("generated");
    generate(&dir);
    measure(&format!("generated {GENERATED_LINES}-line program"), &dir);

    let _ = std::fs::remove_dir_all(&scratch);
}

fn measure(label: &str, dir: &Path) {
    let project = Project::load(dir).unwrap_or_else(|e| panic!("{label}: {e}"));
    let options = RunOptions {
        timeout: Some(Duration::from_secs(60)),
        jobs: None,
        shard: None,
    };
    let results = localize(&project, &options, &|_| {}, &CancelToken::new())
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let sources: Vec<Option<String>> = results
        .files
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(&f.path)).ok())
        .collect();
    let lines: usize = sources.iter().flatten().map(|s| s.lines().count()).sum();
    let cfg = median(|| {
        for s in sources.iter().flatten() {
            std::hint::black_box(build_cfgs(s).unwrap());
        }
    });
    let rank = median(|| {
        std::hint::black_box(line_scores(&results, &sources).unwrap());
    });
    let scores = line_scores(&results, &sources).unwrap();
    println!(
        "{label}: {} files, {lines} lines, {} tests ({} failing): cfg {:.2} ms, blockrank {:.2} ms (median of {RUNS}); derivation {:?}",
        results.files.len(),
        results.tests.len(),
        results.failed_count(),
        cfg.as_secs_f64() * 1e3,
        rank.as_secs_f64() * 1e3,
        scores.stats
    );
    check_results(&results);
}

fn check_results(results: &RunResults) {
    assert!(
        results.failed_count() > 0,
        "the benchmark needs failing tests"
    );
}

fn median(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The fixture with the most lines of C.
fn largest_fixture() -> (String, PathBuf) {
    fn c_lines(dir: &Path) -> usize {
        let mut n = 0;
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with(".faultlens") {
                n += c_lines(&path);
            } else if path.extension().is_some_and(|e| e == "c" || e == "h") {
                n += std::fs::read_to_string(&path).map_or(0, |s| s.lines().count());
            }
        }
        n
    }
    std::fs::read_dir(fixtures_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| (c_lines(&e.path()), e))
        .max_by_key(|(n, _)| *n)
        .map(|(_, e)| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .expect("fixtures exist")
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

/// A program of about `GENERATED_LINES` lines: many functions with loops,
/// `if`/`else`, `switch` with fall-through, `&&`, `?:` and early returns;
/// `main` calls a share of them depending on its argument. One function
/// has a fault that makes a few tests fail.
fn generate(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let mut c = String::from("#include <stdio.h>\n#include <stdlib.h>\n\n");
    let per_function = 37;
    let functions = GENERATED_LINES / per_function;
    for f in 0..functions {
        // f735 runs for seeds ≡ 3 (mod 4) and the fault shows for n = 7.
        let fault = if f == 735 { " + (n == 7)" } else { "" };
        write!(
            c,
            "static int f{f}(int x, int n)
{{
    int s = {f} % 7;
    for (int i = 0; i < n; i++) {{
        if (i % 3 == 0 && x > 2)
            s += i;
        else
            s -= x;
        if (s > 1000)
            break;
    }}
    while (x > 0) {{
        s += x % 2 ? 1 : 2;
        x /= 2;
    }}
    switch (s & 3) {{
    case 0:
        s += 3;
    case 1:
        s *= 2;
        break;
    case 2:
        s -= 1;
        break;
    default:
        s = -s;
    }}
    if (s < -500 || s > 500)
        return 0;
    if (n > 5)
        s += n{fault};
    else
        s -= n;
    return s % 1000;
}}

"
        )
        .unwrap();
    }
    c.push_str("int main(int argc, char **argv)\n{\n    int seed = argc > 1 ? atoi(argv[1]) : 0;\n    long total = 0;\n");
    c.push_str("    switch (seed % 4) {\n");
    for part in 0..4 {
        writeln!(c, "    case {part}:").unwrap();
        for f in (part..functions).step_by(4) {
            writeln!(c, "        total += f{f}(seed + {f} % 11, seed % 9);").unwrap();
        }
        c.push_str("        break;\n");
    }
    c.push_str("    }\n    printf(\"%ld\\n\", total);\n    return 0;\n}\n");
    std::fs::write(dir.join("gen.c"), &c).unwrap();

    // Expected outputs: the program without the fault.
    let fixed = c.replace(" + (n == 7)", "");
    std::fs::write(dir.join("fixed.c"), &fixed).unwrap();
    let status = std::process::Command::new("gcc")
        .args(["-O0", "-o", "fixed", "fixed.c"])
        .current_dir(dir)
        .status()
        .expect("gcc runs");
    assert!(status.success());
    let mut toml = String::from("[build]\nsources = [\"gen.c\"]\nprogram = \"gen\"\n");
    for t in 0..GENERATED_TESTS {
        let seed = t * 4 + 3;
        let out = std::process::Command::new(dir.join("fixed"))
            .arg(seed.to_string())
            .output()
            .unwrap();
        let expected = String::from_utf8(out.stdout).unwrap();
        write!(
            toml,
            "\n[[test]]\nname = \"seed-{seed}\"\nargs = [\"{seed}\"]\nexpected_stdout = {expected:?}\n"
        )
        .unwrap();
    }
    std::fs::write(dir.join("faultlens.toml"), toml).unwrap();
    std::fs::remove_file(dir.join("fixed")).unwrap();
    std::fs::remove_file(dir.join("fixed.c")).unwrap();
}
